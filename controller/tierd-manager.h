/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd: the Manager owns the event loop and every event source, the libtier
 * context, the policy in force and the per-concern state (cgroup watcher,
 * config watcher, proc connector, systemd bus).
 */
#ifndef TIERD_MANAGER_H
#define TIERD_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <tier.h>

#include "tierd-fair.h"

#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"

struct nl_sock;
struct watch;

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
};

/* inotify state for the cgroup tree: one watch per cgroup directory. */
struct cgroup_watcher {
	int fd;
	sd_event_source *source;
	/* wd -> watch and path -> watch (chained hash tables) */
	struct watch **by_wd;
	struct watch **by_path;
	size_t n_buckets;
	size_t n_watches;
	bool limit_hit;			/* ENOSPC from inotify_add_watch seen */
};

struct config_watcher {
	int fd;
	sd_event_source *source;
	sd_event_source *defer;		/* coalesces a burst of edits */
	int wd_dir;			/* directory of the main file */
	int wd_dropin;			/* the drop-in directory, -1 if none */
	char *dir;
	char *base;			/* basename of the main file */
	char *dropin;			/* drop-in directory watched */
};

struct proc_connector {
	struct nl_sock *sk;
	sd_event_source *source;
	uint64_t n_exec;
	uint64_t n_overruns;
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

	struct tier_ctx *ctx;
	struct tier_topology *topo;
	struct tier_policy *policy;
	bool policy_has_exe;
	bool policy_has_annotation;
	uint64_t reconcile_usec;

	struct cgroup_watcher cg;
	struct config_watcher cfg;
	struct proc_connector proc;

	sd_bus *systemd_bus;		/* to systemd (system bus or private socket) */
	sd_bus *api_bus;		/* org.tierd.Manager1 on the system bus, or NULL */
	sd_event_source *api_retry;	/* reconnect to the system bus after losing it */
	sd_event_source *api_listen;
	int api_fd;

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

/* tierd-cgwatch.c */
int cgroup_watcher_start(struct manager *m);
void cgroup_watcher_stop(struct manager *m);
/* Add a watch for cgroup and every directory below it (rescan). */
int cgroup_watcher_add_tree(struct manager *m, const char *cgroup);
bool cgroup_watcher_has(struct manager *m, const char *cgroup);

/* tierd-config.c */
int config_load(struct manager *m, struct tier_policy **ret_policy);
int config_watcher_start(struct manager *m);
void config_watcher_stop(struct manager *m);

/* tierd-proc.c */
int proc_connector_start(struct manager *m);
void proc_connector_stop(struct manager *m);

/* tierd-systemd.c */
int systemd_connect(struct manager *m);
void systemd_disconnect(struct manager *m);
/* 1 if systemd owns cgroup (it is a unit's own cgroup), with the unit name. */
int systemd_cgroup_unit(struct manager *m, const char *cgroup, char **ret_unit);
int systemd_set_unit_memory(struct manager *m, const char *unit, const char *property,
			    uint64_t value);

/* tierd-bus.c */
int bus_api_start(struct manager *m);
void bus_api_stop(struct manager *m);

#endif
