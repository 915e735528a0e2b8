// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests (Check) of tierd-oci-hook's pure parsers: the OCI state, the
 * bundle's config.json, linux.cgroupsPath in both forms and
 * /proc/PID/cgroup.  The hook's source is included without its main().
 */
#define TIERD_OCI_HOOK_NO_MAIN 1
#include "../../controller/oci-hook.c"

#include <check.h>

/* ---- linux.cgroupsPath ---- */

static const struct {
	const char *in;
	int r;
	const char *out;
} cgpath_cases[] = {
	/* systemd driver: SLICE:PREFIX:NAME */
	{ "system.slice:crio:abc", 0, "/system.slice/crio-abc.scope" },
	{ "kubepods-besteffort-podX.slice:cri-containerd:ID", 0,
	  "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podX.slice/"
	  "cri-containerd-ID.scope" },
	{ "kubepods-besteffort-pod8d1c6b6a_2f4e_4b0a_9c3d_7e5f1a2b3c4d.slice:crio:9e8d", 0,
	  "/kubepods.slice/kubepods-besteffort.slice/"
	  "kubepods-besteffort-pod8d1c6b6a_2f4e_4b0a_9c3d_7e5f1a2b3c4d.slice/crio-9e8d.scope" },
	{ "kubepods.slice:crio:x", 0, "/kubepods.slice/crio-x.scope" },
	{ "machine.slice:libpod:3f1d", 0, "/machine.slice/libpod-3f1d.scope" },
	{ ":libpod:abc", 0, "/system.slice/libpod-abc.scope" },
	{ "-.slice:foo:bar", 0, "/foo-bar.scope" },
	{ "user.slice::abc", 0, "/user.slice/abc.scope" },
	{ "machine.slice:libpod:sub.slice", 0, "/machine.slice/sub.slice" },
	{ "a-b-c-d.slice:p:n", 0, "/a.slice/a-b.slice/a-b-c.slice/a-b-c-d.slice/p-n.scope" },
	{ "user-1000.slice:libpod:abc", 0, "/user.slice/user-1000.slice/libpod-abc.scope" },
	{ "a-.slice:x:y", -EINVAL, NULL },
	{ "-a.slice:x:y", -EINVAL, NULL },
	{ "a--b.slice:x:y", -EINVAL, NULL },
	{ ".slice:x:y", -EINVAL, NULL },
	{ "a/b.slice:x:y", -EINVAL, NULL },
	{ "foo:x:y", -EINVAL, NULL },
	{ "system.slice:crio:", -EINVAL, NULL },
	{ "system.slice:cr/io:x", -EINVAL, NULL },
	{ "system.slice:crio:a/b", -EINVAL, NULL },
	{ "system.slice:crio:a b", -EINVAL, NULL },
	{ "a:b", -EINVAL, NULL },
	{ "a:b:c:d", -EINVAL, NULL },
	{ "::", -EINVAL, NULL },
	/* cgroupfs driver: a path below the cgroup2 root */
	{ "/kubepods/burstable/pod1/abc", 0, "/kubepods/burstable/pod1/abc" },
	{ "//a//b/", 0, "/a/b" },
	{ "/", 0, "/" },
	{ "/a/./b", -EINVAL, NULL },
	{ "/a/../../etc", -EINVAL, NULL },
	{ "/a/\nb", -EINVAL, NULL },
	{ "relative/path", -EXDEV, NULL },
	{ "", -EINVAL, NULL },
};

START_TEST(test_cgroups_path)
{
	char *out = NULL;
	int r = cgroups_path_resolve(cgpath_cases[_i].in, &out);

	ck_assert_msg(r == cgpath_cases[_i].r, "'%s': r=%d, expected %d", cgpath_cases[_i].in, r,
		      cgpath_cases[_i].r);
	if (r == 0)
		ck_assert_str_eq(out, cgpath_cases[_i].out);
	free(out);
}
END_TEST

/* ---- /proc/PID/cgroup ---- */

static const struct {
	const char *in;
	int r;
	const char *out;
} proc_cases[] = {
	{ "0::/machine.slice/libpod-3f1d.scope/container\n", 0,
	  "/machine.slice/libpod-3f1d.scope/container" },
	{ "12:memory:/docker/x\n1:name=systemd:/docker/x\n0::/docker/x\n", 0, "/docker/x" },
	{ "0::/\n", 0, "/" },
	{ "0::/a", 0, "/a" },
	{ "0::/../../x\n", -EINVAL, NULL },
	{ "0::\n", -EINVAL, NULL },
	{ "0::relative\n", -EINVAL, NULL },
	{ "12:memory:/docker/x\n", -ENODATA, NULL },
	{ "", -ENODATA, NULL },
	{ "0:", -ENODATA, NULL },
};

START_TEST(test_proc_cgroup)
{
	char *out = NULL;
	int r = proc_cgroup_parse(proc_cases[_i].in, strlen(proc_cases[_i].in), &out);

	ck_assert_msg(r == proc_cases[_i].r, "case %d: r=%d, expected %d", _i, r, proc_cases[_i].r);
	if (r == 0)
		ck_assert_str_eq(out, proc_cases[_i].out);
	free(out);
}
END_TEST

START_TEST(test_proc_cgroup_nul)
{
	static const char in[] = "0::/a\0b\n";
	char *out = NULL;

	ck_assert_int_eq(proc_cgroup_parse(in, sizeof(in) - 1, &out), -EINVAL);
	ck_assert_ptr_null(out);
}
END_TEST

/* ---- OCI state ---- */

START_TEST(test_state_good)
{
	static const char in[] =
		"{\"ociVersion\":\"1.0.2\",\"id\":\"abc\",\"status\":\"creating\",\"pid\":4242,"
		"\"bundle\":\"/run/b\",\"annotations\":{\"x\":\"y\",\"tierd.io/class\":\"latency\"}}\n";
	struct oci_state s = { 0 };
	char *err = NULL;

	ck_assert_int_eq(oci_state_parse(in, strlen(in), "tierd.io/class", &s, &err), 0);
	ck_assert_str_eq(s.id, "abc");
	ck_assert_str_eq(s.bundle, "/run/b");
	ck_assert_int_eq(s.pid, 4242);
	ck_assert(s.has_annotations);
	ck_assert_str_eq(s.class_value, "latency");
	ck_assert_ptr_null(err);
	oci_state_done(&s);

	/* another key: annotations present, class absent */
	ck_assert_int_eq(oci_state_parse(in, strlen(in), "example.com/tier", &s, &err), 0);
	ck_assert(s.has_annotations);
	ck_assert_ptr_null(s.class_value);
	oci_state_done(&s);
}
END_TEST

START_TEST(test_state_minimal)
{
	static const char in[] = "{}";
	struct oci_state s = { 0 };
	char *err = NULL;

	ck_assert_int_eq(oci_state_parse(in, strlen(in), "k", &s, &err), 0);
	ck_assert_ptr_null(s.id);
	ck_assert_ptr_null(s.bundle);
	ck_assert_int_eq(s.pid, 0);
	ck_assert(!s.has_annotations);
	oci_state_done(&s);
}
END_TEST

static const struct {
	const char *in;
	const char *err; /* substring of the message */
} bad_states[] = {
	{ "", "unexpected end of input" },
	{ "{\"id\":\"abc\"", "unexpected end of input" },
	{ "{\"id\":\"abc\"} x", "trailing characters at offset 13" },
	{ "{\"id\":\"abc\"}{}", "trailing characters" },
	{ "[1,2]", "not a JSON object" },
	{ "\"str\"", "not a JSON object" },
	{ "{'id':'abc'}", "at offset" },
	{ "{\"id\":abc}", "at offset" },
	{ "{\"id\":1}", "\"id\" is not a string" },
	{ "{\"bundle\":[]}", "\"bundle\" is not a string" },
	{ "{\"bundle\":\"rel/dir\"}", "not an absolute path" },
	{ "{\"pid\":\"12\"}", "\"pid\" is not an integer" },
	{ "{\"pid\":1.5}", "\"pid\" is not an integer" },
	{ "{\"pid\":-1}", "\"pid\" out of range" },
	{ "{\"pid\":99999999999}", "\"pid\" out of range" },
	{ "{\"annotations\":[]}", "\"annotations\" is not an object" },
	{ "{\"annotations\":{\"k\":1}}", "\"annotations.k\" is not a string" },
	{ "{\"annotations\":{\"k\":\"a\\u0000b\"}}", "contains a NUL" },
	{ "{\"id\":\"a\",}", "at offset" },
	{ "{\"id\":NaN}", "\"id\" is not a string" },
};

START_TEST(test_state_bad)
{
	struct oci_state s = { 0 };
	char *err = NULL;
	int r = oci_state_parse(bad_states[_i].in, strlen(bad_states[_i].in), "k", &s, &err);

	ck_assert_msg(r == -EBADMSG, "'%s': r=%d", bad_states[_i].in, r);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, bad_states[_i].err), "'%s': message '%s' lacks '%s'",
		      bad_states[_i].in, err, bad_states[_i].err);
	free(err);
}
END_TEST

START_TEST(test_state_nul_byte)
{
	static const char in[] = "{\"id\":\"a\"}\0";
	struct oci_state s = { 0 };
	char *err = NULL;

	ck_assert_int_eq(oci_state_parse(in, sizeof(in), "k", &s, &err), -EBADMSG);
	ck_assert_str_eq(err, "NUL byte at offset 10");
	free(err);
}
END_TEST

START_TEST(test_state_deep)
{
	size_t n = 10000;
	char *in = malloc(2 * n + 1);
	struct oci_state s = { 0 };
	char *err = NULL;

	memset(in, '[', n);
	memset(in + n, ']', n);
	in[2 * n] = '\0';
	ck_assert_int_eq(oci_state_parse(in, 2 * n, "k", &s, &err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "nesting too deep"));
	free(err);
	free(in);
}
END_TEST

/* ---- config.json ---- */

START_TEST(test_config)
{
	static const char in[] =
		"{\"ociVersion\":\"1.0.2\",\"annotations\":{\"tierd.io/class\":\"batch\"},"
		"\"linux\":{\"cgroupsPath\":\"system.slice:crio:x\",\"resources\":{"
		"\"unified\":{\"memory.numa_balancing\":\"off\",\"memory.high\":\"1G\"}}}}";
	struct oci_config c = { 0 };
	char *err = NULL;

	ck_assert_int_eq(oci_config_parse(in, strlen(in), "tierd.io/class", &c, &err), 0);
	ck_assert_str_eq(c.cgroups_path, "system.slice:crio:x");
	ck_assert_str_eq(c.class_value, "batch");
	ck_assert(c.unified_numa_balancing);
	ck_assert(c.unified_high);
	ck_assert(!c.unified_low);
	oci_config_done(&c);
}
END_TEST

START_TEST(test_config_bad)
{
	static const char *const in[] = {
		"{\"linux\":[]}",
		"{\"linux\":{\"cgroupsPath\":7}}",
		"{\"annotations\":\"x\"}",
	};
	struct oci_config c = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		char *err = NULL;

		ck_assert_int_eq(oci_config_parse(in[i], strlen(in[i]), "k", &c, &err), -EBADMSG);
		ck_assert_ptr_nonnull(err);
		free(err);
	}
}
END_TEST

/* The sample files the shell tests use parse as expected. */
START_TEST(test_sample_files)
{
	static const struct {
		const char *dir, *class_name, *cgroup;
	} samples[] = {
		{ "runc", "pinned",
		  "/kubepods/burstable/pod0b5ed2f3-5a51-4d6e-9a32-1f2b4a6c8d10/"
		  "c3a4b2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3" },
		{ "crun", "latency",
		  "/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b"
		  "9a0f1e2d.scope" },
		{ "crio", NULL, /* CRI-O: the pod's annotations are not the container's */
		  "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d1c6b6a_2f4e_"
		  "4b0a_9c3d_7e5f1a2b3c4d.slice/crio-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7"
		  "a6f5e4d3c2b1a0f9e8d.scope" },
		{ "containerd", "latency",
		  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0b5ed2f3_5a51_4d6e_"
		  "9a32_1f2b4a6c8d10.slice/cri-containerd-c3a4b2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4"
		  "f3e2d1c0b9a8f7e6d5c4b3.scope" },
	};
	const char *src = getenv("SRCDIR");

	if (!src)
		src = ".";
	for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
		_cleanup_free_ char *file = NULL, *data = NULL, *err = NULL, *cg = NULL;
		struct oci_config c = { 0 };
		size_t len;

		ck_assert_int_ge(asprintf(&file, "%s/tests/hook/data/%s/config.json", src,
					  samples[i].dir), 0);
		ck_assert_msg(read_all_file(file, CONFIG_MAX, &data, &len) == 0, "read %s", file);
		ck_assert_int_eq(oci_config_parse(data, len, "tierd.io/class", &c, &err), 0);
		if (samples[i].class_name)
			ck_assert_str_eq(c.class_value, samples[i].class_name);
		else
			ck_assert_ptr_null(c.class_value);
		ck_assert_int_eq(cgroups_path_resolve(c.cgroups_path, &cg), 0);
		ck_assert_str_eq(cg, samples[i].cgroup);
		oci_config_done(&c);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tierd-oci-hook parsers");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_cgroups_path, 0, ARRAY_SIZE(cgpath_cases));
	tcase_add_loop_test(tc, test_proc_cgroup, 0, ARRAY_SIZE(proc_cases));
	tcase_add_test(tc, test_proc_cgroup_nul);
	tcase_add_test(tc, test_state_good);
	tcase_add_test(tc, test_state_minimal);
	tcase_add_loop_test(tc, test_state_bad, 0, ARRAY_SIZE(bad_states));
	tcase_add_test(tc, test_state_nul_byte);
	tcase_add_test(tc, test_state_deep);
	tcase_add_test(tc, test_config);
	tcase_add_test(tc, test_config_bad);
	tcase_add_test(tc, test_sample_files);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
