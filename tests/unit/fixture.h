/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fake sysfs/cgroupfs/procfs trees in a temporary directory. */
#ifndef TIER_TEST_FIXTURE_H
#define TIER_TEST_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "tier.h"
#include "macro.h"
#include "tier-internal.h"

struct fx {
	char *root;	/* mkdtemp */
	char *cg;	/* <root>/cgroup */
	char *sys;	/* <root>/sys */
	char *proc;	/* <root>/proc */
	struct tier_ctx *ctx;
};

/*
 * The whole path of a plan entry, an apply result, an observed cgroup or
 * sharer i of a share (libtier builds it into a caller's buffer): in a
 * buffer of the fixture's, valid until the second next call of the same
 * helper (two may be compared).  A path that does not fit (128 KiB) or an
 * error fails the test.
 */
const char *fx_entry_path(const struct tier_plan_entry *e);
const char *fx_result_path(const struct tier_apply_result *r);
const char *fx_observed_path(const struct tier_observed_cgroup *c);
const char *fx_share_path(const struct tier_share *s, size_t i);

struct fx *fx_new(void);
void fx_free(struct fx *fx);

/* Write content to <root>/<rel>, creating directories. */
void fx_write(const char *root, const char *rel, const char *content);
void fx_mkdir(const char *root, const char *rel);
char *fx_read(const char *root, const char *rel); /* malloc'ed, NULL if missing */
void fx_unlink(const char *root, const char *rel);
void fx_rmtree(const char *path);
/* Set a file's mtime to a fixed old time; fx_mtime() returns it (0 if missing). */
void fx_age(const char *root, const char *rel);
time_t fx_mtime(const char *root, const char *rel);

/* Topology: node with the kernel's meminfo format (sizes in kB). */
void fx_node(struct fx *fx, int node, uint64_t total_kb, uint64_t free_kb);
void fx_node_lists(struct fx *fx, const char *has_memory, const char *has_cpu);
void fx_memtier(struct fx *fx, int tier, const char *nodelist);

/*
 * A cgroup with the memory controller files of a 6.12 kernel; with_knob
 * adds memory.numa_balancing = knob (NULL: no file, like a stock kernel).
 * numa_stat: anon/file per node in bytes for nodes 0 and 1.
 */
void fx_cgroup(struct fx *fx, const char *path, const char *knob);
void fx_cgroup_numa(struct fx *fx, const char *path, uint64_t anon0, uint64_t anon1,
		    uint64_t file0, uint64_t file1);
/*
 * memory.stat of the cgroup (fx_cgroup() writes it with 4 MiB each of anon
 * and file, no toptier): anon and file in bytes, and with toptier a line
 * "toptier <toptier>" as given (a number, or anything, to test a malformed
 * one), as a kernel with the second revision of the tier-aware limits has
 * it; NULL: no such key, as every older kernel.  The pgpromote_/pgdemote_
 * keys ending in "toptier" are there either way.
 */
void fx_cgroup_stat(struct fx *fx, const char *path, uint64_t anon, uint64_t file,
		    const char *toptier);

/*
 * Observed state for evaluation tests, in the shape of libtier's old public
 * struct, built into a struct tier_observed with the public setters
 * (memory_low/high are set as given, also when 0).
 */
struct obs_cg {
	const char *path;
	const char *unit;
	const char *const *exes;
	const char *const *annotations;
	bool mode_supported;
	enum tier_mode mode;
	uint64_t memory_low;
	uint64_t memory_high;
};
struct tier_observed *obs_build(uint64_t fast_capacity, const struct obs_cg *cg, size_t n);

/* A plan entry's desired value: whether it sets attr, and the value (the
 * kernel's default 0 / max / inherit when it does not). */
bool e_sets(const struct tier_plan_entry *e, enum tier_attr attr);
uint64_t e_desired(const struct tier_plan_entry *e, enum tier_attr attr);
/* Its current value as observed (mode: INHERIT when unsupported). */
uint64_t e_current(const struct tier_plan_entry *e, enum tier_attr attr);
bool e_mode_supported(const struct tier_plan_entry *e);

/* One change of an apply result, copied out for the asserts. */
struct change {
	enum tier_attr attr;
	enum tier_apply_status status;
	int error;
	const char *old_value, *new_value;
};
struct change res_change(const struct tier_apply_result *r, size_t i);

/* Assert helper: a string-contains check with a readable failure. */
#define ck_assert_strstr(hay, needle)                                                   \
	ck_assert_msg((hay) && strstr((hay), (needle)), "'%s' does not contain '%s'",  \
		      (hay) ? (hay) : "(null)", (needle))

/* The hash key of the test process (test-main.c sets it before any test):
 * the chain and probe lengths test-hash.c counts are the same on every run. */
#define TEST_HASH_KEY { 0x5a, 0x17, 0xc3, 0x88, 0x02, 0x9e, 0x41, 0xd6, \
			0x7b, 0x33, 0xe0, 0x1f, 0xa4, 0x68, 0xbd, 0x95 }

/* Suites */
Suite *suite_util(void);
Suite *suite_topology(void);
Suite *suite_cgroup(void);
Suite *suite_policy(void);
Suite *suite_evaluate(void);
Suite *suite_apply(void);
Suite *suite_fair(void);
Suite *suite_share(void);
Suite *suite_hostile(void);
Suite *suite_escape(void);
Suite *suite_react(void);
Suite *suite_damon(void);
Suite *suite_hash(void);
Suite *suite_backend(void);
Suite *suite_path(void);

#endif
