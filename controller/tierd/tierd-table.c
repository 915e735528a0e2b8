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
	tier_plan_entry_free(x->owned);
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

int managed_table_put(struct managed_table *t, const struct tier_plan_entry *e, bool borrow,
		      struct managed **ret)
{
	const char *path = tier_plan_entry_path(e);
	struct managed *x = managed_table_get(t, path);
	struct tier_plan_entry *owned = NULL;
	bool changed;
	size_t k;

	changed = !x || tier_plan_entry_rule(x->entry) != tier_plan_entry_rule(e) ||
		  tier_plan_entry_class(x->entry) != tier_plan_entry_class(e);
	if (!borrow) {
		if (tier_plan_entry_dup(e, &owned) < 0)
			return -ENOMEM;
		e = owned;
	}
	if (x) {
		/* Replace in place: same bucket, same chain position. */
		tier_plan_entry_free(x->owned);
		x->entry = e;
		x->owned = owned;
		x->path = tier_plan_entry_path(e);
		*ret = x;
		return changed;
	}
	if ((t->n >= t->n_buckets && grow(t) < 0) || !(x = calloc(1, sizeof(*x)))) {
		tier_plan_entry_free(owned);
		return -ENOMEM;
	}
	x->entry = e;
	x->owned = owned;
	x->path = tier_plan_entry_path(e);
	k = cgroup_path_hash(x->path) % t->n_buckets;
	x->next = t->buckets[k];
	t->buckets[k] = x;
	t->n++;
	*ret = x;
	return 1;
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

static int watch_table_grow(struct watch_table *t)
{
	size_t nb = t->n_buckets ? t->n_buckets * 2 : 256;
	struct watch **by_wd = calloc(nb, sizeof(*by_wd));
	struct watch **by_path = calloc(nb, sizeof(*by_path));

	if (!by_wd || !by_path) {
		free(by_wd);
		free(by_path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct watch *x, *next;

		for (x = t->by_wd[i]; x; x = next) {
			size_t b = hash_wd(x->wd) % nb;

			next = x->next_wd;
			x->next_wd = by_wd[b];
			by_wd[b] = x;
		}
		for (x = t->by_path[i]; x; x = next) {
			size_t b = x->hash % nb;

			next = x->next_path;
			x->next_path = by_path[b];
			by_path[b] = x;
		}
	}
	free(t->by_wd);
	free(t->by_path);
	t->by_wd = by_wd;
	t->by_path = by_path;
	t->n_buckets = nb;
	return 0;
}

struct watch *watch_table_find_wd(const struct watch_table *t, int wd)
{
	if (!t->n_buckets)
		return NULL;
	for (struct watch *x = t->by_wd[hash_wd(wd) % t->n_buckets]; x; x = x->next_wd)
		if (x->wd == wd)
			return x;
	return NULL;
}

static struct watch *find_hashed(const struct watch_table *t, const char *path, size_t len,
				 size_t hash)
{
	if (!t->n_buckets)
		return NULL;
	for (struct watch *x = t->by_path[hash % t->n_buckets]; x; x = x->next_path)
		if (x->hash == hash && watch_is(x, path, len))
			return x;
	return NULL;
}

struct watch *watch_table_find(const struct watch_table *t, const char *path)
{
	return find_hashed(t, path, strlen(path), cgroup_path_hash(path));
}

static void unlink_path(struct watch_table *t, struct watch *x)
{
	struct watch **p = &t->by_path[x->hash % t->n_buckets];

	for (; *p; p = &(*p)->next_path)
		if (*p == x) {
			*p = x->next_path;
			return;
		}
}

static void link_path(struct watch_table *t, struct watch *x)
{
	size_t b = x->hash % t->n_buckets;

	x->next_path = t->by_path[b];
	t->by_path[b] = x;
}

static void unlink_wd(struct watch_table *t, struct watch *x)
{
	struct watch **p = &t->by_wd[hash_wd(x->wd) % t->n_buckets];

	for (; *p; p = &(*p)->next_wd)
		if (*p == x) {
			*p = x->next_wd;
			return;
		}
}

void watch_table_remove(struct watch_table *t, struct watch *x)
{
	unlink_wd(t, x);
	unlink_path(t, x);
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
	x->hash = hash;
	return 0;
}

int watch_table_insert(struct watch_table *t, int wd, const char *path, bool events)
{
	size_t hash = cgroup_path_hash(path), len = strlen(path);
	struct watch *x = watch_table_find_wd(t, wd);
	size_t b;
	int r;

	if (x) {
		if (x->hash == hash && watch_is(x, path, len))
			return 0;
		/* Same directory under a new name (renamed): update the path. */
		unlink_path(t, x);
		r = watch_set_name(t, x, path, hash);
		link_path(t, x);
		return r;
	}
	/* A stale entry for this path (directory replaced): drop it. */
	x = find_hashed(t, path, len, hash);
	if (x)
		watch_table_remove(t, x);
	if (t->n >= t->n_buckets && watch_table_grow(t) < 0)
		return -ENOMEM;
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
	b = hash_wd(wd) % t->n_buckets;
	x->next_wd = t->by_wd[b];
	t->by_wd[b] = x;
	link_path(t, x);
	t->n++;
	if (events)
		t->n_events++;
	return 0;
}

void watch_table_clear(struct watch_table *t)
{
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct watch *x, *next;

		for (x = t->by_wd[i]; x; x = next) {
			next = x->next_wd;
			watch_unref(t, x);
		}
	}
	free(t->by_wd);
	free(t->by_path);
	*t = (struct watch_table){ 0 };
}
