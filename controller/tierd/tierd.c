// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd: keep every cgroup on its memory tiering policy.
 *
 * Watches the cgroup tree (inotify) and process execs (proc connector) and
 * applies the policy of /etc/tierd/tierd.conf to each cgroup the moment it
 * appears, reconciles the whole tree periodically, reloads on SIGHUP or when
 * the policy files change (Type=notify-reload).  See tierd(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tierd-config.h"
#include "tierd-log.h"
#include "tierd-manager.h"

#ifndef TIERD_VERSION
#define TIERD_VERSION "0.2.0"
#endif

static void help(void)
{
	printf("Usage: tierd [OPTIONS]\n"
	       "\n"
	       "Keep every cgroup on its memory tiering policy.\n"
	       "\n"
	       "  -c, --config=FILE       policy file (default " DEFAULT_CONFIG ")\n"
	       "      --dropin-dir=DIR    drop-in directory (default: include= or FILE.d;\n"
	       "                          \"\" for none)\n"
	       "  -n, --dry-run           log what would be written, write nothing\n"
	       "      --cgroup-root=DIR   cgroup2 mount (default: [daemon] cgroup_root)\n"
	       "      --sysfs-root=DIR    sysfs (default /sys)\n"
	       "      --procfs-root=DIR   procfs (default /proc)\n"
	       "      --no-proc-connector do not listen to process events\n"
	       "      --no-systemd        never talk to systemd\n"
	       "      --systemd-address=ADDRESS  talk to systemd at this D-Bus address (peer to\n"
	       "                          peer, for any cgroup tree; for tests)\n"
	       "      --bus-socket=PATH   socket of the bus API (default /run/tierd/bus)\n"
	       "      --no-bus-api        do not serve the bus API (socket nor system bus)\n"
	       "      --system-bus        also serve it on the system bus, even for a cgroup\n"
	       "                          tree other than /sys/fs/cgroup\n"
	       "      --no-system-bus     serve it on the private socket only\n"
	       "      --rescan-holdoff=SEC  at most one full rescan after lost events per SEC\n"
	       "                          seconds (default 10)\n"
	       "  -f, --foreground        log to stderr even under systemd\n"
	       "  -v, --verbose           debug logging (overrides [daemon] log_level)\n"
	       "      --log-level=LEVEL   err, warning, notice, info or debug\n"
	       "  -h, --help              this help\n"
	       "  -V, --version           print the version\n");
}

static int parse_level(const char *s)
{
	static const char *const names[] = { "emerg", "alert", "crit",	"err",
					     "warning", "notice", "info", "debug" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

enum {
	ARG_DROPIN = 0x100,
	ARG_CGROUP_ROOT,
	ARG_SYSFS_ROOT,
	ARG_PROCFS_ROOT,
	ARG_NO_PROC,
	ARG_NO_SYSTEMD,
	ARG_LOG_LEVEL,
	ARG_BUS_SOCKET,
	ARG_NO_BUS_API,
	ARG_SYSTEM_BUS,
	ARG_NO_SYSTEM_BUS,
	ARG_SYSTEMD_ADDRESS,
	ARG_RESCAN_HOLDOFF,
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dropin-dir", required_argument, NULL, ARG_DROPIN },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
		{ "sysfs-root", required_argument, NULL, ARG_SYSFS_ROOT },
		{ "procfs-root", required_argument, NULL, ARG_PROCFS_ROOT },
		{ "no-proc-connector", no_argument, NULL, ARG_NO_PROC },
		{ "no-systemd", no_argument, NULL, ARG_NO_SYSTEMD },
		{ "systemd-address", required_argument, NULL, ARG_SYSTEMD_ADDRESS },
		{ "bus-socket", required_argument, NULL, ARG_BUS_SOCKET },
		{ "no-bus-api", no_argument, NULL, ARG_NO_BUS_API },
		{ "system-bus", no_argument, NULL, ARG_SYSTEM_BUS },
		{ "no-system-bus", no_argument, NULL, ARG_NO_SYSTEM_BUS },
		{ "rescan-holdoff", required_argument, NULL, ARG_RESCAN_HOLDOFF },
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "log-level", required_argument, NULL, ARG_LOG_LEVEL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct manager_args args = {
		.config = DEFAULT_CONFIG,
		.log_level = -1,
		.system_bus = -1,
	};
	struct manager *m = NULL;
	bool foreground = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:nfvhV", opts, NULL)) >= 0) {
		switch (c) {
		case 'c':
			args.config = optarg;
			break;
		case ARG_DROPIN:
			args.dropin_dir = optarg;
			break;
		case 'n':
			args.dry_run = true;
			break;
		case ARG_CGROUP_ROOT:
			args.cgroup_root = optarg;
			break;
		case ARG_SYSFS_ROOT:
			args.sysfs_root = optarg;
			break;
		case ARG_PROCFS_ROOT:
			args.procfs_root = optarg;
			break;
		case ARG_NO_PROC:
			args.no_proc_connector = true;
			break;
		case ARG_NO_SYSTEMD:
			args.no_systemd = true;
			break;
		case ARG_SYSTEMD_ADDRESS:
			args.systemd_address = optarg;
			break;
		case ARG_BUS_SOCKET:
			args.bus_socket = optarg;
			break;
		case ARG_NO_BUS_API:
			args.no_bus_api = true;
			break;
		case ARG_SYSTEM_BUS:
			args.system_bus = 1;
			break;
		case ARG_NO_SYSTEM_BUS:
			args.system_bus = 0;
			break;
		case ARG_RESCAN_HOLDOFF: {
			char *end = NULL;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || !end || end == optarg || *end || optarg[0] == '-' ||
			    v > 24 * 3600) {
				fprintf(stderr, "tierd: --rescan-holdoff: not a number of seconds "
						"(0-86400): '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			args.rescan_holdoff_usec = v * 1000000ull;
			args.rescan_holdoff_set = true;
			break;
		}
		case 'f':
			foreground = true;
			break;
		case 'v':
			args.log_level = LOG_DEBUG;
			break;
		case ARG_LOG_LEVEL:
			args.log_level = parse_level(optarg);
			if (args.log_level < 0) {
				fprintf(stderr, "tierd: unknown log level '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'h':
			help();
			return EXIT_SUCCESS;
		case 'V':
			printf("tierd %s\n", TIERD_VERSION);
			return EXIT_SUCCESS;
		default:
			return EXIT_FAILURE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tierd: unexpected argument '%s'\n", argv[optind]);
		return EXIT_FAILURE;
	}

	log_open(foreground ? LOG_TARGET_STDERR : LOG_TARGET_AUTO);
	log_set_max_level(args.log_level >= 0 ? args.log_level : LOG_INFO);

	r = manager_new(&args, &m);
	if (r >= 0)
		r = manager_startup(m);
	if (r >= 0)
		r = manager_run(m);
	manager_free(m);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
