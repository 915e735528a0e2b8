/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd cgroup watcher (tierd-cgwatch.c): inotify on every directory of the
 * cgroup tree, so a new cgroup gets its knobs without waiting for a pass.
 */
#ifndef TIERD_CGWATCH_H
#define TIERD_CGWATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-event.h>

#include "tierd-table.h"

struct manager;

/* A cgroup= pattern split at '/', for "can a cgroup below this one match?" */
struct watch_pattern {
	char **comps;
	size_t n;
};

/*
 * What needs watching under the policy in force (cgroup_watcher_set_scope()):
 * a directory only if a cgroup created below it could match a rule, a
 * cgroup.events only where a change of its processes can change a
 * decision (exe= or annotation= rules), or of a managed cgroup (the fair
 * share follows it filling and emptying).
 */
struct watch_scope {
	bool everything;		/* exe=/annotation= rules: any cgroup can match */
	struct watch_pattern *cg;	/* cgroup= patterns */
	size_t n_cg;
	char **units;			/* unit= patterns */
	size_t n_units;
};

/* inotify state for the cgroup tree: one watch per cgroup directory. */
struct cgroup_watcher {
	int fd;
	sd_event_source *source;
	struct watch_table watches;	/* wd -> watch, path -> watch (tierd-table.h) */
	bool limit_hit;			/* ENOSPC from inotify_add_watch seen */
	struct watch_scope scope;
};

int cgroup_watcher_start(struct manager *m);
void cgroup_watcher_stop(struct manager *m);
/* Add a watch for cgroup and every directory below it (rescan); with
 * notify, each directory is handed to manager_cgroup_added() with its fd. */
int cgroup_watcher_add_tree(struct manager *m, const char *cgroup, bool notify);
bool cgroup_watcher_has(struct manager *m, const char *cgroup);
/* The scope of the watches from m->policy (at startup and on reload). */
int cgroup_watcher_set_scope(struct manager *m);
/* Could a cgroup created below cgroup match a rule?  Then it is watched. */
bool cgroup_watcher_wanted(struct manager *m, const char *cgroup);
/* Watch cgroup.events of cgroup (a managed one), dfd its directory or -1. */
int cgroup_watcher_add_events(struct manager *m, const char *cgroup, int dfd);
/* Drop the watches the scope no longer wants (after a reload's full pass). */
void cgroup_watcher_prune_unwanted(struct manager *m);

#endif
