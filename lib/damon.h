/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DAMON through its sysfs interface (<sys>/kernel/mm/damon/admin), as a
 * tiering backend on kernels without the memory.numa_balancing series.
 *
 * Internal to the project's programs (libtier-internal.a), not the ABI of
 * libtier.so.1: the layout below follows what one kernel (6.12) offers and
 * will change with it.  docs/architecture.md, "The DAMON backend", says why
 * it lives here and what the kernel's interface imposes.
 *
 * Conventions: every function returns 0 (or a count) or a negative errno,
 * the kernel's own (EBUSY, EINVAL, ENOENT are different answers); nothing
 * prints.  Out-parameters are untouched on failure.  Every file is opened
 * below a directory fd, O_NOFOLLOW | O_CLOEXEC, and every read is capped.
 *
 * Facts of 6.12 that shape this API (mm/damon/sysfs*.c):
 *  - Writing kdamonds/nr_kdamonds removes every kdamond directory and
 *    creates N fresh ones, and fails with EBUSY while any kdamond of the
 *    sysfs interface runs.  So a kdamond of our own can only be added while
 *    no one's runs, and while ours runs no one else can add one.
 *  - Every attribute takes one global mutex with trylock: EBUSY is also the
 *    answer to a concurrent access (retry later).
 *  - state commands other than on/off are handed to the kdamond thread and
 *    the write waits for it (commit: up to an aggregation interval).
 *  - A commit whose input the kernel refuses (a memcg_path that names no
 *    cgroup, for one) STOPS the kdamond and the write still succeeds:
 *    tier_damon_commit() checks and returns -ESRCH then.  The same input
 *    at "on" fails with ENOMEM (not EINVAL).
 *  - DAMON_RECLAIM and DAMON_LRU_SORT start their contexts exclusively:
 *    while one of them is enabled, state "on" fails with EBUSY.
 *  - An addr (or target) filter with matching N filters out everything on
 *    paddr: the operations layer runs all of a scheme's filters again per
 *    folio (damos_pa_filter_out()), and a core filter type never matches
 *    there.  Use matching-Y addr filters on the ranges to leave out.
 */
#ifndef LIBTIER_DAMON_H
#define LIBTIER_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tier_damon;

/*
 * A handle on <sys_root>/kernel/mm/damon/admin ("/sys" on a real system;
 * a test passes its fake tree).  proc_root ("/proc", or NULL) is used to
 * tell a kdamond thread from a recycled pid (its start time).
 * -ENOENT: no DAMON sysfs interface (CONFIG_DAMON_SYSFS off).
 */
int tier_damon_open(const char *sys_root, const char *proc_root, struct tier_damon **ret);
void tier_damon_free(struct tier_damon *d);
static inline void tier_damon_freep(struct tier_damon **d)
{
	if (*d)
		tier_damon_free(*d);
}

/* ------------------------------------------------------------------------
 * kdamonds
 * ------------------------------------------------------------------------ */

struct tier_damon_kdamond {
	unsigned index;		/* kdamonds/<index> */
	bool running;		/* state reads "on" */
	int pid;		/* its thread, -1 when not running */
};

/* nr_kdamonds. */
int tier_damon_nr_kdamonds(struct tier_damon *d, unsigned *ret_n);
/* State and pid of one kdamond; -ENOENT if there is no such index. */
int tier_damon_kdamond_get(struct tier_damon *d, unsigned index, struct tier_damon_kdamond *ret);
/* Every kdamond, in index order: a malloc'ed array of *ret_n (free()). */
int tier_damon_kdamond_list(struct tier_damon *d, struct tier_damon_kdamond **ret, size_t *ret_n);

/*
 * Adds a kdamond: nr_kdamonds n -> n + 1, *ret_index = n.  -EBUSY (nothing
 * written) while any kdamond runs, since the kernel would refuse it; the
 * write itself may also return -EBUSY (a concurrent user).  The kernel
 * recreates directories 0..n-1 empty: a stopped kdamond's staged input is
 * lost (its owner restages it, as damo does on every start).
 */
int tier_damon_kdamond_add(struct tier_damon *d, unsigned *ret_index);
/* count of them at once (n -> n + count, *ret_first = n), the same rules:
 * tierd's one kdamond per tier must be added together, since 6.12 cannot
 * add one while the other runs.  -EINVAL for count 0 or above 64. */
int tier_damon_kdamond_add_n(struct tier_damon *d, unsigned count, unsigned *ret_first);

/* ------------------------------------------------------------------------
 * Configuration: one context, paddr operations, one target
 * ------------------------------------------------------------------------ */

enum tier_damon_action {
	TIER_DAMON_MIGRATE_HOT,
	TIER_DAMON_MIGRATE_COLD,
	TIER_DAMON_STAT,
	/* folio_mark_accessed() on what passes the filters (stat runs no
	 * per-folio walk, so 6.12 applies no memcg filter to it: its sz_tried
	 * counts every memcg's pages) */
	TIER_DAMON_LRU_PRIO,
	/* folio_deactivate() on what passes the filters: with a memcg and a
	 * young filter that filters the young folios out, sz_applied grows by
	 * the cgroup's bytes not accessed since the last pass, and nothing
	 * clears the idle flag the young filter reads (lru_prio would) */
	TIER_DAMON_LRU_DEPRIO,
	_TIER_DAMON_ACTION_MAX,
};

enum tier_damon_filter_type {
	TIER_DAMON_FILTER_ANON,
	TIER_DAMON_FILTER_MEMCG,
	TIER_DAMON_FILTER_YOUNG,
	TIER_DAMON_FILTER_ADDR,
	_TIER_DAMON_FILTER_MAX,
};

enum tier_damon_goal_metric {
	TIER_DAMON_GOAL_USER_INPUT,
	TIER_DAMON_GOAL_SOME_MEM_PSI_US,
	_TIER_DAMON_GOAL_MAX,
};

/* [start, end) in bytes (physical addresses for paddr). */
struct tier_damon_range {
	uint64_t start;
	uint64_t end;
};

/*
 * A filter *out* (6.12 has no allow filters): with matching, the pages the
 * filter matches are excluded from the action; without, the others are.
 * "act on cgroup X only" = { MEMCG, matching = false, memcg_path = X }.
 * memcg_path is the cgroup's path below the cgroup2 root ("/a/b"); the
 * kernel resolves it when the input is committed and matches that memcg
 * alone, not its descendants.
 */
struct tier_damon_filter {
	enum tier_damon_filter_type type;
	bool matching;
	const char *memcg_path;		/* TIER_DAMON_FILTER_MEMCG */
	struct tier_damon_range addr;	/* TIER_DAMON_FILTER_ADDR */
};

struct tier_damon_goal {
	enum tier_damon_goal_metric metric;
	uint64_t target_value;		/* > 0: the kernel refuses 0 at start */
	uint64_t current_value;		/* TIER_DAMON_GOAL_USER_INPUT */
};

struct tier_damon_minmax {
	uint64_t min;
	uint64_t max;
};

struct tier_damon_scheme {
	enum tier_damon_action action;
	int target_nid;			/* migrate_*: the destination node */
	uint64_t apply_interval_us;	/* 0: every aggregation interval */
	/* access pattern: region size in bytes, accesses per aggregation
	 * interval (samples that saw an access), age in aggregation intervals */
	struct tier_damon_minmax sz, nr_accesses, age;
	/* quotas: 0 = no limit; bytes per reset_interval_ms */
	uint64_t quota_ms, quota_bytes, quota_reset_interval_ms;
	unsigned weight_sz, weight_nr_accesses, weight_age;	/* permil */
	const struct tier_damon_goal *goals;
	size_t nr_goals;
	const struct tier_damon_filter *filters;
	size_t nr_filters;
};

struct tier_damon_config {
	uint64_t sample_us, aggr_us, update_us;		/* intervals */
	uint64_t min_nr_regions, max_nr_regions;
	const struct tier_damon_range *regions;		/* the target's */
	size_t nr_regions;
	const struct tier_damon_scheme *schemes;
	size_t nr_schemes;
	/*
	 * Stage no regions (nr_regions 0; regions and nr_regions are ignored):
	 * a commit then keeps the running kdamond's regions and what it has
	 * learnt in them (6.12's damon_commit_target_regions() sets regions
	 * only when some are given, and resets them to the given ones
	 * otherwise), and costs two writes per region less.  Never for "on":
	 * paddr has no default regions, it would monitor nothing.
	 */
	bool keep_regions;
};

/*
 * Writes cfg into kdamonds/<index>: nr_contexts 1, operations paddr, the
 * intervals, one target with cfg's regions and the schemes.  A count file
 * (nr_contexts, nr_targets, nr_regions, nr_schemes, nr_filters, nr_goals)
 * is written only when it differs, since writing one recreates the
 * directories below it.  Staging does not reach a running kdamond until
 * tier_damon_commit().  *ret_fingerprint (may be NULL) is the identity of
 * this input for the ownership record (below).  -EINVAL for a config the
 * kernel would refuse (no regions, start >= end, a memcg filter without a
 * path, an unknown enum), else the kernel's errno of the failing write.
 */
int tier_damon_stage(struct tier_damon *d, unsigned index, const struct tier_damon_config *cfg,
		     uint64_t *ret_fingerprint);

/*
 * tier_damon_stage() for a kdamond that holds the rest of cfg already (what
 * the caller staged last, with keep_regions): only the schemes whose
 * changed[i] is set are written, and nr_regions 0.  If nr_schemes differs
 * from what is staged, the kernel recreates every scheme and all of them
 * are written.  changed NULL or keep_regions false: tier_damon_stage().
 */
int tier_damon_stage_changed(struct tier_damon *d, unsigned index,
			     const struct tier_damon_config *cfg, const bool *changed,
			     uint64_t *ret_fingerprint);

/* state on / off.  on: -EBUSY if it runs already or DAMON is exclusively
 * in use (DAMON_RECLAIM, DAMON_LRU_SORT), -EINVAL for an input the kernel
 * refuses (bad regions or attributes, a goal with target_value 0, a
 * memcg_path that names no cgroup: 6.12 turns a filter it cannot resolve
 * into a NULL scheme and reports ENOMEM, which every state command here
 * returns as -EINVAL, so -ENOMEM only ever means this process's own
 * allocation).  Check the cgroups exist before on. */
int tier_damon_start(struct tier_damon *d, unsigned index);
int tier_damon_stop(struct tier_damon *d, unsigned index);
/* state commit: the staged input reaches the running kdamond.  -EINVAL if
 * it is not running, -ESRCH if the kernel refused the input and stopped
 * the kdamond (restage and tier_damon_start()). */
int tier_damon_commit(struct tier_damon *d, unsigned index);
/* Writes the current_value of one user_input goal (staged only); then
 * tier_damon_commit_goals() passes every goal to the running kdamond. */
int tier_damon_goal_set_current(struct tier_damon *d, unsigned index, size_t scheme,
				size_t goal, uint64_t current_value);
int tier_damon_commit_goals(struct tier_damon *d, unsigned index);

/* ------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------ */

struct tier_damon_stats {
	uint64_t nr_tried, sz_tried;	/* regions (bytes) the pattern matched */
	uint64_t nr_applied, sz_applied;	/* the action applied, after filters */
	uint64_t qt_exceeds;		/* times the quota ran out */
};

/* state update_schemes_stats: refreshes every scheme's stats files. */
int tier_damon_update_stats(struct tier_damon *d, unsigned index);
/* Reads them (cumulative since start; a commit keeps them per index). */
int tier_damon_stats_read(struct tier_damon *d, unsigned index, size_t scheme,
			  struct tier_damon_stats *ret);
/* state update_schemes_tried_bytes, then tried_regions/total_bytes of one
 * scheme: the bytes of the regions its pattern matched in the last
 * aggregation interval (before filters). */
int tier_damon_update_tried_bytes(struct tier_damon *d, unsigned index);
int tier_damon_tried_bytes_read(struct tier_damon *d, unsigned index, size_t scheme,
				uint64_t *ret);

/* ------------------------------------------------------------------------
 * Ownership: which kdamond is ours, across restarts of the daemon
 * ------------------------------------------------------------------------ */

/*
 * What identifies our kdamond: its index, the pid and start time of its
 * thread when we started it (pid -1 while not started), and the
 * fingerprint of the input we staged.  A running kdamond is ours when its
 * pid and start time are ours: no one else can start or renumber a running
 * kdamond.  A stopped one is ours when its staged input still carries our
 * fingerprint: nr_kdamonds (anyone's) recreates every directory with the
 * kernel's defaults, which carry none.
 */
struct tier_damon_owner {
	unsigned index;
	int pid;
	uint64_t starttime;	/* /proc/<pid>/stat field 22; 0: not known */
	uint64_t fingerprint;
};

/* Fills *ret for kdamond index (running or not) and fingerprint. */
int tier_damon_owner_of(struct tier_damon *d, unsigned index, uint64_t fingerprint,
			struct tier_damon_owner *ret);
/* The fingerprint of the input staged in kdamonds/<index> now (read back). */
int tier_damon_fingerprint_read(struct tier_damon *d, unsigned index, uint64_t *ret);
/*
 * Is the kdamond of record still ours?  0 and *ret_running when it is,
 * -ESTALE when it is not (gone, renumbered, another thread, other input):
 * forget the record, never touch that kdamond.
 */
int tier_damon_reclaim(struct tier_damon *d, const struct tier_damon_owner *rec,
		       bool *ret_running);
/*
 * The same, for a check every round: a stopped kdamond that this handle
 * read back in full with the record's fingerprint, and that shows the same
 * counts (contexts, targets, regions, schemes) as then, is taken as ours
 * without reading every region and scheme again (5 reads instead of ~2 per
 * region).  A write through the handle to that kdamond (or to nr_kdamonds)
 * forgets what was verified.  Before
 * writing to a stopped kdamond, check it with tier_damon_reclaim(): a
 * rewrite that keeps the counts is only seen there.
 */
int tier_damon_reclaim_quick(struct tier_damon *d, const struct tier_damon_owner *rec,
			     bool *ret_running);

/* The record, as the file `name` in the directory dir_fd (the daemon's
 * run directory): written atomically (temporary file + rename), read with
 * a cap; load returns -ENOENT without one, -EINVAL for a malformed one.
 * owner_save writes version 1 (one kdamond); owners_save version 2 (1 to
 * TIER_DAMON_OWNERS_MAX kdamonds, in order: tierd's fast-tier and
 * slow-tier kdamonds).  owners_load reads both versions (*ret_n 1 for a
 * version 1 record; -EINVAL beyond max); owner_load reads a record of one
 * kdamond, of either version. */
#define TIER_DAMON_OWNERS_MAX 2
int tier_damon_owner_save(int dir_fd, const char *name, const struct tier_damon_owner *o);
int tier_damon_owner_load(int dir_fd, const char *name, struct tier_damon_owner *ret);
int tier_damon_owners_save(int dir_fd, const char *name, const struct tier_damon_owner *o,
			   size_t n);
int tier_damon_owners_load(int dir_fd, const char *name, struct tier_damon_owner *ret,
			   size_t max, size_t *ret_n);
int tier_damon_owner_remove(int dir_fd, const char *name);

/*
 * Which of DAMON's own modules are enabled (<sys>/module/damon_reclaim and
 * damon_lru_sort, parameters/enabled): they start their context
 * exclusively, so while one is on, tier_damon_start() gets -EBUSY.  They
 * are not listed under kdamonds/.  A bit mask of TIER_DAMON_MODULE_*; a
 * kernel without the module reads as off.
 */
#define TIER_DAMON_MODULE_RECLAIM 1u
#define TIER_DAMON_MODULE_LRU_SORT 2u
int tier_damon_modules_enabled(const char *sys_root, unsigned *ret_mask);

/* ------------------------------------------------------------------------
 * Physical ranges of a node (the regions of a paddr target)
 * ------------------------------------------------------------------------ */

/*
 * The physical address ranges of node nid's populated zones, from
 * <proc_root>/zoneinfo (start_pfn + spanned, merged, in bytes), sorted.
 * -ENOENT if the node has no populated zone.  A malloc'ed array (free()).
 */
int tier_damon_node_ranges(const char *proc_root, int nid, struct tier_damon_range **ret,
			   size_t *ret_n);

/*
 * ranges cut into pieces of at most chunk bytes (0: copied as they are),
 * the initial regions of a target.  DAMON applies schemes from the first
 * aggregation interval, while a region given whole is still one region
 * judged by one sampled page per sample: a whole node as one region would
 * let a memcg-filtered migrate_hot take all of the cgroup's pages, cold or
 * hot.  -EINVAL for chunk not a multiple of 4096, -E2BIG beyond 100000
 * pieces.  A malloc'ed array (free()).
 */
int tier_damon_ranges_split(const struct tier_damon_range *ranges, size_t n, uint64_t chunk,
			    struct tier_damon_range **ret, size_t *ret_n);

#ifdef __cplusplus
}
#endif

#endif /* LIBTIER_DAMON_H */
