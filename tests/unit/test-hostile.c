// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hostile trees (issue 12): symlinks inside the cgroup root, FIFOs and
 * devices where attribute files are expected, subtrees deeper than the walk
 * allows or longer than PATH_MAX, wrapped counters, non-canonical paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "fixture.h"

static char *join2(const char *a, const char *b)
{
	char *s;

	ck_assert(asprintf(&s, "%s/%s", a, b) >= 0);
	return s;
}

/* A directory outside the cgroup root that must never be written. */
static char *outside_dir(struct fx *fx)
{
	char *out = join2(fx->root, "outside");

	ck_assert_int_eq(mkdir(out, 0755), 0);
	fx_write(out, "memory.high", "max\n");
	fx_write(out, "memory.numa_balancing", "inherit\n");
	return out;
}

START_TEST(test_symlinked_dir)
{
	struct fx *fx = fx_new();
	char *out = outside_dir(fx), *link = join2(fx->cg, "evil"), *v = NULL;
	int fd = -1;

	fx_cgroup(fx, "/a", "inherit");
	ck_assert_int_eq(symlink(out, link), 0);
	ck_assert_int_eq(tier_cgroup_write(fx->ctx, "/evil", "memory.high", "1"), -ELOOP);
	ck_assert_int_eq(tier_cgroup_set_mode(fx->ctx, "/evil", TIER_MODE_OFF), -ELOOP);
	ck_assert_int_eq(tier_cgroup_read(fx->ctx, "/evil", "memory.high", &v), -ELOOP);
	ck_assert_int_eq(tier_cgroup_open(fx->ctx, "/evil", &fd), -ELOOP);
	ck_assert_int_eq(fd, -1);
	ck_assert(!tier_cgroup_exists(fx->ctx, "/evil"));
	/* a symlink in the middle of the path */
	free(link);
	link = join2(fx->cg, "a/mid");
	ck_assert_int_eq(symlink(fx->root, link), 0);
	ck_assert_int_eq(tier_cgroup_write(fx->ctx, "/a/mid/outside", "memory.high", "1"),
			 -ELOOP);
	v = fx_read(out, "memory.high");
	ck_assert_str_eq(v, "max\n");
	free(v);
	v = fx_read(out, "memory.numa_balancing");
	ck_assert_str_eq(v, "inherit\n");
	free(v);
	free(link);
	free(out);
	fx_free(fx);
}
END_TEST

START_TEST(test_symlinked_file)
{
	struct fx *fx = fx_new();
	char *out = outside_dir(fx), *target = join2(out, "memory.high"), *file, *v = NULL;

	fx_cgroup(fx, "/a", "inherit");
	file = join2(fx->cg, "a/memory.high");
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(symlink(target, file), 0);
	ck_assert_int_eq(tier_cgroup_write_u64(fx->ctx, "/a", "memory.high", 4096), -ELOOP);
	ck_assert_int_eq(tier_cgroup_read(fx->ctx, "/a", "memory.high", &v), -ELOOP);
	v = fx_read(out, "memory.high");
	ck_assert_str_eq(v, "max\n");
	free(v);
	free(file);
	free(target);
	free(out);
	fx_free(fx);
}
END_TEST

/* A FIFO must not block a read or a write; a directory is not a file. */
START_TEST(test_not_regular)
{
	struct fx *fx = fx_new();
	char *file, *v = NULL;
	uint64_t u;

	fx_cgroup(fx, "/a", "inherit");
	file = join2(fx->cg, "a/memory.high");
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(mkfifo(file, 0600), 0);
	ck_assert_int_eq(tier_cgroup_read_u64(fx->ctx, "/a", "memory.high", &u), -EBADFD);
	/* O_NONBLOCK | O_WRONLY on a FIFO without reader is ENXIO */
	ck_assert_int_lt(tier_cgroup_write(fx->ctx, "/a", "memory.high", "1"), 0);
	free(file);
	file = join2(fx->cg, "a/memory.low");
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(mkdir(file, 0755), 0);
	ck_assert_int_eq(tier_cgroup_read(fx->ctx, "/a", "memory.low", &v), -EISDIR);
	free(file);
	fx_free(fx);
}
END_TEST

/* memory.numa_balancing.effective as a symlink, a FIFO or a directory: not
 * followed, not blocked on, an error like any other cgroup file (the walk
 * is no fallback for a file that is there but hostile). */
START_TEST(test_effective_file_hostile)
{
	struct fx *fx = fx_new();
	char *out = outside_dir(fx), *target = join2(out, "memory.numa_balancing.effective");
	char *file, *src = (char *)"untouched", *v;
	struct tier_cgroup_info *info = NULL;
	enum tier_mode m = TIER_MODE_INVALID;

	fx_cgroup(fx, "/a", "promote");
	fx_cgroup(fx, "/a/b", "inherit");
	fx_write(out, "memory.numa_balancing.effective", "off\n");
	file = join2(fx->cg, "a/b/memory.numa_balancing.effective");
	ck_assert_int_eq(symlink(target, file), 0);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, NULL), -ELOOP);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, &src), -ELOOP);
	ck_assert_int_eq(m, TIER_MODE_INVALID);
	ck_assert_str_eq(src, "untouched");
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/a/b", TIER_INFO_EFFECTIVE_MODE,
					       &info), -ELOOP);
	ck_assert_ptr_null(info);
	/* the configured mode alone does not read it */
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/a/b", TIER_INFO_MODE, &info), 0);
	tier_cgroup_info_free(info);
	info = NULL;
	ck_assert_int_eq(unlink(file), 0);
	/* a FIFO without a writer: opened O_NONBLOCK, refused, never read */
	ck_assert_int_eq(mkfifo(file, 0600), 0);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, NULL), -EBADFD);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, &src), -EBADFD);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/a/b", TIER_INFO_EFFECTIVE_MODE,
					       &info), -EBADFD);
	ck_assert_int_eq(m, TIER_MODE_INVALID);
	ck_assert_ptr_null(info);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(mkdir(file, 0755), 0);
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, NULL), -EISDIR);
	ck_assert_int_eq(tier_cgroup_info_read(fx->ctx, NULL, "/a/b", TIER_INFO_EFFECTIVE_MODE,
					       &info), -EISDIR);
	ck_assert_int_eq(rmdir(file), 0);
	/* gone again: the walk */
	ck_assert_int_eq(tier_cgroup_get_effective_mode(fx->ctx, "/a/b", &m, &src), 0);
	ck_assert_int_eq(m, TIER_MODE_PROMOTE);
	ck_assert_str_eq(src, "/a");
	free(src);
	v = fx_read(out, "memory.numa_balancing.effective");
	ck_assert_str_eq(v, "off\n");
	free(v);
	free(file);
	free(target);
	free(out);
	fx_free(fx);
}
END_TEST

static unsigned warnings;

static void count_warnings(void *data, int priority, const char *file, int line, const char *fn,
			   const char *format, va_list args)
{
	if (priority <= LOG_WARNING)
		warnings++;
}

/* mkdirat() one level at a time (no PATH_MAX limit), each with a
 * memory.high file. */
static void mk_chain(const char *top, const char *name, unsigned levels)
{
	int fd = open(top, O_RDONLY | O_DIRECTORY);

	ck_assert_int_ge(fd, 0);
	for (unsigned i = 0; i < levels; i++) {
		int nfd;

		ck_assert_int_eq(mkdirat(fd, name, 0755), 0);
		nfd = openat(fd, name, O_RDONLY | O_DIRECTORY);
		ck_assert_int_ge(nfd, 0);
		close(fd);
		fd = nfd;
		nfd = openat(fd, "memory.high", O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_int_ge(nfd, 0);
		close(nfd);
	}
	close(fd);
}

START_TEST(test_deep_subtree)
{
	struct fx *fx = fx_new();
	char **paths = NULL;
	size_t n = 0, deepest = 0;
	bool saw_b = false;

	fx_cgroup(fx, "/a", "inherit");
	fx_cgroup(fx, "/b", "inherit");
	mk_chain(fx->cg, "d", 300); /* /d/d/d/... 300 levels */
	tier_ctx_set_log_fn(fx->ctx, count_warnings, NULL);
	tier_ctx_set_log_priority(fx->ctx, LOG_WARNING);
	warnings = 0;
	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, NULL, &paths, &n), 0);
	for (size_t i = 0; i < n; i++) {
		size_t depth = strlen(paths[i]) / 2;

		if (strcmp(paths[i], "/b") == 0)
			saw_b = true;
		if (depth > deepest)
			deepest = depth;
	}
	ck_assert(saw_b);
	ck_assert_uint_eq(deepest, 256);
	ck_assert_uint_eq(warnings, 1);
	tier_strv_free(paths);
	fx_free(fx);
}
END_TEST

START_TEST(test_long_path)
{
	struct fx *fx = fx_new();
	char name[251], **paths = NULL, *deep = NULL, *v = NULL;
	size_t n = 0;

	memset(name, 'x', 250);
	name[250] = '\0';
	fx_cgroup(fx, "/b", "inherit");
	mk_chain(fx->cg, name, 20); /* 5,020 bytes of path */
	ck_assert_int_eq(tier_cgroup_enumerate(fx->ctx, NULL, &paths, &n), 0);
	ck_assert_uint_eq(n, 22);
	for (size_t i = 0; i < n; i++)
		if (!deep || strlen(paths[i]) > strlen(deep))
			deep = paths[i];
	ck_assert_uint_gt(strlen(deep), PATH_MAX);
	ck_assert_int_eq(tier_cgroup_write(fx->ctx, deep, "memory.high", "12345"), 0);
	ck_assert_int_eq(tier_cgroup_read(fx->ctx, deep, "memory.high", &v), 0);
	ck_assert_str_eq(v, "12345");
	free(v);
	tier_strv_free(paths);
	fx_free(fx);
}
END_TEST

START_TEST(test_residency_saturates)
{
	struct fx *fx = fx_new();
	struct tier_topology *topo = NULL;
	uint64_t fast, slow;

	fx_node(fx, 0, 1024 * 1024, 0);
	fx_node(fx, 1, 1024 * 1024, 0);
	fx_node_lists(fx, "0-1", "0");
	fx_memtier(fx, 4, "0");
	fx_memtier(fx, 22, "1");
	ck_assert_int_eq(tier_topology_read(fx->ctx, &topo), 0);
	fx_cgroup(fx, "/a", "inherit");
	fx_write(fx->cg, "a/memory.numa_stat",
		 "anon N0=18446744073709551615 N1=0\nfile N0=1 N1=0\n");
	ck_assert_int_eq(tier_cgroup_read_residency(fx->ctx, topo, "/a", &fast, &slow), 0);
	ck_assert_uint_eq(fast, UINT64_MAX);
	ck_assert_uint_eq(slow, 0);
	tier_topology_free(topo);
	fx_free(fx);
}
END_TEST

START_TEST(test_normalize)
{
	static const struct {
		const char *in, *out;
		int r;
	} cases[] = {
		{ "/", "/", 0 },	     { "//", "/", 0 },
		{ "/a", "/a", 0 },	     { "/a/", "/a", 0 },
		{ "//a", "/a", 0 },	     { "/a//b///", "/a/b", 0 },
		{ "/a.b/..c", "/a.b/..c", 0 }, { "a", NULL, -EINVAL },
		{ "", NULL, -EINVAL },	     { "/a/../b", NULL, -EINVAL },
		{ "/./a", NULL, -EINVAL },   { "/a/..", NULL, -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;

		ck_assert_int_eq(tier_cgroup_path_normalize(cases[i].in, &out), cases[i].r);
		if (cases[i].out)
			ck_assert_str_eq(out, cases[i].out);
		else
			ck_assert_ptr_null(out);
		free(out);
	}
}
END_TEST

Suite *suite_hostile(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("tree");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_symlinked_dir);
	tcase_add_test(tc, test_symlinked_file);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_effective_file_hostile);
	tcase_add_test(tc, test_deep_subtree);
	tcase_add_test(tc, test_long_path);
	tcase_add_test(tc, test_residency_saturates);
	tcase_add_test(tc, test_normalize);
	suite_add_tcase(s, tc);
	return s;
}
