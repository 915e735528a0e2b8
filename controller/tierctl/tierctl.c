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
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <tier.h>

#include "escape.h"
#include "json.h"
#include "macro.h"
#include "tierd-client.h"

#ifndef TIERCTL_VERSION
#define TIERCTL_VERSION "0.2.0"
#endif

#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"

#define NOSUPPORT_MSG \
	"kernel does not support memory.numa_balancing (the tierd kernel patches are not applied)"

/* Exit codes, documented in tierctl(1). */
enum {
	EXIT_OK = 0,
	EXIT_POLICY = 1,	/* policy or validation errors */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_NOCGROUP = 3,	/* the cgroup given does not exist */
	EXIT_NOTSUPP = 4,	/* kernel lacks memory.numa_balancing */
	EXIT_SYSTEM = 5,	/* any other system error */
	EXIT_NODAEMON = 6,	/* tierd needed but not reachable */
};

/* Whether to ask a running tierd (--daemon, --no-daemon, neither). */
enum daemon_use {
	DAEMON_AUTO,	/* if one answers and no --config/--*-root was given */
	DAEMON_YES,
	DAEMON_NO,
};

struct tierctl {
	const char *config;
	const char *cgroup_root;
	const char *sysfs_root;
	const char *procfs_root;
	bool config_given;		/* --config or a root option: the files, not tierd */
	enum daemon_use daemon;
	const char *bus_socket;		/* NULL = /run/tierd/bus */
	bool json;
	struct json j;
};

struct verb {
	const char *name;
	int (*run)(struct tierctl *t, const struct verb *v, int argc, char **argv);
	const char *args;
	const char *help;
};

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

static const char *esc(const char *s)
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

static void esc_pool_free(void)
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

_printf_(1, 2) static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

/* strerror(), with the refusals of libtier's file access said plainly. */
static const char *err_str(int r)
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
_printf_(2, 3) static int fail(int r, const char *fmt, ...)
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
static int cgroup_fail(struct tier_ctx *ctx, const char *cg, int r, const char *what)
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

#define SIZE_BUF 32

/* Human-readable binary size ("16.0G"). */
static const char *fmt_bytes(uint64_t v, char buf[static SIZE_BUF])
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
static const char *fmt_size(uint64_t v, char buf[static SIZE_BUF])
{
	return v == UINT64_MAX ? "max" : fmt_bytes(v, buf);
}

static const char *mode_str(enum tier_mode m)
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
static int parse_cgroup_arg(const char *arg, char **ret)
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
static int cgroup_check(struct tier_ctx *ctx, const char *cg)
{
	_cleanup_close_ int fd = -1;
	int r = tier_cgroup_open(ctx, cg, &fd);

	return r == -ENOTDIR ? -ENOENT : r;
}

/*
 * The effective mode of cg and which cgroup imposes it (the nearest
 * ancestor-or-self holding the most restrictive value; NULL if nothing
 * restricts). The resolved mode is FULL when nothing restricts. Errors of
 * cg itself are returned; ancestors without the knob (the root) count as
 * inherit.
 */
static int effective_mode(struct tier_ctx *ctx, const char *cg, enum tier_mode *ret_mode,
			  char **ret_source)
{
	_cleanup_free_ char *p = strdup(cg);
	_cleanup_free_ char *src = NULL;
	enum tier_mode eff = TIER_MODE_INHERIT, m;
	bool self = true;
	int r;

	if (!p)
		return -ENOMEM;
	for (;;) {
		char *slash;

		if (strcmp(p, "/") == 0)
			break;
		r = tier_cgroup_get_mode(ctx, p, &m);
		if (r < 0) {
			if (self)
				return r;
			if (r != -EOPNOTSUPP)
				return r;
			m = TIER_MODE_INHERIT;
		}
		self = false;
		/* Walking up: the topmost cgroup holding the winning value is
		 * the one that binds. */
		if (m != TIER_MODE_INHERIT && tier_mode_restrict(eff, m) == m) {
			free(src);
			src = strdup(p);
			if (!src)
				return -ENOMEM;
			eff = m;
		}
		slash = strrchr(p, '/');
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	if (eff == TIER_MODE_INHERIT || eff == TIER_MODE_FULL) {
		/* Nothing restricts the global sysctl. */
		eff = TIER_MODE_FULL;
		free(src);
		src = NULL;
	}
	*ret_mode = eff;
	*ret_source = TAKE_PTR(src);
	return 0;
}

/* ------------------------------------------------------------------------
 * Shared setup: policy, context, topology, plan
 * ------------------------------------------------------------------------ */

static void print_errors(const struct tier_errors *errors)
{
	size_t n = tier_errors_count(errors);

	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s\n", tier_errors_get(errors, i));
}

/* Load t->config with its drop-ins; report problems; returns an exit code. */
static int load_policy(struct tierctl *t, struct tier_policy **ret)
{
	struct tier_errors *errors = tier_errors_new();
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
	if (r < 0)
		return fail(r, "cannot load policy %s", t->config);
	return EXIT_OK;
}

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/*
 * A root that is not a cgroup2 mount (a cgroup v1 or hybrid host, a typo in
 * cgroup_root) gives confusing results: say so. Not for --cgroup-root, which
 * is how tests point tierctl at a fake tree.
 */
static bool is_cgroup2(const char *root)
{
	struct statfs sfs;

	return statfs(root, &sfs) == 0 && (unsigned long)sfs.f_type == CGROUP2_SUPER_MAGIC;
}

static void warn_not_cgroup2(const char *root)
{
	if (root && access(root, F_OK) == 0 && !is_cgroup2(root))
		msg("warning: %s is not a cgroup2 mount (a cgroup v1 or hybrid host?)", root);
}

/*
 * The context. Cgroup root: --cgroup-root, else the policy's cgroup_root,
 * else fallback, else discovered by the library.
 */
static int open_ctx(struct tierctl *t, const struct tier_policy *policy, const char *fallback,
		    struct tier_ctx **ret)
{
	const char *cg = t->cgroup_root;
	int r;

	if (!cg && policy) {
		cg = tier_policy_daemon(policy)->cgroup_root;
		/* A hybrid host mounts cgroup2 elsewhere (/sys/fs/cgroup/unified):
		 * let the library find it instead of the default. */
		if (cg && strcmp(cg, "/sys/fs/cgroup") == 0 && !is_cgroup2(cg))
			cg = NULL;
	}
	if (!cg)
		cg = fallback;
	r = tier_ctx_new(cg, t->sysfs_root, t->procfs_root, ret);
	if (r == -ENOENT && !cg) {
		msg("no cgroup2 mount found (use --cgroup-root)");
		return EXIT_SYSTEM;
	}
	if (r < 0)
		return fail(r, "cannot create libtier context");
	tier_ctx_set_log_fn(*ret, log_hook, NULL);
	/* libtier's warnings matter here (a subtree of the tree walk skipped,
	 * once per walk; a knob with an unknown value): show them unless
	 * TIER_LOG says what to show. */
	if (!getenv("TIER_LOG") && tier_ctx_get_log_priority(*ret) < LOG_WARNING)
		tier_ctx_set_log_priority(*ret, LOG_WARNING);
	if (!t->cgroup_root && fallback == NULL)
		warn_not_cgroup2(tier_ctx_get_cgroup_root(*ret));
	return EXIT_OK;
}

/* Topology; a failure to read it is not fatal (no residency, no %). */
static struct tier_topology *read_topology(struct tier_ctx *ctx)
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

/* Everything a policy verb needs. */
struct session {
	struct tier_policy *policy;
	struct tier_ctx *ctx;
	struct tier_topology *topo;
	struct tier_observed *observed;
	struct tier_plan *plan;
};

static void session_done(struct session *s)
{
	tier_plan_free(s->plan);
	tier_observed_free(s->observed);
	tier_topology_free(s->topo);
	tier_ctx_unref(s->ctx);
	tier_policy_free(s->policy);
	memset(s, 0, sizeof(*s));
}

/* Load the policy, observe subtree (NULL = all) and evaluate. */
static int session_start(struct tierctl *t, struct session *s, const char *subtree)
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

/*
 * Verb option parsing: --help, --json (also accepted after the verb) and
 * the verb's own flag. Options and arguments may be mixed; "--" ends the
 * options. Returns -1 to continue, or an exit code.
 */
static int verb_opts(struct tierctl *t, const struct verb *v, int argc, char **argv,
		     const struct option *extra, int *flag_val)
{
	struct option opts[4] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'J' },
	};
	int c;

	if (extra)
		opts[2] = extra[0];
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			if (!t->json)
				json_init(&t->j, stdout);
			t->json = true;
			break;
		case 'h':
			printf("usage: tierctl [OPTIONS] %s%s%s\n%s\n", v->name,
			       v->args[0] ? " " : "", v->args, v->help);
			return EXIT_OK;
		case 'F':
			if (flag_val)
				*flag_val = 1;
			break;
		default:
			msg("%s: unknown option '%s' (see tierctl %s --help)", v->name,
			    argv[optind - 1], v->name);
			return EXIT_USAGE;
		}
	}
	return -1;
}

static int want_args(const struct verb *v, int argc, int min, int max)
{
	int n = argc - optind;

	if (n < min || n > max) {
		msg("%s: %s arguments (usage: tierctl %s %s)", v->name,
		    n < min ? "missing" : "too many", v->name, v->args);
		return EXIT_USAGE;
	}
	return -1;
}

/* ------------------------------------------------------------------------
 * The running daemon (tierd's bus API)
 * ------------------------------------------------------------------------ */

/*
 * Connect to tierd if this run should ask it.  Returns 1 when connected,
 * 0 to work standalone (--no-daemon, files named on the command line, or
 * no daemon in auto mode), or -EXIT_* when --daemon was given and none
 * answers.  *asked says whether a daemon was looked for.
 */
static int daemon_open(struct tierctl *t, struct tierd_client *c, bool *asked)
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

/* Report a failed call of tierd's METHOD; returns the exit code. */
static int daemon_fail(const char *method, int r, const sd_bus_error *error)
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

/*
 * The options and arguments of a verb whose first argument is a cgroup:
 * nargs arguments, the first normalised into *ret_cg.  Returns -1 to
 * continue, or an exit code.
 */
static int cgroup_verb_args(struct tierctl *t, const struct verb *v, int argc, char **argv,
			    int nargs, char **ret_cg)
{
	int r;

	r = verb_opts(t, v, argc, argv, NULL, NULL);
	if (r >= 0)
		return r;
	r = want_args(v, argc, nargs, nargs);
	if (r >= 0)
		return r;
	r = parse_cgroup_arg(argv[optind], ret_cg);
	if (r == -ENOMEM)
		return fail(r, "%s", v->name);
	if (r < 0) {
		msg("invalid cgroup path '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

/* ------------------------------------------------------------------------
 * check FILE...
 * ------------------------------------------------------------------------ */

static int verb_check(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	int rc = EXIT_OK, r;

	r = verb_opts(t, v, argc, argv, NULL, NULL);
	if (r >= 0)
		return r;
	r = want_args(v, argc, 1, INT32_MAX);
	if (r >= 0)
		return r;

	if (t->json) {
		json_object_begin(&t->j);
		json_key(&t->j, "files");
		json_array_begin(&t->j);
	}
	for (int i = optind; i < argc; i++) {
		const char *file = argv[i];
		struct tier_errors *errors = tier_errors_new();
		struct tier_policy *policy = NULL;
		size_t n;

		if (!errors)
			return fail(-ENOMEM, "check");
		r = tier_policy_load(file, NULL, errors, &policy);
		n = tier_errors_count(errors);
		print_errors(errors);
		if (r < 0 && n == 0)
			fail(r, "%s", file);
		if (r == -EINVAL)
			rc = rc ?: EXIT_POLICY;
		else if (r < 0)
			rc = EXIT_SYSTEM;
		if (r == 0 && !t->json)
			printf("%s: ok (%zu classes, %zu rules)\n", esc(file),
			       tier_policy_class_count(policy), tier_policy_rule_count(policy));
		if (t->json) {
			json_object_begin(&t->j);
			json_kv_string(&t->j, "file", file);
			json_kv_bool(&t->j, "ok", r == 0);
			if (r == 0) {
				json_kv_uint(&t->j, "classes", tier_policy_class_count(policy));
				json_kv_uint(&t->j, "rules", tier_policy_rule_count(policy));
				json_key(&t->j, "files_read");
				json_array_begin(&t->j);
				for (size_t k = 0; k < tier_policy_file_count(policy); k++)
					json_string(&t->j, tier_policy_file(policy, k));
				json_array_end(&t->j);
			} else if (n == 0) {
				json_kv_string(&t->j, "error", strerror(-r));
			}
			json_key(&t->j, "errors");
			json_array_begin(&t->j);
			for (size_t k = 0; k < n; k++) {
				json_object_begin(&t->j);
				json_kv_string(&t->j, "file", tier_errors_file(errors, k));
				json_kv_uint(&t->j, "line", tier_errors_line(errors, k));
				json_kv_string(&t->j, "message", tier_errors_message(errors, k));
				json_object_end(&t->j);
			}
			json_array_end(&t->j);
			json_object_end(&t->j);
		}
		tier_policy_free(policy);
		tier_errors_free(errors);
	}
	if (t->json) {
		json_array_end(&t->j);
		json_object_end(&t->j);
	}
	return rc;
}

/* ------------------------------------------------------------------------
 * explain CGROUP
 * ------------------------------------------------------------------------ */

/* What the policy says about one cgroup, from the files or from tierd. */
enum { AMT_TOPTIER_MIN, AMT_TOPTIER_MAX, AMT_MEMORY_LOW, AMT_MEMORY_HIGH, _AMT_MAX };
static const char *const amount_keys[_AMT_MAX] = { "toptier_min", "toptier_max", "memory_low",
						     "memory_high" };

struct explain_view {
	const char *policy;		/* the policy file, or "tierd (WHERE)" */
	bool from_daemon;
	const char *unit;
	bool managed;
	const char *rule, *rule_file;
	uint64_t rule_line;
	const char *matcher_kind, *matcher_pattern, *matcher_file, *matched;
	uint64_t matcher_line;
	const char *class_name, *class_mode;
	uint64_t weight;
	struct {
		const char *written;	/* as in the policy; NULL: unset */
		uint64_t bytes;		/* UINT64_MAX: max */
		char buf[TIER_AMOUNT_FORMAT_MAX];
	} amount[_AMT_MAX];
	const char *desired_mode;	/* NULL: left alone */
};

static void view_from_plan(struct explain_view *x, const struct tier_plan_entry *e,
			   const struct tier_observed_cgroup *oc)
{
	const struct tier_class *c = e->class;

	x->unit = oc->unit;
	x->managed = e->rule != NULL;
	if (!e->rule)
		return;
	x->rule = e->rule->name;
	x->rule_file = e->rule->file;
	x->rule_line = e->rule->line;
	if (e->matcher) {
		x->matcher_kind = tier_matcher_kind_to_string(e->matcher->kind);
		x->matcher_pattern = e->matcher->pattern;
		x->matcher_file = e->matcher->file;
		x->matcher_line = e->matcher->line;
		x->matched = e->matched_value;
	}
	x->class_name = c->name;
	x->class_mode = mode_str(c->mode);
	x->weight = c->weight;
	{
		const struct tier_amount *written[_AMT_MAX] = {
			[AMT_TOPTIER_MIN] = &c->toptier_min,
			[AMT_TOPTIER_MAX] = &c->toptier_max,
			[AMT_MEMORY_LOW] = &c->memory_low,
			[AMT_MEMORY_HIGH] = &c->memory_high,
		};
		const uint64_t bytes[_AMT_MAX] = {
			[AMT_TOPTIER_MIN] = e->toptier_min,
			[AMT_TOPTIER_MAX] = e->toptier_max,
			[AMT_MEMORY_LOW] = e->memory_low,
			[AMT_MEMORY_HIGH] = e->memory_high,
		};

		for (size_t i = 0; i < _AMT_MAX; i++) {
			x->amount[i].written = tier_amount_format(written[i], x->amount[i].buf,
								  TIER_AMOUNT_FORMAT_MAX);
			x->amount[i].bytes = bytes[i];
		}
	}
	x->desired_mode = e->set_mode ? mode_str(e->mode) : NULL;
}

static uint64_t parse_u64(const char *s)
{
	if (strcmp(s, "max") == 0)
		return UINT64_MAX;
	return strtoull(s, NULL, 10);
}

/* The fields of ExplainCgroup's (key, value) pairs: strings, numbers, flags. */
#define VIEW_STR(k, f) { k, offsetof(struct explain_view, f), 's' }
#define VIEW_U64(k, f) { k, offsetof(struct explain_view, f), 't' }
static const struct {
	const char *key;
	size_t offset;
	char type;
} view_fields[] = {
	VIEW_STR("unit", unit),
	{ "managed", offsetof(struct explain_view, managed), 'b' },
	VIEW_STR("rule", rule),
	VIEW_STR("rule_file", rule_file),
	VIEW_U64("rule_line", rule_line),
	VIEW_STR("matcher_kind", matcher_kind),
	VIEW_STR("matcher_pattern", matcher_pattern),
	VIEW_STR("matcher_file", matcher_file),
	VIEW_U64("matcher_line", matcher_line),
	VIEW_STR("matched", matched),
	VIEW_STR("class", class_name),
	VIEW_STR("class_mode", class_mode),
	VIEW_U64("weight", weight),
	VIEW_STR("desired_mode", desired_mode),
};

static void view_set(struct explain_view *x, const char *k, const char *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(view_fields); i++) {
		char *f = (char *)x + view_fields[i].offset;

		if (strcmp(k, view_fields[i].key) != 0)
			continue;
		if (view_fields[i].type == 's')
			*(const char **)(void *)f = v;
		else if (view_fields[i].type == 't')
			*(uint64_t *)(void *)f = parse_u64(v);
		else
			*(bool *)(void *)f = strcmp(v, "true") == 0;
		return;
	}
	for (size_t i = 0; i < _AMT_MAX; i++) {
		size_t n = strlen(amount_keys[i]);

		if (strcmp(k, amount_keys[i]) == 0)
			x->amount[i].written = v;
		else if (strncmp(k, amount_keys[i], n) == 0 && strcmp(k + n, "_bytes") == 0)
			x->amount[i].bytes = parse_u64(v);
	}
	/* Other keys are from a newer tierd: ignored. */
}

/* The (key, value) pairs of ExplainCgroup; strings stay in reply. */
static int view_from_reply(struct explain_view *x, sd_bus_message *reply)
{
	const char *k, *v;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "(ss)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(reply, "(ss)", &k, &v)) > 0)
		view_set(x, k, v);
	if (r < 0)
		return r;
	if (x->managed && (!x->rule || !x->class_name))
		return -EBADMSG;
	return sd_bus_message_exit_container(reply);
}

static void explain_text(const struct explain_view *x, const char *cg)
{
	char b[SIZE_BUF];

	printf("%-16s %s\n", "cgroup:", esc(cg));
	if (x->unit)
		printf("%-16s %s\n", "unit:", esc(x->unit));
	printf("%-16s %s\n", "policy:", esc(x->policy));
	if (!x->managed) {
		printf("no rule matches: unmanaged\n");
		return;
	}
	printf("%-16s %s (%s:%" PRIu64 ")\n", "rule:", esc(x->rule),
	       x->rule_file ? esc(x->rule_file) : "?", x->rule_line);
	if (x->matcher_kind) {
		printf("%-16s %s = %s", "matched by:", esc(x->matcher_kind),
		       esc(x->matcher_pattern));
		if (x->matched &&
		    (!x->matcher_pattern || strcmp(x->matched, x->matcher_pattern) != 0))
			printf(" (%s)", esc(x->matched));
		printf("\n");
	}
	printf("%-16s %s\n", "class:", esc(x->class_name));
	printf("%-16s %s\n", "desired mode:",
	       x->desired_mode ? esc(x->desired_mode) : "(left alone)");
	printf("%-16s %" PRIu64 "\n", "weight:", x->weight);
	for (size_t i = 0; i < _AMT_MAX; i++) {
		const char *w = x->amount[i].written;

		if (!w)
			continue;
		printf("%s:%*s %s", amount_keys[i], (int)(15 - strlen(amount_keys[i])), "", esc(w));
		if (w[0] && w[strlen(w) - 1] == '%')
			printf(" of the fast tier = %s", fmt_size(x->amount[i].bytes, b));
		printf("\n");
	}
}

static void explain_json(struct json *j, const struct explain_view *x, const char *cg)
{
	json_kv_string(j, "cgroup", cg);
	json_kv_string(j, "unit", x->unit);
	json_kv_string(j, "policy", x->policy);
	json_kv_bool(j, "from_daemon", x->from_daemon);
	json_kv_bool(j, "managed", x->managed);
	if (!x->managed) {
		json_kv_null(j, "rule");
		json_kv_null(j, "matcher");
		json_kv_null(j, "class");
		json_kv_null(j, "desired_mode");
		return;
	}
	json_key(j, "rule");
	json_object_begin(j);
	json_kv_string(j, "name", x->rule);
	json_kv_string(j, "file", x->rule_file);
	json_kv_uint(j, "line", x->rule_line);
	json_object_end(j);
	json_key(j, "matcher");
	if (x->matcher_kind) {
		json_object_begin(j);
		json_kv_string(j, "kind", x->matcher_kind);
		json_kv_string(j, "pattern", x->matcher_pattern);
		json_kv_string(j, "file", x->matcher_file);
		json_kv_uint(j, "line", x->matcher_line);
		json_kv_string(j, "matched", x->matched);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "class");
	json_object_begin(j);
	json_kv_string(j, "name", x->class_name);
	json_kv_string(j, "mode", x->class_mode);
	json_kv_uint(j, "weight", x->weight);
	for (size_t i = 0; i < _AMT_MAX; i++) {
		json_key(j, amount_keys[i]);
		if (!x->amount[i].written) {
			json_null(j);
			continue;
		}
		json_object_begin(j);
		json_kv_string(j, "value", x->amount[i].written);
		if (x->amount[i].bytes == UINT64_MAX)
			json_kv_null(j, "bytes");
		else
			json_kv_uint(j, "bytes", x->amount[i].bytes);
		json_object_end(j);
	}
	json_object_end(j);
	json_kv_string(j, "desired_mode", x->desired_mode);
}

static int verb_explain(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	_cleanup_free_ char *cg = NULL, *src = NULL, *policy = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct tierd_client c;
	struct explain_view x = { 0 };
	struct session s = { 0 };
	struct tier_ctx *ctx;
	enum tier_mode cur = TIER_MODE_INVALID, eff = TIER_MODE_INVALID;
	int cur_r, eff_r;
	int rc, r;

	r = cgroup_verb_args(t, v, argc, argv, 1, &cg);
	if (r >= 0)
		return r;

	r = daemon_open(t, &c, NULL);
	if (r < 0)
		return -r;
	if (r > 0) {
		/* The policy tierd has loaded; the knobs from the tree. */
		r = tierd_client_call(&c, "ExplainCgroup", &error, &reply, "s", cg);
		if (r < 0) {
			rc = daemon_fail("ExplainCgroup", r, &error);
			goto out;
		}
		r = view_from_reply(&x, reply);
		if (r < 0) {
			rc = fail(r, "cannot parse tierd's answer");
			goto out;
		}
		if (asprintf(&policy, "tierd (%s)", c.where) < 0) {
			policy = NULL;
			rc = fail(-ENOMEM, "explain");
			goto out;
		}
		x.policy = policy;
		x.from_daemon = true;
		rc = open_ctx(t, NULL, NULL, &s.ctx);
		if (rc)
			goto out;
	} else {
		const struct tier_observed_cgroup *oc = NULL;
		const struct tier_plan_entry *e;

		rc = session_start(t, &s, cg);
		if (rc)
			goto out;
		e = tier_plan_find(s.plan, cg);
		for (size_t i = 0; i < s.observed->n_cgroups; i++)
			if (strcmp(s.observed->cgroups[i].path, cg) == 0)
				oc = &s.observed->cgroups[i];
		if (!e || !oc) {
			rc = cgroup_fail(s.ctx, cg, -ENOENT, "");
			goto out;
		}
		view_from_plan(&x, e, oc);
		x.policy = t->config;
	}
	ctx = s.ctx;

	if (strcmp(cg, "/") == 0) {
		cur_r = -EOPNOTSUPP;
		eff_r = 0;
		eff = TIER_MODE_FULL;
	} else {
		cur_r = tier_cgroup_get_mode(ctx, cg, &cur);
		eff_r = effective_mode(ctx, cg, &eff, &src);
	}
	if (cur_r == -ENOENT) {
		rc = cgroup_fail(ctx, cg, cur_r, "");
		goto out;
	}

	if (t->json) {
		struct json *j = &t->j;

		json_object_begin(j);
		explain_json(j, &x, cg);
		json_kv_bool(j, "supported", cur_r != -EOPNOTSUPP || strcmp(cg, "/") == 0);
		json_kv_string(j, "configured", cur_r == 0 ? mode_str(cur) : NULL);
		json_kv_string(j, "effective", eff_r == 0 ? mode_str(eff) : NULL);
		json_kv_string(j, "effective_source", src);
		json_object_end(j);
	} else {
		explain_text(&x, cg);
		if (strcmp(cg, "/") == 0)
			printf("%-16s %s\n", "configured mode:", "(the root has no knob)");
		else if (cur_r == 0)
			printf("%-16s %s\n", "configured mode:", mode_str(cur));
		else if (cur_r == -EOPNOTSUPP)
			printf("%-16s %s\n", "configured mode:", "(no memory.numa_balancing file)");
		else
			printf("%-16s (%s)\n", "configured mode:", err_str(cur_r));
		if (eff_r == 0) {
			bool other = src && strcmp(src, cg) != 0;

			printf("%-16s %s%s%s%s\n", "effective mode:", mode_str(eff),
			       other ? " (set by " : "", other ? esc(src) : "", other ? ")" : "");
		}
	}
	if (cur_r == -EOPNOTSUPP && strcmp(cg, "/") != 0)
		rc = cgroup_fail(ctx, cg, cur_r, "");
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	tierd_client_close(&c);
	session_done(&s);
	return rc;
}

/* ------------------------------------------------------------------------
 * apply [--dry-run]
 * ------------------------------------------------------------------------ */

/* One changed (or, dry run, to be changed) file: a line, or a JSON object. */
static void print_change(struct tierctl *t, const char *cgroup, const char *attr,
			 const char *old_value, const char *new_value, const char *rule,
			 const char *cls)
{
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_string(&t->j, "cgroup", cgroup);
		json_kv_string(&t->j, "attribute", attr);
		json_kv_string(&t->j, "old", old_value);
		json_kv_string(&t->j, "new", new_value);
		json_kv_string(&t->j, "rule", rule);
		json_kv_string(&t->j, "class", cls);
		json_object_end(&t->j);
	} else {
		printf("%s: %s %s -> %s (rule %s, class %s)\n", esc(cgroup), esc(attr),
		       old_value[0] ? esc(old_value) : "?", esc(new_value), esc(rule), esc(cls));
	}
}

/*
 * apply --dry-run with a running tierd: the changes its next reconcile
 * would make with the policy it has loaded (DryRun), in the same format.
 */
static int dry_run_daemon(struct tierctl *t, struct tierd_client *c)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *cg, *cls, *rule, *knob, *o, *n, *last = NULL;
	size_t n_changes = 0, n_cgroups = 0;
	int rc = EXIT_OK, r;

	r = tierd_client_call(c, "DryRun", &error, &reply, NULL);
	if (r < 0) {
		rc = daemon_fail("DryRun", r, &error);
		goto out;
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_bool(&t->j, "dry_run", true);
		json_kv_string(&t->j, "source", c->where);
		json_key(&t->j, "changes");
		json_array_begin(&t->j);
	}
	r = sd_bus_message_enter_container(reply, 'a', "(ssssss)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(reply, "(ssssss)", &cg, &cls, &rule, &knob, &o, &n)) > 0) {
		n_changes++;
		if (!last || strcmp(last, cg) != 0)
			n_cgroups++;
		last = cg;
		print_change(t, cg, knob, o, n, rule, cls);
	}
	if (r < 0) {
		rc = fail(r, "cannot parse tierd's answer");
		goto out;
	}
	if (t->json) {
		json_array_end(&t->j);
		json_key(&t->j, "summary");
		json_object_begin(&t->j);
		json_kv_uint(&t->j, "changed", n_cgroups);
		json_kv_uint(&t->j, "changes", n_changes);
		json_object_end(&t->j);
		json_object_end(&t->j);
	} else {
		printf("dry run (tierd, %s): %zu cgroup%s would change, %zu change%s\n",
		       esc(c->where), n_cgroups, n_cgroups == 1 ? "" : "s", n_changes,
		       n_changes == 1 ? "" : "s");
	}
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	return rc;
}

static int verb_apply(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	static const struct option dry[] = { { "dry-run", no_argument, NULL, 'F' } };
	struct tier_apply_results *res = NULL;
	size_t n_seen = 0, n_managed = 0, n_changed = 0, n_unchanged = 0, n_vanished = 0;
	size_t n_unsupported = 0, n_nomemcg = 0, n_failed = 0;
	int dry_run = 0;
	struct session s;
	int rc, r;

	r = verb_opts(t, v, argc, argv, dry, &dry_run);
	if (r >= 0)
		return r;
	r = want_args(v, argc, 0, 0);
	if (r >= 0)
		return r;
	if (dry_run) {
		struct tierd_client c;

		r = daemon_open(t, &c, NULL);
		if (r < 0)
			return -r;
		if (r > 0) {
			rc = dry_run_daemon(t, &c);
			tierd_client_close(&c);
			return rc;
		}
	}

	rc = session_start(t, &s, NULL);
	if (rc)
		goto out;
	r = tier_apply(s.ctx, s.plan, dry_run ? TIER_APPLY_DRY_RUN : 0, &res);
	if (r < 0) {
		rc = fail(r, "apply");
		goto out;
	}

	if (t->json) {
		json_object_begin(&t->j);
		json_kv_bool(&t->j, "dry_run", dry_run);
		json_key(&t->j, "changes");
		json_array_begin(&t->j);
	}
	n_seen = tier_apply_results_count(res);
	for (size_t i = 0; i < n_seen; i++) {
		const struct tier_apply_result *a = tier_apply_results_get(res, i);
		const struct tier_plan_entry *e = tier_plan_entry(s.plan, i);
		bool changed = false, unsupported = false;

		if (!e || strcmp(e->path, a->path) != 0)
			e = tier_plan_find(s.plan, a->path);
		if (a->status == TIER_APPLY_UNMANAGED || !e || !e->rule)
			continue;
		n_managed++;
		if (a->status == TIER_APPLY_VANISHED) {
			n_vanished++;
			continue;
		}
		for (unsigned k = 0; k < a->n_changes; k++) {
			const struct tier_apply_change *ch = &a->changes[k];
			const char *attr = tier_attr_to_string(ch->attr);

			switch (ch->status) {
			case TIER_APPLY_CHANGED:
				changed = true;
				print_change(t, a->path, attr, ch->old_value, ch->new_value,
					     e->rule->name, e->class->name);
				break;
			case TIER_APPLY_UNSUPPORTED:
				unsupported = true;
				break;
			case TIER_APPLY_ERROR:
				n_failed++;
				fail(ch->error, "%s: cannot write %s %s", a->path, attr,
				     ch->new_value);
				break;
			default:
				break;
			}
		}
		if (unsupported) {
			_cleanup_free_ char *cur = NULL;

			if (tier_cgroup_read(s.ctx, a->path, "memory.current", &cur) ==
			    -EOPNOTSUPP) {
				n_nomemcg++;
				msg("%s: memory controller not enabled, skipped", a->path);
			} else {
				n_unsupported++;
			}
		}
		if (changed)
			n_changed++;
		else if (a->status == TIER_APPLY_UNCHANGED)
			n_unchanged++;
	}
	if (t->json) {
		json_array_end(&t->j);
		json_key(&t->j, "summary");
		json_object_begin(&t->j);
		json_kv_uint(&t->j, "cgroups", n_seen);
		json_kv_uint(&t->j, "managed", n_managed);
		json_kv_uint(&t->j, "changed", n_changed);
		json_kv_uint(&t->j, "unchanged", n_unchanged);
		json_kv_uint(&t->j, "vanished", n_vanished);
		json_kv_uint(&t->j, "unsupported", n_unsupported);
		json_kv_uint(&t->j, "no_memory_controller", n_nomemcg);
		json_kv_uint(&t->j, "failed", n_failed);
		json_object_end(&t->j);
		json_object_end(&t->j);
	} else {
		printf("%s%zu cgroups, %zu managed, %zu %s, %zu unchanged", dry_run ? "dry run: " : "",
		       n_seen, n_managed, n_changed, dry_run ? "would change" : "changed",
		       n_unchanged);
		if (n_vanished)
			printf(", %zu vanished", n_vanished);
		if (n_unsupported)
			printf(", %zu unsupported", n_unsupported);
		if (n_nomemcg)
			printf(", %zu without memory controller", n_nomemcg);
		printf(", %zu failed\n", n_failed);
	}
	if (n_unsupported) {
		msg(NOSUPPORT_MSG);
		rc = EXIT_NOTSUPP;
	}
	if (n_failed)
		rc = EXIT_SYSTEM;
out:
	tier_apply_results_free(res);
	session_done(&s);
	return rc;
}

/* ------------------------------------------------------------------------
 * get CGROUP / set CGROUP MODE
 * ------------------------------------------------------------------------ */

static int verb_get(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	_cleanup_free_ char *cg = NULL, *src = NULL;
	struct tier_ctx *ctx = NULL;
	enum tier_mode cur = TIER_MODE_INVALID, eff = TIER_MODE_FULL;
	bool root;
	int rc, r;

	r = cgroup_verb_args(t, v, argc, argv, 1, &cg);
	if (r >= 0)
		return r;
	rc = open_ctx(t, NULL, NULL, &ctx);
	if (rc)
		return rc;
	root = strcmp(cg, "/") == 0;
	r = cgroup_check(ctx, cg);
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot open the cgroup");
		goto out;
	}
	if (!root) {
		r = tier_cgroup_get_mode(ctx, cg, &cur);
		if (r < 0) {
			rc = cgroup_fail(ctx, cg, r, "cannot read memory.numa_balancing");
			goto out;
		}
		r = effective_mode(ctx, cg, &eff, &src);
		if (r < 0) {
			rc = cgroup_fail(ctx, cg, r, "cannot read the effective mode");
			goto out;
		}
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_string(&t->j, "cgroup", cg);
		json_kv_string(&t->j, "configured", root ? NULL : mode_str(cur));
		json_kv_string(&t->j, "effective", mode_str(eff));
		json_kv_string(&t->j, "effective_source", src);
		json_object_end(&t->j);
	} else if (root) {
		printf("%s: configured -, effective %s (the root has no knob)\n", esc(cg),
		       mode_str(eff));
	} else {
		printf("%s: configured %s, effective %s", esc(cg), mode_str(cur), mode_str(eff));
		if (src && strcmp(src, cg) != 0)
			printf(" (set by %s)", esc(src));
		printf("\n");
	}
out:
	tier_ctx_unref(ctx);
	return rc;
}

static int verb_set(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	_cleanup_free_ char *cg = NULL;
	struct tier_ctx *ctx = NULL;
	enum tier_mode old, mode;
	int rc, r;

	r = cgroup_verb_args(t, v, argc, argv, 2, &cg);
	if (r >= 0)
		return r;
	if (tier_mode_from_string(argv[optind + 1], &mode) < 0) {
		msg("invalid mode '%s' (expected inherit, full, promote or off)",
		    argv[optind + 1]);
		return EXIT_USAGE;
	}
	rc = open_ctx(t, NULL, NULL, &ctx);
	if (rc)
		return rc;
	r = cgroup_check(ctx, cg);
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot open the cgroup");
		goto out;
	}
	r = tier_cgroup_get_mode(ctx, cg, &old);
	if (r < 0) {
		rc = cgroup_fail(ctx, cg, r, "cannot read memory.numa_balancing");
		goto out;
	}
	if (old != mode) {
		r = tier_cgroup_set_mode(ctx, cg, mode);
		if (r < 0) {
			rc = cgroup_fail(ctx, cg, r, "cannot write memory.numa_balancing");
			goto out;
		}
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_string(&t->j, "cgroup", cg);
		json_kv_string(&t->j, "old", mode_str(old));
		json_kv_string(&t->j, "new", mode_str(mode));
		json_kv_bool(&t->j, "changed", old != mode);
		json_object_end(&t->j);
	} else if (old != mode) {
		printf("%s: memory.numa_balancing %s -> %s\n", esc(cg), mode_str(old),
		       mode_str(mode));
	} else {
		printf("%s: memory.numa_balancing already %s\n", esc(cg), mode_str(mode));
	}
out:
	tier_ctx_unref(ctx);
	return rc;
}

/* ------------------------------------------------------------------------
 * status [--all]
 * ------------------------------------------------------------------------ */

/* One row of the status table: from the local plan (e) or from tierd. */
struct status_row {
	const struct tier_plan_entry *e;	/* NULL for rows from tierd */
	const char *path;
	const char *class_name;			/* NULL: unmanaged */
	const char *rule_name;
	struct tier_cgroup_info info;
	bool shared;		/* takes part in the fair share (top-most managed) */
	uint64_t target;
};

static bool path_is_under(const char *path, const char *top)
{
	size_t n = strlen(top);

	return strncmp(path, top, n) == 0 && (path[n] == '/' || strcmp(top, "/") == 0);
}

/*
 * Fair-share targets of the fast tier, as tierd computes them
 * (tierd-fair.c): the top-most managed cgroups share the fast-tier capacity
 * minus [daemon] fast_tier_reserve by class weight, within toptier_min/max
 * and their demand (fast + slow residency).  tierd holds a target within
 * [daemon] hysteresis of this value.
 */
static int status_targets(const struct session *s, struct status_row *rows, size_t n)
{
	_cleanup_free_ struct tier_share_input *in = NULL;
	_cleanup_free_ uint64_t *t = NULL;
	_cleanup_free_ size_t *idx = NULL;
	const char *last_top = NULL;
	uint64_t fast, reserve, capacity, populated;
	size_t m = 0;
	int r;

	if (!s->topo)
		return 0;
	fast = tier_topology_fast_capacity(s->topo);
	reserve = tier_policy_daemon(s->policy)->fast_tier_reserve;
	capacity = fast > reserve ? fast - reserve : 0;
	in = calloc(n ?: 1, sizeof(*in));
	t = calloc(n ?: 1, sizeof(*t));
	idx = calloc(n ?: 1, sizeof(*idx));
	if (!in || !t || !idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct status_row *row = &rows[i];

		if (!row->e->rule || strcmp(row->e->path, "/") == 0)
			continue;
		if (last_top && path_is_under(row->e->path, last_top))
			continue;
		last_top = row->e->path;
		if (!(row->info.valid & TIER_INFO_RESIDENCY))
			continue;
		/* Like tierd: an empty cgroup holds no share. */
		if (tier_cgroup_read_stat(s->ctx, row->path, "cgroup.events", "populated",
					  &populated) == 0 && populated == 0)
			continue;
		row->shared = true;
		in[m] = (struct tier_share_input){
			.weight = row->e->weight ?: 100,
			.min = row->e->toptier_min,
			.max = row->e->toptier_max,
			.demand = add_sat_u64(row->info.fast_bytes, row->info.slow_bytes),
		};
		if (in[m].min > in[m].max)
			in[m].min = in[m].max;
		idx[m++] = i;
	}
	r = tier_fair_share(capacity, m, in, t);
	if (r < 0)
		return r;
	for (size_t k = 0; k < m; k++)
		rows[idx[k]].target = t[k];
	return 0;
}

static const char *fmt_percent(uint64_t part, uint64_t whole, char buf[static SIZE_BUF])
{
	double pc;

	if (whole == 0)
		return "-";
	pc = 100.0 * (double)part / (double)whole;
	if (pc > 999.0)
		return ">999%";	/* the column's width; JSON has the bytes */
	snprintf(buf, SIZE_BUF, "%.0f%%", pc);
	return buf;
}

/* What status says about the daemon: asked, and its STATUS= text if it runs. */
struct daemon_status {
	bool asked;
	char *status;		/* NULL: not running */
	char where[128];
	sd_bus_message *list;	/* ListCgroups reply: the rows' strings */
	struct tierd_client c;	/* open while status is set */
};

static int status_daemon(struct tierctl *t, struct daemon_status *d)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *text;
	int rc = EXIT_OK, r;

	r = daemon_open(t, &d->c, &d->asked);
	if (r <= 0)
		return -r;
	r = tierd_client_call(&d->c, "Status", &error, &reply, NULL);
	if (r >= 0)
		r = sd_bus_message_read(reply, "s", &text);
	if (r >= 0) {
		d->status = strdup(text);
		if (!d->status)
			rc = fail(-ENOMEM, "status");
		snprintf(d->where, sizeof(d->where), "%s", d->c.where);
	} else if (r != -ESRCH || t->daemon == DAEMON_YES) {
		rc = daemon_fail("Status", r, &error);
	}
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	if (!d->status)
		tierd_client_close(&d->c);
	return rc;
}

/* row->info of row->path: 1, or 0 if it vanished meanwhile, or -1 (said why). */
static int status_row_read(const struct session *s, struct status_row *row)
{
	int r = tier_cgroup_read_info(s->ctx, s->topo, row->path, &row->info);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		fail(r, "%s: cannot read", row->path);
		return -1;
	}
	return 1;
}

/*
 * The rows from tierd (ListCgroups: path, class, rule, target); the local
 * tree gives each row's modes and residency.  s gets the context and
 * topology only.
 */
static int status_rows_daemon(struct tierctl *t, struct daemon_status *d, bool all,
			      struct session *s, struct status_row **ret_rows, size_t *ret_n)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	struct status_row *rows = NULL;
	size_t n = 0, alloc = 0;
	const char *path, *cls, *rule;
	uint64_t target;
	int rc, r;

	r = tierd_client_call(&d->c, "ListCgroups", &error, &d->list, "b", all);
	tierd_client_close(&d->c);
	if (r < 0) {
		rc = daemon_fail("ListCgroups", r, &error);
		sd_bus_error_free(&error);
		return rc;
	}
	rc = open_ctx(t, NULL, NULL, &s->ctx);
	if (rc)
		return rc;
	s->topo = read_topology(s->ctx);
	r = sd_bus_message_enter_container(d->list, 'a', "(ssst)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(d->list, "(ssst)", &path, &cls, &rule, &target)) > 0) {
		struct status_row row = {
			.path = path,
			.class_name = cls[0] ? cls : NULL,
			.rule_name = rule[0] ? rule : NULL,
			.shared = target != UINT64_MAX,
			.target = target,
		};

		r = status_row_read(s, &row);
		if (r < 0)
			rc = EXIT_SYSTEM;
		if (r > 0 && ARRAY_PUSH(rows, n, alloc, row) < 0) {
			r = -ENOMEM;
			break;
		}
		r = 0;
	}
	*ret_rows = rows;
	*ret_n = n;
	if (r < 0)
		return fail(r, "cannot read tierd's answer");
	return rc;
}

static int verb_status(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	static const struct option all_opt[] = { { "all", no_argument, NULL, 'F' } };
	size_t width = strlen("CGROUP"), cwidth = strlen("CLASS"), n, n_rows = 0,
	       n_unsupported = 0;
	_cleanup_free_ struct status_row *rows = NULL;
	struct daemon_status d = { 0 };
	int all = 0;
	struct session s;
	int rc, r;

	r = verb_opts(t, v, argc, argv, all_opt, &all);
	if (r >= 0)
		return r;
	r = want_args(v, argc, 0, 0);
	if (r >= 0)
		return r;
	rc = status_daemon(t, &d);
	if (rc)
		return rc;
	memset(&s, 0, sizeof(s));
	if (!t->json && d.asked) {
		if (d.status)
			printf("tierd (%s): %s\n\n", esc(d.where), esc(d.status));
		else
			printf("tierd: not running; the table below is computed from %s\n\n",
			       esc(t->config));
	}
	if (d.status) {
		/* The cgroups, classes and targets of tierd; residency from the tree. */
		rc = status_rows_daemon(t, &d, all, &s, &rows, &n_rows);
		if (rc)
			goto out;
		goto table;
	}
	rc = session_start(t, &s, NULL);
	if (rc)
		goto out;

	n = tier_plan_count(s.plan);
	rows = calloc(n ?: 1, sizeof(*rows));
	if (!rows) {
		rc = fail(-ENOMEM, "status");
		goto out;
	}
	/* Rows: every managed (--all: every) cgroup still there, in tree order. */
	for (size_t i = 0; i < n; i++) {
		const struct tier_plan_entry *e = tier_plan_entry(s.plan, i);
		struct status_row *row = &rows[n_rows];

		if (!e->rule && !all)
			continue;
		*row = (struct status_row){
			.e = e,
			.path = e->path,
			.class_name = e->class ? e->class->name : NULL,
			.rule_name = e->rule ? e->rule->name : NULL,
		};
		r = status_row_read(&s, row);
		if (r < 0)
			rc = EXIT_SYSTEM;
		if (r > 0)
			n_rows++;
	}
	r = status_targets(&s, rows, n_rows);
	if (r < 0) {
		rc = fail(r, "cannot compute the fast-tier targets");
		goto out;
	}
table:
	for (size_t i = 0; i < n_rows && !t->json; i++) {
		if (strlen(esc(rows[i].path)) > width)
			width = strlen(esc(rows[i].path));
		if (rows[i].class_name && strlen(esc(rows[i].class_name)) > cwidth)
			cwidth = strlen(esc(rows[i].class_name));
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_key(&t->j, "daemon");
		if (d.asked) {
			json_object_begin(&t->j);
			json_kv_bool(&t->j, "running", d.status != NULL);
			json_kv_string(&t->j, "where", d.status ? d.where : NULL);
			json_kv_string(&t->j, "status", d.status);
			json_object_end(&t->j);
		} else {
			json_null(&t->j);
		}
		json_key(&t->j, "cgroups");
		json_array_begin(&t->j);
	} else {
		printf("%-*s  %-*s  %-10s  %-10s  %9s  %9s  %9s  %6s\n", (int)width, "CGROUP",
		       (int)cwidth, "CLASS", "CONFIGURED", "EFFECTIVE", "FAST", "SLOW", "TARGET",
		       "FAST%");
	}
	for (size_t i = 0; i < n_rows; i++) {
		const struct status_row *row = &rows[i];
		const struct tier_cgroup_info *info = &row->info;
		bool has_mode, has_res;
		char b1[SIZE_BUF], b2[SIZE_BUF], b3[SIZE_BUF], b4[SIZE_BUF];

		has_mode = info->valid & TIER_INFO_MODE;
		has_res = info->valid & TIER_INFO_RESIDENCY;
		if (!has_mode && row->class_name && strcmp(row->path, "/") != 0)
			n_unsupported++;
		if (t->json) {
			json_object_begin(&t->j);
			json_kv_string(&t->j, "cgroup", row->path);
			json_kv_string(&t->j, "class", row->class_name);
			json_kv_string(&t->j, "rule", row->rule_name);
			json_kv_string(&t->j, "configured", has_mode ? mode_str(info->mode) : NULL);
			json_kv_string(&t->j, "effective",
				       has_mode ? mode_str(info->effective_mode) : NULL);
			if (has_res) {
				json_kv_uint(&t->j, "fast_bytes", info->fast_bytes);
				json_kv_uint(&t->j, "slow_bytes", info->slow_bytes);
			} else {
				json_kv_null(&t->j, "fast_bytes");
				json_kv_null(&t->j, "slow_bytes");
			}
			if (row->shared)
				json_kv_uint(&t->j, "target_bytes", row->target);
			else
				json_kv_null(&t->j, "target_bytes");
			json_object_end(&t->j);
		} else {
			printf("%-*s  %-*s  %-10s  %-10s  %9s  %9s  %9s  %6s\n", (int)width,
			       esc(row->path), (int)cwidth,
			       row->class_name ? esc(row->class_name) : "-",
			       has_mode ? mode_str(info->mode) : "-",
			       has_mode ? mode_str(info->effective_mode) : "-",
			       has_res ? fmt_bytes(info->fast_bytes, b1) : "-",
			       has_res ? fmt_bytes(info->slow_bytes, b2) : "-",
			       row->shared ? fmt_bytes(row->target, b3) : "-",
			       row->shared ? fmt_percent(info->fast_bytes, row->target, b4) : "-");
		}
	}
	if (t->json) {
		json_array_end(&t->j);
		json_object_end(&t->j);
	}
	if (n_unsupported)
		msg("%zu managed cgroup%s without memory.numa_balancing: " NOSUPPORT_MSG
		    " or the memory controller is not enabled there",
		    n_unsupported, n_unsupported == 1 ? "" : "s");
out:
	sd_bus_message_unref(d.list);
	free(d.status);
	session_done(&s);
	return rc;
}

/* ------------------------------------------------------------------------
 * reload
 * ------------------------------------------------------------------------ */

/* Make the running tierd re-read its policy; needs the daemon. */
static int verb_reload(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct tierd_client c;
	const char *err = "";
	int ok = 0, rc = EXIT_OK, r;

	r = verb_opts(t, v, argc, argv, NULL, NULL);
	if (r >= 0)
		return r;
	r = want_args(v, argc, 0, 0);
	if (r >= 0)
		return r;
	if (t->daemon == DAEMON_NO) {
		msg("reload: tells the running tierd to re-read its policy; not with --no-daemon");
		return EXIT_USAGE;
	}
	/* Files named on the command line do not matter here: always ask tierd. */
	t->daemon = DAEMON_YES;
	r = daemon_open(t, &c, NULL);
	if (r < 0)
		return -r;
	r = tierd_client_call(&c, "Reload", &error, &reply, NULL);
	if (r >= 0)
		r = sd_bus_message_read(reply, "bs", &ok, &err);
	if (r < 0) {
		rc = daemon_fail("Reload", r, &error);
		goto out;
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_bool(&t->j, "reloaded", ok);
		json_kv_string(&t->j, "error", ok ? NULL : err);
		json_kv_string(&t->j, "source", c.where);
		json_object_end(&t->j);
	} else if (ok) {
		printf("tierd reloaded its policy\n");
	}
	if (!ok) {
		msg("tierd kept its previous policy: %s", err[0] ? err : "reload failed");
		msg("run 'tierctl check FILE' for every error, or see the journal (journalctl -u tierd)");
		rc = EXIT_POLICY;
	}
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	tierd_client_close(&c);
	return rc;
}

/* ------------------------------------------------------------------------
 * topology
 * ------------------------------------------------------------------------ */

/*
 * kernel.numa_balancing from procfs, -1 if unreadable. The procfs root may
 * come from the command line: a FIFO or a device there is not waited on or
 * read (O_NONBLOCK, regular files only), and one short read is all.
 */
static long read_numa_balancing_sysctl(struct tier_ctx *ctx)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	char buf[32], *end;
	ssize_t n;
	long v;

	if (asprintf(&path, "%s/sys/kernel/numa_balancing", tier_ctx_get_procfs_root(ctx)) < 0) {
		path = NULL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -1;
	return v;
}

static void fmt_nodes(const struct tier_memtier *tier, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < tier->n_nodes && o < size; k++) {
		int w = snprintf(buf + o, size - o, "%s%d", k ? "," : "", tier->nodes[k]);

		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (o >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

static int verb_topology(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	struct tier_topology *topo = NULL;
	struct tier_ctx *ctx = NULL;
	unsigned n_nodes, n_tiers;
	long sysctl;
	int rc, r;

	r = verb_opts(t, v, argc, argv, NULL, NULL);
	if (r >= 0)
		return r;
	r = want_args(v, argc, 0, 0);
	if (r >= 0)
		return r;
	/* The cgroup root is not used: give one so no discovery happens. */
	rc = open_ctx(t, NULL, "/sys/fs/cgroup", &ctx);
	if (rc)
		return rc;
	r = tier_topology_read(ctx, &topo);
	if (r < 0) {
		rc = fail(r, "cannot read memory tiers from %s", tier_ctx_get_sysfs_root(ctx));
		goto out;
	}
	n_nodes = tier_topology_node_count(topo);
	n_tiers = tier_topology_tier_count(topo);
	sysctl = read_numa_balancing_sysctl(ctx);

	if (t->json) {
		struct json *j = &t->j;

		json_object_begin(j);
		json_key(j, "nodes");
		json_array_begin(j);
		for (unsigned i = 0; i < n_nodes; i++) {
			const struct tier_node *nd = tier_topology_node(topo, i);

			json_object_begin(j);
			json_kv_int(j, "node", nd->id);
			if (nd->tier == TIER_ID_NONE)
				json_kv_null(j, "tier");
			else
				json_kv_int(j, "tier", nd->tier);
			json_kv_bool(j, "top_tier", nd->top_tier);
			json_kv_bool(j, "has_cpu", nd->has_cpu);
			json_kv_bool(j, "has_memory", nd->has_memory);
			json_kv_uint(j, "mem_total", nd->mem_total);
			json_kv_uint(j, "mem_free", nd->mem_free);
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "tiers");
		json_array_begin(j);
		for (unsigned i = 0; i < n_tiers; i++) {
			const struct tier_memtier *tr = tier_topology_tier(topo, i);

			json_object_begin(j);
			if (tr->id == TIER_ID_NONE)
				json_kv_null(j, "tier");
			else
				json_kv_int(j, "tier", tr->id);
			json_kv_bool(j, "top", tr->top);
			json_key(j, "nodes");
			json_array_begin(j);
			for (unsigned k = 0; k < tr->n_nodes; k++)
				json_int(j, tr->nodes[k]);
			json_array_end(j);
			json_kv_uint(j, "mem_total", tr->mem_total);
			json_kv_uint(j, "mem_free", tr->mem_free);
			json_object_end(j);
		}
		json_array_end(j);
		json_kv_uint(j, "fast_capacity", tier_topology_fast_capacity(topo));
		json_kv_uint(j, "total_capacity", tier_topology_total_capacity(topo));
		json_kv_bool(j, "tiering_active", n_tiers > 1);
		if (sysctl >= 0)
			json_kv_int(j, "numa_balancing_sysctl", sysctl);
		else
			json_kv_null(j, "numa_balancing_sysctl");
		json_object_end(j);
	} else {
		char b1[SIZE_BUF], b2[SIZE_BUF], nodes[128];

		printf("%-5s %-6s %-4s %-4s %10s %10s\n", "NODE", "TIER", "TOP", "CPU", "MEMTOTAL",
		       "MEMFREE");
		for (unsigned i = 0; i < n_nodes; i++) {
			const struct tier_node *nd = tier_topology_node(topo, i);
			char tb[16];

			if (nd->tier == TIER_ID_NONE)
				strcpy(tb, "-");
			else
				snprintf(tb, sizeof(tb), "%d", nd->tier);
			printf("%-5d %-6s %-4s %-4s %10s %10s\n", nd->id, tb,
			       nd->top_tier ? "yes" : "no", nd->has_cpu ? "yes" : "no",
			       fmt_bytes(nd->mem_total, b1), fmt_bytes(nd->mem_free, b2));
		}
		printf("\n");
		for (unsigned i = 0; i < n_tiers; i++) {
			const struct tier_memtier *tr = tier_topology_tier(topo, i);

			fmt_nodes(tr, nodes, sizeof(nodes));
			if (tr->id == TIER_ID_NONE)
				printf("tier -: ");
			else
				printf("tier %d: ", tr->id);
			printf("nodes %s, %s total, %s free%s\n", nodes,
			       fmt_bytes(tr->mem_total, b1), fmt_bytes(tr->mem_free, b2),
			       tr->top ? " (top tier)" : "");
		}
		if (n_tiers <= 1)
			printf("single memory tier: tiering inactive\n");
		else
			printf("%u memory tiers: fast-tier capacity %s of %s\n", n_tiers,
			       fmt_bytes(tier_topology_fast_capacity(topo), b1),
			       fmt_bytes(tier_topology_total_capacity(topo), b2));
		if (sysctl >= 0)
			printf("kernel.numa_balancing = %ld%s\n", sysctl,
			       sysctl & 2 ? " (memory tiering mode)" :
			       n_tiers > 1 ? " (promotion needs bit 2, memory tiering mode)" : "");
	}
out:
	tier_topology_free(topo);
	tier_ctx_unref(ctx);
	return rc;
}

/* ------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------ */

static const struct verb verbs[] = {
	{ "check", verb_check, "FILE...",
	  "Parse each policy FILE (with its drop-ins); print FILE:LINE errors." },
	{ "explain", verb_explain, "CGROUP",
	  "Show which rule matches CGROUP, through which matcher, and what it gets\n"
	  "                         (from tierd's loaded policy when it runs)." },
	{ "apply", verb_apply, "[--dry-run]",
	  "Apply the policy to the cgroup tree; print every change (--dry-run with\n"
	  "                         tierd running: what its next reconcile would change)." },
	{ "get", verb_get, "CGROUP", "Show the configured and effective memory.numa_balancing." },
	{ "set", verb_set, "CGROUP MODE",
	  "Write memory.numa_balancing (inherit, full, promote, off)." },
	{ "status", verb_status, "[--all]",
	  "Table of managed (--all: all) cgroups: class, modes, fast/slow-tier bytes,\n"
	  "                         fair-share target of the fast tier." },
	{ "topology", verb_topology, "", "Show NUMA nodes and memory tiers." },
	{ "reload", verb_reload, "", "Make the running tierd re-read its policy files." },
};

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tierctl [OPTIONS] COMMAND [ARGS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", verbs[i].name, verbs[i].args);
		fprintf(f, "  %-22s %s\n", head, verbs[i].help);
	}
	fprintf(f, "\nOptions:\n"
		   "  --config FILE          policy file (default " DEFAULT_CONFIG ")\n"
		   "  --cgroup-root DIR      cgroup2 mount (default: policy's cgroup_root)\n"
		   "  --sysfs-root DIR       sysfs mount (default /sys)\n"
		   "  --procfs-root DIR      procfs mount (default /proc)\n"
		   "  --daemon               ask the running tierd; fail if none answers\n"
		   "  --no-daemon            never ask tierd: work on the files only\n"
		   "  --bus-socket PATH      tierd's private socket (default " TIERD_BUS_SOCKET ")\n"
		   "  --json                 print JSON\n"
		   "  -h, --help             this help\n"
		   "      --version          print the version\n\n"
		   "Exit status: 0 ok, 1 policy errors, 2 usage, 3 no such cgroup,\n"
		   "4 kernel lacks memory.numa_balancing, 5 other system error,\n"
		   "6 tierd not running (reload, --daemon).\n"
		   "status, explain and apply --dry-run ask a running tierd unless --config or\n"
		   "a --*-root option is given; without one they work on the files.\n"
		   "See tierctl(1) and tierd.conf(5).\n");
}

int main(int argc, char **argv)
{
	enum {
		OPT_CONFIG = 0x100,
		OPT_CGROUP,
		OPT_SYSFS,
		OPT_PROCFS,
		OPT_JSON,
		OPT_VERSION,
		OPT_DAEMON,
		OPT_NO_DAEMON,
		OPT_BUS_SOCKET,
	};
	static const struct option opts[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
		{ "procfs-root", required_argument, NULL, OPT_PROCFS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "no-daemon", no_argument, NULL, OPT_NO_DAEMON },
		{ "bus-socket", required_argument, NULL, OPT_BUS_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{}
	};
	struct tierctl t = { .config = DEFAULT_CONFIG };
	const struct verb *v;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG:
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
		case OPT_JSON:
			t.json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case OPT_VERSION:
			printf("tierctl %s\n", TIERCTL_VERSION);
			return EXIT_OK;
		case ':':
			msg("option '%s' needs an argument", argv[optind - 1]);
			return EXIT_USAGE;
		default:
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
	v = find_verb(argv[optind]);
	if (!v) {
		msg("unknown command '%s' (see tierctl --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (t.json)
		json_init(&t.j, stdout);
	rc = v->run(&t, v, argc - optind, argv + optind);
	if (t.json)
		json_finish(&t.j);
	esc_pool_free();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fail(-errno, "cannot write output");
		return EXIT_SYSTEM;
	}
	return rc;
}
