// SPDX-License-Identifier: LGPL-2.1-or-later
/* File I/O and parsing helpers. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libtier-private.h"

/* Join up to three components with '/', skipping NULL ones. */
int path_join(char **ret, const char *a, const char *b, const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t len = 0;
	char *s, *p;

	for (size_t i = 0; i < 3; i++)
		if (parts[i])
			len += strlen(parts[i]) + 1;
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	p = s;
	for (size_t i = 0; i < 3; i++) {
		const char *x = parts[i];
		size_t l;

		if (!x)
			continue;
		if (p != s) {
			while (*x == '/')
				x++;
			if (p[-1] != '/')
				*p++ = '/';
		}
		l = strlen(x);
		memcpy(p, x, l);
		p += l;
	}
	*p = '\0';
	/* strip a trailing slash except for "/" */
	while (p - s > 1 && p[-1] == '/')
		*--p = '\0';
	*ret = s;
	return 0;
}

/* Read a whole file; NUL-terminated, size excludes it. */
int read_file_full(const char *path, char **ret_buf, size_t *ret_size)
{
	return read_file_at(AT_FDCWD, path, ret_buf, ret_size);
}

/* read_file_full() relative to a directory fd (AT_FDCWD for plain paths). */
int read_file_at(int dfd, const char *path, char **ret_buf, size_t *ret_size)
{
	return read_file_at_max(dfd, path, READ_MAX_DEFAULT, 0, ret_buf, ret_size);
}

/*
 * Open path below dfd for reading or writing, as untrusted input demands:
 * O_NONBLOCK so a FIFO cannot stall the caller, and only a regular file is
 * accepted (kernfs and sysfs attributes are regular files too). With
 * READ_NOFOLLOW a symlink as the last component is refused.
 * Errors: -ELOOP symlink, -EISDIR directory, -EBADFD any other non-regular
 * file, or open()'s own errno.
 */
int open_regular_at(int dfd, const char *path, int flags, unsigned rflags)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	flags |= O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	if (rflags & READ_NOFOLLOW)
		flags |= O_NOFOLLOW;
	fd = openat(dfd, path, flags);
	if (fd < 0)
		return negative_errno();
	/* cgroup2 holds the kernel's regular files and directories only (no
	 * mknod, no symlink): a directory fails the read with -EISDIR */
	if (rflags & READ_KERNFS)
		return TAKE_FD(fd);
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	return TAKE_FD(fd);
}

/* Read at most max bytes of a regular file: -EFBIG if it holds more.  With
 * READ_SHORT_EOF a short read ends the file (see sysfs_read_attr_at()). */
static int read_fd_max_flags(int fd, size_t max, unsigned rflags, char **ret_buf,
			     size_t *ret_size)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, alloc = 4096;

	buf = malloc(alloc);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (alloc - size < 2) {
			char *nbuf;
			size_t na = alloc * 2;

			if (alloc > max + 1) {
				/* room for max + 1 bytes was there: the file is longer */
				return -EFBIG;
			}
			if (na > max + 2)
				na = max + 2;
			nbuf = realloc(buf, na);
			if (!nbuf)
				return -ENOMEM;
			buf = nbuf;
			alloc = na;
		}
		n = read(fd, buf + size, alloc - size - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		size += (size_t)n;
		if (size > max)
			return -EFBIG;
		if ((rflags & READ_SHORT_EOF) && (size_t)n < alloc - (size - (size_t)n) - 1)
			break;
	}
	buf[size] = '\0';
	*ret_buf = TAKE_PTR(buf);
	if (ret_size)
		*ret_size = size;
	return 0;
}

int read_fd_max(int fd, size_t max, char **ret_buf, size_t *ret_size)
{
	return read_fd_max_flags(fd, max, 0, ret_buf, ret_size);
}

int read_file_at_max(int dfd, const char *path, size_t max, unsigned rflags, char **ret_buf,
		     size_t *ret_size)
{
	_cleanup_close_ int fd = -1;

	fd = open_regular_at(dfd, path, O_RDONLY, rflags);
	if (fd < 0)
		return fd;
	return read_fd_max_flags(fd, max, rflags, ret_buf, ret_size);
}

/*
 * One attribute value: open O_CLOEXEC, read, strip the trailing newline.
 * cgroup/sysfs attributes fit in a page, but files like memory.stat and
 * cgroup.procs do not, so this reads until EOF with a growing buffer (up to
 * READ_MAX_DEFAULT).
 */
int sysfs_read_flags(int dfd, const char *path, unsigned rflags, char **ret_value)
{
	char *buf;
	size_t size;
	int r;

	r = read_file_at_max(dfd, path, READ_MAX_DEFAULT, rflags, &buf, &size);
	if (r < 0)
		return r;
	if (size > 0 && buf[size - 1] == '\n')
		buf[size - 1] = '\0';
	*ret_value = buf;
	return 0;
}

/* A path of the trusted sysfs/procfs roots: symlinks there are the kernel's. */
int sysfs_read(const char *path, char **ret_value)
{
	return sysfs_read_flags(AT_FDCWD, path, 0, ret_value);
}

/* A file of a cgroup directory: never through a symlink. */
int sysfs_read_at(int dfd, const char *path, char **ret_value)
{
	return sysfs_read_flags(dfd, path, READ_NOFOLLOW, ret_value);
}

/*
 * sysfs_read_at() of a one-value attribute (memory.numa_balancing,
 * memory.low, memory.high): a read shorter than asked is the end.  The
 * kernel shows such a file as one seq_file record, which a read returns
 * whole or up to the size asked; a regular file (a test tree) returns less
 * only at its end.  That spares the read of 0 bytes per value, a third of
 * the reads of an observe.  Not for multi-record files (cgroup.procs,
 * mountinfo): seq_file ends a read early when its page is full.
 */
int sysfs_read_attr_at(int dfd, const char *path, char **ret_value)
{
	return sysfs_read_flags(dfd, path, READ_NOFOLLOW | READ_SHORT_EOF, ret_value);
}

/* One write() of value (no newline appended, like echo -n). */
int sysfs_write(const char *path, const char *value)
{
	return sysfs_write_at(AT_FDCWD, path, value);
}

/* sysfs_write() of a regular file below dfd, never through a symlink. */
int sysfs_write_at(int dfd, const char *path, const char *value)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(value);
	ssize_t n;

	/* O_TRUNC is a no-op on kernfs and keeps regular files (test trees)
	 * exact; the file is known not to be a symlink when it applies. */
	fd = open_regular_at(dfd, path, O_WRONLY | O_TRUNC, READ_NOFOLLOW);
	if (fd < 0)
		return fd;
	n = write(fd, value, len);
	if (n < 0)
		return negative_errno();
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

int parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_int(const char *s, int *ret)
{
	long v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* "0-1,3" -> sorted unique array.  Empty string -> zero nodes. */
int parse_nodelist(const char *s, int **ret_nodes, unsigned *ret_n)
{
	_cleanup_free_ int *nodes = NULL;
	unsigned n = 0, alloc = 0;
	const char *p = s;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	while (*p) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		a = strtoul(p, &end, 10);
		if (errno || a > INT_MAX)
			return -ERANGE;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtoul(p, &end, 10);
			if (errno || b > INT_MAX || b < a)
				return -ERANGE;
			p = end;
		}
		if (b - a > 65536)
			return -ERANGE;
		for (unsigned long i = a; i <= b; i++) {
			if (n == alloc) {
				unsigned nalloc = alloc ? alloc * 2 : 8;
				int *nn = realloc(nodes, nalloc * sizeof(int));

				if (!nn)
					return -ENOMEM;
				nodes = nn;
				alloc = nalloc;
			}
			nodes[n++] = (int)i;
		}
		if (*p == ',')
			p++;
		else if (*p == '\n' || *p == ' ') {
			while (*p == '\n' || *p == ' ')
				p++;
			if (*p)
				return -EINVAL;
		} else if (*p)
			return -EINVAL;
	}
	if (n > 1) {
		unsigned w = 1;

		qsort(nodes, n, sizeof(int), cmp_int);
		for (unsigned i = 1; i < n; i++)
			if (nodes[i] != nodes[w - 1])
				nodes[w++] = nodes[i];
		n = w;
	}
	*ret_nodes = TAKE_PTR(nodes);
	*ret_n = n;
	return 0;
}

int strv_push(char ***strv, size_t *n, size_t *alloc, char *s)
{
	if (*n + 2 > *alloc) {
		size_t nalloc = *alloc ? *alloc * 2 : 16;
		char **nv = realloc(*strv, nalloc * sizeof(char *));

		if (!nv)
			return -ENOMEM;
		*strv = nv;
		*alloc = nalloc;
	}
	(*strv)[(*n)++] = s;
	(*strv)[*n] = NULL;
	return 0;
}

_public_ void tier_strv_free(char **strv)
{
	if (!strv)
		return;
	for (char **p = strv; *p; p++)
		free(*p);
	free(strv);
}

int log_level_from_string(const char *s, int *ret)
{
	static const struct {
		const char *name;
		int prio;
	} levels[] = {
		{ "err", LOG_ERR },	    { "error", LOG_ERR },   { "warning", LOG_WARNING },
		{ "notice", LOG_NOTICE }, { "info", LOG_INFO }, { "debug", LOG_DEBUG },
	};
	int v;

	for (size_t i = 0; i < ARRAY_SIZE(levels); i++)
		if (strcasecmp(s, levels[i].name) == 0) {
			*ret = levels[i].prio;
			return 0;
		}
	if (parse_int(s, &v) == 0 && v >= 0 && v <= LOG_DEBUG) {
		*ret = v;
		return 0;
	}
	return -EINVAL;
}

bool str_has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* --- value parsers (public) --- */

int tier_parse_bool(const char *s, bool *ret_bool)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret_bool = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret_bool = false;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Parse "digits[.digits]" into an integer scaled by 10^frac_digits_wanted;
 * returns the position after the number.  Extra fraction digits are
 * truncated only when allow_truncate, otherwise -EINVAL.
 */
static int parse_decimal(const char *s, unsigned frac_digits, bool allow_truncate,
			 unsigned __int128 *ret_scaled, const char **ret_end)
{
	unsigned __int128 v = 0;
	const char *p = s;
	unsigned nd = 0, fd = 0;

	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > UINT64_MAX)
			return -ERANGE;
		p++;
		nd++;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		while (isdigit((unsigned char)*p)) {
			if (fd < frac_digits) {
				v = v * 10 + (unsigned)(*p - '0');
				fd++;
			} else if (!allow_truncate) {
				return -EINVAL;
			}
			p++;
		}
	}
	if (nd == 0)
		return -EINVAL;
	for (; fd < frac_digits; fd++)
		v *= 10;
	*ret_scaled = v;
	*ret_end = p;
	return 0;
}

int tier_parse_size(const char *s, uint64_t *ret_bytes)
{
	const unsigned frac = 9;
	unsigned __int128 v, mult = 1, scale = 1000000000u;
	const char *p;
	int shift = 0, r;

	if (!s)
		return -EINVAL;
	r = parse_decimal(s, frac, true, &v, &p);
	if (r < 0)
		return r;
	switch (*p) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	case 'p': case 'P': shift = 50; break;
	case 'e': case 'E': shift = 60; break;
	default: break;
	}
	if (shift) {
		p++;
		if (*p == 'i')
			p++;
		if (*p == 'B' || *p == 'b')
			p++;
	} else if (*p == 'B' || *p == 'b') {
		p++;
	}
	if (*p)
		return -EINVAL;
	mult = (unsigned __int128)1 << shift;
	/* v < 2^64 * 10^9 < 2^94, mult <= 2^60: product fits 2^154? no, check. */
	if (v > ((unsigned __int128)UINT64_MAX + 1) * scale)
		return -ERANGE;
	/* avoid overflow: divide first where possible */
	{
		unsigned __int128 whole = v / scale, part = v % scale;
		unsigned __int128 bytes = whole * mult + part * mult / scale;

		if (whole > UINT64_MAX || bytes > UINT64_MAX)
			return -ERANGE;
		*ret_bytes = (uint64_t)bytes;
	}
	return 0;
}

int tier_parse_percent(const char *s, unsigned *ret_bp)
{
	unsigned __int128 v;
	const char *p;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_decimal(s, 2, false, &v, &p);
	if (r < 0)
		return r;
	if (strcmp(p, "%") != 0)
		return -EINVAL;
	if (v > 10000)
		return -ERANGE;
	*ret_bp = (unsigned)v;
	return 0;
}

int tier_parse_duration(const char *s, uint64_t *ret_usec)
{
	static const struct {
		const char *suffix;
		uint64_t usec;
	} units[] = {
		{ "", 1000000ull },    { "s", 1000000ull },	  { "sec", 1000000ull },
		{ "ms", 1000ull },     { "msec", 1000ull },	  { "us", 1ull },
		{ "usec", 1ull },      { "m", 60000000ull },	  { "min", 60000000ull },
		{ "h", 3600000000ull },
	};
	unsigned __int128 v;
	const char *p;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_decimal(s, 0, false, &v, &p);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].suffix) == 0) {
			unsigned __int128 us = v * units[i].usec;

			if (us > UINT64_MAX)
				return -ERANGE;
			*ret_usec = (uint64_t)us;
			return 0;
		}
	}
	return -EINVAL;
}

static void name_table_put(struct hash_slot *slots, size_t size, uint32_t hash, size_t idx)
{
	size_t i = hash & (size - 1);

	while (slots[i].idx)
		i = (i + 1) & (size - 1);
	slots[i] = (struct hash_slot){ hash, (uint32_t)(idx + 1) };
}

/* The slots keep the low 32 bits of each hash: with sizes up to 2^32 that
 * is all a slot position ever needs. */
int name_table_add_hash(struct name_table *t, uint64_t hash, size_t idx)
{
	if (idx >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((t->n + 1) * 2 > t->size) {
		size_t size = t->size ? t->size * 2 : 64;
		struct hash_slot *slots = calloc(size, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t i = 0; i < t->size; i++)
			if (t->slots[i].idx)
				name_table_put(slots, size, t->slots[i].hash, t->slots[i].idx - 1);
		free(t->slots);
		t->slots = slots;
		t->size = size;
	}
	name_table_put(t->slots, t->size, (uint32_t)hash, idx);
	t->n++;
	return 0;
}

int name_table_add(struct name_table *t, const void *owner, name_of_fn name_of, size_t idx)
{
	return name_table_add_hash(t, tier_hash_string(name_of(owner, idx)), idx);
}

size_t name_table_find_eq(const struct name_table *t, const void *owner, name_eq_fn eq,
			  const char *name, size_t len)
{
	size_t mask = t->size - 1;
	uint64_t h;

	if (!t->size)
		return SIZE_MAX;
	h = tier_hash(name, len);
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		const struct hash_slot *slot = &t->slots[i];

		if (slot->idx == 0)
			return SIZE_MAX;
		if (slot->hash == (uint32_t)h && eq(owner, slot->idx - 1, name, len))
			return slot->idx - 1;
	}
}

struct name_of_key {
	name_of_fn name_of;
	const void *owner;
};

static bool name_of_eq(const void *owner, size_t i, const char *name, size_t len)
{
	const struct name_of_key *k = owner;
	const char *s = k->name_of(k->owner, i);

	return strncmp(s, name, len) == 0 && s[len] == '\0';
}

size_t name_table_find(const struct name_table *t, const void *owner, name_of_fn name_of,
		       const char *name, size_t len)
{
	struct name_of_key k = { name_of, owner };

	return name_table_find_eq(t, &k, name_of_eq, name, len);
}

void name_table_free(struct name_table *t)
{
	free(t->slots);
	*t = (struct name_table){ 0 };
}
