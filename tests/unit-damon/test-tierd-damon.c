// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd's DAMON backend (controller/tierd/tierd-damon.c): the scheme set a
 * table of managed cgroups gives (pure), the memcgs with pages of a fake
 * cgroup tree, the memcg prefix from a fake mountinfo, fairness's DAMON
 * method, and the driver on a fake DAMON sysfs tree (one kdamond of ours,
 * one commit per change, a record a restart takes back, someone else's
 * kdamond never touched).
 *
 * The fake sysfs cannot make directories when a count file is written:
 * each driver test creates what 6.12 would have after those writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "fixture.h"
#include "tierd-damon.h"
#include "tierd-fair.h"

#define ADMIN "sys/kernel/mm/damon/admin"
/* tierd-damon.c's chunk of scheme indexes */
#define DAMON_SLOT_CHUNK_TEST 16
#define DAMON_ARM_TICKS_TEST 3	/* tierd-damon.c DAMON_ARM_TICKS */

/* ------------------------------------------------------------------------
 * The plan
 * ------------------------------------------------------------------------ */

static const char *want_str(const struct damon_plan *p, size_t i)
{
	static char buf[512];

	static const char *const kinds[] = { "promote", "demote", "hot", "clock", "pagecache",
					     "hot_slow" };
	const char *anon = p->w[i].anon_only ? " anon" : "";

	if (p->w[i].quota_bytes &&
	    (p->w[i].kind == DAMON_PROMOTE || p->w[i].kind == DAMON_PAGECACHE))
		snprintf(buf, sizeof(buf), "%s %s quota %llu%s", kinds[p->w[i].kind], p->w[i].memcg,
			 (unsigned long long)p->w[i].quota_bytes, anon);
	else
		snprintf(buf, sizeof(buf), "%s %s%s", kinds[p->w[i].kind], p->w[i].memcg, anon);
	return buf;
}

/* The plan as "kind memcg" lines, for one assert per case. */
static char *plan_text(const struct damon_plan *p)
{
	char *s = strdup("");

	for (size_t i = 0; i < p->n; i++) {
		char *n;

		ck_assert(asprintf(&n, "%s%s\n", s, want_str(p, i)) >= 0);
		free(s);
		s = n;
	}
	return s;
}

START_TEST(test_plan_modes)
{
	/* a class on an inner cgroup covers its memcgs with pages; a child
	 * class can only restrict; off and inherit get nothing */
	const struct damon_managed managed[] = {
		{ "/kubepods/pod-a", TIER_MODE_PROMOTE },
		{ "/kubepods/pod-a/ctr-off", TIER_MODE_OFF },
		{ "/db", TIER_MODE_FULL },
		{ "/batch", TIER_MODE_OFF },
		{ "/plain", TIER_MODE_INHERIT },
	};
	const char *memcgs[] = {
		"/kubepods/pod-a", "/kubepods/pod-a/ctr1", "/kubepods/pod-a/ctr2",
		"/kubepods/pod-a/ctr-off", "/kubepods/pod-ab", "/db", "/batch", "/plain",
		"/unmanaged",
	};
	struct damon_plan p = {};
	_cleanup_free_ char *t = NULL;

	ck_assert_int_eq(damon_plan_build(managed, ARRAY_SIZE(managed), memcgs, ARRAY_SIZE(memcgs),
					  NULL, 0, DAMON_PLAN_TIERING, &p), 0);
	t = plan_text(&p);
	ck_assert_str_eq(t, "promote /db\n"
			    "promote /kubepods/pod-a\n"
			    "promote /kubepods/pod-a/ctr1\n"
			    "promote /kubepods/pod-a/ctr2\n");
	ck_assert_uint_eq(p.n_dropped, 0);
	damon_plan_done(&p);
}
END_TEST

START_TEST(test_plan_fair)
{
	/* /a shares with a target below its demand: demotion for each of its
	 * memcgs, promotion held off while throttled; /b has no target:
	 * promotion only; /d's demand fits its target: no demotion */
	const struct damon_managed managed[] = {
		{ "/a", TIER_MODE_PROMOTE },
		{ "/b", TIER_MODE_PROMOTE },
		{ "/c", TIER_MODE_OFF },
	};
	const char *memcgs[] = { "/a", "/a/x", "/b", "/c", "/d" };
	struct damon_fair fair[] = {
		{ .path = "/a", .target = 100 << 20, .demand = 300 << 20, .fast_bytes = 200 << 20 },
		{ .path = "/b", .target = 0, .demand = 10 << 20, .fast_bytes = 10 << 20 },
		{ .path = "/c", .target = 50 << 20, .demand = UINT64_MAX, .fast_bytes = 10 << 20 },
		{ .path = "/d", .target = 20 << 20, .demand = 20 << 20, .fast_bytes = 20 << 20 },
	};
	struct damon_plan p = {}, q = {};
	_cleanup_free_ char *t = NULL, *u = NULL;

	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 5, fair, 4, DAMON_PLAN_TIERING, &p), 0);
	t = plan_text(&p);
	ck_assert_str_eq(t, "promote /a\ndemote /a\npromote /a/x\ndemote /a/x\npromote /b\n"
			    "demote /c\n");
	/* /a is at twice its target: the goal asks for demotion (score < 1) */
	ck_assert_uint_eq(p.w[1].goal_current, damon_goal_current(100 << 20, 200 << 20));
	ck_assert_uint_lt(p.w[1].goal_current, DAMON_GOAL_TARGET);
	/* /c is below: the goal is met, the quota falls to its minimum */
	ck_assert_uint_gt(p.w[5].goal_current, DAMON_GOAL_TARGET);

	fair[0].throttled = true;
	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 5, fair, 4, DAMON_PLAN_TIERING, &q), 0);
	u = plan_text(&q);
	ck_assert_str_eq(u, "demote /a\ndemote /a/x\npromote /b\ndemote /c\n");
	ck_assert(!damon_plan_same(&p, &q));
	damon_plan_done(&q);

	/* only the goals move: the same scheme set (goals, no commit) */
	fair[0].throttled = false;
	fair[0].fast_bytes = 120 << 20;
	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 5, fair, 4, DAMON_PLAN_TIERING, &q), 0);
	ck_assert(damon_plan_same(&p, &q));
	ck_assert_uint_ne(p.w[1].goal_current, q.w[1].goal_current);
	damon_plan_done(&q);

	/* demand = resident (no hot sets) and over its share: /a's demotion
	 * walks in address order; back under its share, it ranks again */
	ck_assert(p.w[1].walk_all);
	ck_assert(!p.w[5].walk_all);
	fair[0].fast_bytes = 90 << 20;
	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 5, fair, 4, DAMON_PLAN_TIERING, &q), 0);
	ck_assert(!q.w[1].walk_all);
	ck_assert(!damon_plan_same(&p, &q));
	damon_plan_done(&q);
	damon_plan_done(&p);
}
END_TEST

START_TEST(test_plan_hot_demote)
{
	/* demand = hot (hot sets measured): /h is far above a target its
	 * demand fits (hot set + margin), /r's demand (resident) does not
	 * fit.  Both throttled: /h keeps a promotion trickle (its hot pages
	 * demoted by mistake come back), /r none; /h's demotion quota is
	 * per second, from its excess, on the hot-set minimum age */
	const struct damon_managed managed[] = {
		{ "/h", TIER_MODE_PROMOTE },
		{ "/r", TIER_MODE_PROMOTE },
	};
	const char *memcgs[] = { "/h", "/r" };
	struct damon_fair fair[] = {
		{ .path = "/h", .target = 20 << 20, .demand = 20 << 20, .resident = 256 << 20,
		  .fast_bytes = 256 << 20, .throttled = true },
		{ .path = "/r", .target = 96 << 20, .demand = 144 << 20, .resident = 144 << 20,
		  .fast_bytes = 140 << 20, .throttled = true },
	};
	struct damon_plan p = {}, q = {};
	_cleanup_free_ char *t = NULL;

	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, fair, 2,
					  DAMON_PLAN_TIERING | DAMON_PLAN_HOT, &p), 0);
	t = plan_text(&p);
	/* 16 MB (20 MB rounded down) / 8 a second */
	ck_assert_str_eq(t, "clock \n"
			    "promote /h quota 2097152\n"
			    "demote /h\nhot /h\nhot_slow /h\n"
			    "demote /r\nhot /r\nhot_slow /r\n");
	/* excess 236 MB -> 128 MB, 8% of it a second */
	ck_assert(p.w[2].hot_ctx);
	/* /h's hot set fits: a young filter, the walk; its promotion is the
	 * trickle (no quota feedback); /r's does not fit: ranked, hot pages
	 * may go */
	ck_assert(p.w[2].keep_young);
	ck_assert(p.w[1].trickle);
	ck_assert(p.w[5].hot_ctx && !p.w[5].keep_young);
	ck_assert_uint_eq(p.w[2].quota_bytes, damon_demote_hot_quota(20 << 20, 256 << 20));
	ck_assert_uint_eq(p.w[2].quota_bytes, (128ull << 20) / DAMON_DEMOTE_RATE_DIV * 10);
	/* /r: the excess (44 MB) below the target: the target's 8% */
	ck_assert_uint_eq(p.w[5].quota_bytes, (96ull << 20) / DAMON_DEMOTE_RATE_DIV * 10);
	/* the excess halves: the same quota until it does */
	fair[0].fast_bytes = (20 << 20) + (130 << 20);
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, fair, 2,
					  DAMON_PLAN_TIERING | DAMON_PLAN_HOT, &q), 0);
	ck_assert(damon_plan_same(&p, &q));
	damon_plan_done(&q);
	fair[0].fast_bytes = (20 << 20) + (100 << 20);
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, fair, 2,
					  DAMON_PLAN_TIERING | DAMON_PLAN_HOT, &q), 0);
	ck_assert(!damon_plan_same(&p, &q));
	damon_plan_done(&q);
	damon_plan_done(&p);

	/* without hot sets: as before (the target's cap per 100 ms) */
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, fair, 2, DAMON_PLAN_TIERING, &p),
			 0);
	ck_assert(!p.w[1].hot_ctx);
	ck_assert_uint_eq(p.w[1].kind, DAMON_DEMOTE);
	ck_assert_uint_eq(p.w[1].quota_bytes, (20ull << 20) / DAMON_DEMOTE_RATE_DIV);
	damon_plan_done(&p);
}
END_TEST

START_TEST(test_quota_scale)
{
	const uint64_t M = 1ull << 20;

	/* the budget case: 8 MB/s over 3 s (24 MB wanted), quota exhausted,
	 * 20% of what was tried was the cgroup's: 5x */
	ck_assert_uint_eq(damon_quota_scale_next(DAMON_SCALE_ONE, 24 * M, 24 * M / 5, 24 * M, true),
			  2 * DAMON_SCALE_ONE);	/* at most doubling per window */
	ck_assert_uint_eq(damon_quota_scale_next(200, 48 * M, 48 * M / 5, 24 * M, true), 400);
	/* up by a quarter at least: 400 -> 500 is not */
	ck_assert_uint_eq(damon_quota_scale_next(400, 96 * M, 96 * M / 5, 24 * M, true), 400);
	ck_assert_uint_eq(damon_quota_scale_next(300, 72 * M, 72 * M / 5, 24 * M, true), 500);
	/* 0 is one */
	ck_assert_uint_eq(damon_quota_scale_next(0, 24 * M, 12 * M, 24 * M, true), 200);
	/* within an eighth: unchanged (each change is a commit) */
	ck_assert_uint_eq(damon_quota_scale_next(500, 120 * M, 23 * M, 24 * M, true), 500);
	ck_assert_uint_eq(damon_quota_scale_next(500, 120 * M, 26 * M, 24 * M, true), 500);
	/* on the want (within an eighth): kept, whatever tried / applied */
	ck_assert_uint_eq(damon_quota_scale_next(500, 120 * M, 60 * M, 64 * M, true), 500);
	/* the quota ran out in some windows only (the rate below the want):
	 * in proportion, up to twice tried / applied */
	ck_assert_uint_eq(damon_quota_scale_next(DAMON_SCALE_ONE, 12 * M, 12 * M, 24 * M, true),
			  200);
	ck_assert_uint_eq(damon_quota_scale_next(DAMON_SCALE_ONE, 18 * M, 18 * M, 24 * M, true),
			  133);
	ck_assert_uint_eq(damon_quota_scale_next(400, 60 * M, 30 * M, 240 * M, true), 400);
	/* ran ahead of the want by more than an eighth: down in proportion,
	 * exhausted or not */
	ck_assert_uint_eq(damon_quota_scale_next(500, 120 * M, 48 * M, 24 * M, true), 250);
	ck_assert_uint_eq(damon_quota_scale_next(500, 120 * M, 48 * M, 24 * M, false), 250);
	ck_assert_uint_eq(damon_quota_scale_next(200, 120 * M, 240 * M, 24 * M, false),
			  DAMON_SCALE_ONE);	/* never below one */
	/* not exhausted: the quota did not bind, unchanged */
	ck_assert_uint_eq(damon_quota_scale_next(300, 24 * M, 2 * M, 24 * M, false), 300);
	/* too little tried, or no want: unchanged */
	ck_assert_uint_eq(damon_quota_scale_next(300, DAMON_FB_MIN_TRIED - 1, 0, 24 * M, true),
			  300);
	ck_assert_uint_eq(damon_quota_scale_next(300, 24 * M, 0, 0, true), 300);
	/* nothing applied of a bound quota: doubles, up to the bound */
	ck_assert_uint_eq(damon_quota_scale_next(300, 24 * M, 0, 24 * M, true), 600);
	ck_assert_uint_eq(damon_quota_scale_next(600, 24 * M, 0, 24 * M, true), DAMON_SCALE_MAX);
	ck_assert_uint_eq(damon_quota_scale_next(DAMON_SCALE_MAX, 24 * M, 1 * M, 24 * M, true),
			  DAMON_SCALE_MAX);

	/* a budget goes up by half at most: the tried / applied 3 of the
	 * run that promoted 11.4 MB/s on 8 (2026-12-08), then as before */
	ck_assert_uint_eq(damon_budget_scale_next(DAMON_SCALE_ONE, 24 * M, 8 * M, 19 * M, true), 150);
	ck_assert_uint_eq(damon_budget_scale_next(0, 24 * M, 8 * M, 19 * M, true), 150);
	ck_assert_uint_eq(damon_budget_scale_next(150, 60 * M, 30 * M, 64 * M, true), 225);
	ck_assert_uint_eq(damon_budget_scale_next(300, 72 * M, 72 * M / 5, 24 * M, true), 450);
	ck_assert_uint_eq(damon_budget_scale_next(200, 32 * M, 32 * M, 20 * M, true), 125);
	ck_assert_uint_eq(damon_budget_scale_next(500, 120 * M, 23 * M, 24 * M, true), 500);

	/* a hot-set window whose resident bytes moved by a quarter and 4 MB */
	ck_assert(!damon_hot_moved(256 * M, 256 * M));
	ck_assert(!damon_hot_moved(256 * M, 200 * M));
	ck_assert(damon_hot_moved(256 * M, 72 * M));
	ck_assert(damon_hot_moved(33 * M, 144 * M));
	ck_assert(!damon_hot_moved(0, 4 * M));
	ck_assert(damon_hot_moved(0, 5 * M));
	ck_assert(!damon_hot_moved(12 * M, 16 * M));

	ck_assert_uint_eq(damon_quota_scaled(0, 500), 0);
	ck_assert_uint_eq(damon_quota_scaled(8 * M, 0), 8 * M);
	ck_assert_uint_eq(damon_quota_scaled(8 * M, DAMON_SCALE_ONE), 8 * M);
	ck_assert_uint_eq(damon_quota_scaled(8 * M, 500), 40 * M);
	ck_assert_uint_eq(damon_quota_scaled(8 * M, 150), 12 * M);
	/* page-aligned, a page at least */
	ck_assert_uint_eq(damon_quota_scaled(3 * 4096ull, 150), 4 * 4096ull);
	ck_assert_uint_eq(damon_quota_scaled(1, 150), 4096ull);
	/* no overflow near the top */
	ck_assert_uint_eq(damon_quota_scaled(UINT64_MAX / 16, DAMON_SCALE_MAX),
			  (UINT64_MAX / 16 / DAMON_SCALE_ONE * DAMON_SCALE_MAX +
			   UINT64_MAX / 16 % DAMON_SCALE_ONE * DAMON_SCALE_MAX / DAMON_SCALE_ONE) &
				  ~4095ull);
}
END_TEST

START_TEST(test_goal_current)
{
	/* low = target x 0.98: the score is 1 there (the quota holds) */
	ck_assert_uint_eq(damon_goal_current(10000, 9800), DAMON_GOAL_TARGET);
	/* above it the score falls 4 times faster: 0 at 25% above (doubling) */
	ck_assert_uint_eq(damon_goal_current(10000, 9800 + 245), 10000 - 1000);
	ck_assert_uint_eq(damon_goal_current(10000, 9800 + 2450), 0);
	ck_assert_uint_eq(damon_goal_current(10000, 40000), 0);
	/* below it, 2 and more (the quota's minimum) soon */
	ck_assert_uint_eq(damon_goal_current(10000, 9800 - 245), 10000 + 1000);
	ck_assert_uint_eq(damon_goal_current(10000, 0), DAMON_GOAL_MAX);
	/* no overflow at TB scale */
	ck_assert_uint_eq(damon_goal_current(1ull << 42, 1ull << 43), 0);
	ck_assert_uint_eq(damon_goal_current(1ull << 42, 0), DAMON_GOAL_MAX);
}
END_TEST

START_TEST(test_plan_bounded)
{
	const struct damon_managed managed[] = { { "/", TIER_MODE_FULL } };
	size_t n = DAMON_SCHEMES_MAX + 10;
	char **memcgs = calloc(n, sizeof(*memcgs));
	struct damon_plan p = {};

	for (size_t i = 0; i < n; i++)
		ck_assert(asprintf(&memcgs[i], "/c%05zu", i) >= 0);
	ck_assert_int_eq(damon_plan_build(managed, 1, (const char *const *)memcgs, n, NULL, 0, DAMON_PLAN_TIERING, &p), 0);
	ck_assert_uint_eq(p.n, DAMON_SCHEMES_MAX);
	ck_assert_uint_eq(p.n_dropped, 10);
	damon_plan_done(&p);
	for (size_t i = 0; i < n; i++)
		free(memcgs[i]);
	free(memcgs);
}
END_TEST

/* ------------------------------------------------------------------------
 * The memcgs with pages, the prefix
 * ------------------------------------------------------------------------ */

static void cg_current(struct fx *fx, const char *path, const char *value)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "cgroup%s/memory.current", path);
	fx_write(fx->root, rel, value);
}

START_TEST(test_memcgs_collect)
{
	struct fx *fx = fx_new();
	const struct damon_managed managed[] = {
		{ "/pods", TIER_MODE_PROMOTE },
		{ "/pods/p1", TIER_MODE_PROMOTE },	/* nested: walked once */
		{ "/off", TIER_MODE_OFF },
		{ "/gone", TIER_MODE_PROMOTE },
	};
	const struct damon_fair fair[] = {
		{ .path = "/off", .target = 1 << 20, .demand = 2 << 20 },
		{ .path = "/notarget", .target = 0, .demand = 2 << 20 },
		{ .path = "/fits", .target = 2 << 20, .demand = 2 << 20 },
	};
	_cleanup_close_ int root = -1;
	char **v = NULL;
	size_t n = 0;

	cg_current(fx, "/pods", "0\n");
	cg_current(fx, "/pods/p1", "0\n");
	cg_current(fx, "/pods/p1/c1", "4096\n");
	cg_current(fx, "/pods/p1/c2", "8192\n");
	cg_current(fx, "/pods/p1/empty", "0\n");
	cg_current(fx, "/pods/p2", "4096\n");
	cg_current(fx, "/pods-x", "4096\n");	/* not below /pods */
	cg_current(fx, "/off", "4096\n");
	cg_current(fx, "/off/leaf", "4096\n");
	cg_current(fx, "/notarget", "4096\n");
	cg_current(fx, "/fits", "4096\n");
	root = open(fx->cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(root, 0);
	ck_assert_int_eq(damon_memcgs_collect(root, managed, ARRAY_SIZE(managed), fair,
					      ARRAY_SIZE(fair), false, &v, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(v[0], "/off");
	ck_assert_str_eq(v[1], "/off/leaf");
	ck_assert_str_eq(v[2], "/pods/p1/c1");
	ck_assert_str_eq(v[3], "/pods/p1/c2");
	ck_assert_str_eq(v[4], "/pods/p2");
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	fx_free(fx);
}
END_TEST

START_TEST(test_memcg_prefix)
{
	struct fx *fx = fx_new();
	char *p = NULL;

	fx_write(fx->root, "proc/self/mountinfo",
		 "22 1 0:21 / /sys rw - sysfs sysfs rw\n"
		 "30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
		 "40 1 0:26 /delegated /srv/cg rw - cgroup2 cgroup2 rw\n");
	ck_assert_int_eq(damon_memcg_prefix(fx->proc, "/sys/fs/cgroup", &p), 0);
	ck_assert_str_eq(p, "");
	free(p);
	ck_assert_int_eq(damon_memcg_prefix(fx->proc, "/sys/fs/cgroup/tierd.slice", &p), 0);
	ck_assert_str_eq(p, "/tierd.slice");
	free(p);
	ck_assert_int_eq(damon_memcg_prefix(fx->proc, "/srv/cg/sub", &p), 0);
	ck_assert_str_eq(p, "/delegated/sub");
	free(p);
	/* /sys/fs/cgroupx is not below /sys/fs/cgroup; a fake tree: "" */
	ck_assert_int_eq(damon_memcg_prefix(fx->proc, "/sys/fs/cgroupx", &p), 0);
	ck_assert_str_eq(p, "");
	free(p);
	fx_free(fx);
}
END_TEST

/* ------------------------------------------------------------------------
 * Fairness's DAMON method
 * ------------------------------------------------------------------------ */

START_TEST(test_fair_damon_method)
{
	struct fair_state *s = NULL;
	struct fair_config cfg = {
		.capacity = 1000 << 20,
		.fast_capacity = 1000 << 20,
		.total_capacity = 2000 << 20,
		.hysteresis_bp = 500,
		.now_usec = 1,
		.method = FAIR_METHOD_DAMON,
	};
	struct fair_input in = {
		.path = "/a",
		.share = 100 << 20,
		.fast_bytes = 200 << 20,
		.demand = 300 << 20,
		.class_sets_mode = true,
		.class_mode = TIER_MODE_PROMOTE,
	};
	struct fair_decision d;

	ck_assert_int_eq(fair_state_new(&s), 0);
	ck_assert_int_eq(fair_decide(s, &cfg, 1, &in, &d), 0);
	/* held off through DAMON: no knob, nothing to give back */
	ck_assert(d.damon_off);
	ck_assert(!d.throttled && !d.set_mode && !d.set_high && d.demote_bytes == 0);
	ck_assert_uint_eq(fair_state_held(s), 0);
	/* back below target x (1 - h) after the dwell: on again */
	in.fast_bytes = 90 << 20;
	cfg.now_usec = 1 + 1000000000ull;
	ck_assert_int_eq(fair_decide(s, &cfg, 1, &in, &d), 0);
	ck_assert(!d.damon_off);
	ck_assert(d.state_changed);
	fair_state_free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * The driver on a fake DAMON sysfs
 * ------------------------------------------------------------------------ */

static void kw(struct fx *fx, unsigned k, const char *fmt, const char *content, ...)
	__attribute__((format(printf, 3, 5)));
static void kw(struct fx *fx, unsigned k, const char *fmt, const char *content, ...)
{
	/* fmt: a path below kdamonds/<k>/ with %u/%zu from the varargs */
	char rel[512], tail[400];
	va_list ap;

	va_start(ap, content);
	vsnprintf(tail, sizeof(tail), fmt, ap);
	va_end(ap);
	snprintf(rel, sizeof(rel), ADMIN "/kdamonds/%u/%s", k, tail);
	fx_write(fx->root, rel, content);
}

static char *kr(struct fx *fx, unsigned k, const char *tail)
{
	char rel[512];

	snprintf(rel, sizeof(rel), ADMIN "/kdamonds/%u/%s", k, tail);
	return fx_read(fx->root, rel);
}

/* kdamonds/<k> as 6.12 shows it once its counts are what the driver will
 * write: one context, one target, nr_regions, nr_schemes each with
 * nr_filters filters and the demotion ones with a goal. */
static void fake_kdamond(struct fx *fx, unsigned k, const char *state, int pid,
			 unsigned nr_regions, unsigned nr_schemes, unsigned nr_filters)
{
	static const char *const sf[] = {
		"action", "target_nid", "apply_interval_us", "access_pattern/sz/min",
		"access_pattern/sz/max", "access_pattern/nr_accesses/min",
		"access_pattern/nr_accesses/max", "access_pattern/age/min",
		"access_pattern/age/max", "quotas/ms", "quotas/bytes", "quotas/reset_interval_ms",
		"quotas/weights/sz_permil", "quotas/weights/nr_accesses_permil",
		"quotas/weights/age_permil", "watermarks/metric",
	};
	char buf[32];

	kw(fx, k, "state", state);
	snprintf(buf, sizeof(buf), "%d\n", pid);
	kw(fx, k, "pid", buf);
	kw(fx, k, "contexts/nr_contexts", "1\n");
	kw(fx, k, "contexts/0/operations", "vaddr\n");
	kw(fx, k, "contexts/0/monitoring_attrs/intervals/sample_us", "0\n");
	kw(fx, k, "contexts/0/monitoring_attrs/intervals/aggr_us", "0\n");
	kw(fx, k, "contexts/0/monitoring_attrs/intervals/update_us", "0\n");
	kw(fx, k, "contexts/0/monitoring_attrs/nr_regions/min", "0\n");
	kw(fx, k, "contexts/0/monitoring_attrs/nr_regions/max", "0\n");
	kw(fx, k, "contexts/0/targets/nr_targets", "1\n");
	snprintf(buf, sizeof(buf), "%u\n", nr_regions);
	kw(fx, k, "contexts/0/targets/0/regions/nr_regions", buf);
	for (unsigned i = 0; i < nr_regions; i++) {
		kw(fx, k, "contexts/0/targets/0/regions/%u/start", "0\n", i);
		kw(fx, k, "contexts/0/targets/0/regions/%u/end", "0\n", i);
	}
	snprintf(buf, sizeof(buf), "%u\n", nr_schemes);
	kw(fx, k, "contexts/0/schemes/nr_schemes", buf);
	for (unsigned i = 0; i < nr_schemes; i++) {
		for (size_t f = 0; f < ARRAY_SIZE(sf); f++) {
			char t[200];

			snprintf(t, sizeof(t), "contexts/0/schemes/%u/%s", i, sf[f]);
			kw(fx, k, "%s", "0\n", t);
		}
		kw(fx, k, "contexts/0/schemes/%u/quotas/goals/nr_goals", "1\n", i);
		kw(fx, k, "contexts/0/schemes/%u/quotas/goals/0/target_metric", "user_input\n", i);
		kw(fx, k, "contexts/0/schemes/%u/quotas/goals/0/target_value", "0\n", i);
		kw(fx, k, "contexts/0/schemes/%u/quotas/goals/0/current_value", "0\n", i);
		snprintf(buf, sizeof(buf), "%u\n", nr_filters);
		kw(fx, k, "contexts/0/schemes/%u/filters/nr_filters", buf, i);
		for (unsigned j = 0; j < nr_filters; j++) {
			static const char *const ff[] = { "type", "matching", "memcg_path",
							  "addr_start", "addr_end" };

			for (size_t f = 0; f < ARRAY_SIZE(ff); f++) {
				char t[200];

				snprintf(t, sizeof(t), "contexts/0/schemes/%u/filters/%u/%s", i, j,
					 ff[f]);
				kw(fx, k, "%s", "0\n", t);
			}
		}
	}
}

static unsigned n_logged;
static char last_log[1024];

static const char *logged(void)
{
	return last_log;
}

static void test_log(void *userdata, int priority, int error, const char *message)
{
	n_logged++;
	snprintf(last_log, sizeof(last_log), "%s", message);
}

/* Two nodes of 64 MB: node 0 fast at [0, 64M), node 1 slow at [64M, 128M). */
static const struct tier_damon_range fast_r[] = { { 0, 64 << 20 } };
static const struct tier_damon_range slow_r[] = { { 64 << 20, 128 << 20 } };

/* The hot-set measurement's resident bytes (memory.numa_stat's anon + file,
 * hierarchical), per memcg: res_mb[i] for res_memcg[i]. */
static const char *const res_memcg[] = { "/a", "/a/c", "/b" };
static uint64_t res_mb[3], res_slow_mb[3];

static int test_resident(void *userdata, const char *memcg, uint64_t *ret_fast,
			 uint64_t *ret_slow)
{
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(memcg, res_memcg[i])) {
			*ret_fast = res_mb[i] << 20;
			*ret_slow = res_slow_mb[i] << 20;
			return 0;
		}
	return -ENOENT;
}

static struct damon_driver *driver(struct fx *fx, int run_fd)
{
	struct damon_driver_args a = {
		.sysfs_root = fx->sys,
		.procfs_root = fx->proc,
		.run_fd = run_fd,
		.memcg_prefix = "",
		.fast_nid = 0,
		.slow_nid = 1,
		.fast = fast_r,
		.slow = slow_r,
		.n_fast = 1,
		.n_slow = 1,
		.log = test_log,
		.resident = test_resident,
	};
	struct damon_driver *drv = NULL;

	ck_assert_int_eq(damon_driver_new(&a, &drv), 0);
	return drv;
}

static void plan_of(struct damon_plan *p, const char *const *memcgs, size_t n)
{
	const struct damon_managed managed[] = { { "/", TIER_MODE_PROMOTE } };

	ck_assert_int_eq(damon_plan_build(managed, 1, memcgs, n, NULL, 0, DAMON_PLAN_TIERING, p), 0);
}

static void assert_file(struct fx *fx, unsigned k, const char *tail, const char *want)
{
	_cleanup_free_ char *v = kr(fx, k, tail);

	ck_assert_msg(v, "%s missing", tail);
	ck_assert_msg(!strcmp(v, want), "%s: '%s', want '%s'", tail, v, want);
}

START_TEST(test_driver_lifecycle)
{
	struct fx *fx = fx_new();
	_cleanup_close_ int run_fd = -1;
	struct damon_driver *drv;
	struct damon_plan p = {}, q = {};
	const char *two[] = { "/a", "/b" };
	struct damon_stats st;
	char rel[256];
	unsigned nr_regions = 64 / 2;	/* a tier's 64 MB in pieces of 2 MB */

	snprintf(rel, sizeof(rel), "%s/run", fx->root);
	fx_mkdir(fx->root, "run");
	run_fd = open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* someone else's kdamond 0, stopped, with their input */
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "1\n");
	fake_kdamond(fx, 0, "off\n", -1, 1, 1, 0);
	kw(fx, 0, "contexts/0/schemes/0/action", "stat\n");
	/* ours, indexes 1 (fast tier) and 2 (slow tier), as nr_kdamonds 3
	 * would make them (their pids shown ahead: the fake cannot start a
	 * thread) */
	fake_kdamond(fx, 1, "off\n", 4241, nr_regions, DAMON_SLOT_CHUNK_TEST, 2);
	fake_kdamond(fx, 2, "off\n", 4242, nr_regions, DAMON_SLOT_CHUNK_TEST, 2);
	drv = driver(fx, run_fd);

	/* nothing to do: no kdamond added */
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	_cleanup_free_ char *nr = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
	ck_assert_str_eq(nr, "1\n");

	/* two memcgs to promote: both of ours are added at once (nr_kdamonds
	 * 1 -> 3), the slow tier's runs the promotion schemes, the fast
	 * tier's is staged (for the record) but not started: nothing to run */
	plan_of(&p, two, 2);
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	free(nr);
	nr = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
	ck_assert_str_eq(nr, "3");
	assert_file(fx, 2, "state", "on");
	assert_file(fx, 2, "contexts/0/operations", "paddr");
	assert_file(fx, 2, "contexts/0/schemes/0/action", "migrate_hot");
	assert_file(fx, 2, "contexts/0/schemes/0/target_nid", "0");
	/* the context is the slow tier: no addr filter, the memcg alone */
	assert_file(fx, 2, "contexts/0/schemes/0/filters/nr_filters", "1");
	assert_file(fx, 2, "contexts/0/schemes/0/filters/0/type", "memcg");
	assert_file(fx, 2, "contexts/0/schemes/0/filters/0/matching", "N");
	assert_file(fx, 2, "contexts/0/schemes/0/filters/0/memcg_path", "/a");
	assert_file(fx, 2, "contexts/0/schemes/1/filters/0/memcg_path", "/b");
	/* each target covers its tier */
	assert_file(fx, 2, "contexts/0/targets/0/regions/0/start", "67108864");
	assert_file(fx, 2, "contexts/0/targets/0/regions/31/end", "134217728");
	assert_file(fx, 1, "contexts/0/targets/0/regions/0/start", "0");
	assert_file(fx, 1, "contexts/0/targets/0/regions/31/end", "67108864");
	assert_file(fx, 1, "contexts/0/operations", "paddr");
	assert_file(fx, 1, "contexts/0/schemes/0/action", "stat");
	assert_file(fx, 1, "state", "off\n");
	/* scheme indexes come in chunks: the free ones are inert */
	assert_file(fx, 2, "contexts/0/schemes/nr_schemes", "16\n");	/* as the fake had it */
	assert_file(fx, 2, "contexts/0/schemes/2/action", "stat");
	assert_file(fx, 2, "contexts/0/schemes/2/access_pattern/sz/max", "0");
	assert_file(fx, 2, "contexts/0/schemes/2/filters/nr_filters", "0");
	/* someone else's: untouched */
	assert_file(fx, 0, "state", "off\n");
	assert_file(fx, 0, "contexts/0/schemes/0/action", "stat\n");
	damon_driver_stats(drv, &st);
	ck_assert(st.running && st.index == 1 && st.index_slow == 2 && st.pid == -1 &&
		  st.pid_slow == 4242 && st.n_schemes == 2);
	ck_assert_uint_eq(st.n_starts, 1);
	ck_assert_uint_eq(st.n_commits, 0);
	/* the record names both */
	{
		struct tier_damon_owner rec[TIER_DAMON_OWNERS_MAX];
		size_t n = 0;

		ck_assert_int_eq(tier_damon_owners_load(run_fd, DAMON_OWNER_NAME, rec,
							TIER_DAMON_OWNERS_MAX, &n),
				 0);
		ck_assert_uint_eq(n, 2);
		ck_assert(rec[0].index == 1 && rec[0].pid == -1);
		ck_assert(rec[1].index == 2 && rec[1].pid == 4242);
	}

	/* the same plan again: nothing written */
	kw(fx, 2, "state", "on\n");
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	damon_driver_stats(drv, &st);
	ck_assert_uint_eq(st.n_commits, 0);

	/* a change: one commit, and only the index that changes is written
	 * (/a keeps index 0: a mark there stays) */
	{
		const char *other[] = { "/a", "/c" };

		kw(fx, 2, "contexts/0/schemes/0/apply_interval_us", "12345\n");
		plan_of(&q, other, 2);
		ck_assert_int_eq(damon_driver_apply(drv, &q), 0);
		assert_file(fx, 2, "state", "commit");
		assert_file(fx, 2, "contexts/0/schemes/1/filters/0/memcg_path", "/c");
		/* a commit keeps the running kdamond's regions: none staged */
		assert_file(fx, 2, "contexts/0/targets/0/regions/nr_regions", "0");
		assert_file(fx, 2, "contexts/0/schemes/0/apply_interval_us", "12345\n");
		assert_file(fx, 2, "contexts/0/schemes/0/filters/0/memcg_path", "/a");
		assert_file(fx, 1, "state", "off\n");
		damon_driver_stats(drv, &st);
		ck_assert_uint_eq(st.n_commits, 1);
		damon_plan_done(&q);
	}

	/* a restart (the record): the next tierd takes both back */
	kw(fx, 2, "state", "on\n");
	{
		struct damon_driver *drv2 = driver(fx, run_fd);

		n_logged = 0;
		ck_assert_int_eq(damon_driver_reclaim(drv2), 0);
		ck_assert_strstr(logged(), "took over kdamonds 1 (fast tier, stopped) and 2 (slow tier, running, pid 4242)");
		damon_driver_stats(drv2, &st);
		ck_assert(st.have_kdamond && st.running && st.index == 1 && st.index_slow == 2);
		/* its first plan is committed, not added again */
		ck_assert_int_eq(damon_driver_apply(drv2, &p), 0);
		free(nr);
		nr = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
		ck_assert_str_eq(nr, "3");
		damon_driver_stats(drv2, &st);
		ck_assert_uint_eq(st.n_commits, 1);
		ck_assert_uint_eq(st.n_starts, 0);
		damon_driver_free(drv2);
	}

	/* exit: ours stop, the record goes, theirs is untouched */
	kw(fx, 2, "state", "on\n");
	ck_assert_int_eq(damon_driver_stop(drv), 0);
	assert_file(fx, 2, "state", "off");
	ck_assert_int_lt(faccessat(run_fd, DAMON_OWNER_NAME, F_OK, 0), 0);
	assert_file(fx, 0, "state", "off\n");
	damon_driver_free(drv);
	damon_plan_done(&p);
	fx_free(fx);
}
END_TEST

/* A stopped kdamond of ours is checked every round by its counts alone
 * (reading its every region back each round cost ~1,000 opens a round in
 * the VM), and read back in full only before tierd writes to it: a rewrite
 * that keeps the counts is not seen on a round that writes nothing, and
 * is seen (both forgotten, neither written) before the next write. */
START_TEST(test_driver_stopped_quick)
{
	struct fx *fx = fx_new();
	_cleanup_close_ int run_fd = -1;
	struct damon_driver *drv;
	struct damon_plan p = {};
	const char *two[] = { "/a", "/b" };
	struct damon_stats st;
	char rel[256];
	unsigned nr_regions = 64 / 2;

	snprintf(rel, sizeof(rel), "%s/run", fx->root);
	fx_mkdir(fx->root, "run");
	run_fd = open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "0\n");
	fake_kdamond(fx, 0, "off\n", 4241, nr_regions, DAMON_SLOT_CHUNK_TEST, 2);
	fake_kdamond(fx, 1, "off\n", 4242, nr_regions, DAMON_SLOT_CHUNK_TEST, 2);
	drv = driver(fx, run_fd);
	plan_of(&p, two, 2);
	/* the slow tier's runs, the fast tier's is staged and stopped */
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	assert_file(fx, 1, "state", "on");
	assert_file(fx, 0, "state", "off\n");
	kw(fx, 1, "state", "on\n");
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);	/* read back in full once */

	/* someone rewrites a region of the stopped one, counts unchanged: a
	 * round that writes nothing does not read it back */
	kw(fx, 0, "contexts/0/targets/0/regions/0/start", "4096\n");
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	damon_driver_stats(drv, &st);
	ck_assert(st.have_kdamond && st.running);
	assert_file(fx, 1, "state", "on\n");

	/* someone stops the slow tier's: tierd would start it again, so it
	 * first reads both back in full, finds the fast tier's not ours, and
	 * leaves both alone */
	kw(fx, 1, "state", "off\n");
	n_logged = 0;
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	ck_assert_strstr(logged(), "kdamond 0 (fast-tier) is not ours any more");
	damon_driver_stats(drv, &st);
	ck_assert(!st.have_kdamond);
	assert_file(fx, 1, "state", "off\n");
	assert_file(fx, 0, "contexts/0/targets/0/regions/0/start", "4096\n");

	damon_driver_free(drv);
	damon_plan_done(&p);
	fx_free(fx);
}
END_TEST

START_TEST(test_driver_busy)
{
	struct fx *fx = fx_new();
	struct damon_driver *drv;
	struct damon_plan p = {};
	const char *one[] = { "/a" };
	_cleanup_free_ char *nr = NULL;

	/* someone else's kdamond runs: no kdamond of ours can be added */
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "1\n");
	fake_kdamond(fx, 0, "on\n", 777, 1, 1, 0);
	drv = driver(fx, -1);
	plan_of(&p, one, 1);
	n_logged = 0;
	ck_assert_int_eq(damon_driver_apply(drv, &p), -EBUSY);
	ck_assert_strstr(logged(), "another kdamond runs");
	/* said once */
	ck_assert_int_eq(damon_driver_apply(drv, &p), -EBUSY);
	ck_assert_uint_eq(n_logged, 1);
	nr = fx_read(fx->root, ADMIN "/kdamonds/nr_kdamonds");
	ck_assert_str_eq(nr, "1\n");
	{
		_cleanup_free_ char *st = kr(fx, 0, "state");

		ck_assert_str_eq(st, "on\n");
	}
	damon_driver_free(drv);
	damon_plan_done(&p);
	fx_free(fx);
}
END_TEST

START_TEST(test_driver_record_not_ours)
{
	struct fx *fx = fx_new();
	_cleanup_close_ int run_fd = -1;
	struct damon_driver *drv;
	struct tier_damon_owner o = { .index = 0, .pid = 999, .fingerprint = 1 };
	struct damon_stats st;
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/run", fx->root);
	fx_mkdir(fx->root, "run");
	run_fd = open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* the record names kdamond 0, but another thread runs there now */
	ck_assert_int_eq(tier_damon_owner_save(run_fd, DAMON_OWNER_NAME, &o), 0);
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "1\n");
	fake_kdamond(fx, 0, "on\n", 1000, 1, 1, 0);
	drv = driver(fx, run_fd);
	ck_assert_int_eq(damon_driver_reclaim(drv), 0);
	ck_assert_strstr(logged(), "leaving it alone");
	damon_driver_stats(drv, &st);
	ck_assert(!st.have_kdamond);
	ck_assert_int_lt(faccessat(run_fd, DAMON_OWNER_NAME, F_OK, 0), 0);
	/* and stopping leaves it running */
	ck_assert_int_eq(damon_driver_stop(drv), 0);
	{
		_cleanup_free_ char *s = kr(fx, 0, "state");

		ck_assert_str_eq(s, "on\n");
	}
	damon_driver_free(drv);
	fx_free(fx);
}
END_TEST

START_TEST(test_driver_record_both_or_neither)
{
	/* a record of two kdamonds of which one is not ours any more: neither
	 * is taken back, and the one still ours (running, our thread) is
	 * stopped, not left running schemes no one feeds; a record of the
	 * former layout (one kdamond over both tiers): stopped likewise */
	struct fx *fx = fx_new();
	_cleanup_close_ int run_fd = -1;
	struct damon_driver *drv;
	struct tier_damon_owner two[2] = { { .index = 0, .pid = 500, .fingerprint = 1 },
					   { .index = 1, .pid = 999, .fingerprint = 2 } };
	struct damon_stats st;
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/run", fx->root);
	fx_mkdir(fx->root, "run");
	run_fd = open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "2\n");
	fake_kdamond(fx, 0, "on\n", 500, 1, 1, 0);
	fake_kdamond(fx, 1, "on\n", 1000, 1, 1, 0);	/* another thread now */
	ck_assert_int_eq(tier_damon_owners_save(run_fd, DAMON_OWNER_NAME, two, 2), 0);
	drv = driver(fx, run_fd);
	ck_assert_int_eq(damon_driver_reclaim(drv), 0);
	damon_driver_stats(drv, &st);
	ck_assert(!st.have_kdamond);
	assert_file(fx, 0, "state", "off");
	assert_file(fx, 1, "state", "on\n");
	ck_assert_int_lt(faccessat(run_fd, DAMON_OWNER_NAME, F_OK, 0), 0);
	damon_driver_free(drv);

	/* version 1: one kdamond of ours, running */
	kw(fx, 0, "state", "on\n");
	ck_assert_int_eq(tier_damon_owner_save(run_fd, DAMON_OWNER_NAME, &two[0]), 0);
	drv = driver(fx, run_fd);
	n_logged = 0;
	ck_assert_int_eq(damon_driver_reclaim(drv), 0);
	ck_assert_strstr(logged(), "one context for both tiers");
	damon_driver_stats(drv, &st);
	ck_assert(!st.have_kdamond);
	assert_file(fx, 0, "state", "off");
	ck_assert_int_lt(faccessat(run_fd, DAMON_OWNER_NAME, F_OK, 0), 0);
	damon_driver_free(drv);
	fx_free(fx);
}
END_TEST

START_TEST(test_sysctl)
{
	struct fx *fx = fx_new();
	_cleanup_close_ int run_fd = -1;
	_cleanup_free_ char *v = NULL;
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/run", fx->root);
	fx_mkdir(fx->root, "run");
	run_fd = open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fx_write(fx->root, "proc/sys/kernel/numa_balancing", "2\n");
	/* keep: said, not changed */
	n_logged = 0;
	ck_assert_int_eq(damon_sysctl_check(fx->proc, run_fd, false, test_log, NULL), 0);
	ck_assert_strstr(logged(), "behind DAMON's back");
	v = fx_read(fx->root, "proc/sys/kernel/numa_balancing");
	ck_assert_str_eq(v, "2\n");
	free(v);
	/* off: 0, the old value kept */
	ck_assert_int_eq(damon_sysctl_check(fx->proc, run_fd, true, test_log, NULL), 0);
	v = fx_read(fx->root, "proc/sys/kernel/numa_balancing");
	ck_assert_str_eq(v, "0");
	free(v);
	/* a crash and a restart: the saved 2 is still what to restore */
	ck_assert_int_eq(damon_sysctl_check(fx->proc, run_fd, true, test_log, NULL), 0);
	ck_assert_int_eq(damon_sysctl_restore(fx->proc, run_fd, test_log, NULL), 0);
	v = fx_read(fx->root, "proc/sys/kernel/numa_balancing");
	ck_assert_str_eq(v, "2");
	ck_assert_int_lt(faccessat(run_fd, DAMON_SYSCTL_SAVED_NAME, F_OK, 0), 0);
	fx_free(fx);
}
END_TEST

START_TEST(test_plan_hot_budget)
{
	/* hot: every memcg below a managed cgroup, whatever its mode, and one
	 * clock; the knob backend (no TIERING) gets those alone.  The budget
	 * of /pod (8 MB/s) is split between its two memcgs, per second; a
	 * child's smaller budget wins below it. */
	const struct damon_managed managed[] = {
		{ "/pod", TIER_MODE_PROMOTE, 8 << 20 },
		{ "/pod/small", TIER_MODE_PROMOTE, 1 << 20 },
		{ "/off", TIER_MODE_OFF, 0 },
	};
	const char *memcgs[] = { "/off", "/pod", "/pod/small" };
	struct damon_plan p = {};
	_cleanup_free_ char *t = NULL, *u = NULL;

	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 3, NULL, 0,
					  DAMON_PLAN_TIERING | DAMON_PLAN_HOT, &p), 0);
	t = plan_text(&p);
	/* 8M / 2 = 4194304; 1M, below /pod's share */
	ck_assert_str_eq(t, "clock \n"
			    "hot /off\n"
			    "hot_slow /off\n"
			    "promote /pod quota 4194304\n"
			    "hot /pod\n"
			    "hot_slow /pod\n"
			    "promote /pod/small quota 1048576\n"
			    "hot /pod/small\n"
			    "hot_slow /pod/small\n");
	damon_plan_done(&p);
	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 3, NULL, 0, DAMON_PLAN_HOT, &p), 0);
	u = plan_text(&p);
	ck_assert_str_eq(u, "clock \nhot /off\nhot_slow /off\nhot /pod\nhot_slow /pod\n"
			    "hot /pod/small\nhot_slow /pod/small\n");
	damon_plan_done(&p);
	/* neither: nothing, not even a clock */
	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 3, NULL, 0, 0, &p), 0);
	ck_assert_uint_eq(p.n, 0);
	damon_plan_done(&p);
	ck_assert_int_eq(damon_plan_build(managed, 3, memcgs, 3, NULL, 0, 8, &p), -EINVAL);
	/* a budget below a page per interval is a page */
	ck_assert_uint_eq(damon_promote_quota(&(struct damon_managed){ "/x", TIER_MODE_FULL, 1000 },
					      1, memcgs, 0, "/x"), 4096);
	ck_assert_uint_eq(damon_promote_quota(managed, 3, memcgs, 3, "/off"), 0);
}
END_TEST

START_TEST(test_plan_pagecache)
{
	/* knob backend (DAMON_PLAN_PAGECACHE): a page-cache scheme for each
	 * memcg with pages whose effective mode promotes and whose classes
	 * all keep page_cache on, with the promotion budget's quota; none for
	 * mode off or inherit, a class with page_cache off (also above), or a
	 * throttled sharer */
	const struct damon_managed managed[] = {
		{ "/pc", TIER_MODE_PROMOTE, 8 << 20 },
		{ "/pc/no", TIER_MODE_INHERIT, 0, true },
		{ "/full", TIER_MODE_FULL },
		{ "/nopc", TIER_MODE_PROMOTE, 0, true },
		{ "/off", TIER_MODE_OFF },
		{ "/inh", TIER_MODE_INHERIT },
		{ "/thr", TIER_MODE_PROMOTE },
		{ "/full/off", TIER_MODE_OFF },
	};
	const char *memcgs[] = { "/full", "/full/off", "/inh", "/nopc", "/off", "/pc", "/pc/a",
				 "/pc/no", "/thr" };
	const struct damon_fair fair[] = {
		{ .path = "/thr", .target = 10 << 20, .demand = 5 << 20, .throttled = true },
	};
	struct damon_plan p = {}, q = {};
	_cleanup_free_ char *t = NULL, *u = NULL, *v = NULL;

	ck_assert_int_eq(damon_plan_build(managed, ARRAY_SIZE(managed), memcgs, ARRAY_SIZE(memcgs),
					  fair, 1, DAMON_PLAN_PAGECACHE, &p),
			 0);
	t = plan_text(&p);
	/* /pc's 8 MB/s over its 3 memcgs: 279620 per 100 ms, page-aligned */
	ck_assert_str_eq(t, "pagecache /full\n"
			    "pagecache /pc quota 2793472\n"
			    "pagecache /pc/a quota 2793472\n");
	damon_plan_done(&p);

	/* page_cache on alone, no mode: nothing (a class's mode decides) */
	{
		const struct damon_managed only[] = { { "/inh", TIER_MODE_INHERIT } };

		ck_assert_int_eq(damon_plan_build(only, 1, memcgs + 2, 1, NULL, 0,
						  DAMON_PLAN_PAGECACHE, &p), 0);
		ck_assert_uint_eq(p.n, 0);
		damon_plan_done(&p);
	}

	/* the damon backend: promotion covers page cache, unless page_cache
	 * is off: then anon only; no page-cache schemes of their own */
	ck_assert_int_eq(damon_plan_build(managed, ARRAY_SIZE(managed), memcgs, ARRAY_SIZE(memcgs),
					  NULL, 0, DAMON_PLAN_TIERING, &p),
			 0);
	u = plan_text(&p);
	ck_assert_str_eq(u, "promote /full\n"
			    "promote /nopc anon\n"
			    "promote /pc quota 2793472\n"
			    "promote /pc/a quota 2793472\n"
			    "promote /pc/no quota 2793472 anon\n"
			    "promote /thr\n");
	/* page_cache flipped on /nopc: a different scheme set (a commit) */
	{
		struct damon_managed m2[ARRAY_SIZE(managed)];

		memcpy(m2, managed, sizeof(m2));
		m2[3].no_page_cache = false;
		ck_assert_int_eq(damon_plan_build(m2, ARRAY_SIZE(m2), memcgs, ARRAY_SIZE(memcgs),
						  NULL, 0, DAMON_PLAN_TIERING, &q),
				 0);
		ck_assert(!damon_plan_same(&p, &q));
		damon_plan_done(&q);
	}
	damon_plan_done(&p);

	/* both at once (as a test of the order): page cache after the rest */
	ck_assert_int_eq(damon_plan_build(managed, 1, memcgs + 5, 1, NULL, 0,
					  DAMON_PLAN_TIERING | DAMON_PLAN_PAGECACHE, &p),
			 0);
	v = plan_text(&p);
	ck_assert_str_eq(v, "promote /pc quota 8388608\npagecache /pc quota 8388608\n");
	damon_plan_done(&p);
}
END_TEST

START_TEST(test_driver_pagecache)
{
	/* the staged schemes: a page-cache scheme is DAMON_PROMOTE's
	 * migrate_hot (slow tier, memcg, budget, arming) plus an anon filter
	 * that filters anonymous folios out; a promotion scheme of a class
	 * with page_cache off gets an anon filter that leaves only them */
	struct fx *fx = fx_new();
	struct damon_driver *drv;
	struct damon_plan p = {};
	const struct damon_managed managed[] = { { "/a", TIER_MODE_PROMOTE, 8 << 20 },
						 { "/b", TIER_MODE_FULL, 0, true } };
	const char *memcgs[] = { "/a", "/b" };

	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "0\n");
	fake_kdamond(fx, 0, "off\n", 4241, 32, DAMON_SLOT_CHUNK_TEST, 2);
	fake_kdamond(fx, 1, "off\n", 4242, 32, DAMON_SLOT_CHUNK_TEST, 2);
	drv = driver(fx, -1);
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, NULL, 0,
					  DAMON_PLAN_TIERING | DAMON_PLAN_PAGECACHE, &p),
			 0);
	ck_assert_uint_eq(p.n, 3);
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	/* all on the slow tier's kdamond (1); the fast tier's (0) idle */
	assert_file(fx, 1, "state", "on");
	assert_file(fx, 0, "state", "off\n");
	/* 0: /a's promotion, no anon filter */
	assert_file(fx, 1, "contexts/0/schemes/0/action", "migrate_hot");
	assert_file(fx, 1, "contexts/0/schemes/0/filters/nr_filters", "1");
	/* 1: /a's page cache */
	assert_file(fx, 1, "contexts/0/schemes/1/action", "migrate_hot");
	assert_file(fx, 1, "contexts/0/schemes/1/target_nid", "0");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/nr_filters", "2\n");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/0/type", "memcg");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/0/matching", "N");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/0/memcg_path", "/a");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/1/type", "anon");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/1/matching", "Y");
	/* its budget, and armed like a promotion scheme with one */
	assert_file(fx, 1, "contexts/0/schemes/1/quotas/bytes", "8388608");
	assert_file(fx, 1, "contexts/0/schemes/1/access_pattern/sz/max", "0");
	ck_assert(damon_driver_arming(drv));
	/* 2: /b's promotion, anon only */
	assert_file(fx, 1, "contexts/0/schemes/2/filters/nr_filters", "2\n");
	assert_file(fx, 1, "contexts/0/schemes/2/filters/0/memcg_path", "/b");
	assert_file(fx, 1, "contexts/0/schemes/2/filters/1/type", "anon");
	assert_file(fx, 1, "contexts/0/schemes/2/filters/1/matching", "N");
	assert_file(fx, 1, "contexts/0/schemes/2/access_pattern/sz/max", "18446744073709551615");
	damon_plan_done(&p);

	/* the knob backend's plan alone: one page-cache scheme per memcg */
	kw(fx, 1, "state", "on\n");
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, NULL, 0, DAMON_PLAN_PAGECACHE, &p),
			 0);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	assert_file(fx, 1, "state", "commit");
	damon_plan_done(&p);
	damon_driver_free(drv);
	fx_free(fx);
}
END_TEST

START_TEST(test_driver_arming)
{
	/* a promotion scheme with a budget is committed first with a pattern
	 * no region has (6.12 puts its quota in force from its second charge
	 * window only), and gets its pattern at the third arm tick; one
	 * without a budget gets it at once */
	struct fx *fx = fx_new();
	struct damon_driver *drv;
	struct damon_plan p = {};
	const struct damon_managed managed[] = { { "/b", TIER_MODE_PROMOTE, 8 << 20 },
						 { "/f", TIER_MODE_PROMOTE, 0 } };
	const char *memcgs[] = { "/b", "/f" };
	struct damon_stats st;

	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "0\n");
	fake_kdamond(fx, 0, "off\n", 4241, 32, DAMON_SLOT_CHUNK_TEST, 2);
	fake_kdamond(fx, 1, "off\n", 4242, 32, DAMON_SLOT_CHUNK_TEST, 2);
	drv = driver(fx, -1);
	ck_assert_int_eq(damon_driver_arm(drv), 0);	/* nothing yet */
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 2, NULL, 0, DAMON_PLAN_TIERING, &p),
			 0);
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	assert_file(fx, 1, "contexts/0/schemes/0/filters/0/memcg_path", "/b");
	assert_file(fx, 1, "contexts/0/schemes/0/quotas/bytes", "8388608");
	assert_file(fx, 1, "contexts/0/schemes/0/access_pattern/sz/max", "0");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/0/memcg_path", "/f");
	assert_file(fx, 1, "contexts/0/schemes/1/access_pattern/sz/max", "18446744073709551615");
	ck_assert(damon_driver_arming(drv));
	/* the ticks before the last: still waiting, nothing committed */
	kw(fx, 1, "state", "on\n");
	for (int i = 1; i < DAMON_ARM_TICKS_TEST; i++) {
		ck_assert_int_eq(damon_driver_arm(drv), 0);
		assert_file(fx, 1, "state", "on\n");
		assert_file(fx, 1, "contexts/0/schemes/0/access_pattern/sz/max", "0");
	}
	/* the last: its pattern, one commit, /f's index not rewritten */
	kw(fx, 1, "contexts/0/schemes/1/apply_interval_us", "12345\n");
	ck_assert_int_eq(damon_driver_arm(drv), 0);
	assert_file(fx, 1, "state", "commit");
	assert_file(fx, 1, "contexts/0/schemes/0/access_pattern/sz/max", "18446744073709551615");
	assert_file(fx, 1, "contexts/0/schemes/0/quotas/bytes", "8388608");
	assert_file(fx, 1, "contexts/0/schemes/1/apply_interval_us", "12345\n");
	ck_assert(!damon_driver_arming(drv));
	damon_driver_stats(drv, &st);
	ck_assert_uint_eq(st.n_commits, 1);
	/* the same plan again keeps it armed: nothing written */
	kw(fx, 1, "state", "on\n");
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	ck_assert_int_eq(damon_driver_arm(drv), 0);
	assert_file(fx, 1, "state", "on\n");
	damon_driver_free(drv);
	damon_plan_done(&p);
	fx_free(fx);
}
END_TEST

static void stats_set(struct fx *fx, unsigned k, size_t i, unsigned long long tried,
		      unsigned long long applied)
{
	char b[64];

	snprintf(b, sizeof(b), "%llu\n", tried);
	kw(fx, k, "contexts/0/schemes/%zu/stats/sz_tried", b, i);
	snprintf(b, sizeof(b), "%llu\n", applied);
	kw(fx, k, "contexts/0/schemes/%zu/stats/sz_applied", b, i);
	kw(fx, k, "contexts/0/schemes/%zu/stats/nr_tried", "0\n", i);
	kw(fx, k, "contexts/0/schemes/%zu/stats/nr_applied", "0\n", i);
	kw(fx, k, "contexts/0/schemes/%zu/stats/qt_exceeds", "0\n", i);
}

/* Both kdamonds' clocks at the same count of passes (x the tier's bytes). */
static void clock_set(struct fx *fx, unsigned long long tried)
{
	stats_set(fx, 0, 0, tried, 0);
	stats_set(fx, 1, 0, tried, 0);
}

START_TEST(test_driver_hot)
{
	/* the hot schemes, one per memcg on each tier's kdamond (lru_deprio;
	 * memcg, then young folios filtered out) and a clock on each (stat
	 * over every region): cold bytes = sz_applied growth / passes, passes
	 * = clock sz_tried growth / 64 MB monitored (the tier); hot = the
	 * memcg's own resident bytes on that tier less its cold there.
	 * Schemes on both: 0 clock, 1 /a, 2 /a/c, 3 /b.  The slow tier's
	 * figures stay 0 until the end. */
	struct fx *fx = fx_new();
	struct damon_driver *drv;
	struct damon_plan p = {};
	const struct damon_managed managed[] = { { "/a", TIER_MODE_OFF, 0 },
						 { "/b", TIER_MODE_OFF, 0 } };
	const char *memcgs[] = { "/a", "/a/c", "/b" };
	const unsigned long long M = 64ull << 20;
	uint64_t hot = 0, hot_fast = 0, hot_slow = 0;
	struct damon_stats st;

	fx_write(fx->root, ADMIN "/kdamonds/nr_kdamonds", "0\n");
	fake_kdamond(fx, 0, "off\n", 4241, 32, DAMON_SLOT_CHUNK_TEST, 3);
	fake_kdamond(fx, 1, "off\n", 4242, 32, DAMON_SLOT_CHUNK_TEST, 3);
	drv = driver(fx, -1);
	ck_assert_int_eq(damon_plan_build(managed, 2, memcgs, 3, NULL, 0, DAMON_PLAN_HOT, &p), 0);
	ck_assert_uint_eq(p.n, 7);
	ck_assert_int_eq(damon_driver_apply(drv, &p), 0);
	ck_assert(damon_driver_has_hot(drv));
	assert_file(fx, 0, "contexts/0/schemes/0/action", "stat");
	assert_file(fx, 0, "contexts/0/schemes/0/apply_interval_us", "1000000");
	assert_file(fx, 0, "contexts/0/schemes/0/access_pattern/sz/max", "18446744073709551615");
	assert_file(fx, 0, "contexts/0/schemes/0/filters/nr_filters", "0");
	assert_file(fx, 0, "contexts/0/schemes/1/action", "lru_deprio");
	assert_file(fx, 0, "contexts/0/schemes/1/apply_interval_us", "1000000");
	assert_file(fx, 0, "contexts/0/schemes/1/access_pattern/nr_accesses/min", "0");
	/* the fast tier's kdamond (its context is the tier: no addr filter) */
	assert_file(fx, 0, "contexts/0/schemes/1/filters/nr_filters", "2");
	assert_file(fx, 0, "contexts/0/schemes/1/filters/0/type", "memcg");
	assert_file(fx, 0, "contexts/0/schemes/1/filters/0/matching", "N");
	assert_file(fx, 0, "contexts/0/schemes/1/filters/0/memcg_path", "/a");
	assert_file(fx, 0, "contexts/0/schemes/1/filters/1/type", "young");
	assert_file(fx, 0, "contexts/0/schemes/1/filters/1/matching", "Y");
	assert_file(fx, 0, "contexts/0/schemes/2/filters/0/memcg_path", "/a/c");
	assert_file(fx, 0, "contexts/0/schemes/3/filters/0/memcg_path", "/b");
	assert_file(fx, 0, "contexts/0/targets/0/regions/31/end", "67108864");
	/* the slow tier's: its own clock and hot schemes */
	assert_file(fx, 1, "contexts/0/schemes/0/action", "stat");
	assert_file(fx, 1, "contexts/0/schemes/1/action", "lru_deprio");
	assert_file(fx, 1, "contexts/0/schemes/1/filters/0/memcg_path", "/a");
	assert_file(fx, 1, "contexts/0/targets/0/regions/0/start", "67108864");
	for (size_t i = 0; i < DAMON_SLOT_CHUNK_TEST; i++) {
		stats_set(fx, 0, i, 0, 0);
		stats_set(fx, 1, i, 0, 0);
	}

	/* hierarchical: /a's 60 MB hold /a/c's 8 */
	res_mb[0] = 60;
	res_mb[1] = 8;
	res_mb[2] = 5;
	/* the first reading is the base */
	clock_set(fx, 1 * M);
	stats_set(fx, 0, 1, 0, 10 << 20);
	stats_set(fx, 0, 2, 0, 1 << 20);
	stats_set(fx, 0, 3, 0, 0);
	ck_assert_int_eq(damon_driver_hot_update(drv, 10000000ull), 0);
	assert_file(fx, 0, "state", "update_schemes_stats");
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), -ENODATA);
	/* three passes, the first window: dropped (nothing was aged yet) */
	clock_set(fx, 4 * M);
	ck_assert_int_eq(damon_driver_hot_update(drv, 15000000ull), 0);
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), -ENODATA);
	/* two passes: not enough */
	clock_set(fx, 6 * M);
	ck_assert_int_eq(damon_driver_hot_update(drv, 20000000ull), 0);
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), -ENODATA);
	/* four passes: /a 40 MB cold -> 10 MB a pass, of its own 52: 42 hot;
	 * /a/c 4 MB -> 1 of 8: 7 hot; /b nothing cold: its 5 MB */
	clock_set(fx, 8 * M);
	stats_set(fx, 0, 1, 0, 50 << 20);
	stats_set(fx, 0, 2, 0, 5 << 20);
	ck_assert_int_eq(damon_driver_hot_update(drv, 30000000ull), 0);
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), 0);
	ck_assert_uint_eq(hot, 49 << 20);
	ck_assert_int_eq(damon_driver_hot(drv, "/a/c", &hot), 0);
	ck_assert_uint_eq(hot, 7 << 20);
	ck_assert_int_eq(damon_driver_hot(drv, "/b", &hot), 0);
	ck_assert_uint_eq(hot, 5 << 20);
	ck_assert_int_eq(damon_driver_hot(drv, "/x", &hot), -ENODATA);
	damon_driver_stats(drv, &st);
	ck_assert_uint_eq(st.n_hot_updates, 1);
	/* the counters went back (a restarted kdamond): start over, the last
	 * result stays */
	clock_set(fx, 1 * M);
	stats_set(fx, 0, 1, 0, 1 << 20);
	ck_assert_int_eq(damon_driver_hot_update(drv, 40000000ull), 0);
	clock_set(fx, 4 * M);
	stats_set(fx, 0, 1, 0, 7 << 20);
	ck_assert_int_eq(damon_driver_hot_update(drv, 50000000ull), 0);
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), 0);
	/* /a 6 MB cold in 3 passes: 50 of 52 hot, /a/c none cold: 8; the
	 * hot set keeps the largest readings (42 and 7 before) */
	ck_assert_uint_eq(hot, 58 << 20);
	/* /a shrinks to 20 MB (12 its own): the window it shrank in reads
	 * its resident bytes over the window, (52 + 12) / 2 = 32, less 2 MB
	 * cold a pass: 30 (+ 8); then DAMON_HOT_KEEP more readings of 10 and
	 * 8: the old ones are gone */
	res_mb[0] = 20;
	for (unsigned k = 0; k < DAMON_HOT_KEEP + 1; k++) {
		clock_set(fx, (7 + 3 * k) * M);
		stats_set(fx, 0, 1, 0, (13 + 6 * k) << 20);
		ck_assert_int_eq(damon_driver_hot_update(drv, (100 + 10 * k) * 1000000ull), 0);
		if (k == 0) {
			ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), 0);
			ck_assert_uint_eq(hot, 58 << 20);	/* 50 + 8 still the largest */
		}
	}
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), 0);
	ck_assert_uint_eq(hot, 18 << 20);
	/* more cold than its own resident bytes (the counters lag each
	 * other): 0, not a wrapped value (/a/c: 8, as before); the first
	 * window after the drop reads the mean of 12 and 1 less 4.1 cold */
	res_mb[0] = 9;
	clock_set(fx, 40 * M);
	stats_set(fx, 0, 1, 0, 100 << 20);
	for (unsigned k = 0; k < DAMON_HOT_KEEP + 1; k++) {
		clock_set(fx, (43 + 3 * k) * M);
		stats_set(fx, 0, 1, 0, (100 + 30 * (k + 1)) << 20);
		ck_assert_int_eq(damon_driver_hot_update(drv, (300 + 10 * k) * 1000000ull), 0);
	}
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), 0);
	ck_assert_uint_eq(hot, 8 << 20);
	/* the slow tier: /a holds 40 MB there (/a/c none), 24 MB of it cold
	 * a pass: 16 MB hot on the slow tier, 0 on the fast one */
	res_slow_mb[0] = 40;
	for (unsigned k = 0; k < DAMON_HOT_KEEP; k++) {
		clock_set(fx, (58 + 3 * k) * M);
		stats_set(fx, 1, 1, 0, (72 * (k + 1)) << 20);
		ck_assert_int_eq(damon_driver_hot_update(drv, (400 + 10 * k) * 1000000ull), 0);
	}
	ck_assert_int_eq(damon_driver_hot_tiers(drv, "/a", &hot_fast, &hot_slow), 0);
	ck_assert_uint_eq(hot_slow, 16 << 20);
	ck_assert_uint_eq(hot_fast, 9 << 20);	/* /a 1 (none cold now), /a/c 8 */
	ck_assert_int_eq(damon_driver_hot(drv, "/a", &hot), 0);
	ck_assert_uint_eq(hot, 25 << 20);
	ck_assert_int_eq(damon_driver_hot_tiers(drv, "/x", &hot_fast, &hot_slow), -ENODATA);
	damon_plan_done(&p);
	damon_driver_free(drv);
	fx_free(fx);
}
END_TEST

static Suite *suite_tierd_damon(void)
{
	Suite *s = suite_create("tierd-damon");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, test_plan_modes);
	tcase_add_test(tc, test_plan_fair);
	tcase_add_test(tc, test_plan_hot_demote);
	tcase_add_test(tc, test_quota_scale);
	tcase_add_test(tc, test_goal_current);
	tcase_add_test(tc, test_plan_bounded);
	tcase_add_test(tc, test_memcgs_collect);
	tcase_add_test(tc, test_memcg_prefix);
	tcase_add_test(tc, test_fair_damon_method);
	tcase_add_test(tc, test_plan_hot_budget);
	tcase_add_test(tc, test_plan_pagecache);
	suite_add_tcase(s, tc);
	tc = tcase_create("driver");
	tcase_add_test(tc, test_driver_lifecycle);
	tcase_add_test(tc, test_driver_busy);
	tcase_add_test(tc, test_driver_stopped_quick);
	tcase_add_test(tc, test_driver_record_not_ours);
	tcase_add_test(tc, test_driver_record_both_or_neither);
	tcase_add_test(tc, test_sysctl);
	tcase_add_test(tc, test_driver_hot);
	tcase_add_test(tc, test_driver_arming);
	tcase_add_test(tc, test_driver_pagecache);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_tierd_damon());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
