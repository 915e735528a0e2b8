// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer harness for the policy parser: the input is one policy file.
 *
 * Parses with tier_policy_load_buffer() (the same parser as files),
 * walks every diagnostic and, if the policy loaded, every class and rule
 * and a rule match, so use-after-free or bad pointers in the results show
 * up under ASan too. Two properties abort: every class and rule is found by
 * its name (the name hash tables), and the rule evaluation picks for each
 * cgroup is the one trying every rule in order picks (the prefix index).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tier.h>

#include "tier-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool matcher_matches(const struct tier_matcher *m, const struct tier_observed_cgroup *c)
{
	const char *value = tier_matcher_value(m);

	switch (tier_matcher_kind(m)) {
	case TIER_MATCH_CGROUP: {
		/* the harness's paths are short; a longer one would be a bug */
		char path[4096];

		if (tier_observed_cgroup_path(c, path, sizeof(path)) < 0)
			abort();
		return tier_glob_match(value, path, TIER_GLOB_PATHNAME);
	}
	case TIER_MATCH_UNIT:
		return tier_observed_cgroup_unit(c) &&
		       tier_glob_match(value, tier_observed_cgroup_unit(c), 0);
	case TIER_MATCH_EXE:
		for (const char *const *e = tier_observed_cgroup_exes(c); *e; e++)
			if (tier_glob_match(value, *e, TIER_GLOB_PATHNAME))
				return true;
		return false;
	case TIER_MATCH_ANNOTATION:
		for (const char *const *a = tier_observed_cgroup_annotations(c); *a; a++) {
			const char *key = tier_matcher_key(m);
			size_t kl = strlen(key);

			if (strncmp(*a, key, kl) == 0 && (*a)[kl] == '=' &&
			    tier_glob_match(value, *a + kl + 1, 0))
				return true;
		}
		return false;
	default:
		return false;
	}
}

/* The first (rule, matcher) in policy order that matches c, without the index. */
static const struct tier_matcher *brute_force(const struct tier_policy *policy,
					      const struct tier_observed_cgroup *c)
{
	for (size_t i = 0; i < tier_policy_rule_count(policy); i++) {
		const struct tier_rule *rule = tier_policy_rule(policy, i);

		for (size_t k = 0; k < tier_rule_matcher_count(rule); k++)
			if (matcher_matches(tier_rule_matcher(rule, k), c))
				return tier_rule_matcher(rule, k);
	}
	return NULL;
}

/* Bytes of every string so ASan sees a read of all of it. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tier_errors *errors = tier_errors_new();
	struct tier_policy *policy = NULL;
	volatile size_t sink = 0;
	int r;

	if (!errors)
		return 0;
	r = tier_policy_load_buffer("fuzz.conf", (const char *)data, size, errors, &policy);
	for (size_t i = 0; i < tier_errors_count(errors); i++) {
		sink += touch(tier_errors_get(errors, i));
		sink += touch(tier_errors_file(errors, i));
		sink += tier_errors_line(errors, i);
		sink += touch(tier_errors_message(errors, i));
	}
	if (r == 0) {
		const struct tier_daemon_config *d = tier_policy_daemon(policy);
		struct tier_observed *obs = NULL;
		struct tier_observed_cgroup *c = NULL;
		struct tier_plan *plan = NULL;

		if (tier_observed_new(16ull << 30, &obs) < 0 || tier_observed_add(obs, "/", NULL) < 0 ||
		    tier_observed_add(obs, "/system.slice/postgresql@15-main.service", &c) < 0 ||
		    tier_observed_cgroup_set_unit(c, "postgresql@15-main.service") < 0 ||
		    tier_observed_cgroup_add_exe(c, "/usr/sbin/mysqld") < 0 ||
		    tier_observed_cgroup_add_annotation(c, "tierd.io/class=latency") < 0 ||
		    tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING, TIER_MODE_INHERIT) <
			    0 ||
		    tier_observed_add(obs, "/batch.slice/a/b/c", &c) < 0 ||
		    tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING, TIER_MODE_INHERIT) < 0)
			abort();

		sink += touch(d->cgroup_root) + touch(d->include);
		for (size_t i = 0; i < tier_policy_class_count(policy); i++) {
			const struct tier_class *c = tier_policy_class(policy, i);

			sink += touch(tier_class_name(c)) + tier_class_weight(c);
			if (tier_policy_find_class(policy, tier_class_name(c)) != c)
				abort();
		}
		for (size_t i = 0; i < tier_policy_rule_count(policy); i++) {
			const struct tier_rule *rule = tier_policy_rule(policy, i);

			sink += touch(tier_rule_name(rule)) + touch(tier_rule_class_name(rule)) +
				touch(tier_class_name(tier_rule_class(rule)));
			if (tier_policy_find_rule(policy, tier_rule_name(rule)) != rule)
				abort();
			for (size_t k = 0; k < tier_rule_matcher_count(rule); k++) {
				const struct tier_matcher *m = tier_rule_matcher(rule, k);

				sink += touch(tier_matcher_pattern(m)) + touch(tier_matcher_value(m)) +
					touch(tier_matcher_key(m));
			}
		}
		if (tier_evaluate(policy, obs, &plan) == 0) {
			for (size_t i = 0; i < tier_plan_count(plan); i++) {
				const struct tier_plan_entry *e = tier_plan_entry(plan, i);

				const struct tier_matcher *mt = tier_plan_entry_matcher(e);

				sink += touch(tier_plan_entry_matched_value(e));
				/* a cgroup matcher's value is the path: none of its own */
				if (mt && (tier_matcher_kind(mt) == TIER_MATCH_CGROUP) !=
						  !tier_plan_entry_matched_value(e))
					abort();
				/* the root is never managed */
				if (i > 0 && tier_plan_entry_matcher(e) !=
						     brute_force(policy, tier_observed_get(obs, i)))
					abort();
			}
			tier_plan_free(plan);
		}
		tier_observed_free(obs);
		tier_policy_unref(policy);
	}
	tier_errors_free(errors);
	(void)sink;
	return 0;
}
