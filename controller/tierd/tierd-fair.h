/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd-fair: fair shares of the fast tier (design.md, "Fairness").
 *
 * Two layers, as everywhere in tierd:
 *  - fair_decide() is pure: per-cgroup inputs (this round's share from
 *    libtier's tier_share_compute(), observed fast-tier bytes and demand)
 *    and the state of the previous round in, targets and knob values out,
 *    no I/O.  It adds hysteresis so that neither the targets nor the on/off
 *    state of a cgroup flap; the shares themselves are libtier's, the same
 *    that tierctl status and tierd-metrics show.
 *  - fair_rebalance() computes the shares of the candidates its caller put
 *    into a struct tier_share, reads the knobs of the sharers, calls
 *    fair_decide() and enforces the decisions:
 *      FAIR_METHOD_LIMITS     the kernel has tier-aware limits (cgroup2 mounted
 *                             with memory_tiered_limits, memory.toptier_high
 *                             present): a limited cgroup gets the memory.high
 *                             whose scaled value memory.toptier_high equals its
 *                             target, high = target x total / fast.  A kernel
 *                             whose memory.stat has "toptier" keeps the cgroup
 *                             at that ceiling itself; an older one demotes
 *                             only on a write or a charge, so tierd writes the
 *                             same value again while the cgroup stays above;
 *      FAIR_METHOD_PROMOTION  otherwise, with memory.numa_balancing: promotion
 *                             is switched off for a cgroup above its target and
 *                             back to its class mode once it is below it; where
 *                             demotion is on and the host has no swap, the
 *                             excess is also demoted with memory.reclaim;
 *      FAIR_METHOD_NONE       neither: targets are computed and logged only.
 *
 * The unit of fairness is libtier's (tier.h, "Fair share"): the top-most
 * managed, populated cgroup; a managed cgroup below another managed cgroup is
 * accounted in its ancestor and left alone.
 *
 * Integration in the manager (a few lines): a `struct fair_state *fair` in
 * struct manager, fair_state_new() at startup, fair_rebalance() from a
 * timer every [daemon] rebalance_interval and after cgroup changes (with a
 * struct tier_share of the managed cgroups the manager fills), and
 * fair_filter_entry() around the plan entries the manager applies, so that
 * the periodic reconcile does not undo what fairness set.
 */
#ifndef TIERD_FAIR_H
#define TIERD_FAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tier.h>

#include "tier-internal.h"

#include "tierd-log.h"	/* struct log_fields, the journal fields of a record */

enum fair_method {
	FAIR_METHOD_NONE = 0,
	FAIR_METHOD_LIMITS,
	FAIR_METHOD_PROMOTION,
	FAIR_METHOD_DAMON,	/* the damon backend: tierd-damon.c's schemes */
};
const char *fair_method_to_string(enum fair_method method);

/* One cgroup, as fair_decide() sees it. */
struct fair_input {
	const char *path;
	const char *class_name;		/* for log records only; may be NULL */
	const char *rule_name;
	uint64_t share;			/* this round's share (tier_share_target()) */
	uint64_t fast_bytes;		/* observed fast-tier residency */
	uint64_t demand;		/* what it could use (its usage), UINT64_MAX: unknown */
	/* demand is its hot set plus the margin (tier_share_demand_kind()),
	 * resident all of its memory: memory.high, which bounds all of it,
	 * goes by resident (DEFAULT, RESIDENT: demand is resident) */
	enum tier_demand demand_kind;
	uint64_t resident;
	uint64_t hot;			/* UINT64_MAX: not measured */
	/* fast_bytes is the kernel's exact top-tier counter (memory.stat
	 * "toptier", tier_share_fast_exact()): that kernel keeps the cgroup
	 * at its top-tier ceiling itself (demotes above it after a memory.high
	 * write and on charges, refuses promotions at it, exchanges hot for
	 * cold pages at it), so memory.high is never re-asserted. */
	bool kernel_ceiling;
	/* What to go back to when fairness lets go of a knob. */
	bool class_sets_mode;
	enum tier_mode class_mode;	/* the class's memory.numa_balancing */
	enum tier_mode cur_mode;	/* observed memory.numa_balancing */
	bool class_sets_high;
	uint64_t class_high;		/* the class's memory.high */
	uint64_t cur_high;		/* observed memory.high */
};

struct fair_config {
	uint64_t capacity;		/* fast-tier capacity minus the reserve */
	uint64_t fast_capacity;		/* for high = target x total / fast */
	uint64_t total_capacity;
	unsigned hysteresis_bp;		/* [daemon] hysteresis, basis points */
	uint64_t min_dwell_usec;	/* no on/off change sooner than this after the last */
	uint64_t now_usec;		/* CLOCK_MONOTONIC */
	enum fair_method method;
	/* PROMOTION: memory.reclaim may move a cgroup's excess off the fast
	 * tier (demotion is enabled and reclaim cannot swap instead). */
	bool demote_ok;
};

/* Most one cgroup is asked to demote per round (memory.reclaim blocks). */
#define FAIR_DEMOTE_MAX_BYTES (1ull << 30)

struct fair_decision {
	const char *path;
	const char *class_name;		/* of this round's input (NULL for released) */
	const char *rule_name;
	uint64_t share;			/* this round's weighted max-min share (libtier's) */
	uint64_t target;		/* the target in force (share after hysteresis):
					 * what tierd enforces and exports */
	uint64_t fast_bytes;
	uint64_t demand;
	enum tier_demand demand_kind;	/* the input's: what demand is */
	uint64_t resident, hot;		/* the input's */
	bool limited;			/* LIMITS: memory.high is fairness's */
	bool throttled;			/* PROMOTION: promotion switched off */
	bool damon_off;			/* DAMON: the cgroup's migrate_hot schemes held off
					 * (above target x (1 + h), back below x (1 - h)) */
	bool target_changed;		/* target differs from the previous round */
	bool state_changed;		/* limited/throttled flipped this round */
	/* Desired knob values (only what fairness owns this round). */
	bool set_mode;
	enum tier_mode mode;
	bool set_high;
	uint64_t memory_high;
	/* LIMITS: limited, yet above target x (1 + h): write memory.high even
	 * if unchanged, as the kernel demotes a cgroup's excess on the write
	 * (otherwise only when it charges memory, and its promotion check
	 * works on lagging statistics, so a steady workload can overshoot).
	 * Never with kernel_ceiling: that kernel keeps the ceiling itself. */
	bool reassert_high;
	bool kernel_ceiling;		/* the input's */
	/* LIMITS: memory.high was raised to the cgroup's usage + h: memory.high
	 * bounds all of its memory, so a lower value would throttle it; its
	 * fast share then stays at usage x fast / total, above the target. */
	bool high_floored;
	/* PROMOTION with demote_ok: throttled and above target x (1 + h):
	 * demote this much with memory.reclaim (switching promotion off does
	 * not move pages that got to the fast tier first). */
	uint64_t demote_bytes;
};

struct fair_state;

int fair_state_new(struct fair_state **ret);
struct fair_state *fair_state_free(struct fair_state *s);	/* returns NULL */

/*
 * Pure: decide targets and knob values for n cgroups (paths unique) into
 * ret[n], updating the state (previous targets, limited/throttled flags,
 * the values to restore).  Cgroups of the previous round that are not in
 * inputs left: if fairness held a knob of theirs, a "release" decision (set
 * the saved value back) is kept for fair_released_*() until the next call.
 *
 * Hysteresis (h = hysteresis_bp): a new share within h of the target in force
 * keeps the old target (unless the new share covers the whole demand);
 * PROMOTION: throttle above target x (1 + h), let go below target x (1 - h);
 * LIMITS: limit when target x (1 + h) < demand, let go when the share covers
 * the demand again, memory.high never below demand x (1 + h), written again
 * unchanged (reassert_high) while the fast bytes stay above what it enforces
 * x (1 + h), unless the input's kernel_ceiling says the kernel keeps that
 * ceiling itself; neither flips twice within min_dwell_usec.  The shares are
 * the inputs' (no water-filling here).  -EINVAL for bad input, -ENOMEM.
 */
int fair_decide(struct fair_state *s, const struct fair_config *cfg, size_t n,
		const struct fair_input *inputs, struct fair_decision *ret);
size_t fair_released_count(const struct fair_state *s);
const struct fair_decision *fair_released(const struct fair_state *s, size_t i);

/* Decision of the last round for path, NULL if fairness does not know it. */
const struct fair_decision *fair_state_find(const struct fair_state *s, const char *path);


/*
 * Hooks for fair_rebalance().  Each may be NULL: set_mode/set_high then
 * write the raw file with libtier; log then drops messages.  set_high is where
 * the manager goes through systemd (SetUnitProperties MemoryHigh=, runtime)
 * for the cgroup of a unit.  They return 0 or a negative errno; -ENOENT means
 * the cgroup vanished (not an error).
 */
struct fair_ops {
	void *userdata;
	int (*set_mode)(void *userdata, const char *cgroup, enum tier_mode mode);
	int (*set_high)(void *userdata, const char *cgroup, uint64_t bytes);
	/* One record (priority as syslog(3)). */
	void (*log)(void *userdata, int priority, const struct log_fields *fields,
		    const char *message);
	/* After the decisions of a round, before anything is written (not in a
	 * dry run): keep what fairness holds (fair_state_serialize()) where a
	 * restarted tierd finds it.  Only -ENOMEM stops the round. */
	int (*save)(void *userdata, const struct fair_state *s);
	/* The name of the rule that put cgroup in its class, for the records,
	 * when the share does not know it (tier_share_add() rather than
	 * tier_share_add_plan()); NULL: none. */
	const char *(*rule_name)(void *userdata, const char *cgroup);
	/* Demote bytes of cgroup with memory.reclaim, later and in chunks
	 * (tierd: off the event loop's critical path); NULL: write it now.
	 * A new request for a cgroup replaces what is left of the old one. */
	int (*demote)(void *userdata, const char *cgroup, uint64_t bytes);
	/* The damon backend: the round's decisions (targets, damon_off) go
	 * here, to tierd's DAMON schemes, and no knob is written (method
	 * FAIR_METHOD_DAMON).  Not called in a dry run.  Only -ENOMEM stops
	 * the round. */
	int (*damon)(void *userdata, size_t n, const struct fair_decision *dec);
};

/*
 * Host facts a round needs that change rarely: is cgroup2 mounted with
 * memory_tiered_limits (/proc/self/mountinfo), is there swap (/proc/swaps).
 * With the cache on, a round reads them only after fair_state_host_changed()
 * (the caller polls both files for changes); off (the default, and where
 * the files cannot be polled, as in a fake tree), every round reads them.
 */
void fair_state_set_host_cache(struct fair_state *s, bool cached);
void fair_state_host_changed(struct fair_state *s);

/* What the last fair_rebalance() saw and did, for status and tests. */
struct fair_summary {
	enum fair_method method;
	uint64_t capacity;
	size_t n_cgroups;		/* cgroups shared between */
	size_t n_limited, n_throttled;
	double jain;			/* over fast_bytes / target (targets > 0) */
	uint64_t n_writes, n_errors;
	uint64_t n_demote_requests;	/* memory.reclaim writes */
	/* LIMITS, and the kernel keeps the sharers at their ceilings itself
	 * (every input's kernel_ceiling): memory.high is written only when its
	 * value changes. */
	bool kernel_ceiling;
};

/*
 * One round: share holds the candidates (the managed cgroups, added by the
 * caller); tier_share_compute() decides which of them share and their shares
 * (capacity: topology fast capacity minus [daemon] fast_tier_reserve), then
 * the knobs of the sharers are read, fair_decide() applies the hysteresis
 * and (unless dry_run) the decisions are written.  The share keeps this
 * round's result for the caller.  Returns 0, or a negative errno only for
 * -ENOMEM and bad arguments; per-cgroup problems are logged and counted.
 */
int fair_rebalance(struct fair_state *s, struct tier_ctx *ctx, const struct tier_topology *topo,
		   const struct tier_policy *policy, struct tier_share *share,
		   uint64_t now_usec, bool dry_run, const struct fair_ops *ops);
const struct fair_summary *fair_state_summary(const struct fair_state *s);

/*
 * For the manager's apply path: if fairness holds memory.numa_balancing or
 * memory.high of e's cgroup, return a copy of e (also in *ret_copy, for the
 * caller to free with tier_plan_entry_free()) whose mode / memory.high are
 * fairness's values (so applying the class does not undo them); otherwise
 * return e.  NULL on -ENOMEM.
 */
const struct tier_plan_entry *fair_filter_entry(const struct fair_state *s,
						const struct tier_plan_entry *e,
						struct tier_plan_entry **ret_copy);

/* high = target x total / fast, page-aligned down; target if fast >= total. */
uint64_t fair_high_for_target(uint64_t target, uint64_t fast_capacity, uint64_t total_capacity);

/*
 * The page size memory.high is aligned to: set once at start (0 asks
 * sysconf(_SC_PAGESIZE); not a power of two is 4096).  Unset, the first use
 * asks sysconf.
 */
void fair_set_page_size(uint64_t bytes);
uint64_t fair_page_size(void);

/*
 * Let go of everything fairness holds (tierd stops): the saved
 * memory.numa_balancing / memory.high of each held cgroup is written back
 * (with ops, as a round writes), and the state forgets them.  Returns the
 * number of writes that failed (logged), or -ENOMEM / -EINVAL.
 */
int fair_release_all(struct fair_state *s, struct tier_ctx *ctx, bool dry_run,
		     const struct fair_ops *ops);

/* How many cgroups fairness holds a knob of (including those being released). */
size_t fair_state_held(const struct fair_state *s);

/*
 * The state file (tierd keeps it in its run directory): one line per held
 * cgroup, "PATH LIMITED THROTTLED TARGET MEMORY_HIGH SAVED_HIGH SAVED_MODE"
 * after a "tierd-fair-state 1" line; PATH with every byte outside '!'..'~'
 * and '%' as %XX, "-" for a value not held or not saved, "max".
 * fair_state_serialize() writes it (malloc'ed); fair_state_load() replaces
 * the state's entries with the file's (bad lines are counted in *ret_n_bad
 * and skipped) and returns how many it read; -EINVAL if it is not such a
 * file.  The first round after a load gives back the saved values of held
 * cgroups that left, and if a held knob no longer has fairness's value
 * (someone wrote it while tierd was down), gives back that value instead.
 */
int fair_state_serialize(const struct fair_state *s, char **ret, size_t *ret_size);
int fair_state_load(struct fair_state *s, const char *buf, size_t size, size_t *ret_n_bad);

#endif
