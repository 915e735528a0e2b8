// SPDX-License-Identifier: LGPL-2.1-or-later
/* cgroup I/O, enumeration, effective modes, observe. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <syslog.h>
#include <unistd.h>

#include "fixture.h"

START_TEST(test_enumerate)
{
	struct fx *fx = fx_new();
	char **paths = NULL;
	size_t n = 0;

	fx_cgroup(fx, "/system.slice", "inherit");
	fx_cgroup(fx, "/system.slice/b.service", "inherit");
	fx_cgroup(fx, "/system.slice/a.service", "inherit");
	fx_cgroup(fx, "/system.slice/a.service/sub", "inherit");
	fx_cgroup(fx, "/init.scope", "inherit");
	fx_cgroup(fx, "/user.slice", "inherit");
	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, NULL, &paths, &n), 0);
	ck_assert_uint_eq(n, 7);
	ck_assert_str_eq(paths[0], "/");
	ck_assert_str_eq(paths[1], "/init.scope");
	ck_assert_str_eq(paths[2], "/system.slice");
	ck_assert_str_eq(paths[3], "/system.slice/a.service");
	ck_assert_str_eq(paths[4], "/system.slice/a.service/sub");
	ck_assert_str_eq(paths[5], "/system.slice/b.service");
	ck_assert_str_eq(paths[6], "/user.slice");
	ck_assert_ptr_null(paths[7]);
	tier_strv_free(paths);

	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, "/system.slice/a.service", &paths, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(paths[1], "/system.slice/a.service/sub");
	tier_strv_free(paths);

	paths = NULL;
	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, "/nope", &paths, &n), -ENOENT);
	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, "relative", &paths, &n), -EINVAL);
	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, "/../etc", &paths, &n), -EINVAL);
	ck_assert_ptr_null(paths);
	fx_free(fx);
}
END_TEST

START_TEST(test_read_values)
{
	struct fx *fx = fx_new();
	uint64_t v = 7;
	char *s = NULL;

	fx_cgroup(fx, "/a", "promote");
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.current", &v), 0);
	ck_assert_uint_eq(v, 8388608);
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.high", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.low", &v), 0);
	ck_assert_uint_eq(v, 0);
	v = 7;
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.toptier_high", &v), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/gone", "memory.current", &v), -ENOENT);
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.stat", &v), -EINVAL);
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "../x", &v), -EINVAL);
	ck_assert_uint_eq(v, 7);
	fx_write(fx->cg, "/a/memory.swap.max", "99999999999999999999999\n");
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.swap.max", &v), -ERANGE);

	ck_assert_int_eq(tier_cgroup_read_stat(fx->ctx, "/a", "memory.stat", "pgpromote_success", &v),
			 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(tier_cgroup_read_stat(fx->ctx, "/a", "memory.stat", "numa_hint_faults", &v),
			 0);
	ck_assert_uint_eq(v, 512);
	ck_assert_int_eq(tier_cgroup_read_stat(fx->ctx, "/a", "memory.stat", "anon", &v), 0);
	ck_assert_uint_eq(v, 4194304);
	ck_assert_int_eq(tier_cgroup_read_stat(fx->ctx, "/a", "memory.stat", "pgpromote", &v),
			 -ENODATA);
	ck_assert_int_eq(tier_cgroup_read_stat(fx->ctx, "/a", "memory.stat", "no_such", &v), -ENODATA);

	ck_assert_int_eq(tier_cgroup_read(fx->ctx, "/a", "memory.numa_balancing", &s), 0);
	ck_assert_str_eq(s, "promote");
	free(s);
	/* raw write: no newline added */
	ck_assert_int_eq(tier_cgroup_write(fx->ctx, "/a", "memory.low", "4096"), 0);
	s = fx_read(fx->cg, "/a/memory.low");
	ck_assert_str_eq(s, "4096");
	free(s);
	ck_assert_int_eq(tier_cgroup_write_u64(fx->ctx, "/a", "memory.high", 123456789), 0);
	s = fx_read(fx->cg, "/a/memory.high");
	ck_assert_str_eq(s, "123456789");
	free(s);
	ck_assert_int_eq(tier_cgroup_write_u64(fx->ctx, "/a", "memory.high", UINT64_MAX), 0);
	s = fx_read(fx->cg, "/a/memory.high");
	ck_assert_str_eq(s, "max");
	free(s);
	ck_assert_int_eq(tier_cgroup_write(fx->ctx, "/a", "memory.toptier_low", "1"), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_write(fx->ctx, "/gone", "memory.low", "1"), -ENOENT);
	ck_assert(tier_cgroup_exists(fx->ctx, "/a"));
	ck_assert(!tier_cgroup_exists(fx->ctx, "/gone"));
	fx_free(fx);
}
END_TEST

/* Errors are passed through, not collapsed: EACCES stays EACCES. */
START_TEST(test_errno_passthrough)
{
	struct fx *fx = fx_new();
	uint64_t v;
	char *path;

	if (geteuid() == 0) {
		/* root ignores permissions; use a directory where a file is expected */
		fx_cgroup(fx, "/a", "inherit");
		fx_unlink(fx->cg, "/a/memory.low");
		fx_mkdir(fx->cg, "/a/memory.low");
		ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.low", &v), -EISDIR);
	} else {
		fx_cgroup(fx, "/a", "inherit");
		ck_assert(asprintf(&path, "%s/a/memory.low", fx->cg) >= 0);
		ck_assert_int_eq(chmod(path, 0), 0);
		ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.low", &v), -EACCES);
		ck_assert_int_eq(tier_cgroup_write(fx->ctx, "/a", "memory.low", "1"), -EACCES);
		free(path);
	}
	fx_free(fx);
}
END_TEST

START_TEST(test_numa_stat)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;
	uint64_t fast = 1, slow = 1;
	uint64_t *per = NULL;
	unsigned n = 0;

	fx_node(fx, 0, 1024 * 1024, 1024);
	fx_node(fx, 1, 1024 * 1024, 1024);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 67, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	fx_cgroup(fx, "/db", NULL);
	fx_cgroup_numa(fx, "/db", 1000, 2000, 30000, 40000);
	ck_assert_int_eq(tier_cgroup_read_numa_stat(fx->ctx, "/db", "anon", &per, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(per[0], 1000);
	ck_assert_uint_eq(per[1], 2000);
	free(per);
	ck_assert_int_eq(tier_cgroup_read_numa_stat(fx->ctx, "/db", "kernel_stack", &per, &n), 0);
	ck_assert_uint_eq(per[0], 16384);
	free(per);
	per = NULL;
	ck_assert_int_eq(tier_cgroup_read_numa_stat(fx->ctx, "/db", "nope", &per, &n), -ENODATA);
	ck_assert_int_eq(tier_cgroup_read_numa_stat(fx->ctx, "/db", "file_", &per, &n), -ENODATA);
	ck_assert_ptr_null(per);
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
	ck_assert_uint_eq(fast, 31000);
	ck_assert_uint_eq(slow, 42000);
	/* sparse node ids */
	fx_write(fx->cg, "/db/memory.numa_stat", "anon N0=5 N3=7\nfile N3=1\n");
	ck_assert_int_eq(tier_cgroup_read_numa_stat(fx->ctx, "/db", "anon", &per, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(per[1], 0);
	ck_assert_uint_eq(per[3], 7);
	free(per);
	fx_write(fx->cg, "/db/memory.numa_stat", "anon N0=x\n");
	ck_assert_int_eq(tier_cgroup_read_numa_stat(fx->ctx, "/db", "anon", &per, &n), -EINVAL);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

START_TEST(test_mode_io)
{
	struct fx *fx = fx_new();
	enum tier_mode m = TIER_MODE_INVALID;
	char *s;

	fx_cgroup(fx, "/a", "full");
	fx_cgroup(fx, "/stock", NULL);
	ck_assert_int_eq(tier_cgroup_get_mode(fx->ctx, "/a", &m), 0);
	ck_assert_int_eq(m, TIER_MODE_FULL);
	ck_assert_int_eq(tier_cgroup_set_mode(fx->ctx, "/a", TIER_MODE_OFF), 0);
	s = fx_read(fx->cg, "/a/memory.numa_balancing");
	ck_assert_str_eq(s, "off");
	free(s);
	ck_assert_int_eq(tier_cgroup_get_mode(fx->ctx, "/a", &m), 0);
	ck_assert_int_eq(m, TIER_MODE_OFF);
	/* kernel without the knob, missing cgroup, root, bad value */
	m = TIER_MODE_INVALID;
	ck_assert_int_eq(tier_cgroup_get_mode(fx->ctx, "/stock", &m), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_set_mode(fx->ctx, "/stock", TIER_MODE_OFF), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_get_mode(fx->ctx, "/gone", &m), -ENOENT);
	ck_assert_int_eq(tier_cgroup_set_mode(fx->ctx, "/gone", TIER_MODE_OFF), -ENOENT);
	ck_assert_int_eq(tier_cgroup_get_mode(fx->ctx, "/", &m), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_set_mode(fx->ctx, "/a", TIER_MODE_INVALID), -EINVAL);
	fx_write(fx->cg, "/a/memory.numa_balancing", "sideways\n");
	ck_assert_int_eq(tier_cgroup_get_mode(fx->ctx, "/a", &m), -EINVAL);
	ck_assert_int_eq(m, TIER_MODE_INVALID);
	fx_free(fx);
}
END_TEST

/* Effective mode: the most restrictive of the cgroup and its ancestors. */
static const struct {
	const char *chain[4]; /* values from the top-level cgroup down */
	enum tier_mode effective;
} inheritance[] = {
	{ { "inherit", NULL }, TIER_MODE_FULL },
	{ { "full", NULL }, TIER_MODE_FULL },
	{ { "promote", NULL }, TIER_MODE_PROMOTE },
	{ { "off", NULL }, TIER_MODE_OFF },
	{ { "inherit", "inherit", "inherit", NULL }, TIER_MODE_FULL },
	{ { "off", "full", NULL }, TIER_MODE_OFF },
	{ { "promote", "full", NULL }, TIER_MODE_PROMOTE },
	{ { "full", "promote", NULL }, TIER_MODE_PROMOTE },
	{ { "promote", "off", NULL }, TIER_MODE_OFF },
	{ { "off", "inherit", "inherit", NULL }, TIER_MODE_OFF },
	{ { "inherit", "promote", "inherit", NULL }, TIER_MODE_PROMOTE },
	{ { "full", "inherit", "full", NULL }, TIER_MODE_FULL },
	{ { "inherit", "full", "off", "full" }, TIER_MODE_OFF },
	{ { "promote", "inherit", "full", "inherit" }, TIER_MODE_PROMOTE },
};

START_TEST(test_effective_mode)
{
	struct fx *fx = fx_new();
	char path[256] = "";
	enum tier_mode m = TIER_MODE_INVALID;
	size_t i = (size_t)_i;

	for (int d = 0; d < 4 && inheritance[i].chain[d]; d++) {
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/c%d", d);
		fx_cgroup(fx, path, inheritance[i].chain[d]);
	}
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, path, &m, NULL), 0);
	ck_assert_msg(m == inheritance[i].effective, "case %zu: got %s", i, tier_mode_to_string(m));
	fx_free(fx);
}
END_TEST

START_TEST(test_effective_mode_errors)
{
	struct fx *fx = fx_new();
	enum tier_mode m = TIER_MODE_INVALID;

	fx_cgroup(fx, "/a", "off");
	fx_cgroup(fx, "/a/b", NULL); /* knob missing below a knob: EOPNOTSUPP */
	fx_cgroup(fx, "/s", NULL);
	fx_cgroup(fx, "/s/t", "full");
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, NULL), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/s/t", &m, NULL), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/gone", &m, NULL), -ENOENT);
	ck_assert_int_eq(m, TIER_MODE_INVALID);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/", &m, NULL), 0);
	ck_assert_int_eq(m, TIER_MODE_FULL);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "//a//", &m, NULL), 0);
	ck_assert_int_eq(m, TIER_MODE_OFF);
	fx_free(fx);
}
END_TEST

/* Which cgroup imposes the effective mode: the top-most holding the binding value. */
START_TEST(test_effective_mode_source)
{
	struct fx *fx = fx_new();
	enum tier_mode m = TIER_MODE_INVALID;
	char *src = (char *)"untouched";

	fx_cgroup(fx, "/a", "promote");
	fx_cgroup(fx, "/a/b", "promote");
	fx_cgroup(fx, "/a/b/c", "off");
	fx_cgroup(fx, "/a/b/c/d", "full");
	fx_cgroup(fx, "/f", "full");
	fx_cgroup(fx, "/f/g", "inherit");
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, &src), 0);
	ck_assert_int_eq(m, TIER_MODE_PROMOTE);
	ck_assert_str_eq(src, "/a");
	free(src);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "//a/b/c/d", &m, &src), 0);
	ck_assert_int_eq(m, TIER_MODE_OFF);
	ck_assert_str_eq(src, "//a/b/c");
	free(src);
	/* nothing restricts: FULL, no source */
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/f/g", &m, &src), 0);
	ck_assert_int_eq(m, TIER_MODE_FULL);
	ck_assert_ptr_null(src);
	/* errors leave both alone */
	src = (char *)"untouched";
	m = TIER_MODE_INVALID;
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/gone", &m, &src), -ENOENT);
	ck_assert_int_eq(m, TIER_MODE_INVALID);
	ck_assert_str_eq(src, "untouched");
	fx_free(fx);
}
END_TEST

static uint64_t info_get(const struct tier_cgroup_info *info, unsigned what)
{
	uint64_t v = 0xdeadbeef;

	ck_assert_int_eq(tier_cgroup_info_get(info, what, &v), 0);
	return v;
}

static bool info_has(const struct tier_cgroup_info *info, unsigned what)
{
	uint64_t v = 0xdeadbeef;
	int r = tier_cgroup_info_get(info, what, &v);

	ck_assert(r == 0 || (r == -ENODATA && v == 0xdeadbeef));
	return r == 0;
}

/* The effective mode as tier_cgroup_info_read() gives it, or -errno. */
static int64_t info_effective(struct fx *fx, const char *cgroup)
{
	struct tier_cgroup_info *info = NULL;
	uint64_t v = 0;
	int r;

	r = tier_cgroup_info_read(fx->ctx, NULL, cgroup, TIER_INFO_EFFECTIVE_MODE, &info);
	if (r < 0) {
		ck_assert_ptr_null(info);
		return r;
	}
	ck_assert_int_eq(tier_cgroup_info_get(info, TIER_INFO_EFFECTIVE_MODE, &v), 0);
	tier_cgroup_info_free(info);
	return (int64_t)v;
}

/* The effective mode and its source as tier_cgroup_get_effective_mode() gives
 * them; asserts success and the same mode without a source. */
static enum tier_mode get_effective(struct fx *fx, const char *cgroup, char **ret_source)
{
	enum tier_mode m = TIER_MODE_INVALID, m2 = TIER_MODE_INVALID;
	char *src = (char *)"untouched";

	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, cgroup, &m2, NULL), 0);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, cgroup, &m, &src), 0);
	ck_assert_int_eq(m, m2);
	*ret_source = src;
	return m;
}

static unsigned eff_warnings;

/* Counts warnings about memory.numa_balancing.effective; any other warning fails. */
static void eff_log(void *data, int priority, const char *file, int line, const char *fn,
		    const char *format, va_list args)
{
	char msg[512];

	if (priority > LOG_WARNING)
		return;
	vsnprintf(msg, sizeof(msg), format, args);
	ck_assert_msg(strstr(msg, "/memory.numa_balancing.effective: unknown value"),
		      "unexpected warning '%s'", msg);
	eff_warnings++;
}

/* (a) The kernel's memory.numa_balancing.effective agrees with the walk. */
START_TEST(test_effective_kernel_agrees)
{
	struct fx *fx = fx_new();
	char *src;

	fx_cgroup(fx, "/a", "promote");
	fx_cgroup(fx, "/a/b", "inherit");
	fx_cgroup(fx, "/a/b/c", "off");
	fx_cgroup(fx, "/f", "full");
	fx_write(fx->cg, "/a/memory.numa_balancing.effective", "promote\n");
	fx_write(fx->cg, "/a/b/memory.numa_balancing.effective", "promote\n");
	fx_write(fx->cg, "/a/b/c/memory.numa_balancing.effective", "off\n");
	fx_write(fx->cg, "/f/memory.numa_balancing.effective", "full\n");
	ck_assert_int_eq(get_effective(fx, "/a/b", &src), TIER_MODE_PROMOTE);
	ck_assert_str_eq(src, "/a");
	free(src);
	ck_assert_int_eq(get_effective(fx, "//a/b/c", &src), TIER_MODE_OFF);
	ck_assert_str_eq(src, "//a/b/c");
	free(src);
	ck_assert_int_eq(get_effective(fx, "/f", &src), TIER_MODE_FULL);
	ck_assert_ptr_null(src);
	ck_assert_int_eq(info_effective(fx, "/a/b"), TIER_MODE_PROMOTE);
	ck_assert_int_eq(info_effective(fx, "/a/b/c"), TIER_MODE_OFF);
	ck_assert_int_eq(info_effective(fx, "/f"), TIER_MODE_FULL);
	/* the root has neither file: FULL */
	ck_assert_int_eq(get_effective(fx, "/", &src), TIER_MODE_FULL);
	ck_assert_ptr_null(src);
	fx_free(fx);
}
END_TEST

/* (b) The kernel's file contradicts the walk: the file wins, no source. */
START_TEST(test_effective_kernel_wins)
{
	struct fx *fx = fx_new();
	struct tier_cgroup_info *info = NULL;
	char *src;

	fx_cgroup(fx, "/a", "promote");
	fx_cgroup(fx, "/a/b", "inherit");
	fx_cgroup(fx, "/f", "full");
	fx_cgroup(fx, "/f/g", "inherit");
	/* the walk says promote (set by /a), the kernel off */
	fx_write(fx->cg, "/a/b/memory.numa_balancing.effective", "off\n");
	ck_assert_int_eq(get_effective(fx, "/a/b", &src), TIER_MODE_OFF);
	ck_assert_ptr_null(src);
	ck_assert_int_eq(info_effective(fx, "/a/b"), TIER_MODE_OFF);
	/* the walk says promote, the kernel full: less restrictive wins too */
	fx_write(fx->cg, "/a/b/memory.numa_balancing.effective", "full\n");
	ck_assert_int_eq(get_effective(fx, "/a/b", &src), TIER_MODE_FULL);
	ck_assert_ptr_null(src);
	ck_assert_int_eq(info_effective(fx, "/a/b"), TIER_MODE_FULL);
	/* the walk says full (no source), the kernel promote */
	fx_write(fx->cg, "/f/g/memory.numa_balancing.effective", "promote\n");
	ck_assert_int_eq(get_effective(fx, "/f/g", &src), TIER_MODE_PROMOTE);
	ck_assert_ptr_null(src);
	ck_assert_int_eq(info_effective(fx, "/f/g"), TIER_MODE_PROMOTE);
	/* the configured mode is still the cgroup's own file */
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/f/g",
					       TIER_INFO_MODE | TIER_INFO_EFFECTIVE_MODE, &info), 0);
	ck_assert_int_eq(info_get(info, TIER_INFO_MODE), TIER_MODE_INHERIT);
	ck_assert_int_eq(info_get(info, TIER_INFO_EFFECTIVE_MODE), TIER_MODE_PROMOTE);
	tier_cgroup_info_free(info);
	/* With the kernel's value nothing walks the ancestors, unless a
	 * source is asked for: an ancestor's unknown value does not matter. */
	fx_write(fx->cg, "/f/memory.numa_balancing", "sideways\n");
	ck_assert_int_eq(info_effective(fx, "/f/g"), TIER_MODE_PROMOTE);
	{
		enum tier_mode m = TIER_MODE_INVALID;

		ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/f/g", &m, NULL), 0);
		ck_assert_int_eq(m, TIER_MODE_PROMOTE);
		src = (char *)"untouched";
		m = TIER_MODE_INVALID;
		ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/f/g", &m, &src),
				 -EINVAL);
		ck_assert_int_eq(m, TIER_MODE_INVALID);
		ck_assert_str_eq(src, "untouched");
	}
	fx_free(fx);
}
END_TEST

/* (c) No memory.numa_balancing.effective in the cgroup: the walk, as
 * before; an ancestor's file is not the cgroup's effective value. */
START_TEST(test_effective_kernel_absent)
{
	struct fx *fx = fx_new();
	char *src;

	fx_cgroup(fx, "/a", "promote");
	fx_cgroup(fx, "/a/b", "inherit");
	fx_cgroup(fx, "/a/b/c", "off");
	ck_assert_int_eq(get_effective(fx, "/a/b", &src), TIER_MODE_PROMOTE);
	ck_assert_str_eq(src, "/a");
	free(src);
	ck_assert_int_eq(info_effective(fx, "/a/b/c"), TIER_MODE_OFF);
	fx_write(fx->cg, "/a/memory.numa_balancing.effective", "off\n");
	ck_assert_int_eq(get_effective(fx, "/a/b", &src), TIER_MODE_PROMOTE);
	ck_assert_str_eq(src, "/a");
	free(src);
	ck_assert_int_eq(info_effective(fx, "/a/b"), TIER_MODE_PROMOTE);
	ck_assert_int_eq(get_effective(fx, "/a/b/c", &src), TIER_MODE_OFF);
	ck_assert_str_eq(src, "/a/b/c");
	free(src);
	fx_free(fx);
}
END_TEST

/* (d) An unknown value in the kernel's file: a warning, then the walk. */
START_TEST(test_effective_kernel_garbage)
{
	static const char *const bad[] = {
		"sideways\n", "inherit\n", "\n", "", "Off\n", "off promote\n", "full\nfull\n",
	};
	struct fx *fx = fx_new();
	enum tier_mode m;
	char *src;

	fx_cgroup(fx, "/a", "promote");
	fx_cgroup(fx, "/a/b", "inherit");
	tier_ctx_set_log_fn(fx->ctx, eff_log, NULL);
	tier_ctx_set_log_priority(fx->ctx, LOG_WARNING);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fx_write(fx->cg, "/a/b/memory.numa_balancing.effective", bad[i]);
		eff_warnings = 0;
		ck_assert_int_eq(get_effective(fx, "/a/b", &src), TIER_MODE_PROMOTE);
		ck_assert_str_eq(src, "/a");
		free(src);
		ck_assert_uint_eq(eff_warnings, 2); /* one per call of get_effective() */
		eff_warnings = 0;
		ck_assert_int_eq(info_effective(fx, "/a/b"), TIER_MODE_PROMOTE);
		ck_assert_uint_eq(eff_warnings, 1);
	}
	/* the kernel's newline and blanks around a value are fine */
	fx_write(fx->cg, "/a/b/memory.numa_balancing.effective", " off \n");
	eff_warnings = 0;
	m = TIER_MODE_INVALID;
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, NULL), 0);
	ck_assert_int_eq(m, TIER_MODE_OFF);
	ck_assert_uint_eq(eff_warnings, 0);
	fx_free(fx);
}
END_TEST

START_TEST(test_info)
{
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;
	struct tier_cgroup_info *info = NULL, *keep;
	uint64_t v;

	fx_node(fx, 0, 1024, 512);
	fx_node(fx, 1, 1024, 512);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 67, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	fx_cgroup(fx, "/p", "promote");
	fx_cgroup(fx, "/p/c", "full");
	fx_write(fx->cg, "/p/c/memory.toptier_high", "1048576\n");
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/p/c", TIER_INFO_ALL, &info), 0);
	ck_assert_int_eq(info_get(info, TIER_INFO_MODE), TIER_MODE_FULL);
	ck_assert_int_eq(info_get(info, TIER_INFO_EFFECTIVE_MODE), TIER_MODE_PROMOTE);
	ck_assert_uint_eq(info_get(info, TIER_INFO_FAST_BYTES), 3145728 + 4194304);
	ck_assert_uint_eq(info_get(info, TIER_INFO_SLOW_BYTES), 1048576);
	ck_assert(!info_has(info, TIER_INFO_TOPTIER_LOW));
	ck_assert_uint_eq(info_get(info, TIER_INFO_TOPTIER_HIGH), 1048576);
	ck_assert_uint_eq(info_get(info, TIER_INFO_MAX), UINT64_MAX);
	ck_assert_uint_eq(info_get(info, TIER_INFO_CURRENT), 8388608);
	/* exactly one known bit */
	ck_assert_int_eq(tier_cgroup_info_get(info, TIER_INFO_RESIDENCY, &v), -EINVAL);
	ck_assert_int_eq(tier_cgroup_info_get(info, 0, &v), -EINVAL);
	ck_assert_int_eq(tier_cgroup_info_get(info, 1u << 20, &v), -EINVAL);
	ck_assert_int_eq(tier_cgroup_info_get(info, TIER_INFO_MODE, NULL), -EINVAL);
	ck_assert_int_eq(tier_cgroup_info_get(NULL, TIER_INFO_MODE, &v), -EINVAL);

	/* Only what is asked for: the mode without walking up, no limits. */
	fx_write(fx->cg, "/p/memory.numa_balancing", "garbage\n");
	keep = info;
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/p/c", TIER_INFO_ALL, &info), -EINVAL);
	ck_assert_ptr_eq(info, keep);
	tier_cgroup_info_free(info);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/p/c",
					       TIER_INFO_MODE | TIER_INFO_TOPTIER_HIGH, &info), 0);
	ck_assert_int_eq(info_get(info, TIER_INFO_MODE), TIER_MODE_FULL);
	ck_assert(!info_has(info, TIER_INFO_EFFECTIVE_MODE));
	ck_assert_uint_eq(info_get(info, TIER_INFO_TOPTIER_HIGH), 1048576);
	ck_assert(!info_has(info, TIER_INFO_CURRENT));
	tier_cgroup_info_free(info);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/p/c", TIER_INFO_SLOW_BYTES, &info), 0);
	ck_assert_uint_eq(info_get(info, TIER_INFO_SLOW_BYTES), 1048576);
	ck_assert(!info_has(info, TIER_INFO_FAST_BYTES));
	ck_assert(!info_has(info, TIER_INFO_MODE));
	tier_cgroup_info_free(info);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/p/c", TIER_INFO_RESIDENCY, &info), 0);
	ck_assert(!info_has(info, TIER_INFO_FAST_BYTES));
	tier_cgroup_info_free(info);
	info = NULL;
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/gone", TIER_INFO_ALL, &info), -ENOENT);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "p/c", TIER_INFO_ALL, &info), -EINVAL);
	ck_assert_ptr_null(info);

	fx_cgroup(fx, "/stock", NULL);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/stock", TIER_INFO_ALL, &info), 0);
	ck_assert(!info_has(info, TIER_INFO_MODE));
	ck_assert(!info_has(info, TIER_INFO_EFFECTIVE_MODE));
	ck_assert(!info_has(info, TIER_INFO_FAST_BYTES));
	ck_assert(info_has(info, TIER_INFO_CURRENT));
	tier_cgroup_info_free(info);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

/*
 * The kernel's exact top-tier counter (memory.stat "toptier") is the fast
 * bytes of tier_cgroup_read_residency() and TIER_INFO_FAST_BYTES where it is
 * there; without it, or with a value that is not a number, memory.numa_stat
 * gives them.  The slow bytes are always memory.numa_stat's.
 */
START_TEST(test_toptier_residency)
{
	static const char *const bad[] = { "abc", "-1", "", "12 34", "0x10", "1.5",
					   "18446744073709551616" };
	struct fx *fx = fx_new();
	struct tier_topology *t = NULL;
	struct tier_cgroup_info *info = NULL;
	uint64_t fast = 1, slow = 1;

	fx_node(fx, 0, 1024 * 1024, 1024);
	fx_node(fx, 1, 1024 * 1024, 1024);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 67, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &t), 0);
	fx_cgroup(fx, "/db", "promote");
	fx_cgroup_numa(fx, "/db", 1000, 2000, 30000, 40000);

	/* absent (an older kernel): numa_stat */
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
	ck_assert_uint_eq(fast, 31000);
	ck_assert_uint_eq(slow, 42000);

	/* present: the counter, not the (lagging) per-node statistics */
	fx_cgroup_stat(fx, "/db", 3000, 70000, "24576");
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
	ck_assert_uint_eq(fast, 24576);
	ck_assert_uint_eq(slow, 42000);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/db", TIER_INFO_RESIDENCY, &info), 0);
	ck_assert_uint_eq(info_get(info, TIER_INFO_FAST_BYTES), 24576);
	ck_assert_uint_eq(info_get(info, TIER_INFO_SLOW_BYTES), 42000);
	tier_cgroup_info_free(info);
	/* the kernel's newline and 0 are fine */
	fx_cgroup_stat(fx, "/db", 3000, 70000, "0");
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
	ck_assert_uint_eq(fast, 0);
	/* the largest value */
	fx_cgroup_stat(fx, "/db", 3000, 70000, "18446744073709551615");
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
	ck_assert_uint_eq(fast, UINT64_MAX);

	/* malformed: as if absent */
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fx_cgroup_stat(fx, "/db", 3000, 70000, bad[i]);
		fast = slow = 1;
		ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
		ck_assert_msg(fast == 31000, "toptier '%s': fast %llu", bad[i],
			      (unsigned long long)fast);
		ck_assert_uint_eq(slow, 42000);
		ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/db", TIER_INFO_FAST_BYTES,
						       &info), 0);
		ck_assert_uint_eq(info_get(info, TIER_INFO_FAST_BYTES), 31000);
		tier_cgroup_info_free(info);
	}

	/*
	 * The series counts top-tier pages only while cgroup2 is mounted with
	 * memory_tiered_limits: mounted without it the key is there and reads
	 * 0, so numa_stat gives the fast bytes; the option (seen after
	 * tier_ctx_mounts_changed()) brings the counter back.  The mount
	 * point in mountinfo is escaped ("\040" for a space) as the kernel
	 * writes it.
	 */
	fx_cgroup_stat(fx, "/db", 3000, 70000, "0");
	{
		_cleanup_free_ char *mi = NULL;
		const char *root = tier_ctx_get_cgroup_root(fx->ctx);

		ck_assert_int_ge(asprintf(&mi, "25 1 0:22 / %s rw,nosuid - cgroup2 cgroup2 "
					  "rw,nsdelegate\n", root), 0);
		fx_write(fx->proc, "self/mountinfo", mi);
		tier_ctx_mounts_changed(fx->ctx);
		ck_assert(!tier_ctx_toptier_counted(fx->ctx));
		ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
		ck_assert_uint_eq(fast, 31000);
		free(mi);
		ck_assert_int_ge(asprintf(&mi, "25 1 0:22 / %s rw,nosuid - cgroup2 cgroup2 "
					  "rw,nsdelegate,memory_tiered_limits\n", root), 0);
		fx_write(fx->proc, "self/mountinfo", mi);
		/* cached until told */
		ck_assert(!tier_ctx_toptier_counted(fx->ctx));
		tier_ctx_mounts_changed(fx->ctx);
		ck_assert(tier_ctx_toptier_counted(fx->ctx));
		ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
		ck_assert_uint_eq(fast, 0);
		ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, root, "memory_tiered"), 0);
		ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/elsewhere",
							      "memory_tiered_limits"), -ENOENT);
		/* an escaped mount point */
		fx_write(fx->proc, "self/mountinfo",
			 "25 1 0:22 / /sys/fs/cgroup\\040x rw - cgroup2 cgroup2 rw,memory_tiered_limits\n"
			 "26 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
		ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/sys/fs/cgroup x",
							      "memory_tiered_limits"), 1);
		ck_assert_int_eq(tier_cgroup_mount_has_option(fx->proc, "/sys/fs/cgroup",
							      "memory_tiered_limits"), 0);
		fx_unlink(fx->proc, "self/mountinfo");
		tier_ctx_mounts_changed(fx->ctx);
		ck_assert(tier_ctx_toptier_counted(fx->ctx));
	}

	/* no memory.stat at all: numa_stat */
	fx_unlink(fx->cg, "db/memory.stat");
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), 0);
	ck_assert_uint_eq(fast, 31000);
	/* the counter alone is not residency: numa_stat is needed for the slow bytes */
	fx_cgroup_stat(fx, "/db", 3000, 70000, "24576");
	fx_unlink(fx->cg, "db/memory.numa_stat");
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/db", &fast, &slow), -EOPNOTSUPP);
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, t, "/gone", &fast, &slow), -ENOENT);
	ck_assert_int_eq(tier_cgroup_read_residency(NULL, t, "/db", &fast, &slow), -EINVAL);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, t, "/db", TIER_INFO_RESIDENCY, &info), 0);
	ck_assert(!info_has(info, TIER_INFO_FAST_BYTES));
	tier_cgroup_info_free(info);
	tier_topology_free(t);
	fx_free(fx);
}
END_TEST

START_TEST(test_pids_exe)
{
	struct fx *fx = fx_new();
	int *pids = NULL;
	size_t n = 0;
	char *exe = NULL, *target;

	fx_cgroup(fx, "/a", "inherit");
	fx_write(fx->cg, "/a/cgroup.procs", "100\n200\n");
	ck_assert_int_eq(tier_cgroup_read_pids(fx->ctx, "/a", &pids, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(pids[0], 100);
	ck_assert_int_eq(pids[1], 200);
	free(pids);
	fx_mkdir(fx->proc, "100");
	ck_assert(asprintf(&target, "%s/100/exe", fx->proc) >= 0);
	ck_assert_int_eq(symlink("/usr/sbin/mysqld", target), 0);
	free(target);
	ck_assert_int_eq(tier_pid_exe(fx->ctx, 100, &exe), 0);
	ck_assert_str_eq(exe, "/usr/sbin/mysqld");
	free(exe);
	exe = NULL;
	ck_assert_int_eq(tier_pid_exe(fx->ctx, 200, &exe), -ENOENT);
	ck_assert_int_eq(tier_pid_exe(fx->ctx, 0, &exe), -EINVAL);
	ck_assert_ptr_null(exe);
	fx_write(fx->cg, "/a/cgroup.procs", "abc\n");
	ck_assert_int_eq(tier_cgroup_read_pids(fx->ctx, "/a", &pids, &n), -EINVAL);
	fx_free(fx);
}
END_TEST

/*
 * /proc/PID/cgroup through the one parser tierd's exec events and the OCI
 * hook share (tierd had a second one that took "/../x" and "//a" as they
 * came, and read a FIFO in a fake procfs with blocking stdio).
 */
START_TEST(test_pid_cgroup)
{
	struct fx *fx = fx_new();
	char *cg = NULL, *fifo;

	fx_write(fx->proc, "100/cgroup", "0::/system.slice/db.service\n");
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 100, &cg), 0);
	ck_assert_str_eq(cg, "/system.slice/db.service");
	free(cg);
	cg = NULL;
	/* a hybrid host's v1 lines first, and a path as written, normalised */
	fx_write(fx->proc, "101/cgroup", "12:memory:/x\n1:name=systemd:/x\n0:://a//b/\n");
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 101, &cg), 0);
	ck_assert_str_eq(cg, "/a/b");
	free(cg);
	cg = NULL;
	/* outside the reader's cgroup namespace: no path tierd can name */
	fx_write(fx->proc, "102/cgroup", "0::/../../kubepods/pod1\n");
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 102, &cg), -EINVAL);
	/* cgroup v1 only */
	fx_write(fx->proc, "103/cgroup", "4:memory:/x\n");
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 103, &cg), -ENODATA);
	/* gone, a FIFO (not waited on), a bad pid */
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 104, &cg), -ENOENT);
	fx_mkdir(fx->proc, "105");
	ck_assert(asprintf(&fifo, "%s/105/cgroup", fx->proc) >= 0);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	free(fifo);
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 105, &cg), -EBADFD);
	ck_assert_int_eq(tier_pid_cgroup(fx->ctx, 0, &cg), -EINVAL);
	ck_assert_ptr_null(cg);
	/* a NUL in the path */
	ck_assert_int_eq(tier_proc_cgroup_parse("0::/a\0b\n", 8, &cg), -EINVAL);
	ck_assert_ptr_null(cg);
	fx_free(fx);
}
END_TEST

START_TEST(test_observe)
{
	struct fx *fx = fx_new();
	struct tier_observed *o = NULL;
	const struct tier_observed_cgroup *c;
	char *target, *dir;
	bool have_xattr, have_user_xattr;
	uint64_t v;

	fx_cgroup(fx, "/system.slice", "inherit");
	fx_cgroup(fx, "/system.slice/mysql.service", "off");
	fx_cgroup(fx, "/stock", NULL);
	fx_write(fx->cg, "/system.slice/mysql.service/cgroup.procs", "100\n101\n102\n");
	fx_write(fx->cg, "/system.slice/mysql.service/memory.low", "1024\n");
	fx_mkdir(fx->proc, "100");
	fx_mkdir(fx->proc, "101");
	ck_assert(asprintf(&target, "%s/100/exe", fx->proc) >= 0);
	ck_assert_int_eq(symlink("/usr/sbin/mysqld", target), 0);
	free(target);
	ck_assert(asprintf(&target, "%s/101/exe", fx->proc) >= 0);
	ck_assert_int_eq(symlink("/usr/sbin/mysqld", target), 0);
	free(target);
	ck_assert(asprintf(&dir, "%s/system.slice/mysql.service", fx->cg) >= 0);
	have_xattr = setxattr(dir, "trusted.tierd.io/class", "latency", 7, 0) == 0;
	/* user.* is writable by a delegated cgroup's owner: never an annotation
	 * (issue 12, item 4) */
	have_user_xattr = setxattr(dir, "user.tierd.io/tier", "gold", 4, 0) == 0;
	free(dir);

	ck_assert_int_eq(tier_observe(fx->ctx, NULL, NULL,
				      TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS, &o), 0);
	ck_assert_uint_eq(tier_observed_count(o), 4);
	c = tier_observed_get(o, 0);
	ck_assert_str_eq(fx_observed_path(c), "/");
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_NUMA_BALANCING, &v),
			 -EOPNOTSUPP);
	c = tier_observed_get(o, 2);
	ck_assert_str_eq(fx_observed_path(c), "/system.slice");
	ck_assert_str_eq(tier_observed_cgroup_unit(c), "system.slice");
	c = tier_observed_get(o, 3);
	ck_assert_str_eq(fx_observed_path(c), "/system.slice/mysql.service");
	ck_assert_str_eq(tier_observed_cgroup_unit(c), "mysql.service");
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_NUMA_BALANCING, &v), 0);
	ck_assert_int_eq(v, TIER_MODE_OFF);
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_MEMORY_LOW, &v), 0);
	ck_assert_uint_eq(v, 1024);
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_MEMORY_HIGH, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, _TIER_ATTR_MAX, &v), -EINVAL);
	ck_assert_str_eq(tier_observed_cgroup_exes(c)[0], "/usr/sbin/mysqld"); /* deduplicated */
	ck_assert_ptr_null(tier_observed_cgroup_exes(c)[1]);
	if (have_xattr) {
		ck_assert_str_eq(tier_observed_cgroup_annotations(c)[0], "tierd.io/class=latency");
		ck_assert_ptr_null(tier_observed_cgroup_annotations(c)[1]);
	} else if (have_user_xattr) {
		ck_assert_ptr_null(tier_observed_cgroup_annotations(c)[0]);
	}
	c = tier_observed_get(o, 1);
	ck_assert_str_eq(fx_observed_path(c), "/stock");
	ck_assert_int_eq(tier_observed_cgroup_get_current(c, TIER_ATTR_NUMA_BALANCING, &v),
			 -EOPNOTSUPP);
	ck_assert_ptr_null(tier_observed_cgroup_unit(c));
	ck_assert_ptr_null(tier_observed_cgroup_exes(c)[0]);
	ck_assert_ptr_null(tier_observed_get(o, 4));
	tier_observed_free(o);
	fx_free(fx);
}
END_TEST

Suite *suite_cgroup(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("io");
	TCase *te = tcase_create("inheritance");

	tcase_add_test(tc, test_enumerate);
	tcase_add_test(tc, test_read_values);
	tcase_add_test(tc, test_errno_passthrough);
	tcase_add_test(tc, test_numa_stat);
	tcase_add_test(tc, test_toptier_residency);
	tcase_add_test(tc, test_mode_io);
	tcase_add_test(tc, test_info);
	tcase_add_test(tc, test_pids_exe);
	tcase_add_test(tc, test_pid_cgroup);
	tcase_add_test(tc, test_observe);
	suite_add_tcase(s, tc);
	tcase_add_loop_test(te, test_effective_mode, 0,
			    (int)(sizeof(inheritance) / sizeof(inheritance[0])));
	tcase_add_test(te, test_effective_mode_errors);
	tcase_add_test(te, test_effective_mode_source);
	tcase_add_test(te, test_effective_kernel_agrees);
	tcase_add_test(te, test_effective_kernel_wins);
	tcase_add_test(te, test_effective_kernel_absent);
	tcase_add_test(te, test_effective_kernel_garbage);
	suite_add_tcase(s, te);
	return s;
}
