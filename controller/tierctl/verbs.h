/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs.h: tierctl's verb table and its dispatcher (verbs.c), and the
 * verbs, one file per group (tierctl-*.c).
 *
 * The dispatcher does for every verb what each used to do itself: parse
 * --help, --json and the verb's own flag, check the number of arguments
 * (a usage error, exit 2, in one wording), and normalise a cgroup argument.
 * A verb function then sees only its positional arguments.
 */
#ifndef TIERCTL_VERBS_H
#define TIERCTL_VERBS_H

#include <limits.h>
#include <stdio.h>

#include "tierctl.h"

#define VERB_ANY INT_MAX	/* max_args: no limit */

enum verb_flags {
	VERB_CGROUP_ARG = 1 << 0,	/* argv[0] is a cgroup: normalised into t->cgroup */
	VERB_MAY_ASK_TIERD = 1 << 1,	/* asks a running tierd unless told not to */
	VERB_NEEDS_TIERD = 1 << 2,	/* only talks to tierd (exit 6 without one) */
	VERB_WRITES = 1 << 3,		/* may write cgroup files: needs root on a real tree */
	VERB_TABLE = 1 << 4,		/* prints a table: -w/--wide lifts the column caps */
};

/*
 * argc, argv: the positional arguments only (argv[0] is the first), between
 * min_args and max_args of them. Returns the exit code.
 */
typedef int (*verb_fn)(struct tierctl *t, int argc, char **argv);

struct verb {
	const char *name;
	int min_args, max_args;
	unsigned flags;			/* enum verb_flags */
	const char *option;		/* the verb's own --OPTION: sets t->verb_option; or NULL */
	char short_option;		/* its -X, or 0 */
	verb_fn run;
	const char *args;		/* for usage lines */
	const char *help;
};

const struct verb *verb_find(const char *name);
/* The verb name closest to a mistyped one (edit distance), or NULL. */
const char *verb_suggest(const char *name);
/* argv[0] is the verb's name; returns the exit code. */
int verb_dispatch(struct tierctl *t, const struct verb *v, int argc, char **argv);
/* The "Commands:" lines of tierctl --help. */
void verbs_help(FILE *f);

/* tierctl-check.c */
int verb_check(struct tierctl *t, int argc, char **argv);
/* tierctl-explain.c */
int verb_explain(struct tierctl *t, int argc, char **argv);
/* tierctl-apply.c */
int verb_apply(struct tierctl *t, int argc, char **argv);
int verb_reload(struct tierctl *t, int argc, char **argv);
/* tierctl-knob.c */
int verb_get(struct tierctl *t, int argc, char **argv);
int verb_set(struct tierctl *t, int argc, char **argv);
/* tierctl-status.c */
int verb_status(struct tierctl *t, int argc, char **argv);
int verb_topology(struct tierctl *t, int argc, char **argv);
/* tierctl-doctor.c */
int verb_doctor(struct tierctl *t, int argc, char **argv);

#endif
