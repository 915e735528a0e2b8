// SPDX-License-Identifier: GPL-2.0
/*
 * fault-cost: the cost of the memcg charge path on anonymous page faults,
 * page_fault1-style (will-it-scale), in a DEPTH-deep cgroup hierarchy.
 *
 *   fault-cost [-t THREADS] [-i ITERS] [-m MB] [-d DEPTH] [-l LABEL]
 *
 * Creates /sys/fs/cgroup/fault-cost-1/.../fault-cost-DEPTH (the memory
 * controller enabled at every level, no limits), forks a child into the
 * deepest cgroup, and there THREADS threads (default: the online CPUs),
 * thread i pinned to CPU i % CPUs, each mmap MB (8) of private anonymous
 * memory, write one byte per page and munmap it, ITERS (64) times. THP is
 * off for the child (PR_SET_THP_DISABLE), so every page is one fault and
 * one charge. Prints one line
 *
 *   FAULTCOST label=LABEL threads= depth= faults= minflt= wall_ms=
 *             ns_per_fault= stime_ns_per_fault=
 *
 * where ns_per_fault is the wall time over the faults of one thread (every
 * thread does the same work) and stime_ns_per_fault the child's system
 * time over all faults. Removes the cgroups again. Exits 0, 1 on a failure,
 * 77 if there is no cgroup2 memory controller to test.
 *
 * bench/kernel/fault-cost-vm.sh runs it in rounds in the two-tier VM with
 * cgroup2's memory_tiered_limits off and on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_NAME		"fault-cost"
#define MAX_DEPTH	16

struct worker {
	pthread_t thread;
	pthread_barrier_t *start;
	unsigned int iters;
	size_t len, page;
	int err;
};

struct result {
	double wall_s;
	long long stime_us, minflt;
	int err;
};

static int write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

/* PATH of the cgroup at LEVEL (1..depth) of the chain, in BUF. */
static int cg_path(unsigned int level, char *buf, size_t size)
{
	size_t off;
	unsigned int i;
	int n;

	n = snprintf(buf, size, "%s", CG_ROOT);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	off = n;
	for (i = 1; i <= level; i++) {
		n = snprintf(buf + off, size - off, "/%s-%u", CG_NAME, i);
		if (n < 0 || (size_t)n >= size - off)
			return -ENAMETOOLONG;
		off += n;
	}
	return 0;
}

static void cg_remove(unsigned int depth)
{
	char path[PATH_MAX];
	unsigned int i;

	for (i = depth; i >= 1; i--)
		if (cg_path(i, path, sizeof(path)) == 0)
			rmdir(path);
}

/* The chain of DEPTH cgroups, memory enabled for each level's children. */
static int cg_create(unsigned int depth)
{
	char path[PATH_MAX], ctl[PATH_MAX + 32];
	unsigned int i;
	int ret;

	cg_remove(depth);
	for (i = 0; i <= depth; i++) {
		ret = cg_path(i, path, sizeof(path));
		if (ret < 0)
			return ret;
		if (i > 0 && mkdir(path, 0755) < 0)
			return -errno;
		if (i == depth)
			break;
		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", path);
		ret = write_file(ctl, "+memory");
		if (ret < 0)
			return ret;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned int i;
	size_t off;

	pthread_barrier_wait(w->start);
	for (i = 0; i < w->iters; i++) {
		char *m = mmap(NULL, w->len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		volatile char *p = m;

		if (m == MAP_FAILED) {
			w->err = -errno;
			break;
		}
		for (off = 0; off < w->len; off += w->page)
			p[off] = 1;
		munmap(m, w->len);
	}
	return NULL;
}

static long long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000LL + tv->tv_usec;
}

/* In the child, in the deepest cgroup. */
static void run(unsigned int nr, unsigned int iters, size_t len, struct result *r)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_barrier_t start;
	struct rusage ru0, ru1;
	struct worker *w;
	unsigned int i;
	double t0;

	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) {
		r->err = -errno;
		return;
	}
	w = calloc(nr, sizeof(*w));
	if (!w || pthread_barrier_init(&start, NULL, nr + 1)) {
		r->err = -ENOMEM;
		return;
	}
	for (i = 0; i < nr; i++) {
		cpu_set_t set;

		w[i].start = &start;
		w[i].iters = iters;
		w[i].len = len;
		w[i].page = sysconf(_SC_PAGESIZE);
		if (pthread_create(&w[i].thread, NULL, worker, &w[i])) {
			/* The barrier never opens; exit without joining. */
			r->err = -EAGAIN;
			return;
		}
		CPU_ZERO(&set);
		CPU_SET(ncpu > 0 ? i % ncpu : 0, &set);
		pthread_setaffinity_np(w[i].thread, sizeof(set), &set);
	}
	getrusage(RUSAGE_SELF, &ru0);
	pthread_barrier_wait(&start);
	t0 = now_s();
	for (i = 0; i < nr; i++)
		pthread_join(w[i].thread, NULL);
	r->wall_s = now_s() - t0;
	getrusage(RUSAGE_SELF, &ru1);
	for (i = 0; i < nr; i++)
		if (w[i].err && !r->err)
			r->err = w[i].err;
	r->stime_us = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	r->minflt = ru1.ru_minflt - ru0.ru_minflt;
}

static int parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *ret)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int threads = 0, iters = 64, mb = 8, depth = 5;
	char path[PATH_MAX], procs[PATH_MAX + 16], pid_s[32];
	const char *label = "-";
	unsigned long long faults;
	struct result r = { 0 };
	int fds[2], opt, ret, status;
	long ncpu;
	pid_t pid;
	ssize_t n;

	while ((opt = getopt(argc, argv, "t:i:m:d:l:")) != -1) {
		switch (opt) {
		case 't': ret = parse_uint(optarg, 1, 256, &threads); break;
		case 'i': ret = parse_uint(optarg, 1, 1000000, &iters); break;
		case 'm': ret = parse_uint(optarg, 1, 4096, &mb); break;
		case 'd': ret = parse_uint(optarg, 1, MAX_DEPTH, &depth); break;
		case 'l': label = optarg; ret = 0; break;
		default: ret = -EINVAL;
		}
		if (ret < 0) {
			fprintf(stderr, "usage: fault-cost [-t THREADS] [-i ITERS] [-m MB] "
				"[-d DEPTH 1..%d] [-l LABEL]\n", MAX_DEPTH);
			return 1;
		}
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (!threads)
		threads = ncpu > 0 ? ncpu : 1;
	if (access(CG_ROOT "/cgroup.controllers", F_OK) < 0) {
		printf("SKIP: no cgroup2 at %s\n", CG_ROOT);
		return 77;
	}
	ret = cg_create(depth);
	if (ret == -ENOENT || ret == -EINVAL) {
		printf("SKIP: cannot enable the memory controller: %s\n", strerror(-ret));
		cg_remove(depth);
		return 77;
	}
	if (ret < 0 || cg_path(depth, path, sizeof(path)) < 0 || pipe(fds) < 0) {
		fprintf(stderr, "fault-cost: cannot set up the cgroups: %s\n", strerror(-ret));
		cg_remove(depth);
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		cg_remove(depth);
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
		snprintf(pid_s, sizeof(pid_s), "%d", (int)getpid());
		r.err = write_file(procs, pid_s);
		if (!r.err)
			run(threads, iters, (size_t)mb << 20, &r);
		n = write(fds[1], &r, sizeof(r));
		_exit(n == sizeof(r) ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], &r, sizeof(r));
	close(fds[0]);
	waitpid(pid, &status, 0);
	cg_remove(depth);
	if (n != sizeof(r) || r.err) {
		fprintf(stderr, "fault-cost: the workload failed: %s\n",
			n != sizeof(r) ? "died" : strerror(-r.err));
		return 1;
	}
	faults = (unsigned long long)threads * iters * ((unsigned long long)mb << 20) /
		 sysconf(_SC_PAGESIZE);
	printf("FAULTCOST label=%s threads=%u depth=%u faults=%llu minflt=%lld wall_ms=%.1f "
	       "ns_per_fault=%.0f stime_ns_per_fault=%.0f\n", label, threads, depth, faults,
	       r.minflt, r.wall_s * 1e3, r.wall_s * 1e9 * threads / faults,
	       r.stime_us * 1e3 / faults);
	if (r.minflt < (long long)faults) {
		fprintf(stderr, "fault-cost: %lld faults for %llu pages: not one fault a page\n",
			r.minflt, faults);
		return 1;
	}
	return 0;
}
