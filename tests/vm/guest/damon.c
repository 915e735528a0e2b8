/* damon.c: the VM cases of the DAMON backend, through lib/damon.c.
 *
 * damon-promote: two cgroups, "promote" and "off", each with a hot set of
 * TIERD_DAMON_HOT_MB (default 48) MB of private anonymous memory placed on
 * the slow node and then re-policied to default, read in a loop.  With
 * kernel.numa_balancing 0 (so nothing but DAMON moves pages), one kdamond
 * of our own with one paddr context over node 1's physical range and one
 * migrate_hot scheme (target node 0) filtered to "promote" (memcg filter,
 * matching N).  Waits (bounded) until promote's hot set is >= 90% on node
 * 0 (move_pages() of its pages), then asserts that off's stayed on node 1
 * and that the scheme's sz_applied grew.  Promote also holds a cold set
 * (TIERD_DAMON_COLD_MB, default 32, placed before the hot set and never
 * touched again): how much of it was promoted too is printed, not
 * asserted (DAMON acts on regions, not pages).  It also saves the ownership record and reclaims the
 * kdamond through a second handle, as a restarted tierd would.
 *
 * Prints "TIERD-VM-METRIC: case=damon-promote ..." with the time to 90%,
 * pgmigrate_success, the scheme's stats and the kdamond's CPU time.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmlib.h"
#include "damon-case.h"
#include "damon.h"	/* lib/damon.h */

#define DAMON_ADMIN	"/sys/kernel/mm/damon/admin"
#define OWNER_FILE	"damon-owner"

struct numa_anon {
	uint64_t n0, n1;	/* bytes of anon on node 0 and node 1 */
};

/* "<key> N0=<bytes> N1=<bytes>" of memory.numa_stat (key anon, file). */
static int read_numa(const char *cg, const char *key, struct numa_anon *ret)
{
	char buf[8192], *line, *save = NULL;
	size_t kl = strlen(key);

	if (cg_read(cg, "memory.numa_stat", buf, sizeof(buf)) < 0)
		return -EIO;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b;

		if (!strncmp(line, key, kl) && line[kl] == ' ' &&
		    sscanf(line + kl, " N0=%llu N1=%llu", &a, &b) == 2) {
			ret->n0 = a;
			ret->n1 = b;
			return 0;
		}
	}
	return -ENOENT;
}

static int read_anon(const char *cg, struct numa_anon *ret)
{
	return read_numa(cg, "anon", ret);
}

/* utime + stime of a thread, in seconds. */
static double proc_cpu_sec(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_attr(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	/* fields 3.. after ") ": utime is field 14, stime 15 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Where a workload's sets are, sent to the parent once placed. */
struct wl_addrs {
	void *hot;
	void *cold;
};

/* A hot set on the slow node in cgroup cg, read in a loop until killed,
 * after a cold set (cold_bytes, may be 0) placed there too and never
 * touched again.  Writes their addresses to ready_fd once placed. */
static pid_t start_workload(const char *cg, size_t bytes, size_t cold_bytes, int ready_fd)
{
	struct wl_addrs a = { NULL, NULL };
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) < 0 || policy_bind(SLOW_NODE) < 0)
		_exit(2);
	if (cold_bytes) {
		a.cold = mmap(NULL, cold_bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a.cold == MAP_FAILED)
			_exit(3);
		madvise(a.cold, cold_bytes, MADV_NOHUGEPAGE);
		dirty_pages(a.cold, cold_bytes);
	}
	a.hot = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.hot == MAP_FAILED)
		_exit(3);
	madvise(a.hot, bytes, MADV_NOHUGEPAGE);
	dirty_pages(a.hot, bytes);
	if (policy_default() < 0)
		_exit(4);
	if (write(ready_fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
		_exit(5);
	for (;;)
		touch_pages(a.hot, bytes);
}

int case_damon_promote(const char *name)
{
	struct tier_damon *d = NULL, *d2 = NULL;
	struct tier_damon_range *ranges = NULL;
	size_t nr_ranges = 0, hot_bytes;
	char cg_promote[256] = "", cg_off[256] = "", nb_saved[16] = "";
	struct numa_anon pa = { 0 }, oa = { 0 }, pa0, oa0;
	struct tier_damon_stats st0 = { 0 }, st = { 0 };
	struct tier_damon_kdamond k = { .pid = -1 };
	struct tier_damon_owner owner, loaded;
	uint64_t fp = 0, mig0 = 0, mig1 = 0;
	pid_t w_promote = -1, w_off = -1;
	double t0, t90 = -1, elapsed = 0, bound, cpu = -1;
	int hot_mb, cold_mb, pipefd[2] = { -1, -1 }, pipe2fd[2] = { -1, -1 }, run_fd = -1, r;
	struct wl_addrs pa_addr = { NULL, NULL }, oa_addr;
	long hot_pages, hot_fast = 0, cold_fast = -1, present = 0;
	size_t cold_bytes;
	int young, min_regions, region_mb;
	struct tier_damon_range *split = NULL;
	size_t nr_split = 0;
	unsigned idx = 0;
	bool started = false, running = false;

	if (env_int("TIERD_DAMON_HOT_MB", 48, 4, 128, &hot_mb) < 0 ||
	    env_int("TIERD_DAMON_COLD_MB", 32, 0, 64, &cold_mb) < 0 ||
	    env_int("TIERD_DAMON_YOUNG", 0, 0, 1, &young) < 0 ||
	    env_int("TIERD_DAMON_MIN_REGIONS", 10, 3, 10000, &min_regions) < 0 ||
	    env_int("TIERD_DAMON_REGION_MB", 2, 0, 1024, &region_mb) < 0)
		return 1;
	hot_bytes = (size_t)hot_mb << 20;
	cold_bytes = (size_t)cold_mb << 20;
	hot_pages = (long)(hot_bytes / page_size);
	bound = 180.0 * time_scale;

	if (access(DAMON_ADMIN, F_OK) < 0) {
		msg("SKIP: no %s (kernel without CONFIG_DAMON_SYSFS)", DAMON_ADMIN);
		return EXIT_SKIP;
	}
	r = tier_damon_open("/sys", "/proc", &d);
	if (r < 0) {
		msg("FAIL: tier_damon_open: %s", strerror(-r));
		return 1;
	}
	r = tier_damon_node_ranges("/proc", SLOW_NODE, &ranges, &nr_ranges);
	CHECK(r == 0, "node %d's physical ranges from /proc/zoneinfo: %zu (%s)", SLOW_NODE,
	      nr_ranges, r < 0 ? strerror(-r) : "ok");
	if (r < 0)
		goto out;
	for (size_t i = 0; i < nr_ranges; i++)
		msg("  node %d range %zu: [%#" PRIx64 ", %#" PRIx64 ") %" PRIu64 " MB", SLOW_NODE, i,
		    ranges[i].start, ranges[i].end, (ranges[i].end - ranges[i].start) >> 20);

	/* nothing but DAMON may move pages */
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	if (set_numa_balancing(0) < 0) {
		msg("FAIL: cannot set kernel.numa_balancing to 0");
		failures++;
		goto out;
	}

	if (cg_create(NULL, "promote", cg_promote, sizeof(cg_promote)) < 0 ||
	    cg_create(NULL, "off", cg_off, sizeof(cg_off)) < 0 || pipe(pipefd) < 0 ||
	    pipe(pipe2fd) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	w_promote = start_workload(cg_promote, hot_bytes, cold_bytes, pipefd[1]);
	w_off = start_workload(cg_off, hot_bytes, 0, pipe2fd[1]);
	if (w_promote < 0 || w_off < 0 ||
	    read(pipefd[0], &pa_addr, sizeof(pa_addr)) != (ssize_t)sizeof(pa_addr) ||
	    read(pipe2fd[0], &oa_addr, sizeof(oa_addr)) != (ssize_t)sizeof(oa_addr)) {
		msg("FAIL: the workloads did not start");
		failures++;
		goto out;
	}
	if (read_anon(cg_promote, &pa0) < 0 || read_anon(cg_off, &oa0) < 0) {
		msg("FAIL: no anon line in memory.numa_stat");
		failures++;
		goto out;
	}
	/* the placement set every page's accessed bit: clear them, as time
	 * would (reclaim's aging); the hot loops set theirs again */
	if (young) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/clear_refs", (int)w_promote);
		CHECK(write_attr(path, "1") == 0, "accessed bits of promote's pages cleared");
	}
	msg("  start: promote anon N0=%" PRIu64 " N1=%" PRIu64 ", off anon N0=%" PRIu64
	    " N1=%" PRIu64, pa0.n0, pa0.n1, oa0.n0, oa0.n1);
	CHECK(pa0.n1 >= (hot_bytes + cold_bytes) * 9 / 10 && oa0.n1 >= hot_bytes * 9 / 10,
	      "both hot sets (and promote's %d MB cold set) start on node %d", cold_mb,
	      SLOW_NODE);

	/* our kdamond: one paddr context over node 1, one scheme for promote */
	{
		/* TIERD_DAMON_YOUNG=1: also filter out the pages not accessed
		 * since DAMON's last check (a per-page check, as HMSDK does) */
		const struct tier_damon_filter filters[] = {
			{ .type = TIER_DAMON_FILTER_MEMCG, .matching = false,
			  .memcg_path = "/promote" },
			{ .type = TIER_DAMON_FILTER_YOUNG, .matching = false },
		};
		const struct tier_damon_scheme scheme = {
			.action = TIER_DAMON_MIGRATE_HOT,
			.target_nid = FAST_NODE,
			.sz = { page_size, UINT64_MAX },
			.nr_accesses = { 1, UINT64_MAX },
			.age = { 0, UINT64_MAX },
			.filters = filters,
			.nr_filters = young ? 2 : 1,
		};
		struct tier_damon_config cfg = {
			.sample_us = 5000,
			.aggr_us = 100000,
			.update_us = 1000000,
			.min_nr_regions = (uint64_t)min_regions,
			.max_nr_regions = 1000,
			.regions = ranges,
			.nr_regions = nr_ranges,
			.schemes = &scheme,
			.nr_schemes = 1,
		};

		/* Start with regions of TIERD_DAMON_REGION_MB (0: the node's
		 * ranges as they are): the schemes apply from the first
		 * aggregation interval, before DAMON has split a whole-node
		 * region, and the pattern of one sampled page per region would
		 * then promote all of the cgroup's pages, cold ones too. */
		r = tier_damon_ranges_split(ranges, nr_ranges, (uint64_t)region_mb << 20, &split,
					    &nr_split);
		CHECK(r == 0, "%zu initial regions of %d MB (%s)", nr_split, region_mb,
		      r < 0 ? strerror(-r) : "ok");
		if (r < 0)
			goto out;
		cfg.regions = split;
		cfg.nr_regions = nr_split;
		r = tier_damon_kdamond_add(d, &idx);
		CHECK(r == 0, "kdamond added: index %u (%s)", idx, r < 0 ? strerror(-r) : "ok");
		if (r < 0)
			goto out;
		r = tier_damon_stage(d, idx, &cfg, &fp);
		CHECK(r == 0, "staged: fingerprint %016" PRIx64 " (%s)", fp,
		      r < 0 ? strerror(-r) : "ok");
		if (r < 0)
			goto out;
	}
	mig0 = 0;
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	r = tier_damon_start(d, idx);
	CHECK(r == 0, "kdamond %u on (%s)", idx, r < 0 ? strerror(-r) : "ok");
	if (r < 0)
		goto out;
	started = true;
	t0 = now_sec();
	r = tier_damon_kdamond_get(d, idx, &k);
	CHECK(r == 0 && k.running && k.pid > 0, "kdamond %u runs, pid %d", idx, k.pid);

	/* the ownership record, and a second handle reclaiming it */
	run_fd = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = run_fd < 0 ? -errno : tier_damon_owner_of(d, idx, fp, &owner);
	if (r == 0)
		r = tier_damon_owner_save(run_fd, OWNER_FILE, &owner);
	if (r == 0)
		r = tier_damon_owner_load(run_fd, OWNER_FILE, &loaded);
	if (r == 0)
		r = tier_damon_open("/sys", "/proc", &d2);
	if (r == 0)
		r = tier_damon_reclaim(d2, &loaded, &running);
	CHECK(r == 0 && running && loaded.pid == k.pid && loaded.starttime > 0,
	      "a second handle reclaims kdamond %u from /run/%s (pid %d, start %" PRIu64 ")",
	      idx, OWNER_FILE, loaded.pid, loaded.starttime);

	/* wait for promote's anon to reach node 0, bounded */
	for (;;) {
		elapsed = now_sec() - t0;
		hot_fast = pages_on_node_pid(w_promote, pa_addr.hot, hot_bytes, FAST_NODE,
					     &present);
		if (hot_fast < 0 || read_anon(cg_promote, &pa) < 0 || read_anon(cg_off, &oa) < 0)
			break;
		if (t90 < 0 && hot_fast >= hot_pages * 9 / 10) {
			t90 = elapsed;
			break;
		}
		if (elapsed > bound)
			break;
		sleep_sec(1);
	}
	/* pgmigrate_success counts a batch when the whole batch is done, and
	 * DAMON migrates a region's pages in one batch: wait for it (bounded) */
	for (int i = 0; i < 30 * (int)time_scale; i++) {
		read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
		if (hot_fast < 0 || mig1 - mig0 >= (uint64_t)hot_fast)
			break;
		sleep_sec(1);
	}
	r = tier_damon_update_stats(d, idx);
	if (r == 0)
		r = tier_damon_stats_read(d, idx, 0, &st);
	CHECK(r == 0, "scheme stats read (%s)", r < 0 ? strerror(-r) : "ok");
	cpu = proc_cpu_sec(k.pid);
	if (cold_bytes)
		cold_fast = pages_on_node_pid(w_promote, pa_addr.cold, cold_bytes, FAST_NODE,
					      &present);
	/* off is still where it was, now that promote has arrived */
	read_anon(cg_off, &oa);
	msg("  end (%.1f s): promote anon N0=%" PRIu64 " N1=%" PRIu64 ", off anon N0=%" PRIu64
	    " N1=%" PRIu64, elapsed, pa.n0, pa.n1, oa.n0, oa.n1);
	CHECK(t90 >= 0, "promote: >= 90%% of its hot set on node %d (%ld of %ld pages; %.1f s,"
	      " bound %.0f s)", FAST_NODE, hot_fast, hot_pages, t90, bound);
	if (cold_bytes)
		msg("  promote's cold set (never touched after placement): %ld of %ld pages on "
		    "node %d", cold_fast, (long)(cold_bytes / page_size), FAST_NODE);
	CHECK(oa.n1 >= oa0.n1 * 9 / 10 && oa.n0 < hot_bytes / 10,
	      "off: stays on node %d (N1 %" PRIu64 " of %" PRIu64 ")", SLOW_NODE, oa.n1, oa0.n1);
	CHECK(st.sz_applied > st0.sz_applied,
	      "sz_applied grew: %" PRIu64 " bytes (nr_applied %" PRIu64 ")", st.sz_applied,
	      st.nr_applied);
	{
		char nb[16] = "";

		read_attr("/proc/sys/kernel/numa_balancing", nb, sizeof(nb));
		CHECK(!strcmp(nb, "0"), "kernel.numa_balancing stayed 0 (%s)", nb);
	}
	msg("  pgmigrate_success %" PRIu64 " -> %" PRIu64, mig0, mig1);
	printf("TIERD-VM-METRIC: case=%s young=%d min_regions=%d hot_mb=%d cold_mb=%d cold_fast_pages=%ld secs_90=%.1f secs=%.1f pgmigrate_success=%" PRIu64
	       " sz_tried=%" PRIu64 " nr_applied=%" PRIu64 " sz_applied=%" PRIu64
	       " qt_exceeds=%" PRIu64 " kdamond_cpu_s=%.2f promote_n0=%" PRIu64
	       " promote_n1=%" PRIu64 " off_n0=%" PRIu64 " off_n1=%" PRIu64 "\n",
	       name, young, min_regions, hot_mb, cold_mb, cold_fast, t90, elapsed, mig1 - mig0, st.sz_tried, st.nr_applied, st.sz_applied,
	       st.qt_exceeds, cpu, pa.n0, pa.n1, oa.n0, oa.n1);
	fflush(stdout);

	/* The kernel's rules lib/damon.h states, checked on the real thing. */
	{
		char path[160], fpath[240];
		unsigned other = 0;

		/* nr_kdamonds is refused while a kdamond runs */
		r = write_attr(DAMON_ADMIN "/kdamonds/nr_kdamonds", "2");
		CHECK(r == -EBUSY, "nr_kdamonds while ours runs: %s (EBUSY expected)",
		      strerror(-r));
		r = tier_damon_kdamond_add(d, &other);
		CHECK(r == -EBUSY, "tier_damon_kdamond_add() while ours runs: %s", strerror(-r));
		/* a commit naming no cgroup stops the kdamond, the write succeeds */
		snprintf(path, sizeof(path), DAMON_ADMIN "/kdamonds/%u", idx);
		snprintf(fpath, sizeof(fpath), "%s/contexts/0/schemes/0/filters/0/memcg_path",
			 path);
		r = write_attr(fpath, "/no-such-cgroup");
		if (r == 0)
			r = tier_damon_commit(d, idx);
		CHECK(r == -ESRCH, "a commit with a memcg_path naming no cgroup: %s "
		      "(ESRCH expected: the kdamond stopped)", strerror(-r));
		if (r == -ESRCH)
			started = false;
		r = tier_damon_kdamond_get(d, idx, &k);
		CHECK(r == 0 && !k.running && k.pid == -1, "kdamond %u is off (pid %d)", idx,
		      k.pid);
		/* the same input at on: 6.12 answers ENOMEM (damon_sysfs_mk_scheme()
		 * returns NULL for a filter it cannot resolve), which libtier
		 * gives as EINVAL (a refused input, not its own out of memory);
		 * nothing started */
		r = tier_damon_start(d, idx);
		CHECK(r == -EINVAL, "on with that input: %s (EINVAL: 6.12's ENOMEM, a refused input)",
		      strerror(-r));
		if (r == 0)
			started = true;
		/* fixed, it starts again */
		r = write_attr(fpath, "/promote");
		if (r == 0)
			r = tier_damon_start(d, idx);
		CHECK(r == 0, "restored and on again (%s)", r < 0 ? strerror(-r) : "ok");
		if (r == 0)
			started = true;
	}

out:
	if (started) {
		r = tier_damon_stop(d, idx);
		CHECK(r == 0, "kdamond %u off (%s)", idx, r < 0 ? strerror(-r) : "ok");
	}
	if (run_fd >= 0) {
		tier_damon_owner_remove(run_fd, OWNER_FILE);
		close(run_fd);
	}
	if (w_promote > 0) {
		kill(w_promote, SIGKILL);
		waitpid(w_promote, NULL, 0);
	}
	if (w_off > 0) {
		kill(w_off, SIGKILL);
		waitpid(w_off, NULL, 0);
	}
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (pipe2fd[0] >= 0) {
		close(pipe2fd[0]);
		close(pipe2fd[1]);
	}
	if (cg_promote[0])
		cg_destroy(cg_promote);
	if (cg_off[0])
		cg_destroy(cg_off);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	free(ranges);
	free(split);
	tier_damon_free(d2);
	tier_damon_free(d);
	return verdict(name);
}

/* A 64 MB tmpfs file written on the slow node from cgroup cg (its page
 * cache is charged there), then read with read() in a loop until killed:
 * never mapped, so NUMA balancing has no PTE to fault on. */
static pid_t start_reader(const char *cg, const char *path, size_t bytes, int ready_fd)
{
	pid_t pid = fork();
	static char buf[1 << 16];
	int fd;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) < 0 || policy_bind(SLOW_NODE) < 0)
		_exit(2);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		_exit(3);
	memset(buf, 0x5a, sizeof(buf));
	for (size_t off = 0; off < bytes; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf))
			_exit(4);
	if (policy_default() < 0)
		_exit(5);
	if (write(ready_fd, "r", 1) != 1)
		_exit(6);
	for (;;)
		for (size_t off = 0; off < bytes; off += sizeof(buf))
			if (pread(fd, buf, sizeof(buf), (off_t)off) < 0)
				_exit(7);
}

/*
 * damon-pagecache: the page cache of a file read with read() (a tmpfs
 * file here: shmem folios, unmapped, not anon), placed on the slow node.
 * Phase 1: kernel.numa_balancing=2 alone for TIERD_DAMON_NB_SECONDS
 * (default 30) seconds: it stays on node 1 (nothing faults on it).
 * Phase 2: numa_balancing 0, a migrate_hot scheme with an anon filter
 * (matching Y: anonymous pages filtered out) and the memcg filter: >= 90%
 * of the cgroup's file pages reach node 0 (bounded wait).
 * With MGLRU on, 6.12's folio_mark_accessed() does not clear the idle
 * flag DAMON's paddr operations set on unmapped folios, so phase 2 depends
 * on /sys/kernel/mm/lru_gen/enabled (printed; run-vm --lru-gen off|on).
 */
int case_damon_pagecache(const char *name)
{
	const char *file = "/tmp/damon-pagecache";
	struct tier_damon *d = NULL;
	struct tier_damon_range *ranges = NULL;
	size_t nr_ranges = 0, bytes = 64u << 20;
	char cg[256] = "", nb_saved[16] = "", lru_gen[32] = "-";
	struct numa_anon f0 = { 0 }, f1 = { 0 }, f2 = { 0 };
	struct tier_damon_stats st = { 0 };
	struct tier_damon_kdamond k = { .pid = -1 };
	uint64_t promo0 = 0, promo1 = 0, mig0 = 0, mig1 = 0;
	double t0, t90 = -1, elapsed = 0, bound = 180.0 * time_scale, cpu = -1;
	int nb_seconds, pipefd[2] = { -1, -1 }, r;
	pid_t reader = -1;
	unsigned idx = 0;
	bool started = false;
	char c;

	if (env_int("TIERD_DAMON_NB_SECONDS", 30, 0, 600, &nb_seconds) < 0)
		return 1;
	if (access(DAMON_ADMIN, F_OK) < 0) {
		msg("SKIP: no %s (kernel without CONFIG_DAMON_SYSFS)", DAMON_ADMIN);
		return EXIT_SKIP;
	}
	read_attr("/sys/kernel/mm/lru_gen/enabled", lru_gen, sizeof(lru_gen));
	msg("  /sys/kernel/mm/lru_gen/enabled: %s", lru_gen);
	r = tier_damon_open("/sys", "/proc", &d);
	if (r == 0)
		r = tier_damon_node_ranges("/proc", SLOW_NODE, &ranges, &nr_ranges);
	if (r < 0) {
		msg("FAIL: DAMON handle or node %d ranges: %s", SLOW_NODE, strerror(-r));
		failures++;
		goto out;
	}
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	if (cg_create(NULL, "pcache", cg, sizeof(cg)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: cannot create the cgroup");
		failures++;
		goto out;
	}
	reader = start_reader(cg, file, bytes, pipefd[1]);
	if (reader < 0 || read(pipefd[0], &c, 1) != 1 || read_numa(cg, "file", &f0) < 0) {
		msg("FAIL: the reader did not start");
		failures++;
		goto out;
	}
	CHECK(f0.n1 >= bytes * 9 / 10, "page cache placed on node %d: file N0=%" PRIu64
	      " N1=%" PRIu64, SLOW_NODE, f0.n0, f0.n1);

	/* phase 1: NUMA balancing alone */
	if (nb_seconds > 0) {
		if (set_numa_balancing(2) < 0) {
			msg("FAIL: cannot set kernel.numa_balancing to 2");
			failures++;
			goto out;
		}
		read_key_u64("/proc/vmstat", "pgpromote_success", &promo0);
		sleep_sec(nb_seconds * time_scale);
		read_key_u64("/proc/vmstat", "pgpromote_success", &promo1);
		read_numa(cg, "file", &f1);
		CHECK(f1.n1 >= f0.n1 * 9 / 10,
		      "numa_balancing=2 alone, %d s: the page cache stays on node %d (N0=%" PRIu64
		      " N1=%" PRIu64 ", pgpromote_success +%" PRIu64 ")",
		      nb_seconds * time_scale, SLOW_NODE, f1.n0, f1.n1, promo1 - promo0);
	}

	/* phase 2: DAMON, anonymous pages filtered out, this cgroup only */
	if (set_numa_balancing(0) < 0) {
		msg("FAIL: cannot set kernel.numa_balancing to 0");
		failures++;
		goto out;
	}
	{
		const struct tier_damon_filter filters[] = {
			{ .type = TIER_DAMON_FILTER_ANON, .matching = true },
			{ .type = TIER_DAMON_FILTER_MEMCG, .matching = false,
			  .memcg_path = "/pcache" },
		};
		const struct tier_damon_scheme scheme = {
			.action = TIER_DAMON_MIGRATE_HOT,
			.target_nid = FAST_NODE,
			.sz = { page_size, UINT64_MAX },
			.nr_accesses = { 1, UINT64_MAX },
			.age = { 0, UINT64_MAX },
			.filters = filters,
			.nr_filters = 2,
		};
		const struct tier_damon_config cfg = {
			.sample_us = 5000,
			.aggr_us = 100000,
			.update_us = 1000000,
			.min_nr_regions = 10,
			.max_nr_regions = 1000,
			.regions = ranges,
			.nr_regions = nr_ranges,
			.schemes = &scheme,
			.nr_schemes = 1,
		};

		r = tier_damon_kdamond_add(d, &idx);
		if (r == 0)
			r = tier_damon_stage(d, idx, &cfg, NULL);
		if (r == 0)
			r = tier_damon_start(d, idx);
		CHECK(r == 0, "kdamond %u staged and on (%s)", idx, r < 0 ? strerror(-r) : "ok");
		if (r < 0)
			goto out;
		started = true;
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	tier_damon_kdamond_get(d, idx, &k);
	t0 = now_sec();
	for (;;) {
		elapsed = now_sec() - t0;
		if (read_numa(cg, "file", &f2) < 0)
			break;
		if (f2.n0 >= (f2.n0 + f2.n1) * 9 / 10) {
			t90 = elapsed;
			break;
		}
		if (elapsed > bound)
			break;
		sleep_sec(1);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	r = tier_damon_update_stats(d, idx);
	if (r == 0)
		r = tier_damon_stats_read(d, idx, 0, &st);
	cpu = proc_cpu_sec(k.pid);
	CHECK(t90 >= 0, "DAMON: >= 90%% of the page cache on node %d (%.1f s, bound %.0f s; "
	      "N0=%" PRIu64 " N1=%" PRIu64 ", lru_gen %s)", FAST_NODE, t90, bound, f2.n0, f2.n1,
	      lru_gen);
	if (t90 < 0 && strcmp(lru_gen, "0x0000") && st.nr_tried == 0)
		msg("  (6.12 with MGLRU on: folio_mark_accessed() does not clear the idle flag "
		    "DAMON set on an unmapped folio, so DAMON sees no read() of it; try "
		    "run-vm --lru-gen off)");
	CHECK(r == 0 && st.sz_applied > 0, "sz_applied %" PRIu64 " (nr_tried %" PRIu64
	      ", sz_tried %" PRIu64 ")", st.sz_applied, st.nr_tried, st.sz_tried);
	printf("TIERD-VM-METRIC: case=%s lru_gen=%s nb_seconds=%d nb_promoted=%" PRIu64
	       " secs_90=%.1f secs=%.1f pgmigrate_success=%" PRIu64 " sz_tried=%" PRIu64
	       " sz_applied=%" PRIu64 " kdamond_cpu_s=%.2f file_n0=%" PRIu64 " file_n1=%" PRIu64
	       "\n", name, lru_gen, nb_seconds * time_scale, promo1 - promo0, t90, elapsed,
	       mig1 - mig0, st.sz_tried, st.sz_applied, cpu, f2.n0, f2.n1);
	fflush(stdout);
out:
	if (started)
		tier_damon_stop(d, idx);
	if (reader > 0) {
		kill(reader, SIGKILL);
		waitpid(reader, NULL, 0);
	}
	unlink(file);
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (cg[0])
		cg_destroy(cg);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	free(ranges);
	tier_damon_free(d);
	return verdict(name);
}

/* A small config: a stat scheme over the slow node, optionally filtered
 * to a cgroup (stat ignores filters; they still are the input's identity). */
static int stage_stat(struct tier_damon *d, unsigned idx, const struct tier_damon_range *ranges,
		      size_t n, const char *memcg, uint64_t *ret_fp)
{
	const struct tier_damon_filter filters[] = {
		{ .type = TIER_DAMON_FILTER_MEMCG, .matching = false, .memcg_path = memcg },
	};
	const struct tier_damon_scheme scheme = {
		.action = TIER_DAMON_STAT,
		.target_nid = -1,
		.sz = { 0, UINT64_MAX },
		.nr_accesses = { 0, UINT64_MAX },
		.age = { 0, UINT64_MAX },
		.filters = filters,
		.nr_filters = memcg ? 1 : 0,
	};
	const struct tier_damon_config cfg = {
		.sample_us = 5000, .aggr_us = 100000, .update_us = 1000000,
		.min_nr_regions = 10, .max_nr_regions = 1000,
		.regions = ranges, .nr_regions = n,
		.schemes = &scheme, .nr_schemes = 1,
	};

	return tier_damon_stage(d, idx, &cfg, ret_fp);
}

/*
 * DAMON's sysfs answers -EBUSY to a reader while anyone holds its lock
 * (the kdamond at every aggregation, another reader): a tierd restarted
 * beside a running kdamond once failed CI on it.  Two raw readers of
 * state and pid show how often that happens here; the library, reading
 * beside them, must never fail.
 */
#define BUSY_READS 3000

static void busy_reads(struct tier_damon *d, unsigned idx)
{
	char path[128];
	unsigned lib_errors = 0, raw_busy = 0;
	int pfd[2], status;
	pid_t pids[2];

	snprintf(path, sizeof(path), DAMON_ADMIN "/kdamonds/%u/state", idx);
	if (pipe(pfd) < 0) {
		msg("FAIL: pipe: %s", strerror(errno));
		failures++;
		return;
	}
	for (int c = 0; c < 2; c++) {
		pids[c] = fork();
		if (pids[c] == 0) {
			unsigned busy = 0;
			char buf[64];

			close(pfd[0]);
			for (int i = 0; i < BUSY_READS; i++) {
				int fd = open(path, O_RDONLY | O_CLOEXEC);

				if (fd < 0)
					_exit(1);
				if (read(fd, buf, sizeof(buf)) < 0 && errno == EBUSY)
					busy++;
				close(fd);
			}
			if (write(pfd[1], &busy, sizeof(busy)) != sizeof(busy))
				_exit(1);
			_exit(0);
		}
	}
	close(pfd[1]);
	for (int i = 0; i < BUSY_READS; i++) {
		struct tier_damon_kdamond k;

		if (tier_damon_kdamond_get(d, idx, &k) < 0 || !k.running)
			lib_errors++;
	}
	for (int c = 0; c < 2; c++) {
		unsigned busy = 0;

		if (pids[c] > 0 && read(pfd[0], &busy, sizeof(busy)) == sizeof(busy))
			raw_busy += busy;
		if (pids[c] > 0)
			waitpid(pids[c], &status, 0);
	}
	close(pfd[0]);
	CHECK(lib_errors == 0,
	      "%d reads of state and pid beside two raw readers: %u failed (the raw readers saw -EBUSY %u times in %d reads)",
	      BUSY_READS, lib_errors, raw_busy, 2 * BUSY_READS);
}

/*
 * damon-reclaim: ownership across a crash, on the real sysfs.  A child
 * (the "tierd" that crashes) adds a kdamond, stages, starts it, saves the
 * record in /run and is SIGKILLed; the kdamond keeps running.  The parent
 * (the restarted tierd) reclaims it: ours, running.  Stopped by an admin:
 * still ours (its input).  nr_kdamonds rewritten by someone: not ours.
 * Someone else's kdamond started in that directory: not ours.
 */
int case_damon_reclaim(const char *name)
{
	struct tier_damon *d = NULL;
	struct tier_damon_range *ranges = NULL;
	struct tier_damon_owner rec = { 0 };
	struct tier_damon_kdamond k = { .pid = -1 };
	size_t nr_ranges = 0;
	int run_fd = -1, status = 0, r;
	bool running = false, theirs = false;
	pid_t child;

	if (access(DAMON_ADMIN, F_OK) < 0) {
		msg("SKIP: no %s (kernel without CONFIG_DAMON_SYSFS)", DAMON_ADMIN);
		return EXIT_SKIP;
	}
	r = tier_damon_open("/sys", "/proc", &d);
	if (r == 0)
		r = tier_damon_node_ranges("/proc", SLOW_NODE, &ranges, &nr_ranges);
	run_fd = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r < 0 || run_fd < 0) {
		msg("FAIL: setup: %s", strerror(r < 0 ? -r : errno));
		failures++;
		goto out;
	}
	child = fork();
	if (child == 0) {
		struct tier_damon *cd = NULL;
		struct tier_damon_owner o;
		unsigned idx;
		uint64_t fp;

		const char *step = "open";

		r = tier_damon_open("/sys", "/proc", &cd);
		if (r == 0 && (step = "add a kdamond", 1))
			r = tier_damon_kdamond_add(cd, &idx);
		if (r == 0 && (step = "stage", 1))
			r = stage_stat(cd, idx, ranges, nr_ranges, "/", &fp);
		if (r == 0 && (step = "start", 1))
			r = tier_damon_start(cd, idx);
		if (r == 0 && (step = "read its owner", 1))
			r = tier_damon_owner_of(cd, idx, fp, &o);
		if (r == 0 && (step = "save the record", 1))
			r = tier_damon_owner_save(run_fd, OWNER_FILE, &o);
		if (r < 0) {
			msg("  child: %s: %s", step, strerror(-r));
			_exit(1);
		}
		/* the crash */
		raise(SIGKILL);
		_exit(2);
	}
	waitpid(child, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "the first tierd set up its kdamond and was SIGKILLed");
	r = tier_damon_owner_load(run_fd, OWNER_FILE, &rec);
	CHECK(r == 0, "its record: kdamond %u, pid %d, start %" PRIu64 ", fingerprint %016" PRIx64,
	      rec.index, rec.pid, rec.starttime, rec.fingerprint);
	if (r < 0)
		goto out;
	r = tier_damon_kdamond_get(d, rec.index, &k);
	CHECK(r == 0 && k.running && k.pid == rec.pid,
	      "the kdamond outlived it (pid %d, running %d)", k.pid, k.running);
	r = tier_damon_reclaim(d, &rec, &running);
	CHECK(r == 0 && running, "restarted: reclaimed, running (%s)", r < 0 ? strerror(-r) : "ok");
	busy_reads(d, rec.index);

	/* an admin stops it: still ours, by its staged input */
	r = tier_damon_stop(d, rec.index);
	if (r == 0)
		r = tier_damon_reclaim(d, &rec, &running);
	CHECK(r == 0 && !running, "stopped by an admin: still ours, stopped (%s)",
	      r < 0 ? strerror(-r) : "ok");

	/* someone rewrites nr_kdamonds: fresh directories, not ours */
	r = write_attr(DAMON_ADMIN "/kdamonds/nr_kdamonds", "1");
	CHECK(r == 0, "someone writes nr_kdamonds 1 (%s)", r < 0 ? strerror(-r) : "ok");
	r = tier_damon_reclaim(d, &rec, &running);
	CHECK(r == -ESTALE, "after that: not ours (%s)", strerror(-r));

	/* and starts a kdamond of theirs in that directory */
	r = stage_stat(d, 0, ranges, nr_ranges, NULL, NULL);
	if (r == 0)
		r = tier_damon_start(d, 0);
	theirs = r == 0;
	CHECK(r == 0, "someone else's kdamond 0 runs (%s)", r < 0 ? strerror(-r) : "ok");
	r = tier_damon_reclaim(d, &rec, &running);
	CHECK(r == -ESTALE, "our record never claims theirs (%s)", strerror(-r));
	/* with theirs running we cannot add one: the backend is busy */
	{
		unsigned idx2 = 0;

		r = tier_damon_kdamond_add(d, &idx2);
		CHECK(r == -EBUSY, "adding ours while theirs runs: %s", strerror(-r));
	}
out:
	if (theirs)
		tier_damon_stop(d, 0);
	if (run_fd >= 0) {
		tier_damon_owner_remove(run_fd, OWNER_FILE);
		close(run_fd);
	}
	free(ranges);
	tier_damon_free(d);
	return verdict(name);
}

/* ------------------------------------------------------------------------
 * damon-tierd: the real tierd with backend = damon
 * ------------------------------------------------------------------------ */

#define TIERD_CONF	"/tmp/tierd-damon.conf"
#define TIERD_LOG	"/tmp/tierd-damon.log"
#define TIERD_OWNER	"/run/tierd/" OWNER_FILE

/* tierd's configuration for a case, in TIERD_CONF: 0 or -1. */
static int conf_write(const char *conf)
{
	FILE *f = fopen(TIERD_CONF, "we");

	if (!f || fputs(conf, f) < 0) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* DAMON's sysfs and build/bin/tierd (in *bin) are there; else false, the
 * reason said (the case skips). */
static bool damon_and_tierd(const char *build, char *bin, size_t size)
{
	if (access(DAMON_ADMIN, F_OK) < 0) {
		msg("SKIP: no %s (kernel without CONFIG_DAMON_SYSFS)", DAMON_ADMIN);
		return false;
	}
	snprintf(bin, size, "%s/bin/tierd", build ? build : "build");
	if (access(bin, X_OK) < 0) {
		msg("SKIP: no %s (make tierd)", bin);
		return false;
	}
	return true;
}

static pid_t tierd_spawn(const char *bin)
{
	return vm_tierd_spawn(bin, TIERD_CONF, TIERD_LOG, O_APPEND);
}

/* The record tierd keeps in its run directory (its two kdamonds, one per
 * tier: the fast tier's first), waited for (bounded) until it names a
 * running slow-tier kdamond (the promotion schemes'); *ret is that one,
 * *ret_fast (may be NULL) the fast tier's.  0 or -ETIMEDOUT. */
static int wait_owner(struct tier_damon *d, double bound, struct tier_damon_owner *ret,
		      struct tier_damon_owner *ret_fast)
{
	double t0 = now_sec();
	int run_fd = open("/run/tierd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (;;) {
		struct tier_damon_owner rec[TIER_DAMON_OWNERS_MAX];
		struct tier_damon_kdamond k;
		size_t n = 0;

		if (run_fd < 0)
			run_fd = open("/run/tierd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (run_fd >= 0 &&
		    tier_damon_owners_load(run_fd, OWNER_FILE, rec, TIER_DAMON_OWNERS_MAX, &n) == 0 &&
		    n == 2 && rec[1].pid > 0 && tier_damon_kdamond_get(d, rec[1].index, &k) == 0 &&
		    k.running && k.pid == rec[1].pid) {
			*ret = rec[1];
			if (ret_fast)
				*ret_fast = rec[0];
			close(run_fd);
			return 0;
		}
		if (now_sec() - t0 > bound)
			break;
		sleep_sec(0.2);
	}
	if (run_fd >= 0)
		close(run_fd);
	return -ETIMEDOUT;
}

/* Lines of the tierd log containing s. */
static int log_count(const char *s)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, s) != NULL;
	fclose(f);
	return n;
}

/* The tierd log's DAMON lines; the periodic syncs summed up. */
/* The largest N of the log's "runs N schemes" lines (its commits), or -1. */
static int log_max_runs(void)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096];
	int best = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, ") runs ");
		int n;

		if (p && sscanf(p, ") runs %d schemes", &n) == 1 && n > best)
			best = n;
	}
	fclose(f);
	return best;
}

static void log_dump(void)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096];
	double total = 0, max = 0;
	int n = 0;

	if (!f)
		return;
	msg("  --- tierd log (DAMON lines) ---");
	while (fgets(line, sizeof(line), f)) {
		const char *in = strstr(line, ") in ");
		double ms;

		if (strstr(line, "(periodic)") && in && sscanf(in, ") in %lf ms", &ms) == 1) {
			n++;
			total += ms;
			if (ms > max)
				max = ms;
			continue;
		}
		if (strstr(line, "DAMON") || strstr(line, "Backend") || strstr(line, "rror") ||
		    strstr(line, "fast-tier target"))
			printf("  | %s", line);
	}
	msg("  | (%d periodic syncs: %.1f ms in all, at most %.1f ms)", n, total, max);
	fflush(stdout);
	fclose(f);
}

/* n children, each in a cgroup of its own below parent with one page
 * touched, then waiting to be killed: a burst of memcgs with pages. */
static int burst_start(const char *parent, int n, pid_t *pids, char (*paths)[256])
{
	for (int i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "b%d", i);
		if (cg_create(parent, name, paths[i], sizeof(paths[i])) < 0)
			return -1;
		pids[i] = fork();
		if (pids[i] == 0) {
			static char page[1 << 16];

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (cg_enter(paths[i]) < 0)
				_exit(2);
			dirty_pages(page, sizeof(page));
			pause();
			_exit(0);
		}
		if (pids[i] < 0)
			return -1;
	}
	return 0;
}

static uint64_t proc_cpu_ticks(pid_t pid)
{
	double s = proc_cpu_sec((int)pid);

	return s < 0 ? 0 : (uint64_t)(s * 100);
}

/*
 * damon-tierd: tierd with backend = damon, a promote class and an off class
 * with a hot set each on the slow node: promote's reaches >= 90% on the fast
 * node, off's stays.  A burst of memcgs below promote costs few commits.
 * Someone else's kdamond (index 0, started after ours) is left alone across
 * a SIGKILL and a restart of tierd, which takes its two kdamonds (one per
 * tier) back (same indexes, same thread: the slow tier's is the one that
 * runs, the fast tier's has nothing to run); SIGTERM stops ours, removes the
 * record and restores kernel.numa_balancing (numa_balancing_sysctl = off).
 */
int case_damon_tierd(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], cg_promote[256] = "", cg_off[256] = "", nb_saved[16] = "", nb[16] = "";
	char cg_burst[256] = "";
	struct tier_damon *d = NULL;
	struct tier_damon_range *ranges = NULL;
	struct tier_damon_owner own = { 0 }, own2 = { 0 }, own_fast = { 0 }, own2_fast = { 0 };
	struct tier_damon_kdamond theirs_k = { .pid = -1 }, k;
	struct numa_anon oa0 = { 0 }, oa = { 0 };
	struct wl_addrs pa_addr = { NULL, NULL }, oa_addr;
	int hot_mb, burst_n, pipefd[2] = { -1, -1 }, pipe2fd[2] = { -1, -1 }, r;
	pid_t w_promote = -1, w_off = -1, tierd = -1, *bpids = NULL;
	char (*bpaths)[256] = NULL;
	size_t nr_ranges = 0, hot_bytes;
	long hot_pages, hot_fast = 0, present = 0;
	unsigned nr0 = 0;
	double t0, t90 = -1, bound, kd_cpu = -1, td_cpu = -1, burst_secs = 0;
	uint64_t mig0 = 0, mig1 = 0;
	bool theirs = false;
	int commits0, commits1, commits2, syncs_burst = 0;
	FILE *f;

	if (env_int("TIERD_DAMON_HOT_MB", 48, 4, 128, &hot_mb) < 0 ||
	    env_int("TIERD_DAMON_BURST", 100, 0, 1000, &burst_n) < 0)
		return 1;
	hot_bytes = (size_t)hot_mb << 20;
	hot_pages = (long)(hot_bytes / page_size);
	bound = 120.0 * time_scale;
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	unlink(TIERD_LOG);
	r = tier_damon_open("/sys", "/proc", &d);
	if (r == 0)
		r = tier_damon_node_ranges("/proc", SLOW_NODE, &ranges, &nr_ranges);
	if (r < 0) {
		msg("FAIL: DAMON handle or node ranges: %s", strerror(-r));
		failures++;
		goto out;
	}
	/* tierd sets it to 0 itself (numa_balancing_sysctl = off) and puts
	 * this value back at exit */
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	if (set_numa_balancing(2) < 0) {
		msg("FAIL: cannot set kernel.numa_balancing to 2");
		failures++;
		goto out;
	}
	f = fopen(TIERD_CONF, "we");
	if (!f) {
		msg("FAIL: cannot write %s", TIERD_CONF);
		failures++;
		goto out;
	}
	fprintf(f, "[daemon]\nbackend = damon\nnuma_balancing_sysctl = off\n"
		   "rebalance_interval = 2s\nfast_tier_reserve = 32M\n\n"
		   "[class:hot]\nmode = promote\n\n[class:cold]\nmode = off\n\n"
		   "[rule:promote]\nclass = hot\ncgroup = /promote\n\n"
		   "[rule:off]\nclass = cold\ncgroup = /off\n\n"
		   "[rule:burst]\nclass = hot\ncgroup = /burst\n");
	fclose(f);
	if (cg_create(NULL, "promote", cg_promote, sizeof(cg_promote)) < 0 ||
	    cg_create(NULL, "off", cg_off, sizeof(cg_off)) < 0 || pipe(pipefd) < 0 ||
	    pipe(pipe2fd) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	/* a kdamond directory someone prepared (index 0): tierd's is added
	 * after it, and theirs is started there later */
	r = write_attr(DAMON_ADMIN "/kdamonds/nr_kdamonds", "1");
	CHECK(r == 0, "nr_kdamonds 1: someone's kdamond 0, idle (%s)",
	      r < 0 ? strerror(-r) : "ok");
	/* tierd first: it sets kernel.numa_balancing to 0, so that nothing
	 * but DAMON moves the workloads' pages once they are placed */
	tierd = tierd_spawn(bin);
	{
		double ts = now_sec();

		do {
			sleep_sec(0.2);
			read_attr("/proc/sys/kernel/numa_balancing", nb, sizeof(nb));
		} while (strcmp(nb, "0") && now_sec() - ts < 30.0 * time_scale);
	}
	CHECK(!strcmp(nb, "0"), "kernel.numa_balancing set to 0 by tierd (%s)", nb);
	r = tier_damon_nr_kdamonds(d, &nr0);
	CHECK(r == 0 && nr0 == 1, "no kdamond added while no class has pages (nr_kdamonds %u)",
	      nr0);
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	/* from here: tierd reacts to promote's first pages (a populated
	 * event), while the rest are still being placed */
	t0 = now_sec();
	w_promote = start_workload(cg_promote, hot_bytes, 0, pipefd[1]);
	w_off = start_workload(cg_off, hot_bytes, 0, pipe2fd[1]);
	if (w_promote < 0 || w_off < 0 ||
	    read(pipefd[0], &pa_addr, sizeof(pa_addr)) != (ssize_t)sizeof(pa_addr) ||
	    read(pipe2fd[0], &oa_addr, sizeof(oa_addr)) != (ssize_t)sizeof(oa_addr) ||
	    read_anon(cg_off, &oa0) < 0) {
		msg("FAIL: the workloads did not start");
		failures++;
		goto out;
	}
	hot_fast = pages_on_node_pid(w_promote, pa_addr.hot, hot_bytes, FAST_NODE, &present);
	CHECK(oa0.n1 >= hot_bytes * 9 / 10,
	      "both hot sets (%d MB) placed on node %d (off: N1 %" PRIu64 "; promote: %ld pages "
	      "on node %d already, %.1f s after its placement began)", hot_mb, SLOW_NODE, oa0.n1,
	      hot_fast, FAST_NODE, now_sec() - t0);

	r = wait_owner(d, 30.0 * time_scale, &own, &own_fast);
	CHECK(r == 0, "tierd added its kdamonds %u (fast tier) and %u (slow tier, pid %d) and "
	      "recorded them in %s", own_fast.index, own.index, own.pid, TIERD_OWNER);
	if (r < 0)
		goto out;
	/* promotion only: the fast tier's kdamond has nothing to run */
	r = tier_damon_kdamond_get(d, own_fast.index, &k);
	CHECK(r == 0 && own_fast.index + 1 == own.index && !k.running,
	      "the fast tier's kdamond %u, added with it, is not started (nothing to run there)",
	      own_fast.index);
	for (;;) {
		double el = now_sec() - t0;

		hot_fast = pages_on_node_pid(w_promote, pa_addr.hot, hot_bytes, FAST_NODE,
					     &present);
		if (hot_fast < 0)
			break;
		if (hot_fast >= hot_pages * 9 / 10) {
			t90 = el;
			break;
		}
		if (el > bound)
			break;
		sleep_sec(0.5);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	read_anon(cg_off, &oa);
	CHECK(t90 >= 0, "promote: >= 90%% of its hot set on node %d, %.1f s after its placement began "
	      "(%ld of %ld pages, bound %.0f s)", FAST_NODE, t90, hot_fast, hot_pages, bound);
	CHECK(oa.n1 >= oa0.n1 * 9 / 10 && oa.n0 < hot_bytes / 10,
	      "off: stays on node %d (N0 %" PRIu64 ", N1 %" PRIu64 " of %" PRIu64 ")", SLOW_NODE,
	      oa.n0, oa.n1, oa0.n1);

	/* a burst of memcgs below /burst (class hot): each gets its schemes,
	 * in few commits */
	commits0 = log_count(") runs ");
	if (burst_n > 0) {
		uint64_t nr_schemes = 0;
		double tb;

		double tb0 = now_sec();

		bpids = calloc((size_t)burst_n, sizeof(*bpids));
		bpaths = calloc((size_t)burst_n, sizeof(*bpaths));
		if (!bpids || !bpaths || cg_create(NULL, "burst", cg_burst, sizeof(cg_burst)) < 0 ||
		    cg_enable_memory(cg_burst) < 0 ||
		    burst_start(cg_burst, burst_n, bpids, bpaths) < 0) {
			msg("FAIL: the burst did not start");
			failures++;
			goto out;
		}
		burst_secs = now_sec() - tb0;
		tb = now_sec();
		/* the commit that covers them all: one scheme per memcg of the
		 * burst, and /promote's (the log, not DAMON's sysfs: a reader
		 * there makes tierd's writes fail with EBUSY, which it retries) */
		while (now_sec() - tb < 30.0 * time_scale) {
			nr_schemes = (uint64_t)(log_max_runs() < 0 ? 0 : log_max_runs());
			if (nr_schemes >= (uint64_t)burst_n + 1)
				break;
			sleep_sec(0.5);
		}
		commits1 = log_count(") runs ");
		syncs_burst = commits1 - commits0;
		CHECK(nr_schemes >= (uint64_t)burst_n + 1, "the burst's %d memcgs got their schemes "
		      "(%" PRIu64 " schemes, %.1f s)", burst_n, nr_schemes, now_sec() - tb);
		/* a handful of commits, not one per cgroup (one per quiet spell
		 * of 200 ms or per 2 s of burst, or per rebalance after it) */
		CHECK(syncs_burst >= 1 && syncs_burst <= burst_n / 5,
		      "a burst of %d new memcgs over %.1f s cost %d commits", burst_n, burst_secs,
		      syncs_burst);
	}

	/* someone else's kdamond: index 0 (nr_kdamonds is ours to have grown),
	 * started while ours runs */
	if (own.index > 0) {
		r = stage_stat(d, 0, ranges, nr_ranges, NULL, NULL);
		if (r == 0)
			r = tier_damon_start(d, 0);
		theirs = r == 0;
		if (r == 0)
			r = tier_damon_kdamond_get(d, 0, &theirs_k);
		CHECK(r == 0 && theirs_k.running, "someone else's kdamond 0 runs (pid %d; %s)",
		      theirs_k.pid, r < 0 ? strerror(-r) : "ok");
	} else {
		msg("  (tierd's kdamond is index 0: no room for someone else's before it)");
	}

	/* the crash and the restart */
	kd_cpu = proc_cpu_sec(own.pid);
	td_cpu = proc_cpu_sec((int)tierd);
	kill(tierd, SIGKILL);
	waitpid(tierd, NULL, 0);
	tierd = -1;
	r = tier_damon_kdamond_get(d, own.index, &k);
	CHECK(r == 0 && k.running && k.pid == own.pid, "SIGKILLed tierd: its kdamond %u runs on "
	      "(pid %d)", own.index, k.pid);
	commits1 = log_count("took over kdamonds");
	tierd = tierd_spawn(bin);
	sleep_sec(1);
	r = wait_owner(d, 30.0 * time_scale, &own2, &own2_fast);
	/* the takeover is logged once it started */
	for (int i = 0; i < 50 && log_count("took over kdamonds") <= commits1; i++)
		sleep_sec(0.2);
	commits2 = log_count("took over kdamonds");
	CHECK(r == 0 && own2.index == own.index && own2.pid == own.pid &&
	      own2_fast.index == own_fast.index && commits2 > commits1,
	      "restarted tierd took both its kdamonds (%u, %u) back (slow tier's pid %d -> %d)",
	      own2_fast.index, own2.index, own.pid, own2.pid);
	{
		struct tier_damon_kdamond *list = NULL;
		size_t n = 0;
		unsigned running = 0, nr = 0;

		r = tier_damon_kdamond_list(d, &list, &n);
		for (size_t i = 0; r == 0 && i < n; i++)
			running += list[i].running;
		tier_damon_nr_kdamonds(d, &nr);
		CHECK(r == 0 && running == 1u + theirs && nr == own.index + 1,
		      "exactly one kdamond of ours runs (the slow tier's), none added: %u running, "
		      "nr_kdamonds %u", running, nr);
		free(list);
	}
	if (theirs) {
		char act[32] = "";

		r = tier_damon_kdamond_get(d, 0, &k);
		read_attr(DAMON_ADMIN "/kdamonds/0/contexts/0/schemes/0/action", act, sizeof(act));
		CHECK(r == 0 && k.running && k.pid == theirs_k.pid && !strcmp(act, "stat"),
		      "someone else's kdamond 0 untouched (pid %d, action %s)", k.pid, act);
	}
	/* promote's pages still where they were promoted to */
	hot_fast = pages_on_node_pid(w_promote, pa_addr.hot, hot_bytes, FAST_NODE, &present);
	CHECK(hot_fast >= hot_pages * 9 / 10, "after the restart: %ld of %ld pages on node %d",
	      hot_fast, hot_pages, FAST_NODE);

	/* SIGTERM: ours stops, the record goes, the sysctl comes back */
	kill(tierd, SIGTERM);
	waitpid(tierd, NULL, 0);
	tierd = -1;
	r = tier_damon_kdamond_get(d, own.index, &k);
	CHECK(r == 0 && !k.running, "SIGTERM: kdamond %u stopped", own.index);
	r = tier_damon_kdamond_get(d, own_fast.index, &k);
	CHECK(r == 0 && !k.running, "SIGTERM: kdamond %u (fast tier) not running", own_fast.index);
	CHECK(access(TIERD_OWNER, F_OK) < 0, "the record %s is gone", TIERD_OWNER);
	read_attr("/proc/sys/kernel/numa_balancing", nb, sizeof(nb));
	CHECK(!strcmp(nb, "2"), "kernel.numa_balancing restored to 2 (%s)", nb);
	if (theirs) {
		r = tier_damon_kdamond_get(d, 0, &k);
		CHECK(r == 0 && k.running && k.pid == theirs_k.pid,
		      "someone else's kdamond 0 still runs (pid %d)", k.pid);
	}
	printf("TIERD-VM-METRIC: case=%s hot_mb=%d secs_90=%.1f pgmigrate_success=%" PRIu64
	       " kdamond_cpu_s=%.2f tierd_cpu_s=%.2f burst=%d burst_secs=%.1f burst_commits=%d"
	       " off_n0=%" PRIu64 " off_n1=%" PRIu64 "\n", name, hot_mb, t90, mig1 - mig0, kd_cpu,
	       td_cpu, burst_n, burst_secs, syncs_burst, oa.n0, oa.n1);
	fflush(stdout);
	(void)proc_cpu_ticks;
out:
	log_dump();
	if (tierd > 0) {
		kill(tierd, SIGTERM);
		waitpid(tierd, NULL, 0);
	}
	if (theirs)
		tier_damon_stop(d, 0);
	for (int i = 0; bpids && i < burst_n; i++)
		if (bpids[i] > 0) {
			kill(bpids[i], SIGKILL);
			waitpid(bpids[i], NULL, 0);
		}
	for (int i = 0; bpaths && i < burst_n; i++)
		if (bpaths[i][0])
			cg_destroy(bpaths[i]);
	free(bpids);
	free(bpaths);
	if (cg_burst[0])
		cg_destroy(cg_burst);
	if (w_promote > 0) {
		kill(w_promote, SIGKILL);
		waitpid(w_promote, NULL, 0);
	}
	if (w_off > 0) {
		kill(w_off, SIGKILL);
		waitpid(w_off, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (pipefd[i] >= 0)
			close(pipefd[i]);
		if (pipe2fd[i] >= 0)
			close(pipe2fd[i]);
	}
	if (cg_promote[0])
		cg_destroy(cg_promote);
	if (cg_off[0])
		cg_destroy(cg_off);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	free(ranges);
	tier_damon_free(d);
	return verdict(name);
}

/* ------------------------------------------------------------------------
 * damon-tierd-share: fast-tier targets on the damon backend
 * ------------------------------------------------------------------------ */

/* A workload in cg: bytes placed on node, hot_bytes of them (the first)
 * read in a loop, the rest never touched again; its address goes through
 * ready_fd once the bytes are placed. */
/*
 * The hot-set readings need a page read again to set its accessed bit
 * again after DAMON cleared it.  x86 Linux clears it without a TLB flush
 * (ptep_clear_flush_young() does not flush: a stale entry only delays
 * the next set), and the hardware's TLB reach is a few MB, so a 16-144 MB
 * hot set walks out of it within microseconds.  QEMU's TCG keeps every
 * translation until the guest flushes (its TLB grows to cover gigabytes),
 * so under TCG a hot page sets no bit for seconds and tierd read 1/100 to
 * 1/200 of a known hot set.  A worker therefore flushes its own TLB after
 * a pass over its hot set when TLB_FLUSH_MS passed since the last (an
 * mprotect() round trip: flush_tlb_range()), what the hardware's small
 * TLB does on its own; DAMON's hot-set pass runs once a second, its
 * samples every 5 ms.  Not after every pass: a flush of every vCPU's TLB
 * hundreds of times a second slowed the whole TCG guest (demotion fell
 * behind).  TIERD_VM_TLB_FLUSH=0 turns it off, to see the TCG effect.
 */
#define TLB_FLUSH_MS 100
static int tlb_flush_passes = -1;

static bool tlb_flush_wanted(void)
{
	if (tlb_flush_passes < 0 && env_int("TIERD_VM_TLB_FLUSH", 1, 0, 1, &tlb_flush_passes) < 0)
		tlb_flush_passes = 1;
	return tlb_flush_passes > 0;
}

static void tlb_flush_range(void *p, size_t bytes)
{
	if (mprotect(p, bytes, PROT_READ) < 0 || mprotect(p, bytes, PROT_READ | PROT_WRITE) < 0)
		_exit(6);
}

static pid_t start_placed(const char *cg, int node, size_t bytes, size_t hot_bytes, int ready_fd)
{
	bool flush = tlb_flush_wanted();
	pid_t pid = fork();
	char *p;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) < 0 || policy_bind(node) < 0)
		_exit(2);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	madvise(p, bytes, MADV_NOHUGEPAGE);
	dirty_pages(p, bytes);
	if (policy_default() < 0)
		_exit(4);
	if (write(ready_fd, &p, sizeof(p)) != (ssize_t)sizeof(p))
		_exit(5);
	for (double last = now_sec();;) {
		touch_pages(p, hot_bytes);
		if (flush && now_sec() - last >= TLB_FLUSH_MS / 1000.0) {
			tlb_flush_range(p, hot_bytes);
			last = now_sec();
		}
	}
}

/* The last "PATH: fast-tier target X.YM" of the tierd log, in bytes. */
static int log_target(const char *path, uint64_t *ret)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096], key[300];
	double mb = -1;

	if (!f)
		return -ENOENT;
	snprintf(key, sizeof(key), "%s: fast-tier target ", path);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, key);
		double v;

		if (p && sscanf(p + strlen(key), "%lfM", &v) == 1)
			mb = v;
	}
	fclose(f);
	if (mb < 0)
		return -ENOENT;
	*ret = (uint64_t)(mb * 1024 * 1024);
	return 0;
}

/*
 * Every migrate_* scheme of kdamonds 0 and 1 (tierd's is one of them), after
 * update_schemes_stats and update_schemes_effective_quotas: its memcg,
 * quota, effective quota (esz), bytes tried and applied, qt_exceeds.  For
 * the scheme of memcg want (may be NULL), its quota and qt_exceeds.
 */
static void schemes_dump(const char *want, unsigned long long *ret_quota,
			 unsigned long long *ret_exceeds)
{
	for (unsigned k = 0; k < 2; k++) {
		char p[256];

		int r = -EBUSY;

		snprintf(p, sizeof(p), DAMON_ADMIN "/kdamonds/%u/state", k);
		/* DAMON's sysfs takes its lock with mutex_trylock(): -EBUSY
		 * while a kdamond holds it (one of four runs on 2026-12-08
		 * read no stats at all here and failed on a quota of 0) */
		for (int t = 0; t < 50 && r == -EBUSY; t++) {
			r = write_attr(p, "update_schemes_stats");
			if (r == -EBUSY)
				usleep(20000);
		}
		if (r < 0) {
			msg("  kdamond %u: update_schemes_stats: %s", k, strerror(-r));
			continue;
		}
		for (int t = 0; t < 50 && write_attr(p, "update_schemes_effective_quotas") == -EBUSY; t++)
			usleep(20000);
		for (unsigned i = 0; i < 16; i++) {
			char act[32] = "", mc[256] = "", q[32] = "", eq[32] = "", qe[32] = "",
			     tried[32] = "", applied[32] = "";
			static const char *const base = DAMON_ADMIN "/kdamonds/%u/contexts/0/schemes/%u/%s";

			snprintf(p, sizeof(p), base, k, i, "action");
			if (read_attr(p, act, sizeof(act)) < 0 || strncmp(act, "migrate_", 8))
				continue;
			for (unsigned f = 0; f < 4 && !mc[0]; f++) {
				char t[32] = "", sub[64];

				snprintf(sub, sizeof(sub), "filters/%u/type", f);
				snprintf(p, sizeof(p), base, k, i, sub);
				if (read_attr(p, t, sizeof(t)) < 0 || strcmp(t, "memcg"))
					continue;
				snprintf(sub, sizeof(sub), "filters/%u/memcg_path", f);
				snprintf(p, sizeof(p), base, k, i, sub);
				read_attr(p, mc, sizeof(mc));
			}
			snprintf(p, sizeof(p), base, k, i, "quotas/bytes");
			read_attr(p, q, sizeof(q));
			snprintf(p, sizeof(p), base, k, i, "quotas/effective_bytes");
			read_attr(p, eq, sizeof(eq));
			snprintf(p, sizeof(p), base, k, i, "stats/qt_exceeds");
			read_attr(p, qe, sizeof(qe));
			snprintf(p, sizeof(p), base, k, i, "stats/sz_tried");
			read_attr(p, tried, sizeof(tried));
			snprintf(p, sizeof(p), base, k, i, "stats/sz_applied");
			read_attr(p, applied, sizeof(applied));
			msg("  kdamond %u scheme %u: %s %s quota %s bytes (effective %s), tried %.1f MB, "
			    "applied %.1f MB, qt_exceeds %s", k, i, act, mc, q, eq,
			    strtoull(tried, NULL, 10) / 1048576.0,
			    strtoull(applied, NULL, 10) / 1048576.0, qe);
			if (want && !strcmp(mc, want)) {
				*ret_quota = strtoull(q, NULL, 10);
				*ret_exceeds = strtoull(qe, NULL, 10);
			}
		}
	}
}

/*
 * damon-tierd-share: two promote cgroups that want more of the fast tier
 * than there is: /big with TIERD_SHARE_BIG_MB (default 384) placed on the
 * fast node, TIERD_SHARE_HOT_MB (96) of it hot, and /small with
 * TIERD_SHARE_SMALL_MB (128) on the slow node, all hot.  tierd (backend
 * damon) demotes /big's cold pages towards its target (migrate_cold, the
 * quota following the goal) and promotes /small's: both end within 10% of
 * their targets (bounded wait).  Needs run-vm --mem-fast 512M.
 */
int case_damon_tierd_share(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], cg_big[256] = "", cg_small[256] = "", nb_saved[16] = "", nb[16] = "";
	int big_mb, hot_mb, small_mb, reserve_mb, hold_s, pipefd[2] = { -1, -1 };
	struct numa_anon a = { 0 }, b = { 0 };
	uint64_t t_big = 0, t_small = 0, mig0 = 0, mig1 = 0, dk = 0, big_lo = 0;
	pid_t w_big = -1, w_small = -1, tierd = -1;
	double t0, t_conv = -1, bound = 120.0 * time_scale, el = 0;
	FILE *f;
	void *addr;

	if (env_int("TIERD_SHARE_BIG_MB", 256, 16, 4096, &big_mb) < 0 ||
	    env_int("TIERD_SHARE_HOT_MB", 64, 4, 4096, &hot_mb) < 0 ||
	    env_int("TIERD_SHARE_SMALL_MB", 96, 4, 4096, &small_mb) < 0 ||
	    env_int("TIERD_SHARE_RESERVE_MB", 256, 0, 4096, &reserve_mb) < 0 ||
	    env_int("TIERD_SHARE_HOLD_S", 20, 0, 3600, &hold_s) < 0)
		return 1;
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	unlink(TIERD_LOG);
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	f = fopen(TIERD_CONF, "we");
	if (!f) {
		msg("FAIL: cannot write %s", TIERD_CONF);
		failures++;
		goto out;
	}
	/* the reserve makes the shared capacity smaller than what both use,
	 * while the fast node still holds both (no kswapd demotion) */
	fprintf(f, "[daemon]\nbackend = damon\nnuma_balancing_sysctl = off\n"
		   "rebalance_interval = 2s\nfast_tier_reserve = %dM\n\n"
		   "[class:hot]\nmode = promote\n\n"
		   "[rule:big]\nclass = hot\ncgroup = /big\n\n"
		   "[rule:small]\nclass = hot\ncgroup = /small\n", reserve_mb);
	fclose(f);
	if (cg_create(NULL, "big", cg_big, sizeof(cg_big)) < 0 ||
	    cg_create(NULL, "small", cg_small, sizeof(cg_small)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	tierd = tierd_spawn(bin);
	{
		double ts = now_sec();

		do {
			sleep_sec(0.2);
			read_attr("/proc/sys/kernel/numa_balancing", nb, sizeof(nb));
		} while (strcmp(nb, "0") && now_sec() - ts < 30.0 * time_scale);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	w_big = start_placed(cg_big, FAST_NODE, (size_t)big_mb << 20, (size_t)hot_mb << 20,
			     pipefd[1]);
	if (w_big < 0 || read(pipefd[0], &addr, sizeof(addr)) != (ssize_t)sizeof(addr)) {
		msg("FAIL: /big did not start");
		failures++;
		goto out;
	}
	w_small = start_placed(cg_small, SLOW_NODE, (size_t)small_mb << 20,
			       (size_t)small_mb << 20, pipefd[1]);
	if (w_small < 0 || read(pipefd[0], &addr, sizeof(addr)) != (ssize_t)sizeof(addr)) {
		msg("FAIL: /small did not start");
		failures++;
		goto out;
	}
	t0 = now_sec();
	read_anon(cg_big, &a);
	read_anon(cg_small, &b);
	msg("  placed: /big anon N0=%" PRIu64 " N1=%" PRIu64 ", /small anon N0=%" PRIu64
	    " N1=%" PRIu64, a.n0, a.n1, b.n0, b.n1);
	for (;;) {
		el = now_sec() - t0;
		if (read_anon(cg_big, &a) < 0 || read_anon(cg_small, &b) < 0)
			break;
		if (log_target("/big", &t_big) == 0 && log_target("/small", &t_small) == 0 &&
		    t_big > 0 && t_small > 0 &&
		    a.n0 <= t_big + t_big / 10 && a.n0 + t_big / 10 >= t_big &&
		    b.n0 + t_small / 10 >= t_small) {
			t_conv = el;
			break;
		}
		if (el > bound)
			break;
		if ((int)el % 30 == 29) {
			msg("  %.0f s: /big fast %.1f MB (target %.1f), /small fast %.1f MB", el,
			    a.n0 / 1048576.0, t_big / 1048576.0, b.n0 / 1048576.0);
			schemes_dump(NULL, NULL, NULL);
		}
		sleep_sec(1);
	}
	schemes_dump(NULL, NULL, NULL);
	/* where it stays: /big's fast bytes over the next TIERD_SHARE_HOLD_S
	 * seconds (a figure: the goal feed lags, so it may dip below) */
	if (t_conv >= 0) {
		uint64_t lo = a.n0, hi = a.n0;
		double th = now_sec();

		while (now_sec() - th < hold_s && read_anon(cg_big, &a) == 0) {
			lo = a.n0 < lo ? a.n0 : lo;
			hi = a.n0 > hi ? a.n0 : hi;
			sleep_sec(1);
		}
		msg("  the %d s after: /big fast %.1f .. %.1f MB (target %.1f)", hold_s,
		    lo / 1048576.0, hi / 1048576.0, t_big / 1048576.0);
		big_lo = lo;
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	read_key_u64("/proc/vmstat", "pgdemote_kswapd", &dk);
	msg("  pgdemote_kswapd %" PRIu64 " (kswapd's demotions: not tierd's)", dk);
	msg("  end (%.1f s): /big fast %.1f MB (target %.1f), /small fast %.1f MB (target %.1f)",
	    el, a.n0 / 1048576.0, t_big / 1048576.0, b.n0 / 1048576.0, t_small / 1048576.0);
	CHECK(t_conv >= 0, "both within 10%% of their fast-tier targets after %.1f s (bound %.0f s)",
	      t_conv, bound);
	printf("TIERD-VM-METRIC: case=%s big_mb=%d hot_mb=%d small_mb=%d secs_conv=%.1f "
	       "big_fast_mb=%.1f big_target_mb=%.1f small_fast_mb=%.1f small_target_mb=%.1f "
	       "big_low_after_mb=%.1f pgmigrate_success=%" PRIu64 "\n", name, big_mb, hot_mb,
	       small_mb, t_conv, a.n0 / 1048576.0, t_big / 1048576.0, b.n0 / 1048576.0,
	       t_small / 1048576.0, big_lo / 1048576.0, mig1 - mig0);
	fflush(stdout);
out:
	if (tierd > 0) {
		kill(tierd, SIGTERM);
		waitpid(tierd, NULL, 0);
	}
	log_dump();
	if (w_big > 0) {
		kill(w_big, SIGKILL);
		waitpid(w_big, NULL, 0);
	}
	if (w_small > 0) {
		kill(w_small, SIGKILL);
		waitpid(w_small, NULL, 0);
	}
	for (int i = 0; i < 2; i++)
		if (pipefd[i] >= 0)
			close(pipefd[i]);
	if (cg_big[0])
		cg_destroy(cg_big);
	if (cg_small[0])
		cg_destroy(cg_small);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	return verdict(name);
}

/* ------------------------------------------------------------------------
 * damon-tierd-hot, damon-tierd-budget: shares by hot set, the promotion
 * budget (issue 25), with the real tierd on the damon backend
 * ------------------------------------------------------------------------ */

/* The hot bytes tierd measured last for path (/run/tierd/hot-sets). */
/* tierd's last hot-set reading of path (the run directory's hot-sets file),
 * its total and (version 2, NULL: not wanted) the fast and slow tiers';
 * those are UINT64_MAX where the file has none. */
static int hot_sets_read_tiers(const char *path, uint64_t *ret, uint64_t *ret_fast,
			       uint64_t *ret_slow, uint64_t *ret_usec)
{
	FILE *f = fopen("/run/tierd/hot-sets", "re");
	char line[4096];
	int r = -ENOENT, version = 0;
	unsigned long long usec = 0;

	if (!f)
		return -ENOENT;
	/* "tierd-hot-sets 2 USEC", then "TOTAL FAST SLOW PATH" (1: "TOTAL PATH") */
	if (fgets(line, sizeof(line), f))
		(void)sscanf(line, "tierd-hot-sets %d %llu", &version, &usec);
	if (ret_usec)
		*ret_usec = usec;	/* when tierd wrote it: a new reading */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v, fast = ~0ull, slow = ~0ull;
		char p[4000], fs[32], ss[32];

		if (version == 2 && sscanf(line, "%llu %31s %31s %3999s", &v, fs, ss, p) == 4) {
			if (sscanf(fs, "%llu", &fast) != 1 || sscanf(ss, "%llu", &slow) != 1)
				fast = slow = ~0ull;	/* "-": no split */
		} else if (version != 1 || sscanf(line, "%llu %3999s", &v, p) != 2) {
			continue;
		}
		if (strcmp(p, path))
			continue;
		*ret = v;
		if (ret_fast)
			*ret_fast = fast;
		if (ret_slow)
			*ret_slow = slow;
		r = 0;
	}
	fclose(f);
	return r;
}

static int hot_sets_read(const char *path, uint64_t *ret)
{
	return hot_sets_read_tiers(path, ret, NULL, NULL, NULL);
}

static uint64_t node_memtotal(int node)
{
	char path[128];
	uint64_t kb = 0;
	FILE *f;
	char line[256];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "MemTotal:");
		unsigned long long v;

		if (p && sscanf(p + 9, "%llu", &v) == 1)
			kb = v;
	}
	fclose(f);
	return kb << 10;
}

static double jain2(double a, double b)
{
	return a + b > 0 ? (a + b) * (a + b) / (2.0 * (a * a + b * b)) : 1.0;
}

/* Start tierd with conf, wait until it set kernel.numa_balancing to 0. */
static pid_t tierd_start_conf(const char *bin, const char *conf)
{
	char nb[16] = "";
	pid_t pid;
	double ts;

	if (conf_write(conf) < 0)
		return -1;
	unlink(TIERD_LOG);
	pid = tierd_spawn(bin);
	ts = now_sec();
	do {
		sleep_sec(0.2);
		read_attr("/proc/sys/kernel/numa_balancing", nb, sizeof(nb));
	} while (strcmp(nb, "0") && now_sec() - ts < 30.0 * time_scale);
	return pid;
}

static void reap(pid_t *pid, int sig)
{
	if (*pid > 0) {
		kill(*pid, sig);
		waitpid(*pid, NULL, 0);
	}
	*pid = -1;
}

/* The end of a two-cgroup case: both workers killed, the pipe they
 * reported on closed, their cgroups removed (an empty name: not made). */
static void pair_teardown(pid_t *w1, pid_t *w2, int pipefd[2], const char *cg1, const char *cg2)
{
	reap(w1, SIGKILL);
	reap(w2, SIGKILL);
	for (int i = 0; i < 2; i++)
		if (pipefd[i] >= 0)
			close(pipefd[i]);
	if (cg1[0])
		cg_destroy(cg1);
	if (cg2[0])
		cg_destroy(cg2);
}

/*
 * One phase of damon-tierd-hot: a cold hog (hog_mb placed on the fast node,
 * its first hog_hot_mb read in a loop) and a hot victim (victim_mb on the
 * slow node, all read in a loop), equal weights, capacity cap_mb (the
 * reserve makes it so); tierd with demand = `demand`.  Ends when both are
 * within 10% of their targets and (hot) the victim's hot set is 90% on the
 * fast node, or at the bound.  Fills the figures.
 */
struct hot_phase {
	double secs;			/* to the end state, -1: not reached */
	double victim_res, hog_hot_res;	/* hot-set residency on the fast node */
	uint64_t t_hog, t_victim, hog_fast, victim_fast;
	uint64_t hot_hog, hot_victim;	/* tierd's measurement, UINT64_MAX: none */
	uint64_t migrated;
	bool demand_hot_logged;
};

static int hot_phase(const char *bin, const char *backend, const char *demand, int cap_mb,
		     int hog_mb, int hog_hot_mb, int victim_mb, struct hot_phase *ret)
{
	bool knob = !strcmp(backend, "knob");
	char conf[1024], cg_hog[256] = "", cg_victim[256] = "";
	int pipefd[2] = { -1, -1 };
	uint64_t mt = node_memtotal(FAST_NODE), reserve, mig0 = 0, mig1 = 0;
	pid_t tierd = -1, w_hog = -1, w_victim = -1;
	char *a_hog = NULL, *a_victim = NULL;
	double t0, bound = 150.0 * time_scale;
	struct numa_anon h = { 0 }, v = { 0 };
	bool hot = !strcmp(demand, "hot");
	int rc = -1;

	*ret = (struct hot_phase){ .secs = -1, .hot_hog = UINT64_MAX, .hot_victim = UINT64_MAX };
	if (mt < ((uint64_t)cap_mb << 20)) {
		msg("FAIL: node %d has %" PRIu64 " MB, less than the capacity %d MB", FAST_NODE,
		    mt >> 20, cap_mb);
		return -1;
	}
	reserve = mt - ((uint64_t)cap_mb << 20);
	/* knob (the patched kernel): NUMA balancing in tiering mode promotes,
	 * the tier-aware limits (a cgroup2 mount option) hold each target */
	if (knob && write_attr("/proc/sys/kernel/numa_balancing", "2") < 0) {
		msg("FAIL: cannot set kernel.numa_balancing to 2");
		return -1;
	}
	if (knob && mount(NULL, CG_ROOT, NULL, MS_REMOUNT, "nsdelegate,memory_tiered_limits") < 0) {
		msg("FAIL: cannot remount %s with memory_tiered_limits: %s", CG_ROOT,
		    strerror(errno));
		return -1;
	}
	snprintf(conf, sizeof(conf),
		 "[daemon]\nbackend = %s\nnuma_balancing_sysctl = %s\n"
		 "rebalance_interval = 2s\nfast_tier_reserve = %" PRIu64 "K\ndemand = %s\n\n"
		 "[class:c]\nmode = promote\n\n"
		 "[rule:hog]\nclass = c\ncgroup = /hog\n\n"
		 "[rule:victim]\nclass = c\ncgroup = /victim\n", backend,
		 knob ? "keep" : "off", reserve >> 10, demand);
	if (cg_create(NULL, "hog", cg_hog, sizeof(cg_hog)) < 0 ||
	    cg_create(NULL, "victim", cg_victim, sizeof(cg_victim)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: cannot create the cgroups");
		goto out;
	}
	tierd = tierd_start_conf(bin, conf);
	if (tierd < 0)
		goto out;
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	w_hog = start_placed(cg_hog, FAST_NODE, (size_t)hog_mb << 20,
				  (size_t)hog_hot_mb << 20, pipefd[1]);
	if (w_hog < 0 || read(pipefd[0], &a_hog, sizeof(a_hog)) != (ssize_t)sizeof(a_hog)) {
		msg("FAIL: the hog did not start");
		goto out;
	}
	w_victim = start_placed(cg_victim, SLOW_NODE, (size_t)victim_mb << 20,
				     (size_t)victim_mb << 20, pipefd[1]);
	if (w_victim < 0 ||
	    read(pipefd[0], &a_victim, sizeof(a_victim)) != (ssize_t)sizeof(a_victim)) {
		msg("FAIL: the victim did not start");
		goto out;
	}
	t0 = now_sec();
	for (;;) {
		double el = now_sec() - t0;
		long present = 0, hh;

		if (read_anon(cg_hog, &h) < 0 || read_anon(cg_victim, &v) < 0)
			break;
		hh = pages_on_node_pid(w_hog, a_hog, (size_t)hog_hot_mb << 20, FAST_NODE, &present);
		ret->hog_hot_res = hh / (double)(((size_t)hog_hot_mb << 20) / page_size);
		ret->victim_res = v.n0 / (double)((uint64_t)victim_mb << 20);
		ret->hog_fast = h.n0;
		ret->victim_fast = v.n0;
		(void)hot_sets_read("/hog", &ret->hot_hog);
		(void)hot_sets_read("/victim", &ret->hot_victim);
		if (log_target("/hog", &ret->t_hog) == 0 && log_target("/victim", &ret->t_victim) == 0 &&
		    ret->t_hog > 0 && ret->t_victim > 0 &&
		    h.n0 <= ret->t_hog + ret->t_hog / 10 + (4u << 20) &&
		    (hot ? ret->victim_res >= 0.9 :
			   v.n0 + ret->t_victim / 10 >= ret->t_victim &&
				   v.n0 <= ret->t_victim + ret->t_victim / 10 + (4u << 20))) {
			ret->secs = el;
			break;
		}
		if (el > bound)
			break;
		if ((int)el % 10 == 0)
			msg("  %s %.0f s: hog fast %.1f MB (target %.1f, hot %.0f%% on fast, "
			    "measured hot %.1f MB), victim fast %.1f MB (target %.1f, measured hot "
			    "%.1f MB)", demand, el, h.n0 / 1048576.0, ret->t_hog / 1048576.0,
			    100.0 * ret->hog_hot_res,
			    ret->hot_hog == UINT64_MAX ? -1.0 : ret->hot_hog / 1048576.0,
			    v.n0 / 1048576.0, ret->t_victim / 1048576.0,
			    ret->hot_victim == UINT64_MAX ? -1.0 : ret->hot_victim / 1048576.0);
		/* the schemes' effective quotas, tried and applied bytes */
		if ((int)el % 30 == 29)
			schemes_dump(NULL, NULL, NULL);
		sleep_sec(1);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	ret->migrated = mig1 - mig0;
	/* where demotion stalls: the slow node's free memory (DAMON migrates
	 * with GFP_NOWAIT, no reclaim) and the failed migrations */
	for (int nd = 0; nd < 2; nd++) {
		char path[96], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nd);
		f = fopen(path, "re");
		for (int l = 0; f && l < 3 && fgets(line, sizeof(line), f); l++)
			if (strstr(line, "MemFree"))
				msg("  %s", strtok(line, "\n"));
		if (f)
			fclose(f);
	}
	{
		uint64_t fail = 0;

		read_key_u64("/proc/vmstat", "pgmigrate_fail", &fail);
		msg("  pgmigrate_fail %" PRIu64, fail);
	}
	ret->demand_hot_logged = log_count("(hot set + margin)") > 0;
	rc = 0;
out:
	reap(&tierd, SIGTERM);
	/* tierd's log where the phase failed, or a hot-set reading is off by
	 * more than 25% (the demotion and the readings, second by second) */
	if (rc < 0 || ret->secs < 0 ||
	    (hot && (ret->hot_hog == UINT64_MAX ||
		     ret->hot_hog < ((uint64_t)hog_hot_mb << 20) * 3 / 4 ||
		     ret->hot_hog > ((uint64_t)hog_hot_mb << 20) * 5 / 4)))
		log_dump();
	pair_teardown(&w_hog, &w_victim, pipefd, cg_hog, cg_victim);
	return rc;
}

/*
 * damon-tierd-hot: demand = resident holds the hog and the victim to about
 * half of the capacity each, so the victim's hot set (3/4 of it) does not
 * fit; demand = hot gives the victim its hot set (90% on the fast node) and
 * leaves the hog its own.  TIERD_HOT_DEMANDS picks the phases ("resident
 * hot"), TIERD_HOT_BACKEND tierd's backend: damon (default; DAMON migrates)
 * or knob (the patched kernel: NUMA balancing in tiering mode promotes, the
 * tier-aware limits demote).  run-vm --mem-fast 512M --mem-slow 512M.
 */
int case_damon_tierd_hot(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD"), *demands = getenv("TIERD_HOT_DEMANDS");
	const char *backend = getenv("TIERD_HOT_BACKEND");
	char bin[512], nb_saved[16] = "";
	int cap_mb, hog_mb, hog_hot_mb, victim_mb;

	if (env_int("TIERD_HOT_CAP_MB", 192, 32, 4096, &cap_mb) < 0 ||
	    env_int("TIERD_HOT_HOG_MB", 256, 16, 4096, &hog_mb) < 0 ||
	    env_int("TIERD_HOT_HOG_HOT_MB", 16, 4, 4096, &hog_hot_mb) < 0 ||
	    env_int("TIERD_HOT_VICTIM_MB", 144, 4, 4096, &victim_mb) < 0)
		return 1;
	if (!demands)
		demands = "resident hot";
	if (!backend)
		backend = "damon";
	if (strcmp(backend, "damon") && strcmp(backend, "knob")) {
		msg("FAIL: TIERD_HOT_BACKEND=%s: damon or knob", backend);
		return 1;
	}
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	/* the knob lives in every non-root memory cgroup of the patched kernel */
	if (!strcmp(backend, "knob")) {
		bool has_knob;

		(void)mkdir(CG_ROOT "/hot-probe", 0755);
		has_knob = access(CG_ROOT "/hot-probe/memory.numa_balancing", F_OK) == 0;
		(void)rmdir(CG_ROOT "/hot-probe");
		if (!has_knob) {
			msg("SKIP: backend knob needs memory.numa_balancing (the patched kernel)");
			return EXIT_SKIP;
		}
	}
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	for (int k = 0; k < 2; k++) {
		const char *demand = k == 0 ? "resident" : "hot";
		struct hot_phase ph;
		int r;

		if (!strstr(demands, demand))
			continue;
		msg("  phase demand = %s, backend %s: capacity %d MB, hog %d MB (%d hot) on node %d, "
		    "victim %d MB (all hot) on node %d", demand, backend, cap_mb, hog_mb, hog_hot_mb, FAST_NODE,
		    victim_mb, SLOW_NODE);
		r = hot_phase(bin, backend, demand, cap_mb, hog_mb, hog_hot_mb, victim_mb, &ph);
		CHECK(r == 0, "demand = %s: the phase ran", demand);
		if (r < 0)
			continue;
		msg("  demand = %s after %.1f s: hog target %.1f MB fast %.1f MB (hot set %.0f%% "
		    "on fast, measured %.1f MB), victim target %.1f MB fast %.1f MB (hot set "
		    "%.0f%% on fast, measured %.1f MB), Jain %.2f, migrated %" PRIu64 " pages",
		    demand, ph.secs, ph.t_hog / 1048576.0, ph.hog_fast / 1048576.0,
		    100.0 * ph.hog_hot_res,
		    ph.hot_hog == UINT64_MAX ? -1.0 : ph.hot_hog / 1048576.0,
		    ph.t_victim / 1048576.0, ph.victim_fast / 1048576.0, 100.0 * ph.victim_res,
		    ph.hot_victim == UINT64_MAX ? -1.0 : ph.hot_victim / 1048576.0,
		    jain2(ph.victim_res, ph.hog_hot_res), ph.migrated);
		if (k == 0) {
			/* about half each: the victim's hot set does not fit */
			CHECK(ph.secs >= 0, "demand = resident: both within 10%% of their targets "
			      "(%.1f s)", ph.secs);
			CHECK(ph.t_victim < ((uint64_t)cap_mb << 20) * 6 / 10 &&
			      ph.t_hog > ((uint64_t)cap_mb << 20) * 4 / 10,
			      "demand = resident: targets about half each (hog %.1f, victim %.1f MB "
			      "of %d)", ph.t_hog / 1048576.0, ph.t_victim / 1048576.0, cap_mb);
			CHECK(ph.victim_res < 0.8, "demand = resident: the victim's hot set does not "
			      "fit (%.0f%% on the fast node)", 100.0 * ph.victim_res);
		} else {
			CHECK(ph.secs >= 0 && ph.victim_res >= 0.9,
			      "demand = hot: the victim's hot set %.0f%% on the fast node (>= 90%%)",
			      100.0 * ph.victim_res);
			CHECK(ph.hog_hot_res >= 0.9, "demand = hot: the hog keeps its hot set "
			      "(%.0f%% on the fast node)", 100.0 * ph.hog_hot_res);
			/* the hog's cold bytes went: its fast bytes about its
			 * target (10% + 4 MB), the target about its hot set plus
			 * the margin (at most twice the hot set + 8 MB, where a
			 * reading run high would have put it) */
			CHECK(ph.t_hog > 0 && ph.hog_fast <= ph.t_hog + ph.t_hog / 10 + (4u << 20) &&
				      ph.t_hog <= ((uint64_t)hog_hot_mb << 21) + (8u << 20),
			      "demand = hot: the hog's fast bytes %.1f MB about its target %.1f MB "
			      "(its hot set %d MB)", ph.hog_fast / 1048576.0, ph.t_hog / 1048576.0,
			      hog_hot_mb);
			CHECK(ph.demand_hot_logged, "tierd logged a demand by hot set");
			/* the measurement: the victim's within 25% of its known
			 * hot set. The hog's is only reported: it is read while
			 * 240 MB of its cold pages move, and a window over which
			 * the resident bytes moved may lower a reading but not
			 * raise it, so it runs low (11.8 MB of 16 in the cold
			 * make check of 2026-12-07, its outcomes all met). What a
			 * reading does to the share is checked above (the hog
			 * keeps its hot set; its target at most 2 x hot + 8 MB);
			 * the accuracy of a reading over a steady hot set is
			 * damon-tierd-hotset's check. */
			CHECK(ph.hot_hog != UINT64_MAX, "hog's hot set measured %.1f MB (%d MB; "
			      "reported, not bounded: read while its cold pages move)",
			      ph.hot_hog == UINT64_MAX ? -1.0 : ph.hot_hog / 1048576.0, hog_hot_mb);
			CHECK(ph.hot_victim != UINT64_MAX &&
			      ph.hot_victim >= ((uint64_t)victim_mb << 20) * 3 / 4 &&
			      ph.hot_victim <= ((uint64_t)victim_mb << 20) * 5 / 4,
			      "victim's hot set measured %.1f MB (%d MB, within 25%%)",
			      ph.hot_victim == UINT64_MAX ? -1.0 : ph.hot_victim / 1048576.0,
			      victim_mb);
		}
		printf("TIERD-VM-METRIC: case=%s demand=%s cap_mb=%d secs=%.1f hog_target_mb=%.1f "
		       "hog_fast_mb=%.1f hog_hot_res=%.3f hog_hot_measured_mb=%.1f "
		       "victim_target_mb=%.1f victim_fast_mb=%.1f victim_hot_res=%.3f "
		       "victim_hot_measured_mb=%.1f jain_hot=%.3f pgmigrate_success=%" PRIu64 "\n",
		       name, demand, cap_mb, ph.secs, ph.t_hog / 1048576.0, ph.hog_fast / 1048576.0,
		       ph.hog_hot_res, ph.hot_hog == UINT64_MAX ? -1.0 : ph.hot_hog / 1048576.0,
		       ph.t_victim / 1048576.0, ph.victim_fast / 1048576.0, ph.victim_res,
		       ph.hot_victim == UINT64_MAX ? -1.0 : ph.hot_victim / 1048576.0,
		       jain2(ph.victim_res, ph.hog_hot_res), ph.migrated);
		fflush(stdout);
	}
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	return verdict(name);
}

/*
 * damon-tierd-budget: /budget (promote_budget = TIERD_BUDGET_MB/s) and /free
 * (no budget), each with a hot set of TIERD_BUDGET_HOT_MB placed on the slow
 * node, no contention for the fast tier.  /budget's fast bytes never run
 * ahead of budget x time (+25%, + one reset interval's quota): an upper
 * bound, whatever the speed; /free reaches 90%, /budget's quota bit
 * (qt_exceeds).  The rate between 10% and 90% and /free's time to 90% are
 * the figures (DAMON charges every byte of the regions it tries, so
 * /budget comes in far below its budget); TIERD_BUDGET_MB=0 runs the same
 * without a budget (the reference); TIERD_BUDGET_SECS bounds the run (150).
 * Before tierd armed its quota'd schemes (tierd-damon.c, DAMON_ARM_TICKS),
 * 6.12's unlimited first charge window let /budget run 32 MB ahead.
 */
/* tierd-damon.h DAMON_PROMOTE_RESET_MS: the budget's quota window */
#define BUDGET_RESET_MS 1000
int case_damon_tierd_budget(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], conf[1024], cg_b[256] = "", cg_f[256] = "", nb_saved[16] = "";
	int budget_mb, hot_mb, bound_s, floor_pct, pipefd[2] = { -1, -1 };
	pid_t tierd = -1, w_b = -1, w_f = -1;
	char *a = NULL;
	struct numa_anon b = { 0 }, fr = { 0 }, b0 = { 0 };
	double t0, el = 0, bound, t_b10 = -1, t_b90 = -1, t_f90 = -1;
	double worst = 0;
	uint64_t b10 = 0, b90 = 0, mig0 = 0, mig1 = 0;
	unsigned long long budget_quota = 0, budget_exceeds = 0;

	if (env_int("TIERD_BUDGET_RATE_FLOOR", 0, 0, 100, &floor_pct) < 0 ||
	    env_int("TIERD_BUDGET_MB", 8, 0, 1024, &budget_mb) < 0 ||
	    env_int("TIERD_BUDGET_HOT_MB", 64, 8, 1024, &hot_mb) < 0 ||
	    env_int("TIERD_BUDGET_SECS", 150, 10, 3600, &bound_s) < 0)
		return 1;
	bound = bound_s * time_scale;
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	snprintf(conf, sizeof(conf),
		 "[daemon]\nbackend = damon\nnuma_balancing_sysctl = off\n"
		 "rebalance_interval = 2s\nfast_tier_reserve = 0\n\n"
		 "[class:budget]\nmode = promote\n%s%d%s\n"
		 "[class:free]\nmode = promote\n\n"
		 "[rule:budget]\nclass = budget\ncgroup = /budget\n\n"
		 "[rule:free]\nclass = free\ncgroup = /free\n",
		 budget_mb ? "promote_budget = " : "#", budget_mb, budget_mb ? "M" : "");
	if (cg_create(NULL, "budget", cg_b, sizeof(cg_b)) < 0 ||
	    cg_create(NULL, "free", cg_f, sizeof(cg_f)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	tierd = tierd_start_conf(bin, conf);
	if (tierd < 0) {
		msg("FAIL: cannot start tierd");
		failures++;
		goto out;
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	/* /free first: /budget's promotion is watched from its first page on */
	w_f = start_placed(cg_f, SLOW_NODE, (size_t)hot_mb << 20, (size_t)hot_mb << 20,
				pipefd[1]);
	if (w_f < 0 || read(pipefd[0], &a, sizeof(a)) != (ssize_t)sizeof(a)) {
		msg("FAIL: /free did not start");
		failures++;
		goto out;
	}
	w_b = start_placed(cg_b, SLOW_NODE, (size_t)hot_mb << 20, (size_t)hot_mb << 20,
				pipefd[1]);
	if (w_b < 0 || read(pipefd[0], &a, sizeof(a)) != (ssize_t)sizeof(a)) {
		msg("FAIL: /budget did not start");
		failures++;
		goto out;
	}
	read_anon(cg_b, &b0);
	t0 = now_sec();
	for (;;) {
		uint64_t hot = (uint64_t)hot_mb << 20;

		el = now_sec() - t0;
		if (read_anon(cg_b, &b) < 0 || read_anon(cg_f, &fr) < 0)
			break;
		if (t_b10 < 0 && b.n0 >= hot / 10) {
			t_b10 = el;
			b10 = b.n0;
		}
		if (t_b90 < 0 && b.n0 >= hot * 9 / 10) {
			t_b90 = el;
			b90 = b.n0;
		}
		if (t_f90 < 0 && fr.n0 >= hot * 9 / 10)
			t_f90 = el;
		/* how far ahead of budget x time /budget ever ran (bytes) */
		if (budget_mb && b.n0 > b0.n0) {
			double allowed = el * budget_mb * 1048576.0 * 1.25 +
					 budget_mb * 1048576.0 * BUDGET_RESET_MS / 1000;
			double ahead = (double)(b.n0 - b0.n0) - allowed;

			if (ahead > worst)
				worst = ahead;
		}
		if ((t_b90 >= 0 && t_f90 >= 0) || el > bound)
			break;
		if ((int)el % 5 == 0)
			msg("  %.0f s: /budget fast %.1f MB, /free fast %.1f MB", el,
			    b.n0 / 1048576.0, fr.n0 / 1048576.0);
		sleep_sec(0.5);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	/* what the kdamond runs: each scheme's memcg, quota and qt_exceeds;
	 * /budget's quota is the budget per 100 ms, and it bit */
	schemes_dump("/budget", &budget_quota, &budget_exceeds);
	{
		double rate = t_b90 > t_b10 && t_b10 >= 0 ? (double)(b90 - b10) / 1048576.0 /
								   (t_b90 - t_b10) :
							    -1;

		msg("  /budget (%d MB/s): 10%% at %.1f s, 90%% at %.1f s: %.2f MB/s; /free 90%% at "
		    "%.1f s; ahead of the budget by at most %.1f MB", budget_mb, t_b10, t_b90, rate,
		    t_f90, worst / 1048576.0);
		/* outcomes, not timings: /free is not held back, /budget never
		 * runs ahead of its budget, and the budget is DAMON's quota and
		 * bit; how fast /budget gets there is a figure (under TCG DAMON
		 * sees accesses in bursts, see docs/architecture.md) */
		CHECK(t_f90 >= 0, "/free's hot set 90%% on the fast node (%.1f s)", t_f90);
		msg("  /budget's hot set 90%% on the fast node: %s (%.1f s)",
		    t_b90 >= 0 ? "yes" : "not within the bound", t_b90);
		if (budget_mb) {
			uint64_t want = (((uint64_t)budget_mb << 20) * BUDGET_RESET_MS / 1000) & ~4095ull;

			CHECK(worst <= 0, "/budget never ran ahead of %d MB/s (+25%%, + one "
			      "interval's quota): by %.1f MB at most", budget_mb, worst / 1048576.0);
			/* the quota is the budget scaled by what DAMON charged
			 * over what it promoted (tierd-damon.h, DAMON_SCALE_ONE):
			 * one to eight times the budget */
			CHECK(budget_quota >= want && budget_quota <= want * 8 &&
				      budget_quota % 4096 == 0 && budget_exceeds > 0,
			      "/budget's migrate_hot quota %llu bytes per %d ms (budget %" PRIu64
			      ", scaled up to 8x), exhausted %llu times", budget_quota,
			      BUDGET_RESET_MS, want, budget_exceeds);
			/* the rate from 10% to 90%: never above the budget by
			 * more than 25%; at least TIERD_BUDGET_RATE_FLOOR% of
			 * it (make check 50: 8 runs of 2026-12-07 gave 64-98%,
			 * a quota charged with others' bytes gave 13%; make
			 * bench-damon-hot 75, the issue's 25%) */
			if (rate >= 0)
				CHECK(rate <= budget_mb * 1.25, "/budget's rate %.2f MB/s at most "
				      "125%% of %d MB/s", rate, budget_mb);
			if (floor_pct)
				CHECK(rate >= budget_mb * floor_pct / 100.0, "/budget's rate %.2f "
				      "MB/s at least %d%% of %d MB/s", rate, floor_pct, budget_mb);
		}
		CHECK(log_count("DAMON: kdamond") > 0, "tierd drove DAMON");
		printf("TIERD-VM-METRIC: case=%s budget_mb_s=%d hot_mb=%d budget_t10=%.1f "
		       "budget_t90=%.1f budget_rate_mb_s=%.2f free_t90=%.1f ahead_mb=%.1f "
		       "pgmigrate_success=%" PRIu64 "\n", name, budget_mb, hot_mb, t_b10, t_b90,
		       rate, t_f90, worst / 1048576.0, mig1 - mig0);
		fflush(stdout);
	}
out:
	reap(&tierd, SIGTERM);
	log_dump();
	pair_teardown(&w_b, &w_f, pipefd, cg_b, cg_f);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	return verdict(name);
}

/*
 * damon-tierd-hotset: the hot-set measurement's accuracy (issue 22).  One
 * cgroup holds TIERD_HOTSET_RESIDENT_MB (default 48) on the fast node and
 * reads the first TIERD_HOTSET_MB (default 32) in a loop; tierd (backend
 * auto: damon on a stock kernel, knob on ours, where its kdamond measures
 * hot sets only) with demand = hot and hot_margin 100%, so that its demand
 * (64 MB, at most its 48 MB resident) is its resident bytes and nothing is
 * demoted: the measurement alone
 * (on the damon backend, readings ran high while tierd demoted the cold
 * pages: 50-53 MB and once 120 MB for this 32 MB hot set; see
 * docs/architecture.md, "Hot sets").  Every tierd reading from the first
 * one on is printed; the case asserts that within the bound HOTSET_STABLE
 * readings in a row are within 25% of the hot set (tierd reports the
 * largest of its last DAMON_HOT_KEEP readings, so one high reading holds
 * for a while).  TIERD_HOTSET_MARGIN (default 100) sets hot_margin: 0
 * puts the target at the hot set and makes tierd demote the cold 16 MB
 * while it measures.
 */
#define HOTSET_STABLE 4

int case_damon_tierd_hotset(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], conf[512], cg[256] = "";
	int hot_mb, res_mb, margin, pipefd[2] = { -1, -1 }, in_band = 0, readings = 0;
	uint64_t last = UINT64_MAX, lo, hi, fast = UINT64_MAX, slow = UINT64_MAX, usec, last_usec = 0;
	double t0, t_first = -1, bound = 150.0 * time_scale;
	pid_t tierd = -1, w = -1;
	char *addr = NULL;

	if (env_int("TIERD_HOTSET_MB", 32, 4, 1024, &hot_mb) < 0 ||
	    env_int("TIERD_HOTSET_RESIDENT_MB", 48, 8, 2048, &res_mb) < 0 ||
	    env_int("TIERD_HOTSET_MARGIN", 100, 0, 1000, &margin) < 0)
		return 1;
	if (hot_mb > res_mb) {
		msg("FAIL: TIERD_HOTSET_MB %d above TIERD_HOTSET_RESIDENT_MB %d", hot_mb, res_mb);
		return 1;
	}
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	lo = ((uint64_t)hot_mb << 20) * 3 / 4;
	hi = ((uint64_t)hot_mb << 20) * 5 / 4;
	snprintf(conf, sizeof(conf),
		 "[daemon]\nbackend = auto\nrebalance_interval = 2s\ndemand = hot\n"
		 "hot_margin = %d%%\n\n"
		 "[class:c]\nmode = promote\n\n"
		 "[rule:hs]\nclass = c\ncgroup = /hotset\n", margin);
	if (cg_create(NULL, "hotset", cg, sizeof(cg)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: cannot create the cgroup");
		failures++;
		goto out;
	}
	w = start_placed(cg, FAST_NODE, (size_t)res_mb << 20, (size_t)hot_mb << 20, pipefd[1]);
	if (w < 0 || read(pipefd[0], &addr, sizeof(addr)) != (ssize_t)sizeof(addr)) {
		msg("FAIL: the worker did not start");
		failures++;
		goto out;
	}
	if (conf_write(conf) < 0) {
		msg("FAIL: cannot write %s", TIERD_CONF);
		failures++;
		goto out;
	}
	unlink(TIERD_LOG);
	tierd = tierd_spawn(bin);
	msg("  /hotset: %d MB resident on node %d, the first %d MB read in a loop (TLB flush "
	    "every %d ms: %s)", res_mb, FAST_NODE, hot_mb, TLB_FLUSH_MS,
	    tlb_flush_wanted() ? "yes" : "no");
	t0 = now_sec();
	while (now_sec() - t0 < bound && in_band < HOTSET_STABLE) {
		uint64_t v;

		sleep_sec(1);
		if (hot_sets_read_tiers("/hotset", &v, &fast, &slow, &usec) < 0 ||
		    usec == last_usec)
			continue;
		last_usec = usec;
		last = v;
		readings++;
		msg("  %.1f s: tierd reads /hotset's hot set as %.1f MB (fast %.1f, slow %.1f)",
		    now_sec() - t0, v / 1048576.0,
		    fast == UINT64_MAX ? -1.0 : fast / 1048576.0,
		    slow == UINT64_MAX ? -1.0 : slow / 1048576.0);
		if (v >= lo && v <= hi) {
			if (t_first < 0)
				t_first = now_sec() - t0;
			in_band++;
		} else {
			in_band = 0;	/* in a row */
		}
	}
	CHECK(t_first >= 0, "a reading within 25%% of the %d MB hot set (%.1f s, bound %.0f s, "
	      "%d readings)", hot_mb, t_first, bound, readings);
	CHECK(in_band >= HOTSET_STABLE, "%d readings in a row within 25%% (%d wanted)", in_band,
	      HOTSET_STABLE);
	/* all of it lives on the fast node: the split says so */
	CHECK(fast != UINT64_MAX && slow != UINT64_MAX && fast >= lo && fast <= hi &&
	      slow <= ((uint64_t)hot_mb << 20) / 4,
	      "per tier, the last reading: fast %.1f MB, slow %.1f MB (all of it on the fast node)",
	      fast == UINT64_MAX ? -1.0 : fast / 1048576.0,
	      slow == UINT64_MAX ? -1.0 : slow / 1048576.0);
	printf("TIERD-VM-METRIC: case=%s hot_mb=%d resident_mb=%d tlb_flush=%d secs_first=%.1f "
	       "last_mb=%.1f readings=%d in_band=%d\n", name, hot_mb, res_mb,
	       tlb_flush_wanted() ? 1 : 0, t_first, last == UINT64_MAX ? -1.0 : last / 1048576.0,
	       readings, in_band);
	fflush(stdout);
out:
	if (failures)
		log_dump();
	reap(&tierd, SIGTERM);
	pair_teardown(&w, &tierd, pipefd, cg, "");	/* tierd: reaped, -1 */
	return verdict(name);
}

/*
 * damon-tierd-pagecache: tierd's page_cache key (8e88a5a) end to end.  Two
 * cgroups each read a 64 MB tmpfs file with read() in a loop (start_reader:
 * its page cache placed on node 1, never mapped): /pcache in a promote
 * class (page_cache on, the default), /pcoff in a promote class with
 * page_cache = off (TIERD_PC_OFF_PAGE_CACHE=on turns it on, to see the
 * /pcoff check fail).
 * Phase 1 (TIERD_PC_NB_SECONDS, default 20; 0 skips it), before tierd:
 * kernel.numa_balancing=2 alone leaves both on node 1 (nothing faults).
 * Phase 2: tierd, backend = auto: on our kernel (knob) kernel.numa_balancing
 * stays 2 (the knob's NUMA balancing promotes anon, never read() page cache)
 * and tierd's kdamond gets a migrate_hot scheme with an anon filter for
 * /pcache; on a stock kernel (damon) numa_balancing_sysctl = off has tierd
 * set it to 0, and the promotion scheme covers page cache anyway, /pcoff's
 * filtered to anon.  Asserts that >= 90% of /pcache's file pages
 * (memory.numa_stat) reach node 0 within 120 s and that /pcoff's stay
 * >= 90% on node 1 until then and PC_OFF_EXTRA s after.  Stock 6.12 with
 * MGLRU on never lets DAMON see a read() (patch 18 fixes it): there the
 * case fails, run-vm --lru-gen off passes.
 */
#define PC_OFF_EXTRA	10

/* Print the tierd log's lines containing s. */
static void log_print(const char *s)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, s))
			printf("  | %s", line);
	fflush(stdout);
	fclose(f);
}

/* The backend of tierd's "Backend NAME: why" line, "-" before it. */
static void log_backend(char *buf, size_t size)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096];

	snprintf(buf, size, "-");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "Backend ");
		char b[32];

		if (p && sscanf(p, "Backend %31[^: ]:", b) == 1) {
			snprintf(buf, size, "%s", b);
			break;
		}
	}
	fclose(f);
}

int case_damon_tierd_pagecache(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	const char *off_pc = getenv("TIERD_PC_OFF_PAGE_CACHE");
	const char *file = "/tmp/damon-tierd-pcache", *file_off = "/tmp/damon-tierd-pcoff";
	char bin[512], cg[256] = "", cg_off[256] = "", nb_saved[16] = "", nb2[16] = "-";
	char lru_gen[32] = "-", backend[32] = "-";
	struct numa_anon f0 = { 0 }, f1 = { 0 }, f2 = { 0 }, o0 = { 0 }, o1 = { 0 }, o = { 0 };
	uint64_t promo0 = 0, promo1 = 0, mig0 = 0, mig1 = 0, off_min = UINT64_MAX;
	size_t bytes = 64u << 20;
	double t0, t90 = -1, elapsed = 0, bound = 120.0 * time_scale;
	int nb_seconds, pipefd[2] = { -1, -1 }, pipe2fd[2] = { -1, -1 };
	pid_t reader = -1, reader_off = -1, tierd = -1;
	char c, conf[1024];

	if (env_int("TIERD_PC_NB_SECONDS", 20, 0, 600, &nb_seconds) < 0)
		return 1;
	if (!off_pc)
		off_pc = "off";
	if (strcmp(off_pc, "on") && strcmp(off_pc, "off")) {
		msg("FAIL: TIERD_PC_OFF_PAGE_CACHE=%s: want on or off", off_pc);
		return 1;
	}
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	read_attr("/sys/kernel/mm/lru_gen/enabled", lru_gen, sizeof(lru_gen));
	msg("  /sys/kernel/mm/lru_gen/enabled: %s", lru_gen);
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	unlink(TIERD_LOG);
	if (cg_create(NULL, "pcache", cg, sizeof(cg)) < 0 ||
	    cg_create(NULL, "pcoff", cg_off, sizeof(cg_off)) < 0 || pipe(pipefd) < 0 ||
	    pipe(pipe2fd) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	reader = start_reader(cg, file, bytes, pipefd[1]);
	reader_off = start_reader(cg_off, file_off, bytes, pipe2fd[1]);
	if (reader < 0 || reader_off < 0 || read(pipefd[0], &c, 1) != 1 ||
	    read(pipe2fd[0], &c, 1) != 1 || read_numa(cg, "file", &f0) < 0 ||
	    read_numa(cg_off, "file", &o0) < 0) {
		msg("FAIL: the readers did not start");
		failures++;
		goto out;
	}
	CHECK(f0.n1 >= bytes * 9 / 10 && o0.n1 >= bytes * 9 / 10,
	      "page cache placed on node %d: /pcache N0=%" PRIu64 " N1=%" PRIu64 ", /pcoff N0=%"
	      PRIu64 " N1=%" PRIu64, SLOW_NODE, f0.n0, f0.n1, o0.n0, o0.n1);

	/* phase 1: NUMA balancing alone, no tierd */
	if (set_numa_balancing(2) < 0) {
		msg("FAIL: cannot set kernel.numa_balancing to 2");
		failures++;
		goto out;
	}
	if (nb_seconds > 0) {
		read_key_u64("/proc/vmstat", "pgpromote_success", &promo0);
		sleep_sec(nb_seconds * time_scale);
		read_key_u64("/proc/vmstat", "pgpromote_success", &promo1);
		read_numa(cg, "file", &f1);
		read_numa(cg_off, "file", &o1);
		CHECK(f1.n1 >= f0.n1 * 9 / 10,
		      "numa_balancing=2 alone, %d s: /pcache's page cache stays on node %d (N0=%"
		      PRIu64 " N1=%" PRIu64 "; /pcoff N0=%" PRIu64 " N1=%" PRIu64
		      "; pgpromote_success +%" PRIu64 ")", nb_seconds * time_scale, SLOW_NODE,
		      f1.n0, f1.n1, o1.n0, o1.n1, promo1 - promo0);
	}

	/* phase 2: tierd */
	snprintf(conf, sizeof(conf),
		 "[daemon]\nbackend = auto\nnuma_balancing_sysctl = off\n"
		 "rebalance_interval = 2s\n\n"
		 "[class:pc]\nmode = promote\n\n"
		 "[class:pcoff]\nmode = promote\npage_cache = %s\n\n"
		 "[rule:pcache]\nclass = pc\ncgroup = /pcache\n\n"
		 "[rule:pcoff]\nclass = pcoff\ncgroup = /pcoff\n", off_pc);
	if (conf_write(conf) < 0) {
		msg("FAIL: cannot write %s", TIERD_CONF);
		failures++;
		goto out;
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	tierd = tierd_spawn(bin);
	msg("  tierd started: /pcache class page_cache on (default), /pcoff page_cache = %s",
	    off_pc);
	t0 = now_sec();
	for (;;) {
		elapsed = now_sec() - t0;
		if (read_numa(cg, "file", &f2) < 0 || read_numa(cg_off, "file", &o) < 0)
			break;
		if (o.n1 < off_min)
			off_min = o.n1;
		if (t90 < 0 && f2.n0 >= (f2.n0 + f2.n1) * 9 / 10)
			t90 = elapsed;
		/* /pcoff watched PC_OFF_EXTRA s past /pcache's 90% */
		if (t90 >= 0 && elapsed >= t90 + PC_OFF_EXTRA * time_scale)
			break;
		if (elapsed > bound)
			break;
		if (backend[0] == '-')
			log_backend(backend, sizeof(backend));
		sleep_sec(1);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	read_attr("/proc/sys/kernel/numa_balancing", nb2, sizeof(nb2));
	log_backend(backend, sizeof(backend));
	msg("  tierd's backend: %s; kernel.numa_balancing while it ran: %s; lru_gen %s", backend,
	    nb2, lru_gen);
	log_print("page cache");
	CHECK(t90 >= 0, "tierd: >= 90%% of /pcache's page cache on node %d (%.1f s, bound %.0f s; "
	      "N0=%" PRIu64 " N1=%" PRIu64 ", pgmigrate_success +%" PRIu64 ", backend %s, "
	      "lru_gen %s)", FAST_NODE, t90, bound, f2.n0, f2.n1, mig1 - mig0, backend, lru_gen);
	if (t90 < 0 && strcmp(lru_gen, "0x0000") && strcmp(backend, "knob"))
		msg("  (stock 6.12 with MGLRU on: folio_mark_accessed() does not clear the idle "
		    "flag DAMON set on an unmapped folio, so DAMON sees no read() of it; patch 18 "
		    "of the series fixes it; run-vm --lru-gen off)");
	if (off_min == UINT64_MAX)
		off_min = 0;
	CHECK(off_min >= o0.n1 * 9 / 10,
	      "/pcoff (page_cache = %s): its page cache stays on node %d for %.1f s (N1 at least %"
	      PRIu64 " of %" PRIu64 "; at the end N0=%" PRIu64 " N1=%" PRIu64 ")", off_pc,
	      SLOW_NODE, elapsed, off_min, o0.n1, o.n0, o.n1);
	printf("TIERD-VM-METRIC: case=%s backend=%s lru_gen=%s numa_balancing=%s nb_seconds=%d"
	       " nb_promoted=%" PRIu64 " secs_90=%.1f secs=%.1f pgmigrate_success=%" PRIu64
	       " file_n0=%" PRIu64 " file_n1=%" PRIu64 " off_page_cache=%s off_n0=%" PRIu64
	       " off_n1=%" PRIu64 " off_min_n1=%" PRIu64 " off_min_pct=%.1f\n", name, backend,
	       lru_gen, nb2, nb_seconds * time_scale, promo1 - promo0, t90, elapsed, mig1 - mig0,
	       f2.n0, f2.n1, off_pc, o.n0, o.n1, off_min,
	       o0.n1 ? 100.0 * (double)off_min / (double)o0.n1 : 0.0);
	fflush(stdout);
out:
	if (failures)
		log_dump();
	reap(&tierd, SIGTERM);	/* restores kernel.numa_balancing on the damon backend */
	reap(&reader, SIGKILL);
	reap(&reader_off, SIGKILL);
	unlink(file);		/* the page cache goes before its cgroups */
	unlink(file_off);
	pair_teardown(&reader, &reader_off, pipefd, cg, cg_off);
	for (int i = 0; i < 2; i++)
		if (pipe2fd[i] >= 0)
			close(pipe2fd[i]);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	return verdict(name);
}

/* ------------------------------------------------------------------------
 * Benchmarks (make bench-damon): figures, few assertions
 * ------------------------------------------------------------------------ */

static double cpu_or_zero(pid_t pid)
{
	double s = pid > 0 ? proc_cpu_sec((int)pid) : -1;

	return s < 0 ? 0 : s;
}

/* The CPU seconds of the kdamonds tierd records as its own (one per tier;
 * those running), 0 without any. */
static double tierd_kdamond_cpu(void)
{
	struct tier_damon_owner rec[TIER_DAMON_OWNERS_MAX];
	int run_fd = open("/run/tierd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	double sum = 0;
	size_t n = 0;

	if (run_fd < 0)
		return 0;
	if (tier_damon_owners_load(run_fd, OWNER_FILE, rec, TIER_DAMON_OWNERS_MAX, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (rec[i].pid > 0)
				sum += cpu_or_zero(rec[i].pid);
	close(run_fd);
	return sum;
}

/*
 * damon-tierd-bench: one mechanism's promotion, for the side-by-side table.
 * tierd (backend auto: damon on a stock kernel, knob on ours, with
 * kernel.numa_balancing 2 there) and a promote class on /bench, whose
 * TIERD_BENCH_HOT_MB (default 48) MB hot set starts on the slow node: the
 * time until 90% is on the fast node (bound 120 s), pages migrated and
 * promoted, NUMA hinting faults, and the CPU of tierd, of its kdamond and
 * of the worker (its loop, and the hinting faults it takes).
 */
int case_damon_tierd_bench(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], cg[256] = "", backend[16] = "?", nb_saved[16] = "";
	int hot_mb, pipefd[2] = { -1, -1 };
	uint64_t mig0 = 0, mig1 = 0, pro0 = 0, pro1 = 0, hf0 = 0, hf1 = 0;
	double t0, t90 = -1, bound = 120.0 * time_scale, tierd_cpu = 0, kd_cpu = 0, w_sys0, w_sys1;
	struct numa_anon a = { 0 };
	pid_t tierd = -1, w = -1;
	char *addr = NULL;

	if (env_int("TIERD_BENCH_HOT_MB", 48, 4, 1024, &hot_mb) < 0)
		return 1;
	snprintf(bin, sizeof(bin), "%s/bin/tierd", build ? build : "build");
	if (access(bin, X_OK) < 0) {
		msg("SKIP: no %s (make tierd)", bin);
		return EXIT_SKIP;
	}
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	/* ours promotes in tiering mode; on the damon backend tierd sets it
	 * to 0 itself (numa_balancing_sysctl = off) */
	if (set_numa_balancing(2) < 0 ||
	    conf_write("[daemon]\nbackend = auto\nnuma_balancing_sysctl = off\n"
		       "rebalance_interval = 2s\n\n[class:c]\nmode = promote\n\n"
		       "[rule:bench]\nclass = c\ncgroup = /bench\n") < 0 ||
	    cg_create(NULL, "bench", cg, sizeof(cg)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: setup");
		failures++;
		goto out;
	}
	w = start_placed(cg, SLOW_NODE, (size_t)hot_mb << 20, (size_t)hot_mb << 20, pipefd[1]);
	if (w < 0 || read(pipefd[0], &addr, sizeof(addr)) != (ssize_t)sizeof(addr)) {
		msg("FAIL: the worker did not start");
		failures++;
		goto out;
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig0);
	read_key_u64("/proc/vmstat", "pgpromote_success", &pro0);
	read_key_u64("/proc/vmstat", "numa_hint_faults", &hf0);
	w_sys0 = cpu_or_zero(w);
	unlink(TIERD_LOG);
	t0 = now_sec();
	tierd = tierd_spawn(bin);
	for (;;) {
		double el = now_sec() - t0;

		if (read_anon(cg, &a) == 0 && a.n0 >= ((uint64_t)hot_mb << 20) * 9 / 10) {
			t90 = el;
			break;
		}
		if (el > bound)
			break;
		sleep_sec(0.2);
	}
	read_key_u64("/proc/vmstat", "pgmigrate_success", &mig1);
	read_key_u64("/proc/vmstat", "pgpromote_success", &pro1);
	read_key_u64("/proc/vmstat", "numa_hint_faults", &hf1);
	w_sys1 = cpu_or_zero(w);
	kd_cpu = tierd_kdamond_cpu();
	tierd_cpu = cpu_or_zero(tierd);
	log_backend(backend, sizeof(backend));
	CHECK(t90 >= 0, "backend %s: /bench's %d MB hot set 90%% on node %d after %.1f s (bound "
	      "%.0f s)", backend, hot_mb, FAST_NODE, t90, bound);
	printf("TIERD-VM-METRIC: case=%s backend=%s hot_mb=%d secs_90=%.1f pgmigrate_success=%"
	       PRIu64 " pgpromote_success=%" PRIu64 " numa_hint_faults=%" PRIu64
	       " tierd_cpu_s=%.2f kdamond_cpu_s=%.2f worker_cpu_s=%.2f\n", name, backend, hot_mb,
	       t90, mig1 - mig0, pro1 - pro0, hf1 - hf0, tierd_cpu, kd_cpu, w_sys1 - w_sys0);
	fflush(stdout);
out:
	if (failures)
		log_dump();
	reap(&tierd, SIGTERM);
	pair_teardown(&w, &tierd, pipefd, cg, "");	/* tierd: reaped, -1 */
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	return verdict(name);
}

/* The "DAMON: synced N schemes ... in X ms" lines of the log: how many,
 * and the first one after the first `skip` whose N exceeds above (its N and
 * X in *ret_n, *ret_ms; *ret_ms -1 if none). */
static int log_syncs(int skip, int above, int *ret_n, double *ret_ms)
{
	FILE *f = fopen(TIERD_LOG, "re");
	char line[4096];
	int count = 0;

	*ret_ms = -1;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "DAMON: synced ");
		const char *q = strrchr(line, ')');
		double x;
		int n;

		if (!p || !q || sscanf(p, "DAMON: synced %d schemes", &n) != 1 ||
		    sscanf(q, ") in %lf ms", &x) != 1)
			continue;
		if (count++ >= skip && n > above && *ret_ms < 0) {
			*ret_n = n;
			*ret_ms = x;
		}
	}
	fclose(f);
	return count;
}

/*
 * damon-tierd-scale: tierd's and its kdamond's cost with TIERD_SCALE_N
 * (default 100) managed memcgs, each holding 64 kB, below one promote
 * class on /scale (one scheme per memcg: migrate_hot on the damon backend,
 * the page-cache scheme on the knob backend).  Once all have schemes:
 * CPU of tierd and of the kdamond over TIERD_SCALE_SECS (default 30) in
 * percent of one core, then one more memcg: the time from its mkdir to the
 * sync that covers it, and that sync's duration.
 */
int case_damon_tierd_scale(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], cg[256] = "", backend[16] = "?", (*paths)[256] = NULL, extra[256] = "";
	int n, secs, got = 0, got2 = 0, syncs0;
	pid_t tierd = -1, *pids = NULL, xpid = -1;
	double t0, t_all = -1, c_t0, c_t1, c_k0, c_k1, tw, t_new = -1, sync_ms = -1;
	double bound = 120.0 * time_scale;

	if (env_int("TIERD_SCALE_N", 100, 1, 1500, &n) < 0 ||
	    env_int("TIERD_SCALE_SECS", 30, 5, 600, &secs) < 0)
		return 1;
	if (!damon_and_tierd(build, bin, sizeof(bin)))
		return EXIT_SKIP;
	pids = calloc((size_t)n, sizeof(*pids));
	paths = calloc((size_t)n, sizeof(*paths));
	if (!pids || !paths ||
	    conf_write("[daemon]\nbackend = auto\nrebalance_interval = 2s\n\n"
		       "[class:c]\nmode = promote\n\n[rule:scale]\nclass = c\ncgroup = /scale\n") < 0 ||
	    cg_create(NULL, "scale", cg, sizeof(cg)) < 0 || cg_enable_memory(cg) < 0 ||
	    burst_start(cg, n, pids, paths) < 0) {
		msg("FAIL: setup of %d memcgs", n);
		failures++;
		goto out;
	}
	unlink(TIERD_LOG);
	t0 = now_sec();
	tierd = tierd_spawn(bin);
	while (now_sec() - t0 < bound) {
		if (log_max_runs() >= n) {
			t_all = now_sec() - t0;
			break;
		}
		sleep_sec(0.5);
	}
	log_backend(backend, sizeof(backend));
	CHECK(t_all >= 0, "backend %s: %d memcgs with schemes after %.1f s", backend, n, t_all);
	if (t_all < 0)
		goto out;
	sleep_sec(5);	/* past the start */
	c_t0 = cpu_or_zero(tierd);
	c_k0 = tierd_kdamond_cpu();
	tw = now_sec();
	sleep_sec(secs);
	c_t1 = cpu_or_zero(tierd);
	c_k1 = tierd_kdamond_cpu();
	tw = now_sec() - tw;
	/* one more memcg */
	syncs0 = log_syncs(INT_MAX, 0, &got, &sync_ms);
	got = log_max_runs();
	t_new = now_sec();
	if (cg_create(cg, "new", extra, sizeof(extra)) < 0 || (xpid = fork()) < 0) {
		msg("FAIL: the new memcg did not start");
		failures++;
		goto out;
	}
	if (xpid == 0) {
		static char page[1 << 16];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (cg_enter(extra) < 0)
			_exit(2);
		dirty_pages(page, sizeof(page));
		pause();
		_exit(0);
	}
	for (;;) {
		double el = now_sec() - t_new;

		(void)log_syncs(syncs0, got, &got2, &sync_ms);
		if (sync_ms >= 0 || el > 60.0 * time_scale)
			break;
		sleep_sec(0.1);
	}
	t_new = now_sec() - t_new;
	CHECK(sync_ms >= 0, "a new memcg got its scheme %.1f s after its mkdir (sync of %d "
	      "schemes, was %d: %.1f ms)", t_new, got2, got, sync_ms);
	printf("TIERD-VM-METRIC: case=%s backend=%s memcgs=%d secs_all=%.1f window_s=%.1f "
	       "tierd_cpu_pct=%.2f kdamond_cpu_pct=%.2f new_memcg_s=%.2f new_sync_ms=%.1f\n",
	       name, backend, n, t_all, tw, 100.0 * (c_t1 - c_t0) / tw,
	       100.0 * (c_k1 - c_k0) / tw, t_new, sync_ms);
	fflush(stdout);
out:
	if (failures)
		log_dump();
	reap(&tierd, SIGTERM);
	reap(&xpid, SIGKILL);
	for (int i = 0; pids && i < n; i++)
		reap(&pids[i], SIGKILL);
	if (cg[0])
		cg_destroy(cg);
	free(pids);
	free(paths);
	return verdict(name);
}

/*
 * tierctl-doctor: what `tierctl doctor` says on this kernel (for the notes
 * and bench-damon): its text output and exit code.  The case passes when
 * tierctl ran (exit 0: tierd can tier here, 7: it cannot) and, with
 * TIERD_DOCTOR_BACKEND set, named that backend and exited 0 with
 * kernel.numa_balancing 2 (the setting the knob backend needs).
 */
int case_tierctl_doctor(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD"), *want = getenv("TIERD_DOCTOR_BACKEND");
	char bin[512], out[16384], line[64], nb_saved[16] = "";
	size_t len = 0;
	int status = 0, pfd[2];
	ssize_t r;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/bin/tierctl", build ? build : "build");
	if (access(bin, X_OK) < 0) {
		msg("SKIP: no %s (make tierctl)", bin);
		return EXIT_SKIP;
	}
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	if ((want && set_numa_balancing(2) < 0) || pipe(pfd) < 0) {
		msg("FAIL: setup");
		failures++;
		return verdict(name);
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		execl(bin, "tierctl", "doctor", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len < sizeof(out) - 1 && (r = read(pfd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(pfd[0]);
	fputs(out, stdout);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		msg("FAIL: cannot run %s", bin);
		failures++;
		goto out;
	}
	msg("  tierctl doctor exited %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	CHECK(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 7),
	      "tierctl doctor ran");
	if (want) {
		snprintf(line, sizeof(line), "\nbackend:        %s (", want);
		CHECK(strstr(out, line) != NULL, "it names backend %s", want);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "with kernel.numa_balancing 2 it says tierd can tier cgroups here");
	}
out:
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	return verdict(name);
}
