// SPDX-License-Identifier: LGPL-2.1-or-later
/* The fair share of the fast tier (tier_share_*) on a fake tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

#define MiB (1024ull * 1024ull)

/* Two nodes of 1 GiB; node 0 (with the CPU) is the fast tier. */
static struct tier_topology *two_tiers(struct fx *fx)
{
	struct tier_topology *topo = NULL;

	fx_node(fx, 0, 1024 * 1024, 100 * 1024);
	fx_node(fx, 1, 1024 * 1024, 900 * 1024);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 22, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &topo), 0);
	return topo;
}

static struct tier_policy *policy(const char *text)
{
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	return p;
}

static void populated(struct fx *fx, const char *path, int v)
{
	char *rel, *content;

	ck_assert(asprintf(&rel, "%s/cgroup.events", path) > 0);
	ck_assert(asprintf(&content, "populated %d\nfrozen 0\n", v) > 0);
	fx_write(fx->cg, rel, content);
	free(rel);
	free(content);
}

/* The share of a fresh plan of the fake tree, computed. */
static struct tier_share *share_of(struct fx *fx, const struct tier_topology *topo,
				   const struct tier_policy *p)
{
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	struct tier_share *s = NULL;

	ck_assert_int_eq(tier_observe(fx->ctx, topo, NULL, 0, &obs), 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_int_eq(tier_share_new(&s), 0);
	ck_assert_int_eq(tier_share_add_plan(s, plan), 0);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	/* the share keeps nothing of the plan but the classes and rules */
	tier_plan_free(plan);
	tier_observed_free(obs);
	return s;
}

static uint64_t target_of(const struct tier_share *s, const char *path)
{
	size_t i = 99;

	ck_assert_msg(tier_share_find(s, path, &i) == 0, "%s does not share", path);
	ck_assert_str_eq(fx_share_path(s, i), path);
	return tier_share_target(s, i);
}

static const char *const text =
	"[daemon]\n"
	"fast_tier_reserve = 256M\n"
	"[class:gold]\n"
	"weight = 200\n"
	"toptier_min = 25%\n"
	"[class:batch]\n"
	"weight = 100\n"
	"toptier_max = 100M\n"
	"[class:job]\n"
	"[rule:gold]\n"
	"class = gold\n"
	"cgroup = /gold\n"
	"[rule:batch]\n"
	"class = batch\n"
	"cgroup = /batch/**\n"
	"[rule:job]\n"
	"class = job\n"
	"cgroup = /job\n"
	"cgroup = /job/**\n";

/*
 * Who shares: the top-most managed, populated cgroups.  Nested managed
 * cgroups are their ancestor's; an empty one holds nothing, not even its
 * minimum; an unmanaged one is not a candidate.
 */
START_TEST(test_who_shares)
{
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(text);
	struct tier_share *s;
	size_t i;

	fx_cgroup(fx, "/gold", "full");
	fx_cgroup_numa(fx, "/gold", 300 * MiB, 300 * MiB, 0, 0);
	fx_cgroup(fx, "/job", "promote");
	fx_cgroup_numa(fx, "/job", 100 * MiB, 100 * MiB, 50 * MiB, 50 * MiB);
	fx_cgroup(fx, "/job/sub", "promote");		/* nested: /job's */
	fx_cgroup_numa(fx, "/job/sub", 100 * MiB, 0, 0, 0);
	fx_cgroup(fx, "/batch", "full");		/* unmanaged parent */
	fx_cgroup(fx, "/batch/a", "off");		/* top-most managed */
	fx_cgroup_numa(fx, "/batch/a", 10 * MiB, 500 * MiB, 0, 0);
	fx_cgroup(fx, "/batch/empty", "off");		/* no process: no share */
	fx_cgroup_numa(fx, "/batch/empty", 0, 500 * MiB, 0, 0);
	populated(fx, "/batch/empty", 0);
	populated(fx, "/gold", 1);
	fx_cgroup(fx, "/other", "full");		/* no rule */
	fx_cgroup_numa(fx, "/other", 900 * MiB, 0, 0, 0);

	s = share_of(fx, topo, p);
	/* 1 GiB fast tier minus 256M */
	ck_assert_uint_eq(tier_share_capacity(s), 768 * MiB);
	ck_assert_uint_eq(tier_share_count(s), 3);
	/* in the order added: the plan's pre-order */
	ck_assert_str_eq(fx_share_path(s, 0), "/batch/a");
	ck_assert_str_eq(fx_share_path(s, 1), "/gold");
	ck_assert_str_eq(fx_share_path(s, 2), "/job");
	ck_assert_int_eq(tier_share_path(s, 3, NULL, 0), -EINVAL);
	ck_assert_int_eq(tier_share_find(s, "/job/sub", &i), -ENOENT);
	ck_assert_int_eq(tier_share_find(s, "/batch/empty", &i), -ENOENT);
	ck_assert_int_eq(tier_share_find(s, "/other", &i), -ENOENT);
	ck_assert_int_eq(tier_share_find(s, "/batch", &i), -ENOENT);
	ck_assert_int_eq(tier_share_find(s, NULL, &i), -EINVAL);

	/* inputs: /job's demand is its own numa_stat (which includes /job/sub) */
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_demand(s, i), 300 * MiB);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 150 * MiB);
	ck_assert_uint_eq(tier_share_weight(s, i), 100);
	ck_assert_str_eq(tier_class_name(tier_share_class(s, i)), "job");
	ck_assert_str_eq(tier_rule_name(tier_share_rule(s, i)), "job");
	ck_assert_int_eq(tier_share_find(s, "/gold", &i), 0);
	/* 25% of the capacity shared, not of the whole fast tier */
	ck_assert_uint_eq(tier_share_min(s, i), 192 * MiB);
	ck_assert_uint_eq(tier_share_max(s, i), UINT64_MAX);
	ck_assert_uint_eq(tier_share_weight(s, i), 200);
	ck_assert_int_eq(tier_share_find(s, "/batch/a", &i), 0);
	ck_assert_uint_eq(tier_share_max(s, i), 100 * MiB);

	/*
	 * Water-filling of 768M: gold's minimum 192M first; the other 576M by
	 * 200:100:100 would give batch/a 144M, above its 100M maximum: it gets
	 * 100M, and the 476M left go 2:1 to gold and job (the odd byte to
	 * gold, the first of them).
	 */
	ck_assert_uint_eq(target_of(s, "/batch/a"), 100 * MiB);
	ck_assert_uint_eq(target_of(s, "/job"), 476 * MiB / 3);
	ck_assert_uint_eq(target_of(s, "/gold"), 192 * MiB + 476 * MiB * 2 / 3 + 1);
	ck_assert_uint_eq(target_of(s, "/gold") + target_of(s, "/job") + target_of(s, "/batch/a"),
			  768 * MiB);

	/* computing again after /batch/empty fills: it shares now */
	populated(fx, "/batch/empty", 1);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_uint_eq(tier_share_count(s), 4);
	ck_assert_int_eq(tier_share_find(s, "/batch/empty", &i), 0);
	ck_assert_uint_eq(tier_share_target(s, i), 100 * MiB);
	/* the whole tree vanishes: nobody shares, no error */
	fx_rmtree(fx->cg);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_uint_eq(tier_share_count(s), 0);
	ck_assert_int_eq(tier_share_find(s, "/gold", &i), -ENOENT);

	tier_share_free(s);
	tier_policy_unref(p);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

/* Demand without memory.numa_stat: memory.current; without both: unknown. */
START_TEST(test_demand_sources)
{
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(text);
	struct tier_share *s;
	size_t i;

	fx_cgroup(fx, "/job", "promote");
	fx_unlink(fx->cg, "job/memory.numa_stat");
	s = share_of(fx, topo, p);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_demand(s, i), 8388608);	/* fixture's memory.current */
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 0);
	ck_assert_uint_eq(tier_share_target(s, i), 8388608);
	fx_unlink(fx->cg, "job/memory.current");
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_demand(s, i), UINT64_MAX);
	ck_assert_uint_eq(tier_share_target(s, i), 768 * MiB);	/* all of it */
	tier_share_free(s);
	tier_policy_unref(p);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

/*
 * The kernel's exact top-tier counter: where memory.stat has "toptier", it
 * is the fast bytes and memory.stat's anon + file the demand (one read);
 * without it, or with a value that is not a number, memory.numa_stat as
 * before.  tier_share_fast_exact() says which.
 */
START_TEST(test_toptier_source)
{
	static const char *const bad[] = { "lots", "-4096", "", "4096 4096", "99999999999999999999" };
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(text);
	struct tier_share *s;
	char *v;
	size_t i;

	fx_cgroup(fx, "/job", "promote");
	fx_cgroup_numa(fx, "/job", 100 * MiB, 100 * MiB, 50 * MiB, 50 * MiB);
	fx_cgroup(fx, "/gold", "full");
	fx_cgroup_numa(fx, "/gold", 300 * MiB, 300 * MiB, 0, 0);

	/* absent: numa_stat, as on every kernel before */
	s = share_of(fx, topo, p);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 150 * MiB);
	ck_assert_uint_eq(tier_share_demand(s, i), 300 * MiB);
	ck_assert(!tier_share_fast_exact(s, i));
	tier_share_free(s);

	/* present: the counter is the fast bytes, memory.stat the demand (the
	 * numa_stat of this fake tree says otherwise, and is not read) */
	fx_cgroup_stat(fx, "/job", 200 * MiB, 120 * MiB, "104857600");
	s = share_of(fx, topo, p);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 100 * MiB);
	ck_assert_uint_eq(tier_share_demand(s, i), 320 * MiB);
	ck_assert(tier_share_fast_exact(s, i));
	/* the other one's kernel file has no key (the fixture's): numa_stat */
	ck_assert_int_eq(tier_share_find(s, "/gold", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 300 * MiB);
	ck_assert(!tier_share_fast_exact(s, i));
	/* out of range */
	ck_assert(!tier_share_fast_exact(s, 99));
	ck_assert(!tier_share_fast_exact(NULL, 0));

	/* the statistics lag the counter: the demand is never below it */
	fx_cgroup_stat(fx, "/job", 10 * MiB, 10 * MiB, "52428800");
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 50 * MiB);
	ck_assert_uint_eq(tier_share_demand(s, i), 50 * MiB);
	ck_assert(tier_share_fast_exact(s, i));

	/* memory.stat without anon/file: the demand from numa_stat, the fast
	 * bytes still the counter */
	fx_write(fx->cg, "job/memory.stat", "toptier 4096\n");
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 4096);
	ck_assert_uint_eq(tier_share_demand(s, i), 300 * MiB);
	ck_assert(tier_share_fast_exact(s, i));
	/* ... and without numa_stat: memory.current */
	fx_unlink(fx->cg, "job/memory.numa_stat");
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 4096);
	ck_assert_uint_eq(tier_share_demand(s, i), 8388608);
	ck_assert(tier_share_fast_exact(s, i));
	fx_cgroup_numa(fx, "/job", 100 * MiB, 100 * MiB, 50 * MiB, 50 * MiB);

	/* malformed: as if absent, numa_stat gives both */
	for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
		fx_cgroup_stat(fx, "/job", 200 * MiB, 120 * MiB, bad[k]);
		ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
		ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
		ck_assert_msg(tier_share_fast_bytes(s, i) == 150 * MiB, "toptier '%s'", bad[k]);
		ck_assert_uint_eq(tier_share_demand(s, i), 300 * MiB);
		ck_assert(!tier_share_fast_exact(s, i));
	}
	/* only the exact key: the pg*_toptier counters are no top-tier bytes */
	fx_cgroup_stat(fx, "/job", 200 * MiB, 120 * MiB, NULL);
	v = fx_read(fx->cg, "job/memory.stat");
	ck_assert_strstr(v, "pgdemote_toptier 11");
	free(v);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_uint_eq(tier_share_fast_bytes(s, i), 150 * MiB);
	ck_assert(!tier_share_fast_exact(s, i));

	tier_share_free(s);
	tier_policy_unref(p);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

/* A symlinked candidate (someone else's directory) is left out, nothing
 * is read through it; one tier: nothing to share. */
/*
 * tierd's round: paths borrowed from its table (not copied), and the knobs
 * it enforces read through the share's own fds (tier_share_info()).
 */
START_TEST(test_borrow_and_info)
{
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(text);
	const struct tier_class *gold = tier_policy_find_class(p, "gold");
	char gold_path[] = "/gold", job_path[] = "/job";
	const struct tier_cgroup_info *info;
	struct tier_share *s = NULL;
	uint64_t v;
	size_t i;

	fx_cgroup(fx, "/gold", "promote");
	fx_write(fx->cg, "/gold/memory.high", "104857600\n");
	fx_cgroup(fx, "/job", "off");
	ck_assert_int_eq(tier_share_new(&s), 0);
	tier_share_set_info(s, TIER_INFO_HIGH | TIER_INFO_MODE);
	ck_assert_int_eq(tier_share_add(s, gold_path, gold), 0);
	ck_assert_int_eq(tier_share_add(s, job_path, tier_policy_find_class(p, "job")), 0);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/gold", &i), 0);
	ck_assert_str_eq(fx_share_path(s, i), gold_path);
	info = tier_share_info(s, i);
	ck_assert_ptr_nonnull(info);
	ck_assert_int_eq(tier_cgroup_info_get(info, TIER_INFO_HIGH, &v), 0);
	ck_assert_uint_eq(v, 100ull << 20);
	ck_assert_int_eq(tier_cgroup_info_get(info, TIER_INFO_MODE, &v), 0);
	ck_assert_int_eq((enum tier_mode)v, TIER_MODE_PROMOTE);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_int_eq(tier_cgroup_info_get(tier_share_info(s, i), TIER_INFO_MODE, &v), 0);
	ck_assert_int_eq((enum tier_mode)v, TIER_MODE_OFF);
	ck_assert_ptr_null(tier_share_info(s, 99));
	/* again: the infos of the last compute are replaced, not leaked */
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	tier_share_free(s);

	/* without: no infos; a plan entry's interned path, as tierd adds its
	 * table's entries */
	{
		struct tier_observed *obs = NULL;
		struct tier_plan *plan = NULL;

		ck_assert_int_eq(tier_observed_new(0, &obs), 0);
		ck_assert_int_eq(tier_observed_add(obs, "/gold", NULL), 0);
		ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
		ck_assert_int_eq(tier_share_new(&s), 0);
		ck_assert_int_eq(tier_share_add_entry(s, tier_plan_entry(plan, 0)), 0);
		ck_assert_int_eq(tier_share_add_entry(s, tier_plan_entry(plan, 0)), -EEXIST);
		ck_assert_int_eq(tier_share_add(s, gold_path, gold), -EEXIST);
		/* the share holds the path, not the plan */
		tier_plan_free(plan);
		tier_observed_free(obs);
		ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
		ck_assert_int_eq(tier_share_find(s, "/gold", &i), 0);
		ck_assert_str_eq(fx_share_path(s, i), "/gold");
		ck_assert_ptr_null(tier_share_info(s, i));
		tier_share_free(s);
	}
	tier_topology_free(topo);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

START_TEST(test_hostile_and_one_tier)
{
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(text);
	const struct tier_class *job = tier_policy_find_class(p, "job");
	struct tier_share *s = NULL;
	char *out, *link;
	size_t i;

	fx_cgroup(fx, "/job", "promote");
	fx_cgroup(fx, "/elsewhere", "promote");
	fx_cgroup_numa(fx, "/elsewhere", 500 * MiB, 0, 0, 0);
	ck_assert(asprintf(&out, "%s/elsewhere", fx->cg) > 0);
	ck_assert(asprintf(&link, "%s/job/link", fx->cg) > 0);
	ck_assert_int_eq(symlink(out, link), 0);
	ck_assert_int_eq(tier_share_new(&s), 0);
	ck_assert_int_eq(tier_share_add(s, "/job/link", job), 0);
	ck_assert_int_eq(tier_share_add(s, "/job/link", job), -EEXIST);
	ck_assert_int_eq(tier_share_add(s, "/", job), -EINVAL);
	ck_assert_int_eq(tier_share_add(s, "job", job), -EINVAL);
	ck_assert_int_eq(tier_share_add(s, "/a/../b", job), -EINVAL);
	ck_assert_int_eq(tier_share_add(s, "/x", NULL), -EINVAL);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_uint_eq(tier_share_count(s), 0);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 1u << 7), -EINVAL);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, NULL, p, 0), -EINVAL);
	/* added without a plan: no rule */
	ck_assert_int_eq(tier_share_add(s, "/job", job), 0);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/job", &i), 0);
	ck_assert_ptr_null(tier_share_rule(s, i));
	ck_assert_ptr_eq(tier_share_class(s, i), job);
	tier_share_free(s);
	tier_topology_free(topo);

	/* one memory tier: all memory is "fast", no one shares */
	fx_rmtree(fx->sys);
	fx_node(fx, 0, 1024 * 1024, 100 * 1024);
	fx_node_lists(fx, "0", "0");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &topo), 0);
	s = share_of(fx, topo, p);
	ck_assert_uint_eq(tier_share_count(s), 0);
	ck_assert_uint_eq(tier_share_capacity(s), 0);
	tier_share_free(s);
	free(out);
	free(link);
	tier_policy_unref(p);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

/* Many candidates: every one is found (the hash grows), in O(1). */
/* Demand by hot set: a class with demand = hot shares by hot x (1 +
 * hot_margin), no more than its resident bytes; one the hot source has no
 * value for by its resident bytes (and says so); the water-filling then
 * gives the rest to the others.  The hot-sets file tierd writes is a hot
 * source for tierctl and tierd-metrics. */
static int hot_fake(void *userdata, const char *path, uint64_t *ret)
{
	if (strcmp(path, "/hog") == 0) {
		*ret = 16 * MiB;
		return 0;
	}
	if (strcmp(path, "/victim") == 0) {
		*ret = 1000 * MiB;	/* more than it has: capped at resident */
		return 0;
	}
	return -ENODATA;
}

START_TEST(test_demand_hot)
{
	static const char conf[] = "[daemon]\n"
				   "fast_tier_reserve = 0\n"
				   "demand = hot\n"
				   "hot_margin = 25%\n"
				   "[class:c]\n"
				   "[class:r]\n"
				   "demand = resident\n"
				   "[rule:a]\nclass = c\ncgroup = /hog\n"
				   "[rule:b]\nclass = c\ncgroup = /victim\n"
				   "[rule:d]\nclass = c\ncgroup = /new\n"
				   "[rule:e]\nclass = r\ncgroup = /res\n";
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(conf);
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	struct tier_share *s = NULL;
	const char *paths[] = { "/hog", "/we ird%" };
	const uint64_t hot[] = { 5 * MiB, 7 * MiB };
	uint64_t usec = 0;
	size_t i;
	int dfd;

	fx_cgroup(fx, "/hog", "promote");
	fx_cgroup_numa(fx, "/hog", 50 * MiB, 950 * MiB, 0, 0);
	fx_cgroup(fx, "/victim", "promote");
	fx_cgroup_numa(fx, "/victim", 10 * MiB, 70 * MiB, 0, 0);
	fx_cgroup(fx, "/new", "promote");
	fx_cgroup_numa(fx, "/new", 0, 30 * MiB, 0, 0);
	fx_cgroup(fx, "/res", "promote");
	fx_cgroup_numa(fx, "/res", 0, 20 * MiB, 0, 0);
	ck_assert_int_eq(tier_observe(fx->ctx, topo, NULL, 0, &obs), 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_int_eq(tier_share_new(&s), 0);
	ck_assert_int_eq(tier_share_add_plan(s, plan), 0);
	tier_share_set_hot_source(s, hot_fake, NULL);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/hog", &i), 0);
	ck_assert_int_eq(tier_share_demand_kind(s, i), TIER_DEMAND_HOT);
	ck_assert_uint_eq(tier_share_hot(s, i), 16 * MiB);
	ck_assert_uint_eq(tier_share_resident(s, i), 1000 * MiB);
	ck_assert_uint_eq(tier_share_demand(s, i), 20 * MiB);
	ck_assert_uint_eq(tier_share_target(s, i), 20 * MiB);
	ck_assert_int_eq(tier_share_find(s, "/victim", &i), 0);
	ck_assert_uint_eq(tier_share_demand(s, i), 80 * MiB);	/* resident */
	ck_assert_int_eq(tier_share_demand_kind(s, i), TIER_DEMAND_HOT);
	/* no measurement: resident, and it asked for hot */
	ck_assert_int_eq(tier_share_find(s, "/new", &i), 0);
	ck_assert_int_eq(tier_share_demand_kind(s, i), TIER_DEMAND_RESIDENT);
	ck_assert(tier_share_hot_wanted(s, i));
	ck_assert_uint_eq(tier_share_hot(s, i), UINT64_MAX);
	ck_assert_uint_eq(tier_share_demand(s, i), 30 * MiB);
	/* the class says resident: never asked */
	ck_assert_int_eq(tier_share_find(s, "/res", &i), 0);
	ck_assert(!tier_share_hot_wanted(s, i));
	ck_assert_uint_eq(tier_share_demand(s, i), 20 * MiB);

	/* the run directory's file, an odd path included */
	fx_mkdir(fx->root, "run");
	{
		char *run;

		ck_assert(asprintf(&run, "%s/run", fx->root) > 0);
		dfd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(run);
	}
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), -ENOENT);
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, paths, hot, NULL, NULL, 2,
					     42),
			 0);
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_uint_eq(usec, 42);
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_int_eq(tier_share_find(s, "/hog", &i), 0);
	ck_assert_uint_eq(tier_share_hot(s, i), 5 * MiB);
	ck_assert_int_eq(tier_share_find(s, "/victim", &i), 0);
	ck_assert_int_eq(tier_share_demand_kind(s, i), TIER_DEMAND_RESIDENT);
	fx_write(fx->root, "run/" TIER_HOT_SETS_NAME, "garbage\n");
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), -EINVAL);
	close(dfd);
	tier_share_free(s);
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

/* The run directory's hot-sets file: version 2 (per tier), version 1, and
 * what the reader skips. */
START_TEST(test_hot_sets_file)
{
	struct fx *fx = fx_new();
	struct tier_share *s = NULL;
	const char *paths[] = { "/a", "/we ird%\n\xff" };
	const uint64_t hot[] = { 5 * MiB, 7 * MiB }, fast[] = { 4 * MiB, 0 },
		       slow[] = { 1 * MiB, 7 * MiB }, bad_slow[] = { 2 * MiB, 7 * MiB };
	const char *empty[] = { "" };
	const uint64_t max[] = { UINT64_MAX };
	uint64_t usec = 0, v = 0, f = 0, sl = 0;
	char *run, *content = NULL;
	size_t size;
	int dfd;

	fx_mkdir(fx->root, "run");
	ck_assert(asprintf(&run, "%s/run", fx->root) > 0);
	dfd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(tier_share_new(&s), 0);

	/* version 2 with the split, an odd path included */
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, paths, hot, fast, slow, 2,
					     42),
			 0);
	{
		char *file;
		FILE *fp;

		ck_assert(asprintf(&file, "%s/" TIER_HOT_SETS_NAME, run) > 0);
		fp = fopen(file, "re");
		ck_assert_ptr_nonnull(fp);
		content = calloc(1, 4096);
		size = fread(content, 1, 4095, fp);
		fclose(fp);
		free(file);
	}
	ck_assert_str_eq(content, "tierd-hot-sets 2 42\n"
			       "5242880 4194304 1048576 /a\n"
			       "7340032 0 7340032 /we%20ird%25%0A%FF\n");
	ck_assert_uint_gt(size, 0);
	free(content);
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_uint_eq(usec, 42);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/a", &v), 0);
	ck_assert_uint_eq(v, 5 * MiB);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/a", &f, &sl), 0);
	ck_assert_uint_eq(f, 4 * MiB);
	ck_assert_uint_eq(sl, 1 * MiB);
	ck_assert_int_eq(tier_share_hot_loaded(s, paths[1], &v), 0);
	ck_assert_uint_eq(v, 7 * MiB);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, paths[1], &f, &sl), 0);
	ck_assert_uint_eq(f, 0);
	ck_assert_uint_eq(sl, 7 * MiB);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/nope", &f, &sl), -ENODATA);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/nope", &v), -ENODATA);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(NULL, "/a", &f, &sl), -EINVAL);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/a", NULL, &sl), -EINVAL);

	/* no split: "-", a total but -ENODATA per tier */
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, paths, hot, NULL, NULL, 2,
					     43),
			 0);
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_uint_eq(usec, 43);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/a", &v), 0);
	ck_assert_uint_eq(v, 5 * MiB);
	f = sl = 1;
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/a", &f, &sl), -ENODATA);
	ck_assert_uint_eq(f, 1);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, paths[1], &f, &sl), -ENODATA);

	/* what the writer refuses: half a split, one that does not add up,
	 * an empty path, "not measured" (the file stays as it was) */
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, paths, hot, fast, NULL, 2, 1),
			 -EINVAL);
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, paths, hot, fast, bad_slow, 2,
					     1),
			 -EINVAL);
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, empty, hot, NULL, NULL, 1, 1),
			 -EINVAL);
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, paths, max, NULL, NULL, 1, 1),
			 -EINVAL);
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_uint_eq(usec, 43);
	/* nothing measured: a file with the header only */
	ck_assert_int_eq(tier_hot_sets_write(dfd, TIER_HOT_SETS_NAME, NULL, NULL, NULL, NULL, 0, 44),
			 0);
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/a", &v), -ENODATA);

	/* version 1 (a tierd from before the split): totals, no split */
	fx_write(fx->root, "run/" TIER_HOT_SETS_NAME,
		 "tierd-hot-sets 1 7\n1048576 /a\n2097152 /b%20c\n");
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_uint_eq(usec, 7);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/a", &v), 0);
	ck_assert_uint_eq(v, 1 * MiB);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/b c", &v), 0);
	ck_assert_uint_eq(v, 2 * MiB);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/a", &f, &sl), -ENODATA);
	/* a version 2 line in a version 1 file is malformed */
	fx_write(fx->root, "run/" TIER_HOT_SETS_NAME, "tierd-hot-sets 1 7\n3 2 1 /a\n1 /b\n");
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/a", &v), -ENODATA);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/b", &v), 0);

	/* malformed version 2 lines are skipped, the good ones kept */
	fx_write(fx->root, "run/" TIER_HOT_SETS_NAME,
		 "tierd-hot-sets 2 9\n"
		 "10 6 4 /ok\n"
		 "10 - - /nosplit\n"
		 "10 6 5 /sum\n"		/* does not add up */
		 "10 11 0 /over\n"		/* more than the total */
		 "10 6 - /half\n"		/* half a split */
		 "10 - 4 /half2\n"
		 "10 /v1\n"			/* a version 1 line */
		 "10 6 4\n"			/* no path */
		 "10 6 4 \n"			/* empty path */
		 "10 6 4 /two words\n"		/* a raw space: not escaped */
		 "10 6 4 /tab\there\n"		/* a raw control byte */
		 "10 6 4 /nul%00x\n"		/* an escaped NUL */
		 "-1 - - /neg\n"
		 "+1 - - /plus\n"
		 "1x - - /junk\n"
		 "18446744073709551615 - - /max\n"	/* "not measured" */
		 "18446744073709551616 - - /big\n"
		 " 10 6 4 /lead\n"
		 "\n"
		 "3 1 2 /e%2\n"			/* a bad escape stays as it is */
		 "4 4 0 /last");		/* no final newline */
	ck_assert_int_eq(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	ck_assert_uint_eq(usec, 9);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/ok", &f, &sl), 0);
	ck_assert_uint_eq(f, 6);
	ck_assert_uint_eq(sl, 4);
	ck_assert_int_eq(tier_share_hot_loaded(s, "/nosplit", &v), 0);
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/nosplit", &f, &sl), -ENODATA);
	{
		static const char *const skipped[] = {
			"/sum", "/over", "/half", "/half2", "/v1", "", "/two", "/two words",
			"/tab\there", "/nul", "/neg", "/plus", "/junk", "/max", "/big",
			"/lead",
		};

		for (size_t k = 0; k < sizeof(skipped) / sizeof(*skipped); k++)
			ck_assert_msg(tier_share_hot_loaded(s, skipped[k], &v) == -ENODATA, "%s",
				      skipped[k]);
	}
	ck_assert_int_eq(tier_share_hot_loaded(s, "/e%2", &v), 0);
	ck_assert_uint_eq(v, 3);
	ck_assert_int_eq(tier_share_hot_loaded_tiers(s, "/last", &f, &sl), 0);
	ck_assert_uint_eq(f, 4);

	/* not such a file: the header, exactly, of a version we know */
	static const char *const bad[] = {
		"garbage\n",
		"",
		"tierd-hot-sets 3 1\n1 1 0 /a\n",
		"tierd-hot-sets 0 1\n",
		"tierd-hot-sets 2 -1\n",
		"tierd-hot-sets 2\n",
		"tierd-hot-sets 2 1 x\n",
		"tierd-hot-sets  2 1\n",
		"tierd-hot-sets 22 1\n",
		"tierd-hot-sets 2 1\n1 1 0 /a\0\n",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
		int fd = openat(dfd, TIER_HOT_SETS_NAME, O_WRONLY | O_TRUNC | O_CLOEXEC);
		size_t len = strlen(bad[k]) + (k == sizeof(bad) / sizeof(*bad) - 1 ? 2 : 0);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, bad[k], len), (ssize_t)len);
		close(fd);
		ck_assert_msg(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec) == -EINVAL,
			      "%zu", k);
	}
	/* what a failed load leaves: the last good reading */
	ck_assert_int_eq(tier_share_hot_loaded(s, "/ok", &v), 0);
	ck_assert_uint_eq(v, 10);
	/* never through a symlink */
	ck_assert_int_eq(unlinkat(dfd, TIER_HOT_SETS_NAME, 0), 0);
	ck_assert_int_eq(symlinkat("/etc/passwd", dfd, TIER_HOT_SETS_NAME), 0);
	ck_assert_int_lt(tier_share_hot_load(s, dfd, TIER_HOT_SETS_NAME, &usec), 0);
	close(dfd);
	free(run);
	tier_share_free(s);
	fx_free(fx);
}
END_TEST

START_TEST(test_many)
{
	struct fx *fx = fx_new();
	struct tier_topology *topo = two_tiers(fx);
	struct tier_policy *p = policy(text);
	const struct tier_class *job = tier_policy_find_class(p, "job");
	struct tier_share *s = NULL;
	uint64_t sum = 0;
	char path[64];

	ck_assert_int_eq(tier_share_new(&s), 0);
	for (int k = 0; k < 100; k++) {
		snprintf(path, sizeof(path), "/c%d", k);
		fx_cgroup(fx, path, "promote");
		ck_assert_int_eq(tier_share_add(s, path, job), 0);
		snprintf(path, sizeof(path), "/c%d/n", k);	/* nested: not sharing */
		ck_assert_int_eq(tier_share_add(s, path, job), 0);
	}
	ck_assert_int_eq(tier_share_compute(s, fx->ctx, topo, p, 0), 0);
	ck_assert_uint_eq(tier_share_count(s), 100);
	for (int k = 0; k < 100; k++) {
		size_t i;

		snprintf(path, sizeof(path), "/c%d", k);
		ck_assert_int_eq(tier_share_find(s, path, &i), 0);
		ck_assert_uint_eq(i, (size_t)k);
		sum += tier_share_target(s, i);
		snprintf(path, sizeof(path), "/c%d/n", k);
		ck_assert_int_eq(tier_share_find(s, path, &i), -ENOENT);
	}
	/* 100 x 8 MiB of demand: all of the 768M is shared out */
	ck_assert_uint_eq(sum, 768 * MiB);
	tier_share_free(s);
	tier_policy_unref(p);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

Suite *suite_share(void)
{
	Suite *s = suite_create("share");
	TCase *tc = tcase_create("share");

	tcase_add_test(tc, test_who_shares);
	tcase_add_test(tc, test_demand_sources);
	tcase_add_test(tc, test_toptier_source);
	tcase_add_test(tc, test_borrow_and_info);
	tcase_add_test(tc, test_hostile_and_one_tier);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_demand_hot);
	tcase_add_test(tc, test_hot_sets_file);
	suite_add_tcase(s, tc);
	return s;
}
