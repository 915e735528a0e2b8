// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One cgroup at a time, for a daemon that reacts to events instead of
 * walking the tree (tierd: a new cgroup, a cgroup that filled, an exec):
 *  - tier_observe_cgroup_at(): what the rules match on (path, unit, exes,
 *    annotations) of one cgroup whose directory the caller already has
 *    open, without enumerating anything and without reading the values
 *    that tier_apply_entry() reads anyway;
 *  - tier_apply_entry_at(): tier_apply_entry() through that directory fd;
 *  - tier_policy_match_exe(): the first rule an executable selects, through
 *    the policy's prefix index and compiled globs (not a glob per rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "libtier-private.h"
#include "policy.h"

_public_ int tier_observe_cgroup_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
				    const char *path, unsigned flags,
				    struct tier_observed **ret_observed)
{
	struct observed_owned *o;
	struct tier_observed_cgroup *c;
	char *p;
	int r;

	if (!ctx || dfd < 0 || !path || !cgroup_path_valid(path) || !ret_observed ||
	    (flags & ~(TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS)))
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->cgroups = calloc(1, sizeof(*o->cgroups));
	o->paths = calloc(2, sizeof(char *));
	o->units = calloc(1, sizeof(char *));
	o->exes = calloc(1, sizeof(char **));
	o->annotations = calloc(1, sizeof(char **));
	p = strdup(path);
	if (!o->cgroups || !o->paths || !o->units || !o->exes || !o->annotations || !p) {
		free(p);
		r = -ENOMEM;
		goto fail;
	}
	o->paths[0] = p;
	o->n = 1;
	c = &o->cgroups[0];
	c->path = p;
	/* Not read: tier_apply_entry() reads each value once. */
	c->mode_supported = true;
	c->mode = TIER_MODE_INHERIT;
	c->memory_low = 0;
	c->memory_high = UINT64_MAX;
	r = tier_cgroup_path_unit(path, &o->units[0]);
	if (r == -ENOMEM)
		goto fail;
	c->unit = o->units[0];
	if (flags & TIER_OBSERVE_EXE) {
		r = observe_exes(ctx, dfd, &o->exes[0]);
		if (r == -ENOMEM)
			goto fail;
		if (r == -ENOENT || r == -ENODEV) /* removed meanwhile */
			goto fail;
		c->exes = (const char *const *)o->exes[0];
	}
	if (flags & TIER_OBSERVE_ANNOTATIONS) {
		r = observe_annotations(dfd, &o->annotations[0]);
		if (r == -ENOMEM)
			goto fail;
		c->annotations = (const char *const *)o->annotations[0];
	}
	o->pub.n_cgroups = 1;
	o->pub.fast_capacity = topo ? tier_topology_fast_capacity(topo) : 0;
	o->pub.cgroups = o->cgroups;
	*ret_observed = &o->pub;
	return 0;
fail:
	tier_observed_free(&o->pub);
	return r;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct index_cand *x = a, *y = b;

	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return (x->matcher > y->matcher) - (x->matcher < y->matcher);
}

_public_ int tier_policy_match_exe(const struct tier_policy *policy, const char *exe,
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

_public_ int tier_apply_entry_at(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
				 unsigned flags, tier_apply_write_fn write_fn, void *userdata,
				 struct tier_apply_result *ret_result)
{
	if (dfd < 0)
		return -EINVAL;
	return apply_entry_dfd(ctx, dfd, entry, flags, write_fn, userdata, ret_result);
}
