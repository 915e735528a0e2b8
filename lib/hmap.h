/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one hash table of libtier and tierd (issue 24: seven hand-rolled ones
 * became this).  Intrusive and chained: an element embeds a struct
 * hmap_node and keeps its 64-bit hash there (tier_hash(), keyed SipHash, so
 * chosen names cannot be made to collide), so growing never hashes a key
 * again and a lookup compares keys only on a full hash match.  The table
 * owns nothing but its buckets: elements are the caller's, the key
 * comparison is the caller's (a callback), and an element may be removed
 * while the caller walks the table with HMAP_FOREACH_SAFE().  It keeps at
 * most one element per bucket on average (doubling, power-of-two sizes).
 * Not exported by libtier.so (no ABI): the project's programs get it from
 * the internal archive through tier-internal.h.
 */
#ifndef LIBTIER_HMAP_H
#define LIBTIER_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_node {
	struct hmap_node *next;
	uint64_t hash;
};

struct hmap {
	struct hmap_node **buckets;
	size_t size;			/* power of two, or 0 (nothing allocated) */
	size_t n;
};

/* Does node hold key?  Called only for nodes whose hash equals key's. */
typedef bool (*hmap_eq_fn)(const struct hmap_node *node, const void *key);

/* Add node with hash (no check for a duplicate key): 0, -ENOMEM (not added). */
int hmap_add(struct hmap *h, struct hmap_node *node, uint64_t hash);
/* The first node with hash for which eq(node, key) holds, or NULL. */
struct hmap_node *hmap_find(const struct hmap *h, uint64_t hash, hmap_eq_fn eq, const void *key);
/* Take node (in the table) out of it. */
void hmap_del(struct hmap *h, struct hmap_node *node);
/* Free the buckets (not the elements): an empty table. */
void hmap_done(struct hmap *h);

static inline size_t hmap_count(const struct hmap *h)
{
	return h->n;
}

/* Every node, in no particular order; the _SAFE variant allows
 * hmap_del() of the current node (only that one). */
#define HMAP_FOREACH(node, h)                                                   \
	for (size_t _hb_##node = 0; _hb_##node < (h)->size; _hb_##node++)       \
		for (node = (h)->buckets[_hb_##node]; node; node = node->next)
#define HMAP_FOREACH_SAFE(node, tmp, h)                                         \
	for (size_t _hb_##node = 0; _hb_##node < (h)->size; _hb_##node++)       \
		for (node = (h)->buckets[_hb_##node]; node && (tmp = node->next, 1); \
		     node = tmp)

#define hmap_entry(node, type, member) \
	((type *)(void *)((char *)(node) - offsetof(type, member)))

#endif /* LIBTIER_HMAP_H */
