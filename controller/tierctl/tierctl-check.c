// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl-check.c: check FILE...: parse policy files and report their errors.
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
 * check FILE...
 * ------------------------------------------------------------------------ */

int verb_check(struct tierctl *t, int argc, char **argv)
{
	int rc = EXIT_OK, r;


	if (t->json) {
		json_object_begin(&t->j);
		json_key(&t->j, "files");
		json_array_begin(&t->j);
	}
	for (int i = 0; i < argc; i++) {
		const char *file = argv[i];
		struct tier_errors *errors = tier_errors_new();
		struct tier_policy *policy = NULL;
		size_t n;

		if (!errors)
			return fail(-ENOMEM, "check");
		r = tier_policy_load(file, NULL, errors, &policy);
		n = tier_errors_count(errors);
		print_errors(errors);
		if (r < 0 && n == 0)
			fail(r, "%s", file);
		if (r == -EINVAL)
			rc = rc ?: EXIT_POLICY;
		else if (r < 0)
			rc = EXIT_SYSTEM;
		if (r == 0 && !t->json)
			printf("%s: ok (%zu classes, %zu rules)\n", esc(file),
			       tier_policy_class_count(policy), tier_policy_rule_count(policy));
		if (t->json) {
			json_object_begin(&t->j);
			json_kv_string(&t->j, "file", file);
			json_kv_bool(&t->j, "ok", r == 0);
			if (r == 0) {
				json_kv_uint(&t->j, "classes", tier_policy_class_count(policy));
				json_kv_uint(&t->j, "rules", tier_policy_rule_count(policy));
				json_key(&t->j, "files_read");
				json_array_begin(&t->j);
				for (size_t k = 0; k < tier_policy_file_count(policy); k++)
					json_string(&t->j, tier_policy_file(policy, k));
				json_array_end(&t->j);
			} else if (n == 0) {
				json_kv_string(&t->j, "error", strerror(-r));
			}
			json_key(&t->j, "errors");
			json_array_begin(&t->j);
			for (size_t k = 0; k < n; k++) {
				json_object_begin(&t->j);
				json_kv_string(&t->j, "file", tier_errors_file(errors, k));
				json_kv_uint(&t->j, "line", tier_errors_line(errors, k));
				json_kv_string(&t->j, "message", tier_errors_message(errors, k));
				json_object_end(&t->j);
			}
			json_array_end(&t->j);
			json_object_end(&t->j);
		}
		tier_policy_unref(policy);
		tier_errors_free(errors);
	}
	if (t->json) {
		json_array_end(&t->j);
		json_object_end(&t->j);
	}
	return rc;
}
