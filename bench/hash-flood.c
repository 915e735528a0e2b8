// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hash flooding (issue 24, item 7): N sibling cgroups whose names were
 * chosen against the hashes tierd and libtier used before SipHash, and the
 * time the tables take to hold them.  Figures only, not a test.
 *
 *   make bench-hash [BENCH_HASH_N=16384]
 *
 * Two sets of N paths "/flood/NAME":
 *  - djb2: names made of the blocks "az" and "bY" (97*33+122 == 98*33+89),
 *    so every path has the same djb2 hash (tierd's old cgroup_path_hash()):
 *    inserted into tierd's managed table (tierd-table.c), then looked up;
 *  - fnv: names "pNNNNN" + three bytes chosen so that the low 16 bits of the
 *    path's FNV-1a hash (libtier's old hash) are 0: every path in the same
 *    bucket of the plan's table and the same home slot of a name table:
 *    evaluated into a plan (tier_evaluate()) with a policy whose one rule
 *    matches them all, then each looked up (tier_plan_find()).
 * Wall-clock milliseconds of each phase, best of -i runs.
 *
 * hash-flood -t DIR [-n N] writes the djb2 set as a fake cgroup tree
 * instead (DIR/flood/NAME with the files tierd reads), for
 * bench/hash-startup.sh, which times tierd's startup over it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tier.h>

#include "tierd-table.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what, int r)
{
	fprintf(stderr, "hash-flood: %s: %s\n", what, strerror(-r));
	exit(1);
}

/* N paths of equal djb2 hash (N a power of two, at most 2^20). */
static char **djb2_paths(size_t n)
{
	char **v = calloc(n, sizeof(*v));
	unsigned bits = 0;

	while ((1ul << bits) < n)
		bits++;
	for (size_t i = 0; i < n; i++) {
		char name[64] = "/flood/", *p = name + strlen(name);

		for (unsigned b = 0; b < bits; b++, p += 2)
			memcpy(p, (i >> b) & 1 ? "bY" : "az", 2);
		*p = '\0';
		v[i] = strdup(name);
	}
	return v;
}

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

/*
 * N paths whose FNV-1a hash has its low 16 bits 0.  The low k bits of
 * FNV-1a depend only on the low k bits of the state and of the bytes: two
 * bytes c0 c1 are tried until bits 8..15 of the state are 0, then the last
 * byte c2 = the state's low byte makes (state ^ c2) == 0 mod 2^16, and so
 * the final multiplication keeps the low 16 bits 0.
 */
static char **fnv_paths(size_t n)
{
	char **v = calloc(n, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		char name[64];
		size_t len = (size_t)snprintf(name, sizeof(name), "/flood/p%05zu", i);
		uint64_t h = FNV_OFFSET;
		bool found = false;

		for (size_t j = 0; j < len; j++)
			h = fnv_step(h, (unsigned char)name[j]);
		for (unsigned c0 = 'a'; c0 <= 'z' && !found; c0++)
			for (unsigned c1 = 1; c1 < 256 && !found; c1++) {
				uint64_t h1 = fnv_step(fnv_step(h, (unsigned char)c0), (unsigned char)c1);
				unsigned c2 = (unsigned)(h1 & 0xff);

				if (c1 == '/' || (h1 & 0xff00) || c2 == 0 || c2 == '/')
					continue;
				name[len] = (char)c0;
				name[len + 1] = (char)c1;
				name[len + 2] = (char)c2;
				name[len + 3] = '\0';
				found = true;
			}
		if (!found)
			die("no suffix", -EDOM);
		v[i] = strdup(name);
	}
	return v;
}

static struct tier_policy *policy(void)
{
	static const char text[] = "[class:flood]\nmode = off\n"
				   "[rule:flood]\nclass = flood\ncgroup = /flood/*\n";
	struct tier_policy *p = NULL;
	int r = tier_policy_load_buffer("flood.conf", text, strlen(text), NULL, &p);

	if (r < 0)
		die("policy", r);
	return p;
}

static struct tier_observed *observed(char **paths, size_t n)
{
	struct tier_observed *o = NULL;
	int r = tier_observed_new(1ull << 30, &o);

	for (size_t i = 0; r == 0 && i < n; i++) {
		struct tier_observed_cgroup *c;

		r = tier_observed_add(o, paths[i], &c);
	}
	if (r < 0)
		die("observed", r);
	return o;
}

struct times {
	double evaluate, find, table_put, table_get;
};

static void run(const struct tier_policy *p, char **paths, size_t n, struct times *best)
{
	struct tier_observed *o = observed(paths, n);
	struct managed_table t = { 0 };
	struct tier_plan *plan = NULL;
	struct times x;
	double t0;
	int r;

	t0 = now_ms();
	r = tier_evaluate(p, o, &plan);
	if (r < 0)
		die("evaluate", r);
	x.evaluate = now_ms() - t0;

	t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		if (!tier_plan_find(plan, paths[i]))
			die("find", -ENOENT);
	x.find = now_ms() - t0;

	t0 = now_ms();
	for (size_t i = 0; i < n; i++) {
		struct managed *m;

		r = managed_table_put(&t, tier_plan_entry(plan, i), true, &m);
		if (r < 0)
			die("table put", r);
	}
	x.table_put = now_ms() - t0;

	t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		if (!managed_table_get(&t, paths[i]))
			die("table get", -ENOENT);
	x.table_get = now_ms() - t0;

	managed_table_clear(&t);
	tier_plan_free(plan);
	tier_observed_free(o);
	if (best->evaluate == 0 || x.evaluate < best->evaluate)
		best->evaluate = x.evaluate;
	if (best->find == 0 || x.find < best->find)
		best->find = x.find;
	if (best->table_put == 0 || x.table_put < best->table_put)
		best->table_put = x.table_put;
	if (best->table_get == 0 || x.table_get < best->table_get)
		best->table_get = x.table_get;
}

static void put(int dfd, const char *file, const char *content)
{
	int fd = openat(dfd, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(content);

	if (fd < 0 || write(fd, content, len) != (ssize_t)len)
		die(file, -errno);
	close(fd);
}

/* DIR/flood and its n children, as tests/daemon/lib-host.sh's fill_cgroup. */
static int write_tree(const char *dir, char **paths, size_t n)
{
	int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		die(dir, -errno);
	for (size_t i = 0; i <= n; i++) {
		const char *rel = i == 0 ? "flood" : paths[i - 1] + 1;
		int d;

		if (mkdirat(root, rel, 0755) < 0 && errno != EEXIST)
			die(rel, -errno);
		d = openat(root, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d < 0)
			die(rel, -errno);
		put(d, "memory.numa_balancing", "inherit\n");
		put(d, "memory.low", "0\n");
		put(d, "memory.high", "max\n");
		put(d, "memory.current", "0\n");
		put(d, "cgroup.procs", "");
		put(d, "cgroup.events", "populated 1\nfrozen 0\n");
		close(d);
	}
	close(root);
	return 0;
}

int main(int argc, char **argv)
{
	const char *tree = NULL;
	const char *names[] = { "djb2", "fnv" };
	struct tier_policy *p;
	char **sets[2];
	size_t n = 16384;
	int iters = 3, opt;

	while ((opt = getopt(argc, argv, "n:i:t:")) != -1) {
		switch (opt) {
		case 't':
			tree = optarg;
			break;
		case 'n':
		case 'i': {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || v > (1ul << 20)) {
				fprintf(stderr, "hash-flood: -%c %s: not a number up to 2^20\n", opt,
					optarg);
				return 2;
			}
			if (opt == 'n')
				n = v;
			else
				iters = (int)v;
			break;
		}
		default:
			fprintf(stderr, "usage: %s [-n N] [-i ITERS] [-t DIR]\n", argv[0]);
			return 2;
		}
	}
	if (n == 0 || n > (1u << 20) || (n & (n - 1)) || iters < 1) {
		fprintf(stderr, "hash-flood: -n must be a power of two up to 2^20, -i >= 1\n");
		return 2;
	}
	sets[0] = djb2_paths(n);
	if (tree)
		return write_tree(tree, sets[0], n);
	p = policy();
	sets[1] = fnv_paths(n);
	printf("hash-flood: %zu sibling cgroups, best of %d (ms)\n", n, iters);
	printf("%-6s %10s %10s %10s %10s\n", "set", "evaluate", "plan-find", "table-put",
	       "table-get");
	for (int s = 0; s < 2; s++) {
		struct times best = { 0 };

		for (int i = 0; i < iters; i++)
			run(p, sets[s], n, &best);
		printf("%-6s %10.1f %10.1f %10.1f %10.1f\n", names[s], best.evaluate, best.find,
		       best.table_put, best.table_get);
		for (size_t i = 0; i < n; i++)
			free(sets[s][i]);
		free(sets[s]);
	}
	tier_policy_unref(p);
	return 0;
}
