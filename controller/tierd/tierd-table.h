/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd's table of managed cgroups (tierd-table.c): path -> the decision
 * (rule, class, desired values) and what was applied.  The full pass at
 * startup and reload fills it; after that it changes per event (a cgroup
 * created, removed, filled, an exec), so nothing but startup and reload
 * needs to observe the whole tree.  The fair-share rebalance and the
 * verification of the periodic reconcile work from it.
 */
#ifndef TIERD_TABLE_H
#define TIERD_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include <tier.h>

#include "tier-internal.h"

struct managed {
	/* The plan entry that decided: rule, class and matcher point into the
	 * policy in force (the table is rebuilt on reload).  Either borrowed
	 * from the plan of the last full pass, which the manager keeps for as
	 * long as the table refers to it (owned NULL), or a
	 * tier_plan_entry_dup() copy of an entry decided since (owned): a
	 * full pass stores each path once, not once more per table entry. */
	const struct tier_plan_entry *entry;
	struct tier_plan_entry *owned;
	/* by path: tier_plan_entry_path_hash(entry), the entry's interned path
	 * (its parent and name), which the table never copies */
	struct hmap_node node;
};

struct managed_table {
	struct hmap map;
	size_t n;
};

/* Each entry x (a struct managed *, declared by the caller) of table t. */
#define MANAGED_FOREACH(x, t)                                                          \
	for (size_t _mb = 0; _mb < (t)->map.size; _mb++)                               \
		for (struct hmap_node *_mn = (t)->map.buckets[_mb];                   \
		     _mn && ((x) = hmap_entry(_mn, struct managed, node), 1); _mn = _mn->next)

/*
 * Insert or replace the entry of e's path: with borrow, e
 * itself, which must outlive the table's reference to it (the plan of the
 * last full pass); otherwise a copy of e.  1 if the class or rule changed
 * (or it is new), 0 if not, -ENOMEM.
 */
int managed_table_put(struct managed_table *t, const struct tier_plan_entry *e, bool borrow,
		      struct managed **ret);
struct managed *managed_table_get(const struct managed_table *t, const char *path);
/* Remove path (and, with subtree, everything below it); the number removed. */
size_t managed_table_remove(struct managed_table *t, const char *path, bool subtree);
void managed_table_clear(struct managed_table *t);

/*
 * The cgroup watcher's table (tierd-cgwatch.c): its inotify watches by
 * watch descriptor and by path.  A watch is named the way the tree is: by
 * its parent directory's watch and its own name, so a watched tree of long
 * paths holds each name once (a watch used to hold its whole path: 2,252
 * cgroups of 64 KB paths, each watched with its cgroup.events, cost tierd
 * 280 MB).  A watch whose parent directory has no watch (a child of the
 * root, the cgroup.events watch of an unwatched directory, a subtree out of
 * the policy's reach) holds its whole path.  A parent lives on while a child
 * names through it, even after its own watch is gone.  The cgroup.events
 * watch of a cgroup is its child "cgroup.events" (no cgroup can have that
 * name: the file is there).
 */
struct watch {
	int wd;
	unsigned refs;			/* the table, and each child naming through it */
	bool events;			/* a cgroup.events watch */
	struct watch *parent;		/* NULL: name is the whole path */
	size_t name_len;
	char *name;
	struct hmap_node node_wd;	/* by watch descriptor */
	struct hmap_node node_path;	/* by whole path (its hash: cgroup_path_hash()) */
};

/* Each watch x (a struct watch *, declared by the caller) of table t; x may be
 * removed with watch_table_remove() on the way (x only). */
#define WATCH_FOREACH_SAFE(x, t)                                                       \
	for (size_t _wb = 0; _wb < (t)->by_wd.size; _wb++)                             \
		for (struct hmap_node *_wn = (t)->by_wd.buckets[_wb], *_wnext;        \
		     _wn && (_wnext = _wn->next, (x) = hmap_entry(_wn, struct watch, node_wd), 1); \
		     _wn = _wnext)

struct watch_table {
	struct hmap by_wd;
	struct hmap by_path;
	size_t n;			/* watches */
	size_t n_events;		/* of n, cgroup.events watches */
	size_t name_bytes;		/* the bytes of the names held */
};

/* Add the watch wd of path (a directory, or with events "<cgroup>/cgroup.events");
 * a watch wd already there takes the new path (renamed).  0, -ENOMEM. */
int watch_table_insert(struct watch_table *t, int wd, const char *path, bool events);
struct watch *watch_table_find_wd(const struct watch_table *t, int wd);
struct watch *watch_table_find(const struct watch_table *t, const char *path);
void watch_table_remove(struct watch_table *t, struct watch *x);
void watch_table_clear(struct watch_table *t);
/* x's whole path, malloc'd; NULL on ENOMEM. */
char *watch_path(const struct watch *x);

/* The hash of a cgroup path for tierd's tables (this one, the watcher's,
 * the unit cache): libtier's keyed SipHash (tier_hash()), so that names
 * chosen by whoever may create cgroups cannot be made to collide. */
static inline size_t cgroup_path_hash(const char *s)
{
	return (size_t)tier_hash_string(s);
}

#endif
