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
#include <stdint.h>
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

/* Patterns are limited to GLOB_MAX_LEN bytes: arg has 29 bits. */
#define GLOB_MAX_LEN ((1u << 29) - 1)

struct gtok {
	uint32_t type : 3;
	uint32_t arg : 29;	/* G_LIT: the byte; G_CLASS: index into glob->classes */
};

struct gclass {
	unsigned char bits[32];	/* bitmap of matching bytes */
};

static void class_set(struct gclass *t, unsigned char c)
{
	t->bits[c >> 3] |= (unsigned char)(1u << (c & 7));
}

static bool class_has(const struct gclass *t, unsigned char c)
{
	return t->bits[c >> 3] & (1u << (c & 7));
}

/* Parse the class starting after '['; returns chars consumed or -EINVAL. */
static int parse_class(const char *p, bool pathname, struct gclass *t)
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

/*
 * Tokenize pattern into tok and classes (room for them is there); returns
 * the number of tokens and sets *ret_n_classes, or -EINVAL.
 */
static long tokenize(const char *pattern, bool pathname, struct gtok *tok, struct gclass *classes,
		     size_t *ret_n_classes)
{
	size_t n = 0, n_classes = 0;
	unsigned prev = G_LIT;
	const char *p = pattern;

	while (*p) {
		unsigned type, arg = 0;

		switch (*p) {
		case '*':
			if (p[1] == '*') {
				const char *st = p;

				while (*p == '*')
					p++;
				if (!pathname) {
					type = G_STAR;
				} else if (*p == '/' && (st == pattern || st[-1] == '/')) {
					/* "**" + "/" at a segment start may match nothing */
					type = G_DSTAR_SLASH;
					p++;
				} else {
					type = G_DSTAR;
				}
			} else {
				p++;
				type = G_STAR;
			}
			/* collapse "**" runs of equivalent stars */
			if (n > 0 && prev == type && type != G_DSTAR_SLASH)
				continue;
			break;
		case '?':
			type = G_ANY;
			p++;
			break;
		case '[': {
			int r = parse_class(p + 1, pathname, &classes[n_classes]);

			if (r < 0)
				return r;
			type = G_CLASS;
			arg = (unsigned)n_classes++;
			p += 1 + r;
			break;
		}
		case '\\':
			p++;
			if (!*p)
				return -EINVAL;
			/* fallthrough */
		default:
			type = G_LIT;
			arg = (unsigned char)*p++;
			break;
		}
		tok[n++] = (struct gtok){ .type = type & 7, .arg = arg & GLOB_MAX_LEN };
		prev = type;
	}
	*ret_n_classes = n_classes;
	return (long)n;
}

int glob_compile(const char *pattern, unsigned flags, struct glob *ret)
{
	bool pathname = flags & TIER_GLOB_PATHNAME;
	size_t len = 0, n, n_classes, max_classes = 0, max_wild = 0, pl = 0, sl = 0, n_runs = 0;
	size_t max_runs;
	struct glob_run *runs;
	struct gclass *classes;
	struct gtok *tok;
	char *text, *w;
	long r;

	/* upper bounds, from one cheap scan: a token per byte at most, a class
	 * per '[', a wildcard per '*', '?' or '[' */
	for (const char *p = pattern; *p; p++, len++) {
		if (*p == '[')
			max_classes++;
		if (*p == '*' || *p == '?' || *p == '[')
			max_wild++;
	}
	if (len > GLOB_MAX_LEN)
		return -E2BIG;
	/* interior runs lie between two wildcards */
	max_runs = max_wild > 1 ? max_wild - 1 : 0;
	tok = malloc(len * sizeof(*tok) + max_runs * sizeof(*runs) +
		     max_classes * sizeof(*classes) + len + 2);
	if (!tok)
		return -ENOMEM;
	runs = (struct glob_run *)(void *)(tok + len);
	classes = (struct gclass *)(void *)(runs + max_runs);
	text = (char *)(classes + max_classes);
	r = tokenize(pattern, pathname, tok, classes, &n_classes);
	if (r < 0) {
		free(tok);
		return (int)r;
	}
	n = (size_t)r;

	/* literal prefix, suffix and the interior runs of 2+ characters */
	while (pl < n && tok[pl].type == G_LIT)
		pl++;
	if (pl < n)
		while (sl < n - pl && tok[n - 1 - sl].type == G_LIT)
			sl++;
	w = text;
	for (size_t i = 0; i < pl; i++)
		*w++ = (char)tok[i].arg;
	*w++ = '\0';
	for (size_t i = 0; i < sl; i++)
		*w++ = (char)tok[n - sl + i].arg;
	*w++ = '\0';
	for (size_t i = pl; i + sl < n;) {
		size_t j = i;

		while (j + sl < n && tok[j].type == G_LIT)
			j++;
		if (j - i >= 2) {
			runs[n_runs].off = (uint32_t)(w - text);
			runs[n_runs].len = (uint32_t)(j - i);
			n_runs++;
			for (size_t k = i; k < j; k++)
				*w++ = (char)tok[k].arg;
		}
		i = j + 1;
	}
	ret->tok = tok;
	ret->classes = classes;
	ret->runs = runs;
	ret->prefix = text;
	ret->n = (uint32_t)n;
	ret->n_runs = (uint32_t)n_runs;
	ret->prefix_len = (uint32_t)pl;
	ret->suffix_len = (uint32_t)sl;
	ret->flags = flags;
	ret->literal = pl == n;
	return 0;
}

void glob_free(struct glob *g)
{
	free(g->tok);
	memset(g, 0, sizeof(*g));
}

static bool tok_match_char(const struct glob *g, const struct gtok *t, unsigned char c,
			   bool pathname)
{
	switch (t->type) {
	case G_LIT:
		return t->arg == c;
	case G_ANY:
		return c && !(pathname && c == '/');
	case G_CLASS:
		return class_has(&g->classes[t->arg], c);
	default:
		return false;
	}
}

/* 1 match, 0 no match, -1 budget exhausted. */
static int bt(const struct glob *g, size_t i, const char *s, bool pathname, long *budget)
{
	const struct gtok *tok = g->tok;
	size_t nt = g->n;

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
			if (!*s || !tok_match_char(g, t, (unsigned char)*s, pathname))
				return 0;
			i++;
			s++;
			continue;
		case G_STAR:
			if (i + 1 == nt)
				return !pathname || !strchr(s, '/');
			for (const char *q = s;; q++) {
				int r;

				if (tok[i + 1].type != G_LIT || (unsigned char)*q == tok[i + 1].arg) {
					r = bt(g, i + 1, q, pathname, budget);
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

				if (tok[i + 1].type != G_LIT || (unsigned char)*q == tok[i + 1].arg) {
					r = bt(g, i + 1, q, pathname, budget);
					if (r)
						return r;
				}
				if (!*q)
					return 0;
			}
		case G_DSTAR_SLASH: {
			int r = bt(g, i + 1, s, pathname, budget);

			if (r)
				return r;
			for (const char *q = s; *q; q++) {
				if (*q != '/')
					continue;
				r = bt(g, i + 1, q + 1, pathname, budget);
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

static bool nfa(const struct glob *g, const char *s, bool pathname)
{
	const struct gtok *tok = g->tok;
	size_t nt = g->n;
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
				if (tok_match_char(g, &tok[i], c, pathname))
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
	if (len < (size_t)g->prefix_len + g->suffix_len ||
	    memcmp(s, g->prefix, g->prefix_len) != 0 ||
	    memcmp(s + len - g->suffix_len, g->prefix + g->prefix_len + 1, g->suffix_len) != 0)
		return false;
	/* the literal runs must occur in order between prefix and suffix */
	{
		const char *p = s + g->prefix_len, *end = s + len - g->suffix_len;

		for (size_t i = 0; i < g->n_runs; i++) {
			const char *q = memmem(p, (size_t)(end - p), g->prefix + g->runs[i].off,
					       g->runs[i].len);

			if (!q)
				return false;
			p = q + g->runs[i].len;
		}
	}
	r = bt(g, g->prefix_len, s + g->prefix_len, pathname, &budget);
	if (r >= 0)
		return r;
	return nfa(g, s, pathname);
}

bool glob_match_compiled(const struct glob *g, const char *s)
{
	return glob_match_len(g, s, strlen(s));
}

/* Reference path for tests: the NFA only. */
bool glob_match_nfa(const struct glob *g, const char *s)
{
	return nfa(g, s, g->flags & TIER_GLOB_PATHNAME);
}

bool tier_glob_match(const char *pattern, const char *string, unsigned flags)
{
	struct glob g;
	bool m;

	if (!pattern || !string || glob_compile(pattern, flags, &g) < 0)
		return false;
	m = glob_match_compiled(&g, string);
	glob_free(&g);
	return m;
}

int tier_glob_validate(const char *pattern)
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
