// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/backend.c: the backend choice.  tier_backend_decide() for every
 * combination of what a machine offers and what the policy asks; the probe
 * on fake trees (patched, stock with DAMON, stock without, one tier, no
 * cgroup2 memory controller); the [daemon] backend key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "damon.h"

static char system_slice[] = "/system.slice";

static struct tier_backend_probe pr(bool knob, enum tier_knob_evidence ev, bool damon,
				    unsigned n_tiers)
{
	return (struct tier_backend_probe){
		.knob = knob,
		.knob_evidence = ev,
		.knob_cgroup = ev == TIER_KNOB_CGROUP ? system_slice : NULL,
		.damon = damon,
		.n_tiers = n_tiers,
	};
}

/* decide(requested, probe) is backend, satisfied, and its reason holds want. */
static void expect(enum tier_backend req, struct tier_backend_probe p, enum tier_backend backend,
		   bool satisfied, const char *want)
{
	struct tier_backend_choice c;

	ck_assert_int_eq(tier_backend_decide(req, &p, &c), 0);
	ck_assert_msg(c.backend == backend, "%s -> %s, want %s (%s)", tier_backend_to_string(req),
		      tier_backend_to_string(c.backend), tier_backend_to_string(backend), c.reason);
	ck_assert_int_eq(c.satisfied, satisfied);
	ck_assert_int_eq(c.requested, req);
	ck_assert_strstr(c.reason, want);
	tier_backend_choice_done(&c);
}

START_TEST(test_names)
{
	enum tier_backend b;

	for (int i = 0; i < _TIER_BACKEND_MAX; i++) {
		ck_assert_int_eq(tier_backend_from_string(tier_backend_to_string(i), &b), 0);
		ck_assert_int_eq(b, i);
	}
	ck_assert_int_eq(tier_backend_from_string("Knob", &b), -EINVAL);
	ck_assert_int_eq(tier_backend_from_string("", &b), -EINVAL);
	ck_assert_int_eq(tier_backend_from_string(NULL, &b), -EINVAL);
	ck_assert_ptr_null(tier_backend_to_string(_TIER_BACKEND_MAX));
	ck_assert_ptr_null(tier_backend_to_string((enum tier_backend)-1));
}
END_TEST

START_TEST(test_decide_auto)
{
	/* patched kernel: knob, whatever DAMON and the tiers are */
	expect(TIER_BACKEND_AUTO, pr(true, TIER_KNOB_CGROUP, true, 2), TIER_BACKEND_KNOB, true,
	       "memory.numa_balancing present (in /system.slice");
	expect(TIER_BACKEND_AUTO, pr(true, TIER_KNOB_CGROUP, false, 1), TIER_BACKEND_KNOB, true,
	       "present");
	expect(TIER_BACKEND_AUTO, pr(true, TIER_KNOB_VMSTAT, false, 2), TIER_BACKEND_KNOB, true,
	       "numa_promo_pte_updates");
	/* stock kernel with DAMON and two tiers */
	expect(TIER_BACKEND_AUTO, pr(false, TIER_KNOB_CGROUP, true, 2), TIER_BACKEND_DAMON, true,
	       "memory.numa_balancing not present (kernel without the tierd series); "
	       "DAMON sysfs present; 2 memory tiers");
	expect(TIER_BACKEND_AUTO, pr(false, TIER_KNOB_VMSTAT, true, 3), TIER_BACKEND_DAMON, true,
	       "3 memory tiers");
	/* stock, DAMON, one tier (or unknown) */
	expect(TIER_BACKEND_AUTO, pr(false, TIER_KNOB_CGROUP, true, 1), TIER_BACKEND_NONE, true,
	       "DAMON sysfs present, but 1 memory tier: nothing to promote to");
	expect(TIER_BACKEND_AUTO, pr(false, TIER_KNOB_CGROUP, true, 0), TIER_BACKEND_NONE, true,
	       "memory tiers unknown");
	/* stock without DAMON */
	expect(TIER_BACKEND_AUTO, pr(false, TIER_KNOB_CGROUP, false, 2), TIER_BACKEND_NONE, true,
	       "no DAMON sysfs interface (CONFIG_DAMON_SYSFS off); 2 memory tiers");
	/* no cgroup2 memory controller (hybrid host): none, even with DAMON */
	expect(TIER_BACKEND_AUTO, pr(false, TIER_KNOB_NO_CGROUP, true, 2), TIER_BACKEND_NONE, true,
	       "no cgroup v2 memory controller: tierd cannot manage cgroups here");
}
END_TEST

START_TEST(test_decide_explicit)
{
	expect(TIER_BACKEND_KNOB, pr(true, TIER_KNOB_CGROUP, false, 1), TIER_BACKEND_KNOB, true,
	       "backend = knob in the policy; memory.numa_balancing present");
	expect(TIER_BACKEND_KNOB, pr(false, TIER_KNOB_CGROUP, true, 2), TIER_BACKEND_NONE, false,
	       "backend = knob in the policy, but memory.numa_balancing not present");
	expect(TIER_BACKEND_KNOB, pr(false, TIER_KNOB_NO_CGROUP, true, 2), TIER_BACKEND_NONE,
	       false, "but no cgroup v2 memory controller");
	/* damon is honoured on a patched kernel too */
	expect(TIER_BACKEND_DAMON, pr(true, TIER_KNOB_CGROUP, true, 2), TIER_BACKEND_DAMON, true,
	       "backend = damon in the policy; DAMON sysfs present; 2 memory tiers");
	expect(TIER_BACKEND_DAMON, pr(false, TIER_KNOB_CGROUP, false, 2), TIER_BACKEND_NONE,
	       false, "backend = damon in the policy, but no DAMON sysfs interface");
	expect(TIER_BACKEND_DAMON, pr(false, TIER_KNOB_CGROUP, true, 1), TIER_BACKEND_NONE, false,
	       "but fewer than two memory tiers");
	expect(TIER_BACKEND_DAMON, pr(false, TIER_KNOB_NO_CGROUP, true, 2), TIER_BACKEND_NONE,
	       false, "but no cgroup v2 memory controller");
	expect(TIER_BACKEND_NONE, pr(true, TIER_KNOB_CGROUP, true, 2), TIER_BACKEND_NONE, true,
	       "backend = none in the policy");
}
END_TEST

START_TEST(test_decide_busy)
{
	struct tier_backend_probe p = pr(false, TIER_KNOB_CGROUP, true, 2);
	struct tier_backend_choice c;

	p.damon_modules = TIER_DAMON_MODULE_RECLAIM | TIER_DAMON_MODULE_LRU_SORT;
	ck_assert_int_eq(tier_backend_decide(TIER_BACKEND_AUTO, &p, &c), 0);
	ck_assert_int_eq(c.backend, TIER_BACKEND_DAMON);
	ck_assert_strstr(c.reason, "DAMON busy: DAMON_RECLAIM and DAMON_LRU_SORT enabled");
	ck_assert_int_eq(c.probe.damon_modules, p.damon_modules);
	ck_assert_str_eq(c.probe.knob_cgroup, "/system.slice");
	ck_assert_ptr_ne(c.probe.knob_cgroup, p.knob_cgroup);	/* a copy */
	tier_backend_choice_done(&c);
	ck_assert_int_eq(tier_backend_decide(_TIER_BACKEND_MAX, &p, &c), -EINVAL);
}
END_TEST

/* A two-tier (or one-tier) topology of the fixture. */
static struct tier_topology *topo_of(struct fx *fx, bool two)
{
	struct tier_topology *t = NULL;

	fx_node(fx, 0, 16u << 20, 8u << 20);
	fx_memtier(fx, 4, "0");
	if (two) {
		fx_node(fx, 1, 8u << 20, 8u << 20);
		fx_memtier(fx, 22, "1");
		fx_node_lists(fx, "0-1", "0");
	} else {
		fx_node_lists(fx, "0", "0");
	}
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	return t;
}

static struct tier_backend_choice choose(struct fx *fx, const char *root,
					 const struct tier_topology *t)
{
	struct tier_backend_choice c;

	ck_assert_int_eq(tier_backend_choose(TIER_BACKEND_AUTO, root, fx->sys, fx->proc, t, &c),
			 0);
	return c;
}

START_TEST(test_probe_patched)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = topo_of(fx, true);
	struct tier_backend_choice c;

	/* "/a.slice" has no memory controller files: "/b.slice" decides */
	fx_write(fx->cg, "a.slice/cgroup.procs", "");
	fx_cgroup(fx, "/b.slice", "inherit");
	fx_cgroup(fx, "/c.slice", NULL);
	fx_mkdir(fx->root, "sys/kernel/mm/damon/admin/kdamonds");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.backend, TIER_BACKEND_KNOB);
	ck_assert_int_eq(c.probe.knob_evidence, TIER_KNOB_CGROUP);
	ck_assert_str_eq(c.probe.knob_cgroup, "/b.slice");
	ck_assert(c.probe.damon);
	ck_assert_uint_eq(c.probe.n_tiers, 2);
	tier_backend_choice_done(&c);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

START_TEST(test_probe_stock_damon)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = topo_of(fx, true);
	struct tier_backend_choice c;
	char *link;

	/* a symlink to a cgroup with the knob is not looked through */
	fx_cgroup(fx, "/z/real", "inherit");
	ck_assert(asprintf(&link, "%s/a.slice", fx->cg) >= 0);
	ck_assert_int_eq(symlink("z/real", link), 0);
	free(link);
	fx_cgroup(fx, "/b.slice", NULL);
	fx_mkdir(fx->root, "sys/kernel/mm/damon/admin/kdamonds");
	fx_write(fx->sys, "module/damon_reclaim/parameters/enabled", "Y\n");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.backend, TIER_BACKEND_DAMON);
	ck_assert_str_eq(c.probe.knob_cgroup, "/b.slice");
	ck_assert(!c.probe.knob);
	ck_assert_uint_eq(c.probe.damon_modules, TIER_DAMON_MODULE_RECLAIM);
	ck_assert_strstr(c.reason, "DAMON busy: DAMON_RECLAIM enabled");
	tier_backend_choice_done(&c);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

START_TEST(test_probe_stock_no_damon)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = topo_of(fx, true);
	struct tier_backend_choice c;

	fx_cgroup(fx, "/b.slice", NULL);
	/* a file where the directory should be is no DAMON */
	fx_write(fx->sys, "kernel/mm/damon/admin", "");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.backend, TIER_BACKEND_NONE);
	ck_assert(!c.probe.damon);
	ck_assert_strstr(c.reason, "no DAMON sysfs interface");
	tier_backend_choice_done(&c);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

START_TEST(test_probe_one_tier)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = topo_of(fx, false);
	struct tier_backend_choice c;

	fx_cgroup(fx, "/b.slice", NULL);
	fx_mkdir(fx->root, "sys/kernel/mm/damon/admin/kdamonds");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.backend, TIER_BACKEND_NONE);
	ck_assert_uint_eq(c.probe.n_tiers, 1);
	ck_assert_strstr(c.reason, "1 memory tier: nothing to promote to");
	tier_backend_choice_done(&c);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/* No cgroup below the root has memory files: vmstat decides. */
START_TEST(test_probe_vmstat)
{
	struct fx *fx = fx_new();
	struct tier_backend_choice c;

	fx_write(fx->cg, "a.slice/cgroup.procs", "");
	fx_write(fx->proc, "vmstat", "numa_pte_updates 0\nnuma_promo_pte_updates_x 1\n");
	c = choose(fx, fx->cg, NULL);
	ck_assert_int_eq(c.probe.knob_evidence, TIER_KNOB_VMSTAT);
	ck_assert(!c.probe.knob);
	ck_assert_int_eq(c.backend, TIER_BACKEND_NONE);
	ck_assert_strstr(c.reason, "vmstat lacks the series' numa_promo_pte_updates");
	tier_backend_choice_done(&c);
	fx_write(fx->proc, "vmstat", "numa_pte_updates 0\nnuma_promo_pte_updates 7\n");
	c = choose(fx, fx->cg, NULL);
	ck_assert(c.probe.knob);
	ck_assert_int_eq(c.backend, TIER_BACKEND_KNOB);
	tier_backend_choice_done(&c);
	/* no vmstat at all: no knob */
	fx_unlink(fx->proc, "vmstat");
	c = choose(fx, fx->cg, NULL);
	ck_assert(!c.probe.knob);
	tier_backend_choice_done(&c);
	fx_free(fx);
}
END_TEST

START_TEST(test_probe_no_cgroup)
{
	struct fx *fx = fx_new();
	struct tier_backend_choice c;

	fx_cgroup(fx, "/b.slice", "inherit");	/* never looked at */
	fx_mkdir(fx->root, "sys/kernel/mm/damon/admin/kdamonds");
	c = choose(fx, NULL, NULL);
	ck_assert_int_eq(c.backend, TIER_BACKEND_NONE);
	ck_assert_int_eq(c.probe.knob_evidence, TIER_KNOB_NO_CGROUP);
	ck_assert(!c.probe.knob);
	ck_assert_ptr_null(c.probe.knob_cgroup);
	tier_backend_choice_done(&c);
	fx_free(fx);
}
END_TEST

START_TEST(test_policy_key)
{
	static const char *const ok[] = { "auto", "knob", "damon", "none" };
	struct tier_policy *p = NULL;
	static const char bad[] = "[daemon]\nbackend = numa\n";
	struct tier_errors *e;
	char buf[64];

	ck_assert_int_eq(tier_policy_load_buffer("t", "", 0, NULL, &p), 0);
	ck_assert_int_eq(tier_policy_daemon(p)->backend, TIER_BACKEND_AUTO);
	tier_policy_unref(p);
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		int n = snprintf(buf, sizeof(buf), "[daemon]\nbackend = %s\n", ok[i]);

		p = NULL;
		ck_assert_int_eq(tier_policy_load_buffer("t", buf, (size_t)n, NULL, &p), 0);
		ck_assert_str_eq(tier_backend_to_string(tier_policy_daemon(p)->backend), ok[i]);
		tier_policy_unref(p);
	}
	e = tier_errors_new();
	ck_assert_ptr_nonnull(e);
	p = NULL;
	ck_assert_int_eq(tier_policy_load_buffer("t", bad, strlen(bad), e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert_strstr(tier_errors_get(e, 0), "t:2: invalid backend 'numa' (expected auto, knob, "
						 "damon or none)");
	tier_errors_free(e);
}
END_TEST

START_TEST(test_pagecache_seen)
{
	/* page cache read with read(2), seen by DAMON: the series always; a
	 * stock kernel with MGLRU off only; the probe reads lru_gen */
	struct fx *fx = fx_new();
	struct tier_topology *t = topo_of(fx, true);
	struct tier_backend_choice c;
	struct tier_backend_probe p = pr(true, TIER_KNOB_CGROUP, true, 2);
	const char *why = NULL;

	p.lru_gen = 1;
	ck_assert_int_eq(tier_pagecache_read_seen(&p, &why), 1);
	ck_assert_strstr(why, "tierd series");
	p = pr(false, TIER_KNOB_CGROUP, true, 2);
	p.lru_gen = 1;
	ck_assert_int_eq(tier_pagecache_read_seen(&p, &why), 0);
	ck_assert_strstr(why, "MGLRU on");
	p.lru_gen = 0;
	ck_assert_int_eq(tier_pagecache_read_seen(&p, NULL), 1);
	p.lru_gen = -1;
	ck_assert_int_eq(tier_pagecache_read_seen(&p, &why), -1);
	ck_assert_strstr(why, "unknown");

	fx_cgroup(fx, "/b.slice", NULL);
	fx_mkdir(fx->root, "sys/kernel/mm/damon/admin/kdamonds");
	/* no lru_gen directory: a kernel without MGLRU */
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.probe.lru_gen, 0);
	tier_backend_choice_done(&c);
	fx_write(fx->sys, "kernel/mm/lru_gen/enabled", "0x0007\n");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.probe.lru_gen, 1);
	ck_assert_int_eq(tier_pagecache_read_seen(&c.probe, NULL), 0);
	tier_backend_choice_done(&c);
	fx_write(fx->sys, "kernel/mm/lru_gen/enabled", "0x0000\n");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.probe.lru_gen, 0);
	tier_backend_choice_done(&c);
	fx_write(fx->sys, "kernel/mm/lru_gen/enabled", "garbage\n");
	c = choose(fx, fx->cg, t);
	ck_assert_int_eq(c.probe.lru_gen, -1);
	tier_backend_choice_done(&c);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

Suite *suite_backend(void)
{
	Suite *s = suite_create("backend");
	TCase *tc = tcase_create("backend");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_decide_auto);
	tcase_add_test(tc, test_decide_explicit);
	tcase_add_test(tc, test_decide_busy);
	tcase_add_test(tc, test_probe_patched);
	tcase_add_test(tc, test_probe_stock_damon);
	tcase_add_test(tc, test_probe_stock_no_damon);
	tcase_add_test(tc, test_probe_one_tier);
	tcase_add_test(tc, test_probe_vmstat);
	tcase_add_test(tc, test_probe_no_cgroup);
	tcase_add_test(tc, test_policy_key);
	tcase_add_test(tc, test_pagecache_seen);
	suite_add_tcase(s, tc);
	return s;
}
