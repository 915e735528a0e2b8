// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Interned paths (libtier 2.0): plan entries, observed cgroups, apply
 * results and sharers hold their parent and their own name; the accessors
 * build the whole path into the caller's buffer.  Deep trees of long names,
 * a buffer too small, the root, and names that are not escaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

#define LEVELS 250
#define NAME_LEN 255

static struct tier_policy *policy_all(void)
{
	static const char text[] = "[class:all]\nmode = promote\n[rule:all]\nclass = all\n"
				   "cgroup = /**\n";
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	return p;
}

/* LEVELS directories of NAME_LEN bytes below the fake cgroup root, level i
 * named by the letter 'a' + i % 26 (mkdirat: no PATH_MAX limit), each with
 * a memory.numa_balancing; the whole path of the deepest into ret_path. */
static void mk_deep(struct fx *fx, char **ret_path)
{
	size_t len = (size_t)LEVELS * (NAME_LEN + 1), pos = 0;
	char *path = malloc(len + 1), name[NAME_LEN + 1];
	int fd = open(fx->cg, O_RDONLY | O_DIRECTORY);

	ck_assert_ptr_nonnull(path);
	ck_assert_int_ge(fd, 0);
	for (unsigned i = 0; i < LEVELS; i++) {
		int nfd;

		memset(name, 'a' + i % 26, NAME_LEN);
		name[NAME_LEN] = '\0';
		ck_assert_int_eq(mkdirat(fd, name, 0755), 0);
		nfd = openat(fd, name, O_RDONLY | O_DIRECTORY);
		ck_assert_int_ge(nfd, 0);
		close(fd);
		fd = nfd;
		nfd = openat(fd, "memory.numa_balancing", O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_int_ge(nfd, 0);
		ck_assert_int_eq(write(nfd, "inherit\n", 8), 8);
		close(nfd);
		path[pos++] = '/';
		memcpy(path + pos, name, NAME_LEN);
		pos += NAME_LEN;
	}
	close(fd);
	path[pos] = '\0';
	ck_assert_uint_eq(pos, len);
	*ret_path = path;
}

/* 250 levels of 255-byte names (64,000 bytes): every accessor builds the
 * same path, exactly as long as it is; one byte less room fails. */
START_TEST(test_deep_tree)
{
	struct fx *fx = fx_new();
	struct tier_policy *p = policy_all();
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	struct tier_apply_results *res = NULL;
	const struct tier_plan_entry *e = NULL;
	struct tier_plan_entry *copy = NULL;
	size_t len, n_deep = 0;
	char *deep, *buf;

	mk_deep(fx, &deep);
	len = strlen(deep);
	ck_assert_uint_gt(len, PATH_MAX);
	buf = malloc(len + 2);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(tier_observe(fx->ctx, NULL, NULL, 0, &obs), 0);
	ck_assert_uint_eq(tier_observed_count(obs), LEVELS + 1);
	/* pre-order: the deepest is the last one observed */
	ck_assert_int_eq(tier_observed_cgroup_path(tier_observed_get(obs, LEVELS), NULL, 0),
			 (int)len);
	ck_assert_str_eq(fx_observed_path(tier_observed_get(obs, LEVELS)), deep);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	tier_observed_free(obs);

	/* each entry: its path is its parent's and a name, byte for byte */
	for (size_t i = 0; i < tier_plan_count(plan); i++) {
		const struct tier_plan_entry *x = tier_plan_entry(plan, i);
		size_t want = i * (NAME_LEN + 1);

		ck_assert_int_eq(tier_plan_entry_path(x, NULL, 0), (int)(want ?: 1));
		ck_assert_int_eq(tier_plan_entry_path(x, buf, len + 2), (int)(want ?: 1));
		ck_assert(i == 0 ? strcmp(buf, "/") == 0 : strncmp(buf, deep, want) == 0);
		ck_assert_ptr_eq(tier_plan_find(plan, buf), x);
		if (want == len)
			e = x, n_deep++;
	}
	ck_assert_uint_eq(n_deep, 1);
	/* the exact size fits; one byte less is -ENAMETOOLONG, not a cut path */
	ck_assert_int_eq(tier_plan_entry_path(e, buf, len + 1), (int)len);
	ck_assert_str_eq(buf, deep);
	ck_assert_int_eq(tier_plan_entry_path(e, buf, len), -ENAMETOOLONG);
	ck_assert_int_eq(tier_plan_entry_path(e, buf, 0), -ENAMETOOLONG);
	ck_assert_int_eq(tier_plan_entry_path(NULL, buf, len + 1), -EINVAL);
	ck_assert_int_eq(tier_plan_entry_path(e, NULL, 5), -EINVAL);
	ck_assert_ptr_null(tier_plan_entry_matched_value(e)); /* the path matched */

	/* a copy outlives its plan, and so does its path */
	ck_assert_int_eq(tier_plan_entry_dup(e, &copy), 0);

	/* apply results: the same path, not a copy of it per result */
	ck_assert_int_ge(tier_apply(fx->ctx, plan, TIER_APPLY_DRY_RUN, &res), 0);
	ck_assert_uint_eq(tier_apply_results_count(res), LEVELS + 1);
	ck_assert_str_eq(fx_result_path(tier_apply_results_get(res, LEVELS)), deep);
	ck_assert_int_eq(tier_apply_result_path(tier_apply_results_get(res, LEVELS), buf, len),
			 -ENAMETOOLONG);
	ck_assert_int_eq(tier_apply_result_status(tier_apply_results_get(res, LEVELS)),
			 TIER_APPLY_CHANGED);
	tier_apply_results_free(res);
	tier_plan_free(plan);
	ck_assert_str_eq(fx_entry_path(copy), deep);
	tier_plan_entry_free(copy);

	tier_policy_unref(p);
	free(buf);
	free(deep);
	fx_free(fx);
}
END_TEST

/* The root is "/", one byte; a buffer of one byte has no room for the NUL. */
START_TEST(test_root)
{
	struct tier_policy *p = policy_all();
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	char buf[2] = "x";

	ck_assert_int_eq(tier_observed_new(0, &obs), 0);
	ck_assert_int_eq(tier_observed_add(obs, "/", NULL), 0);
	ck_assert_int_eq(tier_observed_add(obs, "/a", NULL), 0);
	ck_assert_int_eq(tier_observed_add(obs, "relative", NULL), -EINVAL);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_int_eq(tier_plan_entry_path(tier_plan_entry(plan, 0), NULL, 0), 1);
	ck_assert_int_eq(tier_plan_entry_path(tier_plan_entry(plan, 0), buf, 1), -ENAMETOOLONG);
	ck_assert_int_eq(tier_plan_entry_path(tier_plan_entry(plan, 0), buf, 2), 1);
	ck_assert_str_eq(buf, "/");
	ck_assert_ptr_null(tier_plan_entry_rule(tier_plan_entry(plan, 0)));
	/* a child of the root: no '/' doubled */
	ck_assert_str_eq(fx_entry_path(tier_plan_entry(plan, 1)), "/a");
	ck_assert_str_eq(tier_plan_entry_name(tier_plan_entry(plan, 1)), "a");
	ck_assert_int_eq(tier_observed_cgroup_path(tier_observed_get(obs, 0), buf, 2), 1);
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
}
END_TEST

/* Names are returned as the kernel lists them: newlines, escape bytes,
 * '%', backslashes, spaces and UTF-8 noncharacters untouched (escaping is
 * the printing caller's). */
START_TEST(test_names_untouched)
{
	static const char *const names[] = {
		"new\nline", "esc\x1b[31m", "100%25 \\x41", "\xef\xbf\xbe", " lead and trail ",
	};
	struct fx *fx = fx_new();
	struct tier_policy *p = policy_all();
	struct tier_observed *obs = NULL;
	struct tier_plan *plan = NULL;
	char rel[64];

	fx_cgroup(fx, "/top", "inherit");
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(rel, sizeof(rel), "/top/%s", names[i]);
		fx_cgroup(fx, rel, "inherit");
	}
	ck_assert_int_eq(tier_observe(fx->ctx, NULL, NULL, 0, &obs), 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const struct tier_plan_entry *e;

		snprintf(rel, sizeof(rel), "/top/%s", names[i]);
		e = tier_plan_find(plan, rel);
		ck_assert_msg(e != NULL, "%zu not found", i);
		ck_assert_str_eq(fx_entry_path(e), rel);
		ck_assert_str_eq(tier_plan_entry_name(e), names[i]);
		ck_assert_int_eq(tier_plan_entry_path(e, NULL, 0), (int)strlen(rel));
	}
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);
	fx_free(fx);
}
END_TEST

/*
 * A cgroup that comes as a whole path (an event's observe) is put below its
 * parent's entry when the plan has one; the table's lookups (hash, equality,
 * subtree) agree with the string, however the path is held.
 */
START_TEST(test_intern_below_parent)
{
	struct tier_policy *p = policy_all();
	struct tier_observed *obs = NULL, *one = NULL;
	struct tier_plan *plan = NULL, *ev = NULL;
	const struct tier_plan_entry *e;

	ck_assert_int_eq(tier_observed_new(0, &obs), 0);
	ck_assert_int_eq(tier_observed_add(obs, "/", NULL), 0);
	ck_assert_int_eq(tier_observed_add(obs, "/a", NULL), 0);
	ck_assert_int_eq(tier_observed_add(obs, "/a/b", NULL), 0);
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	/* /a/b came whole: in the plan it is "b" below /a's entry */
	ck_assert_str_eq(tier_plan_entry_name(tier_plan_find(plan, "/a/b")), "b");

	/* an event's plan of one cgroup, then interned in the cached plan */
	ck_assert_int_eq(tier_observed_new(0, &one), 0);
	ck_assert_int_eq(tier_observed_add(one, "/a/b/c", NULL), 0);
	ck_assert_int_eq(tier_evaluate(p, one, &ev), 0);
	e = tier_plan_entry(ev, 0);
	ck_assert_str_eq(tier_plan_entry_name(e), "/a/b/c");	/* whole: no parent */
	ck_assert_int_eq(tier_plan_intern_from(ev, plan), 0);
	ck_assert_str_eq(tier_plan_entry_name(e), "c");
	ck_assert_str_eq(fx_entry_path(e), "/a/b/c");
	ck_assert_ptr_eq(tier_plan_find(ev, "/a/b/c"), e);
	ck_assert_uint_eq(tier_plan_entry_path_hash(e), tier_hash_string("/a/b/c"));
	ck_assert(tier_plan_entry_path_is(e, "/a/b/c", 6));
	ck_assert(!tier_plan_entry_path_is(e, "/a/b/d", 6));
	ck_assert(!tier_plan_entry_path_is(e, "/a/b", 4));
	ck_assert(tier_plan_entry_path_below(e, "/"));
	ck_assert(tier_plan_entry_path_below(e, "/a"));
	ck_assert(tier_plan_entry_path_below(e, "/a/b"));
	ck_assert(tier_plan_entry_path_below(e, "/a/b/c"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/b/c/d"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/b/"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/bx"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/"));
	/* the cached plan can go: the event's entry holds its parents */
	tier_plan_free(plan);
	ck_assert_str_eq(fx_entry_path(e), "/a/b/c");
	tier_plan_free(ev);

	/* a whole path, as a hook's single cgroup: prefixes that end inside a
	 * name are not its ancestors */
	ck_assert_int_eq(tier_evaluate(p, one, &ev), 0);
	e = tier_plan_entry(ev, 0);
	ck_assert(tier_plan_entry_path_below(e, "/a/b"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/b/"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/b/c/"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/"));
	ck_assert(!tier_plan_entry_path_below(e, "/a/b/cd"));
	tier_plan_free(ev);
	tier_observed_free(one);
	tier_observed_free(obs);
	tier_policy_unref(p);
}
END_TEST

Suite *suite_path(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("path");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_deep_tree);
	tcase_add_test(tc, test_root);
	tcase_add_test(tc, test_names_untouched);
	tcase_add_test(tc, test_intern_below_parent);
	suite_add_tcase(s, tc);
	return s;
}
