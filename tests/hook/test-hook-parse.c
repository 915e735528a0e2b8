// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests (Check) of tierd-oci-hook's parsers (controller/oci-hook/oci-parse.c,
 * linked): the OCI state, the bundle's config.json, linux.cgroupsPath in
 * all its forms, /proc/PID/cgroup, their matching, and the bounded readers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "macro.h"
#include "oci-parse.h"
#include "tier-internal.h"

/* ---- linux.cgroupsPath ---- */

static const struct {
	const char *in;
	int r;
	const char *out;
	bool relative;
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
	{ "system.slice:crio:a\nb", -EINVAL, NULL },
	{ "system.slice:crio:a\x1b[2Jb", -EINVAL, NULL },
	{ "system.slice:cr+io:x", -EINVAL, NULL },
	{ "m\xc3\xa9.slice:crio:x", -EINVAL, NULL },
	{ "system.slice:crio:..", -EINVAL, NULL },
	{ "system.slice:crio:.", -EINVAL, NULL },
	{ "system.slice:getty:tty@1", 0, "/system.slice/getty-tty@1.scope" },
	{ "a:b", -EINVAL, NULL },
	{ "a:b:c:d", -EINVAL, NULL },
	{ "::", -EINVAL, NULL },
	/* cgroupfs driver: a path below the cgroup2 root */
	{ "/kubepods/burstable/pod1/abc", 0, "/kubepods/burstable/pod1/abc" },
	{ "//a//b/", 0, "/a/b" },
	{ "/a/", 0, "/a" },
	{ "//a", 0, "/a" },
	{ "/a", 0, "/a" },
	{ "/", 0, "/" },
	{ "//", 0, "/" },
	{ "/a/./b", -EINVAL, NULL },
	{ "/a/../../etc", -EINVAL, NULL },
	{ "/a/..", -EINVAL, NULL },
	/* cgroup names may hold anything but '/': the hook escapes them */
	{ "/a/\nb", 0, "/a/\nb" },
	/* relative: below a cgroup of the runtime's choosing */
	{ "relative/path", 0, "/relative/path", true },
	{ "libpod//abc/", 0, "/libpod/abc", true },
	{ "a/../b", -EINVAL, NULL },
	{ "./a", -EINVAL, NULL },
	{ "", -EINVAL, NULL },
};

START_TEST(test_cgroups_path)
{
	char *out = NULL;
	bool relative = false;
	int r = cgroups_path_resolve(cgpath_cases[_i].in, &out, &relative);

	ck_assert_msg(r == cgpath_cases[_i].r, "'%s': r=%d, expected %d", cgpath_cases[_i].in, r,
		      cgpath_cases[_i].r);
	if (r == 0) {
		ck_assert_str_eq(out, cgpath_cases[_i].out);
		ck_assert_int_eq(relative, cgpath_cases[_i].relative);
	} else {
		ck_assert_ptr_null(out);
	}
	free(out);
}
END_TEST

/* A string of n copies of the pattern, then the tail. */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * n + tl + 1), *w = s;

	ck_assert_ptr_nonnull(s);
	memcpy(w, head, hl);
	w += hl;
	for (size_t i = 0; i < n; i++, w += ul)
		memcpy(w, unit, ul);
	memcpy(w, tail, tl + 1);
	return s;
}

/* Unit names are at most 255 bytes, as systemd's: the slice, and the scope
 * PREFIX-NAME.scope; 40,000 dashes are refused at once (issue item 7). */
START_TEST(test_cgroups_path_unit_max)
{
	_cleanup_free_ char *ok = NULL, *slice_long = NULL, *scope_long = NULL, *huge = NULL;
	_cleanup_free_ char *huge_plain = NULL, *dashes = NULL, *out = NULL;
	bool rel;
	struct timespec t0, t1;

	/* "a-a-...-a.slice" of 255 bytes: 124 "a-", "a", ".slice" */
	ok = repeat("", "a-", 124, "a.slice:p:n");
	ck_assert_int_eq(strchr(ok, ':') - ok, 255);
	ck_assert_int_eq(cgroups_path_resolve(ok, &out, &rel), 0);
	ck_assert_ptr_nonnull(strstr(out, "/a-a.slice/a-a-a.slice/"));
	free(TAKE_PTR(out));
	slice_long = repeat("", "a-", 124, "ab.slice:p:n");
	ck_assert_int_eq(cgroups_path_resolve(slice_long, &out, &rel), -ENAMETOOLONG);
	/* p-<name>.scope: 2 + 247 + 6 = 255 ok, 256 not */
	scope_long = repeat("machine.slice:p:", "x", 247, "");
	ck_assert_int_eq(cgroups_path_resolve(scope_long, &out, &rel), 0);
	free(TAKE_PTR(out));
	free(scope_long);
	scope_long = repeat("machine.slice:p:", "x", 248, "");
	ck_assert_int_eq(cgroups_path_resolve(scope_long, &out, &rel), -ENAMETOOLONG);
	ck_assert_ptr_null(out);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	huge = repeat("", "a-", 40000, "a.slice:p:n");
	ck_assert_int_eq(cgroups_path_resolve(huge, &out, &rel), -ENAMETOOLONG);
	dashes = repeat("", "a-", 1000, "a.slice");
	ck_assert_int_eq(slice_expand(dashes, strlen(dashes), &out), -ENAMETOOLONG);
	huge_plain = repeat("", "/a", 40000, "");
	ck_assert_int_eq(cgroups_path_resolve(huge_plain, &out, &rel), -ENAMETOOLONG);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_ptr_null(out);
	ck_assert_int_lt((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000,
			 1000);
}
END_TEST

/* ---- where the init is vs what config.json says ---- */

static const struct {
	const char *config;
	bool relative;
	const char *proc;
	int r;
	const char *out;
} match_cases[] = {
	{ "/machine.slice/libpod-x.scope", false, "/machine.slice/libpod-x.scope", 0,
	  "/machine.slice/libpod-x.scope" },
	/* crun: the init in a child of the scope */
	{ "/machine.slice/libpod-x.scope", false, "/machine.slice/libpod-x.scope/container", 0,
	  "/machine.slice/libpod-x.scope" },
	/* not two levels, not the parent, not a sibling, not a prefix of a name */
	{ "/a", false, "/a/b/c", -ESRCH, NULL },
	{ "/a/b", false, "/a", -ESRCH, NULL },
	{ "/a/b", false, "/a/c", -ESRCH, NULL },
	{ "/a/b", false, "/a/bc", -ESRCH, NULL },
	{ "/kubepods/x", false, "/system.slice/sshd.service", -ESRCH, NULL },
	{ "/a", false, "/", -ESRCH, NULL },
	{ "/", false, "/", 0, "/" },	/* the caller refuses the root */
	/* a slice is no container's: the init in a child of it is not in it */
	{ "/machine.slice", false, "/machine.slice/libpod-x.scope", -ESRCH, NULL },
	{ "/machine.slice", false, "/machine.slice", 0, "/machine.slice" },
	{ "/machine.slice", true, "/machine.slice/libpod-x.scope", -ESRCH, NULL },
	/* relative */
	{ "/libpod/abc", true, "/user.slice/u.service/libpod/abc", 0,
	  "/user.slice/u.service/libpod/abc" },
	{ "/libpod/abc", true, "/user.slice/u.service/libpod/abc/container", 0,
	  "/user.slice/u.service/libpod/abc" },
	{ "/libpod/abc", true, "/libpod/abc", 0, "/libpod/abc" },
	{ "/libpod/abc", true, "/x/libpod/abcd", -ESRCH, NULL },
	{ "/libpod/abc", true, "/x/mylibpod/abc", -ESRCH, NULL },
	{ "/libpod/abc", true, "/machine.slice/libpod-3f.scope", -ESRCH, NULL },
	{ "/abc", true, "/", -ESRCH, NULL },
};

START_TEST(test_match)
{
	char *out = NULL;
	int r = cgroup_config_match(match_cases[_i].config, match_cases[_i].relative,
				    match_cases[_i].proc, &out);

	ck_assert_msg(r == match_cases[_i].r, "case %d: r=%d, expected %d", _i, r,
		      match_cases[_i].r);
	if (r == 0)
		ck_assert_str_eq(out, match_cases[_i].out);
	else
		ck_assert_ptr_null(out);
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
	{ "0:://a//b/\n", 0, "/a/b" },
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
	int r = tier_proc_cgroup_parse(proc_cases[_i].in, strlen(proc_cases[_i].in), &out);

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

	ck_assert_int_eq(tier_proc_cgroup_parse(in, sizeof(in) - 1, &out), -EINVAL);
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
	/* json-c cuts keys at \u0000: "k\u0000x" would be read as "k" */
	{ "{\"annotations\":{\"k\\u0000x\":\"latency\"}}",
	  "an object key contains a NUL character (\\u0000) at offset 16" },
	{ "{\"annotations\":{\"k\\u0000\" : \"latency\"}}", "an object key contains a NUL" },
	{ "{\"annotations\":{\"k\":\"batch\",\"k\\u0000\":\"latency\"}}",
	  "an object key contains a NUL" },
	{ "{\"id\":\"a\",\"x\":{\"y\\u0000\":1}}", "an object key contains a NUL" },
	{ "{\"bundle\\u0000\":\"/x\"}", "an object key contains a NUL" },
	/* a NUL in another annotation's value: refused too */
	{ "{\"annotations\":{\"other\":\"a\\u0000b\",\"k\":\"v\"}}",
	  "\"annotations.other\" contains a NUL" },
	{ "{\"id\":\"a\\u0000b\"}", "\"id\" contains a NUL" },
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

/* What only looks like an escaped NUL in a key is none: an escaped
 * backslash before "u0000", or \u0000 in a value that is not read. */
START_TEST(test_state_nul_lookalike)
{
	static const char *const in[] = {
		"{\"annotations\":{\"k\\\\u0000\":\"batch\",\"k\":\"latency\"}}",
		"{\"annotations\":{\"k\":\"latency\"},\"x\":[\"a\\u0000\",\"b\"]}",
		"{\"annotations\":{\"k\":\"latency\"},\"x\":{\"y\":\"\\\"\\u0000\"}}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct oci_state s = { 0 };
		char *err = NULL;

		ck_assert_msg(oci_state_parse(in[i], strlen(in[i]), "k", &s, &err) == 0, "'%s': %s",
			      in[i], err ? err : "?");
		ck_assert_str_eq(s.class_value, "latency");
		oci_state_done(&s);
	}
}
END_TEST

/* config.json: a key with \u0000 anywhere is refused, not cut into
 * another key (cgroupsPath, or the class annotation). */
START_TEST(test_config_nul_key)
{
	static const char *const in[] = {
		"{\"annotations\":{\"tierd.io/class\\u0000\":\"latency\"}}",
		"{\"linux\":{\"cgroupsPath\":\"/a\",\"cgroupsPath\\u0000\":\"/b\"}}",
		"{\"linux\":{\"resources\":{\"unified\":{\"memory.high\\u0000\":\"1\"}}}}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct oci_config c = { 0 };
		char *err = NULL;

		ck_assert_msg(oci_config_parse(in[i], strlen(in[i]), "tierd.io/class", &c, &err) ==
				      -EBADMSG, "'%s' accepted", in[i]);
		ck_assert_ptr_nonnull(strstr(err, "an object key contains a NUL"));
		free(err);
	}
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
		bool rel;

		ck_assert_int_ge(asprintf(&file, "%s/tests/hook/data/%s/config.json", src,
					  samples[i].dir), 0);
		ck_assert_msg(read_regular_file(file, CONFIG_MAX, &data, &len) == 0, "read %s", file);
		ck_assert_int_eq(oci_config_parse(data, len, "tierd.io/class", &c, &err), 0);
		if (samples[i].class_name)
			ck_assert_str_eq(c.class_value, samples[i].class_name);
		else
			ck_assert_ptr_null(c.class_value);
		ck_assert_int_eq(cgroups_path_resolve(c.cgroups_path, &cg, &rel), 0);
		ck_assert(!rel);
		ck_assert_str_eq(cg, samples[i].cgroup);
		oci_config_done(&c);
	}
}
END_TEST

/* "cgroupsPath": "" is the runtime's default, as if absent. */
START_TEST(test_config_empty_cgroups_path)
{
	static const char in[] = "{\"linux\":{\"cgroupsPath\":\"\"}}";
	struct oci_config c = { 0 };
	char *err = NULL;

	ck_assert_int_eq(oci_config_parse(in, strlen(in), "k", &c, &err), 0);
	ck_assert_ptr_null(c.cgroups_path);
	oci_config_done(&c);
}
END_TEST

/* ---- bounded reading ---- */

/* Write n bytes into a pipe from a child and read them with a cap of max. */
static int read_pipe(size_t n, size_t max, size_t *ret_len)
{
	_cleanup_free_ char *data = NULL;
	int fds[2], r;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char buf[4096];

		close(fds[0]);
		memset(buf, ' ', sizeof(buf));
		for (size_t left = n; left;) {
			size_t k = left < sizeof(buf) ? left : sizeof(buf);
			ssize_t w = write(fds[1], buf, k);

			if (w <= 0)
				_exit(0);
			left -= (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	r = read_all_fd(fds[0], max, &data, ret_len);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return r;
}

/* The limit is inclusive: exactly max bytes is fine (issue item 18). */
START_TEST(test_read_limit)
{
	size_t len = 0;

	ck_assert_int_eq(read_pipe(STATE_MAX, STATE_MAX, &len), 0);
	ck_assert_uint_eq(len, STATE_MAX);
	ck_assert_int_eq(read_pipe(STATE_MAX + 1, STATE_MAX, &len), -EFBIG);
	ck_assert_int_eq(read_pipe(0, STATE_MAX, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(read_pipe(10, 10, &len), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_int_eq(read_pipe(11, 10, &len), -EFBIG);
	ck_assert_int_eq(read_pipe(8192, 8192, &len), 0);
	ck_assert_int_eq(read_pipe(8193, 8192, &len), -EFBIG);
}
END_TEST

/* A FIFO, a directory, a device: refused at once, not read (item 9). */
START_TEST(test_read_regular_only)
{
	char dir[] = "/tmp/test-hook-parse.XXXXXX", fifo[64], file[64];
	_cleanup_free_ char *data = NULL;
	size_t len;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(read_regular_file(fifo, CONFIG_MAX, &data, &len), -EBADFD);
	ck_assert_int_eq(read_regular_file(dir, CONFIG_MAX, &data, &len), -EISDIR);
	ck_assert_int_eq(read_regular_file("/dev/zero", CONFIG_MAX, &data, &len), -EBADFD);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0123456789", f);
	fclose(f);
	ck_assert_int_eq(read_regular_file(file, 9, &data, &len), -EFBIG);
	ck_assert_int_eq(read_regular_file(file, 10, &data, &len), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_str_eq(data, "0123456789");
	unlink(fifo);
	unlink(file);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tierd-oci-hook parsers");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_cgroups_path, 0, ARRAY_SIZE(cgpath_cases));
	tcase_add_test(tc, test_cgroups_path_unit_max);
	tcase_add_loop_test(tc, test_match, 0, ARRAY_SIZE(match_cases));
	tcase_add_loop_test(tc, test_proc_cgroup, 0, ARRAY_SIZE(proc_cases));
	tcase_add_test(tc, test_proc_cgroup_nul);
	tcase_add_test(tc, test_state_good);
	tcase_add_test(tc, test_state_minimal);
	tcase_add_loop_test(tc, test_state_bad, 0, ARRAY_SIZE(bad_states));
	tcase_add_test(tc, test_state_nul_byte);
	tcase_add_test(tc, test_state_nul_lookalike);
	tcase_add_test(tc, test_config_nul_key);
	tcase_add_test(tc, test_state_deep);
	tcase_add_test(tc, test_config);
	tcase_add_test(tc, test_config_bad);
	tcase_add_test(tc, test_sample_files);
	tcase_add_test(tc, test_config_empty_cgroups_path);
	tcase_add_test(tc, test_read_limit);
	tcase_add_test(tc, test_read_regular_only);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
