// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library context: roots, log hook, refcount. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include <libcgroup.h>

#include "libtier-private.h"

void tier_log(const struct tier_ctx *ctx, int priority, const char *file, int line,
	      const char *fn, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	ctx->log_fn(ctx->log_data, priority, file, line, fn, format, args);
	va_end(args);
}

/* libcgroup's ECG* codes to -errno at the boundary. */
static int cgroup_error_to_errno(int r)
{
	switch (r) {
	case 0:
		return 0;
	case ECGOTHER:
		return -cgroup_get_last_errno() ?: -EIO;
	case ECGROUPNOTMOUNTED:
	case ECGROUPSUBSYSNOTMOUNTED:
	case ECGROUPNOTEXIST:
		return -ENOENT;
	case ECGROUPNOTALLOWED:
	case ECGROUPNOTOWNER:
		return -EPERM;
	case ECGINVAL:
		return -EINVAL;
	case ECGROUPNOTINITIALIZED:
		return -ENXIO;
	default:
		return -EIO;
	}
}

static bool is_cgroup2(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

static void cgroup_logger_forward(void *userdata, int level, const char *fmt, va_list ap)
{
	struct tier_ctx *ctx = userdata;
	int prio = level <= CGROUP_LOG_ERROR ? LOG_ERR : level == CGROUP_LOG_WARNING ? LOG_WARNING :
		   level == CGROUP_LOG_INFO ? LOG_INFO : LOG_DEBUG;

	/* libcgroup's errors during discovery are not ours: demote them */
	if (prio < LOG_DEBUG)
		prio = LOG_DEBUG;
	if (ctx && ctx->log_fn && prio <= ctx->log_priority)
		ctx->log_fn(ctx->log_data, prio, __FILE__, __LINE__, "libcgroup", fmt, ap);
}

static void cgroup_logger_silent(void *userdata, int level, const char *fmt, va_list ap)
{
}

/* cgroup2 mount point via libcgroup (memory controller). */
static int discover_cgroup_libcgroup(struct tier_ctx *ctx, char **ret)
{
	char *mnt = NULL;
	int r;

	/* libcgroup prints to stdout unless a logger is set: the library never prints */
	cgroup_set_logger(cgroup_logger_forward, CGROUP_LOG_DEBUG, ctx);
	r = cgroup_error_to_errno(cgroup_init());
	if (r >= 0)
		r = cgroup_error_to_errno(cgroup_get_subsys_mount_point("memory", &mnt));
	cgroup_set_logger(cgroup_logger_silent, CGROUP_LOG_ERROR, NULL);
	if (r < 0)
		return r;
	if (!mnt)
		return -ENOENT;
	/* on a hybrid (v1 + v2) host libcgroup returns the v1 memory hierarchy */
	if (!is_cgroup2(mnt)) {
		dbg(ctx, "libcgroup's memory mount %s is not cgroup2", mnt);
		free(mnt);
		return -ENOENT;
	}
	*ret = mnt;
	return 0;
}

/* Unescape the octal escapes of /proc/self/mountinfo ("\040"). */
static void unescape_mount(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
}

int discover_cgroup_mountinfo(const char *procfs_root, char **ret)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	char *line, *save = NULL;
	int r;

	r = path_join(&path, procfs_root, "self/mountinfo", NULL);
	if (r < 0)
		return r;
	r = read_file_full(path, &buf, NULL);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype src superopts */
		char *sep = strstr(line, " - ");
		char *f[5], *tok, *s2 = NULL;
		int i = 0;

		if (!sep)
			continue;
		if (strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &s2); tok && i < 5; tok = strtok_r(NULL, " ", &s2))
			f[i++] = tok;
		if (i < 5)
			continue;
		unescape_mount(f[4]);
		*ret = strdup(f[4]);
		return *ret ? 0 : -ENOMEM;
	}
	return -ENOENT;
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
		r = discover_cgroup_libcgroup(ctx, &ctx->cgroup_root);
		if (r < 0) {
			dbg(ctx, "libcgroup found no cgroup2 mount (%s), reading mountinfo",
			    strerror(-r));
			r = discover_cgroup_mountinfo(ctx->procfs_root, &ctx->cgroup_root);
			if (r < 0)
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
