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

#include "macro.h"
#include "tierd-table.h"

static void managed_free(struct managed *x)
{
	tier_plan_entry_free(x->owned);
	free(x);
}

/* A whole path of len bytes, looked up in either table. */
struct path_key {
	const char *path;
	size_t len;
};

static bool managed_has_path(const struct hmap_node *node, const void *key)
{
	const struct path_key *k = key;

	return tier_plan_entry_path_is(hmap_entry(node, struct managed, node)->entry, k->path,
				       k->len);
}

static struct managed *managed_get(const struct managed_table *t, const char *path, size_t len,
				   uint64_t hash)
{
	struct path_key k = { path, len };
	struct hmap_node *x = hmap_find(&t->map, hash, managed_has_path, &k);

	return x ? hmap_entry(x, struct managed, node) : NULL;
}

struct managed *managed_table_get(const struct managed_table *t, const char *path)
{
	size_t len = strlen(path);

	return managed_get(t, path, len, tier_hash(path, len));
}

int managed_table_put(struct managed_table *t, const struct tier_plan_entry *e, bool borrow,
		      struct managed **ret)
{
	_cleanup_free_ char *path = NULL;
	struct tier_plan_entry *owned = NULL;
	struct managed *x;
	bool changed;

	/* the entry names its path by parent and name: built for the lookup */
	if (tier_plan_entry_path_dup(e, &path) < 0)
		return -ENOMEM;
	x = managed_get(t, path, strlen(path), tier_plan_entry_path_hash(e));

	changed = !x || tier_plan_entry_rule(x->entry) != tier_plan_entry_rule(e) ||
		  tier_plan_entry_class(x->entry) != tier_plan_entry_class(e);
	if (!borrow) {
		if (tier_plan_entry_dup(e, &owned) < 0)
			return -ENOMEM;
		e = owned;
	}
	if (x) {
		/* Replace in place: same path, same hash, same chain position. */
		tier_plan_entry_free(x->owned);
		x->entry = e;
		x->owned = owned;
		*ret = x;
		return changed;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		tier_plan_entry_free(owned);
		return -ENOMEM;
	}
	x->entry = e;
	x->owned = owned;
	if (hmap_add(&t->map, &x->node, tier_plan_entry_path_hash(e)) < 0) {
		managed_free(x);
		return -ENOMEM;
	}
	t->n++;
	*ret = x;
	return 1;
}

size_t managed_table_remove(struct managed_table *t, const char *path, bool subtree)
{
	struct managed *x;
	size_t removed = 0;

	if (!subtree) {
		x = managed_table_get(t, path);
		if (!x)
			return 0;
		hmap_del(&t->map, &x->node);
		managed_free(x);
		t->n--;
		return 1;
	}
	for (size_t i = 0; i < t->map.size; i++)
		for (struct hmap_node *n = t->map.buckets[i], *next; n; n = next) {
			next = n->next;
			x = hmap_entry(n, struct managed, node);
			if (!tier_plan_entry_path_below(x->entry, path))
				continue;
			hmap_del(&t->map, n);
			managed_free(x);
			t->n--;
			removed++;
		}
	return removed;
}

void managed_table_clear(struct managed_table *t)
{
	for (size_t i = 0; i < t->map.size; i++)
		for (struct hmap_node *n = t->map.buckets[i], *next; n; n = next) {
			next = n->next;
			managed_free(hmap_entry(n, struct managed, node));
		}
	hmap_done(&t->map);
	t->n = 0;
}

/* ------------------------------------------------------------------------
 * The cgroup watcher's table: watch descriptor -> watch, path -> watch
 * ------------------------------------------------------------------------ */

static size_t hash_wd(int wd)
{
	return (size_t)wd * 2654435761u;
}

char *watch_path(const struct watch *x)
{
	size_t len = 0;
	char *p;

	for (const struct watch *y = x; y; y = y->parent)
		len += y->name_len + (y != x);
	p = malloc(len + 1);
	if (!p)
		return NULL;
	p[len] = '\0';
	for (const struct watch *y = x; y; y = y->parent) {
		if (y != x)
			p[--len] = '/';
		len -= y->name_len;
		memcpy(p + len, y->name, y->name_len);
	}
	return p;
}

/* Is x's whole path the first len bytes of path?  From the end, name by name. */
static bool watch_is(const struct watch *x, const char *path, size_t len)
{
	for (; x->parent; x = x->parent) {
		if (x->name_len + 1 > len || path[len - x->name_len - 1] != '/' ||
		    memcmp(path + len - x->name_len, x->name, x->name_len) != 0)
			return false;
		len -= x->name_len + 1;
	}
	return x->name_len == len && memcmp(x->name, path, len) == 0;
}

static void watch_unref(struct watch_table *t, struct watch *x)
{
	while (x && --x->refs == 0) {
		struct watch *parent = x->parent;

		t->name_bytes -= x->name_len;
		free(x->name);
		free(x);
		x = parent;
	}
}

static bool watch_has_wd(const struct hmap_node *node, const void *wd)
{
	return hmap_entry(node, struct watch, node_wd)->wd == *(const int *)wd;
}

struct watch *watch_table_find_wd(const struct watch_table *t, int wd)
{
	struct hmap_node *x = hmap_find(&t->by_wd, hash_wd(wd), watch_has_wd, &wd);

	return x ? hmap_entry(x, struct watch, node_wd) : NULL;
}

static bool watch_has_path(const struct hmap_node *node, const void *key)
{
	const struct path_key *k = key;

	return watch_is(hmap_entry(node, struct watch, node_path), k->path, k->len);
}

static struct watch *find_hashed(const struct watch_table *t, const char *path, size_t len,
				 size_t hash)
{
	struct path_key k = { path, len };
	struct hmap_node *x = hmap_find(&t->by_path, hash, watch_has_path, &k);

	return x ? hmap_entry(x, struct watch, node_path) : NULL;
}

struct watch *watch_table_find(const struct watch_table *t, const char *path)
{
	return find_hashed(t, path, strlen(path), cgroup_path_hash(path));
}

void watch_table_remove(struct watch_table *t, struct watch *x)
{
	hmap_del(&t->by_wd, &x->node_wd);
	hmap_del(&t->by_path, &x->node_path);
	t->n--;
	if (x->events)
		t->n_events--;
	watch_unref(t, x);
}

/*
 * Name x path (hashed: hash): after its parent directory's watch if there is
 * one (not the root: "/a" is short anyway), else by the whole path.  0 or
 * -ENOMEM (x unchanged).
 */
static int watch_set_name(struct watch_table *t, struct watch *x, const char *path, size_t hash)
{
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	struct watch *parent = NULL;
	char *name;

	if (slash && slash != path) {
		parent = find_hashed(t, path, (size_t)(slash - path),
				     (size_t)tier_hash(path, (size_t)(slash - path)));
		if (parent == x)
			parent = NULL;
	}
	name = strdup(parent ? slash + 1 : path);
	if (!name)
		return -ENOMEM;
	if (parent)
		parent->refs++;
	if (x->parent)
		watch_unref(t, x->parent);
	t->name_bytes -= x->name_len;
	free(x->name);
	x->parent = parent;
	x->name = name;
	x->name_len = parent ? len - (size_t)(slash + 1 - path) : len;
	t->name_bytes += x->name_len;
	x->node_path.hash = hash;
	return 0;
}

int watch_table_insert(struct watch_table *t, int wd, const char *path, bool events)
{
	size_t hash = cgroup_path_hash(path), len = strlen(path);
	struct watch *x = watch_table_find_wd(t, wd);
	int r;

	if (x) {
		if (x->node_path.hash == hash && watch_is(x, path, len))
			return 0;
		/* Same directory under a new name (renamed): update the path.
		 * Re-adding cannot fail: the table held it a moment ago and
		 * grows only when it holds more. */
		hmap_del(&t->by_path, &x->node_path);
		r = watch_set_name(t, x, path, hash);
		(void)hmap_add(&t->by_path, &x->node_path, x->node_path.hash);
		return r;
	}
	/* A stale entry for this path (directory replaced): drop it. */
	x = find_hashed(t, path, len, hash);
	if (x)
		watch_table_remove(t, x);
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	if (watch_set_name(t, x, path, hash) < 0) {
		free(x);
		return -ENOMEM;
	}
	x->refs = 1;
	x->wd = wd;
	x->events = events;
	if (hmap_add(&t->by_wd, &x->node_wd, hash_wd(wd)) < 0) {
		watch_unref(t, x);
		return -ENOMEM;
	}
	if (hmap_add(&t->by_path, &x->node_path, hash) < 0) {
		hmap_del(&t->by_wd, &x->node_wd);
		watch_unref(t, x);
		return -ENOMEM;
	}
	t->n++;
	if (events)
		t->n_events++;
	return 0;
}

void watch_table_clear(struct watch_table *t)
{
	struct watch *x;

	WATCH_FOREACH_SAFE(x, t)
		watch_unref(t, x);
	hmap_done(&t->by_wd);
	hmap_done(&t->by_path);
	*t = (struct watch_table){ 0 };
}
