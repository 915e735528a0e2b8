/* tierd-vmtest: the VM test cases of the kernel series (issue 3).
 *
 *   tierd-vmtest list
 *   tierd-vmtest CASE
 *
 * Runs as PID 1's child in the two-tier VM (tests/vm/run-vm). Every case
 * places a small workload on the slow node (node 1), resets the memory
 * policy to default, keeps it hot for a bounded time and asserts on the
 * counters (/proc/vmstat, memory.stat, and the pages' nodes from
 * move_pages()), never on timing. Each workload runs in a child process in
 * a fresh cgroup, so the cgroup's counters are the workload's alone.
 *
 * Exit: 0 pass, 1 fail, 77 skip (the reason is the last line printed).
 * With TIERD_VM_MATRIX=1 a missing memory.numa_balancing is a failure
 * reported as "N/A: ..." and the workload still runs without the knob, so
 * the matrix shows what the stock kernel does.
 *
 * Every workload prints one "TIERD-VM-METRIC: key=value ..." line, which
 * tests/vm/matrix.sh turns into the stock-vs-patched table.
 *
 * cow-shared-cost, cell and fault-cost are measurements, set up from the
 * environment (TIERD_VM_SHARERS, TIERD_CELL_*, TIERD_FAULT_DEPTH): each
 * prints one more line (COWCOST, CELL, FAULTCOST) and fails only when the
 * workload cannot be set up or the premise of the measurement is not met.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "vmlib.h"

#define NO_KNOB_REASON	"kernel lacks memory.numa_balancing"

enum wl_kind {
	WL_ANON,	/* private anonymous memory */
	WL_SHMEM,	/* MAP_SHARED | MAP_ANONYMOUS */
	WL_FILE_RO,	/* read-only MAP_SHARED mapping of a tmpfs file */
	WL_COW,		/* private anonymous, shared with children by fork() */
	WL_VMAS,	/* many VMAs, accessed only by threads that do not scan */
	WL_THP,		/* private anonymous in transparent huge pages */
};

#define MAX_SHARERS	16

struct wl_params {
	const char *label;	/* case name in the metric line */
	const char *mode;	/* memory.numa_balancing of the cgroup, NULL: none */
	const char *parent_mode; /* non-NULL: nest the cgroup in a parent with this */
	int numa_mode;		/* kernel.numa_balancing */
	enum wl_kind kind;
	unsigned int slow_mb;	/* the hot set, placed on the slow node */
	unsigned int fast_mb;	/* an extra hot region placed on the fast node */
	unsigned int seconds;	/* how long the hot set is kept hot */
	bool stop_when_promoted; /* end early once the whole hot set is fast */
	bool extra_thread;	/* keep mm_users > 1 (private pages on the local
				 * node are only scanned in multi-threaded mms) */
	unsigned int nr_vmas;	/* WL_VMAS */
	unsigned int cold_seconds; /* WL_VMAS: idle time before the hot phase */
	unsigned int warm_seconds; /* WL_VMAS: bound of the warm phase (0: 20 s) */
	unsigned int sharers;	/* WL_COW: processes reading the hot set, the
				 * workload and sharers - 1 children (0: 2) */
	unsigned int cold_mb;	/* private anonymous memory placed on the slow
				 * node before fork() and never touched again */
	unsigned int depth;	/* > 1: the workload's cgroup is the last of a
				 * chain of DEPTH nested cgroups, and mode is
				 * written to the first one (not with parent_mode) */
	unsigned int poll_ms;	/* how often the nodes are read (0: 2000) */
};

struct wl_result {
	long pages;		/* hot-set pages, on the slow node at the start */
	long fast_before;
	long fast_after;
	long fast_region_pages;
	long fast_region_after;	/* fast-region pages still on the fast node */
	long cold_pages;	/* cold region, on the slow node at the start */
	long cold_after;	/* cold-region pages on the fast node at the end */
	long thp_kb;		/* WL_THP: AnonHugePages of the hot set, start */
	long thp_kb_after;	/* ... and end */
	double secs;
	long long utime_us;	/* the workload process (all its threads, not */
	long long stime_us;	/* the COW children) during the hot phase */
	struct counters vm;	/* /proc/vmstat delta */
	struct counters cg;	/* memory.stat delta of the workload's cgroup */
	bool knob_missing;
	bool cg_has_candidate;	/* memory.stat has pgpromote_candidate */
	char numa_stat[512];	/* anon/shmem/file lines of memory.numa_stat */
	int err;		/* negative errno of the setup, 0 if it ran */
	char what[96];		/* what failed in the setup */
};

/* The cgroup knob, or NULL when the kernel has none. */
static int write_knob(const char *cg, const char *mode, struct wl_result *r)
{
	int ret;

	if (!mode)
		return 0;
	if (!cg_has_knob(cg)) {
		r->knob_missing = true;
		return 0;
	}
	ret = cg_set_knob(cg, mode);
	if (ret < 0)
		msg("cannot write %s=%s in %s: %s", KNOB, mode, cg, strerror(-ret));
	return ret;
}

static void *map_anon(size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* 4 KiB pages, so page counts match the design's figures. */
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

static void *map_tmpfs_file(size_t len)
{
	char path[] = "/tmp/tierd-vmtest.XXXXXX";
	char *buf;
	void *p;
	size_t off;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	unlink(path);
	buf = malloc(1 << 20);
	if (!buf) {
		close(fd);
		return NULL;
	}
	memset(buf, 0x5a, 1 << 20);
	/* The page cache is allocated by this writer, under its policy. */
	for (off = 0; off < len; off += 1 << 20) {
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			free(buf);
			close(fd);
			return NULL;
		}
	}
	free(buf);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	touch_pages(p, len);
	return p;
}

/* WL_THP: LEN bytes of private anonymous memory, 2 MB aligned (the VMA is
 * exactly the region) and MADV_HUGEPAGE, so each 2 MB is one PMD-mapped THP
 * when transparent_hugepage/enabled is madvise or always. */
static void *map_thp(size_t len)
{
	const size_t align = 2UL << 20;
	char *p, *a;

	p = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (p + len + align > a + len)
		munmap(a + len, p + len + align - (a + len));
	if (madvise(a, len, MADV_HUGEPAGE) < 0) {
		munmap(a, len);
		return NULL;
	}
	return a;
}

/* WL_VMAS: NR VMAs of vma_len each, separated by PROT_NONE guard pages so
 * they never merge. */
struct vmas {
	char *base;
	size_t span;
	size_t vma_len;
	unsigned int nr;
};

static int map_vmas(struct vmas *v, unsigned int nr, size_t total)
{
	unsigned int i;

	v->nr = nr;
	v->vma_len = total / nr;
	v->span = (size_t)nr * (v->vma_len + page_size);
	v->base = mmap(NULL, v->span, PROT_NONE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (v->base == MAP_FAILED)
		return -errno;
	madvise(v->base, v->span, MADV_NOHUGEPAGE);
	for (i = 0; i < nr; i++) {
		char *a = v->base + (size_t)i * (v->vma_len + page_size);

		if (mprotect(a, v->vma_len, PROT_READ | PROT_WRITE) < 0)
			return -errno;
		dirty_pages(a, v->vma_len);
	}
	return 0;
}

static char *vma_addr(const struct vmas *v, unsigned int i)
{
	return v->base + (size_t)i * (v->vma_len + page_size);
}

struct worker {
	pthread_t thread;
	const struct vmas *v;
	unsigned int first, last;	/* VMAs [first, last) */
};

static atomic_int wl_phase;	/* 0 cold, 1 hot, 2 stop */
static pthread_mutex_t wl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wl_cond = PTHREAD_COND_INITIALIZER;

static void set_phase(int phase)
{
	pthread_mutex_lock(&wl_lock);
	atomic_store(&wl_phase, phase);
	pthread_cond_broadcast(&wl_cond);
	pthread_mutex_unlock(&wl_lock);
}

/* Worker of WL_VMAS: blocked while cold (so it accumulates no runtime and
 * does not drive NUMA scans), then reads its VMAs in short bursts. */
static void *vma_worker(void *arg)
{
	struct worker *w = arg;
	unsigned long sum = 0;
	unsigned int i;

	pthread_mutex_lock(&wl_lock);
	while (atomic_load(&wl_phase) == 0)
		pthread_cond_wait(&wl_cond, &wl_lock);
	pthread_mutex_unlock(&wl_lock);
	while (atomic_load(&wl_phase) == 1) {
		for (i = w->first; i < w->last; i++)
			sum += touch_pages(vma_addr(w->v, i), w->v->vma_len);
		sleep_sec(0.02);
	}
	return (void *)sum;
}

/* Keeps mm_users above one. */
static void *idle_thread(void *arg)
{
	pthread_mutex_lock(&wl_lock);
	while (atomic_load(&wl_phase) != 2)
		pthread_cond_wait(&wl_cond, &wl_lock);
	pthread_mutex_unlock(&wl_lock);
	return arg;
}

static bool debug;

static void spin(double secs)
{
	double start = now_sec(), end = start + secs, next = start + 0.5;
	volatile unsigned long x = 0;
	struct counters c;

	while (now_sec() < end) {
		unsigned int i;

		for (i = 0; i < 100000; i++)
			x += i;
		if (debug && now_sec() >= next) {
			next += 0.5;
			vmstat_read(&c);
			msg("    debug %.1fs: numa_pte_updates %llu numa_hint_faults %llu",
			    now_sec() - start, (unsigned long long)c.v[C_NUMA_PTE_UPDATES],
			    (unsigned long long)c.v[C_NUMA_HINT_FAULTS]);
		}
	}
}

static void read_numa_stat(const char *cg, struct wl_result *r)
{
	char buf[4096], *line, *save = NULL;
	size_t used = 0;

	r->numa_stat[0] = '\0';
	if (cg_read(cg, "memory.numa_stat", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int n;

		if (strncmp(line, "anon ", 5) && strncmp(line, "shmem ", 6) &&
		    strncmp(line, "file ", 5))
			continue;
		n = snprintf(r->numa_stat + used, sizeof(r->numa_stat) - used, "%s%s",
			     used ? "; " : "", line);
		if (n < 0 || (size_t)n >= sizeof(r->numa_stat) - used)
			break;
		used += n;
	}
}

#define RATE_LIMIT "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps"
#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

/* WL_VMAS before its hot phase. Makes every VMA PID-inactive for the main
 * thread (the one that drives the NUMA scans, the workers sleep most of the
 * time) and leaves the hot set on the slow node, unmarked:
 *
 * - cold: the workers are blocked; the first scans of a new VMA are
 *   unconditional and mark all its pages;
 * - warm: the workers read their VMAs and take those hinting faults, which
 *   records their PIDs (not the main thread's) in the VMAs; the promotion
 *   rate limit is 0 meanwhile, so none of these stale faults promotes;
 * - settle: the scan sequence moves past the unconditional scans.
 *
 * Then the rate limit is restored: from here on a page is promoted only if
 * a scan marks it again, which stock 6.12 does for one skipped VMA per scan
 * (the forced-progress fallback) and the series for all of them.
 */
static int vmas_warm_up(const struct wl_params *p, const char *cg, const struct vmas *v,
			long pages, struct worker **ret_workers, unsigned int *ret_nr)
{
	unsigned int nr = 4, i;
	struct counters c0, c;
	struct worker *w;
	char old_rl[32];
	double end;
	int ret;

	ret = read_attr(RATE_LIMIT, old_rl, sizeof(old_rl));
	if (ret < 0)
		return ret;
	ret = write_attr(RATE_LIMIT, "0");
	if (ret < 0)
		return ret;
	w = calloc(nr, sizeof(*w));
	if (!w) {
		write_attr(RATE_LIMIT, old_rl);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		w[i].v = v;
		w[i].first = v->nr * i / nr;
		w[i].last = v->nr * (i + 1) / nr;
		if (pthread_create(&w[i].thread, NULL, vma_worker, &w[i])) {
			nr = i;
			ret = -EAGAIN;
			break;
		}
	}
	*ret_workers = w;
	*ret_nr = nr;
	if (ret < 0) {
		write_attr(RATE_LIMIT, old_rl);
		return ret;
	}

	msg("  cold: %u s, nobody touches the hot set, promotion rate limit 0",
	    p->cold_seconds);
	spin(p->cold_seconds);
	cg_stat_read(cg, &c0);
	set_phase(1);
	end = now_sec() + (p->warm_seconds ? p->warm_seconds : 20);
	do {
		spin(0.2);
		cg_stat_read(cg, &c);
	} while (c.v[C_NUMA_HINT_FAULTS] - c0.v[C_NUMA_HINT_FAULTS] < (uint64_t)pages &&
		 now_sec() < end);
	msg("  warm: the workers took %llu hinting faults (hot set %ld pages), %llu promoted",
	    (unsigned long long)(c.v[C_NUMA_HINT_FAULTS] - c0.v[C_NUMA_HINT_FAULTS]), pages,
	    (unsigned long long)c.v[C_PGPROMOTE_SUCCESS]);
	spin(p->cold_seconds);
	ret = write_attr(RATE_LIMIT, old_rl);
	msg("  settled; promotion rate limit back to %s MB/s", old_rl);
	return ret;
}

#define SETUP_FAIL(r, e, ...) do {						\
	(r)->err = (e) ? (e) : -EIO;						\
	snprintf((r)->what, sizeof((r)->what), __VA_ARGS__);			\
	return;									\
} while (0)

static long long tv_us(const struct timeval *tv)
{
	return (long long)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* WL_COW: the children that read the hot set, killed and reaped. */
static void stop_readers(const pid_t *readers, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		kill(readers[i], SIGKILL);
	for (i = 0; i < nr; i++)
		waitpid(readers[i], NULL, 0);
}

/* Places [addr, addr+len) on the slow node (it is there already: this
 * drains the LRU batches, see wl_child()) and counts its pages there. */
static long place_slow(void *addr, size_t len, long *ret_present)
{
	move_to_node(addr, len, SLOW_NODE);
	return pages_on_node(addr, len, SLOW_NODE, ret_present);
}

/* The workload, in the child process, already in its cgroup. */
static void wl_child(const struct wl_params *p, const char *cg, struct wl_result *r)
{
	size_t len = (size_t)p->slow_mb << 20, fast_len = (size_t)p->fast_mb << 20;
	size_t cold_len = (size_t)p->cold_mb << 20;
	unsigned int sharers = p->sharers ? p->sharers : 2;
	double poll = p->poll_ms ? p->poll_ms / 1000.0 : 2;
	char *hot = NULL, *fast = NULL, *cold = NULL;
	struct counters vm0, cg0, vm1, cg1;
	pthread_t idle;
	struct worker *workers = NULL;
	unsigned int nr_workers = 0, nr_readers = 0, i;
	struct vmas v = { 0 };
	pid_t readers[MAX_SHARERS], self = getpid();
	struct rusage ru0, ru1;
	char stat_path[PATH_MAX];
	uint64_t val;
	size_t hot_span;
	double t0, t, next, next_msg, limit = (double)p->seconds * time_scale;
	unsigned long sum = 0;
	long present;
	bool done;
	int ret;

	if (p->kind == WL_COW && (sharers < 2 || sharers > MAX_SHARERS))
		SETUP_FAIL(r, -EINVAL, "%u sharers (2..%d)", sharers, MAX_SHARERS);
	ret = policy_bind(SLOW_NODE);
	if (ret < 0)
		SETUP_FAIL(r, ret, "set_mempolicy(MPOL_BIND, node %d)", SLOW_NODE);
	switch (p->kind) {
	case WL_ANON:
	case WL_COW:
		hot = map_anon(len, MAP_PRIVATE);
		break;
	case WL_SHMEM:
		hot = map_anon(len, MAP_SHARED);
		break;
	case WL_FILE_RO:
		hot = map_tmpfs_file(len);
		break;
	case WL_VMAS:
		ret = map_vmas(&v, p->nr_vmas, len);
		if (ret < 0)
			SETUP_FAIL(r, ret, "mapping %u VMAs", p->nr_vmas);
		hot = v.base;
		break;
	case WL_THP:
		hot = map_thp(len);
		break;
	}
	if (!hot)
		SETUP_FAIL(r, -errno, "mapping the hot set");
	hot_span = p->kind == WL_VMAS ? v.span : len;
	if (p->kind != WL_FILE_RO && p->kind != WL_VMAS)
		dirty_pages(hot, len);
	if (cold_len) {
		cold = map_anon(cold_len, MAP_PRIVATE);
		if (!cold)
			SETUP_FAIL(r, -errno, "mapping the cold region");
		dirty_pages(cold, cold_len);
	}
	if (fast_len) {
		ret = policy_bind(FAST_NODE);
		if (ret < 0)
			SETUP_FAIL(r, ret, "set_mempolicy(MPOL_BIND, node %d)", FAST_NODE);
		fast = map_anon(fast_len, MAP_PRIVATE);
		if (!fast)
			SETUP_FAIL(r, -errno, "mapping the fast region");
		/* The workload's own: not COW-shared with WL_COW's readers. */
		madvise(fast, fast_len, MADV_DONTFORK);
		dirty_pages(fast, fast_len);
	}
	ret = policy_default();
	if (ret < 0)
		SETUP_FAIL(r, ret, "set_mempolicy(MPOL_DEFAULT)");
	/* The last pages allocated sit in a per-CPU LRU batch, where
	 * migration cannot isolate them, until something drains it: on an
	 * idle VM nothing does. move_pages(MPOL_MF_MOVE) drains all CPUs
	 * (lru_cache_disable()); the pages are on the slow node already. */
	r->pages = place_slow(hot, hot_span, &present);
	if (r->pages < 0)
		SETUP_FAIL(r, r->pages, "move_pages");
	if (r->pages < present * 95 / 100)
		SETUP_FAIL(r, -ENOMEM, "placement: only %ld of %ld pages on node %d",
			   r->pages, present, SLOW_NODE);
	r->fast_before = pages_on_node(hot, hot_span, FAST_NODE, NULL);
	if (cold) {
		r->cold_pages = place_slow(cold, cold_len, &present);
		if (r->cold_pages < 0)
			SETUP_FAIL(r, r->cold_pages, "move_pages");
		if (r->cold_pages < present * 95 / 100)
			SETUP_FAIL(r, -ENOMEM, "placement: only %ld of %ld cold pages on node %d",
				   r->cold_pages, present, SLOW_NODE);
	}
	if (fast)
		r->fast_region_pages = pages_on_node(fast, fast_len, FAST_NODE, NULL);
	if (p->kind == WL_THP) {
		r->thp_kb = smaps_vma_kb(hot, "AnonHugePages");
		ret = r->thp_kb < 0 ? (int)r->thp_kb : -ENOMEM;
		if (r->thp_kb < (long)(len >> 10) / 2)
			SETUP_FAIL(r, ret, "only %ld of %zu kB of the hot set in THPs",
				   r->thp_kb, len >> 10);
	}

	if (p->extra_thread && pthread_create(&idle, NULL, idle_thread, NULL))
		SETUP_FAIL(r, -EAGAIN, "pthread_create");
	/* The hot set and the cold region are COW-shared from here on. */
	for (i = 1; p->kind == WL_COW && i < sharers; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			ret = -errno;
			stop_readers(readers, nr_readers);
			SETUP_FAIL(r, ret, "fork");
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			for (;;)
				sum += touch_pages(hot, len);
		}
		readers[nr_readers++] = pid;
	}
	if (p->kind == WL_VMAS) {
		ret = vmas_warm_up(p, cg, &v, r->pages, &workers, &nr_workers);
		if (ret < 0)
			SETUP_FAIL(r, ret, "warming up the VMAs");
		r->fast_before = pages_on_node(hot, hot_span, FAST_NODE, NULL);
	}

	msg("  %s: %ld pages on node %d, %ld on node %d; hot for up to %.0f s",
	    p->label, r->pages, SLOW_NODE, r->fast_before, FAST_NODE, limit);
	if (p->kind == WL_COW)
		msg("  %u processes share the hot set; cold region %ld pages on node %d",
		    sharers, r->cold_pages, SLOW_NODE);
	vmstat_read(&vm0);
	cg_stat_read(cg, &cg0);
	getrusage(RUSAGE_SELF, &ru0);
	if (p->kind == WL_VMAS)
		set_phase(1);

	t0 = now_sec();
	next = t0 + poll;
	next_msg = t0 + 2;
	for (;;) {
		if (p->kind == WL_VMAS)
			spin(0.05);
		else
			sum += touch_pages(hot, len);
		if (fast)
			sum += touch_pages(fast, fast_len);
		t = now_sec();
		if (t < next && t - t0 < limit)
			continue;
		r->fast_after = pages_on_node(hot, hot_span, FAST_NODE, NULL);
		done = t - t0 >= limit || (p->stop_when_promoted && r->fast_after >= r->pages);
		if (done || t >= next_msg) {
			vmstat_read(&vm1);
			counters_sub(&vm1, &vm0);
			msg("  %5.1fs: %ld of %ld hot pages on the fast node (pte updates %llu, "
			    "hint faults %llu, promoted %llu)", t - t0, r->fast_after, r->pages,
			    (unsigned long long)vm1.v[C_NUMA_PTE_UPDATES],
			    (unsigned long long)vm1.v[C_NUMA_HINT_FAULTS],
			    (unsigned long long)vm1.v[C_PGPROMOTE_SUCCESS]);
			next_msg = t + 2;
		}
		if (done)
			break;
		next = now_sec() + poll;
	}
	r->secs = t - t0;
	getrusage(RUSAGE_SELF, &ru1);
	vmstat_read(&vm1);
	cg_stat_read(cg, &cg1);
	counters_sub(&vm1, &vm0);
	counters_sub(&cg1, &cg0);
	if (snprintf(stat_path, sizeof(stat_path), "%s/memory.stat", cg) < (int)sizeof(stat_path))
		r->cg_has_candidate = read_key_u64(stat_path, "pgpromote_candidate", &val) == 0;
	r->vm = vm1;
	r->cg = cg1;
	r->utime_us = tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime);
	r->stime_us = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	if (fast)
		r->fast_region_after = pages_on_node(fast, fast_len, FAST_NODE, NULL);
	if (cold)
		r->cold_after = pages_on_node(cold, cold_len, FAST_NODE, NULL);
	if (p->kind == WL_THP)
		r->thp_kb_after = smaps_vma_kb(hot, "AnonHugePages");
	read_numa_stat(cg, r);

	set_phase(2);
	for (i = 0; i < nr_workers; i++)
		pthread_join(workers[i].thread, NULL);
	stop_readers(readers, nr_readers);
	if (sum == 1)	/* keep the reads */
		putchar('\0');
}

static void print_metric(const struct wl_params *p, const struct wl_result *r)
{
	printf("TIERD-VM-METRIC: case=%s mode=%s parent=%s numa_balancing=%d knob=%s "
	       "pages=%ld fast_before=%ld fast_after=%ld frac=%.3f secs=%.1f",
	       p->label, p->mode ? p->mode : "-", p->parent_mode ? p->parent_mode : "-",
	       p->numa_mode, r->knob_missing ? "missing" : (p->mode ? "set" : "-"),
	       r->pages, r->fast_before, r->fast_after,
	       r->pages ? (double)r->fast_after / r->pages : 0.0, r->secs);
	for (int i = 0; i < NR_COUNTERS; i++)
		printf(" %s=%llu", counter_names[i], (unsigned long long)r->vm.v[i]);
	for (int i = 0; i < NR_COUNTERS; i++)
		if (i == C_NUMA_PTE_UPDATES || i == C_NUMA_HINT_FAULTS || i == C_PGPROMOTE_SUCCESS)
			printf(" cg_%s=%llu", counter_names[i], (unsigned long long)r->cg.v[i]);
	if (p->fast_mb)
		printf(" fast_region_pages=%ld fast_region_after=%ld", r->fast_region_pages,
		       r->fast_region_after);
	if (p->kind == WL_COW)
		printf(" sharers=%u", p->sharers ? p->sharers : 2);
	if (p->cold_mb)
		printf(" cold_pages=%ld cold_after=%ld", r->cold_pages, r->cold_after);
	printf(" utime_us=%lld stime_us=%lld\n", r->utime_us, r->stime_us);
	msg("  memory.numa_stat: %s", r->numa_stat);
	fflush(stdout);
}

/* A chain of DEPTH nested cgroups under the root: TOP the first, RET_CG
 * the last, the memory controller enabled for the children of every level
 * above it. */
static int cg_create_chain(const char *name, unsigned int depth, char *top, char *ret_cg,
			   size_t size)
{
	char parent[PATH_MAX], level[16];
	unsigned int i;
	int ret;

	ret = cg_create(NULL, name, top, size);
	if (ret < 0)
		return ret;
	snprintf(ret_cg, size, "%s", top);
	for (i = 2; i <= depth; i++) {
		ret = cg_enable_memory(ret_cg);
		if (ret < 0)
			return ret;
		snprintf(parent, sizeof(parent), "%s", ret_cg);
		snprintf(level, sizeof(level), "d%u", i);
		ret = cg_create(parent, level, ret_cg, size);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Runs the workload P in a child in a fresh cgroup; fills R. */
static int run_wl(const struct wl_params *p, struct wl_result *r)
{
	char parent[PATH_MAX], cg[PATH_MAX], name[128];
	const char *top = cg;	/* removed at the end, with its children */
	int fds[2], ret, status;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	ret = set_numa_balancing(p->numa_mode);
	if (ret < 0) {
		msg("cannot set kernel.numa_balancing=%d: %s", p->numa_mode, strerror(-ret));
		return ret;
	}
	snprintf(name, sizeof(name), "vmtest-%s-%s", p->label, p->mode ? p->mode : "none");
	parent[0] = cg[0] = '\0';
	if (p->parent_mode) {
		ret = cg_create(NULL, name, parent, sizeof(parent));
		if (ret == 0)
			ret = cg_enable_memory(parent);
		if (ret == 0)
			ret = write_knob(parent, p->parent_mode, r);
		if (ret == 0)
			ret = cg_create(parent, "child", cg, sizeof(cg));
	} else if (p->depth > 1) {
		ret = cg_create_chain(name, p->depth, parent, cg, sizeof(cg));
		if (ret == 0)
			ret = write_knob(parent, p->mode, r);
	} else {
		ret = cg_create(NULL, name, cg, sizeof(cg));
	}
	if (parent[0])
		top = parent;
	if (ret < 0) {
		msg("cannot create cgroup %s: %s", name, strerror(-ret));
		goto out;
	}
	if (p->depth <= 1) {
		ret = write_knob(cg, p->mode, r);
		if (ret < 0)
			goto out;
	}
	if (pipe(fds) < 0) {
		ret = -errno;
		goto out;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0) {
		struct wl_result cr = *r;

		close(fds[0]);
		ret = cg_enter(cg);
		if (ret < 0) {
			cr.err = ret;
			snprintf(cr.what, sizeof(cr.what), "joining %.80s", cg);
		} else {
			wl_child(p, cg, &cr);
		}
		n = write(fds[1], &cr, sizeof(cr));
		_exit(n == sizeof(cr) ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], r, sizeof(*r));
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (n != sizeof(*r)) {
		msg("workload %s died (status 0x%x)", p->label, status);
		ret = -EIO;
		goto out;
	}
	if (r->err) {
		msg("workload %s: %s: %s", p->label, r->what, strerror(-r->err));
		ret = r->err;
		goto out;
	}
	print_metric(p, r);
	ret = 0;
out:
	if (top[0])
		cg_destroy(top);
	return ret;
}

/* --- checks --------------------------------------------------------------- */

static int failures;

#define CHECK(cond, ...) do {							\
	if (cond) {								\
		printf("  ok: ");						\
	} else {								\
		printf("  FAILED: ");						\
		failures++;							\
	}									\
	msg(__VA_ARGS__);							\
} while (0)

static bool knob_available(void)
{
	char cg[PATH_MAX];
	bool has;

	if (cg_create(NULL, "vmtest-probe", cg, sizeof(cg)) < 0)
		return false;
	has = cg_has_knob(cg);
	cg_destroy(cg);
	return has;
}

/* Returns true to go on: the knob exists, or in matrix mode with
 * RUN_ANYWAY the workload runs without it, so the table shows what a kernel
 * without the knob does. Otherwise sets *ret_exit (skip, or N/A in matrix
 * mode). */
static bool need_knob(bool run_anyway, int *ret_exit)
{
	if (knob_available())
		return true;
	if (matrix_mode) {
		failures++;
		if (run_anyway) {
			msg("N/A: " NO_KNOB_REASON "; running the workload without it");
			return true;
		}
		msg("N/A: " NO_KNOB_REASON);
		*ret_exit = 1;
		return false;
	}
	msg("SKIP: " NO_KNOB_REASON);
	*ret_exit = EXIT_SKIP;
	return false;
}

static int verdict(const char *name)
{
	if (failures) {
		msg("FAIL: %s (%d failed checks)", name, failures);
		return 1;
	}
	msg("PASS: %s", name);
	return 0;
}

static long pct(long part, long whole, int percent)
{
	return whole * percent / 100 <= part;
}

static int case_topology(const char *name)
{
	char buf[256];
	int t0, t1;

	CHECK(read_attr("/sys/devices/system/node/node1/cpulist", buf, sizeof(buf)) == 0 &&
	      buf[0] == '\0', "node 1 has no CPUs");
	CHECK(read_attr("/sys/devices/system/node/has_memory", buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, "0-1"), "nodes with memory: %s", buf);
	t0 = node_tier(FAST_NODE);
	t1 = node_tier(SLOW_NODE);
	CHECK(t0 >= 0 && t1 >= 0 && t0 < t1, "node 0 in memory_tier%d, node 1 in memory_tier%d",
	      t0, t1);
	CHECK(read_attr(CG_ROOT "/cgroup.subtree_control", buf, sizeof(buf)) == 0 &&
	      strstr(buf, "memory"), "memory controller enabled for children: %s", buf);
	CHECK(access("/proc/sys/kernel/numa_balancing", W_OK) == 0, "kernel.numa_balancing");
	{
		uint64_t v;

		CHECK(read_key_u64("/proc/vmstat", "pgpromote_success", &v) == 0 &&
		      read_key_u64("/proc/vmstat", "numa_pte_updates", &v) == 0,
		      "/proc/vmstat has pgpromote_success and numa_pte_updates");
	}
	msg("  memory.numa_balancing %s",
	    knob_available() ? "present" : "absent (" NO_KNOB_REASON ")");
	return verdict(name);
}

/* anon-promote-{full,promote,off} */
static int case_anon(const char *name, const char *mode)
{
	bool off = !strcmp(mode, "off");
	struct wl_params p = {
		.label = name, .mode = mode, .numa_mode = 2, .kind = WL_ANON,
		.slow_mb = 64, .seconds = off ? 15 : 60, .stop_when_promoted = true,
	};
	struct wl_result r;
	int ex = 0;

	if (!need_knob(true, &ex))
		return ex;
	if (run_wl(&p, &r) < 0)
		return 1;
	if (off) {
		CHECK(r.cg.v[C_NUMA_PTE_UPDATES] == 0, "off: no PTE updates in the cgroup (%llu)",
		      (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES]);
		CHECK(r.cg.v[C_NUMA_HINT_FAULTS] == 0, "off: no hinting faults (%llu)",
		      (unsigned long long)r.cg.v[C_NUMA_HINT_FAULTS]);
		CHECK(r.fast_after == r.fast_before, "off: nothing promoted (%ld of %ld fast)",
		      r.fast_after, r.pages);
	} else {
		CHECK(pct(r.fast_after, r.pages, 90), "%s: hot set promoted (%ld of %ld fast)",
		      mode, r.fast_after, r.pages);
		CHECK(pct(r.cg.v[C_PGPROMOTE_SUCCESS], r.pages, 90),
		      "%s: pgpromote_success of the cgroup %llu", mode,
		      (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS]);
	}
	return verdict(name);
}

/* Under promote with kernel.numa_balancing=3 the fast-tier pages of the
 * cgroup take no hinting faults; under full they do. 64 MB on the fast node
 * against 8 MB on the slow node makes the difference unambiguous. */
static int case_no_toptier_faults(const char *name)
{
	struct wl_params p = {
		.label = name, .numa_mode = 3, .kind = WL_ANON, .slow_mb = 8,
		.fast_mb = 64, .seconds = 12, .extra_thread = true,
	};
	struct wl_result full, promote;
	long fast_pages = 64L << 20 >> 12;
	int ex = 0;

	if (!need_knob(true, &ex))
		return ex;
	p.mode = "full";
	if (run_wl(&p, &full) < 0)
		return 1;
	p.mode = "promote";
	if (run_wl(&p, &promote) < 0)
		return 1;
	CHECK(full.cg.v[C_NUMA_HINT_FAULTS] >= (uint64_t)fast_pages / 2,
	      "full: hinting faults %llu >= half the %ld fast-region pages",
	      (unsigned long long)full.cg.v[C_NUMA_HINT_FAULTS], fast_pages);
	CHECK(promote.vm.v[C_NUMA_HINT_FAULTS_LOCAL] <= 64,
	      "promote: no hinting faults on fast-tier pages (numa_hint_faults_local %llu)",
	      (unsigned long long)promote.vm.v[C_NUMA_HINT_FAULTS_LOCAL]);
	CHECK(promote.cg.v[C_NUMA_HINT_FAULTS] * 4 < full.cg.v[C_NUMA_HINT_FAULTS],
	      "promote: hinting faults %llu < 1/4 of full's %llu",
	      (unsigned long long)promote.cg.v[C_NUMA_HINT_FAULTS],
	      (unsigned long long)full.cg.v[C_NUMA_HINT_FAULTS]);
	CHECK(pct(promote.fast_after, promote.pages, 90),
	      "promote: the slow hot set is still promoted (%ld of %ld)",
	      promote.fast_after, promote.pages);
	return verdict(name);
}

static int case_promoted(const char *name, enum wl_kind kind, const char *what)
{
	struct wl_params p = {
		.label = name, .numa_mode = 2, .kind = kind, .slow_mb = 64,
		.seconds = 60, .stop_when_promoted = true,
	};
	struct wl_result r;

	if (kind == WL_VMAS) {
		p.slow_mb = 32;
		p.nr_vmas = 256;
		p.cold_seconds = 6;
	}
	/* As much again, COW-shared as well but never read after fork():
	 * every sharer's scans mark it, no access faults it, so it must
	 * stay where it is. */
	if (kind == WL_COW)
		p.cold_mb = p.slow_mb;
	if (run_wl(&p, &r) < 0)
		return 1;
	CHECK(pct(r.fast_after, r.pages, 90), "%s promoted: %ld of %ld pages on the fast node",
	      what, r.fast_after, r.pages);
	CHECK(pct(r.cg.v[C_PGPROMOTE_SUCCESS], r.pages, 90), "pgpromote_success of the cgroup %llu",
	      (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS]);
	if (p.cold_mb)
		CHECK(r.cold_after * 10 <= r.cold_pages, "the untouched cold region stays on the "
		      "slow node: %ld of %ld pages on the fast node", r.cold_after, r.cold_pages);
	return verdict(name);
}

static int case_knob_hierarchy(const char *name)
{
	struct wl_params p = {
		.label = name, .mode = "full", .parent_mode = "off", .numa_mode = 2,
		.kind = WL_ANON, .slow_mb = 32, .seconds = 15, .stop_when_promoted = true,
	};
	char cg[PATH_MAX], child[PATH_MAX], buf[64];
	struct wl_result r;
	int ex = 0;

	if (!need_knob(true, &ex))
		return ex;
	/* The configured values read back as written. */
	if (knob_available() && cg_create(NULL, "vmtest-hier", cg, sizeof(cg)) == 0) {
		cg_enable_memory(cg);
		cg_set_knob(cg, "off");
		if (cg_create(cg, "child", child, sizeof(child)) == 0) {
			CHECK(cg_read(child, KNOB, buf, sizeof(buf)) == 0 &&
			      !strcmp(buf, "inherit"), "a new child reads \"inherit\" (%s)", buf);
			CHECK(cg_set_knob(child, "full") == 0, "child may write full under off");
			CHECK(cg_read(child, KNOB, buf, sizeof(buf)) == 0 && !strcmp(buf, "full"),
			      "child reads its configured value \"full\" (%s)", buf);
		}
		cg_destroy(cg);
	}
	if (run_wl(&p, &r) < 0)
		return 1;
	CHECK(r.cg.v[C_NUMA_PTE_UPDATES] == 0,
	      "child full under parent off: no PTE updates (%llu)",
	      (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES]);
	CHECK(r.fast_after == r.fast_before, "child full under parent off: nothing promoted "
	      "(%ld of %ld)", r.fast_after, r.pages);
	return verdict(name);
}

static int case_knob_einval(const char *name)
{
	static const char *const valid[] = { "inherit", "full", "promote", "off", "full\n" };
	static const char *const invalid[] = {
		"bogus", "\n", "ful", "fulll", "full promote", "Full", "OFF", "1", "-1",
		"inherit2", "promote,off",
	};
	char cg[PATH_MAX], buf[64];
	unsigned int i;
	int ret, ex = 0;

	if (!need_knob(false, &ex))
		return ex;
	CHECK(access(CG_ROOT "/" KNOB, F_OK) < 0 && errno == ENOENT,
	      "the root cgroup has no %s", KNOB);
	ret = cg_create(NULL, "vmtest-einval", cg, sizeof(cg));
	if (ret < 0) {
		msg("cannot create a cgroup: %s", strerror(-ret));
		return 1;
	}
	CHECK(cg_read(cg, KNOB, buf, sizeof(buf)) == 0 && !strcmp(buf, "inherit"),
	      "default is inherit (%s)", buf);
	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		char want[16];

		snprintf(want, sizeof(want), "%.*s", (int)strcspn(valid[i], "\n"), valid[i]);
		ret = cg_set_knob(cg, valid[i]);
		CHECK(ret == 0 && cg_read(cg, KNOB, buf, sizeof(buf)) == 0 && !strcmp(buf, want),
		      "write \"%s\" -> %s, reads \"%s\"", want, ret ? strerror(-ret) : "ok", buf);
	}
	cg_set_knob(cg, "promote");
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		ret = cg_set_knob(cg, invalid[i]);
		CHECK(ret == -EINVAL && cg_read(cg, KNOB, buf, sizeof(buf)) == 0 &&
		      !strcmp(buf, "promote"), "write \"%.*s\" -> %s, value still \"%s\"",
		      (int)strcspn(invalid[i], "\n"), invalid[i],
		      ret ? strerror(-ret) : "accepted", buf);
	}
	cg_destroy(cg);
	return verdict(name);
}

/* kernel.numa_balancing=0: nothing scans, whatever the knob says. */
static int case_global_off(const char *name)
{
	static const char *const modes[] = { NULL, "full", "promote", "off" };
	bool knob = knob_available();
	unsigned int i;

	if (!knob)
		msg("  " NO_KNOB_REASON ": checking the cgroup without it only");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct wl_params p = {
			.label = name, .mode = modes[i], .numa_mode = 0, .kind = WL_ANON,
			.slow_mb = 32, .seconds = 6,
		};
		struct wl_result r;

		if (modes[i] && !knob)
			break;
		if (run_wl(&p, &r) < 0)
			return 1;
		CHECK(r.vm.v[C_NUMA_PTE_UPDATES] == 0 && r.vm.v[C_NUMA_HINT_FAULTS] == 0,
		      "knob %s: no PTE updates (%llu) or hinting faults (%llu) at all",
		      modes[i] ? modes[i] : "unset",
		      (unsigned long long)r.vm.v[C_NUMA_PTE_UPDATES],
		      (unsigned long long)r.vm.v[C_NUMA_HINT_FAULTS]);
		CHECK(r.fast_after == r.fast_before, "knob %s: nothing promoted (%ld of %ld)",
		      modes[i] ? modes[i] : "unset", r.fast_after, r.pages);
	}
	return verdict(name);
}

static int case_kselftest(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char path[PATH_MAX], dir[PATH_MAX];
	int status;
	pid_t pid;

	if (snprintf(dir, sizeof(dir), "%s/kernel/kselftest",
		     build ? build : "/work/main/build") >= (int)sizeof(dir) ||
	    snprintf(path, sizeof(path), "%s/test_numa_balancing", dir) >= (int)sizeof(path)) {
		msg("FAIL: %s: path too long", name);
		return 1;
	}
	if (access(path, X_OK) < 0) {
		msg("SKIP: kselftest not built: %s (make kselftest-numa)", path);
		return EXIT_SKIP;
	}
	set_numa_balancing(2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(127);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	if (!WIFEXITED(status)) {
		msg("FAIL: %s: killed by signal %d", name, WTERMSIG(status));
		return 1;
	}
	switch (WEXITSTATUS(status)) {
	case 0:
		msg("PASS: %s", name);
		return 0;
	case 4:	/* KSFT_SKIP */
		if (matrix_mode) {
			msg("N/A: the kselftest skipped (exit 4)");
			return 1;
		}
		msg("SKIP: the kselftest skipped (exit 4)");
		return EXIT_SKIP;
	default:
		msg("FAIL: %s: exit %d", name, WEXITSTATUS(status));
		return 1;
	}
}

/* The integer in the environment variable NAME, DEF when it is unset. */
static int env_int(const char *name, int def, int min, int max, int *ret)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s) {
		*ret = def;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		msg("FAIL: %s=%s: want a number in %d..%d", name, s, min, max);
		return -EINVAL;
	}
	*ret = (int)v;
	return 0;
}

/* cow-shared-cost: how fast a COW-shared hot set is promoted when N
 * processes read it ($TIERD_VM_SHARERS, 2..16, default 8: the workload and
 * N - 1 children), and what it costs in hinting faults and promotion
 * candidates. A measurement; it fails only if the hot set is not promoted
 * (< 90%) in its time bound, where the time would mean nothing. */
static int case_cow_cost(const char *name)
{
	struct wl_params p = {
		.label = name, .numa_mode = 2, .kind = WL_COW, .slow_mb = 16,
		.seconds = 120, .stop_when_promoted = true, .poll_ms = 200,
	};
	struct wl_result r;
	uint64_t cand;
	int sharers;

	if (env_int("TIERD_VM_SHARERS", 8, 2, MAX_SHARERS, &sharers) < 0)
		return 1;
	p.sharers = sharers;
	if (run_wl(&p, &r) < 0)
		return 1;
	/* memory.stat has pgpromote_candidate with the series only. */
	cand = r.cg_has_candidate ? r.cg.v[C_PGPROMOTE_CANDIDATE] : r.vm.v[C_PGPROMOTE_CANDIDATE];
	printf("COWCOST sharers=%d pages=%ld promoted_pages=%ld secs=%.2f pgpromote_success=%llu "
	       "numa_hint_faults=%llu pgpromote_candidate=%llu numa_pte_updates=%llu "
	       "pages_per_s=%.0f\n", sharers, r.pages, r.fast_after - r.fast_before, r.secs,
	       (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS],
	       (unsigned long long)r.cg.v[C_NUMA_HINT_FAULTS], (unsigned long long)cand,
	       (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES],
	       r.secs > 0 ? r.cg.v[C_PGPROMOTE_SUCCESS] / r.secs : 0.0);
	CHECK(pct(r.fast_after, r.pages, 90), "%d sharers: %ld of %ld pages promoted in %.1f s",
	      sharers, r.fast_after, r.pages, r.secs);
	return verdict(name);
}

static const struct {
	const char *name;
	enum wl_kind kind;
} cell_kinds[] = {
	{ "anon", WL_ANON },
	{ "shmem", WL_SHMEM },
	{ "file-ro", WL_FILE_RO },
	{ "pid-inactive", WL_VMAS },
	{ "cow-shared", WL_COW },
	{ "thp", WL_THP },
};

/* cell: one cell of the behaviour matrix (tests/vm/behaviour-matrix.sh).
 * $TIERD_CELL_MODE is kernel.numa_balancing (0..3, default 2),
 * $TIERD_CELL_KNOB the workload cgroup's memory.numa_balancing (full,
 * promote or off; default full), $TIERD_CELL_KIND the hot set's VMA kind
 * (default anon). 8 MB hot on the slow node and 8 MB hot on the fast node,
 * two threads (so top-tier pages are scanned too), for 10 s. Prints one
 * CELL line of the cgroup's memory.stat deltas (numa_hint_faults_local is
 * not in memory.stat: it is /proc/vmstat's) and the pages' nodes. A
 * measurement: it fails only when the workload cannot be set up. */
static int case_cell(const char *name)
{
	const char *knob = getenv("TIERD_CELL_KNOB"), *kind = getenv("TIERD_CELL_KIND");
	struct wl_params p = {
		.label = name, .slow_mb = 8, .fast_mb = 8, .seconds = 10, .extra_thread = true,
	};
	char thp_old[128] = "";
	struct wl_result r;
	unsigned int i;
	int mode, ret;

	if (env_int("TIERD_CELL_MODE", 2, 0, 3, &mode) < 0)
		return 1;
	p.numa_mode = mode;
	if (!knob || !*knob)
		knob = "full";
	if (strcmp(knob, "full") && strcmp(knob, "promote") && strcmp(knob, "off")) {
		msg("FAIL: TIERD_CELL_KNOB=%s: want full, promote or off", knob);
		return 1;
	}
	p.mode = knob;
	if (!kind || !*kind)
		kind = "anon";
	for (i = 0; i < sizeof(cell_kinds) / sizeof(cell_kinds[0]); i++)
		if (!strcmp(kind, cell_kinds[i].name))
			break;
	if (i == sizeof(cell_kinds) / sizeof(cell_kinds[0])) {
		msg("FAIL: TIERD_CELL_KIND=%s: want anon, shmem, file-ro, pid-inactive, "
		    "cow-shared or thp", kind);
		return 1;
	}
	p.kind = cell_kinds[i].kind;
	if (p.kind == WL_VMAS) {
		/* 64 VMAs x 128 KB; a short version of pid-inactive-promote's
		 * warm-up (see vmas_warm_up()). */
		p.nr_vmas = 64;
		p.cold_seconds = 3;
		p.warm_seconds = 6;
	}
	if (p.kind == WL_THP) {
		ret = read_attr(THP_ENABLED, thp_old, sizeof(thp_old));
		if (ret < 0) {
			msg("FAIL: %s: %s", THP_ENABLED, strerror(-ret));
			return 1;
		}
		if (strstr(thp_old, "[never]")) {
			ret = write_attr(THP_ENABLED, "madvise");
			if (ret < 0) {
				msg("FAIL: cannot write madvise to %s: %s", THP_ENABLED,
				    strerror(-ret));
				return 1;
			}
			msg("  %s: %s -> madvise for this cell", THP_ENABLED, thp_old);
			snprintf(thp_old, sizeof(thp_old), "never");
		} else {
			thp_old[0] = '\0';	/* madvise or always: left alone */
		}
	}
	ret = run_wl(&p, &r);
	if (thp_old[0])
		write_attr(THP_ENABLED, thp_old);
	if (ret < 0) {
		msg("FAIL: %s: the workload could not be set up", name);
		return 1;
	}
	printf("CELL mode=%d knob=%s kind=%s pte_updates=%llu promo_pte_updates=%llu "
	       "hint_faults=%llu hint_faults_local=%llu promoted=%llu slow_fast_after=%ld/%ld "
	       "fast_region_kept=%ld/%ld fast_before=%ld secs=%.1f knob_file=%s",
	       mode, knob, kind, (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_NUMA_PROMO_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_NUMA_HINT_FAULTS],
	       (unsigned long long)r.vm.v[C_NUMA_HINT_FAULTS_LOCAL],
	       (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS], r.fast_after, r.pages,
	       r.fast_region_after, r.fast_region_pages, r.fast_before, r.secs,
	       r.knob_missing ? "missing" : "set");
	if (p.kind == WL_THP)
		printf(" thp_kb=%ld/%ld", r.thp_kb, r.thp_kb_after);
	printf("\n");
	msg("PASS: %s (a measurement)", name);
	return 0;
}

/* fault-cost: the cost of a NUMA hinting fault when the knob has to be
 * looked up, with the workload's cgroup at depth $TIERD_FAULT_DEPTH (1..64,
 * default 1) below the one set to promote. With the promotion rate limit at
 * 0 nothing is promoted, so the 32 MB hot set on the slow node takes a
 * hinting fault per page every scan pass for 30 s. The workload's stime
 * covers those faults and the scans (task_numa_work() runs in its context).
 * Without memory.numa_balancing (a stock kernel) the same workload runs
 * without the knob. Fails only if its premise does not hold: no faults, or
 * pages promoted. */
static int case_fault_cost(const char *name)
{
	struct wl_params p = {
		.label = name, .mode = "promote", .numa_mode = 2, .kind = WL_ANON,
		.slow_mb = 32, .seconds = 30,
	};
	unsigned long long faults;
	struct wl_result r;
	char old_rl[32];
	int depth, ret;

	if (env_int("TIERD_FAULT_DEPTH", 1, 1, 64, &depth) < 0)
		return 1;
	p.depth = depth;
	ret = read_attr(RATE_LIMIT, old_rl, sizeof(old_rl));
	if (ret == 0)
		ret = write_attr(RATE_LIMIT, "0");
	if (ret < 0) {
		msg("FAIL: %s: %s", RATE_LIMIT, strerror(-ret));
		return 1;
	}
	msg("  %d nested cgroups, %s=promote on the first, the workload in the last; "
	    "promotion rate limit 0 (was %s MB/s)", depth, KNOB, old_rl);
	ret = run_wl(&p, &r);
	write_attr(RATE_LIMIT, old_rl);
	if (ret < 0)
		return 1;
	if (r.knob_missing)
		msg("  " NO_KNOB_REASON ": measured without it (the %d cgroups are there "
		    "all the same)", depth);
	faults = r.cg.v[C_NUMA_HINT_FAULTS];
	printf("FAULTCOST depth=%d knob=%s faults=%llu pte_updates=%llu promoted=%llu "
	       "utime_us=%lld stime_us=%lld us_per_fault=%.2f faults_per_s=%.0f secs=%.1f\n",
	       depth, r.knob_missing ? "missing" : "promote", faults,
	       (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS], r.utime_us, r.stime_us,
	       faults ? (double)r.stime_us / faults : 0.0, r.secs > 0 ? faults / r.secs : 0.0,
	       r.secs);
	CHECK(faults > 0, "hinting faults: %llu", faults);
	CHECK(r.cg.v[C_PGPROMOTE_SUCCESS] == 0 && r.fast_after == r.fast_before,
	      "nothing promoted (pgpromote_success %llu, %ld of %ld pages fast)",
	      (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS], r.fast_after, r.pages);
	return verdict(name);
}

static int run_case(const char *name)
{
	if (!strcmp(name, "topology"))
		return case_topology(name);
	if (!strcmp(name, "anon-promote-full"))
		return case_anon(name, "full");
	if (!strcmp(name, "anon-promote-promote"))
		return case_anon(name, "promote");
	if (!strcmp(name, "anon-promote-off"))
		return case_anon(name, "off");
	if (!strcmp(name, "promote-no-toptier-faults"))
		return case_no_toptier_faults(name);
	if (!strcmp(name, "file-ro-promote"))
		return case_promoted(name, WL_FILE_RO, "read-only tmpfs file mapping");
	if (!strcmp(name, "shmem-promote"))
		return case_promoted(name, WL_SHMEM, "MAP_SHARED|MAP_ANONYMOUS");
	if (!strcmp(name, "cow-shared-promote"))
		return case_promoted(name, WL_COW, "COW-shared private anonymous");
	if (!strcmp(name, "pid-inactive-promote"))
		return case_promoted(name, WL_VMAS, "PID-inactive VMAs");
	if (!strcmp(name, "knob-hierarchy"))
		return case_knob_hierarchy(name);
	if (!strcmp(name, "knob-einval"))
		return case_knob_einval(name);
	if (!strcmp(name, "global-off"))
		return case_global_off(name);
	if (!strcmp(name, "kselftest"))
		return case_kselftest(name);
	if (!strcmp(name, "cow-shared-cost"))
		return case_cow_cost(name);
	if (!strcmp(name, "cell"))
		return case_cell(name);
	if (!strcmp(name, "fault-cost"))
		return case_fault_cost(name);
	msg("unknown case %s (try: tierd-vmtest list)", name);
	return 2;
}

static const char *const cases[] = {
	"topology", "anon-promote-full", "anon-promote-promote", "anon-promote-off",
	"promote-no-toptier-faults", "file-ro-promote", "shmem-promote",
	"cow-shared-promote", "pid-inactive-promote", "knob-hierarchy", "knob-einval",
	"global-off", "kselftest", "cow-shared-cost", "cell", "fault-cost",
};

int main(int argc, char **argv)
{
	const char *m = getenv("TIERD_VM_MATRIX");
	const char *scale = getenv("TIERD_VM_TIME_SCALE");
	long ps = sysconf(_SC_PAGESIZE);

	if (argc != 2) {
		fprintf(stderr, "usage: tierd-vmtest list | CASE\n");
		return 2;
	}
	if (!strcmp(argv[1], "list")) {
		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			puts(cases[i]);
		return 0;
	}
	if (ps > 0)
		page_size = ps;
	matrix_mode = m && !strcmp(m, "1");
	if (scale && atoi(scale) > 0)
		time_scale = (unsigned int)atoi(scale);
	debug = getenv("TIERD_VM_DEBUG") != NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	msg("== %s", argv[1]);
	return run_case(argv[1]);
}
