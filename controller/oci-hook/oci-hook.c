// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd-oci-hook: an OCI runtime hook (createRuntime stage) that puts a new
 * container's cgroup into its tiering class before the container's process
 * runs.
 *
 *   tierd-oci-hook [--fail-open|--fail-closed] [--annotation KEY]
 *                  [--config FILE] [--cgroup-root DIR] [--procfs-root DIR]
 *                  [--class NAME] [--allow-class NAME[,NAME...]] [--dry-run]
 *                  [--verbose]
 *                      < OCI state JSON
 *
 * 1. Reads the OCI state ({ociVersion, id, status, pid, bundle, annotations})
 *    from stdin (at most 1 MiB).
 * 2. The class is the value of the annotation KEY (default tierd.io/class)
 *    in the state's annotations (or, if the state has none, the bundle's
 *    config.json, a regular file of at most 16 MiB). No annotation: not
 *    our container, exit 0 quietly. With --class NAME the class is NAME:
 *    for one hooks.d file per class whose "when" matched the annotation
 *    (CRI-O matches the pod's annotations, which the container's state
 *    does not carry).
 * 3. Looks the class up in the policy (tier_policy_load(): tierd.conf and
 *    its drop-ins).
 * 4. Finds the container's own cgroup and nothing else (find_cgroup()):
 *    linux.cgroupsPath of config.json, plain ("/kubepods/burstable/podX/ID")
 *    or systemd ("SLICE:PREFIX:NAME" -> /a.slice/a-b.slice/PREFIX-NAME.scope);
 *    the "0::" line of /proc/PID/cgroup must agree with it (the init is in
 *    that cgroup or a child of it) and is used alone only when config.json
 *    names no cgroup, or names one relative to the runtime's. Refused: the
 *    root, a cgroup whose subtree holds any process but the container's
 *    init or more than SUBTREE_MAX cgroups (an ancestor shared with
 *    others), and any path with a symlink on the way (tier_cgroup_open()).
 * 5. Applies the class: memory.numa_balancing, and memory.low/memory.high if
 *    the class sets them, writing only what differs, through the directory
 *    fd checked in step 4 (never by path again). Values the container's
 *    own configuration already decides win: a memory.* key in
 *    linux.resources.unified, or a memory.low/memory.high the runtime has
 *    already set (the container's reservation, kubelet memory QoS) are left
 *    alone. memory.min is never written.
 * 6. Records the class as the trusted.KEY xattr of the cgroup directory
 *    and in a root-owned record /run/tierd/annotations/INODE (best effort,
 *    through the directory's fd), which libtier reports as the annotation
 *    KEY=CLASS, so tierd's annotation rules see the same class: the xattr
 *    where tierd has CAP_SYS_ADMIN, the record where it has not (the
 *    shipped unit). Only root can write either; user.* is no longer read
 *    or written, as the owner of a delegated subtree could set it.
 *    Records of cgroups that are gone are removed.
 *
 * Every name, id, path and class from the input is escaped (text_escape_buf())
 * and cut to a bounded length in messages.
 *
 * Exit status: 0 on success, for a container without the annotation, and on
 * any error with --fail-open (the default; the error is still printed);
 * 1 on an error with --fail-closed (the runtime then refuses to start the
 * container); 2 for a bad command line. See tierd-oci-hook(8).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <tier.h>

#include "escape.h"
#include "tier-internal.h"
#include "macro.h"
#include "oci-parse.h"

#ifndef TIERD_VERSION
#define TIERD_VERSION "0.2.0"
#endif

#define PROG "tierd-oci-hook"
#define DEFAULT_ANNOTATION "tierd.io/class"
#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"
#define TRUSTED_PREFIX "trusted."

/* A new container's cgroup has its init and at most a child or two (crun's
 * "container"); more cgroups than this below it is not a new container. */
#define SUBTREE_MAX 64

/* One message line at most; an escaped value from the input at most
 * ESC_SIZE - 1 bytes ("..." where cut). */
#define MSG_MAX 4096
#define ESC_SIZE 256

/* s from the input, escaped for a message line (a buffer that lives until
 * the end of the enclosing block: use it in the msg() call itself). */
#define ESC(s) text_escape_buf((s) ? (s) : "(null)", (char[ESC_SIZE]){ 0 }, ESC_SIZE)

struct hook_opts {
	const char *annotation;
	const char *config;
	const char *cgroup_root;
	const char *proc_root;
	const char *allow;	/* comma-separated class names, NULL = any */
	const char *force_class; /* --class: the runtime matched the annotation */
	bool fail_closed;
	bool dry_run;
	bool verbose;
};

/* The container id for messages ("container ID: "), "" before it is known. */
static char msg_prefix[96];

_printf_(1, 2) static void msg(const char *fmt, ...)
{
	char line[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s%s\n", PROG, msg_prefix, line);
}

/* libtier's messages name cgroups from the input: escaped, bounded. */
_printf_(6, 0) static void log_hook(void *data, int priority, const char *file, int line,
				    const char *fn, const char *format, va_list args)
{
	char raw[1024], shown[MSG_MAX];

	vsnprintf(raw, sizeof(raw), format, args);
	fprintf(stderr, "%s: %slibtier: %s\n", PROG, msg_prefix,
		text_escape_buf(raw, shown, sizeof(shown)));
}

static bool class_allowed(const char *allow, const char *cls)
{
	size_t n = strlen(cls);

	if (!allow)
		return true;
	for (const char *p = allow; *p;) {
		const char *e = strchrnul(p, ',');

		if ((size_t)(e - p) == n && memcmp(p, cls, n) == 0)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

/* "latency, pinned, batch" for the unknown-class message. */
static char *class_list(const struct tier_policy *policy)
{
	size_t n = tier_policy_class_count(policy), size = 1;
	char *out;

	for (size_t i = 0; i < n; i++)
		size += strlen(tier_class_name(tier_policy_class(policy, i))) + 2;
	out = calloc(1, size);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, ", ");
		strcat(out, tier_class_name(tier_policy_class(policy, i)));
	}
	return out;
}

/* ------------------------------------------------------------------------
 * Which cgroup (see "WHICH CGROUP" in tierd-oci-hook(8))
 * ------------------------------------------------------------------------ */

/* *ret_why = the message; returns r, or -ENOMEM (and *ret_why NULL). */
_printf_(3, 4) static int set_why(char **ret_why, int r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret_why, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*ret_why = NULL;
		return -ENOMEM;
	}
	return r;
}

/*
 * The container's init's cgroup from <procfs>/PID/cgroup.  On failure a
 * negative errno and, but for -ENOMEM, why in *ret_why (for a message).
 */
static int init_cgroup(const struct hook_opts *o, int pid, char **ret_file, char **ret_path,
		       char **ret_why)
{
	_cleanup_free_ char *file = NULL, *data = NULL, *path = NULL;
	size_t len;
	int r;

	if (pid <= 0)
		return set_why(ret_why, -ESRCH, "the state has no pid");
	if (asprintf(&file, "%s/%d/cgroup", o->proc_root, pid) < 0)
		return -ENOMEM;
	r = read_regular_file(file, TIER_PROC_CGROUP_MAX, &data, &len);
	if (r == 0)
		r = tier_proc_cgroup_parse(data, len, &path);
	if (r == -ENOMEM)
		return r;
	if (r == 0) {
		*ret_file = TAKE_PTR(file);
		*ret_path = TAKE_PTR(path);
		return 0;
	}
	if (r == -ENODATA)
		return set_why(ret_why, r, "%s has no cgroup v2 (0::) line", ESC(file));
	if (r == -EINVAL)
		return set_why(ret_why, r, "%s: unusable path (outside our cgroup namespace?)",
			       ESC(file));
	if (r == -EBADFD)
		return set_why(ret_why, r, "%s: not a regular file", ESC(file));
	return set_why(ret_why, r, "%s: %s", ESC(file), strerror(-r));
}

/*
 * The cgroup the container is in, by what config.json says and where its
 * init is; only a path, not yet opened or checked (cgroup_open_own()).
 * Returns 0, or a negative errno after printing why: -ENOENT if nothing
 * says where it is, -EPERM if config.json and /proc disagree, -EINVAL,
 * -ENAMETOOLONG for a bad linux.cgroupsPath.
 */
static int find_cgroup(const struct hook_opts *o, const struct oci_state *st,
		       const struct oci_config *cfg, char **ret_cgroup)
{
	_cleanup_free_ char *from_config = NULL, *from_proc = NULL, *file = NULL;
	_cleanup_free_ char *why_proc = NULL, *cg = NULL;
	bool relative = false;
	int r, rp;

	if (cfg->cgroups_path) {
		r = cgroups_path_resolve(cfg->cgroups_path, &from_config, &relative);
		if (r == -ENOMEM)
			return r;
		if (r == -ENAMETOOLONG) {
			msg("linux.cgroupsPath '%s' is too long (a unit name over %d bytes, or "
			    "more than %d bytes)", ESC(cfg->cgroups_path), UNIT_NAME_MAX,
			    CGROUPS_PATH_MAX);
			return r;
		}
		if (r < 0) {
			msg("linux.cgroupsPath '%s' is malformed", ESC(cfg->cgroups_path));
			return -EINVAL;
		}
	}
	if (from_config && !relative && strcmp(from_config, "/") == 0) {
		msg("linux.cgroupsPath '%s' is the root cgroup: not touching it (it is "
		    "everybody's)", ESC(cfg->cgroups_path));
		return -EPERM;
	}
	rp = init_cgroup(o, st->pid, &file, &from_proc, &why_proc);
	if (rp == -ENOMEM)
		return rp;

	if (from_config && !relative) {
		/* What config.json names, if the init is there (or in a
		 * child); it cannot be checked without /proc. */
		if (rp == 0) {
			r = cgroup_config_match(from_config, false, from_proc, &cg);
			if (r == -ESRCH) {
				msg("linux.cgroupsPath '%s' names %s, but the container's init "
				    "(pid %d) is in %s (%s): not touching a cgroup that is not "
				    "the container's", ESC(cfg->cgroups_path), ESC(from_config),
				    st->pid, ESC(from_proc), ESC(file));
				return -EPERM;
			}
			if (r < 0)
				return r;
		} else {
			if (o->verbose)
				msg("cannot check where the container's init is: %s", why_proc);
			cg = TAKE_PTR(from_config);
		}
	} else if (from_config) {
		/* Relative: the runtime chose the parent; /proc says which. */
		if (rp < 0) {
			msg("cannot find the container's cgroup: linux.cgroupsPath '%s' is relative "
			    "to the runtime's cgroup; %s", ESC(cfg->cgroups_path), why_proc);
			return -ENOENT;
		}
		r = cgroup_config_match(from_config, true, from_proc, &cg);
		if (r == -ESRCH) {
			msg("the container's init (pid %d) is in %s (%s), which is not the relative "
			    "linux.cgroupsPath '%s' nor a child of it: not touching a cgroup that "
			    "is not the container's", st->pid, ESC(from_proc), ESC(file),
			    ESC(cfg->cgroups_path));
			return -EPERM;
		}
		if (r < 0)
			return r;
	} else {
		if (rp < 0) {
			msg("cannot find the container's cgroup: config.json has no "
			    "linux.cgroupsPath; %s", why_proc);
			return -ENOENT;
		}
		cg = TAKE_PTR(from_proc);
	}
	*ret_cgroup = TAKE_PTR(cg);
	return 0;
}

/*
 * Up to the first pid in dfd's cgroup.procs that is not pid: 0 if there is
 * none, 1 and it in *ret_other, -ENOENT if there is no cgroup.procs (not a
 * cgroup), or an errno.  One read: the kernel gives at least a page, and a
 * second line is always another process.
 */
static int procs_other(int dfd, int pid, long *ret_other)
{
	_cleanup_close_ int fd = -1;
	char buf[4096];
	struct stat st;
	ssize_t n;

	fd = openat(dfd, "cgroup.procs", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		char *end;
		long v;

		*nl = '\0';
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || *end)
			return -EBADMSG;
		if (v != pid) {
			*ret_other = v;
			return 1;
		}
	}
	return 0;
}

struct subtree {
	int pid;		/* the container's init; 0: none known */
	unsigned n;		/* cgroups seen */
	long other;		/* a process that is not the init */
	char where[PATH_MAX];	/* relative to the top ("" for itself): where other
				 * is, or where the walk stopped */
};

/*
 * Walk the cgroups below the directory dfd (fd-relative, never through a
 * symlink) and find any process but the init: 0 if there is none, -EUSERS
 * with w->other and w->where set, -E2BIG beyond SUBTREE_MAX cgroups, or an
 * errno (w->where then names the cgroup).  Directories without
 * cgroup.procs are not cgroups and are skipped.
 */
static int subtree_check(int dfd, const char *rel, struct subtree *w)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int fd, r;

	snprintf(w->where, sizeof(w->where), "%s", rel);
	r = procs_other(dfd, w->pid, &w->other);
	if (r > 0)
		return -EUSERS;
	if (r < 0)
		return r;
	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((errno = 0, de = readdir(d))) {
		_cleanup_close_ int child = -1;
		_cleanup_free_ char *child_rel = NULL;
		struct stat st;

		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		child = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0) {
			/* a symlink or a file is no cgroup; one may vanish */
			if (errno == ENOTDIR || errno == ELOOP || errno == ENOENT)
				continue;
			return -errno;
		}
		if (fstatat(child, "cgroup.procs", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			continue;
		if (++w->n > SUBTREE_MAX)
			return -E2BIG;
		if (asprintf(&child_rel, "%s/%s", rel, de->d_name) < 0) {
			child_rel = NULL;
			return -ENOMEM;
		}
		r = subtree_check(child, child_rel, w);
		if (r < 0)
			return r;
	}
	return errno ? -errno : 0;
}

/*
 * Open cg below the cgroup root and make sure it is the container's own:
 * not the root, no symlink on the way, nobody else's process in it or below
 * it.  Returns 0 and the directory's fd, or a negative errno after printing
 * why.
 */
static int cgroup_open_own(struct tier_ctx *ctx, const struct hook_opts *o,
			   const struct oci_state *st, const struct oci_config *cfg,
			   const char *cg, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	struct subtree w = { .pid = st->pid };
	const char *root = tier_ctx_get_cgroup_root(ctx);
	int r;

	if (strcmp(cg, "/") == 0) {
		msg("the container's init (pid %d) is in the root cgroup: not touching it (it is "
		    "everybody's)", st->pid);
		return -EPERM;
	}
	r = tier_cgroup_open(ctx, cg, &fd);
	if ((r == -ENOENT || r == -ENOTDIR) && cfg->cgroups_path) {
		msg("cannot find the container's cgroup: linux.cgroupsPath '%s' -> %s%s does not "
		    "exist", ESC(cfg->cgroups_path), ESC(root), ESC(cg));
		return -ENOENT;
	}
	if (r == -ENOENT || r == -ENOTDIR) {
		msg("cannot find the container's cgroup: %s%s (the init's, from /proc) does not "
		    "exist", ESC(root), ESC(cg));
		return -ENOENT;
	}
	if (r == -ELOOP) {
		msg("%s: a symlink on the way below %s: refusing to follow it", ESC(cg), ESC(root));
		return r;
	}
	if (r < 0) {
		msg("cannot open the cgroup %s%s: %s", ESC(root), ESC(cg), strerror(-r));
		return r;
	}
	r = subtree_check(fd, "", &w);
	if (r == -EUSERS) {
		char init[32] = "the state has no pid";

		if (st->pid > 0)
			snprintf(init, sizeof(init), "pid %d", st->pid);
		msg("%s: process %ld in %s%s is not the container's init (%s): a cgroup shared "
		    "with others, not touching it", ESC(cg), w.other, ESC(cg), ESC(w.where), init);
		return -EPERM;
	}
	if (r == -E2BIG) {
		msg("%s: more than %d cgroups below it: not a new container's cgroup, not "
		    "touching it", ESC(cg), SUBTREE_MAX);
		return -EPERM;
	}
	if (r == -ENOENT) {
		msg("%s: no cgroup.procs in %s%s: not a cgroup", ESC(cg), ESC(cg), ESC(w.where));
		return r;
	}
	if (r < 0) {
		msg("%s: cannot read %s%s/cgroup.procs: %s", ESC(cg), ESC(cg), ESC(w.where),
		    strerror(-r));
		return r;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* ------------------------------------------------------------------------
 * Applying
 * ------------------------------------------------------------------------ */

/* "cg: memory.numa_balancing inherit -> full (class c)", said before a write. */
static void msg_transition(const struct hook_opts *o, const char *cg, const struct tier_class *cls,
			   const struct tier_apply_result *res, size_t i)
{
	const char *dry = o->dry_run ? " (dry run)" : "";
	const char *old_value = tier_apply_result_change_old_value(res, i);
	const char *new_value = tier_apply_result_change_new_value(res, i);
	enum tier_attr attr = tier_apply_result_change_attr(res, i);

	if (!o->dry_run && !o->verbose)
		return;
	if (attr == TIER_ATTR_NUMA_BALANCING)
		msg("%s: memory.numa_balancing %s -> %s (class %s)%s", cg, old_value,
		    new_value, tier_class_name(cls), dry);
	else
		msg("%s: %s %s -> %s%s", cg, tier_attr_to_string(attr), old_value,
		    new_value, dry);
}

/* Say what tier_class_apply() did to one attribute; its errno if it failed.
 * cg is the escaped cgroup path; values are ours (mode names, numbers). */
static int report_change(const struct hook_opts *o, const char *cg, const struct tier_class *cls,
			 const struct tier_apply_result *res, size_t i)
{
	const char *old_value = tier_apply_result_change_old_value(res, i);
	const char *new_value = tier_apply_result_change_new_value(res, i);
	enum tier_attr attr = tier_apply_result_change_attr(res, i);
	int error = tier_apply_result_change_error(res, i);
	const char *file = tier_attr_to_string(attr);
	bool mode = attr == TIER_ATTR_NUMA_BALANCING;

	switch (tier_apply_result_change_status(res, i)) {
	case TIER_APPLY_UNCHANGED:
		if (o->verbose && mode)
			msg("%s: memory.numa_balancing already %s (class %s)", cg,
			    ESC(old_value), tier_class_name(cls));
		else if (o->verbose)
			msg("%s: %s already %s", cg, file, ESC(old_value));
		return 0;
	case TIER_APPLY_KEPT:
		/* The runtime wrote it from the container's resources (e.g.
		 * --memory-reservation, or kubelet memory QoS): do not fight. */
		msg("%s: %s is %s, set by the runtime; leaving it (the class asks for %s)", cg, file,
		    ESC(old_value), new_value);
		return 0;
	case TIER_APPLY_CHANGED:
		msg_transition(o, cg, cls, res, i);
		return 0;
	default:
		break;
	}
	if (!old_value[0]) {	/* the read failed */
		if (mode && error == -EOPNOTSUPP)
			msg("%s: the kernel does not support memory.numa_balancing "
			    "(the tierd kernel patches are not applied)", cg);
		else if (error == -ELOOP)
			msg("%s: %s is a symlink: refusing to follow it", cg, file);
		else if (error == -EBADFD)
			msg("%s: %s is not a regular file: refusing it", cg, file);
		else
			msg("%s: cannot read %s: %s", cg, file, strerror(-error));
		return error;
	}
	msg_transition(o, cg, cls, res, i);
	if (mode)
		msg("%s: cannot write '%s' to memory.numa_balancing: %s", cg, new_value,
		    strerror(-error));
	else
		msg("%s: cannot write %s to %s: %s", cg, new_value, file, strerror(-error));
	return error;
}

/*
 * memory.numa_balancing (unless the class says inherit), then memory.low and
 * memory.high if the class sets them, one at a time: the first failure ends
 * it.  What the container's linux.resources.unified sets, and a memory.low
 * or memory.high the runtime already set, are left alone.  Every file is
 * read and written below dfd, the directory cgroup_open_own() checked
 * (openat(), O_NOFOLLOW): the path cg may name another directory by now.
 * cg and cg_shown (cg escaped) only name it in messages.
 */
static int apply_class(struct tier_ctx *ctx, const struct hook_opts *o, int dfd, const char *cg,
		       const char *cg_shown, const struct tier_class *cls,
		       const struct oci_config *cfg)
{
	const unsigned all = TIER_APPLY_SKIP_NUMA_BALANCING | TIER_APPLY_SKIP_MEMORY_LOW |
			     TIER_APPLY_SKIP_MEMORY_HIGH;
	const bool unified[_TIER_ATTR_MAX] = {
		[TIER_ATTR_NUMA_BALANCING] = cfg->unified_numa_balancing,
		[TIER_ATTR_MEMORY_LOW] = cfg->unified_low,
		[TIER_ATTR_MEMORY_HIGH] = cfg->unified_high,
	};
	const bool set[_TIER_ATTR_MAX] = {
		[TIER_ATTR_NUMA_BALANCING] = tier_class_mode(cls) != TIER_MODE_INHERIT,
		[TIER_ATTR_MEMORY_LOW] = tier_class_memory_low(cls)->kind != TIER_AMOUNT_UNSET,
		[TIER_ATTR_MEMORY_HIGH] = tier_class_memory_high(cls)->kind != TIER_AMOUNT_UNSET,
	};
	unsigned flags = TIER_APPLY_KEEP_SET | (o->dry_run ? TIER_APPLY_DRY_RUN : 0);

	for (int a = 0; a < _TIER_ATTR_MAX; a++) {
		_cleanup_(tier_apply_result_freep) struct tier_apply_result *res = NULL;
		int r;

		if (a == TIER_ATTR_NUMA_BALANCING && unified[a])
			msg("%s: memory.numa_balancing is set by the container's "
			    "linux.resources.unified, leaving it (class %s not applied to it)",
			    cg_shown, tier_class_name(cls));
		if (!set[a])
			continue;
		if (unified[a]) {
			if (a != TIER_ATTR_NUMA_BALANCING && o->verbose)
				msg("%s: %s is set by the container's linux.resources.unified, "
				    "leaving it", cg_shown, tier_attr_to_string((enum tier_attr)a));
			continue;
		}
		/* through the fd that cgroup_open_own() checked, never by path */
		r = tier_class_apply_at(ctx, dfd, cg, cls, NULL, flags | (all & ~TIER_APPLY_SKIP(a)),
					&res);
		if (r < 0) {
			msg("%s: cannot apply class %s: %s", cg_shown, tier_class_name(cls), strerror(-r));
			return r;
		}
		if (tier_apply_result_change_count(res) == 0)
			continue;
		r = report_change(o, cg_shown, cls, res, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Best effort: record key = class for tierd, through the directory's fd:
 *  - the trusted.<key> xattr of the cgroup directory (libtier reads
 *    trusted.* xattrs, which only root can write, as annotations), which
 *    tierd sees only with CAP_SYS_ADMIN (the DaemonSet grants it);
 *  - a record in /run/tierd/annotations (tier_annotation_record_write()),
 *    which tierd reads without it (tierd.service does not grant it).
 * Then records whose cgroup is gone are removed.  A failure is said, and
 * is no error of the hook: the class is applied already.
 */
static void record_class(struct tier_ctx *ctx, const struct hook_opts *o, int dfd,
			 const char *cg, const char *cg_shown, const char *cls)
{
	_cleanup_free_ char *name = NULL;
	int r;

	if (o->dry_run)
		return;
	if (asprintf(&name, TRUSTED_PREFIX "%s", o->annotation) < 0)
		return;
	if (fsetxattr(dfd, name, cls, strlen(cls), 0) < 0 && o->verbose) {
		int e = errno;

		msg("%s: cannot set xattr %s (%s), ignoring", cg_shown, ESC(name), strerror(e));
	}
	if (!tier_annotation_dir())
		return;	/* a test's fake tree without records */
	r = tier_annotation_record_write(dfd, cg, o->annotation, cls);
	if (r < 0)
		msg("%s: cannot record %s=%s in %s (%s): tierd without CAP_SYS_ADMIN will not "
		    "see the annotation", cg_shown, ESC(o->annotation), cls,
		    ESC(tier_annotation_dir()),
		    r == -EPERM ? "not owned by root, or writable by others" : strerror(-r));
	r = tier_annotation_records_prune(ctx);
	if (r < 0 && o->verbose)
		msg("cannot prune %s: %s, ignoring", ESC(tier_annotation_dir()), strerror(-r));
	else if (r > 0 && o->verbose)
		msg("removed %d record(s) of removed cgroups from %s", r,
		    ESC(tier_annotation_dir()));
}

#ifdef TIERD_HOOK_TESTING
/*
 * Test builds only (the ASan binary of the tests, never the installed
 * hook): run $TIERD_HOOK_TEST_AFTER_CHECK between the check of the cgroup
 * and the writes, so that tests/hook/test-swap.sh can replace the cgroup's
 * path (by a symlink, or another directory) exactly there.
 */
static void test_after_check(void)
{
	const char *cmd = getenv("TIERD_HOOK_TEST_AFTER_CHECK");

	if (cmd && *cmd && system(cmd) != 0)
		msg("test: '%s' failed", cmd);
}
#else
static inline void test_after_check(void)
{
}
#endif

/* config.json of the bundle: a regular file (a FIFO does not block us). */
static int read_config(const char *file, char **ret_data, size_t *ret_len)
{
	int r = read_regular_file(file, CONFIG_MAX, ret_data, ret_len);

	if (r == -EFBIG)
		msg("cannot read %s: larger than %u MiB", ESC(file), CONFIG_MAX >> 20);
	else if (r == -EBADFD)
		msg("cannot read %s: not a regular file", ESC(file));
	else if (r < 0)
		msg("cannot read %s: %s", ESC(file), strerror(-r));
	return r;
}

/* Returns 0 on success or "not our container", negative errno on error
 * (after printing the reason). */
static int run(const struct hook_opts *o)
{
	_cleanup_free_ char *state_data = NULL, *config_data = NULL, *err = NULL;
	_cleanup_free_ char *config_file = NULL, *cgroup = NULL;
	_cleanup_close_ int cg_fd = -1;
	char cg_shown[ESC_SIZE];
	struct oci_state st = { 0 };
	struct oci_config cfg = { 0 };
	struct tier_errors *errors = NULL;
	struct tier_policy *policy = NULL;
	struct tier_ctx *ctx = NULL;
	const struct tier_class *cls;
	const char *class_name, *cgroup_root;
	_cleanup_free_ char *root_found = NULL, *root_why = NULL;
	size_t len;
	int r;

	r = read_all_fd(STDIN_FILENO, STATE_MAX, &state_data, &len);
	if (r < 0) {
		msg("cannot read the OCI state from stdin: %s",
		    r == -EFBIG ? "more than 1 MiB" : strerror(-r));
		return r;
	}
	r = oci_state_parse(state_data, len, o->annotation, &st, &err);
	if (r < 0) {
		msg("malformed OCI state JSON on stdin: %s", err ? ESC(err) : strerror(-r));
		goto out;
	}
	if (st.id) {
		char id[72];

		snprintf(msg_prefix, sizeof(msg_prefix), "container %s: ",
			 text_escape_buf(st.id, id, sizeof(id)));
	}

	/* Nothing to do unless the container carries the annotation. */
	if (st.has_annotations && !st.class_value && !o->force_class) {
		r = 0;
		goto out;
	}
	if (!st.bundle) {
		if (!st.has_annotations && !o->force_class) {
			/* cannot tell without config.json: not ours */
			r = 0;
			goto out;
		}
		msg("the OCI state has no \"bundle\": cannot read config.json");
		r = -EINVAL;
		goto out;
	}
	if (asprintf(&config_file, "%s/config.json", st.bundle) < 0) {
		config_file = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = read_config(config_file, &config_data, &len);
	if (r < 0)
		goto out;
	r = oci_config_parse(config_data, len, o->annotation, &cfg, &err);
	if (r < 0) {
		msg("malformed %s: %s", ESC(config_file), err ? ESC(err) : strerror(-r));
		goto out;
	}
	class_name = st.has_annotations ? st.class_value : cfg.class_value;
	if (o->force_class) {
		/* The runtime chose this hook file by the annotation (CRI-O
		 * matches pod annotations, which the container's own
		 * annotations do not carry). */
		if (class_name && strcmp(class_name, o->force_class) != 0)
			msg("annotation %s is '%s' but this hook is for class '%s' (--class); "
			    "using '%s'", ESC(o->annotation), ESC(class_name),
			    ESC(o->force_class), ESC(o->force_class));
		class_name = o->force_class;
	}
	if (!class_name) {
		r = 0;
		goto out;
	}
	if (!*class_name) {
		msg("annotation %s is empty", ESC(o->annotation));
		r = -EINVAL;
		goto out;
	}

	errors = tier_errors_new();
	if (!errors) {
		r = -ENOMEM;
		goto out;
	}
	r = tier_policy_load(o->config, NULL, errors, &policy);
	if (r < 0) {
		for (size_t i = 0; i < tier_errors_count(errors); i++)
			msg("%s", ESC(tier_errors_get(errors, i)));
		msg("cannot load the policy %s: %s", ESC(o->config), strerror(-r));
		goto out;
	}
	cls = tier_policy_find_class(policy, class_name);
	if (!cls) {
		_cleanup_free_ char *names = class_list(policy);

		msg("unknown class '%s' (annotation %s); the policy %s defines: %s",
		    ESC(class_name), ESC(o->annotation), ESC(o->config),
		    names && *names ? ESC(names) : "no classes");
		r = -ENOENT;
		goto out;
	}
	if (!class_allowed(o->allow, tier_class_name(cls))) {
		msg("class '%s' (annotation %s) is not allowed for containers (--allow-class %s)",
		    ESC(tier_class_name(cls)), ESC(o->annotation), ESC(o->allow));
		r = -EPERM;
		goto out;
	}

	cgroup_root = o->cgroup_root ? o->cgroup_root : tier_policy_daemon(policy)->cgroup_root;
	/* found and checked as tierd, tierctl and tierd-metrics do */
	r = tier_cgroup_root_find(cgroup_root, o->proc_root, &root_found, &root_why);
	if (r < 0) {
		msg("%s", root_why ? root_why : strerror(-r));
		goto out;
	}
	r = tier_ctx_new(root_found, NULL, o->proc_root, &ctx);
	if (r < 0) {
		msg("cannot set up libtier: %s", strerror(-r));
		goto out;
	}
	tier_ctx_set_log_fn(ctx, log_hook, NULL);
	r = find_cgroup(o, &st, &cfg, &cgroup);
	if (r < 0)
		goto out;
	r = cgroup_open_own(ctx, o, &st, &cfg, cgroup, &cg_fd);
	if (r < 0)
		goto out;
	text_escape_buf(cgroup, cg_shown, sizeof(cg_shown));
	test_after_check();
	r = apply_class(ctx, o, cg_fd, cgroup, cg_shown, cls, &cfg);
	if (r < 0)
		goto out;
	record_class(ctx, o, cg_fd, cgroup, cg_shown, tier_class_name(cls));
	if (o->verbose)
		msg("%s: class %s applied", cg_shown, tier_class_name(cls));
	r = 0;
out:
	if (r == -ENOMEM)
		msg("out of memory");
	tier_ctx_unref(ctx);
	tier_policy_unref(policy);
	tier_errors_free(errors);
	oci_config_done(&cfg);
	oci_state_done(&st);
	return r;
}

static void help(void)
{
	printf("%s [OPTIONS] < STATE\n\n"
	       "OCI createRuntime hook: applies the tierd class named by a container\n"
	       "annotation to the container's cgroup before its process starts.\n\n"
	       "  --fail-open            on an error print it and exit 0 (default)\n"
	       "  --fail-closed          on an error exit 1: the container does not start\n"
	       "  --annotation KEY       annotation naming the class (default %s)\n"
	       "  --config FILE          policy file (default %s, plus its drop-ins)\n"
	       "  --cgroup-root DIR      cgroup2 mount (default: the policy's cgroup_root)\n"
	       "  --procfs-root DIR      procfs (default /proc)\n"
	       "  --allow-class LIST     only these classes (comma-separated) may be chosen\n"
	       "  --class NAME           apply NAME: the runtime picked this hook by the\n"
	       "                         annotation (one hooks.d file per class)\n"
	       "  --dry-run              say what would be written, write nothing\n"
	       "  -v, --verbose          report every value read and written\n"
	       "  -h, --help             this text\n"
	       "      --version          the version\n",
	       PROG, DEFAULT_ANNOTATION, DEFAULT_CONFIG);
}

int main(int argc, char **argv)
{
	enum { ARG_FAIL_OPEN = 0x100, ARG_FAIL_CLOSED, ARG_ANNOTATION, ARG_CONFIG,
	       ARG_CGROUP_ROOT, ARG_PROCFS_ROOT, ARG_ALLOW, ARG_CLASS, ARG_DRY_RUN,
	       ARG_VERSION };
	static const struct option options[] = {
		{ "fail-open", no_argument, NULL, ARG_FAIL_OPEN },
		{ "fail-closed", no_argument, NULL, ARG_FAIL_CLOSED },
		{ "annotation", required_argument, NULL, ARG_ANNOTATION },
		{ "config", required_argument, NULL, ARG_CONFIG },
		{ "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
		{ "procfs-root", required_argument, NULL, ARG_PROCFS_ROOT },
		{ "allow-class", required_argument, NULL, ARG_ALLOW },
		{ "class", required_argument, NULL, ARG_CLASS },
		{ "dry-run", no_argument, NULL, ARG_DRY_RUN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{}
	};
	struct hook_opts o = {
		.annotation = DEFAULT_ANNOTATION,
		.config = DEFAULT_CONFIG,
		.proc_root = "/proc",
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "vh", options, NULL)) >= 0) {
		switch (c) {
		case ARG_FAIL_OPEN:
			o.fail_closed = false;
			break;
		case ARG_FAIL_CLOSED:
			o.fail_closed = true;
			break;
		case ARG_ANNOTATION:
			if (!*optarg || strpbrk(optarg, "=\n")) {
				fprintf(stderr, "%s: invalid annotation key '%s'\n", PROG, optarg);
				return 2;
			}
			o.annotation = optarg;
			break;
		case ARG_CONFIG:
			o.config = optarg;
			break;
		case ARG_CGROUP_ROOT:
			o.cgroup_root = optarg;
			break;
		case ARG_PROCFS_ROOT:
			o.proc_root = optarg;
			break;
		case ARG_ALLOW:
			o.allow = optarg;
			break;
		case ARG_CLASS:
			if (!*optarg) {
				fprintf(stderr, "%s: --class needs a class name\n", PROG);
				return 2;
			}
			o.force_class = optarg;
			break;
		case ARG_DRY_RUN:
			o.dry_run = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("%s %s\n", PROG, TIERD_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", PROG);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help'.\n", PROG,
			argv[optind], PROG);
		return 2;
	}

	r = run(&o);
	if (r >= 0)
		return 0;
	if (o.fail_closed) {
		msg("failing the container (--fail-closed)");
		return 1;
	}
	msg("starting the container without its tiering class (--fail-open)");
	return 0;
}

