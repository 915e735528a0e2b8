// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd-fair: weighted max-min shares of the fast tier, with hysteresis, and
 * their enforcement through the tier-aware memcg limits (memory.high) or,
 * without them, by switching promotion off above the target.  See
 * tierd-fair.h.  This file depends on libtier only (no sd-event, no sd-bus),
 * so the unit test links it as it is.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "macro.h"
#include "tierd-fair.h"

typedef unsigned __int128 u128;

/* The kernel's page size: memory.high is stored in pages. */
static uint64_t page_bytes;

void fair_set_page_size(uint64_t bytes)
{
	if (bytes == 0) {
		long v = sysconf(_SC_PAGESIZE);

		bytes = v > 0 ? (uint64_t)v : 4096;
	}
	/* A power of two, or the masks below are wrong. */
	if (bytes & (bytes - 1))
		bytes = 4096;
	page_bytes = bytes;
}

uint64_t fair_page_size(void)
{
	if (!page_bytes)
		fair_set_page_size(0);
	return page_bytes;
}

#define PAGE_BYTES fair_page_size()

/* What the state remembers of one cgroup between rounds. */
struct fair_entry {
	char *path;
	struct fair_decision d;		/* last decision; d.path == path */
	uint64_t last_flip_usec;	/* when limited/throttled last changed */
	bool saved_mode_valid;		/* mode to restore when not the class's */
	enum tier_mode saved_mode;
	bool saved_high_valid;
	uint64_t saved_high;
	bool restored;			/* read back from a state file, not decided yet */
	bool restored_high_known;	/* and d.memory_high is what fairness wrote */
};

struct fair_state {
	struct fair_entry *entries;	/* sorted by path */
	size_t n_entries;
	struct fair_entry *released;	/* left last round, holding a knob */
	size_t n_released;
	struct fair_summary summary;
	bool warned_none;
	bool logged_method;		/* the method was logged once */
	bool warned_capacity;
	/* Host facts that change rarely (fair_state_set_host_cache()). */
	bool host_cached;
	bool limits_known, swap_known;
	bool limits_mounted;
	bool swap_free;
};

void fair_state_set_host_cache(struct fair_state *s, bool cached)
{
	s->host_cached = cached;
	fair_state_host_changed(s);
}

void fair_state_host_changed(struct fair_state *s)
{
	s->limits_known = s->swap_known = false;
}

const char *fair_method_to_string(enum fair_method method)
{
	switch (method) {
	case FAIR_METHOD_LIMITS:
		return "tier-aware limits";
	case FAIR_METHOD_PROMOTION:
		return "promotion switch";
	case FAIR_METHOD_DAMON:
		return "DAMON schemes";
	default:
		return "none";
	}
}

static void entries_free(struct fair_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

int fair_state_new(struct fair_state **ret)
{
	struct fair_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

struct fair_state *fair_state_free(struct fair_state *s)
{
	if (!s)
		return NULL;
	entries_free(s->entries, s->n_entries);
	entries_free(s->released, s->n_released);
	free(s);
	return NULL;
}

size_t fair_released_count(const struct fair_state *s)
{
	return s ? s->n_released : 0;
}

const struct fair_decision *fair_released(const struct fair_state *s, size_t i)
{
	return s && i < s->n_released ? &s->released[i].d : NULL;
}

static int entry_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct fair_entry *)elem)->path);
}

static struct fair_entry *state_lookup(const struct fair_state *s, const char *path)
{
	if (!s || !s->n_entries)
		return NULL;
	return bsearch(path, s->entries, s->n_entries, sizeof(*s->entries), entry_cmp);
}

const struct fair_decision *fair_state_find(const struct fair_state *s, const char *path)
{
	const struct fair_entry *e = state_lookup(s, path);

	return e ? &e->d : NULL;
}

const struct fair_summary *fair_state_summary(const struct fair_state *s)
{
	return &s->summary;
}

uint64_t fair_high_for_target(uint64_t target, uint64_t fast_capacity, uint64_t total_capacity)
{
	u128 v;

	if (target == UINT64_MAX)
		return UINT64_MAX;
	if (fast_capacity == 0 || total_capacity <= fast_capacity)
		return target & ~(PAGE_BYTES - 1);
	v = (u128)target * total_capacity / fast_capacity;
	if (v >= UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)v & ~(PAGE_BYTES - 1);
}

/* The kernel's memory.toptier_high for a memory.high: high x fast / total. */
static uint64_t toptier_of_high(const struct fair_config *cfg, uint64_t high)
{
	if (high == UINT64_MAX || cfg->total_capacity <= cfg->fast_capacity)
		return high;
	return (uint64_t)((u128)high * cfg->fast_capacity / cfg->total_capacity);
}

/* x +/- x * bp / 10000, saturating. */
static uint64_t band_up(uint64_t x, unsigned bp)
{
	u128 v = (u128)x + (u128)x * bp / 10000;

	return v >= UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static uint64_t band_down(uint64_t x, unsigned bp)
{
	return x - (uint64_t)((u128)x * (bp > 10000 ? 10000 : bp) / 10000);
}

/* Is |a - b| within b x bp / 10000? */
static bool within(uint64_t a, uint64_t b, unsigned bp)
{
	uint64_t d = a > b ? a - b : b - a;

	return (u128)d * 10000 <= (u128)b * bp;
}

static int index_cmp(const void *a, const void *b, void *arg)
{
	const struct fair_input *in = arg;

	return strcmp(in[*(const size_t *)a].path, in[*(const size_t *)b].path);
}

/* The mode/high to go back to when fairness lets go of a knob. */
static enum tier_mode restore_mode(const struct fair_input *in, const struct fair_entry *o)
{
	if (in && in->class_sets_mode)
		return in->class_mode;
	if (o && o->saved_mode_valid)
		return o->saved_mode;
	return TIER_MODE_INHERIT;
}

static uint64_t restore_high(const struct fair_input *in, const struct fair_entry *o)
{
	if (in && in->class_sets_high)
		return in->class_high;
	if (o && o->saved_high_valid)
		return o->saved_high;
	return UINT64_MAX;
}

static bool may_flip(const struct fair_config *cfg, const struct fair_entry *o)
{
	/* A hold read back after a restart has no flip time: it may go now. */
	return !o || o->restored || cfg->min_dwell_usec == 0 || cfg->now_usec < o->last_flip_usec ||
	       cfg->now_usec - o->last_flip_usec >= cfg->min_dwell_usec;
}

/* Decide one cgroup; o is its entry of the previous round (or NULL), ne its new one. */
static void decide_one(const struct fair_config *cfg, const struct fair_input *in,
		       const struct fair_entry *o, uint64_t share, struct fair_entry *ne)
{
	struct fair_decision *d = &ne->d;
	unsigned h = cfg->hysteresis_bp;
	bool was_limited = o && o->d.limited, was_throttled = o && o->d.throttled;
	bool was_damon_off = o && o->d.damon_off;

	d->path = ne->path;
	d->class_name = in->class_name;
	d->rule_name = in->rule_name;
	d->share = share;
	d->fast_bytes = in->fast_bytes;
	d->demand = in->demand;
	d->demand_kind = in->demand_kind;
	d->resident = in->demand_kind == TIER_DEMAND_HOT ? in->resident : in->demand;
	d->hot = in->demand_kind == TIER_DEMAND_HOT ? in->hot : UINT64_MAX;
	d->kernel_ceiling = in->kernel_ceiling;
	/* Targets: keep the one in force while the new share is within the band,
	 * unless the new share covers the whole demand (nothing to hold back). */
	if (o && o->d.target > 0 && within(share, o->d.target, h) &&
	    (in->demand == UINT64_MAX || share < in->demand))
		d->target = o->d.target;
	else
		d->target = share;
	d->target_changed = !o || d->target != o->d.target;
	if (o) {
		ne->last_flip_usec = o->last_flip_usec;
		ne->saved_mode_valid = o->saved_mode_valid;
		ne->saved_mode = o->saved_mode;
		ne->saved_high_valid = o->saved_high_valid;
		ne->saved_high = o->saved_high;
	}
	/*
	 * Held before a restart (fair_state_load()): if the knob no longer holds
	 * what fairness wrote, someone else wrote it while tierd was not
	 * running, and that is what to give back, not the value saved before.
	 */
	if (o && o->restored) {
		uint64_t ours = o->d.memory_high;

		if (ours != UINT64_MAX)
			ours &= ~(PAGE_BYTES - 1);
		if (o->d.limited && o->restored_high_known && in->cur_high != ours) {
			ne->saved_high_valid = true;
			ne->saved_high = in->cur_high;
		}
		if (o->d.throttled && in->cur_mode != TIER_MODE_OFF) {
			ne->saved_mode_valid = true;
			ne->saved_mode = in->cur_mode;
		}
	}

	/* PROMOTION: off above target x (1 + h), back below target x (1 - h). */
	d->throttled = was_throttled;
	if (cfg->method != FAIR_METHOD_PROMOTION)
		d->throttled = false;
	else if (!was_throttled && in->fast_bytes > band_up(d->target, h) && may_flip(cfg, o))
		d->throttled = true;
	else if (was_throttled && in->fast_bytes < band_down(d->target, h) && may_flip(cfg, o))
		d->throttled = false;

	/* LIMITS: limit when the share is clearly below the demand, let go when it covers it. */
	d->limited = was_limited;
	if (cfg->method != FAIR_METHOD_LIMITS)
		d->limited = false;
	else if (!was_limited && d->resident != UINT64_MAX &&
		 band_up(d->target, h) < d->resident && may_flip(cfg, o))
		d->limited = true;
	else if (was_limited && (d->resident == UINT64_MAX ? false : d->target >= d->resident) &&
		 may_flip(cfg, o))
		d->limited = false;

	/* DAMON: the same band, held by tierd's DAMON schemes (tierd-damon.c):
	 * no knob is written, nothing is saved or given back. */
	d->damon_off = was_damon_off;
	if (cfg->method != FAIR_METHOD_DAMON)
		d->damon_off = false;
	else if (!was_damon_off && in->fast_bytes > band_up(d->target, h) && may_flip(cfg, o))
		d->damon_off = true;
	else if (was_damon_off && in->fast_bytes < band_down(d->target, h) && may_flip(cfg, o))
		d->damon_off = false;

	d->state_changed = d->throttled != was_throttled || d->limited != was_limited ||
			   d->damon_off != was_damon_off;
	if (d->state_changed)
		ne->last_flip_usec = cfg->now_usec;

	d->set_mode = false;
	d->set_high = false;
	d->reassert_high = false;
	d->high_floored = false;
	d->demote_bytes = 0;
	if (d->throttled && cfg->demote_ok && in->fast_bytes > band_up(d->target, h)) {
		d->demote_bytes = in->fast_bytes - d->target;
		if (d->demote_bytes > FAIR_DEMOTE_MAX_BYTES)
			d->demote_bytes = FAIR_DEMOTE_MAX_BYTES;
	}
	if (d->throttled) {
		if (!was_throttled) {
			ne->saved_mode_valid = true;
			ne->saved_mode = in->cur_mode;
		}
		d->set_mode = true;
		d->mode = TIER_MODE_OFF;
	} else if (was_throttled) {
		d->set_mode = true;
		d->mode = restore_mode(in, ne);
		ne->saved_mode_valid = false;
	}
	if (d->limited) {
		uint64_t high = fair_high_for_target(d->target, cfg->fast_capacity,
						     cfg->total_capacity);

		if (!was_limited) {
			ne->saved_high_valid = true;
			ne->saved_high = in->cur_high;
		}
		/*
		 * memory.high also bounds all of the cgroup's memory: never below
		 * its usage (plus the band), or the cgroup would be throttled and
		 * reclaimed on every tier.  The target then cannot be enforced in
		 * full: its fast share stays at usage x fast / total, which is
		 * what the tier-aware limits are designed to give.
		 */
		d->high_floored = false;
		if (d->resident != UINT64_MAX) {
			uint64_t floor = band_up(d->resident, h);

			if (floor != UINT64_MAX)
				floor = (floor + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
			if (high < floor) {
				high = floor;
				d->high_floored = true;
			}
		}
		if (in->class_sets_high && in->class_high < high)
			high = in->class_high;
		d->set_high = true;
		d->memory_high = high;
		/*
		 * Above what the kernel enforces (the target, unless floored)?
		 * A kernel that counts the top tier exactly keeps the cgroup at
		 * that ceiling itself: it demotes the excess after the write that
		 * set it and whenever the cgroup charges, and refuses promotions
		 * at it; a rewrite would only queue the same demotion again.  An
		 * older kernel demotes on a write or a charge only.
		 */
		d->reassert_high = was_limited && !in->kernel_ceiling &&
				   in->fast_bytes > band_up(toptier_of_high(cfg, high), h);
	} else if (was_limited) {
		d->set_high = true;
		d->memory_high = restore_high(in, ne);
		ne->saved_high_valid = false;
	}
}

int fair_decide(struct fair_state *s, const struct fair_config *cfg, size_t n,
		const struct fair_input *inputs, struct fair_decision *ret)
{
	_cleanup_free_ size_t *order = NULL;
	struct fair_entry *ne = NULL, *rel = NULL;
	size_t n_rel = 0, j = 0;
	int r;

	if (!s || !cfg || (n > 0 && (!inputs || !ret)))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!inputs[i].path)
			return -EINVAL;

	order = calloc(n ?: 1, sizeof(*order));
	ne = calloc(n ?: 1, sizeof(*ne));
	rel = calloc(s->n_entries ?: 1, sizeof(*rel));
	if (!order || !ne || !rel) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;

	/* Walk the inputs in path order next to the old (sorted) entries. */
	qsort_r(order, n, sizeof(*order), index_cmp, (void *)inputs);
	for (size_t k = 0; k < n; k++) {
		const struct fair_input *in = &inputs[order[k]];
		const struct fair_entry *o = NULL;

		if (k > 0 && strcmp(inputs[order[k - 1]].path, in->path) == 0) {
			r = -EINVAL; /* duplicate path */
			goto fail;
		}
		while (j < s->n_entries) {
			int c = strcmp(s->entries[j].path, in->path);

			if (c > 0)
				break;
			if (c == 0) {
				o = &s->entries[j++];
				break;
			}
			/* s->entries[j] left */
			rel[n_rel++] = s->entries[j];
			s->entries[j++].path = NULL;
		}
		ne[k].path = strdup(in->path);
		if (!ne[k].path) {
			r = -ENOMEM;
			goto fail;
		}
		decide_one(cfg, in, o, in->share, &ne[k]);
		ret[order[k]] = ne[k].d;
	}
	while (j < s->n_entries) {
		rel[n_rel++] = s->entries[j];
		s->entries[j++].path = NULL;
	}

	/* Left cgroups: undo what fairness held, nothing else. */
	{
		size_t m = 0;

		for (size_t i = 0; i < n_rel; i++) {
			struct fair_entry *e = &rel[i];
			bool held = e->d.limited || e->d.throttled;

			if (!held) {
				free(e->path);
				continue;
			}
			e->d.path = e->path;
			e->d.class_name = e->d.rule_name = NULL; /* the policy may be gone */
			e->d.set_mode = e->d.throttled;
			e->d.mode = restore_mode(NULL, e);
			e->d.set_high = e->d.limited;
			e->d.memory_high = restore_high(NULL, e);
			e->d.throttled = e->d.limited = false;
			e->d.state_changed = true;
			rel[m++] = *e;
		}
		n_rel = m;
	}

	entries_free(s->entries, s->n_entries);
	entries_free(s->released, s->n_released);
	s->entries = ne;
	s->n_entries = n;
	s->released = rel;
	s->n_released = n_rel;
	/* ret[].path must point at memory that outlives the call: the entries'. */
	for (size_t k = 0; k < n; k++)
		ret[order[k]].path = ne[k].path;
	return 0;

fail:
	/* The old state stays in force: put back what was moved out. */
	for (size_t i = 0, k = 0; i < s->n_entries && k < n_rel; i++)
		if (!s->entries[i].path)
			s->entries[i].path = rel[k++].path;
	free(rel);
	entries_free(ne, n);
	return r;
}

/* ------------------------------------------------------------------------
 * I/O: observe, enforce
 * ------------------------------------------------------------------------ */

_printf_(3, 0) static void fair_vlog(const struct fair_ops *ops, int priority, const char *fmt,
				    va_list ap, const struct log_fields *f)
{
	_cleanup_free_ char *s = NULL;

	if (!ops || !ops->log || vasprintf(&s, fmt, ap) < 0)
		return;
	ops->log(ops->userdata, priority, f, s);
}

/* A record about d's cgroup (d may be NULL) and knob. */
_printf_(5, 6) static void fair_log(const struct fair_ops *ops, int priority,
				    const struct fair_decision *d, const char *knob,
				    const char *fmt, ...)
{
	struct log_fields f = {
		.cgroup = d ? d->path : NULL,
		.class = d ? d->class_name : NULL,
		.rule = d ? d->rule_name : NULL,
		.knob = knob,
	};
	va_list ap;

	va_start(ap, fmt);
	fair_vlog(ops, priority, fmt, ap, &f);
	va_end(ap);
}

/* The same with old/new values of the knob. */
_printf_(7, 8) static void fair_log_change(const struct fair_ops *ops, int priority,
					   const struct fair_decision *d, const char *knob,
					   const char *oldv, const char *newv, const char *fmt, ...)
{
	struct log_fields f = {
		.cgroup = d->path,
		.class = d->class_name,
		.rule = d->rule_name,
		.knob = knob,
		.old = oldv,
		.new = newv,
	};
	va_list ap;

	va_start(ap, fmt);
	fair_vlog(ops, priority, fmt, ap, &f);
	va_end(ap);
}

static const char *fmt_mib(uint64_t v, char *buf, size_t size)
{
	if (v == UINT64_MAX)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%.1fM", (double)v / (1024.0 * 1024.0));
	return buf;
}

static int write_mode(struct tier_ctx *ctx, const struct fair_ops *ops, const char *cg,
		      enum tier_mode mode)
{
	if (ops && ops->set_mode)
		return ops->set_mode(ops->userdata, cg, mode);
	return tier_cgroup_set_mode(ctx, cg, mode);
}

static int write_high(struct tier_ctx *ctx, const struct fair_ops *ops, const char *cg,
		      uint64_t bytes)
{
	if (ops && ops->set_high)
		return ops->set_high(ops->userdata, cg, bytes);
	return tier_cgroup_write_u64(ctx, cg, "memory.high", bytes);
}

/* tier_cgroup_apply_attr()'s writer: the fair_ops hooks, or the raw file. */
struct enforce_writer {
	const struct fair_ops *ops;
	const struct fair_decision *d;
	uint64_t want_high;
};

static int enforce_write(void *userdata, struct tier_ctx *ctx, const char *cgroup,
			 enum tier_attr attr, const char *old_value, const char *new_value)
{
	const struct enforce_writer *w = userdata;

	if (attr == TIER_ATTR_NUMA_BALANCING)
		return write_mode(ctx, w->ops, cgroup, w->d->mode);
	return write_high(ctx, w->ops, cgroup, w->want_high);
}

/*
 * Set one knob of d's cgroup (memory.numa_balancing if mode, else
 * memory.high) if it differs, through libtier's read-compare-write.
 * Returns 1 if written, 0 if not (unchanged, dry run, vanished, failed:
 * logged), -ENOMEM.
 */
static int enforce_knob(struct fair_state *s, struct tier_ctx *ctx, const struct fair_ops *ops,
			const struct fair_decision *d, bool mode, bool dry_run, const char *why)
{
	const char *knob = mode ? "memory.numa_balancing" : "memory.high";
	struct enforce_writer ew = { .ops = ops, .d = d, .want_high = d->memory_high };
	_cleanup_(tier_apply_result_freep) struct tier_apply_result *res = NULL;
	unsigned flags = dry_run ? TIER_APPLY_DRY_RUN : 0;
	char o[32], w[32];
	int r;

	if (!mode && ew.want_high != UINT64_MAX)
		ew.want_high &= ~(PAGE_BYTES - 1);
	if (!mode && d->reassert_high)
		flags |= TIER_APPLY_REWRITE;
	r = tier_cgroup_apply_attr(ctx, d->path,
				   mode ? TIER_ATTR_NUMA_BALANCING : TIER_ATTR_MEMORY_HIGH,
				   mode ? (uint64_t)d->mode : ew.want_high, flags, enforce_write, &ew,
				   &res);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = tier_apply_result_change_error(res, 0);
	if (r == -ENOMEM)
		return r;
	if (tier_apply_result_change_old_value(res, 0)[0] == '\0')
		return 0; /* vanished, or the file is gone: nothing to enforce */
	if (tier_apply_result_change_status(res, 0) == TIER_APPLY_UNCHANGED)
		return 0;
	/* a mode name, or bytes / "max" */
	snprintf(o, sizeof(o), "%s", tier_apply_result_change_old_value(res, 0));
	snprintf(w, sizeof(w), "%s", tier_apply_result_change_new_value(res, 0));
	if (dry_run) {
		fair_log_change(ops, LOG_NOTICE, d, knob, o, w, "%s: would set %s %s -> %s (%s; dry run)",
				d->path, knob, o, w, why);
		return 0;
	}
	if (tier_apply_result_change_status(res, 0) == TIER_APPLY_VANISHED)
		return 0;
	if (r < 0) {
		s->summary.n_errors++;
		errno = -r;
		fair_log(ops, LOG_WARNING, d, knob, "%s: failed to set %s=%s: %m, ignoring", d->path,
			 knob, w);
		return 0;
	}
	if (strcmp(o, w) == 0)
		fair_log(ops, LOG_DEBUG, d, knob,
			 "%s: %s %s rewritten: %s above its fast-tier target, the kernel demotes the excess",
			 d->path, knob, w, fmt_mib(d->fast_bytes, o, sizeof(o)));
	else
		fair_log_change(ops, LOG_INFO, d, knob, o, w, "%s: %s %s -> %s (%s)", d->path, knob,
				o, w, why);
	return 1;
}

/*
 * Move d->demote_bytes of the cgroup off the fast tier: memory.reclaim, which
 * demotes from the top tier when demotion is enabled (and, as the caller made
 * sure, cannot swap).  It fails with -EAGAIN when it got less than asked,
 * which is fine.  Returns 1 if written, 0, -ENOMEM.
 */
static int demote(struct fair_state *s, struct tier_ctx *ctx, const struct fair_ops *ops,
		  const struct fair_decision *d, bool dry_run)
{
	char v[32], b1[32], b2[32];
	int r;

	snprintf(v, sizeof(v), "%" PRIu64, d->demote_bytes);
	if (dry_run) {
		fair_log(ops, LOG_NOTICE, d, "memory.reclaim",
			 "%s: would write memory.reclaim %s to demote its excess (dry run)", d->path,
			 v);
		return 0;
	}
	if (ops && ops->demote) {
		r = ops->demote(ops->userdata, d->path, d->demote_bytes);
		if (r < 0)
			return r; /* -ENOMEM */
		s->summary.n_demote_requests++;
		fair_log(ops, LOG_INFO, d, "memory.reclaim",
			 "%s: %s on the fast tier, target %s: demoting %s with memory.reclaim, "
			 "in chunks", d->path, fmt_mib(d->fast_bytes, b1, sizeof(b1)),
			 fmt_mib(d->target, b2, sizeof(b2)), fmt_mib(d->demote_bytes, v, sizeof(v)));
		return 1;
	}
	r = tier_cgroup_write(ctx, d->path, "memory.reclaim", v);
	if (r == -ENOMEM)
		return r;
	if (r == -ENOENT)
		return 0;
	if (r < 0 && r != -EAGAIN) {
		s->summary.n_errors++;
		errno = -r;
		fair_log(ops, LOG_WARNING, d, "memory.reclaim",
			 "%s: memory.reclaim %s failed: %m, ignoring", d->path, v);
		return 0;
	}
	s->summary.n_demote_requests++;
	fair_log(ops, LOG_INFO, d, "memory.reclaim",
		 "%s: %s on the fast tier, target %s: demoting %s with memory.reclaim%s", d->path,
		 fmt_mib(d->fast_bytes, b1, sizeof(b1)), fmt_mib(d->target, b2, sizeof(b2)),
		 fmt_mib(d->demote_bytes, v, sizeof(v)), r == -EAGAIN ? " (got less)" : "");
	return 1;
}

/* Enforce one decision; returns the number of writes, or -ENOMEM. */
static int enforce(struct fair_state *s, struct tier_ctx *ctx, const struct fair_ops *ops,
		   const struct fair_decision *d, bool dry_run, const char *why)
{
	int r, n = 0;

	if (d->set_mode) {
		r = enforce_knob(s, ctx, ops, d, true, dry_run, why);
		if (r < 0)
			return r;
		n += r;
	}
	if (d->set_high) {
		r = enforce_knob(s, ctx, ops, d, false, dry_run, why);
		if (r < 0)
			return r;
		n += r;
	}
	if (d->demote_bytes) {
		r = demote(s, ctx, ops, d, dry_run);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}

/*
 * May memory.reclaim be used to demote?  Only when demotion is enabled and
 * the host has no swap, so that the reclaim of anonymous memory can only be
 * demotion (file pages may still be dropped: they are clean cache).
 */
static bool swap_free(struct tier_ctx *ctx)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t size = 0;
	int n = 0;

	if (asprintf(&path, "%s/swaps", tier_ctx_get_procfs_root(ctx)) < 0)
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	while (getline(&line, &size, f) > 0)
		n++;
	return n <= 1; /* the header only */
}

/* /proc/swaps, read again only when it changed (if the caller watches it). */
static bool demotion_without_swap(struct fair_state *s, struct tier_ctx *ctx)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t size = 0;

	if (asprintf(&path, "%s/kernel/mm/numa/demotion_enabled", tier_ctx_get_sysfs_root(ctx)) < 0)
		return false;
	f = fopen(path, "re");
	if (!f || getline(&line, &size, f) <= 0 || strncmp(line, "true", 4) != 0)
		return false;
	if (!s->host_cached || !s->swap_known) {
		s->swap_free = swap_free(ctx);
		s->swap_known = true;
	}
	return s->swap_free;
}

/* cgroup2 mounted with memory_tiered_limits: /proc/self/mountinfo, read
 * again only when it changed (if the caller watches it). */
static bool limits_mounted(struct fair_state *s, struct tier_ctx *ctx)
{
	if (!s->host_cached || !s->limits_known) {
		tier_ctx_mounts_changed(ctx);
		s->limits_mounted = tier_cgroup_mount_has_option(tier_ctx_get_procfs_root(ctx),
								 tier_ctx_get_cgroup_root(ctx),
								 "memory_tiered_limits") > 0;
		s->limits_known = true;
	}
	return s->limits_mounted;
}

int fair_rebalance(struct fair_state *s, struct tier_ctx *ctx, const struct tier_topology *topo,
		   const struct tier_policy *policy, struct tier_share *share,
		   uint64_t now_usec, bool dry_run, const struct fair_ops *ops)
{
	const struct tier_daemon_config *dc;
	_cleanup_free_ struct fair_input *in = NULL;
	_cleanup_free_ struct fair_decision *dec = NULL;
	_cleanup_free_ double *ratios = NULL;
	_cleanup_(tier_strv_freep) char **paths = NULL;
	struct fair_config cfg = {};
	bool kernel_ceiling;
	size_t n = 0, n_alloc, n_ratios = 0, n_kernel_ceiling = 0;
	bool any_toptier = false, any_mode = false;
	int r;

	if (!s || !ctx || !topo || !policy || !share)
		return -EINVAL;
	dc = tier_policy_daemon(policy);
	/* libtier decides who shares, reads their usage and water-fills: the
	 * same shares tierctl status and tierd-metrics show.  What enforcement
	 * needs besides, the knobs, it reads through the same directory fds. */
	tier_share_set_info(share, TIER_INFO_HIGH | TIER_INFO_TOPTIER_HIGH | TIER_INFO_MODE);
	r = tier_share_compute(share, ctx, topo, policy, 0);
	if (r < 0)
		return r;
	n_alloc = tier_share_count(share);
	in = calloc(n_alloc ?: 1, sizeof(*in));
	/* the sharers' paths, built for the round (the share holds each as
	 * its parent and name); the top-most managed cgroups only */
	paths = calloc(n_alloc + 1, sizeof(*paths));
	if (!in || !paths)
		return -ENOMEM;
	for (size_t i = 0; i < n_alloc; i++)
		if (tier_share_path_dup(share, i, &paths[i]) < 0)
			return -ENOMEM;

	cfg.fast_capacity = tier_topology_fast_capacity(topo);
	cfg.total_capacity = tier_topology_total_capacity(topo);
	cfg.capacity = tier_share_capacity(share);
	cfg.hysteresis_bp = dc->hysteresis_bp;
	cfg.min_dwell_usec = 2 * dc->rebalance_interval_usec;
	cfg.now_usec = now_usec;

	for (size_t i = 0; i < n_alloc; i++) {
		const char *path = paths[i];
		const struct tier_class *cls = tier_share_class(share, i);
		const struct tier_rule *rule = tier_share_rule(share, i);
		const struct tier_cgroup_info *info = tier_share_info(share, i);
		struct fair_input *x;
		uint64_t v;

		if (!info) {
			fair_log(ops, LOG_DEBUG, NULL, NULL,
				 "%s: cannot read its memory state, leaving it out", path);
			continue;
		}
		x = &in[n++];
		x->path = path;
		x->class_name = tier_class_name(cls);
		x->rule_name = rule ? tier_rule_name(rule) :
			       ops && ops->rule_name ? ops->rule_name(ops->userdata, path) : NULL;
		x->share = tier_share_target(share, i);
		x->fast_bytes = tier_share_fast_bytes(share, i);
		x->demand = tier_share_demand(share, i);
		x->demand_kind = tier_share_demand_kind(share, i);
		x->resident = tier_share_resident(share, i);
		x->hot = tier_share_hot(share, i);
		/* The kernel counts its top tier exactly: it keeps the ceiling. */
		x->kernel_ceiling = tier_share_fast_exact(share, i);
		n_kernel_ceiling += x->kernel_ceiling;
		/* The class's values, as tier_evaluate() gives them. */
		x->class_sets_mode = true;
		x->class_mode = tier_class_mode(cls);
		x->class_sets_high = tier_class_memory_high(cls)->kind != TIER_AMOUNT_UNSET;
		x->class_high = tier_amount_resolve(tier_class_memory_high(cls), cfg.fast_capacity,
						    UINT64_MAX);
		x->cur_mode = tier_cgroup_info_get(info, TIER_INFO_MODE, &v) == 0 ? (enum tier_mode)v :
										   TIER_MODE_INHERIT;
		any_mode |= tier_cgroup_info_get(info, TIER_INFO_MODE, &v) == 0;
		x->cur_high = tier_cgroup_info_get(info, TIER_INFO_HIGH, &v) == 0 ? v : UINT64_MAX;
		any_toptier |= tier_cgroup_info_get(info, TIER_INFO_TOPTIER_HIGH, &v) == 0;
	}

	cfg.demote_ok = demotion_without_swap(s, ctx);
	if (cfg.capacity == 0) {
		/* Nothing to share: enforcing would only starve everyone. */
		if (n > 0 && !s->warned_capacity)
			fair_log(ops, LOG_WARNING, NULL, NULL,
				 "Fast-tier capacity %" PRIu64 " is not above fast_tier_reserve %" PRIu64
				 ": fair shares are not enforced",
				 cfg.fast_capacity, dc->fast_tier_reserve);
		s->warned_capacity = n > 0;
		cfg.method = FAIR_METHOD_NONE;
	} else if (ops && ops->damon) {
		/* the damon backend: tierd's DAMON schemes enforce the targets
		 * (promotion held off above, demotion towards them) */
		cfg.method = FAIR_METHOD_DAMON;
	} else if (any_toptier && cfg.total_capacity > cfg.fast_capacity &&
		   limits_mounted(s, ctx)) {
		cfg.method = FAIR_METHOD_LIMITS;
	} else if (any_mode) {
		cfg.method = FAIR_METHOD_PROMOTION;
	} else {
		cfg.method = FAIR_METHOD_NONE;
	}
	if (cfg.method == FAIR_METHOD_NONE && n > 0 && !s->warned_none) {
		fair_log(ops, LOG_WARNING, NULL, NULL,
			 "Fair shares: the kernel has neither tier-aware limits nor "
			 "memory.numa_balancing; targets are computed but not enforced");
		s->warned_none = true;
	}
	kernel_ceiling = cfg.method == FAIR_METHOD_LIMITS && n > 0 && n_kernel_ceiling == n;
	if (n > 0 && (s->summary.method != cfg.method || !s->logged_method ||
		      s->summary.kernel_ceiling != kernel_ceiling)) {
		fair_log(ops, LOG_INFO, NULL, NULL,
			 "Fair shares of %" PRIu64 " bytes of fast tier (%" PRIu64
			 " minus a reserve of %" PRIu64 "), enforced through %s%s",
			 cfg.capacity, cfg.fast_capacity, dc->fast_tier_reserve,
			 fair_method_to_string(cfg.method),
			 kernel_ceiling ? " (the kernel keeps each cgroup at its ceiling)" : "");
		s->logged_method = true;
	}

	dec = calloc(n ?: 1, sizeof(*dec));
	ratios = calloc(n ?: 1, sizeof(*ratios));
	if (!dec || !ratios)
		return -ENOMEM;
	r = fair_decide(s, &cfg, n, in, dec);
	if (r < 0)
		return r;
	/* What is held is on disk before it is written to the tree. */
	if (!dry_run && ops && ops->save) {
		r = ops->save(ops->userdata, s);
		if (r == -ENOMEM)
			return r;
	}

	s->summary.method = cfg.method;
	s->summary.kernel_ceiling = kernel_ceiling;
	s->summary.capacity = cfg.capacity;
	s->summary.n_cgroups = n;
	s->summary.n_limited = s->summary.n_throttled = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fair_decision *d = &dec[i];
		char b1[32], b2[32], b3[32], b4[32];

		s->summary.n_limited += d->limited;
		s->summary.n_throttled += d->throttled || d->damon_off;
		if (d->target > 0)
			ratios[n_ratios++] = (double)d->fast_bytes / (double)d->target;
		if (d->target_changed || d->state_changed)
			fair_log(ops, d->state_changed ? LOG_INFO : LOG_DEBUG, d, "target",
				 "%s: fast-tier target %s (share %s), fast %s, demand %s%s%s%s",
				 d->path, fmt_mib(d->target, b1, sizeof(b1)),
				 fmt_mib(d->share, b2, sizeof(b2)),
				 fmt_mib(d->fast_bytes, b3, sizeof(b3)),
				 d->demand == UINT64_MAX ? "unknown" :
							   fmt_mib(d->demand, b4, sizeof(b4)),
				 d->demand_kind == TIER_DEMAND_HOT ? " (hot set + margin)" : "",
				 d->limited ? (d->high_floored ? ", limited (memory.high held at its usage)" :
						 ", limited") : "",
				 d->throttled || d->damon_off ? ", promotion off" : "");
		r = enforce(s, ctx, ops, d, dry_run,
			    d->throttled ? "above its fast-tier target" :
			    d->limited	 ? "fast-tier target below its demand" :
					   "back within its fast-tier target");
		if (r < 0)
			return r;
		s->summary.n_writes += r;
	}
	for (size_t i = 0; i < fair_released_count(s); i++) {
		r = enforce(s, ctx, ops, fair_released(s, i), dry_run,
			    "no longer shares the fast tier");
		if (r < 0)
			return r;
		s->summary.n_writes += r;
	}
	s->summary.jain = tier_jain_index(n_ratios, ratios);
	if (cfg.method == FAIR_METHOD_DAMON && !dry_run) {
		r = ops->damon(ops->userdata, n, dec);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

const struct tier_plan_entry *fair_filter_entry(const struct fair_state *s,
						const struct tier_plan_entry *e,
						struct tier_plan_entry **ret_copy)
{
	const struct fair_entry *fe = NULL;
	const struct fair_decision *d;
	struct tier_plan_entry *buf;

	/* fairness holds the few top-most sharers: most entries need no path */
	if (s && s->n_entries > 0) {
		_cleanup_free_ char *path = NULL;

		if (tier_plan_entry_path_dup(e, &path) < 0)
			return NULL;
		fe = state_lookup(s, path);
	}
	d = fe ? &fe->d : NULL;

	if (!d || (!d->throttled && !d->limited))
		return e;
	if (tier_plan_entry_dup(e, &buf) < 0)
		return NULL;
	*ret_copy = buf;
	if (fe->restored) {
		/* Held before a restart, not decided on since: the first round
		 * finds out whether the knob still holds fairness's value, so
		 * neither it nor the class's value is written before. */
		if (d->throttled)
			(void)tier_plan_entry_clear_desired(buf, TIER_ATTR_NUMA_BALANCING);
		if (d->limited)
			(void)tier_plan_entry_clear_desired(buf, TIER_ATTR_MEMORY_HIGH);
		return buf;
	}
	if (d->throttled)
		(void)tier_plan_entry_set_desired(buf, TIER_ATTR_NUMA_BALANCING, TIER_MODE_OFF);
	if (d->limited)
		(void)tier_plan_entry_set_desired(buf, TIER_ATTR_MEMORY_HIGH, d->memory_high);
	return buf;
}

int fair_release_all(struct fair_state *s, struct tier_ctx *ctx, bool dry_run,
		     const struct fair_ops *ops)
{
	const struct fair_config cfg = { .method = FAIR_METHOD_NONE };
	uint64_t errors;
	int r;

	if (!s || !ctx)
		return -EINVAL;
	/* No cgroup shares the fast tier any more: every hold is released. */
	r = fair_decide(s, &cfg, 0, NULL, NULL);
	if (r < 0)
		return r;
	errors = s->summary.n_errors;
	for (size_t i = 0; i < fair_released_count(s); i++) {
		r = enforce(s, ctx, ops, fair_released(s, i), dry_run, "tierd is stopping");
		if (r < 0)
			return r;
		s->summary.n_writes += r;
	}
	entries_free(s->released, s->n_released);
	s->released = NULL;
	s->n_released = 0;
	return (int)(s->summary.n_errors - errors);
}

/* ------------------------------------------------------------------------
 * The state file: what fairness holds, across a restart
 * ------------------------------------------------------------------------ */

#define STATE_MAGIC "tierd-fair-state 1"

/* Cgroup names are anyone's: every byte outside '!'..'~', and '%', as %XX. */
static int put_path(FILE *f, const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '%')
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	return 0;
}

static int get_path(const char *s, char **ret)
{
	_cleanup_free_ char *out = malloc(strlen(s) + 1);
	char *w = out;

	if (!out)
		return -ENOMEM;
	for (; *s; s++) {
		unsigned v;

		if (*s != '%') {
			if ((unsigned char)*s <= ' ' || (unsigned char)*s > '~')
				return -EINVAL;
			*w++ = *s;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]) ||
		    sscanf(s + 1, "%2X", &v) != 1 || v == 0)
			return -EINVAL;
		*w++ = (char)v;
		s += 2;
	}
	*w = '\0';
	if (out[0] != '/')
		return -EINVAL;
	*ret = TAKE_PTR(out);
	return 0;
}

static void put_u64(FILE *f, bool valid, uint64_t v)
{
	if (!valid)
		fputs(" -", f);
	else if (v == UINT64_MAX)
		fputs(" max", f);
	else
		fprintf(f, " %" PRIu64, v);
}

static void put_entry(FILE *f, const struct fair_entry *e, bool high_known)
{
	uint64_t high = e->d.memory_high;

	if (high != UINT64_MAX)
		high &= ~(PAGE_BYTES - 1);
	put_path(f, e->path);
	fprintf(f, " %d %d", e->d.limited, e->d.throttled);
	put_u64(f, true, e->d.target);
	put_u64(f, e->d.limited && high_known, high);
	put_u64(f, e->saved_high_valid, e->saved_high);
	fprintf(f, " %s\n", e->saved_mode_valid ? tier_mode_to_string(e->saved_mode) : "-");
}

int fair_state_serialize(const struct fair_state *s, char **ret, size_t *ret_size)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;

	if (!s || !ret)
		return -EINVAL;
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	fputs(STATE_MAGIC "\n", f);
	fputs("# cgroup limited throttled target memory_high saved_high saved_mode\n", f);
	for (size_t i = 0; i < s->n_entries; i++)
		if (s->entries[i].d.limited || s->entries[i].d.throttled)
			put_entry(f, &s->entries[i], true);
	/* Released this round: held until the restore is written. */
	for (size_t i = 0; i < s->n_released; i++) {
		struct fair_entry e = s->released[i];

		/* (what fairness wrote is gone from d: memory_high is unknown, "-") */
		e.d.limited = e.d.set_high;
		e.d.throttled = e.d.set_mode;
		put_entry(f, &e, false);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	if (ret_size)
		*ret_size = size;
	return 0;
}

static int get_u64(const char *s, bool *ret_valid, uint64_t *ret)
{
	char *end;

	*ret_valid = strcmp(s, "-") != 0;
	if (!*ret_valid) {
		*ret = 0;
		return 0;
	}
	if (strcmp(s, "max") == 0) {
		*ret = UINT64_MAX;
		return 0;
	}
	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_line(char *line, struct fair_entry *e)
{
	char *tok[7], *save = NULL;
	bool valid, v2;
	int n = 0, r;

	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == 7)
			return -EINVAL;
		tok[n++] = t;
	}
	if (n != 7)
		return -EINVAL;
	if ((strcmp(tok[1], "0") && strcmp(tok[1], "1")) || (strcmp(tok[2], "0") && strcmp(tok[2], "1")))
		return -EINVAL;
	e->d.limited = tok[1][0] == '1';
	e->d.throttled = tok[2][0] == '1';
	if (!e->d.limited && !e->d.throttled)
		return -EINVAL;
	r = get_u64(tok[3], &valid, &e->d.target);
	if (r < 0 || !valid)
		return -EINVAL;
	r = get_u64(tok[4], &valid, &e->d.memory_high);
	if (r < 0 || (valid && !e->d.limited))
		return -EINVAL;
	e->restored_high_known = valid;
	if (!valid)
		e->d.memory_high = UINT64_MAX;
	r = get_u64(tok[5], &v2, &e->saved_high);
	if (r < 0)
		return -EINVAL;
	e->saved_high_valid = v2;
	e->saved_mode_valid = strcmp(tok[6], "-") != 0;
	if (e->saved_mode_valid && tier_mode_from_string(tok[6], &e->saved_mode) < 0)
		return -EINVAL;
	e->d.set_mode = e->d.throttled;
	e->d.mode = TIER_MODE_OFF;
	e->d.set_high = e->d.limited;
	e->restored = true;
	return get_path(tok[0], &e->path);
}

/* Entries in path order; of equal paths, the earlier line first. */
static int fentry_ptr_cmp(const void *a, const void *b)
{
	const struct fair_entry *x = *(const struct fair_entry *const *)a;
	const struct fair_entry *y = *(const struct fair_entry *const *)b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x > y) - (x < y);
}

/*
 * Read a state file back.  The lines are parsed first and sorted once
 * (O(n log n); sorting after each line took a minute for 60,000 entries);
 * of lines for the same cgroup the first counts, the others are bad lines.
 */
int fair_state_load(struct fair_state *s, const char *buf, size_t size, size_t *ret_n_bad)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_free_ struct fair_entry **order = NULL;
	struct fair_entry *v = NULL, *out = NULL;
	size_t n = 0, alloc = 0, bad = 0, k = 0;
	char *line, *save = NULL;
	int r;

	if (!s || !buf)
		return -EINVAL;
	if (memchr(buf, '\0', size))
		return -EINVAL;
	copy = strndup(buf, size);
	if (!copy)
		return -ENOMEM;
	line = strtok_r(copy, "\n", &save);
	if (!line || strcmp(line, STATE_MAGIC) != 0)
		return -EINVAL;
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct fair_entry e = {};

		if (line[0] == '#')
			continue;
		r = parse_line(line, &e);
		if (r == -ENOMEM) {
			entries_free(v, n);
			return r;
		}
		if (r < 0) {
			free(e.path);
			bad++;
			continue;
		}
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 16;
			struct fair_entry *nv = realloc(v, na * sizeof(*nv));

			if (!nv) {
				free(e.path);
				entries_free(v, n);
				return -ENOMEM;
			}
			v = nv;
			alloc = na;
		}
		v[n++] = e;
	}
	order = calloc(n ?: 1, sizeof(*order));
	out = calloc(n ?: 1, sizeof(*out));
	if (!order || !out) {
		free(out);
		entries_free(v, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &v[i];
	qsort(order, n, sizeof(*order), fentry_ptr_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && strcmp(out[k - 1].path, order[i]->path) == 0) {
			free(order[i]->path);
			bad++;
			continue;
		}
		out[k] = *order[i];
		/* d.path points at each entry's own path. */
		out[k].d.path = out[k].path;
		k++;
	}
	free(v);
	entries_free(s->entries, s->n_entries);
	s->entries = out;
	s->n_entries = k;
	if (ret_n_bad)
		*ret_n_bad = bad;
	return (int)(k > INT32_MAX ? INT32_MAX : k);
}

size_t fair_state_held(const struct fair_state *s)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->n_entries; i++)
		n += s->entries[i].d.limited || s->entries[i].d.throttled;
	return n + (s ? s->n_released : 0);
}
