// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for tierd-oci-hook's JSON input: every input is parsed
 * as the OCI state from stdin (oci_state_parse) and as the bundle's
 * config.json (oci_config_parse), whose linux.cgroupsPath is then resolved
 * (cgroups_path_resolve). Results are checked for their invariants, so a
 * logic slip aborts like a crash.
 *
 *   make fuzz-hook-json O=... [FUZZ_HOOK_TIME=600]
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tier.h>

#include "check-path.h"
#include "oci-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_path(const char *p)
{
	check_path_max(p, SIZE_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct oci_state st = { 0 };
	struct oci_config cfg = { 0 };
	char *err = NULL;
	int r;

	r = oci_state_parse(in, size, "tierd.io/class", &st, &err);
	if (r == 0) {
		if (err || (st.bundle && st.bundle[0] != '/') || st.pid < 0)
			abort();
		if (st.class_value && !st.has_annotations)
			abort();
		oci_state_done(&st);
	} else if (r != -EBADMSG && r != -ENOMEM) {
		abort();
	} else if (r == -EBADMSG && !err) {
		abort();
	}
	free(err);
	err = NULL;

	r = oci_config_parse(in, size, "tierd.io/class", &cfg, &err);
	if (r == 0) {
		char *path = NULL;
		bool relative = false;

		if (err || (cfg.class_value && !cfg.has_annotations))
			abort();
		if (cfg.cgroups_path && !*cfg.cgroups_path)
			abort();
		if (cfg.cgroups_path) {
			r = cgroups_path_resolve(cfg.cgroups_path, &path, &relative);
			if (r == 0)
				check_path(path);
			else if (path || (r != -EINVAL && r != -ENAMETOOLONG && r != -ENOMEM))
				abort();
			free(path);
		}
		oci_config_done(&cfg);
	} else if (r == -EBADMSG && !err) {
		abort();
	}
	free(err);
	return 0;
}
