// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A library user: built against <tier.h> alone and linked against
 * libtier.so.2 (not the internal archive), so a function of the API that
 * lib/libtier.sym forgot to export, or a public header that needs a private
 * one, fails the build.  It drives the 2.0 objects end to end: a policy
 * from a buffer, observed state built by hand, a plan adjusted through
 * functions (the class, rule and matcher through accessors), a plan that
 * outlives the caller's reference to the policy, an entry copy, and a dry-run apply against a fake cgroup tree
 * in a temporary directory.  Exit 0 on success, 1 with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tier.h>

static int failures;

#define CHECK(cond)                                                             \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                             \
		}                                                               \
	} while (0)

static void put(const char *dir, const char *file, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "we");
	if (!f || fputs(content, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int main(void)
{
	static const char text[] = "[class:db]\nmode = promote\nmemory_low = 1M\n"
				   "[rule:db]\nclass = db\ncgroup = /db*\n";
	char root[] = "/tmp/tier-consumer-XXXXXX", cg[4096];
	struct tier_policy *policy = NULL;
	struct tier_observed *obs = NULL;
	struct tier_observed_cgroup *c = NULL;
	struct tier_plan *plan = NULL;
	struct tier_plan_entry *copy = NULL;
	struct tier_ctx *ctx = NULL;
	struct tier_apply_result *res = NULL;
	struct tier_cgroup_info *info = NULL;
	const struct tier_plan_entry *e;
	uint64_t v = 0;

	if (!mkdtemp(root))
		return perror("mkdtemp"), 1;
	snprintf(cg, sizeof(cg), "%s/db1", root);
	if (mkdir(cg, 0755) < 0)
		return perror(cg), 1;
	put(cg, "memory.numa_balancing", "inherit\n");
	put(cg, "memory.low", "0\n");
	put(cg, "memory.high", "max\n");

	CHECK(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &policy) == 0);
	CHECK(tier_ctx_new(root, root, root, &ctx) == 0);
	CHECK(tier_observed_new(0, &obs) == 0);
	CHECK(tier_observed_add(obs, "/db1", &c) == 0);
	CHECK(tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING, TIER_MODE_INHERIT) == 0);
	CHECK(tier_plan_new(policy, 0, &plan) == 0);
	CHECK(tier_plan_update(plan, obs) == 0);
	e = tier_plan_find(plan, "/db1");
	CHECK(e && tier_plan_entry_rule(e) && strcmp(tier_rule_name(tier_plan_entry_rule(e)), "db") == 0);
	CHECK(tier_plan_entry_get_desired(e, TIER_ATTR_NUMA_BALANCING, &v) == 0 &&
	      v == TIER_MODE_PROMOTE);
	CHECK(tier_rule_matcher_count(tier_plan_entry_rule(e)) == 1);
	CHECK(tier_matcher_kind(tier_rule_matcher(tier_plan_entry_rule(e), 0)) == TIER_MATCH_CGROUP);
	CHECK(tier_rule_matcher(tier_plan_entry_rule(e), 1) == NULL);
	CHECK(tier_class_mode(tier_plan_entry_class(e)) == TIER_MODE_PROMOTE);
	CHECK(TIER_APPLY_SKIP(TIER_ATTR_MEMORY_HIGH) > TIER_APPLY_REWRITE);
	CHECK(tier_policy_ref(policy) == policy);
	tier_policy_unref(policy);
	{
		char buf[8], small[5];

		/* paths are built into the caller's buffer (2.0: interned) */
		CHECK(tier_plan_entry_path(e, NULL, 0) == 4);
		CHECK(tier_plan_entry_path(e, buf, sizeof(buf)) == 4 && strcmp(buf, "/db1") == 0);
		CHECK(tier_plan_entry_path(e, small, sizeof(small) - 1) == -ENAMETOOLONG);
		CHECK(tier_observed_cgroup_path(c, small, sizeof(small)) == 4);
		CHECK(tier_plan_entry_matched_value(e) == NULL); /* a cgroup matcher: the path */
	}
	CHECK(tier_plan_entry_dup(e, &copy) == 0);
	CHECK(tier_plan_entry_set_desired(copy, TIER_ATTR_NUMA_BALANCING, TIER_MODE_OFF) == 0);
	CHECK(tier_apply_entry(ctx, copy, TIER_APPLY_DRY_RUN, NULL, NULL, &res) == 0);
	CHECK(tier_apply_result_status(res) == TIER_APPLY_CHANGED);
	CHECK(tier_apply_result_change_count(res) == 2);
	CHECK(strcmp(tier_apply_result_change_new_value(res, 0), "off") == 0);
	CHECK(strcmp(tier_apply_result_change_new_value(res, 1), "1048576") == 0);
	{
		char buf[8];

		CHECK(tier_apply_result_path(res, buf, sizeof(buf)) == 4 && strcmp(buf, "/db1") == 0);
	}
	CHECK(tier_cgroup_info_read(ctx, NULL, "/db1", TIER_INFO_MODE | TIER_INFO_LOW, &info) == 0);
	CHECK(tier_cgroup_info_get(info, TIER_INFO_MODE, &v) == 0 && v == TIER_MODE_INHERIT);
	CHECK(tier_cgroup_info_get(info, TIER_INFO_HIGH, &v) == -ENODATA);
	/* the plan holds its own reference: the policy outlives ours */
	policy = tier_policy_unref(policy);
	CHECK(strcmp(tier_class_name(tier_plan_entry_class(e)), "db") == 0);
	CHECK(tier_plan_remove(plan, "/db1") == 0 && tier_plan_count(plan) == 0);

	tier_cgroup_info_free(info);
	tier_apply_result_free(res);
	tier_plan_entry_free(copy);
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_ctx_unref(ctx);
	unlink(strcat(strcpy(cg, root), "/db1/memory.numa_balancing"));
	unlink(strcat(strcpy(cg, root), "/db1/memory.low"));
	unlink(strcat(strcpy(cg, root), "/db1/memory.high"));
	rmdir(strcat(strcpy(cg, root), "/db1"));
	rmdir(root);
	if (failures)
		return 1;
	printf("ok: a program using only <tier.h> links against libtier.so.2 and works\n");
	return 0;
}
