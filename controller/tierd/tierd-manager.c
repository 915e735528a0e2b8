// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tierd Manager: event loop, signals, the reconcile timer, reload under
 * the Type=notify-reload protocol, and applying the policy to a subtree.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "escape.h"
#include "tierd-bus.h"
#include "tierd-cgwatch.h"
#include "tierd-config.h"
#include "tierd-damon.h"
#include "tierd-fair.h"
#include "tierd-log.h"
#include "tierd-manager.h"
#include "tierd-proc.h"
#include "tierd-rundir.h"
#include "tierd-systemd.h"

static void manager_damon_schedule(struct manager *m);

static uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * The one way tierd talks sd_notify: assignments are ours (fixed text such
 * as "READY=1", NULL for none); status is free text that may carry names
 * others chose (a drop-in's file name in a reload error, a cgroup path) and
 * is escaped with text_escape() (a newline becomes a backslash and an n),
 * so it cannot add an assignment of its own (WATCHDOG=trigger, MAINPID=)
 * to the datagram.
 */
void manager_notify(const char *assignments, const char *status)
{
	_cleanup_free_ char *esc = NULL, *msg = NULL;

	if (status) {
		esc = text_escape(status);
		if (!esc)
			return;
	}
	if (asprintf(&msg, "%s%s%s%s", assignments ?: "", assignments && esc ? "\n" : "",
		     esc ? "STATUS=" : "", esc ?: "") < 0)
		return;
	if (msg[0])
		(void)sd_notify(false, msg);
}

bool manager_dry_run(const struct manager *m)
{
	return m->args.dry_run || (m->policy && tier_policy_daemon(m->policy)->dry_run);
}

/*
 * The writer of tier_apply_entry(): memory.low/memory.high of a unit's own
 * cgroup through systemd (MemoryLow=/MemoryHigh=, SetUnitProperties), the
 * raw file otherwise.  The systemd part is asynchronous (tierd-systemd.c):
 * the write is queued, and its outcome (set through systemd, or written
 * directly because systemd does not own the cgroup or refused) is logged
 * when systemd has answered.
 */
struct apply_writer {
	struct manager *m;
	const char *cgroup;
	const char *class, *rule, *reason;	/* for the record of a queued write */
	bool by_fd;				/* tier_apply_entry_at(): raw writes by its dfd */
	bool unit_known;			/* unit looked up */
	char *unit;				/* the name says a unit owns it, or NULL */
	bool queued[_TIER_ATTR_MAX];		/* handed to systemd */
};

static const char *const unit_property[_TIER_ATTR_MAX] = {
	[TIER_ATTR_MEMORY_LOW] = "MemoryLow",
	[TIER_ATTR_MEMORY_HIGH] = "MemoryHigh",
};

/* The unit that may own w->cgroup (NULL if none), by its name. */
static int writer_unit(struct apply_writer *w, const char **ret_unit)
{
	if (!w->unit_known) {
		int r = systemd_cgroup_unit_candidate(w->m, w->cgroup, &w->unit);

		if (r < 0)
			return r;
		w->unit_known = true;
	}
	*ret_unit = w->unit;
	return 0;
}

/* One change of an apply result, as log_change() and pending_add() read it. */
struct apply_change {
	enum tier_attr attr;
	enum tier_apply_status status;
	int error;
	const char *old_value, *new_value;
};

static struct apply_change apply_change_get(const struct tier_apply_result *res, size_t i)
{
	return (struct apply_change){
		.attr = tier_apply_result_change_attr(res, i),
		.status = tier_apply_result_change_status(res, i),
		.error = tier_apply_result_change_error(res, i),
		.old_value = tier_apply_result_change_old_value(res, i),
		.new_value = tier_apply_result_change_new_value(res, i),
	};
}

static int write_attr(void *userdata, struct tier_ctx *ctx, const char *cgroup,
		      enum tier_attr attr, const char *old_value, const char *new_value)
{
	struct apply_writer *w = userdata;
	const char *property = unit_property[attr], *unit = NULL;
	int r;

	if (property) {
		r = writer_unit(w, &unit);
		if (r < 0)
			return r;
	}
	if (unit) {
		struct log_fields f = {
			.cgroup = cgroup,
			.class = w->class,
			.rule = w->rule,
			.knob = tier_attr_to_string(attr),
			.old = old_value,
			.new = new_value,
		};

		r = systemd_queue_write(w->m, cgroup, unit, attr, new_value, &f, w->reason);
		if (r < 0)
			return r;
		w->queued[attr] = true;
		return 0;
	}
	if (w->by_fd)
		return 1; /* the raw file, below the directory fd */
	return tier_cgroup_write(ctx, cgroup, tier_attr_to_string(attr), new_value);
}

void manager_pending_clear(struct manager *m)
{
	free(m->pending);
	m->pending = NULL;
	m->n_pending = m->alloc_pending = 0;
	m->pending_valid = false;
}

/* A change the full pass under way leaves undone (DryRun for everyone). */
static int pending_add(struct manager *m, const struct tier_plan_entry *e, const char *path,
		       const struct apply_change *ch)
{
	/* e may be fairness's filtered copy: the entry is the cached plan's
	 * (the full pass has just made it the cache), whose interned path
	 * the list refers to: on a tree of long paths a dry run's list once
	 * held every path again. */
	const struct tier_plan_entry *c = tier_plan_find(m->cache_plan, path);
	struct pending_change p = {
		.knob = tier_attr_to_string(ch->attr),
		.class = tier_class_name(tier_plan_entry_class(e)),
		.rule = tier_rule_name(tier_plan_entry_rule(e)),
	};

	if (!c)
		return 0;	/* not this pass's cgroup: nothing to answer for */
	p.entry = c;
	snprintf(p.old_value, sizeof(p.old_value), "%s", ch->old_value);
	snprintf(p.new_value, sizeof(p.new_value), "%s", ch->new_value);
	return ARRAY_PUSH(m->pending, m->n_pending, m->alloc_pending, p);
}

/* Log one attribute of an applied entry; -ENOMEM is the only failure. */
static int log_change(struct manager *m, const struct tier_plan_entry *e, struct apply_writer *w,
		      const struct apply_change *ch, const char *reason, bool full_pass)
{
	const char *path = w->cgroup;
	const char *file = tier_attr_to_string(ch->attr), *property = unit_property[ch->attr];
	struct log_fields f = {
		.cgroup = path,
		.class = tier_class_name(tier_plan_entry_class(e)),
		.rule = tier_rule_name(tier_plan_entry_rule(e)),
		.knob = file,
	};
	bool read_failed = !ch->old_value[0];
	const char *unit = NULL;
	int r;

	if (ch->error == -ENOMEM)
		return log_oom();
	if (read_failed) {
		/* A file missing in a cgroup that is gone now: it vanished (a
		 * directory removed after it was opened has no files). */
		if (ch->status == TIER_APPLY_VANISHED ||
		    (ch->error == -EOPNOTSUPP && !tier_cgroup_exists(m->ctx, path)))
			return log_debug("%s: vanished, skipping", path), 0;
		if (ch->attr == TIER_ATTR_NUMA_BALANCING && ch->error == -EOPNOTSUPP) {
			/* The reaction path finds this out by reading: say it once. */
			if (!m->warned_unsupported)
				log_cgroup(LOG_WARNING, &f,
					   "%s: no memory.numa_balancing: the kernel lacks the tierd "
					   "patches (or the memory controller is not enabled for this "
					   "cgroup); mode '%s' of class %s not applied, ignoring",
					   path, ch->new_value, f.class);
			m->warned_unsupported = true;
			return 0;
		}
		return log_cgroup_errno(ch->attr == TIER_ATTR_NUMA_BALANCING ? LOG_WARNING : LOG_DEBUG,
					ch->error, &f, "%s: cannot read %s: %m, ignoring", path,
					file),
		       0;
	}
	if (ch->status == TIER_APPLY_UNCHANGED || ch->status == TIER_APPLY_KEPT)
		return 0;
	f.old = ch->old_value;
	f.new = ch->new_value;
	/* What DryRun tells unprivileged callers: what this pass would write
	 * (dry run) or failed to. */
	if (full_pass &&
	    ch->status == (manager_dry_run(m) ? TIER_APPLY_CHANGED : TIER_APPLY_ERROR) &&
	    pending_add(m, e, path, ch) < 0)
		return log_oom();
	if (manager_dry_run(m)) {
		if (property) {
			r = writer_unit(w, &unit);
			if (r == -ENOMEM)
				return log_oom();
		}
		log_cgroup(LOG_NOTICE, &f, "%s: would set %s %s -> %s%s%s (class %s, rule %s, %s; dry run)",
			   path, file, f.old, f.new, unit ? " via systemd " : "", unit ? unit : "",
			   f.class, f.rule, reason);
		return 0;
	}
	if (ch->status == TIER_APPLY_VANISHED ||
	    (ch->status != TIER_APPLY_CHANGED && ch->error == -EOPNOTSUPP &&
	     !tier_cgroup_exists(m->ctx, path)))
		return log_debug("%s: vanished while being applied, skipping", path), 0;
	if (ch->status != TIER_APPLY_CHANGED) {
		m->n_errors++;
		return log_cgroup_errno(LOG_WARNING, ch->error, &f,
					"%s: failed to write %s=%s: %m, ignoring", path, file, f.new),
		       0;
	}
	m->n_writes++;
	if (w->queued[ch->attr])
		/* The outcome is logged when systemd answers. */
		log_debug("%s: %s=%s for %s handed to systemd (%s)", path, property, f.new,
			  w->unit, reason);
	else
		log_cgroup(LOG_INFO, &f, "%s: %s %s -> %s (class %s, rule %s, %s)", path, file,
			   f.old, f.new, f.class, f.rule, reason);
	return 0;
}

/*
 * Apply one entry: tier_apply_entry() reads each value the entry sets once,
 * compares and writes only what differs.
 */
static int apply_entry(struct manager *m, const struct tier_plan_entry *e, const char *path,
		       int dfd, const char *reason, bool full_pass)
{
	const struct tier_class *cls = tier_plan_entry_class(e);
	const struct tier_rule *rule = tier_plan_entry_rule(e);
	const struct tier_matcher *matcher = tier_plan_entry_matcher(e);
	struct apply_writer w = {
		.m = m,
		.by_fd = dfd >= 0,
		.cgroup = path,
		.class = tier_class_name(cls),
		.rule = tier_rule_name(rule),
		.reason = reason,
	};
	/* the full pass's walk read the values just now, through dfd */
	unsigned flags = (manager_dry_run(m) ? TIER_APPLY_DRY_RUN : 0) |
			 (full_pass && dfd >= 0 ? TIER_APPLY_CURRENT : 0);
	_cleanup_(tier_apply_result_freep) struct tier_apply_result *res = NULL;
	uint64_t mode, cur;
	int r;

	log_debug("%s: class %s (rule %s, %s matched %s)", path, tier_class_name(cls), tier_rule_name(rule),
		  matcher ? tier_matcher_kind_to_string(tier_matcher_kind(matcher)) : "?",
		  tier_plan_entry_matched_value(e) ?: path);
	if (m->backend.backend == TIER_BACKEND_DAMON) {
		/* the mode is DAMON's schemes (tierd-damon.c), never the knob,
		 * even on a kernel that has it */
		flags |= TIER_APPLY_SKIP_NUMA_BALANCING;
	} else if (tier_plan_entry_get_desired(e, TIER_ATTR_NUMA_BALANCING, &mode) == 0 &&
		   tier_plan_entry_get_current(e, TIER_ATTR_NUMA_BALANCING, &cur) == -EOPNOTSUPP) {
		struct log_fields f = {
			.cgroup = path,
			.class = tier_class_name(cls),
			.rule = tier_rule_name(rule),
			.knob = "memory.numa_balancing",
		};

		if (!m->warned_unsupported)
			log_cgroup(LOG_WARNING, &f,
				   "%s: no memory.numa_balancing: the kernel lacks the tierd patches "
				   "(or the memory controller is not enabled for this cgroup); "
				   "mode '%s' of class %s not applied, ignoring",
				   path, tier_mode_to_string((enum tier_mode)mode), tier_class_name(cls));
		m->warned_unsupported = true;
		flags |= TIER_APPLY_SKIP_NUMA_BALANCING;
	}
	if (dfd >= 0)
		r = tier_apply_entry_at(m->ctx, dfd, e, flags, write_attr, &w, &res);
	else
		r = tier_apply_entry(m->ctx, e, flags, write_attr, &w, &res);
	if (r < 0) {
		free(w.unit);
		if (r == -ENOMEM)
			return log_oom();
		return log_warning_errno(r, "%s: cannot apply class %s: %m, ignoring", path,
					 tier_class_name(cls)),
		       0;
	}
	r = 0;
	for (size_t i = 0; r >= 0 && i < tier_apply_result_change_count(res); i++) {
		struct apply_change ch = apply_change_get(res, i);

		r = log_change(m, e, &w, &ch, reason, full_pass);
	}
	free(w.unit);
	return r;
}

/* The table borrows the cached plan's entries: it is emptied first. */
static void cache_set(struct manager *m, struct tier_plan *plan)
{
	managed_table_clear(&m->managed);
	tier_plan_free(m->cache_plan);
	m->cache_plan = plan;
}

static unsigned observe_flags(const struct manager *m)
{
	return (m->policy_has_exe ? TIER_OBSERVE_EXE : 0) |
	       (m->policy_has_annotation ? TIER_OBSERVE_ANNOTATIONS : 0);
}

/* One full pass under way: its plan and why it runs. */
struct full_pass {
	struct manager *m;
	struct tier_plan *plan;
	const char *reason;
	bool cached;			/* plan is the cache (its first cgroup came) */
};

/*
 * One cgroup of the full pass, as the walk decides it, its directory open
 * as dfd: watches, the table, and an apply of what differs through dfd (no
 * path walk, however deep the cgroup).
 */
static int full_pass_visit(void *userdata, struct tier_plan_entry *entry, int dfd)
{
	struct full_pass *fp = userdata;
	struct manager *m = fp->m;
	const struct tier_plan_entry *e = entry;
	_cleanup_(tier_plan_entry_freep) struct tier_plan_entry *tmp = NULL;
	_cleanup_free_ char *path = NULL;
	struct managed *x;
	int r;

	if (!fp->cached) {
		/* Unprivileged callers of the bus API are answered from this
		 * plan, and the table of managed cgroups refers to its entries
		 * (one copy of each decision, each name once): it is the cache
		 * from its first cgroup on, even if the pass fails later. */
		manager_pending_clear(m);
		cache_set(m, fp->plan);
		fp->cached = true;
	}
	/* the entry names its cgroup by parent and name: the whole path is
	 * built for this cgroup's turn only */
	if (tier_plan_entry_path_dup(e, &path) < 0)
		return log_oom();
	/* A full pass also catches directories we could not watch, and those a
	 * reload brought into the policy's reach. */
	if (m->cg.fd >= 0 && !m->cg.limit_hit && !cgroup_watcher_has(m, path) &&
	    cgroup_watcher_wanted(m, path)) {
		r = cgroup_watcher_add_tree(m, path, false);
		if (r == -ENOMEM)
			return r;
	}
	if (!tier_plan_entry_rule(e))
		return 0;
	/* the table refers to the cached plan's entry */
	r = managed_table_put(&m->managed, e, true, &x);
	if (r < 0)
		return log_oom();
	/* A managed cgroup's filling and emptying move the fair share. */
	r = cgroup_watcher_add_events(m, path, dfd);
	if (r < 0)
		return r;
	/* What fairness holds (promotion off, memory.high) is not undone. */
	e = fair_filter_entry(m->fair, e, &tmp);
	if (!e)
		return log_oom();
	/* Just read and already right: nothing to read again or write. */
	if (tier_plan_entry_in_sync(e))
		return 0;
	return apply_entry(m, e, path, dfd, fp->reason, true);
}

/*
 * The full pass: the only place the whole tree is observed (startup,
 * reload, events lost, and periodically only while events cannot cover
 * the tree).  One walk (tier_plan_observe()): each cgroup is decided as it
 * is read, only the values its entry sets are read, and what differs is
 * written through the directory the walk has open.  It rebuilds the table
 * of managed cgroups.
 */
static int manager_full_pass(struct manager *m, const char *reason)
{
	struct full_pass fp = { .m = m, .reason = reason };
	int r;

	log_debug("Observing the whole cgroup tree (%s)", reason);
	r = tier_plan_new(m->policy, m->topo ? tier_topology_fast_capacity(m->topo) : 0,
			  &fp.plan);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_warning_errno(r, "Failed to evaluate the policy: %m, ignoring"), 0;
	r = tier_plan_observe(fp.plan, m->ctx, NULL, observe_flags(m), full_pass_visit, &fp);
	if (!fp.cached)
		tier_plan_free(TAKE_PTR(fp.plan));	/* not one cgroup: the cache stays */
	if (r >= 0 && fp.cached) {
		m->pending_valid = true;
		m->n_cgroups = tier_plan_count(fp.plan);
		manager_damon_schedule(m);
	} else if (r < 0 && r != -ENOMEM && !fp.cached) {
		log_warning_errno(r, "Failed to read the cgroup tree: %m, ignoring");
		r = 0;
	}
	/* A pass over the whole tree allocates and frees a lot at once: give
	 * the free part back rather than keep it resident. */
	(void)malloc_trim(0);
	return r < 0 ? r : 0;
}

int manager_reconcile(struct manager *m, const char *reason)
{
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	uint64_t w0 = m->n_writes;
	int r;

	r = manager_full_pass(m, reason);
	if (r < 0)
		return r;
	/* This pass covers any rescan after lost events that was waiting. */
	m->last_full_pass_usec = now_usec(CLOCK_MONOTONIC);
	if (m->reconcile_defer)
		(void)sd_event_source_set_enabled(m->reconcile_defer, SD_EVENT_OFF);
	log_debug("Reconciled %llu cgroups (%zu in a class, %llu writes) in %.1f ms (%s)",
		  (unsigned long long)m->n_cgroups, m->managed.n,
		  (unsigned long long)(m->n_writes - w0),
		  (double)(now_usec(CLOCK_MONOTONIC) - t0) / 1000.0, reason);
	manager_update_status(m);
	return 0;
}

static int on_reconcile_defer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	if (m->rescan_requests > 1)
		log_info("Rescanning the whole tree once for %llu signals of lost events (%s)",
			 (unsigned long long)m->rescan_requests, m->rescan_reason);
	r = manager_reconcile(m, m->rescan_reason ?: "rescan");
	if (r == -ENOMEM)
		return sd_event_exit(m->event, r);
	return 0;
}

static bool rescan_pending(const struct manager *m)
{
	int enabled = SD_EVENT_OFF;

	return m->reconcile_defer &&
	       sd_event_source_get_enabled(m->reconcile_defer, &enabled) >= 0 &&
	       enabled != SD_EVENT_OFF;
}

/*
 * Lost events (an inotify queue overflow, ENOBUFS on the proc connector):
 * a full pass, but at most one per rescan holdoff (--rescan-holdoff,
 * default RESCAN_HOLDOFF_USEC) since the last full pass of any kind, so a
 * workload that keeps overflowing the queue costs one pass per holdoff and
 * not one per overflow.  Signals while one is pending join it; a full pass
 * for another reason (reload, the periodic reconcile) takes its place.
 */
void manager_schedule_reconcile(struct manager *m, const char *reason)
{
	uint64_t holdoff = m->args.rescan_holdoff_set ? m->args.rescan_holdoff_usec
						      : RESCAN_HOLDOFF_USEC;
	uint64_t now = now_usec(CLOCK_MONOTONIC), due = now;
	int r;

	if (m->exiting)
		return;
	if (rescan_pending(m)) {
		m->rescan_requests++;
		log_debug("Full reconcile already scheduled, %s joins it", reason);
		return;
	}
	if (m->last_full_pass_usec && m->last_full_pass_usec + holdoff > now)
		due = m->last_full_pass_usec + holdoff;
	m->rescan_reason = reason;
	m->rescan_requests = 1;
	if (due > now)
		log_info("Full reconcile (%s) deferred by %.1f s: at most one every %.1f s",
			 reason, (double)(due - now) / 1e6, (double)holdoff / 1e6);
	else
		log_debug("Full reconcile scheduled (%s)", reason);
	if (m->reconcile_defer) {
		r = sd_event_source_set_time(m->reconcile_defer, due);
		if (r >= 0)
			r = sd_event_source_set_enabled(m->reconcile_defer, SD_EVENT_ONESHOT);
	} else {
		r = sd_event_add_time(m->event, &m->reconcile_defer, CLOCK_MONOTONIC, due, 0,
				      on_reconcile_defer, m);
		if (r >= 0) {
			(void)sd_event_source_set_description(m->reconcile_defer, "rescan-lost-events");
			(void)sd_event_source_set_priority(m->reconcile_defer, SD_EVENT_PRIORITY_IDLE);
		}
	}
	if (r < 0)
		log_warning_errno(r, "Failed to schedule a reconcile: %m, ignoring");
}

/*
 * Arm a one-shot monotonic timer *source to fire in usec, creating it on
 * first use; the callbacks re-arm it the same way.
 */
static int arm_timer(struct manager *m, sd_event_source **source, uint64_t usec,
		     sd_event_time_handler_t callback, const char *description)
{
	int r;

	if (*source) {
		r = sd_event_source_set_time_relative(*source, usec);
		if (r >= 0)
			r = sd_event_source_set_enabled(*source, SD_EVENT_ONESHOT);
		return r;
	}
	r = sd_event_add_time_relative(m->event, source, CLOCK_MONOTONIC, usec, 0, callback, m);
	if (r < 0)
		return log_error_errno(r, "Failed to add the %s: %m", description);
	(void)sd_event_source_set_description(*source, description);
	return 0;
}

/* Can events miss a change?  Then, and only then, a periodic full pass. */
static bool reconcile_needed(const struct manager *m)
{
	return m->cg.fd < 0 || m->cg.limit_hit || (m->policy_has_exe && !m->proc.source);
}

static int on_reconcile_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	r = manager_reconcile(m, "periodic reconcile");
	if (r == -ENOMEM)
		return sd_event_exit(m->event, r);
	manager_reconcile_timer_update(m);
	return 0;
}

void manager_reconcile_timer_update(struct manager *m)
{
	int r;

	if (!reconcile_needed(m)) {
		if (m->reconcile_timer)
			(void)sd_event_source_set_enabled(m->reconcile_timer, SD_EVENT_OFF);
		return;
	}
	r = arm_timer(m, &m->reconcile_timer, m->reconcile_usec, on_reconcile_timer,
		      "reconcile-timer");
	if (r < 0)
		log_warning_errno(r, "Failed to arm the reconcile timer: %m, ignoring");
}

/*
 * The reaction path: obs is one cgroup (tier_observe_cgroup_at(), or built
 * from it); evaluate it alone (the policy's rule index), update the table,
 * apply.  No tree observe, no blocking call.
 */
static int react_apply(struct manager *m, const struct tier_observed *obs, int dfd,
		       const char *reason)
{
	_cleanup_(tier_plan_entry_freep) struct tier_plan_entry *tmp = NULL;
	_cleanup_(tier_plan_freep) struct tier_plan *plan = NULL;
	_cleanup_free_ char *path = NULL;
	const struct tier_plan_entry *e;
	struct managed *x;
	int r;

	r = tier_evaluate(m->policy, obs, &plan);
	/* its path below its parent's in the cached plan, where that has it:
	 * the table then holds the cgroup's name, not its whole path again */
	if (r >= 0 && m->cache_plan)
		r = tier_plan_intern_from(plan, m->cache_plan);
	if (r >= 0)
		r = tier_plan_entry_path_dup(tier_plan_entry(plan, 0), &path);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_warning_errno(r, "cannot evaluate the policy for a cgroup: %m, ignoring"), 0;
	e = tier_plan_entry(plan, 0);
	if (!tier_plan_entry_rule(e)) {
		if (managed_table_remove(&m->managed, path, false) > 0) {
			log_debug("%s: no longer in a class", path);
			manager_schedule_rebalance(m);
		}
		return 0;
	}
	r = managed_table_put(&m->managed, e, false, &x);
	if (r < 0)
		return log_oom();
	if (r > 0)
		manager_schedule_rebalance(m);
	r = cgroup_watcher_add_events(m, path, dfd);
	if (r < 0)
		return r;
	/* What fairness holds (promotion off, memory.high) is not undone. */
	e = fair_filter_entry(m->fair, x->entry, &tmp);
	if (!e)
		return log_oom();
	return apply_entry(m, e, path, dfd, reason, false);
}

int manager_cgroup_added(struct manager *m, const char *cgroup, int dfd, const char *reason)
{
	_cleanup_(tier_observed_freep) struct tier_observed *obs = NULL;
	int r;

	r = tier_observe_cgroup_at(m->ctx, m->topo, dfd, cgroup, observe_flags(m), &obs);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_debug_errno(r, "%s: cannot read it: %m, skipping", cgroup), 0;
	/* a memcg below a class that promotes needs a scheme of its own */
	manager_damon_schedule(m);
	return react_apply(m, obs, dfd, reason);
}

int manager_cgroup_populated(struct manager *m, const char *cgroup, const char *reason)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (m->policy_has_exe) {
		/* exe= rules may match its processes now. */
		r = tier_cgroup_open(m->ctx, cgroup, &fd);
		if (r == -ENOMEM)
			return log_oom();
		if (r < 0)
			return log_debug_errno(r, "%s: cannot open it: %m, skipping", cgroup), 0;
		r = manager_cgroup_added(m, cgroup, fd, reason);
		if (r < 0)
			return r;
	}
	/* A managed cgroup with processes shares the fast tier. */
	if (managed_table_get(&m->managed, cgroup))
		manager_schedule_rebalance(m);
	manager_damon_schedule(m);
	return 0;
}

/* The one cgroup of an exec event: its unit and annotations as read, and as
 * executables exe and (if an exe rule put it in its class) the one that
 * matched then, which still counts (first match wins); the other processes'
 * executables matched nothing. */
static int exec_observed(struct manager *m, const char *cgroup, int fd, const char *exe,
			 struct tier_observed **ret)
{
	_cleanup_(tier_observed_freep) struct tier_observed *read = NULL, *o = NULL;
	const struct managed *x = managed_table_get(&m->managed, cgroup);
	const struct tier_matcher *mt = x ? tier_plan_entry_matcher(x->entry) : NULL;
	const char *matched = x ? tier_plan_entry_matched_value(x->entry) : NULL;
	const struct tier_observed_cgroup *rc;
	struct tier_observed_cgroup *c;
	int r;

	r = tier_observe_cgroup_at(m->ctx, m->topo, fd, cgroup,
				   observe_flags(m) & TIER_OBSERVE_ANNOTATIONS, &read);
	if (r < 0)
		return r;
	rc = tier_observed_get(read, 0);
	r = tier_observed_new(tier_observed_fast_capacity(read), &o);
	if (r >= 0)
		r = tier_observed_add(o, cgroup, &c);
	if (r >= 0)
		r = tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING, TIER_MODE_INHERIT);
	if (r >= 0 && tier_observed_cgroup_unit(rc))
		r = tier_observed_cgroup_set_unit(c, tier_observed_cgroup_unit(rc));
	for (const char *const *a = tier_observed_cgroup_annotations(rc); r >= 0 && *a; a++)
		r = tier_observed_cgroup_add_annotation(c, *a);
	if (r >= 0)
		r = tier_observed_cgroup_add_exe(c, exe);
	if (r >= 0 && mt && tier_matcher_kind(mt) == TIER_MATCH_EXE && matched && strcmp(matched, exe) != 0)
		r = tier_observed_cgroup_add_exe(c, matched);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

int manager_cgroup_exec(struct manager *m, const char *cgroup, const char *exe,
			const char *reason)
{
	_cleanup_(tier_observed_freep) struct tier_observed *obs = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	r = tier_cgroup_open(m->ctx, cgroup, &fd);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_debug_errno(r, "%s: cannot open it: %m, skipping", cgroup), 0;
	r = exec_observed(m, cgroup, fd, exe, &obs);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_debug_errno(r, "%s: cannot read it: %m, skipping", cgroup), 0;
	return react_apply(m, obs, fd, reason);
}

void manager_cgroup_removed(struct manager *m, const char *cgroup, bool subtree)
{
	size_t n = managed_table_remove(&m->managed, cgroup, subtree);

	manager_damon_schedule(m);

	systemd_unit_forget(m, cgroup, subtree);
	if (n > 0)
		manager_schedule_rebalance(m);
	else if (m->fair && fair_state_find(m->fair, cgroup))
		manager_schedule_rebalance(m);
}

/* ------------------------------------------------------------------------
 * The damon backend (tierd-damon.c): the kdamond, synced with the table
 * ------------------------------------------------------------------------ */

/* A burst of cgroup events costs one commit once they have settled
 * (DAMON_QUIET_USEC without one), and at most one per DAMON_MAX_DELAY_USEC
 * while they go on. */
#define DAMON_QUIET_USEC (200 * 1000ull)
#define DAMON_MAX_DELAY_USEC (2 * 1000000ull)
/* After a failed sync (a refused commit, EBUSY from a concurrent user of
 * DAMON's sysfs, a failed write): try again soon. */
#define DAMON_RETRY_USEC (1000 * 1000ull)
#define DAMON_RETRY_MAX_USEC (60 * 1000000ull)

static void damon_log(void *userdata, int priority, int error, const char *message)
{
	log_full_errno(priority, error, "%s", message);
}

static void damon_fair_clear(struct manager *m)
{
	for (size_t i = 0; i < m->n_damon_fair; i++)
		free((char *)m->damon_fair[i].path);
	free(m->damon_fair);
	m->damon_fair = NULL;
	m->n_damon_fair = 0;
}

/* tierd-fair's hook: the round's targets, kept for the next sync. */
static int fair_damon(void *userdata, size_t n, const struct fair_decision *dec)
{
	struct manager *m = userdata;
	struct damon_fair *f = calloc(n ?: 1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		f[i] = (struct damon_fair){
			.path = strdup(dec[i].path),
			.target = dec[i].target,
			.demand = dec[i].demand,
			.resident = dec[i].resident,
			.fast_bytes = dec[i].fast_bytes,
			.throttled = dec[i].damon_off,
		};
		if (!f[i].path) {
			while (i-- > 0)
				free((char *)f[i].path);
			free(f);
			return -ENOMEM;
		}
	}
	damon_fair_clear(m);
	m->damon_fair = f;
	m->n_damon_fair = n;
	return 0;
}

static void damon_schedule_in(struct manager *m, uint64_t usec);
static int on_damon_goal(sd_event_source *s, uint64_t usec, void *userdata);

/* The once-a-second damon-goal timer runs while there is something for it:
 * demotion goals to feed, hot sets to read, schemes waiting for their
 * quota to hold (damon_driver_arm()). */
static bool damon_goal_timer_wanted(const struct manager *m)
{
	return damon_driver_has_demote(m->damon) || damon_driver_has_hot(m->damon) ||
	       damon_driver_arming(m->damon) || damon_driver_has_quota_feedback(m->damon);
}

/* Hot sets are measured where a class shares by them (demand = hot): the
 * measurement walks the monitored memory once per memcg and second. */
static bool damon_hot_wanted(const struct manager *m)
{
	if (tier_policy_daemon(m->policy)->demand == TIER_DEMAND_HOT)
		return true;
	for (size_t i = 0; i < tier_policy_class_count(m->policy); i++)
		if (tier_class_demand(m->policy, tier_policy_class(m->policy, i)) == TIER_DEMAND_HOT)
			return true;
	return false;
}

/*
 * Page-cache promotion (knob backend): NUMA balancing promotes only what a
 * task faults on through a PTE, so a class that promotes (promote, full)
 * and keeps page_cache on gets DAMON schemes for the page cache of its
 * memcgs (DAMON_PLAN_PAGECACHE).
 */
static bool damon_pagecache_wanted(const struct manager *m)
{
	for (size_t i = 0; i < tier_policy_class_count(m->policy); i++) {
		const struct tier_class *c = tier_policy_class(m->policy, i);

		if ((tier_class_mode(c) == TIER_MODE_PROMOTE || tier_class_mode(c) == TIER_MODE_FULL) &&
		    tier_class_page_cache(c))
			return true;
	}
	return false;
}

/* The hot sets of the last reading, for the fair share (tier-internal.h). */
static int damon_hot_of(void *userdata, const char *path, uint64_t *ret)
{
	struct manager *m = userdata;

	return m->damon ? damon_driver_hot(m->damon, path, ret) : -ENODATA;
}

/*
 * The managed cgroups as the damon code takes them, each path built (a
 * table entry holds its name, its parent the rest); with budget_only only
 * those whose class has a promote_budget (all the knob backend writes
 * without a kdamond), so a tree of long paths is not built whole for
 * nothing.  Free with managed_paths_free().
 */
struct managed_paths {
	struct damon_managed *v;
	size_t n;
};

static void managed_paths_free(struct managed_paths *mp)
{
	for (size_t i = 0; i < mp->n; i++)
		free((char *)mp->v[i].path);
	free(mp->v);
	*mp = (struct managed_paths){};
}

static int managed_paths_collect(struct manager *m, bool budget_only, struct managed_paths *mp)
{
	const struct managed *x;
	int r = 0;

	mp->v = calloc(m->managed.n ?: 1, sizeof(*mp->v));
	if (!mp->v)
		return -ENOMEM;
	MANAGED_FOREACH(x, &m->managed) {
		const struct tier_class *cls = tier_plan_entry_class(x->entry);
		char *path;

		if (r < 0 || mp->n >= m->managed.n)
			break;
		if (budget_only && !tier_class_promote_budget(cls))
			continue;
		r = tier_plan_entry_path_dup(x->entry, &path);
		if (r < 0)
			break;
		mp->v[mp->n++] = (struct damon_managed){
			.path = path,
			.mode = tier_class_mode(cls),
			.promote_budget = tier_class_promote_budget(cls),
			.no_page_cache = !tier_class_page_cache(cls),
		};
	}
	if (r < 0)
		managed_paths_free(mp);
	return r;
}

/* A reading of the hot sets (at most every few seconds), saved in the run
 * directory for tierctl and tierd-metrics. */
static void damon_hot_tick(struct manager *m)
{
	_cleanup_(managed_paths_free) struct managed_paths mp = {};
	struct damon_stats st0, st1;

	damon_driver_stats(m->damon, &st0);
	(void)damon_driver_hot_update(m->damon, now_usec(CLOCK_MONOTONIC));
	damon_driver_stats(m->damon, &st1);
	if (st1.n_hot_updates == st0.n_hot_updates || m->run.fd < 0)
		return;
	if (managed_paths_collect(m, false, &mp) < 0)
		return;
	if (damon_driver_hot_save(m->damon, m->run.fd, mp.v, mp.n) < 0)
		log_debug("DAMON: cannot save the hot sets in the run directory, ignoring");
}

/* promote_budget on the knob backend: memory.promote_rate_max. */
static void damon_budget_knob(struct manager *m, int root_fd, const struct damon_managed *managed,
			      size_t n)
{
	size_t unsupported = 0;
	int r = promote_budget_apply(root_fd, managed, n, manager_dry_run(m), damon_log, m,
				     &unsupported);

	if (r > 0)
		log_info("promote_budget: %s memory.promote_rate_max of %d cgroups",
			 manager_dry_run(m) ? "would write" : "wrote", r);
	if (unsupported && !m->said_budget_unsupported)
		log_warning("promote_budget: unsupported on this kernel (no %s; it comes with "
			    "patch 19 of the kernel series): %zu cgroups promote without a budget",
			    DAMON_PROMOTE_RATE_FILE, unsupported);
	m->said_budget_unsupported = unsupported > 0;
}

/*
 * The scheme set the table and fairness ask for, made the kdamond's input:
 * one commit if it differs, else only the goals that changed.
 */
static int manager_damon_sync(struct manager *m, const char *reason)
{
	_cleanup_(managed_paths_free) struct managed_paths mp = {};
	_cleanup_close_ int root_fd = -1;
	struct damon_managed *managed;
	struct damon_plan plan = {};
	char **memcgs = NULL;
	size_t n, n_memcgs = 0;
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	int r;

	bool hot = damon_hot_wanted(m);
	bool knob = m->backend.backend == TIER_BACKEND_KNOB;
	unsigned flags = (m->backend.backend == TIER_BACKEND_DAMON ? DAMON_PLAN_TIERING : 0) |
			 (hot ? DAMON_PLAN_HOT : 0) |
			 (knob && damon_pagecache_wanted(m) ? DAMON_PLAN_PAGECACHE : 0);

	if ((!m->damon && m->backend.backend != TIER_BACKEND_KNOB) || m->exiting)
		return 0;
	/* without a kdamond only the budgets are written */
	if (managed_paths_collect(m, !m->damon, &mp) < 0)
		return log_oom();
	managed = mp.v;
	n = mp.n;
	root_fd = open(tier_ctx_get_cgroup_root(m->ctx), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return log_warning_errno(errno, "DAMON: cannot open the cgroup root: %m, ignoring"), 0;
	if (m->backend.backend == TIER_BACKEND_KNOB)
		damon_budget_knob(m, root_fd, managed, n);
	if (!m->damon)
		return 0;
	/* the knob backend with neither hot sets nor page cache: an empty
	 * plan, no walk */
	r = flags ? damon_memcgs_collect(root_fd, managed, n, m->damon_fair, m->n_damon_fair, hot,
					 &memcgs, &n_memcgs) : 0;
	if (r >= 0)
		r = damon_plan_build(managed, n, (const char *const *)memcgs, n_memcgs,
				     m->damon_fair, m->n_damon_fair, flags, &plan);
	for (size_t i = 0; i < n_memcgs; i++)
		free(memcgs[i]);
	free(memcgs);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_warning_errno(r, "DAMON: cannot build the schemes: %m, ignoring"), 0;
	if (plan.n_dropped)
		log_ratelimit(LOG_WARNING, "DAMON: %zu schemes left out: more than %d memcgs need "
			      "one; those cgroups keep no DAMON tiering", plan.n_dropped,
			      DAMON_SCHEMES_MAX);
	r = damon_driver_apply(m->damon, &plan);
	if (r == -ENOMEM) {
		damon_plan_done(&plan);
		return log_oom();
	}
	if (r < 0) {
		struct damon_stats st;

		/* a refused commit, a busy sysfs (a concurrent reader), a failed
		 * write: again soon; while another kdamond runs, at the next
		 * rebalance */
		damon_driver_stats(m->damon, &st);
		/* 1 s, doubling up to a minute while it keeps failing */
		m->damon_retry_usec = m->damon_retry_usec ? m->damon_retry_usec * 2 : DAMON_RETRY_USEC;
		if (m->damon_retry_usec > DAMON_RETRY_MAX_USEC)
			m->damon_retry_usec = DAMON_RETRY_MAX_USEC;
		if (!st.blocked)
			damon_schedule_in(m, m->damon_retry_usec);
	} else {
		m->damon_retry_usec = 0;
	}
	if (r >= 0)
		(void)damon_driver_goals(m->damon, &plan);
	/* demotion schemes run: feed their goals every second; hot sets:
	 * read them */
	if (r >= 0 && damon_goal_timer_wanted(m)) {
		int enabled = SD_EVENT_OFF;

		if (!m->damon_goal_timer ||
		    sd_event_source_get_enabled(m->damon_goal_timer, &enabled) < 0 ||
		    enabled == SD_EVENT_OFF)
			(void)arm_timer(m, &m->damon_goal_timer, DAMON_GOAL_USEC, on_damon_goal,
					"damon-goal");
	}
	log_debug("DAMON: synced %zu schemes for %zu managed cgroups, %zu memcgs (%s) in %.1f ms",
		  plan.n, n, n_memcgs, reason, (double)(now_usec(CLOCK_MONOTONIC) - t0) / 1000.0);
	damon_plan_done(&plan);
	return 0;
}

/*
 * Between two rebalances, the demotion goals are fed once a second from
 * the sharers' memory.numa_stat: DAMON grows a goal's quota every 100 ms,
 * and a goal fed only every rebalance_interval would let it demote far
 * past the target in between.  Armed while demotion schemes run.
 */
/* anon + file of memory.numa_stat on the top-tier nodes and on the others. */
static int damon_numa_bytes(struct manager *m, const char *cgroup, uint64_t *ret_fast,
			    uint64_t *ret_slow)
{
	static const char *const keys[] = { "anon", "file" };
	uint64_t sum[2] = { 0, 0 };

	for (size_t k = 0; k < 2; k++) {
		_cleanup_free_ uint64_t *v = NULL;
		unsigned n = 0;
		int r = tier_cgroup_read_numa_stat(m->ctx, cgroup, keys[k], &v, &n);

		if (r < 0)
			return r;
		for (unsigned i = 0; i < n; i++)
			sum[!tier_topology_node_is_toptier(m->topo, (int)i)] += v[i];
	}
	*ret_fast = sum[0];
	*ret_slow = sum[1];
	return 0;
}

/* On the top-tier nodes: what DAMON's schemes move (not memory.stat's
 * toptier, which the tierd series counts only under memory_tiered_limits). */
static int damon_fast_bytes(struct manager *m, const char *cgroup, uint64_t *ret)
{
	uint64_t slow;

	return damon_numa_bytes(m, cgroup, ret, &slow);
}

/* The hot-set measurement's resident bytes per tier (damon_resident_fn). */
static int damon_resident(void *userdata, const char *memcg, uint64_t *ret_fast,
			  uint64_t *ret_slow)
{
	return damon_numa_bytes(userdata, memcg, ret_fast, ret_slow);
}

static int on_damon_goal(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	if (!m->damon || m->exiting || !m->topo || !damon_goal_timer_wanted(m)) {
		log_debug("DAMON: goal timer stops (no demotion, hot-set or arming scheme)");
		return 0;	/* re-armed by the sync that adds demotion */
	}
	/* schemes whose quota is in force now get their pattern */
	r = damon_driver_arm(m->damon);
	if (r == -ENOMEM)
		return sd_event_exit(m->event, -ENOMEM);
	if (r < 0)
		damon_schedule_in(m, DAMON_RETRY_USEC);	/* restage all of it */
	if (damon_driver_quota_feedback(m->damon) == -ENOMEM)
		return sd_event_exit(m->event, -ENOMEM);
	if (damon_driver_has_hot(m->damon))
		damon_hot_tick(m);
	if (damon_driver_has_demote(m->damon)) {
		for (size_t i = 0; i < m->n_damon_fair; i++) {
			struct damon_fair *f = &m->damon_fair[i];
			uint64_t fast;

			if (damon_fair_contended(f) && damon_fast_bytes(m, f->path, &fast) == 0)
				f->fast_bytes = fast;
		}
		(void)damon_driver_goals_fast(m->damon, m->damon_fair, m->n_damon_fair);
	}
	r = arm_timer(m, &m->damon_goal_timer, DAMON_GOAL_USEC, on_damon_goal, "damon-goal");
	if (r < 0)
		log_warning_errno(r, "DAMON: cannot re-arm the goal timer: %m, ignoring");
	return 0;
}

static int on_damon_debounce(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	if (manager_damon_sync(m, "cgroup change") == -ENOMEM)
		return sd_event_exit(m->event, -ENOMEM);
	return 0;
}

static bool damon_pending(const struct manager *m)
{
	int enabled = SD_EVENT_OFF;

	return m->damon_debounce &&
	       sd_event_source_get_enabled(m->damon_debounce, &enabled) >= 0 &&
	       enabled != SD_EVENT_OFF;
}

static void damon_schedule_in(struct manager *m, uint64_t usec)
{
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	int r;

	if (!m->damon || m->exiting)
		return;
	if (damon_pending(m)) {
		/* quiet again after this event, bounded from the first */
		if (now - m->damon_first_usec + usec <= DAMON_MAX_DELAY_USEC)
			(void)sd_event_source_set_time_relative(m->damon_debounce, usec);
		return;
	}
	m->damon_first_usec = now;
	r = arm_timer(m, &m->damon_debounce, usec, on_damon_debounce, "damon-debounce");
	if (r < 0)
		log_warning_errno(r, "DAMON: cannot schedule a commit: %m, ignoring");
}

static void manager_damon_schedule(struct manager *m)
{
	damon_schedule_in(m, DAMON_QUIET_USEC);
}

/* The damon backend at start-up: our kdamond (or a previous tierd's), the
 * sysctl.  Problems leave tierd running without DAMON tiering. */
static int manager_damon_start(struct manager *m)
{
	const struct tier_daemon_config *dc = tier_policy_daemon(m->policy);
	struct damon_driver_args a = {
		.sysfs_root = m->args.sysfs_root,
		.procfs_root = m->args.procfs_root,
		.run_fd = m->run.fd,
		.log = damon_log,
		.userdata = m,
		.resident = damon_resident,
	};
	_cleanup_free_ struct tier_damon_range *fast = NULL, *slow = NULL;
	_cleanup_free_ char *prefix = NULL;
	bool knob = m->backend.backend == TIER_BACKEND_KNOB;
	bool pagecache = damon_pagecache_wanted(m);
	const char *why;
	int seen, r;

	if (m->backend.backend != TIER_BACKEND_DAMON && !knob)
		return 0;
	/* DAMON does not see page cache read with read(2) on a stock 6.12
	 * with MGLRU on: say so once, where a class asks for it */
	seen = pagecache ? tier_pagecache_read_seen(&m->backend.probe, &why) : 1;
	if (seen <= 0)
		log_notice("page cache promotion: page cache read with read(2) %s promoted "
			   "here: %s", seen ? "may not be" : "is not", why);
	if (knob)
		a.what = "page cache promotion or hot-set measurement";
	if (manager_dry_run(m)) {
		log_info("DAMON: dry run: no kdamond is added, started or changed");
		return 0;
	}
	if (!m->topo && knob) {
		if (pagecache)
			log_notice("page cache promotion: unavailable: no memory tiers read");
		return 0;
	}
	if (!m->topo)
		return log_warning("DAMON: no memory tiers read: no tiering through DAMON"), 0;
	r = damon_layout_read(m->topo, m->args.procfs_root, &a, &fast, &slow);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0 && knob && pagecache)
		return log_notice_errno(r, "page cache promotion: unavailable: no physical ranges "
					"of the tiers (<proc>/zoneinfo): %m"), 0;
	if (r < 0 && knob)
		return log_debug_errno(r, "DAMON: no physical ranges of the tiers (%m): hot sets "
				       "unavailable"), 0;
	if (r < 0)
		return log_warning_errno(r, "DAMON: cannot find the fast and slow nodes' physical "
					 "ranges (<proc>/zoneinfo): %m; no tiering through DAMON"), 0;
	r = damon_memcg_prefix(m->args.procfs_root, tier_ctx_get_cgroup_root(m->ctx), &prefix);
	if (r < 0)
		return log_oom();
	a.memcg_prefix = prefix;
	r = damon_driver_new(&a, &m->damon);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0 && knob && pagecache)
		return log_notice_errno(r, "page cache promotion: unavailable: no DAMON sysfs "
					"interface (%m); hot sets unavailable too"), 0;
	if (r < 0 && knob)
		return log_info_errno(r, "DAMON: no sysfs interface (%m): hot sets unavailable"), 0;
	if (r < 0)
		return log_warning_errno(r, "DAMON: cannot open its sysfs interface: %m; no tiering "
					 "through DAMON"), 0;
	if (knob) {
		/* the knob tiers; DAMON measures hot sets (demand = hot) and
		 * promotes page cache (page_cache = on), which the knob's
		 * NUMA balancing cannot fault on */
		log_info("DAMON: hot-set measurement where demand = hot, page cache promotion to "
			 "node %d where mode = promote or full and page_cache = on", a.fast_nid);
		return damon_driver_reclaim(m->damon) == -ENOMEM ? log_oom() : 0;
	}
	log_info("DAMON: promotion to node %d, demotion to node %d; memcg paths below '%s'",
		 a.fast_nid, a.slow_nid, prefix[0] ? prefix : "/");
	r = damon_driver_reclaim(m->damon);
	if (r == -ENOMEM)
		return log_oom();
	(void)damon_sysctl_check(m->args.procfs_root, m->run.fd, dc->numa_balancing_sysctl_off,
				 damon_log, m);
	return 0;
}

/* tierd exits: our kdamond stops, the record and the sysctl go back. */
static void manager_damon_stop(struct manager *m)
{
	if (m->damon) {
		(void)damon_driver_stop(m->damon);
		if (!manager_dry_run(m))
			(void)damon_sysctl_restore(m->args.procfs_root, m->run.fd, damon_log, m);
	}
	damon_driver_free(m->damon);
	m->damon = NULL;
	damon_fair_clear(m);
}

/* tierd-fair hooks: memory.high the way apply writes it (through systemd for
 * a unit's cgroup), records to our log, the state file. */
static int fair_set_high(void *userdata, const char *cgroup, uint64_t bytes)
{
	struct manager *m = userdata;
	struct apply_writer w = { .m = m, .cgroup = cgroup, .reason = "fair share" };
	char new_value[TIER_VALUE_MAX];
	_cleanup_free_ char *old = NULL;
	int r;

	if (bytes == UINT64_MAX)
		snprintf(new_value, sizeof(new_value), "max");
	else
		snprintf(new_value, sizeof(new_value), "%llu", (unsigned long long)bytes);
	(void)tier_cgroup_read(m->ctx, cgroup, "memory.high", &old);
	r = write_attr(&w, m->ctx, cgroup, TIER_ATTR_MEMORY_HIGH, old ?: "", new_value);
	free(w.unit);
	return r;
}

static void fair_log(void *userdata, int priority, const struct log_fields *f,
		     const char *message)
{
	log_cgroup(priority, f, "%s", message);
}

/* Keep what fairness holds in the run directory, if it changed. */
static int fair_save(void *userdata, const struct fair_state *s)
{
	struct manager *m = userdata;
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	int r;

	if (m->run.fd < 0)
		return 0;
	if (fair_state_held(s) == 0) {
		/* Nothing held: no file (and none left from before). */
		if (m->fair_state_saved) {
			r = rundir_unlink_file(m, FAIR_STATE_NAME);
			if (r < 0 && r != -ENOENT)
				log_ratelimit_errno(LOG_WARNING, r, "Cannot remove %s/%s: %m, ignoring",
						    m->run.path, FAIR_STATE_NAME);
			free(m->fair_state_saved);
			m->fair_state_saved = NULL;
		}
		return 0;
	}
	r = fair_state_serialize(s, &buf, &size);
	if (r < 0)
		return r == -ENOMEM ? log_oom() : 0;
	if (m->fair_state_saved && strcmp(m->fair_state_saved, buf) == 0)
		return 0;
	r = rundir_write_file(m, FAIR_STATE_NAME, buf, size);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0) {
		log_ratelimit_errno(LOG_WARNING, r, "Cannot write %s/%s: %m; after a restart tierd "
				    "may not know what to give back, ignoring", m->run.path,
				    FAIR_STATE_NAME);
		return 0;
	}
	free(m->fair_state_saved);
	m->fair_state_saved = TAKE_PTR(buf);
	log_debug("Fairness holds %zu cgroups, kept in %s/%s", fair_state_held(s), m->run.path,
		  FAIR_STATE_NAME);
	return 0;
}

static const char *fair_rule_name(void *userdata, const char *cgroup);

static void demote_drop(struct manager *m, size_t i)
{
	free(m->demotes[i].cgroup);
	m->demotes[i] = m->demotes[--m->n_demotes];
	if (m->next_demote >= m->n_demotes)
		m->next_demote = 0;
}

/*
 * One chunk of one cgroup's demotion, round robin over the cgroups, then
 * back to the event loop (an idle-priority defer source: everything else
 * pending goes first).  memory.reclaim fails with EAGAIN when it got less
 * than asked: the cgroup has nothing more to give now, the rest is dropped
 * (the next round asks again if it is still above its target).
 */
static int on_demote(sd_event_source *s, void *userdata)
{
	struct manager *m = userdata;
	struct demote_request *q;
	uint64_t chunk;
	char v[32];
	int r;

	if (m->n_demotes == 0 || m->exiting)
		return sd_event_source_set_enabled(s, SD_EVENT_OFF);
	q = &m->demotes[m->next_demote];
	chunk = q->left < DEMOTE_CHUNK_BYTES ? q->left : DEMOTE_CHUNK_BYTES;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)chunk);
	r = tier_cgroup_write(m->ctx, q->cgroup, "memory.reclaim", v);
	if (r == -ENOMEM)
		return sd_event_exit(m->event, log_oom());
	q->left -= chunk;
	log_debug("%s: memory.reclaim %s: %s (%llu bytes left)", q->cgroup, v,
		  r == 0 ? "done" : r == -EAGAIN ? "got less" : strerror(-r),
		  (unsigned long long)(r == 0 ? q->left : 0));
	if (r < 0 && r != -EAGAIN && r != -ENOENT)
		m->n_errors++;
	if (r < 0 || q->left == 0)
		demote_drop(m, m->next_demote);
	else
		m->next_demote = (m->next_demote + 1) % m->n_demotes;
	return sd_event_source_set_enabled(s, m->n_demotes ? SD_EVENT_ON : SD_EVENT_OFF);
}

static int fair_demote(void *userdata, const char *cgroup, uint64_t bytes)
{
	struct manager *m = userdata;
	struct demote_request q = { .left = bytes };
	int r;

	for (size_t i = 0; i < m->n_demotes; i++)
		if (strcmp(m->demotes[i].cgroup, cgroup) == 0) {
			m->demotes[i].left = bytes;
			return 0;
		}
	if (bytes == 0)
		return 0;
	if (!m->demote_source) {
		r = sd_event_add_defer(m->event, &m->demote_source, on_demote, m);
		if (r < 0)
			return r == -ENOMEM ? r : 0;
		(void)sd_event_source_set_description(m->demote_source, "demote-chunks");
		(void)sd_event_source_set_priority(m->demote_source, SD_EVENT_PRIORITY_IDLE);
	}
	q.cgroup = strdup(cgroup);
	if (!q.cgroup)
		return -ENOMEM;
	r = ARRAY_PUSH(m->demotes, m->n_demotes, m->alloc_demotes, q);
	if (r < 0) {
		free(q.cgroup);
		return r;
	}
	(void)sd_event_source_set_enabled(m->demote_source, SD_EVENT_ON);
	return 0;
}

static const struct fair_ops *manager_fair_ops(struct manager *m)
{
	static struct fair_ops ops;

	ops = (struct fair_ops){
		.userdata = m,
		.set_high = fair_set_high,
		.log = fair_log,
		.save = fair_save,
		.rule_name = fair_rule_name,
		.demote = fair_demote,
		/* Only the damon backend enforces through DAMON; on the knob
		 * backend tierd's kdamond measures hot sets, nothing more. */
		.damon = m->damon && m->backend.backend == TIER_BACKEND_DAMON ? fair_damon : NULL,
	};
	return &ops;
}

static int on_host_file_changed(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;

	/* The kernel raises POLLPRI once per mount or swapon/swapoff. */
	log_debug("%s changed", s == m->mountinfo_source ? "mountinfo" : "swaps");
	if (s == m->mountinfo_source)
		tier_ctx_mounts_changed(m->ctx);
	if (m->fair)
		fair_state_host_changed(m->fair);
	return 0;
}

/* Poll <procfs>/<name> for changes (procfs only: a regular file in a fake
 * tree cannot be polled).  0 and *ret set, or < 0. */
static int watch_host_file(struct manager *m, const char *name, sd_event_source **ret)
{
	_cleanup_free_ char *path = NULL;
	int fd, r;

	if (asprintf(&path, "%s/%s", tier_ctx_get_procfs_root(m->ctx), name) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = sd_event_add_io(m->event, ret, fd, EPOLLPRI, on_host_file_changed, m);
	if (r < 0) {
		close(fd);
		return r;
	}
	(void)sd_event_source_set_io_fd_own(*ret, true);
	(void)sd_event_source_set_description(*ret, name);
	return 0;
}

/*
 * The fair-share rounds read /proc/self/mountinfo (tier-aware limits) and
 * /proc/swaps (may memory.reclaim demote?) only after they changed, where
 * both can be polled; otherwise every round reads them, as before.
 */
static int watch_host_files(struct manager *m)
{
	int r;

	r = watch_host_file(m, "self/mountinfo", &m->mountinfo_source);
	if (r >= 0)
		r = watch_host_file(m, "swaps", &m->swaps_source);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0) {
		log_debug_errno(r, "Cannot poll mountinfo and swaps (%m): read every round");
		m->mountinfo_source = sd_event_source_disable_unref(m->mountinfo_source);
		m->swaps_source = sd_event_source_disable_unref(m->swaps_source);
		return 0;
	}
	fair_state_set_host_cache(m->fair, true);
	return 0;
}

/* At startup: what a tierd before us held, from the state file. */
static int fair_state_restore(struct manager *m)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, bad = 0;
	int r;

	r = rundir_read_file(m, FAIR_STATE_NAME, FAIR_STATE_MAX, &buf, &size);
	if (r == -ENOENT)
		return 0;
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_warning_errno(r, "Cannot read %s/%s: %m; what fairness held before "
					    "is not given back, ignoring", m->run.path,
					 FAIR_STATE_NAME), 0;
	r = fair_state_load(m->fair, buf, size, &bad);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_warning_errno(r, "%s/%s is not a fairness state file, ignoring it",
					 m->run.path, FAIR_STATE_NAME), 0;
	if (bad > 0)
		log_warning("%s/%s: %zu bad lines skipped", m->run.path, FAIR_STATE_NAME, bad);
	if (r > 0)
		log_info("Fairness held %d cgroups before this start (%s/%s): held on, and given "
			 "back the values saved then when let go", r, m->run.path, FAIR_STATE_NAME);
	m->fair_state_saved = TAKE_PTR(buf);
	return 0;
}

/*
 * The candidates of the fair share: every managed cgroup, from the table
 * (libtier decides which of them share: the top-most, populated ones).  No
 * tree observe and no evaluation: the table is what the reaction path and
 * the last full pass decided.  The one place that says where the manager
 * keeps its managed cgroups.
 */
static int manager_fill_share(struct manager *m, struct tier_share *share)
{
	const struct managed *x;

	MANAGED_FOREACH(x, &m->managed) {
		/* the share refers to the entry's interned path: no copy */
		int r = tier_share_add_entry(share, x->entry);

		if (r < 0 && r != -EINVAL) /* -EINVAL: "/", never shares */
			return r;
	}
	return 0;
}

/* For fair's records: the rule that put cgroup in its class. */
static const char *fair_rule_name(void *userdata, const char *cgroup)
{
	struct manager *m = userdata;
	const struct managed *x = managed_table_get(&m->managed, cgroup);
	const struct tier_rule *rule = x ? tier_plan_entry_rule(x->entry) : NULL;

	return rule ? tier_rule_name(rule) : NULL;
}

/*
 * The memory tiers: read at startup, again on every reload, and, as long as
 * no read has worked (sysfs not ready at boot, a transient error), tried
 * again at each fair-share round, so a failed first read does not leave
 * fairness off for the life of the daemon.  Returns -ENOMEM only.
 */
static int manager_topology_refresh(struct manager *m, bool reread)
{
	struct tier_topology *t = NULL;
	int r;

	if (m->topo && !reread)
		return 0;
	r = tier_topology_read(m->ctx, &t);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0) {
		if (!m->topo)
			log_ratelimit_errno(LOG_WARNING, r, "Cannot read the memory tiers: %m; "
					    "percentages of the fast tier count as 0 and fair "
					    "shares wait for them, ignoring");
		return 0;
	}
	if (!m->topo)
		log_info("Memory tiers read: fast tier %llu bytes of %llu",
			 (unsigned long long)tier_topology_fast_capacity(t),
			 (unsigned long long)tier_topology_total_capacity(t));
	tier_topology_free(m->topo);
	m->topo = t;
	return 0;
}

int manager_rebalance(struct manager *m, const char *reason)
{
	const struct fair_ops *ops = manager_fair_ops(m);
	const struct fair_summary *sum;
	_cleanup_(tier_share_freep) struct tier_share *share = NULL;
	uint64_t w0, t0 = now_usec(CLOCK_MONOTONIC);
	int r;

	r = manager_topology_refresh(m, false);
	if (r < 0)
		return r;
	/* Without the memory tiers there is no capacity to share. */
	if (!m->fair || !m->topo)
		return 0;
	w0 = fair_state_summary(m->fair)->n_writes;
	/* Each round decides again what to demote: what the last one left
	 * undone is asked for again if it is still needed. */
	while (m->n_demotes > 0)
		demote_drop(m, 0);
	r = tier_share_new(&share);
	if (r >= 0)
		tier_share_set_hot_source(share, damon_hot_of, m);
	if (r >= 0)
		r = manager_fill_share(m, share);
	if (r >= 0)
		r = fair_rebalance(m->fair, m->ctx, m->topo, m->policy, share,
				   now_usec(CLOCK_MONOTONIC), manager_dry_run(m), ops);
	/* What the round allocated goes back to the system: the daemon is
	 * idle until the next one. */
	tier_share_free(TAKE_PTR(share));
	(void)malloc_trim(0);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_warning_errno(r, "Fair-share rebalance failed: %m, ignoring"), 0;
	/* the damon backend: the scheme set and the goals of this round,
	 * unless a burst of events is being batched (its sync comes soon) */
	if (!damon_pending(m)) {
		r = manager_damon_sync(m, reason);
		if (r < 0)
			return r;
	}
	sum = fair_state_summary(m->fair);
	m->n_writes += sum->n_writes - w0;
	log_debug("Rebalanced %zu cgroups (%s): %zu limited, %zu with promotion off, Jain %.3f, "
		  "in %.1f ms",
		  sum->n_cgroups, reason, sum->n_limited, sum->n_throttled, sum->jain,
		  (double)(now_usec(CLOCK_MONOTONIC) - t0) / 1000.0);
	return 0;
}

static int on_rebalance_debounce(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	if (manager_rebalance(m, "cgroup change") == -ENOMEM)
		return sd_event_exit(m->event, -ENOMEM);
	return 0;
}

/*
 * After changes, one rebalance once they have settled: the first change of a
 * burst arms the timer, each later one moves it to REBALANCE_QUIET_USEC
 * after itself, but never beyond REBALANCE_MAX_DELAY_USEC after the first.
 * A round reads the usage of every cgroup that shares the fast tier, so it
 * must not run between the events of a burst, in front of the new cgroups
 * still waiting for their class.
 */
#define REBALANCE_QUIET_USEC (200 * 1000ull)
#define REBALANCE_MAX_DELAY_USEC (5 * 1000000ull)

static bool rebalance_pending(const struct manager *m)
{
	int enabled = SD_EVENT_OFF;

	return m->rebalance_debounce &&
	       sd_event_source_get_enabled(m->rebalance_debounce, &enabled) >= 0 &&
	       enabled != SD_EVENT_OFF;
}

void manager_schedule_rebalance(struct manager *m)
{
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	int r;

	if (!m->fair || m->exiting)
		return;
	if (rebalance_pending(m)) {
		if (now - m->rebalance_first_usec + REBALANCE_QUIET_USEC <= REBALANCE_MAX_DELAY_USEC)
			(void)sd_event_source_set_time_relative(m->rebalance_debounce,
								REBALANCE_QUIET_USEC);
		return;
	}
	m->rebalance_first_usec = now;
	r = arm_timer(m, &m->rebalance_debounce, REBALANCE_QUIET_USEC, on_rebalance_debounce,
		      "rebalance-debounce");
	if (r < 0)
		log_warning_errno(r, "Failed to schedule a rebalance: %m, ignoring");
}

static int on_rebalance_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	/* A round after changes is coming anyway, once they settle. */
	if (!rebalance_pending(m) && manager_rebalance(m, "periodic") == -ENOMEM)
		return sd_event_exit(m->event, -ENOMEM);
	r = arm_timer(m, &m->rebalance_timer, m->rebalance_usec, on_rebalance_timer,
		      "rebalance-timer");
	if (r < 0)
		log_warning_errno(r, "Failed to re-arm the rebalance timer: %m, ignoring");
	return 0;
}

static int arm_rebalance_timer(struct manager *m)
{
	return arm_timer(m, &m->rebalance_timer, m->rebalance_usec, on_rebalance_timer, "rebalance-timer");
}

static void policy_scan(struct manager *m)
{
	m->policy_has_exe = m->policy_has_annotation = false;
	for (size_t i = 0; i < tier_policy_rule_count(m->policy); i++) {
		const struct tier_rule *rule = tier_policy_rule(m->policy, i);

		for (size_t j = 0; j < tier_rule_matcher_count(rule); j++) {
			if (tier_matcher_kind(tier_rule_matcher(rule, j)) == TIER_MATCH_EXE)
				m->policy_has_exe = true;
			if (tier_matcher_kind(tier_rule_matcher(rule, j)) == TIER_MATCH_ANNOTATION)
				m->policy_has_annotation = true;
		}
	}
}

/* Settings of [daemon] that can change on reload. */
static void apply_daemon_settings(struct manager *m)
{
	const struct tier_daemon_config *d = tier_policy_daemon(m->policy);

	if (m->args.log_level < 0)
		log_set_max_level(d->log_level);
	m->reconcile_usec = d->reconcile_interval_usec ?: 30 * 1000000ull;
	m->rebalance_usec = d->rebalance_interval_usec ?: 10 * 1000000ull;
	policy_scan(m);
}

char *manager_status_text(struct manager *m)
{
	const struct fair_summary *fs = m->fair ? fair_state_summary(m->fair) : NULL;
	char *s = NULL;
	int r;

	r = asprintf(&s, "%s%llu cgroups, %zu in a class, %llu writes; "
		     "fast tier shared by %zu (%s, Jain %.2f); backend %s%s%s%s",
		     manager_dry_run(m) ? "DRY RUN: " : "", (unsigned long long)m->n_cgroups,
		     m->managed.n, (unsigned long long)m->n_writes,
		     fs ? fs->n_cgroups : 0, fair_method_to_string(fs ? fs->method : FAIR_METHOD_NONE),
		     fs ? fs->jain : 1.0, tier_backend_to_string(m->backend.backend) ?: "?",
		     m->last_reload_failed ? "; last reload FAILED, old policy kept: " : "",
		     m->last_reload_failed && m->last_reload_error ? m->last_reload_error : "",
		     m->cg.limit_hit ? "; inotify watch limit reached" : "");
	return r < 0 ? NULL : s;
}

void manager_update_status(struct manager *m)
{
	_cleanup_free_ char *s = manager_status_text(m);

	if (s)
		manager_notify(NULL, s);
}

int manager_reload(struct manager *m, const char *reason)
{
	struct tier_policy *np = NULL;
	const struct tier_daemon_config *d;
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	_cleanup_free_ char *status = NULL;
	char assign[64];
	int r;

	snprintf(assign, sizeof(assign), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)t0);
	if (asprintf(&status, "Reloading the policy (%s)", reason) < 0)
		status = NULL;
	manager_notify(assign, status ?: "Reloading the policy");
	log_info("Reloading the policy from %s (%s)", m->args.config, reason);
	r = config_load(m, &np);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0) {
		m->last_reload_failed = true;
		log_error("Reloading %s failed (%zu error%s), keeping the previous policy",
			  m->args.config, m->last_reload_n_errors,
			  m->last_reload_n_errors == 1 ? "" : "s");
		manager_notify("READY=1", NULL);
		manager_update_status(m);
		return 0;
	}
	d = tier_policy_daemon(np);
	if (!m->args.cgroup_root && d->cgroup_root &&
	    strcmp(d->cgroup_root, tier_ctx_get_cgroup_root(m->ctx)) != 0)
		log_warning("cgroup_root changed to %s; a restart is needed for that, ignoring",
			    d->cgroup_root);
	if (d->backend != m->backend.requested)
		log_warning("backend changed to %s; a restart is needed for that, ignoring",
			    tier_backend_to_string(d->backend));
	/* The table, the rebalance's plan and the cache point into the old
	 * policy; units are looked up again (a reload may follow a change of
	 * the units, or a daemon-reload of systemd). */
	cache_set(m, NULL);
	manager_pending_clear(m);	/* it borrows from both */
	systemd_unit_cache_flush(m);
	tier_policy_unref(m->policy);
	m->policy = np;
	m->last_reload_failed = false;
	free(m->last_reload_error);
	m->last_reload_error = NULL;
	apply_daemon_settings(m);
	r = cgroup_watcher_set_scope(m);
	if (r < 0)
		return r;

	r = manager_topology_refresh(m, true);
	if (r < 0)
		return r;
	/* The same watcher: an edit saved during this reload is in its queue. */
	r = config_watcher_update(m);
	if (r == -ENOMEM)
		return r;
	r = arm_rebalance_timer(m);
	if (r < 0)
		log_warning_errno(r, "Failed to re-arm the rebalance timer: %m, ignoring");
	r = manager_reconcile(m, "reload");
	if (r < 0)
		return r;
	/* What the old policy could reach and the new one cannot. */
	cgroup_watcher_prune_unwanted(m);
	r = manager_rebalance(m, "reload");
	if (r < 0)
		return r;
	manager_reconcile_timer_update(m);
	log_info("Policy reloaded in %.1f ms: %zu classes, %zu rules",
		 (double)(now_usec(CLOCK_MONOTONIC) - t0) / 1000.0, tier_policy_class_count(m->policy),
		 tier_policy_rule_count(m->policy));
	manager_notify("READY=1", NULL);
	manager_update_status(m);
	return 0;
}

#define EXIT_WAIT_USEC (5 * 1000000ull)

static int on_exit_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	log_warning("systemd did not answer %zu calls within %llu s, exiting anyway",
		    m->sd.n_jobs, EXIT_WAIT_USEC / 1000000);
	return sd_event_exit(m->event, 0);
}

/*
 * What tierd leaves behind when it stops (tierd(8), SIGNALS): the values of
 * the classes stay; what fairness held (promotion switched off, a lowered
 * memory.high) is given back, and once all of it is written (systemd's
 * answers included), the state file goes (manager_run()).  If a value could
 * not be given back, the file stays and the next tierd does it.
 */
static int manager_release_fairness(struct manager *m)
{
	size_t held = m->fair ? fair_state_held(m->fair) : 0;
	int r;

	if (!m->fair || manager_dry_run(m))
		return 0;
	if (held > 0)
		log_info("Giving back what fairness holds of %zu cgroups", held);
	m->release_errors = m->n_errors;
	r = fair_release_all(m->fair, m->ctx, false, manager_fair_ops(m));
	if (r < 0)
		return r == -ENOMEM ? log_oom() : r;
	m->n_errors += (uint64_t)r;
	m->released = true;
	return 0;
}

/* After the loop: the state file goes if everything was given back. */
static void manager_release_done(struct manager *m)
{
	if (!m->released || m->run.fd < 0)
		return;
	if (m->n_errors != m->release_errors || m->sd.n_jobs > 0) {
		log_warning("Not every value fairness held could be given back; %s/%s keeps them "
			    "for the next start", m->run.path, FAIR_STATE_NAME);
		return;
	}
	if (rundir_unlink_file(m, FAIR_STATE_NAME) >= 0)
		log_debug("Removed %s/%s", m->run.path, FAIR_STATE_NAME);
	free(m->fair_state_saved);
	m->fair_state_saved = NULL;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;
	int r;

	if (m->exiting)
		return 0;
	log_info("Received %s, exiting", strsignal((int)si->ssi_signo));
	manager_notify("STOPPING=1", "Shutting down");
	/* Nothing new from now on. */
	(void)sd_event_source_set_enabled(m->cg.source, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->proc.source, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->reconcile_timer, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->reconcile_defer, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->rebalance_timer, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->rebalance_debounce, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->demote_source, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->damon_debounce, SD_EVENT_OFF);
	(void)sd_event_source_set_enabled(m->damon_goal_timer, SD_EVENT_OFF);
	r = manager_release_fairness(m);
	if (r == -ENOMEM)
		return sd_event_exit(m->event, r);
	if (m->sd.n_jobs == 0)
		return sd_event_exit(m->event, 0);
	/* Wait for systemd's answers (bounded), then exit. */
	m->exiting = true;
	log_debug("Waiting for %zu calls to systemd", m->sd.n_jobs);
	r = sd_event_add_time_relative(m->event, &m->exit_timer, CLOCK_MONOTONIC, EXIT_WAIT_USEC, 0,
				       on_exit_timer, m);
	if (r < 0)
		return sd_event_exit(m->event, 0);
	(void)sd_event_source_set_description(m->exit_timer, "exit-wait");
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;
	int r = manager_reload(m, "SIGHUP");

	if (r == -ENOMEM)
		return sd_event_exit(m->event, r);
	return 0;
}

/* The library's records, rate-limited per call site: a hostile subtree makes
 * its warnings repeat on every pass. */
_printf_(6, 0) static void lib_log(void *data, int priority, const char *file, int line,
				   const char *fn, const char *format, va_list args)
{
	log_site_ratelimitedv(priority, 0, file, line, fn, format, args);
}

int manager_new(const struct manager_args *args, struct manager **ret)
{
	struct manager *m;
	sigset_t ss;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return log_oom();
	m->args = *args;
	m->cg.fd = -1;
	m->cfg.fd = -1;
	m->cfg.wd_dir = m->cfg.wd_dropin = -1;
	m->api.fd = -1;
	m->run.fd = m->run.lock_fd = -1;
	*ret = m;

	r = sd_event_default(&m->event);
	if (r < 0)
		return log_error_errno(r, "Failed to allocate the event loop: %m");
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		return log_error_errno(errno, "Failed to block signals: %m");
	r = sd_event_add_signal(m->event, &m->sigterm, SIGTERM, on_sigterm, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, &m->sigint, SIGINT, on_sigterm, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, &m->sighup, SIGHUP, on_sighup, m);
	if (r < 0)
		return log_error_errno(r, "Failed to add signal sources: %m");
	(void)sd_event_source_set_description(m->sigterm, "signal-SIGTERM");
	(void)sd_event_source_set_description(m->sigint, "signal-SIGINT");
	(void)sd_event_source_set_description(m->sighup, "signal-SIGHUP");
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Failed to enable the watchdog: %m, ignoring");
	else if (r > 0)
		log_debug("Watchdog enabled");
	return 0;
}

int manager_startup(struct manager *m)
{
	const struct tier_daemon_config *d;
	_cleanup_free_ char *root = NULL, *why = NULL;
	int r;

	r = config_load(m, &m->policy);
	if (r < 0)
		return log_error_errno(r, "Cannot start without a valid policy (%s)", m->args.config);
	/* One tierd per run directory, before anything is touched.  A dry run
	 * without the bus API needs none (it sits beside a running tierd). */
	if (!m->args.no_bus_api || !manager_dry_run(m)) {
		r = rundir_open(m);
		if (r < 0)
			return r;
	}
	fair_set_page_size(0);
	d = tier_policy_daemon(m->policy);
	/* The root every program finds the same way: a cgroup2 mount with the
	 * memory controller, or a start-up failure that says why. */
	r = tier_cgroup_root_find(m->args.cgroup_root ?: d->cgroup_root, m->args.procfs_root,
				  &root, &why);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0 && why)
		return log_error_errno(r, "Cannot start: %s", why);
	if (r < 0)
		return log_error_errno(r, "Cannot start: cannot find the cgroup root: %m");
	r = tier_ctx_new(root, m->args.sysfs_root, m->args.procfs_root, &m->ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to set up libtier (cgroup root %s): %m", root);
	tier_ctx_set_log_fn(m->ctx, lib_log, m);
	/* The library's own info messages would repeat ours; its warnings and,
	 * with -v, its debug messages are worth seeing. */
	tier_ctx_set_log_priority(m->ctx, log_get_max_level() >= LOG_DEBUG ? LOG_DEBUG : LOG_WARNING);
	apply_daemon_settings(m);

	r = manager_topology_refresh(m, true);
	if (r < 0)
		return r;
	r = tier_backend_choose(d->backend, tier_ctx_get_cgroup_root(m->ctx), m->args.sysfs_root,
				m->args.procfs_root, m->topo, &m->backend);
	if (r < 0)
		return log_oom();
	if (m->backend.satisfied)
		log_info("Backend %s: %s", tier_backend_to_string(m->backend.backend),
			 m->backend.reason);
	else
		log_warning("Backend %s: %s", tier_backend_to_string(m->backend.backend),
			    m->backend.reason);

	r = manager_damon_start(m);
	if (r < 0)
		return r;

	r = cgroup_watcher_start(m);
	if (r < 0)
		return r;
	r = config_watcher_start(m);
	if (r == -ENOMEM)
		return r;
	if (!m->args.no_proc_connector) {
		r = proc_connector_start(m);
		if (r == -ENOMEM)
			return r;
	}
	if (!m->args.no_systemd) {
		r = systemd_connect(m);
		if (r == -ENOMEM)
			return r;
	}
	if (!m->args.no_bus_api) {
		r = bus_api_start(m);
		if (r < 0)
			return r;
	}
	r = fair_state_new(&m->fair);
	if (r < 0)
		return log_oom();
	r = watch_host_files(m);
	if (r < 0)
		return r;
	if (!manager_dry_run(m)) {
		r = fair_state_restore(m);
		if (r < 0)
			return r;
	}
	r = manager_reconcile(m, "startup");
	if (r < 0)
		return r;
	r = manager_rebalance(m, "startup");
	if (r < 0)
		return r;
	manager_reconcile_timer_update(m);
	r = arm_rebalance_timer(m);
	if (r < 0)
		return r;
	log_info("tierd started: %s, %zu classes, %zu rules, %zu cgroup directories watched below %s%s",
		 m->args.config, tier_policy_class_count(m->policy), tier_policy_rule_count(m->policy),
		 m->cg.watches.n - m->cg.watches.n_events, tier_ctx_get_cgroup_root(m->ctx),
		 manager_dry_run(m) ? " (dry run: nothing is written)" : "");
	return 0;
}

int manager_run(struct manager *m)
{
	_cleanup_free_ char *s = manager_status_text(m);
	int r;

	manager_notify("READY=1", s ? s : "Running");
	r = sd_event_loop(m->event);
	if (r < 0)
		return log_error_errno(r, "Event loop failed: %m");
	manager_release_done(m);
	return r;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	bus_api_stop(m);
	systemd_disconnect(m);
	proc_connector_stop(m);
	config_watcher_stop(m);
	sd_event_source_disable_unref(m->cfg.defer);
	cgroup_watcher_stop(m);
	sd_event_source_disable_unref(m->reconcile_timer);
	sd_event_source_disable_unref(m->reconcile_defer);
	sd_event_source_disable_unref(m->rebalance_timer);
	sd_event_source_disable_unref(m->rebalance_debounce);
	sd_event_source_disable_unref(m->exit_timer);
	sd_event_source_disable_unref(m->demote_source);
	sd_event_source_disable_unref(m->damon_debounce);
	sd_event_source_disable_unref(m->damon_goal_timer);
	manager_damon_stop(m);
	sd_event_source_disable_unref(m->mountinfo_source);
	sd_event_source_disable_unref(m->swaps_source);
	while (m->n_demotes > 0)
		demote_drop(m, 0);
	free(m->demotes);
	fair_state_free(m->fair);
	cache_set(m, NULL);
	manager_pending_clear(m);
	free(m->fair_state_saved);
	sd_event_source_disable_unref(m->sigterm);
	sd_event_source_disable_unref(m->sigint);
	sd_event_source_disable_unref(m->sighup);
	sd_event_unref(m->event);
	tier_policy_unref(m->policy);
	tier_backend_choice_done(&m->backend);
	tier_topology_free(m->topo);
	tier_ctx_unref(m->ctx);
	rundir_close(m);
	free(m->last_reload_error);
	free(m);
	return NULL;
}
