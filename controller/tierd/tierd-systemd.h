/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd systemd client (tierd-systemd.c): knobs of a unit's own cgroup are
 * set through systemd (SetUnitProperties), so systemd does not undo them.
 * The connection and the jobs in flight are in struct manager.
 */
#ifndef TIERD_SYSTEMD_H
#define TIERD_SYSTEMD_H

#include <tier.h>

struct log_fields;
struct manager;
/* One call to systemd in flight (GetUnit, then SetUnitProperties). */
struct systemd_job;

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

#endif
