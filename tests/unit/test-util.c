// SPDX-License-Identifier: LGPL-2.1-or-later
/* Value parsers, globs, modes, unit names, mount discovery. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "glob.h"
#include "libtier-private.h"

START_TEST(test_parse_size)
{
	static const struct {
		const char *s;
		int r;
		uint64_t v;
	} t[] = {
		{ "4096", 0, 4096 },
		{ "0", 0, 0 },
		{ "1K", 0, 1024 },
		{ "1k", 0, 1024 },
		{ "512M", 0, 512ull << 20 },
		{ "16G", 0, 16ull << 30 },
		{ "16GiB", 0, 16ull << 30 },
		{ "16GB", 0, 16ull << 30 },
		{ "16gb", 0, 16ull << 30 },
		{ "1.5G", 0, 3ull << 29 },
		{ "0.5K", 0, 512 },
		{ "2T", 0, 2ull << 40 },
		{ "1P", 0, 1ull << 50 },
		{ "100B", 0, 100 },
		{ "15E", 0, 15ull << 60 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "16E", -ERANGE, 0 },
		{ "12Q", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "G", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ " 1G", -EINVAL, 0 },
		{ "1G ", -EINVAL, 0 },
		{ "1.G", -EINVAL, 0 },
		{ "1GiBx", -EINVAL, 0 },
		{ "1iB", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 0xdead;
		int r = tier_parse_size(t[i].s, &v);

		ck_assert_msg(r == t[i].r, "'%s': r=%d want %d", t[i].s, r, t[i].r);
		if (r == 0)
			ck_assert_msg(v == t[i].v, "'%s': %llu want %llu", t[i].s,
				      (unsigned long long)v, (unsigned long long)t[i].v);
		else
			ck_assert_msg(v == 0xdead, "'%s': ret touched on failure", t[i].s);
	}
}
END_TEST

START_TEST(test_parse_percent_duration_bool)
{
	unsigned bp = 7;
	uint64_t us = 7;
	bool b = false;

	ck_assert_int_eq(tier_parse_percent("5%", &bp), 0);
	ck_assert_uint_eq(bp, 500);
	ck_assert_int_eq(tier_parse_percent("12.5%", &bp), 0);
	ck_assert_uint_eq(bp, 1250);
	ck_assert_int_eq(tier_parse_percent("100%", &bp), 0);
	ck_assert_uint_eq(bp, 10000);
	ck_assert_int_eq(tier_parse_percent("0%", &bp), 0);
	ck_assert_uint_eq(bp, 0);
	bp = 7;
	ck_assert_int_eq(tier_parse_percent("100.01%", &bp), -ERANGE);
	ck_assert_int_eq(tier_parse_percent("150%", &bp), -ERANGE);
	ck_assert_int_eq(tier_parse_percent("5", &bp), -EINVAL);
	ck_assert_int_eq(tier_parse_percent("5.123%", &bp), -EINVAL);
	ck_assert_int_eq(tier_parse_percent("%", &bp), -EINVAL);
	ck_assert_int_eq(tier_parse_percent("5%%", &bp), -EINVAL);
	ck_assert_uint_eq(bp, 7);

	ck_assert_int_eq(tier_parse_duration("30", &us), 0);
	ck_assert_uint_eq(us, 30000000);
	ck_assert_int_eq(tier_parse_duration("30s", &us), 0);
	ck_assert_uint_eq(us, 30000000);
	ck_assert_int_eq(tier_parse_duration("500ms", &us), 0);
	ck_assert_uint_eq(us, 500000);
	ck_assert_int_eq(tier_parse_duration("5m", &us), 0);
	ck_assert_uint_eq(us, 300000000);
	ck_assert_int_eq(tier_parse_duration("1h", &us), 0);
	ck_assert_uint_eq(us, 3600000000ull);
	us = 7;
	ck_assert_int_eq(tier_parse_duration("5x", &us), -EINVAL);
	ck_assert_int_eq(tier_parse_duration("1.5s", &us), -EINVAL);
	ck_assert_int_eq(tier_parse_duration("", &us), -EINVAL);
	ck_assert_int_eq(tier_parse_duration("99999999999999999999", &us), -ERANGE);
	ck_assert_uint_eq(us, 7);

	for (const char *const *s = (const char *const[]){ "yes", "true", "on", "1", "YES", NULL }; *s;
	     s++) {
		b = false;
		ck_assert_int_eq(tier_parse_bool(*s, &b), 0);
		ck_assert(b);
	}
	for (const char *const *s = (const char *const[]){ "no", "false", "off", "0", NULL }; *s;
	     s++) {
		b = true;
		ck_assert_int_eq(tier_parse_bool(*s, &b), 0);
		ck_assert(!b);
	}
	ck_assert_int_eq(tier_parse_bool("maybe", &b), -EINVAL);
}
END_TEST

static const struct {
	const char *pattern;
	const char *string;
	unsigned flags;
	bool match;
} globs[] = {
	{ "/system.slice/postgresql*.service", "/system.slice/postgresql@15.service", 1, true },
	{ "/system.slice/postgresql*.service", "/system.slice/mariadb.service", 1, false },
	{ "/system.slice/*", "/system.slice/a.service", 1, true },
	{ "/system.slice/*", "/system.slice/a.service/sub", 1, false },
	{ "/system.slice/**", "/system.slice/a.service/sub", 1, true },
	{ "/system.slice/**", "/system.slice/", 1, true },
	{ "/system.slice/**", "/system.slice", 1, false },
	{ "/**/x.scope", "/x.scope", 1, true },
	{ "/**/x.scope", "/a/b/c/x.scope", 1, true },
	{ "/**/x.scope", "/a/b/c/y.scope", 1, false },
	{ "/a/**/x", "/a/x", 1, true },
	{ "/a/**/x", "/a/b/x", 1, true },
	{ "/a/**/x", "/a/b/c/x", 1, true },
	{ "/a/**/x", "/ax", 1, false },
	{ "/a/**/x", "/a/bx", 1, false },
	{ "/a/**x", "/a/b/cx", 1, true },
	{ "**", "/anything/at/all", 1, true },
	{ "/**", "/", 1, true },
	{ "/a?c", "/abc", 1, true },
	{ "/a?c", "/a/c", 1, false },
	{ "/a[bc]d", "/acd", 1, true },
	{ "/a[!bc]d", "/acd", 1, false },
	{ "/a[^bc]d", "/aed", 1, true },
	{ "/a[a-z]d", "/aqd", 1, true },
	{ "/a[a-z]d", "/aQd", 1, false },
	{ "/a[]]d", "/a]d", 1, true },
	{ "/a[!x]d", "/a/d", 1, false },
	{ "/a\\*", "/a*", 1, true },
	{ "/a\\*", "/ab", 1, false },
	{ "*.service", "foo.service", 0, true },
	{ "*.service", "foo.scope", 0, false },
	{ "user@*.service", "user@1000.service", 0, true },
	{ "a*b*c*d", "a/b/c/d", 0, true },
	{ "a*b*c*d", "a/b/c/d", 1, false },
	{ "", "", 0, true },
	{ "", "x", 0, false },
	{ "/usr/sbin/mysqld", "/usr/sbin/mysqld", 1, true },
	{ "/usr/*/mysqld", "/usr/local/sbin/mysqld", 1, false },
	{ "/usr/**/mysqld", "/usr/local/sbin/mysqld", 1, true },
	{ "*a*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0, false },
	{ "**a**a**a**a**a**a**a**a**b", "/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a", 1, false },
	{ "**a**a**a**a**a**a**a**a**a", "/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a", 1, true },
};

START_TEST(test_glob)
{
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		struct glob g;
		bool m = tier_glob_match(globs[i].pattern, globs[i].string, globs[i].flags);

		ck_assert_msg(m == globs[i].match, "'%s' vs '%s' (flags %u): got %d", globs[i].pattern,
			      globs[i].string, globs[i].flags, m);
		/* the NFA fallback agrees with the backtracking matcher */
		ck_assert_int_eq(glob_compile(globs[i].pattern, globs[i].flags, &g), 0);
		ck_assert_msg(glob_match_nfa(&g, globs[i].string) == globs[i].match,
			      "nfa: '%s' vs '%s'", globs[i].pattern, globs[i].string);
		glob_free(&g);
	}
	ck_assert_int_eq(tier_glob_validate("/a[bc"), -EINVAL);
	ck_assert_int_eq(tier_glob_validate("/a\\"), -EINVAL);
	ck_assert_int_eq(tier_glob_validate("/a[z-a]"), -EINVAL);
	ck_assert_int_eq(tier_glob_validate("/a/**/[xy]*"), 0);
	ck_assert(!tier_glob_match("/a[bc", "/ab", 1));
}
END_TEST

/* Differential: the backtracking matcher (with its prefix/suffix shortcuts)
 * and the NFA agree on random patterns and strings. */
START_TEST(test_glob_differential)
{
	static const char *const pat_atoms[] = { "a", "b", "/", "*", "?", "[ab]", "**", "**/", "[!a]",
						 "\\*" };
	static const char *const str_atoms[] = { "a", "b", "/", "*", "ab" };
	unsigned seed = 1;

	for (int iter = 0; iter < 30000; iter++) {
		char pat[128] = "", str[128] = "";
		int np, ns;
		struct glob g;

		seed = seed * 1103515245u + 12345u;
		np = (int)((seed >> 16) % 7);
		for (int i = 0; i < np; i++) {
			seed = seed * 1103515245u + 12345u;
			strcat(pat, pat_atoms[(seed >> 16) % (sizeof(pat_atoms) / sizeof(*pat_atoms))]);
		}
		seed = seed * 1103515245u + 12345u;
		ns = (int)((seed >> 16) % 8);
		for (int i = 0; i < ns; i++) {
			seed = seed * 1103515245u + 12345u;
			strcat(str, str_atoms[(seed >> 16) % (sizeof(str_atoms) / sizeof(*str_atoms))]);
		}
		for (unsigned flags = 0; flags <= TIER_GLOB_PATHNAME; flags++) {
			ck_assert_int_eq(glob_compile(pat, flags, &g), 0);
			ck_assert_msg(glob_match_compiled(&g, str) == glob_match_nfa(&g, str),
				      "'%s' vs '%s' flags %u: bt %d nfa %d", pat, str, flags,
				      glob_match_compiled(&g, str), glob_match_nfa(&g, str));
			glob_free(&g);
		}
	}
}
END_TEST

START_TEST(test_mode)
{
	enum tier_mode m = TIER_MODE_OFF;
	const enum tier_mode I = TIER_MODE_INHERIT, F = TIER_MODE_FULL, P = TIER_MODE_PROMOTE,
			     O = TIER_MODE_OFF;

	ck_assert_int_eq(tier_mode_from_string("promote", &m), 0);
	ck_assert_int_eq(m, P);
	ck_assert_int_eq(tier_mode_from_string("Promote", &m), -EINVAL);
	ck_assert_int_eq(tier_mode_from_string("", &m), -EINVAL);
	ck_assert_int_eq(m, P);
	ck_assert_str_eq(tier_mode_to_string(I), "inherit");
	ck_assert_str_eq(tier_mode_to_string(O), "off");
	ck_assert_ptr_null(tier_mode_to_string(TIER_MODE_INVALID));
	ck_assert_ptr_null(tier_mode_to_string(_TIER_MODE_MAX));
	/* the restrict table: off < promote < full; inherit constrains nothing */
	ck_assert_int_eq(tier_mode_restrict(I, I), I);
	ck_assert_int_eq(tier_mode_restrict(I, F), F);
	ck_assert_int_eq(tier_mode_restrict(F, I), F);
	ck_assert_int_eq(tier_mode_restrict(F, P), P);
	ck_assert_int_eq(tier_mode_restrict(P, F), P);
	ck_assert_int_eq(tier_mode_restrict(P, O), O);
	ck_assert_int_eq(tier_mode_restrict(O, F), O);
	ck_assert_int_eq(tier_mode_restrict(O, I), O);
	ck_assert_int_eq(tier_mode_restrict(I, P), P);
}
END_TEST

START_TEST(test_path_unit)
{
	static const struct {
		const char *path;
		const char *unit;
	} t[] = {
		{ "/system.slice/foo.service", "foo.service" },
		{ "/system.slice/foo.service/sub", "foo.service" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope",
		  "user@1000.service" },
		{ "/system.slice", "system.slice" },
		{ "/machine.slice/libpod-abc.scope/container", "libpod-abc.scope" },
		{ "/kubepods/burstable/pod1", NULL },
		{ "/", NULL },
		{ "/.service", NULL },
		/* systemd's cg_path_get_unit(): only below its own slices from the
		 * root (issue 24, item 9): containers' trees are no unit's */
		{ "/system.slice/mariadb.service", "mariadb.service" },
		{ "/lxc.payload.c1/system.slice/mariadb.service", NULL },
		{ "/docker/0123456789ab/mariadb.service", NULL },
		{ "/kubepods/burstable/pod1/mariadb.service", NULL },
		{ "/kubepods/besteffort/pod1/0123abcd/system.slice/mariadb.service", NULL },
		{ "/machine/qemu-1-vm.libvirt-qemu/mariadb.service", NULL },
		/* the systemd cgroup driver's pods are systemd's own */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
		  "cri-containerd-0123.scope",
		  "cri-containerd-0123.scope" },
		/* a container with systemd inside, in the host's scope: the host's unit */
		{ "/system.slice/docker-0123.scope/system.slice/mariadb.service", "docker-0123.scope" },
		{ "/machine.slice/machine-c1.scope/payload/system.slice/x.service",
		  "machine-c1.scope" },
		/* a user's manager's units are not derived: user@UID.service is the
		 * system manager's unit of the whole subtree */
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service",
		  "user@1000.service" },
		{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope" },
		{ "/user.slice/user-1000.slice", "user-1000.slice" },
		{ "/init.scope", "init.scope" },
		{ "/-.slice/x.service", "x.service" },
		{ "/system.slice/getty@tty1.service", "getty@tty1.service" },
		{ "/system.slice/getty@.service", NULL },		/* a template */
		{ "/system.slice/@x.service", NULL },
		{ "/system.slice/my app.service", NULL },		/* not a unit's character */
		{ "/system.slice/x.frobnicate", NULL },		/* not a unit type */
		{ "/system.slice/a@b.slice/x.service", NULL },	/* a slice is never an instance */
		{ "/system.slice/__x.service", "_x.service" },	/* cg_escape()d */
		{ "/system.slice/_x.service", "x.service" },
		{ "/system.slice/x.service.d/y.service", NULL },	/* type "d" */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *u = NULL;
		int r = tier_cgroup_path_unit(t[i].path, &u);

		if (t[i].unit) {
			ck_assert_msg(r == 0, "%s: %d", t[i].path, r);
			ck_assert_str_eq(u, t[i].unit);
		} else {
			ck_assert_int_eq(r, -ENXIO);
			ck_assert_ptr_null(u);
		}
		free(u);
	}
}
END_TEST

/* A unit= rule through observe and evaluate on a fake tree: a container's
 * own "mariadb.service" below a path that is not systemd's is not the
 * host's mariadb.service (issue 24, item 9). */
START_TEST(test_unit_rule_containers)
{
	static const char text[] = "[class:db]\nmode = promote\n"
				   "[rule:db]\nclass = db\nunit = mariadb.service\n";
	static const struct {
		const char *path;
		bool managed;
	} t[] = {
		{ "/system.slice/mariadb.service", true },
		{ "/lxc.payload.c1/system.slice/mariadb.service", false },
		{ "/docker/0123456789ab/mariadb.service", false },
		{ "/kubepods/burstable/pod1/mariadb.service", false },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/mariadb.service", false },
	};
	struct fx *fx = fx_new();
	struct tier_policy *p = NULL;
	struct tier_observed *o = NULL;
	struct tier_plan *plan = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		fx_cgroup(fx, t[i].path, "inherit");
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	ck_assert_int_eq(tier_observe(fx->ctx, NULL, NULL, 0, &o), 0);
	ck_assert_int_eq(tier_evaluate(p, o, &plan), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct tier_plan_entry *e = tier_plan_find(plan, t[i].path);

		ck_assert_ptr_nonnull(e);
		ck_assert_msg(!!tier_plan_entry_rule(e) == t[i].managed, "%s", t[i].path);
	}
	tier_plan_free(plan);
	tier_observed_free(o);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

START_TEST(test_nodelist)
{
	int *n = NULL;
	unsigned c = 0;

	ck_assert_int_eq(parse_nodelist("0-1,3\n", &n, &c), 0);
	ck_assert_uint_eq(c, 3);
	ck_assert_int_eq(n[0], 0);
	ck_assert_int_eq(n[1], 1);
	ck_assert_int_eq(n[2], 3);
	free(n);
	ck_assert_int_eq(parse_nodelist("", &n, &c), 0);
	ck_assert_uint_eq(c, 0);
	free(n);
	ck_assert_int_eq(parse_nodelist("5,2-3,2", &n, &c), 0);
	ck_assert_uint_eq(c, 3);
	ck_assert_int_eq(n[0], 2);
	ck_assert_int_eq(n[2], 5);
	free(n);
	n = NULL;
	ck_assert_int_eq(parse_nodelist("1-", &n, &c), -EINVAL);
	ck_assert_int_eq(parse_nodelist("3-1", &n, &c), -ERANGE);
	ck_assert_int_eq(parse_nodelist("a", &n, &c), -EINVAL);
	ck_assert_int_eq(parse_nodelist("1;2", &n, &c), -EINVAL);
	ck_assert_ptr_null(n);
}
END_TEST

START_TEST(test_mountinfo)
{
	struct fx *fx = fx_new();
	char *mnt = NULL;

	ck_assert_int_eq(discover_cgroup_mountinfo(fx->proc, &mnt), -ENOENT);
	fx_write(fx->proc, "self/mountinfo",
		 "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
		 "25 22 0:23 / /sys rw - sysfs sysfs rw\n"
		 "30 25 0:26 / /sys/fs/cgroup\\040x rw,nosuid,nodev,noexec shared:4 - cgroup2 "
		 "cgroup2 rw,nsdelegate,memory_recursiveprot\n");
	ck_assert_int_eq(discover_cgroup_mountinfo(fx->proc, &mnt), 0);
	ck_assert_str_eq(mnt, "/sys/fs/cgroup x");
	free(mnt);
	fx_free(fx);
}
END_TEST

static int log_calls;

static void test_log(void *data, int prio, const char *file, int line, const char *fn,
		     const char *fmt, va_list ap)
{
	ck_assert_ptr_eq(data, &log_calls);
	ck_assert(file && fn && line > 0);
	log_calls++;
}

START_TEST(test_ctx)
{
	struct tier_ctx *ctx = NULL, *ref;
	char *v;

	ck_assert_int_eq(tier_ctx_new("/nonexistent/cg", "/nonexistent/sys", "/nonexistent/proc", &ctx),
			 0);
	ck_assert_str_eq(tier_ctx_get_cgroup_root(ctx), "/nonexistent/cg");
	ck_assert_str_eq(tier_ctx_get_sysfs_root(ctx), "/nonexistent/sys");
	ck_assert_str_eq(tier_ctx_get_procfs_root(ctx), "/nonexistent/proc");
	ref = tier_ctx_ref(ctx);
	ck_assert_ptr_eq(ref, ctx);
	ck_assert_ptr_null(tier_ctx_unref(ref));
	tier_ctx_set_userdata(ctx, &v);
	ck_assert_ptr_eq(tier_ctx_get_userdata(ctx), &v);
	tier_ctx_set_log_fn(ctx, test_log, &log_calls);
	tier_ctx_set_log_priority(ctx, LOG_DEBUG);
	ck_assert_int_eq(tier_ctx_get_log_priority(ctx), LOG_DEBUG);
	log_calls = 0;
	ck_assert_int_eq(tier_cgroup_read(ctx, "/x", "memory.current", &v), -ENOENT);
	ck_assert_int_gt(log_calls, 0);
	tier_ctx_set_log_priority(ctx, LOG_ERR);
	log_calls = 0;
	ck_assert_int_eq(tier_cgroup_read(ctx, "/x", "memory.current", &v), -ENOENT);
	ck_assert_int_eq(log_calls, 0);
	ck_assert_int_eq(tier_ctx_new(NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(tier_ctx_unref(ctx));
}
END_TEST

Suite *suite_util(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, test_parse_size);
	tcase_add_test(tc, test_parse_percent_duration_bool);
	tcase_add_test(tc, test_glob);
	tcase_add_test(tc, test_glob_differential);
	tcase_add_test(tc, test_mode);
	tcase_add_test(tc, test_path_unit);
	tcase_add_test(tc, test_unit_rule_containers);
	tcase_add_test(tc, test_nodelist);
	tcase_add_test(tc, test_mountinfo);
	tcase_add_test(tc, test_ctx);
	suite_add_tcase(s, tc);
	return s;
}
