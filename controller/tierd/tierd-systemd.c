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
 * WatchdogSec=).  Whether a unit owns a cgroup is asked once per cgroup:
 * the unit's name comes from the path (tier_cgroup_path_unit(), no call),
 * and one call reads the ControlGroup property of its object; the answer
 * is kept in the unit cache until the cgroup goes or the policy is
 * reloaded.  A write is a job: it waits for that answer (asked for by the
 * first job of the cgroup, shared by the others), then SetUnitProperties,
 * or the raw file if systemd does not own the cgroup.  A unit that is not
 * loaded yet (a transient unit whose cgroup we saw first: no ControlGroup)
 * is asked for again, SYSTEMD_LOOKUP_TRIES times in all with a growing
 * delay, before the cgroup counts as nobody's and the raw file is written;
 * writing it at once would be undone by systemd as soon as the unit is
 * loaded.
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
#define SYSTEMD_LOOKUP_TRIES 4
#define SYSTEMD_RETRY_FIRST_USEC (250 * 1000ull)	/* then x4: 0.25, 1, 4 s */
#define SYSTEMD_JOBS_MAX 4096

struct systemd_job {
	struct manager *m;
	struct systemd_job *next;
	char *cgroup, *unit;
	enum tier_attr attr;
	char value[TIER_VALUE_MAX];
	char old_value[TIER_VALUE_MAX];
	char *class, *rule, *reason;	/* for the record of the outcome */
	bool waiting;			/* for its cgroup's unit lookup */
	bool setting;			/* SetUnitProperties in flight */
	bool resend;			/* a new value came meanwhile */
	sd_bus_slot *slot;
};

enum unit_state {
	UNIT_LOOKING,			/* the ControlGroup call is on its way */
	UNIT_OWNED,			/* the unit's ControlGroup is the cgroup */
	UNIT_NOT_OWNED,			/* not a unit systemd has, or another cgroup */
};

struct systemd_unit {
	struct manager *m;
	struct hmap_node node;		/* in the cache, by cgroup */
	char *cgroup, *unit;
	enum unit_state state;
	unsigned tries;			/* ControlGroup calls so far */
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
	m->sd.bus = b;
	log_debug("Connected to systemd%s%s", m->args.systemd_address ? " at " : "",
		  m->args.systemd_address ?: "");
	return 0;
}

static void unit_free(struct systemd_unit *u);

static void units_free_all(struct manager *m)
{
	struct systemd_client *c = &m->sd;
	struct hmap_node *x, *tmp;

	HMAP_FOREACH_SAFE(x, tmp, &c->units)
		unit_free(hmap_entry(x, struct systemd_unit, node));
	hmap_done(&c->units);
}

void systemd_disconnect(struct manager *m)
{
	systemd_jobs_cancel(m);
	units_free_all(m);
	m->sd.bus = sd_bus_flush_close_unref(m->sd.bus);
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


static struct systemd_unit *unit_find(struct manager *m, const char *cgroup);

int systemd_cgroup_unit_candidate(struct manager *m, const char *cgroup, char **ret_unit)
{
	_cleanup_free_ char *unit = NULL;
	const struct systemd_unit *u;
	const char *last;
	int r;

	*ret_unit = NULL;
	if (!m->sd.bus)
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
	/* systemd said so before: the raw file at once, no job. */
	u = unit_find(m, cgroup);
	if (u && u->state == UNIT_NOT_OWNED && strcmp(u->unit, unit) == 0)
		return 0;
	*ret_unit = TAKE_PTR(unit);
	return 1;
}

static void job_free(struct systemd_job *j)
{
	struct manager *m = j->m;

	for (struct systemd_job **p = &m->sd.jobs; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	m->sd.n_jobs--;
	sd_bus_slot_unref(j->slot);
	free(j->cgroup);
	free(j->unit);
	free(j->class);
	free(j->rule);
	free(j->reason);
	free(j);
	if (m->exiting && m->sd.n_jobs == 0) {
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

static int job_set(struct systemd_job *j);

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
	r = sd_bus_message_new_method_call(j->m->sd.bus, &msg, SD_DEST, SD_PATH, SD_MANAGER,
					   "SetUnitProperties");
	if (r >= 0)
		r = sd_bus_message_append(msg, "sba(sv)", j->unit, 1, 1, unit_property[j->attr], "t",
					  v);
	if (r >= 0)
		r = sd_bus_call_async(j->m->sd.bus, &j->slot, msg, on_set_properties, j,
				      SYSTEMD_CALL_TIMEOUT_USEC);
	sd_bus_message_unref(msg);
	if (r < 0)
		return r;
	j->setting = true;
	j->resend = false;
	return 0;
}

static bool unit_has_cgroup(const struct hmap_node *node, const void *cgroup)
{
	return strcmp(hmap_entry(node, struct systemd_unit, node)->cgroup, cgroup) == 0;
}

static struct systemd_unit *unit_find(struct manager *m, const char *cgroup)
{
	struct hmap_node *x =
		hmap_find(&m->sd.units, cgroup_path_hash(cgroup), unit_has_cgroup, cgroup);

	return x ? hmap_entry(x, struct systemd_unit, node) : NULL;
}

static void unit_free(struct systemd_unit *u)
{
	sd_bus_slot_unref(u->slot);
	sd_event_source_disable_unref(u->retry);
	free(u->cgroup);
	free(u->unit);
	free(u);
}

static int unit_add(struct manager *m, const char *cgroup, const char *unit,
		    struct systemd_unit **ret)
{
	struct systemd_unit *u;

	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->m = m;
	u->cgroup = strdup(cgroup);
	u->unit = strdup(unit);
	if (!u->cgroup || !u->unit) {
		unit_free(u);
		return -ENOMEM;
	}
	if (hmap_add(&m->sd.units, &u->node, cgroup_path_hash(cgroup)) < 0) {
		unit_free(u);
		return -ENOMEM;
	}
	*ret = u;
	return 0;
}

static void unit_remove(struct manager *m, struct systemd_unit *u)
{
	hmap_del(&m->sd.units, &u->node);
	unit_free(u);
}

/* The answer for u is in: every job waiting for it goes on. */
static void unit_settled(struct systemd_unit *u, enum unit_state state, const char *why)
{
	struct manager *m = u->m;
	bool again = true;

	u->state = state;
	u->slot = sd_bus_slot_unref(u->slot);
	log_debug("%s: %s %s (%s)", u->cgroup, state == UNIT_OWNED ? "owned by" : "not owned by",
		  u->unit, why);
	/* job_set()/job_write_raw() may free jobs: start over after each. */
	while (again) {
		again = false;
		for (struct systemd_job *j = m->sd.jobs; j; j = j->next) {
			if (!j->waiting || strcmp(j->cgroup, u->cgroup) != 0)
				continue;
			j->waiting = false;
			if (state != UNIT_OWNED) {
				job_write_raw(j);
			} else if (job_set(j) < 0) {
				log_debug("%s: cannot ask systemd to set %s, writing directly",
					  j->cgroup, unit_property[j->attr]);
				job_write_raw(j);
			}
			again = true;
			break;
		}
	}
}

static int unit_lookup(struct systemd_unit *u);

static int on_unit_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct systemd_unit *u = userdata;

	u->retry = sd_event_source_disable_unref(u->retry);
	if (unit_lookup(u) < 0)
		unit_settled(u, UNIT_NOT_OWNED, "cannot ask systemd");
	return 0;
}

/* Not loaded (yet): ask again later, or give up. */
static void unit_not_loaded(struct systemd_unit *u, const char *why)
{
	struct manager *m = u->m;
	uint64_t delay = SYSTEMD_RETRY_FIRST_USEC;
	int r;

	u->slot = sd_bus_slot_unref(u->slot);
	if (u->tries >= SYSTEMD_LOOKUP_TRIES) {
		log_debug("%s: unit %s not loaded after %u tries (%s), writing directly", u->cgroup,
			  u->unit, u->tries, why);
		unit_settled(u, UNIT_NOT_OWNED, "not loaded");
		return;
	}
	for (unsigned i = 1; i < u->tries; i++)
		delay *= 4;
	log_debug("%s: unit %s not loaded (%s), asking again in %" PRIu64 " ms", u->cgroup, u->unit,
		  why, delay / 1000);
	r = sd_event_add_time_relative(m->event, &u->retry, CLOCK_MONOTONIC, delay, 0,
				       on_unit_retry, u);
	if (r < 0) {
		unit_settled(u, UNIT_NOT_OWNED, "cannot wait");
		return;
	}
	(void)sd_event_source_set_description(u->retry, "systemd-retry");
}

static int on_control_group(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct systemd_unit *u = userdata;
	const sd_bus_error *e;
	const char *cg = NULL;
	int r;

	e = sd_bus_message_get_error(reply);
	if (e) {
		unit_not_loaded(u, e->message ?: e->name);
		return 0;
	}
	r = sd_bus_message_read(reply, "v", "s", &cg);
	if (r < 0 || !cg || !cg[0]) {
		/* A unit systemd does not have gets no cgroup. */
		unit_not_loaded(u, "no ControlGroup");
		return 0;
	}
	if (strcmp(cg, u->cgroup) != 0) {
		unit_settled(u, UNIT_NOT_OWNED, cg);
		return 0;
	}
	unit_settled(u, UNIT_OWNED, "its ControlGroup");
	return 0;
}

/* One call: the ControlGroup property of the unit's object. */
static int unit_lookup(struct systemd_unit *u)
{
	struct manager *m = u->m;
	_cleanup_free_ char *object = NULL;
	sd_bus_message *msg = NULL;
	int r;

	if (!m->sd.bus)
		return -ENOTCONN;
	r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", u->unit, &object);
	if (r >= 0)
		r = sd_bus_message_new_method_call(m->sd.bus, &msg, SD_DEST, object,
						   "org.freedesktop.DBus.Properties", "Get");
	if (r >= 0)
		r = sd_bus_message_append(msg, "ss", unit_interface(u->unit), "ControlGroup");
	if (r >= 0)
		r = sd_bus_call_async(m->sd.bus, &u->slot, msg, on_control_group, u,
				      SYSTEMD_CALL_TIMEOUT_USEC);
	sd_bus_message_unref(msg);
	if (r < 0)
		return r;
	u->tries++;
	return 0;
}

/* A new job: wait for its cgroup's answer, or use the one kept. */
static int job_start(struct systemd_job *j)
{
	struct manager *m = j->m;
	struct systemd_unit *u = unit_find(m, j->cgroup);
	int r;

	if (u && strcmp(u->unit, j->unit) != 0 && u->state != UNIT_LOOKING) {
		unit_remove(m, u); /* another name now: ask again */
		u = NULL;
	}
	if (!u) {
		r = unit_add(m, j->cgroup, j->unit, &u);
		if (r < 0) {
			job_free(j);
			return r;
		}
		u->state = UNIT_LOOKING;
		r = unit_lookup(u);
		if (r == -ENOMEM) {
			unit_remove(m, u);
			job_free(j);
			return r;
		}
		if (r < 0) {
			log_debug_errno(r, "%s: cannot ask systemd for %s: %m, writing directly",
					j->cgroup, j->unit);
			u->state = UNIT_NOT_OWNED;
		}
	}
	switch (u->state) {
	case UNIT_LOOKING:
		j->waiting = true;
		return 0;
	case UNIT_OWNED:
		r = job_set(j);
		if (r == -ENOMEM) {
			job_free(j);
			return r;
		}
		if (r < 0)
			job_write_raw(j);
		return 0;
	default:
		job_write_raw(j);
		return 0;
	}
}

void systemd_unit_forget(struct manager *m, const char *cgroup, bool subtree)
{
	struct systemd_client *c = &m->sd;
	size_t len = strlen(cgroup);
	struct hmap_node *x, *tmp;

	if (!hmap_count(&c->units))
		return;
	if (!subtree) {
		struct systemd_unit *u = unit_find(m, cgroup);

		/* One still being asked about has jobs waiting for it. */
		if (u && u->state != UNIT_LOOKING)
			unit_remove(m, u);
		return;
	}
	HMAP_FOREACH_SAFE(x, tmp, &c->units) {
		struct systemd_unit *u = hmap_entry(x, struct systemd_unit, node);

		if (u->state != UNIT_LOOKING &&
		    (len == 1 || (strncmp(u->cgroup, cgroup, len) == 0 &&
				  (u->cgroup[len] == '\0' || u->cgroup[len] == '/'))))
			unit_remove(m, u);
	}
}

void systemd_unit_cache_flush(struct manager *m)
{
	systemd_unit_forget(m, "/", true);
	log_debug("Forgot what systemd said about units, asking again on the next write");
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

	for (j = m->sd.jobs; j; j = j->next)
		if (j->attr == attr && strcmp(j->cgroup, cgroup) == 0) {
			/* Already on its way: the newest value wins. */
			if (strcmp(j->value, value) != 0) {
				snprintf(j->value, sizeof(j->value), "%s", value);
				j->resend = j->setting;
			}
			return 0;
		}
	if (m->sd.n_jobs >= SYSTEMD_JOBS_MAX || m->exiting) {
		log_ratelimit(LOG_WARNING, "%zu calls to systemd in flight; writing %s of %s directly",
			      m->sd.n_jobs, tier_attr_to_string(attr), cgroup);
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
	j->next = m->sd.jobs;
	m->sd.jobs = j;
	m->sd.n_jobs++;
	if (r < 0) {
		job_free(j);
		return r;
	}
	return job_start(j);
}

void systemd_jobs_cancel(struct manager *m)
{
	while (m->sd.jobs) {
		struct systemd_job *j = m->sd.jobs;

		log_notice("%s: %s=%s for %s not confirmed by systemd before exit", j->cgroup,
			   unit_property[j->attr], j->value, j->unit);
		m->exiting = false; /* no sd_event_exit() from job_free() now */
		job_free(j);
	}
}
