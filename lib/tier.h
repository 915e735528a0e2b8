/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtier: memory tiers, cgroups and tiering policy.
 *
 * Conventions (the same everywhere in this header):
 *  - Functions that can fail return 0 (or a documented non-negative value)
 *    on success and a negative errno on failure.  Out-parameters are named
 *    ret_* and are left untouched when the function fails.
 *  - The library never prints.  Diagnostics go to the log function set with
 *    tier_ctx_set_log_fn(); without one they are dropped.
 *  - Cgroup paths are relative to the cgroup2 mount root and start with '/'.
 *    The root cgroup is "/".
 *  - Sizes are bytes.  UINT64_MAX stands for the kernel's "max".
 *  - Objects are opaque.  A few small value structs are public so callers can
 *    build inputs (struct tier_observed) and read results without accessors.
 */
#ifndef LIBTIER_TIER_H
#define LIBTIER_TIER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Context
 * ------------------------------------------------------------------------ */

struct tier_ctx;

/*
 * Log hook.  priority is a syslog(3) priority (LOG_ERR ... LOG_DEBUG);
 * file/line/fn locate the library call site.
 */
typedef void (*tier_log_fn)(void *data, int priority, const char *file, int line,
			    const char *fn, const char *format, va_list args);

/*
 * Create a context.  Each root may be NULL to discover it:
 *  cgroup_root: the cgroup2 mount point, found with libcgroup (memory
 *               controller mount, accepted only if statfs() says cgroup2:
 *               on a hybrid v1/v2 host libcgroup returns the v1 hierarchy)
 *               and otherwise from <procfs_root>/self/mountinfo (the first
 *               mount of fstype cgroup2);
 *  sysfs_root:  "/sys";
 *  procfs_root: "/proc".
 * Given roots are used verbatim (they need not exist until used), so tests
 * can point the library at a fake tree.  Returns -ENOENT if no cgroup2 mount
 * can be discovered, -ENOMEM.
 * The new context holds one reference.
 */
int tier_ctx_new(const char *cgroup_root, const char *sysfs_root, const char *procfs_root,
		 struct tier_ctx **ret_ctx);
struct tier_ctx *tier_ctx_ref(struct tier_ctx *ctx);
struct tier_ctx *tier_ctx_unref(struct tier_ctx *ctx); /* always returns NULL */

void tier_ctx_set_log_fn(struct tier_ctx *ctx, tier_log_fn fn, void *data);
/* Messages with priority > this are not passed to the hook.  Default LOG_ERR;
 * the environment variable TIER_LOG (err|warning|notice|info|debug or a
 * number) overrides the default at tier_ctx_new(). */
void tier_ctx_set_log_priority(struct tier_ctx *ctx, int priority);
int tier_ctx_get_log_priority(const struct tier_ctx *ctx);
void tier_ctx_set_userdata(struct tier_ctx *ctx, void *userdata);
void *tier_ctx_get_userdata(const struct tier_ctx *ctx);

const char *tier_ctx_get_cgroup_root(const struct tier_ctx *ctx);
const char *tier_ctx_get_sysfs_root(const struct tier_ctx *ctx);
const char *tier_ctx_get_procfs_root(const struct tier_ctx *ctx);

/* ------------------------------------------------------------------------
 * memory.numa_balancing modes
 * ------------------------------------------------------------------------ */

enum tier_mode {
	TIER_MODE_INHERIT = 0,	/* constrains nothing */
	TIER_MODE_FULL = 1,	/* placement + promotion (the global sysctl) */
	TIER_MODE_PROMOTE = 2,	/* promotion-only scans */
	TIER_MODE_OFF = 3,	/* no scanning */
	_TIER_MODE_MAX,
	TIER_MODE_INVALID = -1,
};

/* "inherit", "full", "promote", "off"; NULL for anything else. */
const char *tier_mode_to_string(enum tier_mode mode);
/* Exact match of one of the four names; -EINVAL otherwise. */
int tier_mode_from_string(const char *s, enum tier_mode *ret_mode);
/*
 * The most restrictive of two modes (off < promote < full; inherit constrains
 * nothing).  tier_mode_restrict(parent_effective, own) gives a cgroup's
 * effective mode.  Two inherits give TIER_MODE_INHERIT; callers that want a
 * "resolved" value treat INHERIT as FULL (nothing restricts the sysctl).
 */
enum tier_mode tier_mode_restrict(enum tier_mode a, enum tier_mode b);

/* ------------------------------------------------------------------------
 * Topology: NUMA nodes and memory tiers
 * ------------------------------------------------------------------------ */

#define TIER_ID_NONE (-1)

struct tier_node {
	int id;			/* NUMA node id */
	int tier;		/* memory tier id (memory_tierN), TIER_ID_NONE if none */
	bool has_memory;	/* in <sysfs>/devices/system/node/has_memory */
	bool has_cpu;		/* in <sysfs>/devices/system/node/has_cpu */
	bool top_tier;		/* the kernel's node_is_toptier() */
	uint64_t mem_total;	/* bytes, from nodeN/meminfo MemTotal */
	uint64_t mem_free;	/* bytes, from nodeN/meminfo MemFree */
};

struct tier_memtier {
	int id;			/* N of memory_tierN; TIER_ID_NONE for the synthetic
				 * single tier of a kernel without memory_tiering */
	bool top;		/* its nodes are top tier */
	unsigned n_nodes;
	const int *nodes;	/* node ids, ascending */
	uint64_t mem_total;	/* sum over its nodes */
	uint64_t mem_free;
};

struct tier_topology;

/*
 * Read nodes from <sysfs>/devices/system/node/node* (has_memory, has_cpu,
 * nodeN/meminfo) and tiers from <sysfs>/devices/virtual/memory_tiering/
 * memory_tierN/nodelist.  Top tier follows the kernel's node_is_toptier():
 * every tier up to and including the slowest tier that holds a node with
 * CPUs; if no tier holds a CPU node (or has_cpu is unreadable), the fastest
 * (lowest id) tier with memory.  Without memory_tiering in sysfs, all memory
 * nodes form one synthetic top tier (id TIER_ID_NONE).  Without
 * devices/system/node (a non-NUMA kernel), one node 0 is built from
 * <procfs>/meminfo.  One tier is a normal, valid result.
 */
int tier_topology_read(struct tier_ctx *ctx, struct tier_topology **ret_topo);
void tier_topology_free(struct tier_topology *topo);

unsigned tier_topology_node_count(const struct tier_topology *topo);
/* i-th node in ascending id order; NULL if out of range. */
const struct tier_node *tier_topology_node(const struct tier_topology *topo, unsigned i);
/* Node by NUMA id; NULL if absent. */
const struct tier_node *tier_topology_find_node(const struct tier_topology *topo, int id);
unsigned tier_topology_tier_count(const struct tier_topology *topo);
/* i-th tier in ascending id order (fastest first); NULL if out of range. */
const struct tier_memtier *tier_topology_tier(const struct tier_topology *topo, unsigned i);
/* Sum of MemTotal of top-tier nodes (fast-tier capacity before any reserve). */
uint64_t tier_topology_fast_capacity(const struct tier_topology *topo);
/* Sum of MemTotal of all memory nodes. */
uint64_t tier_topology_total_capacity(const struct tier_topology *topo);
/* True if node id is top tier; nodes unknown to the topology count as top. */
bool tier_topology_node_is_toptier(const struct tier_topology *topo, int node);

/* ------------------------------------------------------------------------
 * Cgroups
 * ------------------------------------------------------------------------ */

/*
 * Enumerate the cgroup tree below subtree (NULL or "/" = whole tree),
 * including subtree itself: pre-order, siblings sorted by strcmp(), so a
 * parent always comes before its children.  Returns a NULL-terminated array
 * of malloc'ed paths (free with tier_strv_free()) and its length.
 * -ENOENT if subtree does not exist.
 */
int tier_cgroup_enumerate(struct tier_ctx *ctx, const char *subtree, char ***ret_paths,
			  size_t *ret_n);
void tier_strv_free(char **strv);

/* True if the cgroup directory exists. */
bool tier_cgroup_exists(struct tier_ctx *ctx, const char *cgroup);

/*
 * The one normaliser for cgroup paths from outside (command line, D-Bus,
 * OCI state): "//a/b/" -> "/a/b", the root is "/". -EINVAL for a relative
 * path or a "." or ".." component. Rules match normalised paths.
 */
int tier_cgroup_path_normalize(const char *path, char **ret_path);

/*
 * Open the cgroup's directory (O_RDONLY | O_DIRECTORY | O_CLOEXEC) below the
 * context's cgroup root without following any symlink on the way
 * (openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) or one O_NOFOLLOW openat()
 * per component): -ELOOP if a component is a symlink, -ENOENT if it is
 * missing. For callers that act on the directory itself (xattrs, inotify
 * through /proc/self/fd, fd-relative walks). Every tier_cgroup_* file
 * access goes the same way and opens the file itself with O_NOFOLLOW, and
 * only a regular file is read or written (-EBADFD otherwise).
 */
int tier_cgroup_open(struct tier_ctx *ctx, const char *cgroup, int *ret_fd);

/*
 * Raw attribute I/O (ndctl style: one read()/write(), trailing newline
 * stripped).  -ENOENT if the cgroup does not exist, -EOPNOTSUPP if the cgroup
 * exists but the file does not, otherwise the errno of open/read/write
 * (EINVAL, EBUSY, EACCES, ... are passed through).
 */
int tier_cgroup_read(struct tier_ctx *ctx, const char *cgroup, const char *file, char **ret_value);
int tier_cgroup_write(struct tier_ctx *ctx, const char *cgroup, const char *file, const char *value);
/* A number or "max" (-> UINT64_MAX); -EINVAL if the content is neither. */
int tier_cgroup_read_u64(struct tier_ctx *ctx, const char *cgroup, const char *file,
			 uint64_t *ret_value);
/* Writes "max" for UINT64_MAX. */
int tier_cgroup_write_u64(struct tier_ctx *ctx, const char *cgroup, const char *file,
			  uint64_t value);

/* One key of a "key value" file such as memory.stat; -ENODATA if absent. */
int tier_cgroup_read_stat(struct tier_ctx *ctx, const char *cgroup, const char *file,
			  const char *key, uint64_t *ret_value);

/*
 * memory.numa_stat: one key ("anon", "file", "shmem", ...) per node.
 * Returns an array indexed by node id (ret_n = highest node id + 1; nodes not
 * listed are 0).  Values are bytes as the kernel prints them.  -ENODATA if
 * the key is absent.
 */
int tier_cgroup_read_numa_stat(struct tier_ctx *ctx, const char *cgroup, const char *key,
			       uint64_t **ret_per_node, unsigned *ret_n);

/*
 * Fast/slow tier residency: anon + file of memory.numa_stat per node (file
 * includes shmem), summed over top-tier and other nodes of topo.
 */
struct tier_residency {
	uint64_t fast_bytes;
	uint64_t slow_bytes;
};
int tier_cgroup_read_residency(struct tier_ctx *ctx, const struct tier_topology *topo,
			       const char *cgroup, struct tier_residency *ret_res);

/*
 * memory.numa_balancing.  -EOPNOTSUPP when the cgroup exists but the file
 * does not (kernel without the tierd patches, or the root cgroup), -ENOENT
 * when the cgroup does not exist, -EINVAL for an unknown value.
 */
int tier_cgroup_get_mode(struct tier_ctx *ctx, const char *cgroup, enum tier_mode *ret_mode);
int tier_cgroup_set_mode(struct tier_ctx *ctx, const char *cgroup, enum tier_mode mode);
/*
 * Effective mode: the most restrictive of the cgroup and all its ancestors
 * (the root has no knob and counts as inherit).  Resolved: returns
 * TIER_MODE_FULL when nothing restricts.  Same errors as tier_cgroup_get_mode.
 */
int tier_cgroup_get_effective_mode(struct tier_ctx *ctx, const char *cgroup,
				   enum tier_mode *ret_mode);

/* Bits of struct tier_cgroup_info.valid. */
enum {
	TIER_INFO_MODE = 1u << 0,		/* mode, effective_mode */
	TIER_INFO_CURRENT = 1u << 1,
	TIER_INFO_MIN = 1u << 2,
	TIER_INFO_LOW = 1u << 3,
	TIER_INFO_HIGH = 1u << 4,
	TIER_INFO_MAX = 1u << 5,
	TIER_INFO_RESIDENCY = 1u << 6,		/* fast_bytes, slow_bytes */
	TIER_INFO_TOPTIER_MIN = 1u << 7,	/* memory.toptier_* (tier-aware limits) */
	TIER_INFO_TOPTIER_LOW = 1u << 8,
	TIER_INFO_TOPTIER_HIGH = 1u << 9,
	TIER_INFO_TOPTIER_MAX = 1u << 10,
	TIER_INFO_EFFECTIVE_MODE = 1u << 11,	/* effective_mode alone (0.2) */
	TIER_INFO_ALL = (1u << 12) - 1,
};

struct tier_cgroup_info {
	unsigned valid;			/* TIER_INFO_* bits of fields that were read */
	enum tier_mode mode;		/* configured memory.numa_balancing */
	enum tier_mode effective_mode;	/* resolved (never INHERIT) */
	uint64_t current, min, low, high, max;
	uint64_t fast_bytes, slow_bytes;
	uint64_t toptier_min, toptier_low, toptier_high, toptier_max;
};

/*
 * Read everything above that exists; missing files just leave their bit
 * clear.  topo may be NULL (no residency).  -ENOENT if the cgroup does not
 * exist; other read errors are returned.
 */
int tier_cgroup_read_info(struct tier_ctx *ctx, const struct tier_topology *topo,
			  const char *cgroup, struct tier_cgroup_info *ret_info);
/*
 * The same for the fields in want only (TIER_INFO_* bits; TIER_INFO_MODE
 * then means the configured mode alone, TIER_INFO_EFFECTIVE_MODE the
 * effective one, which walks the ancestors): a caller that needs a few
 * values of many cgroups reads a third of the files.  tier_cgroup_read_info()
 * is want = TIER_INFO_ALL.  Since 0.2.
 */
int tier_cgroup_read_info_mask(struct tier_ctx *ctx, const struct tier_topology *topo,
			       const char *cgroup, unsigned want,
			       struct tier_cgroup_info *ret_info);

/* PIDs in cgroup.procs (ascending file order). */
int tier_cgroup_read_pids(struct tier_ctx *ctx, const char *cgroup, int **ret_pids,
			  size_t *ret_n);
/* readlink(<procfs>/PID/exe).  -ENOENT for a vanished process, -EACCES, ... */
int tier_pid_exe(struct tier_ctx *ctx, int pid, char **ret_exe);

/*
 * Guess the systemd unit of a cgroup path from its components, like
 * systemd's cg_path_get_unit(): the first component that is a unit name but
 * not a .slice ("/system.slice/foo.service/x" -> "foo.service"); if there is
 * none, the last .slice component.  -ENXIO if no component is a unit name.
 * Pure (no I/O).
 */
int tier_cgroup_path_unit(const char *path, char **ret_unit);

/* ------------------------------------------------------------------------
 * Errors of policy parsing
 * ------------------------------------------------------------------------ */

/*
 * A list of diagnostics.  Each entry has a file (as it was opened, or the
 * name given to tier_policy_load_buffer()), a line (0 = the whole file) and a
 * message; tier_errors_get() returns the formatted "FILE:LINE: message"
 * ("FILE: message" when line is 0).  Entries are in the order found: files in
 * load order, lines ascending within a file, then cross-file checks (unknown
 * classes) at the line of the referring key.
 */
struct tier_errors;

struct tier_errors *tier_errors_new(void); /* NULL on ENOMEM */
void tier_errors_free(struct tier_errors *errors);
size_t tier_errors_count(const struct tier_errors *errors);
const char *tier_errors_get(const struct tier_errors *errors, size_t i);
const char *tier_errors_file(const struct tier_errors *errors, size_t i);
unsigned tier_errors_line(const struct tier_errors *errors, size_t i);
const char *tier_errors_message(const struct tier_errors *errors, size_t i);

/* ------------------------------------------------------------------------
 * Policy
 * ------------------------------------------------------------------------ */

struct tier_policy;

/*
 * Policy file format (tierd.conf(5) documents it for users).
 *
 * Syntax (inih, plus our reader): "[section]" headers; "key = value" (or
 * "key: value"); whole-line comments start with ';' or '#'; an inline
 * comment is " ;" (whitespace, then ';') to the end of the line; leading and
 * trailing whitespace is ignored, and an indented line is an ordinary line
 * (never a continuation); CRLF line endings and a UTF-8 BOM are accepted.
 * A line may be at most 198 characters (inih's INI_MAX_LINE is 200).
 * Names and values are case-sensitive.
 *
 * Sections: [daemon], [class:NAME], [rule:NAME]; NAME is 1..64 of
 * [A-Za-z0-9_.-].  Classes and rules may be defined in any file; defining a
 * name twice (in any file) is an error that names the first definition.
 * Rules are evaluated in load order (main file, then drop-ins in strcmp()
 * order of their file names; only "*.conf" regular files not starting with
 * '.'), first match wins.  A [daemon] key may be set once per file; a later
 * file overrides an earlier one.  "include" is only allowed in the main file
 * and is relative to the main file's directory unless absolute.
 *
 * Every key except cgroup/unit/exe/annotation may appear once per section.
 * Values: SIZE as tier_parse_size(), N% as tier_parse_percent(), durations
 * as tier_parse_duration(), booleans as tier_parse_bool(), modes exactly
 * inherit|full|promote|off, log_level exactly err|warning|notice|info|debug.
 * Patterns: cgroup = an absolute glob (TIER_GLOB_PATHNAME); exe = an
 * absolute glob or one starting with '*' (TIER_GLOB_PATHNAME); unit = a glob
 * without '/'; annotation = KEY=GLOB (spaces around '=' are stripped; KEY is
 * matched exactly, GLOB without TIER_GLOB_PATHNAME).
 * Checks after all files: a rule needs a "class" naming an existing class and
 * at least one matcher; toptier_min <= toptier_max when both are sizes or
 * both percentages.
 */

/*
 * Load main_file plus its drop-ins: every *.conf in the drop-in directory,
 * in strcmp() order.  dropin_dir: NULL = [daemon] include= of the main file,
 * else "<main_file>.d"; "" = no drop-ins.  A missing default drop-in
 * directory is fine; a missing explicit one is an error.
 *
 * All problems are collected into errors (may be NULL) and the load fails
 * with -EINVAL if there was any; *ret_policy is then untouched.
 * -ENOENT/-EACCES/... if the main file cannot be opened (also recorded in
 * errors), -ENOMEM.
 */
int tier_policy_load(const char *main_file, const char *dropin_dir, struct tier_errors *errors,
		     struct tier_policy **ret_policy);
/* Parse one buffer (need not be NUL-terminated; NUL bytes are an error)
 * named name in diagnostics.  No drop-ins.  For tests and fuzzing. */
int tier_policy_load_buffer(const char *name, const char *data, size_t size,
			    struct tier_errors *errors, struct tier_policy **ret_policy);
void tier_policy_free(struct tier_policy *policy);

enum tier_log_level_value {
	TIER_LOG_ERR = 3,	/* the syslog priorities */
	TIER_LOG_WARNING = 4,
	TIER_LOG_NOTICE = 5,
	TIER_LOG_INFO = 6,
	TIER_LOG_DEBUG = 7,
};

struct tier_daemon_config {
	const char *cgroup_root;		/* default "/sys/fs/cgroup" */
	uint64_t reconcile_interval_usec;	/* default 30 s */
	uint64_t rebalance_interval_usec;	/* default 10 s */
	bool dry_run;				/* default false */
	int log_level;				/* syslog priority, default LOG_INFO */
	uint64_t fast_tier_reserve;		/* bytes, default 256 MiB */
	unsigned hysteresis_bp;			/* basis points (1/100 %), default 500 */
	const char *include;			/* drop-in dir actually used, NULL if none */
};
const struct tier_daemon_config *tier_policy_daemon(const struct tier_policy *policy);

/* An amount of memory in a class. */
enum tier_amount_kind {
	TIER_AMOUNT_UNSET = 0,
	TIER_AMOUNT_BYTES,	/* value = bytes */
	TIER_AMOUNT_PERCENT,	/* value = basis points of fast-tier capacity (0..10000) */
	TIER_AMOUNT_MAX,	/* "max" */
};
struct tier_amount {
	enum tier_amount_kind kind;
	uint64_t value;
};
/* Bytes of an amount against a fast-tier capacity: UNSET -> dflt, MAX ->
 * UINT64_MAX, PERCENT -> capacity * value / 10000. */
uint64_t tier_amount_resolve(const struct tier_amount *amount, uint64_t capacity, uint64_t dflt);
/* An amount as a policy file would say it ("16G", "1536M", "50%", "12.5%",
 * "max") into buf; returns buf, or NULL if the amount is UNSET. Since 0.2. */
#define TIER_AMOUNT_FORMAT_MAX 32
const char *tier_amount_format(const struct tier_amount *amount, char *buf, size_t size);

struct tier_class {
	const char *name;
	const char *file;		/* where [class:NAME] is */
	unsigned line;
	enum tier_mode mode;		/* default TIER_MODE_INHERIT */
	unsigned weight;		/* 1..10000, default 100 */
	struct tier_amount toptier_min;	/* BYTES or PERCENT, or UNSET */
	struct tier_amount toptier_max;	/* BYTES, PERCENT, MAX, or UNSET */
	struct tier_amount memory_low;	/* BYTES, MAX, or UNSET (leave alone) */
	struct tier_amount memory_high;	/* BYTES, MAX, or UNSET (leave alone) */
};

enum tier_matcher_kind {
	TIER_MATCH_CGROUP = 0,
	TIER_MATCH_UNIT,
	TIER_MATCH_EXE,
	TIER_MATCH_ANNOTATION,
	_TIER_MATCH_MAX,
};
/* "cgroup", "unit", "exe", "annotation" (the policy key names). */
const char *tier_matcher_kind_to_string(enum tier_matcher_kind kind);

struct tier_matcher {
	enum tier_matcher_kind kind;
	const char *pattern;	/* the value as written ("key=value" for annotations) */
	const char *key;	/* annotation key, NULL for other kinds */
	const char *value;	/* annotation value glob; for other kinds == pattern */
	const char *file;
	unsigned line;
};

struct tier_rule {
	const char *name;
	const char *class_name;
	const struct tier_class *class;	/* resolved */
	const char *file;		/* where [rule:NAME] is */
	unsigned line;
	size_t n_matchers;
	const struct tier_matcher *matchers;	/* in file order */
};

size_t tier_policy_class_count(const struct tier_policy *policy);
const struct tier_class *tier_policy_class(const struct tier_policy *policy, size_t i);
const struct tier_class *tier_policy_find_class(const struct tier_policy *policy,
						const char *name);
/* Rules in evaluation order. */
size_t tier_policy_rule_count(const struct tier_policy *policy);
const struct tier_rule *tier_policy_rule(const struct tier_policy *policy, size_t i);
const struct tier_rule *tier_policy_find_rule(const struct tier_policy *policy, const char *name);
/* Files that were read, in order (main file first). */
size_t tier_policy_file_count(const struct tier_policy *policy);
const char *tier_policy_file(const struct tier_policy *policy, size_t i);

/*
 * Value parsers used by the policy (exported for tierctl).
 * Size: digits with an optional fraction ("1.5G"), optional binary suffix
 * K/M/G/T/P/E (case-insensitive, optionally followed by "i" and/or "B":
 * "16G", "16GiB", "16gb"), or a plain "B"; result floored to bytes;
 * -ERANGE on overflow, -EINVAL otherwise.
 * Percent: "N%" or "N.NN%" (up to two decimals), 0..100% -> basis points.
 * Duration: "N" (seconds), "Nms", "Ns", "Nm", "Nh" -> microseconds.
 * Boolean: yes/no/true/false/on/off/1/0 (case-insensitive).
 */
int tier_parse_size(const char *s, uint64_t *ret_bytes);
int tier_parse_percent(const char *s, unsigned *ret_bp);
int tier_parse_duration(const char *s, uint64_t *ret_usec);
int tier_parse_bool(const char *s, bool *ret_bool);

/*
 * Glob matching as used by rules.  With TIER_GLOB_PATHNAME ('cgroup' and
 * 'exe' matchers): '*' and '?' and [...] never match '/', while a double star
 * matches any string including '/': "/a/" + double star matches "/a/b/c" and
 * "/a/"; "/a/" + double star + "/x" matches "/a/x" and "/a/b/x" (a
 * "double star + slash" may match nothing).  Without it ('unit' and annotation values),
 * '*' matches anything.  '\' escapes the next character.  Returns true on a
 * match.  tier_glob_validate() returns -EINVAL for a malformed pattern
 * (unterminated '[' or trailing '\').
 */
#define TIER_GLOB_PATHNAME 1u
bool tier_glob_match(const char *pattern, const char *string, unsigned flags);
int tier_glob_validate(const char *pattern);

/* ------------------------------------------------------------------------
 * Observed state (input of evaluation)
 * ------------------------------------------------------------------------ */

struct tier_observed_cgroup {
	const char *path;			/* "/system.slice/foo.service" */
	const char *unit;			/* systemd unit, or NULL */
	const char *const *exes;		/* NULL-terminated, or NULL */
	const char *const *annotations;		/* "key=value", NULL-terminated, or NULL */
	bool mode_supported;			/* memory.numa_balancing exists */
	enum tier_mode mode;			/* its value if supported */
	uint64_t memory_low;			/* current values (UINT64_MAX = max) */
	uint64_t memory_high;
};

struct tier_observed {
	uint64_t fast_capacity;			/* bytes, for percentages (minus reserve
						 * is the caller's choice) */
	size_t n_cgroups;
	const struct tier_observed_cgroup *cgroups;
};

enum {
	TIER_OBSERVE_EXE = 1u << 0,		/* read cgroup.procs and /proc/PID/exe */
	TIER_OBSERVE_ANNOTATIONS = 1u << 1,	/* "user.KEY" xattrs of the cgroup dir,
						 * as "KEY=VALUE" */
};

/*
 * Build a tier_observed from the live tree below subtree (NULL = all).
 * unit comes from tier_cgroup_path_unit().  fast_capacity from topo (may be
 * NULL -> 0).  Cgroups that vanish while being read are left out.  Free the
 * result with tier_observed_free() (only for objects made by this function).
 */
int tier_observe(struct tier_ctx *ctx, const struct tier_topology *topo, const char *subtree,
		 unsigned flags, struct tier_observed **ret_observed);
void tier_observed_free(struct tier_observed *observed);

/* ------------------------------------------------------------------------
 * Evaluation (pure) and plan
 * ------------------------------------------------------------------------ */

struct tier_plan_entry {
	const char *path;
	/* Decision; rule == NULL means unmanaged (leave alone). */
	const struct tier_rule *rule;
	const struct tier_class *class;		/* rule's class; set whenever rule is */
	const struct tier_matcher *matcher;	/* which matcher matched */
	const char *matched_value;		/* what it matched: the path, unit, exe
						 * or "key=value" annotation */
	/* Desired values. */
	bool set_mode;
	enum tier_mode mode;
	bool set_low;
	uint64_t memory_low;
	bool set_high;
	uint64_t memory_high;
	/* Fairness inputs resolved against fast_capacity (informational). */
	unsigned weight;
	uint64_t toptier_min;		/* 0 if unset */
	uint64_t toptier_max;		/* UINT64_MAX if unset/max */
	/* Copied from the observed state. */
	bool mode_supported;
	enum tier_mode current_mode;
	uint64_t current_low, current_high;
};

struct tier_plan;

/*
 * Pure: no I/O.  For every observed cgroup in order, the first rule (policy
 * order) with any matching matcher decides; matchers are tried in the rule's
 * order.  Matchers are indexed by their literal prefix at load time, so the
 * cost is about the number of candidate rules per cgroup, not the number of
 * rules (10,000 cgroups x 200 rules: ~1-2 ms).  The root cgroup "/" is never managed.  The plan refers to the
 * policy's rules and classes: free the plan before the policy.
 */
int tier_evaluate(const struct tier_policy *policy, const struct tier_observed *state,
		  struct tier_plan **ret_plan);
void tier_plan_free(struct tier_plan *plan);
size_t tier_plan_count(const struct tier_plan *plan);
const struct tier_plan_entry *tier_plan_entry(const struct tier_plan *plan, size_t i);
const struct tier_plan_entry *tier_plan_find(const struct tier_plan *plan, const char *path);

/* ------------------------------------------------------------------------
 * Apply
 * ------------------------------------------------------------------------ */

enum tier_attr {
	TIER_ATTR_NUMA_BALANCING = 0,	/* memory.numa_balancing */
	TIER_ATTR_MEMORY_LOW,		/* memory.low */
	TIER_ATTR_MEMORY_HIGH,		/* memory.high */
	_TIER_ATTR_MAX,
};
/* The file name ("memory.numa_balancing", ...). */
const char *tier_attr_to_string(enum tier_attr attr);

enum tier_apply_status {
	TIER_APPLY_UNMANAGED = 0,	/* no rule matched; nothing read or written */
	TIER_APPLY_UNCHANGED,		/* current == desired */
	TIER_APPLY_CHANGED,		/* written (or would be, in dry-run) */
	TIER_APPLY_VANISHED,		/* cgroup gone (-ENOENT): skipped */
	TIER_APPLY_UNSUPPORTED,		/* file missing (-EOPNOTSUPP): kernel lacks it */
	TIER_APPLY_ERROR,		/* error holds -errno */
	TIER_APPLY_KEPT,		/* differs, but not at the kernel default and
					 * TIER_APPLY_KEEP_SET given: left alone (0.2) */
};
const char *tier_apply_status_to_string(enum tier_apply_status status);

#define TIER_VALUE_MAX 32	/* holds any mode name or u64 / "max" */

struct tier_apply_change {
	enum tier_attr attr;
	enum tier_apply_status status;	/* UNCHANGED, CHANGED, UNSUPPORTED, ERROR, VANISHED */
	int error;			/* negative errno for ERROR/UNSUPPORTED/VANISHED */
	char old_value[TIER_VALUE_MAX];	/* as read ("" if unreadable) */
	char new_value[TIER_VALUE_MAX];	/* as written / to write */
};

struct tier_apply_result {
	const char *path;
	/* Summary: VANISHED if the cgroup is gone, else the worst of the
	 * changes (ERROR > UNSUPPORTED > CHANGED > KEPT > UNCHANGED). */
	enum tier_apply_status status;
	int error;			/* first negative errno, 0 if none */
	unsigned n_changes;
	struct tier_apply_change changes[_TIER_ATTR_MAX]; /* attrs the plan sets */
};

/*
 * Flags of tier_apply(), tier_apply_entry() and tier_class_apply().  All but
 * TIER_APPLY_DRY_RUN are since 0.2 (libtier 0.1 returns -EINVAL for them).
 */
enum {
	TIER_APPLY_DRY_RUN = 1u << 0,	/* read and diff, write nothing */
	/* Leave one attribute alone even if the entry sets it: no read, no
	 * write, no change recorded.  TIER_APPLY_SKIP(attr) is the bit of
	 * an enum tier_attr. */
	TIER_APPLY_SKIP_NUMA_BALANCING = 1u << 1,
	TIER_APPLY_SKIP_MEMORY_LOW = 1u << 2,
	TIER_APPLY_SKIP_MEMORY_HIGH = 1u << 3,
	/* Do not overwrite memory.low/memory.high that someone else already
	 * set: a value that differs from the desired one and is not the
	 * kernel's default (0 for memory.low, max for memory.high) is left
	 * alone and reported as TIER_APPLY_KEPT (old_value: the value kept,
	 * new_value: the one asked for). */
	TIER_APPLY_KEEP_SET = 1u << 4,
};
#define TIER_APPLY_SKIP(attr) (TIER_APPLY_SKIP_NUMA_BALANCING << (attr))

struct tier_apply_results;

/*
 * For each plan entry (same order), re-read the current values, write those
 * that differ from the desired ones (memory.numa_balancing, memory.low,
 * memory.high in that order), and record the outcome.  memory.low/high are
 * rounded down to the page size first (the kernel stores pages and reads
 * back the rounded value), so a second apply finds nothing to change.
 * Raw files are written: for units that systemd owns, callers should set
 * MemoryLow=/MemoryHigh= through systemd (tier_apply_entry() with a writer,
 * or TIER_APPLY_SKIP_MEMORY_LOW/HIGH).  A cgroup that vanishes (-ENOENT, or
 * -ENODEV from a write racing its removal) is VANISHED and does not affect
 * the others.  Writes are logged at LOG_INFO, errors at LOG_ERR.
 * Returns the number of entries with status ERROR (>= 0), or a negative
 * errno if nothing could be done (-ENOMEM, -EINVAL).
 */
int tier_apply(struct tier_ctx *ctx, const struct tier_plan *plan, unsigned flags,
	       struct tier_apply_results **ret_results);

/*
 * A writer for tier_apply_entry(): put change->new_value into
 * change->attr of cgroup the caller's way (for example MemoryLow= through
 * systemd for the cgroup of a unit, falling back to tier_cgroup_write()).
 * change->attr, old_value and new_value are filled in.  Called only for a
 * value that differs, never in a dry run.  Return 0 or a negative errno:
 * -ENOENT/-ENODEV make the attribute VANISHED, -EOPNOTSUPP UNSUPPORTED,
 * anything else ERROR (with that errno).  Since 0.2.
 */
typedef int (*tier_apply_write_fn)(void *userdata, struct tier_ctx *ctx, const char *cgroup,
				   const struct tier_apply_change *change);

/*
 * Apply one plan entry, which need not come from a plan (a caller may copy
 * and adjust one), exactly as tier_apply() does, into *ret_result
 * (ret_result->path = entry->path).  write_fn NULL writes the raw cgroup
 * file with tier_cgroup_write(); otherwise it is called with userdata for
 * every value to write.  An attribute that vanishes ends the entry (the
 * later ones are not tried).  Logs nothing: report from the result.
 * Returns 1 if the result's status is ERROR, else 0; -EINVAL for a NULL
 * argument or unknown flags (*ret_result untouched).  Since 0.2.
 */
int tier_apply_entry(struct tier_ctx *ctx, const struct tier_plan_entry *entry, unsigned flags,
		     tier_apply_write_fn write_fn, void *userdata,
		     struct tier_apply_result *ret_result);

/*
 * Apply one class to one cgroup, with the desired values tier_evaluate()
 * would give a cgroup in that class (percentages against the fast-tier
 * capacity of topo, 0 if topo is NULL): memory.numa_balancing always (skip
 * it with TIER_APPLY_SKIP_NUMA_BALANCING, e.g. for mode inherit), memory.low
 * and memory.high if the class sets them.  For callers without a plan,
 * such as a container hook.  Raw files are written; logs nothing;
 * ret_result->path = cgroup.  Returns as tier_apply_entry(); -EINVAL also
 * for an invalid cgroup path.  Since 0.2.
 */
int tier_class_apply(struct tier_ctx *ctx, const char *cgroup, const struct tier_class *cls,
		     const struct tier_topology *topo, unsigned flags,
		     struct tier_apply_result *ret_result);
void tier_apply_results_free(struct tier_apply_results *results);
size_t tier_apply_results_count(const struct tier_apply_results *results);
const struct tier_apply_result *tier_apply_results_get(const struct tier_apply_results *results,
						       size_t i);

/* ------------------------------------------------------------------------
 * Fairness (pure)
 * ------------------------------------------------------------------------ */

struct tier_share_input {
	uint64_t weight;	/* > 0 */
	uint64_t min;		/* guaranteed bytes (0 = none) */
	uint64_t max;		/* cap (UINT64_MAX = none) */
	uint64_t demand;	/* what it could use (UINT64_MAX = unbounded) */
};

/*
 * Weighted max-min water-filling of capacity over n inputs into
 * ret_targets[n]: minimums first (each capped by its max, scaled down
 * proportionally if they exceed capacity), then the remaining capacity is
 * shared in proportion to weight, no target above min(max, demand) (but never
 * below its granted minimum), and what one cannot use goes to the others.
 * -EINVAL for a zero weight or min > max.
 */
int tier_fair_share(uint64_t capacity, size_t n, const struct tier_share_input *inputs,
		    uint64_t *ret_targets);
/* Jain's fairness index (sum x)^2 / (n * sum x^2) of n values; 1.0 for n == 0
 * or all zeros. */
double tier_jain_index(size_t n, const double *values);

/* ------------------------------------------------------------------------
 * One cgroup at a time (branch react, lib/react.c; LIBTIER_0.4).  For a
 * daemon that reacts to events instead of walking the tree.  Kept apart so
 * that the libtier 1.0 rework can fold it in.
 * ------------------------------------------------------------------------ */

/*
 * A tier_observed of the one cgroup path whose directory the caller has
 * open as dfd (fast_capacity from topo, which may be NULL) (for example from tier_cgroup_open(), or a directory fd an
 * inotify watcher already holds): unit from tier_cgroup_path_unit(); with
 * TIER_OBSERVE_EXE the executables of its processes, with
 * TIER_OBSERVE_ANNOTATIONS its trusted.* xattrs.  Nothing is enumerated
 * and the current values are not read (mode_supported is true, the values
 * are the kernel's defaults): tier_apply_entry() reads each value once.
 * -EINVAL for an invalid path, -ENOENT if the cgroup was removed while its
 * processes were read.  Free with tier_observed_free().
 */
int tier_observe_cgroup_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
			   const char *path, unsigned flags, struct tier_observed **ret_observed);

/*
 * tier_apply_entry() with the cgroup's files opened below its directory
 * dfd (O_NOFOLLOW, regular files only) instead of by path: no path walk per
 * value.  A file missing below dfd is UNSUPPORTED (-EOPNOTSUPP), also when
 * the cgroup was removed (its directory has no files then): tell the two
 * apart with tier_cgroup_exists().  write_fn may return 1 for "not mine":
 * the raw file is written below dfd.  -EINVAL for dfd < 0.
 */
int tier_apply_entry_at(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
			unsigned flags, tier_apply_write_fn write_fn, void *userdata,
			struct tier_apply_result *ret_result);

/*
 * The first rule (policy order) with an exe matcher that matches exe,
 * through the policy's prefix index and the globs compiled at load: 1 and
 * *ret_rule, or 0 and *ret_rule = NULL if no exe matcher matches.  Whether
 * that rule decides the class of a cgroup is up to tier_evaluate() (an
 * earlier rule may match the cgroup otherwise).
 */
int tier_policy_match_exe(const struct tier_policy *policy, const char *exe,
			  const struct tier_rule **ret_rule);

#ifdef __cplusplus
}
#endif

#endif /* LIBTIER_TIER_H */
