/* vmlib.c: helpers of the guest test programs (see vmlib.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include "vmlib.h"

size_t page_size = 4096;
bool matrix_mode;
unsigned int time_scale = 1;
int failures;

const char *const counter_names[NR_COUNTERS] = {
	[C_NUMA_PTE_UPDATES]		= "numa_pte_updates",
	[C_NUMA_PROMO_PTE_UPDATES]	= "numa_promo_pte_updates",
	[C_NUMA_HINT_FAULTS]		= "numa_hint_faults",
	[C_NUMA_HINT_FAULTS_LOCAL]	= "numa_hint_faults_local",
	[C_NUMA_PAGES_MIGRATED]		= "numa_pages_migrated",
	[C_PGPROMOTE_SUCCESS]		= "pgpromote_success",
	[C_PGPROMOTE_CANDIDATE]		= "pgpromote_candidate",
	[C_PGDEMOTE_KSWAPD]		= "pgdemote_kswapd",
	[C_PGDEMOTE_DIRECT]		= "pgdemote_direct",
};

int read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

int write_attr(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

static int parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	if (end == s || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*ret = v;
	return 0;
}

int read_attr_u64(const char *path, uint64_t *ret)
{
	char buf[64];
	int r;

	r = read_attr(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_u64(buf, ret);
}

/* Calls fn(key, value) for each "key value" line of PATH. */
static int for_each_key(const char *path, void (*fn)(const char *, uint64_t, void *), void *data)
{
	char line[256];
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		uint64_t v;

		if (!sp)
			continue;
		*sp = '\0';
		if (parse_u64(sp + 1, &v) == 0)
			fn(line, v, data);
	}
	fclose(f);
	return 0;
}

struct key_lookup {
	const char *key;
	uint64_t val;
	bool found;
};

static void match_key(const char *key, uint64_t v, void *data)
{
	struct key_lookup *k = data;

	if (!strcmp(key, k->key)) {
		k->val = v;
		k->found = true;
	}
}

int read_key_u64(const char *path, const char *key, uint64_t *ret)
{
	struct key_lookup k = { .key = key };
	int r;

	r = for_each_key(path, match_key, &k);
	if (r < 0)
		return r;
	if (!k.found)
		return -ENOENT;
	*ret = k.val;
	return 0;
}

struct keys_lookup {
	const char *const *keys;
	unsigned int nr;
	uint64_t *vals;
	uint64_t found;
};

static void match_keys(const char *key, uint64_t v, void *data)
{
	struct keys_lookup *k = data;
	unsigned int i;

	for (i = 0; i < k->nr; i++) {
		if (!strcmp(key, k->keys[i])) {
			k->vals[i] = v;
			k->found |= 1ULL << i;
		}
	}
}

int read_keys_u64(const char *path, const char *const *keys, unsigned int nr, uint64_t *vals,
		  uint64_t *ret_found)
{
	struct keys_lookup k = { .keys = keys, .nr = nr, .vals = vals };
	int r;

	if (nr > 64)
		return -EINVAL;
	r = for_each_key(path, match_keys, &k);
	if (r < 0)
		return r;
	if (ret_found)
		*ret_found = k.found;
	return 0;
}

static void match_counter(const char *key, uint64_t v, void *data)
{
	struct counters *c = data;
	int i;

	for (i = 0; i < NR_COUNTERS; i++)
		if (!strcmp(key, counter_names[i]))
			c->v[i] = v;
}

int vmstat_read(struct counters *ret)
{
	struct counters c = { { 0 } };
	int r;

	r = for_each_key("/proc/vmstat", match_counter, &c);
	if (r < 0)
		return r;
	*ret = c;
	return 0;
}

int cg_stat_read(const char *cg, struct counters *ret)
{
	struct counters c = { { 0 } };
	char path[PATH_MAX];
	int r;

	if (snprintf(path, sizeof(path), "%s/memory.stat", cg) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	r = for_each_key(path, match_counter, &c);
	if (r < 0)
		return r;
	*ret = c;
	return 0;
}

void counters_sub(struct counters *a, const struct counters *b)
{
	int i;

	for (i = 0; i < NR_COUNTERS; i++)
		a->v[i] -= b->v[i];
}

int set_numa_balancing(int mode)
{
	char val[16];

	snprintf(val, sizeof(val), "%d", mode);
	return write_attr("/proc/sys/kernel/numa_balancing", val);
}

static int cg_path(const char *cg, const char *file, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/%s", cg, file) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

int cg_write(const char *cg, const char *file, const char *val)
{
	char path[PATH_MAX];
	int r;

	r = cg_path(cg, file, path, sizeof(path));
	return r < 0 ? r : write_attr(path, val);
}

int cg_read(const char *cg, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r;

	r = cg_path(cg, file, path, sizeof(path));
	return r < 0 ? r : read_attr(path, buf, size);
}

int cg_create(const char *parent, const char *name, char *ret_path, size_t size)
{
	char path[PATH_MAX];
	int r;

	r = cg_path(parent ? parent : CG_ROOT, name, path, sizeof(path));
	if (r < 0)
		return r;
	if (strlen(path) >= size)
		return -ENAMETOOLONG;
	cg_destroy(path);
	if (mkdir(path, 0755) < 0)
		return -errno;
	strcpy(ret_path, path);
	return 0;
}

/* Removes PATH and its children, moving their processes to the root. */
int cg_destroy(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) < (int)sizeof(sub))
			cg_destroy(sub);
	}
	closedir(d);
	return rmdir(path) < 0 ? -errno : 0;
}

int cg_enable_memory(const char *path)
{
	return cg_write(path, "cgroup.subtree_control", "+memory");
}

int cg_enter(const char *path)
{
	return cg_write(path, "cgroup.procs", "0");
}

bool cg_has_knob(const char *cg)
{
	char path[PATH_MAX];

	if (cg_path(cg, KNOB, path, sizeof(path)) < 0)
		return false;
	return access(path, F_OK) == 0;
}

int cg_set_knob(const char *cg, const char *mode)
{
	return cg_write(cg, KNOB, mode);
}

int policy_bind(int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8) < 0)
		return -errno;
	return 0;
}

int policy_default(void)
{
	if (syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0) < 0)
		return -errno;
	return 0;
}

long pages_on_node(const void *addr, size_t len, int node, long *ret_present)
{
	return pages_on_node_pid(0, addr, len, node, ret_present);
}

long pages_on_node_pid(pid_t pid, const void *addr, size_t len, int node, long *ret_present)
{
	enum { CHUNK = 1024 };
	void *pages[CHUNK];
	int status[CHUNK];
	long on_node = 0, present = 0;
	size_t n = len / page_size, i = 0;

	while (i < n) {
		unsigned long cnt = n - i < CHUNK ? n - i : CHUNK;
		unsigned long j;

		for (j = 0; j < cnt; j++)
			pages[j] = (char *)addr + (i + j) * page_size;
		if (syscall(SYS_move_pages, pid, cnt, pages, NULL, status, 0) < 0)
			return -errno;
		for (j = 0; j < cnt; j++) {
			if (status[j] >= 0)
				present++;
			if (status[j] == node)
				on_node++;
		}
		i += cnt;
	}
	if (ret_present)
		*ret_present = present;
	return on_node;
}

int move_to_node(void *addr, size_t len, int node)
{
	enum { CHUNK = 1024 };
	void *pages[CHUNK];
	int nodes[CHUNK], status[CHUNK];
	size_t n = len / page_size, i = 0;

	while (i < n) {
		unsigned long cnt = n - i < CHUNK ? n - i : CHUNK;
		unsigned long j;

		for (j = 0; j < cnt; j++) {
			pages[j] = (char *)addr + (i + j) * page_size;
			nodes[j] = node;
		}
		if (syscall(SYS_move_pages, 0, cnt, pages, nodes, status, MPOL_MF_MOVE) < 0)
			return -errno;
		i += cnt;
	}
	return 0;
}

int lru_drain_all(void)
{
	static void *page;
	int node = -1, status = -1;

	if (!page) {
		void *p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -errno;
		*(volatile char *)p = 1;
		page = p;
	}
	/* Where the page is, then a move to that node: nothing moves, but
	 * do_pages_move() runs lru_cache_disable() first. */
	if (syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0) < 0)
		return -errno;
	if (status < 0)
		return status;
	node = status;
	if (syscall(SYS_move_pages, 0, 1UL, &page, &node, &status, MPOL_MF_MOVE) < 0)
		return -errno;
	return 0;
}

unsigned long touch_pages(const void *addr, size_t len)
{
	const volatile unsigned char *p = addr;
	unsigned long sum = 0;
	size_t off;

	for (off = 0; off < len; off += page_size)
		sum += p[off];
	return sum;
}

void dirty_pages(void *addr, size_t len)
{
	volatile unsigned char *p = addr;
	size_t off;

	for (off = 0; off < len; off += page_size)
		p[off] = (unsigned char)(off / page_size) | 1;
}

int verdict(const char *name)
{
	if (failures) {
		msg("FAIL: %s (%d failed checks)", name, failures);
		return 1;
	}
	msg("PASS: %s", name);
	return 0;
}

int env_int(const char *name, int def, int min, int max, int *ret)
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

double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_sec(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - (time_t)s) * 1e9),
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

long smaps_vma_kb(const void *addr, const char *key)
{
	size_t klen = strlen(key);
	bool in_vma = false;
	char line[512];
	long ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		char *p;

		/* A VMA's header: "start-end perms offset dev inode path";
		 * no field name ("Size:", "AnonHugePages:") parses so. */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			if (in_vma)
				break;
			in_vma = (uintptr_t)addr >= start && (uintptr_t)addr < end;
			continue;
		}
		if (!in_vma || strncmp(line, key, klen) || line[klen] != ':')
			continue;
		p = line + klen + 1;
		ret = strtol(p, NULL, 10);
		break;
	}
	fclose(f);
	return ret;
}

long long proc_sched_value(const char *key)
{
	size_t klen = strlen(key);
	long long ret = -ENOENT;
	char line[256];
	FILE *f;

	f = fopen("/proc/self/sched", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		/* "mm->numa_scan_seq                  :                    5" */
		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != ':'))
			continue;
		colon = strchr(line + klen, ':');
		if (colon)
			ret = strtoll(colon + 1, NULL, 10);
		break;
	}
	fclose(f);
	return ret;
}

static int parse_int(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*ret = (int)v;
	return (int)(end - s);
}

int node_tier(int node)
{
	const char *dir = "/sys/devices/virtual/memory_tiering";
	char path[PATH_MAX], buf[256];
	struct dirent *de;
	int tier = -ENOENT;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *tok, *save = NULL;
		int id;

		if (strncmp(de->d_name, "memory_tier", 11) ||
		    parse_int(de->d_name + 11, &id) < 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/nodelist", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (read_attr(path, buf, sizeof(buf)) < 0)
			continue;
		/* nodelist is a cpulist-style list: "0", "0-1", "0,2" */
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int lo, hi, n;

			n = parse_int(tok, &lo);
			if (n < 0)
				continue;
			hi = lo;
			if (tok[n] == '-' && parse_int(tok + n + 1, &hi) < 0)
				continue;
			if (node >= lo && node <= hi)
				tier = id;
		}
	}
	closedir(d);
	return tier;
}

pid_t vm_tierd_spawn(const char *bin, const char *conf, const char *log, int log_flags)
{
	pid_t pid = fork();
	int fd;

	if (pid != 0)
		return pid;
	fd = open(log, O_WRONLY | O_CREAT | O_CLOEXEC | log_flags, 0600);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	execl(bin, "tierd", "--config", conf, "--no-systemd", "--no-system-bus",
	      "--no-proc-connector", "-v", (char *)NULL);
	_exit(127);
}
