// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One cgroup at a time, for a daemon that reacts to events instead of
 * walking the tree (tierd: a new cgroup, a cgroup that filled, an exec):
 *  - tier_observe_cgroup_at(): what the rules match on (path, unit, exes,
 *    annotations) of one cgroup whose directory the caller already has
 *    open, without enumerating anything and without reading the values
 *    that tier_apply_entry() reads anyway;
 *    (tier_apply_entry_at(), in apply.c, applies through that fd);
 *  - tier_policy_match_exe() (tier-internal.h, not ABI): the first rule an
 *    executable selects, through the policy's prefix index and compiled
 *    globs (not a glob per rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "libtier-private.h"
#include "policy.h"
#include "tier-internal.h"

_public_ int tier_observe_cgroup_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
				    const char *path, unsigned flags,
				    struct tier_observed **ret_observed)
{
	_cleanup_(tier_observed_freep) struct tier_observed *o = NULL;
	struct tier_observed_cgroup *c;
	char **strv = NULL;
	int r;

	if (!ctx || dfd < 0 || !path || !cgroup_path_valid(path) || !ret_observed ||
	    (flags & ~(TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS)))
		return -EINVAL;
	r = tier_observed_new(topo ? tier_topology_fast_capacity(topo) : 0, &o);
	if (r < 0)
		return r;
	r = tier_observed_add(o, path, &c);
	if (r < 0)
		return r;
	/* Not read: the apply reads each value once.  The kernel's defaults
	 * (memory.low 0 and memory.high max are tier_observed_add()'s). */
	r = tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING, TIER_MODE_INHERIT);
	if (r < 0)
		return r;
	r = tier_cgroup_path_unit(path, &c->unit);
	if (r == -ENOMEM)
		return r;
	if (flags & TIER_OBSERVE_EXE) {
		r = observe_exes(ctx, dfd, &strv);
		if (r == -ENOMEM || r == -ENOENT || r == -ENODEV) /* or removed meanwhile */
			return r;
		if (r >= 0)
			observed_cgroup_take_exes(c, strv);
	}
	if (flags & TIER_OBSERVE_ANNOTATIONS) {
		strv = NULL;
		r = observe_annotations(dfd, &strv);
		if (r == -ENOMEM)
			return r;
		if (r >= 0)
			observed_cgroup_take_annotations(c, strv);
	}
	*ret_observed = TAKE_PTR(o);
	return 0;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct index_cand *x = a, *y = b;

	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return (x->matcher > y->matcher) - (x->matcher < y->matcher);
}

int tier_policy_match_exe(const struct tier_policy *policy, const char *exe,
				   const struct tier_rule **ret_rule)
{
	_cleanup_free_ struct index_cand *cands = NULL;
	size_t n = 0, alloc = 0;
	int r;

	if (!policy || !exe || !ret_rule)
		return -EINVAL;
	r = prefix_index_lookup(&policy->index[TIER_MATCH_EXE], exe, strlen(exe), &cands, &n,
				&alloc);
	if (r < 0)
		return r;
	if (n > 1)
		qsort(cands, n, sizeof(*cands), cmp_cand);
	for (size_t i = 0; i < n; i++) {
		const struct policy_rule *rule = policy->rules[cands[i].rule];

		if (glob_match_compiled(&rule->globs[cands[i].matcher], exe)) {
			*ret_rule = &rule->pub;
			return 1;
		}
	}
	*ret_rule = NULL;
	return 0;
}
