// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd-metrics: write tierd's per-cgroup metrics as a node_exporter
 * textfile (Prometheus text format), atomically.
 *
 *   tierd-metrics [--config FILE] [--cgroup-root DIR] [--sysfs-root DIR]
 *                 [--procfs-root DIR] [--run-dir DIR] [-o FILE|-]
 *
 * Run it from a timer (or the loop in etc/kubernetes/); see tierd-metrics(8).
 * Exit status: 0 written, 1 error, 2 bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <tier.h>
#include <tier-internal.h>

#include "escape.h"
#include "macro.h"
#include "metrics.h"

#ifndef TIERD_VERSION
#define TIERD_VERSION "0.2.0"
#endif

#define PROG "tierd-metrics"
#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"
#define DEFAULT_OUTPUT "/var/lib/prometheus/node-exporter/tierd.prom"

/* libtier's messages quote cgroup names, which anyone who may create a
 * cgroup chooses: one line each, escaped (\n, \x1b, \xff). */
_printf_(6, 0) static void log_hook(void *data, int priority, const char *file, int line,
				    const char *fn, const char *format, va_list args)
{
	_cleanup_free_ char *s = NULL, *e = NULL;

	if (vasprintf(&s, format, args) < 0)
		return;
	e = text_escape(s);
	fprintf(stderr, "%s: %s\n", PROG, e ? e : "(out of memory)");
}

/* Why the output could not be written, in words. */
static void write_error(const char *output, int r)
{
	char buf[512];
	const char *why;

	switch (r) {
	case -ELOOP:
		why = "it is a symlink; refusing to replace it";
		break;
	case -EISDIR:
		why = "it is a directory; refusing to replace it";
		break;
	case -EEXIST:
		why = "it is not a regular file (a device, FIFO or socket); refusing to replace it";
		break;
	default:
		why = strerror(-r);
	}
	fprintf(stderr, "%s: cannot write %s: %s\n", PROG,
		output ? text_escape_buf(output, buf, sizeof(buf)) : "to stdout", why);
}

static void help(void)
{
	printf("%s [OPTIONS]\n\n"
	       "Write per-cgroup memory tiering metrics in the Prometheus text format.\n\n"
	       "  --config FILE       policy (default %s, plus its drop-ins)\n"
	       "  --cgroup-root DIR   cgroup2 mount (default: the policy's cgroup_root, else\n"
	       "                      the cgroup2 mount with the memory controller)\n"
	       "  --sysfs-root DIR    sysfs (default /sys)\n"
	       "  --procfs-root DIR   procfs (default /proc)\n"
	       "  --run-dir DIR       tierd's run directory, where it leaves its hot-set\n"
	       "                      readings (default %s)\n"
	       "  -o, --output FILE   where to write, atomically; '-' for stdout\n"
	       "                      (default %s)\n"
	       "      --max-cgroups N series for at most N cgroups, the first in tree\n"
	       "                      order (default %d); tierd_managed_cgroups counts all\n"
	       "  -h, --help          this text\n"
	       "      --version       the version\n",
	       PROG, DEFAULT_CONFIG, TIER_RUN_DIR, DEFAULT_OUTPUT, TIERD_METRICS_CGROUPS_DEFAULT);
}

int main(int argc, char **argv)
{
	enum { ARG_CONFIG = 0x100, ARG_CGROUP_ROOT, ARG_SYSFS_ROOT, ARG_PROCFS_ROOT, ARG_VERSION,
	       ARG_MAX_CGROUPS, ARG_RUN_DIR };
	static const struct option options[] = {
		{ "config", required_argument, NULL, ARG_CONFIG },
		{ "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
		{ "sysfs-root", required_argument, NULL, ARG_SYSFS_ROOT },
		{ "procfs-root", required_argument, NULL, ARG_PROCFS_ROOT },
		{ "run-dir", required_argument, NULL, ARG_RUN_DIR },
		{ "output", required_argument, NULL, 'o' },
		{ "max-cgroups", required_argument, NULL, ARG_MAX_CGROUPS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{}
	};
	const char *config = DEFAULT_CONFIG, *cgroup_root = NULL, *sysfs_root = NULL,
		   *proc_root = NULL, *output = DEFAULT_OUTPUT, *run_dir = NULL;
	struct tier_errors *errors = NULL;
	struct tier_policy *policy = NULL;
	struct tier_ctx *ctx = NULL;
	struct tierd_metrics *m = NULL;
	_cleanup_free_ char *root_found = NULL, *root_why = NULL;
	size_t max_cgroups = 0;
	int c, r, ret = 1;

	while ((c = getopt_long(argc, argv, "o:h", options, NULL)) >= 0) {
		switch (c) {
		case ARG_CONFIG:
			config = optarg;
			break;
		case ARG_CGROUP_ROOT:
			cgroup_root = optarg;
			break;
		case ARG_SYSFS_ROOT:
			sysfs_root = optarg;
			break;
		case ARG_PROCFS_ROOT:
			proc_root = optarg;
			break;
		case ARG_RUN_DIR:
			run_dir = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case ARG_MAX_CGROUPS: {
			unsigned long long v;
			char *end;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v == 0 ||
			    v > SIZE_MAX) {
				char buf[64];

				fprintf(stderr, "%s: --max-cgroups wants a number above 0, not '%s'\n",
					PROG, text_escape_buf(optarg, buf, sizeof(buf)));
				return 2;
			}
			max_cgroups = (size_t)v;
			break;
		}
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("%s %s\n", PROG, TIERD_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", PROG);
			return 2;
		}
	}
	if (optind < argc) {
		char buf[256];

		fprintf(stderr, "%s: unexpected argument '%s'\n", PROG,
			text_escape_buf(argv[optind], buf, sizeof(buf)));
		return 2;
	}

	errors = tier_errors_new();
	if (!errors) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}
	r = tier_policy_load(config, NULL, errors, &policy);
	if (r < 0) {
		for (size_t i = 0; i < tier_errors_count(errors); i++)
			fprintf(stderr, "%s: %s\n", PROG, tier_errors_get(errors, i));
		fprintf(stderr, "%s: cannot load the policy %s: %s\n", PROG, config, strerror(-r));
		goto out;
	}
	if (!cgroup_root)
		cgroup_root = tier_policy_daemon(policy)->cgroup_root;
	/* the root tierd and tierctl find: a cgroup2 mount with the memory controller */
	r = tier_cgroup_root_find(cgroup_root, proc_root, &root_found, &root_why);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", PROG, root_why ? root_why : strerror(-r));
		goto out;
	}
	r = tier_ctx_new(root_found, sysfs_root, proc_root, &ctx);
	if (r < 0) {
		fprintf(stderr, "%s: cannot set up libtier: %s\n", PROG, strerror(-r));
		goto out;
	}
	tier_ctx_set_log_fn(ctx, log_hook, NULL);
	/* A subtree the walk had to skip (too deep, unreadable) is warned
	 * about once, and the rest exported; TIER_LOG overrides. */
	if (!getenv("TIER_LOG") && tier_ctx_get_log_priority(ctx) < LOG_WARNING)
		tier_ctx_set_log_priority(ctx, LOG_WARNING);
	r = tierd_metrics_collect(ctx, policy, max_cgroups, run_dir, &m);
	if (r < 0) {
		fprintf(stderr, "%s: cannot read the cgroup tree %s: %s\n", PROG,
			tier_ctx_get_cgroup_root(ctx), strerror(-r));
		goto out;
	}
	if (m->n_managed > m->n_cgroups + m->n_dropped_labels)
		fprintf(stderr, "%s: %zu managed cgroups, series for the first %zu (--max-cgroups)\n",
			PROG, m->n_managed, m->n_cgroups + m->n_dropped_labels);
	if (m->n_dropped_labels)
		fprintf(stderr, "%s: %zu cgroups left out: their shortened names equal another's\n",
			PROG, m->n_dropped_labels);
	if (strcmp(output, "-") == 0)
		r = tierd_metrics_write(stdout, m);
	else
		r = tierd_metrics_write_file(output, m);
	if (r < 0) {
		write_error(strcmp(output, "-") == 0 ? NULL : output, r);
		goto out;
	}
	ret = 0;
out:
	tierd_metrics_free(m);
	tier_ctx_unref(ctx);
	tier_policy_unref(policy);
	tier_errors_free(errors);
	return ret;
}
