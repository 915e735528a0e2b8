// SPDX-License-Identifier: LGPL-2.1-or-later
/* Escaping of untrusted names for terminals, logs and exporters. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* noncharacters: sd-bus refuses them in a string (its utf8_is_valid()) */
	if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
		return 0;
	return n;
}

/*
 * Whether the valid sequence at s (of n bytes) is text a terminal or a log
 * viewer obeys rather than shows: the C1 controls U+0080..U+009F (CSI
 * included), the bidirectional controls (Unicode's Bidi_Control: U+061C,
 * U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), which reorder what
 * follows them on the line ("/good<U+202E>txt.exe" shows as
 * "/goodexe.txt"), and the line and paragraph separators U+2028, U+2029.
 */
static bool is_format_control(const unsigned char *s, size_t n)
{
	if (n == 2)
		return (s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xd8 && s[1] == 0x9c);
	if (n != 3)
		return false;
	if (s[0] == 0xe2 && s[1] == 0x80)	/* U+2000..U+203F */
		return s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xa8 && s[2] <= 0xae);
	if (s[0] == 0xe2 && s[1] == 0x81)	/* U+2040..U+207F */
		return s[2] >= 0xa6 && s[2] <= 0xa9;
	return false;
}

size_t text_escape_char(const char *str, char *out, size_t *ret_len)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = *s;
	size_t n;

	switch (c) {
	case '\\':
		memcpy(out, "\\\\", 2);
		*ret_len = 2;
		return 1;
	case '\n':
		memcpy(out, "\\n", 2);
		*ret_len = 2;
		return 1;
	case '\t':
		memcpy(out, "\\t", 2);
		*ret_len = 2;
		return 1;
	case '\r':
		memcpy(out, "\\r", 2);
		*ret_len = 2;
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		*ret_len = (size_t)snprintf(out, 5, "\\x%02x", c);
		return 1;
	}
	n = utf8_seq_len(s);
	/* not UTF-8 (or a noncharacter): the byte alone */
	if (n == 0) {
		*ret_len = (size_t)snprintf(out, 5, "\\x%02x", c);
		return 1;
	}
	/* a control that is valid UTF-8: each of its bytes */
	if (is_format_control(s, n)) {
		*ret_len = 0;
		for (size_t i = 0; i < n; i++)
			*ret_len += (size_t)snprintf(out + *ret_len, 5, "\\x%02x", s[i]);
		return n;
	}
	memcpy(out, s, n);
	*ret_len = n;
	return n;
}

bool utf8_is_valid(const char *str)
{
	for (const unsigned char *s = (const unsigned char *)str; *s;) {
		size_t n = utf8_seq_len(s);

		if (n == 0)
			return false;
		s += n;
	}
	return true;
}

bool text_is_plain(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n;

		if (*s < 0x20 || *s == 0x7f || *s == '\\')
			return false;
		n = utf8_seq_len(s);
		if (n == 0 || is_format_control(s, n))
			return false;
		s += n;
	}
	return true;
}

char *text_escape(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), w = 0;
	char *out;

	if (len > (SIZE_MAX - 1) / 4)
		return NULL;
	out = malloc(len * 4 + 1);
	if (!out)
		return NULL;
	while (*s) {
		size_t l;

		s += text_escape_char((const char *)s, out + w, &l);
		w += l;
	}
	out[w] = '\0';
	return out;
}

const char *text_escape_buf(const char *str, char *buf, size_t size)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t w = 0, w_trunc = 0;

	if (size == 0)
		return buf;
	while (*s) {
		char tmp[TEXT_ESCAPE_CHAR_MAX];
		size_t l, used = text_escape_char((const char *)s, tmp, &l);

		if (w + l + 1 > size) {
			/* cut at an escape boundary where "..." still fits */
			w = 0;
			if (size >= 4) {
				memcpy(buf + w_trunc, "...", 3);
				w = w_trunc + 3;
			}
			break;
		}
		memcpy(buf + w, tmp, l);
		w += l;
		s += used;
		if (w + 4 <= size)
			w_trunc = w;
	}
	buf[w] = '\0';
	return buf;
}

char *utf8_sanitize(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), w = 0;
	char *out;

	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	out = malloc(len * 3 + 1);
	if (!out)
		return NULL;
	while (*s) {
		size_t n = *s < 0x80 ? 1 : utf8_seq_len(s);

		if (n == 0) {
			memcpy(out + w, "\xef\xbf\xbd", 3);
			w += 3;
			s++;
			continue;
		}
		memcpy(out + w, s, n);
		w += n;
		s += n;
	}
	out[w] = '\0';
	return out;
}

int utf8_make_valid(char **s)
{
	char *c;

	if (utf8_is_valid(*s))
		return 0;
	c = utf8_sanitize(*s);
	if (!c)
		return -ENOMEM;
	free(*s);
	*s = c;
	return 0;
}
