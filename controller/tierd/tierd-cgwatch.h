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

struct manager;
struct watch;

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

int cgroup_watcher_start(struct manager *m);
void cgroup_watcher_stop(struct manager *m);
/* Add a watch for cgroup and every directory below it (rescan); with
 * notify, each directory is handed to manager_cgroup_added() with its fd. */
int cgroup_watcher_add_tree(struct manager *m, const char *cgroup, bool notify);
bool cgroup_watcher_has(struct manager *m, const char *cgroup);

#endif
