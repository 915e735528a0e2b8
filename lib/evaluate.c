// SPDX-License-Identifier: LGPL-2.1-or-later
/* Policy evaluation: observed state in, desired values out.  No I/O. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"
#include "policy.h"

/*
 * Entries in evaluation order (an array of pointers, so an entry never
 * moves) and a chained hash table of them by path, so that finding or
 * re-evaluating one cgroup costs the same in a plan of ten or ten thousand.
 */
struct tier_plan {
	const struct tier_policy *policy;
	uint64_t fast_capacity;
	struct tier_plan_entry **entries;
	size_t n, alloc;
	struct hmap table;		/* entries by path */
};

void plan_entry_free(struct tier_plan_entry *e)
{
	if (!e)
		return;
	free(e->matched_value);
	cgpath_unref(e->path);
	free(e);
}

_public_ void tier_plan_free(struct tier_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n; i++)
		plan_entry_free(plan->entries[i]);
	free(plan->entries);
	hmap_done(&plan->table);
	tier_policy_unref((struct tier_policy *)plan->policy);
	free(plan);
}

_public_ int tier_plan_new(const struct tier_policy *policy, uint64_t fast_capacity,
			   struct tier_plan **ret_plan)
{
	struct tier_plan *plan;

	if (!policy || !ret_plan)
		return -EINVAL;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -ENOMEM;
	/* the policy is immutable; the count is not its content */
	plan->policy = tier_policy_ref((struct tier_policy *)policy);
	/* percentages are of the capacity the fair share divides */
	plan->fast_capacity = policy_share_capacity(policy, fast_capacity);
	*ret_plan = plan;
	return 0;
}

struct path_key {
	const char *s;
	size_t len;
};

static bool entry_has_path(const struct hmap_node *node, const void *key)
{
	const struct path_key *k = key;

	return cgpath_equal(hmap_entry(node, struct tier_plan_entry, node)->path, k->s, k->len);
}

static struct tier_plan_entry *plan_lookup(const struct tier_plan *plan, const char *path,
					   size_t len, uint64_t hash)
{
	struct path_key k = { path, len };
	struct hmap_node *x = hmap_find(&plan->table, hash, entry_has_path, &k);

	return x ? hmap_entry(x, struct tier_plan_entry, node) : NULL;
}

struct tier_plan_entry *plan_entry_new(struct cgpath *path)
{
	struct tier_plan_entry *e = calloc(1, sizeof(*e));

	if (e)
		e->path = cgpath_ref(path);
	return e;
}

/*
 * The path a new entry of plan holds for p, whose whole path is the len
 * bytes of path: below its parent's entry when the plan has one (a parent +
 * a name, however the observed state held it), else p itself.  A new
 * reference, or NULL on ENOMEM.
 */
static struct cgpath *plan_intern(const struct tier_plan *plan, struct cgpath *p, const char *path,
				  size_t len)
{
	const struct tier_plan_entry *pe;
	const char *slash;
	size_t plen;
	uint64_t phash;

	if (len <= 1)
		return cgpath_ref(p);
	if (p->parent) {
		plen = p->parent->len;
		phash = p->parent->hash;
	} else {
		slash = memrchr(path, '/', len);
		plen = slash == path ? 1 : (size_t)(slash - path);
		phash = tier_hash(path, plen);
	}
	pe = plan_lookup(plan, path, plen, phash);
	if (!pe || pe->path == p->parent)
		return cgpath_ref(p);
	slash = path + plen + (plen > 1);
	return cgpath_new_child(pe->path, slash, len - (size_t)(slash - path), p->hash);
}

/* A new unmanaged entry for p (path: its whole path) at the end of the plan. */
static int plan_append(struct tier_plan *plan, struct cgpath *p, const char *path,
		       struct tier_plan_entry **ret)
{
	struct tier_plan_entry *e;
	struct cgpath *ip;

	ip = plan_intern(plan, p, path, p->len);
	if (!ip)
		return -ENOMEM;
	e = plan_entry_new(ip);
	cgpath_unref(ip);
	if (!e)
		return -ENOMEM;
	if (hmap_add(&plan->table, &e->node, p->hash) < 0) {
		plan_entry_free(e);
		return -ENOMEM;
	}
	if (ARRAY_PUSH(plan->entries, plan->n, plan->alloc, e) < 0) {
		hmap_del(&plan->table, &e->node);
		plan_entry_free(e);
		return -ENOMEM;
	}
	*ret = e;
	return 0;
}

int tier_plan_intern_from(struct tier_plan *plan, const struct tier_plan *from)
{
	_cleanup_free_ char *path = NULL;
	size_t alloc = 0;

	if (!plan || !from)
		return -EINVAL;
	for (size_t i = 0; i < plan->n; i++) {
		struct tier_plan_entry *e = plan->entries[i];
		struct cgpath *ip;

		if ((size_t)e->path->len + 1 > alloc) {
			char *p = realloc(path, (size_t)e->path->len + 1);

			if (!p)
				return -ENOMEM;
			path = p;
			alloc = (size_t)e->path->len + 1;
		}
		cgpath_build(e->path, path);
		ip = plan_intern(from, e->path, path, e->path->len);
		if (!ip)
			return -ENOMEM;
		/* same whole path, same hash: the entry stays where it is */
		cgpath_unref(e->path);
		e->path = ip;
	}
	return 0;
}

_public_ int tier_plan_remove(struct tier_plan *plan, const char *path)
{
	struct tier_plan_entry *e;

	size_t len;

	if (!plan || !path)
		return -EINVAL;
	len = strlen(path);
	e = plan_lookup(plan, path, len, tier_hash(path, len));
	if (!e)
		return -ENOENT;
	hmap_del(&plan->table, &e->node);
	for (size_t i = 0; i < plan->n; i++)
		if (plan->entries[i] == e) {
			memmove(&plan->entries[i], &plan->entries[i + 1],
				(plan->n - i - 1) * sizeof(*plan->entries));
			plan->n--;
			break;
		}
	plan_entry_free(e);
	return 0;
}

/* Does matcher j of rule r match cgroup c?  Sets *ret_value to what matched. */
static bool matcher_matches(const struct policy_rule *r, size_t j,
			    const struct tier_observed_cgroup *c, const char *path, size_t path_len,
			    size_t unit_len, const char **ret_value)
{
	const struct tier_matcher *m = &r->matchers[j];
	const struct glob *g = &r->globs[j];

	switch (m->kind) {
	case TIER_MATCH_CGROUP:
		if (glob_match_len(g, path, path_len)) {
			*ret_value = path;
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
		for (const char *const *e = (const char *const *)c->exes; *e; e++)
			if (glob_match_compiled(g, *e)) {
				*ret_value = *e;
				return true;
			}
		return false;
	case TIER_MATCH_ANNOTATION: {
		size_t kl = strlen(m->key);

		if (!c->annotations)
			return false;
		for (const char *const *a = (const char *const *)c->annotations; *a; a++)
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
		   const char *path, size_t path_len, size_t unit_len, struct index_cand **cands,
		   size_t *n, size_t *alloc)
{
	int r;

	*n = 0;
	r = prefix_index_lookup(&policy->index[TIER_MATCH_CGROUP], path, path_len, cands, n,
				alloc);
	if (r >= 0 && c->unit)
		r = prefix_index_lookup(&policy->index[TIER_MATCH_UNIT], c->unit, unit_len, cands, n,
					alloc);
	for (const char *const *e = (const char *const *)c->exes; r >= 0 && e && *e; e++)
		r = prefix_index_lookup(&policy->index[TIER_MATCH_EXE], *e, strlen(*e), cands, n,
					alloc);
	for (const char *const *a = (const char *const *)c->annotations; r >= 0 && a && *a;
	     a++)
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
	e->set[TIER_ATTR_NUMA_BALANCING] = true;
	e->desired[TIER_ATTR_NUMA_BALANCING] = (uint64_t)cls->mode;
	e->set[TIER_ATTR_MEMORY_LOW] = cls->memory_low.kind != TIER_AMOUNT_UNSET;
	e->desired[TIER_ATTR_MEMORY_LOW] = tier_amount_resolve(&cls->memory_low, capacity, 0);
	e->set[TIER_ATTR_MEMORY_HIGH] = cls->memory_high.kind != TIER_AMOUNT_UNSET;
	e->desired[TIER_ATTR_MEMORY_HIGH] =
		tier_amount_resolve(&cls->memory_high, capacity, UINT64_MAX);
	e->weight = cls->weight;
	e->toptier_min = tier_amount_resolve(&cls->toptier_min, capacity, 0);
	e->toptier_max = tier_amount_resolve(&cls->toptier_max, capacity, UINT64_MAX);
}

/* Forget the decision and the desired values; copy the current ones from c. */
static void entry_reset(struct tier_plan_entry *e, const struct tier_observed_cgroup *c)
{
	free(e->matched_value);
	e->matched_value = NULL;
	e->rule = NULL;
	e->class = NULL;
	e->matcher = NULL;
	memset(e->set, 0, sizeof(e->set));
	memset(e->desired, 0, sizeof(e->desired));
	e->weight = 0;
	e->toptier_min = 0;
	e->toptier_max = UINT64_MAX;
	e->mode_supported = c->mode_supported;
	e->current_read = 0;
	e->current[TIER_ATTR_NUMA_BALANCING] = (uint64_t)c->mode;
	e->current[TIER_ATTR_MEMORY_LOW] = c->memory_low;
	e->current[TIER_ATTR_MEMORY_HIGH] = c->memory_high;
}

static int decide(struct tier_plan_entry *e, const struct policy_rule *r, size_t j,
		  const char *path, const char *value, uint64_t cap)
{
	const struct tier_class *cls = r->pub.class;

	/* a cgroup matcher matched the path, which the entry has already */
	if (value != path) {
		e->matched_value = strdup(value);
		if (!e->matched_value)
			return -ENOMEM;
	}
	e->rule = &r->pub;
	e->class = cls;
	e->matcher = &r->matchers[j];
	if (cls)
		class_desired(cls, cap, e);
	return 0;
}

void update_scratch_done(struct update_scratch *sc)
{
	free(sc->cands);
	free(sc->path);
}

/* Evaluate one observed cgroup into its entry (found by hash, or new). */
static int plan_update_one(struct tier_plan *plan, const struct tier_observed_cgroup *c,
			   struct update_scratch *sc)
{
	return plan_decide(plan, c, sc, NULL);
}

int plan_decide(struct tier_plan *plan, const struct tier_observed_cgroup *c,
		struct update_scratch *sc, struct tier_plan_entry **ret_entry)
{
	const struct tier_policy *policy = plan->policy;
	size_t path_len = c->path->len, unit_len;
	struct tier_plan_entry *e;
	const char *path;
	int r;

	if (path_len + 1 > sc->alloc_path) {
		char *p = realloc(sc->path, path_len + 1);

		if (!p)
			return -ENOMEM;
		sc->path = p;
		sc->alloc_path = path_len + 1;
	}
	cgpath_build(c->path, sc->path);
	path = sc->path;
	e = plan_lookup(plan, path, path_len, c->path->hash);
	if (!e) {
		r = plan_append(plan, c->path, path, &e);
		if (r < 0)
			return r;
	}
	entry_reset(e, c);
	if (ret_entry)
		*ret_entry = e;
	if (is_root(path))
		return 0;
	unit_len = c->unit ? strlen(c->unit) : 0;
	r = collect(policy, c, path, path_len, unit_len, &sc->cands, &sc->n_cands,
		    &sc->alloc_cands);
	if (r < 0)
		return r;
	for (size_t k = 0; k < sc->n_cands; k++) {
		const struct index_cand *cand = &sc->cands[k];
		const struct policy_rule *rule = policy->rules[cand->rule];
		const char *value = NULL;

		if (k > 0 && cand->rule == cand[-1].rule && cand->matcher == cand[-1].matcher)
			continue;
		if (!matcher_matches(rule, cand->matcher, c, path, path_len, unit_len, &value))
			continue;
		return decide(e, rule, cand->matcher, path, value, plan->fast_capacity);
	}
	return 0;
}

_public_ int tier_plan_update(struct tier_plan *plan, const struct tier_observed *observed)
{
	struct update_scratch sc = {};
	int r = 0;

	if (!plan || !observed)
		return -EINVAL;
	for (size_t i = 0; r >= 0 && i < observed->n; i++)
		r = plan_update_one(plan, observed->cgroups[i], &sc);
	update_scratch_done(&sc);
	return r < 0 ? r : 0;
}

_public_ int tier_evaluate(const struct tier_policy *policy, const struct tier_observed *observed,
			   struct tier_plan **ret_plan)
{
	struct tier_plan *plan = NULL;
	int r;

	if (!policy || !observed || !ret_plan)
		return -EINVAL;
	r = tier_plan_new(policy, observed->fast_capacity, &plan);
	if (r < 0)
		return r;
	r = tier_plan_update(plan, observed);
	if (r < 0) {
		tier_plan_free(plan);
		return r;
	}
	*ret_plan = plan;
	return 0;
}

_public_ size_t tier_plan_count(const struct tier_plan *plan)
{
	return plan ? plan->n : 0;
}

_public_ const struct tier_plan_entry *tier_plan_entry(const struct tier_plan *plan, size_t i)
{
	return plan && i < plan->n ? plan->entries[i] : NULL;
}

_public_ struct tier_plan_entry *tier_plan_find_mutable(struct tier_plan *plan, const char *path)
{
	size_t len;

	if (!plan || !path)
		return NULL;
	len = strlen(path);
	return plan_lookup(plan, path, len, tier_hash(path, len));
}

_public_ const struct tier_plan_entry *tier_plan_find(const struct tier_plan *plan,
						     const char *path)
{
	return tier_plan_find_mutable((struct tier_plan *)plan, path);
}

_public_ int tier_plan_entry_path(const struct tier_plan_entry *entry, char *buf, size_t size)
{
	return entry ? cgpath_format(entry->path, buf, size) : -EINVAL;
}

int tier_plan_entry_path_dup(const struct tier_plan_entry *entry, char **ret_path)
{
	return entry ? cgpath_dup(entry->path, ret_path) : -EINVAL;
}

const char *tier_plan_entry_name(const struct tier_plan_entry *entry)
{
	return entry ? entry->path->name : NULL;
}

uint64_t tier_plan_entry_path_hash(const struct tier_plan_entry *entry)
{
	return entry->path->hash;
}

bool tier_plan_entry_path_is(const struct tier_plan_entry *entry, const char *path, size_t len)
{
	return cgpath_equal(entry->path, path, len);
}

bool tier_plan_entry_path_below(const struct tier_plan_entry *entry, const char *top)
{
	return cgpath_below(entry->path, top, strlen(top));
}

_public_ const struct tier_rule *tier_plan_entry_rule(const struct tier_plan_entry *entry)
{
	return entry ? entry->rule : NULL;
}

_public_ const struct tier_class *tier_plan_entry_class(const struct tier_plan_entry *entry)
{
	return entry ? entry->class : NULL;
}

_public_ const struct tier_matcher *tier_plan_entry_matcher(const struct tier_plan_entry *entry)
{
	return entry ? entry->matcher : NULL;
}

_public_ const char *tier_plan_entry_matched_value(const struct tier_plan_entry *entry)
{
	if (!entry || !entry->rule)
		return NULL;
	return entry->matched_value;
}

_public_ int tier_plan_entry_get_desired(const struct tier_plan_entry *entry, enum tier_attr attr,
					 uint64_t *ret_value)
{
	if (!entry || !ret_value || !attr_valid(attr))
		return -EINVAL;
	if (!entry->set[attr])
		return -ENODATA;
	*ret_value = entry->desired[attr];
	return 0;
}

_public_ int tier_plan_entry_set_desired(struct tier_plan_entry *entry, enum tier_attr attr,
					 uint64_t value)
{
	if (!entry || !attr_valid(attr))
		return -EINVAL;
	if (attr == TIER_ATTR_NUMA_BALANCING && value >= _TIER_MODE_MAX)
		return -EINVAL;
	entry->set[attr] = true;
	entry->desired[attr] = value;
	return 0;
}

_public_ int tier_plan_entry_clear_desired(struct tier_plan_entry *entry, enum tier_attr attr)
{
	if (!entry || !attr_valid(attr))
		return -EINVAL;
	entry->set[attr] = false;
	entry->desired[attr] = 0;
	return 0;
}

_public_ int tier_plan_entry_get_current(const struct tier_plan_entry *entry, enum tier_attr attr,
					 uint64_t *ret_value)
{
	if (!entry || !ret_value || !attr_valid(attr))
		return -EINVAL;
	if (attr == TIER_ATTR_NUMA_BALANCING && !entry->mode_supported)
		return -EOPNOTSUPP;
	*ret_value = entry->current[attr];
	return 0;
}

bool tier_plan_entry_in_sync(const struct tier_plan_entry *entry)
{
	for (int a = 0; a < _TIER_ATTR_MAX; a++) {
		if (!entry->set[a])
			continue;
		if ((a == TIER_ATTR_NUMA_BALANCING && !entry->mode_supported) ||
		    entry->current[a] != entry->desired[a])
			return false;
	}
	return true;
}

_public_ unsigned tier_plan_entry_weight(const struct tier_plan_entry *entry)
{
	return entry ? entry->weight : 0;
}

_public_ uint64_t tier_plan_entry_toptier_min(const struct tier_plan_entry *entry)
{
	return entry ? entry->toptier_min : 0;
}

_public_ uint64_t tier_plan_entry_toptier_max(const struct tier_plan_entry *entry)
{
	return entry ? entry->toptier_max : UINT64_MAX;
}

_public_ int tier_plan_entry_dup(const struct tier_plan_entry *entry,
				 struct tier_plan_entry **ret_entry)
{
	struct tier_plan_entry *e;

	if (!entry || !ret_entry)
		return -EINVAL;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	*e = *entry;
	e->node.next = NULL;
	/* the copy shares the interned path: no path is copied */
	cgpath_ref(e->path);
	if (entry->matched_value) {
		e->matched_value = strdup(entry->matched_value);
		if (!e->matched_value) {
			plan_entry_free(e);
			return -ENOMEM;
		}
	}
	*ret_entry = e;
	return 0;
}

_public_ void tier_plan_entry_free(struct tier_plan_entry *entry)
{
	plan_entry_free(entry);
}
