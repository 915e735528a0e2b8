// SPDX-License-Identifier: LGPL-2.1-or-later
/* Apply a plan: diff desired against current, write only what changed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libtier-private.h"

/*
 * libtier 2.0's flag layout: behaviour flags in bits 0..15, one SKIP bit per
 * attribute from bit 16.  An attribute past TIER_APPLY_SKIP_MAX would shift
 * out of the word: refuse it here rather than at run time.
 */
_Static_assert(_TIER_ATTR_MAX <= TIER_APPLY_SKIP_MAX,
	       "no TIER_APPLY_SKIP() bit left for the last attribute");
_Static_assert((TIER_APPLY_DRY_RUN | TIER_APPLY_KEEP_SET | TIER_APPLY_REWRITE |
		TIER_APPLY_CURRENT) <
		       (1u << TIER_APPLY_SKIP_SHIFT),
	       "a behaviour flag runs into the TIER_APPLY_SKIP() bits");

/* Holds any mode name, or a u64 / "max". */
#define VALUE_MAX 32

struct apply_change {
	enum tier_attr attr;
	enum tier_apply_status status;
	int error;
	char old_value[VALUE_MAX];
	char new_value[VALUE_MAX];
};

/* The path is the entry's, interned: a result of a 64 KB path costs no
 * copy of it. */
struct tier_apply_result {
	enum tier_apply_status status;
	int error;
	unsigned n_changes;
	struct apply_change changes[_TIER_ATTR_MAX];
	struct cgpath *path;
};

struct tier_apply_results {
	struct tier_apply_result **r;
	size_t n;
};

_public_ const char *tier_attr_to_string(enum tier_attr attr)
{
	static const char *const names[_TIER_ATTR_MAX] = {
		[TIER_ATTR_NUMA_BALANCING] = "memory.numa_balancing",
		[TIER_ATTR_MEMORY_LOW] = "memory.low",
		[TIER_ATTR_MEMORY_HIGH] = "memory.high",
	};

	if ((int)attr < 0 || attr >= _TIER_ATTR_MAX)
		return NULL;
	return names[attr];
}

_public_ const char *tier_apply_status_to_string(enum tier_apply_status status)
{
	static const char *const names[] = {
		[TIER_APPLY_UNMANAGED] = "unmanaged",	[TIER_APPLY_UNCHANGED] = "unchanged",
		[TIER_APPLY_CHANGED] = "changed",	[TIER_APPLY_VANISHED] = "vanished",
		[TIER_APPLY_UNSUPPORTED] = "unsupported", [TIER_APPLY_ERROR] = "error",
		[TIER_APPLY_KEPT] = "kept",
	};

	if ((int)status < 0 || (size_t)status >= ARRAY_SIZE(names))
		return NULL;
	return names[status];
}

static uint64_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

static void fmt_u64(char *buf, uint64_t v)
{
	if (v == UINT64_MAX)
		snprintf(buf, VALUE_MAX, "max");
	else
		snprintf(buf, VALUE_MAX, "%llu", (unsigned long long)v);
}

/* Every SKIP bit of an attribute this library knows, and the flags. */
#define APPLY_FLAGS                                                             \
	(TIER_APPLY_DRY_RUN | TIER_APPLY_KEEP_SET | TIER_APPLY_REWRITE |        \
	 TIER_APPLY_CURRENT |                                                   \
	 (((1u << _TIER_ATTR_MAX) - 1u) << TIER_APPLY_SKIP_SHIFT))

/* -ENOENT for a file below the cgroup directory dfd: the cgroup is gone
 * (kernfs empties a removed directory: no cgroup.procs either), else the
 * kernel lacks the file (-EOPNOTSUPP).  Asked through dfd, never by path:
 * the path may name another directory by now. */
static int classify_enoent_at(int dfd, int r)
{
	struct stat st;

	if (r != -ENOENT)
		return r;
	return fstatat(dfd, "cgroup.procs", &st, AT_SYMLINK_NOFOLLOW) == 0 ? -EOPNOTSUPP : -ENOENT;
}

/* One attribute file of cgroup: by path, or below its open directory dfd
 * (a file missing there is -EOPNOTSUPP while the cgroup exists, -ENOENT
 * once it is gone: kernfs empties a removed directory). */
static int attr_read(struct tier_ctx *ctx, int dfd, const char *cgroup, const char *file,
		     char **ret)
{
	int r;

	if (dfd < 0)
		return tier_cgroup_read(ctx, cgroup, file, ret);
	r = sysfs_read_attr_at(dfd, file, ret);
	return classify_enoent_at(dfd, r);
}

static int attr_read_u64(struct tier_ctx *ctx, int dfd, const char *cgroup, const char *file,
			 uint64_t *ret)
{
	_cleanup_free_ char *buf = NULL;
	int r;

	r = attr_read(ctx, dfd, cgroup, file, &buf);
	if (r < 0)
		return r;
	if (strcmp(strip(buf), "max") == 0) {
		*ret = UINT64_MAX;
		return 0;
	}
	return parse_u64(buf, ret);
}

static int attr_write(struct tier_ctx *ctx, int dfd, const char *cgroup, const char *file,
		      const char *value)
{
	int r;

	if (dfd < 0)
		return tier_cgroup_write(ctx, cgroup, file, value);
	r = sysfs_write_at(dfd, file, value);
	if (r < 0)
		return classify_enoent_at(dfd, r);
	dbg(ctx, "wrote '%s' to %s/%s", value, cgroup, file);
	return r;
}

/*
 * Read current, compare, maybe write.  Fills ch; logs nothing.  The one
 * read-compare-write of the project: tier_apply(), tier_apply_entry(),
 * tier_apply_entry_at(), tier_class_apply() and tier_cgroup_apply_attr() all
 * end here.  dfd >= 0: the cgroup's files are opened below its directory.
 */
static void apply_attr(struct tier_ctx *ctx, int dfd, const char *cgroup, enum tier_attr attr,
		       const struct tier_plan_entry *e, unsigned flags, tier_apply_write_fn write_fn,
		       void *userdata, struct apply_change *ch)
{
	const char *file = tier_attr_to_string(attr);
	/* read in this very visit of the directory (tier_plan_observe()) */
	bool fresh = (flags & TIER_APPLY_CURRENT) && (e->current_read & (1u << attr));
	bool differs, at_default = true;
	int r;

	ch->attr = attr;
	if (attr == TIER_ATTR_NUMA_BALANCING) {
		_cleanup_free_ char *buf = NULL;
		enum tier_mode want = (enum tier_mode)e->desired[attr], cur;

		snprintf(ch->new_value, VALUE_MAX, "%s", tier_mode_to_string(want));
		if (fresh) {
			cur = (enum tier_mode)e->current[attr];
			r = 0;
		} else if (dfd < 0)
			r = tier_cgroup_get_mode(ctx, cgroup, &cur);
		else {
			r = attr_read(ctx, dfd, cgroup, file, &buf);
			if (r >= 0)
				r = tier_mode_from_string(strip(buf), &cur);
		}
		/*
		 * A kernel without the knob restricts no cgroup's NUMA
		 * balancing, which is all "inherit" asks for: a class that
		 * leaves mode alone applies cleanly on a stock kernel.
		 */
		if (r == -EOPNOTSUPP && want == TIER_MODE_INHERIT) {
			snprintf(ch->old_value, VALUE_MAX, "%s", tier_mode_to_string(want));
			ch->status = TIER_APPLY_UNCHANGED;
			return;
		}
		if (r < 0)
			goto fail;
		snprintf(ch->old_value, VALUE_MAX, "%s", tier_mode_to_string(cur));
		differs = cur != want;
	} else {
		uint64_t want = e->desired[attr];
		uint64_t dflt = attr == TIER_ATTR_MEMORY_LOW ? 0 : UINT64_MAX;
		uint64_t cur;

		/*
		 * The kernel keeps memory.low/high in pages and reads back a
		 * rounded-down value: write that value, so the next diff is empty.
		 */
		if (want != UINT64_MAX)
			want -= want % page_size();

		fmt_u64(ch->new_value, want);
		if (fresh) {
			cur = e->current[attr];
			r = 0;
		} else {
			r = dfd < 0 ? tier_cgroup_read_u64(ctx, cgroup, file, &cur) :
				      attr_read_u64(ctx, dfd, cgroup, file, &cur);
		}
		if (r < 0)
			goto fail;
		fmt_u64(ch->old_value, cur);
		differs = cur != want;
		at_default = cur == dflt;
	}
	if (!differs && !(flags & TIER_APPLY_REWRITE)) {
		ch->status = TIER_APPLY_UNCHANGED;
		return;
	}
	if ((flags & TIER_APPLY_KEEP_SET) && !at_default) {
		ch->status = TIER_APPLY_KEPT;
		return;
	}
	if (!(flags & TIER_APPLY_DRY_RUN)) {
		r = write_fn ? write_fn(userdata, ctx, cgroup, attr, ch->old_value, ch->new_value) : 1;
		/* 1 from a writer: "not mine", the raw file (below dfd if open) */
		if (r == 1)
			r = attr_write(ctx, dfd, cgroup, file, ch->new_value);
		else if (r > 0)
			r = -EINVAL;
		if (r < 0)
			goto fail;
	}
	ch->status = TIER_APPLY_CHANGED;
	return;
fail:
	ch->error = r;
	if (r == -ENOENT || r == -ENODEV)
		ch->status = TIER_APPLY_VANISHED;
	else if (r == -EOPNOTSUPP)
		ch->status = TIER_APPLY_UNSUPPORTED;
	else
		ch->status = TIER_APPLY_ERROR;
}

static int status_rank(enum tier_apply_status s)
{
	switch (s) {
	case TIER_APPLY_ERROR:
		return 5;
	case TIER_APPLY_UNSUPPORTED:
		return 4;
	case TIER_APPLY_CHANGED:
		return 3;
	case TIER_APPLY_KEPT:
		return 2;
	case TIER_APPLY_UNCHANGED:
		return 1;
	default:
		return 0;
	}
}

static struct tier_apply_result *result_new(struct cgpath *path, enum tier_apply_status status)
{
	struct tier_apply_result *out = calloc(1, sizeof(*out));

	if (!out)
		return NULL;
	out->path = cgpath_ref(path);
	out->status = status;
	return out;
}

static void result_free(struct tier_apply_result *result)
{
	if (!result)
		return;
	cgpath_unref(result->path);
	free(result);
}

/* The attributes e sets, minus the skipped ones, in order; fills out.
 * path: e's whole path. */
static void apply_one(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *e,
		      const char *path, unsigned flags, tier_apply_write_fn write_fn,
		      void *userdata, struct tier_apply_result *out)
{
	for (int a = 0; a < _TIER_ATTR_MAX; a++) {
		struct apply_change *ch;

		if (!e->set[a] || (flags & TIER_APPLY_SKIP(a)))
			continue;
		ch = &out->changes[out->n_changes++];
		apply_attr(ctx, dfd, path, (enum tier_attr)a, e, flags, write_fn, userdata, ch);
		if (ch->error && !out->error)
			out->error = ch->error;
		if (ch->status == TIER_APPLY_VANISHED) {
			out->status = TIER_APPLY_VANISHED;
			break;
		}
		if (status_rank(ch->status) > status_rank(out->status))
			out->status = ch->status;
	}
}

/* What tier_apply() has always logged, from the result. */
static void log_result(struct tier_ctx *ctx, const struct tier_apply_result *out,
		       const char *path, bool dry_run)
{
	for (unsigned i = 0; i < out->n_changes; i++) {
		const struct apply_change *ch = &out->changes[i];
		const char *file = tier_attr_to_string(ch->attr);

		switch (ch->status) {
		case TIER_APPLY_CHANGED:
			if (dry_run)
				dbg(ctx, "%s: %s %s -> %s (dry run)", path, file, ch->old_value,
				    ch->new_value);
			else
				info(ctx, "%s: %s %s -> %s", path, file, ch->old_value,
				     ch->new_value);
			break;
		case TIER_APPLY_VANISHED:
			dbg(ctx, "%s: vanished, skipping", path);
			break;
		case TIER_APPLY_UNSUPPORTED:
			dbg(ctx, "%s: no %s (kernel lacks it)", path, file);
			break;
		case TIER_APPLY_ERROR:
			err(ctx, "%s: %s: %s", path, file, strerror(-ch->error));
			break;
		default:
			break;
		}
	}
}

/* The one implementation of tier_apply_entry() and tier_apply_entry_at(),
 * and tier_apply()'s per entry: by path if dfd < 0, else below dfd.  path:
 * the entry's whole path, built by the caller. */
static int entry_apply(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
		       const char *path, unsigned flags, tier_apply_write_fn write_fn,
		       void *userdata, struct tier_apply_result **ret_result)
{
	struct tier_apply_result *out;

	out = result_new(entry->path, entry->rule ? TIER_APPLY_UNCHANGED : TIER_APPLY_UNMANAGED);
	if (!out)
		return -ENOMEM;
	if (entry->rule)
		apply_one(ctx, dfd, entry, path, flags, write_fn, userdata, out);
	*ret_result = out;
	return out->status == TIER_APPLY_ERROR;
}

/* entry_apply() of one entry, its path built for the call. */
static int entry_apply_one(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
			   unsigned flags, tier_apply_write_fn write_fn, void *userdata,
			   struct tier_apply_result **ret_result)
{
	_cleanup_free_ char *path = NULL;

	if (cgpath_dup(entry->path, &path) < 0)
		return -ENOMEM;
	return entry_apply(ctx, dfd, entry, path, flags, write_fn, userdata, ret_result);
}

_public_ int tier_apply_entry(struct tier_ctx *ctx, const struct tier_plan_entry *entry,
			      unsigned flags, tier_apply_write_fn write_fn, void *userdata,
			      struct tier_apply_result **ret_result)
{
	if (!ctx || !entry || !ret_result || (flags & ~APPLY_FLAGS))
		return -EINVAL;
	return entry_apply_one(ctx, -1, entry, flags, write_fn, userdata, ret_result);
}

_public_ int tier_apply_entry_at(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
				 unsigned flags, tier_apply_write_fn write_fn, void *userdata,
				 struct tier_apply_result **ret_result)
{
	if (!ctx || dfd < 0 || !entry || !ret_result || (flags & ~APPLY_FLAGS))
		return -EINVAL;
	return entry_apply_one(ctx, dfd, entry, flags, write_fn, userdata, ret_result);
}

/*
 * Apply an entry made for one call (tier_class_apply(), tier_class_apply_at(),
 * tier_cgroup_apply_attr()) by path (dfd < 0) or below dfd, free it, and hand
 * over the result: as tier_apply_entry() returns.
 */
static int apply_free_entry(struct tier_ctx *ctx, int dfd, struct tier_plan_entry *e,
			    const char *cgroup, unsigned flags, tier_apply_write_fn write_fn,
			    void *userdata, struct tier_apply_result **ret_result)
{
	struct tier_apply_result *out = result_new(e->path, TIER_APPLY_UNCHANGED);

	if (!out) {
		plan_entry_free(e);
		return -ENOMEM;
	}
	apply_one(ctx, dfd, e, cgroup, flags, write_fn, userdata, out);
	plan_entry_free(e);
	*ret_result = out;
	return out->status == TIER_APPLY_ERROR;
}

/* An unmanaged entry of its own for the cgroup path of one call. */
static struct tier_plan_entry *entry_for(const char *cgroup)
{
	struct cgpath *p = cgpath_new(cgroup, strlen(cgroup));
	struct tier_plan_entry *e = p ? plan_entry_new(p) : NULL;

	cgpath_unref(p);
	return e;
}

_public_ int tier_class_apply(struct tier_ctx *ctx, const char *cgroup,
			      const struct tier_class *cls, const struct tier_topology *topo,
			      unsigned flags, struct tier_apply_result **ret_result)
{
	struct tier_plan_entry *e;

	if (!ctx || !cls || !ret_result || !cgroup_path_valid(cgroup) || (flags & ~APPLY_FLAGS))
		return -EINVAL;
	e = entry_for(cgroup);
	if (!e)
		return -ENOMEM;
	class_desired(cls, topo ? tier_topology_fast_capacity(topo) : 0, e);
	return apply_free_entry(ctx, -1, e, cgroup, flags, NULL, NULL, ret_result);
}

int tier_class_apply_at(struct tier_ctx *ctx, int dfd, const char *cgroup,
			const struct tier_class *cls, const struct tier_topology *topo,
			unsigned flags, struct tier_apply_result **ret_result)
{
	struct tier_plan_entry *e;

	if (!ctx || dfd < 0 || !cls || !ret_result || !cgroup_path_valid(cgroup) ||
	    (flags & ~APPLY_FLAGS))
		return -EINVAL;
	e = entry_for(cgroup);
	if (!e)
		return -ENOMEM;
	class_desired(cls, topo ? tier_topology_fast_capacity(topo) : 0, e);
	return apply_free_entry(ctx, dfd, e, cgroup, flags, NULL, NULL, ret_result);
}

_public_ int tier_cgroup_apply_attr(struct tier_ctx *ctx, const char *cgroup, enum tier_attr attr,
				    uint64_t value, unsigned flags, tier_apply_write_fn write_fn,
				    void *userdata, struct tier_apply_result **ret_result)
{
	struct tier_plan_entry *e;
	int r;

	if (!ctx || !ret_result || !cgroup_path_valid(cgroup) || (flags & ~APPLY_FLAGS))
		return -EINVAL;
	e = entry_for(cgroup);
	if (!e)
		return -ENOMEM;
	r = tier_plan_entry_set_desired(e, attr, value);
	if (r < 0) {
		plan_entry_free(e);
		return r;
	}
	return apply_free_entry(ctx, -1, e, cgroup, flags, write_fn, userdata, ret_result);
}

_public_ void tier_apply_result_free(struct tier_apply_result *result)
{
	result_free(result);
}

_public_ int tier_apply_result_path(const struct tier_apply_result *result, char *buf,
				    size_t size)
{
	return result ? cgpath_format(result->path, buf, size) : -EINVAL;
}

int tier_apply_result_path_dup(const struct tier_apply_result *result, char **ret_path)
{
	return result ? cgpath_dup(result->path, ret_path) : -EINVAL;
}

_public_ enum tier_apply_status tier_apply_result_status(const struct tier_apply_result *result)
{
	return result ? result->status : TIER_APPLY_UNMANAGED;
}

_public_ int tier_apply_result_error(const struct tier_apply_result *result)
{
	return result ? result->error : 0;
}

_public_ size_t tier_apply_result_change_count(const struct tier_apply_result *result)
{
	return result ? result->n_changes : 0;
}

static const struct apply_change *change(const struct tier_apply_result *result, size_t i)
{
	return result && i < result->n_changes ? &result->changes[i] : NULL;
}

_public_ enum tier_attr tier_apply_result_change_attr(const struct tier_apply_result *result,
						      size_t i)
{
	const struct apply_change *ch = change(result, i);

	return ch ? ch->attr : _TIER_ATTR_MAX;
}

_public_ enum tier_apply_status
tier_apply_result_change_status(const struct tier_apply_result *result, size_t i)
{
	const struct apply_change *ch = change(result, i);

	return ch ? ch->status : TIER_APPLY_UNMANAGED;
}

_public_ int tier_apply_result_change_error(const struct tier_apply_result *result, size_t i)
{
	const struct apply_change *ch = change(result, i);

	return ch ? ch->error : 0;
}

_public_ const char *tier_apply_result_change_old_value(const struct tier_apply_result *result,
							size_t i)
{
	const struct apply_change *ch = change(result, i);

	return ch ? ch->old_value : NULL;
}

_public_ const char *tier_apply_result_change_new_value(const struct tier_apply_result *result,
							size_t i)
{
	const struct apply_change *ch = change(result, i);

	return ch ? ch->new_value : NULL;
}

_public_ int tier_apply(struct tier_ctx *ctx, const struct tier_plan *plan, unsigned flags,
			struct tier_apply_results **ret_results)
{
	struct tier_apply_results *res;
	size_t n = tier_plan_count(plan), alloc = 0;
	_cleanup_close_ int root = -1;
	_cleanup_free_ char *path = NULL;
	int n_err = 0, r;

	if (!ctx || !plan || !ret_results || (flags & ~APPLY_FLAGS))
		return -EINVAL;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	res->r = calloc(n ?: 1, sizeof(*res->r));
	if (!res->r) {
		free(res);
		return -ENOMEM;
	}
	/* Each managed cgroup's files are read and written below its
	 * directory, opened once from the root opened once: no path walk per
	 * value.  One that cannot be opened goes by path (which tells a
	 * vanished cgroup from anything else the usual way). */
	root = cgroup_root_open(ctx);
	for (size_t i = 0; i < n; i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i);
		_cleanup_close_ int dfd = -1;

		/* one buffer for every entry's path */
		if ((size_t)e->path->len + 1 > alloc) {
			char *p = realloc(path, (size_t)e->path->len + 1);

			if (!p) {
				tier_apply_results_free(res);
				return -ENOMEM;
			}
			path = p;
			alloc = (size_t)e->path->len + 1;
		}
		cgpath_build(e->path, path);
		if (root >= 0 && e->rule) {
			dfd = cgroup_open_below(root, path);
			if (dfd == -ENOMEM) {
				tier_apply_results_free(res);
				return dfd;
			}
		}
		r = entry_apply(ctx, dfd >= 0 ? dfd : -1, e, path, flags, NULL, NULL, &res->r[i]);
		if (r < 0) {
			tier_apply_results_free(res);
			return r;
		}
		res->n = i + 1;
		n_err += r;
		log_result(ctx, res->r[i], path, flags & TIER_APPLY_DRY_RUN);
	}
	*ret_results = res;
	return n_err;
}

_public_ void tier_apply_results_free(struct tier_apply_results *results)
{
	if (!results)
		return;
	for (size_t i = 0; i < results->n; i++)
		result_free(results->r[i]);
	free(results->r);
	free(results);
}

_public_ size_t tier_apply_results_count(const struct tier_apply_results *results)
{
	return results ? results->n : 0;
}

_public_ const struct tier_apply_result *tier_apply_results_get(
	const struct tier_apply_results *results, size_t i)
{
	return results && i < results->n ? results->r[i] : NULL;
}
