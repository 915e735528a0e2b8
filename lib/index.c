// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Prefix index of rule matchers, so evaluation does not try every rule on
 * every cgroup.  A matcher can only match a string that starts with the
 * literal prefix of its pattern (for annotations: "KEY=" + the value's
 * prefix).  For each matcher kind, matchers are bucketed by that prefix in
 * a hash table; a lookup walks the prefixes of the string (only the lengths
 * that occur) and collects the (rule, matcher) candidates, which the caller
 * then tries in policy order.  Matchers with an empty prefix ("*.service")
 * are candidates for everything.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

static uint64_t fnv(const char *s, size_t len)
{
	uint64_t h = FNV_OFFSET;

	for (size_t i = 0; i < len; i++)
		h = fnv_step(h, (unsigned char)s[i]);
	return h;
}

void prefix_index_free(struct prefix_index *idx)
{
	for (size_t i = 0; i < idx->n_buckets; i++) {
		free(idx->buckets[i].prefix);
		free(idx->buckets[i].cands);
	}
	free(idx->buckets);
	free(idx->table);
	free(idx->len_present);
	memset(idx, 0, sizeof(*idx));
}

static struct index_bucket *find_bucket(const struct prefix_index *idx, const char *s, size_t len,
					uint64_t h)
{
	if (!idx->table_size)
		return NULL;
	for (size_t i = h & (idx->table_size - 1);; i = (i + 1) & (idx->table_size - 1)) {
		size_t b = idx->table[i];
		struct index_bucket *bk;

		if (b == 0)
			return NULL;
		bk = &idx->buckets[b - 1];
		if (bk->hash == h && bk->len == len && memcmp(bk->prefix, s, len) == 0)
			return bk;
	}
}

static int rehash(struct prefix_index *idx, size_t size)
{
	size_t *table = calloc(size, sizeof(size_t));

	if (!table)
		return -ENOMEM;
	for (size_t b = 0; b < idx->n_buckets; b++) {
		size_t i = idx->buckets[b].hash & (size - 1);

		while (table[i])
			i = (i + 1) & (size - 1);
		table[i] = b + 1;
	}
	free(idx->table);
	idx->table = table;
	idx->table_size = size;
	return 0;
}

static int index_add(struct prefix_index *idx, const char *prefix, size_t len, uint32_t rule,
		     uint32_t matcher)
{
	uint64_t h = fnv(prefix, len);
	struct index_bucket *bk = find_bucket(idx, prefix, len, h);
	struct index_cand cand = { rule, matcher };
	int r;

	if (!bk) {
		struct index_bucket nb = { .len = len, .hash = h };

		if ((idx->n_buckets + 1) * 2 > idx->table_size) {
			r = rehash(idx, idx->table_size ? idx->table_size * 2 : 16);
			if (r < 0)
				return r;
		}
		nb.prefix = malloc(len + 1);
		if (!nb.prefix)
			return -ENOMEM;
		memcpy(nb.prefix, prefix, len);
		nb.prefix[len] = '\0';
		if (ARRAY_PUSH(idx->buckets, idx->n_buckets, idx->alloc_buckets, nb) < 0) {
			free(nb.prefix);
			return -ENOMEM;
		}
		r = rehash(idx, idx->table_size);
		if (r < 0)
			return r;
		bk = &idx->buckets[idx->n_buckets - 1];
		if (len + 1 > idx->max_len) {
			unsigned char *lp = realloc(idx->len_present, len + 1);

			if (!lp)
				return -ENOMEM;
			memset(lp + idx->max_len, 0, len + 1 - idx->max_len);
			idx->len_present = lp;
			idx->max_len = len + 1;
		}
		idx->len_present[len] = 1;
	}
	return ARRAY_PUSH(bk->cands, bk->n, bk->alloc, cand);
}

int policy_build_index(struct tier_policy *p)
{
	for (int k = 0; k < _TIER_MATCH_MAX; k++)
		prefix_index_free(&p->index[k]);
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = p->rules[i];

		for (size_t j = 0; j < r->pub.n_matchers; j++) {
			const struct tier_matcher *m = &r->matchers[j];
			const struct glob *g = &r->globs[j];
			int ret;

			if (m->kind == TIER_MATCH_ANNOTATION) {
				size_t kl = strlen(m->key), len = kl + 1 + g->prefix_len;
				_cleanup_free_ char *s = malloc(len + 1);

				if (!s)
					return -ENOMEM;
				memcpy(s, m->key, kl);
				s[kl] = '=';
				memcpy(s + kl + 1, g->prefix, g->prefix_len);
				ret = index_add(&p->index[m->kind], s, len, (uint32_t)i, (uint32_t)j);
			} else {
				ret = index_add(&p->index[m->kind], g->prefix, g->prefix_len,
						(uint32_t)i, (uint32_t)j);
			}
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

int prefix_index_lookup(const struct prefix_index *idx, const char *s, size_t len,
			struct index_cand **cands, size_t *n, size_t *alloc)
{
	uint64_t h = FNV_OFFSET;

	for (size_t l = 0; l <= len && l < idx->max_len; l++) {
		if (l > 0)
			h = fnv_step(h, (unsigned char)s[l - 1]);
		if (idx->len_present[l]) {
			const struct index_bucket *bk = find_bucket(idx, s, l, h);

			if (!bk)
				continue;
			for (size_t i = 0; i < bk->n; i++)
				if (ARRAY_PUSH(*cands, *n, *alloc, bk->cands[i]) < 0)
					return -ENOMEM;
		}
	}
	return 0;
}
