// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of controller/tierd/tierd-fair.c: the pure rebalancer (fair_decide)
 * and, against a fake tree, one fair_rebalance() round.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "tierd-fair.h"

#define MiB (1024ull * 1024ull)
#define NONE UINT64_MAX

/* A cgroup with the class defaults: weight 100, no min/max, promote mode. */
static struct fair_input cg(const char *path, uint64_t fast, uint64_t demand)
{
	return (struct fair_input){
		.path = path,
		.fast_bytes = fast,
		.demand = demand,
		.class_sets_mode = true,
		.class_mode = TIER_MODE_PROMOTE,
		.cur_mode = TIER_MODE_PROMOTE,
		.cur_high = NONE,
	};
}

static struct fair_config config(enum fair_method method, uint64_t capacity)
{
	return (struct fair_config){
		.capacity = capacity,
		.fast_capacity = 256 * MiB,
		.total_capacity = 512 * MiB,
		.hysteresis_bp = 500,
		.min_dwell_usec = 0,
		.now_usec = 1000000,
		.method = method,
	};
}

static struct fair_state *state(void)
{
	struct fair_state *s = NULL;

	ck_assert_int_eq(fair_state_new(&s), 0);
	return s;
}

/*
 * fair_decide() with this round's shares as tierd gets them from libtier:
 * the water-filling of c->capacity over the inputs (weight 100 each, their
 * demand).  tierd itself never water-fills; tests/unit/test-share.c tests
 * the shares.
 */
static int decide(struct fair_state *s, const struct fair_config *c, size_t n,
		  struct fair_input *in, struct fair_decision *d)
{
	struct tier_share_input si[16];
	uint64_t t[16];

	ck_assert_uint_le(n, 16);
	for (size_t i = 0; i < n; i++)
		si[i] = (struct tier_share_input){ 100, 0, NONE, in[i].demand };
	ck_assert_int_eq(tier_fair_share(c->capacity, n, si, t), 0);
	for (size_t i = 0; i < n; i++)
		in[i].share = t[i];
	return fair_decide(s, c, n, in, d);
}

/* The shares are the inputs': fair_decide() does not water-fill again. */
START_TEST(test_shares_as_given)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_NONE, 400 * MiB);
	struct fair_input in[3] = { cg("/a", 0, NONE), cg("/b", 0, NONE), cg("/c", 0, NONE) };
	struct fair_decision d[3];

	in[0].share = 100 * MiB;
	in[1].share = 50 * MiB;
	in[2].share = 250 * MiB;
	ck_assert_int_eq(fair_decide(s, &c, 3, in, d), 0);
	ck_assert_uint_eq(d[0].target, 100 * MiB);
	ck_assert_uint_eq(d[0].share, 100 * MiB);
	ck_assert_uint_eq(d[1].target, 50 * MiB);
	ck_assert_uint_eq(d[2].target, 250 * MiB);
	ck_assert_str_eq(d[2].path, "/c");
	ck_assert(!d[0].set_mode && !d[0].set_high);
	fair_state_free(s);
}
END_TEST

START_TEST(test_bad_input)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_NONE, 100 * MiB);
	struct fair_input in[2] = { cg("/a", 0, NONE), cg("/a", 0, NONE) };
	struct fair_decision d[2];

	ck_assert_int_eq(fair_decide(s, &c, 2, in, d), -EINVAL);	/* duplicate */
	in[1].path = NULL;
	ck_assert_int_eq(fair_decide(s, &c, 2, in, d), -EINVAL);
	ck_assert_int_eq(fair_decide(NULL, &c, 0, NULL, NULL), -EINVAL);
	/* nothing at all is fine */
	ck_assert_int_eq(fair_decide(s, &c, 0, NULL, NULL), 0);
	fair_state_free(s);
}
END_TEST

START_TEST(test_target_hysteresis)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_NONE, 200 * MiB);
	struct fair_input in[2] = { cg("/a", 0, NONE), cg("/b", 0, NONE) };
	struct fair_decision d[2];

	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].target, 100 * MiB);
	ck_assert(d[0].target_changed);
	/* the capacity wobbles by 4%: shares move 4%, targets stay */
	c.capacity = 208 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].share, 104 * MiB);
	ck_assert_uint_eq(d[0].target, 100 * MiB);
	ck_assert(!d[0].target_changed);
	c.capacity = 192 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[1].target, 100 * MiB);
	/* 10%: the target follows */
	c.capacity = 220 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].target, 110 * MiB);
	ck_assert(d[0].target_changed);
	/* no hysteresis: every change is taken */
	c.hysteresis_bp = 0;
	c.capacity = 222 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].target, 111 * MiB);
	fair_state_free(s);
}
END_TEST

/* PROMOTION: off above target + 5%, on again only below target - 5%. */
START_TEST(test_promotion_switch)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_PROMOTION, 200 * MiB);
	struct fair_input in[2] = { cg("/hog", 150 * MiB, 180 * MiB),
				    cg("/late", 10 * MiB, 100 * MiB) };
	struct fair_decision d[2];

	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].target, 100 * MiB);
	ck_assert(d[0].throttled && d[0].state_changed);
	ck_assert(d[0].set_mode);
	ck_assert_int_eq(d[0].mode, TIER_MODE_OFF);
	ck_assert(!d[1].throttled && !d[1].set_mode);
	ck_assert_ptr_nonnull(fair_state_find(s, "/hog"));
	ck_assert(fair_state_find(s, "/hog")->throttled);
	ck_assert_ptr_null(fair_state_find(s, "/nope"));

	/* within the band (98 MiB > 95 MiB): stays off, still asserted */
	in[0].fast_bytes = 98 * MiB;
	in[0].cur_mode = TIER_MODE_OFF;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled && !d[0].state_changed);
	ck_assert(d[0].set_mode && d[0].mode == TIER_MODE_OFF);
	/* below the band: back to the class mode */
	in[0].fast_bytes = 94 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].throttled && d[0].state_changed);
	ck_assert(d[0].set_mode);
	ck_assert_int_eq(d[0].mode, TIER_MODE_PROMOTE);
	/* within the band from below (104 MiB < 105 MiB): stays on, nothing set */
	in[0].fast_bytes = 104 * MiB;
	in[0].cur_mode = TIER_MODE_PROMOTE;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].throttled && !d[0].set_mode);
	/* a class that leaves the mode alone gets the mode it had back */
	in[0].class_sets_mode = false;
	in[0].cur_mode = TIER_MODE_FULL;
	in[0].fast_bytes = 120 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	in[0].cur_mode = TIER_MODE_OFF;
	in[0].fast_bytes = 50 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].throttled && d[0].set_mode);
	ck_assert_int_eq(d[0].mode, TIER_MODE_FULL);
	fair_state_free(s);
}
END_TEST

/* PROMOTION with demote_ok: the excess of a throttled cgroup is demoted. */
START_TEST(test_promotion_demote)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_PROMOTION, 200 * MiB);
	struct fair_input in[2] = { cg("/hog", 150 * MiB, 180 * MiB),
				    cg("/late", 10 * MiB, 100 * MiB) };
	struct fair_decision d[2];

	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	ck_assert_uint_eq(d[0].demote_bytes, 0);	/* not allowed */
	c.demote_ok = true;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].demote_bytes, 50 * MiB);
	ck_assert_uint_eq(d[1].demote_bytes, 0);
	/* within the band: nothing to demote, still throttled */
	in[0].fast_bytes = 104 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	ck_assert_uint_eq(d[0].demote_bytes, 0);
	/* at most FAIR_DEMOTE_MAX_BYTES a round */
	c.capacity = 4ull << 30;
	in[0].fast_bytes = 8ull << 30;
	in[0].demand = 9ull << 30;
	in[1].demand = 8ull << 30;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	ck_assert_uint_eq(d[0].demote_bytes, FAIR_DEMOTE_MAX_BYTES);
	/* never with the tier-aware limits (the kernel demotes) */
	c.method = FAIR_METHOD_LIMITS;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].demote_bytes, 0);
	fair_state_free(s);
}
END_TEST

START_TEST(test_dwell)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_PROMOTION, 200 * MiB);
	struct fair_input in[2] = { cg("/hog", 150 * MiB, 180 * MiB), cg("/b", 0, 100 * MiB) };
	struct fair_decision d[2];

	c.min_dwell_usec = 5000000;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	/* 1 s later it is below the band, but the last flip was too recent */
	c.now_usec += 1000000;
	in[0].fast_bytes = 10 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	c.now_usec += 5000000;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].throttled && d[0].state_changed);
	fair_state_free(s);
}
END_TEST

/* LIMITS: memory.high = target x total / fast while the share is below the demand. */
START_TEST(test_limits)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_LIMITS, 180 * MiB);
	struct fair_input in[3] = { cg("/hog1", 90 * MiB, 92 * MiB), cg("/hog2", 90 * MiB, 92 * MiB),
				    cg("/late", 0, 0) };
	struct fair_decision d[3];

	/* the late one has not allocated yet: the hogs get 90 each, within 5% of
	 * their demand: no limits */
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert_uint_eq(d[0].target, 90 * MiB);
	ck_assert(!d[0].limited && !d[0].set_high && !d[0].set_mode);
	/* it starts: 60 MiB each; the hogs get limited to 2 x 60 MiB (fast is half) */
	in[2].demand = 62 * MiB;
	in[0].cur_high = 200 * MiB;	/* set by someone before: restored later */
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert_uint_eq(d[0].target, 60 * MiB);
	ck_assert(d[0].limited && d[0].set_high && d[0].state_changed);
	ck_assert_uint_eq(d[0].memory_high, 120 * MiB);
	ck_assert(!d[0].set_mode);
	ck_assert(!d[2].limited && !d[2].set_high);	/* 60 of 62: within the band */
	ck_assert(!d[0].reassert_high);	/* just limited: the write demotes */
	/* still limited and above its target (+5%) next round: write again */
	in[0].fast_bytes = 80 * MiB;
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert(d[0].limited && d[0].set_high && d[0].reassert_high);
	in[0].fast_bytes = 62 * MiB;
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert(d[0].limited && !d[0].reassert_high);
	/* a target far below the usage: memory.high is held at the usage + 5%,
	 * never lower (it would throttle the cgroup on every tier) */
	{
		struct fair_state *s2 = state();
		struct fair_input big[2] = { cg("/big", 90 * MiB, 400 * MiB),
					     cg("/other", 90 * MiB, 400 * MiB) };
		struct fair_decision d2[2];

		ck_assert_int_eq(decide(s2, &c, 2, big, d2), 0);
		ck_assert_uint_eq(d2[0].target, 90 * MiB);
		ck_assert(d2[0].limited && d2[0].high_floored);
		ck_assert_uint_eq(d2[0].memory_high, 420 * MiB);
		/* the kernel holds it at 210 MiB of fast tier: 150 is not "above" */
		big[0].fast_bytes = 150 * MiB;
		ck_assert_int_eq(decide(s2, &c, 2, big, d2), 0);
		ck_assert(d2[0].limited && !d2[0].reassert_high);
		big[0].fast_bytes = 230 * MiB;
		ck_assert_int_eq(decide(s2, &c, 2, big, d2), 0);
		ck_assert(d2[0].reassert_high);
		fair_state_free(s2);
	}
	ck_assert(!d[0].high_floored);
	/* a class memory.high below the fair one wins */
	in[1].class_sets_high = true;
	in[1].class_high = 100 * MiB;
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert_uint_eq(d[1].memory_high, 100 * MiB);
	/* the late one leaves: the hogs get 90 back, still below their demand of
	 * 92: the limit is let go only when the target covers the demand */
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].target, 90 * MiB);
	ck_assert(d[0].limited);
	ck_assert_uint_eq(d[0].memory_high, 180 * MiB);
	/* more capacity: the demand is covered, the old values come back */
	c.capacity = 200 * MiB;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].limited && d[0].set_high);
	ck_assert_uint_eq(d[0].memory_high, 200 * MiB);
	ck_assert(!d[1].limited && d[1].set_high);
	ck_assert_uint_eq(d[1].memory_high, 100 * MiB);	/* the class's */
	fair_state_free(s);
}
END_TEST

/*
 * LIMITS on a kernel that keeps each cgroup at its top-tier ceiling itself
 * (memory.stat "toptier": kernel_ceiling): memory.high is written when its
 * value changes, never again to force a demotion; the same rounds on an
 * older kernel re-assert it.
 */
START_TEST(test_limits_kernel_ceiling)
{
	struct fair_config c = config(FAIR_METHOD_LIMITS, 180 * MiB);

	for (int kernel = 0; kernel <= 1; kernel++) {
		struct fair_state *s = state();
		struct fair_input in[3] = { cg("/hog1", 90 * MiB, 92 * MiB),
					    cg("/hog2", 90 * MiB, 92 * MiB),
					    cg("/late", 0, 62 * MiB) };
		struct fair_decision d[3];

		for (size_t i = 0; i < 3; i++)
			in[i].kernel_ceiling = kernel;
		/* limited at once: 60 MiB each, memory.high 120 MiB */
		ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
		ck_assert(d[0].limited && d[0].set_high && !d[0].reassert_high);
		ck_assert_uint_eq(d[0].memory_high, 120 * MiB);
		ck_assert(d[0].kernel_ceiling == kernel);
		/* still far above the ceiling next round */
		in[0].fast_bytes = 80 * MiB;
		ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
		ck_assert(d[0].limited && d[0].set_high);
		ck_assert_uint_eq(d[0].memory_high, 120 * MiB);
		ck_assert_msg(d[0].reassert_high == !kernel, "kernel_ceiling %d", kernel);
		/* and again: an older kernel gets the write every round */
		ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
		ck_assert(d[0].reassert_high == !kernel);
		/* within the band: neither */
		in[0].fast_bytes = 62 * MiB;
		ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
		ck_assert(d[0].limited && !d[0].reassert_high);
		/* a changed target is written on both: as a change, not a re-assert */
		in[2].demand = 92 * MiB;
		in[0].fast_bytes = 80 * MiB;
		c.capacity = 150 * MiB;
		ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
		ck_assert(d[0].limited && d[0].set_high && d[0].target_changed);
		ck_assert_uint_eq(d[0].memory_high, 100 * MiB);
		ck_assert(d[0].reassert_high == !kernel);
		c.capacity = 180 * MiB;
		fair_state_free(s);
	}

	/* held at its usage (floored): the kernel keeps that ceiling too */
	for (int kernel = 0; kernel <= 1; kernel++) {
		struct fair_state *s = state();
		struct fair_input big[2] = { cg("/big", 90 * MiB, 400 * MiB),
					     cg("/other", 90 * MiB, 400 * MiB) };
		struct fair_decision d[2];

		big[0].kernel_ceiling = big[1].kernel_ceiling = kernel;
		ck_assert_int_eq(decide(s, &c, 2, big, d), 0);
		ck_assert(d[0].limited && d[0].high_floored);
		big[0].fast_bytes = 230 * MiB;	/* above 420 MiB x fast / total + 5% */
		ck_assert_int_eq(decide(s, &c, 2, big, d), 0);
		ck_assert(d[0].limited && d[0].high_floored);
		ck_assert(d[0].reassert_high == !kernel);
		fair_state_free(s);
	}
}
END_TEST

START_TEST(test_appear_and_leave)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_PROMOTION, 200 * MiB);
	struct fair_input in[3] = { cg("/b", 150 * MiB, 150 * MiB), cg("/a", 40 * MiB, 40 * MiB),
				    cg("/c", 0, 100 * MiB) };
	struct fair_decision d[3];

	/* two: a's demand is 40, b gets its demand and is not above it */
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(d[0].target, 150 * MiB);
	ck_assert_uint_eq(d[1].target, 40 * MiB);
	ck_assert(!d[0].throttled);
	/* c appears: a keeps 40, b and c get 80 each: b is now above its target */
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert_uint_eq(d[0].target, 80 * MiB);
	ck_assert(d[0].throttled);
	ck_assert(d[2].target_changed);
	ck_assert_uint_eq(fair_released_count(s), 0);
	/* b leaves (still exists, no longer managed): its mode is given back */
	in[0] = in[2];
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(fair_released_count(s), 1);
	ck_assert_str_eq(fair_released(s, 0)->path, "/b");
	ck_assert(fair_released(s, 0)->set_mode);
	ck_assert_int_eq(fair_released(s, 0)->mode, TIER_MODE_PROMOTE);
	ck_assert(!fair_released(s, 0)->set_high);
	ck_assert_ptr_null(fair_state_find(s, "/b"));
	ck_assert_ptr_null(fair_released(s, 1));
	/* the next round forgets it */
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert_uint_eq(fair_released_count(s), 0);
	/* a cgroup that comes back starts fresh */
	in[2] = cg("/b", 0, 10 * MiB);
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert(d[2].target_changed && !d[2].throttled);
	/* everyone leaves */
	ck_assert_int_eq(decide(s, &c, 0, NULL, NULL), 0);
	ck_assert_uint_eq(fair_released_count(s), 0);
	fair_state_free(s);
}
END_TEST

/* A method change (remount without memory_tiered_limits) lets go of the other knob. */
START_TEST(test_method_change)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_LIMITS, 100 * MiB);
	struct fair_input in[2] = { cg("/a", 90 * MiB, 150 * MiB), cg("/b", 10 * MiB, 150 * MiB) };
	struct fair_decision d[2];

	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].limited && d[1].limited);
	c.method = FAIR_METHOD_PROMOTION;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].limited && d[0].set_high);
	ck_assert_uint_eq(d[0].memory_high, NONE);
	ck_assert(d[0].throttled && d[0].set_mode);
	ck_assert(!d[1].throttled);
	c.method = FAIR_METHOD_NONE;
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(!d[0].throttled && d[0].set_mode);
	ck_assert_int_eq(d[0].mode, TIER_MODE_PROMOTE);
	fair_state_free(s);
}
END_TEST

START_TEST(test_filter_entry)
{
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_PROMOTION, 100 * MiB);
	struct fair_input in[2] = { cg("/a", 90 * MiB, 150 * MiB), cg("/b", 10 * MiB, 150 * MiB) };
	struct fair_decision d[2];
	static const char text[] = "[class:c]\nmode = promote\n[rule:r]\nclass = c\ncgroup = /*\n";
	struct tier_policy *p = NULL;
	struct tier_observed *o = NULL;
	struct tier_plan *plan = NULL;
	struct tier_plan_entry *buf = NULL;
	const struct tier_plan_entry *e, *f;
	uint64_t v;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	ck_assert_int_eq(tier_observed_new(0, &o), 0);
	ck_assert_int_eq(tier_observed_add(o, "/a", NULL), 0);
	ck_assert_int_eq(tier_observed_add(o, "/b", NULL), 0);
	ck_assert_int_eq(tier_evaluate(p, o, &plan), 0);
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	e = tier_plan_find(plan, "/a");
	f = fair_filter_entry(s, e, &buf);
	ck_assert_ptr_eq(f, buf);
	ck_assert_int_eq(tier_plan_entry_get_desired(f, TIER_ATTR_NUMA_BALANCING, &v), 0);
	ck_assert_int_eq(v, TIER_MODE_OFF);
	ck_assert_int_eq(tier_plan_entry_get_desired(e, TIER_ATTR_NUMA_BALANCING, &v), 0);
	ck_assert_int_eq(v, TIER_MODE_PROMOTE);
	tier_plan_entry_free(buf);
	buf = NULL;
	e = tier_plan_find(plan, "/b");
	ck_assert_ptr_eq(fair_filter_entry(s, e, &buf), e);
	ck_assert_ptr_null(buf);
	tier_plan_free(plan);
	tier_observed_free(o);
	tier_policy_unref(p);
	fair_state_free(s);
}
END_TEST

START_TEST(test_high_for_target)
{
	ck_assert_uint_eq(fair_high_for_target(60 * MiB, 256 * MiB, 512 * MiB), 120 * MiB);
	/* one tier: the target itself, page aligned */
	ck_assert_uint_eq(fair_high_for_target(4097, 256 * MiB, 256 * MiB), 4096);
	ck_assert_uint_eq(fair_high_for_target(NONE, 1, 2), NONE);
	/* no overflow for huge targets */
	ck_assert_uint_eq(fair_high_for_target(NONE - 1, 1, 4), NONE);
	/* 768G fast of 1T total */
	ck_assert_uint_eq(fair_high_for_target(300ull << 30, 768ull << 30, 1024ull << 30),
			  400ull << 30);
}
END_TEST

/* The page size comes from sysconf (or the caller), not a constant 4096. */
START_TEST(test_page_size)
{
	fair_set_page_size(0);
	ck_assert_uint_eq(fair_page_size(), (uint64_t)sysconf(_SC_PAGESIZE));
	fair_set_page_size(65536);
	ck_assert_uint_eq(fair_high_for_target(70000, 256 * MiB, 256 * MiB), 65536);
	ck_assert_uint_eq(fair_high_for_target(60 * MiB + 4096, 256 * MiB, 512 * MiB), 120 * MiB);
	fair_set_page_size(12345);	/* not a power of two */
	ck_assert_uint_eq(fair_page_size(), 4096);
	fair_set_page_size(0);
}
END_TEST

static const char bad_file[] = "tierd-fair-state 1\n"
				"relative 1 0 1 2 3 -\n"
				"/a 0 0 1 2 3 -\n"
				"/b 1 0 1 2 3 sideways\n"
				"/c 1 0 -1 2 3 -\n"
				"/d 1 0 1 2 3\n"
				"/e%0 1 0 1 2 3 -\n"
				"/f 1 0 1 2 max off\n"
				"/f 0 1 1 - - full\n";

/* A plan of one managed cgroup in a class of class_keys. */
static struct tier_plan *one_entry_plan(const char *class_keys, const char *path,
					struct tier_policy **ret_policy)
{
	struct tier_policy *p = NULL;
	struct tier_observed *o = NULL;
	struct tier_plan *plan = NULL;
	char *text = NULL;

	ck_assert(asprintf(&text, "[class:c]\n%s[rule:r]\nclass = c\ncgroup = %s\n", class_keys,
			   path) >= 0);
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	ck_assert_int_eq(tier_observed_new(0, &o), 0);
	ck_assert_int_eq(tier_observed_add(o, path, NULL), 0);
	ck_assert_int_eq(tier_evaluate(p, o, &plan), 0);
	tier_observed_free(o);
	free(text);
	*ret_policy = p;
	return plan;
}

/* What fairness holds, written out and read back, and the first round after. */
START_TEST(test_state_file)
{
	struct fair_state *s = state(), *t = state();
	struct fair_config c = config(FAIR_METHOD_LIMITS, 180 * MiB);
	struct fair_input in[3] = { cg("/hog1", 90 * MiB, 92 * MiB), cg("/hog 2\n\x1b%", 90 * MiB, 92 * MiB),
				    cg("/late", 0, 62 * MiB) };
	struct fair_decision d[3];
	struct tier_policy *p = NULL;
	struct tier_plan *plan = one_entry_plan("memory_high = 5M\n", "/hog1", &p);
	struct tier_plan_entry *buf = NULL;
	const struct tier_plan_entry *f;
	uint64_t v;
	char *text = NULL, *text2 = NULL;
	size_t size = 0, bad = 99;

	in[0].cur_high = 200 * MiB;
	ck_assert_int_eq(decide(s, &c, 3, in, d), 0);
	ck_assert(d[0].limited && d[1].limited);
	ck_assert_int_eq(fair_state_held(s), 2);
	ck_assert_int_eq(fair_state_serialize(s, &text, &size), 0);
	ck_assert_strstr(text, "tierd-fair-state 1\n");
	ck_assert_strstr(text, "/hog1 1 0 62914560 125829120 209715200 -\n");
	/* a name with blanks, newline, ESC and '%' stays on its line */
	ck_assert_strstr(text, "/hog%202%0A%1B%25 1 0 ");
	ck_assert_ptr_null(strstr(text, "/late"));

	ck_assert_int_eq(fair_state_load(t, text, size, &bad), 2);
	ck_assert_uint_eq(bad, 0);
	ck_assert(fair_state_find(t, "/hog1")->limited);
	ck_assert_ptr_nonnull(fair_state_find(t, "/hog 2\n\x1b%"));
	ck_assert_int_eq(fair_state_serialize(t, &text2, NULL), 0);
	ck_assert_str_eq(text, text2);
	/* the reconcile before the first round leaves a restored hold alone */
	ck_assert_int_eq(tier_plan_entry_get_desired(tier_plan_entry(plan, 0), TIER_ATTR_MEMORY_HIGH,
						     &v), 0);
	f = fair_filter_entry(t, tier_plan_entry(plan, 0), &buf);
	ck_assert_ptr_eq(f, buf);
	ck_assert_int_eq(tier_plan_entry_get_desired(f, TIER_ATTR_MEMORY_HIGH, &v), -ENODATA);
	tier_plan_entry_free(buf);
	tier_plan_free(plan);
	tier_policy_unref(p);

	/* the first round after the restart: /hog1 alone, its demand covered:
	 * the value saved before the restart comes back, not tierd's own */
	in[0].cur_high = 125829120;
	ck_assert_int_eq(decide(t, &c, 1, in, d), 0);
	ck_assert(!d[0].limited && d[0].set_high);
	ck_assert_uint_eq(d[0].memory_high, 200 * MiB);
	/* the one that left is released to its saved value (max: none saved) */
	ck_assert_uint_eq(fair_released_count(t), 1);
	ck_assert_str_eq(fair_released(t, 0)->path, "/hog 2\n\x1b%");
	ck_assert(fair_released(t, 0)->set_high);
	ck_assert_uint_eq(fair_released(t, 0)->memory_high, NONE);

	/* someone wrote memory.high while tierd was down: that is given back */
	fair_state_free(t);
	t = state();
	ck_assert_int_eq(fair_state_load(t, text, size, NULL), 2);
	in[0].cur_high = 300 * MiB;
	ck_assert_int_eq(decide(t, &c, 1, in, d), 0);
	ck_assert_uint_eq(d[0].memory_high, 300 * MiB);

	/* bad files and bad lines: only the first /f is good */
	ck_assert_int_eq(fair_state_load(t, "nope\n", 5, NULL), -EINVAL);
	ck_assert_int_eq(fair_state_load(t, bad_file, strlen(bad_file), &bad), 1);
	ck_assert_uint_eq(bad, 7);
	ck_assert(fair_state_find(t, "/f")->limited);

	free(text);
	free(text2);
	fair_state_free(s);
	fair_state_free(t);
}
END_TEST

#define LIMITS "memory_tiered_limits"

/* tierd-fair reads the option through libtier's one mountinfo reader. */
START_TEST(test_mountinfo)
{
	struct fx *fx = fx_new();

	fx_write(fx->proc, "self/mountinfo",
		 "22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
		 "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev - cgroup2 cgroup2 "
		 "rw,nsdelegate,memory_recursiveprot\n");
	ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/sys/fs/cgroup", LIMITS), 0);
	fx_write(fx->proc, "self/mountinfo",
		 "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 - cgroup2 cgroup2 "
		 "rw,nsdelegate,memory_tiered_limits\n"
		 "31 22 0:27 / /other rw - tmpfs tmpfs rw,memory_tiered_limits\n");
	ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/sys/fs/cgroup", LIMITS), 1);
	/* not cgroup2, nothing there, no mountinfo: -ENOENT (fair: not mounted) */
	ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/other", LIMITS), -ENOENT);
	ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/nowhere", LIMITS), -ENOENT);
	fx_unlink(fx->proc, "self/mountinfo");
	ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/sys/fs/cgroup", LIMITS), -ENOENT);
	fx_free(fx);
}
END_TEST

/* One round on a fake two-tier host: 1 GiB fast + 1 GiB slow, 256 MiB reserve. */
static const char policy_text[] = "[daemon]\n"
				  "fast_tier_reserve = 256M\n"
				  "hysteresis = 5%\n"
				  "[class:batch]\n"
				  "mode = promote\n"
				  "weight = 100\n"
				  "[class:gold]\n"
				  "mode = full\n"
				  "weight = 200\n"
				  "[rule:gold]\n"
				  "class = gold\n"
				  "cgroup = /gold\n"
				  "[rule:batch]\n"
				  "class = batch\n"
				  "cgroup = /job*\n";

struct log_capture {
	char buf[8192];
	size_t len;
};

static void capture_log(void *userdata, int priority, const struct log_fields *f,
			const char *message)
{
	struct log_capture *c = userdata;
	int n = snprintf(c->buf + c->len, sizeof(c->buf) - c->len, "%s [%s %s %s]\n", message,
			 f->class ?: "-", f->rule ?: "-", f->knob ?: "-");

	if (n > 0 && (size_t)n < sizeof(c->buf) - c->len)
		c->len += n;
}

/* A cgroup file without its trailing newline (the fixture writes one, libtier none). */
static void assert_file(struct fx *fx, const char *rel, const char *want)
{
	char *v = fx_read(fx->cg, rel);

	ck_assert_ptr_nonnull(v);
	v[strcspn(v, "\n")] = '\0';
	ck_assert_str_eq(v, want);
	free(v);
}

static void setup_host(struct fx *fx)
{
	fx_node(fx, 0, 1024 * 1024, 100 * 1024);
	fx_node(fx, 1, 1024 * 1024, 900 * 1024);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 22, "1");
	fx_write(fx->proc, "self/mountinfo",
		 "30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n");
}

/* One round as the manager runs it: the managed cgroups of a fresh plan are
 * the candidates of the share. */
static int rebalance(struct fair_state *s, struct fx *fx, const struct tier_topology *topo,
		     const struct tier_policy *p, uint64_t now, bool dry_run,
		     const struct fair_ops *ops)
{
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	struct tier_share *share = NULL;
	int r;

	ck_assert_int_eq(tier_observe(fx->ctx, topo, NULL, 0, &obs), 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_int_eq(tier_share_new(&share), 0);
	ck_assert_int_eq(tier_share_add_plan(share, plan), 0);
	r = fair_rebalance(s, fx->ctx, topo, p, share, now, dry_run, ops);
	tier_share_free(share);
	tier_plan_free(plan);
	tier_observed_free(obs);
	return r;
}

START_TEST(test_rebalance_fake_tree)
{
	struct fx *fx = fx_new();
	struct tier_policy *p = NULL;
	struct tier_topology *topo = NULL;
	struct fair_state *s = state();
	struct log_capture lc = {};
	struct fair_ops ops = { .userdata = &lc, .log = capture_log };
	const struct fair_summary *sum;
	const struct fair_decision *d;
	char *mi;

	setup_host(fx);
	/* 768 MiB of capacity; gold 2:1 against two jobs: 384, 192, 192 */
	fx_cgroup(fx, "/gold", "full");
	fx_cgroup_numa(fx, "/gold", 100 * MiB, 400 * MiB, 0, 0);
	fx_cgroup(fx, "/job1", "promote");
	fx_cgroup_numa(fx, "/job1", 500 * MiB, 100 * MiB, 0, 0);
	fx_cgroup(fx, "/job1/sub", "promote");	/* accounted in /job1 */
	fx_cgroup_numa(fx, "/job1/sub", 500 * MiB, 0, 0, 0);
	fx_cgroup(fx, "/job2", "promote");
	fx_cgroup_numa(fx, "/job2", 50 * MiB, 300 * MiB, 0, 0);
	fx_cgroup(fx, "/other", "full");	/* unmanaged */
	fx_cgroup_numa(fx, "/other", 900 * MiB, 0, 0, 0);

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", policy_text, strlen(policy_text), NULL,
						 &p), 0);
	ck_assert_int_eq(tier_topology_read(fx->ctx, &topo), 0);
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1000000, false, &ops), 0);
	sum = fair_state_summary(s);
	ck_assert_int_eq(sum->method, FAIR_METHOD_PROMOTION);
	ck_assert_uint_eq(sum->capacity, 768 * MiB);
	ck_assert_uint_eq(sum->n_cgroups, 3);
	ck_assert_uint_eq(sum->n_throttled, 1);
	ck_assert_uint_eq(sum->n_writes, 1);
	d = fair_state_find(s, "/gold");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->target, 384 * MiB);
	d = fair_state_find(s, "/job1");
	ck_assert_uint_eq(d->target, 192 * MiB);
	ck_assert(d->throttled);
	ck_assert_ptr_null(fair_state_find(s, "/job1/sub"));
	ck_assert_ptr_null(fair_state_find(s, "/other"));
	assert_file(fx, "job1/memory.numa_balancing", "off");
	assert_file(fx, "job2/memory.numa_balancing", "promote");
	ck_assert_strstr(lc.buf, "/job1: memory.numa_balancing promote -> off");
	ck_assert_strstr(lc.buf, "[batch batch memory.numa_balancing]");
	ck_assert_strstr(lc.buf, "promotion switch");
	ck_assert(sum->jain > 0.0 && sum->jain <= 1.0);
	/* write-only in the kernel; "-" here shows whether it was written */
	fx_write(fx->cg, "job1/memory.reclaim", "-\n");
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1200000, false, &ops), 0);
	assert_file(fx, "job1/memory.reclaim", "-");	/* no demotion_enabled */

	/* demotion on, no swap: job1's excess (500 - 192 MiB) is demoted */
	fx_write(fx->sys, "kernel/mm/numa/demotion_enabled", "true\n");
	fx_write(fx->proc, "swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1500000, false, &ops), 0);
	assert_file(fx, "job1/memory.reclaim", "322961408");
	ck_assert_uint_eq(fair_state_summary(s)->n_demote_requests, 1);
	ck_assert_strstr(lc.buf, "/job1: 500.0M on the fast tier, target 192.0M: demoting 308.0M");
	/* with swap: never */
	fx_write(fx->cg, "job1/memory.reclaim", "-\n");
	fx_write(fx->proc, "swaps", "Filename\tType\tSize\tUsed\tPriority\n/swap\tfile\t1024\t0\t-2\n");
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1600000, false, &ops), 0);
	assert_file(fx, "job1/memory.reclaim", "-");

	/* dry run with tier-aware limits: memory.high is only logged */
	ck_assert(asprintf(&mi, "30 22 0:26 / %s rw - cgroup2 cgroup2 rw,memory_tiered_limits\n",
			   fx->cg) > 0);
	fx_write(fx->proc, "self/mountinfo", mi);
	free(mi);
	fx_write(fx->cg, "job1/memory.toptier_high", "max\n");
	fair_state_free(s);
	s = state();
	lc.len = 0;
	lc.buf[0] = '\0';
	ck_assert_int_eq(rebalance(s, fx, topo, p, 2000000, true, &ops), 0);
	ck_assert_int_eq(fair_state_summary(s)->method, FAIR_METHOD_LIMITS);
	ck_assert(fair_state_find(s, "/job1")->limited);
	/* job2: 192 MiB x 2 GiB / 1 GiB; job1 uses 600 MiB: held at 600 MiB + 5% */
	ck_assert_strstr(lc.buf, "/job2: would set memory.high max -> 402653184");
	ck_assert_strstr(lc.buf, "/job1: would set memory.high max -> 660602880");
	ck_assert_strstr(lc.buf, "limited (memory.high held at its usage)");
	assert_file(fx, "job1/memory.high", "max");
	/* for real */
	ck_assert_int_eq(rebalance(s, fx, topo, p, 3000000, false, &ops), 0);
	assert_file(fx, "job2/memory.high", "402653184");
	/* still above its target: memory.high is written again (the kernel demotes then) */
	fx_write(fx->cg, "job1/memory.high", "660602880\n");
	lc.len = 0;
	lc.buf[0] = '\0';
	ck_assert_int_eq(rebalance(s, fx, topo, p, 4000000, false, &ops), 0);
	ck_assert_strstr(lc.buf, "/job1: memory.high 660602880 rewritten");
	assert_file(fx, "job1/memory.high", "660602880");

	/* job1 vanishes: the next round does not fail */
	fx_rmtree(fx->cg);
	fx_mkdir(fx->root, "cgroup");
	fx_write(fx->cg, "cgroup.procs", "1\n");
	ck_assert_int_eq(rebalance(s, fx, topo, p, 5000000, false, &ops), 0);
	ck_assert_uint_eq(fair_state_summary(s)->n_cgroups, 0);

	fair_state_free(s);
	tier_topology_free(topo);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

/*
 * The same rounds on a kernel whose memory.stat has "toptier": libtier's
 * fast bytes are that counter, the kernel keeps each cgroup at its ceiling
 * and tierd writes memory.high only when its value changes; once the key is
 * gone (an older kernel), a limited cgroup above its ceiling gets the value
 * written again.
 */
START_TEST(test_rebalance_kernel_ceiling)
{
	struct fx *fx = fx_new();
	struct tier_policy *p = NULL;
	struct tier_topology *topo = NULL;
	struct fair_state *s = state();
	struct log_capture lc = {};
	struct fair_ops ops = { .userdata = &lc, .log = capture_log };
	const struct fair_summary *sum;
	const struct fair_decision *d;
	uint64_t writes;
	char *mi;

	setup_host(fx);
	ck_assert(asprintf(&mi, "30 22 0:26 / %s rw - cgroup2 cgroup2 rw,memory_tiered_limits\n",
			   fx->cg) > 0);
	fx_write(fx->proc, "self/mountinfo", mi);
	free(mi);
	/* as test_rebalance_fake_tree; memory.stat agrees with numa_stat */
	fx_cgroup(fx, "/gold", "full");
	fx_cgroup_numa(fx, "/gold", 100 * MiB, 400 * MiB, 0, 0);
	fx_cgroup_stat(fx, "/gold", 500 * MiB, 0, "104857600");
	fx_cgroup(fx, "/job1", "promote");
	fx_cgroup_numa(fx, "/job1", 500 * MiB, 100 * MiB, 0, 0);
	fx_cgroup_stat(fx, "/job1", 600 * MiB, 0, "524288000");
	fx_cgroup(fx, "/job2", "promote");
	fx_cgroup_numa(fx, "/job2", 50 * MiB, 300 * MiB, 0, 0);
	fx_cgroup_stat(fx, "/job2", 350 * MiB, 0, "52428800");
	fx_write(fx->cg, "job1/memory.toptier_high", "max\n");
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", policy_text, strlen(policy_text), NULL,
						 &p), 0);
	ck_assert_int_eq(tier_topology_read(fx->ctx, &topo), 0);

	ck_assert_int_eq(rebalance(s, fx, topo, p, 1000000, false, &ops), 0);
	sum = fair_state_summary(s);
	ck_assert_int_eq(sum->method, FAIR_METHOD_LIMITS);
	ck_assert(sum->kernel_ceiling);
	ck_assert_strstr(lc.buf, "enforced through tier-aware limits (the kernel keeps each "
				 "cgroup at its ceiling)");
	d = fair_state_find(s, "/job1");
	ck_assert(d->limited && d->high_floored && d->kernel_ceiling);
	ck_assert_uint_eq(d->fast_bytes, 500 * MiB);
	assert_file(fx, "job1/memory.high", "660602880");
	assert_file(fx, "job2/memory.high", "402653184");
	writes = sum->n_writes;

	/* job1 stays far above the ceiling of its memory.high: nothing written */
	lc.len = 0;
	lc.buf[0] = '\0';
	ck_assert_int_eq(rebalance(s, fx, topo, p, 2000000, false, &ops), 0);
	d = fair_state_find(s, "/job1");
	ck_assert(d->limited && !d->reassert_high);
	ck_assert_uint_eq(fair_state_summary(s)->n_writes, writes);
	ck_assert_msg(!strstr(lc.buf, "rewritten"), "%s", lc.buf);
	/* the exact counter moves the decision, not numa_stat: at 200 MiB job2
	 * (target 192 MiB) is within the band whatever numa_stat says */
	fx_cgroup_stat(fx, "/job2", 350 * MiB, 0, "209715200");
	fx_cgroup_numa(fx, "/job2", 340 * MiB, 10 * MiB, 0, 0);
	ck_assert_int_eq(rebalance(s, fx, topo, p, 2500000, false, &ops), 0);
	ck_assert_uint_eq(fair_state_find(s, "/job2")->fast_bytes, 200 * MiB);

	/* the key is gone (an older kernel): numa_stat, and the re-assert */
	fx_cgroup_stat(fx, "/gold", 500 * MiB, 0, NULL);
	fx_cgroup_stat(fx, "/job1", 600 * MiB, 0, NULL);
	fx_cgroup_stat(fx, "/job2", 350 * MiB, 0, NULL);
	lc.len = 0;
	lc.buf[0] = '\0';
	ck_assert_int_eq(rebalance(s, fx, topo, p, 3000000, false, &ops), 0);
	sum = fair_state_summary(s);
	ck_assert(!sum->kernel_ceiling);
	ck_assert_strstr(lc.buf, "enforced through tier-aware limits [");
	d = fair_state_find(s, "/job1");
	ck_assert(d->reassert_high && !d->kernel_ceiling);
	ck_assert_strstr(lc.buf, "/job1: memory.high 660602880 rewritten");
	/* job2: 340 MiB on the fast tier says numa_stat now, target 192 MiB */
	ck_assert_strstr(lc.buf, "/job2: memory.high 402653184 rewritten");
	ck_assert_uint_eq(sum->n_writes, writes + 2);

	/* one sharer's kernel without the key: not all of them, no flag */
	fx_cgroup_stat(fx, "/gold", 500 * MiB, 0, "104857600");
	fx_cgroup_stat(fx, "/job2", 350 * MiB, 0, "52428800");
	ck_assert_int_eq(rebalance(s, fx, topo, p, 4000000, false, &ops), 0);
	ck_assert(!fair_state_summary(s)->kernel_ceiling);
	ck_assert(fair_state_find(s, "/job1")->reassert_high);
	ck_assert(fair_state_find(s, "/gold")->kernel_ceiling);

	fair_state_free(s);
	tier_topology_free(topo);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

/* tierd stops: every hold is given back. */
START_TEST(test_release_all)
{
	struct fx *fx = fx_new();
	struct fair_state *s = state();
	struct fair_config c = config(FAIR_METHOD_PROMOTION, 100 * MiB);
	struct fair_input in[2] = { cg("/a", 90 * MiB, 150 * MiB), cg("/b", 10 * MiB, 150 * MiB) };
	struct fair_decision d[2];

	fx_cgroup(fx, "/a", "off");
	fx_cgroup(fx, "/b", "promote");
	ck_assert_int_eq(decide(s, &c, 2, in, d), 0);
	ck_assert(d[0].throttled);
	ck_assert_int_eq(fair_state_held(s), 1);
	ck_assert_int_eq(fair_release_all(s, fx->ctx, false, NULL), 0);
	ck_assert_int_eq(fair_state_held(s), 0);
	assert_file(fx, "a/memory.numa_balancing", "promote");
	assert_file(fx, "b/memory.numa_balancing", "promote");
	fair_state_free(s);
	fx_free(fx);
}
END_TEST

/*
 * mountinfo and swaps are read once while the cache is on, and again after
 * fair_state_host_changed() (issue 24, item 15: tierd re-parsed both every
 * round; it polls them now).  Without the cache, every round reads them.
 */
START_TEST(test_host_cache)
{
	struct fx *fx = fx_new();
	struct tier_policy *p = NULL;
	struct tier_topology *topo = NULL;
	struct fair_state *s = state();
	struct log_capture lc = {};
	struct fair_ops ops = { .userdata = &lc, .log = capture_log };
	uint64_t n;
	const char *swap = "Filename\tType\tSize\tUsed\tPriority\n/swap\tfile\t1024\t0\t-2\n";

	setup_host(fx);
	fx_cgroup(fx, "/gold", "full");
	fx_cgroup_numa(fx, "/gold", 100 * MiB, 400 * MiB, 0, 0);
	fx_cgroup(fx, "/job1", "promote");
	fx_cgroup_numa(fx, "/job1", 500 * MiB, 100 * MiB, 0, 0);
	fx_write(fx->cg, "job1/memory.reclaim", "-\n");
	fx_write(fx->sys, "kernel/mm/numa/demotion_enabled", "true\n");
	fx_write(fx->proc, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", policy_text, strlen(policy_text), NULL,
						 &p), 0);
	ck_assert_int_eq(tier_topology_read(fx->ctx, &topo), 0);

	fair_state_set_host_cache(s, true);
	/* the first round throttles /job1, the next ones demote its excess */
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1000000, false, &ops), 0);
	n = fair_state_summary(s)->n_demote_requests;
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1100000, false, &ops), 0);
	ck_assert_msg(fair_state_summary(s)->n_demote_requests == ++n, "%s", lc.buf);
	/* swap appears, unannounced: the cache still says none */
	fx_write(fx->proc, "swaps", swap);
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1200000, false, &ops), 0);
	ck_assert_uint_eq(fair_state_summary(s)->n_demote_requests, ++n);
	/* announced: read again, no demotion with swap */
	fair_state_host_changed(s);
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1300000, false, &ops), 0);
	ck_assert_uint_eq(fair_state_summary(s)->n_demote_requests, n);
	/* without the cache, every round reads it */
	fair_state_set_host_cache(s, false);
	fx_write(fx->proc, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
	ck_assert_int_eq(rebalance(s, fx, topo, p, 1400000, false, &ops), 0);
	ck_assert_uint_eq(fair_state_summary(s)->n_demote_requests, ++n);

	fair_state_free(s);
	tier_topology_free(topo);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

/*
 * A large state file (issue 24, item 12): 60,000 entries in reverse order,
 * every tenth cgroup twice (the second line with other values).  All load,
 * the first line of a cgroup counts, the repeats are bad lines.  Loading
 * sorted after each line (a minute for this file); now it sorts once.
 */
START_TEST(test_state_file_large)
{
	enum { N = 60000 };
	struct fair_state *t = state();
	char *text = NULL;
	size_t size = 0, bad = 0;
	FILE *f = open_memstream(&text, &size);
	char path[64];

	ck_assert_ptr_nonnull(f);
	fprintf(f, "tierd-fair-state 1\n");
	for (int i = N - 1; i >= 0; i--) {
		fprintf(f, "/c%05d 1 0 62914560 125829120 209715200 -\n", i);
		if (i % 10 == 0)
			fprintf(f, "/c%05d 0 0 1 1 1 -\n", i);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fair_state_load(t, text, size, &bad), N);
	ck_assert_uint_eq(bad, N / 10);
	for (int i = 0; i < N; i += 7) {
		const struct fair_decision *d;

		snprintf(path, sizeof(path), "/c%05d", i);
		d = fair_state_find(t, path);
		ck_assert_ptr_nonnull(d);
		ck_assert_str_eq(d->path, path);
		ck_assert(d->limited); /* the first line, not the repeat */
	}
	ck_assert_ptr_null(fair_state_find(t, "/c60000"));
	ck_assert_int_eq(fair_state_held(t), N);
	free(text);
	fair_state_free(t);
}
END_TEST

/*
 * A cgroup with 8,000 processes (issue 24, item 12): 4,000 executables,
 * each run by two of them.  The observe lists each executable once, in the
 * order of its first process; the pairwise check before took seconds.
 */
START_TEST(test_observe_many_exes)
{
	enum { NP = 8000, NE = 4000 };
	struct fx *fx = fx_new();
	struct tier_observed *obs = NULL;
	const char *const *exes;
	char *procs = NULL, link[PATH_MAX], target[64];
	size_t size = 0, n = 0;
	FILE *f = open_memstream(&procs, &size);
	int dfd;

	fx_cgroup(fx, "/big", "inherit");
	ck_assert_ptr_nonnull(f);
	for (int pid = 1; pid <= NP; pid++) {
		/* PID p runs exe (p - 1) % NE, in a scrambled order */
		int e = (int)(((unsigned)(pid - 1) % NE) * 7919u % NE);

		fprintf(f, "%d\n", pid);
		snprintf(link, sizeof(link), "%s/%d", fx->proc, pid);
		ck_assert_int_eq(mkdir(link, 0755), 0);
		snprintf(link, sizeof(link), "%s/%d/exe", fx->proc, pid);
		snprintf(target, sizeof(target), "/usr/bin/prog%05d", e);
		ck_assert_int_eq(symlink(target, link), 0);
	}
	ck_assert_int_eq(fclose(f), 0);
	fx_write(fx->cg, "big/cgroup.procs", procs);
	ck_assert_int_eq(tier_cgroup_open(fx->ctx, "/big", &dfd), 0);
	ck_assert_int_eq(tier_observe_cgroup_at(fx->ctx, NULL, dfd, "/big", TIER_OBSERVE_EXE, &obs),
			 0);
	close(dfd);
	exes = tier_observed_cgroup_exes(tier_observed_get(obs, 0));
	for (; exes[n]; n++) {
		snprintf(target, sizeof(target), "/usr/bin/prog%05d", (int)(n * 7919u % NE));
		ck_assert_str_eq(exes[n], target);
	}
	ck_assert_uint_eq(n, NE);
	tier_observed_free(obs);
	free(procs);
	fx_free(fx);
}
END_TEST

static Suite *suite_fair_decide(void)
{
	Suite *s = suite_create("tierd-fair");
	TCase *tc = tcase_create("decide");

	tcase_add_test(tc, test_shares_as_given);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_target_hysteresis);
	tcase_add_test(tc, test_promotion_switch);
	tcase_add_test(tc, test_promotion_demote);
	tcase_add_test(tc, test_dwell);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_limits_kernel_ceiling);
	tcase_add_test(tc, test_appear_and_leave);
	tcase_add_test(tc, test_method_change);
	tcase_add_test(tc, test_filter_entry);
	tcase_add_test(tc, test_high_for_target);
	tcase_add_test(tc, test_page_size);
	tcase_add_test(tc, test_state_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("io");
	tcase_add_test(tc, test_mountinfo);
	tcase_add_test(tc, test_rebalance_fake_tree);
	tcase_add_test(tc, test_rebalance_kernel_ceiling);
	tcase_add_test(tc, test_release_all);
	tcase_add_test(tc, test_host_cache);
	suite_add_tcase(s, tc);
	tc = tcase_create("scale");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_state_file_large);
	tcase_add_test(tc, test_observe_many_exes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_fair_decide());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
