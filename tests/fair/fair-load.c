// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fair-load: a workload of the fairness experiment (tests/fair/).
 *
 *   fair-load MB PLACE SECONDS
 *
 * Allocates MB of private anonymous memory (4K pages), touching it with the
 * placement PLACE: "default" (the kernel's choice: the fast tier while it has
 * room, as a hog that starts first gets it) or a node number (bound there
 * while it is touched, as a late workload finds the fast tier taken), then
 * resets the policy to default so NUMA balancing may move the pages.  Prints
 * "ready" and reads every page in a loop for SECONDS, so all of its memory is
 * hot (with a rest twice as long as each pass, which leaves CPU time to the
 * rest of the VM), then exits 0.  Run it after moving the shell into its cgroup, so the
 * memory is charged there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_DEFAULT 0
#define MPOL_BIND 2

static int parse_ul(const char *s, unsigned long max, unsigned long *ret)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long mb, node = 0, secs, mask;
	volatile unsigned char *p;
	unsigned long sum = 0;
	long page = sysconf(_SC_PAGESIZE);
	bool bind;
	double end;
	size_t len;

	if (argc != 4 || parse_ul(argv[1], 4096, &mb) < 0 || mb == 0 ||
	    parse_ul(argv[3], 86400, &secs) < 0) {
		fprintf(stderr, "usage: fair-load MB default|NODE SECONDS\n");
		return 2;
	}
	bind = strcmp(argv[2], "default") != 0;
	if (bind && parse_ul(argv[2], 63, &node) < 0) {
		fprintf(stderr, "fair-load: bad placement '%s'\n", argv[2]);
		return 2;
	}
	len = mb << 20;
	if (bind) {
		mask = 1UL << node;
		if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8) < 0) {
			fprintf(stderr, "fair-load: set_mempolicy(BIND, node %lu): %s\n", node,
				strerror(errno));
			return 1;
		}
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "fair-load: mmap: %s\n", strerror(errno));
		return 1;
	}
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = (unsigned char)(off >> 12) | 1;
	if (bind && syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0) < 0) {
		fprintf(stderr, "fair-load: set_mempolicy(DEFAULT): %s\n", strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	/* Read every page, then rest twice as long as the pass took: every page
	 * is touched several times a second, and the VM's two vCPUs keep time
	 * for the sampler and tierd. */
	end = now_s() + (double)secs;
	while (now_s() < end) {
		double t0 = now_s(), dt;
		struct timespec ts;

		for (size_t off = 0; off < len; off += (size_t)page)
			sum += p[off];
		dt = now_s() - t0;
		dt *= 2;
		if (dt > 0.4)
			dt = 0.4;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(dt * 1e9);
		nanosleep(&ts, NULL);
	}
	return sum == 42;
}
