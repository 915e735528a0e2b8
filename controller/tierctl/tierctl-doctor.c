// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl-doctor.c: doctor, what works on this machine (issue 22, item 5).
 *
 * Read-only: the cgroup2 mount (tier_cgroup_root_find(), the one discovery),
 * the memory tiers, kernel.numa_balancing, memory.numa_balancing and its
 * effective value, the memory_tiered_limits mount option, the toptier key
 * of memory.stat, DAMON (present, kdamonds, DAMON_RECLAIM/LRU_SORT), the
 * backend tierd would use (tier_backend_choose(), the one choice), and
 * which policy keys take effect here.  Exit 0 when tierd can tier cgroups
 * here, EXIT_DOCTOR with the reasons otherwise (tierctl(1)).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "damon.h"
#include "tierctl.h"
#include "verbs.h"

/* What doctor found. */
struct doctor {
	const char *config;		/* the policy file */
	char *root;			/* cgroup2 root with memory, or NULL */
	char *root_why;			/* why there is none */
	struct tier_ctx *ctx;
	struct tier_topology *topo;
	unsigned n_tiers;
	long sysctl;			/* kernel.numa_balancing, -1 unreadable */
	char *effective;		/* memory.numa_balancing.effective of the probe cgroup */
	int tiered_limits;		/* memory_tiered_limits: 1, 0, -1 unknown */
	int toptier;			/* "toptier" in memory.stat: 1, 0, -1 unknown */
	char *toptier_where;		/* the cgroup whose memory.stat was read */
	bool damon;
	int damon_err;			/* tier_damon_open()/list error, 0 */
	struct tier_damon_kdamond *kdamonds;
	size_t n_kdamonds;
	struct tier_policy *policy;	/* NULL: none found / not valid */
	const char *policy_state;	/* "loaded", "missing", "invalid" */
	size_t policy_errors;
	struct tier_backend_choice choice;
	bool have_choice;
	char **problems, **warnings;
	size_t n_problems, a_problems, n_warnings, a_warnings;
};

_printf_(4, 5) static int note(char ***v, size_t *n, size_t *a, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	if (ARRAY_PUSH(*v, *n, *a, s) < 0) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

#define problem(d, ...) note(&(d)->problems, &(d)->n_problems, &(d)->a_problems, __VA_ARGS__)
#define warning(d, ...) note(&(d)->warnings, &(d)->n_warnings, &(d)->a_warnings, __VA_ARGS__)

static void doctor_done(struct doctor *d)
{
	free(d->root);
	free(d->root_why);
	free(d->effective);
	free(d->toptier_where);
	free(d->kdamonds);
	if (d->have_choice)
		tier_backend_choice_done(&d->choice);
	tier_topology_free(d->topo);
	tier_ctx_unref(d->ctx);
	tier_policy_unref(d->policy);
	for (size_t i = 0; i < d->n_problems; i++)
		free(d->problems[i]);
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->problems);
	free(d->warnings);
}

static const char *sysctl_meaning(long v)
{
	switch (v) {
	case 0:
		return "off: no NUMA balancing at all";
	case 1:
		return "placement only: tasks and pages follow each other across nodes, "
		       "no promotion between tiers";
	case 2:
		return "memory tiering: hot pages are promoted from slower tiers, no placement";
	case 3:
		return "both: placement and promotion between tiers";
	default:
		return "unknown value";
	}
}

/*
 * Is the cgroup2 mount at root mounted with memory_tiered_limits?  1, 0, or
 * -1 if mountinfo cannot be read or has no cgroup2 mount there (a fake
 * tree).  The last mount on the path counts.
 */
static int tiered_limits_mounted(const char *procfs_root, const char *root)
{
	int r = tier_cgroup_mount_has_option(procfs_root, root, "memory_tiered_limits");

	return r < 0 ? -1 : r;
}

static int probe_cgroups(struct tierctl *t, struct doctor *d)
{
	const struct tier_backend_probe *p = &d->choice.probe;
	_cleanup_free_ char *v = NULL;
	uint64_t x;
	int r;

	d->tiered_limits = -1;
	d->toptier = -1;
	if (!d->root)
		return 0;
	d->tiered_limits = tiered_limits_mounted(t->procfs_root, d->root);
	if (p->knob_evidence == TIER_KNOB_CGROUP && p->knob) {
		r = tier_cgroup_read(d->ctx, p->knob_cgroup, "memory.numa_balancing.effective", &v);
		if (r == -ENOMEM)
			return r;
		if (r >= 0)
			d->effective = TAKE_PTR(v);
	}
	d->toptier_where = strdup(p->knob_evidence == TIER_KNOB_CGROUP ? p->knob_cgroup : "/");
	if (!d->toptier_where)
		return -ENOMEM;
	r = tier_cgroup_read_stat(d->ctx, d->toptier_where, "memory.stat", "toptier", &x);
	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		d->toptier = 1;
	else if (r == -ENODATA)
		d->toptier = 0;
	return 0;
}

static int probe_damon(struct tierctl *t, struct doctor *d)
{
	struct tier_damon *dm = NULL;
	int r;

	r = tier_damon_open(t->sysfs_root ?: "/sys", t->procfs_root ?: "/proc", &dm);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		d->damon_err = r == -ENOENT ? 0 : r;
		return 0;
	}
	d->damon = true;
	r = tier_damon_kdamond_list(dm, &d->kdamonds, &d->n_kdamonds);
	if (r == -ENOMEM) {
		tier_damon_free(dm);
		return r;
	}
	if (r < 0)
		d->damon_err = r;
	tier_damon_free(dm);
	return 0;
}

/* Load the policy if there is one; its errors are printed, not fatal. */
static int probe_policy(struct tierctl *t, struct doctor *d)
{
	struct tier_errors *errors = tier_errors_new();
	struct stat st;
	int r;

	if (!errors)
		return -ENOMEM;
	r = tier_policy_load(t->config, NULL, errors, &d->policy);
	d->policy_errors = tier_errors_count(errors);
	if (r == -ENOMEM) {
		tier_errors_free(errors);
		return r;
	}
	if (r >= 0) {
		d->policy_state = "loaded";
	} else if (r == -ENOENT && lstat(t->config, &st) < 0 && errno == ENOENT) {
		d->policy_state = "missing";
	} else {
		d->policy_state = "invalid";
		print_errors(errors);
		if (problem(d, "the policy %s is not valid (%zu error%s, printed above): tierd "
			    "would not start with it", t->config, d->policy_errors,
			    d->policy_errors == 1 ? "" : "s") < 0)
			r = -ENOMEM;
	}
	tier_errors_free(errors);
	return r == -ENOMEM ? r : 0;
}

/* A family of policy keys and whether it takes effect here. */
enum effect { EFFECT_YES, EFFECT_PARTLY, EFFECT_NO };
static const char *const effect_names[] = { "yes", "partly", "no" };

struct family {
	const char *keys;
	enum effect effect;
	const char *why;
};

enum { FAM_MODE, FAM_SHARE, FAM_MEMORY, FAM_DAEMON, _FAM_MAX };

static void families(const struct doctor *d, struct family f[_FAM_MAX])
{
	const struct tier_backend_probe *p = &d->choice.probe;
	enum tier_backend b = d->choice.backend;

	f[FAM_MODE].keys = "mode";
	f[FAM_SHARE].keys = "weight, toptier_min, toptier_max; [daemon] rebalance_interval, "
			    "fast_tier_reserve, hysteresis";
	f[FAM_MEMORY].keys = "memory_low, memory_high";
	f[FAM_DAEMON].keys = "[daemon] cgroup_root, reconcile_interval, dry_run, log_level, "
			     "include, backend";
	if (!d->root) {
		for (int i = 0; i < _FAM_MAX; i++)
			f[i] = (struct family){ f[i].keys, EFFECT_NO,
						"tierd does not start: no cgroup v2 memory controller" };
		return;
	}
	f[FAM_MEMORY].effect = EFFECT_YES;
	f[FAM_MEMORY].why = "memory.low and memory.high of each cgroup (cgroup v2)";
	f[FAM_DAEMON].effect = EFFECT_YES;
	f[FAM_DAEMON].why = "the daemon's own settings";

	if (b == TIER_BACKEND_KNOB && d->sysctl == 0)
		f[FAM_MODE] = (struct family){ "mode", EFFECT_NO,
			"kernel.numa_balancing = 0: memory.numa_balancing only restricts it, "
			"so no mode scans anything" };
	else if (b == TIER_BACKEND_KNOB && d->sysctl == 1)
		f[FAM_MODE] = (struct family){ "mode", EFFECT_PARTLY,
			"memory.numa_balancing is written, but kernel.numa_balancing = 1 has no "
			"tiering bit: full and off restrict placement, promote scans nothing" };
	else if (b == TIER_BACKEND_KNOB)
		f[FAM_MODE] = (struct family){ "mode", EFFECT_YES,
			"memory.numa_balancing of each cgroup (full, promote, off)" };
	else if (b == TIER_BACKEND_DAMON && !TIER_BACKEND_DAMON_DRIVEN)
		f[FAM_MODE] = (struct family){ "mode", EFFECT_NO,
			"DAMON is there, but this tierd does not drive it yet: no class's mode "
			"is enforced on this kernel" };
	else if (b == TIER_BACKEND_DAMON)
		f[FAM_MODE] = (struct family){ "mode", EFFECT_PARTLY,
			"through DAMON: full and promote both mean promotion of the cgroup's hot "
			"pages (migrate_hot), off means none; a stock kernel has no per-cgroup "
			"placement scans" };
	else
		f[FAM_MODE] = (struct family){ "mode", EFFECT_NO,
			"no memory.numa_balancing and no DAMON backend (backend none): ignored" };

	if (d->n_tiers < 2)
		f[FAM_SHARE] = (struct family){ f[FAM_SHARE].keys, EFFECT_NO,
			"one memory tier: no fast tier to share" };
	else if (d->tiered_limits == 1 && d->toptier == 1)
		f[FAM_SHARE] = (struct family){ f[FAM_SHARE].keys, EFFECT_YES,
			"enforced through the tier-aware limits (memory_tiered_limits); the "
			"kernel holds each cgroup at its ceiling (memory.stat toptier)" };
	else if (d->tiered_limits == 1)
		f[FAM_SHARE] = (struct family){ f[FAM_SHARE].keys, EFFECT_YES,
			"enforced through the tier-aware limits (memory_tiered_limits)" };
	else if (p->knob)
		f[FAM_SHARE] = (struct family){ f[FAM_SHARE].keys, EFFECT_PARTLY,
			"no memory_tiered_limits: enforced by switching promotion off for a "
			"cgroup above its target (memory.numa_balancing)" };
	else if (b == TIER_BACKEND_DAMON && TIER_BACKEND_DAMON_DRIVEN)
		f[FAM_SHARE] = (struct family){ f[FAM_SHARE].keys, EFFECT_PARTLY,
			"through DAMON: a cgroup above its target gets no promotion and a "
			"migrate_cold scheme whose goal follows its fast-tier bytes; it "
			"approaches the target but is not held at it (no kernel ceiling)" };
	else
		f[FAM_SHARE] = (struct family){ f[FAM_SHARE].keys, EFFECT_NO,
			"neither tier-aware limits nor memory.numa_balancing: fair-share targets "
			"are computed (tierctl status) but not enforced" };
}

/* Not a family: the classes whose hot page cache tierd is asked to promote
 * (mode promote or full, page_cache on), for classes_setting(). */
#define CLASSES_PAGE_CACHE (-1)

/* The classes of the policy that set a family's keys (or CLASSES_PAGE_CACHE),
 * ", "-separated; NULL if none. */
static char *classes_setting(const struct tier_policy *policy, int fam)
{
	char *s = NULL;

	for (size_t i = 0; policy && i < tier_policy_class_count(policy); i++) {
		const struct tier_class *c = tier_policy_class(policy, i);
		bool set;
		char *n;

		switch (fam) {
		case FAM_MODE:
			set = tier_class_mode(c) != TIER_MODE_INHERIT;
			break;
		case FAM_SHARE:
			set = tier_class_weight(c) != 100 || tier_class_toptier_min(c)->kind != TIER_AMOUNT_UNSET ||
			      tier_class_toptier_max(c)->kind != TIER_AMOUNT_UNSET;
			break;
		case FAM_MEMORY:
			set = tier_class_memory_low(c)->kind != TIER_AMOUNT_UNSET ||
			      tier_class_memory_high(c)->kind != TIER_AMOUNT_UNSET;
			break;
		case CLASSES_PAGE_CACHE:
			set = (tier_class_mode(c) == TIER_MODE_PROMOTE || tier_class_mode(c) == TIER_MODE_FULL) &&
			      tier_class_page_cache(c);
			break;
		default:
			set = false;
		}
		if (!set)
			continue;
		if (asprintf(&n, "%s%s%s", s ?: "", s ? ", " : "", tier_class_name(c)) < 0) {
			free(s);
			return NULL;
		}
		free(s);
		s = n;
	}
	return s;
}

/* Does DAMON see page cache read with read(2) here: 1, 0, -1 unknown;
 * *why: one line.  Without DAMON's sysfs interface: 0. */
static int pagecache_seen(const struct doctor *d, const char **why)
{
	if (!d->damon) {
		*why = "no DAMON sysfs interface";
		return 0;
	}
	return tier_pagecache_read_seen(&d->choice.probe, why);
}

/* The verdict: problems (tierd cannot tier cgroups here) and warnings. */
static int judge(struct doctor *d)
{
	const struct tier_backend_choice *c = &d->choice;
	int r = 0;

	if (!d->root)
		r = problem(d, "%s", d->root_why ?: "no cgroup v2 memory controller");
	else if (!c->satisfied)
		r = problem(d, "%s", c->reason);
	else if (c->backend == TIER_BACKEND_DAMON && !TIER_BACKEND_DAMON_DRIVEN)
		r = problem(d, "this tierd does not drive DAMON yet: on a kernel without the "
			    "tierd series only memory_low and memory_high take effect");
	else if (c->backend == TIER_BACKEND_NONE && d->n_tiers >= 2)
		r = problem(d, "no tiering backend: neither memory.numa_balancing nor DAMON's "
			    "sysfs interface; only memory_low and memory_high take effect");
	if (r >= 0 && d->n_tiers < 2)
		r = problem(d, "%s memory tier%s: nothing to tier (tiering needs a slower tier, "
			    "e.g. CXL memory)", d->n_tiers ? "one" : "no",
			    d->n_tiers == 1 ? "" : "s");
	if (r >= 0 && c->backend == TIER_BACKEND_KNOB && d->n_tiers >= 2 &&
	    (d->sysctl == 0 || d->sysctl == 1))
		r = problem(d, "kernel.numa_balancing = %ld: no promotion between tiers, and "
			    "memory.numa_balancing only restricts it (sysctl kernel.numa_balancing=2, "
			    "or 3 to keep placement)", d->sysctl);
	if (r >= 0 && c->backend == TIER_BACKEND_DAMON && c->probe.damon_modules)
		r = problem(d, "DAMON is busy: %s enabled, and tierd's kdamond cannot start while "
			    "it is (echo N > /sys/module/damon_%s/parameters/enabled)",
			    c->probe.damon_modules & TIER_DAMON_MODULE_RECLAIM ? "DAMON_RECLAIM" :
										 "DAMON_LRU_SORT",
			    c->probe.damon_modules & TIER_DAMON_MODULE_RECLAIM ? "reclaim" :
										 "lru_sort");
	for (size_t i = 0; r >= 0 && c->backend == TIER_BACKEND_DAMON && i < d->n_kdamonds; i++)
		if (d->kdamonds[i].running)
			r = warning(d, "kdamond %u is running (pid %d): tierd can add its own only "
				    "while no kdamond runs, unless this one is tierd's",
				    d->kdamonds[i].index, d->kdamonds[i].pid);
	if (r >= 0 && c->backend == TIER_BACKEND_DAMON && d->sysctl >= 2)
		r = warning(d, "kernel.numa_balancing = %ld promotes every cgroup's pages behind "
			    "DAMON's back (sysctl kernel.numa_balancing=0 leaves promotion to the "
			    "policy)", d->sysctl);
	/* not a problem: tierd still tiers everything else */
	if (r >= 0 && d->damon && (c->backend == TIER_BACKEND_KNOB || c->backend == TIER_BACKEND_DAMON)) {
		_cleanup_free_ char *cls = classes_setting(d->policy, CLASSES_PAGE_CACHE);
		const char *why;

		if (cls && pagecache_seen(d, &why) == 0)
			r = warning(d, "page cache read with read(2) is not promoted here "
				    "(page_cache = on in classes %s): %s", cls, why);
	}
	if (r >= 0 && d->policy_state && strcmp(d->policy_state, "missing") == 0)
		r = warning(d, "no policy at %s: tierd would manage nothing (tierd.conf(5))",
			    d->config);
	return r;
}

static void print_text(struct tierctl *t, struct doctor *d, const struct family f[_FAM_MAX])
{
	const struct tier_backend_probe *p = &d->choice.probe;
	char b1[SIZE_BUF];

	if (d->root)
		printf("cgroup v2:      %s (memory controller on cgroup v2)\n", esc(d->root));
	else
		printf("cgroup v2:      no memory controller: %s\n", esc(d->root_why ?: "?"));
	if (!d->topo) {
		printf("memory tiers:   unknown (cannot read %s)\n", esc(t->sysfs_root ?: "/sys"));
	} else {
		printf("memory tiers:   %u\n", d->n_tiers);
		for (unsigned i = 0; i < d->n_tiers; i++) {
			const struct tier_memtier *tr = tier_topology_tier(d->topo, i);

			if (tier_memtier_id(tr) == TIER_ID_NONE)
				printf("  tier -:       nodes ");
			else
				printf("  tier %-4d     nodes ", tier_memtier_id(tr));
			for (unsigned k = 0; k < tier_memtier_node_count(tr); k++)
				printf("%s%d", k ? "," : "", tier_memtier_node(tr, k));
			printf(", %s%s\n", fmt_bytes(tier_memtier_mem_total(tr), b1),
			       tier_memtier_is_top(tr) ? " (top tier)" : "");
		}
	}
	if (d->sysctl >= 0)
		printf("kernel.numa_balancing = %ld: %s\n", d->sysctl, sysctl_meaning(d->sysctl));
	else
		printf("kernel.numa_balancing: unreadable (a kernel without NUMA balancing?)\n");
	switch (p->knob_evidence) {
	case TIER_KNOB_NO_CGROUP:
		printf("memory.numa_balancing: not looked for (no cgroup v2 memory controller)\n");
		break;
	case TIER_KNOB_CGROUP:
		printf("memory.numa_balancing: %s (looked in %s)\n",
		       p->knob ? "present" : "not present", esc(p->knob_cgroup));
		break;
	case TIER_KNOB_VMSTAT:
		printf("memory.numa_balancing: %s (no cgroup below the root has the memory "
		       "controller; vmstat %s numa_promo_pte_updates)\n",
		       p->knob ? "present" : "not present", p->knob ? "has" : "lacks");
		break;
	}
	if (d->effective)
		printf("memory.numa_balancing.effective: %s (in %s)\n", esc(d->effective),
		       esc(p->knob_cgroup));
	if (d->tiered_limits >= 0)
		printf("memory_tiered_limits: %s\n", d->tiered_limits ?
		       "mounted (tier-aware memcg limits on)" :
		       "not mounted (no tier-aware memcg limits)");
	else if (d->root)
		printf("memory_tiered_limits: unknown (no cgroup2 mount at %s in mountinfo)\n",
		       esc(d->root));
	if (d->toptier >= 0)
		printf("memory.stat toptier: %s (in %s)\n", d->toptier ? "present" : "not present",
		       esc(d->toptier_where));
	if (!d->damon) {
		printf("DAMON:          no sysfs interface%s%s\n", d->damon_err ? ": " : "",
		       d->damon_err ? err_str(d->damon_err) : "");
	} else {
		size_t running = 0;

		for (size_t i = 0; i < d->n_kdamonds; i++)
			running += d->kdamonds[i].running;
		if (d->damon_err)
			printf("DAMON:          present, kdamonds unreadable (%s%s)",
			       err_str(d->damon_err),
			       d->damon_err == -EACCES ? ": run doctor as root" : "");
		else
			printf("DAMON:          present, %zu kdamond%s, %zu running", d->n_kdamonds,
			       d->n_kdamonds == 1 ? "" : "s", running);
		for (size_t i = 0; i < d->n_kdamonds; i++)
			if (d->kdamonds[i].running)
				printf(" (%u: pid %d)", d->kdamonds[i].index, d->kdamonds[i].pid);
		printf("; DAMON_RECLAIM %s, DAMON_LRU_SORT %s\n",
		       p->damon_modules & TIER_DAMON_MODULE_RECLAIM ? "on" : "off",
		       p->damon_modules & TIER_DAMON_MODULE_LRU_SORT ? "on" : "off");
	}
	{
		const char *why;
		int seen = pagecache_seen(d, &why);

		printf("page cache via DAMON: %s (%s)\n",
		       seen > 0 ? "yes" : seen == 0 ? "no" : "unknown", esc(why));
	}
	printf("backend:        %s (%s)\n", tier_backend_to_string(d->choice.backend),
	       esc(d->choice.reason));
	if (strcmp(d->policy_state, "loaded") == 0)
		printf("\npolicy keys (%s, %zu classes):\n", esc(t->config),
		       tier_policy_class_count(d->policy));
	else
		printf("\npolicy keys (%s %s; the key families):\n", esc(t->config),
		       strcmp(d->policy_state, "missing") == 0 ? "not found" : "not valid");
	for (int i = 0; i < _FAM_MAX; i++) {
		_cleanup_free_ char *cls = classes_setting(d->policy, i);

		printf("  %-6s  %s\n          %s%s%s%s\n", effect_names[f[i].effect], f[i].keys,
		       f[i].why, cls ? " [classes: " : "", cls ? esc(cls) : "", cls ? "]" : "");
	}
	printf("\n");
	for (size_t i = 0; i < d->n_warnings; i++)
		printf("warning: %s\n", esc(d->warnings[i]));
	for (size_t i = 0; i < d->n_problems; i++)
		printf("problem: %s\n", esc(d->problems[i]));
	if (d->n_problems == 0)
		printf("tierd can tier cgroups here (backend %s)\n",
		       tier_backend_to_string(d->choice.backend));
	else
		printf("tierd cannot tier cgroups here: %zu problem%s\n", d->n_problems,
		       d->n_problems == 1 ? "" : "s");
}

static void json_tristate(struct json *j, const char *key, int v)
{
	if (v < 0)
		json_kv_null(j, key);
	else
		json_kv_bool(j, key, v);
}

static void print_json(struct tierctl *t, struct doctor *d, const struct family f[_FAM_MAX])
{
	static const char *const evidence[] = {
		[TIER_KNOB_NO_CGROUP] = "none",
		[TIER_KNOB_CGROUP] = "cgroup",
		[TIER_KNOB_VMSTAT] = "vmstat",
	};
	const struct tier_backend_probe *p = &d->choice.probe;
	struct json *j = &t->j;

	json_object_begin(j);
	json_key(j, "cgroup");
	json_object_begin(j);
	json_kv_string(j, "root", d->root);
	json_kv_bool(j, "memory_v2", d->root != NULL);
	json_kv_string(j, "error", d->root ? NULL : d->root_why);
	json_object_end(j);

	json_key(j, "tiers");
	if (!d->topo) {
		json_null(j);
	} else {
		json_array_begin(j);
		for (unsigned i = 0; i < d->n_tiers; i++) {
			const struct tier_memtier *tr = tier_topology_tier(d->topo, i);

			json_object_begin(j);
			if (tier_memtier_id(tr) == TIER_ID_NONE)
				json_kv_null(j, "tier");
			else
				json_kv_int(j, "tier", tier_memtier_id(tr));
			json_kv_bool(j, "top", tier_memtier_is_top(tr));
			json_key(j, "nodes");
			json_array_begin(j);
			for (unsigned k = 0; k < tier_memtier_node_count(tr); k++)
				json_int(j, tier_memtier_node(tr, k));
			json_array_end(j);
			json_kv_uint(j, "mem_total", tier_memtier_mem_total(tr));
			json_object_end(j);
		}
		json_array_end(j);
	}

	json_key(j, "numa_balancing_sysctl");
	json_object_begin(j);
	if (d->sysctl >= 0) {
		json_kv_int(j, "value", d->sysctl);
		json_kv_string(j, "meaning", sysctl_meaning(d->sysctl));
	} else {
		json_kv_null(j, "value");
		json_kv_null(j, "meaning");
	}
	json_object_end(j);

	json_key(j, "knob");
	json_object_begin(j);
	json_kv_bool(j, "present", p->knob);
	json_kv_string(j, "evidence", evidence[p->knob_evidence]);
	json_kv_string(j, "cgroup", p->knob_cgroup);
	json_kv_string(j, "effective", d->effective);
	json_object_end(j);

	json_tristate(j, "memory_tiered_limits", d->tiered_limits);
	json_key(j, "toptier_stat");
	json_object_begin(j);
	json_tristate(j, "present", d->toptier);
	json_kv_string(j, "cgroup", d->toptier >= 0 ? d->toptier_where : NULL);
	json_object_end(j);

	json_key(j, "damon");
	json_object_begin(j);
	json_kv_bool(j, "present", d->damon);
	json_key(j, "kdamonds");
	if (d->damon_err) {
		json_null(j);	/* unreadable */
	} else {
		json_array_begin(j);
		for (size_t i = 0; i < d->n_kdamonds; i++) {
			json_object_begin(j);
			json_kv_uint(j, "index", d->kdamonds[i].index);
			json_kv_bool(j, "running", d->kdamonds[i].running);
			json_kv_int(j, "pid", d->kdamonds[i].pid);
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_kv_bool(j, "damon_reclaim", p->damon_modules & TIER_DAMON_MODULE_RECLAIM);
	json_kv_bool(j, "damon_lru_sort", p->damon_modules & TIER_DAMON_MODULE_LRU_SORT);
	json_object_end(j);

	/* does DAMON see page cache read with read(2) (page_cache = on) */
	json_key(j, "page_cache");
	json_object_begin(j);
	{
		const char *why;

		json_tristate(j, "read_seen", pagecache_seen(d, &why));
		json_kv_string(j, "why", why);
	}
	json_tristate(j, "mglru", p->lru_gen);
	json_object_end(j);

	json_key(j, "backend");
	json_object_begin(j);
	json_kv_string(j, "requested", tier_backend_to_string(d->choice.requested));
	json_kv_string(j, "backend", tier_backend_to_string(d->choice.backend));
	json_kv_bool(j, "satisfied", d->choice.satisfied);
	json_kv_string(j, "reason", d->choice.reason);
	json_object_end(j);

	json_key(j, "policy");
	json_object_begin(j);
	json_kv_string(j, "file", t->config);
	json_kv_string(j, "state", d->policy_state);
	json_key(j, "keys");
	json_array_begin(j);
	for (int i = 0; i < _FAM_MAX; i++) {
		_cleanup_free_ char *cls = classes_setting(d->policy, i);

		json_object_begin(j);
		json_kv_string(j, "keys", f[i].keys);
		json_kv_string(j, "effect", effect_names[f[i].effect]);
		json_kv_string(j, "why", f[i].why);
		json_kv_string(j, "classes", cls);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);

	json_kv_bool(j, "ok", d->n_problems == 0);
	json_key(j, "problems");
	json_array_begin(j);
	for (size_t i = 0; i < d->n_problems; i++)
		json_string(j, d->problems[i]);
	json_array_end(j);
	json_key(j, "warnings");
	json_array_begin(j);
	for (size_t i = 0; i < d->n_warnings; i++)
		json_string(j, d->warnings[i]);
	json_array_end(j);
	json_object_end(j);
}

int verb_doctor(struct tierctl *t, int argc, char **argv)
{
	struct doctor d = { .config = t->config, .sysctl = -1 };
	struct family f[_FAM_MAX];
	enum tier_backend requested = TIER_BACKEND_AUTO;
	const char *cg;
	int rc = EXIT_OK, r;

	r = probe_policy(t, &d);
	if (r < 0)
		goto oom;
	cg = t->cgroup_root;
	if (!cg && d.policy)
		cg = tier_policy_daemon(d.policy)->cgroup_root;
	if (d.policy)
		requested = tier_policy_daemon(d.policy)->backend;
	r = tier_cgroup_root_find(cg, t->procfs_root, &d.root, &d.root_why);
	if (r == -ENOMEM)
		goto oom;
	if (r < 0 && !d.root_why && asprintf(&d.root_why, "cannot find the cgroup root: %s",
					     err_str(r)) < 0) {
		d.root_why = NULL;
		goto oom;
	}
	/* The context reads sysfs (tiers) and, with a root, cgroups. */
	r = tier_ctx_new(d.root ?: "/sys/fs/cgroup", t->sysfs_root, t->procfs_root, &d.ctx);
	if (r < 0) {
		rc = fail(r, "cannot create libtier context");
		goto out;
	}
	r = tier_topology_read(d.ctx, &d.topo);
	if (r == -ENOMEM)
		goto oom;
	d.n_tiers = d.topo ? tier_topology_tier_count(d.topo) : 0;
	d.sysctl = tierctl_numa_balancing_sysctl(t->procfs_root);
	r = tier_backend_choose(requested, d.root, t->sysfs_root, t->procfs_root, d.topo,
				&d.choice);
	if (r < 0)
		goto oom;
	d.have_choice = true;
	r = probe_cgroups(t, &d);
	if (r >= 0)
		r = probe_damon(t, &d);
	if (r >= 0)
		r = judge(&d);
	if (r < 0)
		goto oom;
	families(&d, f);
	if (t->json)
		print_json(t, &d, f);
	else
		print_text(t, &d, f);
	rc = d.n_problems ? EXIT_DOCTOR : EXIT_OK;
out:
	doctor_done(&d);
	return rc;
oom:
	rc = fail(-ENOMEM, "doctor");
	goto out;
}
