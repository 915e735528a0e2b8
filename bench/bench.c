// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tier-bench: time libtier's parse + observe + evaluate + dry-run apply over
 * a synthetic host.
 *
 *   tier-bench [-n CGROUPS] [-r RULES] [-i ITERATIONS] [-R BIG_RULES] [-d DIR] [-k]
 *
 * Builds, in a fresh directory under DIR (default /dev/shm, else /tmp), a
 * fake cgroup v2 tree of CGROUPS cgroups (default 10000) in the kernel's
 * file formats, a two-node/two-tier sysfs and a policy of RULES rules
 * (default 200, most of them placed before the ones that match, so
 * evaluation does real work), then runs each phase ITERATIONS times
 * (default 7) and prints the minimum and the median of each phase and of
 * the total, and the peak RSS. -k keeps the tree.
 *
 * Phases:
 *   parse      tier_policy_load() of the policy file
 *   topology   tier_topology_read()
 *   observe    tier_observe() of the whole tree (reads every cgroup's knob,
 *              memory.low/high, cgroup.procs, xattrs)
 *   evaluate   tier_evaluate(): pure matching of every cgroup
 *   apply      tier_apply(TIER_APPLY_DRY_RUN): re-read and diff every
 *              managed cgroup, write nothing
 *   total      all of the above (what `tierctl apply --dry-run` does)
 * and, for comparison, parse+evaluate+apply (everything but observe) and
 * observe without reading cgroup.procs, /proc/PID/exe and xattrs (not part
 * of the total).  Then tierd's full pass (startup, reload, a rescan):
 *   plan observe        tier_plan_observe(): one walk that decides each
 *                       cgroup as it reads it (of the current values only
 *                       those the entry sets)
 *   apply what differs  tier_apply_entry_at(TIER_APPLY_DRY_RUN) of the managed
 *                       entries the walk found out of sync, through the
 *                       directory the walk has open (tierd skips the
 *                       others: what it just read already matches)
 *   full pass           parse + topology + the two, and its CPU time
 *
 * Then the policy load alone at scale: tier_policy_load() of a policy of
 * BIG_RULES rules (default 100000, 0 skips it) of the same shape, which
 * must be linear (a reload of tierd runs it in its event loop), and the
 * tier_policy_unref() of it: "policy load: 100000 rules in N ms".
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tier.h>

#include "tier-internal.h"

enum { PH_PARSE, PH_TOPO, PH_OBSERVE, PH_EVAL, PH_APPLY, PH_TOTAL, PH_PEA, PH_OBS0,
       PH_PLAN_OBSERVE, PH_SYNC, PH_FULL, PH_N };
static const char *const phase_names[PH_N] = {
	"parse", "topology", "observe", "evaluate", "apply", "total",
	"parse+evaluate+apply", "observe (no exe, no xattrs)",
	"plan observe", "apply what differs", "full pass",
};

/* tierd's full pass per cgroup (full_pass_visit() in tierd-manager.c, minus
 * its watches and table): a managed entry the walk found out of sync is
 * applied through the directory the walk has open (dry run here). */
struct full_pass {
	struct tier_ctx *ctx;
	uint64_t apply_ns;
	size_t applied;
};

static uint64_t now_ns(void);

static int full_pass_visit(void *userdata, struct tier_plan_entry *e, int dfd)
{
	struct full_pass *fp = userdata;
	struct tier_apply_result *ar = NULL;
	uint64_t t = now_ns();

	if (!tier_plan_entry_rule(e) || tier_plan_entry_in_sync(e))
		return 0;
	if (tier_apply_entry_at(fp->ctx, dfd, e, TIER_APPLY_DRY_RUN | TIER_APPLY_CURRENT, NULL, NULL,
				&ar) < 0)
		return -ENOMEM;
	tier_apply_result_free(ar);
	fp->applied++;
	fp->apply_ns += now_ns() - t;
	return 0;
}


static void die(const char *what, int r)
{
	fprintf(stderr, "tier-bench: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void write_file(const char *dir, const char *name, const char *content)
{
	char path[4096];
	size_t len = strlen(content);
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		die(path, -ENAMETOOLONG);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path, errno);
	if (write(fd, content, len) != (ssize_t)len)
		die(path, errno ? errno : EIO);
	close(fd);
}

static void mkdir_p(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		die(path, -ENAMETOOLONG);
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			die(buf, errno);
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		die(buf, errno);
}

static const char *const modes[] = { "inherit", "full", "promote", "off" };

/* One cgroup directory in the kernel's formats; fast/slow from i. */
static void mk_cgroup(const char *root, const char *rel, unsigned i)
{
	char dir[4096], buf[2048];
	uint64_t fast = 4096ull * (1 + i % 997), slow = 4096ull * (i % 331);

	snprintf(dir, sizeof(dir), "%s%s", root, rel);
	mkdir_p(dir);
	write_file(dir, "cgroup.procs", "");
	write_file(dir, "cgroup.controllers", "cpu io memory pids\n");
	write_file(dir, "cgroup.subtree_control", "");
	if (strcmp(rel, "") == 0)
		return; /* the root: no memory.current, no knob */
	snprintf(buf, sizeof(buf), "%s\n", modes[(i * 7) % 4]);
	write_file(dir, "memory.numa_balancing", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64 "\n", fast + slow + 8192);
	write_file(dir, "memory.current", buf);
	write_file(dir, "memory.min", "0\n");
	write_file(dir, "memory.low", "0\n");
	write_file(dir, "memory.high", "max\n");
	write_file(dir, "memory.max", "max\n");
	snprintf(buf, sizeof(buf),
		 "anon %" PRIu64 "\nfile 0\nkernel 8192\nshmem 0\nfile_mapped 0\n"
		 "inactive_anon %" PRIu64 "\nactive_anon 0\npgfault 10\n"
		 "numa_pages_migrated 0\nnuma_pte_updates 0\nnuma_hint_faults 0\n"
		 "pgdemote_kswapd 0\npgdemote_direct 0\npgpromote_success 0\n",
		 fast + slow, fast + slow);
	write_file(dir, "memory.stat", buf);
	snprintf(buf, sizeof(buf),
		 "anon N0=%" PRIu64 " N1=%" PRIu64 "\nfile N0=0 N1=0\nkernel_stack N0=0 N1=0\n"
		 "pagetables N0=4096 N1=0\nshmem N0=0 N1=0\nfile_mapped N0=0 N1=0\n"
		 "inactive_anon N0=%" PRIu64 " N1=%" PRIu64 "\nactive_anon N0=0 N1=0\n"
		 "unevictable N0=0 N1=0\n",
		 fast, slow, fast, slow);
	write_file(dir, "memory.numa_stat", buf);
}

static void mk_sysfs(const char *sys)
{
	char d[4096];

	for (int n = 0; n < 2; n++) {
		char buf[512];
		uint64_t total = n == 0 ? 67108864 : 33554432; /* kB: 64G + 32G */

		snprintf(d, sizeof(d), "%s/devices/system/node/node%d", sys, n);
		mkdir_p(d);
		snprintf(buf, sizeof(buf),
			 "Node %d MemTotal:       %" PRIu64 " kB\n"
			 "Node %d MemFree:        %" PRIu64 " kB\n"
			 "Node %d MemUsed:        %" PRIu64 " kB\n",
			 n, total, n, total / 2, n, total / 2);
		write_file(d, "meminfo", buf);
		write_file(d, "cpulist", n == 0 ? "0-7\n" : "\n");
	}
	snprintf(d, sizeof(d), "%s/devices/system/node", sys);
	write_file(d, "online", "0-1\n");
	write_file(d, "possible", "0-1\n");
	write_file(d, "has_memory", "0-1\n");
	write_file(d, "has_cpu", "0\n");
	snprintf(d, sizeof(d), "%s/devices/virtual/memory_tiering/memory_tier4", sys);
	mkdir_p(d);
	write_file(d, "nodelist", "0\n");
	snprintf(d, sizeof(d), "%s/devices/virtual/memory_tiering/memory_tier22", sys);
	mkdir_p(d);
	write_file(d, "nodelist", "1\n");
}

/*
 * The tree: the root, /system.slice with 2000 services, /user.slice with 100
 * users (slice, user@.service, a session scope), /kubepods.slice with QoS
 * slices and pods of 3 containers, and /batch.slice jobs filling up to n.
 */
static unsigned mk_tree(const char *cg, unsigned n)
{
	char rel[512];
	unsigned i = 0;

#define ADD(...)                                              \
	do {                                                  \
		if (i >= n)                                   \
			return i;                             \
		snprintf(rel, sizeof(rel), __VA_ARGS__);      \
		mk_cgroup(cg, rel, i++);                      \
	} while (0)

	ADD("%s", "");
	ADD("/system.slice");
	for (unsigned s = 0; s < 2000; s++)
		ADD("/system.slice/svc-%04u.service", s);
	ADD("/user.slice");
	for (unsigned u = 0; u < 100; u++) {
		ADD("/user.slice/user-%u.slice", 1000 + u);
		ADD("/user.slice/user-%u.slice/user@%u.service", 1000 + u, 1000 + u);
		ADD("/user.slice/user-%u.slice/session-%u.scope", 1000 + u, u + 1);
	}
	ADD("/kubepods.slice");
	ADD("/kubepods.slice/kubepods-burstable.slice");
	ADD("/kubepods.slice/kubepods-besteffort.slice");
	for (unsigned p = 0; p < 1000; p++) {
		const char *qos = p % 3 == 0 ? "" : p % 3 == 1 ? "burstable" : "besteffort";
		char slice[160];

		if (*qos)
			snprintf(slice, sizeof(slice),
				 "/kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%08x_1a2b.slice",
				 qos, qos, p * 2654435761u);
		else
			snprintf(slice, sizeof(slice), "/kubepods.slice/kubepods-pod%08x_1a2b.slice",
				 p * 2654435761u);
		ADD("%s", slice);
		for (unsigned c = 0; c < 3; c++)
			ADD("%s/cri-containerd-%08x%04x.scope", slice, p * 40503u, c);
	}
	ADD("/batch.slice");
	for (unsigned j = 0; i < n; j++)
		ADD("/batch.slice/job-%05u", j);
#undef ADD
	return i;
}

/*
 * The policy: 20 classes; n_rules rules of which the first n_rules - 50
 * match nothing in the tree (each with four matchers of all kinds), then 50
 * that match: system services by prefix, user sessions, pods by QoS and
 * batch jobs.
 */
static void mk_policy(const char *path, unsigned n_rules)
{
	static const char *const cmode[] = { "full", "promote", "off", "inherit" };
	FILE *f = fopen(path, "we");
	unsigned filler = n_rules > 50 ? n_rules - 50 : 0, r = 0;

	if (!f)
		die(path, errno);
	fprintf(f, "[daemon]\ndry_run = yes\n\n");
	for (unsigned c = 0; c < 20; c++) {
		fprintf(f, "[class:c%u]\nmode = %s\nweight = %u\n", c, cmode[c % 4], 50 + c * 25);
		if (c % 3 == 0)
			fprintf(f, "toptier_min = %uG\n", 1 + c);
		if (c % 2 == 0)
			fprintf(f, "toptier_max = %u%%\n", 10 + c * 4);
		fprintf(f, "\n");
	}
	for (unsigned k = 0; k < filler; k++, r++)
		fprintf(f,
			"[rule:none%u]\nclass = c%u\ncgroup = /tenant-%u.slice/**\n"
			"unit = app-%u-*.service\nexe = /opt/app%u/bin/*\n"
			"annotation = tierd.io/app=app%u\n\n",
			k, k % 20, k, k, k, k);
	for (unsigned k = 0; k < 20 && r < n_rules; k++, r++)
		fprintf(f, "[rule:svc%u]\nclass = c%u\ncgroup = /system.slice/svc-%02u*.service\n\n", k,
			k % 20, k);
	for (unsigned k = 0; k < 10 && r < n_rules; k++, r++)
		fprintf(f, "[rule:users%u]\nclass = c%u\nunit = user@10%u*.service\n"
			"cgroup = /user.slice/user-10%u*.slice/session-*.scope\n\n",
			k, (k + 3) % 20, k, k);
	for (unsigned k = 0; k < 16 && r < n_rules; k++, r++)
		fprintf(f,
			"[rule:pods%u]\nclass = c%u\n"
			"cgroup = /kubepods.slice/**/kubepods-*pod%x*.slice/**\n\n",
			k, (k + 5) % 20, k);
	for (; r < n_rules; r++)
		fprintf(f, "[rule:batch%u]\nclass = c%u\ncgroup = /batch.slice/job-*%u\n\n", r,
			r % 20, r % 10);
	if (fclose(f) != 0)
		die(path, errno);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Load a policy of n_rules rules iters times: min/median of load and free. */
static void bench_big_policy(const char *top, unsigned n_rules, unsigned iters)
{
	uint64_t *load = calloc(iters, sizeof(uint64_t)), *fr = calloc(iters, sizeof(uint64_t));
	uint64_t *cpu = calloc(iters, sizeof(uint64_t));
	char path[300];
	struct stat st;

	if (!load || !fr || !cpu)
		die("calloc", ENOMEM);
	snprintf(path, sizeof(path), "%s/big.conf", top);
	mk_policy(path, n_rules);
	if (stat(path, &st) < 0)
		die(path, errno);
	for (unsigned it = 0; it < iters; it++) {
		struct tier_errors *errors = tier_errors_new();
		struct tier_policy *policy = NULL;
		uint64_t a, c;
		int r;

		c = cpu_ns();
		a = now_ns();
		r = tier_policy_load(path, "", errors, &policy);
		load[it] = now_ns() - a;
		cpu[it] = cpu_ns() - c;
		if (r < 0) {
			for (size_t k = 0; k < tier_errors_count(errors) && k < 10; k++)
				fprintf(stderr, "%s\n", tier_errors_get(errors, k));
			die("tier_policy_load (big policy)", r);
		}
		if (tier_policy_rule_count(policy) != n_rules)
			die("tier_policy_load (big policy): rule count", EINVAL);
		a = now_ns();
		tier_policy_unref(policy);
		fr[it] = now_ns() - a;
		tier_errors_free(errors);
	}
	qsort(load, iters, sizeof(uint64_t), cmp_u64);
	qsort(fr, iters, sizeof(uint64_t), cmp_u64);
	qsort(cpu, iters, sizeof(uint64_t), cmp_u64);
	/* median wall clock; CPU time as well, which a busy machine does not inflate */
	printf("policy load: %u rules in %.0f ms (min %.0f ms, CPU %.0f ms; %.1f MiB file; "
	       "free %.0f ms)\n",
	       n_rules, (double)load[iters / 2] / 1e6, (double)load[0] / 1e6,
	       (double)cpu[iters / 2] / 1e6, (double)st.st_size / (1 << 20),
	       (double)fr[iters / 2] / 1e6);
	free(load);
	free(fr);
	free(cpu);
}

int main(int argc, char **argv)
{
	unsigned n_cgroups = 10000, n_rules = 200, iters = 7, big_rules = 100000, made;
	const char *base = NULL;
	bool keep = false;
	char top[256], cg[300], sys[300], proc[300], conf[300];
	uint64_t *t[PH_N], *cpu_total, *cpu_full;
	size_t managed = 0, changed = 0, n_plan = 0;
	struct rusage ru;
	uint64_t t0;
	int c, r;

	while ((c = getopt(argc, argv, "n:r:i:R:d:kh")) != -1) {
		switch (c) {
		case 'n':
			n_cgroups = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			n_rules = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'i':
			iters = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			big_rules = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'd':
			base = optarg;
			break;
		case 'k':
			keep = true;
			break;
		default:
			fprintf(stderr, "usage: tier-bench [-n CGROUPS] [-r RULES] [-i ITERATIONS] "
					"[-R BIG_RULES] [-d DIR] [-k]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (n_cgroups < 1 || n_rules < 1 || iters < 1) {
		fprintf(stderr, "tier-bench: -n, -r and -i must be positive\n");
		return 2;
	}
	if (!base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(top, sizeof(top), "%s/tier-bench.XXXXXX", base);
	if (!mkdtemp(top))
		die(top, errno);
	snprintf(cg, sizeof(cg), "%s/cgroup", top);
	snprintf(sys, sizeof(sys), "%s/sys", top);
	snprintf(proc, sizeof(proc), "%s/proc", top);
	snprintf(conf, sizeof(conf), "%s/tierd.conf", top);

	t0 = now_ns();
	made = mk_tree(cg, n_cgroups);
	mk_sysfs(sys);
	mkdir_p(proc);
	write_file(proc, "meminfo", "MemTotal:       100663296 kB\nMemFree:        50331648 kB\n");
	mk_policy(conf, n_rules);
	printf("tier-bench: %u cgroups, %u rules in %s (built in %.0f ms), %u iterations\n", made,
	       n_rules, top, (double)(now_ns() - t0) / 1e6, iters);

	for (int p = 0; p < PH_N; p++) {
		t[p] = calloc(iters, sizeof(uint64_t));
		if (!t[p])
			die("calloc", ENOMEM);
	}
	cpu_total = calloc(iters, sizeof(uint64_t));
	cpu_full = calloc(iters, sizeof(uint64_t));
	if (!cpu_total || !cpu_full)
		die("calloc", ENOMEM);

	for (unsigned it = 0; it < iters; it++) {
		struct tier_errors *errors = tier_errors_new();
		struct tier_policy *policy = NULL;
		struct tier_ctx *ctx = NULL;
		struct tier_topology *topo = NULL;
		struct tier_observed *obs = NULL;
		struct tier_plan *plan = NULL;
		struct tier_apply_results *res = NULL;
		uint64_t a, b, start, cpu_start;

		cpu_start = cpu_ns();
		start = a = now_ns();
		r = tier_policy_load(conf, "", errors, &policy);
		if (r < 0) {
			for (size_t k = 0; k < tier_errors_count(errors); k++)
				fprintf(stderr, "%s\n", tier_errors_get(errors, k));
			die("tier_policy_load", r);
		}
		b = now_ns();
		t[PH_PARSE][it] = b - a;

		r = tier_ctx_new(cg, sys, proc, &ctx);
		if (r < 0)
			die("tier_ctx_new", r);
		a = now_ns();
		r = tier_topology_read(ctx, &topo);
		if (r < 0)
			die("tier_topology_read", r);
		b = now_ns();
		t[PH_TOPO][it] = b - a;

		a = now_ns();
		r = tier_observe(ctx, topo, NULL, TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS, &obs);
		if (r < 0)
			die("tier_observe", r);
		b = now_ns();
		t[PH_OBSERVE][it] = b - a;

		a = now_ns();
		r = tier_evaluate(policy, obs, &plan);
		if (r < 0)
			die("tier_evaluate", r);
		b = now_ns();
		t[PH_EVAL][it] = b - a;

		a = now_ns();
		r = tier_apply(ctx, plan, TIER_APPLY_DRY_RUN, &res);
		if (r < 0)
			die("tier_apply", r);
		b = now_ns();
		t[PH_APPLY][it] = b - a;
		t[PH_TOTAL][it] = b - start;
		cpu_total[it] = cpu_ns() - cpu_start;
		t[PH_PEA][it] = t[PH_PARSE][it] + t[PH_EVAL][it] + t[PH_APPLY][it];

		/* tierd's full pass: one walk that decides each cgroup as it
		 * reads it (tier_plan_observe()), then an apply of the managed
		 * entries whose values the walk found different (dry run). */
		{
			struct tier_plan *fp = NULL;
			size_t n_sync = 0;

			cpu_start = cpu_ns();
			start = a = now_ns();
			struct full_pass fpass = { .ctx = ctx };

			r = tier_plan_new(policy, tier_topology_fast_capacity(topo), &fp);
			if (r >= 0)
				r = tier_plan_observe(fp, ctx, NULL,
						      TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS,
						      full_pass_visit, &fpass);
			if (r < 0)
				die("tier_plan_observe", r);
			t[PH_SYNC][it] = fpass.apply_ns;
			t[PH_PLAN_OBSERVE][it] = now_ns() - a - fpass.apply_ns;
			n_sync = fpass.applied;
			/* parse and topology as the total counts them */
			t[PH_FULL][it] = now_ns() - start + t[PH_PARSE][it] + t[PH_TOPO][it];
			cpu_full[it] = cpu_ns() - cpu_start;
			if (it == 0)
				printf("tier-bench: full pass: %zu entries, %zu applied (not in sync)\n",
				       tier_plan_count(fp), n_sync);
			tier_plan_free(fp);
		}

		{
			struct tier_observed *obs0 = NULL;

			a = now_ns();
			r = tier_observe(ctx, topo, NULL, 0, &obs0);
			if (r < 0)
				die("tier_observe", r);
			t[PH_OBS0][it] = now_ns() - a;
			tier_observed_free(obs0);
		}

		if (it == 0) {
			n_plan = tier_plan_count(plan);
			for (size_t k = 0; k < tier_apply_results_count(res); k++) {
				const struct tier_apply_result *ar = tier_apply_results_get(res, k);

				managed += tier_apply_result_status(ar) != TIER_APPLY_UNMANAGED;
				changed += tier_apply_result_status(ar) == TIER_APPLY_CHANGED;
			}
		}
		tier_apply_results_free(res);
		tier_plan_free(plan);
		tier_observed_free(obs);
		tier_topology_free(topo);
		tier_ctx_unref(ctx);
		tier_policy_unref(policy);
		tier_errors_free(errors);
	}

	printf("tier-bench: plan has %zu cgroups, %zu managed, %zu would change\n", n_plan, managed,
	       changed);
	printf("%-28s %10s %10s %10s\n", "phase", "min ms", "median ms", "max ms");
	for (int p = 0; p < PH_N; p++) {
		qsort(t[p], iters, sizeof(uint64_t), cmp_u64);
		printf("%-28s %10.2f %10.2f %10.2f\n", phase_names[p], (double)t[p][0] / 1e6,
		       (double)t[p][iters / 2] / 1e6, (double)t[p][iters - 1] / 1e6);
	}
	/* the process's CPU time of the total: what a loaded machine does not inflate */
	qsort(cpu_total, iters, sizeof(uint64_t), cmp_u64);
	printf("%-28s %10.2f %10.2f %10.2f\n", "total (CPU time)", (double)cpu_total[0] / 1e6,
	       (double)cpu_total[iters / 2] / 1e6, (double)cpu_total[iters - 1] / 1e6);
	/* the full pass's CPU time, parse and topology left out (both < 1 ms) */
	qsort(cpu_full, iters, sizeof(uint64_t), cmp_u64);
	printf("%-28s %10.2f %10.2f %10.2f\n", "full pass (CPU time)", (double)cpu_full[0] / 1e6,
	       (double)cpu_full[iters / 2] / 1e6, (double)cpu_full[iters - 1] / 1e6);
	free(cpu_total);
	free(cpu_full);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
	if (big_rules)
		bench_big_policy(top, big_rules, iters < 3 ? iters : 3);

	for (int p = 0; p < PH_N; p++)
		free(t[p]);
	if (keep)
		printf("tier-bench: tree kept in %s\n", top);
	else
		nftw(top, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
	return 0;
}
