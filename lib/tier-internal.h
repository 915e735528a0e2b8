/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtier's helpers that are not ABI: the project's own programs (tierd,
 * tierctl, tierd-oci-hook, tierd-metrics), tests, benchmarks and fuzzers
 * include this header next to <tier.h> and link the internal static archive
 * (build/lib/libtier-internal.a, or its -asan / -plain variants), which
 * holds the same objects as libtier.so.2 without the version script.  None
 * of these symbols is exported from the shared library, so they may change
 * in any release.  Never installed.
 */
#ifndef LIBTIER_TIER_INTERNAL_H
#define LIBTIER_TIER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tier.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest value an apply result holds, with its NUL: a mode name, or a
 * u64 or "max". */
#define TIER_VALUE_MAX 32

/* ------------------------------------------------------------------------
 * [daemon] configuration of a policy
 * ------------------------------------------------------------------------ */

/* log_level = names of the syslog priorities. */
enum tier_log_level_value {
	TIER_LOG_ERR = 3,
	TIER_LOG_WARNING = 4,
	TIER_LOG_NOTICE = 5,
	TIER_LOG_INFO = 6,
	TIER_LOG_DEBUG = 7,
};

/* [daemon] backend = auto | knob | damon | none: what tiers the cgroups
 * (tier_backend_choose(), below). */
enum tier_backend {
	TIER_BACKEND_AUTO,
	TIER_BACKEND_KNOB,	/* memory.numa_balancing: the kernel with the tierd series */
	TIER_BACKEND_DAMON,	/* DAMON migrate_hot/cold schemes per cgroup (stock kernels) */
	TIER_BACKEND_NONE,	/* no tiering: memory_low/memory_high only */
	_TIER_BACKEND_MAX,
};

enum tier_demand {
	TIER_DEMAND_DEFAULT = 0,	/* a class without the key: [daemon] demand */
	TIER_DEMAND_RESIDENT,		/* all of its memory (memory.numa_stat) */
	TIER_DEMAND_HOT,		/* its hot set (tierd's DAMON measurement) */
};

struct tier_daemon_config {
	const char *cgroup_root;		/* default NULL: tier_cgroup_root_find() */
	enum tier_backend backend;		/* default TIER_BACKEND_AUTO */
	/* numa_balancing_sysctl = keep | off: with the damon backend, off sets
	 * kernel.numa_balancing to 0 while tierd runs (default keep). */
	bool numa_balancing_sysctl_off;
	uint64_t reconcile_interval_usec;	/* default 30 s */
	uint64_t rebalance_interval_usec;	/* default 10 s */
	bool dry_run;				/* default false */
	int log_level;				/* syslog priority, default LOG_INFO */
	uint64_t fast_tier_reserve;		/* bytes, default 256 MiB */
	unsigned hysteresis_bp;			/* basis points (1/100 %), default 500 */
	const char *include;			/* drop-in dir actually used, NULL if none */
	/* What the fair share counts as a cgroup's demand, unless its class
	 * says (demand = resident | hot), and the margin over the hot bytes
	 * (hot_margin, basis points, default 2500). */
	enum tier_demand demand;		/* default TIER_DEMAND_RESIDENT */
	unsigned hot_margin_bp;
};
const struct tier_daemon_config *tier_policy_daemon(const struct tier_policy *policy);

/* The demand a class shares the fast tier by: its own demand key, else
 * [daemon] demand. */
enum tier_demand tier_class_demand(const struct tier_policy *policy, const struct tier_class *cls);
/* The class's promote_budget (bytes per second), 0: none. */
uint64_t tier_class_promote_budget(const struct tier_class *cls);
/* The class's page_cache (default on): tierd promotes its hot page cache
 * through DAMON, where its effective mode is promote or full (no class:
 * false). */
bool tier_class_page_cache(const struct tier_class *cls);
/* "resident", "hot" (NULL for DEFAULT). */
const char *tier_demand_to_string(enum tier_demand d);
int tier_demand_from_string(const char *s, enum tier_demand *ret);
/* Demand by hot set: hot + hot x margin, no more than resident. */
uint64_t tier_demand_hot(uint64_t hot, uint64_t resident, unsigned margin_bp);

/* ------------------------------------------------------------------------
 * The cgroup root (one discovery for tierd, tierctl, tierd-metrics, the hook)
 * ------------------------------------------------------------------------ */

/* Environment variable of the test suites' fake trees (tests/cli/lib.sh,
 * tests/daemon/lib-host.sh, ...): "1" lets a plain directory stand in for a
 * cgroup2 mount.  Never set it on a real host. */
#define TIER_FAKE_CGROUP_ENV "TIER_TEST_FAKE_CGROUP"

/*
 * The cgroup2 root the project's programs use, found or checked the same way
 * by each of them.
 *  root NULL:  discovered: the first cgroup2 mount in
 *              <procfs_root>/self/mountinfo (mount points unescaped: "\040")
 *              whose cgroup.controllers lists memory;
 *  root given: (--cgroup-root, [daemon] cgroup_root) must be a directory on a
 *              cgroup2 filesystem (statfs() f_type CGROUP2_SUPER_MAGIC) whose
 *              cgroup.controllers lists memory.
 * With TIER_FAKE_CGROUP_ENV=1 any directory passes the filesystem check and a
 * missing cgroup.controllers is accepted (a listing without memory is not).
 * Returns 0 and *ret_root (malloc'd), or a negative errno and *ret_why (if
 * ret_why is not NULL; malloc'd, NULL on -ENOMEM), one sentence for the user
 * that says what is wrong and what to do:
 *  -ENOENT       root does not exist, or no cgroup2 mount
 *  -ENOTDIR      root is not a directory
 *  -EMEDIUMTYPE  root is not a cgroup2 filesystem
 *  -ENXIO        the memory controller is not on cgroup2 there (hybrid layout)
 *  -ENOMEM, or what reading mountinfo / cgroup.controllers failed with.
 */
int tier_cgroup_root_find(const char *root, const char *procfs_root, char **ret_root,
			  char **ret_why);

/*
 * The one reader of a cgroup2 mount's options in <procfs_root>/self/mountinfo
 * (mount points unescaped): does the cgroup2 mount at mount_point carry the
 * superblock option option, e.g. "memory_tiered_limits"?  1 or 0; -ENOENT
 * when no cgroup2 mount is there (a fake tree); -EINVAL, -ENOMEM, or what
 * reading mountinfo failed with.  The last mount on the path counts.
 */
int tier_cgroup_mount_has_option(const char *procfs_root, const char *mount_point,
				 const char *option);

/*
 * Is memory.stat's "toptier" (the kernel's exact top-tier count) live for
 * ctx's cgroup root?  The series counts top-tier pages only while cgroup2 is
 * mounted with memory_tiered_limits (a static key the option turns on), so
 * without the option the key is there and reads 0: readers then use
 * memory.numa_stat.  True unless mountinfo shows the root as a cgroup2 mount
 * without the option (a fake tree keeps the key).  Read once per ctx;
 * tier_ctx_mounts_changed() makes the next call read mountinfo again (tierd
 * calls it when /proc/self/mountinfo changes).
 */
bool tier_ctx_toptier_counted(struct tier_ctx *ctx);
void tier_ctx_mounts_changed(struct tier_ctx *ctx);

/*
 * tier_class_apply() with the cgroup's files opened below its directory dfd
 * (O_NOFOLLOW, regular files only, as tier_apply_entry_at()) and never by
 * path, not even to tell a vanished cgroup from a missing file: for a caller
 * that checked the cgroup through dfd (tierd-oci-hook), so that what it
 * writes is what it checked.  cgroup only names it in the result.
 */
int tier_class_apply_at(struct tier_ctx *ctx, int dfd, const char *cgroup,
			const struct tier_class *cls, const struct tier_topology *topo,
			unsigned flags, struct tier_apply_result **ret_result);

/*
 * A reader of cgroups in tree order (a parent before its children, as
 * tier_cgroup_enumerate() and plans list them): tier_cgroup_info_read() of
 * each, but a cgroup below the last one read or one of its ancestors among
 * those read is opened from its parent's directory (kept open: one openat(),
 * never through a symlink) instead of from the root, and its effective mode
 * (where the kernel does not report it) is its parent's restricted by its
 * own, which is what the walk from the root finds; where the parent has
 * none (the walk failed there: a level without the knob) neither has the
 * cgroup, nor its TIER_INFO_MODE, as after a failed walk.  Any other
 * cgroup is read as tier_cgroup_info_read() reads it.  Read one at a time
 * from the root, a cgroup 250 levels deep cost about 1,000 openat() calls.
 * It keeps up to a few hundred directories open.  Same errors as
 * tier_cgroup_info_read().
 */
struct tier_cgroup_reader;
int tier_cgroup_reader_new(struct tier_ctx *ctx, struct tier_cgroup_reader **ret);
void tier_cgroup_reader_free(struct tier_cgroup_reader *rd);
int tier_cgroup_reader_read(struct tier_cgroup_reader *rd, const struct tier_topology *topo,
			    const char *cgroup, unsigned want, struct tier_cgroup_info **ret_info);
/* tier_cgroup_read_stat() of the cgroup read last (below its open
 * directory), or of any other by path. */
int tier_cgroup_reader_read_stat(struct tier_cgroup_reader *rd, const char *cgroup,
				 const char *file, const char *key, uint64_t *ret_value);

/* ------------------------------------------------------------------------
 * The tiering backend (lib/backend.c): one choice for tierd, tierctl and
 * tierd-metrics
 * ------------------------------------------------------------------------ */

/* "auto", "knob", "damon", "none"; NULL out of range.  from_string:
 * -EINVAL for anything else. */
/*
 * Whether tierd enforces modes through DAMON: yes, controller/tierd/
 * tierd-damon.c on lib/damon.c (issue 22).  Kept as a switch so that the
 * readers of the choice (doctor, the backend's reason) have one place that
 * says so.
 */
#define TIER_BACKEND_DAMON_DRIVEN 1

const char *tier_backend_to_string(enum tier_backend b);
int tier_backend_from_string(const char *s, enum tier_backend *ret);

/* How the presence of memory.numa_balancing was decided. */
enum tier_knob_evidence {
	TIER_KNOB_NO_CGROUP,	/* no cgroup2 root with the memory controller: not looked */
	TIER_KNOB_CGROUP,	/* looked in knob_cgroup, a non-root cgroup with memory.current */
	TIER_KNOB_VMSTAT,	/* no such cgroup: <proc>/vmstat numa_promo_pte_updates (the series' counter) */
};

/* What the machine offers (tier_backend_probe()). */
struct tier_backend_probe {
	bool knob;			/* memory.numa_balancing exists */
	enum tier_knob_evidence knob_evidence;
	char *knob_cgroup;		/* TIER_KNOB_CGROUP: the cgroup looked at ("/system.slice") */
	bool damon;			/* <sys>/kernel/mm/damon/admin is a directory */
	unsigned damon_modules;		/* TIER_DAMON_MODULE_* enabled (lib/damon.h) */
	unsigned n_tiers;		/* memory tiers (0: topology not known) */
	int lru_gen;			/* MGLRU: 1 on, 0 off (or not built), -1 unreadable */
};

struct tier_backend_choice {
	enum tier_backend requested;	/* the policy's value (AUTO by default) */
	enum tier_backend backend;	/* what is used: KNOB, DAMON or NONE, never AUTO */
	bool satisfied;			/* false: an explicit value the machine cannot serve
					 * (backend is NONE then); reason says why */
	char *reason;			/* one line for logs and tierctl, malloc'd */
	struct tier_backend_probe probe;
};

/*
 * Probe the machine.  cgroup_root: the cgroup2 root of tier_cgroup_root_find()
 * (NULL: there is none; then no knob); sysfs_root, procfs_root: "/sys" and
 * "/proc" when NULL; topo: the memory tiers (NULL: unknown, n_tiers 0).
 * The knob is not on the root cgroup (CFTYPE_NOT_ON_ROOT): the first
 * subdirectory of the root (in name order, at most TIER_BACKEND_PROBE_MAX
 * looked at, never through a symlink) that has memory.current decides;
 * without one (memory not in the root's cgroup.subtree_control, or no
 * children), <proc>/vmstat's numa_promo_pte_updates, a counter of the same
 * series, does (absent on a kernel without CONFIG_VM_EVENT_COUNTERS: then
 * no knob).  Nothing is written.  0, -ENOMEM; unreadable files count as
 * absent.  tier_backend_probe_done() frees what it holds.
 */
#define TIER_BACKEND_PROBE_MAX 64
int tier_backend_probe(const char *cgroup_root, const char *sysfs_root, const char *procfs_root,
		       const struct tier_topology *topo, struct tier_backend_probe *ret);
void tier_backend_probe_done(struct tier_backend_probe *p);

/*
 * The choice (pure): auto is knob where memory.numa_balancing exists, else
 * damon where DAMON's sysfs exists and there are two or more memory tiers,
 * else none.  An explicit knob or damon the machine cannot serve gives
 * none, satisfied false and the reason; an explicit value it can serve is
 * used even where auto would pick another.  The probe is copied into
 * *ret (its strings too).  0 or -ENOMEM; tier_backend_choice_done().
 */
int tier_backend_decide(enum tier_backend requested, const struct tier_backend_probe *probe,
			struct tier_backend_choice *ret);
/* tier_backend_probe() + tier_backend_decide(). */
int tier_backend_choose(enum tier_backend requested, const char *cgroup_root,
			const char *sysfs_root, const char *procfs_root,
			const struct tier_topology *topo, struct tier_backend_choice *ret);
void tier_backend_choice_done(struct tier_backend_choice *c);

/*
 * Does DAMON see page cache read with read(2) (unmapped: no PTE's accessed
 * bit), so that tierd's page-cache schemes can promote it?  Pure.  With
 * the series (probe->knob): yes (it clears the idle flag in
 * folio_mark_accessed() under MGLRU too).  A stock 6.12: only with MGLRU
 * off, where folio_mark_accessed() clears it.  1 yes, 0 no, -1 unknown
 * (MGLRU unreadable); *ret_why (may be NULL): one static line.
 */
int tier_pagecache_read_seen(const struct tier_backend_probe *probe, const char **ret_why);

/* ------------------------------------------------------------------------
 * Annotation records: annotations for readers without CAP_SYS_ADMIN
 * ------------------------------------------------------------------------ */

/*
 * libtier reads a cgroup's annotations from its trusted.* xattrs, which
 * only root can write and which the kernel hides from a reader without
 * CAP_SYS_ADMIN (tierd.service does not grant it), and from a record that
 * tierd-oci-hook (root) writes next to the xattr: one file per cgroup in
 * tier_annotation_dir(), named by the inode number of the cgroup's
 * directory (on cgroup2 the cgroup's 64-bit id, not reused while the system
 * runs, so a record left behind names no other cgroup), holding the
 * cgroup's path (for pruning) on its first line, then KEY=VALUE lines.  A
 * record is read only if it is a regular file with one link, owned by root
 * (or by the reader's effective uid), not writable by group or others,
 * opened without following a symlink in a directory of the same kind;
 * anything else is ignored.  Where a trusted.KEY xattr is readable it wins
 * over the record's KEY.
 */
#define TIER_ANNOTATION_DIR "/run/tierd/annotations"
/* With TIER_FAKE_CGROUP_ENV=1 (the tests' fake trees) the records are in
 * this directory, and there are none without it: a test never touches the
 * host's. */
#define TIER_ANNOTATION_DIR_ENV "TIER_TEST_ANNOTATION_DIR"
#define TIER_ANNOTATION_RECORD_MAX (64u << 10)

/* TIER_ANNOTATION_DIR, or as above; NULL: no records. */
const char *tier_annotation_dir(void);

/*
 * Record KEY=VALUE for the cgroup directory dfd (path: its cgroup path)
 * atomically (a temporary file renamed over the old record), creating the
 * directory (0700, and its parents) if missing.  -EINVAL for a path or
 * value with a newline or a key with '=' or a newline; -EPERM if the
 * directory is not trusted; -ENOENT without a directory (fake trees);
 * -errno.
 */
int tier_annotation_record_write(int dfd, const char *path, const char *key, const char *value);

/*
 * Remove the records whose cgroup is gone: the path in the record no longer
 * opens (below ctx's cgroup root, no symlink) to a directory with the
 * record's inode.  Records that are not trusted, or whose cgroup cannot be
 * opened for another reason, are left alone.  The number removed, or -errno.
 */
int tier_annotation_records_prune(struct tier_ctx *ctx);

/* ------------------------------------------------------------------------
 * Value parsers of the policy
 * ------------------------------------------------------------------------ */

/*
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

/* ------------------------------------------------------------------------
 * Globs as rules use them
 * ------------------------------------------------------------------------ */

/*
 * With TIER_GLOB_PATHNAME ('cgroup' and 'exe' matchers): '*' and '?' and
 * [...] never match '/', while a double star matches any string including
 * '/': "/a/" + double star matches "/a/b/c" and "/a/"; "/a/" + double star +
 * "/x" matches "/a/x" and "/a/b/x" (a "double star + slash" may match
 * nothing).  Without it ('unit' and annotation values), '*' matches
 * anything.  '\' escapes the next character.  Returns true on a match.
 * tier_glob_validate() returns -EINVAL for a malformed pattern (unterminated
 * '[' or trailing '\').
 */
#define TIER_GLOB_PATHNAME 1u
bool tier_glob_match(const char *pattern, const char *string, unsigned flags);
int tier_glob_validate(const char *pattern);

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
/*
 * Whether the fast-tier bytes of the i-th sharer of the last
 * tier_share_compute() (tier_share_fast_bytes()) are the kernel's exact
 * top-tier counter, memory.stat "toptier", rather than memory.numa_stat
 * residency: the kernel has the second revision of the tier-aware limits,
 * which keeps each cgroup at its top-tier ceiling itself (demotes above it
 * after a memory.high write and on charges, refuses promotions at it).
 * false out of range.  tierd leaves the ceiling to such a kernel.
 */
bool tier_share_fast_exact(const struct tier_share *share, size_t i);

/*
 * Demand by hot set (tier_class_demand() TIER_DEMAND_HOT): before
 * tier_share_compute(), the caller names where hot bytes come from (tierd:
 * its DAMON measurement; tierctl, tierd-metrics: what tierd last wrote in
 * its run directory).  fn returns 0 and the cgroup's hot bytes, or a
 * negative errno (-ENODATA: not measured): that sharer's demand is then its
 * resident bytes, and tier_share_demand_kind() says RESIDENT while
 * tier_share_hot_wanted() says it asked for hot.  Without a source, every
 * sharer shares by resident bytes.
 */
typedef int (*tier_share_hot_fn)(void *userdata, const char *path, uint64_t *ret_hot);
void tier_share_set_hot_source(struct tier_share *share, tier_share_hot_fn fn, void *userdata);
/*
 * Before tier_share_compute(): read these TIER_INFO_* of each sharer too,
 * through the directory its usage is read from (tierd's fair rounds read
 * the knobs they enforce so, instead of opening every sharer a second
 * time from the root).  tier_share_info() is sharer i's, valid until the
 * next compute; NULL where it could not be read (or none was asked for).
 */
void tier_share_set_info(struct tier_share *share, unsigned want);
/*
 * tier_share_add() of a managed plan entry (or a tier_plan_entry_dup()
 * copy) by its interned path, which the share references instead of
 * copying: tierd adds every managed cgroup of its table each round.  No
 * rule is recorded (tier_share_rule() NULL), as for tier_share_add().
 * -EINVAL for an unmanaged entry or the root, -EEXIST, -ENOMEM.
 */
int tier_share_add_entry(struct tier_share *share, const struct tier_plan_entry *entry);
/* tier_share_path() into a new string. */
int tier_share_path_dup(const struct tier_share *share, size_t i, char **ret_path);
const struct tier_cgroup_info *tier_share_info(const struct tier_share *share, size_t i);
/* What the sharer's demand (tier_share_demand()) is: RESIDENT or HOT. */
enum tier_demand tier_share_demand_kind(const struct tier_share *share, size_t i);
bool tier_share_hot_wanted(const struct tier_share *share, size_t i);
/* Its resident bytes (the demand by resident), UINT64_MAX: unknown. */
uint64_t tier_share_resident(const struct tier_share *share, size_t i);
/* Its hot bytes, UINT64_MAX: not measured (or not asked for). */
uint64_t tier_share_hot(const struct tier_share *share, size_t i);

/*
 * The hot sets tierd measured last, as a file in its run directory
 * (TIER_HOT_SETS_NAME): "tierd-hot-sets 2 MONOTONIC_USEC", then one
 * "TOTAL FAST SLOW PATH" line per managed cgroup: its hot bytes on both
 * tiers, then on the fast and on the slow tier (FAST + SLOW = TOTAL; both
 * "-" where tierd does not know the split), PATH with every byte outside
 * '!'..'~' and '%' as %XX.  tier_hot_sets_write() writes it atomically
 * (hot_fast and hot_slow both NULL: no split; -EINVAL for an empty path, a
 * value of UINT64_MAX or a split that does not add up).
 * tier_share_hot_load() makes it the share's hot source (tierctl,
 * tierd-metrics): -ENOENT without one, -EINVAL if it is not such a file.
 * It also reads version 1, "tierd-hot-sets 1 MONOTONIC_USEC" then "BYTES
 * PATH" lines (a tierd from before the split, still running during an
 * upgrade): totals only.  A malformed line (a field that is not a decimal
 * below 2^64-1, a split that does not add up, an empty path or one with a
 * byte outside '!'..'~' or an escaped NUL) is skipped; the file is read up
 * to 16 MiB (READ_MAX_DEFAULT).  The file is stale when tierd is gone: its age is in
 * *ret_usec.
 */
#define TIER_RUN_DIR "/run/tierd"
#define TIER_HOT_SETS_NAME "hot-sets"
int tier_hot_sets_write(int dir_fd, const char *name, const char *const *paths,
			const uint64_t *hot, const uint64_t *hot_fast, const uint64_t *hot_slow,
			size_t n, uint64_t now_usec);
int tier_share_hot_load(struct tier_share *share, int dir_fd, const char *name,
			uint64_t *ret_usec);
/* tier_share_hot_load() of TIER_HOT_SETS_NAME in the directory dir (NULL:
 * TIER_RUN_DIR; tierctl passes the directory of tierd's bus socket). */
int tier_share_hot_load_dir(struct tier_share *share, const char *dir, uint64_t *ret_usec);
/* The hot bytes of path (both tiers) in what tier_share_hot_load() read
 * (whether or not path shares, or its class asks for hot): -ENODATA if it
 * has none. */
int tier_share_hot_loaded(const struct tier_share *share, const char *path, uint64_t *ret);
/* Its hot bytes on the fast and on the slow tier (they add up to
 * tier_share_hot_loaded()'s): -ENODATA if it has no entry or the entry no
 * split (version 1, or "-"). */
int tier_share_hot_loaded_tiers(const struct tier_share *share, const char *path,
				uint64_t *ret_fast, uint64_t *ret_slow);

/* Jain's fairness index (sum x)^2 / (n * sum x^2) of n values; 1.0 for n == 0
 * or all zeros. */
double tier_jain_index(size_t n, const double *values);

/*
 * The sorted names of the subdirectories of the directory open at dfd
 * (which stays open), a NULL-terminated array of *ret_n malloc'ed names for
 * tier_strv_free(); never through a symlink.  Read with getdents64() on
 * dfd itself from its start (its offset moves).  The one listing of
 * tier_cgroup_enumerate() and tierd's cgroup watcher.  Negative errno.
 */
int tier_dir_list_subdirs(int dfd, char ***ret, size_t *ret_n);

/*
 * The first rule (policy order) with an exe matcher that matches exe,
 * through the policy's prefix index and the globs compiled at load: 1 and
 * *ret_rule, or 0 and *ret_rule = NULL if no exe matcher matches.  Whether
 * that rule decides the class of a cgroup is up to the evaluation (an
 * earlier rule may match the cgroup otherwise).  tierd's exec events use it
 * to skip the processes no exe rule selects; -EINVAL, -ENOMEM.
 */
int tier_policy_match_exe(const struct tier_policy *policy, const char *exe,
			  const struct tier_rule **ret_rule);


/*
 * Interned paths (lib/path.c) for the project's programs, which key their
 * own tables by a plan entry's path without building it:
 *  - tier_plan_entry_path_dup(), tier_apply_result_path_dup(): the whole
 *    path in a new string (for a log line, a reply);
 *  - tier_plan_entry_name(): the last component ("/" for the root, or the
 *    whole path of an entry whose parent the plan did not hold);
 *  - tier_plan_entry_path_hash(): tier_hash() of the whole path, so a table
 *    keyed by tier_hash_string(path) finds it by a plain string;
 *  - tier_plan_entry_path_is(): is its path the len bytes of path?
 *  - tier_plan_entry_path_below(): is it top or below top?
 * entry must not be NULL for the last three.
 */
/*
 * Re-intern the paths of plan's entries below their parents' entries in
 * from where from has them (tierd: a cgroup evaluated alone, from a path
 * string, then names itself below the cached plan's parent instead of
 * holding its whole path).  0, -EINVAL, -ENOMEM.
 */
int tier_plan_intern_from(struct tier_plan *plan, const struct tier_plan *from);
int tier_plan_entry_path_dup(const struct tier_plan_entry *entry, char **ret_path);
/*
 * Does what was read of the entry's cgroup (its current values) already
 * hold every value it sets?  A full pass skips such an entry: re-reading
 * every value of every cgroup was most of one.  A missing knob is never in
 * sync (an apply says why).
 */
bool tier_plan_entry_in_sync(const struct tier_plan_entry *entry);
int tier_apply_result_path_dup(const struct tier_apply_result *result, char **ret_path);
const char *tier_plan_entry_name(const struct tier_plan_entry *entry);
uint64_t tier_plan_entry_path_hash(const struct tier_plan_entry *entry);
bool tier_plan_entry_path_is(const struct tier_plan_entry *entry, const char *path, size_t len);
bool tier_plan_entry_path_below(const struct tier_plan_entry *entry, const char *top);

/*
 * /proc/PID/cgroup, the one parser of it (tierd's exec events, the OCI
 * hook): the cgroup v2 path of its "0::" line in data (len bytes, not
 * NUL-terminated), normalised (tier_cgroup_path_normalize()) into
 * *ret_path.  -ENODATA without a "0::" line (a process on cgroup v1 only,
 * a kernel thread), -EINVAL for a path that is not absolute, holds a NUL,
 * or lies outside the reader's cgroup namespace ("/../x": the process is
 * in a cgroup the reader cannot name), -ENOMEM.
 */
int tier_proc_cgroup_parse(const char *data, size_t len, char **ret_path);
/* The largest /proc/PID/cgroup read: far more than a 4 KiB cgroup v2
 * path (and v1's lines before it) ever takes. */
#define TIER_PROC_CGROUP_MAX (64u << 10)
/* tier_proc_cgroup_parse() of <procfs root>/PID/cgroup, read once (up to
 * TIER_PROC_CGROUP_MAX); the errors of opening and reading it too
 * (-ENOENT: the process is gone). */
int tier_pid_cgroup(struct tier_ctx *ctx, int pid, char **ret_path);

/* ------------------------------------------------------------------------
 * The hash of every hash table (lib/siphash.c)
 * ------------------------------------------------------------------------ */

/*
 * SipHash-2-4 of data under a key of 16 random bytes drawn once per process
 * (getrandom()), so that names chosen by others (cgroups anyone with a
 * delegated subtree may create) cannot be made to collide: libtier's tables
 * and tierd's use it alike.  Thread-safe.
 */
uint64_t tier_hash(const void *data, size_t len);
uint64_t tier_hash_string(const char *s);
/*
 * Fix the key (tests, benchmarks): call it before any table exists and
 * before other threads hash; tables built under another key are not
 * found again after it.
 */
void tier_hash_set_key(const uint8_t key[16]);

/* The one hash table of libtier and tierd, keyed by tier_hash(): lib/hmap.h. */
#include "hmap.h"

/* ------------------------------------------------------------------------
 * _cleanup_() helpers for the public objects
 * ------------------------------------------------------------------------ */

#define TIER_DEFINE_FREEP(type, func)              \
	static inline void func##p(type **p)       \
	{                                          \
		if (*p)                            \
			func(*p);                  \
	}
TIER_DEFINE_FREEP(struct tier_cgroup_info, tier_cgroup_info_free)
TIER_DEFINE_FREEP(struct tier_apply_result, tier_apply_result_free)
TIER_DEFINE_FREEP(struct tier_apply_results, tier_apply_results_free)
TIER_DEFINE_FREEP(struct tier_plan_entry, tier_plan_entry_free)
TIER_DEFINE_FREEP(struct tier_plan, tier_plan_free)
TIER_DEFINE_FREEP(struct tier_observed, tier_observed_free)
TIER_DEFINE_FREEP(struct tier_share, tier_share_free)
TIER_DEFINE_FREEP(struct tier_cgroup_reader, tier_cgroup_reader_free)
TIER_DEFINE_FREEP(char *, tier_strv_free)
#undef TIER_DEFINE_FREEP

#ifdef __cplusplus
}
#endif

#endif /* LIBTIER_TIER_INTERNAL_H */
