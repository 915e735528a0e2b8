// SPDX-License-Identifier: LGPL-2.1-or-later
/* Topology over fake sysfs trees. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define KB 1024ull

/* A plain one-socket host: one node, one tier (memory_tier4), all top. */
START_TEST(test_one_tier)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;
	const struct tier_node *n;
	const struct tier_memtier *mt;

	fx_node(fx, 0, 8023180, 6862036);
	fx_node_lists(fx, "0", "0");
	fx_memtier(fx, 4, "0");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	ck_assert_uint_eq(tier_topology_node_count(t), 1);
	ck_assert_uint_eq(tier_topology_tier_count(t), 1);
	n = tier_topology_node(t, 0);
	ck_assert_int_eq(tier_node_id(n), 0);
	ck_assert_int_eq(tier_node_tier(n), 4);
	ck_assert(tier_node_has_memory(n) && tier_node_has_cpu(n) && tier_node_is_toptier(n));
	ck_assert_uint_eq(tier_node_mem_total(n), 8023180 * KB);
	ck_assert_uint_eq(tier_node_mem_free(n), 6862036 * KB);
	mt = tier_topology_tier(t, 0);
	ck_assert_int_eq(tier_memtier_id(mt), 4);
	ck_assert(tier_memtier_is_top(mt));
	ck_assert_uint_eq(tier_memtier_node_count(mt), 1);
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 8023180 * KB);
	ck_assert_uint_eq(tier_topology_total_capacity(t), 8023180 * KB);
	ck_assert(tier_topology_node_is_toptier(t, 0));
	ck_assert_int_eq(tier_memtier_node(mt, 0), 0);
	ck_assert_int_eq(tier_memtier_node(mt, 1), -1);
	ck_assert_ptr_null(tier_topology_node(t, 1));
	ck_assert_ptr_null(tier_topology_tier(t, 1));
	ck_assert_int_eq(tier_node_id(NULL), TIER_ID_NONE);
	ck_assert_uint_eq(tier_memtier_node_count(NULL), 0);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* The two-tier VM: node 0 DRAM with CPUs (tier 4), node 1 CXL-like (tier 67). */
START_TEST(test_two_tiers)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;

	fx_node(fx, 0, 2 * 1024 * 1024, 1024 * 1024);
	fx_node(fx, 1, 1024 * 1024, 1000 * 1024);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 67, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	ck_assert_uint_eq(tier_topology_tier_count(t), 2);
	ck_assert_int_eq(tier_memtier_id(tier_topology_tier(t, 0)), 4);
	ck_assert(tier_memtier_is_top(tier_topology_tier(t, 0)));
	ck_assert_int_eq(tier_memtier_id(tier_topology_tier(t, 1)), 67);
	ck_assert(!tier_memtier_is_top(tier_topology_tier(t, 1)));
	ck_assert(tier_topology_node_is_toptier(t, 0));
	ck_assert(!tier_topology_node_is_toptier(t, 1));
	ck_assert(!tier_node_has_cpu(tier_topology_find_node(t, 1)));
	ck_assert_int_eq(tier_node_tier(tier_topology_find_node(t, 1)), 67);
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 2ull << 30);
	ck_assert_uint_eq(tier_topology_total_capacity(t), 3ull << 30);
	ck_assert_uint_eq(tier_memtier_mem_free(tier_topology_tier(t, 1)), 1000 * 1024 * KB);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* Node ranges in nodelist; CPU-less fast nodes are top tier too. */
START_TEST(test_node_ranges)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;
	const struct tier_memtier *mt;

	for (int i = 0; i < 5; i++)
		fx_node(fx, i, 1024 * 1024, 512 * 1024);
	fx_node_lists(fx, "0-4", "0-1");
	fx_memtier(fx, 4, "0-1,3");
	fx_memtier(fx, 67, "2,4");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	mt = tier_topology_tier(t, 0);
	ck_assert_uint_eq(tier_memtier_node_count(mt), 3);
	ck_assert_int_eq(tier_memtier_node(mt, 0), 0);
	ck_assert_int_eq(tier_memtier_node(mt, 1), 1);
	ck_assert_int_eq(tier_memtier_node(mt, 2), 3);
	ck_assert(tier_topology_node_is_toptier(t, 3));
	ck_assert(!tier_topology_node_is_toptier(t, 2));
	ck_assert(!tier_topology_node_is_toptier(t, 4));
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 3ull << 30);
	ck_assert_uint_eq(tier_topology_total_capacity(t), 5ull << 30);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* A CPU in a slower tier makes everything up to it top tier (node_is_toptier). */
START_TEST(test_cpu_in_lower_tier)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;

	fx_node(fx, 0, 1024, 512);
	fx_node(fx, 1, 1024, 512);
	fx_node(fx, 2, 1024, 512);
	fx_node_lists(fx, "0-2", "1");
	fx_memtier(fx, 3, "0");
	fx_memtier(fx, 4, "1");
	fx_memtier(fx, 67, "2");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	ck_assert(tier_topology_node_is_toptier(t, 0));
	ck_assert(tier_topology_node_is_toptier(t, 1));
	ck_assert(!tier_topology_node_is_toptier(t, 2));
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 2048 * KB);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* No has_cpu: the fastest tier with memory is top.  Memoryless node in no tier. */
START_TEST(test_no_cpu_info)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;

	fx_node(fx, 0, 1024, 512);
	fx_node(fx, 1, 2048, 512);
	fx_node(fx, 2, 0, 0);
	fx_node_lists(fx, "0-1", NULL);
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 5, "");
	fx_memtier(fx, 67, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	ck_assert_uint_eq(tier_topology_tier_count(t), 3);
	ck_assert(tier_topology_node_is_toptier(t, 0));
	ck_assert(!tier_topology_node_is_toptier(t, 1));
	ck_assert(!tier_node_has_memory(tier_topology_find_node(t, 2)));
	ck_assert_int_eq(tier_node_tier(tier_topology_find_node(t, 2)), TIER_ID_NONE);
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 1024 * KB);
	ck_assert_uint_eq(tier_topology_total_capacity(t), 3072 * KB);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* A kernel without memory_tiering: one synthetic tier. */
START_TEST(test_no_memory_tiering)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;

	fx_node(fx, 0, 1024, 512);
	fx_node(fx, 1, 1024, 512);
	fx_node_lists(fx, "0-1", "0-1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	ck_assert_uint_eq(tier_topology_tier_count(t), 1);
	ck_assert_int_eq(tier_memtier_id(tier_topology_tier(t, 0)), TIER_ID_NONE);
	ck_assert(tier_memtier_is_top(tier_topology_tier(t, 0)));
	ck_assert_uint_eq(tier_memtier_node_count(tier_topology_tier(t, 0)), 2);
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 2048 * KB);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* A non-NUMA kernel: node 0 from /proc/meminfo. */
START_TEST(test_non_numa)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = (void *)0x1;

	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), -ENOENT);
	ck_assert_ptr_eq(t, (void *)0x1);
	fx_write(fx->proc, "meminfo",
		 "MemTotal:       16318516 kB\nMemFree:         9182736 kB\n"
		 "MemAvailable:   12000000 kB\nHugePages_Total:       0\n");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	ck_assert_uint_eq(tier_topology_node_count(t), 1);
	ck_assert_uint_eq(tier_topology_fast_capacity(t), 16318516 * KB);
	ck_assert_uint_eq(tier_topology_tier_count(t), 1);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

START_TEST(test_bad_meminfo)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;

	fx_write(fx->sys, "devices/system/node/node0/meminfo", "Node 0 MemTotal: lots kB\n");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), -EINVAL);
	fx_write(fx->sys, "devices/system/node/node0/meminfo", "Node 0 MemTotal: 5 kB\n");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), -ENODATA);
	fx_node(fx, 0, 1024, 512);
	fx_memtier(fx, 4, "0-");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), -EINVAL);
	ck_assert_ptr_null(t);
	fx_free(fx);
}
END_TEST

Suite *suite_topology(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("topology");

	tcase_add_test(tc, test_one_tier);
	tcase_add_test(tc, test_two_tiers);
	tcase_add_test(tc, test_node_ranges);
	tcase_add_test(tc, test_cpu_in_lower_tier);
	tcase_add_test(tc, test_no_cpu_info);
	tcase_add_test(tc, test_no_memory_tiering);
	tcase_add_test(tc, test_non_numa);
	tcase_add_test(tc, test_bad_meminfo);
	suite_add_tcase(s, tc);
	return s;
}
