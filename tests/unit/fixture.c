// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

#define FX_PATH_MAX (128u * 1024)

/* One of two buffers of a helper, in turn, filled by fill(). */
#define FX_PATH_HELPER(name, type, call)                                      \
	const char *name(type x)                                              \
	{                                                                     \
		static char bufs[2][FX_PATH_MAX];                             \
		static unsigned turn;                                         \
		char *buf = bufs[turn++ % 2];                                 \
		int r = call;                                                 \
                                                                              \
		ck_assert_msg(r >= 0, "%s: %s", #name, strerror(-r));         \
		ck_assert_uint_eq(strlen(buf), (size_t)r);                    \
		return buf;                                                   \
	}

FX_PATH_HELPER(fx_entry_path, const struct tier_plan_entry *,
	       tier_plan_entry_path(x, buf, FX_PATH_MAX))
FX_PATH_HELPER(fx_result_path, const struct tier_apply_result *,
	       tier_apply_result_path(x, buf, FX_PATH_MAX))
FX_PATH_HELPER(fx_observed_path, const struct tier_observed_cgroup *,
	       tier_observed_cgroup_path(x, buf, FX_PATH_MAX))

const char *fx_share_path(const struct tier_share *s, size_t i)
{
	static char bufs[2][FX_PATH_MAX];
	static unsigned turn;
	char *buf = bufs[turn++ % 2];
	int r = tier_share_path(s, i, buf, FX_PATH_MAX);

	ck_assert_msg(r >= 0, "fx_share_path: %s", strerror(-r));
	return buf;
}

static char *join(const char *root, const char *rel)
{
	char *p;

	while (*rel == '/')
		rel++;
	ck_assert(asprintf(&p, "%s/%s", root, rel) >= 0);
	return p;
}

static void mkdir_p(const char *path)
{
	char *copy = strdup(path);

	ck_assert(copy);
	for (char *s = copy + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		ck_assert_msg(mkdir(copy, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", copy);
		*s = '/';
	}
	ck_assert_msg(mkdir(copy, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", copy);
	free(copy);
}

void fx_mkdir(const char *root, const char *rel)
{
	char *p = join(root, rel);

	mkdir_p(p);
	free(p);
}

void fx_write(const char *root, const char *rel, const char *content)
{
	char *p = join(root, rel), *slash;
	FILE *f;

	slash = strrchr(p, '/');
	*slash = '\0';
	mkdir_p(p);
	*slash = '/';
	f = fopen(p, "we");
	ck_assert_msg(f, "open %s: %m", p);
	fputs(content, f);
	ck_assert(fclose(f) == 0);
	free(p);
}

char *fx_read(const char *root, const char *rel)
{
	char *p = join(root, rel), *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(p, "re");

	free(p);
	if (!f)
		return NULL;
	ck_assert(getdelim(&buf, &len, '\0', f) >= 0 || feof(f));
	fclose(f);
	if (!buf)
		buf = strdup("");
	return buf;
}

void fx_unlink(const char *root, const char *rel)
{
	char *p = join(root, rel);

	ck_assert_msg(unlink(p) == 0, "unlink %s: %m", p);
	free(p);
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void fx_rmtree(const char *path)
{
	nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

void fx_age(const char *root, const char *rel)
{
	char *p = join(root, rel);
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	ck_assert_msg(utimensat(AT_FDCWD, p, ts, 0) == 0, "utimensat %s: %m", p);
	free(p);
}

time_t fx_mtime(const char *root, const char *rel)
{
	char *p = join(root, rel);
	struct stat st;
	int r = stat(p, &st);

	free(p);
	return r == 0 ? st.st_mtime : 0;
}

struct fx *fx_new(void)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char tmpl[] = "/tmp/libtier-test.XXXXXX";
	const char *tmpdir = getenv("TMPDIR");
	char *t;

	ck_assert(fx);
	if (tmpdir && *tmpdir)
		ck_assert(asprintf(&t, "%s/libtier-test.XXXXXX", tmpdir) >= 0);
	else
		t = strdup(tmpl);
	ck_assert(t);
	ck_assert_msg(mkdtemp(t), "mkdtemp: %m");
	fx->root = t;
	fx->cg = join(t, "cgroup");
	fx->sys = join(t, "sys");
	fx->proc = join(t, "proc");
	mkdir_p(fx->cg);
	mkdir_p(fx->sys);
	mkdir_p(fx->proc);
	/* the root cgroup has no memory.* knobs except stats */
	fx_write(fx->cg, "cgroup.procs", "1\n");
	fx_write(fx->cg, "memory.stat", "anon 0\nfile 0\n");
	fx_write(fx->cg, "memory.numa_stat", "anon N0=0 N1=0\nfile N0=0 N1=0\n");
	ck_assert_int_eq(tier_ctx_new(fx->cg, fx->sys, fx->proc, &fx->ctx), 0);
	return fx;
}

void fx_free(struct fx *fx)
{
	if (!fx)
		return;
	tier_ctx_unref(fx->ctx);
	fx_rmtree(fx->root);
	free(fx->root);
	free(fx->cg);
	free(fx->sys);
	free(fx->proc);
	free(fx);
}

void fx_node(struct fx *fx, int node, uint64_t total_kb, uint64_t free_kb)
{
	char rel[128], *content;

	snprintf(rel, sizeof(rel), "devices/system/node/node%d/meminfo", node);
	/* the kernel's node_read_meminfo() format, abridged */
	ck_assert(asprintf(&content,
			   "Node %d MemTotal:       %8llu kB\n"
			   "Node %d MemFree:        %8llu kB\n"
			   "Node %d MemUsed:        %8llu kB\n"
			   "Node %d SwapCached:            0 kB\n"
			   "Node %d Active:           123456 kB\n"
			   "Node %d FilePages:        200000 kB\n"
			   "Node %d HugePages_Total:     0\n"
			   "Node %d HugePages_Free:      0\n",
			   node, (unsigned long long)total_kb, node, (unsigned long long)free_kb,
			   node, (unsigned long long)(total_kb - free_kb), node, node, node, node,
			   node) >= 0);
	fx_write(fx->sys, rel, content);
	free(content);
}

void fx_node_lists(struct fx *fx, const char *has_memory, const char *has_cpu)
{
	char *s;

	if (has_memory) {
		ck_assert(asprintf(&s, "%s\n", has_memory) >= 0);
		fx_write(fx->sys, "devices/system/node/has_memory", s);
		free(s);
	}
	if (has_cpu) {
		ck_assert(asprintf(&s, "%s\n", has_cpu) >= 0);
		fx_write(fx->sys, "devices/system/node/has_cpu", s);
		free(s);
	}
}

void fx_memtier(struct fx *fx, int tier, const char *nodelist)
{
	char rel[128], *s;

	snprintf(rel, sizeof(rel), "devices/virtual/memory_tiering/memory_tier%d/nodelist", tier);
	ck_assert(asprintf(&s, "%s\n", nodelist) >= 0);
	fx_write(fx->sys, rel, s);
	free(s);
}

static void cg_file(struct fx *fx, const char *path, const char *file, const char *content)
{
	char *rel;

	ck_assert(asprintf(&rel, "%s/%s", path, file) >= 0);
	fx_write(fx->cg, rel, content);
	free(rel);
}

void fx_cgroup_numa(struct fx *fx, const char *path, uint64_t anon0, uint64_t anon1,
		    uint64_t file0, uint64_t file1)
{
	char *s;

	/* mm/memcontrol.c memory_numa_stat_show() format */
	ck_assert(asprintf(&s,
			   "anon N0=%llu N1=%llu\n"
			   "file N0=%llu N1=%llu\n"
			   "kernel_stack N0=16384 N1=0\n"
			   "pagetables N0=4096 N1=0\n"
			   "sec_pagetables N0=0 N1=0\n"
			   "shmem N0=0 N1=0\n"
			   "file_mapped N0=0 N1=0\n"
			   "file_dirty N0=0 N1=0\n"
			   "file_writeback N0=0 N1=0\n"
			   "swapcached N0=0 N1=0\n"
			   "anon_thp N0=0 N1=0\n"
			   "file_thp N0=0 N1=0\n"
			   "shmem_thp N0=0 N1=0\n"
			   "inactive_anon N0=0 N1=0\n"
			   "active_anon N0=0 N1=0\n"
			   "inactive_file N0=0 N1=0\n"
			   "active_file N0=0 N1=0\n"
			   "unevictable N0=0 N1=0\n"
			   "slab_reclaimable N0=0 N1=0\n"
			   "slab_unreclaimable N0=0 N1=0\n",
			   (unsigned long long)anon0, (unsigned long long)anon1,
			   (unsigned long long)file0, (unsigned long long)file1) >= 0);
	cg_file(fx, path, "memory.numa_stat", s);
	free(s);
}

/* mm/memcontrol.c memory_stat_format() order, abridged; toptier as in
 * fixture.h. */
void fx_cgroup_stat(struct fx *fx, const char *path, uint64_t anon, uint64_t file,
		    const char *toptier)
{
	char *s, *top = NULL;

	if (toptier)
		ck_assert(asprintf(&top, "toptier %s\n", toptier) >= 0);
	ck_assert(asprintf(&s,
			   "anon %llu\n"
			   "file %llu\n"
			   "kernel 65536\n"
			   "kernel_stack 16384\n"
			   "pagetables 4096\n"
			   "sec_pagetables 0\n"
			   "percpu 0\n"
			   "sock 0\n"
			   "vmalloc 0\n"
			   "shmem 0\n"
			   "file_mapped 0\n"
			   "file_dirty 0\n"
			   "file_writeback 0\n"
			   "swapcached 0\n"
			   "anon_thp 0\n"
			   "inactive_anon 0\n"
			   "active_anon %llu\n"
			   "pgfault 1000\n"
			   "pgmajfault 0\n"
			   "numa_pages_migrated 7\n"
			   "numa_pte_updates 4096\n"
			   "numa_hint_faults 512\n"
			   "pgpromote_success 42\n"
			   "pgpromote_refused_toptier 5\n"
			   "pgdemote_kswapd 3\n"
			   "pgdemote_toptier 11\n"
			   "pgdemote_toptier_exchange 13\n"
			   "%s",
			   (unsigned long long)anon, (unsigned long long)file,
			   (unsigned long long)anon, top ? top : "") >= 0);
	cg_file(fx, path, "memory.stat", s);
	free(s);
	free(top);
}

void fx_cgroup(struct fx *fx, const char *path, const char *knob)
{
	cg_file(fx, path, "cgroup.procs", "");
	cg_file(fx, path, "memory.current", "8388608\n");
	cg_file(fx, path, "memory.min", "0\n");
	cg_file(fx, path, "memory.low", "0\n");
	cg_file(fx, path, "memory.high", "max\n");
	cg_file(fx, path, "memory.max", "max\n");
	fx_cgroup_stat(fx, path, 4194304, 4194304, NULL);
	fx_cgroup_numa(fx, path, 3145728, 1048576, 4194304, 0);
	if (knob) {
		char *s;

		ck_assert(asprintf(&s, "%s\n", knob) >= 0);
		cg_file(fx, path, "memory.numa_balancing", s);
		free(s);
	}
}

struct tier_observed *obs_build(uint64_t fast_capacity, const struct obs_cg *cg, size_t n)
{
	struct tier_observed *o = NULL;

	ck_assert_int_eq(tier_observed_new(fast_capacity, &o), 0);
	for (size_t i = 0; i < n; i++) {
		struct tier_observed_cgroup *c = NULL;

		ck_assert_int_eq(tier_observed_add(o, cg[i].path, &c), 0);
		if (cg[i].unit)
			ck_assert_int_eq(tier_observed_cgroup_set_unit(c, cg[i].unit), 0);
		for (const char *const *x = cg[i].exes; x && *x; x++)
			ck_assert_int_eq(tier_observed_cgroup_add_exe(c, *x), 0);
		for (const char *const *x = cg[i].annotations; x && *x; x++)
			ck_assert_int_eq(tier_observed_cgroup_add_annotation(c, *x), 0);
		if (cg[i].mode_supported)
			ck_assert_int_eq(tier_observed_cgroup_set_current(c, TIER_ATTR_NUMA_BALANCING,
									  cg[i].mode), 0);
		ck_assert_int_eq(tier_observed_cgroup_set_current(c, TIER_ATTR_MEMORY_LOW,
								  cg[i].memory_low), 0);
		ck_assert_int_eq(tier_observed_cgroup_set_current(c, TIER_ATTR_MEMORY_HIGH,
								  cg[i].memory_high), 0);
	}
	ck_assert_uint_eq(tier_observed_count(o), n);
	return o;
}

bool e_sets(const struct tier_plan_entry *e, enum tier_attr attr)
{
	uint64_t v;
	int r = tier_plan_entry_get_desired(e, attr, &v);

	ck_assert(r == 0 || r == -ENODATA);
	return r == 0;
}

uint64_t e_desired(const struct tier_plan_entry *e, enum tier_attr attr)
{
	uint64_t v;

	if (tier_plan_entry_get_desired(e, attr, &v) == 0)
		return v;
	return attr == TIER_ATTR_MEMORY_HIGH ? UINT64_MAX : 0;
}

uint64_t e_current(const struct tier_plan_entry *e, enum tier_attr attr)
{
	uint64_t v;

	if (tier_plan_entry_get_current(e, attr, &v) == 0)
		return v;
	return TIER_MODE_INHERIT;
}

bool e_mode_supported(const struct tier_plan_entry *e)
{
	uint64_t v;

	return tier_plan_entry_get_current(e, TIER_ATTR_NUMA_BALANCING, &v) == 0;
}

struct change res_change(const struct tier_apply_result *r, size_t i)
{
	ck_assert_uint_lt(i, tier_apply_result_change_count(r));
	return (struct change){
		.attr = tier_apply_result_change_attr(r, i),
		.status = tier_apply_result_change_status(r, i),
		.error = tier_apply_result_change_error(r, i),
		.old_value = tier_apply_result_change_old_value(r, i),
		.new_value = tier_apply_result_change_new_value(r, i),
	};
}
