// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl-explain.c: explain CGROUP: which rule matches a cgroup, why, and what it gets
 * (from the policy files, or from the policy tierd has loaded).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tier.h>

#include "json.h"
#include "macro.h"
#include "tierctl.h"
#include "tierd-client.h"
#include "verbs.h"

/* ------------------------------------------------------------------------
 * explain CGROUP
 * ------------------------------------------------------------------------ */

/* What the policy says about one cgroup, from the files or from tierd. */
enum { AMT_TOPTIER_MIN, AMT_TOPTIER_MAX, AMT_MEMORY_LOW, AMT_MEMORY_HIGH, _AMT_MAX };
static const char *const amount_keys[_AMT_MAX] = { "toptier_min", "toptier_max", "memory_low",
						     "memory_high" };

struct explain_view {
	const char *policy;		/* the policy file, or "tierd (WHERE)" */
	bool from_daemon;
	const char *unit;
	bool managed;
	const char *rule, *rule_file;
	uint64_t rule_line;
	const char *matcher_kind, *matcher_pattern, *matcher_file, *matched;
	uint64_t matcher_line;
	const char *class_name, *class_mode;
	uint64_t weight;
	struct {
		const char *written;	/* as in the policy; NULL: unset */
		uint64_t bytes;		/* UINT64_MAX: max */
		char buf[TIER_AMOUNT_FORMAT_MAX];
	} amount[_AMT_MAX];
	const char *desired_mode;	/* NULL: left alone */
	/* The fair share (target UINT64_MAX: the cgroup does not share) and
	 * the demand it was computed from; hot UINT64_MAX: not measured;
	 * hot_fast + hot_slow = hot, UINT64_MAX: no split between the tiers. */
	uint64_t target, demand_bytes, resident, hot, hot_fast, hot_slow;
	const char *demand;		/* what was used: resident or hot */
	const char *demand_wanted;	/* what the class asks for */
	uint64_t hot_age_usec;		/* UINT64_MAX: unknown (from tierd: fresh) */
	uint64_t promote_budget;	/* bytes per second, 0: none */
	const char *page_cache;		/* "on", "off"; NULL: not known (an older tierd) */
	/* whether page_cache takes effect here: "yes", "partly", "no",
	 * "unknown" (page_cache_effect()), and why */
	const char *page_cache_effect, *page_cache_why;
};

static void view_init(struct explain_view *x)
{
	*x = (struct explain_view){
		.target = UINT64_MAX,
		.demand_bytes = UINT64_MAX,
		.resident = UINT64_MAX,
		.hot = UINT64_MAX,
		.hot_fast = UINT64_MAX,
		.hot_slow = UINT64_MAX,
		.hot_age_usec = UINT64_MAX,
	};
}

static void view_from_plan(struct explain_view *x, const struct tier_plan_entry *e,
			   const struct tier_observed_cgroup *oc, const char *cgroup)
{
	const struct tier_class *c = tier_plan_entry_class(e);
	const struct tier_rule *rule = tier_plan_entry_rule(e);
	const struct tier_matcher *m = tier_plan_entry_matcher(e);
	uint64_t mode;

	x->unit = tier_observed_cgroup_unit(oc);
	x->managed = rule != NULL;
	if (!rule)
		return;
	x->rule = tier_rule_name(rule);
	x->rule_file = tier_rule_file(rule);
	x->rule_line = tier_rule_line(rule);
	if (m) {
		x->matcher_kind = tier_matcher_kind_to_string(tier_matcher_kind(m));
		x->matcher_pattern = tier_matcher_pattern(m);
		x->matcher_file = tier_matcher_file(m);
		x->matcher_line = tier_matcher_line(m);
		/* a cgroup matcher matched the path itself */
		x->matched = tier_plan_entry_matched_value(e) ?: cgroup;
	}
	x->class_name = tier_class_name(c);
	x->class_mode = mode_str(tier_class_mode(c));
	x->weight = tier_class_weight(c);
	{
		const struct tier_amount *written[_AMT_MAX] = {
			[AMT_TOPTIER_MIN] = tier_class_toptier_min(c),
			[AMT_TOPTIER_MAX] = tier_class_toptier_max(c),
			[AMT_MEMORY_LOW] = tier_class_memory_low(c),
			[AMT_MEMORY_HIGH] = tier_class_memory_high(c),
		};
		const uint64_t bytes[_AMT_MAX] = {
			[AMT_TOPTIER_MIN] = tier_plan_entry_toptier_min(e),
			[AMT_TOPTIER_MAX] = tier_plan_entry_toptier_max(e),
			[AMT_MEMORY_LOW] = desired_or(e, TIER_ATTR_MEMORY_LOW, 0),
			[AMT_MEMORY_HIGH] = desired_or(e, TIER_ATTR_MEMORY_HIGH, UINT64_MAX),
		};

		for (size_t i = 0; i < _AMT_MAX; i++) {
			x->amount[i].written = tier_amount_format(written[i], x->amount[i].buf,
								  TIER_AMOUNT_FORMAT_MAX);
			x->amount[i].bytes = bytes[i];
		}
	}
	x->page_cache = tier_class_page_cache(c) ? "on" : "off";
	x->desired_mode = tier_plan_entry_get_desired(e, TIER_ATTR_NUMA_BALANCING, &mode) == 0 ?
				  mode_str((enum tier_mode)mode) :
				  NULL;
}

static uint64_t parse_u64(const char *s)
{
	if (strcmp(s, "max") == 0)
		return UINT64_MAX;
	return strtoull(s, NULL, 10);
}

/* The fields of ExplainCgroup's (key, value) pairs: strings, numbers, flags. */
#define VIEW_STR(k, f) { k, offsetof(struct explain_view, f), 's' }
#define VIEW_U64(k, f) { k, offsetof(struct explain_view, f), 't' }
static const struct {
	const char *key;
	size_t offset;
	char type;
} view_fields[] = {
	VIEW_STR("unit", unit),
	{ "managed", offsetof(struct explain_view, managed), 'b' },
	VIEW_STR("rule", rule),
	VIEW_STR("rule_file", rule_file),
	VIEW_U64("rule_line", rule_line),
	VIEW_STR("matcher_kind", matcher_kind),
	VIEW_STR("matcher_pattern", matcher_pattern),
	VIEW_STR("matcher_file", matcher_file),
	VIEW_U64("matcher_line", matcher_line),
	VIEW_STR("matched", matched),
	VIEW_STR("class", class_name),
	VIEW_STR("class_mode", class_mode),
	VIEW_U64("weight", weight),
	VIEW_STR("desired_mode", desired_mode),
	VIEW_U64("target_bytes", target),
	VIEW_STR("demand", demand),
	VIEW_STR("demand_wanted", demand_wanted),
	VIEW_U64("demand_bytes", demand_bytes),
	VIEW_U64("resident_bytes", resident),
	VIEW_U64("hot_bytes", hot),
	VIEW_U64("hot_fast_bytes", hot_fast),
	VIEW_U64("hot_slow_bytes", hot_slow),
	VIEW_U64("promote_budget_bytes", promote_budget),
	VIEW_STR("page_cache", page_cache),
};

static void view_set(struct explain_view *x, const char *k, const char *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(view_fields); i++) {
		char *f = (char *)x + view_fields[i].offset;

		if (strcmp(k, view_fields[i].key) != 0)
			continue;
		if (view_fields[i].type == 's')
			*(const char **)(void *)f = v;
		else if (view_fields[i].type == 't')
			*(uint64_t *)(void *)f = parse_u64(v);
		else
			*(bool *)(void *)f = strcmp(v, "true") == 0;
		return;
	}
	for (size_t i = 0; i < _AMT_MAX; i++) {
		size_t n = strlen(amount_keys[i]);

		if (strcmp(k, amount_keys[i]) == 0)
			x->amount[i].written = v;
		else if (strncmp(k, amount_keys[i], n) == 0 && strcmp(k + n, "_bytes") == 0)
			x->amount[i].bytes = parse_u64(v);
	}
	/* Other keys are from a newer tierd: ignored. */
}

/* The (key, value) pairs of ExplainCgroup; strings stay in reply. */
static int view_from_reply(struct explain_view *x, sd_bus_message *reply)
{
	const char *k, *v;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "(ss)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(reply, "(ss)", &k, &v)) > 0)
		view_set(x, k, v);
	if (r < 0)
		return r;
	if (x->managed && (!x->rule || !x->class_name))
		return -EBADMSG;
	return sd_bus_message_exit_container(reply);
}

/*
 * Does the class's page_cache take effect here (backend b, probe p)?  Its
 * promote or full class asks tierd to promote the cgroup's hot page cache
 * through DAMON (knob backend: schemes of their own, as NUMA balancing
 * cannot fault on read(2)-only page cache; damon backend: the promotion
 * schemes, which take page cache unless page_cache is off).
 */
static void page_cache_effect(struct explain_view *x, enum tier_backend b,
			      const struct tier_backend_probe *p)
{
	bool promotes = x->class_mode && (strcmp(x->class_mode, "promote") == 0 ||
					  strcmp(x->class_mode, "full") == 0);
	const char *why = NULL;
	int seen;

	x->page_cache_effect = "no";
	if (!x->page_cache) {
		x->page_cache_effect = "unknown";
		x->page_cache_why = "tierd does not say (older than page_cache)";
		return;
	}
	if (!promotes) {
		x->page_cache_why = "the class's mode does not promote (only promote and full do)";
		return;
	}
	if (b != TIER_BACKEND_KNOB && b != TIER_BACKEND_DAMON) {
		x->page_cache_why = "no tiering backend here";
		return;
	}
	if (strcmp(x->page_cache, "off") == 0) {
		x->page_cache_why = b == TIER_BACKEND_KNOB ?
			"off: NUMA balancing promotes only what tasks fault on, so page cache read "
			"with read(2) stays where it is" :
			"off: the class's promotion schemes leave page cache out (anonymous memory "
			"only)";
		return;
	}
	if (!p->damon) {
		x->page_cache_why = "no DAMON sysfs interface";
		return;
	}
	seen = tier_pagecache_read_seen(p, &why);
	if (seen > 0) {
		x->page_cache_effect = "yes";
		x->page_cache_why = b == TIER_BACKEND_KNOB ?
			"tierd's DAMON page-cache schemes (migrate_hot, anonymous memory left to "
			"NUMA balancing)" :
			"the class's promotion schemes take page cache too";
		return;
	}
	x->page_cache_effect = seen == 0 ? "partly" : "unknown";
	x->page_cache_why = why;
}

/* Whether the hot set's split between the tiers is known (and adds up). */
static bool hot_split(const struct explain_view *x)
{
	return x->hot != UINT64_MAX && x->hot_fast != UINT64_MAX && x->hot_slow != UINT64_MAX &&
	       x->hot_fast <= x->hot && x->hot_slow == x->hot - x->hot_fast;
}

/* The fair share: the target and what demand it was computed from. */
static void explain_share_text(const struct explain_view *x)
{
	char b1[SIZE_BUF], b2[SIZE_BUF], b3[SIZE_BUF];
	bool hot_used = x->demand && strcmp(x->demand, "hot") == 0;

	if (x->target == UINT64_MAX) {
		printf("%-16s %s\n", "fair share:",
		       "none (only the top-most managed cgroups with memory share the fast tier)");
		return;
	}
	printf("%-16s %s of the fast tier\n", "fair share:", fmt_size(x->target, b1));
	if (!x->demand)
		return;
	printf("%-16s %s", "demand:", esc(x->demand));
	if (x->demand_bytes != UINT64_MAX)
		printf(" %s", fmt_size(x->demand_bytes, b1));
	if (hot_used && x->hot != UINT64_MAX)
		printf(" (hot set %s + hot_margin, at most resident %s)", fmt_size(x->hot, b2),
		       x->resident != UINT64_MAX ? fmt_size(x->resident, b3) : "?");
	else if (x->demand_wanted && strcmp(x->demand_wanted, "hot") == 0)
		printf(" (the class asks for hot: no hot-set measurement of tierd's for it)");
	printf("\n");
	if (hot_used && x->hot != UINT64_MAX) {
		printf("%-16s %s", "hot set:", fmt_size(x->hot, b1));
		if (hot_split(x))
			printf(" (fast %s, slow %s)", fmt_size(x->hot_fast, b2),
			       fmt_size(x->hot_slow, b3));
		else
			printf(" (per tier: unknown)");
		printf("\n");
	}
	if (hot_used && x->hot_age_usec != UINT64_MAX)
		printf("%-16s %.0f s ago (tierd's last; stale if tierd is not running)\n",
		       "hot set read:", (double)x->hot_age_usec / 1e6);
}

static void explain_text(const struct explain_view *x, const char *cg)
{
	char b[SIZE_BUF];

	printf("%-16s %s\n", "cgroup:", esc(cg));
	if (x->unit)
		printf("%-16s %s\n", "unit:", esc(x->unit));
	printf("%-16s %s\n", "policy:", esc(x->policy));
	if (!x->managed) {
		printf("no rule matches: unmanaged\n");
		return;
	}
	printf("%-16s %s (%s:%" PRIu64 ")\n", "rule:", esc(x->rule),
	       x->rule_file ? esc(x->rule_file) : "?", x->rule_line);
	if (x->matcher_kind) {
		printf("%-16s %s = %s", "matched by:", esc(x->matcher_kind),
		       esc(x->matcher_pattern));
		if (x->matched &&
		    (!x->matcher_pattern || strcmp(x->matched, x->matcher_pattern) != 0))
			printf(" (%s)", esc(x->matched));
		printf("\n");
	}
	printf("%-16s %s\n", "class:", esc(x->class_name));
	printf("%-16s %s\n", "desired mode:",
	       x->desired_mode ? esc(x->desired_mode) : "(left alone)");
	printf("%-16s %" PRIu64 "\n", "weight:", x->weight);
	for (size_t i = 0; i < _AMT_MAX; i++) {
		const char *w = x->amount[i].written;

		if (!w)
			continue;
		printf("%s:%*s %s", amount_keys[i], (int)(15 - strlen(amount_keys[i])), "", esc(w));
		if (w[0] && w[strlen(w) - 1] == '%')
			printf(" of the fast tier less fast_tier_reserve = %s",
			       fmt_size(x->amount[i].bytes, b));
		printf("\n");
	}
	if (x->promote_budget)
		printf("%-16s %s/s\n", "promote budget:", fmt_size(x->promote_budget, b));
	if (x->page_cache_effect)
		printf("%-16s %s (takes effect here: %s: %s)\n", "page cache:",
		       x->page_cache ? esc(x->page_cache) : "?", x->page_cache_effect,
		       esc(x->page_cache_why));
	explain_share_text(x);
}

static void explain_json(struct json *j, const struct explain_view *x, const char *cg)
{
	json_kv_string(j, "cgroup", cg);
	json_kv_string(j, "unit", x->unit);
	json_kv_string(j, "policy", x->policy);
	json_kv_bool(j, "from_daemon", x->from_daemon);
	json_kv_bool(j, "managed", x->managed);
	if (!x->managed) {
		json_kv_null(j, "rule");
		json_kv_null(j, "matcher");
		json_kv_null(j, "class");
		json_kv_null(j, "desired_mode");
		return;
	}
	json_key(j, "rule");
	json_object_begin(j);
	json_kv_string(j, "name", x->rule);
	json_kv_string(j, "file", x->rule_file);
	json_kv_uint(j, "line", x->rule_line);
	json_object_end(j);
	json_key(j, "matcher");
	if (x->matcher_kind) {
		json_object_begin(j);
		json_kv_string(j, "kind", x->matcher_kind);
		json_kv_string(j, "pattern", x->matcher_pattern);
		json_kv_string(j, "file", x->matcher_file);
		json_kv_uint(j, "line", x->matcher_line);
		json_kv_string(j, "matched", x->matched);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "class");
	json_object_begin(j);
	json_kv_string(j, "name", x->class_name);
	json_kv_string(j, "mode", x->class_mode);
	json_kv_uint(j, "weight", x->weight);
	for (size_t i = 0; i < _AMT_MAX; i++) {
		json_key(j, amount_keys[i]);
		if (!x->amount[i].written) {
			json_null(j);
			continue;
		}
		json_object_begin(j);
		json_kv_string(j, "value", x->amount[i].written);
		if (x->amount[i].bytes == UINT64_MAX)
			json_kv_null(j, "bytes");
		else
			json_kv_uint(j, "bytes", x->amount[i].bytes);
		json_object_end(j);
	}
	if (x->promote_budget)
		json_kv_uint(j, "promote_budget_bytes_per_second", x->promote_budget);
	else
		json_kv_null(j, "promote_budget_bytes_per_second");
	json_kv_string(j, "page_cache", x->page_cache);
	json_object_end(j);
	json_key(j, "page_cache");
	json_object_begin(j);
	json_kv_string(j, "effect", x->page_cache_effect);
	json_kv_string(j, "why", x->page_cache_why);
	json_object_end(j);
	json_kv_string(j, "desired_mode", x->desired_mode);
	json_key(j, "share");
	if (x->target == UINT64_MAX) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_uint(j, "target_bytes", x->target);
	json_kv_string(j, "demand", x->demand);
	json_kv_string(j, "demand_wanted", x->demand_wanted);
	if (x->demand_bytes != UINT64_MAX)
		json_kv_uint(j, "demand_bytes", x->demand_bytes);
	else
		json_kv_null(j, "demand_bytes");
	if (x->resident != UINT64_MAX)
		json_kv_uint(j, "resident_bytes", x->resident);
	else
		json_kv_null(j, "resident_bytes");
	if (x->hot != UINT64_MAX)
		json_kv_uint(j, "hot_bytes", x->hot);
	else
		json_kv_null(j, "hot_bytes");
	if (hot_split(x)) {
		json_kv_uint(j, "hot_fast_bytes", x->hot_fast);
		json_kv_uint(j, "hot_slow_bytes", x->hot_slow);
	} else {
		json_kv_null(j, "hot_fast_bytes");
		json_kv_null(j, "hot_slow_bytes");
	}
	json_object_end(j);
}

/*
 * The share as tierd would compute it now, from the files: every top-most
 * managed cgroup of the whole tree shares (so this reads the whole tree,
 * as `tierctl status` does), with the hot sets tierd measured last.
 */
static int view_share_local(struct tierctl *t, const struct session *s, const char *cg,
			    struct explain_view *x)
{
	_cleanup_(tier_share_freep) struct tier_share *share = NULL;
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	const struct tier_plan_entry *e = tier_plan_find(s->plan, cg);
	char dir[PATH_MAX];
	uint64_t usec = 0;
	size_t k;
	int r;

	if (!e || !tier_plan_entry_rule(e))
		return 0;
	x->promote_budget = tier_class_promote_budget(tier_plan_entry_class(e));
	x->demand_wanted =
		tier_demand_to_string(tier_class_demand(s->policy, tier_plan_entry_class(e)));
	if (!s->topo)
		return 0;
	r = tier_observe(s->ctx, s->topo, NULL, TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS,
			 &obs);
	if (r >= 0)
		r = tier_evaluate(s->policy, obs, &plan);
	if (r >= 0)
		r = tier_share_new(&share);
	if (r >= 0)
		r = tier_share_add_plan(share, plan);
	if (r >= 0 && tier_share_hot_load_dir(share, tierctl_run_dir(t, dir, sizeof(dir)),
					      &usec) < 0)
		usec = 0;
	if (r >= 0)
		r = tier_share_compute(share, s->ctx, s->topo, s->policy, 0);
	if (r >= 0 && tier_share_find(share, cg, &k) == 0) {
		struct timespec ts;

		x->target = tier_share_target(share, k);
		x->demand = tier_demand_to_string(tier_share_demand_kind(share, k)) ?: "resident";
		x->demand_bytes = tier_share_demand(share, k);
		x->resident = tier_share_resident(share, k);
		x->hot = tier_share_hot(share, k);
		/* the split of the same reading (tier_share_hot() is its total) */
		if (x->hot == UINT64_MAX ||
		    tier_share_hot_loaded_tiers(share, cg, &x->hot_fast, &x->hot_slow) < 0)
			x->hot_fast = x->hot_slow = UINT64_MAX;
		if (usec && clock_gettime(CLOCK_MONOTONIC, &ts) == 0) {
			uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;

			x->hot_age_usec = now > usec ? now - usec : 0;
		}
	}
	tier_plan_free(plan);
	tier_observed_free(obs);
	return r < 0 ? r : 0;
}

int verb_explain(struct tierctl *t, int argc, char **argv)
{
	const char *cg = t->cgroup;
	_cleanup_free_ char *src = NULL, *policy = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct tierd_client c;
	struct explain_view x;
	struct session s = { 0 };
	struct tier_ctx *ctx;
	enum tier_mode cur = TIER_MODE_INVALID, eff = TIER_MODE_INVALID;
	int cur_r, eff_r;
	int rc, r;

	view_init(&x);
	r = daemon_open(t, &c, NULL);
	if (r < 0)
		return -r;
	if (r > 0) {
		/* The policy tierd has loaded; the knobs from the tree. */
		r = tierd_client_call(&c, "ExplainCgroup", &error, &reply, "s", cg);
		if (r < 0) {
			rc = daemon_fail("ExplainCgroup", r, &error);
			goto out;
		}
		r = view_from_reply(&x, reply);
		if (r < 0) {
			rc = fail(r, "cannot parse tierd's answer");
			goto out;
		}
		if (asprintf(&policy, "tierd (%s)", c.where) < 0) {
			policy = NULL;
			rc = fail(-ENOMEM, "explain");
			goto out;
		}
		x.policy = policy;
		x.from_daemon = true;
		rc = daemon_open_ctx(t, &c, &s.ctx);
		if (rc)
			goto out;
	} else {
		const struct tier_observed_cgroup *oc = NULL;
		const struct tier_plan_entry *e;

		rc = session_start(t, &s, cg);
		if (rc)
			goto out;
		e = tier_plan_find(s.plan, cg);
		for (size_t i = 0; i < tier_observed_count(s.observed); i++) {
			_cleanup_free_ char *path = NULL;
			const struct tier_observed_cgroup *oi = tier_observed_get(s.observed, i);
			int len = tier_observed_cgroup_path(oi, NULL, 0);

			/* only a path as long as cg is built */
			if (len < 0 || (size_t)len != strlen(cg))
				continue;
			path = malloc((size_t)len + 1);
			if (path && tier_observed_cgroup_path(oi, path, (size_t)len + 1) >= 0 &&
			    strcmp(path, cg) == 0)
				oc = oi;
		}
		if (!e || !oc) {
			rc = cgroup_fail(s.ctx, cg, -ENOENT, "");
			goto out;
		}
		view_from_plan(&x, e, oc, cg);
		x.policy = t->config;
		r = view_share_local(t, &s, cg, &x);
		if (r < 0) {
			rc = fail(r, "cannot compute the fair share");
			goto out;
		}
	}
	ctx = s.ctx;
	if (x.managed) {
		/* the backend tierd uses (the policy's, or auto with tierd's) */
		struct tier_topology *topo = s.topo;
		struct tier_backend_choice bc;

		if (!topo && tier_topology_read(ctx, &topo) < 0)
			topo = NULL;
		if (tier_backend_choose(s.policy ? tier_policy_daemon(s.policy)->backend :
						   TIER_BACKEND_AUTO,
					tier_ctx_get_cgroup_root(ctx), t->sysfs_root, t->procfs_root,
					topo, &bc) == 0) {
			page_cache_effect(&x, bc.backend, &bc.probe);
			tier_backend_choice_done(&bc);
		}
		if (topo != s.topo)
			tier_topology_free(topo);
	}

	if (strcmp(cg, "/") == 0) {
		cur_r = -EOPNOTSUPP;
		eff_r = 0;
		eff = TIER_MODE_FULL;
	} else {
		cur_r = tier_cgroup_get_mode(ctx, cg, &cur);
		eff_r = effective_mode(ctx, cg, &eff, &src);
	}
	if (cur_r == -ENOENT) {
		rc = cgroup_fail(ctx, cg, cur_r, "");
		goto out;
	}

	if (t->json) {
		struct json *j = &t->j;

		json_object_begin(j);
		explain_json(j, &x, cg);
		json_kv_bool(j, "supported", cur_r != -EOPNOTSUPP || strcmp(cg, "/") == 0);
		json_kv_string(j, "configured", cur_r == 0 ? mode_str(cur) : NULL);
		json_kv_string(j, "effective", eff_r == 0 ? mode_str(eff) : NULL);
		json_kv_string(j, "effective_source", src);
		json_object_end(j);
	} else {
		explain_text(&x, cg);
		if (strcmp(cg, "/") == 0)
			printf("%-16s %s\n", "configured mode:", "(the root has no knob)");
		else if (cur_r == 0)
			printf("%-16s %s\n", "configured mode:", mode_str(cur));
		else if (cur_r == -EOPNOTSUPP)
			printf("%-16s %s\n", "configured mode:", "(no memory.numa_balancing file)");
		else
			printf("%-16s (%s)\n", "configured mode:", err_str(cur_r));
		if (eff_r == 0) {
			bool other = src && strcmp(src, cg) != 0;

			printf("%-16s %s%s%s%s\n", "effective mode:", mode_str(eff),
			       other ? " (set by " : "", other ? esc(src) : "", other ? ")" : "");
		}
	}
	if (cur_r == -EOPNOTSUPP && strcmp(cg, "/") != 0)
		rc = cgroup_fail(ctx, cg, cur_r, "");
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	tierd_client_close(&c);
	session_done(&s);
	return rc;
}
