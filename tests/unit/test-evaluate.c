// SPDX-License-Identifier: LGPL-2.1-or-later
/* Evaluation: first match wins, matcher kinds, explain information. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fixture.h"

static struct tier_policy *load(const char *text)
{
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	int r = tier_policy_load_buffer("t.conf", text, strlen(text), e, &p);

	for (size_t i = 0; i < tier_errors_count(e); i++)
		fprintf(stderr, "%s\n", tier_errors_get(e, i));
	ck_assert_int_eq(r, 0);
	tier_errors_free(e);
	return p;
}

static const char policy_text[] =
	"[class:latency]\nmode = full\nweight = 400\ntoptier_min = 25%\ntoptier_max = 1G\n"
	"memory_low = 64M\n"
	"[class:batch]\nmode = promote\nmemory_high = max\n"
	"[class:quiet]\nmode = off\n"
	"[rule:pg]\n"			/* 12 */
	"class = latency\n"
	"cgroup = /system.slice/postgresql*.service\n"
	"unit = mariadb.service\n"
	"exe = /usr/sbin/mysqld\n"
	"[rule:everything-in-batch]\n"	/* 17 */
	"class = batch\n"
	"cgroup = /batch.slice/**\n"
	"annotation = tierd.io/class=batch*\n"
	"[rule:also-pg]\n"		/* 21 */
	"class = quiet\n"
	"cgroup = /system.slice/postgresql@15.service\n"
	"cgroup = /system.slice/*.service\n"
	"[rule:root]\n"
	"class = quiet\n"
	"cgroup = /**\n";

START_TEST(test_first_match)
{
	struct tier_policy *p = load(policy_text);
	static const char *const mysqld[] = { "/usr/bin/bash", "/usr/sbin/mysqld", NULL };
	static const char *const ann[] = { "other=x", "tierd.io/class=batch-low", NULL };
	static const char *const ann_nomatch[] = { "tierd.io/class=latency", "tierd.io/classx=batch",
						   NULL };
	const struct obs_cg cg[] = {
		{ .path = "/", .mode_supported = false },
		{ .path = "/system.slice/postgresql@15.service", .unit = "postgresql@15.service",
		  .mode_supported = true, .mode = TIER_MODE_INHERIT, .memory_low = 0,
		  .memory_high = UINT64_MAX },
		{ .path = "/system.slice/mariadb.service", .unit = "mariadb.service",
		  .mode_supported = true },
		{ .path = "/system.slice/x.service/y", .unit = "x.service", .exes = mysqld,
		  .mode_supported = true },
		{ .path = "/batch.slice/job1/task", .mode_supported = true },
		{ .path = "/kubepods/pod1", .annotations = ann, .mode_supported = true },
		{ .path = "/kubepods/pod2", .annotations = ann_nomatch, .mode_supported = true },
		{ .path = "/system.slice/cron.service", .unit = "cron.service", .mode_supported = true },
		{ .path = "/system.slice/cron.service/sub", .mode_supported = true },
	};
	struct tier_observed *obs = obs_build(4ull << 30, cg, 9);
	struct tier_plan *plan = NULL;
	const struct tier_plan_entry *e;

	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 9);

	e = tier_plan_entry(plan, 0); /* the root is never managed */
	ck_assert_str_eq(fx_entry_path(e), "/");
	ck_assert_ptr_null(tier_plan_entry_rule(e));
	ck_assert(!e_sets(e, TIER_ATTR_NUMA_BALANCING));

	e = tier_plan_entry(plan, 1); /* pg first, although also-pg matches too */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "pg");
	ck_assert_str_eq(tier_class_name(tier_plan_entry_class(e)), "latency");
	ck_assert_int_eq(tier_matcher_kind(tier_plan_entry_matcher(e)), TIER_MATCH_CGROUP);
	ck_assert_str_eq(tier_matcher_pattern(tier_plan_entry_matcher(e)), "/system.slice/postgresql*.service");
	ck_assert_uint_eq(tier_matcher_line(tier_plan_entry_matcher(e)), 14);
	/* a cgroup matcher matched the path: no value of its own */
	ck_assert_ptr_null(tier_plan_entry_matched_value(e));
	ck_assert_str_eq(fx_entry_path(e), "/system.slice/postgresql@15.service");
	ck_assert(e_sets(e, TIER_ATTR_NUMA_BALANCING));
	ck_assert_int_eq((enum tier_mode)e_desired(e, TIER_ATTR_NUMA_BALANCING), TIER_MODE_FULL);
	ck_assert(e_sets(e, TIER_ATTR_MEMORY_LOW));
	ck_assert_uint_eq(e_desired(e, TIER_ATTR_MEMORY_LOW), 64ull << 20);
	ck_assert(!e_sets(e, TIER_ATTR_MEMORY_HIGH));
	ck_assert_uint_eq(tier_plan_entry_weight(e), 400);
	/* 25% of 4G minus the default fast_tier_reserve (256M): the capacity
	 * the fair share divides, the one base of a percentage */
	ck_assert_uint_eq(tier_plan_entry_toptier_min(e), ((4ull << 30) - (256ull << 20)) / 4);
	ck_assert_uint_eq(tier_plan_entry_toptier_max(e), 1ull << 30);
	ck_assert(e_mode_supported(e));
	ck_assert_int_eq((enum tier_mode)e_current(e, TIER_ATTR_NUMA_BALANCING), TIER_MODE_INHERIT);

	e = tier_plan_entry(plan, 2); /* unit matcher */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "pg");
	ck_assert_int_eq(tier_matcher_kind(tier_plan_entry_matcher(e)), TIER_MATCH_UNIT);
	ck_assert_str_eq(tier_plan_entry_matched_value(e), "mariadb.service");

	e = tier_plan_entry(plan, 3); /* exe matcher, second exe */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "pg");
	ck_assert_int_eq(tier_matcher_kind(tier_plan_entry_matcher(e)), TIER_MATCH_EXE);
	ck_assert_str_eq(tier_plan_entry_matched_value(e), "/usr/sbin/mysqld");

	e = tier_plan_entry(plan, 4); /* ** crosses '/' */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "everything-in-batch");
	ck_assert_int_eq((enum tier_mode)e_desired(e, TIER_ATTR_NUMA_BALANCING), TIER_MODE_PROMOTE);
	ck_assert(e_sets(e, TIER_ATTR_MEMORY_HIGH));
	ck_assert_uint_eq(e_desired(e, TIER_ATTR_MEMORY_HIGH), UINT64_MAX);
	ck_assert(!e_sets(e, TIER_ATTR_MEMORY_LOW));
	ck_assert_uint_eq(tier_plan_entry_toptier_min(e), 0);
	ck_assert_uint_eq(tier_plan_entry_toptier_max(e), UINT64_MAX);

	e = tier_plan_entry(plan, 5); /* annotation with a glob value */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "everything-in-batch");
	ck_assert_int_eq(tier_matcher_kind(tier_plan_entry_matcher(e)), TIER_MATCH_ANNOTATION);
	ck_assert_str_eq(tier_plan_entry_matched_value(e), "tierd.io/class=batch-low");

	e = tier_plan_entry(plan, 6); /* annotation key must match exactly: falls to rule root */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "root");

	e = tier_plan_entry(plan, 7); /* second matcher of also-pg */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "also-pg");
	ck_assert_str_eq(tier_matcher_pattern(tier_plan_entry_matcher(e)), "/system.slice/*.service");
	ck_assert_uint_eq(tier_matcher_line(tier_plan_entry_matcher(e)), 24);
	ck_assert_int_eq((enum tier_mode)e_desired(e, TIER_ATTR_NUMA_BALANCING), TIER_MODE_OFF);

	e = tier_plan_entry(plan, 8); /* '*' does not cross '/' */
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "root");

	ck_assert_ptr_eq(tier_plan_find(plan, "/kubepods/pod1"), tier_plan_entry(plan, 5));
	ck_assert_ptr_null(tier_plan_find(plan, "/nope"));
	ck_assert_ptr_null(tier_plan_entry(plan, 9));
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
}
END_TEST

/* Visits of tier_plan_observe(): each with an open directory; the third
 * stops the walk. */
static int visit_count(void *userdata, struct tier_plan_entry *e, int dfd)
{
	unsigned *n = userdata;
	struct stat st;

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(fstat(dfd, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	return ++*n == 3 ? -ECANCELED : 0;
}

/*
 * TIER_APPLY_CURRENT from a visit: the walk's values are compared, not read
 * again (the file changed after the walk read it: the walk's value
 * counts); what the walk did not read (memory.high fairness sets, a
 * missing knob) is read.
 */
struct current_visit {
	struct fx *fx;
	unsigned seen;
};

static int visit_current(void *userdata, struct tier_plan_entry *e, int dfd)
{
	struct current_visit *cv = userdata;
	struct tier_apply_result *res = NULL;
	struct tier_plan_entry *copy = NULL;
	const char *path = fx_entry_path(e);

	if (strcmp(path, "/batch.slice/job1") == 0) {
		cv->seen++;
		fx_write(cv->fx->cg, "/batch.slice/job1/memory.numa_balancing", "off\n");
		ck_assert_int_eq(tier_apply_entry_at(cv->fx->ctx, dfd, e,
						     TIER_APPLY_DRY_RUN | TIER_APPLY_CURRENT, NULL,
						     NULL, &res), 0);
		ck_assert_int_eq(tier_apply_result_change_status(res, 0), TIER_APPLY_CHANGED);
		ck_assert_str_eq(tier_apply_result_change_old_value(res, 0), "promote");
		tier_apply_result_free(res);
		/* without: read again, now in sync */
		ck_assert_int_eq(tier_apply_entry_at(cv->fx->ctx, dfd, e, TIER_APPLY_DRY_RUN, NULL,
						     NULL, &res), 0);
		ck_assert_int_eq(tier_apply_result_change_status(res, 0), TIER_APPLY_UNCHANGED);
		tier_apply_result_free(res);
		/* memory.high the walk did not read: read */
		ck_assert_int_eq(tier_plan_entry_dup(e, &copy), 0);
		ck_assert_int_eq(tier_plan_entry_set_desired(copy, TIER_ATTR_MEMORY_HIGH, 1 << 20), 0);
		ck_assert_int_eq(tier_apply_entry_at(cv->fx->ctx, dfd, copy,
						     TIER_APPLY_DRY_RUN | TIER_APPLY_CURRENT, NULL,
						     NULL, &res), 0);
		ck_assert_int_eq(tier_apply_result_change_attr(res, 1), TIER_ATTR_MEMORY_HIGH);
		ck_assert_str_eq(tier_apply_result_change_old_value(res, 1), "max");
		tier_apply_result_free(res);
		tier_plan_entry_free(copy);
	} else if (strcmp(path, "/batch.slice/stock") == 0) {
		cv->seen++;
		ck_assert_int_eq(tier_apply_entry_at(cv->fx->ctx, dfd, e,
						     TIER_APPLY_DRY_RUN | TIER_APPLY_CURRENT, NULL,
						     NULL, &res), 0);
		ck_assert_int_eq(tier_apply_result_change_status(res, 0), TIER_APPLY_UNSUPPORTED);
		tier_apply_result_free(res);
	}
	return 0;
}

/*
 * tierd's full pass: tier_plan_observe() decides each cgroup as the walk
 * reads it, the same plan as tier_observe() + tier_evaluate(); of the
 * current values it reads the mode and what the entry sets.
 */
START_TEST(test_plan_observe)
{
	static const char text[] = "[class:lat]\nmode = full\nmemory_low = 64M\n"
				   "[class:bat]\nmode = off\n"
				   "[rule:pg]\nclass = lat\ncgroup = /system.slice/postgresql*.service\n"
				   "[rule:batch]\nclass = bat\ncgroup = /batch.slice/**\n";
	struct fx *fx = fx_new();
	struct tier_policy *p = load(text);
	struct tier_observed *obs = NULL;
	struct tier_plan *a = NULL, *b = NULL;
	const struct tier_plan_entry *e;

	fx_cgroup(fx, "/system.slice", "inherit");
	fx_cgroup(fx, "/system.slice/postgresql@15.service", "off");
	fx_write(fx->cg, "/system.slice/postgresql@15.service/memory.low", "4096\n");
	fx_cgroup(fx, "/batch.slice", "inherit");
	fx_cgroup(fx, "/batch.slice/job1", "promote");
	fx_cgroup(fx, "/other", "full");
	fx_write(fx->cg, "/other/memory.low", "8192\n");
	fx_cgroup(fx, "/stock", NULL);
	ck_assert_int_eq(tier_observe(fx->ctx, NULL, NULL, 0, &obs), 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &a), 0);
	ck_assert_int_eq(tier_plan_new(p, 0, &b), 0);
	ck_assert_int_eq(tier_plan_observe(b, fx->ctx, NULL, 0, NULL, NULL), 0);
	ck_assert_uint_eq(tier_plan_count(b), tier_plan_count(a));
	for (size_t i = 0; i < tier_plan_count(a); i++) {
		const struct tier_plan_entry *x = tier_plan_entry(a, i), *y = tier_plan_entry(b, i);

		ck_assert_str_eq(fx_entry_path(y), fx_entry_path(x));
		ck_assert_ptr_eq(tier_plan_entry_rule(y), tier_plan_entry_rule(x));
		ck_assert_ptr_eq(tier_plan_entry_class(y), tier_plan_entry_class(x));
		if (tier_plan_entry_rule(x)) {
			ck_assert_int_eq(e_mode_supported(y), e_mode_supported(x));
			ck_assert_uint_eq(e_current(y, TIER_ATTR_NUMA_BALANCING),
					  e_current(x, TIER_ATTR_NUMA_BALANCING));
		}
		if (e_sets(x, TIER_ATTR_MEMORY_LOW))
			ck_assert_uint_eq(e_current(y, TIER_ATTR_MEMORY_LOW),
					  e_current(x, TIER_ATTR_MEMORY_LOW));
	}
	e = tier_plan_find(b, "/system.slice/postgresql@15.service");
	ck_assert_uint_eq(e_current(e, TIER_ATTR_MEMORY_LOW), 4096);
	ck_assert_uint_eq(e_current(e, TIER_ATTR_NUMA_BALANCING), TIER_MODE_OFF);
	/* unmanaged: nothing read, the kernel's defaults (an apply reads what
	 * it needs; explain reads the knob of an unmanaged cgroup itself) */
	ck_assert(!e_mode_supported(tier_plan_find(a, "/stock")));
	ck_assert(e_mode_supported(tier_plan_find(b, "/stock")));
	ck_assert_uint_eq(e_current(tier_plan_find(a, "/other"), TIER_ATTR_MEMORY_LOW), 8192);
	ck_assert_uint_eq(e_current(tier_plan_find(b, "/other"), TIER_ATTR_MEMORY_LOW), 0);
	ck_assert_uint_eq(e_current(tier_plan_find(a, "/other"), TIER_ATTR_NUMA_BALANCING),
			  TIER_MODE_FULL);
	ck_assert_uint_eq(e_current(tier_plan_find(b, "/other"), TIER_ATTR_NUMA_BALANCING),
			  TIER_MODE_INHERIT);
	/* managed on a kernel without the knob: read, and said so */
	fx_cgroup(fx, "/batch.slice/stock", NULL);
	ck_assert_int_eq(tier_plan_observe(b, fx->ctx, "/batch.slice", 0, NULL, NULL), 0);
	ck_assert(!e_mode_supported(tier_plan_find(b, "/batch.slice/stock")));
	ck_assert(!tier_plan_entry_in_sync(tier_plan_find(b, "/batch.slice/stock")));
	/* again, and a subtree: re-decided in place */
	e = tier_plan_find(b, "/batch.slice/job1");
	ck_assert_int_eq(tier_plan_observe(b, fx->ctx, "/batch.slice", 0, NULL, NULL), 0);
	ck_assert_uint_eq(tier_plan_count(b), tier_plan_count(a) + 1);
	ck_assert_ptr_eq(tier_plan_find(b, "/batch.slice/job1"), e);
	ck_assert_int_eq(tier_plan_observe(b, fx->ctx, "/nonexistent", 0, NULL, NULL), -ENOENT);
	ck_assert_int_eq(tier_plan_observe(b, fx->ctx, NULL, 1u << 7, NULL, NULL), -EINVAL);
	ck_assert_int_eq(tier_plan_observe(NULL, fx->ctx, NULL, 0, NULL, NULL), -EINVAL);
	{
		struct current_visit cv = { .fx = fx };

		ck_assert_int_eq(tier_plan_observe(b, fx->ctx, "/batch.slice", 0, visit_current,
						   &cv), 0);
		ck_assert_uint_eq(cv.seen, 2);
	}
	{
		unsigned n = 0;

		/* the visit's error ends the walk and is returned */
		ck_assert_int_eq(tier_plan_observe(b, fx->ctx, NULL, 0, visit_count, &n),
				 -ECANCELED);
		ck_assert_uint_eq(n, 3);
	}
	tier_plan_free(a);
	tier_plan_free(b);
	tier_observed_free(obs);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

START_TEST(test_unmanaged_and_pure)
{
	struct tier_policy *p = load("[class:c]\n[rule:r]\nclass = c\nunit = *.service\n");
	char path[] = "/system.slice/a.service";
	char unit[] = "a.service";
	const struct obs_cg cg[] = {
		{ .path = path, .unit = unit },
		{ .path = "/user.slice" },
	};
	struct tier_observed *obs = obs_build(0, cg, 2);
	struct tier_plan *plan = NULL;
	const struct tier_plan_entry *e;

	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	/* the plan owns its strings: scribbling over the input changes nothing */
	memset(path, 'x', sizeof(path) - 1);
	memset(unit, 'x', sizeof(unit) - 1);
	e = tier_plan_entry(plan, 0);
	ck_assert_str_eq(fx_entry_path(e), "/system.slice/a.service");
	ck_assert_str_eq(tier_plan_entry_matched_value(e), "a.service");
	/* class default */
	ck_assert_int_eq((enum tier_mode)e_desired(e, TIER_ATTR_NUMA_BALANCING), TIER_MODE_INHERIT);
	ck_assert(e_sets(e, TIER_ATTR_NUMA_BALANCING));
	e = tier_plan_entry(plan, 1);
	ck_assert_ptr_null(tier_plan_entry_rule(e));
	ck_assert_ptr_null(tier_plan_entry_class(e));
	ck_assert_ptr_null(tier_plan_entry_matcher(e));
	tier_plan_free(plan);

	tier_observed_free(obs);
	obs = obs_build(0, NULL, 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 0);
	tier_plan_free(plan);
	ck_assert_int_eq(tier_evaluate(NULL, obs, &plan), -EINVAL);
	ck_assert_int_eq(tier_evaluate(p, NULL, &plan), -EINVAL);
	tier_observed_free(obs);
	tier_policy_unref(p);
}
END_TEST

/* A plan kept and adjusted one cgroup at a time, as tierd keeps it. */
START_TEST(test_plan_update)
{
	struct tier_policy *p = load(policy_text);
	const struct obs_cg first[] = {
		{ .path = "/", .mode_supported = false },
		{ .path = "/system.slice/postgresql@15.service", .mode_supported = true,
		  .mode = TIER_MODE_OFF, .memory_high = UINT64_MAX },
		{ .path = "/batch.slice/a", .mode_supported = true },
	};
	static const char *const ann[] = { "tierd.io/class=batch", NULL };
	const struct obs_cg again[] = {
		/* the same cgroup, now with an annotation and a unit: re-decided */
		{ .path = "/kubepods/pod1", .annotations = ann, .mode_supported = true,
		  .memory_high = 4096 },
	};
	const struct obs_cg pod[] = { { .path = "/kubepods/pod1", .mode_supported = true } };
	struct tier_observed *o1 = obs_build(4ull << 30, first, 3);
	struct tier_observed *o2 = obs_build(0, pod, 1);
	struct tier_observed *o3 = obs_build(0, again, 1);
	const struct tier_plan_entry *e, *pg;
	struct tier_plan_entry *m;
	struct tier_plan *plan = NULL;
	uint64_t v;

	ck_assert_int_eq(tier_plan_new(NULL, 0, &plan), -EINVAL);
	ck_assert_int_eq(tier_plan_new(p, 4ull << 30, &plan), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 0);
	ck_assert_int_eq(tier_plan_update(plan, o1), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 3);
	pg = tier_plan_find(plan, "/system.slice/postgresql@15.service");
	ck_assert_ptr_eq(pg, tier_plan_entry(plan, 1));
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(pg)), "pg");
	/* 25% of the plan's capacity (minus the reserve), not the observed one's */
	ck_assert_uint_eq(tier_plan_entry_toptier_min(pg), ((4ull << 30) - (256ull << 20)) / 4);
	ck_assert_int_eq(tier_plan_entry_get_current(pg, TIER_ATTR_NUMA_BALANCING, &v), 0);
	ck_assert_uint_eq(v, TIER_MODE_OFF);
	ck_assert_int_eq(tier_plan_entry_get_current(tier_plan_entry(plan, 0),
						     TIER_ATTR_NUMA_BALANCING, &v), -EOPNOTSUPP);

	/* a new cgroup is appended; the others stay where they are */
	ck_assert_int_eq(tier_plan_update(plan, o2), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 4);
	e = tier_plan_find(plan, "/kubepods/pod1");
	ck_assert_ptr_eq(e, tier_plan_entry(plan, 3));
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "root");
	ck_assert_ptr_eq(tier_plan_find(plan, "/system.slice/postgresql@15.service"), pg);

	/* re-evaluated in place: same entry, new decision, fresh desired values */
	m = tier_plan_find_mutable(plan, "/kubepods/pod1");
	ck_assert_ptr_eq(m, e);
	ck_assert_int_eq(tier_plan_entry_set_desired(m, TIER_ATTR_MEMORY_LOW, 12345), 0);
	ck_assert_int_eq(tier_plan_update(plan, o3), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 4);
	ck_assert_ptr_eq(tier_plan_find(plan, "/kubepods/pod1"), e);
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(e)), "everything-in-batch");
	ck_assert_str_eq(tier_plan_entry_matched_value(e), "tierd.io/class=batch");
	ck_assert_int_eq(tier_plan_entry_get_desired(e, TIER_ATTR_MEMORY_LOW, &v), -ENODATA);
	ck_assert_int_eq(tier_plan_entry_get_current(e, TIER_ATTR_MEMORY_HIGH, &v), 0);
	ck_assert_uint_eq(v, 4096);

	/* removal keeps the order of the rest and the hash consistent */
	ck_assert_int_eq(tier_plan_remove(plan, "/system.slice/postgresql@15.service"), 0);
	ck_assert_int_eq(tier_plan_remove(plan, "/system.slice/postgresql@15.service"), -ENOENT);
	ck_assert_int_eq(tier_plan_remove(plan, NULL), -EINVAL);
	ck_assert_uint_eq(tier_plan_count(plan), 3);
	ck_assert_ptr_null(tier_plan_find(plan, "/system.slice/postgresql@15.service"));
	ck_assert_str_eq(fx_entry_path(tier_plan_entry(plan, 1)), "/batch.slice/a");
	ck_assert_ptr_eq(tier_plan_entry(plan, 2), e);
	ck_assert_ptr_eq(tier_plan_find(plan, "/batch.slice/a"), tier_plan_entry(plan, 1));
	ck_assert_int_eq(tier_plan_update(plan, o1), 0);
	ck_assert_uint_eq(tier_plan_count(plan), 4);
	ck_assert_ptr_eq(tier_plan_find(plan, "/system.slice/postgresql@15.service"),
			 tier_plan_entry(plan, 3));
	ck_assert_int_eq(tier_plan_update(NULL, o1), -EINVAL);
	ck_assert_int_eq(tier_plan_update(plan, NULL), -EINVAL);
	tier_plan_free(plan);
	tier_observed_free(o1);
	tier_observed_free(o2);
	tier_observed_free(o3);
	tier_policy_unref(p);
}
END_TEST

/* Many cgroups through one plan: the hash table grows, finds stay exact. */
START_TEST(test_plan_many)
{
	struct tier_policy *p = load(policy_text);
	struct tier_observed *o = NULL;
	struct tier_plan *plan = NULL;
	char path[64];

	ck_assert_int_eq(tier_plan_new(p, 0, &plan), 0);
	for (unsigned i = 0; i < 5000; i++) {
		ck_assert_int_eq(tier_observed_new(0, &o), 0);
		snprintf(path, sizeof(path), "/batch.slice/j%u", i);
		ck_assert_int_eq(tier_observed_add(o, path, NULL), 0);
		ck_assert_int_eq(tier_plan_update(plan, o), 0);
		tier_observed_free(o);
	}
	ck_assert_uint_eq(tier_plan_count(plan), 5000);
	for (unsigned i = 0; i < 5000; i += 2) {
		snprintf(path, sizeof(path), "/batch.slice/j%u", i);
		ck_assert_int_eq(tier_plan_remove(plan, path), 0);
	}
	ck_assert_uint_eq(tier_plan_count(plan), 2500);
	for (unsigned i = 0; i < 5000; i++) {
		const struct tier_plan_entry *e;

		snprintf(path, sizeof(path), "/batch.slice/j%u", i);
		e = tier_plan_find(plan, path);
		if (i % 2) {
			ck_assert_ptr_nonnull(e);
			ck_assert_str_eq(fx_entry_path(e), path);
			ck_assert_ptr_eq(e, tier_plan_entry(plan, i / 2));
		} else {
			ck_assert_ptr_null(e);
		}
	}
	tier_plan_free(plan);
	tier_policy_unref(p);
}
END_TEST

/* The observed state built by hand: copies, defaults, bad input. */
START_TEST(test_observed_build)
{
	struct tier_observed *o = NULL;
	struct tier_observed_cgroup *c = NULL;
	const struct tier_observed_cgroup *g;
	char unit[] = "a.service";
	uint64_t v;

	ck_assert_int_eq(tier_observed_new(123, NULL), -EINVAL);
	ck_assert_int_eq(tier_observed_new(123, &o), 0);
	ck_assert_uint_eq(tier_observed_fast_capacity(o), 123);
	ck_assert_int_eq(tier_observed_add(o, "relative", &c), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(tier_observed_add(o, "/a", &c), 0);
	ck_assert_int_eq(tier_observed_cgroup_set_unit(c, unit), 0);
	memset(unit, 'x', sizeof(unit) - 1);
	ck_assert_int_eq(tier_observed_cgroup_add_exe(c, "/bin/a"), 0);
	ck_assert_int_eq(tier_observed_cgroup_add_exe(c, "/bin/b"), 0);
	ck_assert_int_eq(tier_observed_cgroup_add_annotation(c, "no-equals"), -EINVAL);
	ck_assert_int_eq(tier_observed_cgroup_add_annotation(c, "k=v"), 0);
	ck_assert_int_eq(tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING, 99), -EINVAL);
	g = tier_observed_get(o, 0);
	ck_assert_ptr_eq(g, c);
	ck_assert_str_eq(tier_observed_cgroup_unit(g), "a.service");
	ck_assert_str_eq(tier_observed_cgroup_exes(g)[1], "/bin/b");
	ck_assert_ptr_null(tier_observed_cgroup_exes(g)[2]);
	ck_assert_str_eq(tier_observed_cgroup_annotations(g)[0], "k=v");
	/* not set: no knob, kernel defaults for the limits */
	ck_assert_int_eq(tier_observed_cgroup_get_current(g, TIER_ATTR_NUMA_BALANCING, &v),
			 -EOPNOTSUPP);
	ck_assert_int_eq(tier_observed_cgroup_get_current(g, TIER_ATTR_MEMORY_LOW, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(tier_observed_cgroup_get_current(g, TIER_ATTR_MEMORY_HIGH, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(tier_observed_add(o, "/b", NULL), 0);
	ck_assert_uint_eq(tier_observed_count(o), 2);
	ck_assert_ptr_eq(tier_observed_get(o, 0), c); /* adding does not move cgroups */
	ck_assert_ptr_null(tier_observed_get(o, 2));
	tier_observed_free(o);
}
END_TEST

/* 10,000 cgroups x 200 rules; the bound is loose (sanitizers), bench/ measures. */
START_TEST(test_scale)
{
	size_t n_rules = 200, n_cg = 10000, len = 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);
	struct obs_cg *cg = calloc(n_cg, sizeof(*cg));
	char **paths = calloc(n_cg, sizeof(char *));
	struct tier_observed *obs;
	struct tier_policy *p;
	struct tier_plan *plan = NULL;
	struct timespec a, b;
	double ms;
	size_t managed = 0;

	ck_assert(f && cg && paths);
	fprintf(f, "[class:c]\nmode = promote\n");
	for (size_t i = 0; i < n_rules; i++)
		fprintf(f, "[rule:r%zu]\nclass = c\ncgroup = /system.slice/app%zu-*.service\n"
			   "cgroup = /tenants/t%zu/**\nunit = app%zu-*.scope\n",
			i, i, i, i);
	fclose(f);
	p = load(text);
	for (size_t i = 0; i < n_cg; i++) {
		ck_assert(asprintf(&paths[i], i % 2 ? "/system.slice/app%zu-%zu.service" :
						      "/tenants/t%zu/x/y%zu",
				   (i * 7) % 250, i) >= 0);
		cg[i].path = paths[i];
	}
	obs = obs_build(1ull << 34, cg, n_cg);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	for (size_t i = 0; i < n_cg; i++)
		managed += tier_plan_entry_rule(tier_plan_entry(plan, i)) != NULL;
	printf("evaluate: %zu cgroups x %zu rules: %.1f ms, %zu managed\n", n_cg, n_rules, ms,
	       managed);
	/* The time is printed, not asserted: make bench measures speed. */
	ck_assert_uint_eq(managed, 8000); /* (i*7)%250 < 200 for 4/5 of them */
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
	for (size_t i = 0; i < n_cg; i++)
		free(paths[i]);
	free(paths);
	free(cg);
	free(text);
}
END_TEST

/* The prefix index must give exactly what trying every rule in order gives. */
static unsigned lcg_state;

static unsigned lcg(unsigned n)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return (lcg_state >> 16) % n;
}

static bool brute_match(const struct tier_matcher *m, const struct obs_cg *c)
{
	switch (tier_matcher_kind(m)) {
	case TIER_MATCH_CGROUP:
		return tier_glob_match(tier_matcher_value(m), c->path, TIER_GLOB_PATHNAME);
	case TIER_MATCH_UNIT:
		return c->unit && tier_glob_match(tier_matcher_value(m), c->unit, 0);
	case TIER_MATCH_EXE:
		for (const char *const *e = c->exes; e && *e; e++)
			if (tier_glob_match(tier_matcher_value(m), *e, TIER_GLOB_PATHNAME))
				return true;
		return false;
	case TIER_MATCH_ANNOTATION:
		for (const char *const *a = c->annotations; a && *a; a++) {
			size_t kl = strlen(tier_matcher_key(m));

			if (strncmp(*a, tier_matcher_key(m), kl) == 0 && (*a)[kl] == '=' &&
			    tier_glob_match(tier_matcher_value(m), *a + kl + 1, 0))
				return true;
		}
		return false;
	default:
		return false;
	}
}

START_TEST(test_index_agrees)
{
	static const char *const cg_pat[] = { "/a/*", "/a/**", "/**/x", "/a/b", "/a/[bc]/*", "/*",
					      "/a?/**", "/b/**/c*", "/**", "/a/b/c", "/x*y", "/a/\\*",
					      "/c.service", "/b/*.service", "/a/b/**/x" };
	static const char *const unit_pat[] = { "*.service", "a*.scope", "b.service", "[ab]*", "c*" };
	static const char *const exe_pat[] = { "/usr/bin/*", "/usr/**", "/opt/x/bin/y", "*" };
	static const char *const ann_pat[] = { "k=v*", "k=*", "team=web", "x=[ab]", "kk=v" };
	static const char *const comp[] = { "a", "b", "c", "x", "y", "x.y", "a.service", "c.service",
					    "*", "ab" };
	static const char *const units[] = { "a.service", "b.service", "ab.scope", "c.slice" };
	static const char *const exes[][3] = { { "/usr/bin/a", NULL },
					       { "/opt/x/bin/y", "/usr/lib/z", NULL },
					       { "/bin/sh", NULL } };
	static const char *const anns[][3] = { { "k=v1", NULL },
					       { "kk=v", "team=web", NULL },
					       { "x=a", NULL },
					       { "k=", NULL } };
	const size_t n_cg = 3000;
	char *text = NULL, **paths = calloc(n_cg, sizeof(char *));
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct obs_cg *cg = calloc(n_cg, sizeof(*cg));
	struct tier_observed *obs;
	struct tier_policy *p;
	struct tier_plan *plan = NULL;

	ck_assert(f && cg && paths);
	lcg_state = 42;
	fprintf(f, "[class:c]\n");
	for (int i = 0; i < 80; i++) {
		int nm = 1 + (int)lcg(3);

		fprintf(f, "[rule:r%d]\nclass = c\n", i);
		for (int j = 0; j < nm; j++) {
			switch (lcg(4)) {
			case 0:
				fprintf(f, "cgroup = %s\n", cg_pat[lcg(sizeof(cg_pat) / sizeof(*cg_pat))]);
				break;
			case 1:
				fprintf(f, "unit = %s\n", unit_pat[lcg(sizeof(unit_pat) / sizeof(*unit_pat))]);
				break;
			case 2:
				fprintf(f, "exe = %s\n", exe_pat[lcg(sizeof(exe_pat) / sizeof(*exe_pat))]);
				break;
			default:
				fprintf(f, "annotation = %s\n", ann_pat[lcg(sizeof(ann_pat) / sizeof(*ann_pat))]);
				break;
			}
		}
	}
	fclose(f);
	p = load(text);
	for (size_t i = 0; i < n_cg; i++) {
		char buf[256] = "";
		unsigned depth = 1 + lcg(4);
		bool dup = false;

		for (unsigned d = 0; d < depth; d++) {
			strcat(buf, "/");
			strcat(buf, comp[lcg(sizeof(comp) / sizeof(*comp))]);
		}
		/* a plan has one entry per cgroup: paths are unique, as in a tree */
		for (size_t k = 0; k < i && !dup; k++)
			dup = strcmp(paths[k], buf) == 0;
		if (dup) {
			i--;
			continue;
		}
		paths[i] = strdup(buf);
		cg[i].path = paths[i];
		cg[i].unit = lcg(2) ? units[lcg(4)] : NULL;
		cg[i].exes = lcg(2) ? exes[lcg(3)] : NULL;
		cg[i].annotations = lcg(2) ? anns[lcg(4)] : NULL;
	}
	obs = obs_build(0, cg, n_cg);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	for (size_t i = 0; i < n_cg; i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i);
		const struct tier_rule *want = NULL;
		const struct tier_matcher *want_m = NULL;

		for (size_t r = 0; r < tier_policy_rule_count(p) && !want; r++) {
			const struct tier_rule *rule = tier_policy_rule(p, r);

			for (size_t j = 0; j < tier_rule_matcher_count(rule); j++)
				if (brute_match(tier_rule_matcher(rule, j), &cg[i])) {
					want = rule;
					want_m = tier_rule_matcher(rule, j);
					break;
				}
		}
		ck_assert_msg(tier_plan_entry_rule(e) == want && tier_plan_entry_matcher(e) == want_m,
			      "%s: index says %s/%s, brute force %s/%s", cg[i].path,
			      tier_plan_entry_rule(e) ? tier_rule_name(tier_plan_entry_rule(e)) : "-",
			      tier_plan_entry_matcher(e) ? tier_matcher_pattern(tier_plan_entry_matcher(e)) : "-",
			      want ? tier_rule_name(want) : "-", want_m ? tier_matcher_pattern(want_m) : "-");
	}
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
	for (size_t i = 0; i < n_cg; i++)
		free(paths[i]);
	free(paths);
	free(cg);
	free(text);
}
END_TEST

Suite *suite_evaluate(void)
{
	Suite *s = suite_create("evaluate");
	TCase *tc = tcase_create("evaluate");

	tcase_add_test(tc, test_first_match);
	tcase_add_test(tc, test_plan_observe);
	tcase_add_test(tc, test_unmanaged_and_pure);
	tcase_add_test(tc, test_plan_update);
	tcase_add_test(tc, test_plan_many);
	tcase_add_test(tc, test_observed_build);
	tcase_add_test(tc, test_scale);
	tcase_add_test(tc, test_index_agrees);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
