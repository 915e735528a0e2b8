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
	{
		size_t pl = 0, sl = 0;
		char *prefix, *suffix;

		while (pl < n && tok[pl].type == G_LIT)
			pl++;
		if (pl < n)
			while (sl < n - pl && tok[n - 1 - sl].type == G_LIT)
				sl++;
		prefix = malloc(pl + 1);
		suffix = malloc(sl + 1);
		if (!prefix || !suffix) {
			free(prefix);
			free(suffix);
			free(tok);
			return -ENOMEM;
		}
		for (size_t i = 0; i < pl; i++)
			prefix[i] = (char)tok[i].c;
		prefix[pl] = '\0';
		for (size_t i = 0; i < sl; i++)
			suffix[i] = (char)tok[n - sl + i].c;
		suffix[sl] = '\0';
		ret->prefix = prefix;
		ret->prefix_len = pl;
		ret->suffix = suffix;
		ret->suffix_len = sl;
		ret->literal = pl == n;
		ret->runs = NULL;
		ret->run_len = NULL;
		ret->n_runs = 0;
		/* interior literal runs of 2+ characters */
		for (size_t i = pl; i + sl < n;) {
			size_t j = i;
			char *run;

			while (j + sl < n && tok[j].type == G_LIT)
				j++;
			if (j - i >= 2) {
				size_t nr = ret->n_runs;
				char **nruns = realloc(ret->runs, (nr + 1) * sizeof(char *));
				size_t *nlen;

				if (!nruns)
					goto oom;
				ret->runs = nruns;
				nlen = realloc(ret->run_len, (nr + 1) * sizeof(size_t));
				if (!nlen)
					goto oom;
				ret->run_len = nlen;
				run = malloc(j - i);
				if (!run)
					goto oom;
				for (size_t k = i; k < j; k++)
					run[k - i] = (char)tok[k].c;
				ret->runs[nr] = run;
				ret->run_len[nr] = j - i;
				ret->n_runs = nr + 1;
			}
			i = j + 1;
		}
	}
	ret->tok = tok;
	ret->n = n;
	ret->flags = flags;
	return 0;
oom:
	ret->tok = tok;
	glob_free(ret);
	return -ENOMEM;
}

void glob_free(struct glob *g)
{
	for (size_t i = 0; i < g->n_runs; i++)
		free(g->runs[i]);
	free(g->runs);
	free(g->run_len);
	g->runs = NULL;
	g->run_len = NULL;
	g->n_runs = 0;
	free(g->tok);
	free(g->prefix);
	free(g->suffix);
	g->tok = NULL;
	g->prefix = g->suffix = NULL;
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

/*
 * NFA states are token indexes.  A state is LOOP when it stays active by
 * consuming a character in a star, ENTERED when reached from the previous
 * token.  The empty match of '**' + '/' is only possible on entry: after it
 * consumed characters it must end in '/'.
 */
enum { LOOP = 1, ENTERED = 2 };

static void closure(const struct gtok *tok, size_t nt, unsigned char *set)
{
	for (size_t i = 0; i < nt; i++) {
		if (!set[i])
			continue;
		if (tok[i].type == G_STAR || tok[i].type == G_DSTAR ||
		    (tok[i].type == G_DSTAR_SLASH && (set[i] & ENTERED)))
			set[i + 1] |= ENTERED;
	}
}

static bool nfa(const struct gtok *tok, size_t nt, const char *s, bool pathname)
{
	_cleanup_free_ unsigned char *cur = calloc(nt + 1, 1), *next = calloc(nt + 1, 1);

	if (!cur || !next)
		return false; /* ENOMEM: treat as no match */
	cur[0] = ENTERED;
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
					next[i] |= LOOP;
				break;
			case G_DSTAR:
				next[i] |= LOOP;
				break;
			case G_DSTAR_SLASH:
				next[i] |= LOOP;
				if (c == '/')
					next[i + 1] |= ENTERED;
				break;
			default:
				if (tok_match_char(&tok[i], c, pathname))
					next[i + 1] |= ENTERED;
				break;
			}
		}
		closure(tok, nt, next);
		for (size_t i = 0; i <= nt; i++)
			any |= next[i] != 0;
		if (!any)
			return false;
		memcpy(cur, next, nt + 1);
	}
	return cur[nt] != 0;
}

bool glob_match_len(const struct glob *g, const char *s, size_t len)
{
	bool pathname = g->flags & TIER_GLOB_PATHNAME;
	long budget = 4096;
	int r;

	if (g->literal)
		return len == g->prefix_len && memcmp(s, g->prefix, len) == 0;
	if (len < g->prefix_len + g->suffix_len || memcmp(s, g->prefix, g->prefix_len) != 0 ||
	    memcmp(s + len - g->suffix_len, g->suffix, g->suffix_len) != 0)
		return false;
	/* the literal runs must occur in order between prefix and suffix */
	{
		const char *p = s + g->prefix_len, *end = s + len - g->suffix_len;

		for (size_t i = 0; i < g->n_runs; i++) {
			const char *q = memmem(p, (size_t)(end - p), g->runs[i], g->run_len[i]);

			if (!q)
				return false;
			p = q + g->run_len[i];
		}
	}
	r = bt(g->tok, g->n, g->prefix_len, s + g->prefix_len, pathname, &budget);
	if (r >= 0)
		return r;
	return nfa(g->tok, g->n, s, pathname);
}

bool glob_match_compiled(const struct glob *g, const char *s)
{
	return glob_match_len(g, s, strlen(s));
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
