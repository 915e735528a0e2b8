// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Interned cgroup paths: a path is its parent's path and its own name, so a
 * tree of long paths holds each name once (issue 24: 2,252 cgroups 250
 * levels deep, 64 KB paths, cost tierd 128 MB while every plan entry held
 * its whole path).  A path is built on demand into a caller's buffer.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"

static struct cgpath *cgpath_alloc(struct cgpath *parent, const char *name, size_t name_len,
				   size_t len, uint64_t hash)
{
	struct cgpath *p;

	if (name_len > UINT32_MAX || len > CGPATH_LEN_MAX)
		return NULL;
	p = malloc(sizeof(*p) + name_len + 1);
	if (!p)
		return NULL;
	p->parent = parent ? cgpath_ref(parent) : NULL;
	p->refs = 1;
	p->name_len = (uint32_t)name_len;
	p->len = (uint32_t)len;
	p->hash = hash;
	memcpy(p->name, name, name_len);
	p->name[name_len] = '\0';
	return p;
}

struct cgpath *cgpath_new(const char *path, size_t len)
{
	if (len == 0 || path[0] != '/')
		return NULL;
	return cgpath_alloc(NULL, path, len, len, tier_hash(path, len));
}

struct cgpath *cgpath_new_child(struct cgpath *parent, const char *name, size_t name_len,
				uint64_t hash)
{
	size_t len = parent->len + (parent->len > 1) + name_len;

	return cgpath_alloc(parent, name, name_len, len, hash);
}

struct cgpath *cgpath_ref(struct cgpath *p)
{
	if (p)
		p->refs++;
	return p;
}

void cgpath_unref(struct cgpath *p)
{
	/* a loop, not recursion: a chain can be 256 deep or more */
	while (p && --p->refs == 0) {
		struct cgpath *parent = p->parent;

		free(p);
		p = parent;
	}
}

/* Each piece of p from the last: its bytes and where they start in the
 * whole path (a '/' before a name is implicit unless the parent is "/"). */
void cgpath_build(const struct cgpath *p, char *buf)
{
	size_t pos = p->len;

	buf[pos] = '\0';
	for (const struct cgpath *x = p; x; x = x->parent) {
		pos -= x->name_len;
		memcpy(buf + pos, x->name, x->name_len);
		if (x->parent && x->parent->len > 1)
			buf[--pos] = '/';
	}
}

int cgpath_format(const struct cgpath *p, char *buf, size_t size)
{
	if (!p)
		return -EINVAL;
	if (!buf && size == 0)
		return (int)p->len;
	if (!buf)
		return -EINVAL;
	if (size <= p->len)
		return -ENAMETOOLONG;
	cgpath_build(p, buf);
	return (int)p->len;
}

int cgpath_dup(const struct cgpath *p, char **ret)
{
	char *s;

	if (!p || !ret)
		return -EINVAL;
	s = malloc((size_t)p->len + 1);
	if (!s)
		return -ENOMEM;
	cgpath_build(p, s);
	*ret = s;
	return 0;
}

/* Do the first n bytes of p's path (n <= p->len) equal s? */
static bool cgpath_prefix_equal(const struct cgpath *p, const char *s, size_t n)
{
	size_t pos = p->len;

	for (const struct cgpath *x = p; x && pos > 0; x = x->parent) {
		size_t start = pos - x->name_len;

		if (start < n && memcmp(s + start, x->name, (pos < n ? pos : n) - start) != 0)
			return false;
		pos = start;
		if (x->parent && x->parent->len > 1 && --pos < n && s[pos] != '/')
			return false;
	}
	return true;
}

/* The byte at i (< p->len) of p's path. */
static char cgpath_at(const struct cgpath *p, size_t i)
{
	size_t pos = p->len;

	for (const struct cgpath *x = p; x; x = x->parent) {
		size_t start = pos - x->name_len;

		if (i >= start)
			return x->name[i - start];
		pos = start;
		if (x->parent && x->parent->len > 1 && i == --pos)
			return '/';
	}
	return '\0';
}

bool cgpath_equal(const struct cgpath *p, const char *s, size_t len)
{
	return p->len == len && cgpath_prefix_equal(p, s, len);
}

bool cgpath_below(const struct cgpath *p, const char *top, size_t top_len)
{
	if (top_len == 1 && top[0] == '/')
		return true;
	if (p->len < top_len || !cgpath_prefix_equal(p, top, top_len))
		return false;
	return p->len == top_len || cgpath_at(p, top_len) == '/';
}
