// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl-knob.c: get CGROUP, set CGROUP MODE: one cgroup's memory.numa_balancing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tier.h>

#include "json.h"
#include "macro.h"
#include "tierctl.h"
#include "tierd-client.h"
#include "verbs.h"

/* ------------------------------------------------------------------------
 * get CGROUP / set CGROUP MODE
 * ------------------------------------------------------------------------ */

int verb_get(struct tierctl *t, int argc, char **argv)
{
	const char *cg = t->cgroup;
	_cleanup_free_ char *src = NULL;
	struct tier_ctx *ctx = NULL;
	enum tier_mode cur = TIER_MODE_INVALID, eff = TIER_MODE_FULL;
	bool root;
	int rc, r;

	rc = open_ctx(t, NULL, NULL, &ctx);
	if (rc)
		return rc;
	root = strcmp(cg, "/") == 0;
	r = cgroup_check(ctx, cg);
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot open the cgroup");
		goto out;
	}
	if (!root) {
		r = tier_cgroup_get_mode(ctx, cg, &cur);
		if (r < 0) {
			rc = cgroup_fail(ctx, cg, r, "cannot read memory.numa_balancing");
			if (t->json && rc == EXIT_NOTSUPP) {
				/* --json answers in JSON: the knob is absent */
				json_object_begin(&t->j);
				json_kv_string(&t->j, "cgroup", cg);
				json_kv_bool(&t->j, "supported", false);
				json_kv_string(&t->j, "configured", NULL);
				json_kv_string(&t->j, "effective", NULL);
				json_kv_string(&t->j, "effective_source", NULL);
				json_kv_string(&t->j, "error", NOSUPPORT_MSG);
				json_object_end(&t->j);
			}
			goto out;
		}
		r = effective_mode(ctx, cg, &eff, &src);
		if (r < 0) {
			rc = cgroup_fail(ctx, cg, r, "cannot read the effective mode");
			goto out;
		}
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_string(&t->j, "cgroup", cg);
		json_kv_bool(&t->j, "supported", true);
		json_kv_string(&t->j, "configured", root ? NULL : mode_str(cur));
		json_kv_string(&t->j, "effective", mode_str(eff));
		json_kv_string(&t->j, "effective_source", src);
		json_object_end(&t->j);
	} else if (root) {
		printf("%s: configured -, effective %s (the root has no knob)\n", esc(cg),
		       mode_str(eff));
	} else {
		printf("%s: configured %s, effective %s", esc(cg), mode_str(cur), mode_str(eff));
		if (src && strcmp(src, cg) != 0)
			printf(" (set by %s)", esc(src));
		printf("\n");
	}
out:
	tier_ctx_unref(ctx);
	return rc;
}

int verb_set(struct tierctl *t, int argc, char **argv)
{
	const char *cg = t->cgroup;
	struct tier_ctx *ctx = NULL;
	_cleanup_(tier_apply_result_freep) struct tier_apply_result *res = NULL;
	enum tier_mode old, mode;
	int rc, r;

	if (tier_mode_from_string(argv[1], &mode) < 0) {
		msg("invalid mode '%s' (expected inherit, full, promote or off)",
		    argv[1]);
		return EXIT_USAGE;
	}
	rc = open_ctx(t, NULL, NULL, &ctx);
	if (rc)
		return rc;
	r = cgroup_check(ctx, cg);
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot open the cgroup");
		goto out;
	}
	/* libtier's one read-compare-write: written only if it differs. */
	r = tier_cgroup_apply_attr(ctx, cg, TIER_ATTR_NUMA_BALANCING, mode, 0, NULL, NULL, &res);
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot set memory.numa_balancing");
		goto out;
	}
	r = tier_apply_result_change_error(res, 0);
	if (tier_apply_result_change_old_value(res, 0)[0] == '\0' ||
	    tier_mode_from_string(tier_apply_result_change_old_value(res, 0), &old) < 0) {
		rc = cgroup_fail(ctx, cg, r ?: -EINVAL, "cannot read memory.numa_balancing");
		goto out;
	}
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot write memory.numa_balancing");
		goto out;
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_string(&t->j, "cgroup", cg);
		json_kv_string(&t->j, "old", mode_str(old));
		json_kv_string(&t->j, "new", mode_str(mode));
		json_kv_bool(&t->j, "changed", old != mode);
		json_object_end(&t->j);
	} else if (old != mode) {
		printf("%s: memory.numa_balancing %s -> %s\n", esc(cg), mode_str(old),
		       mode_str(mode));
	} else {
		printf("%s: memory.numa_balancing already %s\n", esc(cg), mode_str(mode));
	}
out:
	tier_ctx_unref(ctx);
	return rc;
}
