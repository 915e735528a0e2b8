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

struct fair_state;		/* tierd-fair.h */
struct systemd_job;		/* tierd-systemd.h */

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
};

/* One change that the last full pass did not make (dry run, or it failed):
 * what DryRun tells unprivileged callers. */
struct pending_change {
	char *cgroup, *class, *rule;
	const char *knob;
	char old_value[TIER_VALUE_MAX], new_value[TIER_VALUE_MAX];
};

struct manager {
	struct manager_args args;

	sd_event *event;
	sd_event_source *sigterm, *sigint, *sighup;
	sd_event_source *reconcile_timer;
	sd_event_source *reconcile_defer;	/* a full reconcile asked for soon */
	sd_event_source *rebalance_timer;	/* fair shares, every rebalance_interval */
	sd_event_source *rebalance_defer;	/* a rebalance asked for soon */
	struct fair_state *fair;		/* tierd-fair.c: targets, hysteresis */
	uint64_t rebalance_usec;
	/* The tree as the last full pass evaluated it, for the rebalance: the
	 * rule matches and class values change only with the tree (a cgroup
	 * created, removed, filled, an exec) or the policy, which bump
	 * tree_gen; usage is read fresh each round anyway. */
	struct tier_observed *cache_obs;
	struct tier_plan *cache_plan;
	uint64_t tree_gen, cache_gen;
	/* Changes the last full pass left undone (valid after one ran). */
	struct pending_change *pending;
	size_t n_pending, alloc_pending;
	bool pending_valid;
	char *fair_state_saved;		/* what the fair-state file holds now */

	struct tier_ctx *ctx;
	struct tier_topology *topo;
	struct tier_policy *policy;
	bool policy_has_exe;
	bool policy_has_annotation;
	uint64_t reconcile_usec;

	struct cgroup_watcher cg;
	struct config_watcher cfg;
	struct proc_connector proc;

	struct run_dir run;

	sd_bus *systemd_bus;		/* to systemd (system bus or private socket) */
	struct systemd_job *systemd_jobs;	/* calls to systemd in flight */
	size_t n_systemd_jobs;
	bool exiting;			/* SIGTERM: exit once the jobs are done */
	bool released;			/* SIGTERM gave back what fairness held */
	uint64_t release_errors;	/* n_errors before that */
	sd_event_source *exit_timer;
	sd_bus *api_bus;		/* org.tierd.Manager1 on the system bus, or NULL */
	sd_event_source *api_retry;	/* reconnect to the system bus after losing it */
	sd_event_source *api_listen;
	int api_fd;
	struct bus_ratelimit bus_rl;

	/* Reload status */
	uint64_t n_reloads;
	bool last_reload_failed;
	char *last_reload_error;	/* first error of the last failed reload */
	size_t last_reload_n_errors;

	/* Counters */
	uint64_t n_cgroups;		/* cgroups seen by the last full reconcile */
	uint64_t n_managed;
	uint64_t n_writes;
	uint64_t n_errors;
	uint64_t n_reconciles;
	bool warned_unsupported;
};

/* What the last full pass left undone (for DryRun of unprivileged callers). */
void manager_pending_clear(struct manager *m);

int manager_new(const struct manager_args *args, struct manager **ret);
struct manager *manager_free(struct manager *m);
int manager_startup(struct manager *m);
int manager_run(struct manager *m);

bool manager_dry_run(const struct manager *m);
/* Evaluate and apply the policy to subtree (NULL = whole tree). */
int manager_apply_subtree(struct manager *m, const char *subtree, const char *reason);
/* Full reconcile now / soon (coalesced). */
int manager_reconcile(struct manager *m, const char *reason);
void manager_schedule_reconcile(struct manager *m, const char *reason);
int manager_reload(struct manager *m, const char *reason);
/* Fair shares of the fast tier: one round now / soon (coalesced). */
int manager_rebalance(struct manager *m, const char *reason);
/* The tree changed (cgroups created, removed, processes moved or exec'd):
 * the rebalance evaluates it again. */
void manager_tree_changed(struct manager *m);
void manager_schedule_rebalance(struct manager *m);
void manager_update_status(struct manager *m);
char *manager_status_text(struct manager *m);

#endif
