// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Prefix index of rule matchers, so evaluation does not try every rule on
 * every cgroup.  A matcher can only match a string that starts with the
 * literal prefix of its pattern (for annotations: "KEY=" + the value's
 * prefix).  For each matcher kind, matchers are bucketed by that prefix in
 * a hash table (keyed SipHash, tier_hash()); a lookup walks the prefixes of
 * the string (only the lengths that occur) and collects the (rule, matcher)
 * candidates, which the caller then tries in policy order.  Matchers with an empty prefix ("*.service")
 * are candidates for everything.
 *
 * Building is O(total matchers): the hash table doubles when half full (and
 * holds bucket indexes, so adding a bucket never rehashes), the prefixes live
 * in one growing text block and the candidates in one array per kind, filled
 * in a second pass by bucket (counting sort), so there is no allocation per
 * bucket or per matcher.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

void prefix_index_free(struct prefix_index *idx)
{
	free(idx->buckets);
	free(idx->table);
	free(idx->len_present);
	free(idx->text);
	free(idx->cands);
	memset(idx, 0, sizeof(*idx));
}

static struct index_bucket *find_bucket(const struct prefix_index *idx, const char *s, size_t len,
					uint64_t h)
{
	if (!idx->table_size)
		return NULL;
	for (size_t i = h & (idx->table_size - 1);; i = (i + 1) & (idx->table_size - 1)) {
		const struct hash_slot *slot = &idx->table[i];
		struct index_bucket *bk;

		if (slot->idx == 0)
			return NULL;
		if (slot->hash != (uint32_t)h)
			continue;
		bk = &idx->buckets[slot->idx - 1];
		if (bk->hash == h && bk->len == len && memcmp(idx->text + bk->off, s, len) == 0)
			return bk;
	}
}

static void table_insert(struct hash_slot *table, size_t size, uint64_t hash, size_t b)
{
	size_t i = hash & (size - 1);

	while (table[i].idx)
		i = (i + 1) & (size - 1);
	table[i] = (struct hash_slot){ (uint32_t)hash, (uint32_t)(b + 1) };
}

/* A table twice the size; only called when it is half full (amortised O(1)). */
static int grow_table(struct prefix_index *idx)
{
	size_t size = idx->table_size ? idx->table_size * 2 : 16;
	struct hash_slot *table = calloc(size, sizeof(*table));

	if (!table)
		return -ENOMEM;
	for (size_t b = 0; b < idx->n_buckets; b++)
		table_insert(table, size, idx->buckets[b].hash, b);
	free(idx->table);
	idx->table = table;
	idx->table_size = size;
	return 0;
}

/* Grow *buf (of *alloc bytes) geometrically to hold at least need bytes. */
static int reserve(void *buf, size_t *alloc, size_t need)
{
	void *nb;
	size_t na;

	if (need <= *alloc)
		return 0;
	na = *alloc * 2 > need ? *alloc * 2 : need;
	if (na < 64)
		na = 64;
	nb = realloc(*(void **)buf, na);
	if (!nb)
		return -ENOMEM;
	*(void **)buf = nb;
	*alloc = na;
	return 0;
}

/* The bucket of prefix, created if new: its index, or -ENOMEM. */
static int bucket_get(struct prefix_index *idx, const char *prefix, size_t len, size_t *ret)
{
	uint64_t h = tier_hash(prefix, len);
	struct index_bucket *bk = find_bucket(idx, prefix, len, h);
	struct index_bucket nb = { .len = len, .hash = h };
	int r;

	if (bk) {
		*ret = (size_t)(bk - idx->buckets);
		return 0;
	}
	if (idx->n_buckets >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((idx->n_buckets + 1) * 2 > idx->table_size) {
		r = grow_table(idx);
		if (r < 0)
			return r;
	}
	/* lookups stop at max_len: it is exactly the longest prefix + 1 */
	if (len + 1 > idx->max_len) {
		r = reserve(&idx->len_present, &idx->alloc_len, len + 1);
		if (r < 0)
			return r;
		memset(idx->len_present + idx->max_len, 0, len + 1 - idx->max_len);
		idx->max_len = len + 1;
	}
	r = reserve(&idx->text, &idx->text_alloc, idx->text_len + len + 1); /* never NULL */
	if (r < 0)
		return r;
	nb.off = idx->text_len;
	memcpy(idx->text + idx->text_len, prefix, len);
	idx->text_len += len;
	if (ARRAY_PUSH(idx->buckets, idx->n_buckets, idx->alloc_buckets, nb) < 0)
		return -ENOMEM;
	table_insert(idx->table, idx->table_size, h, idx->n_buckets - 1);
	idx->len_present[len] = 1;
	*ret = idx->n_buckets - 1;
	return 0;
}

int policy_build_index(struct tier_policy *p)
{
	_cleanup_free_ size_t *bucket_of = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t n_matchers = 0, m = 0, buf_alloc = 0;

	for (int k = 0; k < _TIER_MATCH_MAX; k++)
		prefix_index_free(&p->index[k]);
	for (size_t i = 0; i < p->n_rules; i++)
		n_matchers += p->rules[i]->pub.n_matchers;
	if (n_matchers == 0)
		return 0;
	bucket_of = malloc(n_matchers * sizeof(*bucket_of));
	if (!bucket_of)
		return -ENOMEM;

	/* pass 1: the buckets, and how many candidates each gets */
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = p->rules[i];

		for (size_t j = 0; j < r->pub.n_matchers; j++) {
			const struct tier_matcher *mt = &r->matchers[j];
			const struct glob *g = &r->globs[j];
			struct prefix_index *idx = &p->index[mt->kind];
			const char *s = g->prefix;
			size_t len = g->prefix_len;
			int ret;

			if (mt->kind == TIER_MATCH_ANNOTATION) {
				size_t kl = strlen(mt->key);

				len = kl + 1 + g->prefix_len;
				if (reserve(&buf, &buf_alloc, len) < 0)
					return -ENOMEM;
				memcpy(buf, mt->key, kl);
				buf[kl] = '=';
				memcpy(buf + kl + 1, g->prefix, g->prefix_len);
				s = buf;
			}
			ret = bucket_get(idx, s, len, &bucket_of[m]);
			if (ret < 0)
				return ret;
			idx->buckets[bucket_of[m++]].n++;
		}
	}
	/* each bucket's slice of its kind's candidate array */
	for (int k = 0; k < _TIER_MATCH_MAX; k++) {
		struct prefix_index *idx = &p->index[k];
		size_t start = 0;

		for (size_t b = 0; b < idx->n_buckets; b++) {
			idx->buckets[b].start = start;
			start += idx->buckets[b].n;
			idx->buckets[b].n = 0;
		}
		if (!start)
			continue;
		idx->cands = malloc(start * sizeof(*idx->cands));
		if (!idx->cands)
			return -ENOMEM;
		idx->n_cands = start;
	}
	/* pass 2: the candidates, in policy order within each bucket */
	m = 0;
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = p->rules[i];

		for (size_t j = 0; j < r->pub.n_matchers; j++) {
			struct prefix_index *idx = &p->index[r->matchers[j].kind];
			struct index_bucket *bk = &idx->buckets[bucket_of[m++]];

			idx->cands[bk->start + bk->n++] = (struct index_cand){ (uint32_t)i,
									       (uint32_t)j };
		}
	}
	return 0;
}

int prefix_index_lookup(const struct prefix_index *idx, const char *s, size_t len,
			struct index_cand **cands, size_t *n, size_t *alloc)
{
	struct siphash st;

	/* The hash of each prefix s[0..l) in one pass: the state takes one byte
	 * more per length, and finalizing a copy of it costs the same for any l
	 * (one block and four rounds), so the lookup is O(len + the lengths
	 * present), as with an incremental hash, and each value equals
	 * tier_hash(s, l), what bucket_get() stored. */
	tier_hash_init(&st);
	for (size_t l = 0; l <= len && l < idx->max_len; l++) {
		if (l > 0)
			siphash24_compress(&s[l - 1], 1, &st);
		if (idx->len_present[l]) {
			uint64_t h = siphash24_finalize(&st);
			const struct index_bucket *bk = find_bucket(idx, s, l, h);

			if (!bk)
				continue;
			for (size_t i = 0; i < bk->n; i++)
				if (ARRAY_PUSH(*cands, *n, *alloc, idx->cands[bk->start + i]) < 0)
					return -ENOMEM;
		}
	}
	return 0;
}
