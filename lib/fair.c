// SPDX-License-Identifier: LGPL-2.1-or-later
/* Weighted max-min fair shares of the fast tier, and Jain's index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"

typedef unsigned __int128 u128;

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

int tier_fair_share(uint64_t capacity, size_t n, const struct tier_share_input *inputs,
			     uint64_t *ret_targets)
{
	_cleanup_free_ uint64_t *t = NULL, *limit = NULL;
	_cleanup_free_ bool *active = NULL;
	u128 sum_min = 0;
	uint64_t rest;
	size_t n_active = 0;

	if (n == 0)
		return 0;
	if (!inputs || !ret_targets)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (inputs[i].weight == 0 || inputs[i].min > inputs[i].max)
			return -EINVAL;
	t = calloc(n, sizeof(*t));
	limit = calloc(n, sizeof(*limit));
	active = calloc(n, sizeof(*active));
	if (!t || !limit || !active)
		return -ENOMEM;

	/* 1. minimums, scaled down proportionally if they do not fit */
	for (size_t i = 0; i < n; i++) {
		t[i] = inputs[i].min;
		sum_min += t[i];
	}
	if (sum_min > capacity) {
		for (size_t i = 0; i < n; i++)
			t[i] = (uint64_t)((u128)t[i] * capacity / sum_min);
		memcpy(ret_targets, t, n * sizeof(*t));
		return 0;
	}
	rest = capacity - (uint64_t)sum_min;

	/* 2. water-filling of the rest by weight, up to min(max, demand) */
	for (size_t i = 0; i < n; i++) {
		limit[i] = min_u64(inputs[i].max, inputs[i].demand);
		if (limit[i] < t[i])
			limit[i] = t[i];
		active[i] = t[i] < limit[i];
		n_active += active[i];
	}
	while (rest > 0 && n_active > 0) {
		u128 wsum = 0;
		bool saturated = false;

		for (size_t i = 0; i < n; i++)
			if (active[i])
				wsum += inputs[i].weight;
		/* cap everyone whose share would exceed the headroom, then redo */
		for (size_t i = 0; i < n; i++) {
			u128 share;

			if (!active[i])
				continue;
			share = (u128)rest * inputs[i].weight / wsum;
			if (share >= limit[i] - t[i]) {
				saturated = true;
				active[i] = false;
				n_active--;
			}
		}
		if (saturated) {
			/* give the saturated ones exactly their headroom */
			for (size_t i = 0; i < n; i++) {
				if (active[i] || t[i] >= limit[i])
					continue;
				rest -= limit[i] - t[i];
				t[i] = limit[i];
			}
			continue;
		}
		{
			uint64_t given = 0;

			for (size_t i = 0; i < n; i++) {
				uint64_t share;

				if (!active[i])
					continue;
				share = (uint64_t)((u128)rest * inputs[i].weight / wsum);
				t[i] += share;
				given += share;
			}
			rest -= given;
			/* rounding leftovers: one byte each, in order */
			for (size_t i = 0; i < n && rest > 0; i++)
				if (active[i] && t[i] < limit[i]) {
					t[i]++;
					rest--;
				}
			break;
		}
	}
	memcpy(ret_targets, t, n * sizeof(*t));
	return 0;
}

double tier_jain_index(size_t n, const double *values)
{
	double sum = 0, sq = 0;

	if (n == 0 || !values)
		return 1.0;
	for (size_t i = 0; i < n; i++) {
		sum += values[i];
		sq += values[i] * values[i];
	}
	if (sq == 0)
		return 1.0;
	return sum * sum / ((double)n * sq);
}
