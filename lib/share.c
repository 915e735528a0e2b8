// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one fair-share computation of the fast tier (tier.h, "Fair share"):
 * which managed cgroups share, what they demand, their weight/min/max
 * against the capacity, and the weighted max-min water-filling of
 * tier_fair_share().  tierd, tierctl status and tierd-metrics all call it, so
 * the three give the same targets for the same tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtier-private.h"

/* One cgroup added with tier_share_add(). */
struct share_cand {
	struct cgpath *path;		/* a reference: a plan entry's path is not copied */
	const struct tier_class *cls;
	const struct tier_rule *rule;	/* from tier_share_add_plan(), else NULL */
	size_t sharer;			/* index in sharers, SIZE_MAX if not sharing */
};

/* One cgroup that shares (after tier_share_compute()). */
struct share_sharer {
	size_t cand;
	uint64_t weight, min, max, demand, fast_bytes, target;
	uint64_t resident, hot;		/* hot UINT64_MAX: not measured */
	enum tier_demand demand_kind;	/* what demand is */
	bool hot_wanted;		/* its class shares by hot set */
	bool fast_exact;		/* fast_bytes is memory.stat "toptier" */
	struct tier_cgroup_info *info;	/* tier_share_set_info()'s, NULL: none */
};

struct tier_share {
	struct share_cand *cands;
	size_t n_cands, alloc_cands;
	struct name_table paths;	/* cands by path */
	struct share_sharer *sharers;
	size_t n_sharers;
	uint64_t capacity;
	tier_share_hot_fn hot_fn;
	void *hot_userdata;
	unsigned info_want;		/* tier_share_set_info() */
	/* tier_share_hot_load(): the file's entries, sorted by path */
	struct hot_entry *loaded;
	size_t n_loaded;
};

struct hot_entry {
	char *path;
	uint64_t hot;
	uint64_t fast, slow;		/* UINT64_MAX: not measured per tier */
};

static void sharers_free(struct share_sharer *sh, size_t n)
{
	for (size_t i = 0; sh && i < n; i++)
		tier_cgroup_info_free(sh[i].info);
	free(sh);
}

void tier_share_set_info(struct tier_share *s, unsigned want)
{
	if (s)
		s->info_want = want;
}

const struct tier_cgroup_info *tier_share_info(const struct tier_share *s, size_t i)
{
	return s && i < s->n_sharers ? s->sharers[i].info : NULL;
}

void tier_share_set_hot_source(struct tier_share *s, tier_share_hot_fn fn, void *userdata)
{
	if (!s)
		return;
	s->hot_fn = fn;
	s->hot_userdata = userdata;
}

static bool cand_has_path(const void *owner, size_t i, const char *path, size_t len)
{
	const struct tier_share *s = owner;

	return cgpath_equal(s->cands[i].path, path, len);
}

/* The candidate whose path is the first len bytes of path; SIZE_MAX if none. */
static size_t lookup(const struct tier_share *s, const char *path, size_t len)
{
	return name_table_find_eq(&s->paths, s, cand_has_path, path, len);
}

_public_ int tier_share_new(struct tier_share **ret_share)
{
	struct tier_share *s;

	if (!ret_share)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*ret_share = s;
	return 0;
}

_public_ void tier_share_free(struct tier_share *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_cands; i++)
		cgpath_unref(s->cands[i].path);
	free(s->cands);
	name_table_free(&s->paths);
	sharers_free(s->sharers, s->n_sharers);
	for (size_t i = 0; i < s->n_loaded; i++)
		free(s->loaded[i].path);
	free(s->loaded);
	free(s);
}

/* Add path (a new reference) unless the len bytes of str, its whole path,
 * are there already. */
static int share_add(struct tier_share *s, struct cgpath *path, const char *str, size_t len,
		     const struct tier_class *cls, const struct tier_rule *rule)
{
	struct share_cand c = { .path = path, .cls = cls, .rule = rule, .sharer = SIZE_MAX };
	int r;

	if (lookup(s, str, len) != SIZE_MAX)
		return -EEXIST;
	if (ARRAY_PUSH(s->cands, s->n_cands, s->alloc_cands, c) < 0)
		return -ENOMEM;
	r = name_table_add_hash(&s->paths, path->hash, s->n_cands - 1);
	if (r < 0) {
		--s->n_cands;
		return r;
	}
	cgpath_ref(path);
	return 0;
}

_public_ int tier_share_add(struct tier_share *s, const char *path, const struct tier_class *cls)
{
	struct cgpath *p;
	size_t len;
	int r;

	if (!s || !cls || !cgroup_path_valid(path) || strcmp(path, "/") == 0)
		return -EINVAL;
	len = strlen(path);
	if (lookup(s, path, len) != SIZE_MAX)
		return -EEXIST;
	p = cgpath_new(path, len);
	if (!p)
		return len > CGPATH_LEN_MAX ? -ENAMETOOLONG : -ENOMEM;
	r = share_add(s, p, path, len, cls, NULL);
	cgpath_unref(p);
	return r;
}

/* One managed entry (not the root): its interned path, no copy. */
static int share_add_entry(struct tier_share *s, const struct tier_plan_entry *e, bool with_rule,
			   char **buf, size_t *alloc)
{
	size_t len = e->path->len;

	if (!e->rule || !e->class || len <= 1)
		return -EINVAL;
	if (len + 1 > *alloc) {
		char *p = realloc(*buf, len + 1);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*alloc = len + 1;
	}
	cgpath_build(e->path, *buf);
	return share_add(s, e->path, *buf, len, e->class, with_rule ? e->rule : NULL);
}

int tier_share_add_entry(struct tier_share *s, const struct tier_plan_entry *e)
{
	_cleanup_free_ char *buf = NULL;
	size_t alloc = 0;

	if (!s || !e)
		return -EINVAL;
	return share_add_entry(s, e, false, &buf, &alloc);
}

_public_ int tier_share_add_plan(struct tier_share *s, const struct tier_plan *plan)
{
	_cleanup_free_ char *buf = NULL;
	size_t alloc = 0;

	if (!s || !plan)
		return -EINVAL;
	for (size_t i = 0; i < tier_plan_count(plan); i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i);
		int r;

		if (!e->rule || !e->class || e->path->len <= 1)
			continue;
		r = share_add_entry(s, e, true, &buf, &alloc);
		/* a plan has each path once; -EEXIST only if added before */
		if (r < 0 && r != -EEXIST)
			return r;
	}
	return 0;
}

/* Is an ancestor of path a candidate too?  Then path is accounted in it. */
static bool below_candidate(const struct tier_share *s, const char *path)
{
	for (size_t len = strlen(path); len > 1;) {
		while (len > 0 && path[len - 1] != '/')
			len--;
		if (len <= 1)
			return false;	/* the root is never a candidate */
		len--;			/* drop the '/' */
		if (lookup(s, path, len) != SIZE_MAX)
			return true;
	}
	return false;
}

/*
 * cgroup.events "populated": 1 or 0, or -errno.  A cgroup whose
 * cgroup.events cannot be read (an old kernel, a fake tree) counts as
 * populated.
 */
static int read_populated(int dfd)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t v;
	int r;

	r = sysfs_read_at(dfd, "cgroup.events", &buf);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 1;
	r = stat_buf_lookup(buf, "populated", &v);
	if (r == -ENOMEM)
		return r;
	return r < 0 || v != 0;
}

/*
 * What a sharer uses: fast-tier bytes and demand (all its memory, on every
 * tier).  Sources, cheapest first; each is one read through the cgroup's
 * directory fd:
 *  - memory.stat, where the kernel's tier-aware limits count the cgroup's
 *    top-tier bytes themselves (key "toptier", an exact page_counter): those
 *    are its fast bytes (*ret_exact), anon + file of the same file its
 *    demand (the sum over all nodes of what memory.numa_stat lists per
 *    node), one read instead of the per-node table.  Without the key, or
 *    with a value that is not a number (an older kernel, a fake tree), or
 *    without anon and file, on to memory.numa_stat;
 *  - memory.numa_stat: anon + file summed over top-tier nodes (fast) and all
 *    nodes (demand), as tier_cgroup_read_residency();
 *  - memory.current as the demand, fast bytes unknown (0);
 *  - nothing readable: demand unknown (UINT64_MAX), it shares by weight.
 * With the exact count, the fast bytes are it whatever gives the demand, and
 * the demand is never below them (the statistics lag the counter).
 * Returns 0 or -ENOMEM (a cgroup that went away meanwhile reads as nothing
 * readable).
 */
static int read_usage(struct tier_ctx *ctx, int dfd, const char *path,
		      const struct tier_topology *topo, uint64_t *ret_fast, uint64_t *ret_demand,
		      bool *ret_exact)
{
	_cleanup_free_ char *buf = NULL;
	struct residency res;
	uint64_t top = 0, fast = 0, demand;
	int r, exact = 0;

	r = sysfs_read_at(dfd, "memory.stat", &buf);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		exact = toptier_from_stat_buf(ctx, path, buf, &top);
		if (exact < 0)
			return exact;
	}
	if (exact) {
		uint64_t anon, file;

		r = stat_buf_lookup(buf, "anon", &anon);
		if (r >= 0)
			r = stat_buf_lookup(buf, "file", &file);
		if (r == -ENOMEM)
			return r;
		if (r >= 0) {
			demand = add_sat_u64(anon, file);
			goto done;
		}
	}
	free(buf);
	buf = NULL;
	r = sysfs_read_at(dfd, "memory.numa_stat", &buf);
	if (r >= 0)
		r = residency_from_buf(topo, buf, &res);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		fast = res.fast_bytes;
		demand = add_sat_u64(res.fast_bytes, res.slow_bytes);
		goto done;
	}
	free(buf);
	buf = NULL;
	r = sysfs_read_at(dfd, "memory.current", &buf);
	if (r >= 0)
		r = parse_u64(strip(buf), &demand);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		demand = UINT64_MAX;
	fast = 0;
done:
	if (exact) {
		fast = top;
		if (demand < fast)
			demand = fast;
	}
	*ret_fast = fast;
	*ret_demand = demand;
	*ret_exact = exact > 0;
	return 0;
}

_public_ int tier_share_compute(struct tier_share *s, struct tier_ctx *ctx,
				const struct tier_topology *topo,
				const struct tier_policy *policy, unsigned flags)
{
	struct share_sharer *sh = NULL;
	_cleanup_free_ struct tier_share_input *in = NULL;
	_cleanup_free_ uint64_t *targets = NULL;
	_cleanup_close_ int root = -1;
	_cleanup_free_ char *path_buf = NULL;
	uint64_t fast, capacity;
	size_t n = 0, alloc_path = 0;
	bool single, none;
	int r;

	if (!s || !ctx || !topo || !policy || flags != 0)
		return -EINVAL;
	fast = tier_topology_fast_capacity(topo);
	capacity = policy_share_capacity(policy, fast);
	/* One memory tier: all memory is "fast", there is nothing to share. */
	single = tier_topology_tier_count(topo) < 2;
	none = single;

	sh = calloc(s->n_cands ?: 1, sizeof(*sh));
	in = calloc(s->n_cands ?: 1, sizeof(*in));
	targets = calloc(s->n_cands ?: 1, sizeof(*targets));
	if (!sh || !in || !targets) {
		free(sh);
		return -ENOMEM;
	}
	/* The cgroup root once; each cgroup below it by its fd. */
	if (s->n_cands > 0 && !none) {
		root = cgroup_root_open(ctx);
		if (root == -ENOMEM) {
			r = root;
			goto fail;
		}
		if (root < 0) {
			dbg(ctx, "%s: cannot open: %s, nobody shares the fast tier",
			    tier_ctx_get_cgroup_root(ctx), strerror(-root));
			none = true;	/* nothing readable: nobody shares */
		}
	}
	for (size_t c = 0; c < s->n_cands && !none; c++) {
		const struct share_cand *cand = &s->cands[c];
		const struct tier_class *cls = cand->cls;
		_cleanup_close_ int dfd = -1;
		struct share_sharer *x;
		const char *path;

		/* each candidate's whole path, built in one buffer */
		if ((size_t)cand->path->len + 1 > alloc_path) {
			char *p = realloc(path_buf, (size_t)cand->path->len + 1);

			if (!p) {
				r = -ENOMEM;
				goto fail;
			}
			path_buf = p;
			alloc_path = (size_t)cand->path->len + 1;
		}
		cgpath_build(cand->path, path_buf);
		path = path_buf;
		if (below_candidate(s, path))
			continue;
		dfd = cgroup_open_below(root, path);
		if (dfd == -ENOMEM) {
			r = dfd;
			goto fail;
		}
		if (dfd < 0) {
			if (dfd != -ENOENT && dfd != -ENOTDIR)
				dbg(ctx, "%s: cannot open: %s, it does not share the fast tier",
				    path, strerror(-dfd));
			continue;
		}
		/* An empty cgroup holds no share, not even its toptier_min. */
		r = read_populated(dfd);
		if (r < 0)
			goto fail;
		if (r == 0)
			continue;
		x = &sh[n];
		x->cand = c;
		r = read_usage(ctx, dfd, path, topo, &x->fast_bytes, &x->demand,
			       &x->fast_exact);
		if (r < 0)
			goto fail;
		/* What the caller reads besides, through the same fd (tierd's
		 * fair rounds: the knobs it enforces). A failure leaves it
		 * without (tier_share_info() NULL), as a vanished file would. */
		x->info = NULL;
		if (s->info_want) {
			r = cgroup_info_read_at(ctx, topo, dfd, path, s->info_want,
						TIER_MODE_INVALID, &x->info);
			if (r == -ENOMEM)
				goto fail;
		}
		x->resident = x->demand;
		x->hot = UINT64_MAX;
		x->demand_kind = TIER_DEMAND_RESIDENT;
		x->hot_wanted = tier_class_demand(policy, cls) == TIER_DEMAND_HOT;
		if (x->hot_wanted && s->hot_fn) {
			uint64_t hot;

			r = s->hot_fn(s->hot_userdata, path, &hot);
			if (r == -ENOMEM)
				goto fail;
			if (r >= 0) {
				x->hot = hot;
				x->demand = tier_demand_hot(hot, x->resident,
							    tier_policy_daemon(policy)->hot_margin_bp);
				x->demand_kind = TIER_DEMAND_HOT;
			}
		}
		x->weight = cls->weight ?: 100;
		x->min = tier_amount_resolve(&cls->toptier_min, capacity, 0);
		x->max = tier_amount_resolve(&cls->toptier_max, capacity, UINT64_MAX);
		/* A percentage minimum above a byte maximum (or the reverse) can
		 * only be checked once resolved: the maximum wins. */
		if (x->min > x->max)
			x->min = x->max;
		in[n] = (struct tier_share_input){
			.weight = x->weight,
			.min = x->min,
			.max = x->max,
			.demand = x->demand,
		};
		n++;
	}
	r = tier_fair_share(capacity, n, in, targets);
	if (r < 0)
		goto fail;
	for (size_t c = 0; c < s->n_cands; c++)
		s->cands[c].sharer = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		sh[i].target = targets[i];
		s->cands[sh[i].cand].sharer = i;
	}
	sharers_free(s->sharers, s->n_sharers);
	s->sharers = TAKE_PTR(sh);
	s->n_sharers = n;
	s->capacity = single ? 0 : capacity;
	return 0;
fail:
	/* every slot: the one being read when it failed may hold an info */
	sharers_free(sh, s->n_cands ?: 1);
	return r;
}

_public_ size_t tier_share_count(const struct tier_share *s)
{
	return s ? s->n_sharers : 0;
}

_public_ uint64_t tier_share_capacity(const struct tier_share *s)
{
	return s ? s->capacity : 0;
}

static const struct share_sharer *sharer(const struct tier_share *s, size_t i)
{
	return s && i < s->n_sharers ? &s->sharers[i] : NULL;
}

_public_ int tier_share_path(const struct tier_share *s, size_t i, char *buf, size_t size)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? cgpath_format(s->cands[x->cand].path, buf, size) : -EINVAL;
}

int tier_share_path_dup(const struct tier_share *s, size_t i, char **ret_path)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? cgpath_dup(s->cands[x->cand].path, ret_path) : -EINVAL;
}

_public_ const struct tier_class *tier_share_class(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? s->cands[x->cand].cls : NULL;
}

_public_ const struct tier_rule *tier_share_rule(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? s->cands[x->cand].rule : NULL;
}

#define SHARE_ACCESSOR(field, dflt)                                              \
	_public_ uint64_t tier_share_##field(const struct tier_share *s, size_t i) \
	{                                                                        \
		const struct share_sharer *x = sharer(s, i);                     \
                                                                                 \
		return x ? x->field : (dflt);                                    \
	}

SHARE_ACCESSOR(target, 0)
SHARE_ACCESSOR(weight, 0)
SHARE_ACCESSOR(min, 0)
SHARE_ACCESSOR(max, UINT64_MAX)
SHARE_ACCESSOR(demand, UINT64_MAX)
SHARE_ACCESSOR(fast_bytes, 0)

enum tier_demand tier_share_demand_kind(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? x->demand_kind : TIER_DEMAND_RESIDENT;
}

bool tier_share_hot_wanted(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x && x->hot_wanted;
}

uint64_t tier_share_resident(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? x->resident : UINT64_MAX;
}

uint64_t tier_share_hot(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x ? x->hot : UINT64_MAX;
}

int tier_hot_sets_write(int dir_fd, const char *name, const char *const *paths,
			const uint64_t *hot, const uint64_t *hot_fast, const uint64_t *hot_slow,
			size_t n, uint64_t now_usec)
{
	_cleanup_free_ char *tmp = NULL, *buf = NULL;
	size_t size = 0;
	FILE *f;
	int fd, r = 0;

	if (!name || (n && (!paths || !hot)) || !hot_fast != !hot_slow)
		return -EINVAL;
	/* What the reader keeps: no "not measured" value, per tier only
	 * when it adds up (the reader skips such lines as malformed). */
	for (size_t i = 0; i < n; i++)
		if (!paths[i] || !paths[i][0] || hot[i] == UINT64_MAX ||
		    (hot_fast && (hot_fast[i] > hot[i] || hot_slow[i] != hot[i] - hot_fast[i])))
			return -EINVAL;
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	fprintf(f, "tierd-hot-sets 2 %" PRIu64 "\n", now_usec);
	for (size_t i = 0; i < n; i++) {
		if (hot_fast)
			fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " ", hot[i], hot_fast[i],
				hot_slow[i]);
		else
			fprintf(f, "%" PRIu64 " - - ", hot[i]);
		for (const unsigned char *p = (const unsigned char *)paths[i]; *p; p++)
			if (*p < '!' || *p > '~' || *p == '%')
				fprintf(f, "%%%02X", *p);
			else
				fputc(*p, f);
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	if (asprintf(&tmp, ".%s.tmp", name) < 0)
		return -ENOMEM;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, size) != (ssize_t)size)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
	return r;
}

static int hot_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hot_entry *)a)->path, ((const struct hot_entry *)b)->path);
}

static const struct hot_entry *hot_entry_find(const struct tier_share *s, const char *path)
{
	struct hot_entry key = { .path = (char *)path };

	return s->n_loaded ? bsearch(&key, s->loaded, s->n_loaded, sizeof(key), hot_entry_cmp) :
			     NULL;
}

static int hot_from_loaded(void *userdata, const char *path, uint64_t *ret)
{
	const struct hot_entry *e = hot_entry_find(userdata, path);

	if (!e)
		return -ENODATA;
	*ret = e->hot;
	return 0;
}

int tier_share_hot_loaded(const struct tier_share *s, const char *path, uint64_t *ret)
{
	if (!s || !path || !ret)
		return -EINVAL;
	return hot_from_loaded((void *)s, path, ret);
}

int tier_share_hot_loaded_tiers(const struct tier_share *s, const char *path,
				uint64_t *ret_fast, uint64_t *ret_slow)
{
	const struct hot_entry *e;

	if (!s || !path || !ret_fast || !ret_slow)
		return -EINVAL;
	e = hot_entry_find(s, path);
	if (!e || e->fast == UINT64_MAX)
		return -ENODATA;
	*ret_fast = e->fast;
	*ret_slow = e->slow;
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A byte count of the file: digits only, never UINT64_MAX ("not measured"). */
static int hot_parse_bytes(const char *str, uint64_t *ret)
{
	uint64_t v;

	if (parse_u64(str, &v) < 0 || v == UINT64_MAX)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "tierd-hot-sets VERSION MONOTONIC_USEC", exactly: the version (1 or 2). */
static int hot_parse_header(const char *line, uint64_t *ret_usec)
{
	static const char prefix[] = "tierd-hot-sets ";
	int version;

	if (strncmp(line, prefix, sizeof(prefix) - 1) != 0)
		return -EINVAL;
	line += sizeof(prefix) - 1;
	if ((line[0] != '1' && line[0] != '2') || line[1] != ' ')
		return -EINVAL;
	version = line[0] - '0';
	if (parse_u64(line + 2, ret_usec) < 0)
		return -EINVAL;
	return version;
}

/*
 * One line of a version 1 ("BYTES PATH") or 2 ("TOTAL FAST SLOW PATH", FAST
 * and SLOW both "-" or both bytes adding up to TOTAL) file into *e (path
 * unescaped in place, not copied); -EINVAL for a malformed line.  PATH was
 * escaped: no byte outside '!'..'~', not empty.
 */
static int hot_parse_line(char *line, int version, struct hot_entry *e)
{
	char *f[4], *p = line;
	int n = version == 1 ? 2 : 4;
	char *w;

	for (int k = 0; k < n; k++) {
		f[k] = p;
		p = k < n - 1 ? strchr(p, ' ') : NULL;
		if (k < n - 1) {
			if (!p)
				return -EINVAL;
			*p++ = '\0';
		}
	}
	e->fast = e->slow = UINT64_MAX;
	if (hot_parse_bytes(f[0], &e->hot) < 0)
		return -EINVAL;
	if (version == 2) {
		if (strcmp(f[1], "-") == 0 && strcmp(f[2], "-") == 0)
			;
		else if (hot_parse_bytes(f[1], &e->fast) < 0 ||
			 hot_parse_bytes(f[2], &e->slow) < 0 || e->fast > e->hot ||
			 e->slow != e->hot - e->fast)
			return -EINVAL;
	}
	p = f[n - 1];
	if (!*p)
		return -EINVAL;
	/* unescape in place */
	w = p;
	for (const char *q = p; *q; q++) {
		if (*q < '!' || *q > '~')
			return -EINVAL;
		if (*q == '%' && hex_digit(q[1]) >= 0 && hex_digit(q[2]) >= 0) {
			*w++ = (char)(hex_digit(q[1]) * 16 + hex_digit(q[2]));
			q += 2;
		} else {
			*w++ = *q;
		}
	}
	*w = '\0';
	/* "%00" would cut the path short: not a path tierd wrote */
	if ((size_t)(w - p) != strlen(p) || !*p)
		return -EINVAL;
	e->path = p;
	return 0;
}

int tier_share_hot_load(struct tier_share *s, int dir_fd, const char *name, uint64_t *ret_usec)
{
	_cleanup_free_ char *buf = NULL;
	struct hot_entry *v = NULL;
	size_t size = 0, n = 0, alloc = 0;
	uint64_t usec;
	char *line, *save = NULL;
	int version, r;

	if (!s || !name)
		return -EINVAL;
	r = read_file_at_max(dir_fd, name, READ_MAX_DEFAULT, READ_NOFOLLOW, &buf, &size);
	if (r < 0)
		return r;
	/* a NUL inside would hide the rest from the parse below */
	if (memchr(buf, '\0', size))
		return -EINVAL;
	line = strtok_r(buf, "\n", &save);
	version = line ? hot_parse_header(line, &usec) : -EINVAL;
	if (version < 0)
		return -EINVAL;
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct hot_entry e = {};

		if (hot_parse_line(line, version, &e) < 0)
			continue;	/* malformed: skipped */
		e.path = strdup(e.path);
		if (!e.path || ARRAY_PUSH(v, n, alloc, e) < 0) {
			free(e.path);
			r = -ENOMEM;
			goto fail;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), hot_entry_cmp);
	for (size_t i = 0; i < s->n_loaded; i++)
		free(s->loaded[i].path);
	free(s->loaded);
	s->loaded = v;
	s->n_loaded = n;
	tier_share_set_hot_source(s, hot_from_loaded, s);
	if (ret_usec)
		*ret_usec = usec;
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return r;
}

int tier_share_hot_load_dir(struct tier_share *s, const char *dir, uint64_t *ret_usec)
{
	_cleanup_close_ int fd = -1;

	if (!s)
		return -EINVAL;
	fd = open(dir ?: TIER_RUN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return tier_share_hot_load(s, fd, TIER_HOT_SETS_NAME, ret_usec);
}

_public_ int tier_share_find(const struct tier_share *s, const char *path, size_t *ret_i)
{
	size_t c;

	if (!s || !path)
		return -EINVAL;
	c = lookup(s, path, strlen(path));
	if (c == SIZE_MAX || s->cands[c].sharer == SIZE_MAX)
		return -ENOENT;
	if (ret_i)
		*ret_i = s->cands[c].sharer;
	return 0;
}

/* tier-internal.h: not in the ABI. */
bool tier_share_fast_exact(const struct tier_share *s, size_t i)
{
	const struct share_sharer *x = sharer(s, i);

	return x && x->fast_exact;
}
