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

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not valid. */
size_t utf8_seq_len(const unsigned char *s);

/* True if s is valid UTF-8 (control characters allowed). */
bool utf8_is_valid(const char *s);

/* True if s is valid UTF-8 without control characters. */
bool text_is_plain(const char *s);

/*
 * s for a terminal or a log line: valid UTF-8 printable text as is; '\\',
 * control characters (newline, ESC, DEL, ...) and bytes that are not valid
 * UTF-8 as C escapes (\n, \t, \\, \x1b, \xff). malloc'ed; NULL on ENOMEM.
 */
char *text_escape(const char *s);

/*
 * The same into a caller's buffer, truncated with "..." if it does not fit:
 * for log lines and messages that must not allocate. Returns buf.
 */
const char *text_escape_buf(const char *s, char *buf, size_t size);

/* s as valid UTF-8: each invalid byte becomes U+FFFD. malloc'ed. */
char *utf8_sanitize(const char *s);

/* Replace the malloc'ed *s by utf8_sanitize(*s) if it is not valid UTF-8:
 * 0, or -ENOMEM with *s untouched. */
int utf8_make_valid(char **s);

#endif /* TIERD_ESCAPE_H */
