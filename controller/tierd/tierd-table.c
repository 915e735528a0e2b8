// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of managed cgroups: a chained hash table by path.  A lookup,
 * an insert and the removal of one cgroup are O(1); only the removal of a
 * subtree (a directory moved away, which cgroupfs does not allow outside
 * its parent) and clearing it walk the table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tierd-table.h"

static void managed_free(struct managed *x)
{
	tier_plan_entry_free(x->entry);
	free(x->unit);
	free(x);
}

static int grow(struct managed_table *t)
{
	size_t nb = t->n_buckets ? t->n_buckets * 2 : 256;
	struct managed **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct managed *x, *next;

		for (x = t->buckets[i]; x; x = next) {
			size_t k = cgroup_path_hash(x->path) % nb;

			next = x->next;
			x->next = b[k];
			b[k] = x;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->n_buckets = nb;
	return 0;
}

struct managed *managed_table_get(const struct managed_table *t, const char *path)
{
	if (!t->n_buckets)
		return NULL;
	for (struct managed *x = t->buckets[cgroup_path_hash(path) % t->n_buckets]; x; x = x->next)
		if (strcmp(x->path, path) == 0)
			return x;
	return NULL;
}

int managed_table_put(struct managed_table *t, const struct tier_plan_entry *e,
		      struct managed **ret)
{
	const char *path = tier_plan_entry_path(e);
	struct managed *x = managed_table_get(t, path), *n;
	bool changed;
	size_t k;

	changed = !x || tier_plan_entry_rule(x->entry) != tier_plan_entry_rule(e) ||
		  tier_plan_entry_class(x->entry) != tier_plan_entry_class(e);
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	if (tier_plan_entry_dup(e, &n->entry) < 0)
		goto oom;
	n->path = tier_plan_entry_path(n->entry);
	if (tier_cgroup_path_unit(n->path, &n->unit) == -ENOMEM)
		goto oom;
	if (x) {
		/* Replace in place: same bucket, same chain position. */
		memset(x->applied, 0, sizeof(x->applied));
		tier_plan_entry_free(x->entry);
		free(x->unit);
		x->entry = n->entry;
		x->path = n->path;
		x->unit = n->unit;
		free(n);
		*ret = x;
		return changed;
	}
	if (t->n >= t->n_buckets && grow(t) < 0)
		goto oom;
	k = cgroup_path_hash(n->path) % t->n_buckets;
	n->next = t->buckets[k];
	t->buckets[k] = n;
	t->n++;
	*ret = n;
	return 1;
oom:
	managed_free(n);
	return -ENOMEM;
}

static bool is_below(const char *path, const char *top)
{
	size_t l = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(path, top, l) == 0 && (path[l] == '\0' || path[l] == '/');
}

size_t managed_table_remove(struct managed_table *t, const char *path, bool subtree)
{
	size_t removed = 0;

	if (!t->n_buckets)
		return 0;
	if (!subtree) {
		struct managed **p = &t->buckets[cgroup_path_hash(path) % t->n_buckets];

		for (; *p; p = &(*p)->next)
			if (strcmp((*p)->path, path) == 0) {
				struct managed *x = *p;

				*p = x->next;
				managed_free(x);
				t->n--;
				return 1;
			}
		return 0;
	}
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct managed **p = &t->buckets[i];

		while (*p) {
			struct managed *x = *p;

			if (is_below(x->path, path)) {
				*p = x->next;
				managed_free(x);
				t->n--;
				removed++;
			} else {
				p = &x->next;
			}
		}
	}
	return removed;
}

void managed_table_clear(struct managed_table *t)
{
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct managed *x, *next;

		for (x = t->buckets[i]; x; x = next) {
			next = x->next;
			managed_free(x);
		}
	}
	free(t->buckets);
	t->buckets = NULL;
	t->n_buckets = t->n = 0;
}
