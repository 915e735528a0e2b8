// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for tierd-oci-hook's input parsing.  Every input goes
 * through all four parsers the hook runs on untrusted bytes:
 *  - the OCI state from stdin (oci_state_parse),
 *  - the bundle's config.json (oci_config_parse), and the linux.cgroupsPath
 *    it yields (cgroups_path_resolve: plain and systemd slice forms),
 *  - the input itself as a cgroupsPath string,
 *  - /proc/PID/cgroup content (proc_cgroup_parse).
 * Results are checked for basic invariants (resolved paths are absolute,
 * have no "." or ".." components) so a logic slip aborts like a crash.
 *
 *   make fuzz-hook [FUZZ_HOOK_TIME=300]
 */
#define TIERD_OCI_HOOK_NO_MAIN 1
#include "../../../controller/oci-hook.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_path(const char *p)
{
	if (!p)
		return;
	if (p[0] != '/')
		abort();
	if (strstr(p, "/../") || strstr(p, "/./") || strstr(p, "//"))
		abort();
	if (ends_with(p, strlen(p), "/..") || ends_with(p, strlen(p), "/."))
		abort();
	if (strlen(p) > 1 && p[strlen(p) - 1] == '/')
		abort();
}

static void resolve(const char *cgroups_path)
{
	char *out = NULL;
	int r = cgroups_path_resolve(cgroups_path, &out);

	if (r == 0)
		check_path(out);
	else if (out)
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	struct oci_state st = { 0 };
	struct oci_config cfg = { 0 };
	char *err = NULL, *path = NULL, *str;
	int r;

	r = oci_state_parse(in, size, "tierd.io/class", &st, &err);
	if (r == 0) {
		if (err || (st.bundle && st.bundle[0] != '/') || st.pid < 0)
			abort();
		if (st.class_value && !st.has_annotations)
			abort();
		oci_state_done(&st);
	} else if (r == -EBADMSG && !err) {
		abort();
	}
	free(err);
	err = NULL;

	r = oci_config_parse(in, size, "tierd.io/class", &cfg, &err);
	if (r == 0) {
		if (cfg.cgroups_path)
			resolve(cfg.cgroups_path);
		oci_config_done(&cfg);
	}
	free(err);

	r = proc_cgroup_parse(in, size, &path);
	if (r == 0)
		check_path(path);
	free(path);

	str = strndup(in, size);
	if (str) {
		resolve(str);
		free(str);
	}
	return 0;
}
