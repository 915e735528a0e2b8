/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What both hook fuzzers assert of every cgroup path the parsers return. */
#ifndef TIERD_FUZZ_CHECK_PATH_H
#define TIERD_FUZZ_CHECK_PATH_H

#include <stdlib.h>
#include <string.h>

#include <tier.h>

/* Normalised (absolute, no empty, "." or ".." component, no trailing '/',
 * a fixed point of tier_cgroup_path_normalize()) and at most max bytes. */
static void check_path_max(const char *p, size_t max)
{
	char *again = NULL;
	size_t n = strlen(p);

	if (p[0] != '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		abort();
	if ((n >= 2 && strcmp(p + n - 2, "/.") == 0) || (n >= 3 && strcmp(p + n - 3, "/..") == 0))
		abort();
	if (n > 1 && p[n - 1] == '/')
		abort();
	if (n > max)
		abort();
	if (tier_cgroup_path_normalize(p, &again) != 0 || strcmp(again, p) != 0)
		abort();
	free(again);
}

#endif /* TIERD_FUZZ_CHECK_PATH_H */
