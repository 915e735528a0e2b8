/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd-damon: the DAMON backend of tierd (stock kernels), on lib/damon.c.
 *
 * Two kdamonds of tierd's own, one per tier (added together: 6.12 cannot
 * add one while another runs), each one paddr context whose target is its
 * tier's physical ranges, so that a scheme's quota ranks only its own
 * tier's regions; per memcg it serves:
 *   - promote (the slow tier's kdamond): a migrate_hot scheme, target_nid a
 *     fast node, filtered to that memcg alone;
 *     for every memcg whose effective mode (the most restrictive of its
 *     managed ancestors' class modes, as memory.numa_balancing would be) is
 *     promote or full, unless fairness holds its promotion off;
 *   - demote (the fast tier's kdamond): a migrate_cold scheme, target_nid a
 *     slow node, filtered to the memcg, whose byte quota follows a
 *     user_input goal: for every memcg below a cgroup with a fair-share
 *     target, the goal's current value is set from that cgroup's fast-tier
 *     bytes against its target on every rebalance;
 *   - page cache (the knob backend, DAMON_PLAN_PAGECACHE): promote's
 *     migrate_hot with anonymous folios filtered out, for the page cache
 *     NUMA balancing cannot fault on (read(2)-only file data).
 * 6.12's memcg filter matches one memcg exactly, so a class on an inner
 * cgroup gets one scheme per memcg of its subtree that holds pages (memory.current > 0),
 * the cgroup itself included.
 *
 * Two layers, as tierd-fair: damon_plan_build() is pure (the managed
 * cgroups, the memcgs with pages and fairness's decisions in, the scheme
 * set out), so each case is a unit test; struct damon_driver does the I/O
 * (the kdamond, the ownership record, stage/commit/start, goals).
 */
#ifndef TIERD_DAMON_H
#define TIERD_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tier.h>

#include "damon.h"
#include "tier-internal.h"

/* In the run directory: which kdamond is ours (lib/damon.h, ownership), and
 * kernel.numa_balancing as it was before numa_balancing_sysctl = off. */
#define DAMON_OWNER_NAME "damon-owner"
#define DAMON_SYSCTL_SAVED_NAME "numa-balancing-saved"

/* At most this many schemes (one per memcg and action): beyond, the rest is
 * left out and said so.  DAMON walks a hot region once per scheme. */
#define DAMON_SCHEMES_MAX 2048

/* Promotion and demotion overlap around the target (basis points), so
 * hot and cold pages keep being exchanged there (as upstream's per-memcg
 * tiering does): demotion works above target x (1 - overlap). */
#define DAMON_OVERLAP_BP 200

/* The demotion goal: target_value, and the largest current_value
 * (score 2: the kernel's quota falls to its minimum). */
#define DAMON_GOAL_TARGET 10000
#define DAMON_GOAL_MAX 20000
/* How much faster than the excess the score falls: 4, so that 25% above
 * the target the quota doubles every reset interval. */
#define DAMON_GOAL_GAIN 4
/* A demotion scheme tries at most target / DAMON_DEMOTE_RATE_DIV per 100 ms
 * (8% of the target a second; 64 kB at least).  What the cgroup's
 * memory.numa_stat lags (up to 2 s, the memcg stats' flush period) plus a
 * goal feed (1 s) bounds how far below its target a cgroup can be pushed:
 * measured (damon-tierd-share, 3 runs) 8-27% below it within 20 s of
 * reaching it, all of it cold pages.  At 2% a second (512) /big came down
 * from 256 MB only to 179 MB in 120 s (target 140). */
#define DAMON_DEMOTE_RATE_DIV 128
#define DAMON_DEMOTE_MIN_BYTES (64ull << 10)
/*
 * Where hot sets are measured (demand = hot), the target can be a tenth of
 * what there is to demote (damon-tierd-hot: 20 MB for a 256 MB hog; the
 * cap above gave 1.6 MB/s), and the demotion scheme matches in only one or
 * two aggregation intervals a second (DAMON_COLD_MIN_AGE_HOT).  There its
 * quota is per second (DAMON_DEMOTE_HOT_RESET_MS), so that the second's
 * quota can be spent in the intervals that match, and its cap is 8% a
 * second (the target's rate) of the larger of the target and the excess
 * (fast bytes above the target), the excess rounded down to a power of two
 * so that the quota changes at most once per halving.  The quota counts
 * the bytes of the regions tried, not those demoted: in damon-tierd-hot 17%
 * of what the hog's scheme tried was its pages (the rest free pages, what
 * it left behind, and the victim's), 1.0-1.7 MB/s demoted of its 10 MB/s
 * cap.  A cap of a quarter a second (32 MB/s tried) demoted faster but
 * took 20% of the hog's hot set with it (min age DAMON_COLD_MIN_AGE_HOT)
 * and the promotion trickle brought cold pages back: the hog stalled at
 * 180 MB.  The bound on the overshoot stays in proportion to what is left.
 */
#define DAMON_DEMOTE_HOT_RESET_MS 1000
uint64_t damon_demote_hot_quota(uint64_t target, uint64_t fast_bytes);

/*
 * The hot-set measurement (docs/architecture.md, "Hot sets"): per memcg an
 * lru_deprio scheme on every monitored region (DAMON_HOT_MIN_ACCESSES),
 * filtered to the memcg and then to folios that are NOT young (not
 * accessed since the scheme's previous pass; the young filter marks the
 * young ones old), every DAMON_HOT_INTERVAL_US: its sz_applied grows by the
 * memcg's cold bytes of the last interval, and the hot bytes are its
 * resident bytes less those.  One clock scheme (stat, every region, same
 * interval, unfiltered) counts the passes: its sz_tried grows by the
 * monitored bytes on each; DAMON applies schemes of one interval in the
 * same pass (every commit realigns them).
 *
 * Not the young folios counted by an lru_prio scheme (the first design):
 * lru_prio's folio_mark_accessed() clears the idle flag the young filter
 * reads, so a folio found young once read young at every later pass (on a
 * classic-LRU kernel, and on ours with patch 18 whatever the LRU): in the
 * VM a cgroup reading 32 of its 128 MB measured 121 MB falling to 79 MB
 * over 90 s.  lru_deprio leaves the flag alone and only moves the cold
 * folios to the LRU's tail, where reclaim and demotion look first anyway.
 * 6.12's stat action would cost nothing per folio, but it runs no
 * per-folio walk, so no memcg filter applies to it.
 */
#define DAMON_HOT_INTERVAL_US (1000 * 1000ull)
/*
 * The regions the hot schemes walk: nr_accesses >= this.  0, every region:
 * DAMON samples one page per region per 5 ms, so a region whose pages are
 * each read once a second shows nr_accesses 0 in most aggregation
 * intervals (seen in the VM: a 144 MB hot set measured at a few MB), while
 * the young filter judges every folio over the whole second.  The cost is
 * a walk of the monitored memory per memcg per interval.
 */
#define DAMON_HOT_MIN_ACCESSES 0
/* Hot bytes are averaged over at least this many passes. */
#define DAMON_HOT_MIN_PASSES 3
/*
 * A memcg's hot set is the largest of its last DAMON_HOT_KEEP readings
 * (about 15 s; a reading takes DAMON_HOT_MIN_PASSES passes): a working set
 * that a phase of the workload leaves for a few seconds keeps its claim,
 * and one reading that saw few accessed bits does not take it away (x86
 * does not flush the TLB when DAMON clears one; a translation that stays
 * cached sets none until it is evicted).  It was 10 while QEMU's TCG,
 * whose software TLB keeps translations for seconds, made most readings in
 * the VM see almost nothing; the VM's workers now flush their TLB as a
 * hardware TLB's reach would (tests/vm/guest/damon.c), and every reading
 * after the first window was within 2% of the hot set.
 */
#define DAMON_HOT_KEEP 5
/* A window over which the memcg's resident bytes on the tier moved by more
 * than a quarter (and DAMON_HOT_MOVED_MIN): tierd is moving its pages, and
 * the reading is off by what moved; it may lower the hot set, not raise it
 * above the last one (see damon_hot_step()). */
#define DAMON_HOT_MOVED_MIN (4ull << 20)
bool damon_hot_moved(uint64_t before, uint64_t after);

/*
 * The promotion budget: a migrate_hot quota per DAMON_PROMOTE_RESET_MS.
 * One second, not 100 ms: DAMON applies a scheme to the regions that saw
 * accesses in the last aggregation interval (100 ms), and a hot set read in
 * a loop is seen accessed in bursts (in the VM a few times a second); with
 * a 100 ms window the windows without a burst went unused and /budget got
 * 2.1 MB/s of its 8 (qt_exceeds 74 in ~330 windows, everything tried was
 * applied).  The bound is per second: up to a second's budget may move at
 * once.
 */
#define DAMON_PROMOTE_RESET_MS 1000

enum damon_kind {
	DAMON_PROMOTE,
	DAMON_DEMOTE,
	DAMON_HOT,			/* the hot-set measurement of a memcg, fast tier */
	DAMON_CLOCK,			/* one per plan, memcg "": counts passes */
	DAMON_PAGECACHE,		/* knob backend: promotion of the memcg's page cache */
	DAMON_HOT_SLOW,			/* DAMON_HOT on the slow tier */
};

static inline bool damon_kind_hot(enum damon_kind k)
{
	return k == DAMON_HOT || k == DAMON_HOT_SLOW;
}

/* damon_plan_build() flags. */
#define DAMON_PLAN_TIERING 1u		/* promotion and demotion schemes (damon backend) */
#define DAMON_PLAN_HOT 2u		/* hot-set measurement (both backends) */
/*
 * Page-cache promotion (knob backend): NUMA balancing promotes only what a
 * task faults on through a PTE, so file data read with read(2) stays on
 * the slow tier.  Per memcg that DAMON_PROMOTE would serve whose classes
 * all have page_cache on, a DAMON_PAGECACHE scheme: DAMON_PROMOTE's
 * migrate_hot (same filters, same budget quota) that also filters out
 * anonymous folios (those are the knob's).
 */
#define DAMON_PLAN_PAGECACHE 4u

/* Inputs of the plan.  Paths are tierd's (below its cgroup root). */
struct damon_managed {
	const char *path;
	enum tier_mode mode;		/* the class's mode (INHERIT: sets none) */
	uint64_t promote_budget;	/* bytes per second, 0: none (the class's) */
	bool no_page_cache;		/* the class's page_cache is off (zero: on,
					 * the policy's default): a memcg below it
					 * gets no page-cache promotion (the most
					 * restrictive of its classes, as the mode) */
};

struct damon_fair {
	const char *path;		/* a cgroup that shares the fast tier */
	uint64_t target;		/* its target (bytes), 0: none */
	uint64_t demand;		/* what it could use, UINT64_MAX: unknown */
	uint64_t resident;		/* all of its memory (0: as demand) */
	uint64_t fast_bytes;
	bool throttled;			/* above target x (1 + h): promotion held off */
};

/* One scheme of the plan. */
struct damon_want {
	char *memcg;			/* tierd path of the memcg it is filtered to */
	enum damon_kind kind;
	uint64_t goal_current;		/* DEMOTE: the user_input goal's current value */
	uint64_t quota_bytes;		/* DEMOTE: at most this much per 100 ms;
					 * PROMOTE, PAGECACHE: the budget's bytes
					 * per DAMON_PROMOTE_RESET_MS, 0: none */
	bool anon_only;			/* PROMOTE: page cache left out (a class
					 * with page_cache off): an anon filter */
	bool hot_ctx;			/* DEMOTE: the plan measures hot sets, whose
					 * lru_deprio passes reset every fast-tier
					 * region's age each second: minimum age
					 * DAMON_COLD_MIN_AGE_HOT, quota_bytes per
					 * DAMON_DEMOTE_HOT_RESET_MS, sized from the
					 * excess (damon_demote_hot_quota()) */
	bool walk_all;			/* DEMOTE, hot_ctx: demand = resident and over
					 * its share: address order, min age 0, no
					 * young filter */
	bool keep_young;		/* DEMOTE, hot_ctx: the sharer's demand (hot
					 * set + margin) fits its target: a young
					 * filter, no ranking (address order),
					 * minimum age DAMON_COLD_MIN_AGE_YOUNG */
	bool trickle;			/* PROMOTE: quota_bytes is the trickle
					 * (damon_promote_trickle()), not a budget:
					 * not scaled by the quota feedback */
};

struct damon_plan {
	struct damon_want *w;		/* sorted by memcg, then kind */
	size_t n;
	size_t n_dropped;		/* left out beyond DAMON_SCHEMES_MAX */
};

void damon_plan_done(struct damon_plan *p);

/*
 * Pure.  managed: the managed cgroups; memcgs: every cgroup below one of
 * them (or one of them) that holds pages, each once; fair: fairness's
 * decisions of the last round (may be n_fair 0).  A memcg gets a PROMOTE
 * scheme when its effective mode is promote or full and the fair sharer
 * above it (or it) is not throttled (anon_only where a class covering it
 * has page_cache off); a DEMOTE scheme when that sharer has
 * a target below its demand (a sharer whose demand fits never needs
 * demotion; leaving its scheme out saves DAMON the walks); with
 * DAMON_PLAN_PAGECACHE, a PAGECACHE scheme where PROMOTE's rule holds and
 * every class covering it has page_cache on.  -ENOMEM, -EINVAL.
 */
int damon_plan_build(const struct damon_managed *managed, size_t n_managed,
		     const char *const *memcgs, size_t n_memcgs, const struct damon_fair *fair,
		     size_t n_fair, unsigned flags, struct damon_plan *ret);
/*
 * The quota of a memcg's promotion scheme: the smallest of the budgets of
 * the managed cgroups covering it, each divided evenly between the memcgs
 * below it (a class's budget bounds its whole subtree), per
 * DAMON_PROMOTE_RESET_MS, page-aligned, one page at least; 0: no budget.
 */
uint64_t damon_promote_quota(const struct damon_managed *managed, size_t n_managed,
			     const char *const *memcgs, size_t n_memcgs, const char *memcg);
/* Same schemes (memcg, kind, quota and anon_only, in order)?  Goal values
 * do not count. */
bool damon_plan_same(const struct damon_plan *a, const struct damon_plan *b);
/* A sharer that demotion serves: a target, and a demand clearly above it
 * (5%: fairness keeps a target within its hysteresis of the share, so a
 * cgroup that is still growing has a target a little below its usage). */
/* A sharer whose demand (by hot set, where demand = hot) fits its target
 * (5%, as damon_fair_contended()): its promotion is not held off above the
 * target, since what it promotes is its hot set, which the target covers;
 * demotion takes its cold bytes meanwhile, and hot pages demoted by mistake
 * come back. */
static inline bool damon_fair_demand_fits(const struct damon_fair *f)
{
	return f->target > 0 && f->demand != UINT64_MAX &&
	       f->demand <= f->target + f->target / 20;
}

/* The promotion quota (per DAMON_PROMOTE_RESET_MS) of such a sharer above
 * its target: 1/8 of its target (rounded down to a power of two) a second,
 * one page at least. */
uint64_t damon_promote_trickle(uint64_t target);

/*
 * Quotas from the schemes' own stats.  6.12 charges a scheme's quota with
 * every byte of the regions it tries (damos_apply_scheme()); its memcg
 * filter then applies page by page (paddr.c), so where a cgroup's pages
 * share regions with others' only part of the quota moves its pages
 * (damon-tierd-hot: 17-23% for the hog's demotion; the 8 MB/s budget ran
 * at 2.8-6.4 MB/s).  Every DAMON_FB_TICKS goal ticks tierd reads the
 * tried and applied bytes of each demotion scheme and each budget's
 * migrate_hot, and writes quota_bytes x scale / DAMON_SCALE_ONE, the scale
 * (damon_quota_scale_next()):
 *  - applied above the want (quota_bytes over the window, scale one) by
 *    more than an eighth: down at once, in proportion (want / applied);
 *  - else, applied below the want by more than an eighth and the quota
 *    exhausted in the window (qt_exceeds grew): up in proportion (want /
 *    applied), at most doubling per window and at most twice tried /
 *    applied (the scale that spends the want on the cgroup's pages when
 *    the quota runs out every window), up by a quarter at least (each
 *    change is a commit);
 *  - else (on the want, the quota not binding, or less than
 *    DAMON_FB_MIN_TRIED tried): unchanged;
 *  bounded to [DAMON_SCALE_ONE, DAMON_SCALE_MAX].  What bounds the applied
 *  rate: the scale grows only while the applied rate is below the want
 *  and drops as soon as a window's is above it by an eighth; a window where
 *  the cgroup's share of the tried regions jumps can apply up to scale x
 *  want per reset interval, until the next reading (DAMON_FB_TICKS goal
 *  ticks later) cuts the scale in proportion: at most (scale - 1) x want
 *  per reset interval over, for DAMON_FB_TICKS s, once.
 */
#define DAMON_SCALE_ONE 100
#define DAMON_SCALE_MAX 800
#define DAMON_FB_TICKS 2
#define DAMON_FB_MIN_TRIED (1ull << 20)
/*
 * A promotion budget's scale (damon_quota_scale_next() for a migrate_hot
 * with a budget): up by half at most per reading.  The budget is a rate
 * the cgroup must not exceed, and the overshoot above is (scale - 1) x
 * want: with doubling, one run of damon-tierd-budget (2026-12-08) went from
 * 3 tried per applied byte (its neighbour's regions in the tried ones) to 1
 * when the neighbour was done, and promoted 32 MB in 2.5 s on an 8 MB/s
 * budget (11.4 MB/s from 10% to 90%).  Demotion keeps doubling: a
 * cgroup above its share should get there fast.
 */
#define DAMON_BUDGET_STEP_MAX 150
unsigned damon_budget_scale_next(unsigned cur, uint64_t tried, uint64_t applied, uint64_t want,
				 bool exhausted);
unsigned damon_quota_scale_next(unsigned cur, uint64_t tried, uint64_t applied, uint64_t want,
				bool exhausted);
/* quota x scale / DAMON_SCALE_ONE, page-aligned, a page at least (0: 0). */
uint64_t damon_quota_scaled(uint64_t quota, unsigned scale);

static inline bool damon_fair_contended(const struct damon_fair *f)
{
	/* by hot set, the demand may fit while its resident bytes do not:
	 * those cold bytes are what demotion is for */
	uint64_t d = f->resident > f->demand && f->demand != UINT64_MAX ? f->resident : f->demand;

	return f->target > 0 && d != 0 && (d == UINT64_MAX || f->target + f->target / 20 < d);
}

/* The demotion goal's current value of a sharer with this target and fast
 * bytes: with low = target x (1 - overlap), DAMON_GOAL_TARGET x (1 - gain x
 * (fast - low) / low) above low (0 at least), 1 + gain x (low - fast) / low
 * below it (DAMON_GOAL_MAX at most). */
uint64_t damon_goal_current(uint64_t target, uint64_t fast_bytes);

/*
 * The memcgs with pages below (and including) each managed cgroup whose
 * class promotes or that shares the fast tier with a target below its
 * demand, read from the tree at
 * root_fd (tierd's cgroup root): a malloc'ed strv, sorted, unique.
 */
int damon_memcgs_collect(int root_fd, const struct damon_managed *managed, size_t n_managed,
			 const struct damon_fair *fair, size_t n_fair, bool all, char ***ret,
			 size_t *ret_n);
/* (all: below every managed cgroup, for the hot-set measurement.) */

/*
 * The prefix of tierd's cgroup root below the cgroup2 mount's root (what
 * DAMON's memcg_path is relative to): "" when the root is the mount point,
 * from <procfs>/self/mountinfo.  Not a cgroup2 mount (a fake tree): "".
 */
int damon_memcg_prefix(const char *procfs_root, const char *cgroup_root, char **ret);

/* ------------------------------------------------------------------------
 * The driver
 * ------------------------------------------------------------------------ */

typedef void (*damon_log_fn)(void *userdata, int priority, int error, const char *message);
/* The bytes of memcg (below the cgroup root, e.g. "/a/b") on the LRUs, its
 * descendants' included (memory.numa_stat's anon + file), on the fast
 * tier's nodes and on the others: 0 or a negative errno.  The hot-set
 * measurement's other half. */
typedef int (*damon_resident_fn)(void *userdata, const char *memcg, uint64_t *ret_fast,
				 uint64_t *ret_slow);

struct damon_driver;

struct damon_driver_args {
	const char *sysfs_root, *procfs_root;
	int run_fd;			/* the run directory (the record), -1: none */
	const char *memcg_prefix;	/* damon_memcg_prefix() */
	int fast_nid, slow_nid;		/* migrate targets */
	/* the physical ranges of the fast and of the slow tier's nodes */
	const struct tier_damon_range *fast, *slow;
	size_t n_fast, n_slow;
	damon_log_fn log;
	void *userdata;
	/* the hot-set measurement's resident bytes (with userdata); NULL: no
	 * hot-set readings */
	damon_resident_fn resident;
	/* what tierd loses while its kdamond cannot be added (logged once):
	 * NULL, "tiering" (the damon backend) */
	const char *what;
};

/* The nodes and their ranges from the topology and <proc>/zoneinfo:
 * fills args' nids and ranges (malloc'ed: free() *ret_fast, *ret_slow). */
int damon_layout_read(const struct tier_topology *topo, const char *procfs_root,
		      struct damon_driver_args *args, struct tier_damon_range **ret_fast,
		      struct tier_damon_range **ret_slow);

/* -ENOENT without DAMON's sysfs. */
int damon_driver_new(const struct damon_driver_args *args, struct damon_driver **ret);
void damon_driver_free(struct damon_driver *drv);

/*
 * A previous tierd's kdamond, from the record: ours (running or stopped)
 * is taken over, anything else forgotten and left alone.  Logged.
 */
int damon_driver_reclaim(struct damon_driver *drv);

/*
 * Make the kdamond run plan: nothing if it runs it already; else (ownership
 * checked first) stage and commit, or stage and start, adding the kdamond
 * first if there is none of ours (only while no one's runs: -EBUSY, said
 * once).  An empty plan with no kdamond of ours yet adds none.  0 or a
 * negative errno (logged); the kdamond keeps what it had unless the kernel
 * refused the input (-ESRCH: it stopped; the next call starts it again).
 */
int damon_driver_apply(struct damon_driver *drv, const struct damon_plan *plan);

/* The goals of the running plan (same schemes as the last apply): writes
 * the current values that changed and commits them once. */
int damon_driver_goals(struct damon_driver *drv, const struct damon_plan *plan);

/* Does the running plan have migrate_cold schemes (goals to feed)? */
bool damon_driver_has_demote(const struct damon_driver *drv);
/* The goals again from fair's fast bytes (read since the round): each
 * demotion scheme's sharer is the top-most of fair covering its memcg.
 * Writes what changed, commits once.  DAMON_GOAL_USEC apart. */
int damon_driver_goals_fast(struct damon_driver *drv, const struct damon_fair *fair, size_t n);
#define DAMON_GOAL_USEC (1000 * 1000ull)

/*
 * The hot-set measurement: reads the stats of the hot and clock schemes
 * (one update_schemes_stats) and, once DAMON_HOT_MIN_PASSES passes went by
 * since the last result, turns each memcg's sz_applied growth (cold bytes)
 * per tier into its hot bytes there (resident less cold per pass).  A memcg
 * whose scheme is new, or a kdamond that restarted, starts over.
 * now_usec: CLOCK_MONOTONIC; a call sooner than DAMON_HOT_MIN_PASSES
 * intervals after the last reading does nothing.
 */
int damon_driver_hot_update(struct damon_driver *drv, uint64_t now_usec);
/* The hot bytes of path and every memcg below it of the last result, on
 * both tiers (hot) or per tier (hot_tiers): -ENODATA if none of them has
 * one (no scheme yet, not enough passes). */
int damon_driver_hot(const struct damon_driver *drv, const char *path, uint64_t *ret);
int damon_driver_hot_tiers(const struct damon_driver *drv, const char *path, uint64_t *ret_fast,
			   uint64_t *ret_slow);
/* Does the running plan measure hot sets? */
bool damon_driver_has_hot(const struct damon_driver *drv);

/*
 * Schemes with a quota (promotion with a budget, demotion) are committed
 * first with a pattern no region has, until 6.12 puts their quota in
 * force (tierd-damon.c, DAMON_ARM_TICKS): damon_driver_arm(), once per
 * DAMON_GOAL_USEC, counts them down and commits their real pattern.
 * damon_driver_arming(): are some waiting?  A failed commit leaves the
 * driver to restage everything at the next apply (-errno, logged).
 */
int damon_driver_arm(struct damon_driver *drv);
/* Rescales the quotas from the schemes' stats (see DAMON_SCALE_ONE);
 * DAMON_GOAL_USEC apart, while damon_driver_has_quota_feedback(). */
int damon_driver_quota_feedback(struct damon_driver *drv);
bool damon_driver_has_quota_feedback(const struct damon_driver *drv);
bool damon_driver_arming(const struct damon_driver *drv);

/* Writes the hot sets of the managed cgroups with a result into the run
 * directory (TIER_HOT_SETS_NAME), for tierctl and tierd-metrics. */
int damon_driver_hot_save(const struct damon_driver *drv, int run_fd,
			  const struct damon_managed *managed, size_t n_managed);

/*
 * The promotion budget on the knob backend: memory.promote_rate_max (bytes
 * per second, "max"; hierarchical; patch 19 of the kernel series) of each
 * managed cgroup whose class sets promote_budget, written where it differs.  A
 * kernel without the file: *ret_unsupported counts those cgroups (tierd
 * says it once).  Returns the number of writes, or -ENOMEM.
 */
#define DAMON_PROMOTE_RATE_FILE "memory.promote_rate_max"
int promote_budget_apply(int root_fd, const struct damon_managed *managed, size_t n_managed,
			 bool dry_run, damon_log_fn log, void *userdata, size_t *ret_unsupported);

/* Stop our kdamond and remove the record (tierd exits). */
int damon_driver_stop(struct damon_driver *drv);

struct damon_stats {
	bool have_kdamond, running;
	bool blocked;			/* another kdamond runs: none of ours can be added */
	unsigned index, index_slow;	/* the fast tier's kdamond, the slow tier's */
	int pid, pid_slow;		/* -1: not running */
	size_t n_schemes;
	uint64_t n_commits, n_starts, n_goal_commits, n_failures;
	uint64_t n_hot_updates;		/* hot-set results */
};
void damon_driver_stats(const struct damon_driver *drv, struct damon_stats *ret);

/*
 * kernel.numa_balancing under the damon backend: with 1, 2 or 3 the kernel
 * moves pages behind DAMON's back (logged).  With set_off, it is set to 0
 * and the old value kept in the run directory (run_fd, may be -1) so that
 * damon_sysctl_restore() (also after a crash and restart) puts it back.
 */
int damon_sysctl_check(const char *procfs_root, int run_fd, bool set_off, damon_log_fn log,
		       void *userdata);
int damon_sysctl_restore(const char *procfs_root, int run_fd, damon_log_fn log, void *userdata);

#endif
