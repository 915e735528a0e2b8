// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Globs for policy rules: '*', '?', '[...]' (with '!' or '^' negation and
 * ranges), '\' escapes, and with TIER_GLOB_PATHNAME a '**' that crosses '/'.
 *
 * Patterns are compiled to tokens once (at policy load).  Matching is
 * backtracking with a step budget, which is fastest for real patterns; a
 * pathological pattern that exhausts the budget is matched again by an NFA
 * simulation that is O(len(string) * len(pattern)), so no input can make
 * evaluation exponential.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"
#include "glob.h"

enum {
	G_LIT,
	G_ANY,		/* ? */
	G_CLASS,	/* [...] */
	G_STAR,		/* * (no '/' with PATHNAME) */
	G_DSTAR,	/* ** (anything) */
	G_DSTAR_SLASH,	/* '**' + '/' at a segment start: "" or anything ending in '/' */
};

struct gtok {
	unsigned char type;
	unsigned char c;
	unsigned char bits[32];	/* G_CLASS: bitmap of matching bytes */
};

static void class_set(struct gtok *t, unsigned char c)
{
	t->bits[c >> 3] |= (unsigned char)(1u << (c & 7));
}

static bool class_has(const struct gtok *t, unsigned char c)
{
	return t->bits[c >> 3] & (1u << (c & 7));
}

/* Parse the class starting after '['; returns chars consumed or -EINVAL. */
static int parse_class(const char *p, bool pathname, struct gtok *t)
{
	const char *start = p;
	bool neg = false, first = true;

	memset(t->bits, 0, sizeof(t->bits));
	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	for (;;) {
		unsigned char lo, hi;

		if (*p == '\0')
			return -EINVAL;
		if (*p == ']' && !first)
			break;
		first = false;
		if (*p == '\\') {
			p++;
			if (!*p)
				return -EINVAL;
		}
		lo = (unsigned char)*p++;
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			if (*p == '\\') {
				p++;
				if (!*p)
					return -EINVAL;
			}
			hi = (unsigned char)*p++;
			if (hi < lo)
				return -EINVAL;
		}
		for (unsigned c = lo; c <= hi; c++)
			class_set(t, (unsigned char)c);
	}
	p++; /* ']' */
	if (neg)
		for (size_t i = 0; i < sizeof(t->bits); i++)
			t->bits[i] = (unsigned char)~t->bits[i];
	t->bits[0] &= (unsigned char)~1u; /* never NUL */
	if (pathname)
		t->bits['/' >> 3] &= (unsigned char)~(1u << ('/' & 7));
	return (int)(p - start);
}

int glob_compile(const char *pattern, unsigned flags, struct glob *ret)
{
	bool pathname = flags & TIER_GLOB_PATHNAME;
	size_t len = strlen(pattern), n = 0;
	struct gtok *tok;
	const char *p = pattern;

	tok = calloc(len + 1, sizeof(*tok));
	if (!tok)
		return -ENOMEM;
	while (*p) {
		struct gtok *t = &tok[n];

		switch (*p) {
		case '*':
			if (p[1] == '*') {
				const char *st = p;

				while (*p == '*')
					p++;
				if (!pathname) {
					t->type = G_STAR;
				} else if (*p == '/' && (st == pattern || st[-1] == '/')) {
					/* "**" + "/" at a segment start may match nothing */
					t->type = G_DSTAR_SLASH;
					p++;
				} else {
					t->type = G_DSTAR;
				}
			} else {
				p++;
				t->type = G_STAR;
			}
			/* collapse "**" runs of equivalent stars */
			if (n > 0 && tok[n - 1].type == t->type && t->type != G_DSTAR_SLASH)
				continue;
			n++;
			break;
		case '?':
			t->type = G_ANY;
			p++;
			n++;
			break;
		case '[': {
			int r = parse_class(p + 1, pathname, t);

			if (r < 0) {
				free(tok);
				return r;
			}
			t->type = G_CLASS;
			p += 1 + r;
			n++;
			break;
		}
		case '\\':
			p++;
			if (!*p) {
				free(tok);
				return -EINVAL;
			}
			/* fallthrough */
		default:
			t->type = G_LIT;
			t->c = (unsigned char)*p++;
			n++;
			break;
		}
	}
	ret->tok = tok;
	ret->n = n;
	ret->flags = flags;
	return 0;
}

void glob_free(struct glob *g)
{
	free(g->tok);
	g->tok = NULL;
	g->n = 0;
}

static bool tok_match_char(const struct gtok *t, unsigned char c, bool pathname)
{
	switch (t->type) {
	case G_LIT:
		return t->c == c;
	case G_ANY:
		return c && !(pathname && c == '/');
	case G_CLASS:
		return class_has(t, c);
	default:
		return false;
	}
}

/* 1 match, 0 no match, -1 budget exhausted. */
static int bt(const struct gtok *tok, size_t nt, size_t i, const char *s, bool pathname,
	      long *budget)
{
	for (;;) {
		const struct gtok *t;

		if (--*budget < 0)
			return -1;
		if (i == nt)
			return *s == '\0';
		t = &tok[i];
		switch (t->type) {
		case G_LIT:
		case G_ANY:
		case G_CLASS:
			if (!*s || !tok_match_char(t, (unsigned char)*s, pathname))
				return 0;
			i++;
			s++;
			continue;
		case G_STAR:
			if (i + 1 == nt)
				return !pathname || !strchr(s, '/');
			for (const char *q = s;; q++) {
				int r;

				if (tok[i + 1].type != G_LIT || (unsigned char)*q == tok[i + 1].c) {
					r = bt(tok, nt, i + 1, q, pathname, budget);
					if (r)
						return r;
				}
				if (!*q || (pathname && *q == '/'))
					return 0;
			}
		case G_DSTAR:
			if (i + 1 == nt)
				return 1;
			for (const char *q = s;; q++) {
				int r;

				if (tok[i + 1].type != G_LIT || (unsigned char)*q == tok[i + 1].c) {
					r = bt(tok, nt, i + 1, q, pathname, budget);
					if (r)
						return r;
				}
				if (!*q)
					return 0;
			}
		case G_DSTAR_SLASH: {
			int r = bt(tok, nt, i + 1, s, pathname, budget);

			if (r)
				return r;
			for (const char *q = s; *q; q++) {
				if (*q != '/')
					continue;
				r = bt(tok, nt, i + 1, q + 1, pathname, budget);
				if (r)
					return r;
			}
			return 0;
		}
		default:
			return 0;
		}
	}
}

static void closure(const struct gtok *tok, size_t nt, unsigned char *set)
{
	for (size_t i = 0; i < nt; i++)
		if (set[i] && (tok[i].type == G_STAR || tok[i].type == G_DSTAR ||
			       tok[i].type == G_DSTAR_SLASH))
			set[i + 1] = 1;
}

static bool nfa(const struct gtok *tok, size_t nt, const char *s, bool pathname)
{
	_cleanup_free_ unsigned char *cur = calloc(nt + 1, 1), *next = calloc(nt + 1, 1);

	if (!cur || !next)
		return false; /* ENOMEM: treat as no match */
	cur[0] = 1;
	closure(tok, nt, cur);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool any = false;

		memset(next, 0, nt + 1);
		for (size_t i = 0; i < nt; i++) {
			if (!cur[i])
				continue;
			switch (tok[i].type) {
			case G_STAR:
				if (!(pathname && c == '/'))
					next[i] = 1;
				break;
			case G_DSTAR:
				next[i] = 1;
				break;
			case G_DSTAR_SLASH:
				next[i] = 1;
				if (c == '/')
					next[i + 1] = 1;
				break;
			default:
				if (tok_match_char(&tok[i], c, pathname))
					next[i + 1] = 1;
				break;
			}
		}
		closure(tok, nt, next);
		for (size_t i = 0; i <= nt; i++)
			any |= next[i];
		if (!any)
			return false;
		memcpy(cur, next, nt + 1);
	}
	return cur[nt];
}

bool glob_match_compiled(const struct glob *g, const char *s)
{
	bool pathname = g->flags & TIER_GLOB_PATHNAME;
	long budget = 4096;
	int r;

	r = bt(g->tok, g->n, 0, s, pathname, &budget);
	if (r >= 0)
		return r;
	return nfa(g->tok, g->n, s, pathname);
}

/* Reference path for tests: the NFA only. */
bool glob_match_nfa(const struct glob *g, const char *s)
{
	return nfa(g->tok, g->n, s, g->flags & TIER_GLOB_PATHNAME);
}

_public_ bool tier_glob_match(const char *pattern, const char *string, unsigned flags)
{
	struct glob g;
	bool m;

	if (!pattern || !string || glob_compile(pattern, flags, &g) < 0)
		return false;
	m = glob_match_compiled(&g, string);
	glob_free(&g);
	return m;
}

_public_ int tier_glob_validate(const char *pattern)
{
	struct glob g;
	int r;

	if (!pattern)
		return -EINVAL;
	r = glob_compile(pattern, TIER_GLOB_PATHNAME, &g);
	if (r < 0)
		return r;
	glob_free(&g);
	return 0;
}
