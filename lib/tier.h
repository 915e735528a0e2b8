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
 *    The root cgroup is "/".  Paths the library holds (plan entries,
 *    observed cgroups, apply results, fair shares) are interned: each
 *    cgroup stores its parent and its own name, so a tree of long paths
 *    costs each name once.  Their accessors build the whole path into the
 *    caller's buffer: they return its length (without the NUL) when it fits
 *    (size > length), -ENAMETOOLONG when it does not (buf is then
 *    unspecified), and the length alone for buf NULL and size 0; -EINVAL
 *    for a NULL object.  The bytes are the cgroup's names as the kernel
 *    lists them, unescaped.
 *  - Sizes are bytes.  UINT64_MAX stands for the kernel's "max".
 *  - Objects are opaque.  Results (apply results, cgroup info, plan entries,
 *    observed state) and the policy's classes, rules and matchers are
 *    allocated by the library and read through accessors; a caller never
 *    allocates a libtier struct or sees its layout, so a new knob or field
 *    does not change the ABI (struct tier_amount, a value, is the one
 *    public layout).
 *  - 2.0 (soname libtier.so.2) broke 1.0 once, deliberately (issue 24):
 *    opaque classes/rules/matchers, a refcounted policy, TIER_APPLY_SKIP()
 *    bits apart from the other flags, interned paths built into the
 *    caller's buffer.  Every symbol is in the version node
 *    LIBTIER_2.0; later releases add nodes.  Value parsers, globs, the pure water-filling, Jain's index
 *    and the [daemon] configuration are not part of the library's ABI: the
 *    project's own programs get them from an internal static archive and
 *    lib/tier-internal.h.
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
 *  cgroup_root: the cgroup2 mount point: the first mount of fstype cgroup2
 *               in <procfs_root>/self/mountinfo whose cgroup.controllers
 *               lists memory (on a hybrid v1/v2 host, where memory is on
 *               cgroup v1, there is none: -ENXIO);
 *  sysfs_root:  "/sys";
 *  procfs_root: "/proc".
 * Given roots are used verbatim (they need not exist until used), so tests
 * can point the library at a fake tree.  Returns -ENOENT if no cgroup2 mount
 * can be discovered, -ENXIO if none has the memory controller, -ENOMEM.
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

/* A NUMA node and a memory tier: owned by their topology, read through
 * accessors. */
struct tier_node;
struct tier_memtier;
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

/* The NUMA node id. */
int tier_node_id(const struct tier_node *node);
/* Its memory tier id (N of memory_tierN), TIER_ID_NONE if none. */
int tier_node_tier(const struct tier_node *node);
/* In <sysfs>/devices/system/node/has_memory, has_cpu. */
bool tier_node_has_memory(const struct tier_node *node);
bool tier_node_has_cpu(const struct tier_node *node);
/* The kernel's node_is_toptier(). */
bool tier_node_is_toptier(const struct tier_node *node);
/* Bytes, from nodeN/meminfo MemTotal and MemFree. */
uint64_t tier_node_mem_total(const struct tier_node *node);
uint64_t tier_node_mem_free(const struct tier_node *node);

/* N of memory_tierN; TIER_ID_NONE for the synthetic single tier of a
 * kernel without memory_tiering. */
int tier_memtier_id(const struct tier_memtier *tier);
/* Its nodes are top tier. */
bool tier_memtier_is_top(const struct tier_memtier *tier);
unsigned tier_memtier_node_count(const struct tier_memtier *tier);
/* The i-th node id, ascending; -1 if out of range. */
int tier_memtier_node(const struct tier_memtier *tier, unsigned i);
/* Sums over its nodes. */
uint64_t tier_memtier_mem_total(const struct tier_memtier *tier);
uint64_t tier_memtier_mem_free(const struct tier_memtier *tier);

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
 * includes shmem), summed over top-tier and other nodes of topo.  Where
 * memory.stat has the key "toptier" (the kernel's tier-aware limits count
 * a cgroup's top-tier bytes exactly, without the statistics' lag), the fast
 * bytes are that value instead (a value that is not a number is ignored);
 * memory.numa_stat is needed either way.
 */
int tier_cgroup_read_residency(struct tier_ctx *ctx, const struct tier_topology *topo,
			       const char *cgroup, uint64_t *ret_fast_bytes,
			       uint64_t *ret_slow_bytes);

/*
 * memory.numa_balancing.  -EOPNOTSUPP when the cgroup exists but the file
 * does not (kernel without the tierd patches, or the root cgroup), -ENOENT
 * when the cgroup does not exist, -EINVAL for an unknown value.
 */
int tier_cgroup_get_mode(struct tier_ctx *ctx, const char *cgroup, enum tier_mode *ret_mode);
int tier_cgroup_set_mode(struct tier_ctx *ctx, const char *cgroup, enum tier_mode mode);
/*
 * Effective mode: the most restrictive of the cgroup and all its ancestors
 * (the root has no knob and counts as inherit).  Where the cgroup has the
 * kernel's read-only memory.numa_balancing.effective (off, promote or
 * full), that value is the mode; otherwise, or if it holds anything else
 * (logged as a warning), one walk down from the root by directory fds
 * computes it.  Resolved: returns TIER_MODE_FULL when nothing restricts.
 * ret_source may be NULL (then the kernel's file spares the walk);
 * otherwise it gets the path of the top-most cgroup that holds the binding
 * value (malloc'ed), found by the walk, or NULL when nothing restricts (the
 * mode is FULL) or when the walk's mode differs from the kernel's (the tree
 * changed in between: the kernel's mode is returned).  Same errors as
 * tier_cgroup_get_mode; a memory.numa_balancing.effective that is a
 * symlink or not a regular file is -ELOOP or -EBADFD, as for any file.
 */
int tier_cgroup_get_effective_mode(struct tier_ctx *ctx, const char *cgroup,
				   enum tier_mode *ret_mode, char **ret_source);

/*
 * What tier_cgroup_info_read() reads: a mask of these in want, exactly one of
 * them for tier_cgroup_info_get().
 */
enum tier_info {
	TIER_INFO_MODE = 1u << 0,		/* configured memory.numa_balancing, an
						 * enum tier_mode */
	TIER_INFO_EFFECTIVE_MODE = 1u << 1,	/* resolved effective mode (never
						 * INHERIT): the kernel's
						 * memory.numa_balancing.effective,
						 * else walks the ancestors */
	TIER_INFO_CURRENT = 1u << 2,		/* memory.current */
	TIER_INFO_MIN = 1u << 3,		/* memory.min */
	TIER_INFO_LOW = 1u << 4,		/* memory.low */
	TIER_INFO_HIGH = 1u << 5,		/* memory.high */
	TIER_INFO_MAX = 1u << 6,		/* memory.max */
	TIER_INFO_FAST_BYTES = 1u << 7,		/* residency on the top tier (needs topo;
						 * as tier_cgroup_read_residency()) */
	TIER_INFO_SLOW_BYTES = 1u << 8,		/* residency on the other tiers */
	TIER_INFO_TOPTIER_MIN = 1u << 9,	/* memory.toptier_* (tier-aware limits) */
	TIER_INFO_TOPTIER_LOW = 1u << 10,
	TIER_INFO_TOPTIER_HIGH = 1u << 11,
	TIER_INFO_TOPTIER_MAX = 1u << 12,
	TIER_INFO_RESIDENCY = TIER_INFO_FAST_BYTES | TIER_INFO_SLOW_BYTES,
	TIER_INFO_ALL = (1u << 13) - 1,
};

struct tier_cgroup_info;

/*
 * Read the values in want (TIER_INFO_* bits; unknown bits are ignored) of one
 * cgroup: one lookup of its directory, then each file relative to it, so a
 * caller that needs a few values of many cgroups reads only those files.
 * Files that do not exist leave their value unset (tier_cgroup_info_get()
 * says -ENODATA).  topo may be NULL (no residency).  -ENOENT if the cgroup
 * does not exist; other read errors are returned.  Free with
 * tier_cgroup_info_free().
 */
int tier_cgroup_info_read(struct tier_ctx *ctx, const struct tier_topology *topo,
			  const char *cgroup, unsigned want, struct tier_cgroup_info **ret_info);
/*
 * One value: what is exactly one TIER_INFO_* bit (-EINVAL otherwise);
 * -ENODATA if it was not asked for or its file does not exist.  Modes are
 * returned as their enum tier_mode value; sizes in bytes, UINT64_MAX = max.
 */
int tier_cgroup_info_get(const struct tier_cgroup_info *info, unsigned what,
			 uint64_t *ret_value);
void tier_cgroup_info_free(struct tier_cgroup_info *info);

/* PIDs in cgroup.procs (ascending file order). */
int tier_cgroup_read_pids(struct tier_ctx *ctx, const char *cgroup, int **ret_pids,
			  size_t *ret_n);
/* readlink(<procfs>/PID/exe).  -ENOENT for a vanished process, -EACCES, ... */
int tier_pid_exe(struct tier_ctx *ctx, int pid, char **ret_exe);

/*
 * The systemd unit of a cgroup path, as systemd's cg_path_get_unit()
 * derives it: the components from the root that are slice names are
 * skipped, and the next one must be a unit name (systemd's rules: a known
 * unit type, its characters, an instance but not a template) that is not
 * a slice ("/system.slice/foo.service/x" -> "foo.service"); a path of
 * slices alone gives its innermost slice ("/user.slice/user-1000.slice" ->
 * "user-1000.slice").  A path that does not start with slices and a unit
 * has none, whatever its components are called: -ENXIO for
 * "/docker/ID/x.service" or "/lxc.payload.c1/system.slice/x.service".  Units
 * of a user's manager give their user@UID.service.  Pure (no I/O).
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
 * Syntax: "[section]" headers; "key = value" (or
 * "key: value"); whole-line comments start with ';' or '#'; an inline
 * comment is " ;" (whitespace, then ';') to the end of the line; leading and
 * trailing whitespace is ignored, and an indented line is an ordinary line
 * (never a continuation); CRLF line endings and a UTF-8 BOM are accepted.
 * A line may be at most 16384 bytes long, its newline not counted.
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
 * Values: SIZE is digits with an optional fraction and an optional binary
 * suffix K/M/G/T/P/E ("16G", "1.5GiB"), N% has up to two decimals, durations
 * are "N", "Nms", "Ns", "Nm", "Nh", booleans yes/no/true/false/on/off/1/0,
 * modes exactly inherit|full|promote|off, log_level exactly
 * err|warning|notice|info|debug.  Patterns: cgroup = an absolute glob in
 * which '*', '?' and [...] never match '/' and a double star matches across
 * '/'; exe = the same, absolute or starting with '*'; unit = a glob without
 * '/' ('*' matches anything); annotation = KEY=GLOB (spaces around '=' are
 * stripped; KEY is matched exactly).  tierd.conf(5) has the details.
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
/*
 * A loaded policy holds one reference; it is immutable, so a daemon can hand
 * it to readers (a plan, a bus call in flight) and drop its own reference on
 * a reload: the last tier_policy_unref() frees it.  A plan holds a
 * reference of its own; a tier_plan_entry_dup() copy does not (keep one
 * while it lives).  Not
 * thread-safe (no atomics): one thread, as the rest of the library.
 */
struct tier_policy *tier_policy_ref(struct tier_policy *policy);
struct tier_policy *tier_policy_unref(struct tier_policy *policy); /* always returns NULL */


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
 * "max") into buf; returns buf, or NULL if the amount is UNSET. */
#define TIER_AMOUNT_FORMAT_MAX 32
const char *tier_amount_format(const struct tier_amount *amount, char *buf, size_t size);

/*
 * A class, a rule and a matcher of a policy: opaque (since 2.0), owned by
 * the policy, valid as long as it holds a reference; read through the
 * accessors below.  A new policy key is a new accessor, never a layout
 * change.  Strings are never NULL unless said otherwise.
 */
struct tier_class;
struct tier_rule;
struct tier_matcher;

const char *tier_class_name(const struct tier_class *cls);
const char *tier_class_file(const struct tier_class *cls);	/* where [class:NAME] is */
unsigned tier_class_line(const struct tier_class *cls);
enum tier_mode tier_class_mode(const struct tier_class *cls);	/* default INHERIT */
unsigned tier_class_weight(const struct tier_class *cls);	/* 1..10000, default 100 */
/* BYTES or PERCENT, or UNSET. */
const struct tier_amount *tier_class_toptier_min(const struct tier_class *cls);
/* BYTES, PERCENT, MAX, or UNSET. */
const struct tier_amount *tier_class_toptier_max(const struct tier_class *cls);
/* BYTES, MAX, or UNSET (leave alone). */
const struct tier_amount *tier_class_memory_low(const struct tier_class *cls);
const struct tier_amount *tier_class_memory_high(const struct tier_class *cls);

enum tier_matcher_kind {
	TIER_MATCH_CGROUP = 0,
	TIER_MATCH_UNIT,
	TIER_MATCH_EXE,
	TIER_MATCH_ANNOTATION,
	_TIER_MATCH_MAX,
};
/* "cgroup", "unit", "exe", "annotation" (the policy key names). */
const char *tier_matcher_kind_to_string(enum tier_matcher_kind kind);

enum tier_matcher_kind tier_matcher_kind(const struct tier_matcher *m);
/* The value as written ("key=value" for annotations). */
const char *tier_matcher_pattern(const struct tier_matcher *m);
/* The annotation key; NULL for other kinds. */
const char *tier_matcher_key(const struct tier_matcher *m);
/* The annotation value glob; for other kinds the pattern. */
const char *tier_matcher_value(const struct tier_matcher *m);
const char *tier_matcher_file(const struct tier_matcher *m);
unsigned tier_matcher_line(const struct tier_matcher *m);

const char *tier_rule_name(const struct tier_rule *rule);
/* Its class (resolved) and the name "class =" gave. */
const struct tier_class *tier_rule_class(const struct tier_rule *rule);
const char *tier_rule_class_name(const struct tier_rule *rule);
const char *tier_rule_file(const struct tier_rule *rule);	/* where [rule:NAME] is */
unsigned tier_rule_line(const struct tier_rule *rule);
size_t tier_rule_matcher_count(const struct tier_rule *rule);
/* The i-th matcher in file order; NULL if out of range. */
const struct tier_matcher *tier_rule_matcher(const struct tier_rule *rule, size_t i);

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


/* ------------------------------------------------------------------------
 * Observed state (input of evaluation)
 * ------------------------------------------------------------------------ */

/* What a cgroup looks like to the rules, and the current values of the
 * attributes a plan may set.  Both opaque; the library owns every string. */
struct tier_observed;
struct tier_observed_cgroup;

enum tier_attr {
	TIER_ATTR_NUMA_BALANCING = 0,	/* memory.numa_balancing */
	TIER_ATTR_MEMORY_LOW,		/* memory.low */
	TIER_ATTR_MEMORY_HIGH,		/* memory.high */
	_TIER_ATTR_MAX,
};
/* The file name ("memory.numa_balancing", ...); NULL for an unknown attr. */
const char *tier_attr_to_string(enum tier_attr attr);

enum {
	TIER_OBSERVE_EXE = 1u << 0,		/* read cgroup.procs and /proc/PID/exe */
	TIER_OBSERVE_ANNOTATIONS = 1u << 1,	/* "trusted.KEY" xattrs of the cgroup dir,
						 * as "KEY=VALUE" */
};

/*
 * Build a tier_observed from the live tree below subtree (NULL = all).
 * unit comes from tier_cgroup_path_unit().  fast_capacity from topo (may be
 * NULL -> 0).  Cgroups that vanish while being read are left out.  The
 * current values of the three attributes are read where the files exist.
 */
int tier_observe(struct tier_ctx *ctx, const struct tier_topology *topo, const char *subtree,
		 unsigned flags, struct tier_observed **ret_observed);

/*
 * One cgroup, for a caller that reacts to events instead of walking the
 * tree: a tier_observed of the one cgroup path whose directory the caller
 * has open as dfd (from tier_cgroup_open(), or a directory fd an inotify
 * watcher holds); fast_capacity from topo (may be NULL).  Its unit comes
 * from tier_cgroup_path_unit(); with TIER_OBSERVE_EXE the executables of its
 * processes, with TIER_OBSERVE_ANNOTATIONS its trusted.* xattrs.  Nothing is
 * enumerated and the current values are not read (they are the kernel's
 * defaults, memory.numa_balancing "inherit"): tier_apply_entry_at() reads
 * each value once.  -EINVAL for an invalid path or dfd < 0, -ENOENT if the
 * cgroup was removed while its processes were read, -ENOMEM.
 */
int tier_observe_cgroup_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
			   const char *path, unsigned flags, struct tier_observed **ret_observed);

/*
 * Build one by hand (a daemon that knows what changed, tests):
 * tier_observed_new(), then tier_observed_add() per cgroup and its setters.
 * fast_capacity is what percentages of classes resolve against (bytes; the
 * caller chooses whether a reserve is subtracted).
 */
int tier_observed_new(uint64_t fast_capacity, struct tier_observed **ret_observed);
void tier_observed_free(struct tier_observed *observed);
uint64_t tier_observed_fast_capacity(const struct tier_observed *observed);
/*
 * Append a cgroup (path as tier_cgroup_path_normalize() returns it; copied).
 * The returned cgroup belongs to observed and stays valid until it is freed.
 * -EINVAL for a path that does not start with '/'.
 */
int tier_observed_add(struct tier_observed *observed, const char *path,
		      struct tier_observed_cgroup **ret_cgroup);
size_t tier_observed_count(const struct tier_observed *observed);
/* i-th cgroup in the order added (tier_observe(): pre-order); NULL if out of range. */
const struct tier_observed_cgroup *tier_observed_get(const struct tier_observed *observed,
						     size_t i);

/* Setters (each copies its string; -EINVAL for NULL, -ENOMEM). */
int tier_observed_cgroup_set_unit(struct tier_observed_cgroup *cgroup, const char *unit);
int tier_observed_cgroup_add_exe(struct tier_observed_cgroup *cgroup, const char *exe);
/* "KEY=VALUE"; -EINVAL without '='. */
int tier_observed_cgroup_add_annotation(struct tier_observed_cgroup *cgroup,
					const char *annotation);
/*
 * The current value of an attribute: an enum tier_mode for
 * TIER_ATTR_NUMA_BALANCING, bytes (UINT64_MAX = max) for the others.  A
 * cgroup whose knob is not set this way counts as not supporting it
 * (kernel without the series); unset memory.low/high count as the kernel
 * defaults 0 and max.  -EINVAL for an unknown attr or mode.
 */
int tier_observed_cgroup_set_current(struct tier_observed_cgroup *cgroup, enum tier_attr attr,
				     uint64_t value);

/* Its path into buf (see "Paths" at the top): length, -ENAMETOOLONG, -EINVAL. */
int tier_observed_cgroup_path(const struct tier_observed_cgroup *cgroup, char *buf, size_t size);
const char *tier_observed_cgroup_unit(const struct tier_observed_cgroup *cgroup); /* or NULL */
/* NULL-terminated arrays, never NULL themselves. */
const char *const *tier_observed_cgroup_exes(const struct tier_observed_cgroup *cgroup);
const char *const *tier_observed_cgroup_annotations(const struct tier_observed_cgroup *cgroup);
/* As tier_plan_entry_get_current(). */
int tier_observed_cgroup_get_current(const struct tier_observed_cgroup *cgroup,
				     enum tier_attr attr, uint64_t *ret_value);

/* ------------------------------------------------------------------------
 * Evaluation (pure) and plan
 * ------------------------------------------------------------------------ */

/*
 * A plan holds one entry per evaluated cgroup: which rule, class and matcher
 * decided (none: unmanaged, leave alone), the desired value of each
 * attribute, and the current values copied from the observed state.  It
 * holds a reference to the policy (its rules and classes): the policy
 * lives as long as the plan.  No I/O.
 */
struct tier_plan;
struct tier_plan_entry;

/* An empty plan for policy; percentages (toptier_min/max = N%) resolve against
 * fast_capacity minus the policy's fast_tier_reserve, the capacity
 * tier_share_compute() divides. */
int tier_plan_new(const struct tier_policy *policy, uint64_t fast_capacity,
		  struct tier_plan **ret_plan);
void tier_plan_free(struct tier_plan *plan);
/*
 * (Re)evaluate every cgroup of observed into plan: for each one, the first
 * rule (policy order) with any matching matcher decides; matchers are tried
 * in the rule's order.  Matchers are indexed by their literal prefix at load
 * time, so the cost per cgroup is about the number of candidate rules the
 * index returns, not the number of rules or the size of the plan.  A cgroup
 * already in the plan is re-decided in place (its entry pointer stays
 * valid, its desired values are reset to the class's), a new one is
 * appended.  The root cgroup "/" is never managed.  On -ENOMEM the cgroups
 * before the failing one are updated.
 */
int tier_plan_update(struct tier_plan *plan, const struct tier_observed *observed);
/*
 * Called by tier_plan_observe() for each cgroup once it is decided, with
 * its entry (owned by the plan, adjustable) and its directory dfd, open
 * until visit returns (for tier_apply_entry_at(): no path walk).  Return
 * 0 to go on, a negative errno to stop the walk with it.
 */
typedef int (*tier_plan_visit_fn)(void *userdata, struct tier_plan_entry *entry, int dfd);

/*
 * tier_observe() and tier_plan_update() in one walk (a daemon's full pass):
 * each cgroup below subtree (NULL = all) is read through the directory fd
 * the walk has open and decided into plan at once, in pre-order, with no
 * observed state of the whole tree in between; then visit (may be NULL) is
 * called with its entry and that fd.  What rules match on is read as
 * tier_observe() reads it (flags: TIER_OBSERVE_*); of the current values
 * only those the decided entry sets (memory.numa_balancing of every
 * managed cgroup, memory.low/memory.high where its class sets them):
 * elsewhere, and for an unmanaged cgroup, the kernel's defaults (inherit,
 * 0, max), as tier_observe_cgroup_at() leaves them.  A cgroup's files are
 * read once, and only those an apply reads.
 * Percentages resolve against the plan's capacity (tier_plan_new()).
 * -EINVAL, -ENOENT if subtree does not exist, -ENOMEM (the cgroups before
 * the failing one are updated), or what visit returned.
 */
int tier_plan_observe(struct tier_plan *plan, struct tier_ctx *ctx, const char *subtree,
		      unsigned flags, tier_plan_visit_fn visit, void *userdata);
/* Drop a cgroup's entry (entries after it move up one index); -ENOENT if absent. */
int tier_plan_remove(struct tier_plan *plan, const char *path);
/* tier_plan_new() + tier_plan_update() with observed's fast capacity. */
int tier_evaluate(const struct tier_policy *policy, const struct tier_observed *observed,
		  struct tier_plan **ret_plan);
size_t tier_plan_count(const struct tier_plan *plan);
/* i-th entry in the order cgroups were first evaluated; NULL if out of range. */
const struct tier_plan_entry *tier_plan_entry(const struct tier_plan *plan, size_t i);
/* An entry by exact path, through a hash (O(1)); NULL if absent. */
const struct tier_plan_entry *tier_plan_find(const struct tier_plan *plan, const char *path);
/* The same, writable, to adjust desired values in place. */
struct tier_plan_entry *tier_plan_find_mutable(struct tier_plan *plan, const char *path);

/*
 * Its cgroup's path into buf (see "Paths" at the top of this header): the
 * length, -ENAMETOOLONG if size <= length, the length for (NULL, 0),
 * -EINVAL.  (1.0 and the 2.0 betas lent a whole path the entry owned.)
 */
int tier_plan_entry_path(const struct tier_plan_entry *entry, char *buf, size_t size);
/* The rule that decided; NULL means unmanaged (no rule matched). */
const struct tier_rule *tier_plan_entry_rule(const struct tier_plan_entry *entry);
const struct tier_class *tier_plan_entry_class(const struct tier_plan_entry *entry);
const struct tier_matcher *tier_plan_entry_matcher(const struct tier_plan_entry *entry);
/* What a unit, exe or annotation matcher matched: the unit, exe or
 * "key=value" annotation.  NULL for a cgroup matcher (what matched is the
 * path: tier_plan_entry_path()) and for an unmanaged entry. */
const char *tier_plan_entry_matched_value(const struct tier_plan_entry *entry);
/*
 * Desired value of attr (as tier_observed_cgroup_set_current()); -ENODATA if
 * the entry leaves attr alone, -EINVAL for an unknown attr.
 */
int tier_plan_entry_get_desired(const struct tier_plan_entry *entry, enum tier_attr attr,
				uint64_t *ret_value);
/* Adjust what an apply writes: -EINVAL for an unknown attr or mode. */
int tier_plan_entry_set_desired(struct tier_plan_entry *entry, enum tier_attr attr,
				uint64_t value);
int tier_plan_entry_clear_desired(struct tier_plan_entry *entry, enum tier_attr attr);
/*
 * Current value as observed when the entry was evaluated: -EOPNOTSUPP for
 * TIER_ATTR_NUMA_BALANCING on a cgroup without the knob.
 */
int tier_plan_entry_get_current(const struct tier_plan_entry *entry, enum tier_attr attr,
				uint64_t *ret_value);
/* Fairness inputs of the class resolved against the plan's fast capacity:
 * weight (0 if unmanaged), toptier_min (0 if unset), toptier_max
 * (UINT64_MAX if unset or max). */
unsigned tier_plan_entry_weight(const struct tier_plan_entry *entry);
uint64_t tier_plan_entry_toptier_min(const struct tier_plan_entry *entry);
uint64_t tier_plan_entry_toptier_max(const struct tier_plan_entry *entry);
/*
 * A copy the caller owns and may adjust without changing the plan (free
 * with tier_plan_entry_free(); it still refers to the policy).  Only
 * entries from tier_plan_entry_dup() may be passed to tier_plan_entry_free().
 */
int tier_plan_entry_dup(const struct tier_plan_entry *entry, struct tier_plan_entry **ret_entry);
void tier_plan_entry_free(struct tier_plan_entry *entry);

/* ------------------------------------------------------------------------
 * Apply
 * ------------------------------------------------------------------------ */

enum tier_apply_status {
	TIER_APPLY_UNMANAGED = 0,	/* no rule matched; nothing read or written */
	TIER_APPLY_UNCHANGED,		/* current == desired */
	TIER_APPLY_CHANGED,		/* written (or would be, in dry-run) */
	TIER_APPLY_VANISHED,		/* cgroup gone (-ENOENT): skipped */
	TIER_APPLY_UNSUPPORTED,		/* file missing (-EOPNOTSUPP): kernel lacks it */
	TIER_APPLY_ERROR,		/* error holds -errno */
	TIER_APPLY_KEPT,		/* differs, but not at the kernel default and
					 * TIER_APPLY_KEEP_SET given: left alone */
};
const char *tier_apply_status_to_string(enum tier_apply_status status);

/*
 * Flags of tier_apply(), tier_apply_entry() and tier_class_apply().  Since
 * 2.0 two ranges that cannot run into each other: bits 0..15 are behaviour
 * flags, bits 16..31 one TIER_APPLY_SKIP() bit per enum tier_attr (room for
 * 16 attributes; a new attribute never moves or reuses a flag).
 */
#define TIER_APPLY_SKIP_SHIFT 16u
#define TIER_APPLY_SKIP_MAX 16u	/* attributes a SKIP bit exists for */
/* Leave one attribute alone even if the entry sets it: no read, no write,
 * no change recorded. */
#define TIER_APPLY_SKIP(attr) (1u << (TIER_APPLY_SKIP_SHIFT + (unsigned)(attr)))
enum {
	TIER_APPLY_DRY_RUN = 1u << 0,	/* read and diff, write nothing */
	/* Do not overwrite memory.low/memory.high that someone else already
	 * set: a value that differs from the desired one and is not the
	 * kernel's default (0 for memory.low, max for memory.high) is left
	 * alone and reported as TIER_APPLY_KEPT (old value: the value kept,
	 * new value: the one asked for). */
	TIER_APPLY_KEEP_SET = 1u << 1,
	/* Write even a value that equals the current one (CHANGED): for a
	 * caller that must re-assert a limit, e.g. so that the kernel
	 * reclaims down to it again. */
	TIER_APPLY_REWRITE = 1u << 2,
	/* Compare with the current values tier_plan_observe() read of the
	 * entry's cgroup through the same directory fd in the visit under way
	 * (tier_apply_entry_at() from its visit callback) instead of reading
	 * them again; an attribute it did not read (or could not) is read as
	 * always.  Elsewhere the same as without. */
	TIER_APPLY_CURRENT = 1u << 3,
	TIER_APPLY_SKIP_NUMA_BALANCING = TIER_APPLY_SKIP(TIER_ATTR_NUMA_BALANCING),
	TIER_APPLY_SKIP_MEMORY_LOW = TIER_APPLY_SKIP(TIER_ATTR_MEMORY_LOW),
	TIER_APPLY_SKIP_MEMORY_HIGH = TIER_APPLY_SKIP(TIER_ATTR_MEMORY_HIGH),
};

/*
 * The outcome for one cgroup: a summary and one change per attribute the
 * entry sets (minus the skipped ones), in attribute order.  Opaque.
 */
struct tier_apply_result;
struct tier_apply_results;

/* The cgroup (the entry's path) into buf, as tier_plan_entry_path(). */
int tier_apply_result_path(const struct tier_apply_result *result, char *buf, size_t size);
/* VANISHED if the cgroup is gone, else the worst of the changes
 * (ERROR > UNSUPPORTED > CHANGED > KEPT > UNCHANGED); UNMANAGED for an
 * entry without a rule. */
enum tier_apply_status tier_apply_result_status(const struct tier_apply_result *result);
/* The first negative errno, 0 if none. */
int tier_apply_result_error(const struct tier_apply_result *result);
size_t tier_apply_result_change_count(const struct tier_apply_result *result);
/* Of the i-th change; i out of range gives _TIER_ATTR_MAX, UNMANAGED, 0, NULL. */
enum tier_attr tier_apply_result_change_attr(const struct tier_apply_result *result, size_t i);
/* UNCHANGED, CHANGED, KEPT, UNSUPPORTED, ERROR or VANISHED. */
enum tier_apply_status tier_apply_result_change_status(const struct tier_apply_result *result,
						       size_t i);
/* Negative errno for ERROR, UNSUPPORTED and VANISHED, else 0. */
int tier_apply_result_change_error(const struct tier_apply_result *result, size_t i);
/* As read ("" if unreadable) and as written / to write: a mode name or a
 * number of bytes or "max". */
const char *tier_apply_result_change_old_value(const struct tier_apply_result *result, size_t i);
const char *tier_apply_result_change_new_value(const struct tier_apply_result *result, size_t i);
/* Only for results of tier_apply_entry() and tier_class_apply(). */
void tier_apply_result_free(struct tier_apply_result *result);

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
void tier_apply_results_free(struct tier_apply_results *results);
size_t tier_apply_results_count(const struct tier_apply_results *results);
/* Owned by results. */
const struct tier_apply_result *tier_apply_results_get(const struct tier_apply_results *results,
						       size_t i);

/*
 * A writer for tier_apply_entry(): put new_value (a mode name, or bytes or
 * "max") into attr of cgroup the caller's way (for example MemoryLow=
 * through systemd for the cgroup of a unit, falling back to
 * tier_cgroup_write()); old_value is what was read.  Called only for a value
 * that differs, never in a dry run.  Return 0, 1 for "not mine: write the
 * raw file" (by path, or below the directory fd of tier_apply_entry_at()),
 * or a negative errno: -ENOENT/-ENODEV make the attribute VANISHED,
 * -EOPNOTSUPP UNSUPPORTED, anything else ERROR (with that errno).
 */
typedef int (*tier_apply_write_fn)(void *userdata, struct tier_ctx *ctx, const char *cgroup,
				   enum tier_attr attr, const char *old_value,
				   const char *new_value);

/*
 * Apply one plan entry (from a plan, or a tier_plan_entry_dup() copy a
 * caller adjusted) exactly as tier_apply() does, into a new result.
 * write_fn NULL writes the raw cgroup file with tier_cgroup_write();
 * otherwise it is called with userdata for every value to write.  An
 * attribute that vanishes ends the entry (the later ones are not tried).
 * Logs nothing: report from the result.  Returns 1 if the result's status is
 * ERROR, else 0; -EINVAL for a NULL argument or unknown flags, -ENOMEM
 * (*ret_result untouched).
 */
int tier_apply_entry(struct tier_ctx *ctx, const struct tier_plan_entry *entry, unsigned flags,
		     tier_apply_write_fn write_fn, void *userdata,
		     struct tier_apply_result **ret_result);

/*
 * tier_apply_entry() with the cgroup's files opened below its directory
 * dfd (O_NOFOLLOW, regular files only) instead of by path: no path walk per
 * value.  A file missing below dfd is UNSUPPORTED (-EOPNOTSUPP) while the
 * cgroup exists and VANISHED once it was removed (its directory has no files
 * then), as by path.  -EINVAL also for dfd < 0.
 */
int tier_apply_entry_at(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
			unsigned flags, tier_apply_write_fn write_fn, void *userdata,
			struct tier_apply_result **ret_result);

/*
 * Apply one class to one cgroup, with the desired values tier_evaluate()
 * would give a cgroup in that class (percentages against the fast-tier
 * capacity of topo, 0 if topo is NULL): memory.numa_balancing always (skip
 * it with TIER_APPLY_SKIP_NUMA_BALANCING, e.g. for mode inherit), memory.low
 * and memory.high if the class sets them.  For callers without a plan,
 * such as a container hook.  Raw files are written; logs nothing; the
 * result's path is cgroup.  Returns as tier_apply_entry(); -EINVAL also for
 * an invalid cgroup path.
 */
int tier_class_apply(struct tier_ctx *ctx, const char *cgroup, const struct tier_class *cls,
		     const struct tier_topology *topo, unsigned flags,
		     struct tier_apply_result **ret_result);

/*
 * Apply one value to one attribute of one cgroup (value as
 * tier_plan_entry_set_desired()), through the same read-compare-write as
 * tier_apply_entry(), with the same flags, writer and result: for callers
 * that set a single knob (tierctl set, fair-share enforcement).  -EINVAL
 * for an invalid cgroup path, attr or mode, or unknown flags.
 */
int tier_cgroup_apply_attr(struct tier_ctx *ctx, const char *cgroup, enum tier_attr attr,
			   uint64_t value, unsigned flags, tier_apply_write_fn write_fn,
			   void *userdata, struct tier_apply_result **ret_result);

/* ------------------------------------------------------------------------
 * Fair share of the fast tier
 *
 * The one computation tierd, tierctl status and tierd-metrics share, so that
 * they give the same targets for the same tree (docs/architecture.md, "Fairness"):
 *
 *  - Who shares: the candidates are the managed cgroups (tier_share_add()
 *    for each, or tier_share_add_plan() for every managed entry of a plan).
 *    Of those, the top-most ones share: a candidate below another candidate
 *    is accounted in its ancestor (its memory is part of the ancestor's).
 *    A top-most candidate whose cgroup.events says "populated 0" (no process
 *    in it or below) holds no share, not even its toptier_min; one whose
 *    cgroup.events cannot be read counts as populated.  A candidate that
 *    cannot be opened (vanished, not a directory, a symlink) is left out.
 *  - Demand and fast-tier bytes are read for the sharers only, each through
 *    its cgroup's directory fd (O_NOFOLLOW, regular files, capped reads):
 *    where memory.stat has the key "toptier" (the kernel's exact count of
 *    the cgroup's top-tier bytes), that is the fast bytes and anon + file of
 *    memory.stat the demand, never below them; otherwise memory.numa_stat
 *    anon + file over top-tier nodes (fast) and over all nodes (demand);
 *    without it memory.current as the demand (fast 0, or toptier);
 *    without either the demand is unknown (UINT64_MAX) and the cgroup shares
 *    by weight alone.  A toptier value that is not a number counts as
 *    absent.
 *  - Capacity: tier_topology_fast_capacity() minus [daemon]
 *    fast_tier_reserve (0 if the reserve is not below it).  On a host with
 *    a single memory tier nothing is shared (capacity 0, no sharers).  Each sharer's
 *    weight is its class's (0 counts as 100); toptier_min and toptier_max
 *    are resolved against that capacity (percentages are of the capacity
 *    shared, not of the whole fast tier); a minimum above the maximum is
 *    lowered to it.
 *  - Targets: weighted max-min water-filling of the capacity (minimums first,
 *    then by weight, none above min(max, demand), what one cannot use goes
 *    to the others).
 *
 * The target is this round's share.  tierd enforces a target that follows
 * the share with hysteresis ([daemon] hysteresis): on its first round they
 * are equal, later tierd's may lag the fresh share by up to the hysteresis.
 *
 * Objects: tier_share_new(); add candidates; tier_share_compute() (again
 * after a change: it starts from the candidates each time); read the
 * sharers by index 0..tier_share_count()-1 (in the order they were added)
 * or look one up with tier_share_find() (O(1)); tier_share_free().
 * ------------------------------------------------------------------------ */

struct tier_share;

/* -EINVAL, -ENOMEM. */
int tier_share_new(struct tier_share **ret_share);
void tier_share_free(struct tier_share *share);
/*
 * A managed cgroup in class cls (the class must outlive the share; the path
 * is copied).  -EINVAL for an invalid path, "/" (the root is never managed)
 * or a NULL class, -EEXIST if path was added already, -ENOMEM.
 */
int tier_share_add(struct tier_share *share, const char *path, const struct tier_class *cls);
/* tier_share_add() of every managed entry of plan (a path already added is
 * skipped); the share then also knows each one's rule (tier_share_rule()). */
int tier_share_add_plan(struct tier_share *share, const struct tier_plan *plan);
/*
 * Decide who shares, read their usage and water-fill, as described above.
 * flags must be 0.  Returns 0; -EINVAL; -ENOMEM (the previous result stays
 * then).  Per-cgroup problems only leave that cgroup out.
 */
int tier_share_compute(struct tier_share *share, struct tier_ctx *ctx,
		       const struct tier_topology *topo, const struct tier_policy *policy,
		       unsigned flags);
/* The capacity shared (fast tier minus the reserve) of the last compute. */
uint64_t tier_share_capacity(const struct tier_share *share);
/* Number of sharers of the last compute. */
size_t tier_share_count(const struct tier_share *share);
/* The i-th sharer's path into buf, as tier_plan_entry_path() (-EINVAL out
 * of range). */
int tier_share_path(const struct tier_share *share, size_t i, char *buf, size_t size);
/* The i-th sharer's (NULL / 0 out of range; max and demand UINT64_MAX). */
const struct tier_class *tier_share_class(const struct tier_share *share, size_t i);
/* Its rule if it was added from a plan, else NULL. */
const struct tier_rule *tier_share_rule(const struct tier_share *share, size_t i);
uint64_t tier_share_target(const struct tier_share *share, size_t i);	/* bytes */
uint64_t tier_share_weight(const struct tier_share *share, size_t i);
uint64_t tier_share_min(const struct tier_share *share, size_t i);	/* 0: none */
uint64_t tier_share_max(const struct tier_share *share, size_t i);	/* UINT64_MAX: none */
uint64_t tier_share_demand(const struct tier_share *share, size_t i);	/* UINT64_MAX: unknown */
uint64_t tier_share_fast_bytes(const struct tier_share *share, size_t i);	/* 0 if unknown */
/* The sharer index of path: 0, or -ENOENT if it does not share (not added,
 * below another candidate, empty, vanished); -EINVAL. */
int tier_share_find(const struct tier_share *share, const char *path, size_t *ret_i);

#ifdef __cplusplus
}
#endif

#endif /* LIBTIER_TIER_H */
