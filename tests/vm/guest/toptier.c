/* toptier.c: the VM cases of the tier-aware memcg limits, second revision
 * (issue 11: exact top-tier accounting, exchange at the ceiling).
 *
 *   toptier-exchange     a cgroup whose hot set moves from A (on the fast
 *                        node) to B (on the slow node) while the cgroup is
 *                        at its top-tier ceiling: with toptier_exchange=1
 *                        B comes in and A goes out, toptier staying at the
 *                        ceiling; with 0 B stays out (in make check)
 *   toptier-large-node   the same on a fast node with more than 1 GiB free
 *                        (run-vm --mem-fast 2304M --mem-slow 2304M): a walk
 *                        of cold data at the ceiling refuses and exchanges
 *                        nothing, a hot set is exchanged in
 *   toptier-demote-only  the ceiling's reclaim demotes and does nothing else:
 *                        with demotion disabled nothing is swapped (zram) or
 *                        dropped (run-vm --mem-slow 2304M)
 *   toptier-offline      a removed cgroup above its ceiling is not demoted
 *                        for any more: its worker stops at offline, its
 *                        pages count in the parent's (run-vm --mem-slow 2304M)
 *   toptier-charge-cost  the cost of the charge path with cgroup2's
 *                        memory_tiered_limits off and on (a measurement)
 *
 * Both remount cgroup2 with memory_tiered_limits (a remount replaces all
 * the cgroup2 options, so the ones in use are repeated) and put the
 * original options back on every way out, and the sysctls they change as
 * well.
 * After every workload, the leak check: its cgroup's toptier (memory.stat)
 * returns to 0 and, for toptier-exchange, whose workload runs in a child
 * cgroup, the parent's returns to 0 after the child's rmdir (tt_leak_check()).
 *
 * A kernel without memory.toptier_high, the memory.stat key "toptier" or
 * /sys/kernel/mm/numa/toptier_exchange (or, for the measurement, the mount
 * option) skips (77), in matrix mode as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmlib.h"
#include "toptier.h"

#define TT_OPTION	"memory_tiered_limits"
#define TT_EXCHANGE	"/sys/kernel/mm/numa/toptier_exchange"
#define TT_DEMOTION	"/sys/kernel/mm/numa/demotion_enabled"
#define TT_NUMAB	"/proc/sys/kernel/numa_balancing"
#define TT_RATE_LIMIT	"/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps"
#define TT_FEATURES	"/sys/kernel/cgroup/features"
#define TT_MAX_NODES	64
#define MB		(1UL << 20)

/* --- settings changed by a case, and put back ------------------------------ */

struct tt_saved {
	const char *path;
	char val[64];
	bool saved;
};

struct tt_env {
	char opts[256];		/* cgroup2 options of CG_ROOT at the start */
	bool remounted;		/* the options were changed */
	struct tt_saved numab, demotion, exchange;
};

/* Writes VAL to PATH; the value found there first is kept in S. */
static int tt_set(struct tt_saved *s, const char *path, const char *val)
{
	int ret;

	if (!s->saved) {
		ret = read_attr(path, s->val, sizeof(s->val));
		if (ret < 0) {
			msg("cannot read %s: %s", path, strerror(-ret));
			return ret;
		}
		s->path = path;
		s->saved = true;
	}
	ret = write_attr(path, val);
	if (ret < 0)
		msg("cannot write %s to %s: %s", val, path, strerror(-ret));
	return ret;
}

/* Options in /proc/mounts that are mount flags, not cgroup2 options: a
 * remount passes them as MS_* flags (tt_remount()). Anything else is given
 * to cgroup2 as it is, so an option this list does not know fails the
 * remount loudly instead of being dropped. */
static const char *const vfs_options[] = {
	"rw", "ro", "nosuid", "nodev", "noexec", "sync", "dirsync", "mand",
	"noatime", "nodiratime", "relatime", "strictatime", "lazytime", "seclabel",
};

static bool is_vfs_option(const char *opt)
{
	unsigned int i;

	for (i = 0; i < sizeof(vfs_options) / sizeof(vfs_options[0]); i++)
		if (!strcmp(opt, vfs_options[i]))
			return true;
	return false;
}

static bool has_option(const char *opts, const char *opt)
{
	char copy[256], *o, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", opts);
	for (o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save))
		if (!strcmp(o, opt))
			return true;
	return false;
}

/* Appends ",OPT" (or "OPT") to OPTS. */
static int add_option(char *opts, size_t size, const char *opt)
{
	size_t used = strlen(opts);
	int n;

	n = snprintf(opts + used, size - used, "%s%s", used ? "," : "", opt);
	return n < 0 || (size_t)n >= size - used ? -ENAMETOOLONG : 0;
}

/* The cgroup2 options of the mount on CG_ROOT (the last one: the mount on
 * top), comma-separated, without the mount flags. */
static int cg2_options_now(char *opts, size_t size)
{
	char line[1024], mnt[PATH_MAX], type[64], all[512];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *o, *save = NULL;

		if (sscanf(line, "%*s %4095s %63s %511s", mnt, type, all) != 3 ||
		    strcmp(mnt, CG_ROOT) || strcmp(type, "cgroup2"))
			continue;
		opts[0] = '\0';
		ret = 0;
		for (o = strtok_r(all, ",", &save); o && !ret; o = strtok_r(NULL, ",", &save))
			if (!is_vfs_option(o))
				ret = add_option(opts, size, o);
	}
	fclose(f);
	return ret;
}

/* Remounts CG_ROOT with the cgroup2 options OPTS, keeping its mount flags
 * (a remount sets both). */
static int tt_remount(const char *opts)
{
	static const struct {
		unsigned long st, ms;
	} flags[] = {
		{ ST_RDONLY, MS_RDONLY }, { ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC }, { ST_NOATIME, MS_NOATIME },
		{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
	};
	unsigned long mflags = MS_REMOUNT;
	struct statvfs st;
	unsigned int i;

	if (statvfs(CG_ROOT, &st) < 0)
		return -errno;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (st.f_flag & flags[i].st)
			mflags |= flags[i].ms;
	if (mount(NULL, CG_ROOT, NULL, mflags, opts) < 0)
		return -errno;
	return 0;
}

static int tt_env_begin(struct tt_env *e)
{
	int ret;

	memset(e, 0, sizeof(*e));
	ret = cg2_options_now(e->opts, sizeof(e->opts));
	if (ret < 0)
		msg("cannot read the cgroup2 options of %s: %s", CG_ROOT, strerror(-ret));
	return ret;
}

/* ORIG with memory_tiered_limits (ON) or without it, in OPTS. */
static int tiered_options(const char *orig, bool on, char *opts, size_t size)
{
	char copy[256], *o, *save = NULL;
	int ret = 0;

	opts[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", orig);
	for (o = strtok_r(copy, ",", &save); o && !ret; o = strtok_r(NULL, ",", &save))
		if (strcmp(o, TT_OPTION))
			ret = add_option(opts, size, o);
	if (!ret && on)
		ret = add_option(opts, size, TT_OPTION);
	return ret;
}

/* cgroup2 with memory_tiered_limits (ON) or without, the other options as
 * they were at the start. */
static int tt_mount_tiered(struct tt_env *e, bool on)
{
	char opts[320], now[256];
	int ret;

	ret = tiered_options(e->opts, on, opts, sizeof(opts));
	if (ret < 0)
		return ret;
	e->remounted = true;
	ret = tt_remount(opts);
	if (ret < 0) {
		msg("cannot remount %s with \"%s\": %s", CG_ROOT, opts, strerror(-ret));
		return ret;
	}
	ret = cg2_options_now(now, sizeof(now));
	if (ret == 0 && has_option(now, TT_OPTION) != on)
		ret = -EIO;
	if (ret < 0)
		msg("remounted %s with \"%s\", but /proc/mounts says \"%s\"", CG_ROOT, opts,
		    ret == -EIO ? now : strerror(-ret));
	return ret;
}

static void tt_restore_attr(struct tt_saved *s)
{
	int ret;

	if (!s->saved)
		return;
	ret = write_attr(s->path, s->val);
	CHECK(ret == 0, "%s restored to %s%s%s", s->path, s->val, ret ? ": " : "",
	      ret ? strerror(-ret) : "");
	s->saved = false;
}

/* Puts back everything the case changed; a failure is a failed check. */
static void tt_restore(struct tt_env *e)
{
	char now[256] = "";
	int ret;

	if (e->remounted) {
		ret = tt_remount(e->opts);
		if (ret == 0)
			ret = cg2_options_now(now, sizeof(now));
		if (ret == 0 && strcmp(now, e->opts))
			ret = -EIO;
		CHECK(ret == 0, "cgroup2 options of %s restored to \"%s\" (%s)", CG_ROOT, e->opts,
		      ret == 0 || ret == -EIO ? now : strerror(-ret));
		e->remounted = false;
	}
	tt_restore_attr(&e->exchange);
	tt_restore_attr(&e->demotion);
	tt_restore_attr(&e->numab);
}

/* --- the kernel's interface ----------------------------------------------- */

static bool has_feature(const char *feature)
{
	char buf[4096], *tok, *save = NULL;

	if (read_attr(TT_FEATURES, buf, sizeof(buf)) < 0)
		return false;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, feature))
			return true;
	return false;
}

/* The value of KEY in the "key value" file FILE of CG; 0 when it is missing. */
static uint64_t cg_key(const char *cg, const char *file, const char *key, bool *ret_found)
{
	char path[PATH_MAX];
	uint64_t v = 0;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", cg, file) >= (int)sizeof(path))
		ret = -ENAMETOOLONG;
	else
		ret = read_key_u64(path, key, &v);
	if (ret_found)
		*ret_found = ret == 0;
	return ret == 0 ? v : 0;
}

/* 0 when the kernel has what the case needs (toptier-exchange: EXCHANGE),
 * else the exit status, the reason printed. Changes nothing. */
static int tt_probe(bool exchange)
{
	char cg[PATH_MAX], buf[32];
	const char *why = NULL;
	bool found;
	int ret;

	ret = cg_create(NULL, "vmtest-toptier-probe", cg, sizeof(cg));
	if (ret < 0) {
		msg("FAIL: cannot create a cgroup: %s", strerror(-ret));
		return 1;
	}
	if (cg_read(cg, "memory.toptier_high", buf, sizeof(buf)) < 0) {
		why = "kernel lacks memory.toptier_high";
	} else if (!exchange && !has_feature(TT_OPTION)) {
		why = "kernel lacks the cgroup2 mount option " TT_OPTION " (" TT_FEATURES ")";
	} else if (exchange) {
		cg_key(cg, "memory.stat", "toptier", &found);
		if (!found)
			why = "kernel lacks the memory.stat key toptier";
		else if (access(TT_EXCHANGE, F_OK) < 0)
			why = "kernel lacks " TT_EXCHANGE;
	}
	cg_destroy(cg);
	if (!why)
		return 0;
	msg("SKIP: %s", why);
	return EXIT_SKIP;
}

/* MemTotal of NODE's meminfo in kB, 0 when the node has none. */
static uint64_t node_memtotal_kb(int node)
{
	char path[64], line[256];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The top tier's and all nodes' memory (MemTotal: managed pages), whose
 * ratio the kernel scales the limits by. The top tier is the memory tier
 * with the lowest id among the nodes with memory. */
static int tier_capacity(uint64_t *fast_kb, uint64_t *total_kb)
{
	uint64_t kb[TT_MAX_NODES];
	int tier[TT_MAX_NODES], top = INT_MAX, node;

	*fast_kb = *total_kb = 0;
	for (node = 0; node < TT_MAX_NODES; node++) {
		kb[node] = node_memtotal_kb(node);
		tier[node] = kb[node] ? node_tier(node) : -1;
		*total_kb += kb[node];
		if (tier[node] >= 0 && tier[node] < top)
			top = tier[node];
	}
	for (node = 0; node < TT_MAX_NODES; node++)
		if (kb[node] && tier[node] == top)
			*fast_kb += kb[node];
	return *fast_kb && *fast_kb < *total_kb ? 0 : -ENODEV;
}

static int cg_read_u64(const char *cg, const char *file, uint64_t *ret)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", cg, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_attr_u64(path, ret);
}

/* Sets memory.high of CG so that memory.toptier_high (= memory.high x top
 * tier / all memory, in pages) is TARGET bytes: a first guess from the
 * nodes' MemTotal, then corrected from what the kernel reads back.
 * *RET_GOT is memory.toptier_high as read back at the end. */
static int set_toptier_high(const char *cg, uint64_t target, uint64_t *ret_high,
			    uint64_t *ret_got)
{
	uint64_t fast, total, want = target / page_size, high, got = 0;
	char buf[32];
	int ret, i;

	ret = tier_capacity(&fast, &total);
	if (ret < 0) {
		msg("cannot tell the top tier's share of the memory (node meminfo, memory tiers)");
		return ret;
	}
	high = (want * total + fast - 1) / fast;
	for (i = 0; i < 64; i++) {
		uint64_t diff, step;

		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(high * page_size));
		ret = cg_write(cg, "memory.high", buf);
		if (ret == 0)
			ret = cg_read_u64(cg, "memory.toptier_high", &got);
		if (ret < 0) {
			msg("memory.high=%s, memory.toptier_high: %s", buf, strerror(-ret));
			return ret;
		}
		got /= page_size;
		if (got == want)
			break;
		/* Proportional steps, then page by page: one page of
		 * memory.high moves toptier_high by at most one page. */
		diff = got < want ? want - got : got - want;
		step = diff > 2 ? diff * total / fast : 1;
		if (got < want)
			high += step;
		else
			high -= step < high ? step : high - 1;
	}
	*ret_high = high * page_size;
	*ret_got = got * page_size;
	if (got != want)
		msg("  note: memory.toptier_high is %llu kB, not %llu kB",
		    (unsigned long long)(*ret_got >> 10), (unsigned long long)(target >> 10));
	return 0;
}

static void *map_private(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* 4 KiB pages, so page counts are exact. */
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

static long long tv_us(const struct timeval *tv)
{
	return (long long)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* --- the leak check -------------------------------------------------------- */

#define TT_LEAK_WAIT	10.0	/* x time_scale: the most a counter may take */
#define TT_LEAK_POLL	0.1

/* Waits, bounded, for the memory.stat toptier of CG to read 0, draining
 * the per-CPU LRU batches before every read (a freed folio still held by a
 * batch is still charged). The last value read, in bytes; *RET_SECS the
 * time it took, *RET_FOUND whether the key was there. */
static uint64_t tt_toptier_drained(const char *cg, double *ret_secs, bool *ret_found)
{
	double t0 = now_sec(), end = t0 + TT_LEAK_WAIT * time_scale;
	uint64_t v;
	bool found;

	for (;;) {
		lru_drain_all();
		v = cg_key(cg, "memory.stat", "toptier", &found);
		if (!found || v == 0 || now_sec() >= end)
			break;
		sleep_sec(TT_LEAK_POLL);
	}
	*ret_secs = now_sec() - t0;
	*ret_found = found;
	return v;
}

/* The leak check after a tier-aware workload in CHILD has exited and been
 * reaped: CHILD's toptier returns to 0; CHILD is removed; then PARENT's
 * (hierarchical) toptier returns to 0 as well: a missed uncharge, or a
 * folio left charged to the removed cgroup, keeps it up. PARENT NULL: the
 * cgroup is a child of the root, whose counter has everyone's (only CHILD
 * is checked, and removed). An uncharge below 0 does not show here:
 * page_counter WARNs ("page_counter underflow"), and run-vm fails the run
 * on the WARNING. Prints a LEAKCHECK line. */
static void tt_leak_check(const char *what, const char *parent, const char *child)
{
	double secs_c = 0, secs_p = 0;
	uint64_t c, p = 0;
	bool found_c, found_p = true;
	int ret;

	c = tt_toptier_drained(child, &secs_c, &found_c);
	ret = cg_destroy(child);
	CHECK(ret == 0, "%s: leak check: the workload's cgroup removed%s%s", what,
	      ret ? ": " : "", ret ? strerror(-ret) : "");
	if (parent)
		p = tt_toptier_drained(parent, &secs_p, &found_p);
	printf("LEAKCHECK case=%s toptier_kb=%llu secs=%.1f parent_toptier_kb=%s%llu "
	       "parent_secs=%.1f\n", what, (unsigned long long)(c >> 10), secs_c,
	       parent ? "" : "-", (unsigned long long)(p >> 10), secs_p);
	CHECK(found_c && c == 0, "%s: leak check: the cgroup's toptier back to 0 after the "
	      "workload exited: %llu kB%s (%.1f s, bound %.0f s)", what,
	      (unsigned long long)(c >> 10), found_c ? "" : ", no toptier key", secs_c,
	      TT_LEAK_WAIT * time_scale);
	if (parent)
		CHECK(found_p && p == 0, "%s: leak check: the parent's toptier back to 0 after "
		      "the rmdir: %llu kB%s (%.1f s, bound %.0f s)", what,
		      (unsigned long long)(p >> 10), found_p ? "" : ", no toptier key", secs_p,
		      TT_LEAK_WAIT * time_scale);
}

/* --- toptier-exchange ----------------------------------------------------- */

#define XC_MB		32	/* C, the ceiling, and the size of A and of B */
#define XC_POLL		0.25	/* memory.stat and memory.current */
#define XC_POLL_NODES	0.5	/* the nodes of A and B (move_pages()) */
#define XC_PHASE1	3.0	/* A alone is read at least this long */
#define XC_HOLD		2.0	/* exchange=1: watched this long after B is at 90% */

/* Shared with the workload (MAP_SHARED, faulted by the parent: not charged
 * to the workload's cgroup). */
struct xc_ctl {
	atomic_int phase;	/* parent -> child: XC_READ_A, XC_READ_B, XC_STOP */
	atomic_int state;	/* child -> parent: XC_SETUP, XC_A_READY, ... */
	char *a, *b;		/* the hot sets, in the child's address space */
	int err;
	char what[96];
};

enum { XC_READ_A = 1, XC_READ_B, XC_STOP };
enum { XC_SETUP = 0, XC_A_READY, XC_B_READY, XC_FAILED };

static const char *const xc_keys[] = {
	"toptier", "pgpromote_refused_toptier", "pgdemote_toptier",
	"pgdemote_toptier_exchange", "pgpromote_success", "numa_pte_updates",
	"numa_hint_faults",
};

enum {
	XK_TOPTIER, XK_REFUSED, XK_DEMOTE, XK_EXCHANGE, XK_PROMOTED, XK_PTE_UPDATES,
	XK_HINT_FAULTS, NR_XK,
};

/* The keys a kernel with the interface has in memory.stat. */
#define XK_NEEDED	((1ULL << XK_TOPTIER) | (1ULL << XK_REFUSED) | (1ULL << XK_DEMOTE) | \
			 (1ULL << XK_EXCHANGE) | (1ULL << XK_PROMOTED))

struct xc_stat {
	uint64_t v[NR_XK];
	uint64_t found;
};

struct xc_result {
	int exchange;
	uint64_t c;		/* memory.toptier_high as read back, bytes */
	uint64_t high;		/* memory.high, bytes */
	long a_pages;		/* pages of A, and of B */
	long b_pages;		/* B's pages on the slow node at the start */
	long a_fast_start;	/* A's pages on the fast node once faulted */
	long a_fast_before;	/* ... at the end of phase 1 */
	long a_fast_after;	/* ... at the end */
	long b_fast_before;	/* B's pages on the fast node at the start */
	long b_fast_after;	/* ... at the end */
	uint64_t toptier_p1;	/* toptier at the end of phase 1 */
	uint64_t max_toptier;	/* phase 2, sampled every XC_POLL */
	uint64_t max_current;	/* memory.current, phase 2, sampled */
	uint64_t high_events;	/* memory.events high, the whole run */
	uint64_t exchange_all;	/* pgdemote_toptier_exchange, the whole run */
	struct xc_stat d;	/* phase 2 deltas (toptier: the end value) */
	double secs;		/* phase 2 */
	double secs_90;		/* B at >= 90% on the fast node (-1: never) */
	double limit;
};

static int xc_stat_read(const char *cg, struct xc_stat *s)
{
	char path[PATH_MAX];

	memset(s, 0, sizeof(*s));
	if (snprintf(path, sizeof(path), "%s/memory.stat", cg) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_keys_u64(path, xc_keys, NR_XK, s->v, &s->found);
}

#define XC_FAIL(x, e, ...) do {							\
	(x)->err = (e) ? (e) : -EIO;						\
	snprintf((x)->what, sizeof((x)->what), __VA_ARGS__);			\
	atomic_store(&(x)->state, XC_FAILED);					\
	_exit(1);								\
} while (0)

/* In the workload: LEN bytes mapped and faulted in on NODE, then the default
 * policy again, so that NUMA balancing may move them. */
static void *xc_map_on(struct xc_ctl *x, int node, size_t len, const char *name)
{
	void *p;
	int ret;

	ret = policy_bind(node);
	if (ret < 0)
		XC_FAIL(x, ret, "set_mempolicy(MPOL_BIND, node %d)", node);
	p = map_private(len);
	if (!p)
		XC_FAIL(x, -errno, "mapping %s", name);
	dirty_pages(p, len);
	ret = policy_default();
	if (ret < 0)
		XC_FAIL(x, ret, "set_mempolicy(MPOL_DEFAULT)");
	return p;
}

/* The workload: A faulted on the fast node and read; on XC_READ_B, B
 * faulted on the slow node (then the default policy, so that NUMA
 * balancing may promote it) and only B read. */
static void __attribute__((noreturn)) xc_child(const char *cg, struct xc_ctl *x, size_t len,
					       pid_t parent)
{
	unsigned long sum = 0;
	char *a, *b;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	ret = cg_enter(cg);
	if (ret < 0)
		XC_FAIL(x, ret, "joining %.80s", cg);
	a = xc_map_on(x, FAST_NODE, len, "A");
	x->a = a;
	atomic_store(&x->state, XC_A_READY);
	while (atomic_load(&x->phase) == XC_READ_A)
		sum += touch_pages(a, len);
	if (atomic_load(&x->phase) != XC_READ_B)
		_exit(0);

	b = xc_map_on(x, SLOW_NODE, len, "B");
	/* B is on the slow node already: this drains the per-CPU LRU
	 * batches (lru_cache_disable()), where the last pages of B (and of
	 * A) would stay unisolatable, never promoted or demoted. */
	move_to_node(b, len, SLOW_NODE);
	x->b = b;
	atomic_store(&x->state, XC_B_READY);
	while (atomic_load(&x->phase) == XC_READ_B)
		sum += touch_pages(b, len);
	_exit(sum == 1);
}

/* Waits for the workload to reach STATE; *PID is set to -1 if it died
 * (and was reaped). */
static int xc_wait(struct xc_ctl *x, pid_t *pid, int state, const char *what)
{
	double end = now_sec() + 60.0 * time_scale;
	int st, status;

	for (;;) {
		st = atomic_load(&x->state);
		if (st == XC_FAILED) {
			msg("workload: %s: %s", x->what, strerror(-x->err));
			return x->err;
		}
		if (st >= state)
			return 0;
		if (waitpid(*pid, &status, WNOHANG) == *pid) {
			*pid = -1;
			msg("workload died while setting up %s (status 0x%x)", what, status);
			return -EIO;
		}
		if (now_sec() > end) {
			msg("workload: setting up %s took more than %.0f s", what,
			    60.0 * time_scale);
			return -ETIMEDOUT;
		}
		sleep_sec(0.01);
	}
}

/* One run of the scenario in a fresh cgroup, with toptier_exchange
 * already set to R->exchange. */
static int xc_run(int exchange, struct xc_result *r)
{
	size_t len = (size_t)XC_MB * MB;
	char parent[PATH_MAX], cg[PATH_MAX] = "", name[48];
	struct xc_stat s0, s;
	struct xc_ctl *x = NULL;
	double t, t0, t1, next_nodes, next_msg;
	long present, a_fast = 0, b_fast = 0;
	pid_t pid = -1, self = getpid();
	uint64_t cur;
	bool done;
	int ret;

	memset(r, 0, sizeof(*r));
	r->exchange = exchange;
	r->secs_90 = -1;
	r->limit = (exchange ? 120.0 : 20.0) * time_scale;
	r->a_pages = len / page_size;
	/* The workload's cgroup is a child, so that the leak check can see
	 * its parent's count after the rmdir. */
	snprintf(name, sizeof(name), "vmtest-toptier-exchange%d", exchange);
	ret = cg_create(NULL, name, parent, sizeof(parent));
	if (ret < 0) {
		msg("cannot create cgroup %s: %s", name, strerror(-ret));
		return ret;
	}
	ret = cg_enable_memory(parent);
	if (ret == 0)
		ret = cg_create(parent, "workload", cg, sizeof(cg));
	if (ret < 0) {
		msg("cannot create cgroup %s/workload: %s", parent, strerror(-ret));
		cg[0] = '\0';
		goto out;
	}
	ret = set_toptier_high(cg, len, &r->high, &r->c);
	if (ret < 0)
		goto out;
	msg("  exchange=%d: cgroup %s, memory.high %llu kB, memory.toptier_high (C) %llu kB",
	    exchange, cg, (unsigned long long)(r->high >> 10), (unsigned long long)(r->c >> 10));
	x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x == MAP_FAILED) {
		x = NULL;
		ret = -errno;
		goto out;
	}
	atomic_init(&x->phase, XC_READ_A);
	atomic_init(&x->state, XC_SETUP);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0)
		xc_child(cg, x, len, self);

	/* Phase 1: A alone, on the fast node. */
	ret = xc_wait(x, &pid, XC_A_READY, "A");
	if (ret < 0)
		goto out;
	r->a_fast_start = pages_on_node_pid(pid, x->a, len, FAST_NODE, &present);
	if (r->a_fast_start < 0) {
		ret = (int)r->a_fast_start;
		msg("move_pages(A): %s", strerror(-ret));
		goto out;
	}
	/* A is C: at most the few other pages of the workload go over the
	 * ceiling and are demoted. */
	if (present < r->a_pages || r->a_fast_start * 10 < r->a_pages * 9) {
		msg("placement: only %ld of %ld pages of A present and on node %d", r->a_fast_start,
		    r->a_pages, FAST_NODE);
		ret = -ENOMEM;
		goto out;
	}
	msg("  exchange=%d: A %ld of %ld pages on node %d; reading A", exchange, r->a_fast_start,
	    r->a_pages, FAST_NODE);
	/* At least XC_PHASE1, and until the cgroup is down to its ceiling
	 * (10 s at most): then phase 2 starts at the ceiling. */
	t1 = now_sec();
	do {
		sleep_sec(XC_POLL);
		ret = xc_stat_read(cg, &s);
		if (ret < 0) {
			msg("%s/memory.stat: %s", cg, strerror(-ret));
			goto out;
		}
		t = now_sec();
	} while (t - t1 < XC_PHASE1 || (s.v[XK_TOPTIER] > r->c && t - t1 < 10.0 * time_scale));
	r->toptier_p1 = s.v[XK_TOPTIER];
	r->a_fast_before = pages_on_node_pid(pid, x->a, len, FAST_NODE, NULL);
	if (r->a_fast_before < 0) {
		ret = (int)r->a_fast_before;
		msg("move_pages(A): %s", strerror(-ret));
		goto out;
	}
	msg("  exchange=%d: after %.1f s of A: A %ld of %ld pages fast, toptier %llu kB "
	    "(C %llu kB)%s", exchange, t - t1, r->a_fast_before, r->a_pages,
	    (unsigned long long)(r->toptier_p1 >> 10), (unsigned long long)(r->c >> 10),
	    r->toptier_p1 > r->c ? ": still above C" : "");

	/* Phase 2: B on the slow node, and only B read. */
	ret = xc_stat_read(cg, &s0);
	if (ret < 0)
		goto out;
	atomic_store(&x->phase, XC_READ_B);
	ret = xc_wait(x, &pid, XC_B_READY, "B");
	if (ret < 0)
		goto out;
	r->b_pages = pages_on_node_pid(pid, x->b, len, SLOW_NODE, &present);
	if (r->b_pages < 0) {
		ret = (int)r->b_pages;
		msg("move_pages(B): %s", strerror(-ret));
		goto out;
	}
	if (present < (long)(len / page_size) || r->b_pages < present * 95 / 100) {
		msg("placement: only %ld of %zu pages of B present and on node %d", r->b_pages,
		    len / page_size, SLOW_NODE);
		ret = -ENOMEM;
		goto out;
	}
	r->b_fast_before = pages_on_node_pid(pid, x->b, len, FAST_NODE, NULL);
	if (r->b_fast_before < 0) {
		ret = (int)r->b_fast_before;
		msg("move_pages(B): %s", strerror(-ret));
		goto out;
	}
	msg("  exchange=%d: B %ld pages on node %d; reading only B for %s%.0f s", exchange,
	    r->b_pages, SLOW_NODE, exchange ? "up to " : "", r->limit);
	t0 = now_sec();
	next_nodes = t0;
	next_msg = t0 + 2;
	for (;;) {
		sleep_sec(XC_POLL);
		t = now_sec();
		ret = xc_stat_read(cg, &s);
		if (ret < 0)
			goto out;
		if (s.v[XK_TOPTIER] > r->max_toptier)
			r->max_toptier = s.v[XK_TOPTIER];
		if (cg_read_u64(cg, "memory.current", &cur) == 0 && cur > r->max_current)
			r->max_current = cur;
		if (t >= next_nodes || t - t0 >= r->limit) {
			b_fast = pages_on_node_pid(pid, x->b, len, FAST_NODE, NULL);
			a_fast = pages_on_node_pid(pid, x->a, len, FAST_NODE, NULL);
			if (b_fast < 0 || a_fast < 0) {
				ret = b_fast < 0 ? (int)b_fast : (int)a_fast;
				msg("move_pages() on the workload: %s", strerror(-ret));
				goto out;
			}
			if (r->secs_90 < 0 && b_fast * 10 >= r->b_pages * 9)
				r->secs_90 = t - t0;
			next_nodes = t + XC_POLL_NODES;
		}
		/* With exchange off the run always takes the whole bound. */
		done = t - t0 >= r->limit ||
		       (exchange && r->secs_90 >= 0 && t - t0 >= r->secs_90 + XC_HOLD);
		if (done || t >= next_msg) {
			msg("  exchange=%d %5.1fs: B %ld/%ld fast, A %ld/%ld fast, toptier "
			    "%llu kB (max %llu), refused %llu, demoted_exchange %llu, "
			    "demoted_toptier %llu, promoted %llu", exchange, t - t0, b_fast,
			    r->b_pages, a_fast, r->a_pages,
			    (unsigned long long)(s.v[XK_TOPTIER] >> 10),
			    (unsigned long long)(r->max_toptier >> 10),
			    (unsigned long long)(s.v[XK_REFUSED] - s0.v[XK_REFUSED]),
			    (unsigned long long)(s.v[XK_EXCHANGE] - s0.v[XK_EXCHANGE]),
			    (unsigned long long)(s.v[XK_DEMOTE] - s0.v[XK_DEMOTE]),
			    (unsigned long long)(s.v[XK_PROMOTED] - s0.v[XK_PROMOTED]));
			next_msg = t + 2;
		}
		if (done)
			break;
	}
	r->secs = t - t0;
	r->b_fast_after = pages_on_node_pid(pid, x->b, len, FAST_NODE, NULL);
	r->a_fast_after = pages_on_node_pid(pid, x->a, len, FAST_NODE, NULL);
	if (r->b_fast_after < 0 || r->a_fast_after < 0) {
		ret = -EIO;
		msg("move_pages() on the workload failed at the end");
		goto out;
	}
	ret = xc_stat_read(cg, &s);
	if (ret < 0)
		goto out;
	if (s.v[XK_TOPTIER] > r->max_toptier)
		r->max_toptier = s.v[XK_TOPTIER];
	r->d = s;
	for (int i = 0; i < NR_XK; i++)
		if (i != XK_TOPTIER)
			r->d.v[i] -= s0.v[i];
	r->exchange_all = s.v[XK_EXCHANGE];
	r->high_events = cg_key(cg, "memory.events", "high", NULL);
	ret = 0;
out:
	if (x)
		atomic_store(&x->phase, XC_STOP);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (x)
		munmap(x, sizeof(*x));
	if (cg[0]) {
		snprintf(name, sizeof(name), "toptier-exchange exchange=%d", exchange);
		tt_leak_check(name, parent, cg);
	}
	cg_destroy(parent);
	return ret;
}

/* How far above C toptier may be seen: 2% of C, at least 1 MB. */
static uint64_t xc_slack(const struct xc_result *r)
{
	return r->c / 50 > MB ? r->c / 50 : MB;
}

static void xc_report(const char *name, const struct xc_result *r)
{
	uint64_t slack = xc_slack(r);
	char secs90[16];

	if (r->secs_90 >= 0)
		snprintf(secs90, sizeof(secs90), "%.1f", r->secs_90);
	else
		snprintf(secs90, sizeof(secs90), "-");
	printf("EXCHANGE exchange=%d C_kb=%llu high_kb=%llu b_fast=%ld/%ld a_fast_before=%ld/%ld "
	       "a_fast_after=%ld max_toptier_kb=%llu slack_kb=%llu toptier_p1_kb=%llu refused=%llu "
	       "demoted_exchange=%llu demoted_toptier=%llu promoted=%llu secs_to_90=%s secs=%.1f "
	       "max_current_kb=%llu high_events=%llu\n", r->exchange,
	       (unsigned long long)(r->c >> 10), (unsigned long long)(r->high >> 10),
	       r->b_fast_after, r->b_pages, r->a_fast_before, r->a_pages, r->a_fast_after,
	       (unsigned long long)(r->max_toptier >> 10), (unsigned long long)(slack >> 10),
	       (unsigned long long)(r->toptier_p1 >> 10),
	       (unsigned long long)r->d.v[XK_REFUSED], (unsigned long long)r->d.v[XK_EXCHANGE],
	       (unsigned long long)r->d.v[XK_DEMOTE], (unsigned long long)r->d.v[XK_PROMOTED],
	       secs90, r->secs, (unsigned long long)(r->max_current >> 10),
	       (unsigned long long)r->high_events);
	/* The matrix table's columns (tests/vm/matrix.sh): B is the hot set. */
	printf("TIERD-VM-METRIC: case=%s mode=exchange-%s parent=- numa_balancing=2 knob=- "
	       "pages=%ld fast_before=%ld fast_after=%ld frac=%.3f secs=%.1f "
	       "cg_numa_pte_updates=%llu cg_numa_hint_faults=%llu cg_pgpromote_success=%llu\n",
	       name, r->exchange ? "on" : "off", r->b_pages, r->b_fast_before, r->b_fast_after,
	       r->b_pages ? (double)r->b_fast_after / r->b_pages : 0.0, r->secs,
	       (unsigned long long)r->d.v[XK_PTE_UPDATES],
	       (unsigned long long)r->d.v[XK_HINT_FAULTS], (unsigned long long)r->d.v[XK_PROMOTED]);
	fflush(stdout);
}

/* Checks common to both runs. */
static void xc_check_common(const struct xc_result *r)
{
	uint64_t slack = xc_slack(r);
	uint64_t missing = XK_NEEDED & ~r->d.found;
	char keys[160] = "";
	int i;

	for (i = 0; i < NR_XK; i++)
		if (missing & (1ULL << i))
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), " %s",
				 xc_keys[i]);
	CHECK(!missing, "exchange=%d: memory.stat has the toptier keys%s%s", r->exchange,
	      missing ? "; missing:" : "", keys);
	/* The premise: only the top-tier ceiling acts on the cgroup. A and B
	 * are 2C and memory.high is C x all / top tier, ~2.05C here. */
	CHECK(r->high_events == 0, "exchange=%d: memory.high (%llu kB) never reached: "
	      "memory.events high %llu, memory.current at most %llu kB (sampled)", r->exchange,
	      (unsigned long long)(r->high >> 10), (unsigned long long)r->high_events,
	      (unsigned long long)(r->max_current >> 10));
	CHECK(r->max_toptier <= r->c + slack, "exchange=%d: toptier at most %llu kB <= C %llu kB + "
	      "slack %llu kB (sampled every %.2f s)", r->exchange,
	      (unsigned long long)(r->max_toptier >> 10), (unsigned long long)(r->c >> 10),
	      (unsigned long long)(slack >> 10), XC_POLL);
}

/* toptier-exchange: a cgroup at its top-tier ceiling C (= memory.toptier_high,
 * 32 MB) whose hot set moves. Phase 1: A (C bytes of private anonymous
 * memory) is faulted on the fast node and read for a few seconds; phase 2:
 * B (C bytes) is faulted on the slow node, its policy reset to default,
 * and only B is read. kernel.numa_balancing=2, demotion enabled, cgroup2
 * with memory_tiered_limits. Run with toptier_exchange=0, then 1, each in
 * a fresh cgroup. With exchange on, NUMA balancing's refused promotions of
 * B make the kernel demote the cgroup's coldest top-tier pages (A), so B
 * comes in while toptier stays at C; with it off B is refused and stays on
 * the slow node. Passes when
 *   exchange=1: B >= 90% on the fast node within 120 s, A's fast pages
 *               fewer than at the end of phase 1, pgdemote_toptier_exchange
 *               > 0;
 *   exchange=0: after 20 s (the whole time) B < 25% on the fast node,
 *               pgdemote_toptier_exchange 0, and the cgroup, at its ceiling,
 *               not scanned for promotion (numa_pte_updates <= 1% of B);
 *   both:       toptier (sampled every 0.25 s in phase 2) <= C + max(2% of
 *               C, 1 MB); memory.high never reached; the memory.stat keys
 *               present.
 * Time bounds x time_scale. Prints an EXCHANGE line per run. */
int case_toptier_exchange(const char *name)
{
	struct xc_result r[2];
	struct tt_env env;
	char rl[32] = "?";
	int ret, x;

	ret = tt_probe(true);
	if (ret)
		return ret;
	ret = tt_env_begin(&env);
	if (ret < 0)
		return 1;
	msg("  cgroup2 options \"%s\"; remounting with %s added", env.opts, TT_OPTION);
	ret = tt_mount_tiered(&env, true);
	if (ret == 0)
		ret = tt_set(&env.numab, TT_NUMAB, "2");
	if (ret == 0)
		ret = tt_set(&env.demotion, TT_DEMOTION, "1");
	read_attr(TT_RATE_LIMIT, rl, sizeof(rl));
	if (ret == 0)
		msg("  kernel.numa_balancing 2 (was %s), demotion_enabled 1 (was %s), promotion "
		    "rate limit %s MB/s", env.numab.val, env.demotion.val, rl);
	for (x = 0; ret == 0 && x <= 1; x++) {
		ret = tt_set(&env.exchange, TT_EXCHANGE, x ? "1" : "0");
		if (ret == 0 && x == 0)
			msg("  %s 0 (was %s)", TT_EXCHANGE, env.exchange.val);
		if (ret == 0)
			ret = xc_run(x, &r[x]);
		if (ret == 0)
			xc_report(name, &r[x]);
	}
	tt_restore(&env);
	if (ret < 0) {
		msg("FAIL: %s: the workload could not be set up", name);
		return 1;
	}

	xc_check_common(&r[0]);
	CHECK(r[0].b_fast_after * 4 < r[0].b_pages, "exchange=0: B stays on the slow node: %ld of "
	      "%ld pages fast after %.1f s (< 25%%)", r[0].b_fast_after, r[0].b_pages, r[0].secs);
	CHECK(r[0].exchange_all == 0, "exchange=0: pgdemote_toptier_exchange %llu (want 0)",
	      (unsigned long long)r[0].exchange_all);
	/* Without the exchange, nothing would come of the hinting faults of a
	 * cgroup at its ceiling: the kernel does not scan it for promotion
	 * (the previous revision scanned, and refused every page of B six
	 * times in 20 s). */
	CHECK(r[0].d.v[XK_PTE_UPDATES] * 100 <= (uint64_t)r[0].b_pages, "exchange=0: the cgroup "
	      "at its ceiling is not scanned for promotion: numa_pte_updates %llu (<= 1%% of B), "
	      "pgpromote_refused_toptier %llu", (unsigned long long)r[0].d.v[XK_PTE_UPDATES],
	      (unsigned long long)r[0].d.v[XK_REFUSED]);

	xc_check_common(&r[1]);
	CHECK(r[1].secs_90 >= 0, "exchange=1: B >= 90%% on the fast node within %.0f s "
	      "(%s%.1f s; %ld of %ld at the end)", r[1].limit, r[1].secs_90 >= 0 ? "after " :
	      "not in ", r[1].secs_90 >= 0 ? r[1].secs_90 : r[1].secs, r[1].b_fast_after,
	      r[1].b_pages);
	CHECK(r[1].a_fast_after < r[1].a_fast_before, "exchange=1: A's pages on the fast node went "
	      "down: %ld -> %ld of %ld", r[1].a_fast_before, r[1].a_fast_after, r[1].a_pages);
	CHECK(r[1].d.v[XK_EXCHANGE] > 0, "exchange=1: pgdemote_toptier_exchange %llu > 0",
	      (unsigned long long)r[1].d.v[XK_EXCHANGE]);
	return verdict(name);
}

/* --- toptier-charge-cost -------------------------------------------------- */

#define CC_MB		8	/* mapped, touched and unmapped by each thread */
#define CC_MAX_ROUNDS	20

struct cc_thread {
	pthread_t thread;
	pthread_barrier_t *start;
	unsigned int iters;
	size_t len;
	int err;
};

struct cc_result {
	double wall_s;		/* from the start barrier to the last join */
	long long utime_us, stime_us;
	long long minflt;
	uint64_t faults;	/* threads x iters x pages: the work done */
	uint64_t high;		/* memory.high, bytes */
	uint64_t toptier_high;	/* memory.toptier_high, bytes */
	uint64_t high_events;	/* memory.events high */
	uint64_t toptier_events; /* memory.events toptier_high (0: no key) */
	uint64_t demoted;	/* memory.stat pgdemote_toptier (0: no key) */
	int err;
	char what[96];
};

static void *cc_worker(void *arg)
{
	struct cc_thread *t = arg;
	unsigned int i;
	size_t off;

	pthread_barrier_wait(t->start);
	for (i = 0; i < t->iters; i++) {
		char *m = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		volatile char *p = m;

		if (m == MAP_FAILED) {
			t->err = -errno;
			break;
		}
		for (off = 0; off < t->len; off += page_size)
			p[off] = 1;
		munmap(m, t->len);
	}
	return NULL;
}

/* The workload, in the child in its cgroup: NR threads, thread i on CPU
 * i % CPUs, started together. */
static void cc_child(unsigned int nr, unsigned int iters, struct cc_result *r)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct cc_thread *t;
	pthread_barrier_t start;
	struct rusage ru0, ru1;
	unsigned int i, started = 0;
	double t0, t1;

	/* Every touch is a 4 KiB fault, whatever THP's setting. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) {
		r->err = -errno;
		snprintf(r->what, sizeof(r->what), "prctl(PR_SET_THP_DISABLE)");
		return;
	}
	t = calloc(nr, sizeof(*t));
	if (!t || pthread_barrier_init(&start, NULL, nr + 1)) {
		free(t);
		r->err = -ENOMEM;
		snprintf(r->what, sizeof(r->what), "threads");
		return;
	}
	for (i = 0; i < nr; i++) {
		cpu_set_t set;

		t[i].start = &start;
		t[i].iters = iters;
		t[i].len = (size_t)CC_MB * MB;
		if (pthread_create(&t[i].thread, NULL, cc_worker, &t[i]))
			break;
		CPU_ZERO(&set);
		CPU_SET(ncpu > 0 ? i % ncpu : 0, &set);
		pthread_setaffinity_np(t[i].thread, sizeof(set), &set);
		started++;
	}
	if (started < nr) {
		/* The barrier never opens: nothing to join; the process
		 * exits without them. */
		r->err = -EAGAIN;
		snprintf(r->what, sizeof(r->what), "pthread_create (%u of %u)", started, nr);
		return;
	}
	getrusage(RUSAGE_SELF, &ru0);
	pthread_barrier_wait(&start);
	t0 = now_sec();
	for (i = 0; i < nr; i++)
		pthread_join(t[i].thread, NULL);
	t1 = now_sec();
	getrusage(RUSAGE_SELF, &ru1);
	for (i = 0; i < nr; i++) {
		if (t[i].err && !r->err) {
			r->err = t[i].err;
			snprintf(r->what, sizeof(r->what), "mmap in thread %u", i);
		}
	}
	r->wall_s = t1 - t0;
	r->utime_us = tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime);
	r->stime_us = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	r->minflt = ru1.ru_minflt - ru0.ru_minflt;
	r->faults = (uint64_t)nr * iters * ((size_t)CC_MB * MB / page_size);
	pthread_barrier_destroy(&start);
	free(t);
}

/* One run in a fresh cgroup with memory_tiered_limits ON or off. */
static int cc_run(struct tt_env *e, bool on, unsigned int nr, unsigned int iters,
		  struct cc_result *r)
{
	uint64_t ws = (uint64_t)nr * CC_MB * MB, high, toptier_high;
	char cg[PATH_MAX];
	int fds[2] = { -1, -1 }, ret, status;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	ret = tt_mount_tiered(e, on);
	if (ret < 0)
		return ret;
	ret = cg_create(NULL, "vmtest-charge-cost", cg, sizeof(cg));
	if (ret < 0) {
		msg("cannot create a cgroup: %s", strerror(-ret));
		return ret;
	}
	/* A ceiling, twice the working set: there, never reached. */
	ret = set_toptier_high(cg, 2 * ws, &high, &toptier_high);
	if (ret < 0)
		goto out;
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
		struct cc_result cr = { 0 };

		close(fds[0]);
		ret = cg_enter(cg);
		if (ret < 0) {
			cr.err = ret;
			snprintf(cr.what, sizeof(cr.what), "joining %.80s", cg);
		} else {
			cc_child(nr, iters, &cr);
		}
		n = write(fds[1], &cr, sizeof(cr));
		_exit(n == sizeof(cr) ? 0 : 1);
	}
	close(fds[1]);
	fds[1] = -1;
	n = read(fds[0], r, sizeof(*r));
	waitpid(pid, &status, 0);
	if (n != sizeof(*r)) {
		msg("workload died (status 0x%x)", status);
		ret = -EIO;
		goto out;
	}
	if (r->err) {
		msg("workload: %s: %s", r->what, strerror(-r->err));
		ret = r->err;
		goto out;
	}
	r->high = high;
	r->toptier_high = toptier_high;
	r->high_events = cg_key(cg, "memory.events", "high", NULL);
	r->toptier_events = cg_key(cg, "memory.events", "toptier_high", NULL);
	r->demoted = cg_key(cg, "memory.stat", "pgdemote_toptier", NULL);
	ret = 0;
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	/* The workload has been reaped (or never started): the cgroup is
	 * empty. A child of the root, to measure one level: no parent. */
	tt_leak_check(on ? "toptier-charge-cost on" : "toptier-charge-cost off", NULL, cg);
	cg_destroy(cg);
	return ret;
}

/* Wall time per fault of one thread (every thread does the same work). */
static double cc_ns(const struct cc_result *r, unsigned int nr)
{
	return r->faults ? r->wall_s * 1e9 * nr / r->faults : 0.0;
}

static double cc_stime_ns(const struct cc_result *r)
{
	return r->faults ? r->stime_us * 1e3 / r->faults : 0.0;
}

static void cc_print(const char *what, bool on, unsigned int nr, unsigned int iters,
		     const struct cc_result *r)
{
	printf("CHARGECOST %s option=%s threads=%u iters=%u faults=%llu minflt=%lld wall_ms=%.1f "
	       "ns_per_fault=%.0f stime_ms=%.1f stime_ns_per_fault=%.0f utime_ms=%.1f high_kb=%llu "
	       "toptier_high_kb=%llu\n", what, on ? "on" : "off", nr, iters,
	       (unsigned long long)r->faults, r->minflt, r->wall_s * 1e3, cc_ns(r, nr),
	       r->stime_us / 1e3, cc_stime_ns(r), r->utime_us / 1e3,
	       (unsigned long long)(r->high >> 10), (unsigned long long)(r->toptier_high >> 10));
	fflush(stdout);
}

/* The premise of a run: all its faults taken, its limits never reached. */
static int cc_premise(const char *what, bool on, const struct cc_result *r)
{
	if (r->minflt >= (long long)r->faults && !r->high_events && !r->toptier_events &&
	    !r->demoted)
		return 0;
	msg("  %s option=%s: minflt %lld for %llu pages, memory.events high %llu toptier_high "
	    "%llu, pgdemote_toptier %llu", what, on ? "on" : "off", r->minflt,
	    (unsigned long long)r->faults, (unsigned long long)r->high_events,
	    (unsigned long long)r->toptier_events, (unsigned long long)r->demoted);
	return 1;
}

/* toptier-charge-cost: what memory_tiered_limits costs the charge path.
 * In a fresh cgroup whose memory.toptier_high is twice the working set (a
 * ceiling that is there and never reached), N threads ($TIERD_CHARGE_THREADS,
 * default: the online CPUs; run-vm --smp 4), each pinned to a CPU, map
 * 8 MB of private anonymous memory, write every page, unmap it,
 * $TIERD_CHARGE_ITERS times (64). kernel.numa_balancing is 0 meanwhile.
 * One warm-up run, then $TIERD_CHARGE_ROUNDS rounds (5) of one run with
 * the option off and one with it on, the order swapped every round.
 * ns_per_fault is the wall time of a run over the faults of one thread;
 * prints a CHARGECOST line per run, the mean per option and the on/off
 * ratios (CHARGECOST-RATIO: mean, min, max). A measurement: fails only
 * when a run cannot be set up or its premise does not hold (a fault per
 * page, no memory.high or top-tier event, nothing demoted). */
int case_toptier_charge_cost(const char *name)
{
	double ns[2][CC_MAX_ROUNDS], sns[2][CC_MAX_ROUNDS], ratio[CC_MAX_ROUNDS];
	double mean[2] = { 0, 0 }, smean[2] = { 0, 0 }, rmean = 0, rmin = 0, rmax = 0, smr = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int rounds, iters, threads, ret, i, k, bad = 0;
	char label[32], ratios[CC_MAX_ROUNDS * 16] = "";
	struct cc_result r;
	struct tt_env env;

	ret = tt_probe(false);
	if (ret)
		return ret;
	if (env_int("TIERD_CHARGE_ROUNDS", 5, 1, CC_MAX_ROUNDS, &rounds) < 0 ||
	    env_int("TIERD_CHARGE_ITERS", 64, 1, 100000, &iters) < 0 ||
	    env_int("TIERD_CHARGE_THREADS", ncpu > 0 ? (int)ncpu : 1, 1, 64, &threads) < 0)
		return 1;
	ret = tt_env_begin(&env);
	if (ret < 0)
		return 1;
	ret = tt_set(&env.numab, TT_NUMAB, "0");
	msg("  %d threads on %ld CPUs, %d x %d MB each per run; %d rounds off/on; cgroup2 options "
	    "\"%s\"; kernel.numa_balancing 0 (was %s)", threads, ncpu, iters, CC_MB, rounds,
	    env.opts, env.numab.val);
	if (ret == 0) {
		ret = cc_run(&env, false, threads, iters, &r);
		if (ret == 0)
			cc_print("warmup", false, threads, iters, &r);
	}
	for (i = 0; ret == 0 && i < rounds; i++) {
		for (k = 0; ret == 0 && k < 2; k++) {
			bool on = i % 2 ? !k : k;

			ret = cc_run(&env, on, threads, iters, &r);
			if (ret < 0)
				break;
			snprintf(label, sizeof(label), "round=%d", i + 1);
			cc_print(label, on, threads, iters, &r);
			bad += cc_premise(label, on, &r);
			ns[on][i] = cc_ns(&r, threads);
			sns[on][i] = cc_stime_ns(&r);
		}
		if (ret == 0) {
			ratio[i] = ns[0][i] > 0 ? ns[1][i] / ns[0][i] : 0.0;
			printf("CHARGECOST round=%d ratio_on_off=%.3f\n", i + 1, ratio[i]);
		}
	}
	tt_restore(&env);
	if (ret < 0) {
		msg("FAIL: %s: a run could not be set up", name);
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < 2; k++) {
			mean[k] += ns[k][i] / rounds;
			smean[k] += sns[k][i] / rounds;
		}
		rmean += ratio[i] / rounds;
		smr += (sns[0][i] > 0 ? sns[1][i] / sns[0][i] : 0.0) / rounds;
		if (!i || ratio[i] < rmin)
			rmin = ratio[i];
		if (!i || ratio[i] > rmax)
			rmax = ratio[i];
		snprintf(ratios + strlen(ratios), sizeof(ratios) - strlen(ratios), "%s%.3f",
			 i ? "," : "", ratio[i]);
	}
	for (k = 0; k < 2; k++)
		printf("CHARGECOST-MEAN option=%s ns_per_fault=%.0f stime_ns_per_fault=%.0f\n",
		       k ? "on" : "off", mean[k], smean[k]);
	printf("CHARGECOST-RATIO on/off mean=%.3f min=%.3f max=%.3f stime_mean=%.3f rounds=%d "
	       "threads=%d iters=%d ratios=%s\n", rmean, rmin, rmax, smr, rounds, threads, iters,
	       ratios);
	CHECK(!bad, "every run took a fault per page and reached neither memory.high nor its "
	      "top-tier ceiling (%d runs did not)", bad);
	if (failures)
		return verdict(name);
	msg("PASS: %s (a measurement)", name);
	return 0;
}

/* --- toptier-large-node --------------------------------------------------- */

#define LN_C_MB		32	/* C, the ceiling, and the size of A */
#define LN_W_MB		24	/* W, walked once, then read as a hot set */
#define LN_FREE_MB	1280	/* node 0 must have more free: pgdat_free_space_enough() */
#define LN_HOT_TH	"/sys/kernel/debug/sched/numa_balancing/hot_threshold_ms"
#define LN_OBSERVE	4.0	/* after the walk: the exchange is served a second later */
#define LN_HOT_LIMIT	120.0	/* the hot phase, at most */

struct ln_ctl {
	atomic_int phase;	/* parent -> child */
	atomic_int state;	/* child -> parent */
	char *a, *w;
	int err;
	char what[96];
};

enum { LN_READ_A = 1, LN_IDLE, LN_WALK, LN_READ_W, LN_STOP };
enum { LN_SETUP = 0, LN_READY, LN_WALKED, LN_FAILED };

#define LN_FAIL(x, e, ...) do {							\
	(x)->err = (e) ? (e) : -EIO;						\
	snprintf((x)->what, sizeof((x)->what), __VA_ARGS__);			\
	atomic_store(&(x)->state, LN_FAILED);					\
	_exit(1);								\
} while (0)

static void *ln_map_on(struct ln_ctl *x, int node, size_t len, const char *name)
{
	void *p;
	int ret;

	ret = policy_bind(node);
	if (ret < 0)
		LN_FAIL(x, ret, "set_mempolicy(MPOL_BIND, node %d)", node);
	p = map_private(len);
	if (!p)
		LN_FAIL(x, -errno, "mapping %s", name);
	dirty_pages(p, len);
	ret = policy_default();
	if (ret < 0)
		LN_FAIL(x, ret, "set_mempolicy(MPOL_DEFAULT)");
	return p;
}

/* The workload: A on the fast node, W on the slow one; reads A (LN_READ_A),
 * nothing (LN_IDLE), W once (LN_WALK, then LN_WALKED and nothing), W over and
 * over (LN_READ_W). */
static void __attribute__((noreturn)) ln_child(const char *cg, struct ln_ctl *x, size_t alen,
					       size_t wlen, pid_t parent)
{
	unsigned long sum = 0;
	int ret, phase;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	ret = cg_enter(cg);
	if (ret < 0)
		LN_FAIL(x, ret, "joining %.80s", cg);
	x->a = ln_map_on(x, FAST_NODE, alen, "A");
	x->w = ln_map_on(x, SLOW_NODE, wlen, "W");
	/* Drains the per-CPU LRU batches, where the last pages would stay
	 * unisolatable (see xc_child()). */
	move_to_node(x->w, wlen, SLOW_NODE);
	atomic_store(&x->state, LN_READY);
	for (;;) {
		phase = atomic_load(&x->phase);
		if (phase == LN_READ_A) {
			sum += touch_pages(x->a, alen);
		} else if (phase == LN_WALK) {
			sum += touch_pages(x->w, wlen);
			atomic_store(&x->state, LN_WALKED);
			while (atomic_load(&x->phase) == LN_WALK)
				sleep_sec(0.01);
		} else if (phase == LN_READ_W) {
			sum += touch_pages(x->w, wlen);
		} else if (phase == LN_IDLE) {
			sleep_sec(0.01);
		} else {
			break;
		}
	}
	_exit(sum == 1);
}

static int ln_wait(struct ln_ctl *x, pid_t *pid, int state, const char *what)
{
	double end = now_sec() + 60.0 * time_scale;
	int st, status;

	for (;;) {
		st = atomic_load(&x->state);
		if (st == LN_FAILED) {
			msg("workload: %s: %s", x->what, strerror(-x->err));
			return x->err;
		}
		if (st >= state)
			return 0;
		if (waitpid(*pid, &status, WNOHANG) == *pid) {
			*pid = -1;
			msg("workload died while %s (status 0x%x)", what, status);
			return -EIO;
		}
		if (now_sec() > end) {
			msg("workload: %s took more than %.0f s", what, 60.0 * time_scale);
			return -ETIMEDOUT;
		}
		sleep_sec(0.01);
	}
}

struct ln_result {
	uint64_t c, high;
	long a_pages, w_pages;
	long a_fast_before;	/* A's pages on the fast node before the walk */
	long a_fast_after;	/* ... LN_OBSERVE s after it */
	long w_fast_after;	/* W's pages on the fast node after the walk */
	long w_fast_hot;	/* ... at the end of the hot phase */
	uint64_t free_kb;	/* node 0's MemFree before the walk */
	unsigned int hot_th_ms;
	double idle_secs;	/* from the end of the marking to the walk */
	double mark_secs;	/* W fully marked after this long */
	double walk_secs;	/* the walk, as the workload saw it */
	double hot_secs;	/* W >= 90% fast after this long in the hot phase (-1) */
	uint64_t walk_pte;	/* numa_pte_updates while W was marked */
	struct xc_stat walk;	/* deltas over the walk and LN_OBSERVE after it */
	struct xc_stat hot;	/* deltas over the hot phase */
};

/* MemFree of NODE's meminfo in kB, 0 when it cannot be read. */
static uint64_t node_memfree_kb(int node)
{
	char path[64], line[256];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Prints free and high pages of node 0's zones (/proc/zoneinfo): which
 * of them is above pgdat_free_space_enough()'s 1 GiB mark. */
static void ln_print_zones(void)
{
	char line[256], zone[32] = "";
	unsigned long long v, freep = 0;
	bool node0 = false;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int node;

		if (sscanf(line, "Node %d, zone %31s", &node, zone) == 2) {
			node0 = node == FAST_NODE;
			continue;
		}
		if (!node0)
			continue;
		if (sscanf(line, " pages free %llu", &v) == 1)
			freep = v;
		else if (sscanf(line, " high %llu", &v) == 1 && freep)
			msg("  node %d zone %s: free %llu pages, high %llu", FAST_NODE, zone, freep, v);
	}
	fclose(f);
}

static void ln_delta(struct xc_stat *d, const struct xc_stat *s1, const struct xc_stat *s0)
{
	*d = *s1;
	for (int i = 0; i < NR_XK; i++)
		if (i != XK_TOPTIER)
			d->v[i] -= s0->v[i];
}

static int ln_run(struct ln_result *r)
{
	size_t alen = (size_t)LN_C_MB * MB, wlen = (size_t)LN_W_MB * MB;
	char parent[PATH_MAX], cg[PATH_MAX] = "", th[32];
	struct xc_stat s0, s;
	struct ln_ctl *x = NULL;
	pid_t pid = -1, self = getpid();
	uint64_t cand0 = 0, cand1 = 0;
	long present;
	double t0, t;
	int ret;

	memset(r, 0, sizeof(*r));
	r->hot_secs = -1;
	r->a_pages = alen / page_size;
	r->w_pages = wlen / page_size;
	r->hot_th_ms = 1000;
	if (read_attr(LN_HOT_TH, th, sizeof(th)) == 0)
		r->hot_th_ms = (unsigned int)strtoul(th, NULL, 10);
	ret = cg_create(NULL, "vmtest-toptier-large", parent, sizeof(parent));
	if (ret < 0) {
		msg("cannot create a cgroup: %s", strerror(-ret));
		return ret;
	}
	ret = cg_enable_memory(parent);
	if (ret == 0)
		ret = cg_create(parent, "workload", cg, sizeof(cg));
	if (ret < 0) {
		msg("cannot create cgroup %s/workload: %s", parent, strerror(-ret));
		cg[0] = '\0';
		goto out;
	}
	ret = set_toptier_high(cg, alen, &r->high, &r->c);
	if (ret < 0)
		goto out;
	msg("  cgroup %s: memory.high %llu kB, memory.toptier_high (C) %llu kB; A %d MB fast, "
	    "W %d MB slow; hot threshold %u ms", cg, (unsigned long long)(r->high >> 10),
	    (unsigned long long)(r->c >> 10), LN_C_MB, LN_W_MB, r->hot_th_ms);
	if (r->high < alen + wlen + 4 * MB) {
		msg("memory.high %llu kB leaves no room for A and W: the slow node is too small "
		    "(run-vm --mem-slow as large as --mem-fast)", (unsigned long long)(r->high >> 10));
		ret = -ENOSPC;
		goto out;
	}
	x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x == MAP_FAILED) {
		x = NULL;
		ret = -errno;
		goto out;
	}
	atomic_init(&x->phase, LN_READ_A);
	atomic_init(&x->state, LN_SETUP);
	ret = xc_stat_read(cg, &s0);
	if (ret < 0)
		goto out;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0)
		ln_child(cg, x, alen, wlen, self);
	ret = ln_wait(x, &pid, LN_READY, "setting up A and W");
	if (ret < 0)
		goto out;
	if (pages_on_node_pid(pid, x->w, wlen, SLOW_NODE, &present) < r->w_pages * 95 / 100 ||
	    pages_on_node_pid(pid, x->a, alen, FAST_NODE, NULL) < r->a_pages * 9 / 10) {
		msg("placement: A or W not where they were bound");
		ret = -ENOMEM;
		goto out;
	}

	/* The workload reads A: the cgroup settles at C, NUMA balancing marks
	 * W (the slow node's pages are the only ones a tiering-mode scan
	 * marks). Bounded: 60 s x time scale. */
	t0 = now_sec();
	for (;;) {
		sleep_sec(0.25);
		ret = xc_stat_read(cg, &s);
		if (ret < 0)
			goto out;
		t = now_sec();
		r->walk_pte = s.v[XK_PTE_UPDATES] - s0.v[XK_PTE_UPDATES];
		/* At C: A is C, and the few pages more are demoted. */
		if (s.v[XK_TOPTIER] <= r->c + MB && s.v[XK_TOPTIER] + MB >= r->c &&
		    r->walk_pte >= (uint64_t)r->w_pages)
			break;
		if (t - t0 > 60.0 * time_scale) {
			msg("after %.0f s: toptier %llu kB (C %llu kB), %llu of %ld pages of W marked",
			    t - t0, (unsigned long long)(s.v[XK_TOPTIER] >> 10),
			    (unsigned long long)(r->c >> 10), (unsigned long long)r->walk_pte,
			    r->w_pages);
			ret = -ETIMEDOUT;
			goto out;
		}
	}
	r->mark_secs = t - t0;
	/* Then nothing for longer than the hot threshold: the walk's hinting
	 * faults come later than that after the scan, W is not hot. */
	atomic_store(&x->phase, LN_IDLE);
	r->idle_secs = r->hot_th_ms / 1000.0 + 1.5;
	sleep_sec(r->idle_secs);
	r->free_kb = node_memfree_kb(FAST_NODE);
	r->a_fast_before = pages_on_node_pid(pid, x->a, alen, FAST_NODE, NULL);
	ret = xc_stat_read(cg, &s0);
	if (ret < 0)
		goto out;
	msg("  W marked after %.1f s (%llu PTE updates), toptier %llu kB; idle %.1f s; node %d "
	    "MemFree %llu kB; A %ld of %ld pages fast; walking W once", r->mark_secs,
	    (unsigned long long)r->walk_pte, (unsigned long long)(s0.v[XK_TOPTIER] >> 10),
	    r->idle_secs, FAST_NODE, (unsigned long long)r->free_kb, r->a_fast_before, r->a_pages);
	ln_print_zones();
	read_key_u64("/proc/vmstat", "pgpromote_candidate", &cand0);
	t0 = now_sec();
	atomic_store(&x->phase, LN_WALK);
	ret = ln_wait(x, &pid, LN_WALKED, "walking W");
	if (ret < 0)
		goto out;
	r->walk_secs = now_sec() - t0;
	read_key_u64("/proc/vmstat", "pgpromote_candidate", &cand1);
	msg("  pgpromote_candidate during the walk: %llu (counted on the full-node path only)",
	    (unsigned long long)(cand1 - cand0));
	sleep_sec(LN_OBSERVE);
	ret = xc_stat_read(cg, &s);
	if (ret < 0)
		goto out;
	ln_delta(&r->walk, &s, &s0);
	r->a_fast_after = pages_on_node_pid(pid, x->a, alen, FAST_NODE, NULL);
	r->w_fast_after = pages_on_node_pid(pid, x->w, wlen, FAST_NODE, NULL);
	msg("  walk: %.2f s; then %.0f s: hint faults %llu, refused %llu, demoted_exchange %llu, "
	    "promoted %llu; A %ld -> %ld of %ld pages fast, W %ld fast, toptier %llu kB",
	    r->walk_secs, LN_OBSERVE, (unsigned long long)r->walk.v[XK_HINT_FAULTS],
	    (unsigned long long)r->walk.v[XK_REFUSED], (unsigned long long)r->walk.v[XK_EXCHANGE],
	    (unsigned long long)r->walk.v[XK_PROMOTED], r->a_fast_before, r->a_fast_after,
	    r->a_pages, r->w_fast_after, (unsigned long long)(s.v[XK_TOPTIER] >> 10));

	/* The hot phase: W read over and over is hot, and the exchange brings
	 * it in at the ceiling on this node too. */
	s0 = s;
	t0 = now_sec();
	atomic_store(&x->phase, LN_READ_W);
	for (;;) {
		sleep_sec(0.5);
		t = now_sec();
		r->w_fast_hot = pages_on_node_pid(pid, x->w, wlen, FAST_NODE, NULL);
		if (r->w_fast_hot * 10 >= r->w_pages * 9) {
			r->hot_secs = t - t0;
			break;
		}
		if (t - t0 >= LN_HOT_LIMIT * time_scale)
			break;
	}
	ret = xc_stat_read(cg, &s);
	if (ret < 0)
		goto out;
	ln_delta(&r->hot, &s, &s0);
	msg("  hot W: %ld of %ld pages fast after %.1f s: refused %llu, demoted_exchange %llu, "
	    "promoted %llu, toptier %llu kB", r->w_fast_hot, r->w_pages, t - t0,
	    (unsigned long long)r->hot.v[XK_REFUSED], (unsigned long long)r->hot.v[XK_EXCHANGE],
	    (unsigned long long)r->hot.v[XK_PROMOTED], (unsigned long long)(s.v[XK_TOPTIER] >> 10));
	ret = 0;
out:
	if (x)
		atomic_store(&x->phase, LN_STOP);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (x)
		munmap(x, sizeof(*x));
	if (cg[0])
		tt_leak_check("toptier-large-node", parent, cg);
	cg_destroy(parent);
	return ret;
}

/* toptier-large-node: promotion at the ceiling when the fast node has
 * plenty of free memory (more than pgdat_free_space_enough()'s 1 GiB: boot
 * with run-vm --mem-fast 2304M --mem-slow 2304M), where NUMA balancing
 * promotes without its hot threshold. A cgroup at its top-tier ceiling C
 * (32 MB, A read on the fast node) walks W (24 MB on the slow node) once,
 * longer than the hot threshold after NUMA balancing marked it, then reads
 * W over and over. kernel.numa_balancing=2, demotion and toptier_exchange
 * on. Passes when
 *   the walk:  its hinting faults were taken (>= 90% of W), but no promotion
 *              was refused (pgpromote_refused_toptier counts hot pages only:
 *              at most 1% of W), nothing was demoted for an exchange, and A
 *              is still on the fast node (at most 1% of it moved) 4 s later;
 *   hot W:     >= 90% of W on the fast node within 120 s, through the
 *              exchange (pgdemote_toptier_exchange > 0);
 *   both:      the leak check.
 * Node 0 with less than 1280 MB free: a skip (77). Time bounds x time_scale.
 * Prints a LARGENODE line. */
int case_toptier_large_node(const char *name)
{
	struct ln_result r;
	struct tt_env env;
	uint64_t free_kb;
	int ret;

	ret = tt_probe(true);
	if (ret)
		return ret;
	free_kb = node_memfree_kb(FAST_NODE);
	if (free_kb < (uint64_t)LN_FREE_MB << 10) {
		msg("SKIP: node %d has %llu kB free, the case needs %d MB (pgdat_free_space_enough(): "
		    "1 GiB above the watermarks): run-vm --mem-fast 2304M --mem-slow 2304M", FAST_NODE,
		    (unsigned long long)free_kb, LN_FREE_MB);
		return EXIT_SKIP;
	}
	ret = tt_env_begin(&env);
	if (ret < 0)
		return 1;
	ret = tt_mount_tiered(&env, true);
	if (ret == 0)
		ret = tt_set(&env.numab, TT_NUMAB, "2");
	if (ret == 0)
		ret = tt_set(&env.demotion, TT_DEMOTION, "1");
	if (ret == 0)
		ret = tt_set(&env.exchange, TT_EXCHANGE, "1");
	if (ret == 0)
		ret = ln_run(&r);
	tt_restore(&env);
	if (ret < 0) {
		msg("FAIL: %s: the workload could not be set up", name);
		return 1;
	}
	printf("LARGENODE C_kb=%llu free_kb=%llu hot_th_ms=%u mark_secs=%.1f idle_secs=%.1f "
	       "walk_secs=%.2f walk_hint_faults=%llu walk_refused=%llu walk_exchange=%llu "
	       "walk_promoted=%llu a_fast_before=%ld a_fast_after=%ld a_pages=%ld w_pages=%ld "
	       "w_fast_after_walk=%ld hot_w_fast=%ld hot_secs=%.1f hot_refused=%llu "
	       "hot_exchange=%llu hot_promoted=%llu\n", (unsigned long long)(r.c >> 10),
	       (unsigned long long)r.free_kb, r.hot_th_ms, r.mark_secs, r.idle_secs, r.walk_secs,
	       (unsigned long long)r.walk.v[XK_HINT_FAULTS],
	       (unsigned long long)r.walk.v[XK_REFUSED], (unsigned long long)r.walk.v[XK_EXCHANGE],
	       (unsigned long long)r.walk.v[XK_PROMOTED], r.a_fast_before, r.a_fast_after,
	       r.a_pages, r.w_pages, r.w_fast_after, r.w_fast_hot, r.hot_secs,
	       (unsigned long long)r.hot.v[XK_REFUSED], (unsigned long long)r.hot.v[XK_EXCHANGE],
	       (unsigned long long)r.hot.v[XK_PROMOTED]);
	fflush(stdout);

	CHECK(r.free_kb >= (uint64_t)LN_FREE_MB << 10, "node %d had %llu kB free before the walk "
	      "(>= %d MB: NUMA balancing's free-space path)", FAST_NODE,
	      (unsigned long long)r.free_kb, LN_FREE_MB);
	CHECK(r.walk.v[XK_HINT_FAULTS] * 10 >= (uint64_t)r.w_pages * 9, "the walk took hinting "
	      "faults on W: %llu for %ld pages (>= 90%%)",
	      (unsigned long long)r.walk.v[XK_HINT_FAULTS], r.w_pages);
	CHECK(r.walk.v[XK_REFUSED] * 100 <= (uint64_t)r.w_pages, "the walk's pages, not hot, were "
	      "not refused (isolated and put back): pgpromote_refused_toptier %llu (<= 1%% of %ld)",
	      (unsigned long long)r.walk.v[XK_REFUSED], r.w_pages);
	CHECK(r.walk.v[XK_EXCHANGE] == 0, "the walk filed no exchange: pgdemote_toptier_exchange "
	      "%llu in the %.0f s after it", (unsigned long long)r.walk.v[XK_EXCHANGE], LN_OBSERVE);
	CHECK(r.a_fast_after * 100 >= r.a_fast_before * 99, "A stayed on the fast node: %ld -> %ld "
	      "of %ld pages", r.a_fast_before, r.a_fast_after, r.a_pages);
	CHECK(r.hot_secs >= 0, "hot W came to the fast node through the exchange: %ld of %ld pages "
	      "(>= 90%%) %s%.1f s", r.w_fast_hot, r.w_pages, r.hot_secs >= 0 ? "after " : "not in ",
	      r.hot_secs >= 0 ? r.hot_secs : LN_HOT_LIMIT * time_scale);
	CHECK(r.hot.v[XK_EXCHANGE] > 0, "hot W: pgdemote_toptier_exchange %llu > 0",
	      (unsigned long long)r.hot.v[XK_EXCHANGE]);
	return verdict(name);
}

/* --- toptier-demote-only -------------------------------------------------- */

#define DO_ANON_MB	32	/* the workload's anonymous memory, on the fast node */
#define DO_FILE_MAX_MB	16	/* and up to this much page cache of DO_FILE */
#define DO_C_MB		6	/* its top-tier ceiling: far below both */
#define DO_WATCH	5.0	/* demotion disabled: watched this long */
#define DO_ZRAM		"/sys/block/zram0/disksize"
/* A file of the host's root (read-only 9p, cache=loose: its page cache is
 * clean and droppable), there whenever run-vm runs. */
#define DO_FILE		"/usr/bin/qemu-system-x86_64"

static const char *const do_keys[] = {
	"toptier", "anon", "file", "pgsteal_direct", "pgsteal_kswapd", "pgscan_direct",
	"pgdemote_toptier",
};

enum { DK_TOPTIER, DK_ANON, DK_FILE, DK_STEAL_D, DK_STEAL_K, DK_SCAN_D, DK_DEMOTE, NR_DK };

struct do_stat {
	uint64_t v[NR_DK];
	uint64_t found;
	uint64_t swap_current;		/* memory.swap.current */
	uint64_t pswpout;		/* /proc/vmstat */
	uint64_t demote_fail;		/* memory.events toptier_demote_fail */
};

static int do_stat_read(const char *cg, struct do_stat *s)
{
	char path[PATH_MAX];
	int ret;

	memset(s, 0, sizeof(*s));
	if (snprintf(path, sizeof(path), "%s/memory.stat", cg) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = read_keys_u64(path, do_keys, NR_DK, s->v, &s->found);
	if (ret == 0)
		ret = cg_read_u64(cg, "memory.swap.current", &s->swap_current);
	if (ret == 0)
		ret = read_key_u64("/proc/vmstat", "pswpout", &s->pswpout);
	s->demote_fail = cg_key(cg, "memory.events", "toptier_demote_fail", NULL);
	return ret;
}

/* Swap on zram0 (256 MB): 0, or the exit status with the reason printed. */
static int do_swap_on(void)
{
	int ret;

	if (access(DO_ZRAM, F_OK) < 0) {
		msg("SKIP: no swap: the kernel has no zram0 (CONFIG_ZRAM), and the VM no other "
		    "swap device (a swap file on tmpfs cannot be used)");
		return EXIT_SKIP;
	}
	ret = write_attr(DO_ZRAM, "256M");
	if (ret == 0 && system("mkswap /dev/zram0 >/dev/null 2>&1 || "
			       "busybox mkswap /dev/zram0 >/dev/null 2>&1"))
		ret = -EIO;
	if (ret == 0 && swapon("/dev/zram0", 0) < 0)
		ret = -errno;
	if (ret < 0) {
		msg("FAIL: swap on zram0: %s", strerror(-ret));
		return 1;
	}
	return 0;
}

/* The workload, in CG: DO_ANON_MB of anonymous memory and DO_FILE's page
 * cache (up to DO_FILE_MAX_MB), both on the fast node; then it sleeps
 * until killed, reading nothing. Writes 0 or -errno to FD when ready. */
static void __attribute__((noreturn)) do_child(const char *cg, int fd)
{
	size_t len = (size_t)DO_ANON_MB * MB, flen = (size_t)DO_FILE_MAX_MB * MB;
	char *buf = NULL;
	int ret, f = -1;
	ssize_t n;
	void *p;

	/* The default policy: the CPUs' node, the fast one, first (a bind
	 * would OOM a debug kernel's small fast node, KASAN taking much). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = cg_enter(cg);
	if (ret == 0) {
		p = map_private(len);
		if (!p)
			ret = -errno;
		else
			dirty_pages(p, len);
	}
	if (ret == 0) {
		f = open(DO_FILE, O_RDONLY | O_CLOEXEC);
		buf = malloc(1 << 16);
		if (f < 0 || !buf)
			ret = f < 0 ? -errno : -ENOMEM;
	}
	if (ret == 0) {
		/* Out of the page cache first, so that the pages read are
		 * charged to this cgroup. */
		posix_fadvise(f, 0, 0, POSIX_FADV_DONTNEED);
		while (flen > 0 && (n = read(f, buf, 1 << 16)) > 0)
			flen -= (size_t)n < flen ? (size_t)n : flen;
	}
	n = write(fd, &ret, sizeof(ret));
	for (;;)
		pause();
}

/* The top tier must be at most 1/8 of the memory (memory.high above what
 * the workload uses, a top-tier ceiling far below): 0, or EXIT_SKIP with
 * the reason printed. */
static int do_small_top_tier(void)
{
	uint64_t fast_kb = 0, total_kb = 0;

	if (tier_capacity(&fast_kb, &total_kb) < 0 || fast_kb * 8 > total_kb) {
		msg("SKIP: the top tier is %llu of %llu kB: the case needs at most 1/8 (run-vm "
		    "--mem-slow 2304M)", (unsigned long long)fast_kb, (unsigned long long)total_kb);
		return EXIT_SKIP;
	}
	return 0;
}

/* The setup toptier-demote-only and toptier-offline share: cgroup2 with
 * memory_tiered_limits, NUMA balancing and demotion off (saved in ENV),
 * the cgroup PARENT_NAME/workload (paths in PARENT and CG, PATH_MAX each)
 * with do_child()'s workload in it, ready (*PID). 0 or -errno; whatever
 * was set up is in ENV, PARENT, CG and *PID for the caller to undo. */
static int do_start(struct tt_env *env, const char *parent_name, char *parent, char *cg,
		    pid_t *pid)
{
	int fds[2], ret, child_ret = 0;

	ret = tt_mount_tiered(env, true);
	if (ret == 0)
		ret = tt_set(&env->numab, TT_NUMAB, "0");
	if (ret == 0)
		ret = tt_set(&env->demotion, TT_DEMOTION, "0");
	if (ret == 0)
		ret = cg_create(NULL, parent_name, parent, PATH_MAX);
	if (ret < 0)
		return ret;
	ret = cg_enable_memory(parent);
	if (ret == 0)
		ret = cg_create(parent, "workload", cg, PATH_MAX);
	if (ret < 0) {
		cg[0] = '\0';
		return ret;
	}
	if (pipe(fds) < 0)
		return -errno;
	fflush(stdout);
	*pid = fork();
	if (*pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (*pid == 0)
		do_child(cg, fds[1]);
	/* A workload that dies closes the last write end: read() returns. */
	close(fds[1]);
	if (read(fds[0], &child_ret, sizeof(child_ret)) != sizeof(child_ret) || child_ret < 0) {
		msg("workload: %s", strerror(child_ret < 0 ? -child_ret : EIO));
		ret = -EIO;
	}
	close(fds[0]);
	return ret;
}

/* toptier-demote-only: the ceiling's reclaim only demotes. Swap on zram0,
 * kernel.numa_balancing 0, cgroup2 with memory_tiered_limits, the top tier
 * at most 1/8 of the memory (run-vm --mem-slow 2304M; else a skip). A cgroup
 * holds 32 MB of anonymous memory and up to 16 MB of page cache (of a file
 * on the 9p root, clean), allocated where its CPUs are, on the fast node;
 * its ceiling is set to 6 MB, its
 * memory.high (about 60 MB) above its usage.
 * With /sys/kernel/mm/numa/demotion_enabled 0, for 5 s: the ceiling acts
 * (toptier_demote_fail > 0) but nothing is swapped (memory.swap.current 0,
 * pswpout unchanged) or reclaimed (pgsteal 0, anon and file unchanged).
 * Then demotion_enabled 1 and the ceiling written again: toptier comes down
 * to the ceiling within 20 s, still without swap, anon and file unchanged
 * (the pages moved to the slow node). Prints a DEMOTEONLY line per part. */
int case_toptier_demote_only(const char *name)
{
	struct do_stat s0, s1, s2;
	uint64_t high, c, slack = MB;
	char parent[PATH_MAX] = "", cg[PATH_MAX] = "", buf[32];
	struct tt_env env;
	double t0, t = 0;
	pid_t pid = -1;
	int ret;

	ret = tt_probe(false);
	if (ret)
		return ret;
	ret = do_small_top_tier();
	if (ret)
		return ret;
	ret = do_swap_on();
	if (ret)
		return ret;
	ret = tt_env_begin(&env);
	if (ret < 0)
		return 1;
	ret = do_start(&env, "vmtest-toptier-demote-only", parent, cg, &pid);
	if (ret < 0)
		goto out;
	lru_drain_all();
	ret = do_stat_read(cg, &s0);
	if (ret < 0)
		goto out;
	if (s0.v[DK_TOPTIER] < 4 * (uint64_t)DO_C_MB * MB) {
		msg("SKIP: the fast node had no room for the workload: toptier %llu kB (a debug "
		    "kernel needs a larger fast node: run-vm --mem-fast 1024M --mem-slow 7168M)",
		    (unsigned long long)(s0.v[DK_TOPTIER] >> 10));
		ret = EXIT_SKIP;
		goto out;
	}
	msg("  workload: toptier %llu kB, anon %llu kB, file %llu kB, swap %llu kB; demotion "
	    "disabled; ceiling to %d MB", (unsigned long long)(s0.v[DK_TOPTIER] >> 10),
	    (unsigned long long)(s0.v[DK_ANON] >> 10), (unsigned long long)(s0.v[DK_FILE] >> 10),
	    (unsigned long long)(s0.swap_current >> 10), DO_C_MB);
	ret = set_toptier_high(cg, (uint64_t)DO_C_MB * MB, &high, &c);
	if (ret < 0)
		goto out;
	msg("  memory.high %llu kB, memory.toptier_high %llu kB", (unsigned long long)(high >> 10),
	    (unsigned long long)(c >> 10));
	if (high < (uint64_t)(DO_ANON_MB + DO_FILE_MAX_MB + 4) * MB) {
		msg("memory.high below the workload's usage: the top tier is too large a share");
		ret = -ERANGE;
		goto out;
	}
	sleep_sec(DO_WATCH);
	ret = do_stat_read(cg, &s1);
	if (ret < 0)
		goto out;
	printf("DEMOTEONLY part=disabled C_kb=%llu toptier_kb=%llu->%llu anon_kb=%llu->%llu "
	       "file_kb=%llu->%llu swap_kb=%llu pswpout=%llu pgsteal=%llu pgscan_direct=%llu "
	       "demote_fail=%llu\n", (unsigned long long)(c >> 10),
	       (unsigned long long)(s0.v[DK_TOPTIER] >> 10),
	       (unsigned long long)(s1.v[DK_TOPTIER] >> 10),
	       (unsigned long long)(s0.v[DK_ANON] >> 10), (unsigned long long)(s1.v[DK_ANON] >> 10),
	       (unsigned long long)(s0.v[DK_FILE] >> 10), (unsigned long long)(s1.v[DK_FILE] >> 10),
	       (unsigned long long)(s1.swap_current >> 10),
	       (unsigned long long)(s1.pswpout - s0.pswpout),
	       (unsigned long long)(s1.v[DK_STEAL_D] + s1.v[DK_STEAL_K] - s0.v[DK_STEAL_D] -
				    s0.v[DK_STEAL_K]),
	       (unsigned long long)(s1.v[DK_SCAN_D] - s0.v[DK_SCAN_D]),
	       (unsigned long long)(s1.demote_fail - s0.demote_fail));

	/* Demotion on again: the same ceiling, written again to start the
	 * worker at once. */
	ret = tt_set(&env.demotion, TT_DEMOTION, "1");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)high);
	if (ret == 0)
		ret = cg_write(cg, "memory.high", buf);
	if (ret < 0)
		goto out;
	t0 = now_sec();
	do {
		sleep_sec(0.25);
		ret = do_stat_read(cg, &s2);
		if (ret < 0)
			goto out;
		t = now_sec() - t0;
	} while (s2.v[DK_TOPTIER] > c + slack && t < 20.0 * time_scale);
	printf("DEMOTEONLY part=enabled secs=%.1f toptier_kb=%llu anon_kb=%llu file_kb=%llu "
	       "swap_kb=%llu pswpout=%llu pgdemote_toptier=%llu\n", t,
	       (unsigned long long)(s2.v[DK_TOPTIER] >> 10),
	       (unsigned long long)(s2.v[DK_ANON] >> 10), (unsigned long long)(s2.v[DK_FILE] >> 10),
	       (unsigned long long)(s2.swap_current >> 10),
	       (unsigned long long)(s2.pswpout - s0.pswpout),
	       (unsigned long long)(s2.v[DK_DEMOTE] - s0.v[DK_DEMOTE]));
	fflush(stdout);
	ret = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (cg[0])
		tt_leak_check("toptier-demote-only", parent, cg);
	if (parent[0])
		cg_destroy(parent);
	tt_restore(&env);
	swapoff("/dev/zram0");
	if (ret == EXIT_SKIP)
		return ret;
	if (ret < 0) {
		msg("FAIL: %s: the workload could not be set up: %s", name, strerror(-ret));
		return 1;
	}

	CHECK(s0.v[DK_FILE] >= 4 * MB, "the workload has page cache to drop: file %llu kB "
	      "(>= 4 MB of %s)", (unsigned long long)(s0.v[DK_FILE] >> 10), DO_FILE);
	CHECK(s1.demote_fail > s0.demote_fail, "demotion disabled: the ceiling acted and failed "
	      "(toptier_demote_fail %llu -> %llu)", (unsigned long long)s0.demote_fail,
	      (unsigned long long)s1.demote_fail);
	CHECK(s1.swap_current == 0 && s1.pswpout == s0.pswpout, "demotion disabled: nothing "
	      "swapped: memory.swap.current %llu, pswpout +%llu",
	      (unsigned long long)s1.swap_current, (unsigned long long)(s1.pswpout - s0.pswpout));
	CHECK(s1.v[DK_STEAL_D] + s1.v[DK_STEAL_K] == s0.v[DK_STEAL_D] + s0.v[DK_STEAL_K],
	      "demotion disabled: nothing reclaimed: pgsteal +%llu",
	      (unsigned long long)(s1.v[DK_STEAL_D] + s1.v[DK_STEAL_K] - s0.v[DK_STEAL_D] -
				   s0.v[DK_STEAL_K]));
	CHECK(s1.v[DK_FILE] >= s0.v[DK_FILE] && s1.v[DK_ANON] >= s0.v[DK_ANON],
	      "demotion disabled: file %llu -> %llu kB, anon %llu -> %llu kB (none dropped)",
	      (unsigned long long)(s0.v[DK_FILE] >> 10), (unsigned long long)(s1.v[DK_FILE] >> 10),
	      (unsigned long long)(s0.v[DK_ANON] >> 10), (unsigned long long)(s1.v[DK_ANON] >> 10));
	CHECK(s2.v[DK_TOPTIER] <= c + slack, "demotion enabled: toptier %llu kB <= C %llu kB + "
	      "1 MB after %.1f s", (unsigned long long)(s2.v[DK_TOPTIER] >> 10),
	      (unsigned long long)(c >> 10), t);
	CHECK(s2.swap_current == 0 && s2.pswpout == s0.pswpout && s2.v[DK_FILE] >= s0.v[DK_FILE],
	      "demotion enabled: demoted, not swapped or dropped: swap %llu kB, pswpout +%llu, "
	      "file %llu -> %llu kB", (unsigned long long)(s2.swap_current >> 10),
	      (unsigned long long)(s2.pswpout - s0.pswpout),
	      (unsigned long long)(s0.v[DK_FILE] >> 10), (unsigned long long)(s2.v[DK_FILE] >> 10));
	return verdict(name);
}

/* --- toptier-offline ------------------------------------------------------ */

#define OF_SETTLE	1.5	/* after the rmdir: a pass already queued may run */
#define OF_WATCH	4.0	/* the parent's toptier_demote_fail watched this long */
#define OF_GIVEUP	20.0	/* the worker must have given up within this */
#define OF_QUIET	2.5	/* ... seen as no new toptier_demote_fail for this */

/* toptier-offline: a removed cgroup is not held to its ceiling any more.
 * The setup of toptier-demote-only (demotion disabled, so that every pass of
 * the ceiling's worker fails, counts toptier_demote_fail and retries within
 * a second); the workload exits, its page cache stays charged to the cgroup
 * above the ceiling: the worker fails, counted in the parent's
 * (hierarchical) memory.events, and gives up after a few futile passes
 * (about 6 s; nothing charges, nothing asks for an exchange): no new
 * toptier_demote_fail for OF_QUIET s, within OF_GIVEUP s. A write to
 * memory.high (the same value) starts it over. Then the cgroup is removed: from then on
 * the parent's toptier_demote_fail stays where it is (an offline cgroup has
 * no ceiling of its own; its ancestors' hold its pages), and the removed
 * cgroup's pages still count in the parent's toptier. Prints an OFFLINE
 * line. */
int case_toptier_offline(const char *name)
{
	uint64_t high, c, zombie_tt = 0, parent_tt = 0;
	uint64_t f0 = 0, f1 = 0, f2 = 0, f3 = 0, g0 = 0, g1 = 0, r1 = 0;
	double gave_up = -1, t_fail;
	char hbuf[32];
	char parent[PATH_MAX] = "", cg[PATH_MAX] = "";
	bool removed = false, failing = false;
	struct tt_env env;
	pid_t pid = -1;
	double t0;
	int ret;

	ret = tt_probe(false);
	if (ret)
		return ret;
	ret = do_small_top_tier();
	if (ret)
		return ret;
	ret = tt_env_begin(&env);
	if (ret < 0)
		return 1;
	ret = do_start(&env, "vmtest-toptier-offline", parent, cg, &pid);
	if (ret < 0)
		goto out;
	ret = set_toptier_high(cg, (uint64_t)DO_C_MB * MB, &high, &c);
	if (ret < 0)
		goto out;
	/* The workload's anonymous memory goes with it; its page cache stays
	 * charged to the cgroup, on the fast node, above the ceiling. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pid = -1;
	lru_drain_all();
	zombie_tt = cg_key(cg, "memory.stat", "toptier", NULL);
	if (zombie_tt <= c + MB) {
		msg("SKIP: the workload left %llu kB on the top tier, not above its %llu kB "
		    "ceiling: nothing to hold", (unsigned long long)(zombie_tt >> 10),
		    (unsigned long long)(c >> 10));
		ret = EXIT_SKIP;
		goto out;
	}
	/* Online: the worker fails and retries, counted in the parent too. */
	f0 = cg_key(parent, "memory.events", "toptier_demote_fail", NULL);
	sleep_sec(OF_WATCH);
	f1 = cg_key(parent, "memory.events", "toptier_demote_fail", NULL);
	failing = f1 > f0;
	/* Gives up: no new failure for OF_QUIET s. */
	t0 = now_sec();
	g0 = f1;
	t_fail = t0;
	while (now_sec() - t0 < OF_GIVEUP) {
		sleep_sec(0.5);
		g1 = cg_key(parent, "memory.events", "toptier_demote_fail", NULL);
		if (g1 != g0) {
			g0 = g1;
			t_fail = now_sec();
		} else if (now_sec() - t_fail >= OF_QUIET) {
			gave_up = t_fail - t0;
			break;
		}
	}
	/* A limit write starts it over. */
	snprintf(hbuf, sizeof(hbuf), "%llu", (unsigned long long)high);
	if (cg_write(cg, "memory.high", hbuf) == 0) {
		sleep_sec(1.5);
		r1 = cg_key(parent, "memory.events", "toptier_demote_fail", NULL);
	}
	ret = cg_destroy(cg);
	if (ret < 0)
		goto out;
	removed = true;
	sleep_sec(OF_SETTLE);
	f2 = cg_key(parent, "memory.events", "toptier_demote_fail", NULL);
	t0 = now_sec();
	sleep_sec(OF_WATCH);
	f3 = cg_key(parent, "memory.events", "toptier_demote_fail", NULL);
	parent_tt = cg_key(parent, "memory.stat", "toptier", NULL);
	printf("OFFLINE C_kb=%llu removed_toptier_kb=%llu parent_toptier_kb=%llu "
	       "demote_fail_online=%llu->%llu demote_fail_offline=%llu->%llu secs=%.1f\n",
	       (unsigned long long)(c >> 10), (unsigned long long)(zombie_tt >> 10),
	       (unsigned long long)(parent_tt >> 10), (unsigned long long)f0,
	       (unsigned long long)f1, (unsigned long long)f2, (unsigned long long)f3,
	       now_sec() - t0);
	printf("OFFLINE gave_up_after_s=%.1f demote_fail_at_giveup=%llu after_limit_write=%llu\n",
	       gave_up, (unsigned long long)g0, (unsigned long long)r1);
	fflush(stdout);
	ret = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (cg[0] && !removed)
		cg_destroy(cg);
	tt_restore(&env);
	/* The removed cgroup's page cache: dropped, so that it can go. */
	write_attr("/proc/sys/vm/drop_caches", "3");
	if (parent[0])
		cg_destroy(parent);
	if (ret == EXIT_SKIP)
		return ret;
	if (ret < 0) {
		msg("FAIL: %s: the workload could not be set up: %s", name, strerror(-ret));
		return 1;
	}
	CHECK(failing, "online, above its ceiling with demotion disabled, the cgroup's worker "
	      "retried (parent's toptier_demote_fail %llu -> %llu in %.0f s)",
	      (unsigned long long)f0, (unsigned long long)f1, OF_WATCH);
	CHECK(gave_up >= 0, "online, the worker gave up: no new toptier_demote_fail for %.1f s "
	      "within %.0f s (%llu at the last)", OF_QUIET, OF_GIVEUP, (unsigned long long)g0);
	CHECK(r1 > g0, "a memory.high write starts the worker over (toptier_demote_fail "
	      "%llu -> %llu)", (unsigned long long)g0, (unsigned long long)r1);
	CHECK(f3 == f2, "removed, the cgroup is held to no ceiling: parent's toptier_demote_fail "
	      "%llu -> %llu in %.0f s", (unsigned long long)f2, (unsigned long long)f3, OF_WATCH);
	CHECK(parent_tt >= zombie_tt - MB, "the removed cgroup's pages still count in the "
	      "parent's toptier: %llu kB (the removed cgroup had %llu kB)",
	      (unsigned long long)(parent_tt >> 10), (unsigned long long)(zombie_tt >> 10));
	return verdict(name);
}
