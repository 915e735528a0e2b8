/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Prometheus text exposition (format 0.0.4) of tierd's per-cgroup state.
 *
 * Two steps, so a caller that already has the numbers (the daemon, with its
 * own targets) can skip the first:
 *   tierd_metrics_collect()  reads the tree through libtier: every cgroup a
 *                            policy rule manages, its class, configured and
 *                            effective memory.numa_balancing, fast/slow tier
 *                            bytes, pgpromote_success and a fast-tier target;
 *   tierd_metrics_write()    formats a struct tierd_metrics (pure, no I/O
 *                            besides the FILE);
 *   tierd_metrics_write_file() writes it atomically (temp file + rename), as
 *                            node_exporter's textfile collector wants.
 * Functions return 0 or a negative errno.
 */
#ifndef TIERD_METRICS_H
#define TIERD_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <tier.h>

#include "tier-internal.h"

/*
 * Bounds of the exposition, whatever the tree: a label value (a cgroup path,
 * a class name, escaped) of more than TIERD_METRICS_LABEL_MAX bytes keeps
 * its start and end around "...<16 hex digits of a hash of the whole
 * name>..." (a 64 KB path made a 2.8 GB textfile); at most max_cgroups
 * cgroups (tierd_metrics_collect(); 0: TIERD_METRICS_CGROUPS_DEFAULT) get
 * series, the first in tree order, and tierd_managed_cgroups still counts
 * them all.  So a textfile holds a few KB per cgroup at most (about 3 KB
 * with 256-byte plain labels).
 */
#define TIERD_METRICS_LABEL_MAX 256
#define TIERD_METRICS_CGROUPS_DEFAULT 10000

struct tierd_metrics_cgroup {
	/* its plan entry, while tierd_metrics_collect() runs (NULL after):
	 * the path is built from it when needed, not kept (10,000 cgroups of
	 * 64 KB paths were 640 MB of copies) */
	const struct tier_plan_entry *entry;
	char *class_name;		/* the class its rule chose */
	char *label;			/* path as the cgroup label shows it (escaped, capped) */
	char *class_label;		/* class_name likewise */
	bool mode_supported;		/* memory.numa_balancing exists */
	enum tier_mode mode;		/* configured */
	enum tier_mode effective_mode;	/* resolved (never INHERIT) */
	bool has_residency;
	uint64_t fast_bytes, slow_bytes;
	bool has_promotions;
	uint64_t promotions;		/* memory.stat pgpromote_success (pages) */
	bool has_target;
	uint64_t target;		/* fast-tier target, bytes */
	uint64_t demand;		/* what the share used (with has_target) */
	bool demand_hot;		/* demand is the hot set + margin */
	bool has_hot;
	uint64_t hot;			/* tierd's hot-set measurement (run dir) */
	bool has_hot_tiers;		/* with has_hot: its split is known */
	uint64_t hot_fast, hot_slow;	/* ... on each tier (their sum is hot) */
	uint64_t promote_budget;	/* the class's, bytes/s, 0: none */
};

struct tierd_metrics {
	uint64_t fast_capacity;		/* MemTotal of the top-tier nodes */
	uint64_t total_capacity;	/* MemTotal of all memory nodes */
	unsigned n_tiers;
	enum tier_backend backend_requested;	/* [daemon] backend */
	enum tier_backend backend;		/* tier_backend_choose(): what tierd uses */
	size_t n_managed;		/* cgroups a rule manages */
	size_t n_cgroups;		/* with series: at most the max_cgroups of collect */
	size_t n_dropped_labels;	/* left out: an elided label equal to another's */
	struct tierd_metrics_cgroup *cgroups;
};

/*
 * Collect the metrics of every managed cgroup (first-match rule evaluation,
 * as tierctl and tierd do), with the hot sets tierd measured last from the
 * hot-sets file of its run directory run_dir (NULL: TIER_RUN_DIR).  Targets: libtier's fair share
 * (tier_share_compute(), the one tierd and tierctl status use): only the
 * cgroups that share the fast tier (top-most managed, populated; a nested
 * managed cgroup is part of its ancestor, an empty one holds no share) have
 * one; on a one-tier host none.  A cgroup that vanishes while being read is
 * left out.
 */
int tierd_metrics_collect(struct tier_ctx *ctx, const struct tier_policy *policy,
			  size_t max_cgroups, const char *run_dir,
			  struct tierd_metrics **ret_metrics);

/*
 * The label value of name: text_escape() (as tierctl shows it), then, if
 * longer than TIERD_METRICS_LABEL_MAX bytes, its first and last bytes (on
 * UTF-8 boundaries) around "...<hash>..."; malloc'ed, NULL on ENOMEM.  The
 * hash (64-bit FNV-1a of the whole name) is stable across runs, so a
 * series keeps its labels; two names that still share a label (forged) are
 * not both exported.
 */
char *tierd_metrics_label(const char *name);
void tierd_metrics_free(struct tierd_metrics *metrics);

/* Write the exposition to f.  Label values are valid UTF-8 (a byte of a
 * cgroup name that is not UTF-8 becomes U+FFFD) with backslash, double
 * quote and newline escaped.  -EIO (or the stream's errno) on a write error. */
int tierd_metrics_write(FILE *f, const struct tierd_metrics *metrics);

/*
 * Write to path atomically: a temp file of our own in the same directory
 * (O_CREAT | O_EXCL | O_NOFOLLOW), fsync, mode 0644, rename over path.
 * Only a regular file at path is replaced: -ELOOP if path is a symlink,
 * -EISDIR if a directory, -EEXIST if anything else (a device node, FIFO or
 * socket); nothing is touched then. On any failure the temp file is removed
 * and path is left as it was.
 */
int tierd_metrics_write_file(const char *path, const struct tierd_metrics *metrics);

#endif /* TIERD_METRICS_H */
