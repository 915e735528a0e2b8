// SPDX-License-Identifier: LGPL-2.1-or-later
/* Policy parsing: a table of bad inputs with their FILE:LINE messages, good
 * policies, drop-ins, files that are not regular or too large, scale. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "fixture.h"

#define CLASS_C "[class:c]\n"

/* The size limit of one policy file, as tierd.conf(5) documents it. */
#define POLICY_FILE_LIMIT (16u << 20)

static const struct bad_policy {
	const char *text;
	const char *expect;	/* substring of one formatted error */
	size_t n_errors;	/* exact count, 0 = do not check */
} bad[] = {
	/* sections */
	{ "[foo]\n", "t.conf:1: unknown section [foo]", 1 },
	{ "[Class:x]\n", "t.conf:1: unknown section [Class:x]", 1 },
	{ "[ ]\n", "t.conf:1: unknown section []", 1 },
	{ "[foo]\nbar = 1\n", "t.conf:1: unknown section [foo]", 1 }, /* keys not re-reported */
	{ "x = 1\n", "t.conf:1: key 'x' outside any section", 1 },
	{ "; comment\n\nmode = full\n[class:a]\n", "t.conf:3: key 'mode' outside any section", 1 },
	{ "[class:db\nmode = full\n", "t.conf:1: syntax error: section header without closing ']'",
	  1 },
	{ "[daemon] junk\n", "t.conf:1: syntax error: unexpected text after section header", 1 },
	{ "[class:c]\njust some words\n", "t.conf:2: syntax error: expected 'key = value'", 1 },
	/* names */
	{ "[class:]\n", "t.conf:1: empty class name in [class:]", 1 },
	{ "[rule:]\n", "t.conf:1: empty rule name in [rule:]", 1 },
	{ "[class:a b]\n", "t.conf:1: invalid class name 'a b'", 1 },
	{ "[rule:x/y]\n", "t.conf:1: invalid rule name 'x/y'", 1 },
	{ "[class:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
	  "t.conf:1: class name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' is too "
	  "long (max 64 characters)",
	  1 },
	{ "[class:a]\n[class:a]\n", "t.conf:2: duplicate class 'a' (first defined at t.conf:1)", 1 },
	{ CLASS_C "[rule:r]\nclass = c\ncgroup = /x\n[rule:r]\nclass = c\n",
	  "t.conf:5: duplicate rule 'r' (first defined at t.conf:2)", 1 },
	/* class keys */
	{ "[class:db]\nmdoe = full\n", "t.conf:2: unknown key 'mdoe' in [class:db]", 1 },
	{ "[class:db]\ncgroup = /x\n", "t.conf:2: unknown key 'cgroup' in [class:db]", 1 },
	{ "[class:db]\nmode = fast\n",
	  "t.conf:2: invalid mode 'fast' (expected inherit, full, promote or off)", 1 },
	{ "[class:db]\nmode = Full\n", "t.conf:2: invalid mode 'Full'", 1 },
	{ "[class:db]\nmode =\n", "t.conf:2: missing value for 'mode' in [class:db]", 1 },
	{ "[class:db]\nmode = full\nmode = off\n",
	  "t.conf:3: duplicate key 'mode' in [class:db] (first set at line 2)", 1 },
	{ "[class:db]\nweight = 0\n", "t.conf:2: weight 0 out of range (1..10000)", 1 },
	{ "[class:db]\nweight = 10001\n", "t.conf:2: weight 10001 out of range (1..10000)", 1 },
	{ "[class:db]\nweight = abc\n", "t.conf:2: invalid weight 'abc'", 1 },
	{ "[class:db]\nweight = -5\n", "t.conf:2: invalid weight '-5'", 1 },
	{ "[class:db]\nweight = 99999999999999999999999\n",
	  "t.conf:2: weight 99999999999999999999999 out of range", 1 },
	{ "[class:db]\ntoptier_min = 12Q\n", "t.conf:2: invalid size '12Q' for toptier_min", 1 },
	{ "[class:db]\ntoptier_min = max\n", "t.conf:2: invalid size 'max' for toptier_min", 1 },
	{ "[class:db]\ntoptier_min = 99999999999T\n",
	  "t.conf:2: size '99999999999T' out of range for toptier_min", 1 },
	{ "[class:db]\ntoptier_max = 150%\n",
	  "t.conf:2: percentage '150%' out of range for toptier_max (0%..100%)", 1 },
	{ "[class:db]\ntoptier_max = 5.555%\n", "t.conf:2: invalid size '5.555%' for toptier_max",
	  1 },
	{ "[class:db]\ntoptier_min = 10G\ntoptier_max = 1G\n",
	  "t.conf:3: toptier_min is greater than toptier_max in [class:db]", 1 },
	{ "[class:db]\ntoptier_max = 20%\ntoptier_min = 50%\n",
	  "t.conf:3: toptier_min is greater than toptier_max in [class:db]", 1 },
	{ "[class:db]\nmemory_low = 10%\n",
	  "t.conf:2: percentage '10%' not allowed for memory_low (expected a size or 'max')", 1 },
	{ "[class:db]\nmemory_high = 1X\n", "t.conf:2: invalid size '1X' for memory_high", 1 },
	/* rule keys */
	{ "[rule:web]\nclass = gold\ncgroup = /web\n",
	  "t.conf:2: rule 'web' names unknown class 'gold'", 1 },
	{ "[rule:r]\ncgroup = /x\n", "t.conf:1: rule 'r' has no 'class' key", 1 },
	{ CLASS_C "[rule:r]\nclass = c\n",
	  "t.conf:2: rule 'r' has no matchers (cgroup, unit, exe or annotation)", 1 },
	{ CLASS_C "[rule:r]\nclass = c\nclass = c\ncgroup = /x\n",
	  "t.conf:4: duplicate key 'class' in [rule:r] (first set at line 3)", 1 },
	{ CLASS_C "[rule:r]\nclass = a b\ncgroup = /x\n", "t.conf:3: invalid class name 'a b'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\ncgroups = /x\n", "t.conf:4: unknown key 'cgroups' in [rule:r]",
	  2 },
	{ CLASS_C "[rule:r]\nclass = c\ncgroup = /a[bc\n",
	  "t.conf:4: invalid cgroup pattern '/a[bc': unterminated or invalid '[' class", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nexe = /usr/bin/[z-a]\n",
	  "t.conf:4: invalid exe pattern '/usr/bin/[z-a]'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\ncgroup = /a\\\n",
	  "t.conf:4: invalid cgroup pattern '/a\\': trailing '\\'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nunit = [x\n", "t.conf:4: invalid unit pattern '[x'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\ncgroup = system.slice/x\n",
	  "t.conf:4: cgroup pattern 'system.slice/x' must start with '/'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nexe = mysqld\n",
	  "t.conf:4: exe pattern 'mysqld' must be an absolute path", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nunit = a/b.service\n",
	  "t.conf:4: unit pattern 'a/b.service' must not contain '/'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nannotation = foo\n",
	  "t.conf:4: invalid annotation 'foo' (expected KEY=VALUE)", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nannotation = =x\n",
	  "t.conf:4: invalid annotation '=x' (expected KEY=VALUE)", 2 },
	{ CLASS_C "[rule:r]\nclass = c\nannotation = k=[v\n",
	  "t.conf:4: invalid annotation pattern '[v'", 2 },
	{ CLASS_C "[rule:r]\nclass = c\ncgroup =\n", "t.conf:4: missing value for 'cgroup' in [rule:r]",
	  2 },
	/* daemon keys */
	{ "[daemon]\ninterval = 5s\n", "t.conf:2: unknown key 'interval' in [daemon]", 1 },
	{ "[daemon]\ncgroup_root = sys/fs/cgroup\n",
	  "t.conf:2: cgroup_root 'sys/fs/cgroup' must be an absolute path", 1 },
	{ "[daemon]\nreconcile_interval = 5x\n",
	  "t.conf:2: invalid duration '5x' for reconcile_interval", 1 },
	{ "[daemon]\nrebalance_interval = 0\n", "t.conf:2: invalid duration '0' for rebalance_interval",
	  1 },
	{ "[daemon]\ndry_run = maybe\n", "t.conf:2: invalid boolean 'maybe' for dry_run", 1 },
	{ "[daemon]\ndry_run = yes\ndry_run = no\n",
	  "t.conf:3: duplicate key 'dry_run' in [daemon] (first set at line 2)", 1 },
	{ "[daemon]\nlog_level = verbose\n", "t.conf:2: invalid log_level 'verbose'", 1 },
	{ "[daemon]\nfast_tier_reserve = lots\n",
	  "t.conf:2: invalid size 'lots' for fast_tier_reserve", 1 },
	{ "[daemon]\nhysteresis = 5\n", "t.conf:2: invalid percentage '5' for hysteresis", 1 },
	{ "[daemon]\nhysteresis = 101%\n",
	  "t.conf:2: percentage '101%' out of range for hysteresis", 1 },
	{ "[class:c]\n= full\n", "t.conf:2: syntax error: missing key before '='", 1 },
	/* demand by hot set, the promotion budget */
	{ "[daemon]\ndemand = warm\n", "t.conf:2: invalid demand 'warm' (expected resident or hot)",
	  1 },
	{ "[daemon]\nhot_margin = 25\n", "t.conf:2: invalid percentage '25' for hot_margin", 1 },
	{ "[class:c]\ndemand = all\n", "t.conf:2: invalid demand 'all'", 1 },
	{ "[class:c]\npromote_budget = 0\n", "t.conf:2: promote_budget 0 would never promote", 1 },
	{ "[class:c]\npromote_budget = 10%\n",
	  "t.conf:2: percentage '10%' not allowed for promote_budget", 1 },
	{ "[class:c]\npromote_budget = fast\n", "t.conf:2: invalid size 'fast' for promote_budget",
	  1 },
	/* page-cache promotion through DAMON */
	{ "[class:c]\npage_cache = yes\n",
	  "t.conf:2: invalid page_cache 'yes' (expected on or off)", 1 },
	{ "[class:c]\npage_cache = On\n", "t.conf:2: invalid page_cache 'On' (expected on or off)",
	  1 },
	{ "[class:c]\npage_cache = off\npage_cache = on\n",
	  "t.conf:3: duplicate key 'page_cache' in [class:c] (first set at line 2)", 1 },
	{ "[class:c]\npage_cache =\n", "t.conf:2: missing value for 'page_cache' in [class:c]", 1 },
	{ "[daemon]\npage_cache = on\n", "t.conf:2: unknown key 'page_cache' in [daemon]", 1 },
	/* lines */
	{ "[class:c]\nweight = 1\n[class:d]\nweight = 2\nmode = "
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxx\n",
	  "t.conf:5: invalid mode 'xxxxxxxxxx", 1 },
	/* a key with no '=' before its inline comment */
	{ "[class:c]\nweight ; = 5\n", "t.conf:2: syntax error: expected 'key = value'", 1 },
	/* an indented key is a key, not a continuation of the previous value */
	{ "[class:c]\nweight = 5\n    mode = sometimes\n", "t.conf:3: invalid mode 'sometimes'", 1 },
	/* CRLF line endings are fine, the errors still have the right line */
	{ "[class:c]\r\nweight = 5\r\nmode = x\r\n", "t.conf:3: invalid mode 'x'", 1 },
};

START_TEST(test_bad_policy)
{
	const struct bad_policy *b = &bad[_i];
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = (void *)0x1;
	bool found = false;
	int r;

	ck_assert_ptr_nonnull(e);
	r = tier_policy_load_buffer("t.conf", b->text, strlen(b->text), e, &p);
	ck_assert_msg(r == -EINVAL, "case %d: r=%d", _i, r);
	ck_assert_ptr_eq(p, (void *)0x1);
	for (size_t i = 0; i < tier_errors_count(e); i++)
		if (strstr(tier_errors_get(e, i), b->expect))
			found = true;
	if (!found || (b->n_errors && tier_errors_count(e) != b->n_errors)) {
		for (size_t i = 0; i < tier_errors_count(e); i++)
			fprintf(stderr, "case %d: %s\n", _i, tier_errors_get(e, i));
	}
	ck_assert_msg(found, "case %d: no error contains '%s'", _i, b->expect);
	if (b->n_errors)
		ck_assert_msg(tier_errors_count(e) == b->n_errors, "case %d: %zu errors, want %zu", _i,
			      tier_errors_count(e), b->n_errors);
	tier_errors_free(e);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "[class:c]\nmode = f\0ull\nweight = 0\n";
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, sizeof(text) - 1, e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 2);
	ck_assert_str_eq(tier_errors_get(e, 0), "t.conf:2: NUL byte in line");
	ck_assert_str_eq(tier_errors_file(e, 0), "t.conf");
	ck_assert_uint_eq(tier_errors_line(e, 0), 2);
	ck_assert_str_eq(tier_errors_message(e, 0), "NUL byte in line");
	ck_assert_uint_eq(tier_errors_line(e, 1), 3);
	ck_assert_ptr_null(tier_errors_get(e, 2));
	tier_errors_free(e);
}
END_TEST

/* Every error is reported, in line order, then the cross-checks. */
START_TEST(test_all_errors)
{
	static const char text[] = "[daemon]\n"		   /* 1 */
				   "dry_run = perhaps\n"	   /* 2 */
				   "[class:db]\n"		   /* 3 */
				   "mdoe = full\n"		   /* 4 */
				   "weight = 0\n"		   /* 5 */
				   "toptier_min = 12Q\n"	   /* 6 */
				   "[bogus]\n"			   /* 7 */
				   "[rule:web]\n"		   /* 8 */
				   "class = gold\n"		   /* 9 */
				   "cgroup = /web[\n"		   /* 10 */
				   "this line is broken\n"	   /* 11 */
				   "[rule:empty]\n"		   /* 12 */
				   "class = db\n";		   /* 13 */
	static const char *const want[] = {
		"t.conf:2: invalid boolean 'perhaps' for dry_run (expected yes or no)",
		"t.conf:4: unknown key 'mdoe' in [class:db]",
		"t.conf:5: weight 0 out of range (1..10000)",
		"t.conf:6: invalid size '12Q' for toptier_min (expected e.g. 4096, 512M, 16G, 1.5T, N%)",
		"t.conf:7: unknown section [bogus] (expected [daemon], [class:NAME] or [rule:NAME])",
		"t.conf:10: invalid cgroup pattern '/web[': unterminated or invalid '[' class",
		"t.conf:11: syntax error: expected 'key = value'",
		"t.conf:9: rule 'web' names unknown class 'gold'",
		"t.conf:8: rule 'web' has no matchers (cgroup, unit, exe or annotation)",
		"t.conf:12: rule 'empty' has no matchers (cgroup, unit, exe or annotation)",
	};
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, sizeof(text) - 1, e, &p), -EINVAL);
	if (tier_errors_count(e) != sizeof(want) / sizeof(want[0]))
		for (size_t i = 0; i < tier_errors_count(e); i++)
			fprintf(stderr, "all_errors: %s\n", tier_errors_get(e, i));
	ck_assert_uint_eq(tier_errors_count(e), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_str_eq(tier_errors_get(e, i), want[i]);
	/* the errors object accumulates: a second load appends */
	ck_assert_int_eq(tier_policy_load_buffer("u.conf", "[x]\n", 4, e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), sizeof(want) / sizeof(want[0]) + 1);
	ck_assert_str_eq(tier_errors_file(e, sizeof(want) / sizeof(want[0])), "u.conf");
	/* and a good load after errors still succeeds */
	ck_assert_int_eq(tier_policy_load_buffer("v.conf", "", 0, e, &p), 0);
	tier_policy_unref(p);
	/* NULL errors is fine */
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, sizeof(text) - 1, NULL, &p), -EINVAL);
	tier_errors_free(e);
}
END_TEST

/* A flood of bad lines is cut at 1000 errors per load, then one summary. */
START_TEST(test_error_limit)
{
	size_t n = 1500 * 2;
	char *text = malloc(n);
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;

	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < n; i += 2)
		memcpy(text + i, "x\n", 2);
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, n, e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 1001);
	ck_assert_str_eq(tier_errors_get(e, 999),
			 "t.conf:1000: syntax error: expected 'key = value'");
	ck_assert_str_eq(tier_errors_get(e, 1000),
			 "t.conf: too many errors, only the first 1000 are reported");
	ck_assert_uint_eq(tier_errors_line(e, 1000), 0);
	/* the next load has a budget of its own */
	ck_assert_int_eq(tier_policy_load_buffer("u.conf", text, 4, e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 1003);
	ck_assert_str_eq(tier_errors_get(e, 1002), "u.conf:2: syntax error: expected 'key = value'");
	tier_errors_free(e);
	free(text);
}
END_TEST

static const char good_text[] =
	"# tierd policy\n"
	"[daemon]\n"
	"cgroup_root = /sys/fs/cgroup\n"
	"reconcile_interval = 1m\n"
	"rebalance_interval = 500ms\n"
	"dry_run = yes\n"
	"log_level = debug\n"
	"fast_tier_reserve = 1G\n"
	"hysteresis = 2.5%\n"
	"\n"
	"[class:latency]\n"
	"  mode = full        ; indented, with an inline comment\n"
	"  weight = 400\n"
	"  toptier_min = 16G\n"
	"  toptier_max = 64GiB\n"
	"  memory_low = 1.5G\n"
	"  memory_high = max\n"
	"[class:batch]\n"
	"mode: promote\n"
	"toptier_min = 10%\n"
	"toptier_max = max\n"
	"[class:quiet]\n"
	"mode = off\n"
	"[class:plain]\n"
	"[rule:databases]\n"
	"class = latency\n"
	"cgroup = /system.slice/postgresql*.service\n"
	"unit = mariadb.service\n"
	"exe = /usr/sbin/mysqld\n"
	"annotation = tierd.io/class=latency\n"
	"[rule:batch]\n"
	"class = batch\n"
	"cgroup = /batch.slice/**\n"
	"cgroup = /kubepods/**/besteffort*\n";

START_TEST(test_good_policy)
{
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	const struct tier_daemon_config *d;
	const struct tier_class *c;
	const struct tier_rule *r;

	ck_assert_int_eq(tier_policy_load_buffer("good.conf", good_text, strlen(good_text), e, &p), 0);
	for (size_t i = 0; i < tier_errors_count(e); i++)
		fprintf(stderr, "%s\n", tier_errors_get(e, i));
	ck_assert_uint_eq(tier_errors_count(e), 0);
	d = tier_policy_daemon(p);
	ck_assert_str_eq(d->cgroup_root, "/sys/fs/cgroup");
	ck_assert_uint_eq(d->reconcile_interval_usec, 60000000);
	ck_assert_uint_eq(d->rebalance_interval_usec, 500000);
	ck_assert(d->dry_run);
	ck_assert_int_eq(d->log_level, LOG_DEBUG);
	ck_assert_uint_eq(d->fast_tier_reserve, 1ull << 30);
	ck_assert_uint_eq(d->hysteresis_bp, 250);
	ck_assert_ptr_null(d->include);

	ck_assert_uint_eq(tier_policy_class_count(p), 4);
	c = tier_policy_find_class(p, "latency");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(tier_class_file(c), "good.conf");
	ck_assert_uint_eq(tier_class_line(c), 11);
	ck_assert_int_eq(tier_class_mode(c), TIER_MODE_FULL);
	ck_assert_uint_eq(tier_class_weight(c), 400);
	ck_assert_int_eq(tier_class_toptier_min(c)->kind, TIER_AMOUNT_BYTES);
	ck_assert_uint_eq(tier_class_toptier_min(c)->value, 16ull << 30);
	ck_assert_uint_eq(tier_class_toptier_max(c)->value, 64ull << 30);
	ck_assert_int_eq(tier_class_memory_low(c)->kind, TIER_AMOUNT_BYTES);
	ck_assert_uint_eq(tier_class_memory_low(c)->value, 3ull << 29);
	ck_assert_int_eq(tier_class_memory_high(c)->kind, TIER_AMOUNT_MAX);
	c = tier_policy_find_class(p, "batch");
	ck_assert_int_eq(tier_class_mode(c), TIER_MODE_PROMOTE);
	ck_assert_int_eq(tier_class_toptier_min(c)->kind, TIER_AMOUNT_PERCENT);
	ck_assert_uint_eq(tier_class_toptier_min(c)->value, 1000);
	ck_assert_uint_eq(tier_amount_resolve(tier_class_toptier_min(c), 1000000, 0), 100000);
	ck_assert_int_eq(tier_class_toptier_max(c)->kind, TIER_AMOUNT_MAX);
	ck_assert_int_eq(tier_class_memory_low(c)->kind, TIER_AMOUNT_UNSET);
	c = tier_policy_find_class(p, "plain");
	ck_assert_int_eq(tier_class_mode(c), TIER_MODE_INHERIT);
	ck_assert_uint_eq(tier_class_weight(c), 100);
	ck_assert_ptr_eq(tier_policy_class(p, 0), tier_policy_find_class(p, "latency"));
	ck_assert_ptr_null(tier_policy_class(p, 4));
	ck_assert_ptr_null(tier_policy_find_class(p, "nope"));

	ck_assert_uint_eq(tier_policy_rule_count(p), 2);
	r = tier_policy_rule(p, 0);
	ck_assert_str_eq(tier_rule_name(r), "databases");
	ck_assert_str_eq(tier_rule_class_name(r), "latency");
	ck_assert_ptr_eq(tier_rule_class(r), tier_policy_find_class(p, "latency"));
	ck_assert_uint_eq(tier_rule_line(r), 25);
	ck_assert_uint_eq(tier_rule_matcher_count(r), 4);
	ck_assert_int_eq(tier_matcher_kind(tier_rule_matcher(r, 0)), TIER_MATCH_CGROUP);
	ck_assert_str_eq(tier_matcher_pattern(tier_rule_matcher(r, 0)), "/system.slice/postgresql*.service");
	ck_assert_uint_eq(tier_matcher_line(tier_rule_matcher(r, 0)), 27);
	ck_assert_int_eq(tier_matcher_kind(tier_rule_matcher(r, 1)), TIER_MATCH_UNIT);
	ck_assert_int_eq(tier_matcher_kind(tier_rule_matcher(r, 2)), TIER_MATCH_EXE);
	ck_assert_int_eq(tier_matcher_kind(tier_rule_matcher(r, 3)), TIER_MATCH_ANNOTATION);
	ck_assert_str_eq(tier_matcher_key(tier_rule_matcher(r, 3)), "tierd.io/class");
	ck_assert_str_eq(tier_matcher_value(tier_rule_matcher(r, 3)), "latency");
	ck_assert_str_eq(tier_matcher_pattern(tier_rule_matcher(r, 3)), "tierd.io/class=latency");
	r = tier_policy_find_rule(p, "batch");
	ck_assert_uint_eq(tier_rule_matcher_count(r), 2);
	ck_assert_ptr_null(tier_policy_find_rule(p, "nope"));
	ck_assert_uint_eq(tier_policy_file_count(p), 1);
	ck_assert_str_eq(tier_policy_file(p, 0), "good.conf");
	ck_assert_str_eq(tier_matcher_kind_to_string(TIER_MATCH_ANNOTATION), "annotation");
	tier_policy_unref(p);
	tier_errors_free(e);
}
END_TEST

START_TEST(test_defaults_and_edge_syntax)
{
	static const char text[] = "\xEF\xBB\xBF; BOM first\n[daemon]\n[class:c]\n"
				   "[rule:r]\nclass=c\nunit=*.service ; comment\n"
				   "annotation = team = web*\n";
	struct tier_policy *p = NULL;
	const struct tier_daemon_config *d;
	const struct tier_rule *r;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, sizeof(text) - 1, NULL, &p), 0);
	d = tier_policy_daemon(p);
	ck_assert_ptr_null(d->cgroup_root);	/* found at run time */
	ck_assert_uint_eq(d->reconcile_interval_usec, 30000000);
	ck_assert_uint_eq(d->rebalance_interval_usec, 10000000);
	ck_assert(!d->dry_run);
	ck_assert_int_eq(d->log_level, LOG_INFO);
	ck_assert_uint_eq(d->fast_tier_reserve, 256ull << 20);
	ck_assert_uint_eq(d->hysteresis_bp, 500);
	r = tier_policy_rule(p, 0);
	ck_assert_str_eq(tier_matcher_pattern(tier_rule_matcher(r, 0)), "*.service");
	ck_assert_str_eq(tier_matcher_key(tier_rule_matcher(r, 1)), "team");
	ck_assert_str_eq(tier_matcher_value(tier_rule_matcher(r, 1)), "web*");
	tier_policy_unref(p);
	/* empty input is a valid, empty policy */
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", NULL, 0, NULL, &p), 0);
	ck_assert_uint_eq(tier_policy_rule_count(p), 0);
	tier_policy_unref(p);
}
END_TEST

/*
 * Lines longer than inih's 200 bytes: a 300-character cgroup glob and a
 * 4,000-character exe path are values like any other (they were "line too
 * long (max 198 characters)"); past POLICY_LINE_MAX a line is refused.
 */
START_TEST(test_long_lines)
{
	enum { LINE_MAX_ = 16384 };	/* POLICY_LINE_MAX, lib/policy.h */
	char *glob = malloc(301), *exe = malloc(4001), *text = NULL, *huge;
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	const struct tier_rule *r;

	ck_assert_ptr_nonnull(glob);
	ck_assert_ptr_nonnull(exe);
	for (size_t i = 0; i < 300; i++)
		glob[i] = i % 20 == 0 ? '/' : 'g';
	glob[300] = '\0';
	for (size_t i = 0; i < 4000; i++)
		exe[i] = i % 200 == 0 ? '/' : 'e';
	exe[4000] = '\0';
	ck_assert(asprintf(&text, "[class:c]\nmode = full ; a comment\n[rule:r]\nclass = c\n"
				  "cgroup = %s/**  ; %s\nexe = %s\n",
			   glob, glob, exe) > 0);
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), e, &p), 0);
	r = tier_policy_rule(p, 0);
	ck_assert_uint_eq(strlen(tier_matcher_pattern(tier_rule_matcher(r, 0))), 303);
	ck_assert(strncmp(tier_matcher_pattern(tier_rule_matcher(r, 0)), glob, 300) == 0);
	ck_assert_str_eq(tier_matcher_pattern(tier_rule_matcher(r, 1)), exe);
	tier_policy_unref(p);

	ck_assert_ptr_nonnull(huge = malloc(LINE_MAX_ + 32));
	memcpy(huge, "[class:c]\nmode = ", 17);
	memset(huge + 17, 'x', LINE_MAX_ - 6);	/* "mode = " + this: one too many */
	huge[17 + LINE_MAX_ - 6] = '\0';
	p = NULL;
	ck_assert_int_eq(tier_policy_load_buffer("t.conf", huge, strlen(huge), e, &p), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert_str_eq(tier_errors_get(e, 0), "t.conf:2: line too long (max 16384 characters)");
	tier_errors_free(e);
	free(huge);
	free(text);
	free(exe);
	free(glob);
}
END_TEST

static char *write_tmp(struct fx *fx, const char *rel, const char *content)
{
	char *path;

	fx_write(fx->root, rel, content);
	ck_assert(asprintf(&path, "%s/%s", fx->root, rel) >= 0);
	return path;
}

START_TEST(test_page_cache)
{
	/* default on; off and on as written; no class: false */
	static const char text[] = "[class:d]\nmode = promote\n"
				   "[class:off]\nmode = full\npage_cache = off\n"
				   "[class:on]\npage_cache = on\n";
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, sizeof(text) - 1, NULL, &p), 0);
	ck_assert(tier_class_page_cache(tier_policy_find_class(p, "d")));
	ck_assert(!tier_class_page_cache(tier_policy_find_class(p, "off")));
	ck_assert(tier_class_page_cache(tier_policy_find_class(p, "on")));
	/* the other keys of the class are untouched by it */
	ck_assert_int_eq(tier_class_mode(tier_policy_find_class(p, "off")), TIER_MODE_FULL);
	ck_assert(!tier_class_page_cache(NULL));
	tier_policy_unref(p);
}
END_TEST

START_TEST(test_dropins)
{
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	char *main_file, *dir;

	/* the main file uses a class that only a drop-in defines */
	main_file = write_tmp(fx, "etc/tierd.conf",
			      "[daemon]\ndry_run = yes\n[rule:main]\nclass = gold\ncgroup = /a\n");
	free(write_tmp(fx, "etc/tierd.conf.d/20-b.conf", "[rule:b]\nclass = gold\ncgroup = /b\n"));
	free(write_tmp(fx, "etc/tierd.conf.d/10-a.conf",
		       "[class:gold]\nmode = promote\n[rule:a]\nclass = gold\ncgroup = /a2\n"
		       "[daemon]\ndry_run = no\n"));
	free(write_tmp(fx, "etc/tierd.conf.d/README", "not a policy\n"));
	free(write_tmp(fx, "etc/tierd.conf.d/30-c.conf.disabled", "garbage\n"));
	fx_mkdir(fx->root, "etc/tierd.conf.d/40-dir.conf.disabled");
	fx_mkdir(fx->root, "etc/tierd.conf.d/.hidden.conf");

	ck_assert_int_eq(tier_policy_load(main_file, NULL, e, &p), 0);
	ck_assert_uint_eq(tier_errors_count(e), 0);
	ck_assert_uint_eq(tier_policy_file_count(p), 3);
	ck_assert_str_eq(tier_policy_file(p, 0), main_file);
	ck_assert_str_eq(strrchr(tier_policy_file(p, 1), '/'), "/10-a.conf");
	ck_assert_str_eq(strrchr(tier_policy_file(p, 2), '/'), "/20-b.conf");
	ck_assert_uint_eq(tier_policy_rule_count(p), 3);
	ck_assert_str_eq(tier_rule_name(tier_policy_rule(p, 0)), "main");
	ck_assert_str_eq(tier_rule_name(tier_policy_rule(p, 1)), "a");
	ck_assert_str_eq(tier_rule_name(tier_policy_rule(p, 2)), "b");
	ck_assert_int_eq(tier_class_mode(tier_rule_class(tier_policy_rule(p, 0))), TIER_MODE_PROMOTE);
	/* a drop-in may override a [daemon] setting */
	ck_assert(!tier_policy_daemon(p)->dry_run);
	ck_assert_str_eq(strrchr(tier_policy_daemon(p)->include, '/'), "/tierd.conf.d");
	tier_policy_unref(p);

	/* "" disables drop-ins: now the class is missing */
	p = NULL;
	ck_assert_int_eq(tier_policy_load(main_file, "", e, &p), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert_str_eq(tier_errors_message(e, 0), "rule 'main' names unknown class 'gold'");
	ck_assert_str_eq(tier_errors_file(e, 0), main_file);
	ck_assert_uint_eq(tier_errors_line(e, 0), 4);
	tier_errors_free(e);

	/* duplicate class across files names the first definition */
	e = tier_errors_new();
	free(write_tmp(fx, "etc/tierd.conf.d/50-dup.conf", "\n[class:gold]\n"));
	ck_assert_int_eq(tier_policy_load(main_file, NULL, e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert_strstr(tier_errors_get(e, 0),
			 "/50-dup.conf:2: duplicate class 'gold' (first defined at ");
	ck_assert_strstr(tier_errors_get(e, 0), "10-a.conf:1)");
	tier_errors_free(e);

	/* explicit directory */
	e = tier_errors_new();
	free(write_tmp(fx, "other/1.conf", "[class:gold]\n"));
	ck_assert(asprintf(&dir, "%s/other", fx->root) >= 0);
	ck_assert_int_eq(tier_policy_load(main_file, dir, e, &p), 0);
	ck_assert_uint_eq(tier_policy_file_count(p), 2);
	ck_assert_str_eq(tier_policy_daemon(p)->include, dir);
	tier_policy_unref(p);
	free(dir);
	/* a missing explicit directory is an error; a missing default one is not */
	ck_assert_int_eq(tier_policy_load(main_file, "/nonexistent/tierd.d", e, &p), -EINVAL);
	ck_assert_strstr(tier_errors_get(e, 0), "/nonexistent/tierd.d: cannot open drop-in directory");
	tier_errors_free(e);
	free(main_file);
	fx_free(fx);
}
END_TEST

START_TEST(test_include)
{
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	char *main_file;

	main_file = write_tmp(fx, "etc/main.conf",
			      "[daemon]\ninclude = policy.d\n[rule:r]\nclass = x\ncgroup = /x\n");
	free(write_tmp(fx, "etc/policy.d/a.conf", "[class:x]\n"));
	free(write_tmp(fx, "etc/main.conf.d/a.conf", "[class:y]\n")); /* not read */
	ck_assert_int_eq(tier_policy_load(main_file, NULL, e, &p), 0);
	ck_assert_ptr_nonnull(tier_policy_find_class(p, "x"));
	ck_assert_ptr_null(tier_policy_find_class(p, "y"));
	ck_assert_str_eq(strrchr(tier_policy_daemon(p)->include, '/'), "/policy.d");
	tier_policy_unref(p);
	/* include inside a drop-in is an error */
	free(write_tmp(fx, "etc/policy.d/b.conf", "[daemon]\ninclude = /x\n"));
	ck_assert_int_eq(tier_policy_load(main_file, NULL, e, &p), -EINVAL);
	ck_assert_strstr(tier_errors_get(e, 0), "b.conf:2: 'include' is only allowed in the main file");
	tier_errors_free(e);
	free(main_file);
	fx_free(fx);
}
END_TEST

START_TEST(test_missing_file)
{
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load("/nonexistent/tierd.conf", NULL, e, &p), -ENOENT);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert_str_eq(tier_errors_get(e, 0),
			 "/nonexistent/tierd.conf: cannot read: No such file or directory");
	ck_assert_uint_eq(tier_errors_line(e, 0), 0);
	/* not a regular file: a policy error, not a system error */
	ck_assert_int_eq(tier_policy_load("/", NULL, e, &p), -EINVAL);
	ck_assert_str_eq(tier_errors_get(e, 1), "/: not a regular file (a directory)");
	ck_assert_int_eq(tier_policy_load(NULL, NULL, e, &p), -EINVAL);
	tier_errors_free(e);
}
END_TEST

static char *fx_path(struct fx *fx, const char *rel)
{
	char *path;

	ck_assert(asprintf(&path, "%s/%s", fx->root, rel) >= 0);
	return path;
}

/* A sparse file of size bytes: nothing is written but the length. */
static char *sparse(struct fx *fx, const char *rel, off_t size)
{
	char *path = fx_path(fx, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	close(fd);
	return path;
}

/* The main file is a FIFO, a character device, a directory: refused at once
 * (a FIFO without a writer must not block), each as "FILE: message". */
START_TEST(test_main_not_regular)
{
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	char *fifo = fx_path(fx, "fifo.conf"), *want;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(tier_policy_load(fifo, NULL, e, &p), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert(asprintf(&want, "%s: not a regular file", fifo) >= 0);
	ck_assert_str_eq(tier_errors_get(e, 0), want);
	ck_assert_uint_eq(tier_errors_line(e, 0), 0);
	ck_assert_str_eq(tier_errors_message(e, 0), "not a regular file");
	free(want);
	ck_assert_int_eq(tier_policy_load("/dev/zero", NULL, e, &p), -EINVAL);
	ck_assert_str_eq(tier_errors_get(e, 1), "/dev/zero: not a regular file");
	ck_assert_int_eq(tier_policy_load(fx->root, NULL, e, &p), -EINVAL);
	ck_assert_str_eq(tier_errors_message(e, 2), "not a regular file (a directory)");
	ck_assert_uint_eq(tier_errors_count(e), 3);
	tier_errors_free(e);
	free(fifo);
	fx_free(fx);
}
END_TEST

/* Every policy file is read up to the documented limit, and a larger one is
 * refused before it is read (a 1 GiB sparse file costs nothing). */
START_TEST(test_size_limit)
{
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	char *huge = sparse(fx, "huge.conf", 1ll << 30), *want;
	char *at = sparse(fx, "at.conf", POLICY_FILE_LIMIT);
	char *over = sparse(fx, "over.conf", POLICY_FILE_LIMIT + 1);
	char *buf;

	ck_assert_int_eq(tier_policy_load(huge, "", e, &p), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert(asprintf(&want, "%s: file too large (a policy file may have at most 16 MiB)",
			   huge) >= 0);
	ck_assert_str_eq(tier_errors_get(e, 0), want);
	free(want);
	/* one more byte than the limit is too large */
	ck_assert_int_eq(tier_policy_load(over, "", e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 2);
	ck_assert_strstr(tier_errors_get(e, 1), "over.conf: file too large");
	/* exactly the limit is read whole: one line of NUL bytes */
	ck_assert_int_eq(tier_policy_load(at, "", e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 3);
	ck_assert_str_eq(tier_errors_message(e, 2), "NUL byte in line");
	ck_assert_uint_eq(tier_errors_line(e, 2), 1);
	tier_errors_free(e);

	/* a huge drop-in: refused, the other files still checked */
	e = tier_errors_new();
	free(write_tmp(fx, "etc/tierd.conf", "[rule:r]\nclass = gold\ncgroup = /x\n"));
	free(write_tmp(fx, "etc/tierd.conf.d/10-gold.conf", "[class:gold]\n"));
	free(write_tmp(fx, "etc/tierd.conf.d/30-bad.conf", "[class:gold]\n"));
	free(sparse(fx, "etc/tierd.conf.d/20-huge.conf", 1ll << 30));
	free(huge);
	huge = fx_path(fx, "etc/tierd.conf");
	ck_assert_int_eq(tier_policy_load(huge, NULL, e, &p), -EINVAL);
	ck_assert_uint_eq(tier_errors_count(e), 2);
	ck_assert_strstr(tier_errors_get(e, 0), "/etc/tierd.conf.d/20-huge.conf: file too large");
	ck_assert_strstr(tier_errors_get(e, 1), "/etc/tierd.conf.d/30-bad.conf:1: duplicate class");
	tier_errors_free(e);

	/* the same limit for a buffer */
	e = tier_errors_new();
	buf = calloc(1, POLICY_FILE_LIMIT + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(tier_policy_load_buffer("b.conf", buf, POLICY_FILE_LIMIT + 1, e, &p),
			 -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(tier_errors_get(e, 0),
			 "b.conf: file too large (a policy file may have at most 16 MiB)");
	free(buf);
	tier_errors_free(e);
	free(huge);
	free(at);
	free(over);
	fx_free(fx);
}
END_TEST

/* A drop-in must be a regular file or a symlink to one: anything else is an
 * error with its file name, never skipped, and the others are still read. */
START_TEST(test_dropin_not_regular)
{
	static const char *const want[] = {
		"30-dangling.conf: cannot read: dangling symlink",
		"40-loop.conf: cannot read: symlink loop (Too many levels of symbolic links)",
		"50-dir.conf: not a regular file (a directory)",
		"60-fifo.conf: not a regular file",
		"70-dev.conf: not a regular file",
	};
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	char *main_file, *d = fx_path(fx, "etc/tierd.conf.d"), *x;
	int dfd;

	main_file = write_tmp(fx, "etc/tierd.conf", "[rule:r]\nclass = gold\ncgroup = /x\n");
	free(write_tmp(fx, "etc/tierd.conf.d/10-ok.conf", "[class:silver]\n"));
	free(write_tmp(fx, "shared/gold.conf", "[class:gold]\nmode = promote\n"));
	dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	/* a symlink to a regular file is what admins do: fine */
	ck_assert_int_eq(symlinkat("../../shared/gold.conf", dfd, "20-link.conf"), 0);
	ck_assert_int_eq(symlinkat("nonexistent.conf", dfd, "30-dangling.conf"), 0);
	ck_assert_int_eq(symlinkat("40-loop.conf", dfd, "40-loop.conf"), 0);
	ck_assert_int_eq(mkdirat(dfd, "50-dir.conf", 0755), 0);
	ck_assert_int_eq(mkfifoat(dfd, "60-fifo.conf", 0600), 0);
	ck_assert_int_eq(symlinkat("/dev/zero", dfd, "70-dev.conf"), 0);

	ck_assert_int_eq(tier_policy_load(main_file, NULL, e, &p), -EINVAL);
	ck_assert_ptr_null(p);
	if (tier_errors_count(e) != sizeof(want) / sizeof(want[0]))
		for (size_t i = 0; i < tier_errors_count(e); i++)
			fprintf(stderr, "dropin_not_regular: %s\n", tier_errors_get(e, i));
	ck_assert_uint_eq(tier_errors_count(e), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert(asprintf(&x, "%s/%s", d, want[i]) >= 0);
		ck_assert_str_eq(tier_errors_get(e, i), x);
		ck_assert_uint_eq(tier_errors_line(e, i), 0);
		free(x);
	}
	tier_errors_free(e);

	/* without the bad ones it loads, with the symlinked file */
	ck_assert_int_eq(unlinkat(dfd, "30-dangling.conf", 0), 0);
	ck_assert_int_eq(unlinkat(dfd, "40-loop.conf", 0), 0);
	ck_assert_int_eq(unlinkat(dfd, "50-dir.conf", AT_REMOVEDIR), 0);
	ck_assert_int_eq(unlinkat(dfd, "60-fifo.conf", 0), 0);
	ck_assert_int_eq(unlinkat(dfd, "70-dev.conf", 0), 0);
	close(dfd);
	e = tier_errors_new();
	ck_assert_int_eq(tier_policy_load(main_file, NULL, e, &p), 0);
	ck_assert_uint_eq(tier_errors_count(e), 0);
	ck_assert_uint_eq(tier_policy_file_count(p), 3);
	ck_assert_str_eq(strrchr(tier_policy_file(p, 2), '/'), "/20-link.conf");
	ck_assert_int_eq(tier_class_mode(tier_rule_class(tier_policy_rule(p, 0))), TIER_MODE_PROMOTE);
	tier_policy_unref(p);
	tier_errors_free(e);
	free(main_file);
	free(d);
	fx_free(fx);
}
END_TEST

/* 100,000 rules load, in order, with their names, lines and classes found,
 * duplicates still detected, and the prefix index finds a rule deep down. */
#define MANY_RULES 100000

static void write_many(const char *path, const char *tail)
{
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	for (unsigned c = 0; c < 20; c++)
		fprintf(f, "[class:c%u]\nmode = %s\n", c, c % 2 ? "promote" : "full");
	for (unsigned i = 0; i < MANY_RULES; i++)
		fprintf(f, "[rule:r%u]\nclass = c%u\ncgroup = /tenant-%u.slice/**\n"
			   "unit = app-%u-*.service\n\n",
			i, i % 20, i, i);
	fputs(tail, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_many_rules)
{
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL;
	char *file = fx_path(fx, "many.conf"), *want;
	const struct tier_rule *r;
	const struct obs_cg cg[3] = {
		{ .path = "/tenant-77777.slice/db/x" },
		{ .path = "/tenant-100000.slice" },
		{ .path = "/other.slice/a.service", .unit = "app-99999-web.service" },
	};
	struct tier_observed *obs = obs_build(1ull << 34, cg, 3);
	struct tier_plan *plan = NULL;

	write_many(file, "");
	ck_assert_int_eq(tier_policy_load(file, "", e, &p), 0);
	ck_assert_uint_eq(tier_errors_count(e), 0);
	ck_assert_uint_eq(tier_policy_class_count(p), 20);
	ck_assert_uint_eq(tier_policy_rule_count(p), MANY_RULES);
	ck_assert_str_eq(tier_rule_name(tier_policy_rule(p, MANY_RULES - 1)), "r99999");
	r = tier_policy_find_rule(p, "r77777");
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_eq(r, tier_policy_rule(p, 77777));
	ck_assert_uint_eq(tier_rule_line(r), 41 + 5 * 77777);
	ck_assert_ptr_eq(tier_rule_class(r), tier_policy_find_class(p, "c17"));
	ck_assert_uint_eq(tier_rule_matcher_count(r), 2);
	ck_assert_ptr_null(tier_policy_find_rule(p, "r100000"));
	ck_assert_ptr_null(tier_policy_find_class(p, "c20"));
	for (unsigned i = 0; i < MANY_RULES; i += 997) {
		char name[32];

		snprintf(name, sizeof(name), "r%u", i);
		ck_assert_ptr_eq(tier_policy_find_rule(p, name), tier_policy_rule(p, i));
	}
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(tier_plan_entry(plan, 0))), "r77777");
	ck_assert_str_eq(tier_class_name(tier_plan_entry_class(tier_plan_entry(plan, 0))), "c17");
	ck_assert_ptr_null(tier_plan_entry_rule(tier_plan_entry(plan, 1)));
	ck_assert_str_eq(tier_rule_name(tier_plan_entry_rule(tier_plan_entry(plan, 2))), "r99999");
	ck_assert_int_eq(tier_matcher_kind(tier_plan_entry_matcher(tier_plan_entry(plan, 2))), TIER_MATCH_UNIT);
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_policy_unref(p);

	/* a duplicate at the very end names the first definition */
	write_many(file, "[rule:r5]\nclass = c0\ncgroup = /y\n");
	p = NULL;
	ck_assert_int_eq(tier_policy_load(file, "", e, &p), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(tier_errors_count(e), 1);
	ck_assert(asprintf(&want, "%s:%u: duplicate rule 'r5' (first defined at %s:%u)", file,
			   41 + 5 * MANY_RULES, file, 41 + 5 * 5) >= 0);
	ck_assert_str_eq(tier_errors_get(e, 0), want);
	free(want);
	tier_errors_free(e);
	free(file);
	fx_free(fx);
}
END_TEST

/* tier_amount_format: the policy's own syntax, which parses back to the same amount. */
START_TEST(test_amount_format)
{
	static const char *const in[] = { "1536M", "3G", "100", "1025K", "12.5%", "0.05%",
					  "50%", "max" };
	static const char *const out[] = { "1536M", "3G", "100", "1025K", "12.5%", "0.05%",
					   "50%", "max" };
	struct tier_amount unset = { TIER_AMOUNT_UNSET, 0 }, exact = { TIER_AMOUNT_BYTES, 1ull << 40 };
	char buf[TIER_AMOUNT_FORMAT_MAX], text[512];
	struct fx *fx = fx_new();
	struct tier_errors *e = tier_errors_new();
	struct tier_policy *p = NULL, *p2 = NULL;
	char *file;
	size_t o = 0;

	ck_assert_ptr_null(tier_amount_format(&unset, buf, sizeof(buf)));
	ck_assert_ptr_null(tier_amount_format(NULL, buf, sizeof(buf)));
	ck_assert_str_eq(tier_amount_format(&exact, buf, sizeof(buf)), "1T");
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "[class:c%zu]\n%s = %s\n", i,
				      strchr(in[i], '%') ? "toptier_min" : "toptier_max", in[i]);
	file = write_tmp(fx, "a.conf", text);
	ck_assert_int_eq(tier_policy_load(file, "", e, &p), 0);
	o = 0;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		const struct tier_class *c = tier_policy_class(p, i);
		const struct tier_amount *a = strchr(in[i], '%') ? tier_class_toptier_min(c) : tier_class_toptier_max(c);

		ck_assert_str_eq(tier_amount_format(a, buf, sizeof(buf)), out[i]);
		o += (size_t)snprintf(text + o, sizeof(text) - o, "[class:c%zu]\n%s = %s\n", i,
				      strchr(in[i], '%') ? "toptier_min" : "toptier_max", buf);
	}
	free(file);
	file = write_tmp(fx, "b.conf", text);
	ck_assert_int_eq(tier_policy_load(file, "", e, &p2), 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		const struct tier_class *c1 = tier_policy_class(p, i), *c2 = tier_policy_class(p2, i);

		ck_assert_int_eq(tier_class_toptier_min(c1)->kind, tier_class_toptier_min(c2)->kind);
		ck_assert_uint_eq(tier_class_toptier_min(c1)->value, tier_class_toptier_min(c2)->value);
		ck_assert_int_eq(tier_class_toptier_max(c1)->kind, tier_class_toptier_max(c2)->kind);
		ck_assert_uint_eq(tier_class_toptier_max(c1)->value, tier_class_toptier_max(c2)->value);
	}
	/* A short buffer truncates, never overflows. */
	ck_assert_str_eq(tier_amount_format(tier_class_toptier_max(tier_policy_class(p, 0)), buf, 3), "15");
	tier_policy_unref(p2);
	tier_policy_unref(p);
	tier_errors_free(e);
	free(file);
	fx_free(fx);
}
END_TEST

Suite *suite_policy(void)
{
	Suite *s = suite_create("policy");
	TCase *tb = tcase_create("bad");
	TCase *tg = tcase_create("good");
	TCase *tf = tcase_create("files");
	TCase *ts = tcase_create("scale");

	tcase_add_loop_test(tb, test_bad_policy, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tb, test_nul_byte);
	tcase_add_test(tb, test_all_errors);
	tcase_add_test(tb, test_missing_file);
	tcase_add_test(tb, test_error_limit);
	suite_add_tcase(s, tb);
	tcase_add_test(tg, test_good_policy);
	tcase_add_test(tg, test_defaults_and_edge_syntax);
	tcase_add_test(tg, test_long_lines);
	tcase_add_test(tg, test_page_cache);
	tcase_add_test(tg, test_dropins);
	tcase_add_test(tg, test_include);
	tcase_add_test(tg, test_amount_format);
	suite_add_tcase(s, tg);
	tcase_add_test(tf, test_main_not_regular);
	tcase_add_test(tf, test_size_limit);
	tcase_add_test(tf, test_dropin_not_regular);
	suite_add_tcase(s, tf);
	/* a hang guard only: this loads in about a second under ASan */
	tcase_set_timeout(ts, 120);
	tcase_add_test(ts, test_many_rules);
	suite_add_tcase(s, ts);
	return s;
}
