// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/damon.c on a fake DAMON sysfs tree.  The fake cannot make directories
 * when a count file is written (nr_kdamonds, nr_schemes, ...): each test
 * creates what the 6.12 kernel would have, with its default values, and
 * asserts what the library wrote, read and returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "damon.h"

#define ADMIN "sys/kernel/mm/damon/admin"

static char *kp(unsigned k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *kp(unsigned k, const char *fmt, ...)
{
	char *tail, *s;
	va_list ap;

	va_start(ap, fmt);
	ck_assert(vasprintf(&tail, fmt, ap) >= 0);
	va_end(ap);
	ck_assert(asprintf(&s, ADMIN "/kdamonds/%u/%s", k, tail) >= 0);
	free(tail);
	return s;
}

/* Write / read / compare a file below kdamonds/<k>. */
static void kw(struct fx *fx, unsigned k, const char *rel, const char *content)
{
	char *p = kp(k, "%s", rel);

	fx_write(fx->root, p, content);
	free(p);
}

static void kassert(struct fx *fx, unsigned k, const char *rel, const char *want)
{
	char *p = kp(k, "%s", rel), *got = fx_read(fx->root, p);

	ck_assert_msg(got, "%s missing", p);
	ck_assert_msg(!strcmp(got, want), "%s: '%s', want '%s'", p, got, want);
	free(got);
	free(p);
}

/* kdamonds/<k>/{state,pid} and an empty contexts/ as nr_kdamonds makes it. */
static void fake_kdamond(struct fx *fx, unsigned k, bool on, int pid)
{
	char buf[16];

	kw(fx, k, "state", on ? "on\n" : "off\n");
	snprintf(buf, sizeof(buf), "%d\n", pid);
	kw(fx, k, "pid", buf);
	kw(fx, k, "contexts/nr_contexts", "0\n");
}

static void fake_nr_kdamonds(struct fx *fx, unsigned n)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u\n", n);
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", buf);
}

/* contexts/0 with nr regions, schemes, filters and goals per scheme, as the
 * kernel shows them after those counts were written (its defaults). */
static void fake_context(struct fx *fx, unsigned k, unsigned nr_regions, unsigned nr_schemes,
			 unsigned nr_filters, unsigned nr_goals)
{
	static const char *const scheme_files[][2] = {
		{ "action", "stat\n" },
		{ "target_nid", "-1\n" },
		{ "apply_interval_us", "0\n" },
		{ "access_pattern/sz/min", "0\n" },
		{ "access_pattern/sz/max", "0\n" },
		{ "access_pattern/nr_accesses/min", "0\n" },
		{ "access_pattern/nr_accesses/max", "0\n" },
		{ "access_pattern/age/min", "0\n" },
		{ "access_pattern/age/max", "0\n" },
		{ "quotas/ms", "0\n" },
		{ "quotas/bytes", "0\n" },
		{ "quotas/reset_interval_ms", "0\n" },
		{ "quotas/effective_bytes", "0\n" },
		{ "quotas/weights/sz_permil", "0\n" },
		{ "quotas/weights/nr_accesses_permil", "0\n" },
		{ "quotas/weights/age_permil", "0\n" },
		{ "watermarks/metric", "none\n" },
		{ "stats/nr_tried", "0\n" },
		{ "stats/sz_tried", "0\n" },
		{ "stats/nr_applied", "0\n" },
		{ "stats/sz_applied", "0\n" },
		{ "stats/qt_exceeds", "0\n" },
		{ "tried_regions/total_bytes", "0\n" },
	};
	char buf[32], rel[160];

	kw(fx, k, "contexts/nr_contexts", "1\n");
	kw(fx, k, "contexts/0/avail_operations", "vaddr\nfvaddr\npaddr\n");
	kw(fx, k, "contexts/0/operations", "vaddr\n");
	kw(fx, k, "contexts/0/monitoring_attrs/intervals/sample_us", "5000\n");
	kw(fx, k, "contexts/0/monitoring_attrs/intervals/aggr_us", "100000\n");
	kw(fx, k, "contexts/0/monitoring_attrs/intervals/update_us", "1000000\n");
	kw(fx, k, "contexts/0/monitoring_attrs/nr_regions/min", "10\n");
	kw(fx, k, "contexts/0/monitoring_attrs/nr_regions/max", "1000\n");
	kw(fx, k, "contexts/0/targets/nr_targets", "1\n");
	kw(fx, k, "contexts/0/targets/0/pid_target", "0\n");
	snprintf(buf, sizeof(buf), "%u\n", nr_regions);
	kw(fx, k, "contexts/0/targets/0/regions/nr_regions", buf);
	for (unsigned i = 0; i < nr_regions; i++) {
		snprintf(rel, sizeof(rel), "contexts/0/targets/0/regions/%u/start", i);
		kw(fx, k, rel, "0\n");
		snprintf(rel, sizeof(rel), "contexts/0/targets/0/regions/%u/end", i);
		kw(fx, k, rel, "0\n");
	}
	snprintf(buf, sizeof(buf), "%u\n", nr_schemes);
	kw(fx, k, "contexts/0/schemes/nr_schemes", buf);
	for (unsigned i = 0; i < nr_schemes; i++) {
		for (size_t f = 0; f < ARRAY_SIZE(scheme_files); f++) {
			snprintf(rel, sizeof(rel), "contexts/0/schemes/%u/%s", i, scheme_files[f][0]);
			kw(fx, k, rel, scheme_files[f][1]);
		}
		snprintf(rel, sizeof(rel), "contexts/0/schemes/%u/filters/nr_filters", i);
		snprintf(buf, sizeof(buf), "%u\n", nr_filters);
		kw(fx, k, rel, buf);
		for (unsigned j = 0; j < nr_filters; j++) {
			static const char *const ff[][2] = {
				{ "type", "anon\n" },	  { "matching", "N\n" },
				{ "memcg_path", "\n" },	  { "addr_start", "0\n" },
				{ "addr_end", "0\n" },	  { "damon_target_idx", "0\n" },
			};

			for (size_t f = 0; f < ARRAY_SIZE(ff); f++) {
				snprintf(rel, sizeof(rel), "contexts/0/schemes/%u/filters/%u/%s", i,
					 j, ff[f][0]);
				kw(fx, k, rel, ff[f][1]);
			}
		}
		snprintf(rel, sizeof(rel), "contexts/0/schemes/%u/quotas/goals/nr_goals", i);
		snprintf(buf, sizeof(buf), "%u\n", nr_goals);
		kw(fx, k, rel, buf);
		for (unsigned j = 0; j < nr_goals; j++) {
			static const char *const gf[][2] = {
				{ "target_metric", "user_input\n" },
				{ "target_value", "0\n" },
				{ "current_value", "0\n" },
			};

			for (size_t f = 0; f < ARRAY_SIZE(gf); f++) {
				snprintf(rel, sizeof(rel), "contexts/0/schemes/%u/quotas/goals/%u/%s",
					 i, j, gf[f][0]);
				kw(fx, k, rel, gf[f][1]);
			}
		}
	}
}

static struct tier_damon *open_fake(struct fx *fx)
{
	struct tier_damon *d = NULL;

	ck_assert_int_eq(tier_damon_open(fx->sys, fx->proc, &d), 0);
	return d;
}

/* The config of the VM case: promote /promote's hot pages of node 1, and
 * a stat scheme with a user_input goal. */
static const struct tier_damon_range regions[] = {
	{ 0x10000000, 0x18000000 },
	{ 0x20000000, 0x28000000 },
};
static const struct tier_damon_filter promote_filters[] = {
	{ .type = TIER_DAMON_FILTER_MEMCG, .matching = false, .memcg_path = "/promote" },
	{ .type = TIER_DAMON_FILTER_YOUNG, .matching = false },
};
static const struct tier_damon_filter stat_filters[] = {
	{ .type = TIER_DAMON_FILTER_ANON, .matching = true },
	{ .type = TIER_DAMON_FILTER_ADDR, .matching = true, .addr = { 4096, 8192 } },
};
static const struct tier_damon_goal goals[] = {
	{ .metric = TIER_DAMON_GOAL_USER_INPUT, .target_value = 10000, .current_value = 2500 },
};
static const struct tier_damon_scheme schemes[] = {
	{
		.action = TIER_DAMON_MIGRATE_HOT,
		.target_nid = 0,
		.sz = { 4096, UINT64_MAX },
		.nr_accesses = { 1, 20 },
		.age = { 0, 4294967295u },
		.quota_bytes = 64 << 20,
		.quota_reset_interval_ms = 1000,
		.filters = promote_filters,
		.nr_filters = 2,
	},
	{
		.action = TIER_DAMON_STAT,
		.target_nid = -1,
		.sz = { 0, UINT64_MAX },
		.nr_accesses = { 0, 0 },
		.age = { 10, 4294967295u },
		.quota_ms = 10,
		.weight_age = 1000,
		.goals = goals,
		.nr_goals = 1,
		.filters = stat_filters,
		.nr_filters = 2,
	},
};
static const struct tier_damon_config config = {
	.sample_us = 10000,
	.aggr_us = 200000,
	.update_us = 2000000,
	.min_nr_regions = 10,
	.max_nr_regions = 1000,
	.regions = regions,
	.nr_regions = 2,
	.schemes = schemes,
	.nr_schemes = 2,
};

START_TEST(test_damon_open)
{
	struct fx *fx = fx_new();
	struct tier_damon *d = NULL;

	/* no DAMON sysfs interface */
	ck_assert_int_eq(tier_damon_open(fx->sys, NULL, &d), -ENOENT);
	ck_assert_ptr_null(d);
	fake_nr_kdamonds(fx, 0);
	ck_assert_int_eq(tier_damon_open(fx->sys, NULL, &d), 0);
	tier_damon_free(d);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_list)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;
	_cleanup_free_ struct tier_damon_kdamond *list = NULL;
	struct tier_damon_kdamond k;
	size_t n = 99;

	fake_nr_kdamonds(fx, 2);
	fake_kdamond(fx, 0, true, 4321);
	fake_kdamond(fx, 1, false, -1);
	d = open_fake(fx);
	ck_assert_int_eq(tier_damon_kdamond_list(d, &list, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(list[0].running);
	ck_assert_int_eq(list[0].pid, 4321);
	ck_assert(!list[1].running);
	ck_assert_int_eq(list[1].pid, -1);
	ck_assert_uint_eq(list[1].index, 1);
	ck_assert_int_eq(tier_damon_kdamond_get(d, 2, &k), -ENOENT);
	/* a state the kernel never shows */
	kw(fx, 1, "state", "maybe\n");
	ck_assert_int_eq(tier_damon_kdamond_get(d, 1, &k), -EINVAL);
	kw(fx, 1, "state", "off\n");
	kw(fx, 1, "pid", "12x\n");
	ck_assert_int_eq(tier_damon_kdamond_get(d, 1, &k), -EINVAL);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_add)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;
	char *v;
	unsigned idx = 77;

	/* someone else's kdamond runs: the kernel would refuse nr_kdamonds */
	fake_nr_kdamonds(fx, 1);
	fake_kdamond(fx, 0, true, 99);
	d = open_fake(fx);
	ck_assert_int_eq(tier_damon_kdamond_add(d, &idx), -EBUSY);
	ck_assert_uint_eq(idx, 77);
	v = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
	ck_assert_str_eq(v, "1\n");
	free(v);

	/* stopped: n -> n + 1; the fake has the directory the kernel makes */
	fake_kdamond(fx, 0, false, -1);
	fake_kdamond(fx, 1, false, -1);
	ck_assert_int_eq(tier_damon_kdamond_add(d, &idx), 0);
	ck_assert_uint_eq(idx, 1);
	v = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
	ck_assert_str_eq(v, "2");
	free(v);

	/* the kernel did not make it: an error, not an index */
	idx = 77;
	ck_assert_int_eq(tier_damon_kdamond_add(d, &idx), -ENOENT);
	ck_assert_uint_eq(idx, 77);

	/* two at once (tierd's kdamond per tier): n -> n + 2, the first new
	 * index; none while one runs */
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "2\n");
	fake_kdamond(fx, 2, false, -1);
	fake_kdamond(fx, 3, false, -1);
	ck_assert_int_eq(tier_damon_kdamond_add_n(d, 0, &idx), -EINVAL);
	ck_assert_int_eq(tier_damon_kdamond_add_n(d, 2, &idx), 0);
	ck_assert_uint_eq(idx, 2);
	v = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
	ck_assert_str_eq(v, "4");
	free(v);
	fake_kdamond(fx, 3, true, 123);
	idx = 77;
	ck_assert_int_eq(tier_damon_kdamond_add_n(d, 2, &idx), -EBUSY);
	ck_assert_uint_eq(idx, 77);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_stage)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;
	uint64_t fp = 0, fp2 = 1;
	char *p;

	fake_nr_kdamonds(fx, 1);
	fake_kdamond(fx, 0, false, -1);
	fake_context(fx, 0, 2, 2, 2, 1);
	/* counts already right: never rewritten (that would recreate dirs) */
	p = kp(0, "contexts/0/schemes/nr_schemes");
	fx_age(fx->root, p);
	d = open_fake(fx);
	ck_assert_int_eq(tier_damon_stage(d, 0, &config, &fp), 0);
	ck_assert_int_eq(fx_mtime(fx->root, p), 1000000000);
	free(p);

	kassert(fx, 0, "contexts/0/operations", "paddr");
	kassert(fx, 0, "contexts/0/monitoring_attrs/intervals/sample_us", "10000");
	kassert(fx, 0, "contexts/0/monitoring_attrs/intervals/aggr_us", "200000");
	kassert(fx, 0, "contexts/0/monitoring_attrs/intervals/update_us", "2000000");
	kassert(fx, 0, "contexts/0/targets/0/regions/0/start", "268435456");
	kassert(fx, 0, "contexts/0/targets/0/regions/1/end", "671088640");
	kassert(fx, 0, "contexts/0/schemes/0/action", "migrate_hot");
	kassert(fx, 0, "contexts/0/schemes/0/target_nid", "0");
	kassert(fx, 0, "contexts/0/schemes/0/access_pattern/sz/max", "18446744073709551615");
	kassert(fx, 0, "contexts/0/schemes/0/access_pattern/nr_accesses/min", "1");
	kassert(fx, 0, "contexts/0/schemes/0/quotas/bytes", "67108864");
	kassert(fx, 0, "contexts/0/schemes/0/quotas/reset_interval_ms", "1000");
	kassert(fx, 0, "contexts/0/schemes/0/filters/0/type", "memcg");
	kassert(fx, 0, "contexts/0/schemes/0/filters/0/matching", "N");
	kassert(fx, 0, "contexts/0/schemes/0/filters/0/memcg_path", "/promote");
	kassert(fx, 0, "contexts/0/schemes/0/filters/1/type", "young");
	kassert(fx, 0, "contexts/0/schemes/0/quotas/goals/nr_goals", "0");
	kassert(fx, 0, "contexts/0/schemes/1/action", "stat");
	kassert(fx, 0, "contexts/0/schemes/1/target_nid", "-1");
	kassert(fx, 0, "contexts/0/schemes/1/quotas/ms", "10");
	kassert(fx, 0, "contexts/0/schemes/1/quotas/weights/age_permil", "1000");
	kassert(fx, 0, "contexts/0/schemes/1/quotas/goals/0/target_metric", "user_input");
	kassert(fx, 0, "contexts/0/schemes/1/quotas/goals/0/target_value", "10000");
	kassert(fx, 0, "contexts/0/schemes/1/quotas/goals/0/current_value", "2500");
	kassert(fx, 0, "contexts/0/schemes/1/filters/0/type", "anon");
	kassert(fx, 0, "contexts/0/schemes/1/filters/0/matching", "Y");
	kassert(fx, 0, "contexts/0/schemes/1/filters/1/type", "addr");
	kassert(fx, 0, "contexts/0/schemes/1/filters/1/addr_start", "4096");
	kassert(fx, 0, "contexts/0/schemes/1/filters/1/addr_end", "8192");
	kassert(fx, 0, "contexts/0/schemes/1/watermarks/metric", "none");

	/* the read-back fingerprint is the staged one */
	ck_assert_int_eq(tier_damon_fingerprint_read(d, 0, &fp2), 0);
	ck_assert(fp == fp2);
	/* the goal's current value: staged, then passed on by a command */
	ck_assert_int_eq(tier_damon_goal_set_current(d, 0, 1, 0, 7777), 0);
	kassert(fx, 0, "contexts/0/schemes/1/quotas/goals/0/current_value", "7777");
	ck_assert_int_eq(tier_damon_commit_goals(d, 0), 0);
	kassert(fx, 0, "state", "commit_schemes_quota_goals");
	/* a different memcg: another fingerprint */
	kw(fx, 0, "contexts/0/schemes/0/filters/0/memcg_path", "/other\n");
	ck_assert_int_eq(tier_damon_fingerprint_read(d, 0, &fp2), 0);
	ck_assert(fp != fp2);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_stage_counts)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;

	/* counts of 0 (as after nr_contexts was written): written, and the
	 * fake has the directories the kernel would make for them */
	fake_nr_kdamonds(fx, 1);
	fake_kdamond(fx, 0, false, -1);
	fake_context(fx, 0, 2, 2, 2, 1);
	kw(fx, 0, "contexts/0/schemes/nr_schemes", "0\n");
	kw(fx, 0, "contexts/0/schemes/0/filters/nr_filters", "5\n");
	kw(fx, 0, "contexts/0/targets/0/regions/nr_regions", "0\n");
	d = open_fake(fx);
	ck_assert_int_eq(tier_damon_stage(d, 0, &config, NULL), 0);
	kassert(fx, 0, "contexts/0/schemes/nr_schemes", "2");
	kassert(fx, 0, "contexts/0/schemes/0/filters/nr_filters", "2");
	kassert(fx, 0, "contexts/0/targets/0/regions/nr_regions", "2");
	kassert(fx, 0, "contexts/0/schemes/1/quotas/goals/nr_goals", "1\n");
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_stage_errors)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;
	struct tier_damon_config bad = config;
	struct tier_damon_scheme bad_scheme = schemes[0];
	const struct tier_damon_range bad_regions[] = { { 10, 10 } };
	const struct tier_damon_range overlapping[] = { { 0, 8192 }, { 4096, 16384 } };
	const struct tier_damon_filter no_path[] = { { .type = TIER_DAMON_FILTER_MEMCG } };
	const struct tier_damon_goal zero_goal[] = { { .target_value = 0 } };
	char *p;

	fake_nr_kdamonds(fx, 1);
	fake_kdamond(fx, 0, false, -1);
	fake_context(fx, 0, 2, 2, 2, 1);
	d = open_fake(fx);

	bad.regions = bad_regions;
	bad.nr_regions = 1;
	ck_assert_int_eq(tier_damon_stage(d, 0, &bad, NULL), -EINVAL);
	bad.regions = overlapping;
	bad.nr_regions = 2;
	ck_assert_int_eq(tier_damon_stage(d, 0, &bad, NULL), -EINVAL);
	bad.nr_regions = 0;
	ck_assert_int_eq(tier_damon_stage(d, 0, &bad, NULL), -EINVAL);
	bad = config;
	bad.schemes = &bad_scheme;
	bad.nr_schemes = 1;
	bad_scheme.filters = no_path;
	bad_scheme.nr_filters = 1;
	ck_assert_int_eq(tier_damon_stage(d, 0, &bad, NULL), -EINVAL);
	bad_scheme = schemes[0];
	bad_scheme.goals = zero_goal;
	bad_scheme.nr_goals = 1;
	ck_assert_int_eq(tier_damon_stage(d, 0, &bad, NULL), -EINVAL);
	bad_scheme = schemes[0];
	bad_scheme.action = _TIER_DAMON_ACTION_MAX;
	ck_assert_int_eq(tier_damon_stage(d, 0, &bad, NULL), -EINVAL);
	/* nothing was written by a refused config */
	kassert(fx, 0, "contexts/0/operations", "vaddr\n");

	/* a symlink where an attribute or a directory should be: refused,
	 * its target untouched */
	fx_write(fx->root, "elsewhere", "x\n");
	p = kp(0, "contexts/0/operations");
	fx_unlink(fx->root, p);
	free(p);
	p = kp(0, "contexts/0/operations");
	{
		char *link = NULL, *target = NULL;

		ck_assert(asprintf(&link, "%s/%s", fx->root, p) >= 0);
		ck_assert(asprintf(&target, "%s/elsewhere", fx->root) >= 0);
		ck_assert_int_eq(symlink(target, link), 0);
		free(link);
		free(target);
	}
	free(p);
	ck_assert_int_eq(tier_damon_stage(d, 0, &config, NULL), -ELOOP);
	p = fx_read(fx->root, "elsewhere");
	ck_assert_str_eq(p, "x\n");
	free(p);
	p = kp(0, "contexts/0/operations");
	fx_unlink(fx->root, p);
	free(p);

	/* a missing file: the kernel's ENOENT passed on */
	fake_context(fx, 0, 2, 2, 2, 1);
	p = kp(0, "contexts/0/schemes/1/quotas/bytes");
	fx_unlink(fx->root, p);
	free(p);
	ck_assert_int_eq(tier_damon_stage(d, 0, &config, NULL), -ENOENT);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_commands)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;
	struct tier_damon_stats st = { 0 };
	uint64_t bytes = 0;

	fake_nr_kdamonds(fx, 1);
	fake_kdamond(fx, 0, true, 500);
	fake_context(fx, 0, 1, 1, 0, 0);
	d = open_fake(fx);
	ck_assert_int_eq(tier_damon_start(d, 0), 0);
	kassert(fx, 0, "state", "on");
	ck_assert_int_eq(tier_damon_update_stats(d, 0), 0);
	kassert(fx, 0, "state", "update_schemes_stats");
	ck_assert_int_eq(tier_damon_update_tried_bytes(d, 0), 0);
	kassert(fx, 0, "state", "update_schemes_tried_bytes");
	/* the kdamond still runs after the commit */
	ck_assert_int_eq(tier_damon_commit(d, 0), 0);
	kassert(fx, 0, "state", "commit");
	/* the kernel refused the input and stopped it */
	kw(fx, 0, "pid", "-1\n");
	ck_assert_int_eq(tier_damon_commit(d, 0), -ESRCH);
	ck_assert_int_eq(tier_damon_stop(d, 0), 0);
	kassert(fx, 0, "state", "off");

	kw(fx, 0, "contexts/0/schemes/0/stats/nr_tried", "12\n");
	kw(fx, 0, "contexts/0/schemes/0/stats/sz_tried", "49152\n");
	kw(fx, 0, "contexts/0/schemes/0/stats/nr_applied", "3\n");
	kw(fx, 0, "contexts/0/schemes/0/stats/sz_applied", "12288\n");
	kw(fx, 0, "contexts/0/schemes/0/stats/qt_exceeds", "1\n");
	kw(fx, 0, "contexts/0/schemes/0/tried_regions/total_bytes", "8192\n");
	ck_assert_int_eq(tier_damon_stats_read(d, 0, 0, &st), 0);
	ck_assert_uint_eq(st.nr_tried, 12);
	ck_assert_uint_eq(st.sz_tried, 49152);
	ck_assert_uint_eq(st.nr_applied, 3);
	ck_assert_uint_eq(st.sz_applied, 12288);
	ck_assert_uint_eq(st.qt_exceeds, 1);
	ck_assert_int_eq(tier_damon_tried_bytes_read(d, 0, 0, &bytes), 0);
	ck_assert_uint_eq(bytes, 8192);
	/* no such scheme; a malformed value; untouched out-parameter */
	ck_assert_int_eq(tier_damon_stats_read(d, 0, 1, &st), -ENOENT);
	kw(fx, 0, "contexts/0/schemes/0/stats/qt_exceeds", "-1\n");
	ck_assert_int_eq(tier_damon_stats_read(d, 0, 0, &st), -EINVAL);
	ck_assert_uint_eq(st.nr_tried, 12);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_owner_file)
{
	struct fx *fx = fx_new();
	struct tier_damon_owner o = { 3, 812, 123456, 0x0123456789abcdefull }, r = { 0 };
	_cleanup_close_ int dfd = open(fx->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *v;

	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(tier_damon_owner_load(dfd, "damon-owner", &r), -ENOENT);
	ck_assert_int_eq(tier_damon_owner_save(dfd, "damon-owner", &o), 0);
	v = fx_read(fx->root, "damon-owner");
	ck_assert_str_eq(v, "tierd-damon-owner 1\nindex 3\npid 812\nstarttime 123456\n"
			    "fingerprint 0123456789abcdef\n");
	free(v);
	ck_assert_int_eq(tier_damon_owner_load(dfd, "damon-owner", &r), 0);
	ck_assert_uint_eq(r.index, 3);
	ck_assert_int_eq(r.pid, 812);
	ck_assert_uint_eq(r.starttime, 123456);
	ck_assert(r.fingerprint == o.fingerprint);
	ck_assert_int_eq(fx_mtime(fx->root, ".damon-owner.tmp"), 0);

	/* malformed: refused, never half-read */
	fx_write(fx->root, "bad1", "something else\nindex 1\n");
	ck_assert_int_eq(tier_damon_owner_load(dfd, "bad1", &r), -EINVAL);
	fx_write(fx->root, "bad2", "tierd-damon-owner 1\nindex 1\npid 2\nstarttime 3\n");
	ck_assert_int_eq(tier_damon_owner_load(dfd, "bad2", &r), -EINVAL);
	fx_write(fx->root, "bad3", "tierd-damon-owner 1\nindex x\npid 2\nstarttime 3\n"
				   "fingerprint 0123456789abcdef\n");
	ck_assert_int_eq(tier_damon_owner_load(dfd, "bad3", &r), -EINVAL);
	ck_assert_uint_eq(r.index, 3);
	ck_assert_int_eq(tier_damon_owner_load(dfd, "../x", &r), -EINVAL);
	/* never through a symlink */
	ck_assert_int_eq(symlinkat("damon-owner", dfd, "link"), 0);
	ck_assert_int_eq(tier_damon_owner_load(dfd, "link", &r), -ELOOP);
	ck_assert_int_eq(tier_damon_owner_remove(dfd, "damon-owner"), 0);
	ck_assert_int_eq(tier_damon_owner_remove(dfd, "damon-owner"), -ENOENT);

	/* version 2: tierd's two kdamonds (one per tier), in order; a version
	 * 1 record reads as one */
	{
		struct tier_damon_owner two[2] = { { 4, 900, 11, 0x1111111111111111ull },
						   { 5, -1, 0, 0x2222222222222222ull } };
		struct tier_damon_owner got[TIER_DAMON_OWNERS_MAX];
		size_t n = 0;

		ck_assert_int_eq(tier_damon_owners_save(dfd, "damon-owner", two, 2), 0);
		v = fx_read(fx->root, "damon-owner");
		ck_assert_str_eq(v, "tierd-damon-owner 2\nkdamonds 2\nindex 4\npid 900\n"
				    "starttime 11\nfingerprint 1111111111111111\nindex 5\n"
				    "pid -1\nstarttime 0\nfingerprint 2222222222222222\n");
		free(v);
		ck_assert_int_eq(tier_damon_owners_load(dfd, "damon-owner", got, 2, &n), 0);
		ck_assert_uint_eq(n, 2);
		ck_assert(got[0].index == 4 && got[0].pid == 900 && got[0].starttime == 11 &&
			  got[0].fingerprint == two[0].fingerprint);
		ck_assert(got[1].index == 5 && got[1].pid == -1 &&
			  got[1].fingerprint == two[1].fingerprint);
		/* one kdamond only: owner_load refuses two */
		ck_assert_int_eq(tier_damon_owner_load(dfd, "damon-owner", &r), -EINVAL);
		ck_assert_int_eq(tier_damon_owners_load(dfd, "damon-owner", got, 1, &n), -EINVAL);
		ck_assert_int_eq(tier_damon_owner_save(dfd, "damon-owner", &o), 0);
		ck_assert_int_eq(tier_damon_owners_load(dfd, "damon-owner", got, 2, &n), 0);
		ck_assert_uint_eq(n, 1);
		ck_assert_uint_eq(got[0].index, 3);
		/* a block cut short, or fewer blocks than announced */
		fx_write(fx->root, "bad4", "tierd-damon-owner 2\nkdamonds 2\nindex 4\npid 900\n"
					   "starttime 11\nfingerprint 1111111111111111\nindex 5\n"
					   "pid 3\n");
		ck_assert_int_eq(tier_damon_owners_load(dfd, "bad4", got, 2, &n), -EINVAL);
		fx_write(fx->root, "bad5", "tierd-damon-owner 2\nkdamonds 2\nindex 4\npid 900\n"
					   "starttime 11\nfingerprint 1111111111111111\n");
		ck_assert_int_eq(tier_damon_owners_load(dfd, "bad5", got, 2, &n), -EINVAL);
		ck_assert_int_eq(tier_damon_owners_save(dfd, "damon-owner", two, 3), -EINVAL);
		ck_assert_int_eq(tier_damon_owner_remove(dfd, "damon-owner"), 0);
	}
	fx_free(fx);
}
END_TEST

static void fake_proc_stat(struct fx *fx, int pid, uint64_t starttime)
{
	char rel[64], buf[256];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	/* a comm with a space and a parenthesis, as a thread name may have */
	snprintf(buf, sizeof(buf),
		 "%d (kdamond.0 x)) S 2 0 0 0 -1 2129984 0 0 0 0 0 37 0 0 20 0 1 0 %llu 0 0 "
		 "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0\n",
		 pid, (unsigned long long)starttime);
	fx_write(fx->root, rel, buf);
}

START_TEST(test_damon_reclaim)
{
	struct fx *fx = fx_new();
	_cleanup_(tier_damon_freep) struct tier_damon *d = NULL;
	struct tier_damon_owner o = { 0 }, rec;
	uint64_t fp = 0;
	bool running = false;

	/* kdamond 0: someone else's, running; 1: ours */
	fake_nr_kdamonds(fx, 2);
	fake_kdamond(fx, 0, true, 300);
	fake_kdamond(fx, 1, false, -1);
	fake_context(fx, 1, 2, 2, 2, 1);
	fake_proc_stat(fx, 300, 1111);
	fake_proc_stat(fx, 301, 2222);
	d = open_fake(fx);
	ck_assert_int_eq(tier_damon_stage(d, 1, &config, &fp), 0);
	kw(fx, 1, "state", "on\n");
	kw(fx, 1, "pid", "301\n");
	ck_assert_int_eq(tier_damon_owner_of(d, 1, fp, &o), 0);
	ck_assert_uint_eq(o.index, 1);
	ck_assert_int_eq(o.pid, 301);
	ck_assert_uint_eq(o.starttime, 2222);
	ck_assert(o.fingerprint == fp);

	/* running, same thread: ours */
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), 0);
	ck_assert(running);
	/* the record names the other user's kdamond: never ours */
	rec = o;
	rec.index = 0;
	ck_assert_int_eq(tier_damon_reclaim(d, &rec, &running), -ESTALE);
	/* our kdamond stopped and pid 301 came back as another thread */
	fake_proc_stat(fx, 301, 9999);
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), -ESTALE);
	fake_proc_stat(fx, 301, 2222);
	/* another pid */
	kw(fx, 1, "pid", "302\n");
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), -ESTALE);
	/* stopped (a refused commit, an admin): ours by the staged input */
	kw(fx, 1, "state", "off\n");
	kw(fx, 1, "pid", "-1\n");
	running = true;
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), 0);
	ck_assert(!running);
	/* the input changed under it: not ours any more */
	kw(fx, 1, "contexts/0/schemes/1/action", "pageout\n");
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), -ESTALE);
	/* nr_kdamonds rewritten by someone: a fresh, empty directory */
	fake_kdamond(fx, 1, false, -1);
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), -ESTALE);
	/* and gone */
	fake_nr_kdamonds(fx, 1);
	{
		char *p = NULL;

		ck_assert(asprintf(&p, "%s/" ADMIN "/kdamonds/1", fx->root) >= 0);
		fx_rmtree(p);
		free(p);
	}
	ck_assert_int_eq(tier_damon_reclaim(d, &o, &running), -ESTALE);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_node_ranges)
{
	struct fx *fx = fx_new();
	_cleanup_free_ struct tier_damon_range *r = NULL;
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t n = 0;

	fx_write(fx->root, "proc/zoneinfo",
		 "Node 0, zone      DMA\n"
		 "  per-node stats\n"
		 "      nr_inactive_anon 10\n"
		 "  pages free     3\n"
		 "        spanned  4095\n"
		 "        present  3998\n"
		 "        managed  3840\n"
		 "        protection: (0, 1, 2, 3, 4)\n"
		 "  pagesets\n"
		 "  node_unreclaimable:  0\n"
		 "  start_pfn:           1\n"
		 "Node 0, zone    DMA32\n"
		 "        spanned  61440\n"
		 "        present  61440\n"
		 "  start_pfn:           4096\n"
		 "Node 0, zone   Normal\n"
		 "  pages free     0\n"
		 "        spanned  0\n"
		 "        present  0\n"
		 "        protection: (0, 0, 0, 0, 0)\n"
		 "Node 1, zone   Normal\n"
		 "        spanned  65536\n"
		 "        present  65536\n"
		 "  start_pfn:           1048576\n"
		 "Node 1, zone  Movable\n"
		 "        spanned  1024\n"
		 "        present  1024\n"
		 "  start_pfn:           1114112\n"
		 "Node 1, zone   Device\n"
		 "        spanned  0\n"
		 "        present  0\n");
	ck_assert_int_eq(tier_damon_node_ranges(fx->proc, 0, &r, &n), 0);
	ck_assert_uint_eq(n, 1);	/* DMA and DMA32 are adjacent: merged */
	ck_assert_uint_eq(r[0].start, 1 * ps);
	ck_assert_uint_eq(r[0].end, 65536 * ps);
	free(r);
	r = NULL;
	ck_assert_int_eq(tier_damon_node_ranges(fx->proc, 1, &r, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].start, 1048576 * ps);
	ck_assert_uint_eq(r[0].end, (1114112 + 1024) * ps);
	free(r);
	r = NULL;
	ck_assert_int_eq(tier_damon_node_ranges(fx->proc, 2, &r, &n), -ENOENT);
	fx_write(fx->root, "proc/zoneinfo", "Node 0, zone DMA\n        spanned  x1\n");
	ck_assert_int_eq(tier_damon_node_ranges(fx->proc, 0, &r, &n), -EINVAL);
	ck_assert_ptr_null(r);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_modules)
{
	struct fx *fx = fx_new();
	unsigned mask = 99;

	/* a kernel without them */
	ck_assert_int_eq(tier_damon_modules_enabled(fx->sys, &mask), 0);
	ck_assert_uint_eq(mask, 0);
	fx_write(fx->root, "sys/module/damon_reclaim/parameters/enabled", "N\n");
	fx_write(fx->root, "sys/module/damon_lru_sort/parameters/enabled", "Y\n");
	ck_assert_int_eq(tier_damon_modules_enabled(fx->sys, &mask), 0);
	ck_assert_uint_eq(mask, TIER_DAMON_MODULE_LRU_SORT);
	fx_write(fx->root, "sys/module/damon_reclaim/parameters/enabled", "Y\n");
	ck_assert_int_eq(tier_damon_modules_enabled(fx->sys, &mask), 0);
	ck_assert_uint_eq(mask, TIER_DAMON_MODULE_LRU_SORT | TIER_DAMON_MODULE_RECLAIM);
	fx_write(fx->root, "sys/module/damon_reclaim/parameters/enabled", "maybe\n");
	mask = 99;
	ck_assert_int_eq(tier_damon_modules_enabled(fx->sys, &mask), -EINVAL);
	ck_assert_uint_eq(mask, 99);
	fx_free(fx);
}
END_TEST

START_TEST(test_damon_ranges_split)
{
	const struct tier_damon_range in[] = { { 0x100000, 0x500000 }, { 0x800000, 0x880000 } };
	const struct tier_damon_range bad[] = { { 8192, 8192 } };
	_cleanup_free_ struct tier_damon_range *out = NULL;
	size_t n = 0;

	ck_assert_int_eq(tier_damon_ranges_split(in, 2, 0x180000, &out, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(out[0].start, 0x100000);
	ck_assert_uint_eq(out[0].end, 0x280000);
	ck_assert_uint_eq(out[1].end, 0x400000);
	ck_assert_uint_eq(out[2].start, 0x400000);
	ck_assert_uint_eq(out[2].end, 0x500000);	/* the rest, shorter */
	ck_assert_uint_eq(out[3].start, 0x800000);
	ck_assert_uint_eq(out[3].end, 0x880000);
	free(out);
	out = NULL;
	/* 0: as they are */
	ck_assert_int_eq(tier_damon_ranges_split(in, 2, 0, &out, &n), 0);
	ck_assert_uint_eq(n, 2);
	free(out);
	out = NULL;
	ck_assert_int_eq(tier_damon_ranges_split(in, 2, 1000, &out, &n), -EINVAL);
	ck_assert_int_eq(tier_damon_ranges_split(bad, 1, 4096, &out, &n), -EINVAL);
	/* 1 TB in 4 KB pieces: refused, not 268 million regions */
	{
		const struct tier_damon_range huge[] = { { 0, 1ull << 40 } };

		ck_assert_int_eq(tier_damon_ranges_split(huge, 1, 4096, &out, &n), -E2BIG);
		ck_assert_ptr_null(out);
	}
}
END_TEST

Suite *suite_damon(void)
{
	Suite *s = suite_create("damon");
	TCase *tc = tcase_create("damon");

	tcase_add_test(tc, test_damon_open);
	tcase_add_test(tc, test_damon_list);
	tcase_add_test(tc, test_damon_add);
	tcase_add_test(tc, test_damon_stage);
	tcase_add_test(tc, test_damon_stage_counts);
	tcase_add_test(tc, test_damon_stage_errors);
	tcase_add_test(tc, test_damon_commands);
	tcase_add_test(tc, test_damon_owner_file);
	tcase_add_test(tc, test_damon_reclaim);
	tcase_add_test(tc, test_damon_node_ranges);
	tcase_add_test(tc, test_damon_modules);
	tcase_add_test(tc, test_damon_ranges_split);
	suite_add_tcase(s, tc);
	return s;
}
