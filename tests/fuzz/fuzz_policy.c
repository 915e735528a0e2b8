// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer harness for the policy parser: the input is one policy file.
 *
 * Parses with tier_policy_load_buffer() (the same inih path as files),
 * walks every diagnostic and, if the policy loaded, every class and rule
 * and a rule match, so use-after-free or bad pointers in the results show
 * up under ASan too.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tier.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bytes of every string so ASan sees a read of all of it. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const no_list[] = { NULL };
	static const char *const annotations[] = { "tierd.io/class=latency", NULL };
	static const char *const exes[] = { "/usr/sbin/mysqld", NULL };
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
		struct tier_observed_cgroup cgs[3] = {
			{ .path = "/", .exes = no_list },
			{ .path = "/system.slice/postgresql@15-main.service",
			  .unit = "postgresql@15-main.service", .exes = exes,
			  .annotations = annotations, .mode_supported = true,
			  .memory_low = 0, .memory_high = UINT64_MAX },
			{ .path = "/batch.slice/a/b/c", .mode_supported = true,
			  .memory_low = 0, .memory_high = UINT64_MAX },
		};
		struct tier_observed obs = { .fast_capacity = 16ull << 30, .n_cgroups = 3,
					     .cgroups = cgs };
		struct tier_plan *plan = NULL;

		sink += touch(d->cgroup_root) + touch(d->include);
		for (size_t i = 0; i < tier_policy_class_count(policy); i++) {
			const struct tier_class *c = tier_policy_class(policy, i);

			sink += touch(c->name) + c->weight;
			sink += tier_policy_find_class(policy, c->name) == c;
		}
		for (size_t i = 0; i < tier_policy_rule_count(policy); i++) {
			const struct tier_rule *rule = tier_policy_rule(policy, i);

			sink += touch(rule->name) + touch(rule->class_name) + touch(rule->class->name);
			for (size_t k = 0; k < rule->n_matchers; k++)
				sink += touch(rule->matchers[k].pattern) +
					touch(rule->matchers[k].value);
		}
		if (tier_evaluate(policy, &obs, &plan) == 0) {
			for (size_t i = 0; i < tier_plan_count(plan); i++)
				sink += touch(tier_plan_entry(plan, i)->matched_value);
			tier_plan_free(plan);
		}
		tier_policy_free(policy);
	}
	tier_errors_free(errors);
	(void)sink;
	return 0;
}
