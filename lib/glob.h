/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBTIER_GLOB_H
#define LIBTIER_GLOB_H

#include <stdbool.h>
#include <stddef.h>

struct gtok;

struct glob {
	struct gtok *tok;
	size_t n;
	unsigned flags;
	/* fast rejection: literal prefix and suffix of the pattern */
	char *prefix;
	size_t prefix_len;
	char *suffix;
	size_t suffix_len;
	bool literal;		/* no wildcards at all: strcmp */
	/* literal runs between prefix and suffix; they must occur in order */
	char **runs;
	size_t *run_len;
	size_t n_runs;
};

int glob_compile(const char *pattern, unsigned flags, struct glob *ret);
void glob_free(struct glob *g);
bool glob_match_compiled(const struct glob *g, const char *s);
bool glob_match_len(const struct glob *g, const char *s, size_t len);
bool glob_match_nfa(const struct glob *g, const char *s);

#endif
