// SPDX-License-Identifier: LGPL-2.1-or-later
/* controller/shared/escape.c: names for terminals, logs and exporters (issue 12, item 13). */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fixture.h"

START_TEST(test_text_escape)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain/name.service", "plain/name.service" },
		{ "a\nb", "a\\nb" },
		{ "\033[31mred", "\\x1b[31mred" },
		{ "bad-\xff", "bad-\\xff" },
		{ "back\\slash", "back\\\\slash" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },	/* valid UTF-8 stays */
		{ "c1-\xc2\x9b", "c1-\\xc2\\x9b" },	/* C1 CSI is a control */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },	/* surrogate */
		{ "\x7f", "\\x7f" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = text_escape(cases[i].in), *u;

		ck_assert_str_eq(e, cases[i].out);
		/* no control bytes, valid UTF-8 */
		for (const char *p = e; *p; p++)
			ck_assert((unsigned char)*p >= 0x20 && *p != 0x7f);
		u = utf8_sanitize(e);
		ck_assert_str_eq(u, e);
		free(u);
		ck_assert_int_eq(text_is_plain(cases[i].in), strcmp(cases[i].in, cases[i].out) == 0);
		free(e);
	}
}
END_TEST

START_TEST(test_text_escape_buf)
{
	char buf[8];

	ck_assert_str_eq(text_escape_buf("abc", buf, sizeof(buf)), "abc");
	ck_assert_str_eq(text_escape_buf("abcdefg", buf, sizeof(buf)), "abcdefg");
	ck_assert_str_eq(text_escape_buf("abcdefgh", buf, sizeof(buf)), "abcd...");
	/* an escape is never cut in half */
	ck_assert_str_eq(text_escape_buf("ab\n\n\n", buf, sizeof(buf)), "ab\\n...");
	ck_assert_str_eq(text_escape_buf("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", buf, sizeof(buf)),
			 "\xc3\xa9\xc3\xa9...");
	ck_assert_str_eq(text_escape_buf("abc", buf, 1), "");
}
END_TEST

START_TEST(test_utf8_sanitize)
{
	char *s = utf8_sanitize("bad-\xff\xc3\xa9\xc3");

	ck_assert_str_eq(s, "bad-\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd");
	free(s);
}
END_TEST

START_TEST(test_utf8_make_valid)
{
	char *s = strdup("ok-\xc3\xa9"), *before = s;

	ck_assert(utf8_is_valid(s));
	ck_assert(utf8_is_valid("a\nb")); /* controls are valid UTF-8 */
	ck_assert(!utf8_is_valid("bad-\xff"));
	ck_assert_int_eq(utf8_make_valid(&s), 0);
	ck_assert_ptr_eq(s, before); /* valid: untouched */
	free(s);
	s = strdup("bad-\xff");
	ck_assert_int_eq(utf8_make_valid(&s), 0);
	ck_assert_str_eq(s, "bad-\xef\xbf\xbd");
	free(s);
}
END_TEST

Suite *suite_escape(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("escape");

	tcase_add_test(tc, test_text_escape);
	tcase_add_test(tc, test_text_escape_buf);
	tcase_add_test(tc, test_utf8_sanitize);
	tcase_add_test(tc, test_utf8_make_valid);
	suite_add_tcase(s, tc);
	return s;
}
