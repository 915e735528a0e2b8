// SPDX-License-Identifier: LGPL-2.1-or-later
/* Apply: exactly the diff, dry-run, vanishing cgroups, unsupported kernels. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

static const char policy_text[] = "[class:db]\nmode = promote\nmemory_low = 1M\n"
				  "[class:web]\nmode = off\n"
				  "[class:batch]\nmode = full\nmemory_high = 2G\n"
				  "[rule:db]\nclass = db\ncgroup = /db*\n"
				  "[rule:web]\nclass = web\ncgroup = /web\n"
				  "[rule:batch]\nclass = batch\ncgroup = /batch/**\ncgroup = /stock\n";

static const char *const files[] = { "memory.numa_balancing", "memory.low", "memory.high" };
static const char *const cgroups[] = { "/db1", "/db2", "/web", "/batch/j", "/other" };

struct setup {
	struct fx *fx;
	struct tier_policy *policy;
	struct tier_observed *obs;
	struct tier_plan *plan;
};

static void setup(struct setup *s)
{
	memset(s, 0, sizeof(*s));
	s->fx = fx_new();
	fx_cgroup(s->fx, "/db1", "promote");		/* already right, low differs */
	fx_write(s->fx->cg, "/db1/memory.low", "1048576\n");	/* -> unchanged */
	fx_cgroup(s->fx, "/db2", "inherit");		/* mode and low change */
	fx_cgroup(s->fx, "/web", "off");		/* unchanged */
	fx_cgroup(s->fx, "/batch", "inherit");		/* /batch itself: unmanaged */
	fx_cgroup(s->fx, "/batch/j", "full");		/* high changes */
	fx_cgroup(s->fx, "/other", "inherit");		/* unmanaged */
	for (size_t c = 0; c < sizeof(cgroups) / sizeof(cgroups[0]); c++)
		for (size_t f = 0; f < 3; f++) {
			char rel[128];

			snprintf(rel, sizeof(rel), "%s/%s", cgroups[c], files[f]);
			fx_age(s->fx->cg, rel);
		}
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", policy_text, strlen(policy_text), NULL,
						 &s->policy),
			 0);
	ck_assert_int_eq(tier_observe(s->fx->ctx, NULL, NULL, 0, &s->obs), 0);
	ck_assert_int_eq(tier_evaluate(s->policy, s->obs, &s->plan), 0);
}

static void teardown(struct setup *s)
{
	tier_plan_free(s->plan);
	tier_observed_free(s->obs);
	tier_policy_free(s->policy);
	fx_free(s->fx);
}

static const struct tier_apply_result *result(const struct tier_apply_results *r, const char *path)
{
	for (size_t i = 0; i < tier_apply_results_count(r); i++)
		if (strcmp(tier_apply_results_get(r, i)->path, path) == 0)
			return tier_apply_results_get(r, i);
	ck_abort_msg("no result for %s", path);
	return NULL;
}

static void assert_file(struct fx *fx, const char *rel, const char *content, bool touched)
{
	char *s = fx_read(fx->cg, rel);

	ck_assert_msg(s && strcmp(s, content) == 0, "%s: '%s' want '%s'", rel, s ? s : "(none)",
		      content);
	free(s);
	if (touched)
		ck_assert_msg(fx_mtime(fx->cg, rel) != 1000000000, "%s not written", rel);
	else
		ck_assert_msg(fx_mtime(fx->cg, rel) == 1000000000, "%s written", rel);
}

/* The diff that both the real run and the dry run report. */
static void assert_diff(const struct tier_apply_results *res)
{
	const struct tier_apply_result *r;

	ck_assert_uint_eq(tier_apply_results_count(res), 7);

	r = result(res, "/");
	ck_assert_int_eq(r->status, TIER_APPLY_UNMANAGED);
	ck_assert_uint_eq(r->n_changes, 0);
	ck_assert_int_eq(result(res, "/other")->status, TIER_APPLY_UNMANAGED);
	ck_assert_int_eq(result(res, "/batch")->status, TIER_APPLY_UNMANAGED);

	r = result(res, "/db1");
	ck_assert_int_eq(r->status, TIER_APPLY_UNCHANGED);
	ck_assert_uint_eq(r->n_changes, 2);
	ck_assert_int_eq(r->changes[0].attr, TIER_ATTR_NUMA_BALANCING);
	ck_assert_int_eq(r->changes[0].status, TIER_APPLY_UNCHANGED);
	ck_assert_int_eq(r->changes[1].attr, TIER_ATTR_MEMORY_LOW);
	ck_assert_int_eq(r->changes[1].status, TIER_APPLY_UNCHANGED);

	r = result(res, "/db2");
	ck_assert_int_eq(r->status, TIER_APPLY_CHANGED);
	ck_assert_uint_eq(r->n_changes, 2);
	ck_assert_int_eq(r->changes[0].status, TIER_APPLY_CHANGED);
	ck_assert_str_eq(r->changes[0].old_value, "inherit");
	ck_assert_str_eq(r->changes[0].new_value, "promote");
	ck_assert_int_eq(r->changes[1].status, TIER_APPLY_CHANGED);
	ck_assert_str_eq(r->changes[1].old_value, "0");
	ck_assert_str_eq(r->changes[1].new_value, "1048576");

	r = result(res, "/web");
	ck_assert_int_eq(r->status, TIER_APPLY_UNCHANGED);
	ck_assert_uint_eq(r->n_changes, 1);

	r = result(res, "/batch/j");
	ck_assert_int_eq(r->status, TIER_APPLY_CHANGED);
	ck_assert_uint_eq(r->n_changes, 2);
	ck_assert_int_eq(r->changes[0].status, TIER_APPLY_UNCHANGED);
	ck_assert_int_eq(r->changes[1].attr, TIER_ATTR_MEMORY_HIGH);
	ck_assert_str_eq(r->changes[1].old_value, "max");
	ck_assert_str_eq(r->changes[1].new_value, "2147483648");
}

START_TEST(test_apply_diff)
{
	struct setup s;
	struct tier_apply_results *res = NULL;

	setup(&s);
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, 0, &res), 0);
	assert_diff(res);
	/* exactly the diff was written, nothing else touched */
	assert_file(s.fx, "/db1/memory.numa_balancing", "promote\n", false);
	assert_file(s.fx, "/db1/memory.low", "1048576\n", false);
	assert_file(s.fx, "/db1/memory.high", "max\n", false);
	assert_file(s.fx, "/db2/memory.numa_balancing", "promote", true);
	assert_file(s.fx, "/db2/memory.low", "1048576", true);
	assert_file(s.fx, "/db2/memory.high", "max\n", false);
	assert_file(s.fx, "/web/memory.numa_balancing", "off\n", false);
	assert_file(s.fx, "/web/memory.low", "0\n", false);
	assert_file(s.fx, "/batch/j/memory.numa_balancing", "full\n", false);
	assert_file(s.fx, "/batch/j/memory.high", "2147483648", true);
	assert_file(s.fx, "/batch/j/memory.low", "0\n", false);
	for (size_t f = 0; f < 3; f++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "/other/%s", files[f]);
		ck_assert_int_eq(fx_mtime(s.fx->cg, rel), 1000000000);
	}
	tier_apply_results_free(res);

	/* applying again is a no-op */
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, 0, &res), 0);
	for (size_t i = 0; i < tier_apply_results_count(res); i++) {
		const struct tier_apply_result *r = tier_apply_results_get(res, i);

		ck_assert_msg(r->status == TIER_APPLY_UNCHANGED || r->status == TIER_APPLY_UNMANAGED,
			      "%s: %s", r->path, tier_apply_status_to_string(r->status));
	}
	tier_apply_results_free(res);
	teardown(&s);
}
END_TEST

START_TEST(test_apply_dry_run)
{
	struct setup s;
	struct tier_apply_results *res = NULL;

	setup(&s);
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, TIER_APPLY_DRY_RUN, &res), 0);
	assert_diff(res);
	for (size_t c = 0; c < sizeof(cgroups) / sizeof(cgroups[0]); c++)
		for (size_t f = 0; f < 3; f++) {
			char rel[128];

			snprintf(rel, sizeof(rel), "%s/%s", cgroups[c], files[f]);
			ck_assert_msg(fx_mtime(s.fx->cg, rel) == 1000000000, "%s written", rel);
		}
	assert_file(s.fx, "/db2/memory.numa_balancing", "inherit\n", false);
	tier_apply_results_free(res);
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, 0x80, &res), -EINVAL);
	teardown(&s);
}
END_TEST

/* A cgroup removed between plan and apply is skipped; the others are applied. */
START_TEST(test_apply_vanished)
{
	struct setup s;
	struct tier_apply_results *res = NULL;
	const struct tier_apply_result *r;
	char *dir;

	setup(&s);
	ck_assert(asprintf(&dir, "%s/db2", s.fx->cg) >= 0);
	fx_rmtree(dir);
	free(dir);
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, 0, &res), 0);
	r = result(res, "/db2");
	ck_assert_int_eq(r->status, TIER_APPLY_VANISHED);
	ck_assert_int_eq(r->error, -ENOENT);
	ck_assert_uint_eq(r->n_changes, 1); /* stopped at the first attribute */
	r = result(res, "/batch/j");
	ck_assert_int_eq(r->status, TIER_APPLY_CHANGED);
	assert_file(s.fx, "/batch/j/memory.high", "2147483648", true);
	tier_apply_results_free(res);
	teardown(&s);
}
END_TEST

/* A kernel without memory.numa_balancing: unsupported, memory.low still applied. */
START_TEST(test_apply_unsupported_and_error)
{
	struct setup s;
	struct tier_apply_results *res = NULL;
	const struct tier_apply_result *r;

	setup(&s);
	fx_unlink(s.fx->cg, "/db2/memory.numa_balancing");
	/* a write error that is neither ENOENT nor EOPNOTSUPP */
	fx_unlink(s.fx->cg, "/batch/j/memory.high");
	fx_mkdir(s.fx->cg, "/batch/j/memory.high");
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, 0, &res), 1);
	r = result(res, "/db2");
	ck_assert_int_eq(r->status, TIER_APPLY_UNSUPPORTED);
	ck_assert_int_eq(r->error, -EOPNOTSUPP);
	ck_assert_int_eq(r->changes[0].status, TIER_APPLY_UNSUPPORTED);
	ck_assert_int_eq(r->changes[1].status, TIER_APPLY_CHANGED);
	assert_file(s.fx, "/db2/memory.low", "1048576", true);
	r = result(res, "/batch/j");
	ck_assert_int_eq(r->status, TIER_APPLY_ERROR);
	ck_assert_int_eq(r->error, -EISDIR);
	ck_assert_int_eq(r->changes[1].status, TIER_APPLY_ERROR);
	ck_assert_int_eq(result(res, "/web")->status, TIER_APPLY_UNCHANGED);
	tier_apply_results_free(res);
	teardown(&s);
}
END_TEST

/* memory.low is kept in pages: write the rounded value, then nothing changes. */
START_TEST(test_apply_page_rounding)
{
	static const char text[] = "[class:c]\nmemory_low = 1000000\nmemory_high = 5000\n"
				   "[rule:r]\nclass = c\ncgroup = /a\n";
	struct fx *fx = fx_new();
	struct tier_policy *p = NULL;
	struct tier_observed *o = NULL;
	struct tier_plan *plan = NULL;
	struct tier_apply_results *res = NULL;
	const struct tier_apply_result *r;
	char want_low[32], want_high[32], *s;
	long ps = sysconf(_SC_PAGESIZE);

	snprintf(want_low, sizeof(want_low), "%ld", 1000000 - 1000000 % ps);
	snprintf(want_high, sizeof(want_high), "%ld", 5000 - 5000 % ps);
	fx_cgroup(fx, "/a", "inherit");
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	ck_assert_int_eq(tier_observe(fx->ctx, NULL, NULL, 0, &o), 0);
	ck_assert_int_eq(tier_evaluate(p, o, &plan), 0);
	ck_assert_int_eq(tier_apply(fx->ctx, plan, 0, &res), 0);
	r = result(res, "/a");
	ck_assert_int_eq(r->status, TIER_APPLY_CHANGED);
	ck_assert_str_eq(r->changes[1].new_value, want_low);
	ck_assert_str_eq(r->changes[2].new_value, want_high);
	s = fx_read(fx->cg, "/a/memory.low");
	ck_assert_str_eq(s, want_low);
	free(s);
	tier_apply_results_free(res);
	ck_assert_int_eq(tier_apply(fx->ctx, plan, 0, &res), 0);
	ck_assert_int_eq(result(res, "/a")->status, TIER_APPLY_UNCHANGED);
	tier_apply_results_free(res);
	tier_plan_free(plan);
	tier_observed_free(o);
	tier_policy_free(p);
	fx_free(fx);
}
END_TEST

START_TEST(test_strings)
{
	ck_assert_str_eq(tier_attr_to_string(TIER_ATTR_MEMORY_LOW), "memory.low");
	ck_assert_ptr_null(tier_attr_to_string(_TIER_ATTR_MAX));
	ck_assert_str_eq(tier_apply_status_to_string(TIER_APPLY_VANISHED), "vanished");
	ck_assert_ptr_null(tier_apply_status_to_string((enum tier_apply_status)99));
}
END_TEST

Suite *suite_apply(void)
{
	Suite *s = suite_create("apply");
	TCase *tc = tcase_create("apply");

	tcase_add_test(tc, test_apply_diff);
	tcase_add_test(tc, test_apply_dry_run);
	tcase_add_test(tc, test_apply_vanished);
	tcase_add_test(tc, test_apply_unsupported_and_error);
	tcase_add_test(tc, test_apply_page_rounding);
	tcase_add_test(tc, test_strings);
	suite_add_tcase(s, tc);
	return s;
}
