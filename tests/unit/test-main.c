// SPDX-License-Identifier: LGPL-2.1-or-later
/* libtier unit tests (Check). */
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"

int main(void)
{
	static const uint8_t key[16] = TEST_HASH_KEY;
	SRunner *sr;
	int failed;

	tier_hash_set_key(key);
	sr = srunner_create(suite_util());
	srunner_add_suite(sr, suite_topology());
	srunner_add_suite(sr, suite_cgroup());
	srunner_add_suite(sr, suite_policy());
	srunner_add_suite(sr, suite_evaluate());
	srunner_add_suite(sr, suite_apply());
	srunner_add_suite(sr, suite_fair());
	srunner_add_suite(sr, suite_share());
	srunner_add_suite(sr, suite_hostile());
	srunner_add_suite(sr, suite_escape());
	srunner_add_suite(sr, suite_react());
	srunner_add_suite(sr, suite_damon());
	srunner_add_suite(sr, suite_hash());
	srunner_add_suite(sr, suite_backend());
	srunner_add_suite(sr, suite_path());
	/* CK_VERBOSITY=silent (the valgrind run) keeps its log out of the summary */
	srunner_run_all(sr, getenv("CK_VERBOSITY") ? CK_ENV : CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	if (getenv("CK_VERBOSITY"))
		printf("libtier unit tests: %d run, %d failed\n", srunner_ntests_run(sr), failed);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
