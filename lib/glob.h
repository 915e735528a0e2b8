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
};

int glob_compile(const char *pattern, unsigned flags, struct glob *ret);
void glob_free(struct glob *g);
bool glob_match_compiled(const struct glob *g, const char *s);
bool glob_match_nfa(const struct glob *g, const char *s);

#endif
