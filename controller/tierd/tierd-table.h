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
	/* A tier_plan_entry_dup() copy of the plan entry that decided (it
	 * owns its path and matched value); rule, class and matcher point into
	 * the policy in force (the table is rebuilt on reload). */
	struct tier_plan_entry *entry;
	const char *path;		/* tier_plan_entry_path(entry) */
	char *unit;			/* what tier_cgroup_path_unit() says, or NULL */
	bool applied[_TIER_ATTR_MAX];	/* the value was found or written as desired */
	struct managed *next;		/* hash chain */
};

struct managed_table {
	struct managed **buckets;
	size_t n_buckets;
	size_t n;
};

/* Insert or replace path's entry with a copy of e (e->path is its path).
 * 1 if the class or rule changed (or it is new), 0 if not, -ENOMEM. */
int managed_table_put(struct managed_table *t, const struct tier_plan_entry *e,
		      struct managed **ret);
struct managed *managed_table_get(const struct managed_table *t, const char *path);
/* Remove path (and, with subtree, everything below it); the number removed. */
size_t managed_table_remove(struct managed_table *t, const char *path, bool subtree);
void managed_table_clear(struct managed_table *t);

/* The hash of a cgroup path for tierd's tables (this one, the watcher's,
 * the unit cache): libtier's keyed SipHash (tier_hash()), so that names
 * chosen by whoever may create cgroups cannot be made to collide. */
static inline size_t cgroup_path_hash(const char *s)
{
	return (size_t)tier_hash_string(s);
}

#endif
