// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/scale-tree.c: a fake host for the scale benchmark (bench-scale.sh)
 * and the hostile-path tests: a cgroup tree, sysfs and procfs under DIR, as
 * tests/daemon/lib-host.sh builds them, with many cgroups or very long paths.
 *
 *   scale-tree [-n N] [-d DEPTH] [-l NAMELEN] [-f FANOUT] DIR
 *
 *   -d 1 (default): N cgroups /s<K>/c<I>, a thousand per slice (plain);
 *   -d DEPTH > 1:   chains of DEPTH - 1 directories named with NAMELEN bytes
 *                   each, and FANOUT leaves at the bottom of each (also
 *                   NAMELEN bytes), until N cgroups: with -d 250 -l 255
 *                   each leaf's path is about 64 KB.
 *
 * Every directory is made relative to its parent's fd (paths far beyond
 * PATH_MAX), with the files of a memory cgroup (memory.numa_balancing,
 * memory.low, memory.high, memory.current, memory.stat, cgroup.procs,
 * cgroup.events).  Prints the number of cgroups and the longest path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "scale-tree: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(int dfd, const char *name, const char *content)
{
	size_t len = strlen(content);
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die(name);
	if (len && write(fd, content, len) != (ssize_t)len)
		die(name);
	close(fd);
}

static void put_path(const char *dir, const char *rel, const char *content)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die(p);
		*s = '/';
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, strlen(content)) < 0)
		die(p);
	close(fd);
}

/* mkdirat + the files of a memory cgroup; the new directory's fd. */
static int mk_cgroup(int parent, const char *name)
{
	int fd;

	if (mkdirat(parent, name, 0755) < 0)
		die(name);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die(name);
	put(fd, "memory.numa_balancing", "inherit\n");
	put(fd, "memory.low", "0\n");
	put(fd, "memory.high", "max\n");
	put(fd, "memory.current", "8192\n");
	put(fd, "memory.stat", "anon 4096\nfile 4096\n");
	put(fd, "cgroup.procs", "");
	put(fd, "cgroup.events", "populated 0\nfrozen 0\n");
	put(fd, "cgroup.subtree_control", "memory\n");
	return fd;
}

/* NAMELEN bytes: the prefix, then 'x' up to the length. */
static void name_of(char *buf, size_t namelen, const char *prefix, unsigned long i)
{
	int n = snprintf(buf, namelen + 1, "%s%lu-", prefix, i);

	if (n < 0)
		n = 0;
	for (size_t k = (size_t)n; k < namelen; k++)
		buf[k] = 'x';
	buf[namelen > (size_t)n ? namelen : (size_t)n] = '\0';
}

static unsigned long parse(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "scale-tree: bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long n = 1000, depth = 1, namelen = 255, fanout = 1000, made = 0;
	size_t longest = 0;
	char dir[4096], name[512];
	int opt, root;

	while ((opt = getopt(argc, argv, "n:d:l:f:")) != -1) {
		switch (opt) {
		case 'n': n = parse(optarg, "-n"); break;
		case 'd': depth = parse(optarg, "-d"); break;
		case 'l': namelen = parse(optarg, "-l"); break;
		case 'f': fanout = parse(optarg, "-f"); break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || !depth || !fanout || namelen < 8 || namelen > 255)
		goto usage;

	if (mkdir(argv[optind], 0755) < 0 && errno != EEXIST)
		die(argv[optind]);
	/* sysfs and procfs of a two-node, two-tier machine (lib-host.sh) */
	for (int k = 0; k < 2; k++) {
		char rel[128], c[256];

		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/meminfo", k);
		snprintf(c, sizeof(c), "Node %d MemTotal: 1048576 kB\nNode %d MemFree: 524288 kB\n",
			 k, k);
		put_path(argv[optind], rel, c);
	}
	put_path(argv[optind], "sys/devices/system/node/online", "0-1\n");
	put_path(argv[optind], "sys/devices/system/node/has_memory", "0-1\n");
	put_path(argv[optind], "sys/devices/system/node/has_cpu", "0\n");
	put_path(argv[optind], "sys/devices/virtual/memory_tiering/memory_tier4/nodelist", "0\n");
	put_path(argv[optind], "sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "1\n");
	put_path(argv[optind], "proc/sys/kernel/numa_balancing", "2\n");
	put_path(argv[optind], "proc/meminfo", "MemTotal: 2097152 kB\n");
	put_path(argv[optind], "cg/cgroup.controllers", "cpuset cpu io memory pids\n");
	put_path(argv[optind], "cg/cgroup.subtree_control", "memory\n");
	put_path(argv[optind], "cg/cgroup.procs", "");
	snprintf(dir, sizeof(dir), "%s/cg", argv[optind]);
	root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		die(dir);

	if (depth == 1) {
		int slice = -1;

		for (unsigned long i = 0; i < n; i++) {
			if (i % 1000 == 0) {
				if (slice >= 0)
					close(slice);
				snprintf(name, sizeof(name), "s%lu", i / 1000);
				slice = mk_cgroup(root, name);
				made++;
			}
			snprintf(name, sizeof(name), "c%lu", i);
			close(mk_cgroup(slice, name));
			made++;
		}
		if (slice >= 0)
			close(slice);
		longest = strlen("/s/c") + 2 * 20;
	} else {
		for (unsigned long chain = 0; made < n; chain++) {
			int *fds = calloc(depth, sizeof(int));
			size_t len = 0;

			if (!fds)
				die("calloc");
			fds[0] = root;
			for (unsigned long k = 1; k < depth && made < n; k++) {
				name_of(name, namelen, k == 1 ? "chain" : "d", k == 1 ? chain : k);
				fds[k] = mk_cgroup(fds[k - 1], name);
				len += 1 + strlen(name);
				made++;
			}
			for (unsigned long i = 0; i < fanout && made < n; i++) {
				name_of(name, namelen, "leaf", i);
				close(mk_cgroup(fds[depth - 1], name));
				if (len + 1 + strlen(name) > longest)
					longest = len + 1 + strlen(name);
				made++;
			}
			for (unsigned long k = 1; k < depth; k++)
				if (fds[k] > 0)
					close(fds[k]);
			free(fds);
		}
	}
	close(root);
	printf("%lu cgroups, longest path %zu bytes\n", made, longest);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n N] [-d DEPTH] [-l NAMELEN] [-f FANOUT] DIR\n", argv[0]);
	return 2;
}
