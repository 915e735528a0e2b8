// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd-damon: tierd's DAMON backend (see tierd-damon.h, and
 * docs/architecture.md, "The DAMON backend").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "tierd-damon.h"

/* The monitoring of each of our kdamonds (one per tier; the VM cases'
 * values: 48 MB hot set on the fast node in 2-6 s under TCG).  Regions per
 * kdamond: half of what the one context over both tiers had, so that the
 * two sample as many pages as it did (the same resolution per tier). */
#define DAMON_SAMPLE_US 5000
#define DAMON_AGGR_US 100000
#define DAMON_UPDATE_US 1000000
#define DAMON_MIN_NR_REGIONS 10
#define DAMON_MAX_NR_REGIONS 500
/* Initial regions: at most this many pieces of a tier, of at least 2 MB
 * (a whole node as one region would be judged by one sampled page). */
#define DAMON_INIT_REGIONS 250
#define DAMON_CHUNK_MIN (2ull << 20)
/* Demotion: a region untouched for 1 s (10 aggregation intervals) at the
 * earliest, at most 256 MB per second, the goal tuning the quota below. */
#define DAMON_COLD_MIN_AGE 10
/*
 * ... and where the fast tier's kdamond runs hot-set schemes: those are
 * lru_deprio over every region once a second, and 6.12 sets a region's age
 * to 0 whenever a scheme other than stat is applied to it
 * (damos_apply_scheme()), so no region gets older than 10 aggregation
 * intervals and age >= 10 matched in one interval a second at most (none
 * for a memcg whose scheme sits after another memcg's hot scheme): in
 * damon-tierd-hot the hog's 240 MB of cold pages were not demoted (6 MB in
 * 140 s).  9 (the interval before each hot pass, whatever the order) gave
 * 256 -> 216 MB in 140 s with a per-second quota, in 10 MB steps about
 * 20 s apart; 3 (7 intervals of 10, untouched for 0.3 s) 256 -> 142 MB,
 * the hog's hot set 96-100% on the fast node throughout (its promotion
 * trickle, damon_promote_trickle(), brings back what is demoted by
 * mistake).  The quota there is per second (DAMON_DEMOTE_HOT_RESET_MS).
 */
#define DAMON_COLD_MIN_AGE_HOT 3
/* ... and where the sharer's hot set fits its target (keep_young: the
 * regions walked in address order, the young filter deciding per folio,
 * see scheme_of()): 0.  With 3 the hog stalled at 32 MB (its 16 MB hot set
 * and 16 MB of cold pages that shared regions with hot pages, whose
 * sampled count kept resetting their age); with 0 it went to 16.0 MB, its
 * hot set 99.9% on the fast node. */
#define DAMON_COLD_MIN_AGE_YOUNG 0
/* DAMON tunes a goal's quota once per reset interval, multiplying it by
 * up to 2 from 1 byte: 100 ms reaches MBs in about 2 s; the quota's cap
 * per interval is the want's quota_bytes (DAMON_DEMOTE_RATE_DIV). */
#define DAMON_DEMOTE_RESET_MS 100
#define DAMON_PAGE 4096

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------------
 * The plan (pure)
 * ------------------------------------------------------------------------ */

void damon_plan_done(struct damon_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->w[i].memcg);
	free(p->w);
	*p = (struct damon_plan){};
}

/* Is a equal to b or below it ("/a" covers "/a" and "/a/b", not "/ab")? */
static bool path_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

uint64_t damon_demote_hot_quota(uint64_t target, uint64_t fast_bytes)
{
	uint64_t excess = fast_bytes > target ? fast_bytes - target : 0, base = target, q;

	if (excess > base) {
		/* a power of two: the quota changes once per halving */
		base = 1;
		while (base <= excess / 2)
			base <<= 1;
	}
	q = base / DAMON_DEMOTE_RATE_DIV * (DAMON_DEMOTE_HOT_RESET_MS / DAMON_DEMOTE_RESET_MS);
	q &= ~(uint64_t)(DAMON_PAGE - 1);
	return q < DAMON_DEMOTE_MIN_BYTES ? DAMON_DEMOTE_MIN_BYTES : q;
}

unsigned damon_quota_scale_next(unsigned cur, uint64_t tried, uint64_t applied, uint64_t want,
				bool exhausted)
{
	uint64_t next;

	if (!cur)
		cur = DAMON_SCALE_ONE;
	if (!want || tried < DAMON_FB_MIN_TRIED)
		return cur;		/* too little tried to tell */
	if (applied > want + want / 8) {
		/* ran ahead of the quota's rate: down at once, in proportion */
		next = (uint64_t)cur * want / applied;
	} else if (!exhausted || applied >= want - want / 8) {
		return cur;		/* the quota did not bind, or on the want */
	} else {
		/* below the want, the quota bound: in proportion (want /
		 * applied), at most doubling per window, and at most twice
		 * tried / applied (what spends the want on the cgroup's pages
		 * if the quota runs out every window) unless already above */
		uint64_t ratio = applied ? tried * DAMON_SCALE_ONE / applied : 2ull * cur;

		next = applied ? (uint64_t)cur * want / applied : 2ull * cur;
		if (next > 2ull * cur)
			next = 2ull * cur;
		if (next > 2 * ratio && 2 * ratio >= cur)
			next = 2 * ratio;
		else if (next > 2 * ratio)
			next = cur;
		/* up by a quarter at least (each change is a commit, and
		 * on a loaded host one took 1.2 s) */
		if (next <= cur + cur / 4)
			return cur;
	}
	if (next < DAMON_SCALE_ONE)
		next = DAMON_SCALE_ONE;
	if (next > DAMON_SCALE_MAX)
		next = DAMON_SCALE_MAX;
	return (unsigned)next;
}

unsigned damon_budget_scale_next(unsigned cur, uint64_t tried, uint64_t applied, uint64_t want,
				 bool exhausted)
{
	unsigned next = damon_quota_scale_next(cur, tried, applied, want, exhausted);
	unsigned c = cur ?: DAMON_SCALE_ONE;
	uint64_t cap = (uint64_t)c * DAMON_BUDGET_STEP_MAX / DAMON_SCALE_ONE;

	return next > c && next > cap ? (unsigned)cap : next;
}

uint64_t damon_quota_scaled(uint64_t quota, unsigned scale)
{
	uint64_t q;

	if (!quota || !scale || scale == DAMON_SCALE_ONE)
		return quota;
	q = quota / DAMON_SCALE_ONE * scale + quota % DAMON_SCALE_ONE * scale / DAMON_SCALE_ONE;
	q &= ~(uint64_t)(DAMON_PAGE - 1);
	return q < DAMON_PAGE ? DAMON_PAGE : q;
}

uint64_t damon_promote_trickle(uint64_t target)
{
	uint64_t base = 1, q;

	/* a power of two (the quota changes rarely: a change is a new
	 * scheme), 1/8 of it a second */
	while (base <= target / 2)
		base <<= 1;
	q = base / 8 / (1000 / DAMON_PROMOTE_RESET_MS);
	q &= ~(uint64_t)(DAMON_PAGE - 1);
	return q < DAMON_PAGE ? DAMON_PAGE : q;
}

uint64_t damon_goal_current(uint64_t target, uint64_t fast_bytes)
{
	uint64_t low = target - target / 10000 * DAMON_OVERLAP_BP, dev;
	unsigned __int128 v;

	if (low == 0)
		return fast_bytes ? 0 : DAMON_GOAL_MAX;
	/* the score is 1 at low, falls DAMON_GOAL_GAIN times faster than
	 * the excess grows (0 at low x (1 + 1/gain): the quota doubles every
	 * interval), and rises as fast below it (2 and more: its minimum) */
	dev = fast_bytes > low ? fast_bytes - low : low - fast_bytes;
	v = (unsigned __int128)DAMON_GOAL_TARGET * DAMON_GOAL_GAIN * dev / low;
	if (fast_bytes > low)
		return v >= DAMON_GOAL_TARGET ? 0 : DAMON_GOAL_TARGET - (uint64_t)v;
	return v >= DAMON_GOAL_MAX - DAMON_GOAL_TARGET ? DAMON_GOAL_MAX
						       : DAMON_GOAL_TARGET + (uint64_t)v;
}

static int want_cmp(const void *x, const void *y)
{
	const struct damon_want *a = x, *b = y;
	int c = strcmp(a->memcg, b->memcg);

	return c ? c : (int)a->kind - (int)b->kind;
}

uint64_t damon_promote_quota(const struct damon_managed *managed, size_t n_managed,
			     const char *const *memcgs, size_t n_memcgs, const char *memcg)
{
	uint64_t best = 0;

	for (size_t j = 0; j < n_managed; j++) {
		uint64_t q, below = 0;

		if (!managed[j].promote_budget || !path_covers(managed[j].path, memcg))
			continue;
		for (size_t i = 0; i < n_memcgs; i++)
			below += path_covers(managed[j].path, memcgs[i]);
		q = managed[j].promote_budget / (1000 / DAMON_PROMOTE_RESET_MS) / (below ?: 1);
		q &= ~(uint64_t)(DAMON_PAGE - 1);
		if (q < DAMON_PAGE)
			q = DAMON_PAGE;
		if (!best || q < best)
			best = q;
	}
	return best;
}

/* Want w (its memcg copied) at the end of p. */
static int plan_push(struct damon_plan *p, size_t *alloc, const char *memcg, struct damon_want w)
{
	w.memcg = strdup(memcg);
	if (!w.memcg || ARRAY_PUSH(p->w, p->n, *alloc, w) < 0) {
		free(w.memcg);
		return -ENOMEM;
	}
	return 0;
}

int damon_plan_build(const struct damon_managed *managed, size_t n_managed,
		     const char *const *memcgs, size_t n_memcgs, const struct damon_fair *fair,
		     size_t n_fair, unsigned flags, struct damon_plan *ret)
{
	static const enum damon_kind kinds[] = { DAMON_PROMOTE, DAMON_DEMOTE, DAMON_HOT,
						 DAMON_PAGECACHE, DAMON_HOT_SLOW };
	struct damon_plan p = {};
	size_t alloc = 0;
	bool any_hot = false;

	if ((n_managed && !managed) || (n_memcgs && !memcgs) || (n_fair && !fair) || !ret ||
	    (flags & ~(DAMON_PLAN_TIERING | DAMON_PLAN_HOT | DAMON_PLAN_PAGECACHE)))
		return -EINVAL;
	for (size_t i = 0; i < n_memcgs; i++) {
		enum tier_mode eff = TIER_MODE_INHERIT;
		const struct damon_fair *sharer = NULL;
		bool any = false, page_cache = true, promotes;

		/* the effective mode: the most restrictive of the managed
		 * cgroups at or above it, as memory.numa_balancing would be;
		 * page_cache likewise (one class with it off: off) */
		for (size_t j = 0; j < n_managed; j++)
			if (path_covers(managed[j].path, memcgs[i])) {
				eff = tier_mode_restrict(eff, managed[j].mode);
				page_cache &= !managed[j].no_page_cache;
				any = true;
			}
		/* the sharer that accounts for it: the top-most (libtier's
		 * unit of fairness) */
		for (size_t j = 0; j < n_fair; j++)
			if (path_covers(fair[j].path, memcgs[i]) &&
			    (!sharer || strlen(fair[j].path) < strlen(sharer->path)))
				sharer = &fair[j];
		if (!any && !sharer)
			continue;
		/* held off above the target, unless (damon backend) its
		 * demand fits the target (by hot set): then what it promotes
		 * is its hot set, and demotion's mistakes come back */
		promotes = any && (eff == TIER_MODE_PROMOTE || eff == TIER_MODE_FULL) &&
			   !(sharer && sharer->throttled &&
			     !((flags & DAMON_PLAN_TIERING) && damon_fair_demand_fits(sharer)));
		for (size_t ki = 0; ki < ARRAY_SIZE(kinds); ki++) {
			enum damon_kind k = kinds[ki];
			struct damon_want w = { .kind = k };

			if (damon_kind_hot(k)) {
				if (!(flags & DAMON_PLAN_HOT) || !any)
					continue;
			} else if (k == DAMON_PAGECACHE) {
				if (!(flags & DAMON_PLAN_PAGECACHE) || !promotes || !page_cache)
					continue;
			} else if (!(flags & DAMON_PLAN_TIERING)) {
				continue;
			}
			if (k == DAMON_PROMOTE && !promotes)
				continue;
			if (k == DAMON_DEMOTE && (!sharer || !damon_fair_contended(sharer)))
				continue;
			if (p.n >= DAMON_SCHEMES_MAX) {
				p.n_dropped++;
				continue;
			}
			if (k == DAMON_DEMOTE) {
				w.goal_current = damon_goal_current(sharer->target, sharer->fast_bytes);
				w.quota_bytes = sharer->target / DAMON_DEMOTE_RATE_DIV;
				w.quota_bytes &= ~(uint64_t)(DAMON_PAGE - 1);
				if (w.quota_bytes < DAMON_DEMOTE_MIN_BYTES)
					w.quota_bytes = DAMON_DEMOTE_MIN_BYTES;
			}
			if (k == DAMON_PROMOTE || k == DAMON_PAGECACHE)
				w.quota_bytes = damon_promote_quota(managed, n_managed, memcgs,
								    n_memcgs, memcgs[i]);
			if (k == DAMON_PROMOTE && sharer && sharer->throttled) {
				/* above its target, its demand fitting it (by hot
				 * set): a trickle, for its hot pages demotion took
				 * by mistake; more would bring back the cold pages
				 * just demoted (they read young on their first
				 * samples on the slow tier) */
				uint64_t q = damon_promote_trickle(sharer->target);

				if (!w.quota_bytes || q < w.quota_bytes) {
					w.quota_bytes = q;
					w.trickle = true;
				}
			}
			/* DAMON's promotion takes page cache and anon alike:
			 * page_cache off leaves it anon */
			w.anon_only = k == DAMON_PROMOTE && !page_cache;
			any_hot |= damon_kind_hot(k);
			if (plan_push(&p, &alloc, memcgs[i], w) < 0) {
				damon_plan_done(&p);
				return -ENOMEM;
			}
		}
	}
	/* where hot sets are measured, demotion matches once or twice a
	 * second: a quota per second, from the excess */
	for (size_t i = 0; any_hot && i < p.n; i++)
		if (p.w[i].kind == DAMON_DEMOTE) {
			const struct damon_fair *sharer = NULL;

			for (size_t j = 0; j < n_fair; j++)
				if (path_covers(fair[j].path, p.w[i].memcg) &&
				    (!sharer || strlen(fair[j].path) < strlen(sharer->path)))
					sharer = &fair[j];
			p.w[i].hot_ctx = true;
			/* its hot set fits its target: demotion never takes a
			 * folio that is in use (a young filter), and walks the
			 * tier in address order; else (hot sets contended, or
			 * not read yet) it ranks by access count and may take
			 * hot pages, as the share wants */
			p.w[i].keep_young = sharer && damon_fair_demand_fits(sharer);
			if (sharer)
				p.w[i].quota_bytes = damon_demote_hot_quota(sharer->target,
									    sharer->fast_bytes);
		}
	/* demand = resident (hot sets not measured) and over its share: every
	 * page counts as wanted, so ranking by access count spent the quota on
	 * free regions (220.7 MB tried, 0.2 MB moved in 30 s); walk in address
	 * order instead, min age 0, no young filter */
	for (size_t i = 0; !any_hot && i < p.n; i++)
		if (p.w[i].kind == DAMON_DEMOTE) {
			const struct damon_fair *sharer = NULL;

			for (size_t j = 0; j < n_fair; j++)
				if (path_covers(fair[j].path, p.w[i].memcg) &&
				    (!sharer || strlen(fair[j].path) < strlen(sharer->path)))
					sharer = &fair[j];
			p.w[i].walk_all = sharer && sharer->target && sharer->demand != UINT64_MAX &&
					  (!sharer->resident || sharer->demand >= sharer->resident) &&
					  sharer->fast_bytes > sharer->target;
		}
	/* the clock of the hot schemes (never dropped: they need it) */
	if (any_hot && plan_push(&p, &alloc, "", (struct damon_want){ .kind = DAMON_CLOCK }) < 0) {
		damon_plan_done(&p);
		return -ENOMEM;
	}
	if (p.n)
		qsort(p.w, p.n, sizeof(*p.w), want_cmp);
	*ret = p;
	return 0;
}

bool damon_plan_same(const struct damon_plan *a, const struct damon_plan *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->w[i].kind != b->w[i].kind || a->w[i].quota_bytes != b->w[i].quota_bytes ||
		    a->w[i].anon_only != b->w[i].anon_only || a->w[i].hot_ctx != b->w[i].hot_ctx ||
		    a->w[i].keep_young != b->w[i].keep_young ||
		    a->w[i].walk_all != b->w[i].walk_all || a->w[i].trickle != b->w[i].trickle ||
		    strcmp(a->w[i].memcg, b->w[i].memcg))
			return false;
	return true;
}

/* ------------------------------------------------------------------------
 * The memcgs with pages (I/O on the cgroup tree)
 * ------------------------------------------------------------------------ */

/* A small file below dfd, newline stripped, NUL-terminated in buf. */
static int read_small_at(int dfd, const char *name, char *buf, size_t size)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static int parse_u64_str(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* How deep the walk goes below a managed cgroup, and how many it visits. */
#define DAMON_WALK_DEPTH 16
#define DAMON_WALK_MAX 100000

struct walk {
	char **v;
	size_t n, alloc, visited;
};

static int walk_add(struct walk *w, const char *path)
{
	char *s = strdup(path);

	if (!s || ARRAY_PUSH(w->v, w->n, w->alloc, s) < 0) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

/* dfd is path's directory: path itself if it holds pages, then its children. */
static int walk_tree(struct walk *w, int dfd, const char *path, unsigned depth)
{
	_cleanup_closedir_ DIR *dir = NULL;
	struct dirent *de;
	char buf[64];
	uint64_t cur;
	int fd, r;

	if (++w->visited > DAMON_WALK_MAX)
		return 0;
	if (read_small_at(dfd, "memory.current", buf, sizeof(buf)) == 0 &&
	    parse_u64_str(buf, &cur) == 0 && cur > 0) {
		r = walk_add(w, path);
		if (r < 0)
			return r;
	}
	if (depth >= DAMON_WALK_DEPTH)
		return 0;
	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(dir))) {
		_cleanup_free_ char *child = NULL;
		_cleanup_close_ int cfd = -1;

		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (de->d_name[0] == '.')
			continue;
		cfd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue; /* gone, or not a directory */
		if (asprintf(&child, "%s%s%s", path, strcmp(path, "/") ? "/" : "", de->d_name) < 0)
			return -ENOMEM;
		r = walk_tree(w, cfd, child, depth + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int damon_memcgs_collect(int root_fd, const struct damon_managed *managed, size_t n_managed,
			 const struct damon_fair *fair, size_t n_fair, bool all, char ***ret,
			 size_t *ret_n)
{
	_cleanup_free_ const char **roots = calloc(n_managed + n_fair + 1, sizeof(*roots));
	struct walk w = {};
	size_t m = 0, n_roots = 0;
	int r = 0;

	if (!roots)
		return -ENOMEM;
	/* the subtrees that need schemes: classes that promote, sharers with a
	 * target; one walk per top-most of them */
	for (size_t i = 0; i < n_managed; i++)
		if (all || managed[i].mode == TIER_MODE_PROMOTE || managed[i].mode == TIER_MODE_FULL)
			roots[n_roots++] = managed[i].path;
	for (size_t i = 0; i < n_fair; i++)
		if (damon_fair_contended(&fair[i]))
			roots[n_roots++] = fair[i].path;
	if (n_roots)
		qsort(roots, n_roots, sizeof(*roots), strp_cmp);
	for (size_t i = 0; i < n_roots; i++) {
		_cleanup_close_ int fd = -1;

		if (m > 0 && path_covers(roots[m - 1], roots[i]))
			continue;
		roots[m++] = roots[i];
		fd = strcmp(roots[i], "/") == 0 ? fcntl(root_fd, F_DUPFD_CLOEXEC, 3)
						: openat(root_fd, roots[i] + 1,
							 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue; /* gone */
		r = walk_tree(&w, fd, roots[i], 0);
		if (r < 0)
			goto fail;
	}
	/* sorted, each once ("/a-x" sorts between "/a" and "/a/b") */
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), strp_cmp);
	m = 0;
	for (size_t i = 0; i < w.n; i++) {
		if (m > 0 && strcmp(w.v[m - 1], w.v[i]) == 0) {
			free(w.v[i]);
			continue;
		}
		w.v[m++] = w.v[i];
	}
	*ret = w.v;
	*ret_n = m;
	return 0;
fail:
	for (size_t i = 0; i < w.n; i++)
		free(w.v[i]);
	free(w.v);
	return r;
}

int damon_memcg_prefix(const char *procfs_root, const char *cgroup_root, char **ret)
{
	_cleanup_free_ char *path = NULL, *best_root = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t best = 0, len = 0;
	char *line = NULL;

	if (asprintf(&path, "%s/self/mountinfo", procfs_root ?: "/proc") < 0)
		return -ENOMEM;
	f = fopen(path, "re");
	while (f && getline(&line, &len, f) > 0) {
		char root[4096], mnt[4096], fstype[64];
		const char *sep = strstr(line, " - ");
		size_t n;

		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		n = strlen(mnt);
		if (strncmp(mnt, cgroup_root, n) ||
		    (cgroup_root[n] != '\0' && cgroup_root[n] != '/' && strcmp(mnt, "/")) ||
		    n < best)
			continue;
		best = n;
		free(best_root);
		/* cgroup_root below the mount point, after the mount's root */
		if (asprintf(&best_root, "%s%s", strcmp(root, "/") ? root : "",
			     cgroup_root + (strcmp(mnt, "/") ? n : 0)) < 0) {
			best_root = NULL;
			free(line);
			return -ENOMEM;
		}
	}
	free(line);
	if (best_root && strcmp(best_root, "/") == 0)
		best_root[0] = '\0';
	*ret = best_root ? TAKE_PTR(best_root) : strdup("");
	return *ret ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------------
 * The layout: nodes and ranges
 * ------------------------------------------------------------------------ */

static int ranges_append(struct tier_damon_range **arr, size_t *n, const struct tier_damon_range *add,
			 size_t n_add)
{
	struct tier_damon_range *a = realloc(*arr, (*n + n_add + 1) * sizeof(**arr));

	if (!a)
		return -ENOMEM;
	memcpy(a + *n, add, n_add * sizeof(*add));
	*arr = a;
	*n += n_add;
	return 0;
}

static int range_cmp(const void *x, const void *y)
{
	const struct tier_damon_range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

int damon_layout_read(const struct tier_topology *topo, const char *procfs_root,
		      struct damon_driver_args *args, struct tier_damon_range **ret_fast,
		      struct tier_damon_range **ret_slow)
{
	_cleanup_free_ struct tier_damon_range *fast = NULL, *slow = NULL;
	size_t n_fast = 0, n_slow = 0;
	uint64_t fast_best = 0, slow_best = 0;
	int fast_nid = -1, slow_nid = -1;

	for (unsigned i = 0; i < tier_topology_node_count(topo); i++) {
		const struct tier_node *node = tier_topology_node(topo, i);
		_cleanup_free_ struct tier_damon_range *r = NULL;
		int id = tier_node_id(node);
		size_t n = 0;
		bool top;
		int e;

		if (!tier_node_has_memory(node))
			continue;
		e = tier_damon_node_ranges(procfs_root ?: "/proc", id, &r, &n);
		if (e == -ENOENT)
			continue;
		if (e < 0)
			return e;
		top = tier_node_is_toptier(node);
		e = ranges_append(top ? &fast : &slow, top ? &n_fast : &n_slow, r, n);
		if (e < 0)
			return e;
		/* migrate to the largest node of each tier */
		if (top && tier_node_mem_total(node) > fast_best) {
			fast_best = tier_node_mem_total(node);
			fast_nid = id;
		} else if (!top && tier_node_mem_total(node) > slow_best) {
			slow_best = tier_node_mem_total(node);
			slow_nid = id;
		}
	}
	if (fast_nid < 0 || slow_nid < 0)
		return -ENODEV;
	qsort(fast, n_fast, sizeof(*fast), range_cmp);
	qsort(slow, n_slow, sizeof(*slow), range_cmp);
	args->fast_nid = fast_nid;
	args->slow_nid = slow_nid;
	args->fast = fast;
	args->n_fast = n_fast;
	args->slow = slow;
	args->n_slow = n_slow;
	*ret_fast = TAKE_PTR(fast);
	*ret_slow = TAKE_PTR(slow);
	return 0;
}

/* ------------------------------------------------------------------------
 * The driver
 * ------------------------------------------------------------------------ */

/* One scheme index of our kdamond. */
struct slot {
	char *memcg;			/* NULL: free, an inert scheme */
	enum damon_kind kind;
	uint64_t quota_bytes;		/* DEMOTE, PROMOTE, PAGECACHE */
	bool anon_only;			/* PROMOTE */
	bool hot_ctx;			/* DEMOTE */
	bool keep_young;		/* DEMOTE */
	bool walk_all;			/* DEMOTE */
	bool trickle;			/* PROMOTE: no quota feedback */
	uint64_t goal;			/* DEMOTE: the goal's current value staged */
	/* HOT and CLOCK: sz_applied (sz_tried) at the start of the window,
	 * valid once read after the scheme was committed; HOT: the result */
	bool base_valid, hot_valid;
	uint64_t base, hot;
	uint64_t base_clock;		/* HOT: the clock's sz_tried at base */
	uint64_t base_self;		/* HOT: the memcg's resident bytes at base
					 * (UINT64_MAX: unknown) */
	uint64_t ring[DAMON_HOT_KEEP];	/* HOT: the last readings; hot is their max */
	unsigned n_ring, ring_pos;
	/* HOT: a first window went by (and was dropped): until the scheme's
	 * young filter has marked the memcg's folios old once, every folio
	 * not yet aged reads young, and the first reading is too high (in
	 * the VM 56 MB for a 32 MB hot set of 128 MB) */
	bool primed;
	/* > 0: staged with a pattern no region has, its quota not yet in
	 * force (damon_driver_arm() counts it down); see DAMON_ARM_TICKS */
	unsigned arming;
	/* DEMOTE and a quota'd PROMOTE/PAGECACHE: the quota written is
	 * quota_bytes x scale / DAMON_SCALE_ONE (0: one), from the scheme's
	 * stats at fb_ms (damon_driver_quota_feedback()) */
	unsigned scale, fb_ticks;
	bool fb_valid;
	uint64_t fb_tried, fb_applied, fb_exceeds;
	double fb_ms;
};

/*
 * 6.12 sets a scheme's effective quota (esz) only when its second charge
 * window starts: damos_adjust_quota() starts the first window at the
 * scheme's first apply with esz 0, and esz 0 means no limit, so the first
 * apply of a new scheme (or of an index that had no quota) moves every
 * region it matches.  Measured in the two-tier VM on Debian's 6.12.118: a
 * cgroup with an 8 MB/s promotion budget had 90% of its 64 MB hot set
 * promoted within about a second (51 MB/s), its scheme's qt_exceeds 0.  A
 * scheme with a quota is therefore staged first with a region size range
 * nothing has ([0, 0]), which still runs the quota's windows, and gets its
 * pattern DAMON_ARM_TICKS goal ticks later (DAMON_GOAL_USEC apart, so at
 * least two seconds: twenty 100 ms windows, room for a kdamond slowed by
 * a loaded host), when esz holds; a commit keeps a scheme's quota state
 * (damos_commit_quota() copies the settings only).
 */
#define DAMON_ARM_TICKS 3

static bool want_needs_arming(enum damon_kind kind, uint64_t quota_bytes)
{
	return kind == DAMON_DEMOTE ||
	       ((kind == DAMON_PROMOTE || kind == DAMON_PAGECACHE) && quota_bytes);
}

/* Scheme indexes come in chunks: nr_schemes (whose every change makes the
 * kernel recreate all schemes) changes only when they run out, or when at
 * most half of them are used. */
#define DAMON_SLOT_CHUNK 16

static void slots_free(struct slot *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].memcg);
	free(v);
}

/*
 * One kdamond per tier (docs/architecture.md, "One kdamond per tier"): a
 * quota ranks every region of its context, so with one context over both
 * tiers a promotion scheme's slow-tier candidates were ranked against the
 * fast tier's hot regions (a budgeted migrate_hot reached ~0.2 of its
 * budget) and a demotion scheme's against the slow tier's idle ones.  Each
 * context now monitors one tier's ranges and runs that tier's schemes:
 *   fast: DEMOTE (migrate_cold) and HOT (the fast tier's hot set);
 *   slow: PROMOTE, PAGECACHE (migrate_hot) and HOT_SLOW;
 * and each has its own CLOCK when it has hot schemes.  No addr filters:
 * the context's regions are the tier.
 */
enum { DAMON_KD_FAST, DAMON_KD_SLOW, DAMON_NR_KD };

static int kind_kd(enum damon_kind k)
{
	switch (k) {
	case DAMON_DEMOTE:
	case DAMON_HOT:
		return DAMON_KD_FAST;
	case DAMON_PROMOTE:
	case DAMON_PAGECACHE:
	case DAMON_HOT_SLOW:
		return DAMON_KD_SLOW;
	default:
		return -1;	/* DAMON_CLOCK: each kdamond with hot schemes */
	}
}

static const char *const kd_name[DAMON_NR_KD] = { "fast-tier", "slow-tier" };

/* One of our kdamonds. */
struct kd {
	unsigned index;
	bool running;
	struct tier_damon_owner owner;
	uint64_t fp;			/* the fingerprint of what is staged */
	struct damon_plan committed;	/* what it runs (its part of the plan) */
	bool committed_valid;
	size_t *slot_of;		/* committed.w[i]'s scheme index */
	/* The kdamond's schemes, by index: a memcg keeps its index while it
	 * has a scheme (its stats stay with it, and a change rewrites only
	 * the indexes that change); free ones hold an inert scheme.  Valid
	 * while slots_staged (the kernel's staged input is this). */
	struct slot *slots;
	size_t n_slots;
	bool slots_staged;
	struct tier_damon_range *regions;	/* the target's: the tier, split */
	size_t n_regions;
	uint64_t monitored;		/* bytes of the target's regions */
};

struct damon_driver {
	struct tier_damon *d;
	int run_fd;
	char *memcg_prefix;
	int fast_nid, slow_nid;
	damon_log_fn log;
	void *userdata;
	damon_resident_fn resident;
	const char *what;		/* what is lost while busy ("tiering") */

	/* our kdamonds, both or neither: added together (6.12 cannot add one
	 * while the other runs), recorded together, taken back together */
	bool have;
	struct kd kd[DAMON_NR_KD];
	bool said_busy;
	uint64_t hot_read_usec;		/* the last hot-set reading (caller's clock) */
	struct damon_stats st;
};

_printf_(4, 5) static void dlog(const struct damon_driver *drv, int priority, int error,
				const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int k;

	if (!drv->log)
		return;
	if (error)
		errno = error < 0 ? -error : error;
	va_start(ap, fmt);
	k = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	drv->log(drv->userdata, priority, error, msg);
}

/* The initial regions of a tier's target: its ranges, merged where they
 * touch, cut in pieces of at least 2 MB and at most DAMON_INIT_REGIONS. */
static int tier_regions(const struct tier_damon_range *ranges, size_t n, struct kd *k)
{
	_cleanup_free_ struct tier_damon_range *all = NULL;
	size_t n_all = 0, m = 0;
	uint64_t total = 0, chunk;
	int r;

	r = ranges_append(&all, &n_all, ranges, n);
	if (r < 0)
		return r;
	qsort(all, n_all, sizeof(*all), range_cmp);
	for (size_t i = 0; i < n_all; i++) {
		if (m > 0 && all[i].start <= all[m - 1].end) {
			if (all[i].end > all[m - 1].end)
				all[m - 1].end = all[i].end;
			continue;
		}
		all[m++] = all[i];
	}
	for (size_t i = 0; i < m; i++)
		total += all[i].end - all[i].start;
	chunk = total / DAMON_INIT_REGIONS;
	chunk = (chunk + DAMON_CHUNK_MIN - 1) / DAMON_CHUNK_MIN * DAMON_CHUNK_MIN;
	if (chunk < DAMON_CHUNK_MIN)
		chunk = DAMON_CHUNK_MIN;
	r = tier_damon_ranges_split(all, m, chunk, &k->regions, &k->n_regions);
	if (r < 0)
		return r;
	for (size_t i = 0; i < k->n_regions; i++)
		k->monitored += k->regions[i].end - k->regions[i].start;
	return 0;
}

int damon_driver_new(const struct damon_driver_args *args, struct damon_driver **ret)
{
	struct damon_driver *drv;
	int r;

	if (!args || !args->n_fast || !args->n_slow)
		return -EINVAL;
	drv = calloc(1, sizeof(*drv));
	if (!drv)
		return -ENOMEM;
	drv->run_fd = args->run_fd;
	drv->fast_nid = args->fast_nid;
	drv->slow_nid = args->slow_nid;
	drv->log = args->log;
	drv->userdata = args->userdata;
	drv->resident = args->resident;
	drv->what = args->what ?: "tiering";
	drv->memcg_prefix = strdup(args->memcg_prefix ?: "");
	r = drv->memcg_prefix ? 0 : -ENOMEM;
	if (r == 0)
		r = tier_regions(args->fast, args->n_fast, &drv->kd[DAMON_KD_FAST]);
	if (r == 0)
		r = tier_regions(args->slow, args->n_slow, &drv->kd[DAMON_KD_SLOW]);
	if (r == 0)
		r = tier_damon_open(args->sysfs_root ?: "/sys", args->procfs_root ?: "/proc",
				    &drv->d);
	if (r < 0) {
		damon_driver_free(drv);
		return r;
	}
	*ret = drv;
	return 0;
}

static void kd_reset(struct kd *k)
{
	k->running = false;
	k->committed_valid = false;
	k->slots_staged = false;
	k->fp = 0;
	damon_plan_done(&k->committed);
}

void damon_driver_free(struct damon_driver *drv)
{
	if (!drv)
		return;
	tier_damon_free(drv->d);
	for (int t = 0; t < DAMON_NR_KD; t++) {
		struct kd *k = &drv->kd[t];

		damon_plan_done(&k->committed);
		free(k->slot_of);
		slots_free(k->slots, k->n_slots);
		free(k->regions);
	}
	free(drv->memcg_prefix);
	free(drv);
}

void damon_driver_stats(const struct damon_driver *drv, struct damon_stats *ret)
{
	const struct kd *f = &drv->kd[DAMON_KD_FAST], *s = &drv->kd[DAMON_KD_SLOW];

	*ret = drv->st;
	ret->have_kdamond = drv->have;
	ret->running = drv->have && (f->running || s->running);
	ret->index = f->index;
	ret->index_slow = s->index;
	ret->pid = drv->have && f->running ? f->owner.pid : -1;
	ret->pid_slow = drv->have && s->running ? s->owner.pid : -1;
	ret->n_schemes = (f->committed_valid ? f->committed.n : 0) +
			 (s->committed_valid ? s->committed.n : 0);
	ret->blocked = !drv->have && drv->said_busy;
}

static void forget(struct damon_driver *drv)
{
	drv->have = false;
	for (int t = 0; t < DAMON_NR_KD; t++)
		kd_reset(&drv->kd[t]);
	if (drv->run_fd >= 0)
		(void)tier_damon_owner_remove(drv->run_fd, DAMON_OWNER_NAME);
}

/* A kdamond that is ours (by its thread) but cannot be kept (its partner
 * is not ours any more, or it is a previous tierd's single context):
 * stopped, so that it does not go on running schemes no one feeds. */
static void stop_orphan(struct damon_driver *drv, unsigned index, const char *why)
{
	int r = tier_damon_stop(drv->d, index);

	if (r < 0)
		dlog(drv, LOG_WARNING, r, "DAMON: cannot stop kdamond %u (%s): %m", index, why);
	else
		dlog(drv, LOG_NOTICE, 0, "DAMON: stopped kdamond %u (%s)", index, why);
}

int damon_driver_reclaim(struct damon_driver *drv)
{
	struct tier_damon_owner rec[TIER_DAMON_OWNERS_MAX];
	bool running[TIER_DAMON_OWNERS_MAX] = { false };
	int res[TIER_DAMON_OWNERS_MAX];
	size_t n = 0;
	int r;

	if (drv->run_fd < 0)
		return 0;
	r = tier_damon_owners_load(drv->run_fd, DAMON_OWNER_NAME, rec, TIER_DAMON_OWNERS_MAX, &n);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		dlog(drv, LOG_WARNING, r, "DAMON: cannot read the record of a previous tierd's "
		     "kdamonds (%s): %m; removing it, leaving every kdamond alone",
		     DAMON_OWNER_NAME);
		(void)tier_damon_owner_remove(drv->run_fd, DAMON_OWNER_NAME);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		res[i] = tier_damon_reclaim(drv->d, &rec[i], &running[i]);
		if (res[i] < 0 && res[i] != -ESTALE) {
			dlog(drv, LOG_WARNING, res[i], "DAMON: cannot check kdamond %u of the "
			     "record: %m; leaving the record's kdamonds alone", rec[i].index);
			return 0;
		}
	}
	if (n == DAMON_NR_KD && res[0] == 0 && res[1] == 0) {
		drv->have = true;
		for (int t = 0; t < DAMON_NR_KD; t++) {
			drv->kd[t].index = rec[t].index;
			drv->kd[t].running = running[t];
			drv->kd[t].owner = rec[t];
			drv->kd[t].fp = rec[t].fingerprint;
		}
		char how[DAMON_NR_KD][32];

		for (int t = 0; t < DAMON_NR_KD; t++)
			if (running[t])
				snprintf(how[t], sizeof(how[t]), "running, pid %d", rec[t].pid);
			else
				snprintf(how[t], sizeof(how[t]), "stopped");
		dlog(drv, LOG_INFO, 0, "DAMON: took over kdamonds %u (fast tier, %s) and %u "
		     "(slow tier, %s) of a previous tierd", rec[0].index, how[0], rec[1].index,
		     how[1]);
		return 0;
	}
	/* both or neither: what is still ours and runs is stopped, the rest
	 * left alone */
	for (size_t i = 0; i < n; i++) {
		if (res[i] == 0 && running[i])
			stop_orphan(drv, rec[i].index,
				    n == 1 ? "a previous tierd's one context for both tiers; "
					     "tierd now adds one kdamond per tier" :
					     "a previous tierd's, whose partner is not ours any "
					     "more");
		else if (res[i] == -ESTALE)
			dlog(drv, LOG_NOTICE, 0, "DAMON: kdamond %u of the record is not a previous "
			     "tierd's any more (renumbered, restarted or rewritten by someone "
			     "else); leaving it alone", rec[i].index);
	}
	(void)tier_damon_owner_remove(drv->run_fd, DAMON_OWNER_NAME);
	return 0;
}

/* Our kdamonds are still ours (someone may have stopped one, or rewritten
 * nr_kdamonds since); if one is not, forget both (the other stopped).
 * Every round checks quickly (a running kdamond by its thread, a stopped
 * one by its counts once read back in full): reading a stopped kdamond's
 * every region back each round cost ~1,000 opens and seconds of the event
 * loop.  full: read stopped ones back in full, before writing to them. */
static int check_ours(struct damon_driver *drv, bool full)
{
	bool running[DAMON_NR_KD] = { false };
	int res[DAMON_NR_KD];

	if (!drv->have)
		return 0;
	for (int t = 0; t < DAMON_NR_KD; t++) {
		res[t] = full ? tier_damon_reclaim(drv->d, &drv->kd[t].owner, &running[t]) :
				tier_damon_reclaim_quick(drv->d, &drv->kd[t].owner, &running[t]);
		if (res[t] < 0 && res[t] != -ESTALE)
			return res[t];
	}
	if (res[0] == -ESTALE || res[1] == -ESTALE) {
		for (int t = 0; t < DAMON_NR_KD; t++) {
			if (res[t] == -ESTALE)
				dlog(drv, LOG_WARNING, 0, "DAMON: kdamond %u (%s) is not ours any "
				     "more (someone stopped it and rewrote nr_kdamonds, or started "
				     "their own there); leaving it alone", drv->kd[t].index,
				     kd_name[t]);
			else if (running[t])
				stop_orphan(drv, drv->kd[t].index, "its partner is not ours any more");
		}
		forget(drv);
		return 0;
	}
	for (int t = 0; t < DAMON_NR_KD; t++) {
		struct kd *k = &drv->kd[t];

		if (k->running && !running[t]) {
			dlog(drv, LOG_NOTICE, 0, "DAMON: kdamond %u (%s) was stopped (not by tierd); "
			     "starting it again", k->index, kd_name[t]);
			k->committed_valid = false;
		}
		k->running = running[t];
	}
	return 0;
}

/* The scheme of want w (filters in buf, at least DAMON_FILTERS_MAX). */
#define DAMON_FILTERS_MAX 3
static int scheme_of(struct damon_driver *drv, const struct damon_want *w, char **memcg_path,
		     struct tier_damon_filter *buf, struct tier_damon_goal *goal,
		     struct tier_damon_scheme *ret)
{
	bool promote = w->kind == DAMON_PROMOTE || w->kind == DAMON_PAGECACHE;
	struct tier_damon_scheme s = {
		.action = promote ? TIER_DAMON_MIGRATE_HOT : TIER_DAMON_MIGRATE_COLD,
		.target_nid = promote ? drv->fast_nid : drv->slow_nid,
		.sz = { DAMON_PAGE, UINT64_MAX },
		.nr_accesses = { promote ? 1 : 0, UINT64_MAX },
		.age = { promote	   ? 0 :
			 w->keep_young || w->walk_all ? DAMON_COLD_MIN_AGE_YOUNG :
			 w->hot_ctx	   ? DAMON_COLD_MIN_AGE_HOT :
					     DAMON_COLD_MIN_AGE,
			 UINT64_MAX },
		.filters = buf,
		.nr_filters = 1,
	};

	if (w->kind == DAMON_CLOCK) {
		/* every region, every pass: sz_tried grows by the kdamond's
		 * monitored bytes */
		*ret = (struct tier_damon_scheme){
			.action = TIER_DAMON_STAT,
			.target_nid = -1,
			.apply_interval_us = DAMON_HOT_INTERVAL_US,
			.sz = { 0, UINT64_MAX },
			.nr_accesses = { 0, UINT64_MAX },
			.age = { 0, UINT64_MAX },
		};
		return 0;
	}
	if (asprintf(memcg_path, "%s%s", drv->memcg_prefix, w->memcg) < 0)
		return -ENOMEM;
	buf[0] = (struct tier_damon_filter){ .type = TIER_DAMON_FILTER_MEMCG, .matching = false,
					     .memcg_path = *memcg_path };
	if (damon_kind_hot(w->kind)) {
		/* the memcg (the context is one tier): the young filter then
		 * marks old only the memcg's own folios; what is left is its
		 * cold folios there */
		buf[1] = (struct tier_damon_filter){ .type = TIER_DAMON_FILTER_YOUNG,
						     .matching = true };
		*ret = (struct tier_damon_scheme){
			.action = TIER_DAMON_LRU_DEPRIO,
			.target_nid = -1,
			.apply_interval_us = DAMON_HOT_INTERVAL_US,
			.sz = { DAMON_PAGE, UINT64_MAX },
			.nr_accesses = { DAMON_HOT_MIN_ACCESSES, UINT64_MAX },
			.age = { 0, UINT64_MAX },
			.filters = buf,
			.nr_filters = 2,
		};
		return 0;
	}
	if (w->kind == DAMON_PAGECACHE || (w->kind == DAMON_PROMOTE && w->anon_only)) {
		/* page cache only (anonymous folios out: the knob promotes
		 * them), or anon only (everything not anonymous out: the
		 * class's page_cache is off) */
		buf[1] = (struct tier_damon_filter){ .type = TIER_DAMON_FILTER_ANON,
						     .matching = w->kind == DAMON_PAGECACHE };
		s.nr_filters++;
	}
	if (promote && w->quota_bytes) {
		/* the budget: the hottest first, this much per reset interval
		 * (DAMON charges the regions it tries, whatever the filters
		 * leave of them: the bound holds, the rate may fall below it
		 * where the cgroup's pages share regions with others'); ranked
		 * among the slow tier's regions alone (the context's) */
		s.quota_bytes = w->quota_bytes;
		s.quota_reset_interval_ms = DAMON_PROMOTE_RESET_MS;
		s.weight_nr_accesses = 1000;
		s.weight_age = 1000;
	}
	if (!promote) {
		/* the least accessed first, as much as the goal asks; not by
		 * age: a region the scheme tried drops to age 0 while the
		 * ones it never reaches keep ageing, so age ranks what was
		 * not tried last above what was (with one context for both
		 * tiers, the slow tier's idle regions took the top ranks and
		 * /big's demotion stopped after 60 s, 158 MB of cold pages
		 * left) */
		s.quota_bytes = w->quota_bytes;
		s.quota_reset_interval_ms = w->hot_ctx ? DAMON_DEMOTE_HOT_RESET_MS
						       : DAMON_DEMOTE_RESET_MS;
		s.weight_nr_accesses = w->keep_young || w->walk_all ? 0 : 1000;
		s.weight_age = 0;
		/* where the sharer's hot set fits (keep_young), no ranking at all: every
		 * region scores the same (mm/damon/ops-common.c
		 * damon_hot_score(): both weights 0), and DAMON walks them in
		 * address order, each charge window going on where the last
		 * one stopped (damos_skip_charged_region()).  Ranked by
		 * nr_accesses, the fast tier's free and other cgroups' idle
		 * regions ranked first every window and took the whole
		 * quota: in damon-tierd-hot the hog stalled at 65-75 MB
		 * (target 20), its scheme trying 40-60 MB per 4 s and
		 * demoting nothing.  The young filter below keeps the hot
		 * pages of the regions walked.
		 * And never a folio of the memcg's touched since it was last
		 * checked (6.12's young filter, after the memcg one: it marks
		 * old only the memcg's own): a region reads cold from one
		 * sampled page, and the memcg's hot pages share regions with
		 * its cold ones (damon-tierd-hot: 20% of the hog's 16 MB hot
		 * set went with a quota 4x larger, before this filter).
		 * DAMON's pageout installs the same filter by default.  Not
		 * where the share must take hot pages (demand = resident, or
		 * hot sets that do not fit): there a victim all of whose pages
		 * are hot stayed at 144 MB against a 96 MB target */
		if (w->keep_young)
			buf[s.nr_filters++] = (struct tier_damon_filter){
				.type = TIER_DAMON_FILTER_YOUNG, .matching = true };
		*goal = (struct tier_damon_goal){ .metric = TIER_DAMON_GOAL_USER_INPUT,
						  .target_value = DAMON_GOAL_TARGET,
						  .current_value = w->goal_current };
		s.goals = goal;
		s.nr_goals = 1;
	}
	*ret = s;
	return 0;
}

/* A free index: stat, and a region size nothing has (sz max 0), so that it
 * never matches and costs DAMON one pattern check per region. */
static const struct tier_damon_scheme inert_scheme = {
	.action = TIER_DAMON_STAT,
	.target_nid = -1,
	.sz = { 0, 0 },
	.nr_accesses = { 0, 0 },
	.age = { 0, 0 },
};

static int round_up_slots(size_t n)
{
	return (int)((n ? n : 1) + DAMON_SLOT_CHUNK - 1) / DAMON_SLOT_CHUNK * DAMON_SLOT_CHUNK;
}

/*
 * The scheme indexes for plan: *ret_slots (n *ret_n), *ret_slot_of[i] for
 * plan->w[i], *ret_changed[j] for each index whose scheme differs from what
 * is staged; *ret_full when all of them must be written (the count changes,
 * or nothing is known of what is staged).  Kept memcgs keep their index.
 */
static int slots_assign(struct kd *k, const struct damon_plan *plan,
			struct slot **ret_slots, size_t *ret_n, size_t **ret_slot_of,
			bool **ret_changed, bool *ret_full)
{
	size_t n_old = k->slots_staged ? k->n_slots : 0, n, missing = 0, n_free = 0;
	_cleanup_free_ size_t *slot_of = calloc(plan->n ?: 1, sizeof(*slot_of));
	_cleanup_free_ bool *taken = calloc(n_old ?: 1, sizeof(*taken));
	_cleanup_free_ bool *retuned = calloc(plan->n ?: 1, sizeof(*retuned));
	struct slot *v = NULL;
	bool *changed = NULL, full = !k->slots_staged;
	size_t cap;

	if (!slot_of || !taken || !retuned)
		return -ENOMEM;
	/* the indexes that keep their memcg (plan is sorted, the old slots
	 * are not: a lookup per entry; a few thousand at most) */
	for (size_t i = 0; i < plan->n; i++) {
		slot_of[i] = SIZE_MAX;
		for (size_t j = 0; !full && j < n_old; j++) {
			const struct slot *o = &k->slots[j];

			/* the same memcg and kind keep their index when the
			 * quota or a filter changes: the index is rewritten in
			 * place, and a commit keeps the kernel's quota state
			 * (a goal's tuned quota; no unlimited first window to
			 * arm against).  A new index would start the goal's
			 * quota from 1 byte again, doubling at most once per
			 * reset interval: 20 s to MBs with the 1 s windows
			 * of DAMON_DEMOTE_HOT_RESET_MS */
			if (!taken[j] && o->memcg && o->kind == plan->w[i].kind &&
			    !strcmp(o->memcg, plan->w[i].memcg)) {
				taken[j] = true;
				slot_of[i] = j;
				retuned[i] = o->quota_bytes != plan->w[i].quota_bytes ||
					     o->anon_only != plan->w[i].anon_only ||
					     o->hot_ctx != plan->w[i].hot_ctx ||
					     o->keep_young != plan->w[i].keep_young ||
					     o->walk_all != plan->w[i].walk_all ||
					     o->trickle != plan->w[i].trickle;
				break;
			}
		}
		missing += slot_of[i] == SIZE_MAX;
	}
	for (size_t j = 0; j < n_old; j++)
		n_free += !taken[j];
	cap = (size_t)round_up_slots(plan->n);
	/* growing: at least twice what there was, so that a burst regrows
	 * (and restages everything) a few times, not every chunk */
	if (!full && missing > n_free && cap < 2 * n_old)
		cap = 2 * n_old;
	if (full || missing > n_free || n_old > 2 * cap) {
		/* a new count: the plan in order, free indexes after it */
		full = true;
		n = cap;
		for (size_t i = 0; i < plan->n; i++)
			slot_of[i] = i;
	} else {
		n = n_old;
	}
	v = calloc(n, sizeof(*v));
	changed = calloc(n, sizeof(*changed));
	if (!v || !changed)
		goto oom;
	if (!full) {
		size_t next_free = 0;

		for (size_t i = 0; i < plan->n; i++) {
			if (slot_of[i] != SIZE_MAX)
				continue;
			/* a free index: one no plan entry keeps */
			while (taken[next_free])
				next_free++;
			taken[next_free] = true;
			slot_of[i] = next_free;
			changed[next_free] = true;
		}
		for (size_t j = 0; j < n; j++) {
			/* an index nobody keeps or gets goes inert (if it was not) */
			v[j].goal = k->slots[j].goal;
			if (!taken[j] && k->slots[j].memcg)
				changed[j] = true;
		}
		for (size_t i = 0; i < plan->n; i++)
			if (retuned[i])
				changed[slot_of[i]] = true;
	} else {
		for (size_t j = 0; j < n; j++)
			changed[j] = true;
	}
	for (size_t i = 0; i < plan->n; i++) {
		struct slot *x = &v[slot_of[i]];

		x->memcg = strdup(plan->w[i].memcg);
		if (!x->memcg)
			goto oom;
		x->kind = plan->w[i].kind;
		x->quota_bytes = plan->w[i].quota_bytes;
		x->anon_only = plan->w[i].anon_only;
		x->hot_ctx = plan->w[i].hot_ctx;
		x->keep_young = plan->w[i].keep_young;
		x->walk_all = plan->w[i].walk_all;
		x->trickle = plan->w[i].trickle;
		if (changed[slot_of[i]] && !(retuned[i] && !full)) {
			x->goal = plan->w[i].goal_current;
			x->arming = want_needs_arming(x->kind, x->quota_bytes) ? DAMON_ARM_TICKS : 0;
		} else {
			/* the same scheme at the same index: its measurement goes on */
			const struct slot *o = &k->slots[slot_of[i]];

			x->base_valid = o->base_valid;
			x->base = o->base;
			x->base_clock = o->base_clock;
			x->base_self = o->base_self;
			x->hot_valid = o->hot_valid;
			x->hot = o->hot;
			memcpy(x->ring, o->ring, sizeof(x->ring));
			x->n_ring = o->n_ring;
			x->ring_pos = o->ring_pos;
			x->primed = o->primed;
			x->arming = o->arming;
			/* the scale is the memory's (how much of what the
			 * scheme tries is the cgroup's): kept; its window
			 * starts again where the quota changed */
			x->scale = x->trickle ? 0 : o->scale;
			x->fb_valid = o->fb_valid && !retuned[i];
			x->fb_ticks = o->fb_ticks;
			x->fb_tried = o->fb_tried;
			x->fb_applied = o->fb_applied;
			x->fb_exceeds = o->fb_exceeds;
			x->fb_ms = o->fb_ms;
			if (retuned[i]) {
				/* a quota where there was none: its first window
				 * is unlimited (see DAMON_ARM_TICKS) */
				if (!o->quota_bytes && want_needs_arming(x->kind, x->quota_bytes))
					x->arming = DAMON_ARM_TICKS;
				x->goal = plan->w[i].goal_current;
			}
		}
	}
	*ret_slots = v;
	*ret_n = n;
	*ret_slot_of = TAKE_PTR(slot_of);
	*ret_changed = changed;
	*ret_full = full;
	return 0;
oom:
	slots_free(v, n);
	free(changed);
	return -ENOMEM;
}

/* keep_regions: for a commit to the running kdamond (its regions stay);
 * changed (may be NULL: all): the indexes to write. */
static int stage(struct damon_driver *drv, struct kd *k, const struct slot *slots, size_t n,
		 const bool *changed, bool keep_regions, uint64_t *ret_fp)
{
	/* each scheme's filters: memcg, anon or young */
	size_t nf = DAMON_FILTERS_MAX;
	_cleanup_free_ struct tier_damon_scheme *schemes = calloc(n ?: 1, sizeof(*schemes));
	_cleanup_free_ struct tier_damon_filter *filters = calloc((n ?: 1) * nf, sizeof(*filters));
	_cleanup_free_ struct tier_damon_goal *goals = calloc(n ?: 1, sizeof(*goals));
	_cleanup_free_ char **paths = calloc(n ?: 1, sizeof(*paths));
	struct tier_damon_config cfg = {
		.sample_us = DAMON_SAMPLE_US,
		.aggr_us = DAMON_AGGR_US,
		.update_us = DAMON_UPDATE_US,
		.min_nr_regions = DAMON_MIN_NR_REGIONS,
		.max_nr_regions = DAMON_MAX_NR_REGIONS,
		.regions = k->regions,
		.nr_regions = k->n_regions,
		.schemes = schemes,
		.nr_schemes = n,
		.keep_regions = keep_regions,
	};
	int r = 0;

	if (!schemes || !filters || !goals || !paths)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct damon_want w = { .memcg = slots[i].memcg, .kind = slots[i].kind,
					.goal_current = slots[i].goal,
					.quota_bytes = damon_quota_scaled(slots[i].quota_bytes,
									  slots[i].scale),
					.anon_only = slots[i].anon_only,
					.hot_ctx = slots[i].hot_ctx,
					.keep_young = slots[i].keep_young,
					.walk_all = slots[i].walk_all };

		if (!slots[i].memcg) {
			schemes[i] = inert_scheme;
			continue;
		}
		r = scheme_of(drv, &w, &paths[i], &filters[i * nf], &goals[i], &schemes[i]);
		if (slots[i].arming)
			schemes[i].sz = (struct tier_damon_minmax){ 0, 0 };
	}
	if (r >= 0)
		r = keep_regions && changed ?
			    tier_damon_stage_changed(drv->d, k->index, &cfg, changed, ret_fp) :
			    tier_damon_stage(drv->d, k->index, &cfg, ret_fp);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return r;
}

static int plan_copy(const struct damon_plan *src, struct damon_plan *dst)
{
	struct damon_plan p = { .n = src->n };

	p.w = calloc(src->n ?: 1, sizeof(*p.w));
	if (!p.w)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		p.w[i] = src->w[i];
		p.w[i].memcg = strdup(src->w[i].memcg);
		if (!p.w[i].memcg) {
			p.n = i;
			damon_plan_done(&p);
			return -ENOMEM;
		}
	}
	damon_plan_done(dst);
	*dst = p;
	return 0;
}

/* The record names both kdamonds and what is staged in each now: a stopped
 * kdamond is ours by its input (a crash before the start, a refused
 * commit), so the record follows every stage. */
static void record_save(struct damon_driver *drv)
{
	struct tier_damon_owner o[DAMON_NR_KD];
	int r = 0;

	for (int t = 0; r == 0 && t < DAMON_NR_KD; t++)
		r = tier_damon_owner_of(drv->d, drv->kd[t].index, drv->kd[t].fp, &o[t]);
	if (r == 0) {
		for (int t = 0; t < DAMON_NR_KD; t++)
			drv->kd[t].owner = o[t];
		if (drv->run_fd >= 0)
			r = tier_damon_owners_save(drv->run_fd, DAMON_OWNER_NAME, o, DAMON_NR_KD);
	}
	if (r < 0)
		dlog(drv, LOG_WARNING, r, "DAMON: cannot record kdamonds %u and %u as ours in the "
		     "run directory: %m; a tierd started after a crash of this one will leave "
		     "them alone", drv->kd[0].index, drv->kd[1].index);
}

static const char *start_error(int r)
{
	switch (r) {
	case -EBUSY:
		return "DAMON is busy (DAMON_RECLAIM or DAMON_LRU_SORT enabled, or a concurrent "
		       "user of its sysfs)";
	case -EINVAL:
		return "the kernel refused the input (a memcg_path that names no cgroup: one went "
		       "away?)";
	default:
		return "writing state failed";
	}
}


/* The part of plan that kdamond t runs (memcg strings borrowed: free(w)
 * only), with a clock where it has hot schemes. */
static int plan_part(const struct damon_plan *plan, int t, struct damon_plan *ret)
{
	struct damon_plan p = {};
	bool hot = false;

	p.w = calloc(plan->n ?: 1, sizeof(*p.w));
	if (!p.w)
		return -ENOMEM;
	for (size_t i = 0; i < plan->n; i++)
		if (kind_kd(plan->w[i].kind) == t) {
			hot |= damon_kind_hot(plan->w[i].kind);
			p.w[p.n++] = plan->w[i];
		}
	for (size_t i = 0; hot && i < plan->n; i++)
		if (plan->w[i].kind == DAMON_CLOCK)
			p.w[p.n++] = plan->w[i];
	if (p.n)
		qsort(p.w, p.n, sizeof(*p.w), want_cmp);
	*ret = p;
	return 0;
}

/* Make kdamond t run part: the body of damon_driver_apply() per kdamond. */
static int kd_apply(struct damon_driver *drv, int t, const struct damon_plan *part)
{
	struct kd *k = &drv->kd[t];
	double t_stage = 0, t_cmd = 0;
	struct slot *slots = NULL;
	_cleanup_free_ size_t *slot_of = NULL;
	size_t n_slots = 0, n_changed = 0;
	bool *changed = NULL, full = false;
	uint64_t fp = 0;
	int r;

	if (k->running && k->committed_valid && damon_plan_same(part, &k->committed))
		return 0;
	/* nothing to run and not running: staged once (so that the record
	 * can tell it is ours), never started for nothing */
	if (!k->running && part->n == 0 && k->slots_staged)
		return 0;
	/* about to write to it: a stopped kdamond staged before passed only
	 * the quick check this round; read it (and its partner, if stopped)
	 * back in full (one just added, never staged, is ours by the add) */
	if (!k->running && k->fp) {
		r = check_ours(drv, true);
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: cannot check kdamond %u (%s) before "
			     "writing to it: %m; left as it is, retrying", k->index, kd_name[t]);
			goto fail;
		}
		if (!drv->have)
			return 0;	/* not ours any more: forgotten, untouched */
	}
	r = slots_assign(k, part, &slots, &n_slots, &slot_of, &changed, &full);
	if (r < 0)
		return r;
	for (size_t j = 0; j < n_slots; j++)
		n_changed += changed[j];
	t_stage = mono_ms();
	r = stage(drv, k, slots, n_slots, full ? NULL : changed, k->running, &fp);
	t_stage = mono_ms() - t_stage;
	free(changed);
	/* what is staged now: these slots, or (failed half-way) unknown */
	slots_free(k->slots, k->n_slots);
	k->slots = slots;
	k->n_slots = n_slots;
	k->slots_staged = r >= 0;
	if (r < 0) {
		dlog(drv, LOG_WARNING, r, "DAMON: cannot stage %zu schemes in kdamond %u (%s): %m; "
		     "it keeps running what it had, retrying", part->n, k->index, kd_name[t]);
		goto fail;
	}
	k->fp = fp;
	record_save(drv);
	t_cmd = mono_ms();
	if (k->running) {
		r = tier_damon_commit(drv->d, k->index);
		if (r == -ESRCH) {
			dlog(drv, LOG_WARNING, 0, "DAMON: the kernel refused the new input of kdamond "
			     "%u (%s; a cgroup went away before the commit) and stopped it; "
			     "starting it again with the next plan", k->index, kd_name[t]);
			k->running = false;
			k->committed_valid = false;
			goto fail;
		}
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: commit to kdamond %u (%s) failed: %m; it "
			     "keeps running what it had, retrying", k->index, kd_name[t]);
			goto fail;
		}
		drv->st.n_commits++;
	} else if (part->n) {
		r = tier_damon_start(drv->d, k->index);
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: cannot start kdamond %u (%s): %s (%m); no "
			     "tiering through DAMON, retrying", k->index, kd_name[t], start_error(r));
			goto fail;
		}
		k->running = true;
		drv->st.n_starts++;
		/* a started kdamond counts from 0 */
		for (size_t j = 0; j < k->n_slots; j++)
			k->slots[j].base_valid = k->slots[j].hot_valid = k->slots[j].primed = false;
	}
	t_cmd = mono_ms() - t_cmd;
	record_save(drv);
	free(k->slot_of);
	k->slot_of = TAKE_PTR(slot_of);
	r = plan_copy(part, &k->committed);
	if (r < 0)
		return r;
	k->committed_valid = true;
	if (k->running) {
		dlog(drv, LOG_INFO, 0, "DAMON: kdamond %u (%s, pid %d) runs %zu schemes", k->index,
		     kd_name[t], k->owner.pid, part->n);
		dlog(drv, LOG_DEBUG, 0, "DAMON: staged %zu of %zu scheme indexes of kdamond %u in "
		     "%.1f ms, %s in %.1f ms", full ? n_slots : n_changed, n_slots, k->index,
		     t_stage, drv->st.n_starts && !drv->st.n_commits ? "started" : "committed",
		     t_cmd);
	}
	return 0;
fail:
	drv->st.n_failures++;
	return r;
}

int damon_driver_apply(struct damon_driver *drv, const struct damon_plan *plan)
{
	int r, res = 0;

	r = check_ours(drv, false);
	if (r < 0) {
		dlog(drv, LOG_WARNING, r, "DAMON: cannot check kdamonds %u and %u: %m; they keep "
		     "what they had, retrying", drv->kd[0].index, drv->kd[1].index);
		drv->st.n_failures++;
		return r;
	}
	if (!drv->have) {
		unsigned first;

		if (plan->n == 0)
			return 0;
		/* both at once: 6.12 cannot add the second while the first runs */
		r = tier_damon_kdamond_add_n(drv->d, DAMON_NR_KD, &first);
		if (r == -EBUSY) {
			if (!drv->said_busy)
				dlog(drv, LOG_WARNING, 0, "DAMON: another kdamond runs (an admin's or "
				     "another program's), so tierd cannot add its own "
				     "(nr_kdamonds cannot change while one runs); no %s through "
				     "DAMON until it stops, retrying on every rebalance", drv->what);
			drv->said_busy = true;
			drv->st.n_failures++;
			return r;
		}
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: cannot add kdamonds: %m; no %s "
			     "through DAMON, retrying on every rebalance", drv->what);
			drv->st.n_failures++;
			return r;
		}
		drv->said_busy = false;
		drv->have = true;
		for (int t = 0; t < DAMON_NR_KD; t++) {
			kd_reset(&drv->kd[t]);
			drv->kd[t].index = first + (unsigned)t;
		}
		dlog(drv, LOG_INFO, 0, "DAMON: added kdamonds %u (fast tier) and %u (slow tier), "
		     "tierd's own", first, first + 1);
	}
	for (int t = 0; t < DAMON_NR_KD; t++) {
		struct damon_plan part;

		r = plan_part(plan, t, &part);
		if (r < 0)
			return r;
		r = kd_apply(drv, t, &part);
		free(part.w);
		if (r == -ENOMEM)
			return r;
		if (r < 0 && res == 0)
			res = r;
		if (!drv->have)
			break;	/* not ours any more (kd_apply's full check) */
	}
	return res;
}

/* Commit the goals staged in kdamond k's files; counts the commit or the failure. */
static int goals_commit(struct damon_driver *drv, struct kd *k)
{
	int r = tier_damon_commit_goals(drv->d, k->index);

	if (r < 0) {
		dlog(drv, LOG_WARNING, r, "DAMON: cannot commit the goals of kdamond %u: %m, "
		     "ignoring", k->index);
		drv->st.n_failures++;
		return r;
	}
	drv->st.n_goal_commits++;
	return 0;
}

int damon_driver_goals(struct damon_driver *drv, const struct damon_plan *plan)
{
	struct kd *k = &drv->kd[DAMON_KD_FAST];	/* the demotion schemes' */
	_cleanup_free_ struct damon_want *w = NULL;
	struct damon_plan part;
	bool changed = false;
	int r;

	if (!drv->have || !k->running || !k->committed_valid)
		return 0;
	r = plan_part(plan, DAMON_KD_FAST, &part);
	if (r < 0)
		return r;
	w = part.w;
	if (!damon_plan_same(&part, &k->committed))
		return 0;
	for (size_t i = 0; i < part.n; i++) {
		size_t j = k->slot_of[i];

		if (part.w[i].kind != DAMON_DEMOTE || part.w[i].goal_current == k->slots[j].goal)
			continue;
		r = tier_damon_goal_set_current(drv->d, k->index, j, 0, part.w[i].goal_current);
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: cannot set the goal of scheme %zu: %m, "
			     "ignoring", j);
			drv->st.n_failures++;
			return r;
		}
		k->slots[j].goal = part.w[i].goal_current;
		changed = true;
	}
	return changed ? goals_commit(drv, k) : 0;
}

bool damon_driver_has_demote(const struct damon_driver *drv)
{
	const struct kd *k = &drv->kd[DAMON_KD_FAST];

	for (size_t j = 0; k->slots_staged && j < k->n_slots; j++)
		if (k->slots[j].memcg && k->slots[j].kind == DAMON_DEMOTE)
			return true;
	return false;
}

int damon_driver_goals_fast(struct damon_driver *drv, const struct damon_fair *fair, size_t n)
{
	struct kd *k = &drv->kd[DAMON_KD_FAST];
	bool changed = false;
	int r;

	if (!drv->have || !k->running || !k->committed_valid || !k->slots_staged)
		return 0;
	for (size_t j = 0; j < k->n_slots; j++) {
		const struct damon_fair *sharer = NULL;
		uint64_t v;

		if (!k->slots[j].memcg || k->slots[j].kind != DAMON_DEMOTE)
			continue;
		for (size_t i = 0; i < n; i++)
			if (path_covers(fair[i].path, k->slots[j].memcg) &&
			    (!sharer || strlen(fair[i].path) < strlen(sharer->path)))
				sharer = &fair[i];
		if (!sharer || !damon_fair_contended(sharer))
			continue;
		v = damon_goal_current(sharer->target, sharer->fast_bytes);
		if (v == k->slots[j].goal)
			continue;
		dlog(drv, LOG_DEBUG, 0, "DAMON: demotion goal of %s (scheme %zu): %" PRIu64
		     " -> %" PRIu64 " (fast %" PRIu64 " MB, target %" PRIu64 " MB)",
		     k->slots[j].memcg, j, k->slots[j].goal, v, sharer->fast_bytes >> 20,
		     sharer->target >> 20);
		r = tier_damon_goal_set_current(drv->d, k->index, j, 0, v);
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: cannot set the goal of scheme %zu: %m, "
			     "ignoring", j);
			drv->st.n_failures++;
			return r;
		}
		k->slots[j].goal = v;
		changed = true;
	}
	return changed ? goals_commit(drv, k) : 0;
}

static bool kd_arming(const struct kd *k)
{
	for (size_t j = 0; k->slots_staged && j < k->n_slots; j++)
		if (k->slots[j].memcg && k->slots[j].arming)
			return true;
	return false;
}

bool damon_driver_arming(const struct damon_driver *drv)
{
	return kd_arming(&drv->kd[DAMON_KD_FAST]) || kd_arming(&drv->kd[DAMON_KD_SLOW]);
}

/* Stage the slots marked in changed over what kdamond k runs (its regions
 * kept) and commit them. On failure what is staged is not known: the next
 * apply writes it all. The caller says what it was doing. */
static int kd_restage(struct damon_driver *drv, struct kd *k, const bool *changed)
{
	uint64_t fp = 0;
	int r;

	r = stage(drv, k, k->slots, k->n_slots, changed, true, &fp);
	if (r >= 0) {
		k->fp = fp;
		record_save(drv);
		r = tier_damon_commit(drv->d, k->index);
	}
	if (r < 0) {
		k->slots_staged = false;
		k->committed_valid = false;
		drv->st.n_failures++;
		return r;
	}
	drv->st.n_commits++;
	return 0;
}

static int kd_arm(struct damon_driver *drv, struct kd *k)
{
	_cleanup_free_ bool *changed = NULL;
	size_t n = 0;
	int r;

	if (!k->running || !k->slots_staged || !kd_arming(k))
		return 0;
	changed = calloc(k->n_slots, sizeof(*changed));
	if (!changed)
		return -ENOMEM;
	for (size_t j = 0; j < k->n_slots; j++) {
		struct slot *x = &k->slots[j];

		if (!x->memcg || !x->arming || --x->arming)
			continue;
		changed[j] = true;
		n++;
	}
	if (!n)
		return 0;
	r = kd_restage(drv, k, changed);
	if (r < 0) {
		dlog(drv, LOG_WARNING, r, "DAMON: cannot give %zu schemes of kdamond %u their "
		     "pattern once their quota holds: %m; restaging them", n, k->index);
		return r;
	}
	dlog(drv, LOG_DEBUG, 0, "DAMON: %zu schemes of kdamond %u get their pattern, their "
	     "quota in force", n, k->index);
	return 0;
}

int damon_driver_arm(struct damon_driver *drv)
{
	int r = 0;

	if (!drv->have)
		return 0;
	for (int t = 0; t < DAMON_NR_KD; t++) {
		int k = kd_arm(drv, &drv->kd[t]);

		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

/* A scheme whose quota follows its stats (damon_driver_quota_feedback()). */
static bool slot_feedback(const struct slot *x)
{
	return x->memcg && !x->arming &&
	       (x->kind == DAMON_DEMOTE ||
		((x->kind == DAMON_PROMOTE || x->kind == DAMON_PAGECACHE) && x->quota_bytes &&
		 !x->trickle));
}

static bool kd_has_feedback(const struct kd *k)
{
	for (size_t j = 0; k->running && k->slots_staged && j < k->n_slots; j++)
		if (slot_feedback(&k->slots[j]))
			return true;
	return false;
}

bool damon_driver_has_quota_feedback(const struct damon_driver *drv)
{
	return drv->have && (kd_has_feedback(&drv->kd[DAMON_KD_FAST]) ||
			     kd_has_feedback(&drv->kd[DAMON_KD_SLOW]));
}

static uint64_t slot_reset_ms(const struct slot *x)
{
	if (x->kind != DAMON_DEMOTE)
		return DAMON_PROMOTE_RESET_MS;
	return x->hot_ctx ? DAMON_DEMOTE_HOT_RESET_MS : DAMON_DEMOTE_RESET_MS;
}

static int kd_feedback(struct damon_driver *drv, struct kd *k)
{
	_cleanup_free_ bool *changed = NULL;
	double now = mono_ms();
	size_t n = 0;
	int r;

	if (!kd_has_feedback(k))
		return 0;
	changed = calloc(k->n_slots, sizeof(*changed));
	if (!changed)
		return -ENOMEM;
	r = tier_damon_update_stats(drv->d, k->index);
	if (r < 0)
		return r;
	for (size_t j = 0; j < k->n_slots; j++) {
		struct slot *x = &k->slots[j];
		struct tier_damon_stats st;
		uint64_t want, tried, applied;
		unsigned next, cur = x->scale ?: DAMON_SCALE_ONE;

		if (!slot_feedback(x))
			continue;
		r = tier_damon_stats_read(drv->d, k->index, j, &st);
		if (r < 0)
			return r;
		if (!x->fb_valid || st.sz_tried < x->fb_tried || st.sz_applied < x->fb_applied) {
			x->fb_valid = true;
			x->fb_ticks = 0;
			goto rebase;
		}
		if (++x->fb_ticks < DAMON_FB_TICKS)
			continue;
		tried = st.sz_tried - x->fb_tried;
		applied = st.sz_applied - x->fb_applied;
		/* the quota's bytes over the window, at scale one */
		want = (uint64_t)((now - x->fb_ms) * (double)x->quota_bytes /
				  (double)slot_reset_ms(x));
		next = (x->kind == DAMON_DEMOTE ? damon_quota_scale_next :
						  damon_budget_scale_next)(cur, tried, applied, want,
									   st.qt_exceeds > x->fb_exceeds);
		dlog(drv, LOG_DEBUG, 0, "DAMON: quota of %s (%s, scheme %zu): %.1f s tried %" PRIu64
		     " kB, applied %" PRIu64 " kB (want %" PRIu64 " kB), exceeded %" PRIu64
		     " times; scale %u%% -> %u%%", x->memcg, x->kind == DAMON_DEMOTE ? "demote" : "promote", j,
		     (now - x->fb_ms) / 1000.0, tried >> 10, applied >> 10, want >> 10,
		     st.qt_exceeds - x->fb_exceeds, cur, next);
		x->fb_ticks = 0;
		if (next != cur) {
			x->scale = next;
			changed[j] = true;
			n++;
		}
rebase:
		x->fb_tried = st.sz_tried;
		x->fb_applied = st.sz_applied;
		x->fb_exceeds = st.qt_exceeds;
		x->fb_ms = now;
	}
	if (!n)
		return 0;
	r = kd_restage(drv, k, changed);
	if (r < 0) {
		dlog(drv, LOG_WARNING, r, "DAMON: cannot rescale the quotas of %zu schemes of "
		     "kdamond %u: %m; restaging them", n, k->index);
		return r;
	}
	return 0;
}

int damon_driver_quota_feedback(struct damon_driver *drv)
{
	int r = 0;

	if (!drv->have)
		return 0;
	for (int t = 0; t < DAMON_NR_KD; t++) {
		int q = kd_feedback(drv, &drv->kd[t]);

		if (q < 0 && r == 0)
			r = q;
	}
	return r;
}

static bool kd_has_hot(const struct kd *k)
{
	for (size_t j = 0; k->slots_staged && j < k->n_slots; j++)
		if (k->slots[j].memcg && damon_kind_hot(k->slots[j].kind))
			return true;
	return false;
}

bool damon_driver_has_hot(const struct damon_driver *drv)
{
	return kd_has_hot(&drv->kd[DAMON_KD_FAST]) || kd_has_hot(&drv->kd[DAMON_KD_SLOW]);
}

bool damon_hot_moved(uint64_t before, uint64_t after)
{
	uint64_t d = after > before ? after - before : before - after;

	return d > DAMON_HOT_MOVED_MIN && d > (after > before ? after : before) / 4;
}

static int damon_hot_step(struct slot *slots, size_t n, uint64_t monitored, const uint64_t *now,
			  const uint64_t *self)
{
	struct slot *clock = NULL;
	size_t n_results = 0;

	for (size_t j = 0; j < n; j++)
		if (slots[j].memcg && slots[j].kind == DAMON_CLOCK)
			clock = &slots[j];
	if (!clock || !monitored)
		return 0;
	if (!clock->base_valid || now[clock - slots] < clock->base) {
		/* a new clock (or a restarted kdamond): every window starts over */
		clock->base_valid = true;
		for (size_t j = 0; j < n; j++)
			if (slots[j].memcg && damon_kind_hot(slots[j].kind))
				slots[j].base_valid = false;
	}
	clock->base = now[clock - slots];
	for (size_t j = 0; j < n; j++) {
		struct slot *x = &slots[j];
		uint64_t passes, cold, res;
		bool moved;

		if (!x->memcg || !damon_kind_hot(x->kind))
			continue;
		if (!x->base_valid || now[j] < x->base || clock->base < x->base_clock) {
			x->base_valid = true;
			x->base = now[j];
			x->base_clock = clock->base;
			x->base_self = self[j];
			continue;
		}
		/* whole passes (the clock grows by the monitored bytes on each) */
		passes = (clock->base - x->base_clock + monitored / 2) / monitored;
		if (passes < DAMON_HOT_MIN_PASSES || self[j] == UINT64_MAX)
			continue;
		cold = (now[j] - x->base) / passes;
		if (!x->primed) {
			x->primed = true;
			x->base = now[j];
			x->base_clock = clock->base;
			x->base_self = self[j];
			continue;
		}
		/* the resident bytes over the window, as cold is its mean per
		 * pass: while pages migrate, the resident bytes at its end
		 * alone put the reading off by about half of what the window
		 * migrated (low on the tier they leave, high on the one they
		 * reach; in the VM a hog demoted at a few MB/s read 16 -> 1.4
		 * MB for its 16 MB hot set) */
		/* a window over which the memcg's resident bytes on the tier
		 * moved by more than a quarter (damon_hot_moved()) may lower
		 * the reading but not raise it above the last hot set (a
		 * first reading stands): in damon-tierd-hot on a loaded host
		 * a window of 20 s spanned the hog's demotion from 256 to 72
		 * MB and read 110 MB for its 16 MB hot set, its target rising
		 * to half the tier with it.  (Skipping such windows left a
		 * cgroup demoted by resident bytes with no reading at all.) */
		moved = x->base_self != UINT64_MAX && x->hot_valid &&
			damon_hot_moved(x->base_self, self[j]);
		res = x->base_self != UINT64_MAX ? self[j] / 2 + x->base_self / 2 : self[j];
		x->ring[x->ring_pos] = res > cold ? res - cold : 0;
		if (moved && x->ring[x->ring_pos] > x->hot)
			x->ring[x->ring_pos] = x->hot;
		x->ring_pos = (x->ring_pos + 1) % DAMON_HOT_KEEP;
		if (x->n_ring < DAMON_HOT_KEEP)
			x->n_ring++;
		x->hot = 0;
		for (unsigned k = 0; k < x->n_ring; k++)
			if (x->ring[k] > x->hot)
				x->hot = x->ring[k];
		x->hot_valid = true;
		x->base = now[j];
		x->base_clock = clock->base;
		x->base_self = self[j];
		n_results++;
	}
	return (int)n_results;
}

static int slot_memcg_cmp(const void *x, const void *y)
{
	const struct slot *const *a = x, *const *b = y;
	int c = strcmp((*a)->memcg, (*b)->memcg);

	return c ? c : (int)(*a)->kind - (int)(*b)->kind;
}

/*
 * The resident bytes of each HOT slot's memcg itself, on the slot's tier
 * (DAMON's memcg filter matches one memcg, memory.numa_stat counts the
 * subtree): its own less its children's that have a slot (a child without one has no pages, or gets
 * its slot at the next sync: then its pages count here for a while).
 * UINT64_MAX where unknown.  O(n log n) in the slots.
 */
static int hot_self_resident(struct damon_driver *drv, struct kd *k, uint64_t *self)
{
	_cleanup_free_ struct slot **by_path = NULL;
	size_t n = 0;

	by_path = calloc(k->n_slots ?: 1, sizeof(*by_path));
	if (!by_path)
		return -ENOMEM;
	for (size_t j = 0; j < k->n_slots; j++) {
		self[j] = UINT64_MAX;
		if (k->slots[j].memcg && damon_kind_hot(k->slots[j].kind) && drv->resident)
			by_path[n++] = &k->slots[j];
	}
	qsort(by_path, n, sizeof(*by_path), slot_memcg_cmp);
	/* one read per memcg: its fast and slow slots are next to each other */
	for (size_t i = 0; i < n; i++) {
		static const uint64_t unknown[2] = { UINT64_MAX, UINT64_MAX };
		struct slot *x = by_path[i];
		uint64_t tiers[2];
		const uint64_t *v = tiers;

		if (i > 0 && !strcmp(by_path[i - 1]->memcg, x->memcg))
			continue;
		if (drv->resident(drv->userdata, x->memcg, &tiers[0], &tiers[1]) < 0)
			v = unknown;
		for (size_t q = i; q < n && !strcmp(by_path[q]->memcg, x->memcg); q++)
			self[by_path[q] - k->slots] = v[by_path[q]->kind == DAMON_HOT_SLOW];
	}
	for (size_t i = 0; i < n; i++) {
		struct slot *c = by_path[i], key, *kp = &key, **pp;
		_cleanup_free_ char *parent = strdup(c->memcg);
		char *slash = parent ? strrchr(parent, '/') : NULL;
		size_t pj, cj = (size_t)(c - k->slots);

		if (!parent)
			return -ENOMEM;
		if (!slash || slash == parent)
			continue;
		*slash = '\0';
		key.memcg = parent;
		key.kind = c->kind;
		pp = bsearch(&kp, by_path, n, sizeof(*by_path), slot_memcg_cmp);
		if (!pp)
			continue;
		pj = (size_t)(*pp - k->slots);
		if (self[pj] == UINT64_MAX || self[cj] == UINT64_MAX)
			continue;
		self[pj] = self[pj] > self[cj] ? self[pj] - self[cj] : 0;
	}
	return 0;
}

static int kd_hot_update(struct damon_driver *drv, struct kd *k)
{
	_cleanup_free_ uint64_t *now = NULL, *self = NULL;
	int r;

	if (!k->running || !kd_has_hot(k))
		return 0;
	now = calloc(k->n_slots, sizeof(*now));
	if (!now)
		return -ENOMEM;
	r = tier_damon_update_stats(drv->d, k->index);
	if (r < 0) {
		dlog(drv, LOG_DEBUG, r, "DAMON: cannot update the scheme stats of kdamond %u: %m, "
		     "hot sets not measured this time", k->index);
		return r;
	}
	for (size_t j = 0; j < k->n_slots; j++) {
		struct tier_damon_stats st;

		if (!k->slots[j].memcg ||
		    (!damon_kind_hot(k->slots[j].kind) && k->slots[j].kind != DAMON_CLOCK))
			continue;
		r = tier_damon_stats_read(drv->d, k->index, j, &st);
		if (r < 0) {
			dlog(drv, LOG_DEBUG, r, "DAMON: cannot read the stats of scheme %zu of "
			     "kdamond %u: %m, hot sets not measured this time", j, k->index);
			return r;
		}
		now[j] = k->slots[j].kind == DAMON_CLOCK ? st.sz_tried : st.sz_applied;
	}
	self = calloc(k->n_slots, sizeof(*self));
	if (!self)
		return -ENOMEM;
	r = hot_self_resident(drv, k, self);
	if (r < 0)
		return r;
	r = damon_hot_step(k->slots, k->n_slots, k->monitored, now, self);
	for (size_t j = 0; r > 0 && j < k->n_slots; j++)
		if (k->slots[j].memcg && damon_kind_hot(k->slots[j].kind) && k->slots[j].hot_valid)
			dlog(drv, LOG_DEBUG, 0, "DAMON: hot set of memcg %s (%s tier): %" PRIu64
			     " kB (this reading %" PRIu64 " kB)", k->slots[j].memcg,
			     k->slots[j].kind == DAMON_HOT ? "fast" : "slow", k->slots[j].hot >> 10,
			     k->slots[j].ring[(k->slots[j].ring_pos + DAMON_HOT_KEEP - 1) %
					      DAMON_HOT_KEEP] >> 10);
	return r;
}

int damon_driver_hot_update(struct damon_driver *drv, uint64_t now_usec)
{
	bool any = false;
	int r = 0;

	if (!drv->have || !damon_driver_has_hot(drv))
		return 0;
	/* a result takes DAMON_HOT_MIN_PASSES passes: no reading sooner */
	if (drv->hot_read_usec && now_usec < drv->hot_read_usec + DAMON_HOT_INTERVAL_US *
								      DAMON_HOT_MIN_PASSES)
		return 0;
	drv->hot_read_usec = now_usec;
	for (int t = 0; t < DAMON_NR_KD; t++) {
		int k = kd_hot_update(drv, &drv->kd[t]);

		if (k == -ENOMEM)
			return k;
		if (k < 0 && r == 0)
			r = k;
		any |= k > 0;
	}
	if (any)
		drv->st.n_hot_updates++;
	return r < 0 ? r : 0;
}

int damon_driver_hot_tiers(const struct damon_driver *drv, const char *path, uint64_t *ret_fast,
			   uint64_t *ret_slow)
{
	uint64_t sum[2] = { 0, 0 };
	bool any = false;

	for (int t = 0; t < DAMON_NR_KD; t++) {
		const struct kd *k = &drv->kd[t];

		for (size_t j = 0; k->slots_staged && j < k->n_slots; j++) {
			const struct slot *x = &k->slots[j];

			if (!x->memcg || !damon_kind_hot(x->kind) || !x->hot_valid ||
			    !path_covers(path, x->memcg))
				continue;
			sum[x->kind == DAMON_HOT_SLOW] += x->hot;
			any = true;
		}
	}
	if (!any)
		return -ENODATA;
	*ret_fast = sum[0];
	*ret_slow = sum[1];
	return 0;
}

int damon_driver_hot(const struct damon_driver *drv, const char *path, uint64_t *ret)
{
	uint64_t fast, slow;
	int r = damon_driver_hot_tiers(drv, path, &fast, &slow);

	if (r < 0)
		return r;
	*ret = fast + slow;
	return 0;
}


int damon_driver_hot_save(const struct damon_driver *drv, int run_fd,
			  const struct damon_managed *managed, size_t n_managed)
{
	_cleanup_free_ const char **paths = calloc(n_managed ?: 1, sizeof(*paths));
	_cleanup_free_ uint64_t *hot = calloc(n_managed ?: 1, sizeof(*hot));
	_cleanup_free_ uint64_t *fast = calloc(n_managed ?: 1, sizeof(*fast));
	_cleanup_free_ uint64_t *slow = calloc(n_managed ?: 1, sizeof(*slow));
	size_t n = 0;

	if (!paths || !hot || !fast || !slow)
		return -ENOMEM;
	if (run_fd < 0)
		return 0;
	for (size_t i = 0; i < n_managed; i++)
		if (damon_driver_hot_tiers(drv, managed[i].path, &fast[n], &slow[n]) == 0) {
			hot[n] = fast[n] + slow[n];
			paths[n++] = managed[i].path;
		}
	return tier_hot_sets_write(run_fd, TIER_HOT_SETS_NAME, paths, hot, fast, slow, n,
				   (uint64_t)(mono_ms() * 1000.0));
}

int promote_budget_apply(int root_fd, const struct damon_managed *managed, size_t n_managed,
			 bool dry_run, damon_log_fn log, void *userdata, size_t *ret_unsupported)
{
	size_t unsupported = 0;
	int n_writes = 0;

	for (size_t i = 0; i < n_managed; i++) {
		_cleanup_close_ int dfd = -1, fd = -1;
		char cur[64], want[32];
		uint64_t v;
		int r;

		if (!managed[i].promote_budget)
			continue;
		dfd = strcmp(managed[i].path, "/") == 0 ?
			      fcntl(root_fd, F_DUPFD_CLOEXEC, 3) :
			      openat(root_fd, managed[i].path + 1,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			continue;	/* gone */
		r = read_small_at(dfd, DAMON_PROMOTE_RATE_FILE, cur, sizeof(cur));
		if (r == -ENOENT) {
			unsupported++;
			continue;
		}
		if (r < 0)
			continue;
		snprintf(want, sizeof(want), "%" PRIu64, managed[i].promote_budget);
		if (parse_u64_str(cur, &v) == 0 && v == managed[i].promote_budget)
			continue;
		if (dry_run) {
			n_writes++;
			continue;
		}
		fd = openat(dfd, DAMON_PROMOTE_RATE_FILE, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || write(fd, want, strlen(want)) < 0) {
			if (log) {
				_cleanup_free_ char *msg = NULL;
				int e = errno;

				if (asprintf(&msg, "%s: cannot write %s %s: %s, ignoring",
					     managed[i].path, DAMON_PROMOTE_RATE_FILE, want,
					     strerror(e)) >= 0)
					log(userdata, LOG_WARNING, -e, msg);
			}
			continue;
		}
		n_writes++;
	}
	if (ret_unsupported)
		*ret_unsupported = unsupported;
	return n_writes;
}

int damon_driver_stop(struct damon_driver *drv)
{
	int r;

	if (!drv || !drv->have)
		return 0;
	r = check_ours(drv, false);
	if (r < 0) {
		/* not sure they are still ours: leave them, and the record for
		 * the next start to decide */
		dlog(drv, LOG_WARNING, r, "DAMON: cannot check kdamonds %u and %u before stopping "
		     "them: %m; left as they are, with their record", drv->kd[0].index,
		     drv->kd[1].index);
		return r;
	}
	for (int t = 0; drv->have && t < DAMON_NR_KD; t++) {
		struct kd *k = &drv->kd[t];

		if (!k->running)
			continue;
		r = tier_damon_stop(drv->d, k->index);
		if (r < 0) {
			dlog(drv, LOG_WARNING, r, "DAMON: cannot stop kdamond %u (%s): %m; the "
			     "record stays for the next start", k->index, kd_name[t]);
			return r;
		}
		k->running = false;
		dlog(drv, LOG_INFO, 0, "DAMON: stopped kdamond %u (%s)", k->index, kd_name[t]);
	}
	if (drv->have)
		forget(drv);
	return 0;
}

/* ------------------------------------------------------------------------
 * kernel.numa_balancing
 * ------------------------------------------------------------------------ */

static int sysctl_read(const char *procfs_root, uint64_t *ret)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	char buf[32];
	ssize_t n;

	if (asprintf(&path, "%s/sys/kernel/numa_balancing", procfs_root ?: "/proc") < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return parse_u64_str(buf, ret);
}

static int sysctl_write(const char *procfs_root, uint64_t v)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	char buf[32];
	int k;

	if (asprintf(&path, "%s/sys/kernel/numa_balancing", procfs_root ?: "/proc") < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	k = snprintf(buf, sizeof(buf), "%" PRIu64, v);
	if (write(fd, buf, (size_t)k) != k)
		return -errno ?: -EIO;
	return 0;
}

_printf_(5, 6) static void slog(damon_log_fn log, void *userdata, int priority, int error,
				const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int k;

	if (!log)
		return;
	if (error)
		errno = error < 0 ? -error : error;
	va_start(ap, fmt);
	k = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (k >= 0)
		log(userdata, priority, error, msg);
}

int damon_sysctl_check(const char *procfs_root, int run_fd, bool set_off, damon_log_fn log,
		       void *userdata)
{
	uint64_t v, saved;
	char buf[32];
	int r;

	r = sysctl_read(procfs_root, &v);
	if (r < 0) {
		slog(log, userdata, LOG_DEBUG, r, "DAMON: cannot read kernel.numa_balancing: %m");
		return 0;
	}
	/* a value saved by a tierd that did not get to restore it is the one
	 * to restore, not the 0 it left */
	if (run_fd >= 0 && read_small_at(run_fd, DAMON_SYSCTL_SAVED_NAME, buf, sizeof(buf)) == 0 &&
	    parse_u64_str(buf, &saved) == 0 && v == 0)
		v = saved;
	if (v == 0)
		return 0;
	if (!set_off) {
		slog(log, userdata, LOG_WARNING, 0, "DAMON: kernel.numa_balancing is %" PRIu64 ": "
		     "the kernel %s every cgroup's pages itself, behind DAMON's back and whatever "
		     "their class; numa_balancing_sysctl = off in [daemon] lets tierd set it to 0 "
		     "while it runs", v, v & 2 ? "promotes" : "balances");
		return 0;
	}
	if (run_fd >= 0) {
		_cleanup_close_ int fd = -1;
		int k = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", v);

		fd = openat(run_fd, DAMON_SYSCTL_SAVED_NAME,
			    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, buf, (size_t)k) != k) {
			r = -errno;
			slog(log, userdata, LOG_WARNING, r, "DAMON: cannot save kernel.numa_balancing "
			     "in the run directory: %m; leaving it at %" PRIu64, v);
			return 0;
		}
	}
	r = sysctl_write(procfs_root, 0);
	if (r < 0) {
		slog(log, userdata, LOG_WARNING, r, "DAMON: cannot set kernel.numa_balancing to 0: "
		     "%m; the kernel keeps moving pages behind DAMON's back");
		return 0;
	}
	slog(log, userdata, LOG_NOTICE, 0, "DAMON: kernel.numa_balancing %" PRIu64 " -> 0 "
	     "(numa_balancing_sysctl = off), restored when tierd exits", v);
	return 0;
}

int damon_sysctl_restore(const char *procfs_root, int run_fd, damon_log_fn log, void *userdata)
{
	uint64_t saved;
	char buf[32];
	int r;

	if (run_fd < 0 || read_small_at(run_fd, DAMON_SYSCTL_SAVED_NAME, buf, sizeof(buf)) < 0 ||
	    parse_u64_str(buf, &saved) < 0)
		return 0;
	r = sysctl_write(procfs_root, saved);
	if (r < 0) {
		slog(log, userdata, LOG_WARNING, r, "DAMON: cannot restore kernel.numa_balancing "
		     "to %" PRIu64 ": %m; kept in the run directory for the next start", saved);
		return r;
	}
	(void)unlinkat(run_fd, DAMON_SYSCTL_SAVED_NAME, 0);
	slog(log, userdata, LOG_NOTICE, 0, "DAMON: kernel.numa_balancing restored to %" PRIu64,
	     saved);
	return 0;
}
