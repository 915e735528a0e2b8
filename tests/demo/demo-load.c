// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * demo-load: the workload of `make demo`.
 *
 *   demo-load MB [SLOW_NODE [FAST_MB]]
 *
 * Allocates MB of anonymous memory with its pages placed on SLOW_NODE (the
 * slow tier, default 1) by a bind policy, and FAST_MB more (default 0) on
 * node 0 (the fast tier, with the CPUs), resets the policy to default (so
 * NUMA balancing may move the pages), prints "ready" and then reads all of
 * the memory in a loop until killed: every page is hot.  The fast part is
 * read by a second thread: the kernel only scans (and so only takes
 * placement faults on) pages already on the local node in a multi-threaded
 * process, and multi-threaded is what placement is for.  Which of its pages end
 * up on the fast tier depends only on the memory.numa_balancing of its
 * cgroup, which tierd sets.  Run it after moving the shell into the cgroup,
 * so the memory is charged there.
 *
 *   demo-load --react CGROUP_DIR MODE
 *
 * The reaction time the demo prints: mkdir CGROUP_DIR, watch it (inotify:
 * writes to its memory.numa_balancing) and print the
 * milliseconds from just before the mkdir() to the write of MODE, all
 * timed inside this one process (CLOCK_MONOTONIC): neither process
 * start-up nor the 9p root of the VM count. If tierd wrote the knob before
 * the watch was in place, the time up to that check is printed (an upper
 * bound). Exits 1 after 10 s without MODE.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_DEFAULT 0
#define MPOL_BIND 2

struct region {
	volatile unsigned char *p;
	size_t len;
};

static void *reader(void *arg)
{
	const struct region *r = arg;
	unsigned long sum = 0;

	for (;;)
		for (size_t off = 0; off < r->len; off += 64)
			sum += r->p[off];
	return (void *)sum;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* 1 if file holds mode (one line), 0 if not (yet), -1 if unreadable */
static int holds(const char *file, const char *mode)
{
	char buf[64];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return strcmp(buf, mode) == 0;
}

static int react(const char *dir, const char *mode)
{
	char knob[4096];
	double t0, deadline;
	int fd, wd, r;

	if (snprintf(knob, sizeof(knob), "%s/memory.numa_balancing", dir) >= (int)sizeof(knob))
		return 1;
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0) {
		perror("demo-load: inotify_init1");
		return 1;
	}
	t0 = now_ms();
	if (mkdir(dir, 0755) < 0) {
		fprintf(stderr, "demo-load: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* the directory: its watch sees writes to the files in it, the knob
	 * whether it came with the directory (cgroupfs) or later */
	wd = inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE);
	if (wd < 0) {
		fprintf(stderr, "demo-load: watch %s: %s\n", dir, strerror(errno));
		return 1;
	}
	deadline = t0 + 10000;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char ev[4096];

		r = holds(knob, mode);
		if (r > 0) {
			printf("%.2f\n", now_ms() - t0);
			return 0;
		}
		if (now_ms() >= deadline)
			break;
		r = poll(&p, 1, (int)(deadline - now_ms()) + 1);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && read(fd, ev, sizeof(ev)) < 0 && errno != EINTR)
			break;
	}
	fprintf(stderr, "demo-load: %s did not become %s\n", knob, mode);
	return 1;
}

int main(int argc, char **argv)
{
	static struct region fast;
	pthread_t thread;
	unsigned long mb, node = 1, mask, fast_mb = 0, fast_mask = 1;
	volatile unsigned char *p, *q = NULL;
	unsigned long sum = 0;
	long page = sysconf(_SC_PAGESIZE);
	size_t len, fast_len;
	char *end;

	if (argc == 4 && strcmp(argv[1], "--react") == 0)
		return react(argv[2], argv[3]);
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: demo-load MB [SLOW_NODE [FAST_MB]]\n"
				"       demo-load --react CGROUP_DIR MODE\n");
		return 2;
	}
	errno = 0;
	mb = strtoul(argv[1], &end, 10);
	if (errno || *end || mb == 0 || mb > 4096) {
		fprintf(stderr, "demo-load: bad size '%s'\n", argv[1]);
		return 2;
	}
	if (argc >= 3) {
		node = strtoul(argv[2], &end, 10);
		if (*end || node >= 64) {
			fprintf(stderr, "demo-load: bad node '%s'\n", argv[2]);
			return 2;
		}
	}
	if (argc == 4) {
		errno = 0;
		fast_mb = strtoul(argv[3], &end, 10);
		if (errno || *end || fast_mb > 4096) {
			fprintf(stderr, "demo-load: bad size '%s'\n", argv[3]);
			return 2;
		}
	}
	len = mb << 20;
	fast_len = fast_mb << 20;
	if (fast_len) {
		/* The part that starts on the fast tier (node 0). */
		if (syscall(SYS_set_mempolicy, MPOL_BIND, &fast_mask, sizeof(fast_mask) * 8) < 0) {
			fprintf(stderr, "demo-load: set_mempolicy(BIND, node 0): %s\n", strerror(errno));
			return 1;
		}
		q = mmap(NULL, fast_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED) {
			fprintf(stderr, "demo-load: mmap: %s\n", strerror(errno));
			return 1;
		}
		madvise((void *)q, fast_len, MADV_NOHUGEPAGE);
		for (size_t off = 0; off < fast_len; off += (size_t)page)
			q[off] = (unsigned char)(off >> 12) | 1;
	}
	mask = 1UL << node;
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8) < 0) {
		fprintf(stderr, "demo-load: set_mempolicy(BIND, node %lu): %s\n", node, strerror(errno));
		return 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "demo-load: mmap: %s\n", strerror(errno));
		return 1;
	}
	madvise((void *)p, len, MADV_NOHUGEPAGE); /* 4K pages: promotion is visible page by page */
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = (unsigned char)(off >> 12) | 1;
	if (syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0) < 0) {
		fprintf(stderr, "demo-load: set_mempolicy(DEFAULT): %s\n", strerror(errno));
		return 1;
	}
	if (fast_len) {
		fast.p = q;
		fast.len = fast_len;
		if (pthread_create(&thread, NULL, reader, &fast) != 0) {
			fprintf(stderr, "demo-load: pthread_create failed\n");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		for (size_t off = 0; off < len; off += 64)
			sum += p[off];
	return (int)sum;
}
