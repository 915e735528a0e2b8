// SPDX-License-Identifier: LGPL-2.1-or-later
/* Apply a plan: diff desired against current, write only what changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtier-private.h"

struct tier_apply_results {
	struct tier_apply_result *r;
	size_t n;
};

_public_ const char *tier_attr_to_string(enum tier_attr attr)
{
	static const char *const names[_TIER_ATTR_MAX] = {
		[TIER_ATTR_NUMA_BALANCING] = "memory.numa_balancing",
		[TIER_ATTR_MEMORY_LOW] = "memory.low",
		[TIER_ATTR_MEMORY_HIGH] = "memory.high",
	};

	if ((int)attr < 0 || attr >= _TIER_ATTR_MAX)
		return NULL;
	return names[attr];
}

_public_ const char *tier_apply_status_to_string(enum tier_apply_status status)
{
	static const char *const names[] = {
		[TIER_APPLY_UNMANAGED] = "unmanaged",	[TIER_APPLY_UNCHANGED] = "unchanged",
		[TIER_APPLY_CHANGED] = "changed",	[TIER_APPLY_VANISHED] = "vanished",
		[TIER_APPLY_UNSUPPORTED] = "unsupported", [TIER_APPLY_ERROR] = "error",
	};

	if ((int)status < 0 || (size_t)status >= ARRAY_SIZE(names))
		return NULL;
	return names[status];
}

static uint64_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

static void fmt_u64(char *buf, uint64_t v)
{
	if (v == UINT64_MAX)
		snprintf(buf, TIER_VALUE_MAX, "max");
	else
		snprintf(buf, TIER_VALUE_MAX, "%llu", (unsigned long long)v);
}

/* Read current, compare, maybe write.  Fills ch. */
static void apply_attr(struct tier_ctx *ctx, const char *cgroup, enum tier_attr attr,
		       const struct tier_plan_entry *e, bool dry_run, struct tier_apply_change *ch)
{
	const char *file = tier_attr_to_string(attr);
	bool differs;
	int r;

	ch->attr = attr;
	if (attr == TIER_ATTR_NUMA_BALANCING) {
		enum tier_mode cur;

		snprintf(ch->new_value, TIER_VALUE_MAX, "%s", tier_mode_to_string(e->mode));
		r = tier_cgroup_get_mode(ctx, cgroup, &cur);
		if (r < 0)
			goto fail;
		snprintf(ch->old_value, TIER_VALUE_MAX, "%s", tier_mode_to_string(cur));
		differs = cur != e->mode;
	} else {
		uint64_t want = attr == TIER_ATTR_MEMORY_LOW ? e->memory_low : e->memory_high;
		uint64_t cur;

		/*
		 * The kernel keeps memory.low/high in pages and reads back a
		 * rounded-down value: write that value, so the next diff is empty.
		 */
		if (want != UINT64_MAX)
			want -= want % page_size();

		fmt_u64(ch->new_value, want);
		r = tier_cgroup_read_u64(ctx, cgroup, file, &cur);
		if (r < 0)
			goto fail;
		fmt_u64(ch->old_value, cur);
		differs = cur != want;
	}
	if (!differs) {
		ch->status = TIER_APPLY_UNCHANGED;
		return;
	}
	if (!dry_run) {
		r = tier_cgroup_write(ctx, cgroup, file, ch->new_value);
		if (r < 0)
			goto fail;
		info(ctx, "%s: %s %s -> %s", cgroup, file, ch->old_value, ch->new_value);
	} else {
		dbg(ctx, "%s: %s %s -> %s (dry run)", cgroup, file, ch->old_value, ch->new_value);
	}
	ch->status = TIER_APPLY_CHANGED;
	return;
fail:
	ch->error = r;
	if (r == -ENOENT) {
		ch->status = TIER_APPLY_VANISHED;
		dbg(ctx, "%s: vanished, skipping", cgroup);
	} else if (r == -EOPNOTSUPP) {
		ch->status = TIER_APPLY_UNSUPPORTED;
		dbg(ctx, "%s: no %s (kernel lacks it)", cgroup, file);
	} else {
		ch->status = TIER_APPLY_ERROR;
		err(ctx, "%s: %s: %s", cgroup, file, strerror(-r));
	}
}

static int status_rank(enum tier_apply_status s)
{
	switch (s) {
	case TIER_APPLY_ERROR:
		return 4;
	case TIER_APPLY_UNSUPPORTED:
		return 3;
	case TIER_APPLY_CHANGED:
		return 2;
	case TIER_APPLY_UNCHANGED:
		return 1;
	default:
		return 0;
	}
}

_public_ int tier_apply(struct tier_ctx *ctx, const struct tier_plan *plan, unsigned flags,
			struct tier_apply_results **ret_results)
{
	struct tier_apply_results *res;
	bool dry_run = flags & TIER_APPLY_DRY_RUN;
	size_t n = tier_plan_count(plan);
	int n_err = 0;

	if (!ctx || !plan || !ret_results || (flags & ~TIER_APPLY_DRY_RUN))
		return -EINVAL;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	res->r = calloc(n ?: 1, sizeof(*res->r));
	if (!res->r) {
		free(res);
		return -ENOMEM;
	}
	res->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i);
		struct tier_apply_result *out = &res->r[i];
		const bool set[_TIER_ATTR_MAX] = {
			[TIER_ATTR_NUMA_BALANCING] = e->set_mode,
			[TIER_ATTR_MEMORY_LOW] = e->set_low,
			[TIER_ATTR_MEMORY_HIGH] = e->set_high,
		};

		out->path = e->path;
		out->status = TIER_APPLY_UNMANAGED;
		if (!e->rule)
			continue;
		out->status = TIER_APPLY_UNCHANGED;
		for (int a = 0; a < _TIER_ATTR_MAX; a++) {
			struct tier_apply_change *ch;

			if (!set[a])
				continue;
			ch = &out->changes[out->n_changes++];
			apply_attr(ctx, e->path, (enum tier_attr)a, e, dry_run, ch);
			if (ch->error && !out->error)
				out->error = ch->error;
			if (ch->status == TIER_APPLY_VANISHED) {
				out->status = TIER_APPLY_VANISHED;
				break;
			}
			if (status_rank(ch->status) > status_rank(out->status))
				out->status = ch->status;
		}
		if (out->status == TIER_APPLY_ERROR)
			n_err++;
	}
	*ret_results = res;
	return n_err;
}

_public_ void tier_apply_results_free(struct tier_apply_results *results)
{
	if (!results)
		return;
	free(results->r);
	free(results);
}

_public_ size_t tier_apply_results_count(const struct tier_apply_results *results)
{
	return results ? results->n : 0;
}

_public_ const struct tier_apply_result *tier_apply_results_get(
	const struct tier_apply_results *results, size_t i)
{
	return results && i < results->n ? &results->r[i] : NULL;
}
