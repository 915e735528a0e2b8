// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * systemd over D-Bus.  systemd rewrites the attributes it manages (MemoryLow=,
 * MemoryHigh=, ...) on every daemon-reload, so for the cgroup of a unit we
 * change them through SetUnitProperties(runtime=true) and never behind its
 * back.  The unit of a cgroup is derived from the path (like systemd's
 * cg_path_get_unit()) and confirmed with the unit's ControlGroup property.
 * As root we talk to systemd's private socket first, which works without a
 * system bus, like systemctl does.
 *
 * Nothing here blocks the event loop: every call is asynchronous
 * (sd_bus_call_async() with a SYSTEMD_CALL_TIMEOUT_USEC timeout, well below
 * WatchdogSec=), and a write is a job that goes GetUnit -> ControlGroup ->
 * SetUnitProperties, each step in the reply callback of the one before.  A
 * unit that is not loaded yet (a transient unit whose cgroup we saw first)
 * is asked for again, SYSTEMD_GETUNIT_TRIES times in all with a growing
 * delay, before the job concludes that nobody owns the cgroup and writes
 * the raw file; writing it at once would be undone by systemd as soon as
 * the unit is loaded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "tierd-log.h"
#include "tierd-manager.h"
#include "tierd-systemd.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

#define SYSTEMD_CALL_TIMEOUT_USEC (5 * 1000000ull)
#define SYSTEMD_GETUNIT_TRIES 4
#define SYSTEMD_RETRY_FIRST_USEC (250 * 1000ull)	/* then x4: 0.25, 1, 4 s */
#define SYSTEMD_JOBS_MAX 4096

struct systemd_job {
	struct manager *m;
	struct systemd_job *next;
	char *cgroup, *unit, *object;
	enum tier_attr attr;
	char value[TIER_VALUE_MAX];
	char old_value[TIER_VALUE_MAX];
	char *class, *rule, *reason;	/* for the record of the outcome */
	unsigned tries;			/* GetUnit calls so far */
	bool setting;			/* SetUnitProperties in flight */
	bool resend;			/* a new value came meanwhile */
	sd_bus_slot *slot;
	sd_event_source *retry;
};

static const char *const unit_property[_TIER_ATTR_MAX] = {
	[TIER_ATTR_MEMORY_LOW] = "MemoryLow",
	[TIER_ATTR_MEMORY_HIGH] = "MemoryHigh",
};

static int bus_open_private(const char *address, sd_bus **ret)
{
	sd_bus *b = NULL;
	int r;

	r = sd_bus_new(&b);
	if (r < 0)
		return r;
	r = sd_bus_set_address(b, address);
	if (r >= 0)
		r = sd_bus_start(b);
	if (r < 0) {
		sd_bus_unref(b);
		return r;
	}
	*ret = b;
	return 0;
}

int systemd_connect(struct manager *m)
{
	const char *root = tier_ctx_get_cgroup_root(m->ctx);
	sd_bus *b = NULL;
	int r;

	if (m->args.systemd_address) {
		/* A systemd (or a stand-in) at this address, for any tree. */
		r = bus_open_private(m->args.systemd_address, &b);
	} else if (strcmp(root, "/sys/fs/cgroup") != 0 || sd_booted() <= 0) {
		/* Only the real tree has systemd units; a test tree has none. */
		log_debug("Not talking to systemd (%s)",
			  sd_booted() > 0 ? "not the host's cgroup tree" : "not booted with systemd");
		return 0;
	} else {
		r = geteuid() == 0 ? bus_open_private("unix:path=/run/systemd/private", &b) : -EPERM;
		if (r < 0)
			r = sd_bus_open_system(&b);
	}
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0) {
		log_notice_errno(r, "Cannot connect to systemd: %m; writing memory.low/high of unit "
				    "cgroups directly, ignoring");
		return 0;
	}
	r = sd_bus_attach_event(b, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0) {
		sd_bus_unref(b);
		log_warning_errno(r, "Cannot attach the systemd bus to the event loop: %m, ignoring");
		return 0;
	}
	(void)sd_bus_set_method_call_timeout(b, SYSTEMD_CALL_TIMEOUT_USEC);
	m->systemd_bus = b;
	log_debug("Connected to systemd%s%s", m->args.systemd_address ? " at " : "",
		  m->args.systemd_address ?: "");
	return 0;
}

void systemd_disconnect(struct manager *m)
{
	systemd_jobs_cancel(m);
	m->systemd_bus = sd_bus_flush_close_unref(m->systemd_bus);
}

static const char *unit_interface(const char *unit)
{
	static const struct {
		const char *suffix, *iface;
	} map[] = {
		{ ".service", "org.freedesktop.systemd1.Service" },
		{ ".scope", "org.freedesktop.systemd1.Scope" },
		{ ".slice", "org.freedesktop.systemd1.Slice" },
		{ ".socket", "org.freedesktop.systemd1.Socket" },
		{ ".mount", "org.freedesktop.systemd1.Mount" },
		{ ".swap", "org.freedesktop.systemd1.Swap" },
	};
	size_t l = strlen(unit);

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		size_t sl = strlen(map[i].suffix);

		if (l > sl && strcmp(unit + l - sl, map[i].suffix) == 0)
			return map[i].iface;
	}
	return NULL;
}


int systemd_cgroup_unit_candidate(struct manager *m, const char *cgroup, char **ret_unit)
{
	_cleanup_free_ char *unit = NULL;
	const char *last;
	int r;

	*ret_unit = NULL;
	if (!m->systemd_bus)
		return 0;
	r = tier_cgroup_path_unit(cgroup, &unit);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	/* Only the unit's own cgroup; a delegated subtree below belongs to the
	 * service, and raw writes are right there. */
	last = strrchr(cgroup, '/');
	if (!last || strcmp(last + 1, unit) != 0 || !unit_interface(unit))
		return 0;
	*ret_unit = TAKE_PTR(unit);
	return 1;
}

static void job_free(struct systemd_job *j)
{
	struct manager *m = j->m;

	for (struct systemd_job **p = &m->systemd_jobs; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	m->n_systemd_jobs--;
	sd_bus_slot_unref(j->slot);
	sd_event_source_disable_unref(j->retry);
	free(j->cgroup);
	free(j->unit);
	free(j->object);
	free(j->class);
	free(j->rule);
	free(j->reason);
	free(j);
	if (m->exiting && m->n_systemd_jobs == 0) {
		log_debug("The last call to systemd is done, exiting");
		(void)sd_event_exit(m->event, 0);
	}
}

static struct log_fields job_fields(const struct systemd_job *j)
{
	return (struct log_fields){
		.cgroup = j->cgroup,
		.class = j->class,
		.rule = j->rule,
		.knob = tier_attr_to_string(j->attr),
		.old = j->old_value,
		.new = j->value,
	};
}

/* systemd does not own the cgroup (or refused): the raw file, then done. */
static void job_write_raw(struct systemd_job *j)
{
	struct manager *m = j->m;
	const char *file = tier_attr_to_string(j->attr);
	struct log_fields f = job_fields(j);
	int r;

	r = tier_cgroup_write(m->ctx, j->cgroup, file, j->value);
	if (r == -ENOENT || r == -ENODEV)
		log_debug("%s: vanished before %s could be written, skipping", j->cgroup, file);
	else if (r < 0) {
		m->n_errors++;
		log_cgroup_errno(LOG_WARNING, r, &f, "%s: failed to write %s=%s: %m, ignoring",
				 j->cgroup, file, j->value);
	} else if (j->class)
		log_cgroup(LOG_INFO, &f, "%s: %s %s -> %s (class %s, rule %s, %s)", j->cgroup, file,
			   j->old_value, j->value, j->class, j->rule ?: "?", j->reason ?: "?");
	else
		log_cgroup(LOG_INFO, &f, "%s: %s %s -> %s (%s)", j->cgroup, file, j->old_value,
			   j->value, j->reason ?: "?");
	job_free(j);
}

static int job_get_unit(struct systemd_job *j);
static int job_set(struct systemd_job *j);

static int on_job_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct systemd_job *j = userdata;

	j->retry = sd_event_source_disable_unref(j->retry);
	if (job_get_unit(j) < 0)
		job_write_raw(j);
	return 0;
}

static int on_set_properties(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct systemd_job *j = userdata;
	const char *property = unit_property[j->attr];
	struct log_fields f = job_fields(j);
	const sd_bus_error *e;

	j->slot = sd_bus_slot_unref(j->slot);
	j->setting = false;
	e = sd_bus_message_get_error(reply);
	if (e) {
		log_cgroup(LOG_WARNING, &f, "%s: systemd refused %s=%s for %s: %s; writing %s directly",
			   j->cgroup, property, j->value, j->unit, e->message ?: e->name,
			   tier_attr_to_string(j->attr));
		job_write_raw(j);
		return 0;
	}
	if (j->class)
		log_cgroup(LOG_INFO, &f, "%s: %s=%s on %s (was %s; class %s, rule %s, %s)", j->cgroup,
			   property, j->value, j->unit, j->old_value, j->class, j->rule ?: "?",
			   j->reason ?: "?");
	else
		log_cgroup(LOG_INFO, &f, "%s: %s=%s on %s (was %s; %s)", j->cgroup, property, j->value,
			   j->unit, j->old_value, j->reason ?: "?");
	if (j->resend) {
		/* A newer value came while this one was on its way. */
		if (job_set(j) >= 0)
			return 0;
		job_write_raw(j);
		return 0;
	}
	job_free(j);
	return 0;
}

static int job_set(struct systemd_job *j)
{
	sd_bus_message *msg = NULL;
	uint64_t v;
	int r;

	if (strcmp(j->value, "max") == 0)
		v = UINT64_MAX;
	else {
		r = tier_parse_size(j->value, &v);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_new_method_call(j->m->systemd_bus, &msg, SD_DEST, SD_PATH, SD_MANAGER,
					   "SetUnitProperties");
	if (r >= 0)
		r = sd_bus_message_append(msg, "sba(sv)", j->unit, 1, 1, unit_property[j->attr], "t",
					  v);
	if (r >= 0)
		r = sd_bus_call_async(j->m->systemd_bus, &j->slot, msg, on_set_properties, j,
				      SYSTEMD_CALL_TIMEOUT_USEC);
	sd_bus_message_unref(msg);
	if (r < 0)
		return r;
	j->setting = true;
	j->resend = false;
	return 0;
}

static int on_control_group(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct systemd_job *j = userdata;
	const sd_bus_error *e;
	const char *cg = NULL;
	int r;

	j->slot = sd_bus_slot_unref(j->slot);
	e = sd_bus_message_get_error(reply);
	if (e) {
		log_debug("%s: ControlGroup of %s unknown (%s), writing directly", j->cgroup, j->unit,
			  e->message ?: e->name);
		job_write_raw(j);
		return 0;
	}
	r = sd_bus_message_read(reply, "v", "s", &cg);
	if (r < 0 || !cg || strcmp(cg, j->cgroup) != 0) {
		log_debug("%s: not the cgroup of %s (%s), writing directly", j->cgroup, j->unit,
			  cg ?: "?");
		job_write_raw(j);
		return 0;
	}
	r = job_set(j);
	if (r < 0) {
		log_debug_errno(r, "%s: cannot ask systemd to set %s: %m, writing directly", j->cgroup,
				unit_property[j->attr]);
		job_write_raw(j);
	}
	return 0;
}

static int on_get_unit(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct systemd_job *j = userdata;
	struct manager *m = j->m;
	const sd_bus_error *e;
	sd_bus_message *msg = NULL;
	const char *obj;
	int r;

	j->slot = sd_bus_slot_unref(j->slot);
	e = sd_bus_message_get_error(reply);
	if (e) {
		if (j->tries < SYSTEMD_GETUNIT_TRIES) {
			uint64_t delay = SYSTEMD_RETRY_FIRST_USEC;

			for (unsigned i = 1; i < j->tries; i++)
				delay *= 4;
			log_debug("%s: unit %s not loaded (%s), asking again in %" PRIu64 " ms",
				  j->cgroup, j->unit, e->message ?: e->name, delay / 1000);
			r = sd_event_add_time_relative(m->event, &j->retry, CLOCK_MONOTONIC, delay, 0,
						       on_job_retry, j);
			if (r >= 0) {
				(void)sd_event_source_set_description(j->retry, "systemd-retry");
				return 0;
			}
		}
		log_debug("%s: unit %s not loaded after %u tries (%s), writing directly", j->cgroup,
			  j->unit, j->tries, e->message ?: e->name);
		job_write_raw(j);
		return 0;
	}
	r = sd_bus_message_read(reply, "o", &obj);
	if (r >= 0) {
		free(j->object);
		j->object = strdup(obj);
		if (!j->object)
			r = -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_message_new_method_call(m->systemd_bus, &msg, SD_DEST, j->object,
						   "org.freedesktop.DBus.Properties", "Get");
	if (r >= 0)
		r = sd_bus_message_append(msg, "ss", unit_interface(j->unit), "ControlGroup");
	if (r >= 0)
		r = sd_bus_call_async(m->systemd_bus, &j->slot, msg, on_control_group, j,
				      SYSTEMD_CALL_TIMEOUT_USEC);
	sd_bus_message_unref(msg);
	if (r < 0) {
		log_debug_errno(r, "%s: cannot ask systemd for %s: %m, writing directly", j->cgroup,
				j->unit);
		job_write_raw(j);
	}
	return 0;
}

static int job_get_unit(struct systemd_job *j)
{
	sd_bus_message *msg = NULL;
	int r;

	if (!j->m->systemd_bus)
		return -ENOTCONN;
	r = sd_bus_message_new_method_call(j->m->systemd_bus, &msg, SD_DEST, SD_PATH, SD_MANAGER,
					   "GetUnit");
	if (r >= 0)
		r = sd_bus_message_append(msg, "s", j->unit);
	if (r >= 0)
		r = sd_bus_call_async(j->m->systemd_bus, &j->slot, msg, on_get_unit, j,
				      SYSTEMD_CALL_TIMEOUT_USEC);
	sd_bus_message_unref(msg);
	if (r >= 0)
		j->tries++;
	return r;
}

static int dup_or_null(const char *s, char **ret)
{
	*ret = NULL;
	if (!s)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

int systemd_queue_write(struct manager *m, const char *cgroup, const char *unit,
			enum tier_attr attr, const char *value, const struct log_fields *f,
			const char *reason)
{
	struct systemd_job *j;
	int r;

	for (j = m->systemd_jobs; j; j = j->next)
		if (j->attr == attr && strcmp(j->cgroup, cgroup) == 0) {
			/* Already on its way: the newest value wins. */
			if (strcmp(j->value, value) != 0) {
				snprintf(j->value, sizeof(j->value), "%s", value);
				j->resend = j->setting;
			}
			return 0;
		}
	if (m->n_systemd_jobs >= SYSTEMD_JOBS_MAX || m->exiting) {
		log_ratelimit(LOG_WARNING, "%zu calls to systemd in flight; writing %s of %s directly",
			      m->n_systemd_jobs, tier_attr_to_string(attr), cgroup);
		r = tier_cgroup_write(m->ctx, cgroup, tier_attr_to_string(attr), value);
		return r == -ENOMEM ? r : 0;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->m = m;
	j->attr = attr;
	snprintf(j->value, sizeof(j->value), "%s", value);
	snprintf(j->old_value, sizeof(j->old_value), "%s", f && f->old ? f->old : "?");
	j->cgroup = strdup(cgroup);
	j->unit = strdup(unit);
	r = j->cgroup && j->unit ? 0 : -ENOMEM;
	if (r >= 0)
		r = dup_or_null(f ? f->class : NULL, &j->class);
	if (r >= 0)
		r = dup_or_null(f ? f->rule : NULL, &j->rule);
	if (r >= 0)
		r = dup_or_null(reason, &j->reason);
	j->next = m->systemd_jobs;
	m->systemd_jobs = j;
	m->n_systemd_jobs++;
	if (r < 0) {
		job_free(j);
		return r;
	}
	r = job_get_unit(j);
	if (r == -ENOMEM) {
		job_free(j);
		return r;
	}
	if (r < 0) {
		log_debug_errno(r, "%s: cannot ask systemd for %s: %m, writing directly", cgroup, unit);
		job_write_raw(j);
	}
	return 0;
}

void systemd_jobs_cancel(struct manager *m)
{
	while (m->systemd_jobs) {
		struct systemd_job *j = m->systemd_jobs;

		log_notice("%s: %s=%s for %s not confirmed by systemd before exit", j->cgroup,
			   unit_property[j->attr], j->value, j->unit);
		m->exiting = false; /* no sd_event_exit() from job_free() now */
		job_free(j);
	}
}
