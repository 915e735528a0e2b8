// SPDX-License-Identifier: LGPL-2.1-or-later
/* One cgroup at a time: observe one cgroup from its directory fd
 * (tier_observe_cgroup_at()), apply through it (tier_apply_entry_at()),
 * match an exe through the policy's index (tier_policy_match_exe(), internal). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

static const char policy_text[] = "[class:db]\nmode = promote\nmemory_low = 1M\n"
				  "[class:web]\nmode = off\n"
				  "[rule:web]\nclass = web\ncgroup = /web/**\n"
				  "[rule:db]\nclass = db\nexe = /usr/sbin/mysql*\nexe = /opt/*/bin/db\n"
				  "[rule:late]\nclass = web\nexe = /usr/sbin/mysqld\n";

static struct tier_policy *load(void)
{
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", policy_text, strlen(policy_text), NULL,
						 &p),
			 0);
	return p;
}

START_TEST(test_match_exe)
{
	struct tier_policy *p = load();
	const struct tier_rule *rule = (void *)1;

	ck_assert_int_eq(tier_policy_match_exe(p, "/usr/sbin/mysqld", &rule), 1);
	ck_assert_str_eq(tier_rule_name(rule), "db"); /* the first rule, not "late" */
	ck_assert_int_eq(tier_policy_match_exe(p, "/opt/x/bin/db", &rule), 1);
	ck_assert_str_eq(tier_rule_name(rule), "db");
	ck_assert_int_eq(tier_policy_match_exe(p, "/opt/x/y/bin/db", &rule), 0); /* '*' stops at / */
	ck_assert_ptr_null(rule);
	ck_assert_int_eq(tier_policy_match_exe(p, "/usr/bin/true", &rule), 0);
	ck_assert_int_eq(tier_policy_match_exe(NULL, "/x", &rule), -EINVAL);
	tier_policy_unref(p);
}
END_TEST

static int write_not_mine(void *userdata, struct tier_ctx *ctx, const char *cgroup,
			  enum tier_attr attr, const char *old_value, const char *new_value)
{
	(*(int *)userdata)++;
	ck_assert_int_eq(attr, TIER_ATTR_MEMORY_LOW);
	ck_assert_str_eq(old_value, "0");
	ck_assert_str_eq(new_value, "1048576");
	return 1;
}

START_TEST(test_observe_apply_at)
{
	struct fx *fx = fx_new();
	struct tier_policy *p = load();
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	const struct tier_plan_entry *e;
	const struct tier_observed_cgroup *c;
	struct tier_apply_result *res = NULL;
	const struct tier_rule *rule;
	uint64_t v;
	int dfd = -1, n_calls = 0;
	char *s;

	fx_cgroup(fx, "/app", "inherit");
	fx_write(fx->cg, "/app/cgroup.procs", "4242\n");
	fx_mkdir(fx->proc, "4242");
	{
		char *dst;

		ck_assert_int_ge(asprintf(&dst, "%s/4242/exe", fx->proc), 0);
		ck_assert_int_eq(symlink("/usr/sbin/mysqld", dst), 0);
		free(dst);
	}
	ck_assert_int_eq(tier_cgroup_open(fx->ctx, "/app", &dfd), 0);
	ck_assert_int_eq(tier_observe_cgroup_at(fx->ctx, NULL, dfd, "app", 0, &obs), -EINVAL);
	ck_assert_int_eq(tier_observe_cgroup_at(fx->ctx, NULL, dfd, "/app", TIER_OBSERVE_EXE, &obs),
			 0);
	ck_assert_uint_eq(tier_observed_count(obs), 1);
	c = tier_observed_get(obs, 0);
	ck_assert_str_eq(fx_observed_path(c), "/app");
	ck_assert_str_eq(tier_observed_cgroup_exes(c)[0], "/usr/sbin/mysqld");
	ck_assert_ptr_null(tier_observed_cgroup_exes(c)[1]);
	ck_assert_ptr_null(tier_observed_cgroup_annotations(c)[0]);
	/* Not read: the kernel's defaults. */
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_NUMA_BALANCING, &v), 0);
	ck_assert_uint_eq(v, TIER_MODE_INHERIT);
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_MEMORY_HIGH, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	e = tier_plan_entry(plan, 0);
	rule = tier_plan_entry_rule(e);
	ck_assert_ptr_nonnull(rule);
	ck_assert_str_eq(tier_rule_name(rule), "db");

	/* Applied below the fd: mode and low change, each read once. */
	ck_assert_int_eq(tier_apply_entry_at(fx->ctx, dfd, e, 0, NULL, NULL, &res), 0);
	ck_assert_str_eq(fx_result_path(res), "/app");
	ck_assert_int_eq(tier_apply_result_status(res), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(res), 2);
	tier_apply_result_free(res);
	s = fx_read(fx->cg, "/app/memory.numa_balancing");
	ck_assert_str_eq(s, "promote");
	free(s);
	s = fx_read(fx->cg, "/app/memory.low");
	ck_assert_str_eq(s, "1048576");
	free(s);
	ck_assert_int_eq(tier_apply_entry_at(fx->ctx, dfd, e, 0, NULL, NULL, &res), 0);
	ck_assert_int_eq(tier_apply_result_status(res), TIER_APPLY_UNCHANGED);
	tier_apply_result_free(res);

	/* A writer that returns 1 leaves the write to the library, below the fd. */
	fx_write(fx->cg, "/app/memory.low", "0\n");
	ck_assert_int_eq(tier_apply_entry_at(fx->ctx, dfd, e, 0, write_not_mine, &n_calls, &res), 0);
	ck_assert_int_eq(n_calls, 1);
	ck_assert_int_eq(tier_apply_result_status(res), TIER_APPLY_CHANGED);
	tier_apply_result_free(res);
	s = fx_read(fx->cg, "/app/memory.low");
	ck_assert_str_eq(s, "1048576");
	free(s);

	/* A missing file below the fd is UNSUPPORTED, not a path lookup. */
	fx_unlink(fx->cg, "/app/memory.numa_balancing");
	ck_assert_int_eq(tier_apply_entry_at(fx->ctx, dfd, e, 0, NULL, NULL, &res), 0);
	ck_assert_int_eq(tier_apply_result_change_status(res, 0), TIER_APPLY_UNSUPPORTED);
	ck_assert_int_eq(tier_apply_result_change_error(res, 0), -EOPNOTSUPP);
	tier_apply_result_free(res);
	res = NULL;
	ck_assert_int_eq(tier_apply_entry_at(fx->ctx, -1, e, 0, NULL, NULL, &res), -EINVAL);
	ck_assert_ptr_null(res);

	close(dfd);
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

Suite *suite_react(void)
{
	Suite *s = suite_create("react");
	TCase *tc = tcase_create("one cgroup");

	tcase_add_test(tc, test_match_exe);
	tcase_add_test(tc, test_observe_apply_at);
	suite_add_tcase(s, tc);
	return s;
}
