// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs.c: tierctl's verb table and the dispatcher.
 *
 * Each verb's argument counts, flags and own option are here, so usage
 * errors are reported the same way for all of them before the verb runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

static const struct verb verbs[] = {
	{ "check", 1, VERB_ANY, 0, NULL, 0, verb_check, "FILE...",
	  "Parse each policy FILE (with its drop-ins); print FILE:LINE errors." },
	{ "explain", 1, 1, VERB_CGROUP_ARG | VERB_MAY_ASK_TIERD, NULL, 0, verb_explain, "CGROUP",
	  "Show which rule matches CGROUP, through which matcher, and what it gets\n"
	  "                         (from tierd's loaded policy when it runs)." },
	{ "apply", 0, 0, VERB_MAY_ASK_TIERD | VERB_WRITES, "dry-run", 'n', verb_apply,
	  "[-n|--dry-run]",
	  "Apply the policy to the cgroup tree; print every change (--dry-run with\n"
	  "                         tierd running: what its next reconcile would change)." },
	{ "get", 1, 1, VERB_CGROUP_ARG, NULL, 0, verb_get, "CGROUP",
	  "Show the configured and effective memory.numa_balancing." },
	{ "set", 2, 2, VERB_CGROUP_ARG | VERB_WRITES, NULL, 0, verb_set, "CGROUP MODE",
	  "Write memory.numa_balancing (inherit, full, promote, off)." },
	{ "status", 0, 0, VERB_MAY_ASK_TIERD | VERB_TABLE, "all", 'a', verb_status,
	  "[-a|--all] [-w|--wide]",
	  "Table of managed (--all: all, with or without a policy) cgroups: class,\n"
	  "                         modes, fast/slow-tier bytes, fair-share target of the\n"
	  "                         fast tier; long names are cut (--wide: whole)." },
	{ "topology", 0, 0, 0, NULL, 0, verb_topology, "", "Show NUMA nodes and memory tiers." },
	{ "doctor", 0, 0, 0, NULL, 0, verb_doctor, "",
	  "What works here: cgroup v2, tiers, kernel.numa_balancing, the knob, DAMON,\n"
	  "                         the backend tierd would use and which policy keys\n"
	  "                         take effect (exit 7 if tierd cannot tier cgroups)." },
	{ "reload", 0, 0, VERB_NEEDS_TIERD, NULL, 0, verb_reload, "",
	  "Make the running tierd re-read its policy files." },
};

const struct verb *verb_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

/* Levenshtein distance of a and b, both at most 31 bytes; larger is 99. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[32], cur[32];

	if (la > 31 || lb > 31)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1,
			       sub = prev[j - 1] + (a[i - 1] != b[j - 1]);

			cur[j] = del < ins ? del : ins;
			if (sub < cur[j])
				cur[j] = sub;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *verb_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_d = 3;	/* at most two edits, and fewer than half the name */

	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		size_t d = edit_distance(name, verbs[i].name);

		if (d < best_d && d * 2 < strlen(verbs[i].name)) {
			best = verbs[i].name;
			best_d = d;
		}
	}
	return best;
}

void verbs_help(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", verbs[i].name, verbs[i].args);
		fprintf(f, "  %-22s %s\n", head, verbs[i].help);
	}
}

/*
 * Verb option parsing: --help, --json (also accepted after the verb) and
 * the verb's own flag. Options and arguments may be mixed; "--" ends the
 * options. Returns -1 to continue, or an exit code.
 */
static int verb_opts(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	struct option opts[5] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
	};
	char shorts[8] = "hj";
	size_t no = 2;
	int c;

	if (v->option) {
		opts[no++] = (struct option){ v->option, no_argument, NULL, 'F' };
		if (v->short_option)
			strncat(shorts, &v->short_option, 1);
	}
	if (v->flags & VERB_TABLE) {
		opts[no++] = (struct option){ "wide", no_argument, NULL, 'w' };
		strcat(shorts, "w");
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		if (c == v->short_option && c != 0)
			c = 'F';
		switch (c) {
		case 'w':
			t->wide = true;
			break;
		case 'j':
			if (!t->json)
				json_init(&t->j, stdout);
			t->json = true;
			break;
		case 'h':
			printf("usage: tierctl [OPTIONS] %s%s%s\n%s\n", v->name,
			       v->args[0] ? " " : "", v->args, v->help);
			return EXIT_OK;
		case 'F':
			t->verb_option = true;
			break;
		default:
			if (optopt && optopt != '?')
				msg("%s: unknown option '-%c' (see tierctl %s --help)", v->name,
				    optopt, v->name);
			else
				msg("%s: unknown option '%s' (see tierctl %s --help)", v->name,
				    argv[optind - 1], v->name);
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* n positional arguments: -1 if v takes that many, else EXIT_USAGE. */
static int want_args(const struct verb *v, int n)
{
	if (n < v->min_args || n > v->max_args) {
		msg("%s: %s arguments (usage: tierctl %s %s)", v->name,
		    n < v->min_args ? "missing" : "too many", v->name, v->args);
		return EXIT_USAGE;
	}
	return -1;
}

int verb_dispatch(struct tierctl *t, const struct verb *v, int argc, char **argv)
{
	int rc, r;

	t->verb_option = false;
	t->wide = false;
	rc = verb_opts(t, v, argc, argv);
	if (rc >= 0)
		return rc;
	rc = want_args(v, argc - optind);
	if (rc >= 0)
		return rc;
	if (v->flags & VERB_CGROUP_ARG) {
		r = parse_cgroup_arg(argv[optind], &t->cgroup);
		if (r == -ENOMEM)
			return fail(r, "%s", v->name);
		if (r < 0) {
			msg("invalid cgroup path '%s'", argv[optind]);
			return EXIT_USAGE;
		}
	}
	rc = v->run(t, argc - optind, argv + optind);
	free(t->cgroup);
	t->cgroup = NULL;
	return rc;
}
