/* budget.c: knob-tierd-budget, the promotion budget (issue 25) on the
 * patched kernel, through tierd's knob backend.
 *
 * tierd with backend = knob writes a class's promote_budget to
 * memory.promote_rate_max (patch 19 of the series).  Two cgroups, /kbudget
 * (promote_budget = TIERD_KBUDGET_MB M, 8 by default) and /kfree (none),
 * each read a hot set of TIERD_KBUDGET_HOT_MB (64) placed on the slow node,
 * kernel.numa_balancing = 2.  Outcomes, not timings:
 *  - tierd wrote the budget to /kbudget's memory.promote_rate_max, and
 *    /kfree's stays "max";
 *  - the ceiling: over every span between two samples (T seconds, rounded
 *    up) /kbudget promoted at most (T + 3) seconds' budget (the windows and
 *    the carry-over of memory.promote_rate_max) plus one window's budget
 *    for the overdraft of concurrent faults and the stats' batching;
 *  - the budget bit: /kbudget's pgpromote_refused_rate and memory.events
 *    promote_rate_max are above 0;
 *  - the neighbour is not held back: /kfree promoted 90% of its set, none
 *    of it refused, no event;
 *  - /kbudget is not starved: 90% of its set promoted within the bound.
 * The rate from 10% to 90% and both times to 90% are printed as figures
 * (KBUDGET line); kernel-patches/next/bench/ measures them over runs.
 * Skips on a kernel without memory.promote_rate_max or without tierd.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmlib.h"
#include "budget-case.h"

#define KB_CONF		"/tmp/tierd-kbudget.conf"
#define KB_LOG		"/tmp/tierd-kbudget.log"
#define KB_RATE_FILE	"memory.promote_rate_max"
#define KB_MAX_SAMPLES	4096
/* MEMCG_PROMOTE_WINDOWS of mm/memcontrol.c: windows that can carry over */
#define KB_WINDOWS	3

struct kb_sample {
	double t;
	uint64_t b, f;		/* pages promoted: /kbudget, /kfree */
};

static pid_t kb_tierd(const char *bin)
{
	return vm_tierd_spawn(bin, KB_CONF, KB_LOG, O_TRUNC);
}

/* A hot set of bytes on the slow node in cg, read in a loop until killed;
 * writes one byte to ready_fd once placed. */
static pid_t kb_workload(const char *cg, size_t bytes, int ready_fd)
{
	pid_t pid = fork();
	char *p;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cg_enter(cg) < 0 || policy_bind(SLOW_NODE) < 0)
		_exit(2);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	madvise(p, bytes, MADV_NOHUGEPAGE);
	dirty_pages(p, bytes);
	if (policy_default() < 0)
		_exit(4);
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	for (;;)
		touch_pages(p, bytes);
}

static void kb_reap(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = -1;
}

static uint64_t kb_stat(const char *cg, const char *key)
{
	char path[512];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	if (read_key_u64(path, key, &v) < 0)
		return 0;
	return v;
}

static uint64_t kb_event(const char *cg)
{
	char path[512];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "%s/memory.events", cg);
	if (read_key_u64(path, "promote_rate_max", &v) < 0)
		return 0;
	return v;
}

int case_knob_tierd_budget(const char *name)
{
	const char *build = getenv("TIERD_VM_BUILD");
	char bin[512], conf[1024], cg_b[256] = "", cg_f[256] = "", nb_saved[16] = "";
	char val[64] = "", want[32];
	int budget_mb, hot_mb, bound_s, pipefd[2] = { -1, -1 };
	pid_t tierd = -1, w_b = -1, w_f = -1;
	struct kb_sample *s = NULL;
	size_t n = 0;
	double t0, ts, bound, t_b10 = -1, t_b90 = -1, t_f90 = -1, worst = 0, worst_t = 0;
	uint64_t hot_pages, budget_pages, b10 = 0, b90 = 0, worst_d = 0, worst_bound = 0;
	uint64_t ref_b, ref_f, ev_b, ev_f;
	char r;
	FILE *f;

	if (env_int("TIERD_KBUDGET_MB", 8, 1, 1024, &budget_mb) < 0 ||
	    env_int("TIERD_KBUDGET_HOT_MB", 64, 8, 1024, &hot_mb) < 0 ||
	    env_int("TIERD_KBUDGET_SECS", 60, 10, 3600, &bound_s) < 0)
		return 1;
	bound = bound_s * time_scale;
	hot_pages = ((uint64_t)hot_mb << 20) / page_size;
	budget_pages = ((uint64_t)budget_mb << 20) / page_size;
	snprintf(bin, sizeof(bin), "%s/bin/tierd", build ? build : "build");
	if (access(bin, X_OK) < 0) {
		msg("SKIP: no %s (make tierd)", bin);
		return EXIT_SKIP;
	}
	cg_enable_memory(CG_ROOT);
	if (cg_create(NULL, "kbudget", cg_b, sizeof(cg_b)) < 0 ||
	    cg_create(NULL, "kfree", cg_f, sizeof(cg_f)) < 0) {
		msg("FAIL: cannot create the cgroups");
		failures++;
		goto out;
	}
	if (cg_read(cg_b, KB_RATE_FILE, val, sizeof(val)) < 0) {
		msg("SKIP: no %s (a kernel without patch 19 of the series)", KB_RATE_FILE);
		cg_destroy(cg_b);
		cg_destroy(cg_f);
		return EXIT_SKIP;
	}
	s = calloc(KB_MAX_SAMPLES, sizeof(*s));
	if (!s || pipe(pipefd) < 0) {
		msg("FAIL: out of memory");
		failures++;
		goto out;
	}
	read_attr("/proc/sys/kernel/numa_balancing", nb_saved, sizeof(nb_saved));
	if (write_attr("/proc/sys/kernel/numa_balancing", "2") < 0) {
		msg("FAIL: cannot set kernel.numa_balancing to 2");
		failures++;
		goto out;
	}
	snprintf(conf, sizeof(conf),
		 "[daemon]\nbackend = knob\nnuma_balancing_sysctl = keep\n"
		 "rebalance_interval = 2s\n\n"
		 "[class:budget]\nmode = promote\npage_cache = off\npromote_budget = %dM\n\n"
		 "[class:free]\nmode = promote\npage_cache = off\n\n"
		 "[rule:budget]\nclass = budget\ncgroup = /kbudget\n\n"
		 "[rule:free]\nclass = free\ncgroup = /kfree\n", budget_mb);
	f = fopen(KB_CONF, "we");
	if (!f || fputs(conf, f) < 0 || fclose(f) != 0) {
		msg("FAIL: cannot write %s", KB_CONF);
		failures++;
		goto out;
	}
	tierd = kb_tierd(bin);
	/* tierd writes the budget: the file reads it back */
	snprintf(want, sizeof(want), "%" PRIu64, (uint64_t)budget_mb << 20);
	ts = now_sec();
	do {
		sleep_sec(0.2);
		cg_read(cg_b, KB_RATE_FILE, val, sizeof(val));
		val[strcspn(val, "\n")] = '\0';
	} while (strcmp(val, want) && now_sec() - ts < 30.0 * time_scale &&
		 waitpid(tierd, NULL, WNOHANG) == 0);
	CHECK(!strcmp(val, want), "tierd wrote /kbudget's %s: %s (want %s, %.1f s)", KB_RATE_FILE,
	      val, want, now_sec() - ts);
	cg_read(cg_f, KB_RATE_FILE, val, sizeof(val));
	val[strcspn(val, "\n")] = '\0';
	CHECK(!strcmp(val, "max"), "/kfree's %s is %s (no budget)", KB_RATE_FILE, val);
	if (failures)
		goto out;

	w_f = kb_workload(cg_f, (size_t)hot_mb << 20, pipefd[1]);
	if (w_f < 0 || read(pipefd[0], &r, 1) != 1) {
		msg("FAIL: /kfree's workload did not start");
		failures++;
		goto out;
	}
	w_b = kb_workload(cg_b, (size_t)hot_mb << 20, pipefd[1]);
	if (w_b < 0 || read(pipefd[0], &r, 1) != 1) {
		msg("FAIL: /kbudget's workload did not start");
		failures++;
		goto out;
	}
	t0 = now_sec();
	for (;;) {
		struct kb_sample *c = &s[n];

		c->t = now_sec() - t0;
		c->b = kb_stat(cg_b, "pgpromote_success");
		c->f = kb_stat(cg_f, "pgpromote_success");
		if (t_b10 < 0 && c->b >= hot_pages / 10) {
			t_b10 = c->t;
			b10 = c->b;
		}
		if (t_b90 < 0 && c->b >= hot_pages * 9 / 10) {
			t_b90 = c->t;
			b90 = c->b;
		}
		if (t_f90 < 0 && c->f >= hot_pages * 9 / 10)
			t_f90 = c->t;
		/* the ceiling against every earlier sample */
		for (size_t i = 0; i < n; i++) {
			double span = (double)(long)(c->t - s[i].t);
			uint64_t lim;

			if (span < c->t - s[i].t)
				span += 1;	/* rounded up */
			lim = (uint64_t)(span + KB_WINDOWS + 1) * budget_pages;
			uint64_t d = c->b >= s[i].b ? c->b - s[i].b : 0;
			double ratio = (double)d / (double)lim;

			if (ratio > worst) {
				worst = ratio;
				worst_d = d;
				worst_t = c->t - s[i].t;
				worst_bound = lim;
			}
		}
		n++;
		if ((t_b90 >= 0 && t_f90 >= 0) || c->t > bound || n == KB_MAX_SAMPLES)
			break;
		sleep_sec(0.25);
	}
	ref_b = kb_stat(cg_b, "pgpromote_refused_rate");
	ref_f = kb_stat(cg_f, "pgpromote_refused_rate");
	ev_b = kb_event(cg_b);
	ev_f = kb_event(cg_f);
	printf("KBUDGET budget_mb=%d hot_mb=%d samples=%zu kbudget_t90=%.1f kbudget_rate10_90=%.2f "
	       "kfree_t90=%.1f kbudget_promoted=%" PRIu64 " kfree_promoted=%" PRIu64
	       " kbudget_refused=%" PRIu64 " kbudget_events=%" PRIu64 " kfree_refused=%" PRIu64
	       " kfree_events=%" PRIu64 " ceiling_ratio=%.3f\n",
	       budget_mb, hot_mb, n, t_b90,
	       t_b90 > t_b10 && t_b10 >= 0 ?
		       (double)(b90 - b10) * page_size / 1048576.0 / (t_b90 - t_b10) : -1.0,
	       t_f90, s[n - 1].b, s[n - 1].f, ref_b, ev_b, ref_f, ev_f, worst);
	CHECK(worst <= 1.0, "/kbudget within (T + %d) seconds' budget + one window over every "
	      "span: at most %.3f of it (%" PRIu64 " pages in %.2f s, bound %" PRIu64 ")",
	      KB_WINDOWS, worst, worst_d, worst_t, worst_bound);
	CHECK(ref_b > 0 && ev_b > 0, "the budget bit: /kbudget refused %" PRIu64
	      " pages, memory.events promote_rate_max %" PRIu64, ref_b, ev_b);
	CHECK(t_f90 >= 0 && ref_f == 0 && ev_f == 0, "/kfree not held back: 90%% at %.1f s, "
	      "%" PRIu64 " refused, %" PRIu64 " events", t_f90, ref_f, ev_f);
	CHECK(t_b90 >= 0, "/kbudget not starved: 90%% of its set at %.1f s (bound %.0f s)", t_b90,
	      bound);
out:
	kb_reap(&w_b);
	kb_reap(&w_f);
	if (tierd > 0) {
		kill(tierd, SIGTERM);
		waitpid(tierd, NULL, 0);
	}
	if (failures) {
		char line[512];

		f = fopen(KB_LOG, "re");
		msg("  tierd's log (%s):", KB_LOG);
		while (f && fgets(line, sizeof(line), f))
			printf("    %s", line);
		if (f)
			fclose(f);
	}
	for (int i = 0; i < 2; i++)
		if (pipefd[i] >= 0)
			close(pipefd[i]);
	if (cg_b[0])
		cg_destroy(cg_b);
	if (cg_f[0])
		cg_destroy(cg_f);
	if (nb_saved[0])
		write_attr("/proc/sys/kernel/numa_balancing", nb_saved);
	free(s);
	return verdict(name);
}
