// SPDX-License-Identifier: LGPL-2.1-or-later
/* json.c: minimal streaming JSON writer, see json.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "json.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

static void indent(struct json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Called before every value and key: separators and indentation. */
static void before_item(struct json *j)
{
	j->started = true;
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	indent(j);
}

static void container_open(struct json *j, char c)
{
	before_item(j);
	fputc(c, j->f);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->overflow = true;
		return;
	}
	j->depth++;
	j->first[j->depth] = true;
	j->kind[j->depth] = c == '[';
}

static void container_close(struct json *j, char c)
{
	if (j->depth == 0) {
		j->overflow = true;
		return;
	}
	bool empty = j->first[j->depth];

	j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void json_object_begin(struct json *j)
{
	container_open(j, '{');
}

void json_object_end(struct json *j)
{
	container_close(j, '}');
}

void json_array_begin(struct json *j)
{
	container_open(j, '[');
}

void json_array_end(struct json *j)
{
	container_close(j, ']');
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		size_t n;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
				break;
			}
			n = utf8_seq_len(s);
			if (n == 0) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	before_item(j);
	json_write_string(j->f, key);
	fputs(": ", j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	before_item(j);
	if (s)
		json_write_string(j->f, s);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, int64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json *j, uint64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_bool(struct json *j, bool v)
{
	before_item(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	before_item(j);
	fputs("null", j->f);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kv_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

int json_finish(struct json *j)
{
	bool unbalanced = j->depth != 0 || j->after_key;

	if (!j->started)
		return 0;
	if (j->after_key)
		json_null(j);
	/* An error cut the output short: close what is open. */
	while (j->depth > 0)
		container_close(j, j->kind[j->depth] ? ']' : '}');
	fputc('\n', j->f);
	return unbalanced || j->overflow ? -EINVAL : 0;
}
