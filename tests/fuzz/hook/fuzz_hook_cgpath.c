// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for how tierd-oci-hook finds a cgroup from the input:
 *  - the input as linux.cgroupsPath (cgroups_path_resolve: plain paths,
 *    the systemd SLICE:PREFIX:NAME form with its slice expansion and unit
 *    name limits, relative paths) and as a slice name (slice_expand);
 *  - the input as /proc/PID/cgroup content (tier_proc_cgroup_parse);
 *  - split at its first newline, a cgroupsPath and /proc content, matched
 *    as the hook matches them (cgroup_config_match).
 * Invariants are checked (normalised results, bounded output, what a match
 * may return), so a logic slip aborts like a crash; -timeout catches any
 * expansion that is not linear.
 *
 *   make fuzz-hook-cgpath O=... [FUZZ_HOOK_TIME=600]
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tier.h>

#include "check-path.h"
#include "oci-parse.h"
#include "tier-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The longest expansion: a 255-byte slice of single-letter parts. */
#define EXPANDED_MAX ((UNIT_NAME_MAX + 1) * (UNIT_NAME_MAX + 1) / 2 + 2 * UNIT_NAME_MAX + 8)

static void check_path(const char *p)
{
	check_path_max(p, EXPANDED_MAX);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Resolve; on success the path in *ret_path (caller frees). */
static int resolve(const char *cgroups_path, char **ret_path, bool *ret_relative)
{
	char *out = NULL;
	int r = cgroups_path_resolve(cgroups_path, &out, ret_relative);

	if (r == 0) {
		check_path(out);
		/* a systemd form ends in its unit */
		if (!*ret_relative && cgroups_path[0] != '/' &&
		    !ends_with(out, ".scope") && !ends_with(out, ".slice"))
			abort();
		*ret_path = out;
	} else if (out || (r != -EINVAL && r != -ENAMETOOLONG && r != -ENOMEM)) {
		abort();
	}
	return r;
}

static void expand(const char *s, size_t n)
{
	char *out = NULL;
	int r = slice_expand(s, n, &out);

	if (r == 0) {
		if (n > UNIT_NAME_MAX || strlen(out) > EXPANDED_MAX)
			abort();
		if (*out && (out[0] != '/' || !ends_with(out, ".slice")))
			abort();
	} else if (out || (r == -ENAMETOOLONG && n <= UNIT_NAME_MAX)) {
		abort();
	}
	free(out);
}

static void match(const char *config, bool relative, const char *proc)
{
	char *out = NULL;
	int r = cgroup_config_match(config, relative, proc, &out);

	if (r == 0) {
		size_t lo = strlen(out);

		check_path(out);
		/* the match is what config.json names ... */
		if (!relative && strcmp(out, config) != 0)
			abort();
		if (relative && !ends_with(out, config))
			abort();
		/* ... and the init is in it or in a child of it */
		if (strcmp(proc, out) != 0) {
			const char *child = proc + (strcmp(out, "/") == 0 ? 0 : lo);

			if (strncmp(proc, out, lo) != 0 || child[0] != '/' || !child[1] ||
			    strchr(child + 1, '/'))
				abort();
			/* never a slice's child: a slice is shared by design */
			if (ends_with(out, ".slice"))
				abort();
		}
	} else if (out || (r != -ESRCH && r != -ENOMEM)) {
		abort();
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *str = strndup((const char *)data, size), *nl, *cfg_path = NULL, *proc_path = NULL;
	bool relative = false;

	if (!str)
		return 0;
	if (resolve(str, &cfg_path, &relative) == 0)
		free(cfg_path);
	cfg_path = NULL;
	expand(str, strlen(str));
	if (tier_proc_cgroup_parse((const char *)data, size, &proc_path) == 0) {
		check_path(proc_path);
		free(proc_path);
	}
	proc_path = NULL;

	nl = strchr(str, '\n');
	if (nl) {
		*nl = '\0';
		if (resolve(str, &cfg_path, &relative) == 0 &&
		    tier_proc_cgroup_parse(nl + 1, strlen(nl + 1), &proc_path) == 0)
			match(cfg_path, relative, proc_path);
		free(cfg_path);
		free(proc_path);
	}
	free(str);
	return 0;
}
