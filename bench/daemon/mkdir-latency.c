// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkdir-latency: create N cgroups in a burst in a (fake) cgroup tree and
 * measure, for each, the time from its appearance to the write of its
 * memory.numa_balancing by whoever manages the tree (tierd, or a polling
 * loop).  Each cgroup is built complete in a staging directory (the kernel
 * creates a cgroup's files with the directory) and renamed into place; an
 * inotify watch on its memory.numa_balancing (set before the rename, it
 * follows the inode) timestamps the write (IN_CLOSE_WRITE).
 *
 *   mkdir-latency [-t TIMEOUT_S] [-i INTERVAL_US] TREE_DIR STAGE_DIR N
 *   mkdir-latency -m [-t TIMEOUT_S] [-i INTERVAL_US] TREE_DIR EXPECTED N
 *
 * -m (a real cgroupfs, where directories cannot be renamed in): mkdir each
 * cgroup in place, then watch its memory.numa_balancing; if it already
 * holds EXPECTED by then, the time up to that check counts (an upper bound).
 *
 * With -i, the renames are INTERVAL_US apart and the writes are taken in
 * between, as they come.  Prints p50/p90/p99/max in ms and how many were
 * written before the timeout.
 * STAGE_DIR must be on the same file system as TREE_DIR.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_file(const char *dir, const char *name, const char *val)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0) {
		close(fd);
		return -errno;
	}
	close(fd);
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Read the write events that arrive within wait_ms (0: only those queued)
 * and record each cgroup's latency when it is read: so with -i the events
 * are taken between the renames, not after the last one.
 */
static int drain(int fd, int wait_ms, int max_wd, const int *wd_to_i, const double *t0,
		 double *lat)
{
	char buf[65536] __attribute__((aligned(8)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int done = 0;
	ssize_t len;

	if (poll(&p, 1, wait_ms) <= 0)
		return 0;
	len = read(fd, buf, sizeof(buf));
	for (char *q = buf; len > 0 && q < buf + len;) {
		struct inotify_event *ev = (struct inotify_event *)q;
		double t = now_ms();
		int i;

		q += sizeof(*ev) + ev->len;
		if (!(ev->mask & (IN_CLOSE_WRITE | IN_MODIFY)) || ev->wd > max_wd)
			continue;
		i = wd_to_i[ev->wd];
		if (lat[i] < 0) {
			lat[i] = t - t0[i];
			done++;
		}
	}
	return done;
}

int main(int argc, char **argv)
{
	double timeout = 30, *t0, *lat, deadline;
	long interval_us = 0;
	bool direct = false;
	int c, n, fd, *wd, done = 0, max_wd = 0;
	int *wd_to_i;

	while ((c = getopt(argc, argv, "mt:i:")) >= 0) {
		if (c == 'm')
			direct = true;
		else if (c == 't')
			timeout = strtod(optarg, NULL);
		else if (c == 'i')
			interval_us = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: mkdir-latency [-t S] [-i US] TREE STAGE N\n");
		return 2;
	}
	n = atoi(argv[optind + 2]);
	if (n <= 0)
		return 2;
	t0 = calloc((size_t)n, sizeof(double));
	lat = calloc((size_t)n, sizeof(double));
	wd = calloc((size_t)n, sizeof(int));
	wd_to_i = calloc((size_t)n * 2 + 16, sizeof(int));
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (!t0 || !lat || !wd || !wd_to_i || fd < 0) {
		perror("mkdir-latency");
		return 1;
	}
	for (int i = 0; i < n; i++)
		lat[i] = -1;
	if (direct) {
		for (int i = 0; i < n; i++) {
			char d[4096], f[4200], buf[64] = "";
			int rfd;

			snprintf(d, sizeof(d), "%s/b%d", argv[optind], i);
			t0[i] = now_ms();
			if (mkdir(d, 0755) < 0) {
				perror(d);
				return 1;
			}
			snprintf(f, sizeof(f), "%s/memory.numa_balancing", d);
			wd[i] = inotify_add_watch(fd, f, IN_MODIFY | IN_CLOSE_WRITE);
			if (wd[i] < 0 || wd[i] >= n * 2 + 16) {
				perror(f);
				return 1;
			}
			wd_to_i[wd[i]] = i;
			if (wd[i] > max_wd)
				max_wd = wd[i];
			rfd = open(f, O_RDONLY | O_CLOEXEC);
			if (rfd >= 0) {
				ssize_t l = read(rfd, buf, sizeof(buf) - 1);

				close(rfd);
				if (l > 0 && strncmp(buf, argv[optind + 1], strlen(argv[optind + 1])) == 0) {
					lat[i] = now_ms() - t0[i];
					done++;
				}
			}
			if (interval_us)
				usleep((useconds_t)interval_us);
		}
		goto wait;
	}
	/* Stage all first, so the burst itself is only renames. */
	for (int i = 0; i < n; i++) {
		char s[4096], f[4200];

		snprintf(s, sizeof(s), "%s/b%d", argv[optind + 1], i);
		if (mkdir(s, 0755) < 0 || write_file(s, "memory.numa_balancing", "inherit\n") < 0 ||
		    write_file(s, "memory.low", "0\n") < 0 || write_file(s, "memory.high", "max\n") < 0 ||
		    write_file(s, "cgroup.procs", "") < 0) {
			perror(s);
			return 1;
		}
		snprintf(f, sizeof(f), "%s/memory.numa_balancing", s);
		wd[i] = inotify_add_watch(fd, f, IN_CLOSE_WRITE);
		if (wd[i] < 0 || wd[i] >= n * 2 + 16) {
			perror("inotify_add_watch");
			return 1;
		}
		wd_to_i[wd[i]] = i;
		if (wd[i] > max_wd)
			max_wd = wd[i];
	}
	for (int i = 0; i < n; i++) {
		char s[4096], d[4096];

		snprintf(s, sizeof(s), "%s/b%d", argv[optind + 1], i);
		snprintf(d, sizeof(d), "%s/b%d", argv[optind], i);
		t0[i] = now_ms();
		if (rename(s, d) < 0) {
			perror(d);
			return 1;
		}
		if (interval_us) {
			double next = t0[i] + (double)interval_us / 1000;

			while (now_ms() < next)
				done += drain(fd, (int)(next - now_ms()) + 1, max_wd, wd_to_i, t0, lat);
		}
	}
wait:
	deadline = now_ms() + timeout * 1000;
	while (done < n && now_ms() < deadline)
		done += drain(fd, 200, max_wd, wd_to_i, t0, lat);
	{
		int k = 0;

		for (int i = 0; i < n; i++)
			if (lat[i] >= 0)
				lat[k++] = lat[i];
		qsort(lat, (size_t)k, sizeof(double), cmp_d);
		if (k == 0) {
			printf("written 0/%d\n", n);
			return 1;
		}
		printf("written %d/%d  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n", k, n,
		       lat[k / 2], lat[k * 90 / 100], lat[k * 99 / 100], lat[k - 1]);
		return k == n ? 0 : 1;
	}
}
