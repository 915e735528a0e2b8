// SPDX-License-Identifier: LGPL-2.1-or-later
/* cgroup v2 tree: enumeration and attribute I/O. */
#include <ctype.h>
#include <linux/magic.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "libtier-private.h"
#include "tier-internal.h"

/* Reject relative paths and "." / ".." components: cgroup names come from
 * policy files and the command line. */
bool cgroup_path_valid(const char *cgroup)
{
	const char *p;

	if (!cgroup || cgroup[0] != '/')
		return false;
	for (p = cgroup; *p;) {
		const char *e;
		size_t l;

		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		l = (size_t)(e - p);
		if ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p = e;
	}
	return true;
}

/*
 * The one normaliser for cgroup paths that come from outside (command line,
 * bus, hook, policy): absolute, no "." or ".." component, no empty
 * component, no trailing slash; the root is "/". "//a/b/" -> "/a/b".
 */
_public_ int tier_cgroup_path_normalize(const char *path, char **ret_path)
{
	_cleanup_free_ char *out = NULL;
	char *w;

	if (!path || !ret_path || !cgroup_path_valid(path))
		return -EINVAL;
	out = malloc(strlen(path) + 1);
	if (!out)
		return -ENOMEM;
	w = out;
	for (const char *p = path; *p;) {
		const char *e;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		*w++ = '/';
		memcpy(w, p, (size_t)(e - p));
		w += e - p;
		p = e;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	*ret_path = TAKE_PTR(out);
	return 0;
}

int cgroup_path(const struct tier_ctx *ctx, const char *cgroup, const char *file, char **ret)
{
	if (!cgroup_path_valid(cgroup))
		return -EINVAL;
	if (file && (strchr(file, '/') || !*file || strcmp(file, "..") == 0 ||
		     strcmp(file, ".") == 0))
		return -EINVAL;
	return path_join(ret, ctx->cgroup_root, cgroup, file);
}

static bool file_name_valid(const char *file)
{
	return file && *file && !strchr(file, '/') && strcmp(file, ".") != 0 &&
	       strcmp(file, "..") != 0;
}

/* The cgroup root itself is the administrator's (a path of the host's
 * mount table or the caller's argument): the one path string resolved. */
int cgroup_root_open(const struct tier_ctx *ctx)
{
	int fd = open(ctx->cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? negative_errno() : fd;
}

#ifndef RESOLVE_NO_MAGICLINKS
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif

struct open_how_compat {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

/* One component below dfd: a directory, never a symlink. */
static int open_child_dir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	/* a symlink with O_DIRECTORY | O_NOFOLLOW is ENOTDIR: say ELOOP */
	if (errno == ENOTDIR) {
		struct stat st;

		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return -ELOOP;
	}
	return negative_errno();
}

/*
 * Open the directory of cgroup below the root, never leaving it and never
 * through a symlink: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where
 * the kernel has it, otherwise (or for paths longer than PATH_MAX) one
 * openat(O_NOFOLLOW) per component. A symlink anywhere is -ELOOP.
 */
int cgroup_open_below(int root_fd, const char *cgroup)
{
	static bool no_openat2;
	_cleanup_close_ int fd = -1;
	const char *rel = cgroup;

	while (*rel == '/')
		rel++;
	if (!*rel) {
		fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? negative_errno() : TAKE_FD(fd);
	}
	if (!no_openat2 && strlen(rel) < PATH_MAX) {
		struct open_how_compat how = {
			.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long r = syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));

		if (r >= 0)
			return (int)r;
		if (errno != ENOSYS && errno != EPERM && errno != E2BIG)
			return negative_errno();
		if (errno == ENOSYS)
			no_openat2 = true;
	}
	fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return negative_errno();
	for (const char *p = rel; *p;) {
		_cleanup_free_ char *name = NULL;
		const char *e = strchrnul(p, '/');
		int child;

		name = strndup(p, (size_t)(e - p));
		if (!name)
			return -ENOMEM;
		child = open_child_dir(fd, name);
		if (child < 0)
			return child;
		close(fd);
		fd = child;
		p = e;
		while (*p == '/')
			p++;
	}
	return TAKE_FD(fd);
}

int cgroup_open_dir(struct tier_ctx *ctx, const char *cgroup)
{
	_cleanup_close_ int root = -1;

	if (!ctx || !cgroup_path_valid(cgroup))
		return -EINVAL;
	root = cgroup_root_open(ctx);
	if (root < 0)
		return root;
	return cgroup_open_below(root, cgroup);
}

_public_ int tier_cgroup_open(struct tier_ctx *ctx, const char *cgroup, int *ret_fd)
{
	int fd;

	if (!ret_fd)
		return -EINVAL;
	fd = cgroup_open_dir(ctx, cgroup);
	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

_public_ bool tier_cgroup_exists(struct tier_ctx *ctx, const char *cgroup)
{
	_cleanup_close_ int fd = cgroup_open_dir(ctx, cgroup);

	return fd >= 0;
}

/*
 * A file missing from an open cgroup directory: a missing feature
 * (-EOPNOTSUPP) while the cgroup is there, -ENOENT if the cgroup was removed
 * after it was opened (kernfs empties a removed directory). The second
 * lookup happens on this error path only.
 */
int cgroup_classify_enoent(struct tier_ctx *ctx, const char *cgroup, int r)
{
	if (r != -ENOENT)
		return r;
	return tier_cgroup_exists(ctx, cgroup) ? -EOPNOTSUPP : -ENOENT;
}

/* Open cgroup's directory for one file access; a directory that is not
 * there (or not a directory) is -ENOENT. */
static int open_for_file(struct tier_ctx *ctx, const char *cgroup, const char *file)
{
	int fd;

	if (!file_name_valid(file))
		return -EINVAL;
	fd = cgroup_open_dir(ctx, cgroup);
	if (fd == -ENOTDIR)
		fd = -ENOENT;
	if (fd < 0)
		dbg(ctx, "%s: %s", cgroup, strerror(-fd));
	return fd;
}

_public_ int tier_cgroup_read(struct tier_ctx *ctx, const char *cgroup, const char *file,
			      char **ret_value)
{
	_cleanup_close_ int dfd = -1;
	char *value;
	int r;

	if (!ctx || !ret_value)
		return -EINVAL;
	dfd = open_for_file(ctx, cgroup, file);
	if (dfd < 0)
		return dfd;
	r = sysfs_read_at(dfd, file, &value);
	if (r < 0) {
		r = cgroup_classify_enoent(ctx, cgroup, r);
		dbg(ctx, "read %s/%s: %s", cgroup, file, strerror(-r));
		return r;
	}
	*ret_value = value;
	return 0;
}

_public_ int tier_cgroup_write(struct tier_ctx *ctx, const char *cgroup, const char *file,
			       const char *value)
{
	_cleanup_close_ int dfd = -1;
	int r;

	if (!ctx || !value)
		return -EINVAL;
	dfd = open_for_file(ctx, cgroup, file);
	if (dfd < 0)
		return dfd;
	r = sysfs_write_at(dfd, file, value);
	if (r < 0) {
		r = cgroup_classify_enoent(ctx, cgroup, r);
		dbg(ctx, "write '%s' to %s/%s: %s", value, cgroup, file, strerror(-r));
		return r;
	}
	dbg(ctx, "wrote '%s' to %s/%s", value, cgroup, file);
	return 0;
}

static int parse_u64_or_max(const char *s, uint64_t *ret)
{
	if (strcmp(s, "max") == 0) {
		*ret = UINT64_MAX;
		return 0;
	}
	return parse_u64(s, ret);
}

_public_ int tier_cgroup_read_u64(struct tier_ctx *ctx, const char *cgroup, const char *file,
				  uint64_t *ret_value)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t v;
	int r;

	if (!ret_value)
		return -EINVAL;
	r = tier_cgroup_read(ctx, cgroup, file, &buf);
	if (r < 0)
		return r;
	r = parse_u64_or_max(buf, &v);
	if (r < 0) {
		dbg(ctx, "%s/%s: not a number: '%s'", cgroup, file, buf);
		return r;
	}
	*ret_value = v;
	return 0;
}

static void format_u64_or_max(char *buf, size_t size, uint64_t v)
{
	if (v == UINT64_MAX)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

_public_ int tier_cgroup_write_u64(struct tier_ctx *ctx, const char *cgroup, const char *file,
				   uint64_t value)
{
	char buf[TIER_VALUE_MAX];

	format_u64_or_max(buf, sizeof(buf), value);
	return tier_cgroup_write(ctx, cgroup, file, buf);
}

/* Find "key value" in a multi-line buffer. */
int stat_buf_lookup(const char *buf, const char *key, uint64_t *ret)
{
	size_t kl = strlen(key);
	const char *line = buf;

	while (line && *line) {
		const char *eol = strchr(line, '\n');

		if (strncmp(line, key, kl) == 0 && line[kl] == ' ') {
			size_t len = eol ? (size_t)(eol - line - kl - 1) : strlen(line + kl + 1);
			_cleanup_free_ char *v = strndup(line + kl + 1, len);

			if (!v)
				return -ENOMEM;
			return parse_u64(strip(v), ret);
		}
		line = eol ? eol + 1 : NULL;
	}
	return -ENODATA;
}

_public_ int tier_cgroup_read_stat(struct tier_ctx *ctx, const char *cgroup, const char *file,
				   const char *key, uint64_t *ret_value)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t v;
	int r;

	if (!key || !ret_value)
		return -EINVAL;
	r = tier_cgroup_read(ctx, cgroup, file, &buf);
	if (r < 0)
		return r;
	r = stat_buf_lookup(buf, key, &v);
	if (r < 0)
		return r;
	*ret_value = v;
	return 0;
}

/* "anon N0=123 N1=456" for key in buf -> per-node array. */
static int numa_stat_lookup(const char *buf, const char *key, uint64_t **ret, unsigned *ret_n)
{
	size_t kl = strlen(key);
	const char *line = buf;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (len > kl && strncmp(line, key, kl) == 0 && line[kl] == ' ') {
			_cleanup_free_ char *copy = strndup(line + kl + 1, len - kl - 1);
			_cleanup_free_ uint64_t *vals = NULL;
			unsigned n = 0;
			char *tok, *save = NULL;

			if (!copy)
				return -ENOMEM;
			for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
				char *eq = strchr(tok, '=');
				uint64_t v;
				int node, r;

				if (tok[0] != 'N' || !eq)
					return -EINVAL;
				*eq = '\0';
				r = parse_int(tok + 1, &node);
				if (r < 0 || node < 0 || node > 65535)
					return -EINVAL;
				r = parse_u64(eq + 1, &v);
				if (r < 0)
					return r;
				if ((unsigned)node >= n) {
					uint64_t *nv = realloc(vals, ((size_t)node + 1) * sizeof(uint64_t));

					if (!nv)
						return -ENOMEM;
					memset(nv + n, 0, ((size_t)node + 1 - n) * sizeof(uint64_t));
					vals = nv;
					n = (unsigned)node + 1;
				}
				vals[node] = v;
			}
			if (!vals) {
				vals = calloc(1, sizeof(uint64_t));
				if (!vals)
					return -ENOMEM;
			}
			*ret = TAKE_PTR(vals);
			*ret_n = n;
			return 0;
		}
		line = eol ? eol + 1 : NULL;
	}
	return -ENODATA;
}

_public_ int tier_cgroup_read_numa_stat(struct tier_ctx *ctx, const char *cgroup, const char *key,
				       uint64_t **ret_per_node, unsigned *ret_n)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t *vals;
	unsigned n;
	int r;

	if (!key || !ret_per_node || !ret_n)
		return -EINVAL;
	r = tier_cgroup_read(ctx, cgroup, "memory.numa_stat", &buf);
	if (r < 0)
		return r;
	r = numa_stat_lookup(buf, key, &vals, &n);
	if (r < 0)
		return r;
	*ret_per_node = vals;
	*ret_n = n;
	return 0;
}

int residency_from_buf(const struct tier_topology *topo, const char *buf,
		       struct residency *res)
{
	static const char *const keys[] = { "anon", "file" };

	res->fast_bytes = res->slow_bytes = 0;
	res->fast_exact = false;
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		_cleanup_free_ uint64_t *vals = NULL;
		unsigned n = 0;
		int r;

		r = numa_stat_lookup(buf, keys[k], &vals, &n);
		if (r < 0)
			return r;
		for (unsigned i = 0; i < n; i++) {
			uint64_t *sum = tier_topology_node_is_toptier(topo, (int)i) ?
						&res->fast_bytes : &res->slow_bytes;

			/* a corrupt (or fake) file must not wrap the sum */
			*sum = add_sat_u64(*sum, vals[i]);
		}
	}
	return 0;
}

int toptier_from_stat_buf(struct tier_ctx *ctx, const char *cgroup, const char *buf,
			  uint64_t *ret)
{
	uint64_t v;
	int r;

	/* The kernel counts top-tier pages only while cgroup2 is mounted with
	 * memory_tiered_limits (a static key): without it the key reads 0. */
	if (!tier_ctx_toptier_counted(ctx))
		return 0;
	r = stat_buf_lookup(buf, "toptier", &v);
	if (r == -ENOMEM)
		return r;
	if (r == -ENODATA)
		return 0;
	if (r < 0) {
		dbg(ctx, "%s/memory.stat: toptier is not a number, using memory.numa_stat",
		    cgroup);
		return 0;
	}
	*ret = v;
	return 1;
}

int toptier_read_at(struct tier_ctx *ctx, int dfd, const char *cgroup, uint64_t *ret)
{
	_cleanup_free_ char *buf = NULL;
	int r;

	r = sysfs_read_at(dfd, "memory.stat", &buf);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	return toptier_from_stat_buf(ctx, cgroup, buf, ret);
}

int residency_read_at(struct tier_ctx *ctx, int dfd, const char *cgroup,
		      const struct tier_topology *topo, struct residency *res)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t top;
	int r, exact;

	/* memory.stat first: the key is optional, a failure to read it is none. */
	exact = toptier_read_at(ctx, dfd, cgroup, &top);
	if (exact < 0)
		return exact;
	r = sysfs_read_at(dfd, "memory.numa_stat", &buf);
	if (r < 0)
		return r;
	r = residency_from_buf(topo, buf, res);
	if (r < 0)
		return r;
	if (exact) {
		res->fast_bytes = top;
		res->fast_exact = true;
	}
	return 0;
}

_public_ int tier_cgroup_read_residency(struct tier_ctx *ctx, const struct tier_topology *topo,
					const char *cgroup, uint64_t *ret_fast_bytes,
					uint64_t *ret_slow_bytes)
{
	_cleanup_close_ int dfd = -1;
	struct residency res;
	int r;

	if (!ctx || !topo || !ret_fast_bytes || !ret_slow_bytes)
		return -EINVAL;
	dfd = open_for_file(ctx, cgroup, "memory.numa_stat");
	if (dfd < 0)
		return dfd;
	r = residency_read_at(ctx, dfd, cgroup, topo, &res);
	if (r < 0) {
		r = cgroup_classify_enoent(ctx, cgroup, r);
		dbg(ctx, "read %s/memory.numa_stat: %s", cgroup, strerror(-r));
		return r;
	}
	*ret_fast_bytes = res.fast_bytes;
	*ret_slow_bytes = res.slow_bytes;
	return 0;
}

/* The content of cgroup's memory.numa_balancing; an unknown value is warned about. */
static int mode_from_file(struct tier_ctx *ctx, const char *cgroup, char *buf,
			  enum tier_mode *ret)
{
	int r = tier_mode_from_string(strip(buf), ret);

	if (r < 0)
		warn(ctx, "%s/memory.numa_balancing: unknown value '%s'", cgroup, buf);
	return r;
}

_public_ int tier_cgroup_get_mode(struct tier_ctx *ctx, const char *cgroup,
				  enum tier_mode *ret_mode)
{
	_cleanup_free_ char *buf = NULL;
	enum tier_mode m;
	int r;

	if (!ret_mode)
		return -EINVAL;
	r = tier_cgroup_read(ctx, cgroup, "memory.numa_balancing", &buf);
	if (r < 0)
		return r;
	r = mode_from_file(ctx, cgroup, buf, &m);
	if (r < 0)
		return r;
	*ret_mode = m;
	return 0;
}

_public_ int tier_cgroup_set_mode(struct tier_ctx *ctx, const char *cgroup, enum tier_mode mode)
{
	const char *s = tier_mode_to_string(mode);

	if (!s)
		return -EINVAL;
	return tier_cgroup_write(ctx, cgroup, "memory.numa_balancing", s);
}

/*
 * The effective mode of cgroup: one walk down from the root by directory
 * fds, each level's file read relative to its own directory.  The source is
 * the top-most cgroup holding the binding value: walking down, the first
 * level that makes the mode more restrictive than everything above it.
 * The one effective-mode walk of the project (tierctl, tierd-metrics and
 * tier_cgroup_info_read() use it) where the kernel does not report the
 * effective value itself (effective_mode_kernel()), and for the source.
 */
static int effective_mode_walk(struct tier_ctx *ctx, const char *cgroup, enum tier_mode *ret_mode,
			       size_t *ret_source_len)
{
	_cleanup_close_ int fd = -1;
	enum tier_mode eff = TIER_MODE_INHERIT;
	size_t source_len = 0;
	const char *p;

	fd = cgroup_open_dir(ctx, "/");
	if (fd < 0)
		return fd;
	p = cgroup;
	while (*p == '/')
		p++;
	while (*p) {
		_cleanup_free_ char *name = NULL, *buf = NULL;
		const char *e = strchrnul(p, '/');
		enum tier_mode m, n;
		int child, r;

		name = strndup(p, (size_t)(e - p));
		if (!name)
			return -ENOMEM;
		child = open_child_dir(fd, name);
		if (child < 0)
			return child == -ENOTDIR ? -ENOENT : child;
		close(fd);
		fd = child;
		r = sysfs_read_at(fd, "memory.numa_balancing", &buf);
		if (r == -ENOENT)
			r = -EOPNOTSUPP;
		if (r >= 0)
			r = mode_from_file(ctx, cgroup, buf, &m);
		if (r < 0)
			return r;
		n = tier_mode_restrict(eff, m);
		if (n != eff) {
			eff = n;
			source_len = (size_t)(e - cgroup);
		}
		p = e;
		while (*p == '/')
			p++;
	}
	if (eff == TIER_MODE_INHERIT || eff == TIER_MODE_FULL) {
		/* Nothing restricts the global sysctl. */
		eff = TIER_MODE_FULL;
		source_len = 0;
	}
	*ret_mode = eff;
	*ret_source_len = source_len;
	return 0;
}

/*
 * The kernel's own effective mode: memory.numa_balancing.effective of the
 * cgroup directory dfd (newer kernels, non-root cgroups), read like every
 * cgroup file (no symlink, regular files only, capped).  1 and *ret when
 * the file holds off, promote or full; 0 when it is absent, or holds
 * anything else (warned about; inherit is no effective value): the caller
 * walks instead.  Any other error of the read is returned.
 */
static int effective_mode_kernel(struct tier_ctx *ctx, int dfd, const char *cgroup,
				 enum tier_mode *ret)
{
	_cleanup_free_ char *buf = NULL;
	enum tier_mode m;
	int r;

	r = sysfs_read_attr_at(dfd, "memory.numa_balancing.effective", &buf);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = tier_mode_from_string(strip(buf), &m);
	if (r < 0 || m == TIER_MODE_INHERIT) {
		warn(ctx, "%s/memory.numa_balancing.effective: unknown value '%s'", cgroup, buf);
		return 0;
	}
	*ret = m;
	return 1;
}

_public_ int tier_cgroup_get_effective_mode(struct tier_ctx *ctx, const char *cgroup,
					    enum tier_mode *ret_mode, char **ret_source)
{
	_cleanup_close_ int dfd = -1;
	char *source = NULL;
	enum tier_mode m = TIER_MODE_INVALID, km = TIER_MODE_INVALID;
	size_t len = 0;
	int r, kernel;

	if (!ctx || !ret_mode || !cgroup_path_valid(cgroup))
		return -EINVAL;
	dfd = cgroup_open_dir(ctx, cgroup);
	if (dfd < 0)
		return dfd == -ENOTDIR ? -ENOENT : dfd;
	kernel = effective_mode_kernel(ctx, dfd, cgroup, &km);
	if (kernel < 0)
		return kernel;
	/* With the kernel's value, the walk is there for the source only. */
	if (kernel == 0 || ret_source) {
		r = effective_mode_walk(ctx, cgroup, &m, &len);
		if (r < 0)
			return r;
	}
	if (kernel > 0) {
		/* The kernel's value wins; a walk that disagrees with it (the
		 * tree changed in between) names no source. */
		if (m != km)
			len = 0;
		m = km;
	}
	if (ret_source && len > 0) {
		source = strndup(cgroup, len);
		if (!source)
			return -ENOMEM;
	}
	*ret_mode = m;
	if (ret_source)
		*ret_source = source;
	return 0;
}

static int read_u64_at(int dfd, const char *file, uint64_t *ret);

struct tier_cgroup_info {
	unsigned valid;			/* TIER_INFO_* bits of the values read */
	uint64_t values[13];		/* by bit number */
};

_public_ void tier_cgroup_info_free(struct tier_cgroup_info *info)
{
	free(info);
}

static void info_set(struct tier_cgroup_info *info, unsigned bit, uint64_t v)
{
	info->values[__builtin_ctz(bit)] = v;
	info->valid |= bit;
}

_public_ int tier_cgroup_info_get(const struct tier_cgroup_info *info, unsigned what,
				  uint64_t *ret_value)
{
	if (!info || !ret_value || !what || (what & (what - 1)) || (what & ~TIER_INFO_ALL))
		return -EINVAL;
	if (!(info->valid & what))
		return -ENODATA;
	*ret_value = info->values[__builtin_ctz(what)];
	return 0;
}

/* tier_cgroup_info_read() below the cgroup's directory dfd; where the
 * kernel does not say the effective mode: from parent_effective (resolved),
 * none if it is TIER_MODE_INHERIT (the walk fails above the cgroup), by the
 * walk if it is TIER_MODE_INVALID. */
int cgroup_info_read_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
			const char *cgroup, unsigned want, enum tier_mode parent_effective,
			struct tier_cgroup_info **ret_info)
{
	static const struct {
		const char *file;
		unsigned bit;
	} u64s[] = {
		{ "memory.current", TIER_INFO_CURRENT },
		{ "memory.min", TIER_INFO_MIN },
		{ "memory.low", TIER_INFO_LOW },
		{ "memory.high", TIER_INFO_HIGH },
		{ "memory.max", TIER_INFO_MAX },
		{ "memory.toptier_min", TIER_INFO_TOPTIER_MIN },
		{ "memory.toptier_low", TIER_INFO_TOPTIER_LOW },
		{ "memory.toptier_high", TIER_INFO_TOPTIER_HIGH },
		{ "memory.toptier_max", TIER_INFO_TOPTIER_MAX },
	};
	_cleanup_free_ struct tier_cgroup_info *info = NULL;
	int r;

	info = calloc(1, sizeof(*info));
	if (!info)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(u64s); i++) {
		uint64_t v;

		if (!(want & u64s[i].bit))
			continue;
		r = read_u64_at(dfd, u64s[i].file, &v);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		info_set(info, u64s[i].bit, v);
	}
	if (want & (TIER_INFO_MODE | TIER_INFO_EFFECTIVE_MODE)) {
		_cleanup_free_ char *buf = NULL;
		enum tier_mode mode, eff;
		size_t len;

		r = sysfs_read_at(dfd, "memory.numa_balancing", &buf);
		if (r >= 0)
			r = mode_from_file(ctx, cgroup, buf, &mode);
		if (r >= 0 && (want & TIER_INFO_EFFECTIVE_MODE)) {
			r = effective_mode_kernel(ctx, dfd, cgroup, &eff);
			if (r == 0 && parent_effective == TIER_MODE_INHERIT) {
				/* as the walk: it fails where the parent's did */
				r = -EOPNOTSUPP;
			} else if (r == 0 && parent_effective != TIER_MODE_INVALID) {
				/* what the walk would find below the parent's */
				eff = tier_mode_restrict(parent_effective, mode);
				if (eff == TIER_MODE_INHERIT)
					eff = TIER_MODE_FULL;
			} else if (r == 0) {
				r = effective_mode_walk(ctx, cgroup, &eff, &len);
			}
		}
		if (r >= 0) {
			if (want & TIER_INFO_MODE)
				info_set(info, TIER_INFO_MODE, (uint64_t)mode);
			if (want & TIER_INFO_EFFECTIVE_MODE)
				info_set(info, TIER_INFO_EFFECTIVE_MODE, (uint64_t)eff);
		} else if (r != -ENOENT && r != -EOPNOTSUPP) {
			return r;
		}
	}
	if (topo && (want & TIER_INFO_RESIDENCY)) {
		struct residency res;

		r = residency_read_at(ctx, dfd, cgroup, topo, &res);
		if (r >= 0) {
			if (want & TIER_INFO_FAST_BYTES)
				info_set(info, TIER_INFO_FAST_BYTES, res.fast_bytes);
			if (want & TIER_INFO_SLOW_BYTES)
				info_set(info, TIER_INFO_SLOW_BYTES, res.slow_bytes);
		} else if (r != -ENOENT && r != -ENODATA && r != -EOPNOTSUPP) {
			return r;
		}
	}
	*ret_info = TAKE_PTR(info);
	return 0;
}

_public_ int tier_cgroup_info_read(struct tier_ctx *ctx, const struct tier_topology *topo,
				   const char *cgroup, unsigned want,
				   struct tier_cgroup_info **ret_info)
{
	_cleanup_close_ int dfd = -1;

	if (!ctx || !ret_info || !cgroup_path_valid(cgroup))
		return -EINVAL;
	/* One lookup of the directory, then each file relative to it: a
	 * missing file is a clear bit, without a second lookup to tell a
	 * missing file from a vanished cgroup. */
	dfd = cgroup_open_dir(ctx, cgroup);
	if (dfd < 0)
		return dfd == -ENOTDIR ? -ENOENT : dfd;
	return cgroup_info_read_at(ctx, topo, dfd, cgroup, want, TIER_MODE_INVALID, ret_info);
}

/*
 * The reader of cgroups in tree order (tier-internal.h): the directories of
 * the last cgroup read and of its ancestors among those read (prefixes of
 * its path), open, with their effective modes.
 */
#define READER_LEVELS 260

struct tier_cgroup_reader {
	struct tier_ctx *ctx;
	char *last;		/* the last cgroup read */
	size_t alloc;
	size_t n;
	struct {
		size_t len;		/* of the prefix of last that is this level */
		int fd;
		enum tier_mode eff;	/* resolved; TIER_MODE_INHERIT: it has none */
	} lv[READER_LEVELS];
};

int tier_cgroup_reader_new(struct tier_ctx *ctx, struct tier_cgroup_reader **ret)
{
	struct tier_cgroup_reader *rd;

	if (!ctx || !ret)
		return -EINVAL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->ctx = tier_ctx_ref(ctx);
	*ret = rd;
	return 0;
}

static void reader_forget(struct tier_cgroup_reader *rd)
{
	while (rd->n > 0) {
		rd->n--;
		close(rd->lv[rd->n].fd);
	}
}

void tier_cgroup_reader_free(struct tier_cgroup_reader *rd)
{
	if (!rd)
		return;
	reader_forget(rd);
	free(rd->last);
	tier_ctx_unref(rd->ctx);
	free(rd);
}

/* Is the prefix of rd->last of length len path itself or an ancestor of it? */
static bool reader_above(const struct tier_cgroup_reader *rd, size_t len, const char *path,
			 size_t plen)
{
	if (len > plen || memcmp(rd->last, path, len) != 0)
		return false;
	return len == plen || path[len] == '/' || (len == 1 && rd->last[0] == '/');
}

/* Remember path, its directory fd (taken) and its effective mode. */
static void reader_push(struct tier_cgroup_reader *rd, const char *path, int fd,
			enum tier_mode eff)
{
	size_t plen = strlen(path);

	if (plen + 1 > rd->alloc) {
		char *p = realloc(rd->last, plen + 1);

		if (!p) {
			/* no memory of it: the next cgroups are read from the root */
			reader_forget(rd);
			close(fd);
			return;
		}
		rd->last = p;
		rd->alloc = plen + 1;
	}
	/* The levels kept are prefixes of path: tier_cgroup_reader_read() popped
	 * the others. */
	memcpy(rd->last, path, plen + 1);
	if (rd->n == READER_LEVELS || (rd->n > 0 && rd->lv[rd->n - 1].len == plen)) {
		close(fd);
		return;
	}
	rd->lv[rd->n].len = plen;
	rd->lv[rd->n].fd = fd;
	rd->lv[rd->n].eff = eff;
	rd->n++;
}

int tier_cgroup_reader_read(struct tier_cgroup_reader *rd, const struct tier_topology *topo,
			    const char *cgroup, unsigned want, struct tier_cgroup_info **ret_info)
{
	_cleanup_free_ struct tier_cgroup_info *info = NULL;
	enum tier_mode parent_eff = TIER_MODE_INVALID, known;
	_cleanup_close_ int fd = -1;
	const char *slash;
	size_t plen, parent_len;
	int r;

	if (!rd || !ret_info || !cgroup_path_valid(cgroup))
		return -EINVAL;
	plen = strlen(cgroup);
	slash = strrchr(cgroup, '/');
	parent_len = slash == cgroup ? 1 : (size_t)(slash - cgroup);
	while (rd->n > 0 && !reader_above(rd, rd->lv[rd->n - 1].len, cgroup, plen)) {
		rd->n--;
		close(rd->lv[rd->n].fd);
	}
	if (rd->n > 0 && plen > 1 && rd->lv[rd->n - 1].len == parent_len) {
		/* one component below the parent's directory, never a symlink */
		fd = open_child_dir(rd->lv[rd->n - 1].fd, slash + 1);
		parent_eff = rd->lv[rd->n - 1].eff;
	} else {
		fd = cgroup_open_dir(rd->ctx, cgroup);
	}
	if (fd < 0)
		return fd == -ENOTDIR ? -ENOENT : fd;
	r = cgroup_info_read_at(rd->ctx, topo, fd, cgroup, want, parent_eff, &info);
	if (r < 0)
		return r;
	if (!(want & TIER_INFO_EFFECTIVE_MODE))
		known = TIER_MODE_INVALID; /* not read: the children walk */
	else if (info->valid & TIER_INFO_EFFECTIVE_MODE)
		known = (enum tier_mode)info->values[__builtin_ctz(TIER_INFO_EFFECTIVE_MODE)];
	else if (plen == 1)
		known = TIER_MODE_FULL; /* nothing above the root restricts */
	else
		known = TIER_MODE_INHERIT; /* none: nor have its children */
	reader_push(rd, cgroup, TAKE_FD(fd), known);
	*ret_info = TAKE_PTR(info);
	return 0;
}

int tier_cgroup_reader_read_stat(struct tier_cgroup_reader *rd, const char *cgroup,
				 const char *file, const char *key, uint64_t *ret_value)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t v;
	int r;

	if (!rd || !cgroup || !file || !key || !ret_value)
		return -EINVAL;
	if (rd->n == 0 || strcmp(rd->last, cgroup) != 0 || rd->lv[rd->n - 1].len != strlen(cgroup))
		return tier_cgroup_read_stat(rd->ctx, cgroup, file, key, ret_value);
	r = sysfs_read_at(rd->lv[rd->n - 1].fd, file, &buf);
	if (r < 0)
		return cgroup_classify_enoent(rd->ctx, cgroup, r);
	r = stat_buf_lookup(buf, key, &v);
	if (r < 0)
		return r;
	*ret_value = v;
	return 0;
}

/* cgroup.procs content -> pids. */
static int parse_pids(char *buf, int **ret_pids, size_t *ret_n)
{
	_cleanup_free_ int *pids = NULL;
	size_t n = 0, alloc = 0;
	char *tok, *save = NULL;
	int r;

	for (tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		int pid;

		r = parse_int(strip(tok), &pid);
		if (r < 0 || pid <= 0)
			return -EINVAL;
		if (ARRAY_PUSH(pids, n, alloc, pid) < 0)
			return -ENOMEM;
	}
	if (!pids) {
		pids = calloc(1, sizeof(int));
		if (!pids)
			return -ENOMEM;
	}
	*ret_pids = TAKE_PTR(pids);
	*ret_n = n;
	return 0;
}

_public_ int tier_cgroup_read_pids(struct tier_ctx *ctx, const char *cgroup, int **ret_pids,
				   size_t *ret_n)
{
	_cleanup_free_ char *buf = NULL;

	if (!ret_pids || !ret_n)
		return -EINVAL;
	int r = tier_cgroup_read(ctx, cgroup, "cgroup.procs", &buf);

	if (r < 0)
		return r;
	return parse_pids(buf, ret_pids, ret_n);
}

int tier_proc_cgroup_parse(const char *data, size_t len, char **ret_path)
{
	const char *p = data, *end = data + len;

	if (!ret_path || (!data && len))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le - p >= 3 && memcmp(p, "0::", 3) == 0) {
			_cleanup_free_ char *path = strndup(p + 3, (size_t)(le - p - 3));

			if (!path)
				return -ENOMEM;
			if (path[0] != '/' || strlen(path) != (size_t)(le - p - 3))
				return -EINVAL;
			return tier_cgroup_path_normalize(path, ret_path);
		}
		p = le + 1;
	}
	return -ENODATA;
}

int tier_pid_cgroup(struct tier_ctx *ctx, int pid, char **ret_path)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	char name[32];
	size_t size;
	int r;

	if (!ctx || pid <= 0 || !ret_path)
		return -EINVAL;
	snprintf(name, sizeof(name), "%d/cgroup", pid);
	r = path_join(&path, ctx->procfs_root, name, NULL);
	if (r < 0)
		return r;
	r = read_file_at_max(AT_FDCWD, path, TIER_PROC_CGROUP_MAX, 0, &buf, &size);
	if (r < 0)
		return r;
	return tier_proc_cgroup_parse(buf, size, ret_path);
}

_public_ int tier_pid_exe(struct tier_ctx *ctx, int pid, char **ret_exe)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	char name[32];
	size_t size = 256;
	int r;

	if (!ctx || pid <= 0 || !ret_exe)
		return -EINVAL;
	snprintf(name, sizeof(name), "%d/exe", pid);
	r = path_join(&path, ctx->procfs_root, name, NULL);
	if (r < 0)
		return r;
	for (;;) {
		ssize_t n;

		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		n = readlink(path, buf, size);
		if (n < 0)
			return negative_errno();
		if ((size_t)n < size) {
			buf[n] = '\0';
			break;
		}
		if (size > PATH_MAX * 4)
			return -ENAMETOOLONG;
		size *= 2;
	}
	/*
	 * The name is what the process's own mount namespace calls its
	 * executable: in another one (a container, "unshare -Urm" with a tmpfs
	 * over /usr/sbin) it need not be the file of that name here.  It is
	 * that file only if both are the same inode, else -EXDEV; a
	 * "(deleted)" name is no file at all.  A process gone meanwhile (or a
	 * fake tree's link to nothing) cannot be checked.
	 */
	{
		struct stat pst, hst;

		if (stat(path, &pst) == 0 &&
		    (stat(buf, &hst) < 0 || hst.st_dev != pst.st_dev || hst.st_ino != pst.st_ino))
			return -EXDEV;
	}
	*ret_exe = TAKE_PTR(buf);
	return 0;
}

/* --- enumeration --- */

#define DIRENT_BUF (32u * 1024)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * tier-internal.h.  getdents64() on dfd itself (from its start): an
 * opendir() of a duplicate cost five more syscalls per directory (dup,
 * fstat, two fcntl, close), a third of what listing a small one takes.
 */
int tier_dir_list_subdirs(int dfd, char ***ret, size_t *ret_n)
{
	_cleanup_free_ char *buf = NULL;
	char **names = NULL;
	size_t n = 0, alloc = 0;
	int r;

	if (lseek(dfd, 0, SEEK_SET) < 0)
		return negative_errno();
	buf = malloc(DIRENT_BUF);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t len = getdents64(dfd, buf, DIRENT_BUF);

		if (len < 0) {
			r = negative_errno();
			goto fail;
		}
		if (len == 0)
			break;
		for (ssize_t off = 0; off < len;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);
			char *s;

			off += de->d_reclen;
			if (de->d_name[0] == '.' &&
			    (de->d_name[1] == '\0' ||
			     (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			if (de->d_type == DT_UNKNOWN) {
				struct stat st;

				if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
				    !S_ISDIR(st.st_mode))
					continue;
			} else if (de->d_type != DT_DIR) {
				continue;
			}
			s = strdup(de->d_name);
			if (!s) {
				r = -ENOMEM;
				goto fail;
			}
			r = strv_push(&names, &n, &alloc, s);
			if (r < 0) {
				free(s);
				goto fail;
			}
		}
	}
	if (n)
		qsort(names, n, sizeof(char *), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
fail:
	tier_strv_free(names);
	return r;
}

/* The walk goes down by directory fds, so neither a path longer than
 * PATH_MAX nor a symlink stops or misleads it; a subtree deeper than this,
 * or one that cannot be read, is left out and the rest is walked. */
#define CGROUP_WALK_MAX_DEPTH 256

/* One walk, two uses: tier_cgroup_enumerate() collects the paths,
 * tier_observe() reads each cgroup through the directory fd the walk has
 * open (no second path walk per cgroup). */
struct walk {
	struct tier_ctx *ctx;
	/* each cgroup, in pre-order, with its directory open as dfd (and its
	 * interned path when the walk interns: an observe); a negative errno
	 * stops the walk (-ENOMEM, or what a tier_plan_observe() caller's
	 * visit returned) */
	int (*visit)(struct walk *w, int dfd, const char *cgroup, struct cgpath *path);
	char **out;			/* enumerate */
	size_t n, alloc;
	struct tier_observed *obs;	/* observe */
	struct tier_plan *plan;		/* tier_plan_observe() */
	struct update_scratch sc;	/* its evaluation's */
	tier_plan_visit_fn plan_visit;	/* and its caller's */
	void *plan_userdata;
	bool intern;			/* give each visit its interned path */
	bool kernfs;			/* the root is a cgroup2 mount's directory */
	dev_t kernfs_dev;		/* its st_dev */
	unsigned flags;
	unsigned skipped;
	struct observe_walk ow;		/* observe: shared by its cgroups */
};

static void walk_skip(struct walk *w, const char *cgroup, int r)
{
	/* one line per walk: a hostile subtree cannot flood the log */
	if (w->skipped++ == 0)
		warn(w->ctx, "%s: %s, skipping this subtree", cgroup,
		     r == -E2BIG ? "deeper than " STRINGIFY(CGROUP_WALK_MAX_DEPTH) " levels"
				 : strerror(-r));
}

static int visit_enumerate(struct walk *w, int dfd, const char *cgroup, struct cgpath *path)
{
	char *copy = strdup(cgroup);

	if (!copy || strv_push(&w->out, &w->n, &w->alloc, copy) < 0) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

static int walk_rec(struct walk *w, int dfd, const char *cgroup, struct cgpath *path,
		    unsigned depth)
{
	char **children = NULL;
	size_t nc = 0, l = strlen(cgroup);
	struct stat st;
	bool have_st;
	int r;

	/* One fstat() per cgroup: the visit's (an observe names the hook's
	 * annotation record by the inode) and the walk's. */
	have_st = fstat(dfd, &st) == 0;
	w->ow.st = have_st ? &st : NULL;
	/* below a cgroup2 root and on its mount (not one mounted over a
	 * directory of it): its files need no check that they are regular */
	w->ow.rflags = w->kernfs && have_st && st.st_dev == w->kernfs_dev ? READ_KERNFS : 0;
	r = w->visit(w, dfd, cgroup, path);
	w->ow.st = NULL;
	if (r < 0)
		return r;
	/* kernfs (cgroupfs) and tmpfs count 2 + the subdirectories as a
	 * directory's links: a leaf, most cgroups, needs no listing. */
	if (have_st && S_ISDIR(st.st_mode) && st.st_nlink == 2)
		return 0;
	r = tier_dir_list_subdirs(dfd, &children, &nc);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		walk_skip(w, cgroup, r);
		return 0;
	}
	for (size_t i = 0; i < nc; i++) {
		_cleanup_free_ char *child = NULL;
		_cleanup_close_ int cfd = -1;
		struct cgpath *cpath = NULL;
		int cl;

		cl = asprintf(&child, "%s%s%s", cgroup, (l && cgroup[l - 1] == '/') ? "" : "/",
			      children[i]);
		if (cl < 0) {
			r = -ENOMEM;
			goto out;
		}
		if (depth + 1 > CGROUP_WALK_MAX_DEPTH) {
			walk_skip(w, child, -E2BIG);
			continue;
		}
		cfd = open_child_dir(dfd, children[i]);
		if (cfd == -ENOENT || cfd == -ENOTDIR)
			continue; /* vanished while walking */
		if (cfd == -ENOMEM) {
			r = cfd;
			goto out;
		}
		if (cfd < 0) {
			walk_skip(w, child, cfd);
			continue;
		}
		if (w->intern) {
			/* the child names itself, its parent holds the rest */
			cpath = cgpath_new_child(path, children[i], strlen(children[i]),
						 tier_hash(child, (size_t)cl));
			if (!cpath) {
				r = -ENOMEM;
				goto out;
			}
		}
		r = walk_rec(w, cfd, child, cpath, depth + 1);
		cgpath_unref(cpath);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	tier_strv_free(children);
	return r;
}

/* Walk subtree (NULL: all) with w->visit. */
static int walk_tree(struct walk *w, const char *subtree)
{
	_cleanup_close_ int fd = -1;
	struct cgpath *path = NULL;
	int r;

	if (!subtree)
		subtree = "/";
	if (!cgroup_path_valid(subtree))
		return -EINVAL;
	fd = cgroup_open_dir(w->ctx, subtree);
	if (fd < 0)
		return fd == -ENOTDIR ? -ENOENT : fd;
	{
		struct statfs sfs;
		struct stat st;

		w->kernfs = fstatfs(fd, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC &&
			    fstat(fd, &st) == 0;
		if (w->kernfs)
			w->kernfs_dev = st.st_dev;
	}
	if (w->intern) {
		path = cgpath_new(subtree, strlen(subtree));
		if (!path)
			return -ENOMEM;
	}
	r = walk_rec(w, fd, subtree, path, 0);
	cgpath_unref(path);
	if (r < 0)
		return r;
	if (w->skipped > 1)
		warn(w->ctx, "%u subtrees below %s skipped in all", w->skipped, subtree);
	return 0;
}

_public_ int tier_cgroup_enumerate(struct tier_ctx *ctx, const char *subtree, char ***ret_paths,
				   size_t *ret_n)
{
	struct walk w = { .ctx = ctx, .visit = visit_enumerate };
	int r;

	if (!ctx || !ret_paths)
		return -EINVAL;
	r = walk_tree(&w, subtree);
	if (r < 0) {
		tier_strv_free(w.out);
		return r;
	}
	if (!w.out) {
		w.out = calloc(1, sizeof(char *));
		if (!w.out)
			return -ENOMEM;
	}
	*ret_paths = w.out;
	if (ret_n)
		*ret_n = w.n;
	return 0;
}

/* --- unit names --- */

/*
 * systemd's unit_name_is_valid() (src/basic/unit-name.c) for one path
 * component of len bytes, after cg_unescape() (a leading '_' that
 * cg_escape() added is dropped): PLAIN "prefix.type" always, INSTANCE
 * "prefix@instance.type" with allow_instance; the prefix of [A-Za-z0-9:_.\-]
 * (and '@' once), a known unit type, shorter than UNIT_NAME_MAX (256).
 * *ret_slice: the type is slice.
 */
static bool unit_name_valid(const char *s, size_t len, bool allow_instance, bool *ret_slice)
{
	static const char *const types[] = { "service", "socket",  "target", "device",
					     "mount",	"automount", "swap",   "timer",
					     "path",	"slice",   "scope" };
	const char *dot = NULL, *at = NULL;
	size_t tl;
	bool known = false;

	if (len > 0 && s[0] == '_') {
		s++;
		len--;
	}
	if (len == 0 || len >= 256)
		return false;
	for (size_t i = len; i > 0; i--)
		if (s[i - 1] == '.') {
			dot = s + i - 1;
			break;
		}
	if (!dot || dot == s)
		return false;
	tl = len - (size_t)(dot + 1 - s);
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (strlen(types[i]) == tl && memcmp(dot + 1, types[i], tl) == 0) {
			known = true;
			*ret_slice = strcmp(types[i], "slice") == 0;
			break;
		}
	if (!known)
		return false;
	for (const char *c = s; c < dot; c++) {
		if (*c == '@' && !at)
			at = c;
		else if (!(isascii((unsigned char)*c) && isalnum((unsigned char)*c)) &&
			 !strchr(":-_.\\", *c))
			return false;
	}
	if (at == s)
		return false;
	if (!at)
		return true;
	return allow_instance && dot > at + 1;
}

/*
 * As systemd's cg_path_get_unit() (src/basic/cgroup-util.c): skip the
 * components that are slice names from the root (skip_slices()), then the
 * next component must be a unit name that is not a slice
 * (cg_path_decode_unit()); and, where systemd would say -ENXIO because the
 * path is all slices, the innermost slice (cg_path_get_slice()).  So a
 * path that does not start with systemd's own slices has no unit, however
 * its components are named: "/docker/ID/mariadb.service",
 * "/lxc.payload.c1/system.slice/mariadb.service" and
 * "/kubepods/burstable/pod1/x.service" are no unit's, and the units of a
 * user's manager (below user@UID.service) are not derived either: the
 * cgroup belongs to user@UID.service of the system manager.
 */
_public_ int tier_cgroup_path_unit(const char *path, char **ret_unit)
{
	const char *p = path, *slice = NULL;
	size_t slice_len = 0, l;
	bool is_slice = false;

	if (!path || !ret_unit)
		return -EINVAL;
	for (;;) {
		while (*p == '/')
			p++;
		l = strcspn(p, "/");
		if (l < 7 || !unit_name_valid(p, l, false, &is_slice) || !is_slice)
			break;
		slice = p;
		slice_len = l;
		p += l;
	}
	if (l > 0 && unit_name_valid(p, l, true, &is_slice) && !is_slice) {
		slice = p;
		slice_len = l;
	} else if (l > 0 || !slice) {
		return -ENXIO;
	}
	if (*slice == '_') {
		slice++;
		slice_len--;
	}
	*ret_unit = strndup(slice, slice_len);
	return *ret_unit ? 0 : -ENOMEM;
}

/* --- observe --- */

struct strv_item {
	char *s;
	size_t i;
};

static int strv_item_cmp(const void *a, const void *b)
{
	const struct strv_item *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * Drop the repeats of the NULL-terminated strv of n strings, keeping the
 * first of each in its place: sorted once (O(n log n)); a cgroup with
 * 40,000 processes made the pairwise check seconds of CPU per observe.
 */
static int strv_uniq_stable(char **strv, size_t n)
{
	_cleanup_free_ struct strv_item *v = NULL;
	size_t k = 0;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct strv_item){ .s = strv[i], .i = i };
	qsort(v, n, sizeof(*v), strv_item_cmp);
	/* Each run of equal strings starts with the first one in strv: kept. */
	for (size_t j = 1, first = 0; j < n; j++) {
		if (strcmp(v[j].s, v[first].s) != 0) {
			first = j;
			continue;
		}
		free(strv[v[j].i]);
		strv[v[j].i] = NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (strv[i])
			strv[k++] = strv[i];
	strv[k] = NULL;
	return 0;
}

/* The observe helpers work on an open cgroup directory: one path walk per
 * cgroup instead of one per file. */
int observe_exes(struct tier_ctx *ctx, int dfd, unsigned rflags, char ***ret)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ int *pids = NULL;
	char **exes = NULL;
	size_t n = 0, alloc = 0, np = 0;
	int r;

	r = sysfs_read_flags(dfd, "cgroup.procs", READ_NOFOLLOW | rflags, &buf);
	if (r < 0)
		return r;
	r = parse_pids(buf, &pids, &np);
	if (r < 0)
		return r;
	for (size_t i = 0; i < np; i++) {
		char *exe;

		r = tier_pid_exe(ctx, pids[i], &exe);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			continue; /* kernel thread, exited, no permission */
		r = strv_push(&exes, &n, &alloc, exe);
		if (r < 0) {
			free(exe);
			goto fail;
		}
	}
	r = strv_uniq_stable(exes, n);
	if (r < 0)
		goto fail;
	*ret = exes;
	return 0;
fail:
	tier_strv_free(exes);
	return r;
}

/* ------------------------------------------------------------------------
 * Annotation records (tier-internal.h): what tierd-oci-hook recorded for a
 * cgroup where a reader without CAP_SYS_ADMIN finds it
 * ------------------------------------------------------------------------ */

const char *tier_annotation_dir(void)
{
	const char *fake = secure_getenv(TIER_FAKE_CGROUP_ENV), *dir;

	/* a fake tree never reads or writes the host's records */
	if (fake && strcmp(fake, "1") == 0) {
		dir = secure_getenv(TIER_ANNOTATION_DIR_ENV);
		return dir && *dir ? dir : NULL;
	}
	return TIER_ANNOTATION_DIR;
}

/* Written by root (or by ourselves) and by nobody else since. */
static bool record_stat_trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The records' directory, itself trusted (not a symlink, owned by root or
 * us, writable by nobody else); with create, made (0700, and its missing
 * parents) first.  -EPERM if it is not trusted. */
static int record_dir_open(bool create)
{
	const char *dir = tier_annotation_dir();
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (!dir)
		return -ENOENT;
	if (create && dir[0] == '/') {
		_cleanup_free_ char *p = strdup(dir);

		if (!p)
			return -ENOMEM;
		for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
			if (s)
				*s = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST)
				return negative_errno();
			if (!s)
				break;
			*s = '/';
		}
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!record_stat_trusted(&st))
		return -EPERM;
	return TAKE_FD(fd);
}

/* The record name@dirfd if it is trusted (a regular file with one link,
 * see record_stat_trusted()), its content NUL-terminated: 0; -ENOENT if
 * there is none, -EPERM if it is not trusted (left alone), -EFBIG. */
static int record_read(int dirfd, const char *name, char **ret_buf)
{
	_cleanup_close_ int fd = -1;
	char *buf;
	struct stat st;
	size_t size;
	int r;

	fd = open_regular_at(dirfd, name, O_RDONLY, READ_NOFOLLOW);
	if (fd < 0)
		return fd == -ELOOP || fd == -EBADFD || fd == -EISDIR ? -EPERM : fd;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!record_stat_trusted(&st) || st.st_nlink != 1)
		return -EPERM;
	r = read_fd_max(fd, TIER_ANNOTATION_RECORD_MAX, &buf, &size);
	if (r < 0)
		return r;
	if (memchr(buf, '\0', size)) {
		free(buf);
		return -EBADMSG;
	}
	*ret_buf = buf;
	return 0;
}

/* "KEY=VALUE" lines of the record of the cgroup directory dfd, pushed unless
 * the key is among the first n_xattr entries (a trusted.* xattr, when
 * readable, wins). */
static int record_annotations(int dfd, struct observe_walk *ow, char ***strv, size_t *n,
			      size_t *alloc)
{
	_cleanup_close_ int own_dirfd = -1;
	_cleanup_free_ char *buf = NULL;
	char name[24];
	struct stat own_st;
	const struct stat *st = ow ? ow->st : NULL;
	size_t n_xattr = *n;
	char *line, *nl;
	int dirfd, r;

	if (!st) {
		if (fstat(dfd, &own_st) < 0)
			return negative_errno();
		st = &own_st;
	}
	if (!ow) {
		dirfd = own_dirfd = record_dir_open(false);
	} else {
		/* once per walk: the directory, or why there is none */
		if (ow->record_dirfd == OBSERVE_WALK_UNOPENED)
			ow->record_dirfd = record_dir_open(false);
		dirfd = ow->record_dirfd;
	}
	if (dirfd < 0)
		return dirfd == -ENOMEM ? dirfd : 0;
	snprintf(name, sizeof(name), "%llu", (unsigned long long)st->st_ino);
	r = record_read(dirfd, name, &buf);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	/* the first line is the cgroup's path, for pruning */
	line = strchr(buf, '\n');
	for (line = line ? line + 1 : NULL; line && *line; line = nl ? nl + 1 : NULL) {
		const char *eq;
		bool dup = false;
		char *kv;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		eq = strchr(line, '=');
		if (!eq || eq == line)
			continue;
		for (size_t i = 0; i < n_xattr && !dup; i++)
			dup = strncmp((*strv)[i], line, (size_t)(eq - line + 1)) == 0;
		if (dup)
			continue;
		kv = strdup(line);
		if (!kv)
			return -ENOMEM;
		r = strv_push(strv, n, alloc, kv);
		if (r < 0) {
			free(kv);
			return r;
		}
	}
	return 0;
}

int tier_annotation_record_write(int dfd, const char *path, const char *key, const char *value)
{
	_cleanup_close_ int dirfd = -1, fd = -1;
	_cleanup_free_ char *data = NULL;
	char name[24], tmp[64];
	struct stat st;
	int len, r;

	if (dfd < 0 || !path || path[0] != '/' || strchr(path, '\n') || !key || !*key ||
	    strpbrk(key, "=\n") || !value || strchr(value, '\n'))
		return -EINVAL;
	if (fstat(dfd, &st) < 0)
		return negative_errno();
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	len = asprintf(&data, "%s\n%s=%s\n", path, key, value);
	if (len < 0) {
		data = NULL;
		return -ENOMEM;
	}
	if ((size_t)len > TIER_ANNOTATION_RECORD_MAX)
		return -E2BIG;
	dirfd = record_dir_open(true);
	if (dirfd < 0)
		return dirfd;
	snprintf(name, sizeof(name), "%llu", (unsigned long long)st.st_ino);
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	(void)unlinkat(dirfd, tmp, 0);	/* a left-over of our pid */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	for (ssize_t off = 0, w; off < len; off += w) {
		w = write(fd, data + off, (size_t)(len - off));
		if (w < 0 && errno == EINTR) {
			w = 0;
			continue;
		}
		if (w <= 0) {
			r = w < 0 ? negative_errno() : -EIO;
			(void)unlinkat(dirfd, tmp, 0);
			return r;
		}
	}
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		r = negative_errno();
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	return 0;
}

int tier_annotation_records_prune(struct tier_ctx *ctx)
{
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_close_ int dirfd = -1;
	struct dirent *de;
	int fd, n = 0;

	if (!ctx)
		return -EINVAL;
	dirfd = record_dir_open(false);
	if (dirfd < 0)
		return dirfd == -ENOENT ? 0 : dirfd;
	fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return negative_errno();
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return negative_errno();
	}
	while ((errno = 0, de = readdir(d))) {
		_cleanup_free_ char *buf = NULL;
		_cleanup_close_ int cg = -1;
		unsigned long long ino;
		struct stat st;
		char *end, *nl;
		int r;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		ino = strtoull(de->d_name, &end, 10);
		if (errno || *end)
			continue;
		r = record_read(dirfd, de->d_name, &buf);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;	/* not ours to judge */
		nl = strchr(buf, '\n');
		if (!nl)
			continue;
		*nl = '\0';
		r = tier_cgroup_open(ctx, buf, &cg);
		if (r == -ENOMEM)
			return r;
		if (r == 0 && fstat(cg, &st) == 0 && (unsigned long long)st.st_ino == ino)
			continue;
		if (r < 0 && r != -ENOENT && r != -ENOTDIR)
			continue;	/* cannot tell */
		if (unlinkat(dirfd, de->d_name, 0) == 0)
			n++;
	}
	return errno ? negative_errno() : n;
}

int observe_annotations(int dfd, struct observe_walk *ow, char ***ret)
{
	_cleanup_free_ char *names = NULL;
	char **out = NULL;
	size_t n = 0, alloc = 0;
	ssize_t len;
	int r;

	len = flistxattr(dfd, NULL, 0);
	if (len < 0 && errno != ENOTSUP)
		return negative_errno();
	if (len > 0) {
		names = malloc((size_t)len + 1);
		if (!names)
			return -ENOMEM;
		len = flistxattr(dfd, names, (size_t)len);
		if (len < 0)
			return negative_errno();
		names[len] = '\0';
	}
	for (char *name = names; len > 0 && name < names + len; name += strlen(name) + 1) {
		_cleanup_free_ char *val = NULL;
		ssize_t vl;
		char *kv;

		/* Only root can write trusted.*: the owner of a delegated
		 * subtree can write user.* and must not pick its own class.
		 * Without CAP_SYS_ADMIN the kernel lists none of them. */
		if (strncmp(name, TRUSTED_PREFIX, strlen(TRUSTED_PREFIX)) != 0)
			continue;
		vl = fgetxattr(dfd, name, NULL, 0);
		if (vl < 0)
			continue;
		val = malloc((size_t)vl + 1);
		if (!val) {
			r = -ENOMEM;
			goto fail;
		}
		vl = fgetxattr(dfd, name, val, (size_t)vl);
		if (vl < 0)
			continue;
		val[vl] = '\0';
		if (asprintf(&kv, "%s=%s", name + strlen(TRUSTED_PREFIX), val) < 0) {
			r = -ENOMEM;
			goto fail;
		}
		r = strv_push(&out, &n, &alloc, kv);
		if (r < 0) {
			free(kv);
			goto fail;
		}
	}
	/* What the hook recorded where no capability is needed to read it. */
	r = record_annotations(dfd, ow, &out, &n, &alloc);
	if (r < 0)
		goto fail;
	*ret = out;
	return 0;
fail:
	tier_strv_free(out);
	return r;
}

/* A number or "max" from a file of dfd; -ENOENT if the file is missing. */
static int read_u64_flags_at(int dfd, const char *file, unsigned rflags, uint64_t *ret)
{
	_cleanup_free_ char *buf = NULL;
	int r;

	r = sysfs_read_flags(dfd, file, READ_NOFOLLOW | READ_SHORT_EOF | rflags, &buf);
	if (r < 0)
		return r;
	return parse_u64_or_max(buf, ret);
}

static int read_u64_at(int dfd, const char *file, uint64_t *ret)
{
	return read_u64_flags_at(dfd, file, 0, ret);
}

/*
 * What rules match on besides the path, read below the cgroup's directory
 * dfd: the unit (from the path), with the flags the executables of its
 * processes and its trusted.* annotations.  -ENOMEM; with strict, also
 * -ENOENT/-ENODEV if the cgroup went away while its processes were read
 * (else a cgroup whose processes cannot be read just has no executables).
 */
static int observe_matched(struct tier_ctx *ctx, int dfd, struct observe_walk *ow,
			   const char *cgroup, struct tier_observed_cgroup *c, unsigned flags,
			   bool strict)
{
	char **strv = NULL;
	int r;

	r = tier_cgroup_path_unit(cgroup, &c->unit);
	if (r == -ENOMEM)
		return r;
	if (flags & TIER_OBSERVE_EXE) {
		r = observe_exes(ctx, dfd, ow ? ow->rflags : 0, &strv);
		if (r == -ENOMEM || (strict && (r == -ENOENT || r == -ENODEV)))
			return r;
		if (r >= 0)
			observed_cgroup_take_exes(c, strv);
	}
	if (flags & TIER_OBSERVE_ANNOTATIONS) {
		strv = NULL;
		r = observe_annotations(dfd, ow, &strv);
		if (r == -ENOMEM)
			return r;
		if (r >= 0)
			observed_cgroup_take_annotations(c, strv);
	}
	return 0;
}

/* The current memory.numa_balancing of the cgroup dfd into c; -ENOMEM. */
static int observe_mode_at(int dfd, unsigned rflags, struct tier_observed_cgroup *c)
{
	_cleanup_free_ char *mode = NULL;
	int r;

	r = sysfs_read_flags(dfd, "memory.numa_balancing", READ_NOFOLLOW | READ_SHORT_EOF | rflags,
			     &mode);
	if (r == -ENOMEM)
		return r;
	c->mode_supported = r >= 0 && tier_mode_from_string(strip(mode), &c->mode) >= 0;
	if (!c->mode_supported)
		c->mode = TIER_MODE_INHERIT;
	return 0;
}

/* Fill one observed cgroup from its open directory dfd. */
static int observe_at(struct tier_ctx *ctx, int dfd, struct observe_walk *ow, const char *cgroup,
		      struct tier_observed_cgroup *c, unsigned flags)
{
	uint64_t v;
	int r;

	r = observe_mode_at(dfd, ow->rflags, c);
	if (r < 0)
		return r;
	if (read_u64_flags_at(dfd, "memory.low", ow->rflags, &v) >= 0)
		c->memory_low = v;
	if (read_u64_flags_at(dfd, "memory.high", ow->rflags, &v) >= 0)
		c->memory_high = v;
	return observe_matched(ctx, dfd, ow, cgroup, c, flags, false);
}

static int visit_observe(struct walk *w, int dfd, const char *cgroup, struct cgpath *path)
{
	struct tier_observed_cgroup *c;
	int r;

	r = observed_add_path(w->obs, path, &c);
	if (r < 0)
		return r;
	r = observe_at(w->ctx, dfd, &w->ow, cgroup, c, w->flags);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* vanished (or unreadable): leave it out */
		dbg(w->ctx, "%s: %s, skipping", cgroup, strerror(-r));
		observed_drop_last(w->obs);
	}
	return 0;
}

_public_ int tier_observe(struct tier_ctx *ctx, const struct tier_topology *topo,
			  const char *subtree, unsigned flags, struct tier_observed **ret_observed)
{
	_cleanup_(tier_observed_freep) struct tier_observed *o = NULL;
	struct walk w = { .ctx = ctx, .visit = visit_observe, .flags = flags, .intern = true,
			  .ow.record_dirfd = OBSERVE_WALK_UNOPENED };
	int r;

	if (!ctx || !ret_observed)
		return -EINVAL;
	r = tier_observed_new(topo ? tier_topology_fast_capacity(topo) : 0, &o);
	if (r < 0)
		return r;
	w.obs = o;
	/* One walk by directory fds: each cgroup is read through the fd the
	 * walk opened (relative to its parent's), never by its path again. */
	r = walk_tree(&w, subtree);
	if (w.ow.record_dirfd >= 0)
		close(w.ow.record_dirfd);
	if (r < 0)
		return r;
	*ret_observed = TAKE_PTR(o);
	return 0;
}

/*
 * tier_plan_observe(): each cgroup decided as the walk reaches it.  The
 * observed cgroup lives for the visit only (its path is the walk's); the
 * values the entry sets are read after the decision, so a cgroup's files
 * are read once and only those an apply would read.
 */
static int visit_plan(struct walk *w, int dfd, const char *cgroup, struct cgpath *path)
{
	/* the current values are read after the decision, those the entry
	 * sets only; until then the kernel's defaults */
	struct tier_observed_cgroup c = {
		.path = path,
		.mode_supported = true,
		.mode = TIER_MODE_INHERIT,
		.memory_high = UINT64_MAX,
	};
	struct tier_plan_entry *e = NULL;
	uint64_t v;
	int r;

	r = observe_matched(w->ctx, dfd, &w->ow, cgroup, &c, w->flags, false);
	if (r >= 0)
		r = plan_decide(w->plan, &c, &w->sc, &e);
	if (r >= 0 && e->set[TIER_ATTR_NUMA_BALANCING]) {
		struct tier_observed_cgroup k = { .mode = TIER_MODE_INHERIT };

		r = observe_mode_at(dfd, w->ow.rflags, &k);
		e->mode_supported = k.mode_supported;
		e->current[TIER_ATTR_NUMA_BALANCING] = (uint64_t)k.mode;
		/* a knob that is missing or unreadable is read again by an
		 * apply, which tells why */
		if (k.mode_supported)
			e->current_read |= 1u << TIER_ATTR_NUMA_BALANCING;
	}
	if (r >= 0 && e->set[TIER_ATTR_MEMORY_LOW] &&
	    read_u64_flags_at(dfd, "memory.low", w->ow.rflags, &v) >= 0) {
		e->current[TIER_ATTR_MEMORY_LOW] = v;
		e->current_read |= 1u << TIER_ATTR_MEMORY_LOW;
	}
	if (r >= 0 && e->set[TIER_ATTR_MEMORY_HIGH] &&
	    read_u64_flags_at(dfd, "memory.high", w->ow.rflags, &v) >= 0) {
		e->current[TIER_ATTR_MEMORY_HIGH] = v;
		e->current_read |= 1u << TIER_ATTR_MEMORY_HIGH;
	}
	free(c.unit);
	tier_strv_free(c.exes);
	tier_strv_free(c.annotations);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	/* the caller's turn, the directory still open */
	return w->plan_visit ? w->plan_visit(w->plan_userdata, e, dfd) : 0;
}

_public_ int tier_plan_observe(struct tier_plan *plan, struct tier_ctx *ctx, const char *subtree,
			       unsigned flags, tier_plan_visit_fn visit, void *userdata)
{
	struct walk w = { .ctx = ctx, .visit = visit_plan, .flags = flags, .intern = true,
			  .plan = plan, .plan_visit = visit, .plan_userdata = userdata,
			  .ow.record_dirfd = OBSERVE_WALK_UNOPENED };
	int r;

	if (!plan || !ctx || (flags & ~(TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS)))
		return -EINVAL;
	r = walk_tree(&w, subtree);
	if (w.ow.record_dirfd >= 0)
		close(w.ow.record_dirfd);
	update_scratch_done(&w.sc);
	return r;
}

_public_ int tier_observe_cgroup_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
				    const char *path, unsigned flags,
				    struct tier_observed **ret_observed)
{
	_cleanup_(tier_observed_freep) struct tier_observed *o = NULL;
	struct tier_observed_cgroup *c;
	int r;

	if (!ctx || dfd < 0 || !path || !cgroup_path_valid(path) || !ret_observed ||
	    (flags & ~(TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS)))
		return -EINVAL;
	r = tier_observed_new(topo ? tier_topology_fast_capacity(topo) : 0, &o);
	if (r >= 0)
		r = tier_observed_add(o, path, &c);
	if (r < 0)
		return r;
	/* Not read: the apply reads each value once.  The kernel's defaults
	 * (memory.low 0 and memory.high max are tier_observed_add()'s). */
	c->mode_supported = true;
	c->mode = TIER_MODE_INHERIT;
	r = observe_matched(ctx, dfd, NULL, path, c, flags, true);
	if (r < 0)
		return r;
	*ret_observed = TAKE_PTR(o);
	return 0;
}
