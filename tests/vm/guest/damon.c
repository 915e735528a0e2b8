/* damon.c: the VM cases of the DAMON backend, through lib/damon.c.
 *
 * damon-promote: two cgroups, "promote" and "off", each with a hot set of
 * TIERD_DAMON_HOT_MB (default 48) MB of private anonymous memory placed on
 * the slow node and then re-policied to default, read in a loop.  With
 * kernel.numa_balancing 0 (so nothing but DAMON moves pages), one kdamond
 * of our own with one paddr context over node 1's physical range and one
 * migrate_hot scheme (target node 0) filtered to "promote" (memcg filter,
 * matching N).  Waits (bounded) until promote's anon is >= 90% on node 0,
 * then asserts that off's stayed on node 1 and that the scheme's
 * sz_applied grew.  It also saves the ownership record and reclaims the
 * kdamond through a second handle, as a restarted tierd would.
 *
 * Prints "TIERD-VM-METRIC: case=damon-promote ..." with the time to 90%,
 * pgmigrate_success, the scheme's stats and the kdamond's CPU time.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* "anon N0=<bytes> N1=<bytes>" of memory.numa_stat. */
static int read_anon(const char *cg, struct numa_anon *ret)
{
	char buf[8192], *line, *save = NULL;

	if (cg_read(cg, "memory.numa_stat", buf, sizeof(buf)) < 0)
		return -EIO;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b;

		if (sscanf(line, "anon N0=%llu N1=%llu", &a, &b) == 2) {
			ret->n0 = a;
			ret->n1 = b;
			return 0;
		}
	}
	return -ENOENT;
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

/* A hot set on the slow node in cgroup cg, read in a loop until killed.
 * Writes one byte to ready_fd once it is placed. */
static pid_t start_workload(const char *cg, size_t bytes, int ready_fd)
{
	pid_t pid = fork();
	char *mem;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) < 0 || policy_bind(SLOW_NODE) < 0)
		_exit(2);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(3);
	madvise(mem, bytes, MADV_NOHUGEPAGE);
	dirty_pages(mem, bytes);
	if (policy_default() < 0)
		_exit(4);
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	for (;;)
		touch_pages(mem, bytes);
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
	int hot_mb, pipefd[2] = { -1, -1 }, run_fd = -1, r;
	unsigned idx = 0;
	bool started = false, running = false;
	char c;

	if (env_int("TIERD_DAMON_HOT_MB", 48, 4, 128, &hot_mb) < 0)
		return 1;
	hot_bytes = (size_t)hot_mb << 20;
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
	    cg_create(NULL, "off", cg_off, sizeof(cg_off)) < 0 || pipe(pipefd) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	w_promote = start_workload(cg_promote, hot_bytes, pipefd[1]);
	w_off = start_workload(cg_off, hot_bytes, pipefd[1]);
	if (w_promote < 0 || w_off < 0 || read(pipefd[0], &c, 1) != 1 ||
	    read(pipefd[0], &c, 1) != 1) {
		msg("FAIL: the workloads did not start");
		failures++;
		goto out;
	}
	if (read_anon(cg_promote, &pa0) < 0 || read_anon(cg_off, &oa0) < 0) {
		msg("FAIL: no anon line in memory.numa_stat");
		failures++;
		goto out;
	}
	msg("  start: promote anon N0=%" PRIu64 " N1=%" PRIu64 ", off anon N0=%" PRIu64
	    " N1=%" PRIu64, pa0.n0, pa0.n1, oa0.n0, oa0.n1);
	CHECK(pa0.n1 >= hot_bytes * 9 / 10 && oa0.n1 >= hot_bytes * 9 / 10,
	      "both hot sets start on node %d", SLOW_NODE);

	/* our kdamond: one paddr context over node 1, one scheme for promote */
	{
		const struct tier_damon_filter filters[] = {
			{ .type = TIER_DAMON_FILTER_MEMCG, .matching = false,
			  .memcg_path = "/promote" },
		};
		const struct tier_damon_scheme scheme = {
			.action = TIER_DAMON_MIGRATE_HOT,
			.target_nid = FAST_NODE,
			.sz = { page_size, UINT64_MAX },
			.nr_accesses = { 1, UINT64_MAX },
			.age = { 0, UINT64_MAX },
			.filters = filters,
			.nr_filters = 1,
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
		if (read_anon(cg_promote, &pa) < 0 || read_anon(cg_off, &oa) < 0)
			break;
		if (t90 < 0 && pa.n0 >= (pa.n0 + pa.n1) * 9 / 10) {
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
	CHECK(r == 0, "scheme stats read (%s)", r < 0 ? strerror(-r) : "ok");
	cpu = proc_cpu_sec(k.pid);
	/* off is still where it was, now that promote has arrived */
	read_anon(cg_off, &oa);
	msg("  end (%.1f s): promote anon N0=%" PRIu64 " N1=%" PRIu64 ", off anon N0=%" PRIu64
	    " N1=%" PRIu64, elapsed, pa.n0, pa.n1, oa.n0, oa.n1);
	CHECK(t90 >= 0, "promote: >= 90%% of its anon on node %d (%.1f s, bound %.0f s)",
	      FAST_NODE, t90, bound);
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
	printf("TIERD-VM-METRIC: case=%s hot_mb=%d secs_90=%.1f secs=%.1f pgmigrate_success=%" PRIu64
	       " sz_tried=%" PRIu64 " nr_applied=%" PRIu64 " sz_applied=%" PRIu64
	       " qt_exceeds=%" PRIu64 " kdamond_cpu_s=%.2f promote_n0=%" PRIu64
	       " promote_n1=%" PRIu64 " off_n0=%" PRIu64 " off_n1=%" PRIu64 "\n",
	       name, hot_mb, t90, elapsed, mig1 - mig0, st.sz_tried, st.nr_applied, st.sz_applied,
	       st.qt_exceeds, cpu, pa.n0, pa.n1, oa.n0, oa.n1);
	fflush(stdout);

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
	if (cg_promote[0])
		cg_destroy(cg_promote);
	if (cg_off[0])
		cg_destroy(cg_off);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	free(ranges);
	tier_damon_free(d2);
	tier_damon_free(d);
	return verdict(name);
}
