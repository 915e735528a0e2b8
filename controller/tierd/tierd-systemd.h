/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd systemd client (tierd-systemd.c): knobs of a unit's own cgroup are
 * set through systemd (SetUnitProperties), so systemd does not undo them.
 * Its state is struct systemd_client, m->sd.
 */
#ifndef TIERD_SYSTEMD_H
#define TIERD_SYSTEMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include <tier.h>

struct log_fields;
struct manager;
/* One call to systemd in flight (a unit's ControlGroup, SetUnitProperties). */
struct systemd_job;
/* What systemd said about a cgroup's unit (the unit cache). */
struct systemd_unit;

/* The systemd client's state (struct manager has one). */
struct systemd_client {
	sd_bus *bus;			/* to systemd (system bus or private socket) */
	struct systemd_job *jobs;	/* calls to systemd in flight */
	size_t n_jobs;
	/* cgroup -> unit: one lookup per cgroup, forgotten when the cgroup
	 * goes and on reload */
	struct hmap units;		/* struct systemd_unit by cgroup */
};

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
 * through systemd (SetUnitProperties, runtime), asynchronously.  Whether
 * the unit owns the cgroup is asked once per cgroup (the unit's
 * ControlGroup, retried with a backoff while the unit is not loaded yet)
 * and kept: later writes go straight to SetUnitProperties, or to the raw
 * file; every call times out after a few seconds.  If cgroup turns out not to be the unit's, or systemd refuses,
 * the raw file is written.  The outcome is logged with f (the journal
 * fields; copied) and reason.  0 once queued (a job for the same cgroup
 * and attribute takes the new value), -ENOMEM.
 */
int systemd_queue_write(struct manager *m, const char *cgroup, const char *unit,
			enum tier_attr attr, const char *value, const struct log_fields *f,
			const char *reason);
/* Drop every job (at exit): what they would have written is logged. */
void systemd_jobs_cancel(struct manager *m);
/* Forget what systemd said about cgroup (with subtree, below it too). */
void systemd_unit_forget(struct manager *m, const char *cgroup, bool subtree);
/* Forget it all (reload): the next write asks again. */
void systemd_unit_cache_flush(struct manager *m);

#endif
