// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * DAMON's sysfs interface (<sys>/kernel/mm/damon/admin) for the DAMON
 * backend: kdamonds, one paddr context each, schemes, stats, and which
 * kdamond is ours.  See damon.h for the API and the kernel's rules, and
 * docs/architecture.md, "The DAMON backend".
 *
 * Every path below the admin directory is walked one directory at a time
 * with O_DIRECTORY | O_NOFOLLOW, and the attribute opened O_NOFOLLOW
 * (open_regular_at()); values are read with a cap of DAMON_ATTR_MAX.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "damon.h"
#include "libtier-private.h"

/* A sysfs attribute is at most a page; memcg_path is the longest. */
#define DAMON_ATTR_MAX (64u << 10)
/* The ownership record is a few short lines. */
#define DAMON_OWNER_MAX 4096u
#define DAMON_OWNER_MAGIC "tierd-damon-owner 1"
#define DAMON_OWNER_MAGIC2 "tierd-damon-owner 2"

/*
 * DAMON's sysfs takes its one lock with mutex_trylock() in state, pid,
 * nr_kdamonds, memcg_path and the region files (6.12, mm/damon/sysfs*.c)
 * and answers -EBUSY when someone holds it: a running kdamond takes it
 * at every aggregation (damon_sysfs_cmd_request_callback()), and so does
 * any other reader.  A read never means -EBUSY otherwise, so an attribute
 * is tried again, DAMON_BUSY_TRIES times at most, DAMON_BUSY_WAIT_NS
 * apart: at most ~16 ms, and only while the lock is contended.  A write
 * that means it (state "on" while running) costs the same and still
 * returns -EBUSY.
 */
#define DAMON_BUSY_TRIES 16
#define DAMON_BUSY_WAIT_NS 1000000L

/* Directories opened during one tier_damon_stage(): a scheme's dozens of
 * attributes are written below a few directories, and walking each path
 * from the admin directory again was most of the cost (a 2-filter scheme:
 * ~900 syscalls).  Only while staging, and flushed whenever a count file
 * is written (the kernel recreates the directories below it). */
#define DAMON_DCACHE 8

/* Stopped kdamonds remembered as verified (tierd has two), and the count
 * files of a kdamond's shape (see shape_read()). */
#define DAMON_VERIFIED 4
#define DAMON_SHAPE_N 4

struct dcache_entry {
	char *path;		/* below admin, no trailing '/' */
	int fd;
	uint64_t used;		/* LRU: a parent walked from stays */
};

struct tier_damon {
	int admin_fd;		/* <sys>/kernel/mm/damon/admin */
	int proc_fd;		/* <proc>, or -1 */
	bool caching;
	struct dcache_entry dc[DAMON_DCACHE];
	uint64_t dc_clock;
	/* Stopped kdamonds whose whole staged input was last read back with
	 * the fingerprint fp (tier_damon_reclaim()), and the counts seen then:
	 * tier_damon_reclaim_quick() trusts them while the counts stay.  A
	 * write through this handle below kdamonds/<i>/ forgets i, any other
	 * write (nr_kdamonds) all. */
	struct damon_verified {
		bool valid;
		unsigned index;
		uint64_t fp;
		uint64_t shape[DAMON_SHAPE_N];
	} verified[DAMON_VERIFIED];
};

static const char *const action_names[_TIER_DAMON_ACTION_MAX] = {
	[TIER_DAMON_MIGRATE_HOT] = "migrate_hot",
	[TIER_DAMON_MIGRATE_COLD] = "migrate_cold",
	[TIER_DAMON_STAT] = "stat",
	[TIER_DAMON_LRU_PRIO] = "lru_prio",
	[TIER_DAMON_LRU_DEPRIO] = "lru_deprio",
};

static const char *const filter_names[_TIER_DAMON_FILTER_MAX] = {
	[TIER_DAMON_FILTER_ANON] = "anon",
	[TIER_DAMON_FILTER_MEMCG] = "memcg",
	[TIER_DAMON_FILTER_YOUNG] = "young",
	[TIER_DAMON_FILTER_ADDR] = "addr",
};

static const char *const goal_names[_TIER_DAMON_GOAL_MAX] = {
	[TIER_DAMON_GOAL_USER_INPUT] = "user_input",
	[TIER_DAMON_GOAL_SOME_MEM_PSI_US] = "some_mem_psi_us",
};

/* ------------------------------------------------------------------------
 * Paths below a directory fd
 * ------------------------------------------------------------------------ */

/* Opens the directory rel ("a/b/c", relative) below dfd, one component at
 * a time, never through a symlink. */
static int dir_walk(int dfd, const char *rel)
{
	_cleanup_free_ char *copy = strdup(rel);
	_cleanup_close_ int fd = -1;
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return negative_errno();
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int nfd;

		if (!strcmp(c, ".") || !strcmp(c, ".."))
			return -EINVAL;
		nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0)
			return negative_errno();
		close(fd);
		fd = nfd;
	}
	return TAKE_FD(fd);
}

static void dcache_flush(struct tier_damon *d)
{
	for (unsigned i = 0; i < DAMON_DCACHE; i++) {
		free(d->dc[i].path);
		if (d->dc[i].path && d->dc[i].fd >= 0)
			close(d->dc[i].fd);
		d->dc[i].path = NULL;
		d->dc[i].fd = -1;
	}
	d->dc_clock = 0;
}

/* The directory rel below admin, from the longest cached prefix: the
 * cache's fd (*ret_borrowed: do not close it), or a new one if it could
 * not be cached. */
static int dir_open_cached(struct tier_damon *d, const char *rel, bool *ret_borrowed)
{
	size_t best_len = 0, n = strlen(rel);
	struct dcache_entry *best = NULL, *e = NULL;
	int fd;

	for (unsigned i = 0; i < DAMON_DCACHE; i++) {
		struct dcache_entry *c = &d->dc[i];
		size_t l;

		if (!c->path)
			continue;
		l = strlen(c->path);
		if (l > n || l <= best_len || strncmp(c->path, rel, l) ||
		    (rel[l] != '\0' && rel[l] != '/'))
			continue;
		best = c;
		best_len = l;
	}
	if (best)
		best->used = ++d->dc_clock;
	if (best && best_len == n) {
		*ret_borrowed = true;
		return best->fd;
	}
	fd = dir_walk(best ? best->fd : d->admin_fd, rel + best_len + (best ? 1 : 0));
	if (fd < 0)
		return fd;
	/* a free entry, else the least recently used one (never best: just
	 * used) */
	for (unsigned i = 0; i < DAMON_DCACHE; i++) {
		struct dcache_entry *c = &d->dc[i];

		if (!c->path) {
			e = c;
			break;
		}
		if (!e || c->used < e->used)
			e = c;
	}
	if (e->path && e->fd >= 0)
		close(e->fd);
	free(e->path);
	e->path = strdup(rel);
	if (!e->path) {
		e->fd = -1;
		*ret_borrowed = false;
		return fd;
	}
	e->fd = fd;
	e->used = ++d->dc_clock;
	*ret_borrowed = true;
	return fd;
}

/* The path of fmt below admin, split into its directory (opened, or the
 * cache's: *ret_borrowed) and the last component (*ret_name, malloc'ed). */
static int vpath_open_cached(struct tier_damon *d, char **ret_name, bool *ret_borrowed,
			     const char *fmt, va_list ap)
{
	_cleanup_free_ char *path = NULL;
	char *slash, *name;
	bool borrowed = true;
	int fd;

	if (vasprintf(&path, fmt, ap) < 0)
		return -ENOMEM;
	slash = strrchr(path, '/');
	if (!slash) {
		fd = d->admin_fd;
		name = strdup(path);
	} else {
		*slash = '\0';
		fd = dir_open_cached(d, path, &borrowed);
		if (fd < 0)
			return fd;
		name = strdup(slash + 1);
	}
	if (!name) {
		if (!borrowed)
			close(fd);
		return -ENOMEM;
	}
	*ret_name = name;
	*ret_borrowed = borrowed;
	return fd;
}

/* The path of fmt below admin, split into its directory (opened) and the
 * last component (*ret_name, malloc'ed). */
static int vpath_open(int dfd, char **ret_name, const char *fmt, va_list ap)
{
	_cleanup_free_ char *path = NULL;
	char *slash, *name;
	int fd;

	if (vasprintf(&path, fmt, ap) < 0)
		return -ENOMEM;
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		fd = dir_walk(dfd, path);
		name = strdup(slash + 1);
	} else {
		fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return negative_errno();
		name = strdup(path);
	}
	if (fd < 0) {
		free(name);
		return fd;
	}
	if (!name) {
		close(fd);
		return -ENOMEM;
	}
	*ret_name = name;
	return fd;
}

/* DAMON's lock is held: let its holder finish (see DAMON_BUSY_TRIES). */
static void busy_wait(void)
{
	const struct timespec ts = { .tv_nsec = DAMON_BUSY_WAIT_NS };

	nanosleep(&ts, NULL);
}

static int attr_read(const struct tier_damon *d, char **ret, const char *fmt, ...)
	_printf_(3, 4);
static int attr_read(const struct tier_damon *d, char **ret, const char *fmt, ...)
{
	_cleanup_free_ char *name = NULL;
	_cleanup_close_ int fd = -1;
	bool borrowed = false;
	char *buf;
	size_t size;
	va_list ap;
	int r;

	va_start(ap, fmt);
	if (d->caching)
		fd = vpath_open_cached((struct tier_damon *)d, &name, &borrowed, fmt, ap);
	else
		fd = vpath_open(d->admin_fd, &name, fmt, ap);
	va_end(ap);
	if (fd < 0)
		return fd;
	for (unsigned i = 0;; i++) {
		r = read_file_at_max(fd, name, DAMON_ATTR_MAX, READ_NOFOLLOW | READ_SHORT_EOF,
				     &buf, &size);
		if (r != -EBUSY || i + 1 >= DAMON_BUSY_TRIES)
			break;
		busy_wait();
	}
	if (borrowed)
		fd = -1;	/* the cache's */
	if (r < 0)
		return r;
	if (size > 0 && buf[size - 1] == '\n')
		buf[size - 1] = '\0';
	*ret = buf;
	return 0;
}

static void verified_forget_path(struct tier_damon *d, const char *fmt, va_list ap)
{
	_cleanup_free_ char *path = NULL;
	unsigned index;
	int n = 0;

	if (vasprintf(&path, fmt, ap) < 0 ||
	    sscanf(path, "kdamonds/%u/%n", &index, &n) != 1 || n == 0) {
		for (unsigned i = 0; i < DAMON_VERIFIED; i++)
			d->verified[i].valid = false;
		return;
	}
	for (unsigned i = 0; i < DAMON_VERIFIED; i++)
		if (d->verified[i].index == index)
			d->verified[i].valid = false;
}

static int attr_write(const struct tier_damon *d, const char *value, const char *fmt, ...)
	_printf_(3, 4);
static int attr_write(const struct tier_damon *d, const char *value, const char *fmt, ...)
{
	_cleanup_free_ char *name = NULL;
	_cleanup_close_ int fd = -1;
	bool borrowed = false;
	va_list ap;
	int r;

	/* a write of ours changes what a verified kdamond holds (or, a count
	 * file, the directories): read that one (any other path: all) back in
	 * full next time */
	va_start(ap, fmt);
	verified_forget_path((struct tier_damon *)d, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	if (d->caching)
		fd = vpath_open_cached((struct tier_damon *)d, &name, &borrowed, fmt, ap);
	else
		fd = vpath_open(d->admin_fd, &name, fmt, ap);
	va_end(ap);
	if (fd < 0)
		return fd;
	for (unsigned i = 0;; i++) {
		r = sysfs_write_at(fd, name, value);
		if (r != -EBUSY || i + 1 >= DAMON_BUSY_TRIES)
			break;
		busy_wait();
	}
	if (borrowed)
		fd = -1;	/* the cache's */
	return r;
}

/* The value of an attribute file as u64 or int: "%s" built by the caller
 * with the path prefix, to keep one varargs layer. */
static int attr_read_u64(const struct tier_damon *d, uint64_t *ret, const char *path)
{
	_cleanup_free_ char *v = NULL;
	uint64_t x;
	int r;

	r = attr_read(d, &v, "%s", path);
	if (r < 0)
		return r;
	r = parse_u64(v, &x);
	if (r < 0)
		return r;
	*ret = x;
	return 0;
}

static int attr_write_u64(const struct tier_damon *d, uint64_t v, const char *path)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return attr_write(d, buf, "%s", path);
}

/* A path below kdamonds/<index>/..., malloc'ed. */
static char *kpath(unsigned index, const char *fmt, ...) _printf_(2, 3);
static char *kpath(unsigned index, const char *fmt, ...)
{
	_cleanup_free_ char *tail = NULL;
	char *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&tail, fmt, ap);
	va_end(ap);
	if (r < 0)
		return NULL;
	if (asprintf(&s, "kdamonds/%u/%s", index, tail) < 0)
		return NULL;
	return s;
}

/* kpath() + read / write, returning -ENOMEM when the path cannot be made. */
#define KREAD_U64(d, ret, index, ...)                                      \
	({                                                                 \
		_cleanup_free_ char *_p_ = kpath((index), __VA_ARGS__);    \
		_p_ ? attr_read_u64((d), (ret), _p_) : -ENOMEM;            \
	})
#define KWRITE_U64(d, v, index, ...)                                       \
	({                                                                 \
		_cleanup_free_ char *_p_ = kpath((index), __VA_ARGS__);    \
		_p_ ? attr_write_u64((d), (v), _p_) : -ENOMEM;             \
	})
#define KWRITE(d, v, index, ...)                                           \
	({                                                                 \
		_cleanup_free_ char *_p_ = kpath((index), __VA_ARGS__);    \
		_p_ ? attr_write((d), (v), "%s", _p_) : -ENOMEM;           \
	})
#define KREAD(d, ret, index, ...)                                          \
	({                                                                 \
		_cleanup_free_ char *_p_ = kpath((index), __VA_ARGS__);    \
		_p_ ? attr_read((d), (ret), "%s", _p_) : -ENOMEM;          \
	})

/* ------------------------------------------------------------------------
 * The handle
 * ------------------------------------------------------------------------ */

int tier_damon_open(const char *sys_root, const char *proc_root, struct tier_damon **ret)
{
	_cleanup_close_ int sys_fd = -1, admin_fd = -1, proc_fd = -1;
	struct tier_damon *d;

	if (!sys_root || !ret)
		return -EINVAL;
	/* The roots are the caller's (trusted); below them, no symlink. */
	sys_fd = open(sys_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys_fd < 0)
		return negative_errno();
	admin_fd = dir_walk(sys_fd, "kernel/mm/damon/admin");
	if (admin_fd < 0)
		return admin_fd;
	if (proc_root) {
		proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (proc_fd < 0)
			return negative_errno();
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->admin_fd = TAKE_FD(admin_fd);
	d->proc_fd = TAKE_FD(proc_fd);
	for (unsigned i = 0; i < DAMON_DCACHE; i++)
		d->dc[i].fd = -1;
	*ret = d;
	return 0;
}

void tier_damon_free(struct tier_damon *d)
{
	if (!d)
		return;
	dcache_flush(d);
	if (d->admin_fd >= 0)
		close(d->admin_fd);
	if (d->proc_fd >= 0)
		close(d->proc_fd);
	free(d);
}

/* ------------------------------------------------------------------------
 * kdamonds
 * ------------------------------------------------------------------------ */

int tier_damon_nr_kdamonds(struct tier_damon *d, unsigned *ret_n)
{
	uint64_t n;
	int r;

	r = attr_read_u64(d, &n, "kdamonds/nr_kdamonds");
	if (r < 0)
		return r;
	if (n > INT32_MAX)
		return -ERANGE;
	*ret_n = (unsigned)n;
	return 0;
}

int tier_damon_kdamond_get(struct tier_damon *d, unsigned index, struct tier_damon_kdamond *ret)
{
	_cleanup_free_ char *state = NULL, *pid = NULL;
	struct tier_damon_kdamond k = { .index = index, .pid = -1 };
	int r;

	r = KREAD(d, &state, index, "state");
	if (r < 0)
		return r;
	if (!strcmp(state, "on"))
		k.running = true;
	else if (strcmp(state, "off"))
		return -EINVAL;
	r = KREAD(d, &pid, index, "pid");
	if (r < 0)
		return r;
	r = parse_int(pid, &k.pid);
	if (r < 0)
		return r;
	if (k.pid < -1)
		return -EINVAL;
	*ret = k;
	return 0;
}

int tier_damon_kdamond_list(struct tier_damon *d, struct tier_damon_kdamond **ret, size_t *ret_n)
{
	_cleanup_free_ struct tier_damon_kdamond *arr = NULL;
	unsigned n;
	int r;

	r = tier_damon_nr_kdamonds(d, &n);
	if (r < 0)
		return r;
	arr = calloc(n ? n : 1, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		r = tier_damon_kdamond_get(d, i, &arr[i]);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(arr);
	*ret_n = n;
	return 0;
}

int tier_damon_kdamond_add_n(struct tier_damon *d, unsigned count, unsigned *ret_first)
{
	_cleanup_free_ struct tier_damon_kdamond *list = NULL;
	struct tier_damon_kdamond k;
	size_t n;
	int r;

	if (count == 0 || count > 64)
		return -EINVAL;
	r = tier_damon_kdamond_list(d, &list, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (list[i].running)
			return -EBUSY;
	r = attr_write_u64(d, n + count, "kdamonds/nr_kdamonds");
	if (r < 0)
		return r;
	/* the kernel made kdamonds/<n>..<n + count - 1>: check they are there */
	for (unsigned i = 0; i < count; i++) {
		r = tier_damon_kdamond_get(d, (unsigned)n + i, &k);
		if (r < 0)
			return r;
	}
	*ret_first = (unsigned)n;
	return 0;
}

int tier_damon_kdamond_add(struct tier_damon *d, unsigned *ret_index)
{
	return tier_damon_kdamond_add_n(d, 1, ret_index);
}

/* ------------------------------------------------------------------------
 * Staging
 * ------------------------------------------------------------------------ */

/* Writes the count file only when it differs: a write recreates the
 * directories below it (and the stats the kernel showed there). */
static int write_count(struct tier_damon *d, uint64_t n, const char *path)
{
	uint64_t cur;
	int r;

	r = attr_read_u64(d, &cur, path);
	if (r < 0)
		return r;
	if (cur == n)
		return 0;
	/* the kernel recreates every directory below it */
	dcache_flush(d);
	r = attr_write_u64(d, n, path);
	return r < 0 ? r : 1;
}

#define KCOUNT(d, n, index, ...)                                           \
	({                                                                 \
		_cleanup_free_ char *_p_ = kpath((index), __VA_ARGS__);    \
		_p_ ? write_count((d), (n), _p_) : -ENOMEM;                \
	})

static int config_validate(const struct tier_damon_config *cfg)
{
	uint64_t prev_end = 0;

	if (!cfg || (!cfg->keep_regions && (cfg->nr_regions == 0 || !cfg->regions)))
		return -EINVAL;
	if (cfg->nr_schemes && !cfg->schemes)
		return -EINVAL;
	for (size_t i = 0; !cfg->keep_regions && i < cfg->nr_regions; i++) {
		const struct tier_damon_range *g = &cfg->regions[i];

		/* the kernel wants them sorted and disjoint */
		if (g->start >= g->end || (i && g->start < prev_end))
			return -EINVAL;
		prev_end = g->end;
	}
	for (size_t i = 0; i < cfg->nr_schemes; i++) {
		const struct tier_damon_scheme *s = &cfg->schemes[i];

		if ((unsigned)s->action >= _TIER_DAMON_ACTION_MAX)
			return -EINVAL;
		if ((s->nr_filters && !s->filters) || (s->nr_goals && !s->goals))
			return -EINVAL;
		for (size_t j = 0; j < s->nr_filters; j++) {
			const struct tier_damon_filter *f = &s->filters[j];

			if ((unsigned)f->type >= _TIER_DAMON_FILTER_MAX)
				return -EINVAL;
			if (f->type == TIER_DAMON_FILTER_MEMCG &&
			    (!f->memcg_path || f->memcg_path[0] != '/' ||
			     strchr(f->memcg_path, '\n')))
				return -EINVAL;
			if (f->type == TIER_DAMON_FILTER_ADDR && f->addr.end < f->addr.start)
				return -EINVAL;
		}
		for (size_t j = 0; j < s->nr_goals; j++)
			if ((unsigned)s->goals[j].metric >= _TIER_DAMON_GOAL_MAX ||
			    !s->goals[j].target_value)
				return -EINVAL;
	}
	return 0;
}

/*
 * The fingerprint: FNV-1a of a canonical text of what identifies the input
 * (operations, regions, each scheme's action, target node and filters),
 * built from the same strings the kernel shows, so that the staged config
 * and its read-back hash alike.  Quotas, goals and intervals change at run
 * time and are left out.
 */
/* FNV-1a, fixed here: the fingerprint outlives the process (a record on
 * disk), so no per-process keyed hash. */
#define DAMON_FNV_OFFSET 0xcbf29ce484222325ull
#define DAMON_FNV_PRIME 0x100000001b3ull

struct fp {
	uint64_t h;
};

static inline uint64_t fnv_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * DAMON_FNV_PRIME;
}

static void fp_add(struct fp *fp, const char *s)
{
	for (; *s; s++)
		fp->h = fnv_step(fp->h, (unsigned char)*s);
	fp->h = fnv_step(fp->h, '\n');
}

static void fp_add_u64(struct fp *fp, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	fp_add(fp, buf);
}

static uint64_t config_fingerprint(const struct tier_damon_config *cfg)
{
	struct fp fp = { DAMON_FNV_OFFSET };

	fp_add(&fp, "paddr");
	/* what is staged: no regions with keep_regions */
	fp_add_u64(&fp, cfg->keep_regions ? 0 : cfg->nr_regions);
	for (size_t i = 0; !cfg->keep_regions && i < cfg->nr_regions; i++) {
		fp_add_u64(&fp, cfg->regions[i].start);
		fp_add_u64(&fp, cfg->regions[i].end);
	}
	fp_add_u64(&fp, cfg->nr_schemes);
	for (size_t i = 0; i < cfg->nr_schemes; i++) {
		const struct tier_damon_scheme *s = &cfg->schemes[i];
		char nid[16];

		fp_add(&fp, action_names[s->action]);
		snprintf(nid, sizeof(nid), "%d", s->target_nid);
		fp_add(&fp, nid);
		fp_add_u64(&fp, s->nr_filters);
		for (size_t j = 0; j < s->nr_filters; j++) {
			const struct tier_damon_filter *f = &s->filters[j];

			fp_add(&fp, filter_names[f->type]);
			fp_add(&fp, f->matching ? "Y" : "N");
			if (f->type == TIER_DAMON_FILTER_MEMCG)
				fp_add(&fp, f->memcg_path);
			if (f->type == TIER_DAMON_FILTER_ADDR) {
				fp_add_u64(&fp, f->addr.start);
				fp_add_u64(&fp, f->addr.end);
			}
		}
	}
	return fp.h;
}

int tier_damon_fingerprint_read(struct tier_damon *d, unsigned index, uint64_t *ret)
{
	const char *ctx = "contexts/0";
	struct fp fp = { DAMON_FNV_OFFSET };
	uint64_t n, nr_schemes;
	int r;

	/* only a context we could have staged: one context, paddr, one target */
	r = KREAD_U64(d, &n, index, "contexts/nr_contexts");
	if (r < 0)
		return r;
	if (n != 1)
		return -ENOENT;
	{
		_cleanup_free_ char *ops = NULL;

		r = KREAD(d, &ops, index, "%s/operations", ctx);
		if (r < 0)
			return r;
		fp_add(&fp, ops);
	}
	r = KREAD_U64(d, &n, index, "%s/targets/nr_targets", ctx);
	if (r < 0)
		return r;
	if (n != 1)
		return -ENOENT;
	r = KREAD_U64(d, &n, index, "%s/targets/0/regions/nr_regions", ctx);
	if (r < 0)
		return r;
	fp_add_u64(&fp, n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v;

		r = KREAD_U64(d, &v, index, "%s/targets/0/regions/%" PRIu64 "/start", ctx, i);
		if (r < 0)
			return r;
		fp_add_u64(&fp, v);
		r = KREAD_U64(d, &v, index, "%s/targets/0/regions/%" PRIu64 "/end", ctx, i);
		if (r < 0)
			return r;
		fp_add_u64(&fp, v);
	}
	r = KREAD_U64(d, &nr_schemes, index, "%s/schemes/nr_schemes", ctx);
	if (r < 0)
		return r;
	fp_add_u64(&fp, nr_schemes);
	for (uint64_t i = 0; i < nr_schemes; i++) {
		uint64_t nr_filters;

		{
			_cleanup_free_ char *action = NULL, *nid = NULL;

			r = KREAD(d, &action, index, "%s/schemes/%" PRIu64 "/action", ctx, i);
			if (r < 0)
				return r;
			r = KREAD(d, &nid, index, "%s/schemes/%" PRIu64 "/target_nid", ctx, i);
			if (r < 0)
				return r;
			fp_add(&fp, action);
			fp_add(&fp, nid);
		}
		r = KREAD_U64(d, &nr_filters, index, "%s/schemes/%" PRIu64 "/filters/nr_filters",
			      ctx, i);
		if (r < 0)
			return r;
		fp_add_u64(&fp, nr_filters);
		for (uint64_t j = 0; j < nr_filters; j++) {
			_cleanup_free_ char *type = NULL, *matching = NULL;
			_cleanup_free_ char *fdir = NULL;

			if (asprintf(&fdir, "schemes/%" PRIu64 "/filters/%" PRIu64, i, j) < 0)
				return -ENOMEM;
			r = KREAD(d, &type, index, "%s/%s/type", ctx, fdir);
			if (r < 0)
				return r;
			r = KREAD(d, &matching, index, "%s/%s/matching", ctx, fdir);
			if (r < 0)
				return r;
			fp_add(&fp, type);
			fp_add(&fp, matching);
			if (!strcmp(type, "memcg")) {
				_cleanup_free_ char *path = NULL;

				r = KREAD(d, &path, index, "%s/%s/memcg_path", ctx, fdir);
				if (r < 0)
					return r;
				fp_add(&fp, path);
			} else if (!strcmp(type, "addr")) {
				uint64_t v;

				r = KREAD_U64(d, &v, index, "%s/%s/addr_start", ctx, fdir);
				if (r < 0)
					return r;
				fp_add_u64(&fp, v);
				r = KREAD_U64(d, &v, index, "%s/%s/addr_end", ctx, fdir);
				if (r < 0)
					return r;
				fp_add_u64(&fp, v);
			}
		}
	}
	*ret = fp.h;
	return 0;
}

static int stage_filter(struct tier_damon *d, unsigned index, size_t s, size_t j,
			const struct tier_damon_filter *f)
{
	_cleanup_free_ char *fdir = NULL;
	int r;

	if (asprintf(&fdir, "contexts/0/schemes/%zu/filters/%zu", s, j) < 0)
		return -ENOMEM;
	r = KWRITE(d, filter_names[f->type], index, "%s/type", fdir);
	if (r < 0)
		return r;
	r = KWRITE(d, f->matching ? "Y" : "N", index, "%s/matching", fdir);
	if (r < 0)
		return r;
	if (f->type == TIER_DAMON_FILTER_MEMCG)
		return KWRITE(d, f->memcg_path, index, "%s/memcg_path", fdir);
	if (f->type == TIER_DAMON_FILTER_ADDR) {
		r = KWRITE_U64(d, f->addr.start, index, "%s/addr_start", fdir);
		if (r < 0)
			return r;
		return KWRITE_U64(d, f->addr.end, index, "%s/addr_end", fdir);
	}
	return 0;
}

static int stage_scheme(struct tier_damon *d, unsigned index, size_t i,
			const struct tier_damon_scheme *s)
{
	_cleanup_free_ char *sd = NULL;
	const struct {
		const char *name;
		const struct tier_damon_minmax *v;
	} pattern[] = {
		{ "sz", &s->sz },
		{ "nr_accesses", &s->nr_accesses },
		{ "age", &s->age },
	};
	const struct {
		const char *name;
		uint64_t v;
	} values[] = {
		{ "apply_interval_us", s->apply_interval_us },
		{ "quotas/ms", s->quota_ms },
		{ "quotas/bytes", s->quota_bytes },
		{ "quotas/reset_interval_ms", s->quota_reset_interval_ms },
		{ "quotas/weights/sz_permil", s->weight_sz },
		{ "quotas/weights/nr_accesses_permil", s->weight_nr_accesses },
		{ "quotas/weights/age_permil", s->weight_age },
	};
	char nid[16];
	int r;

	if (asprintf(&sd, "contexts/0/schemes/%zu", i) < 0)
		return -ENOMEM;
	r = KWRITE(d, action_names[s->action], index, "%s/action", sd);
	if (r < 0)
		return r;
	snprintf(nid, sizeof(nid), "%d", s->target_nid);
	r = KWRITE(d, nid, index, "%s/target_nid", sd);
	if (r < 0)
		return r;
	for (size_t k = 0; k < ARRAY_SIZE(pattern); k++) {
		r = KWRITE_U64(d, pattern[k].v->min, index, "%s/access_pattern/%s/min", sd,
			       pattern[k].name);
		if (r < 0)
			return r;
		r = KWRITE_U64(d, pattern[k].v->max, index, "%s/access_pattern/%s/max", sd,
			       pattern[k].name);
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < ARRAY_SIZE(values); k++) {
		r = KWRITE_U64(d, values[k].v, index, "%s/%s", sd, values[k].name);
		if (r < 0)
			return r;
	}
	r = KWRITE(d, "none", index, "%s/watermarks/metric", sd);
	if (r < 0)
		return r;
	r = KCOUNT(d, s->nr_goals, index, "%s/quotas/goals/nr_goals", sd);
	if (r < 0)
		return r;
	for (size_t j = 0; j < s->nr_goals; j++) {
		const struct tier_damon_goal *g = &s->goals[j];

		r = KWRITE(d, goal_names[g->metric], index, "%s/quotas/goals/%zu/target_metric", sd,
			   j);
		if (r < 0)
			return r;
		r = KWRITE_U64(d, g->target_value, index, "%s/quotas/goals/%zu/target_value", sd, j);
		if (r < 0)
			return r;
		r = KWRITE_U64(d, g->current_value, index, "%s/quotas/goals/%zu/current_value", sd,
			       j);
		if (r < 0)
			return r;
	}
	r = KCOUNT(d, s->nr_filters, index, "%s/filters/nr_filters", sd);
	if (r < 0)
		return r;
	for (size_t j = 0; j < s->nr_filters; j++) {
		r = stage_filter(d, index, i, j, &s->filters[j]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int stage_inner(struct tier_damon *d, unsigned index, const struct tier_damon_config *cfg,
		       uint64_t *ret_fingerprint);

int tier_damon_stage(struct tier_damon *d, unsigned index, const struct tier_damon_config *cfg,
		     uint64_t *ret_fingerprint)
{
	int r;

	d->caching = true;
	r = stage_inner(d, index, cfg, ret_fingerprint);
	dcache_flush(d);
	d->caching = false;
	return r;
}

/* What 6.12 makes of a scheme directory when nr_schemes is written
 * (damon_sysfs_scheme_alloc(DAMOS_STAT, 0) and zeroed ranges, quotas,
 * weights; no watermarks, filters or goals): such a scheme needs no write
 * right after the count was. */
static bool scheme_is_default(const struct tier_damon_scheme *s)
{
	return s->action == TIER_DAMON_STAT && s->target_nid == -1 && !s->apply_interval_us &&
	       !s->sz.min && !s->sz.max && !s->nr_accesses.min && !s->nr_accesses.max &&
	       !s->age.min && !s->age.max && !s->quota_ms && !s->quota_bytes &&
	       !s->quota_reset_interval_ms && !s->weight_sz && !s->weight_nr_accesses &&
	       !s->weight_age && !s->nr_goals && !s->nr_filters;
}

static int stage_changed_inner(struct tier_damon *d, unsigned index,
			       const struct tier_damon_config *cfg, const bool *changed)
{
	int r, wrote;

	r = KCOUNT(d, 0, index, "contexts/0/targets/0/regions/nr_regions");
	if (r < 0)
		return r;
	wrote = KCOUNT(d, cfg->nr_schemes, index, "contexts/0/schemes/nr_schemes");
	if (wrote < 0)
		return wrote;
	/* a new count recreated every scheme with the kernel's defaults */
	for (size_t i = 0; i < cfg->nr_schemes; i++) {
		if (wrote ? scheme_is_default(&cfg->schemes[i]) : !changed[i])
			continue;
		r = stage_scheme(d, index, i, &cfg->schemes[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int tier_damon_stage_changed(struct tier_damon *d, unsigned index,
			     const struct tier_damon_config *cfg, const bool *changed,
			     uint64_t *ret_fingerprint)
{
	int r;

	if (!changed || !cfg || !cfg->keep_regions)
		return tier_damon_stage(d, index, cfg, ret_fingerprint);
	r = config_validate(cfg);
	if (r < 0)
		return r;
	d->caching = true;
	r = stage_changed_inner(d, index, cfg, changed);
	dcache_flush(d);
	d->caching = false;
	if (r < 0)
		return r;
	if (ret_fingerprint)
		*ret_fingerprint = config_fingerprint(cfg);
	return 0;
}

static int stage_inner(struct tier_damon *d, unsigned index, const struct tier_damon_config *cfg,
		       uint64_t *ret_fingerprint)
{
	const char *ma = "contexts/0/monitoring_attrs";
	const char *tg = "contexts/0/targets/0/regions";
	int r, wrote;

	r = config_validate(cfg);
	if (r < 0)
		return r;
	r = KCOUNT(d, 1, index, "contexts/nr_contexts");
	if (r < 0)
		return r;
	r = KWRITE(d, "paddr", index, "contexts/0/operations");
	if (r < 0)
		return r;
	r = KWRITE_U64(d, cfg->sample_us, index, "%s/intervals/sample_us", ma);
	if (r >= 0)
		r = KWRITE_U64(d, cfg->aggr_us, index, "%s/intervals/aggr_us", ma);
	if (r >= 0)
		r = KWRITE_U64(d, cfg->update_us, index, "%s/intervals/update_us", ma);
	if (r >= 0)
		r = KWRITE_U64(d, cfg->min_nr_regions, index, "%s/nr_regions/min", ma);
	if (r >= 0)
		r = KWRITE_U64(d, cfg->max_nr_regions, index, "%s/nr_regions/max", ma);
	if (r < 0)
		return r;
	r = KCOUNT(d, 1, index, "contexts/0/targets/nr_targets");
	if (r < 0)
		return r;
	r = KCOUNT(d, cfg->keep_regions ? 0 : cfg->nr_regions, index, "%s/nr_regions", tg);
	if (r < 0)
		return r;
	for (size_t i = 0; !cfg->keep_regions && i < cfg->nr_regions; i++) {
		r = KWRITE_U64(d, cfg->regions[i].start, index, "%s/%zu/start", tg, i);
		if (r < 0)
			return r;
		r = KWRITE_U64(d, cfg->regions[i].end, index, "%s/%zu/end", tg, i);
		if (r < 0)
			return r;
	}
	wrote = KCOUNT(d, cfg->nr_schemes, index, "contexts/0/schemes/nr_schemes");
	if (wrote < 0)
		return wrote;
	for (size_t i = 0; i < cfg->nr_schemes; i++) {
		/* fresh directories hold the defaults already */
		if (wrote && scheme_is_default(&cfg->schemes[i]))
			continue;
		r = stage_scheme(d, index, i, &cfg->schemes[i]);
		if (r < 0)
			return r;
	}
	if (ret_fingerprint)
		*ret_fingerprint = config_fingerprint(cfg);
	return 0;
}

/* ------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------ */

/*
 * A command to kdamonds/<index>/state.  6.12 builds the whole input on
 * "on" and "commit", and a memcg filter whose path names no cgroup (one
 * went away since it was staged) fails damon_sysfs_mk_scheme(), which its
 * caller reports as -ENOMEM: the kernel refused the input, the caller is
 * not out of memory.  That -ENOMEM is -EINVAL here, so that callers can
 * keep -ENOMEM for their own allocations (tierd ends on those).
 */
static int state_write(struct tier_damon *d, unsigned index, const char *cmd)
{
	_cleanup_free_ char *path = kpath(index, "state");
	int r;

	if (!path)
		return -ENOMEM;
	r = attr_write(d, cmd, "%s", path);
	return r == -ENOMEM ? -EINVAL : r;
}

int tier_damon_start(struct tier_damon *d, unsigned index)
{
	return state_write(d, index, "on");
}

int tier_damon_stop(struct tier_damon *d, unsigned index)
{
	return state_write(d, index, "off");
}

int tier_damon_commit(struct tier_damon *d, unsigned index)
{
	_cleanup_free_ char *v = NULL;
	int r, pid;

	r = state_write(d, index, "commit");
	if (r < 0)
		return r;
	/*
	 * A refused input stops the kdamond, and the write still succeeds.
	 * The pid reads -1 once the thread has ended: the writer polls for
	 * the command's completion every 100 ms while the thread ends right
	 * after it, so this almost always sees it; if not, the next command
	 * (update_schemes_stats) fails with -EINVAL.
	 */
	r = KREAD(d, &v, index, "pid");
	if (r < 0)
		return r;
	r = parse_int(v, &pid);
	if (r < 0)
		return r;
	return pid > 0 ? 0 : -ESRCH;
}

int tier_damon_goal_set_current(struct tier_damon *d, unsigned index, size_t scheme,
				size_t goal, uint64_t current_value)
{
	return KWRITE_U64(d, current_value, index,
			  "contexts/0/schemes/%zu/quotas/goals/%zu/current_value", scheme, goal);
}

int tier_damon_commit_goals(struct tier_damon *d, unsigned index)
{
	return state_write(d, index, "commit_schemes_quota_goals");
}

int tier_damon_update_stats(struct tier_damon *d, unsigned index)
{
	return state_write(d, index, "update_schemes_stats");
}

int tier_damon_stats_read(struct tier_damon *d, unsigned index, size_t scheme,
			  struct tier_damon_stats *ret)
{
	struct tier_damon_stats st;
	const struct {
		const char *name;
		uint64_t *v;
	} f[] = {
		{ "nr_tried", &st.nr_tried },	{ "sz_tried", &st.sz_tried },
		{ "nr_applied", &st.nr_applied }, { "sz_applied", &st.sz_applied },
		{ "qt_exceeds", &st.qt_exceeds },
	};
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		r = KREAD_U64(d, f[i].v, index, "contexts/0/schemes/%zu/stats/%s", scheme,
			      f[i].name);
		if (r < 0)
			return r;
	}
	*ret = st;
	return 0;
}

int tier_damon_update_tried_bytes(struct tier_damon *d, unsigned index)
{
	return state_write(d, index, "update_schemes_tried_bytes");
}

int tier_damon_tried_bytes_read(struct tier_damon *d, unsigned index, size_t scheme,
				uint64_t *ret)
{
	return KREAD_U64(d, ret, index, "contexts/0/schemes/%zu/tried_regions/total_bytes",
			 scheme);
}

/* ------------------------------------------------------------------------
 * Ownership
 * ------------------------------------------------------------------------ */

/* Field 22 (starttime) of <proc>/<pid>/stat; the comm (field 2) may hold
 * spaces and parentheses, so fields are counted after the last ')'. */
static int proc_starttime(const struct tier_damon *d, int pid, uint64_t *ret)
{
	_cleanup_free_ char *buf = NULL, *path = NULL;
	_cleanup_close_ int fd = -1;
	char *p, *save = NULL, *tok;
	size_t size;
	int r;

	if (d->proc_fd < 0 || pid <= 0)
		return -ENOENT;
	if (asprintf(&path, "%d", pid) < 0)
		return -ENOMEM;
	fd = openat(d->proc_fd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = read_file_at_max(fd, "stat", 4096, READ_NOFOLLOW, &buf, &size);
	if (r < 0)
		return r;
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	/* after ") ": field 3 (state) is token 0, field 22 is token 19 */
	tok = strtok_r(p + 1, " \n", &save);
	for (int i = 0; tok && i < 19; i++)
		tok = strtok_r(NULL, " \n", &save);
	if (!tok)
		return -EINVAL;
	return parse_u64(tok, ret);
}

int tier_damon_owner_of(struct tier_damon *d, unsigned index, uint64_t fingerprint,
			struct tier_damon_owner *ret)
{
	struct tier_damon_owner o = { .index = index, .pid = -1, .fingerprint = fingerprint };
	struct tier_damon_kdamond k;
	int r;

	r = tier_damon_kdamond_get(d, index, &k);
	if (r < 0)
		return r;
	if (k.running && k.pid > 0) {
		o.pid = k.pid;
		r = proc_starttime(d, k.pid, &o.starttime);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	*ret = o;
	return 0;
}

/*
 * A stopped kdamond's cheap identity: nr_contexts, nr_targets, nr_regions
 * and nr_schemes (0 below a missing count).  Any rewrite of nr_kdamonds, and
 * any restaging of a different shape, changes one of them; a rewrite of the
 * same shape is caught by the full read-back before tierd writes.
 */
static int shape_read(struct tier_damon *d, unsigned index, uint64_t shape[DAMON_SHAPE_N])
{
	int r;

	memset(shape, 0, DAMON_SHAPE_N * sizeof(*shape));
	r = KREAD_U64(d, &shape[0], index, "contexts/nr_contexts");
	if (r < 0 || shape[0] != 1)
		return r;
	r = KREAD_U64(d, &shape[1], index, "contexts/0/targets/nr_targets");
	if (r < 0)
		return r;
	if (shape[1] == 1) {
		r = KREAD_U64(d, &shape[2], index, "contexts/0/targets/0/regions/nr_regions");
		if (r < 0)
			return r;
	}
	return KREAD_U64(d, &shape[3], index, "contexts/0/schemes/nr_schemes");
}

static void verified_note(struct tier_damon *d, unsigned index, uint64_t fp,
			  const uint64_t shape[DAMON_SHAPE_N])
{
	struct damon_verified *slot = NULL;

	for (unsigned i = 0; i < DAMON_VERIFIED; i++) {
		struct damon_verified *v = &d->verified[i];

		if (v->valid && v->index == index) {
			slot = v;
			break;
		}
		if (!v->valid && !slot)
			slot = v;
	}
	if (!slot)
		slot = &d->verified[index % DAMON_VERIFIED];
	*slot = (struct damon_verified){ .valid = true, .index = index, .fp = fp };
	memcpy(slot->shape, shape, DAMON_SHAPE_N * sizeof(*shape));
}

static int reclaim(struct tier_damon *d, const struct tier_damon_owner *rec, bool quick,
		   bool *ret_running)
{
	uint64_t shape[DAMON_SHAPE_N];
	struct tier_damon_kdamond k;
	uint64_t fp;
	int r;

	r = tier_damon_kdamond_get(d, rec->index, &k);
	if (r == -ENOENT)
		return -ESTALE;
	if (r < 0)
		return r;
	if (k.running) {
		uint64_t st;

		/* only the thread we started; no one can renumber or restart
		 * a running kdamond */
		if (rec->pid <= 0 || k.pid != rec->pid)
			return -ESTALE;
		if (rec->starttime) {
			r = proc_starttime(d, k.pid, &st);
			if (r == -ENOENT)
				return -ESTALE;
			if (r < 0)
				return r;
			if (st != rec->starttime)
				return -ESTALE;
		}
		*ret_running = true;
		return 0;
	}
	/* stopped: ours while it still holds the input we staged */
	r = shape_read(d, rec->index, shape);
	if (r == -ENOENT)
		return -ESTALE;
	if (r < 0)
		return r;
	if (quick) {
		for (unsigned i = 0; i < DAMON_VERIFIED; i++) {
			const struct damon_verified *v = &d->verified[i];

			if (v->valid && v->index == rec->index && v->fp == rec->fingerprint &&
			    !memcmp(v->shape, shape, sizeof(shape))) {
				*ret_running = false;
				return 0;
			}
		}
	}
	r = tier_damon_fingerprint_read(d, rec->index, &fp);
	if (r == -ENOENT)
		return -ESTALE;
	if (r < 0)
		return r;
	if (fp != rec->fingerprint)
		return -ESTALE;
	verified_note(d, rec->index, fp, shape);
	*ret_running = false;
	return 0;
}

int tier_damon_reclaim(struct tier_damon *d, const struct tier_damon_owner *rec,
		       bool *ret_running)
{
	return reclaim(d, rec, false, ret_running);
}

int tier_damon_reclaim_quick(struct tier_damon *d, const struct tier_damon_owner *rec,
			     bool *ret_running)
{
	return reclaim(d, rec, true, ret_running);
}

/* The record's text: version 1 names one kdamond, version 2 ("kdamonds N",
 * then N blocks of the same four lines, each opened by its index line)
 * several. */
static int owners_text(const struct tier_damon_owner *o, size_t n, bool v1, char **ret)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	if (v1)
		fputs(DAMON_OWNER_MAGIC "\n", f);
	else
		fprintf(f, DAMON_OWNER_MAGIC2 "\nkdamonds %zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "index %u\npid %d\nstarttime %" PRIu64 "\nfingerprint %016" PRIx64 "\n",
			o[i].index, o[i].pid, o[i].starttime, o[i].fingerprint);
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(text);
	return (int)len;
}

static int owners_write(int dir_fd, const char *name, const char *text, size_t len)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (asprintf(&tmp, ".%s.tmp", name) < 0)
		return -ENOMEM;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	n = write(fd, text, len);
	if (n < 0 || (size_t)n != len) {
		int r = n < 0 ? negative_errno() : -EIO;

		unlinkat(dir_fd, tmp, 0);
		return r;
	}
	if (fsync(fd) < 0 || renameat(dir_fd, tmp, dir_fd, name) < 0) {
		int r = negative_errno();

		unlinkat(dir_fd, tmp, 0);
		return r;
	}
	return 0;
}

int tier_damon_owner_save(int dir_fd, const char *name, const struct tier_damon_owner *o)
{
	_cleanup_free_ char *text = NULL;
	int len;

	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	len = owners_text(o, 1, true, &text);
	if (len < 0)
		return len;
	return owners_write(dir_fd, name, text, (size_t)len);
}

int tier_damon_owners_save(int dir_fd, const char *name, const struct tier_damon_owner *o,
			   size_t n)
{
	_cleanup_free_ char *text = NULL;
	int len;

	if (!name || !*name || strchr(name, '/') || n == 0 || n > TIER_DAMON_OWNERS_MAX)
		return -EINVAL;
	len = owners_text(o, n, false, &text);
	if (len < 0)
		return len;
	return owners_write(dir_fd, name, text, (size_t)len);
}

int tier_damon_owners_load(int dir_fd, const char *name, struct tier_damon_owner *ret,
			   size_t max, size_t *ret_n)
{
	struct tier_damon_owner o[TIER_DAMON_OWNERS_MAX];
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	unsigned seen[TIER_DAMON_OWNERS_MAX] = { 0 };
	size_t size, n = 0, want = 1;
	bool v2;
	int r;

	if (!name || !*name || strchr(name, '/') || !ret || !ret_n || max == 0)
		return -EINVAL;
	r = read_file_at_max(dir_fd, name, DAMON_OWNER_MAX, READ_NOFOLLOW, &buf, &size);
	if (r < 0)
		return r;
	if (strlen(buf) != size)
		return -EINVAL;
	line = strtok_r(buf, "\n", &save);
	if (!line)
		return -EINVAL;
	if (!strcmp(line, DAMON_OWNER_MAGIC))
		v2 = false;
	else if (!strcmp(line, DAMON_OWNER_MAGIC2))
		v2 = true;
	else
		return -EINVAL;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *val = strchr(line, ' ');
		struct tier_damon_owner *cur = n ? &o[n - 1] : NULL;
		uint64_t v;

		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(line, "kdamonds") && v2) {
			r = parse_u64(val, &v);
			if (r < 0 || v == 0 || v > TIER_DAMON_OWNERS_MAX || n)
				return -EINVAL;
			want = (size_t)v;
			continue;
		}
		if (!strcmp(line, "index")) {
			/* opens a kdamond's block */
			if (n >= want)
				return -EINVAL;
			r = parse_u64(val, &v);
			if (r < 0 || v > INT32_MAX)
				return -EINVAL;
			o[n] = (struct tier_damon_owner){ .index = (unsigned)v, .pid = -1 };
			seen[n++] = 1;
			continue;
		}
		if (!cur) {
			/* a key before the first index: only unknown keys */
			if (!strcmp(line, "pid") || !strcmp(line, "starttime") ||
			    !strcmp(line, "fingerprint"))
				return -EINVAL;
			continue;
		}
		if (!strcmp(line, "pid")) {
			r = parse_int(val, &cur->pid);
			if (r < 0 || cur->pid < -1)
				return -EINVAL;
			seen[n - 1] |= 2;
		} else if (!strcmp(line, "starttime")) {
			r = parse_u64(val, &cur->starttime);
			if (r < 0)
				return -EINVAL;
			seen[n - 1] |= 4;
		} else if (!strcmp(line, "fingerprint")) {
			char *end;

			if (strlen(val) != 16)
				return -EINVAL;
			errno = 0;
			cur->fingerprint = strtoull(val, &end, 16);
			if (errno || *end)
				return -EINVAL;
			seen[n - 1] |= 8;
		}
		/* unknown keys: a later version's; ignored */
	}
	if (n != want || n > max)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (seen[i] != 15)
			return -EINVAL;
	memcpy(ret, o, n * sizeof(*o));
	*ret_n = n;
	return 0;
}

int tier_damon_owner_load(int dir_fd, const char *name, struct tier_damon_owner *ret)
{
	struct tier_damon_owner o[TIER_DAMON_OWNERS_MAX];
	size_t n;
	int r;

	r = tier_damon_owners_load(dir_fd, name, o, TIER_DAMON_OWNERS_MAX, &n);
	if (r < 0)
		return r;
	if (n != 1)
		return -EINVAL;
	*ret = o[0];
	return 0;
}

int tier_damon_owner_remove(int dir_fd, const char *name)
{
	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	if (unlinkat(dir_fd, name, 0) < 0)
		return negative_errno();
	return 0;
}

int tier_damon_modules_enabled(const char *sys_root, unsigned *ret_mask)
{
	static const struct {
		const char *dir;
		unsigned bit;
	} mods[] = {
		{ "module/damon_reclaim/parameters", TIER_DAMON_MODULE_RECLAIM },
		{ "module/damon_lru_sort/parameters", TIER_DAMON_MODULE_LRU_SORT },
	};
	_cleanup_close_ int sys_fd = -1;
	unsigned mask = 0;

	if (!sys_root || !ret_mask)
		return -EINVAL;
	sys_fd = open(sys_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys_fd < 0)
		return negative_errno();
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		_cleanup_close_ int fd = dir_walk(sys_fd, mods[i].dir);
		_cleanup_free_ char *v = NULL;
		size_t size;
		int r;

		if (fd == -ENOENT)
			continue;
		if (fd < 0)
			return fd;
		r = read_file_at_max(fd, "enabled", 16, READ_NOFOLLOW | READ_SHORT_EOF, &v, &size);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		if (v[0] == 'Y')
			mask |= mods[i].bit;
		else if (v[0] != 'N')
			return -EINVAL;
	}
	*ret_mask = mask;
	return 0;
}

/* ------------------------------------------------------------------------
 * Node ranges
 * ------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const struct tier_damon_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

#define DAMON_SPLIT_MAX 100000

int tier_damon_ranges_split(const struct tier_damon_range *ranges, size_t n, uint64_t chunk,
			    struct tier_damon_range **ret, size_t *ret_n)
{
	_cleanup_free_ struct tier_damon_range *arr = NULL;
	size_t m = 0, alloc = 0;

	if ((n && !ranges) || chunk % 4096)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint64_t start = ranges[i].start;

		if (ranges[i].end <= start)
			return -EINVAL;
		while (start < ranges[i].end) {
			struct tier_damon_range g = { start, ranges[i].end };
			int r;

			if (chunk && g.end - g.start > chunk)
				g.end = g.start + chunk;
			if (m >= DAMON_SPLIT_MAX)
				return -E2BIG;
			r = ARRAY_PUSH(arr, m, alloc, g);
			if (r < 0)
				return r;
			start = g.end;
		}
	}
	*ret = TAKE_PTR(arr);
	*ret_n = m;
	return 0;
}

int tier_damon_node_ranges(const char *proc_root, int nid, struct tier_damon_range **ret,
			   size_t *ret_n)
{
	_cleanup_free_ struct tier_damon_range *arr = NULL;
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int proc_fd = -1;
	uint64_t spanned = 0, present = 0;
	size_t n = 0, alloc = 0, size, m;
	long ps = sysconf(_SC_PAGESIZE);
	char *line, *save = NULL;
	int node = -1, r;

	if (!proc_root || nid < 0 || ps <= 0)
		return -EINVAL;
	proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		return negative_errno();
	r = read_file_at_max(proc_fd, "zoneinfo", READ_MAX_DEFAULT, READ_NOFOLLOW, &buf, &size);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line;
		uint64_t v;
		int nd;

		if (sscanf(line, "Node %d, zone", &nd) == 1) {
			node = nd;
			spanned = present = 0;
			continue;
		}
		while (*p == ' ')
			p++;
		if (!strncmp(p, "spanned ", 8) || !strncmp(p, "present ", 8) ||
		    !strncmp(p, "start_pfn:", 10)) {
			char *val = p + strcspn(p, " :");

			val += strspn(val, " :");
			r = parse_u64(strip(val), &v);
			if (r < 0)
				return r;
			if (p[0] == 's' && p[1] == 'p')
				spanned = v;
			else if (p[0] == 'p')
				present = v;
			else if (node == nid && present && spanned) {
				struct tier_damon_range g;

				if (v > UINT64_MAX / (uint64_t)ps - spanned)
					return -ERANGE;
				g.start = v * (uint64_t)ps;
				g.end = (v + spanned) * (uint64_t)ps;
				r = ARRAY_PUSH(arr, n, alloc, g);
				if (r < 0)
					return r;
			}
		}
	}
	if (n == 0)
		return -ENOENT;
	qsort(arr, n, sizeof(*arr), cmp_range);
	/* merge adjacent and overlapping zones (ZONE_MOVABLE may overlap) */
	m = 0;
	for (size_t i = 1; i < n; i++) {
		if (arr[i].start <= arr[m].end) {
			if (arr[i].end > arr[m].end)
				arr[m].end = arr[i].end;
		} else {
			arr[++m] = arr[i];
		}
	}
	*ret = TAKE_PTR(arr);
	*ret_n = m + 1;
	return 0;
}
