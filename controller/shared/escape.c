// SPDX-License-Identifier: LGPL-2.1-or-later
/* Escaping of untrusted names for terminals, logs and exporters. */
#include <errno.h>
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
	return n;
}

/* The escape of the character at s into out (at least 5 bytes); returns
 * how many bytes of s it consumed and sets *ret_len to the output length. */
static size_t escape_one(const unsigned char *s, char *out, size_t *ret_len)
{
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
	/* not UTF-8, or a C1 control (U+0080..U+009F), which terminals obey */
	if (n == 0 || (c == 0xc2 && s[1] < 0xa0)) {
		*ret_len = (size_t)snprintf(out, 5, "\\x%02x", c);
		return 1;
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
		if (n == 0 || (s[0] == 0xc2 && s[1] < 0xa0))
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

		s += escape_one(s, out + w, &l);
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
		char tmp[5];
		size_t l, used = escape_one(s, tmp, &l);

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
