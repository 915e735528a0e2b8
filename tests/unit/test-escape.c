// SPDX-License-Identifier: LGPL-2.1-or-later
/* controller/shared/escape.c: names for terminals, logs and exporters (issue 12, item 13). */
#include <stdint.h>
#include <stdio.h>
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
		/* noncharacters are not valid (sd-bus refuses them): byte by byte */
		{ "nc-\xef\xbf\xbe", "nc-\\xef\\xbf\\xbe" },		/* U+FFFE */
		{ "\xef\xb7\x90", "\\xef\\xb7\\x90" },			/* U+FDD0 */
		{ "\xf4\x8f\xbf\xbf", "\\xf4\\x8f\\xbf\\xbf" },		/* U+10FFFF */
		{ "\xef\xb7\xb0", "\xef\xb7\xb0" },			/* U+FDF0 is fine */
		/* bidirectional controls and separators: escaped, never obeyed */
		{ "/good\xe2\x80\xaetxt.exe", "/good\\xe2\\x80\\xaetxt.exe" },	/* U+202E */
		{ "\xe2\x80\xaa\xe2\x80\x8e\xe2\x80\x8f", "\\xe2\\x80\\xaa\\xe2\\x80\\x8e\\xe2\\x80\\x8f" },
		{ "\xe2\x81\xa6x\xe2\x81\xa9", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9" },	/* U+2066, U+2069 */
		{ "\xd8\x9c", "\\xd8\\x9c" },				/* U+061C */
		{ "\xe2\x80\xa8", "\\xe2\\x80\\xa8" },			/* U+2028 */
		{ "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5", "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5" },
		{ "\xc2\x85", "\\xc2\\x85" },				/* NEL, a C1 control */
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
	/* a bidi control is escaped whole or not at all */
	ck_assert_str_eq(text_escape_buf("ab\xe2\x80\xae", buf, sizeof(buf)), "ab...");
}
END_TEST

/* What sd-bus accepts in a string (systemd's utf8_is_valid() and
 * unichar_is_valid()), decoded independently of escape.c. */
static bool bus_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		unsigned n = *s < 0x80 ? 1 : *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc0 ? 2 : 0;
		uint32_t cp;

		if (n == 0)
			return false;
		cp = n == 1 ? *s : *s & (0x7f >> n);
		for (unsigned i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
			return false;	/* overlong */
		if (cp >= 0x110000 || (cp & 0xfffff800) == 0xd800 ||
		    (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
			return false;
		s += n;
	}
	return true;
}

/* Every string that goes to the bus passes through utf8_is_valid() and
 * utf8_sanitize() (tierd-bus.c): what they let through sd-bus takes, and
 * one bad name costs its own bytes (U+FFFD each), never the reply. */
START_TEST(test_utf8_bus)
{
	static const char *const bad[] = {
		"\xef\xbf\xbe",		/* U+FFFE */
		"\xef\xbf\xbf",		/* U+FFFF */
		"\xef\xb7\x90",		/* U+FDD0 */
		"\xef\xb7\xaf",		/* U+FDEF */
		"\xf0\x9f\xbf\xbe",	/* U+1FFFE */
		"\xf4\x8f\xbf\xbf",	/* U+10FFFF */
		"\xed\xa0\x80",		/* surrogate U+D800 */
		"\xed\xbf\xbf",		/* surrogate U+DFFF */
		"\xc0\x80",		/* overlong NUL */
		"\xc1\xbf",		/* overlong U+007F */
		"\xe0\x80\xaf",		/* overlong '/' */
		"\xf0\x80\x80\xaf",	/* overlong '/' */
		"\xf4\x90\x80\x80",	/* above U+10FFFF */
		"\xf8\x88\x80\x80\x80",	/* 5-byte form */
		"\xff",
		"\xe2\x82",		/* cut short */
	};
	static const char *const good[] = {
		"\xef\xbf\xbd",		/* U+FFFD */
		"\xef\xb7\x8f",		/* U+FDCF */
		"\xef\xb7\xb0",		/* U+FDF0 */
		"\xf0\x9f\xbf\xbd",	/* U+1FFFD */
		"\xf4\x8f\xbf\xbd",	/* U+10FFFD */
		"\xee\x80\x80",		/* U+E000, private use */
		"\xe2\x80\xae",		/* U+202E: valid (escaped only for terminals) */
		"a\nb\x1b",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char name[32], *u;

		snprintf(name, sizeof(name), "/x/%s/y", bad[i]);
		ck_assert_msg(!bus_valid(name), "case %zu: the test's decoder", i);
		ck_assert_msg(!utf8_is_valid(name), "case %zu passes as valid", i);
		u = utf8_sanitize(name);
		ck_assert_ptr_nonnull(u);
		ck_assert_msg(bus_valid(u), "case %zu: sanitized, sd-bus still refuses it", i);
		ck_assert(strncmp(u, "/x/\xef\xbf\xbd", 6) == 0);
		ck_assert_str_eq(u + strlen(u) - 2, "/y");
		free(u);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		ck_assert_msg(bus_valid(good[i]), "case %zu: the test's decoder", i);
		ck_assert_msg(utf8_is_valid(good[i]), "case %zu refused", i);
	}
}
END_TEST

/* text_escape_char(), the escaper under tierd-metrics' label values: each
 * character's escape, never cut, never a raw control. */
START_TEST(test_text_escape_char)
{
	static const struct {
		const char *in, *out;
		size_t used;
	} t[] = {
		{ "\x1b[", "\\x1b", 1 },
		{ "\xc2\x9bx", "\\xc2\\x9b", 2 },
		{ "\xe2\x80\xaex", "\\xe2\\x80\\xae", 3 },
		{ "\xef\xbf\xbe", "\\xef", 1 },
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 4 },
		{ "\"", "\"", 1 },
		{ "\\", "\\\\", 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char out[TEXT_ESCAPE_CHAR_MAX];
		size_t len, used = text_escape_char(t[i].in, out, &len);

		ck_assert_uint_eq(used, t[i].used);
		ck_assert_uint_le(len, sizeof(out));
		ck_assert_uint_eq(len, strlen(t[i].out));
		ck_assert(memcmp(out, t[i].out, len) == 0);
	}
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
	tcase_add_test(tc, test_utf8_bus);
	tcase_add_test(tc, test_text_escape_char);
	tcase_add_test(tc, test_utf8_make_valid);
	suite_add_tcase(s, tc);
	return s;
}
