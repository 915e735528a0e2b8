/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierctl.h: what tierctl's verb files (tierctl-*.c) share with tierctl.c:
 * the run's context, the exit codes, diagnostics, formatting, and the
 * setup every policy verb needs (policy, libtier context, the plan, tierd).
 * Private to tierctl; not installed.
 */
#ifndef TIERCTL_H
#define TIERCTL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <tier.h>

#include "tier-internal.h"

#include "json.h"
#include "macro.h"
#include "tierd-client.h"

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
	EXIT_DOCTOR = 7,	/* doctor: tierd cannot tier cgroups here */
};

/* Whether to ask a running tierd (--daemon, --no-daemon, neither). */
enum daemon_use {
	DAEMON_AUTO,	/* if one answers and no --config/--*-root was given */
	DAEMON_YES,
	DAEMON_NO,
};

/* The run: global options, then what the dispatcher parsed for the verb. */
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

	/* Set by verb_dispatch() (verbs.c) before the verb runs. */
	bool verb_option;		/* the verb's own --OPTION was given */
	bool wide;			/* VERB_TABLE: --wide, columns not capped */
	bool policy_optional;		/* no policy file: an empty policy (status --all) */
	char *cgroup;			/* VERB_CGROUP_ARG: argv[0], normalised */
};

/* ------------------------------------------------------------------------
 * Diagnostics and untrusted text (tierctl.c)
 * ------------------------------------------------------------------------ */

/* s escaped for a terminal (escape.h); valid until exit. */
const char *esc(const char *s);
void esc_pool_free(void);

/* "tierctl: " + the message on stderr, escaped as a whole. */
_printf_(1, 2) void msg(const char *fmt, ...);
/* strerror(), with the refusals of libtier's file access said plainly. */
const char *err_str(int r);
/* "tierctl: <message>: err_str(r)"; returns EXIT_SYSTEM. */
_printf_(2, 3) int fail(int r, const char *fmt, ...);
/* An error about a cgroup; returns its exit code. */
int cgroup_fail(struct tier_ctx *ctx, const char *cg, int r, const char *what);

/* ------------------------------------------------------------------------
 * Formatting and cgroups (tierctl.c)
 * ------------------------------------------------------------------------ */

#define SIZE_BUF 32

const char *fmt_bytes(uint64_t v, char buf[static SIZE_BUF]);
const char *fmt_size(uint64_t v, char buf[static SIZE_BUF]);
const char *mode_str(enum tier_mode m);

int parse_cgroup_arg(const char *arg, char **ret);
int cgroup_check(struct tier_ctx *ctx, const char *cg);
uint64_t desired_or(const struct tier_plan_entry *e, enum tier_attr attr, uint64_t dflt);
int effective_mode(struct tier_ctx *ctx, const char *cg, enum tier_mode *ret_mode,
		   char **ret_source);

/* ------------------------------------------------------------------------
 * Shared setup: policy, context, topology, plan (tierctl.c)
 * ------------------------------------------------------------------------ */

void print_errors(const struct tier_errors *errors);
int load_policy(struct tierctl *t, struct tier_policy **ret);
int open_ctx(struct tierctl *t, const struct tier_policy *policy, const char *fallback,
	     struct tier_ctx **ret);
struct tier_topology *read_topology(struct tier_ctx *ctx);

/* Everything a policy verb needs. */
struct session {
	struct tier_policy *policy;
	struct tier_ctx *ctx;
	struct tier_topology *topo;
	struct tier_observed *observed;
	struct tier_plan *plan;
};

void session_done(struct session *s);
int session_start(struct tierctl *t, struct session *s, const char *subtree);

/* kernel.numa_balancing below procfs_root (NULL: /proc); -1 if unreadable
 * (tierctl-status.c; status and doctor show it). */
long tierctl_numa_balancing_sysctl(const char *procfs_root);

/* ------------------------------------------------------------------------
 * The running daemon (tierd's bus API) (tierctl.c)
 * ------------------------------------------------------------------------ */

int daemon_open(struct tierctl *t, struct tierd_client *c, bool *asked);
/* The context of tierd's tree (Roots()), a command-line root winning. */
int daemon_open_ctx(struct tierctl *t, struct tierd_client *c, struct tier_ctx **ret);
/* tierd's run directory, where its last hot-set measurement is: the
 * directory of the bus socket (default /run/tierd). */
const char *tierctl_run_dir(const struct tierctl *t, char *buf, size_t size);
int daemon_fail(const char *method, int r, const sd_bus_error *error);

#endif
