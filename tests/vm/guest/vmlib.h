/* vmlib.h: helpers of the guest test programs run inside the two-tier VM.
 *
 * Everything here runs as root in the VM booted by tests/vm/run-vm: node 0
 * has the CPUs and the fast memory, node 1 is memory-only and in a lower
 * memory tier. Functions return 0 or a negative errno.
 */
#ifndef TIERD_VMLIB_H
#define TIERD_VMLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FAST_NODE	0
#define SLOW_NODE	1
#define CG_ROOT		"/sys/fs/cgroup"
#define KNOB		"memory.numa_balancing"

/* Skip: the kernel or the VM lacks something the test needs. */
#define EXIT_SKIP	77

extern size_t page_size;
/* Set from $TIERD_VM_MATRIX: a missing feature is reported, not skipped. */
extern bool matrix_mode;
/* Multiplies the cases' time bounds (run-vm --time-scale). */
extern unsigned int time_scale;

#define msg(...)	do { printf(__VA_ARGS__); putchar('\n'); fflush(stdout); } while (0)

/* Checks of a case: CHECK() prints "ok:" or "FAILED:" and the message and
 * counts the failures; verdict() prints PASS or FAIL and returns the exit
 * status. */
extern int failures;

#define CHECK(cond, ...) do {							\
	if (cond) {								\
		printf("  ok: ");						\
	} else {								\
		printf("  FAILED: ");						\
		failures++;							\
	}									\
	msg(__VA_ARGS__);							\
} while (0)

int verdict(const char *name);

/* The integer in the environment variable NAME, DEF when it is unset;
 * -EINVAL (with a FAIL line) when it is not a number in MIN..MAX. */
int env_int(const char *name, int def, int min, int max, int *ret);

/* sysfs/procfs attribute I/O: one read() or write(), newline stripped. */
int read_attr(const char *path, char *buf, size_t size);
int write_attr(const char *path, const char *val);

/* Starts the real tierd (BIN) with --config CONF and no systemd, system bus
 * or proc connector, -v, its stdout and stderr in LOG (opened with
 * O_WRONLY | O_CREAT | LOG_FLAGS: O_APPEND or O_TRUNC).  The child's pid. */
pid_t vm_tierd_spawn(const char *bin, const char *conf, const char *log, int log_flags);
int read_attr_u64(const char *path, uint64_t *ret);
/* The value of KEY in a "key value" per line file (vmstat, memory.stat). */
int read_key_u64(const char *path, const char *key, uint64_t *ret);
/* NR keys of such a file in one pass: VALS[i] is KEYS[i]'s value, left
 * alone when the key is missing; bit i of *RET_FOUND (when not NULL) says
 * whether it was found. NR <= 64. */
int read_keys_u64(const char *path, const char *const *keys, unsigned int nr, uint64_t *vals,
		  uint64_t *ret_found);

int set_numa_balancing(int mode);

/* Counters named in design.md ("Counters that show behaviour"). */
enum counter {
	C_NUMA_PTE_UPDATES,
	C_NUMA_PROMO_PTE_UPDATES,	/* the series: the promotion-only part */
	C_NUMA_HINT_FAULTS,
	C_NUMA_HINT_FAULTS_LOCAL,
	C_NUMA_PAGES_MIGRATED,
	C_PGPROMOTE_SUCCESS,
	C_PGPROMOTE_CANDIDATE,
	C_PGDEMOTE_KSWAPD,
	C_PGDEMOTE_DIRECT,
	NR_COUNTERS,
};

struct counters {
	uint64_t v[NR_COUNTERS];
};

extern const char *const counter_names[NR_COUNTERS];

/* Missing keys read as 0 (memory.stat has only some of them). */
int vmstat_read(struct counters *ret);
int cg_stat_read(const char *cg, struct counters *ret);
void counters_sub(struct counters *a, const struct counters *b);

/* cgroups under /sys/fs/cgroup, with the memory controller. */
int cg_create(const char *parent, const char *name, char *ret_path, size_t size);
int cg_destroy(const char *path);
int cg_enable_memory(const char *path);
int cg_enter(const char *path);
int cg_write(const char *cg, const char *file, const char *val);
int cg_read(const char *cg, const char *file, char *buf, size_t size);
bool cg_has_knob(const char *cg);
int cg_set_knob(const char *cg, const char *mode);

/* Memory placement through the raw syscalls (no libnuma). */
int policy_bind(int node);
int policy_default(void);
/* Pages of [addr, addr+len) on NODE (query only; not-present pages do not
 * count). ret_present gets the number of present pages when not NULL. */
long pages_on_node(const void *addr, size_t len, int node, long *ret_present);
/* The same for the range at ADDR in process PID's address space (0: the
 * caller's). */
long pages_on_node_pid(pid_t pid, const void *addr, size_t len, int node, long *ret_present);
/* Migrates the present pages of [addr, addr+len) to NODE. */
int move_to_node(void *addr, size_t len, int node);
/* Drains every CPU's per-CPU LRU batches (folios held there are neither
 * freed nor isolatable until then): a move_pages() of one page of the
 * caller's to the node it is on. */
int lru_drain_all(void);
/* Read one byte of every page; returns a sum so it is not optimised out. */
unsigned long touch_pages(const void *addr, size_t len);
void dirty_pages(void *addr, size_t len);

double now_sec(void);
void sleep_sec(double s);

/* The "KEY:  N kB" value of /proc/self/smaps for the VMA that contains
 * ADDR (e.g. "AnonHugePages"), in kB, or a negative errno. */
long smaps_vma_kb(const void *addr, const char *key);

/* The value of "KEY : N" in /proc/self/sched (CONFIG_SCHED_DEBUG only;
 * e.g. "mm->numa_scan_seq"), or a negative errno (-ENOENT without it). */
long long proc_sched_value(const char *key);

/* Which tier a node is in: the memory_tierN id, or a negative errno. */
int node_tier(int node);

#endif
