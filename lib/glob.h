/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBTIER_GLOB_H
#define LIBTIER_GLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gtok;
struct gclass;

/* A literal run of a pattern: prefix[off .. off + len) */
struct glob_run {
	uint32_t off, len;
};

/*
 * A compiled pattern is one allocation whatever its length, starting at tok:
 * 4-byte tokens, the literal runs, the '[...]' bitmaps and one text block
 * with prefix, suffix and runs; so a policy of many rules stays small and is
 * quick to load and to free.
 */
struct glob {
	struct gtok *tok;	/* the allocation */
	struct gclass *classes;	/* bitmaps of the G_CLASS tokens */
	struct glob_run *runs;	/* literal runs between prefix and suffix, in order */
	const char *prefix;	/* literal prefix, NUL, literal suffix, NUL, runs */
	uint32_t n, n_runs;
	uint32_t prefix_len, suffix_len;
	unsigned flags;
	bool literal;		/* no wildcards at all: strcmp */
};

int glob_compile(const char *pattern, unsigned flags, struct glob *ret);
void glob_free(struct glob *g);
bool glob_match_compiled(const struct glob *g, const char *s);
bool glob_match_len(const struct glob *g, const char *s, size_t len);
bool glob_match_nfa(const struct glob *g, const char *s);

#endif
