// SPDX-License-Identifier: LGPL-2.1-or-later
/* Apply: exactly the diff, dry-run, vanishing cgroups, unsupported kernels, the
 * attribute mask, writers, one class onto one cgroup. */
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
	tier_policy_unref(s->policy);
	fx_free(s->fx);
}

static const struct tier_apply_result *result(const struct tier_apply_results *r, const char *path)
{
	for (size_t i = 0; i < tier_apply_results_count(r); i++)
		if (strcmp(fx_result_path(tier_apply_results_get(r, i)), path) == 0)
			return tier_apply_results_get(r, i);
	ck_abort_msg("no result for %s", path);
	return NULL;
}

/* tier_apply_entry() / tier_class_apply() into *r, freeing the result it held;
 * on failure *r is untouched. */
static int entry_apply(struct tier_ctx *ctx, const struct tier_plan_entry *e, unsigned flags,
		       tier_apply_write_fn fn, void *userdata, struct tier_apply_result **r)
{
	struct tier_apply_result *n = NULL;
	int ret = tier_apply_entry(ctx, e, flags, fn, userdata, r ? &n : NULL);

	if (ret >= 0) {
		tier_apply_result_free(*r);
		*r = n;
	}
	return ret;
}

static int class_apply(struct tier_ctx *ctx, const char *cgroup, const struct tier_class *cls,
		       const struct tier_topology *topo, unsigned flags,
		       struct tier_apply_result **r)
{
	struct tier_apply_result *n = NULL;
	int ret = tier_class_apply(ctx, cgroup, cls, topo, flags, r ? &n : NULL);

	if (ret >= 0) {
		tier_apply_result_free(*r);
		*r = n;
	}
	return ret;
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
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNMANAGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 0);
	ck_assert_int_eq(tier_apply_result_status(result(res, "/other")), TIER_APPLY_UNMANAGED);
	ck_assert_int_eq(tier_apply_result_status(result(res, "/batch")), TIER_APPLY_UNMANAGED);

	r = result(res, "/db1");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNCHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 2);
	ck_assert_int_eq(res_change(r, 0).attr, TIER_ATTR_NUMA_BALANCING);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_UNCHANGED);
	ck_assert_int_eq(res_change(r, 1).attr, TIER_ATTR_MEMORY_LOW);
	ck_assert_int_eq(res_change(r, 1).status, TIER_APPLY_UNCHANGED);

	r = result(res, "/db2");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 2);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_CHANGED);
	ck_assert_str_eq(res_change(r, 0).old_value, "inherit");
	ck_assert_str_eq(res_change(r, 0).new_value, "promote");
	ck_assert_int_eq(res_change(r, 1).status, TIER_APPLY_CHANGED);
	ck_assert_str_eq(res_change(r, 1).old_value, "0");
	ck_assert_str_eq(res_change(r, 1).new_value, "1048576");

	r = result(res, "/web");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNCHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);

	r = result(res, "/batch/j");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 2);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_UNCHANGED);
	ck_assert_int_eq(res_change(r, 1).attr, TIER_ATTR_MEMORY_HIGH);
	ck_assert_str_eq(res_change(r, 1).old_value, "max");
	ck_assert_str_eq(res_change(r, 1).new_value, "2147483648");
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

		ck_assert_msg(tier_apply_result_status(r) == TIER_APPLY_UNCHANGED || tier_apply_result_status(r) == TIER_APPLY_UNMANAGED,
			      "%s: %s", fx_result_path(r), tier_apply_status_to_string(tier_apply_result_status(r)));
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
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_VANISHED);
	ck_assert_int_eq(tier_apply_result_error(r), -ENOENT);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1); /* stopped at the first attribute */
	r = result(res, "/batch/j");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
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
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNSUPPORTED);
	ck_assert_int_eq(tier_apply_result_error(r), -EOPNOTSUPP);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_UNSUPPORTED);
	ck_assert_int_eq(res_change(r, 1).status, TIER_APPLY_CHANGED);
	assert_file(s.fx, "/db2/memory.low", "1048576", true);
	r = result(res, "/batch/j");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_ERROR);
	ck_assert_int_eq(tier_apply_result_error(r), -EISDIR);
	ck_assert_int_eq(res_change(r, 1).status, TIER_APPLY_ERROR);
	ck_assert_int_eq(tier_apply_result_status(result(res, "/web")), TIER_APPLY_UNCHANGED);
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
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_str_eq(res_change(r, 1).new_value, want_low);
	ck_assert_str_eq(res_change(r, 2).new_value, want_high);
	s = fx_read(fx->cg, "/a/memory.low");
	ck_assert_str_eq(s, want_low);
	free(s);
	tier_apply_results_free(res);
	ck_assert_int_eq(tier_apply(fx->ctx, plan, 0, &res), 0);
	ck_assert_int_eq(tier_apply_result_status(result(res, "/a")), TIER_APPLY_UNCHANGED);
	tier_apply_results_free(res);
	tier_plan_free(plan);
	tier_observed_free(o);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

/* The attribute mask: only memory.numa_balancing is read and written. */
START_TEST(test_apply_skip)
{
	struct setup s;
	struct tier_apply_results *res = NULL;
	const struct tier_apply_result *r;

	setup(&s);
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan,
				    TIER_APPLY_SKIP_MEMORY_LOW | TIER_APPLY_SKIP_MEMORY_HIGH, &res),
			 0);
	r = result(res, "/db2");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);
	ck_assert_int_eq(res_change(r, 0).attr, TIER_ATTR_NUMA_BALANCING);
	r = result(res, "/batch/j");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNCHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);
	assert_file(s.fx, "/db2/memory.numa_balancing", "promote", true);
	assert_file(s.fx, "/db2/memory.low", "0\n", false);
	assert_file(s.fx, "/batch/j/memory.high", "max\n", false);
	tier_apply_results_free(res);

	/* and the other way round */
	ck_assert_int_eq(tier_apply(s.fx->ctx, s.plan, TIER_APPLY_SKIP(TIER_ATTR_NUMA_BALANCING),
				    &res),
			 0);
	r = result(res, "/db2");
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);
	ck_assert_int_eq(res_change(r, 0).attr, TIER_ATTR_MEMORY_LOW);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(result(res, "/web")), 0);
	ck_assert_int_eq(tier_apply_result_status(result(res, "/web")), TIER_APPLY_UNCHANGED);
	assert_file(s.fx, "/db2/memory.low", "1048576", true);
	assert_file(s.fx, "/batch/j/memory.high", "2147483648", true);
	tier_apply_results_free(res);
	teardown(&s);
}
END_TEST

struct writes {
	unsigned n;
	int fail;			/* returned instead of writing */
	struct {
		char cgroup[64];
		enum tier_attr attr;
		char old_value[TIER_VALUE_MAX];
		char new_value[TIER_VALUE_MAX];
	} w[8];
};

static int record_write(void *userdata, struct tier_ctx *ctx, const char *cgroup,
			enum tier_attr attr, const char *old_value, const char *new_value)
{
	struct writes *ws = userdata;

	ck_assert_uint_lt(ws->n, 8);
	snprintf(ws->w[ws->n].cgroup, sizeof(ws->w[ws->n].cgroup), "%s", cgroup);
	ws->w[ws->n].attr = attr;
	snprintf(ws->w[ws->n].old_value, TIER_VALUE_MAX, "%s", old_value);
	snprintf(ws->w[ws->n].new_value, TIER_VALUE_MAX, "%s", new_value);
	ws->n++;
	if (ws->fail)
		return ws->fail;
	/* like tierd: memory.numa_balancing raw, the limits "elsewhere" */
	if (attr == TIER_ATTR_NUMA_BALANCING)
		return tier_cgroup_write(ctx, cgroup, tier_attr_to_string(attr), new_value);
	return 0;
}

/* One entry with a writer: called for exactly the values that differ. */
START_TEST(test_apply_entry_writer)
{
	struct setup s;
	struct writes ws = { 0 };
	_cleanup_(tier_apply_result_freep) struct tier_apply_result *r = NULL;
	const struct tier_plan_entry *e;

	setup(&s);
	e = tier_plan_find(s.plan, "/db2");
	ck_assert_int_eq(entry_apply(s.fx->ctx, e, 0, record_write, &ws, &r), 0);
	ck_assert_str_eq(fx_result_path(r), "/db2");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 2);
	ck_assert_uint_eq(ws.n, 2);
	ck_assert_str_eq(ws.w[0].cgroup, "/db2");
	ck_assert_int_eq(ws.w[0].attr, TIER_ATTR_NUMA_BALANCING);
	ck_assert_str_eq(ws.w[0].old_value, "inherit");
	ck_assert_str_eq(ws.w[0].new_value, "promote");
	ck_assert_int_eq(ws.w[1].attr, TIER_ATTR_MEMORY_LOW);
	ck_assert_str_eq(ws.w[1].old_value, "0");
	ck_assert_str_eq(ws.w[1].new_value, "1048576");
	assert_file(s.fx, "/db2/memory.numa_balancing", "promote", true);
	assert_file(s.fx, "/db2/memory.low", "0\n", false); /* the writer did not */

	/* unchanged values and dry runs never reach the writer */
	ws.n = 0;
	ck_assert_int_eq(entry_apply(s.fx->ctx, tier_plan_find(s.plan, "/db1"), 0,
					  record_write, &ws, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNCHANGED);
	ck_assert_int_eq(entry_apply(s.fx->ctx, tier_plan_find(s.plan, "/batch/j"),
					  TIER_APPLY_DRY_RUN, record_write, &ws, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(ws.n, 0);

	/* the writer's errors: ENODEV (removed under the write) is VANISHED,
	 * EOPNOTSUPP UNSUPPORTED, others ERROR, and the return value says so */
	ws.fail = -ENODEV;
	ck_assert_int_eq(entry_apply(s.fx->ctx, tier_plan_find(s.plan, "/batch/j"), 0,
					  record_write, &ws, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_VANISHED);
	ck_assert_int_eq(tier_apply_result_error(r), -ENODEV);
	ck_assert_str_eq(res_change(r, 1).old_value, "max");
	ws.fail = -EOPNOTSUPP;
	ck_assert_int_eq(entry_apply(s.fx->ctx, tier_plan_find(s.plan, "/batch/j"), 0,
					  record_write, &ws, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNSUPPORTED);
	ws.fail = -EBUSY;
	ck_assert_int_eq(entry_apply(s.fx->ctx, tier_plan_find(s.plan, "/batch/j"), 0,
					  record_write, &ws, &r),
			 1);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_ERROR);
	ck_assert_int_eq(tier_apply_result_error(r), -EBUSY);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_UNCHANGED);
	ck_assert_int_eq(res_change(r, 1).status, TIER_APPLY_ERROR);
	assert_file(s.fx, "/batch/j/memory.high", "max\n", false);
	teardown(&s);
}
END_TEST

/* An adjusted copy of an entry (what tierd's fair share does), unmanaged
 * entries, bad arguments. */
START_TEST(test_apply_entry_copy)
{
	struct setup s;
	_cleanup_(tier_plan_entry_freep) struct tier_plan_entry *e = NULL;
	_cleanup_(tier_apply_result_freep) struct tier_apply_result *r = NULL;
	struct tier_apply_result *before;
	uint64_t v;

	setup(&s);
	ck_assert_int_eq(tier_plan_entry_dup(tier_plan_find(s.plan, "/web"), &e), 0);
	ck_assert_str_eq(fx_entry_path(e), "/web");
	ck_assert_ptr_eq(tier_plan_entry_rule(e), tier_plan_entry_rule(tier_plan_find(s.plan, "/web")));
	ck_assert_int_eq(tier_plan_entry_set_desired(e, TIER_ATTR_NUMA_BALANCING, TIER_MODE_PROMOTE),
			 0);
	ck_assert_int_eq(tier_plan_entry_set_desired(e, TIER_ATTR_MEMORY_HIGH, 1 << 20), 0);
	ck_assert_int_eq(tier_plan_entry_set_desired(e, TIER_ATTR_NUMA_BALANCING, _TIER_MODE_MAX),
			 -EINVAL);
	ck_assert_int_eq(tier_plan_entry_set_desired(e, _TIER_ATTR_MAX, 0), -EINVAL);
	/* the copy is the caller's: the plan's entry is unchanged */
	ck_assert_int_eq(tier_plan_entry_get_desired(tier_plan_find(s.plan, "/web"),
						     TIER_ATTR_NUMA_BALANCING, &v), 0);
	ck_assert_uint_eq(v, TIER_MODE_OFF);
	ck_assert_int_eq(tier_plan_entry_get_desired(tier_plan_find(s.plan, "/web"),
						     TIER_ATTR_MEMORY_HIGH, &v), -ENODATA);
	ck_assert_int_eq(entry_apply(s.fx->ctx, e, 0, NULL, NULL, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 2);
	ck_assert_str_eq(res_change(r, 0).old_value, "off");
	ck_assert_str_eq(res_change(r, 0).new_value, "promote");
	ck_assert_str_eq(res_change(r, 1).new_value, "1048576");
	assert_file(s.fx, "/web/memory.numa_balancing", "promote", true);
	assert_file(s.fx, "/web/memory.high", "1048576", true);
	assert_file(s.fx, "/web/memory.low", "0\n", false);

	ck_assert_int_eq(entry_apply(s.fx->ctx, tier_plan_find(s.plan, "/other"), 0, NULL,
					  NULL, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNMANAGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 0);
	ck_assert_str_eq(fx_result_path(r), "/other");

	/* clearing a desired value: the attribute is left alone */
	ck_assert_int_eq(tier_plan_entry_clear_desired(e, TIER_ATTR_MEMORY_HIGH), 0);
	ck_assert_int_eq(tier_plan_entry_get_desired(e, TIER_ATTR_MEMORY_HIGH, &v), -ENODATA);
	ck_assert_int_eq(entry_apply(s.fx->ctx, e, 0, NULL, NULL, &r), 0);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);
	ck_assert_int_eq(tier_apply_result_change_attr(r, 0), TIER_ATTR_NUMA_BALANCING);
	ck_assert_int_eq(tier_apply_result_change_status(r, 0), TIER_APPLY_UNCHANGED);
	/* out of range: defined answers */
	ck_assert_int_eq(tier_apply_result_change_attr(r, 1), _TIER_ATTR_MAX);
	ck_assert_ptr_null(tier_apply_result_change_old_value(r, 1));

	before = r;
	ck_assert_int_eq(tier_apply_entry(NULL, e, 0, NULL, NULL, &r), -EINVAL);
	ck_assert_int_eq(tier_apply_entry(s.fx->ctx, NULL, 0, NULL, NULL, &r), -EINVAL);
	ck_assert_int_eq(tier_apply_entry(s.fx->ctx, e, 0, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(tier_apply_entry(s.fx->ctx, e, 1u << 20, NULL, NULL, &r), -EINVAL);
	ck_assert_ptr_eq(r, before);
	teardown(&s);
}
END_TEST

/* One class onto one cgroup, without a plan (the OCI hook). */
START_TEST(test_class_apply)
{
	static const char text[] = "[class:c]\nmode = promote\nmemory_low = 64M\nmemory_high = 1G\n"
				   "[class:plain]\nmode = off\n";
	struct fx *fx = fx_new();
	struct tier_policy *p = NULL;
	const struct tier_class *c, *plain;
	_cleanup_(tier_apply_result_freep) struct tier_apply_result *r = NULL;
	struct tier_apply_result *before;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	c = tier_policy_find_class(p, "c");
	plain = tier_policy_find_class(p, "plain");
	fx_cgroup(fx, "/ctr", "inherit");
	fx_cgroup(fx, "/qos", "inherit");
	fx_write(fx->cg, "/qos/memory.high", "4294967296\n");	/* set by the runtime */
	for (size_t f = 0; f < 3; f++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "/ctr/%s", files[f]);
		fx_age(fx->cg, rel);
		snprintf(rel, sizeof(rel), "/qos/%s", files[f]);
		fx_age(fx->cg, rel);
	}

	/* dry run: the diff, nothing written */
	ck_assert_int_eq(class_apply(fx->ctx, "/ctr", c, NULL, TIER_APPLY_DRY_RUN, &r), 0);
	ck_assert_str_eq(fx_result_path(r), "/ctr");
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 3);
	ck_assert_str_eq(res_change(r, 0).new_value, "promote");
	ck_assert_str_eq(res_change(r, 1).new_value, "67108864");
	ck_assert_str_eq(res_change(r, 2).old_value, "max");
	ck_assert_str_eq(res_change(r, 2).new_value, "1073741824");
	assert_file(fx, "/ctr/memory.numa_balancing", "inherit\n", false);
	assert_file(fx, "/ctr/memory.low", "0\n", false);

	/* for real: exactly those three */
	ck_assert_int_eq(class_apply(fx->ctx, "/ctr", c, NULL, 0, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	assert_file(fx, "/ctr/memory.numa_balancing", "promote", true);
	assert_file(fx, "/ctr/memory.low", "67108864", true);
	assert_file(fx, "/ctr/memory.high", "1073741824", true);
	ck_assert_int_eq(class_apply(fx->ctx, "/ctr", c, NULL, 0, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNCHANGED);

	/* KEEP_SET: a memory.high someone else set stays; memory.low at its
	 * default is written */
	ck_assert_int_eq(class_apply(fx->ctx, "/qos", c, NULL,
					  TIER_APPLY_KEEP_SET | TIER_APPLY_SKIP_NUMA_BALANCING, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 2);
	ck_assert_int_eq(res_change(r, 0).attr, TIER_ATTR_MEMORY_LOW);
	ck_assert_int_eq(res_change(r, 0).status, TIER_APPLY_CHANGED);
	ck_assert_int_eq(res_change(r, 1).attr, TIER_ATTR_MEMORY_HIGH);
	ck_assert_int_eq(res_change(r, 1).status, TIER_APPLY_KEPT);
	ck_assert_str_eq(res_change(r, 1).old_value, "4294967296");
	ck_assert_str_eq(res_change(r, 1).new_value, "1073741824");
	assert_file(fx, "/qos/memory.numa_balancing", "inherit\n", false);
	assert_file(fx, "/qos/memory.low", "67108864", true);
	assert_file(fx, "/qos/memory.high", "4294967296\n", false);
	ck_assert_str_eq(tier_apply_status_to_string(TIER_APPLY_KEPT), "kept");
	/* KEPT alone summarises as KEPT */
	ck_assert_int_eq(class_apply(fx->ctx, "/qos", c, NULL,
					  TIER_APPLY_KEEP_SET | TIER_APPLY_SKIP_NUMA_BALANCING, &r),
			 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_KEPT);

	/* a class without limits touches only memory.numa_balancing */
	ck_assert_int_eq(class_apply(fx->ctx, "/qos", plain, NULL, 0, &r), 0);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);
	assert_file(fx, "/qos/memory.numa_balancing", "off", true);

	/* a kernel without the knob, a vanished cgroup */
	fx_unlink(fx->cg, "/ctr/memory.numa_balancing");
	ck_assert_int_eq(class_apply(fx->ctx, "/ctr", plain, NULL, 0, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNSUPPORTED);
	ck_assert_int_eq(tier_apply_result_error(r), -EOPNOTSUPP);
	ck_assert_str_eq(res_change(r, 0).old_value, "");
	ck_assert_int_eq(class_apply(fx->ctx, "/gone", c, NULL, 0, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_VANISHED);
	ck_assert_int_eq(tier_apply_result_error(r), -ENOENT);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);

	/* bad arguments leave the result alone */
	before = r;
	ck_assert_int_eq(tier_class_apply(fx->ctx, "ctr", c, NULL, 0, &r), -EINVAL);
	ck_assert_int_eq(tier_class_apply(fx->ctx, "/a/../ctr", c, NULL, 0, &r), -EINVAL);
	ck_assert_int_eq(tier_class_apply(fx->ctx, NULL, c, NULL, 0, &r), -EINVAL);
	ck_assert_int_eq(tier_class_apply(fx->ctx, "/ctr", NULL, NULL, 0, &r), -EINVAL);
	ck_assert_int_eq(tier_class_apply(fx->ctx, "/ctr", c, NULL, 1u << 20, &r), -EINVAL);
	ck_assert_ptr_eq(r, before);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

/* One attribute, no plan: tierctl set and fair-share enforcement. */
START_TEST(test_apply_attr)
{
	struct fx *fx = fx_new();
	struct tier_apply_result *r = NULL, *before;
	struct writes ws = { 0 };

	fx_cgroup(fx, "/a", "inherit");
	for (size_t f = 0; f < 3; f++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "/a/%s", files[f]);
		fx_age(fx->cg, rel);
	}
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", TIER_ATTR_NUMA_BALANCING,
						TIER_MODE_OFF, 0, NULL, NULL, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(tier_apply_result_change_count(r), 1);
	ck_assert_str_eq(tier_apply_result_change_old_value(r, 0), "inherit");
	ck_assert_str_eq(tier_apply_result_change_new_value(r, 0), "off");
	assert_file(fx, "/a/memory.numa_balancing", "off", true);
	tier_apply_result_free(r);

	/* equal: not written, unless re-asserted (through the writer here) */
	fx_age(fx->cg, "/a/memory.high");
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", TIER_ATTR_MEMORY_HIGH, UINT64_MAX, 0,
						record_write, &ws, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_UNCHANGED);
	ck_assert_uint_eq(ws.n, 0);
	tier_apply_result_free(r);
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", TIER_ATTR_MEMORY_HIGH, UINT64_MAX,
						TIER_APPLY_REWRITE, record_write, &ws, &r), 0);
	ck_assert_int_eq(tier_apply_result_status(r), TIER_APPLY_CHANGED);
	ck_assert_uint_eq(ws.n, 1);
	ck_assert_str_eq(ws.w[0].old_value, "max");
	ck_assert_str_eq(ws.w[0].new_value, "max");
	tier_apply_result_free(r);
	/* ... and not in a dry run */
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", TIER_ATTR_MEMORY_HIGH, UINT64_MAX,
						TIER_APPLY_REWRITE | TIER_APPLY_DRY_RUN,
						record_write, &ws, &r), 0);
	ck_assert_uint_eq(ws.n, 1);
	tier_apply_result_free(r);

	r = before = (struct tier_apply_result *)&ws;
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "a", TIER_ATTR_MEMORY_LOW, 0, 0, NULL,
						NULL, &r), -EINVAL);
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", _TIER_ATTR_MAX, 0, 0, NULL, NULL,
						&r), -EINVAL);
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", TIER_ATTR_NUMA_BALANCING, 17, 0,
						NULL, NULL, &r), -EINVAL);
	ck_assert_int_eq(tier_cgroup_apply_attr(fx->ctx, "/a", TIER_ATTR_MEMORY_LOW, 0, 1u << 20,
						NULL, NULL, &r), -EINVAL);
	ck_assert_ptr_eq(r, before);
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
	tcase_add_test(tc, test_apply_skip);
	tcase_add_test(tc, test_apply_entry_writer);
	tcase_add_test(tc, test_apply_entry_copy);
	tcase_add_test(tc, test_class_apply);
	tcase_add_test(tc, test_apply_attr);
	tcase_add_test(tc, test_strings);
	suite_add_tcase(s, tc);
	return s;
}
