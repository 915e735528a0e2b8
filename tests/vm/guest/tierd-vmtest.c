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
 * cow-shared-cost, cell, fault-cost and ro-toptier-budget are
 * measurements, set up from the environment (TIERD_VM_SHARERS, TIERD_CELL_*,
 * TIERD_FAULT_DEPTH or TIERD_FAULT_DEPTHS, TIERD_BUDGET_VARIANT): each
 * prints one more line (COWCOST, CELL, FAULTCOST, BUDGET) and fails only
 * when the workload cannot be set up or the premise of the measurement is
 * not met.
 *
 * The cases of the tier-aware memcg limits (toptier-exchange, and the
 * toptier-charge-cost measurement) are in toptier.c.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
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
#include "toptier.h"
#include "damon-case.h"
#include "budget-case.h"

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
#define MAX_ISLANDS	4

/* ro-toptier-budget: a big sparse mapping placed below the hot set. */
enum big_kind {
	BIG_NONE,
	BIG_ROFILE,	/* read-only MAP_SHARED mapping of a sparse tmpfs file */
	BIG_ANON,	/* sparse private anonymous memory */
};

/* Workloads that start their hot phase together (fault-cost with
 * TIERD_FAULT_DEPTHS): in MAP_SHARED memory, seen by all of them. */
struct wl_sync {
	atomic_int ready;	/* workloads set up and waiting */
	atomic_int failed;	/* one of them could not be set up */
	int nr;			/* workloads to wait for */
};

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
	unsigned int stop_pct;	/* stop_when_promoted at this % (0: 100) */
	unsigned int vma_mb;	/* WL_VMAS: size of each VMA (0: slow_mb / nr_vmas,
				 * all of it populated) */
	unsigned int islands;	/* WL_VMAS with vma_mb: populated islands per VMA,
				 * vma_mb / islands apart, slow_mb in all */
	enum big_kind big;	/* WL_ANON: a sparse mapping below the hot set */
	unsigned int big_mb;	/* its size */
	unsigned int big_touched_mb; /* populated on the fast node, in 1 MB pieces
				 * spread evenly over it */
	struct wl_sync *sync;	/* start the hot phase with the other workloads */
	bool numa_late;		/* kernel.numa_balancing 0 until the hot phase:
				 * the first scan pass starts with it */
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
	double secs_first;	/* first poll with a hot page promoted (-1: none) */
	double secs_90;		/* first poll with >= 90% of the hot set fast (-1) */
	long island_pages[MAX_ISLANDS];	/* sparse WL_VMAS: per island */
	long island_fast[MAX_ISLANDS];	/* ... on the fast node at the end */
	double island_secs_90[MAX_ISLANDS];
	unsigned long hot_start, hot_end;	/* the hot set's address range */
	unsigned long big_start, big_end;	/* and the big mapping's */
	long big_pages;		/* present pages of the big mapping, at the start */
	long big_fast;		/* ... on the fast node at the start */
	long big_fast_after;	/* ... and at the end */
	long long scan_seq;	/* mm->numa_scan_seq delta, complete sweeps of the
				 * address space (-1: no CONFIG_SCHED_DEBUG) */
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

/* ro-toptier-budget: the hot set (LEN bytes of private anonymous memory,
 * not populated yet) and below it, 2 MB apart, a sparse mapping of
 * p->big_mb (p->big: BIG_NONE for none) with p->big_touched_mb populated on
 * the fast node in 1 MB pieces spread evenly over it. task_numa_work()
 * walks the VMAs in address order, so every scan pass that starts at the
 * bottom meets the big mapping first. Both come out of one PROT_NONE
 * reservation (MAP_FIXED inside it), so nothing else is mapped between
 * them. Returns with the memory policy bound to the slow node again. */
#define BIG_GAP		(2UL << 20)

static int map_big_below(const struct wl_params *p, size_t len, char **ret_hot,
			 char **ret_big)
{
	size_t big_len = (size_t)p->big_mb << 20, span = big_len + BIG_GAP + len;
	unsigned int nr = p->big_touched_mb, i;
	char path[] = "/tmp/tierd-vmtest.XXXXXX";
	char *base, *hot, *big = NULL, *buf = NULL;
	size_t stride = nr ? big_len / nr : 0;
	int fd = -1, ret = 0;

	base = mmap(NULL, span, PROT_NONE, MAP_ANONYMOUS | MAP_PRIVATE | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	hot = base + span - len;
	if (mmap(hot, len, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return -errno;
	madvise(hot, len, MADV_NOHUGEPAGE);
	if (p->big == BIG_NONE) {
		munmap(base, span - len);
		*ret_hot = hot;
		*ret_big = NULL;
		return 0;
	}
	munmap(base + big_len, BIG_GAP);
	if (!nr || (stride & ((1UL << 20) - 1)))
		return -EINVAL;
	ret = policy_bind(FAST_NODE);
	if (ret < 0)
		return ret;
	if (p->big == BIG_ANON) {
		big = mmap(base, big_len, PROT_READ | PROT_WRITE,
			   MAP_ANONYMOUS | MAP_PRIVATE | MAP_NORESERVE | MAP_FIXED, -1, 0);
		if (big == MAP_FAILED) {
			ret = -errno;
			goto out;
		}
		madvise(big, big_len, MADV_NOHUGEPAGE);
		for (i = 0; i < nr; i++)
			dirty_pages(big + (size_t)i * stride, 1UL << 20);
		goto out;
	}
	/* BIG_ROFILE: a sparse tmpfs file; its page cache is allocated by
	 * this writer, under its policy, so on the fast node. */
	fd = mkstemp(path);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	unlink(path);
	buf = malloc(1UL << 20);
	if (!buf || ftruncate(fd, big_len) < 0) {
		ret = buf ? -errno : -ENOMEM;
		goto out;
	}
	memset(buf, 0x5a, 1UL << 20);
	for (i = 0; i < nr; i++) {
		if (pwrite(fd, buf, 1UL << 20, (off_t)i * stride) != 1L << 20) {
			ret = -EIO;
			goto out;
		}
	}
	big = mmap(base, big_len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (big == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	/* Its PTEs exist, for the written pieces only (a read fault in a
	 * hole would allocate a page). */
	for (i = 0; i < nr; i++)
		touch_pages(big + (size_t)i * stride, 1UL << 20);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (ret == 0)
		ret = policy_bind(SLOW_NODE);
	if (ret < 0)
		return ret;
	*ret_hot = hot;
	*ret_big = big;
	return 0;
}

/* Present pages of the big mapping's pieces on NODE. */
static long big_on_node(const struct wl_params *p, const char *big, int node, long *ret_present)
{
	unsigned int nr = p->big_touched_mb, i;
	size_t stride = ((size_t)p->big_mb << 20) / nr;
	long total = 0, present = 0, pr, n;

	for (i = 0; i < nr; i++) {
		n = pages_on_node(big + (size_t)i * stride, 1UL << 20, node, &pr);
		if (n < 0)
			return n;
		total += n;
		present += pr;
	}
	if (ret_present)
		*ret_present = present;
	return total;
}

/* Waits until all the workloads sharing S are set up (or one failed). */
static int wl_sync_wait(struct wl_sync *s)
{
	double end = now_sec() + 120.0 * time_scale;

	atomic_fetch_add(&s->ready, 1);
	while (atomic_load(&s->ready) < s->nr) {
		if (atomic_load(&s->failed))
			return -ECANCELED;
		if (now_sec() > end)
			return -ETIMEDOUT;
		sleep_sec(0.002);
	}
	return 0;
}

/* WL_VMAS: NR VMAs of vma_len each, separated by PROT_NONE guard pages so
 * they never merge. Each VMA is populated in nr_islands islands of
 * island_len bytes, island_stride apart: one island, the whole VMA, unless
 * the VMA is sparse (pid-inactive-large). The workers read the islands,
 * the "regions" (VMA i / nr_islands, island i % nr_islands). */
struct vmas {
	char *base;
	size_t span;
	size_t vma_len;
	unsigned int nr;
	unsigned int nr_islands;
	size_t island_len;
	size_t island_stride;
};

static char *vma_addr(const struct vmas *v, unsigned int i)
{
	return v->base + (size_t)i * (v->vma_len + page_size);
}

static unsigned int nr_regions(const struct vmas *v)
{
	return v->nr * v->nr_islands;
}

static char *region_addr(const struct vmas *v, unsigned int i)
{
	return vma_addr(v, i / v->nr_islands) + (size_t)(i % v->nr_islands) * v->island_stride;
}

/* TOTAL bytes in NR VMAs: of TOTAL / NR bytes each when VMA_LEN is 0, or
 * of VMA_LEN bytes each with ISLANDS islands of TOTAL / (NR * ISLANDS)
 * bytes populated. A sparse VMA is MAP_NORESERVE: larger than the VM's
 * memory, it would not pass the overcommit heuristic. */
static int map_vmas(struct vmas *v, unsigned int nr, size_t total, size_t vma_len,
		    unsigned int islands)
{
	int flags = MAP_ANONYMOUS | MAP_PRIVATE;
	unsigned int i;

	v->nr = nr;
	if (!vma_len) {
		v->vma_len = total / nr;
		v->nr_islands = 1;
		v->island_len = v->vma_len;
		v->island_stride = 0;
	} else {
		if (!islands || islands > MAX_ISLANDS)
			return -EINVAL;
		v->vma_len = vma_len;
		v->nr_islands = islands;
		v->island_len = total / ((size_t)nr * islands);
		v->island_stride = vma_len / islands;
		if (v->island_len > v->island_stride || v->island_len % page_size)
			return -EINVAL;
		flags |= MAP_NORESERVE;
	}
	v->span = (size_t)nr * (v->vma_len + page_size);
	v->base = mmap(NULL, v->span, PROT_NONE, flags, -1, 0);
	if (v->base == MAP_FAILED)
		return -errno;
	madvise(v->base, v->span, MADV_NOHUGEPAGE);
	for (i = 0; i < nr; i++) {
		if (mprotect(vma_addr(v, i), v->vma_len, PROT_READ | PROT_WRITE) < 0)
			return -errno;
	}
	for (i = 0; i < nr_regions(v); i++)
		dirty_pages(region_addr(v, i), v->island_len);
	return 0;
}

/* Pages of the hot set [hot, hot + span) on NODE: island by island for a
 * sparse WL_VMAS (move_pages() would look up every page of its holes),
 * with PER_ISLAND[j] the count of island j of all VMAs when not NULL. */
static long hot_on_node(const struct vmas *v, const char *hot, size_t span, int node,
			long *ret_present, long *per_island)
{
	long total = 0, present = 0, pr, n;
	unsigned int i;

	if (v->nr_islands <= 1)
		return pages_on_node(hot, span, node, ret_present);
	if (per_island)
		memset(per_island, 0, sizeof(*per_island) * v->nr_islands);
	for (i = 0; i < nr_regions(v); i++) {
		n = pages_on_node(region_addr(v, i), v->island_len, node, &pr);
		if (n < 0)
			return n;
		total += n;
		present += pr;
		if (per_island)
			per_island[i % v->nr_islands] += n;
	}
	if (ret_present)
		*ret_present = present;
	return total;
}

struct worker {
	pthread_t thread;
	const struct vmas *v;
	unsigned int first, last;	/* regions [first, last) */
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
			sum += touch_pages(region_addr(w->v, i), w->v->island_len);
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
/* The rate limit vmas_warm_up() set to 0, to restore (empty: nothing to). */
static char saved_rate_limit[32];

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
		w[i].first = nr_regions(v) * i / nr;
		w[i].last = nr_regions(v) * (i + 1) / nr;
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
	/* wl_child() restores the rate limit once it has read the counters
	 * the hot phase starts from: a promotion in between would be counted
	 * neither in fast_before nor in the phase (on the debug kernel,
	 * reading fast_before alone takes seconds). */
	snprintf(saved_rate_limit, sizeof(saved_rate_limit), "%s", old_rl);
	msg("  settled");
	return 0;
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
	char *hot = NULL, *fast = NULL, *cold = NULL, *big = NULL;
	unsigned int stop_pct = p->stop_pct ? p->stop_pct : 100;
	long island_fast[MAX_ISLANDS] = { 0 };
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
	long long seq0;
	double end;
	long present;
	bool done;
	int ret;

	r->secs_first = r->secs_90 = -1;
	for (i = 0; i < MAX_ISLANDS; i++)
		r->island_secs_90[i] = -1;
	if (p->kind == WL_COW && (sharers < 2 || sharers > MAX_SHARERS))
		SETUP_FAIL(r, -EINVAL, "%u sharers (2..%d)", sharers, MAX_SHARERS);
	ret = policy_bind(SLOW_NODE);
	if (ret < 0)
		SETUP_FAIL(r, ret, "set_mempolicy(MPOL_BIND, node %d)", SLOW_NODE);
	switch (p->kind) {
	case WL_ANON:
	case WL_COW:
		if (p->big_mb) {
			ret = map_big_below(p, len, &hot, &big);
			if (ret < 0)
				SETUP_FAIL(r, ret, "mapping the hot set and the big mapping below it");
		} else {
			hot = map_anon(len, MAP_PRIVATE);
		}
		break;
	case WL_SHMEM:
		hot = map_anon(len, MAP_SHARED);
		break;
	case WL_FILE_RO:
		hot = map_tmpfs_file(len);
		break;
	case WL_VMAS:
		ret = map_vmas(&v, p->nr_vmas, len, (size_t)p->vma_mb << 20, p->islands);
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
	if (v.nr_islands > 1) {
		for (i = 0; i < nr_regions(&v); i++)
			move_to_node(region_addr(&v, i), v.island_len, SLOW_NODE);
		r->pages = hot_on_node(&v, hot, hot_span, SLOW_NODE, &present, r->island_pages);
	} else {
		r->pages = place_slow(hot, hot_span, &present);
	}
	if (r->pages < 0)
		SETUP_FAIL(r, r->pages, "move_pages");
	if (r->pages < present * 95 / 100)
		SETUP_FAIL(r, -ENOMEM, "placement: only %ld of %ld pages on node %d",
			   r->pages, present, SLOW_NODE);
	r->fast_before = hot_on_node(&v, hot, hot_span, FAST_NODE, NULL, NULL);
	r->hot_start = (unsigned long)hot;
	r->hot_end = (unsigned long)hot + hot_span;
	if (big) {
		r->big_start = (unsigned long)big;
		r->big_end = (unsigned long)big + ((size_t)p->big_mb << 20);
		r->big_fast = big_on_node(p, big, FAST_NODE, &r->big_pages);
		if (r->big_fast < 0)
			SETUP_FAIL(r, r->big_fast, "move_pages");
		if (r->big_fast < r->big_pages * 95 / 100 || !r->big_pages)
			SETUP_FAIL(r, -ENOMEM, "placement: only %ld of %ld big-mapping pages on "
				   "node %d", r->big_fast, r->big_pages, FAST_NODE);
		msg("  big mapping %#lx-%#lx (%u MB, %s, %ld pages present, %ld on node %d), "
		    "hot set %#lx-%#lx above it", r->big_start, r->big_end, p->big_mb,
		    p->big == BIG_ROFILE ? "read-only MAP_SHARED tmpfs file" :
		    "private anonymous", r->big_pages, r->big_fast, FAST_NODE,
		    r->hot_start, r->hot_end);
	}
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
		r->fast_before = hot_on_node(&v, hot, hot_span, FAST_NODE, NULL, NULL);
	}
	if (p->sync) {
		ret = wl_sync_wait(p->sync);
		if (ret < 0)
			SETUP_FAIL(r, ret, "waiting for the other workloads to be set up");
	}

	msg("  %s: %ld pages on node %d, %ld on node %d; hot for up to %.0f s",
	    p->label, r->pages, SLOW_NODE, r->fast_before, FAST_NODE, limit);
	if (v.nr_islands > 1)
		for (i = 0; i < v.nr_islands; i++)
			msg("  island %u at +%zu MB of each VMA: %ld pages on node %d", i,
			    i * v.island_stride >> 20, r->island_pages[i], SLOW_NODE);
	if (p->kind == WL_COW)
		msg("  %u processes share the hot set; cold region %ld pages on node %d",
		    sharers, r->cold_pages, SLOW_NODE);
	if (p->numa_late) {
		/* task_tick_numa() queues the first scan once the task
		 * has run for numa_scan_period (the scan delay, 1 s) of
		 * CPU time: spin past it with balancing still off, so
		 * that the first pass comes on the first tick of the
		 * hot phase, whatever CPU time the setup took. */
		struct timespec ts;

		end = now_sec() + 10;
		do {
			spin(0.05);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		} while (ts.tv_sec + ts.tv_nsec / 1e9 < 1.2 && now_sec() < end);
	}
	vmstat_read(&vm0);
	cg_stat_read(cg, &cg0);
	if (saved_rate_limit[0]) {
		ret = write_attr(RATE_LIMIT, saved_rate_limit);
		if (ret < 0)
			SETUP_FAIL(r, ret, "restoring %s", RATE_LIMIT);
		msg("  promotion rate limit back to %s MB/s", saved_rate_limit);
		saved_rate_limit[0] = '\0';
	}
	getrusage(RUSAGE_SELF, &ru0);
	seq0 = proc_sched_value("mm->numa_scan_seq");
	/* After the counters: the first pass may come on the way back
	 * from this write. */
	if (p->numa_late) {
		ret = set_numa_balancing(p->numa_mode);
		if (ret < 0)
			SETUP_FAIL(r, ret, "kernel.numa_balancing=%d", p->numa_mode);
	}
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
		r->fast_after = hot_on_node(&v, hot, hot_span, FAST_NODE, NULL, island_fast);
		if (r->secs_first < 0 && r->fast_after > r->fast_before)
			r->secs_first = t - t0;
		if (r->secs_90 < 0 && r->fast_after * 10 >= r->pages * 9)
			r->secs_90 = t - t0;
		for (i = 0; v.nr_islands > 1 && i < v.nr_islands; i++)
			if (r->island_secs_90[i] < 0 && island_fast[i] * 10 >= r->island_pages[i] * 9)
				r->island_secs_90[i] = t - t0;
		done = t - t0 >= limit || (p->stop_when_promoted &&
					   r->fast_after * 100 >= r->pages * stop_pct);
		if (done || t >= next_msg) {
			vmstat_read(&vm1);
			counters_sub(&vm1, &vm0);
			msg("  %s%s%5.1fs: %ld of %ld hot pages on the fast node (pte updates %llu, "
			    "hint faults %llu, promoted %llu)", p->sync ? p->label : "",
			    p->sync ? " " : "", t - t0, r->fast_after, r->pages,
			    (unsigned long long)vm1.v[C_NUMA_PTE_UPDATES],
			    (unsigned long long)vm1.v[C_NUMA_HINT_FAULTS],
			    (unsigned long long)vm1.v[C_PGPROMOTE_SUCCESS]);
			for (i = 0; v.nr_islands > 1 && i < v.nr_islands; i++)
				msg("         island %u: %ld of %ld fast", i, island_fast[i],
				    r->island_pages[i]);
			next_msg = t + 2;
		}
		if (done)
			break;
		next = now_sec() + poll;
	}
	r->secs = t - t0;
	getrusage(RUSAGE_SELF, &ru1);
	r->scan_seq = proc_sched_value("mm->numa_scan_seq");
	r->scan_seq = r->scan_seq >= 0 && seq0 >= 0 ? r->scan_seq - seq0 : -1;
	if (v.nr_islands > 1)
		memcpy(r->island_fast, island_fast, sizeof(island_fast));
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
	if (big)
		r->big_fast_after = big_on_node(p, big, FAST_NODE, NULL);
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
	char parent[PATH_MAX], cg[PATH_MAX], name[128], rate_limit[32];
	const char *top = cg;	/* removed at the end, with its children */
	bool have_rl;
	int fds[2], ret, status;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	/* The workload may change it (vmas_warm_up()) and die before it
	 * puts it back. */
	have_rl = read_attr(RATE_LIMIT, rate_limit, sizeof(rate_limit)) == 0;
	ret = set_numa_balancing(p->numa_late ? 0 : p->numa_mode);
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
	if (have_rl)
		write_attr(RATE_LIMIT, rate_limit);
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
 * pages promoted.
 *
 * With $TIERD_FAULT_DEPTHS="A B" (two depths) the two workloads run at the
 * same time instead, each in its own chain and pinned to its own vCPU (A on
 * CPU 0, B on CPU 1), their hot phases started together and as long: the
 * host's load, which varies from one run to the next, weighs on both
 * alike, and the ratio of their stime per fault is the figure. */
static void fault_cost_params(struct wl_params *p, const char *label, int depth)
{
	*p = (struct wl_params){
		.label = label, .mode = "promote", .numa_mode = 2, .kind = WL_ANON,
		.slow_mb = 32, .seconds = 30, .depth = depth,
	};
}

/* Prints the FAULTCOST line of one workload and checks its premise;
 * returns its stime per hinting fault. */
static double fault_cost_report(int depth, int cpu, const struct wl_result *r)
{
	unsigned long long faults = r->cg.v[C_NUMA_HINT_FAULTS];
	double us = faults ? (double)r->stime_us / faults : 0.0;
	char cpu_field[16] = "";

	if (r->knob_missing)
		msg("  " NO_KNOB_REASON ": measured without it (the %d cgroups are there "
		    "all the same)", depth);
	if (cpu >= 0)
		snprintf(cpu_field, sizeof(cpu_field), " cpu=%d", cpu);
	printf("FAULTCOST depth=%d knob=%s%s faults=%llu pte_updates=%llu promoted=%llu "
	       "utime_us=%lld stime_us=%lld us_per_fault=%.2f faults_per_s=%.0f secs=%.1f\n",
	       depth, r->knob_missing ? "missing" : "promote", cpu_field, faults,
	       (unsigned long long)r->cg.v[C_NUMA_PTE_UPDATES],
	       (unsigned long long)r->cg.v[C_PGPROMOTE_SUCCESS], r->utime_us, r->stime_us,
	       us, r->secs > 0 ? faults / r->secs : 0.0, r->secs);
	CHECK(faults > 0, "depth %d: hinting faults: %llu", depth, faults);
	CHECK(r->cg.v[C_PGPROMOTE_SUCCESS] == 0 && r->fast_after == r->fast_before,
	      "depth %d: nothing promoted (pgpromote_success %llu, %ld of %ld pages fast)",
	      depth, (unsigned long long)r->cg.v[C_PGPROMOTE_SUCCESS], r->fast_after, r->pages);
	return us;
}

/* "A B" (spaces or commas) -> two depths in 1..64. */
static int parse_depths(const char *s, int *depths)
{
	unsigned int nr = 0;
	char *end;
	long v;

	while (*s) {
		if (*s == ' ' || *s == ',') {
			s++;
			continue;
		}
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v < 1 || v > 64 || nr == 2)
			return -EINVAL;
		depths[nr++] = (int)v;
		s = end;
	}
	return nr == 2 ? 0 : -EINVAL;
}

/* The two workloads of TIERD_FAULT_DEPTHS, workload i pinned to CPU i,
 * each run by run_wl() in a process of its own; fills RES[0..1]. */
static int fault_cost_together(const char *name, const int *depths, struct wl_result *res)
{
	struct wl_params p[2];
	struct wl_sync *sync;
	char labels[2][48];
	int fds[2][2], status, ret = 0;
	pid_t pids[2];
	unsigned int i, started = 0;
	ssize_t n;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		msg("FAIL: %s: two workloads on two vCPUs need 2 online CPUs, not %ld", name,
		    sysconf(_SC_NPROCESSORS_ONLN));
		return -EINVAL;
	}
	sync = mmap(NULL, sizeof(*sync), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	if (sync == MAP_FAILED)
		return -errno;
	atomic_init(&sync->ready, 0);
	atomic_init(&sync->failed, 0);
	sync->nr = 2;
	for (i = 0; i < 2; i++) {
		snprintf(labels[i], sizeof(labels[i]), "%s-cpu%u", name, i);
		fault_cost_params(&p[i], labels[i], depths[i]);
		p[i].sync = sync;
		if (pipe(fds[i]) < 0) {
			ret = -errno;
			break;
		}
		fflush(stdout);
		pids[i] = fork();
		if (pids[i] < 0) {
			ret = -errno;
			close(fds[i][0]);
			close(fds[i][1]);
			break;
		}
		if (pids[i] == 0) {
			struct wl_result r;
			cpu_set_t set;

			close(fds[i][0]);
			CPU_ZERO(&set);
			CPU_SET(i, &set);
			/* Inherited by the workload run_wl() forks. */
			if (sched_setaffinity(0, sizeof(set), &set) < 0) {
				msg("sched_setaffinity(CPU %u): %s", i, strerror(errno));
				atomic_store(&sync->failed, 1);
				_exit(1);
			}
			if (run_wl(&p[i], &r) < 0) {
				atomic_store(&sync->failed, 1);
				_exit(1);
			}
			n = write(fds[i][1], &r, sizeof(r));
			_exit(n == sizeof(r) ? 0 : 1);
		}
		close(fds[i][1]);
		started++;
	}
	if (ret < 0)
		atomic_store(&sync->failed, 1);
	for (i = 0; i < started; i++) {
		n = read(fds[i][0], &res[i], sizeof(res[i]));
		close(fds[i][0]);
		waitpid(pids[i], &status, 0);
		if (n != sizeof(res[i]) && ret == 0) {
			msg("workload %s (depth %d, CPU %u) did not report (status 0x%x)",
			    labels[i], depths[i], i, status);
			ret = -EIO;
		}
	}
	munmap(sync, sizeof(*sync));
	return ret;
}

static int case_fault_cost(const char *name)
{
	const char *together = getenv("TIERD_FAULT_DEPTHS");
	struct wl_result r[2];
	struct wl_params p;
	int depth, depths[2], ret;
	char old_rl[32];
	double us[2];

	if (together && *together) {
		if (parse_depths(together, depths) < 0) {
			msg("FAIL: TIERD_FAULT_DEPTHS=%s: want two depths in 1..64", together);
			return 1;
		}
	} else if (env_int("TIERD_FAULT_DEPTH", 1, 1, 64, &depth) < 0) {
		return 1;
	}
	ret = read_attr(RATE_LIMIT, old_rl, sizeof(old_rl));
	if (ret == 0)
		ret = write_attr(RATE_LIMIT, "0");
	if (ret < 0) {
		msg("FAIL: %s: %s", RATE_LIMIT, strerror(-ret));
		return 1;
	}
	if (!together || !*together) {
		msg("  %d nested cgroups, %s=promote on the first, the workload in the last; "
		    "promotion rate limit 0 (was %s MB/s)", depth, KNOB, old_rl);
		fault_cost_params(&p, name, depth);
		ret = run_wl(&p, &r[0]);
		write_attr(RATE_LIMIT, old_rl);
		if (ret < 0)
			return 1;
		fault_cost_report(depth, -1, &r[0]);
		return verdict(name);
	}
	msg("  two workloads at once: depth %d on CPU 0, depth %d on CPU 1, each in its own "
	    "chain with %s=promote on the first cgroup; promotion rate limit 0 (was %s MB/s)",
	    depths[0], depths[1], KNOB, old_rl);
	ret = fault_cost_together(name, depths, r);
	write_attr(RATE_LIMIT, old_rl);
	if (ret < 0) {
		msg("FAIL: %s: the workloads could not be set up", name);
		return 1;
	}
	us[0] = fault_cost_report(depths[0], 0, &r[0]);
	us[1] = fault_cost_report(depths[1], 1, &r[1]);
	/* The deeper chain over the shallower one. */
	{
		int hi = depths[1] > depths[0], lo = !hi;

		printf("FAULTCOST ratio depth%d/depth%d=%.3f cpu0=depth%d us_per_fault=%.2f/%.2f "
		       "faults=%llu/%llu secs=%.1f/%.1f\n", depths[hi], depths[lo],
		       us[lo] > 0 ? us[hi] / us[lo] : 0.0, depths[0], us[hi], us[lo],
		       (unsigned long long)r[hi].cg.v[C_NUMA_HINT_FAULTS],
		       (unsigned long long)r[lo].cg.v[C_NUMA_HINT_FAULTS], r[hi].secs, r[lo].secs);
	}
	return verdict(name);
}

/* ro-toptier-budget: does a read-only file mapping whose pages are all on
 * the top tier cost the hot set its scans? task_numa_work() stops a pass
 * when it has updated 256 MB worth of PTEs (pages) or walked 2 GB of
 * address range (virtpages); a chunk without updates costs only virtpages.
 * In tiering mode the series scans read-only file mappings for promotion,
 * which updates nothing on the fast node, so a big one below the hot set
 * eats the virtpages of the passes that meet it first. $TIERD_BUDGET_VARIANT:
 *   none    the 8 MB private anonymous hot set on the slow node alone;
 *   rofile  below it a read-only MAP_SHARED mapping of a sparse 3 GB tmpfs
 *           file, 32 MB of it written (on the fast node) and read once;
 *   anon    the same range as sparse private anonymous memory, 32 MB of it
 *           populated on the fast node: what stock 6.12 already walks.
 * kernel.numa_balancing=2, switched on (from 0) only when the hot phase
 * starts, so that in every variant the first scan pass starts then, at
 * the bottom of the address space, whatever the setup took; the main
 * thread reads the hot set (and scans) until 90% of it is on the fast node
 * (60 s at most). Prints a BUDGET line:
 * the seconds to 90%, the cgroup's PTE updates and promotions, scan_seq
 * (the delta of mm->numa_scan_seq from /proc/self/sched, which needs
 * CONFIG_SCHED_DEBUG: "n/a" without it; it counts complete sweeps of the
 * address space, not passes: a pass that stops in the middle of the big
 * mapping does not move it) and hot_scans, pte_updates over the hot set's
 * pages: the number of passes that marked the hot set (nothing else on the
 * slow node is mapped). A measurement: fails only when the workload cannot
 * be set up. */
static int case_ro_toptier_budget(const char *name)
{
	const char *variant = getenv("TIERD_BUDGET_VARIANT");
	struct wl_params p = {
		.label = name, .numa_mode = 2, .kind = WL_ANON, .slow_mb = 8,
		.seconds = 60, .stop_when_promoted = true, .stop_pct = 90, .poll_ms = 200,
		.big_mb = 3072, .big_touched_mb = 32, .numa_late = true,
	};
	struct wl_result r;
	char seq[24];

	if (!variant || !*variant)
		variant = "rofile";
	if (!strcmp(variant, "none")) {
		p.big = BIG_NONE;
	} else if (!strcmp(variant, "rofile")) {
		p.big = BIG_ROFILE;
	} else if (!strcmp(variant, "anon")) {
		p.big = BIG_ANON;
	} else {
		msg("FAIL: TIERD_BUDGET_VARIANT=%s: want none, rofile or anon", variant);
		return 1;
	}
	if (run_wl(&p, &r) < 0) {
		msg("FAIL: %s: the workload could not be set up", name);
		return 1;
	}
	if (r.scan_seq >= 0)
		snprintf(seq, sizeof(seq), "%lld", r.scan_seq);
	else
		snprintf(seq, sizeof(seq), "n/a");
	printf("BUDGET variant=%s secs_to_90=%.1f reached=%d secs_first=%.1f secs=%.1f "
	       "hot_fast=%ld/%ld pte_updates=%llu promo_pte_updates=%llu pgpromote_success=%llu "
	       "hint_faults=%llu hot_scans=%.2f scan_seq=%s big=%#lx-%#lx hot=%#lx-%#lx "
	       "big_fast=%ld/%ld big_fast_after=%ld\n",
	       variant, r.secs_90 >= 0 ? r.secs_90 : r.secs, r.secs_90 >= 0, r.secs_first,
	       r.secs, r.fast_after, r.pages, (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_NUMA_PROMO_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS],
	       (unsigned long long)r.cg.v[C_NUMA_HINT_FAULTS],
	       r.pages ? (double)r.cg.v[C_NUMA_PTE_UPDATES] / r.pages : 0.0, seq,
	       r.big_start, r.big_end, r.hot_start, r.hot_end, r.big_fast, r.big_pages,
	       r.big_fast_after);
	msg("PASS: %s (a measurement)", name);
	return 0;
}

/* pid-inactive-large: a PID-inactive VMA larger than what one scan pass
 * covers. One sparse 1 GB private anonymous VMA with two 8 MB islands on
 * the slow node, at +0 and +512 MB, read only by the worker threads (the
 * WL_VMAS machinery and warm-up of pid-inactive-promote), with
 * kernel.numa_balancing=3 and the cgroup's knob full. A pass stops after
 * its first 256 MB chunk with PTE updates, so the island at +512 MB is
 * marked only by a pass that starts in the middle of the VMA: the scan of
 * a PID-inactive VMA must be continued where the last pass stopped.
 * Passes when each island is >= 90% on the fast node within 60 s. */
static int case_pid_inactive_large(const char *name)
{
	struct wl_params p = {
		.label = name, .mode = "full", .numa_mode = 3, .kind = WL_VMAS, .slow_mb = 16,
		.nr_vmas = 1, .vma_mb = 1024, .islands = 2, .cold_seconds = 6, .seconds = 60,
		.stop_when_promoted = true, .poll_ms = 500,
	};
	struct wl_result r;
	unsigned int i;
	int ex = 0;

	if (!need_knob(true, &ex))
		return ex;
	if (run_wl(&p, &r) < 0)
		return 1;
	printf("PIDLARGE secs=%.1f", r.secs);
	for (i = 0; i < p.islands; i++)
		printf(" island%u=%ld/%ld island%u_secs_90=%.1f", i, r.island_fast[i],
		       r.island_pages[i], i, r.island_secs_90[i]);
	printf(" pte_updates=%llu promo_pte_updates=%llu hint_faults=%llu "
	       "hint_faults_local=%llu pgpromote_success=%llu\n",
	       (unsigned long long)r.cg.v[C_NUMA_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_NUMA_PROMO_PTE_UPDATES],
	       (unsigned long long)r.cg.v[C_NUMA_HINT_FAULTS],
	       (unsigned long long)r.vm.v[C_NUMA_HINT_FAULTS_LOCAL],
	       (unsigned long long)r.cg.v[C_PGPROMOTE_SUCCESS]);
	for (i = 0; i < p.islands; i++)
		CHECK(pct(r.island_fast[i], r.island_pages[i], 90),
		      "island %u (+%u MB): %ld of %ld pages on the fast node", i,
		      i * p.vma_mb / p.islands, r.island_fast[i], r.island_pages[i]);
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
	if (!strcmp(name, "ro-toptier-budget"))
		return case_ro_toptier_budget(name);
	if (!strcmp(name, "pid-inactive-large"))
		return case_pid_inactive_large(name);
	if (!strcmp(name, "toptier-exchange"))
		return case_toptier_exchange(name);
	if (!strcmp(name, "toptier-large-node"))
		return case_toptier_large_node(name);
	if (!strcmp(name, "toptier-demote-only"))
		return case_toptier_demote_only(name);
	if (!strcmp(name, "toptier-offline"))
		return case_toptier_offline(name);
	if (!strcmp(name, "toptier-charge-cost"))
		return case_toptier_charge_cost(name);
	if (!strcmp(name, "damon-promote"))
		return case_damon_promote(name);
	if (!strcmp(name, "damon-pagecache"))
		return case_damon_pagecache(name);
	if (!strcmp(name, "damon-reclaim"))
		return case_damon_reclaim(name);
	if (!strcmp(name, "damon-tierd"))
		return case_damon_tierd(name);
	if (!strcmp(name, "damon-tierd-share"))
		return case_damon_tierd_share(name);
	if (!strcmp(name, "damon-tierd-hot"))
		return case_damon_tierd_hot(name);
	if (!strcmp(name, "damon-tierd-budget"))
		return case_damon_tierd_budget(name);
	if (!strcmp(name, "damon-tierd-hotset"))
		return case_damon_tierd_hotset(name);
	if (!strcmp(name, "damon-tierd-bench"))
		return case_damon_tierd_bench(name);
	if (!strcmp(name, "damon-tierd-scale"))
		return case_damon_tierd_scale(name);
	if (!strcmp(name, "tierctl-doctor"))
		return case_tierctl_doctor(name);
	if (!strcmp(name, "knob-tierd-budget"))
		return case_knob_tierd_budget(name);
	if (!strcmp(name, "damon-tierd-pagecache"))
		return case_damon_tierd_pagecache(name);
	msg("unknown case %s (try: tierd-vmtest list)", name);
	return 2;
}

static const char *const cases[] = {
	"topology", "anon-promote-full", "anon-promote-promote", "anon-promote-off",
	"promote-no-toptier-faults", "file-ro-promote", "shmem-promote",
	"cow-shared-promote", "pid-inactive-promote", "knob-hierarchy", "knob-einval",
	"global-off", "kselftest", "cow-shared-cost", "cell", "fault-cost",
	"ro-toptier-budget", "pid-inactive-large", "toptier-exchange", "toptier-large-node",
	"toptier-demote-only", "toptier-offline", "toptier-charge-cost",
	"damon-promote", "damon-pagecache", "damon-reclaim", "damon-tierd",
	"damon-tierd-share", "damon-tierd-hot", "damon-tierd-budget", "damon-tierd-hotset",
	"damon-tierd-pagecache", "damon-tierd-bench", "damon-tierd-scale",
	"tierctl-doctor", "knob-tierd-budget",
};

/*
 * A slower kernel (run-vm --time-scale: the debug kernel, or 8 vCPUs on two
 * host cores) takes longer from a NUMA scan to the workload's next touch of a
 * page. Scale tiering mode's hot threshold (debugfs, where the kernel has it)
 * with it for the case, or pages read all the time do not count as hot and
 * promotion crawls: file-ro-promote on the debug kernel promoted 1300-2300
 * of its 16384 pages per scan pass, 66% in 180 s.
 */
#define HOT_THRESHOLD "/sys/kernel/debug/sched/numa_balancing/hot_threshold_ms"

static char hot_threshold_saved[32];

static void hot_threshold_scale(void)
{
	char val[32];

	if (time_scale <= 1 ||
	    read_attr(HOT_THRESHOLD, hot_threshold_saved, sizeof(hot_threshold_saved)) < 0)
		return;
	snprintf(val, sizeof(val), "%u", 1000 * time_scale);
	if (write_attr(HOT_THRESHOLD, val) < 0) {
		hot_threshold_saved[0] = '\0';
		return;
	}
	msg("  NUMA balancing hot threshold %s ms (was %s; time scale %u)", val,
	    hot_threshold_saved, time_scale);
}

static void hot_threshold_restore(void)
{
	if (hot_threshold_saved[0] && write_attr(HOT_THRESHOLD, hot_threshold_saved) < 0)
		msg("  warning: cannot restore %s to %s", HOT_THRESHOLD, hot_threshold_saved);
}

int main(int argc, char **argv)
{
	const char *m = getenv("TIERD_VM_MATRIX");
	const char *scale = getenv("TIERD_VM_TIME_SCALE");
	long ps = sysconf(_SC_PAGESIZE);
	int rc;

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
	hot_threshold_scale();
	rc = run_case(argv[1]);
	hot_threshold_restore();
	return rc;
}
