// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl: check, explain and apply the memory tiering policy.
 *
 *   tierctl [GLOBAL OPTIONS] VERB [ARGS]
 *
 * Every verb works standalone on the files (policy, cgroup tree, sysfs,
 * procfs); the roots can be injected for tests.  status, explain, reload and
 * apply --dry-run ask the running tierd over its bus API when there is one
 * (tierd-client.c), so they show the policy the daemon has loaded, which
 * may differ from the files after a failed reload.  See tierctl(1).
 *
 * This file: main(), the global options, and what the verbs share
 * (tierctl.h). The verb table and its dispatcher are in verbs.c, the verbs
 * in tierctl-*.c, one file per group.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>

#include <tier.h>

#include "escape.h"
#include "json.h"
#include "macro.h"
#include "tierctl.h"
#include "tierd-client.h"
#include "verbs.h"

#ifndef TIERCTL_VERSION
#define TIERCTL_VERSION "0.2.0"
#endif

/* ------------------------------------------------------------------------
 * Diagnostics and untrusted text
 * ------------------------------------------------------------------------ */

/*
 * Cgroup names (and what derives from them: units, matched values, the
 * daemon's messages) are chosen by whoever may create cgroups: text output
 * shows them through esc(), which escapes newlines, ESC and bytes that are
 * not UTF-8 as \n, \x1b, \xff (escape.h). The copies live until exit;
 * plain strings are returned as they are. JSON escapes on its own.
 */
static struct {
	char **v;
	size_t n, alloc;
} esc_pool;

const char *esc(const char *s)
{
	char *e;

	if (!s || text_is_plain(s))
		return s;
	e = text_escape(s);
	if (!e || ARRAY_PUSH(esc_pool.v, esc_pool.n, esc_pool.alloc, e) < 0) {
		free(e);
		return "(out of memory)";
	}
	return e;
}

void esc_pool_free(void)
{
	for (size_t i = 0; i < esc_pool.n; i++)
		free(esc_pool.v[i]);
	free(esc_pool.v);
	esc_pool.v = NULL;
	esc_pool.n = esc_pool.alloc = 0;
}

/* One line on stderr: "tierctl: " prefix + the message, escaped as a whole
 * (it may quote a cgroup name). */
_printf_(2, 0) static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	_cleanup_free_ char *s = NULL, *e = NULL;
	size_t n;

	if (vasprintf(&s, fmt, ap) < 0) {
		fprintf(stderr, "tierctl: %s(out of memory)\n", prefix);
		return;
	}
	n = strlen(s);
	while (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	e = text_escape(s);
	fprintf(stderr, "tierctl: %s%s\n", prefix, e ? e : "(out of memory)");
}

_printf_(1, 2) void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

/* strerror(), with the refusals of libtier's file access said plainly. */
const char *err_str(int r)
{
	switch (r < 0 ? -r : r) {
	case ELOOP:
		return "is or goes through a symlink, refused";
	case EBADFD:
		return "not a regular file, refused";
	default:
		return strerror(r < 0 ? -r : r);
	}
}

/* "tierctl: <message>: err_str(r)"; returns EXIT_SYSTEM. */
_printf_(2, 3) int fail(int r, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (k < 0)
		s = NULL;
	msg("%s: %s", s ? s : "(out of memory)", err_str(r));
	return EXIT_SYSTEM;
}

_printf_(6, 0) static void log_hook(void *data, int priority, const char *file, int line,
				    const char *fn, const char *format, va_list args)
{
	vmsg("libtier: ", format, args);
}

/*
 * Report an error about a cgroup and return the exit code for it.
 * -ENOENT: the cgroup does not exist; -EOPNOTSUPP: the knob is missing,
 * either because the kernel lacks it or because the cgroup has no memory
 * controller (told apart by memory.current).
 */
int cgroup_fail(struct tier_ctx *ctx, const char *cg, int r, const char *what)
{
	_cleanup_free_ char *v = NULL;

	switch (r) {
	case -ENOENT:
		msg("cgroup %s not found: %s", cg, strerror(ENOENT));
		return EXIT_NOCGROUP;
	case -EOPNOTSUPP:
		if (strcmp(cg, "/") == 0) {
			msg("%s: the root cgroup has no memory.numa_balancing", cg);
			return EXIT_USAGE;
		}
		if (tier_cgroup_read(ctx, cg, "memory.current", &v) == -EOPNOTSUPP) {
			msg("%s: memory controller not enabled (add +memory to the parent's "
			    "cgroup.subtree_control)", cg);
			return EXIT_SYSTEM;
		}
		msg(NOSUPPORT_MSG);
		return EXIT_NOTSUPP;
	default:
		return fail(r, "%s: %s", cg, what);
	}
}

/* ------------------------------------------------------------------------
 * Formatting helpers
 * ------------------------------------------------------------------------ */

/* Human-readable binary size ("16.0G"). */
const char *fmt_bytes(uint64_t v, char buf[static SIZE_BUF])
{
	static const char units[] = "KMGTPE";
	double d = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, SIZE_BUF, "%" PRIu64, v);
		return buf;
	}
	while (d >= 1024.0 && u < 5) {
		d /= 1024.0;
		u++;
	}
	snprintf(buf, SIZE_BUF, "%.1f%c", d, units[u]);
	return buf;
}

/* The same for a limit: "max" for UINT64_MAX, the kernel's "no limit". */
const char *fmt_size(uint64_t v, char buf[static SIZE_BUF])
{
	return v == UINT64_MAX ? "max" : fmt_bytes(v, buf);
}

const char *mode_str(enum tier_mode m)
{
	const char *s = tier_mode_to_string(m);

	return s ? s : "?";
}

/*
 * A cgroup argument from the command line, normalised once here with
 * libtier's one normaliser ("//a/b/" -> "/a/b"), so that every verb and
 * tierd see the path the rules match. A path without the leading '/' is
 * relative to the root (tierctl(1)). -EINVAL for a "." or ".." component.
 */
int parse_cgroup_arg(const char *arg, char **ret)
{
	_cleanup_free_ char *abs = NULL;

	if (arg[0] != '/') {
		if (asprintf(&abs, "/%s", arg) < 0) {
			abs = NULL;
			return -ENOMEM;
		}
		arg = abs;
	}
	return tier_cgroup_path_normalize(arg, ret);
}

/*
 * 0 if cg is a directory below the cgroup root, reached without a
 * symlink; -ENOENT if there is none, -ELOOP if a symlink is on the way
 * (a cgroup2 mount has none: someone put it there).
 */
int cgroup_check(struct tier_ctx *ctx, const char *cg)
{
	_cleanup_close_ int fd = -1;
	int r = tier_cgroup_open(ctx, cg, &fd);

	return r == -ENOTDIR ? -ENOENT : r;
}

/*
 * The effective mode of cg and which cgroup imposes it (the top-most
 * ancestor-or-self holding the most restrictive value; NULL if nothing
 * restricts): libtier's one effective-mode walk.
 */
int effective_mode(struct tier_ctx *ctx, const char *cg, enum tier_mode *ret_mode,
		   char **ret_source)
{
	return tier_cgroup_get_effective_mode(ctx, cg, ret_mode, ret_source);
}

/* A plan entry's desired value of attr, or dflt if it leaves attr alone. */
uint64_t desired_or(const struct tier_plan_entry *e, enum tier_attr attr, uint64_t dflt)
{
	uint64_t v;

	return tier_plan_entry_get_desired(e, attr, &v) == 0 ? v : dflt;
}

/* ------------------------------------------------------------------------
 * Shared setup: policy, context, topology, plan
 * ------------------------------------------------------------------------ */

void print_errors(const struct tier_errors *errors)
{
	size_t n = tier_errors_count(errors);

	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s\n", tier_errors_get(errors, i));
}

/* Load t->config with its drop-ins; report problems; returns an exit code. */
int load_policy(struct tierctl *t, struct tier_policy **ret)
{
	struct tier_errors *errors = tier_errors_new();
	bool missing = false;
	struct stat st;
	size_t n;
	int r;

	if (!errors)
		return fail(-ENOMEM, "cannot load policy");
	r = tier_policy_load(t->config, NULL, errors, ret);
	n = tier_errors_count(errors);
	if (r == -EINVAL && n > 0) {
		print_errors(errors);
		msg("%s: policy has %zu error%s, not used", t->config, n, n == 1 ? "" : "s");
		tier_errors_free(errors);
		return EXIT_POLICY;
	}
	tier_errors_free(errors);
	/* the main file is not there at all (not a dangling symlink, not
	 * a missing drop-in): the first run on a new host */
	if (r == -ENOENT && lstat(t->config, &st) < 0 && errno == ENOENT)
		missing = true;
	if (missing && t->policy_optional) {
		/* status --all lists cgroups: with no policy, none is managed */
		msg("no policy at %s: every cgroup is unmanaged", t->config);
		r = tier_policy_load_buffer(t->config, "", 0, NULL, ret);
		if (r < 0)
			return fail(r, "cannot set up an empty policy");
		return EXIT_OK;
	}
	if (missing) {
		msg("no policy at %s, so nothing is managed: write one (tierd.conf(5); "
		    "the README has a first example), check it with 'tierctl check %s'; "
		    "'tierctl status --all' lists every cgroup without one",
		    t->config, t->config);
		return EXIT_SYSTEM;
	}
	if (r < 0)
		return fail(r, "cannot load policy %s", t->config);
	return EXIT_OK;
}

/*
 * The context. Cgroup root: --cgroup-root, else the policy's cgroup_root,
 * else found (the cgroup2 mount with the memory controller), checked by
 * libtier's one tier_cgroup_root_find() that tierd, tierd-metrics and the
 * hook use too: a root that is not a cgroup2 mount with the memory
 * controller is an error that says why. fallback (a verb that reads no
 * cgroup) is used as it is.
 */
static int open_ctx_at(const char *cg, const char *sysfs_root, const char *procfs_root,
		       const char *fallback, struct tier_ctx **ret)
{
	_cleanup_free_ char *root = NULL, *why = NULL;
	int r;

	if (fallback) {
		root = strdup(fallback);
		r = root ? 0 : -ENOMEM;
	} else {
		r = tier_cgroup_root_find(cg, procfs_root, &root, &why);
	}
	if (r < 0 && why) {
		msg("%s", why);
		return EXIT_SYSTEM;
	}
	if (r < 0)
		return fail(r, "cannot find the cgroup root");
	r = tier_ctx_new(root, sysfs_root, procfs_root, ret);
	if (r < 0)
		return fail(r, "cannot create libtier context");
	tier_ctx_set_log_fn(*ret, log_hook, NULL);
	/* libtier's warnings matter here (a subtree of the tree walk skipped,
	 * once per walk; a knob with an unknown value): show them unless
	 * TIER_LOG says what to show. */
	if (!getenv("TIER_LOG") && tier_ctx_get_log_priority(*ret) < LOG_WARNING)
		tier_ctx_set_log_priority(*ret, LOG_WARNING);
	return EXIT_OK;
}

int open_ctx(struct tierctl *t, const struct tier_policy *policy, const char *fallback,
	     struct tier_ctx **ret)
{
	const char *cg = t->cgroup_root;

	if (!cg && policy)
		cg = tier_policy_daemon(policy)->cgroup_root;
	return open_ctx_at(cg, t->sysfs_root, t->procfs_root, fallback, ret);
}

/* Topology; a failure to read it is not fatal (no residency, no %). */
struct tier_topology *read_topology(struct tier_ctx *ctx)
{
	struct tier_topology *topo = NULL;
	int r = tier_topology_read(ctx, &topo);

	if (r < 0) {
		msg("cannot read memory tiers from %s, ignoring: %s", tier_ctx_get_sysfs_root(ctx),
		    err_str(r));
		return NULL;
	}
	return topo;
}

void session_done(struct session *s)
{
	tier_plan_free(s->plan);
	tier_observed_free(s->observed);
	tier_topology_free(s->topo);
	tier_ctx_unref(s->ctx);
	tier_policy_unref(s->policy);
	memset(s, 0, sizeof(*s));
}

/* Load the policy, observe subtree (NULL = all) and evaluate. */
int session_start(struct tierctl *t, struct session *s, const char *subtree)
{
	int rc, r;

	memset(s, 0, sizeof(*s));
	rc = load_policy(t, &s->policy);
	if (rc)
		return rc;
	rc = open_ctx(t, s->policy, NULL, &s->ctx);
	if (rc)
		return rc;
	if (subtree) {
		r = cgroup_check(s->ctx, subtree);
		if (r < 0)
			return cgroup_fail(s->ctx, subtree, r, "cannot open the cgroup");
	}
	s->topo = read_topology(s->ctx);
	r = tier_observe(s->ctx, s->topo, subtree, TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS,
			 &s->observed);
	if (r == -ENOENT)
		return cgroup_fail(s->ctx, subtree ? subtree : "/", r, "");
	if (r < 0)
		return fail(r, "cannot read the cgroup tree at %s",
			    tier_ctx_get_cgroup_root(s->ctx));
	r = tier_evaluate(s->policy, s->observed, &s->plan);
	if (r < 0)
		return fail(r, "cannot evaluate the policy");
	return EXIT_OK;
}

/* ------------------------------------------------------------------------
 * The running daemon (tierd's bus API)
 * ------------------------------------------------------------------------ */

const char *tierctl_run_dir(const struct tierctl *t, char *buf, size_t size)
{
	const char *sock = t->bus_socket ?: TIERD_BUS_SOCKET, *slash = strrchr(sock, '/');

	if (!slash)
		return ".";
	if (slash == sock)
		return "/";
	snprintf(buf, size, "%.*s", (int)(slash - sock), sock);
	return buf;
}

/*
 * Connect to tierd if this run should ask it.  Returns 1 when connected,
 * 0 to work standalone (--no-daemon, files named on the command line, or
 * no daemon in auto mode), or -EXIT_* when --daemon was given and none
 * answers.  *asked says whether a daemon was looked for.
 */
int daemon_open(struct tierctl *t, struct tierd_client *c, bool *asked)
{
	char why[256];
	int r;

	memset(c, 0, sizeof(*c));
	if (asked)
		*asked = false;
	if (t->daemon == DAEMON_NO || (t->daemon == DAEMON_AUTO && t->config_given))
		return 0;
	if (asked)
		*asked = true;
	r = tierd_client_open(c, t->bus_socket, true);
	if (r >= 0)
		return 1;
	if (r == -ESRCH && t->daemon == DAEMON_AUTO)
		return 0;
	if (r == -ESRCH)
		msg("tierd is not running (%s)", tierd_client_why(c, why, sizeof(why)));
	else
		fail(r, "cannot connect to tierd");
	return r == -ESRCH ? -EXIT_NODAEMON : -EXIT_SYSTEM;
}

/*
 * The context of a verb that shows tierd's answers (c connected): the
 * roots tierd reads (Roots()), so that the knobs and residency shown
 * beside tierd's policy and cgroups are of tierd's tree, not of one
 * tierctl finds itself (with --bus-socket alone they were another tree's:
 * an empty table, "not found").  A root given on the command line wins; a
 * tierd from before Roots() (or a bus policy from before it that refuses
 * it) leaves the roots to open_ctx().
 */
int daemon_open_ctx(struct tierctl *t, struct tierd_client *c, struct tier_ctx **ret)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *cg = NULL, *sys = NULL, *proc = NULL;
	int rc, r;

	r = tierd_client_call(c, "Roots", &error, &reply, NULL);
	if (r >= 0)
		r = sd_bus_message_read(reply, "sss", &cg, &sys, &proc);
	if (r < 0 && !sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD) &&
	    !sd_bus_error_has_name(&error, SD_BUS_ERROR_ACCESS_DENIED)) {
		rc = daemon_fail("Roots", r, &error);
		goto out;
	}
	rc = open_ctx_at(t->cgroup_root ?: cg, t->sysfs_root ?: sys, t->procfs_root ?: proc,
			 NULL, ret);
	if (rc && !t->cgroup_root && cg)
		/* tierd's view of the tree is not this one (another mount
		 * namespace: the DaemonSet's /host/sys/fs/cgroup seen from the
		 * node): say where the root came from and how to name ours */
		msg("%s is the cgroup root of tierd (%s); where it is elsewhere here, "
		    "give it: tierctl --daemon --cgroup-root PATH", cg, c->where);
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	return rc;
}

/* Report a failed call of tierd's METHOD; returns the exit code. */
int daemon_fail(const char *method, int r, const sd_bus_error *error)
{
	if (r == -ESRCH) {
		msg("tierd went away during %s", method);
		return EXIT_NODAEMON;
	}
	if (sd_bus_error_has_name(error, "org.tierd.NoSuchCgroup")) {
		msg("%s", error->message);
		return EXIT_NOCGROUP;
	}
	if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES ||
	    r == -EPERM) {
		/* The bus daemon's message names every matched rule: too much. */
		msg("tierd refused %s: permission denied (%s)", method,
		    strcmp(method, "Reload") == 0 ? "only root may reload" : "see tierd(8), BUS API");
		return EXIT_SYSTEM;
	}
	if (sd_bus_error_is_set(error)) {
		msg("tierd: %s failed: %s", method, error->message ? error->message : error->name);
		return EXIT_SYSTEM;
	}
	return fail(r, "tierd: %s failed", method);
}

/* ------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f, "usage: tierctl [OPTIONS] COMMAND [ARGS]\n\n"
		   "Commands:\n");
	verbs_help(f);
	fprintf(f, "\nOptions:\n"
		   "  -c, --config FILE      policy file (default " DEFAULT_CONFIG ")\n"
		   "  --cgroup-root DIR      cgroup2 mount (default: policy's cgroup_root, else\n"
		   "                         the cgroup2 mount with the memory controller)\n"
		   "  --sysfs-root DIR       sysfs mount (default /sys)\n"
		   "  --procfs-root DIR      procfs mount (default /proc)\n"
		   "  --daemon               ask the running tierd; fail if none answers\n"
		   "  --no-daemon            never ask tierd: work on the files only\n"
		   "  --bus-socket PATH      tierd's private socket (default " TIERD_BUS_SOCKET ")\n"
		   "  -j, --json             print JSON\n"
		   "  -h, --help             this help\n"
		   "  -V, --version          print the version\n\n"
		   "Exit status: 0 ok, 1 policy errors, 2 usage, 3 no such cgroup,\n"
		   "4 kernel lacks memory.numa_balancing, 5 other system error,\n"
		   "6 tierd not running (reload, --daemon), 7 doctor: tierd cannot tier here.\n"
		   "status, explain and apply --dry-run ask a running tierd unless --config or\n"
		   "a --*-root option is given; without one they work on the files.\n"
		   "See tierctl(1) and tierd.conf(5).\n");
}

int main(int argc, char **argv)
{
	enum {
		OPT_CGROUP = 0x100,
		OPT_SYSFS,
		OPT_PROCFS,
		OPT_DAEMON,
		OPT_NO_DAEMON,
		OPT_BUS_SOCKET,
	};
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
		{ "procfs-root", required_argument, NULL, OPT_PROCFS },
		{ "json", no_argument, NULL, 'j' },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "no-daemon", no_argument, NULL, OPT_NO_DAEMON },
		{ "bus-socket", required_argument, NULL, OPT_BUS_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct tierctl t = { .config = DEFAULT_CONFIG };
	const struct verb *v;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hVjc:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			t.config = optarg;
			t.config_given = true;
			break;
		case OPT_CGROUP:
			t.cgroup_root = optarg;
			t.config_given = true;
			break;
		case OPT_SYSFS:
			t.sysfs_root = optarg;
			t.config_given = true;
			break;
		case OPT_PROCFS:
			t.procfs_root = optarg;
			t.config_given = true;
			break;
		case OPT_DAEMON:
			t.daemon = DAEMON_YES;
			break;
		case OPT_NO_DAEMON:
			t.daemon = DAEMON_NO;
			break;
		case OPT_BUS_SOCKET:
			t.bus_socket = optarg;
			break;
		case 'j':
			t.json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("tierctl %s\n", TIERCTL_VERSION);
			return EXIT_OK;
		case ':':
			msg("option '%s' needs an argument", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt && optopt != '?')
				msg("unknown option '-%c' (see tierctl --help)", optopt);
			else
				msg("unknown option '%s' (see tierctl --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[optind], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	v = verb_find(argv[optind]);
	if (!v) {
		const char *near = verb_suggest(argv[optind]);

		if (near)
			msg("unknown command '%s'; did you mean '%s'? (see tierctl --help)",
			    argv[optind], near);
		else
			msg("unknown command '%s' (see tierctl --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (t.json)
		json_init(&t.j, stdout);
	rc = verb_dispatch(&t, v, argc - optind, argv + optind);
	if (t.json)
		json_finish(&t.j);
	esc_pool_free();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fail(-errno, "cannot write output");
		return EXIT_SYSTEM;
	}
	return rc;
}
