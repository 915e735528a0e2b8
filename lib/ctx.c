// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library context: roots, log hook, refcount. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "libtier-private.h"
#include "tier-internal.h"

void tier_log(const struct tier_ctx *ctx, int priority, const char *file, int line,
	      const char *fn, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ctx->log_fn(ctx->log_data, priority, file, line, fn, format, args);
	va_end(args);
}

static bool is_cgroup2(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

static bool fake_cgroup_allowed(void)
{
	const char *e = secure_getenv(TIER_FAKE_CGROUP_ENV);

	return e && strcmp(e, "1") == 0;
}

/* Unescape the octal escapes of /proc/self/mountinfo ("\040"). */
static void unescape_mount(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
}

/* Is word one of the sep-separated words of list? */
static bool word_in(const char *list, const char *word, char sep)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, word, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* 1 if dir/cgroup.controllers lists memory, 0 if not, -errno (-ENOENT: no such file). */
static int controllers_have_memory(const char *dir)
{
	_cleanup_close_ int dfd = -1;
	_cleanup_free_ char *buf = NULL;
	int r;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = read_file_at_max(dfd, "cgroup.controllers", 4096, READ_NOFOLLOW, &buf, NULL);
	if (r < 0)
		return r;
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return word_in(buf, "memory", ' ');
}

/* What /proc/self/mountinfo says about cgroups. */
struct cgroup_mounts {
	char *first;		/* the first cgroup2 mount point */
	char *memory;		/* the first cgroup2 mount point with the memory controller */
	bool v1_memory;		/* the memory controller is mounted as cgroup v1 */
};

static void cgroup_mounts_done(struct cgroup_mounts *m)
{
	free(m->first);
	free(m->memory);
}

/* <procfs_root>/self/mountinfo, whole (read_file_full(): seq_file ends a read
 * early when its page is full). */
static int mountinfo_read(const char *procfs_root, char **ret)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = path_join(&path, procfs_root ?: "/proc", "self/mountinfo", NULL);
	if (r < 0)
		return r;
	return read_file_full(path, ret, NULL);
}

/*
 * One line of mountinfo, split in place: its filesystem type, its mount
 * point (unescaped) and its superblock options.  -EINVAL for a line that
 * does not have the fields.
 */
static int mountinfo_split(char *line, const char **ret_fstype, char **ret_point,
			   const char **ret_superopts)
{
	char *sep = strstr(line, " - ");
	char *f[5], *fstype, *src, *tok, *save = NULL;
	const char *superopts;
	int i = 0;

	if (!sep)
		return -EINVAL;
	*sep = '\0';
	fstype = sep + 3;
	src = strchr(fstype, ' ');
	if (!src)
		return -EINVAL;
	*src++ = '\0';
	superopts = strchr(src, ' ');
	for (tok = strtok_r(line, " ", &save); tok && i < 5; tok = strtok_r(NULL, " ", &save))
		f[i++] = tok;
	if (i < 5)
		return -EINVAL;
	unescape_mount(f[4]);
	*ret_fstype = fstype;
	*ret_point = f[4];
	*ret_superopts = superopts ? superopts + 1 : "";
	return 0;
}

/*
 * id parent maj:min root mountpoint opts [optional...] - fstype source superopts
 * (proc_pid_mountinfo(5)); spaces in the fields are escaped as \040, so " - "
 * separates the halves.  want_memory: look at each cgroup2 mount's controllers.
 */
static int cgroup_mounts_scan(const char *procfs_root, bool want_memory, struct cgroup_mounts *m)
{
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	int r;

	*m = (struct cgroup_mounts){};
	r = mountinfo_read(procfs_root, &buf);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *fstype, *superopts;
		char *point;

		if (mountinfo_split(line, &fstype, &point, &superopts) < 0)
			continue;
		if (strcmp(fstype, "cgroup") == 0) {
			if (word_in(superopts, "memory", ','))
				m->v1_memory = true;
			continue;
		}
		if (strcmp(fstype, "cgroup2") != 0)
			continue;
		if (!m->first) {
			m->first = strdup(point);
			if (!m->first)
				return -ENOMEM;
		}
		if (!want_memory)
			break;
		if (!m->memory && controllers_have_memory(point) > 0) {
			m->memory = strdup(point);
			if (!m->memory)
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Does the cgroup2 mount at mount_point carry the superblock option option
 * (e.g. "memory_tiered_limits")?  1 or 0; -ENOENT when mountinfo has no
 * cgroup2 mount there (a fake tree); -errno when it cannot be read.  The
 * last mount on the path counts: it is the one covering it.
 */
int tier_cgroup_mount_has_option(const char *procfs_root, const char *mount_point,
				 const char *option)
{
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	int r, found = -ENOENT;

	if (!mount_point || !option)
		return -EINVAL;
	r = mountinfo_read(procfs_root, &buf);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *fstype, *superopts;
		char *point;

		if (mountinfo_split(line, &fstype, &point, &superopts) < 0)
			continue;
		if (strcmp(fstype, "cgroup2") == 0 && strcmp(point, mount_point) == 0)
			found = word_in(superopts, option, ',');
	}
	return found;
}

bool tier_ctx_toptier_counted(struct tier_ctx *ctx)
{
	if (!ctx)
		return true;
	if (!ctx->toptier_known) {
		int r = tier_cgroup_mount_has_option(ctx->procfs_root, ctx->cgroup_root,
						     "memory_tiered_limits");

		/* Only a cgroup2 mount seen without the option says no: a
		 * fake tree or an unreadable mountinfo keeps the key. */
		ctx->toptier_counted = r != 0;
		ctx->toptier_known = true;
	}
	return ctx->toptier_counted;
}

void tier_ctx_mounts_changed(struct tier_ctx *ctx)
{
	if (ctx)
		ctx->toptier_known = false;
}

/* The first cgroup2 mount point of mountinfo (-ENOENT if none). */
int discover_cgroup_mountinfo(const char *procfs_root, char **ret)
{
	struct cgroup_mounts m;
	int r;

	r = cgroup_mounts_scan(procfs_root, false, &m);
	if (r >= 0 && !m.first)
		r = -ENOENT;
	if (r >= 0) {
		*ret = m.first;
		m.first = NULL;
	}
	cgroup_mounts_done(&m);
	return r;
}

_printf_(3, 4) static int root_why(char **ret_why, int r, const char *fmt, ...)
{
	va_list ap;

	if (!ret_why)
		return r;
	va_start(ap, fmt);
	if (vasprintf(ret_why, fmt, ap) < 0)
		*ret_why = NULL;
	va_end(ap);
	return r;
}

static int check_given_root(const char *root, char **ret_why)
{
	bool fake = fake_cgroup_allowed();
	struct stat st;
	int r;

	if (stat(root, &st) < 0)
		return root_why(ret_why, -errno, "cgroup root %s: %s", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return root_why(ret_why, -ENOTDIR, "cgroup root %s is not a directory", root);
	if (!fake && !is_cgroup2(root))
		return root_why(ret_why, -EMEDIUMTYPE,
				"cgroup root %s is not a cgroup2 filesystem: give the cgroup2 "
				"mount point (grep cgroup2 /proc/self/mountinfo), or leave the "
				"root out to have it found", root);
	r = controllers_have_memory(root);
	if (r == 0)
		return root_why(ret_why, -ENXIO,
				"the memory controller is not on cgroup v2 at %s (its "
				"cgroup.controllers lacks memory; on cgroup v1 in a hybrid "
				"layout, or not enabled in the parent's cgroup.subtree_control): "
				"tierd needs it on cgroup v2", root);
	if (r == -ENOENT && fake)
		return 0;
	if (r < 0)
		return root_why(ret_why, r, "cgroup root %s: cannot read cgroup.controllers: %s",
				root, strerror(-r));
	return 0;
}

int tier_cgroup_root_find(const char *root, const char *procfs_root, char **ret_root,
			  char **ret_why)
{
	struct cgroup_mounts m;
	_cleanup_free_ char *mountinfo = NULL;
	char *found;
	int r;

	if (ret_why)
		*ret_why = NULL;
	if (!ret_root)
		return -EINVAL;
	if (root) {
		r = check_given_root(root, ret_why);
		if (r < 0)
			return r;
		found = strdup(root);
		if (!found)
			return -ENOMEM;
		*ret_root = found;
		return 0;
	}

	r = path_join(&mountinfo, procfs_root ?: "/proc", "self/mountinfo", NULL);
	if (r < 0)
		return r;
	r = cgroup_mounts_scan(procfs_root ?: "/proc", true, &m);
	if (r < 0) {
		cgroup_mounts_done(&m);
		if (r == -ENOMEM)
			return r;
		return root_why(ret_why, r, "cannot read %s: %s", mountinfo, strerror(-r));
	}
	if (m.memory) {
		*ret_root = m.memory;
		m.memory = NULL;
		r = 0;
	} else if (m.first && m.v1_memory) {
		r = root_why(ret_why, -ENXIO,
			     "the memory controller is on cgroup v1 (hybrid layout: the cgroup2 "
			     "mount %s has no memory controller): tierd needs it on cgroup v2 "
			     "(boot with systemd.unified_cgroup_hierarchy=1)", m.first);
	} else if (m.first) {
		r = root_why(ret_why, -ENXIO,
			     "the cgroup2 mount %s has no memory controller (its "
			     "cgroup.controllers lacks memory): tierd needs it on cgroup v2",
			     m.first);
	} else if (m.v1_memory) {
		r = root_why(ret_why, -ENOENT,
			     "no cgroup2 filesystem is mounted and the memory controller is on "
			     "cgroup v1 (legacy layout): tierd needs it on cgroup v2 (boot with "
			     "systemd.unified_cgroup_hierarchy=1)");
	} else {
		r = root_why(ret_why, -ENOENT,
			     "no cgroup2 filesystem in %s: mount one (mount -t cgroup2 none "
			     "/sys/fs/cgroup) or give its mount point as the cgroup root",
			     mountinfo);
	}
	cgroup_mounts_done(&m);
	return r;
}

_public_ int tier_ctx_new(const char *cgroup_root, const char *sysfs_root, const char *procfs_root,
			  struct tier_ctx **ret_ctx)
{
	struct tier_ctx *ctx;
	const char *env;
	int r;

	if (!ret_ctx)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	ctx->log_priority = LOG_ERR;
	env = secure_getenv("TIER_LOG");
	if (env)
		(void)log_level_from_string(env, &ctx->log_priority);

	ctx->sysfs_root = strdup(sysfs_root ?: "/sys");
	ctx->procfs_root = strdup(procfs_root ?: "/proc");
	if (!ctx->sysfs_root || !ctx->procfs_root) {
		r = -ENOMEM;
		goto fail;
	}
	if (cgroup_root) {
		ctx->cgroup_root = strdup(cgroup_root);
		if (!ctx->cgroup_root) {
			r = -ENOMEM;
			goto fail;
		}
	} else {
		_cleanup_free_ char *why = NULL;

		r = tier_cgroup_root_find(NULL, ctx->procfs_root, &ctx->cgroup_root, &why);
		if (r < 0) {
			dbg(ctx, "%s", why ?: strerror(-r));
			goto fail;
		}
	}
	*ret_ctx = ctx;
	return 0;
fail:
	free(ctx->cgroup_root);
	free(ctx->sysfs_root);
	free(ctx->procfs_root);
	free(ctx);
	return r;
}

_public_ struct tier_ctx *tier_ctx_ref(struct tier_ctx *ctx)
{
	if (ctx)
		ctx->refcount++;
	return ctx;
}

_public_ struct tier_ctx *tier_ctx_unref(struct tier_ctx *ctx)
{
	if (!ctx)
		return NULL;
	if (--ctx->refcount > 0)
		return NULL;
	free(ctx->cgroup_root);
	free(ctx->sysfs_root);
	free(ctx->procfs_root);
	free(ctx);
	return NULL;
}

_public_ void tier_ctx_set_log_fn(struct tier_ctx *ctx, tier_log_fn fn, void *data)
{
	ctx->log_fn = fn;
	ctx->log_data = data;
}

_public_ void tier_ctx_set_log_priority(struct tier_ctx *ctx, int priority)
{
	ctx->log_priority = priority;
}

_public_ int tier_ctx_get_log_priority(const struct tier_ctx *ctx)
{
	return ctx->log_priority;
}

_public_ void tier_ctx_set_userdata(struct tier_ctx *ctx, void *userdata)
{
	ctx->userdata = userdata;
}

_public_ void *tier_ctx_get_userdata(const struct tier_ctx *ctx)
{
	return ctx->userdata;
}

_public_ const char *tier_ctx_get_cgroup_root(const struct tier_ctx *ctx)
{
	return ctx->cgroup_root;
}

_public_ const char *tier_ctx_get_sysfs_root(const struct tier_ctx *ctx)
{
	return ctx->sysfs_root;
}

_public_ const char *tier_ctx_get_procfs_root(const struct tier_ctx *ctx)
{
	return ctx->procfs_root;
}

/* --- modes --- */

static const char *const mode_names[_TIER_MODE_MAX] = {
	[TIER_MODE_INHERIT] = "inherit",
	[TIER_MODE_FULL] = "full",
	[TIER_MODE_PROMOTE] = "promote",
	[TIER_MODE_OFF] = "off",
};

_public_ const char *tier_mode_to_string(enum tier_mode mode)
{
	if ((int)mode < 0 || mode >= _TIER_MODE_MAX)
		return NULL;
	return mode_names[mode];
}

_public_ int tier_mode_from_string(const char *s, enum tier_mode *ret_mode)
{
	if (!s)
		return -EINVAL;
	for (int i = 0; i < _TIER_MODE_MAX; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*ret_mode = (enum tier_mode)i;
			return 0;
		}
	return -EINVAL;
}

_public_ enum tier_mode tier_mode_restrict(enum tier_mode a, enum tier_mode b)
{
	/* inherit < full < promote < off in restrictiveness order */
	static const int rank[_TIER_MODE_MAX] = {
		[TIER_MODE_INHERIT] = 0,
		[TIER_MODE_FULL] = 1,
		[TIER_MODE_PROMOTE] = 2,
		[TIER_MODE_OFF] = 3,
	};

	if ((int)a < 0 || a >= _TIER_MODE_MAX)
		return b;
	if ((int)b < 0 || b >= _TIER_MODE_MAX)
		return a;
	return rank[a] >= rank[b] ? a : b;
}
