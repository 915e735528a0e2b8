// SPDX-License-Identifier: LGPL-2.1-or-later
/* Policy evaluation: observed state in, desired values out.  No I/O. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"
#include "policy.h"

struct tier_plan {
	struct tier_plan_entry *entries;
	size_t n;
	char **strings;		/* owned copies the entries point to */
	size_t n_strings, alloc_strings;
};

_public_ void tier_plan_free(struct tier_plan *plan)
{
	if (!plan)
		return;
	tier_strv_free(plan->strings);
	free(plan->entries);
	free(plan);
}

static const char *plan_strdup(struct tier_plan *plan, const char *s)
{
	char *c = strdup(s);

	if (!c)
		return NULL;
	if (strv_push(&plan->strings, &plan->n_strings, &plan->alloc_strings, c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

/* Does matcher j of rule r match cgroup c?  Sets *ret_value to what matched. */
static bool matcher_matches(const struct policy_rule *r, size_t j,
			    const struct tier_observed_cgroup *c, size_t path_len, size_t unit_len,
			    const char **ret_value)
{
	const struct tier_matcher *m = &r->matchers[j];
	const struct glob *g = &r->globs[j];

	switch (m->kind) {
	case TIER_MATCH_CGROUP:
		if (glob_match_len(g, c->path, path_len)) {
			*ret_value = c->path;
			return true;
		}
		return false;
	case TIER_MATCH_UNIT:
		if (c->unit && glob_match_len(g, c->unit, unit_len)) {
			*ret_value = c->unit;
			return true;
		}
		return false;
	case TIER_MATCH_EXE:
		if (!c->exes)
			return false;
		for (const char *const *e = c->exes; *e; e++)
			if (glob_match_compiled(g, *e)) {
				*ret_value = *e;
				return true;
			}
		return false;
	case TIER_MATCH_ANNOTATION: {
		size_t kl = strlen(m->key);

		if (!c->annotations)
			return false;
		for (const char *const *a = c->annotations; *a; a++)
			if (strncmp(*a, m->key, kl) == 0 && (*a)[kl] == '=' &&
			    glob_match_compiled(g, *a + kl + 1)) {
				*ret_value = *a;
				return true;
			}
		return false;
	}
	default:
		return false;
	}
}

static bool is_root(const char *path)
{
	for (; *path; path++)
		if (*path != '/')
			return false;
	return true;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct index_cand *x = a, *y = b;

	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return (x->matcher > y->matcher) - (x->matcher < y->matcher);
}

/* Candidates (rule, matcher) for cgroup c, sorted in policy order. */
static int collect(const struct tier_policy *policy, const struct tier_observed_cgroup *c,
		   size_t path_len, size_t unit_len, struct index_cand **cands, size_t *n,
		   size_t *alloc)
{
	int r;

	*n = 0;
	r = prefix_index_lookup(&policy->index[TIER_MATCH_CGROUP], c->path, path_len, cands, n,
				alloc);
	if (r >= 0 && c->unit)
		r = prefix_index_lookup(&policy->index[TIER_MATCH_UNIT], c->unit, unit_len, cands, n,
					alloc);
	for (const char *const *e = c->exes; r >= 0 && e && *e; e++)
		r = prefix_index_lookup(&policy->index[TIER_MATCH_EXE], *e, strlen(*e), cands, n,
					alloc);
	for (const char *const *a = c->annotations; r >= 0 && a && *a; a++)
		r = prefix_index_lookup(&policy->index[TIER_MATCH_ANNOTATION], *a, strlen(*a), cands,
					n, alloc);
	if (r < 0)
		return r;
	if (*n > 1)
		qsort(*cands, *n, sizeof(**cands), cmp_cand);
	return 0;
}

void class_desired(const struct tier_class *cls, uint64_t capacity, struct tier_plan_entry *e)
{
	e->set_mode = true;
	e->mode = cls->mode;
	e->set_low = cls->memory_low.kind != TIER_AMOUNT_UNSET;
	e->memory_low = tier_amount_resolve(&cls->memory_low, capacity, 0);
	e->set_high = cls->memory_high.kind != TIER_AMOUNT_UNSET;
	e->memory_high = tier_amount_resolve(&cls->memory_high, capacity, UINT64_MAX);
	e->weight = cls->weight;
	e->toptier_min = tier_amount_resolve(&cls->toptier_min, capacity, 0);
	e->toptier_max = tier_amount_resolve(&cls->toptier_max, capacity, UINT64_MAX);
}

static int decide(struct tier_plan *plan, struct tier_plan_entry *e, const struct policy_rule *r,
		  size_t j, const struct tier_observed_cgroup *c, const char *value, uint64_t cap)
{
	const struct tier_class *cls = r->pub.class;

	e->rule = &r->pub;
	e->class = cls;
	e->matcher = &r->matchers[j];
	e->matched_value = value == c->path ? e->path : plan_strdup(plan, value);
	if (!e->matched_value)
		return -ENOMEM;
	if (cls)
		class_desired(cls, cap, e);
	return 0;
}

_public_ int tier_evaluate(const struct tier_policy *policy, const struct tier_observed *state,
			   struct tier_plan **ret_plan)
{
	_cleanup_free_ struct index_cand *cands = NULL;
	size_t n_cands = 0, alloc_cands = 0;
	struct tier_plan *plan;
	uint64_t cap;

	if (!policy || !state || !ret_plan || (state->n_cgroups && !state->cgroups))
		return -EINVAL;
	cap = state->fast_capacity;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	plan->entries = calloc(state->n_cgroups ?: 1, sizeof(*plan->entries));
	if (!plan->entries)
		goto oom;
	for (size_t i = 0; i < state->n_cgroups; i++) {
		const struct tier_observed_cgroup *c = &state->cgroups[i];
		struct tier_plan_entry *e = &plan->entries[i];
		size_t path_len, unit_len;

		if (!c->path) {
			tier_plan_free(plan);
			return -EINVAL;
		}
		e->path = plan_strdup(plan, c->path);
		if (!e->path)
			goto oom;
		e->mode_supported = c->mode_supported;
		e->current_mode = c->mode;
		e->current_low = c->memory_low;
		e->current_high = c->memory_high;
		e->toptier_max = UINT64_MAX;
		plan->n = i + 1;
		if (is_root(c->path))
			continue;
		path_len = strlen(c->path);
		unit_len = c->unit ? strlen(c->unit) : 0;
		if (collect(policy, c, path_len, unit_len, &cands, &n_cands, &alloc_cands) < 0)
			goto oom;
		for (size_t k = 0; k < n_cands; k++) {
			const struct policy_rule *r = policy->rules[cands[k].rule];
			const char *value = NULL;

			if (k > 0 && cands[k].rule == cands[k - 1].rule &&
			    cands[k].matcher == cands[k - 1].matcher)
				continue;
			if (!matcher_matches(r, cands[k].matcher, c, path_len, unit_len, &value))
				continue;
			if (decide(plan, e, r, cands[k].matcher, c, value, cap) < 0)
				goto oom;
			break;
		}
	}
	*ret_plan = plan;
	return 0;
oom:
	tier_plan_free(plan);
	return -ENOMEM;
}

_public_ size_t tier_plan_count(const struct tier_plan *plan)
{
	return plan ? plan->n : 0;
}

_public_ const struct tier_plan_entry *tier_plan_entry(const struct tier_plan *plan, size_t i)
{
	return plan && i < plan->n ? &plan->entries[i] : NULL;
}

_public_ const struct tier_plan_entry *tier_plan_find(const struct tier_plan *plan,
						     const char *path)
{
	if (!plan || !path)
		return NULL;
	for (size_t i = 0; i < plan->n; i++)
		if (strcmp(plan->entries[i].path, path) == 0)
			return &plan->entries[i];
	return NULL;
}
