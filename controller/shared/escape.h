/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * escape.h: names that others chose (cgroup names, runtime JSON, policy
 * text) made safe for terminals, logs and exporters.
 *
 * cgroup names may hold newlines, ESC sequences and bytes that are not
 * UTF-8. Text output escapes them; JSON (json.c) and the metrics exporter
 * need valid UTF-8 instead.
 */
#ifndef TIERD_ESCAPE_H
#define TIERD_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not valid.
 * Valid is what sd-bus accepts in a string (and so JSON and the metrics
 * text format get too): the shortest encoding of a Unicode scalar value
 * (no overlong forms, no surrogates U+D800..U+DFFF, nothing above
 * U+10FFFF) that is not a noncharacter (U+FDD0..U+FDEF, U+nFFFE, U+nFFFF).
 * The one check of every string sent on the bus, in JSON or in metrics.
 */
size_t utf8_seq_len(const unsigned char *s);

/* True if s is valid UTF-8 as utf8_seq_len() says (control characters allowed). */
bool utf8_is_valid(const char *s);

/* True if s is valid UTF-8 without anything text_escape() escapes. */
bool text_is_plain(const char *s);

/*
 * s for a terminal or a log line: valid UTF-8 printable text as is; '\\',
 * control characters (newline, ESC, DEL, ...), bytes that are not valid
 * UTF-8 (noncharacters included) and the characters terminals obey rather
 * than show (C1 controls U+0080..U+009F, the bidirectional controls U+061C,
 * U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, and U+2028, U+2029) as
 * C escapes of their bytes (\n, \t, \\, \x1b, \xff, \xe2\x80\xae).
 * malloc'ed; NULL on ENOMEM.
 */
char *text_escape(const char *s);

/*
 * The same for the one character at s (not at its NUL): its escape into
 * out (TEXT_ESCAPE_CHAR_MAX bytes, not NUL-terminated), *ret_len its
 * length; returns how many bytes of s it consumed.  For writers with an
 * escaping of their own on top (tierd-metrics' label values).
 */
#define TEXT_ESCAPE_CHAR_MAX 16
size_t text_escape_char(const char *s, char *out, size_t *ret_len);

/*
 * The same into a caller's buffer, truncated with "..." if it does not fit:
 * for log lines and messages that must not allocate. Returns buf.
 */
const char *text_escape_buf(const char *s, char *buf, size_t size);

/* s as valid UTF-8: each byte utf8_seq_len() refuses becomes U+FFFD
 * (a noncharacter: three of them). malloc'ed. */
char *utf8_sanitize(const char *s);

/* Replace the malloc'ed *s by utf8_sanitize(*s) if it is not valid UTF-8:
 * 0, or -ENOMEM with *s untouched. */
int utf8_make_valid(char **s);

#endif /* TIERD_ESCAPE_H */
