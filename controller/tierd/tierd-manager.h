/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd: the Manager owns the event loop and every event source, the libtier
 * context, the policy in force and the per-concern state (cgroup watcher,
 * config watcher, proc connector, systemd bus).  Each concern declares its
 * state and functions in a header of its own (tierd-cgwatch.h,
 * tierd-config.h, tierd-proc.h, tierd-systemd.h, tierd-bus.h,
 * tierd-rundir.h, tierd-fair.h); this one has the Manager itself.
 */
#ifndef TIERD_MANAGER_H
#define TIERD_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <tier.h>

#include "tier-internal.h"

#include "tierd-bus.h"
#include "tierd-cgwatch.h"
#include "tierd-config.h"
#include "tierd-proc.h"
#include "tierd-rundir.h"
#include "tierd-systemd.h"
#include "tierd-table.h"

struct fair_state;		/* tierd-fair.h */
struct damon_driver;		/* tierd-damon.h */
struct damon_fair;

/* What is left to demote of one cgroup. */
struct demote_request {
	char *cgroup;
	uint64_t left;
};

/* memory.reclaim blocks until it is done: at most this much per write, one
 * write per turn of the event loop, so events are served in between. */
#define DEMOTE_CHUNK_BYTES (64ull << 20)

struct manager_args {
	const char *config;
	const char *dropin_dir;		/* NULL = policy default */
	const char *cgroup_root;	/* NULL = policy [daemon] cgroup_root */
	const char *sysfs_root;
	const char *procfs_root;
	bool dry_run;
	int log_level;			/* -1 = policy [daemon] log_level */
	bool no_proc_connector;
	bool no_systemd;
	const char *bus_socket;		/* private bus API socket, NULL = default */
	bool no_bus_api;
	int system_bus;			/* 1 yes, 0 no, -1 only for /sys/fs/cgroup */
	const char *systemd_address;	/* talk to systemd there (tests), any tree */
	uint64_t rescan_holdoff_usec;	/* at most one rescan after lost events per this */
	bool rescan_holdoff_set;	/* else RESCAN_HOLDOFF_USEC */
};

/* At most one full pass after lost events (inotify overflow, ENOBUFS on the
 * proc connector) per this much time since the last full pass. */
#define RESCAN_HOLDOFF_USEC (10 * 1000000ull)

/* One change that the last full pass did not make (dry run, or it failed):
 * what DryRun tells unprivileged callers. */
/* Borrowed: the cgroup's entry of the cached plan (its interned path, built
 * when a reply needs it), class and rule from the policy; the list is
 * cleared whenever either goes (a full pass, a reload). */
struct pending_change {
	const struct tier_plan_entry *entry;
	const char *class, *rule;
	const char *knob;
	char old_value[TIER_VALUE_MAX], new_value[TIER_VALUE_MAX];
};

struct manager {
	struct manager_args args;

	sd_event *event;
	sd_event_source *sigterm, *sigint, *sighup;
	sd_event_source *reconcile_timer;	/* armed only while events cannot cover all */
	sd_event_source *reconcile_defer;	/* a rescan after lost events (timer) */
	const char *rescan_reason;		/* why (a string literal) */
	uint64_t rescan_requests;		/* lost-event signals it coalesces */
	uint64_t last_full_pass_usec;		/* CLOCK_MONOTONIC, 0: none yet */
	sd_event_source *rebalance_timer;	/* fair shares, every rebalance_interval */
	sd_event_source *rebalance_debounce;	/* a rebalance after changes, coalesced */
	uint64_t rebalance_first_usec;		/* the first change it waits for */
	struct fair_state *fair;		/* tierd-fair.c: targets, hysteresis */
	/* The damon backend (tierd-damon.c): our kdamond, NULL on the other
	 * backends, in a dry run, or when it could not be set up.  Cgroup
	 * events arm damon_debounce (a burst costs one commit per
	 * DAMON_MAX_DELAY_USEC); every rebalance syncs and updates the goals
	 * from fairness's decisions (damon_fair). */
	struct damon_driver *damon;
	sd_event_source *damon_debounce;
	sd_event_source *damon_goal_timer;	/* feeds the demotion goals, 1 s */
	bool said_budget_unsupported;		/* promote_budget without the knob */
	uint64_t damon_first_usec;
	uint64_t damon_retry_usec;		/* after a failed sync; 0 after a good one */
	struct damon_fair *damon_fair;
	size_t n_damon_fair;
	/* Demotion asked for by fairness, written to memory.reclaim one chunk
	 * per turn of the event loop (manager_demote()). */
	struct demote_request *demotes;
	size_t n_demotes, alloc_demotes, next_demote;
	sd_event_source *demote_source;
	/* /proc/self/mountinfo and /proc/swaps, polled for changes so that the
	 * fair-share rounds read them only then (fair_state_host_changed()). */
	sd_event_source *mountinfo_source, *swaps_source;
	uint64_t rebalance_usec;
	/* The cgroups in a class, per event (tierd-table.h); the fair share
	 * of each rebalance is filled from it (manager_fill_share()). */
	struct managed_table managed;
	/* The plan of the last full pass (startup, reload, overflow): every
	 * cgroup it saw, which unprivileged callers of the bus API are
	 * answered from; the table's entries of that pass are its entries. */
	struct tier_plan *cache_plan;
	/* Changes the last full pass left undone (valid after one ran). */
	struct pending_change *pending;
	size_t n_pending, alloc_pending;
	bool pending_valid;
	char *fair_state_saved;		/* what the fair-state file holds now */

	struct tier_ctx *ctx;
	struct tier_topology *topo;
	struct tier_policy *policy;
	/* What tiers the cgroups, chosen at start-up (tier_backend_choose(),
	 * the choice tierctl doctor and tierd-metrics make too). */
	struct tier_backend_choice backend;
	bool policy_has_exe;
	bool policy_has_annotation;
	uint64_t reconcile_usec;

	struct cgroup_watcher cg;
	struct config_watcher cfg;
	struct proc_connector proc;

	struct run_dir run;

	struct systemd_client sd;	/* tierd-systemd.h */
	bool exiting;			/* SIGTERM: exit once the jobs are done */
	bool released;			/* SIGTERM gave back what fairness held */
	uint64_t release_errors;	/* n_errors before that */
	sd_event_source *exit_timer;
	struct bus_api api;		/* tierd-bus.h */

	/* Reload status */
	bool last_reload_failed;
	char *last_reload_error;	/* first error of the last failed reload */
	size_t last_reload_n_errors;

	/* Counters */
	uint64_t n_cgroups;		/* cgroups seen by the last full pass */
	uint64_t n_writes;
	uint64_t n_errors;
	bool warned_unsupported;
};

/* What the last full pass left undone (for DryRun of unprivileged callers). */
void manager_pending_clear(struct manager *m);

int manager_new(const struct manager_args *args, struct manager **ret);
struct manager *manager_free(struct manager *m);
int manager_startup(struct manager *m);
int manager_run(struct manager *m);

/* sd_notify(): our assignments (NULL: none) and an escaped STATUS= (NULL: none). */
void manager_notify(const char *assignments, const char *status);

bool manager_dry_run(const struct manager *m);
/* A full pass: observe the whole tree, evaluate, apply, and rebuild the
 * table of managed cgroups (startup, reload, lost events). */
int manager_reconcile(struct manager *m, const char *reason);
void manager_schedule_reconcile(struct manager *m, const char *reason);
/* Arm the periodic reconcile if events cannot cover the whole tree (the
 * inotify watch limit was hit, exe= rules without the proc connector),
 * disarm it otherwise. */
void manager_reconcile_timer_update(struct manager *m);
int manager_reload(struct manager *m, const char *reason);

/*
 * The reaction path, one cgroup per event: evaluate that cgroup alone
 * (rule index, no tree observe), read each value it sets once, write what
 * differs, and keep the table of managed cgroups up to date.
 *   added:     a new cgroup, whose directory the watcher has open as dfd;
 *   populated: processes were moved in (exe= rules may match now);
 *   exec:      a process in it executed exe, which an exe= rule matches.
 */
int manager_cgroup_added(struct manager *m, const char *cgroup, int dfd, const char *reason);
int manager_cgroup_populated(struct manager *m, const char *cgroup, const char *reason);
int manager_cgroup_exec(struct manager *m, const char *cgroup, const char *exe,
			const char *reason);
/* cgroup (with subtree, everything below it too) was removed or moved away. */
void manager_cgroup_removed(struct manager *m, const char *cgroup, bool subtree);

/* Fair shares of the fast tier: one round now / soon (coalesced over a
 * burst: one timer, armed once). */
int manager_rebalance(struct manager *m, const char *reason);
void manager_schedule_rebalance(struct manager *m);
void manager_update_status(struct manager *m);
char *manager_status_text(struct manager *m);

#endif
