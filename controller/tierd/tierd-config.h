/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd configuration (tierd-config.c): loading the policy file and its
 * drop-ins, and the inotify watch that reloads on an edit.
 */
#ifndef TIERD_CONFIG_H
#define TIERD_CONFIG_H

#include <systemd/sd-event.h>

#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"

struct manager;
struct tier_policy;

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

int config_load(struct manager *m, struct tier_policy **ret_policy);
int config_watcher_start(struct manager *m);
/* After a reload: keep the instance (and the edits queued in it). */
int config_watcher_update(struct manager *m);
void config_watcher_stop(struct manager *m);

#endif
