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
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <tier.h>

#include "tierd-fair.h"

#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"
#define DEFAULT_BUS_SOCKET "/run/tierd/bus"
/* In the run directory (the bus socket's): what fairness holds. */
#define FAIR_STATE_NAME "fair-state"
#define FAIR_STATE_MAX (8u << 20)

struct nl_sock;
struct watch;
struct systemd_job;

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

/* The run directory (tierd-rundir.c): lock, bus socket, fairness state. */
struct run_dir {
	int fd;				/* -1: none (tierd runs without one) */
	char *path;
	int lock_fd;
	char *socket_name;		/* the bus socket in it */
	bool socket_bound;		/* we bound it: dev/ino of what we bound */
	dev_t sock_dev;
	ino_t sock_ino;
};

/* A token bucket per caller UID for unprivileged bus calls, and one for all. */
#define BUS_RATELIMIT_SLOTS 64
struct bus_bucket {
	bool used;
	uid_t uid;
	uint64_t milli_tokens;
	uint64_t last_usec;
};
struct bus_ratelimit {
	struct bus_bucket slot[BUS_RATELIMIT_SLOTS];
	struct bus_bucket all;
};

/* One change that the last full pass did not make (dry run, or it failed):
 * what DryRun tells unprivileged callers. */
struct pending_change {
	char *cgroup, *class, *rule;
	const char *knob;
	char old_value[TIER_VALUE_MAX], new_value[TIER_VALUE_MAX];
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
/*
 * 1 if cgroup may be the own cgroup of a systemd unit (by its name, like
 * cg_path_get_unit(), and systemd is connected), with the unit name; 0 if
 * not.  Pure apart from the connection: systemd confirms it in
 * systemd_queue_write().
 */
int systemd_cgroup_unit_candidate(struct manager *m, const char *cgroup, char **ret_unit);
/*
 * Set attr (memory.low/memory.high) of the unit that owns cgroup to value
 * through systemd (SetUnitProperties, runtime), asynchronously: GetUnit
 * (retried with a backoff while the unit is not loaded yet), its
 * ControlGroup, then SetUnitProperties; every call times out after a few
 * seconds.  If cgroup turns out not to be the unit's, or systemd refuses,
 * the raw file is written.  The outcome is logged with f (the journal
 * fields; copied) and reason.  0 once queued (a job for the same cgroup
 * and attribute takes the new value), -ENOMEM.
 */
int systemd_queue_write(struct manager *m, const char *cgroup, const char *unit,
			enum tier_attr attr, const char *value, const struct log_fields *f,
			const char *reason);
/* Drop every job (at exit): what they would have written is logged. */
void systemd_jobs_cancel(struct manager *m);

/* tierd-bus.c */
int bus_api_start(struct manager *m);
void bus_api_stop(struct manager *m);
/* Token bucket: may uid make one more unprivileged call at now_usec? */
bool bus_ratelimit_take(struct bus_ratelimit *rl, uid_t uid, uint64_t now_usec);

/* tierd-rundir.c */
const char *rundir_socket_path(const struct manager *m);
/* Open, check and lock the run directory: 0 (also when there is none, said
 * so), a negative errno when tierd must not start (logged). */
int rundir_open(struct manager *m);
void rundir_close(struct manager *m);
/* Bind and listen on the bus socket: 0, -ENOENT without a run directory,
 * another negative errno when tierd must not start (logged). */
int rundir_bind_socket(struct manager *m, int *ret_fd);
/* Remove the socket, only if it is still the one we bound. */
void rundir_unlink_socket(struct manager *m);
/* A regular file of ours in the run directory, at most max bytes. */
int rundir_read_file(struct manager *m, const char *name, size_t max, char **ret,
		     size_t *ret_size);
/* Write name atomically: a temp file, fsync, rename; mode 0600. */
int rundir_write_file(struct manager *m, const char *name, const char *data, size_t size);
int rundir_unlink_file(struct manager *m, const char *name);

#endif
