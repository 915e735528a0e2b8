// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one hash table (lib/hmap.h). */
#include <errno.h>
#include <stdlib.h>

#include "hmap.h"

static struct hmap_node **bucket(const struct hmap *h, uint64_t hash)
{
	return &h->buckets[hash & (h->size - 1)];
}

static int grow(struct hmap *h)
{
	struct hmap_node **old = h->buckets;
	size_t old_size = h->size, size = old_size ? old_size * 2 : 64;

	if (h->n < old_size)
		return 0;
	h->buckets = calloc(size, sizeof(*h->buckets));
	if (!h->buckets) {
		h->buckets = old;
		return -ENOMEM;
	}
	h->size = size;
	for (size_t i = 0; i < old_size; i++)
		for (struct hmap_node *x = old[i], *next; x; x = next) {
			struct hmap_node **b = bucket(h, x->hash);

			next = x->next;
			x->next = *b;
			*b = x;
		}
	free(old);
	return 0;
}

int hmap_add(struct hmap *h, struct hmap_node *node, uint64_t hash)
{
	struct hmap_node **b;

	if (grow(h) < 0)
		return -ENOMEM;
	node->hash = hash;
	b = bucket(h, hash);
	node->next = *b;
	*b = node;
	h->n++;
	return 0;
}

struct hmap_node *hmap_find(const struct hmap *h, uint64_t hash, hmap_eq_fn eq, const void *key)
{
	if (!h->size)
		return NULL;
	for (struct hmap_node *x = *bucket(h, hash); x; x = x->next)
		if (x->hash == hash && eq(x, key))
			return x;
	return NULL;
}

void hmap_del(struct hmap *h, struct hmap_node *node)
{
	for (struct hmap_node **p = bucket(h, node->hash); *p; p = &(*p)->next)
		if (*p == node) {
			*p = node->next;
			node->next = NULL;
			h->n--;
			return;
		}
}

void hmap_done(struct hmap *h)
{
	free(h->buckets);
	h->buckets = NULL;
	h->size = h->n = 0;
}
