// SPDX-License-Identifier: LGPL-2.1-or-later
/* Weighted max-min fair shares and Jain's index. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fixture.h"

#define NONE UINT64_MAX

static uint64_t sum(const uint64_t *t, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += t[i];
	return s;
}

START_TEST(test_equal_and_weighted)
{
	struct tier_share_input in[3] = {
		{ 100, 0, NONE, NONE }, { 100, 0, NONE, NONE }, { 200, 0, NONE, NONE }
	};
	uint64_t t[3];

	ck_assert_int_eq(tier_fair_share(1000, 2, in, t), 0);
	ck_assert_uint_eq(t[0], 500);
	ck_assert_uint_eq(t[1], 500);
	ck_assert_int_eq(tier_fair_share(1000, 3, in, t), 0);
	ck_assert_uint_eq(t[0], 250);
	ck_assert_uint_eq(t[1], 250);
	ck_assert_uint_eq(t[2], 500);
	/* rounding leftovers are handed out: the sum is the capacity */
	ck_assert_int_eq(tier_fair_share(1001, 3, in, t), 0);
	ck_assert_uint_eq(sum(t, 3), 1001);
}
END_TEST

START_TEST(test_caps_redistribute)
{
	/* a small demand and a max: what they cannot use goes to the others */
	struct tier_share_input in[4] = {
		{ 100, 0, NONE, 50 },	/* demand 50 */
		{ 100, 0, 100, NONE },	/* max 100 */
		{ 100, 0, NONE, NONE },
		{ 300, 0, NONE, NONE },
	};
	uint64_t t[4];

	ck_assert_int_eq(tier_fair_share(1000, 4, in, t), 0);
	ck_assert_uint_eq(t[0], 50);
	ck_assert_uint_eq(t[1], 100);
	/* 850 left for weights 100:300: 212.5 and 637.5, the odd byte to the first */
	ck_assert_uint_eq(t[2], 213);
	ck_assert_uint_eq(t[3], 637);
	ck_assert_uint_eq(sum(t, 4), 1000);
	/* everyone capped: capacity is left over */
	in[2].demand = 10;
	in[3].max = 20;
	ck_assert_int_eq(tier_fair_share(1000, 4, in, t), 0);
	ck_assert_uint_eq(t[2], 10);
	ck_assert_uint_eq(t[3], 20);
	ck_assert_uint_eq(sum(t, 4), 180);
}
END_TEST

START_TEST(test_minimums)
{
	struct tier_share_input in[3] = {
		{ 100, 400, NONE, NONE },
		{ 100, 0, NONE, NONE },
		{ 100, 100, 100, NONE },
	};
	uint64_t t[3];

	/* minimums first, the rest (500) by weight on top, capped by max */
	ck_assert_int_eq(tier_fair_share(1000, 3, in, t), 0);
	ck_assert_uint_eq(t[2], 100);
	ck_assert_uint_eq(t[0], 650);
	ck_assert_uint_eq(t[1], 250);
	/* a minimum is granted even above demand */
	in[0].demand = 10;
	ck_assert_int_eq(tier_fair_share(1000, 3, in, t), 0);
	ck_assert_uint_eq(t[0], 400);
	ck_assert_uint_eq(t[1], 500);
	/* minimums above capacity are scaled down proportionally */
	ck_assert_int_eq(tier_fair_share(250, 3, in, t), 0);
	ck_assert_uint_eq(t[0], 200);
	ck_assert_uint_eq(t[1], 0);
	ck_assert_uint_eq(t[2], 50);
}
END_TEST

START_TEST(test_fair_errors_and_big)
{
	struct tier_share_input in[2] = { { 0, 0, NONE, NONE }, { 1, 0, NONE, NONE } };
	uint64_t t[2] = { 7, 7 };

	ck_assert_int_eq(tier_fair_share(100, 2, in, t), -EINVAL);
	in[0].weight = 1;
	in[0].min = 10;
	in[0].max = 5;
	ck_assert_int_eq(tier_fair_share(100, 2, in, t), -EINVAL);
	ck_assert_uint_eq(t[0], 7);
	ck_assert_int_eq(tier_fair_share(100, 0, NULL, NULL), 0);
	/* no overflow with huge values */
	in[0] = (struct tier_share_input){ 10000, 0, NONE, NONE };
	in[1] = (struct tier_share_input){ 10000, 0, NONE, NONE };
	ck_assert_int_eq(tier_fair_share(UINT64_MAX, 2, in, t), 0);
	ck_assert_uint_eq(t[0], UINT64_MAX / 2 + 1);
	ck_assert_uint_eq(t[1], UINT64_MAX / 2);
}
END_TEST

START_TEST(test_jain)
{
	const double eq[] = { 1, 1, 1, 1 }, one[] = { 1, 0, 0, 0 }, z[] = { 0, 0 };
	const double half[] = { 1, 0.5 };

	ck_assert(fabs(tier_jain_index(4, eq) - 1.0) < 1e-12);
	ck_assert(fabs(tier_jain_index(4, one) - 0.25) < 1e-12);
	ck_assert(fabs(tier_jain_index(2, half) - 0.9) < 1e-12);
	ck_assert(fabs(tier_jain_index(2, z) - 1.0) < 1e-12);
	ck_assert(fabs(tier_jain_index(0, NULL) - 1.0) < 1e-12);
}
END_TEST

Suite *suite_fair(void)
{
	Suite *s = suite_create("fair");
	TCase *tc = tcase_create("fair");

	tcase_add_test(tc, test_equal_and_weighted);
	tcase_add_test(tc, test_caps_redistribute);
	tcase_add_test(tc, test_minimums);
	tcase_add_test(tc, test_fair_errors_and_big);
	tcase_add_test(tc, test_jain);
	suite_add_tcase(s, tc);
	return s;
}
