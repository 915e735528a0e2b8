// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run directory: the directory of the bus socket (/run/tierd, or the one
 * of --bus-socket), which holds
 *   tierd.lock   flock(LOCK_EX | LOCK_NB) for as long as tierd runs, with its
 *                PID: a second tierd on the same directory refuses to start;
 *   bus          the bus API socket (tierd-bus.c);
 *   fair-state   what fairness holds and what to restore (tierd-fair.c).
 *
 * Everything in it is reached through one directory fd, opened once without
 * following a symlink and checked: owned by root (or our euid) and neither
 * group- nor world-writable, so nobody else can put a file, a symlink or a
 * socket there.  A directory that fails the check, another tierd holding
 * the lock, something other than a socket at the socket's path or a socket
 * someone listens on: tierd refuses to start.  A directory that cannot be
 * created (read-only /run, no parent) is only a notice: tierd runs without
 * a bus API, a lock and a fairness state file, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tierd-log.h"
#include "tierd-manager.h"
#include "tierd-rundir.h"

#define LOCK_NAME "tierd.lock"

const char *rundir_socket_path(const struct manager *m)
{
	return m->args.bus_socket ?: DEFAULT_BUS_SOCKET;
}

/*
 * Is st (of the directory or a file in it) safe: owned by root (or our
 * euid) and not writable by group or others?  If not, why, into buf.
 */
static bool owner_mode_ok(const struct stat *st, char *buf, size_t size)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(buf, size, "owned by UID %u, not root", (unsigned)st->st_uid);
		return false;
	}
	if (st->st_mode & 0022) {
		snprintf(buf, size, "writable by %s (mode %04o)",
			 (st->st_mode & 0002) ? "everyone" : "its group",
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

static int lock_take(struct manager *m)
{
	struct run_dir *d = &m->run;
	_cleanup_close_ int fd = -1;
	struct stat st;
	char pid[32];

	fd = openat(d->fd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0)
		return log_error_errno(errno, "Cannot start: cannot open %s/%s: %m", d->path,
				       LOCK_NAME);
	if (fstat(fd, &st) < 0)
		return log_error_errno(errno, "Cannot start: %s/%s: %m", d->path, LOCK_NAME);
	if (!S_ISREG(st.st_mode))
		return log_error_errno(EBADFD, "Cannot start: %s/%s is not a regular file", d->path,
				       LOCK_NAME);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n;

		if (errno == ENOSYS || errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL) {
			/* A kernel without CONFIG_FILE_LOCKING: the probe of the
			 * socket (a listener there refuses the start) is what is left. */
			log_notice_errno(errno, "Cannot lock %s/%s: %m; a second tierd is refused only "
						"if this one serves the bus socket, ignoring", d->path,
					 LOCK_NAME);
			d->lock_fd = TAKE_FD(fd);
			return 0;
		}
		if (errno != EWOULDBLOCK)
			return log_error_errno(errno, "Cannot start: cannot lock %s/%s: %m", d->path,
					       LOCK_NAME);
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		return log_error_errno(EBUSY, "Cannot start: another tierd (PID %s) is running on %s "
					      "(it holds %s/%s); refusing to start a second one",
				       pid[0] ? pid : "?", d->path, d->path, LOCK_NAME);
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, strlen(pid), 0) < 0)
		log_warning_errno(errno, "Cannot write our PID to %s/%s: %m, ignoring", d->path,
				  LOCK_NAME);
	d->lock_fd = TAKE_FD(fd);
	return 0;
}

int rundir_open(struct manager *m)
{
	struct run_dir *d = &m->run;
	const char *path = rundir_socket_path(m), *slash = strrchr(path, '/');
	_cleanup_free_ char *copy = NULL, *base = NULL;
	_cleanup_close_ int fd = -1;
	const char *dir;
	struct stat st;
	char why[64];
	int r;

	if (!slash)
		copy = strdup(".");
	else if (slash == path)
		copy = strdup("/");
	else
		copy = strndup(path, (size_t)(slash - path));
	base = strdup(slash ? slash + 1 : path);
	if (!copy || !base)
		return log_oom();
	dir = copy;
	if (!base[0] || strcmp(base, "/") == 0 || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0 || strcmp(base, LOCK_NAME) == 0 ||
	    strcmp(base, FAIR_STATE_NAME) == 0)
		return log_error_errno(EINVAL, "Cannot start: bad bus socket path %s",
				       rundir_socket_path(m));
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		log_notice_errno(errno, "Cannot create %s: %m; no bus API for tierctl, no lock "
					"against a second tierd, fairness state not kept, ignoring",
				 dir);
		return 0;
	}
	/* The last component must not be a symlink; the ones above are the
	 * administrator's (/var/run -> /run). */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return log_error_errno(errno, "Cannot start: %s is not a directory (a symlink?); "
						      "refusing to use it", dir);
		log_notice_errno(errno, "Cannot open %s: %m; no bus API for tierctl, no lock, "
					"fairness state not kept, ignoring", dir);
		return 0;
	}
	if (fstat(fd, &st) < 0)
		return log_error_errno(errno, "Cannot start: %s: %m", dir);
	if (!owner_mode_ok(&st, why, sizeof(why)))
		return log_error_errno(EPERM, "Cannot start: the run directory %s is %s; refusing "
					      "to use it", dir, why);
	d->path = strdup(dir);
	d->socket_name = TAKE_PTR(base);
	if (!d->path)
		return log_oom();
	d->fd = TAKE_FD(fd);
	r = lock_take(m);
	if (r < 0)
		return r;
	log_debug("Run directory %s, locked (%s)", d->path, LOCK_NAME);
	return 0;
}

void rundir_close(struct manager *m)
{
	struct run_dir *d = &m->run;

	rundir_unlink_socket(m);
	if (d->lock_fd >= 0)
		close(d->lock_fd); /* the lock goes with it; the file stays (unlinking races) */
	if (d->fd >= 0)
		close(d->fd);
	d->lock_fd = d->fd = -1;
	free(d->path);
	free(d->socket_name);
	d->path = d->socket_name = NULL;
}

/* "/proc/self/fd/N/NAME" for name in the run directory, into sa. */
static int proc_sockaddr(const struct run_dir *d, const char *name, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", d->fd, name);
	return n < 0 || (size_t)n >= sizeof(sa->sun_path) ? -ENAMETOOLONG : 0;
}

/*
 * What is at the socket's path before we bind: nothing, or a socket nobody
 * listens on (a tierd that crashed; we hold the lock), which is removed.
 * Anything else is refused.
 */
static int socket_path_free(struct manager *m, const char *path)
{
	struct run_dir *d = &m->run;
	struct sockaddr_un sa;
	struct stat st;
	int fd, r;

	if (fstatat(d->fd, d->socket_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return log_error_errno(errno, "Cannot start: %s: %m", path);
	}
	if (!S_ISSOCK(st.st_mode))
		return log_error_errno(EEXIST, "Cannot start: %s exists and is not a socket; "
					       "refusing to replace it", path);
	r = proc_sockaddr(d, d->socket_name, &sa);
	if (r < 0)
		return log_error_errno(r, "Cannot start: %s: %m", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log_error_errno(errno, "Cannot start: cannot create a socket: %m");
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (r == 0)
		return log_error_errno(EADDRINUSE, "Cannot start: something listens on %s "
						   "(a tierd without the lock?); refusing to take "
						   "its socket", path);
	if (errno != ECONNREFUSED)
		return log_error_errno(errno, "Cannot start: cannot probe the socket %s: %m", path);
	if (unlinkat(d->fd, d->socket_name, 0) < 0 && errno != ENOENT)
		return log_error_errno(errno, "Cannot start: cannot remove the stale socket %s: %m",
				       path);
	log_debug("Removed the stale socket %s (nobody listened on it)", path);
	return 0;
}

int rundir_bind_socket(struct manager *m, int *ret_fd)
{
	struct run_dir *d = &m->run;
	const char *path = rundir_socket_path(m);
	_cleanup_close_ int fd = -1;
	struct sockaddr_un sa;
	struct stat st;
	mode_t old_umask;
	int r;

	if (d->fd < 0)
		return -ENOENT; /* no run directory: said so already */
	if (strlen(path) >= sizeof(sa.sun_path))
		return log_error_errno(ENAMETOOLONG, "Cannot start: the bus socket path %s is too "
						     "long", path);
	r = socket_path_free(m, path);
	if (r < 0)
		return r;
	r = proc_sockaddr(d, d->socket_name, &sa);
	if (r < 0)
		return log_error_errno(r, "Cannot start: %s: %m", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return log_warning_errno(errno, "Cannot create the bus socket: %m, ignoring"), -ENOENT;
	old_umask = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old_umask);
	if (r < 0)
		return log_error_errno(errno, "Cannot start: cannot bind %s: %m", path);
	if (fstatat(d->fd, d->socket_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
		return log_error_errno(errno ?: EBADFD, "Cannot start: %s vanished after bind", path);
	d->socket_bound = true;
	d->sock_dev = st.st_dev;
	d->sock_ino = st.st_ino;
	if (fchmodat(d->fd, d->socket_name, 0600, 0) < 0 || listen(fd, SOMAXCONN) < 0)
		return log_error_errno(errno, "Cannot start: cannot listen on %s: %m", path);
	*ret_fd = TAKE_FD(fd);
	return 0;
}

void rundir_unlink_socket(struct manager *m)
{
	struct run_dir *d = &m->run;
	struct stat st;

	if (!d->socket_bound || d->fd < 0)
		return;
	d->socket_bound = false;
	/* Only the socket we bound: someone may have replaced it since. */
	if (fstatat(d->fd, d->socket_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISSOCK(st.st_mode) || st.st_dev != d->sock_dev || st.st_ino != d->sock_ino) {
		log_notice("%s/%s is no longer the socket we bound, leaving it alone", d->path,
			   d->socket_name);
		return;
	}
	if (unlinkat(d->fd, d->socket_name, 0) < 0)
		log_debug_errno(errno, "Cannot remove %s/%s: %m, ignoring", d->path, d->socket_name);
}

int rundir_read_file(struct manager *m, const char *name, size_t max, char **ret, size_t *ret_size)
{
	struct run_dir *d = &m->run;
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	char why[64];

	if (d->fd < 0)
		return -ENOENT;
	fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return log_warning_errno(EBADFD, "%s/%s is not a regular file, ignoring it", d->path,
					 name);
	if (!owner_mode_ok(&st, why, sizeof(why)))
		return log_warning_errno(EPERM, "%s/%s is %s, ignoring it", d->path, name, why);
	if ((uint64_t)st.st_size > max)
		return log_warning_errno(EFBIG, "%s/%s is larger than %zu bytes, ignoring it",
					 d->path, name, max);
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	while (len <= max) {
		ssize_t n = read(fd, buf + len, max + 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max)
		return log_warning_errno(EFBIG, "%s/%s is larger than %zu bytes, ignoring it",
					 d->path, name, max);
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	if (ret_size)
		*ret_size = len;
	return 0;
}

int rundir_write_file(struct manager *m, const char *name, const char *data, size_t size)
{
	struct run_dir *d = &m->run;
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	size_t off = 0;
	int r = 0;

	if (d->fd < 0)
		return -ENOENT;
	if (asprintf(&tmp, ".%s.tmp", name) < 0)
		return -ENOMEM;
	/* We hold the lock: a temp file left over is a crashed tierd's. */
	(void)unlinkat(d->fd, tmp, 0);
	fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		off += (size_t)n;
	}
	if (fsync(fd) < 0) {
		r = -errno;
		goto fail;
	}
	if (renameat(d->fd, tmp, d->fd, name) < 0) {
		r = -errno;
		goto fail;
	}
	(void)fsync(d->fd);
	return 0;
fail:
	(void)unlinkat(d->fd, tmp, 0);
	return r;
}

int rundir_unlink_file(struct manager *m, const char *name)
{
	if (m->run.fd < 0)
		return -ENOENT;
	if (unlinkat(m->run.fd, name, 0) < 0)
		return -errno;
	return 0;
}
