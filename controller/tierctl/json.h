/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json.h: a minimal streaming JSON writer for tierctl's --json output.
 *
 * The writer keeps track of commas and nesting itself; callers emit
 * begin/end pairs, keys and values in order. Output is pretty-printed with
 * two-space indentation. Strings are escaped per RFC 8259; bytes that are
 * not valid UTF-8 are written as U+FFFD so the document always parses.
 */
#ifndef TIERCTL_JSON_H
#define TIERCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no element written yet at this level */
	bool kind[JSON_MAX_DEPTH];  /* true: array, false: object */
	bool after_key;             /* a key was written, its value comes next */
	bool overflow;              /* nesting deeper than JSON_MAX_DEPTH */
	bool started;               /* something was written */
};

void json_init(struct json *j, FILE *f);
/*
 * Finish the document: close whatever is still open (a value for a pending
 * key is null) and end with a newline. Nothing is written if nothing was
 * started. 0, or -EINVAL if containers had to be closed or nesting overflowed.
 */
int json_finish(struct json *j);

void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);

void json_string(struct json *j, const char *s); /* NULL writes null */
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* Convenience: key and value in one call. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, int64_t v);
void json_kv_uint(struct json *j, const char *key, uint64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_null(struct json *j, const char *key);

/* Write s as a quoted, escaped JSON string to f (exported for tests). */
void json_write_string(FILE *f, const char *s);

#endif
