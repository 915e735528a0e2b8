// SPDX-License-Identifier: GPL-2.0-or-later
/* Prometheus text exposition of tierd's per-cgroup state (see metrics.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "macro.h"
#include "metrics.h"

void tierd_metrics_free(struct tierd_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_cgroups; i++) {
		free(m->cgroups[i].class_name);
		free(m->cgroups[i].label);
		free(m->cgroups[i].class_label);
	}
	free(m->cgroups);
	free(m);
}

/*
 * Targets: libtier's fair share (tier_share_compute()), the computation tierd
 * and tierctl status use: only the cgroups that share the fast tier (the
 * top-most managed, populated ones) have one.
 */
static int fill_targets(struct tier_ctx *ctx, const struct tier_topology *topo,
			const struct tier_policy *policy, const struct tier_plan *plan,
			const char *run_dir, struct tierd_metrics *m)
{
	_cleanup_(tier_share_freep) struct tier_share *share = NULL;
	int r;

	r = tier_share_new(&share);
	if (r >= 0)
		r = tier_share_add_plan(share, plan);
	if (r >= 0) {
		/* tierd's last hot-set measurement, where it runs */
		(void)tier_share_hot_load_dir(share, run_dir, NULL);
		r = tier_share_compute(share, ctx, topo, policy, 0);
	}
	for (size_t i = 0; r >= 0 && i < m->n_cgroups; i++) {
		_cleanup_free_ char *path = NULL;
		size_t k;

		r = tier_plan_entry_path_dup(m->cgroups[i].entry, &path);
		if (r < 0)
			break;
		if (tier_share_find(share, path, &k) < 0)
			continue;
		m->cgroups[i].has_target = true;
		m->cgroups[i].target = tier_share_target(share, k);
		m->cgroups[i].demand = tier_share_demand(share, k);
		m->cgroups[i].demand_hot = tier_share_demand_kind(share, k) == TIER_DEMAND_HOT;
		m->cgroups[i].has_hot = tier_share_hot(share, k) != UINT64_MAX;
		m->cgroups[i].hot = tier_share_hot(share, k);
		/* the split of the same reading (tier_share_hot() is its total) */
		m->cgroups[i].has_hot_tiers =
			m->cgroups[i].has_hot &&
			tier_share_hot_loaded_tiers(share, path, &m->cgroups[i].hot_fast,
						    &m->cgroups[i].hot_slow) == 0;
		m->cgroups[i].promote_budget =
			tier_class_promote_budget(tier_share_class(share, k));
	}
	return r < 0 ? r : 0;
}

char *tierd_metrics_label(const char *name)
{
	const size_t keep = (TIERD_METRICS_LABEL_MAX - 24) / 2;
	char *e = text_escape(name), *out;
	size_t len, head, tail;
	uint64_t h = 0xcbf29ce484222325ull;

	if (!e || strlen(e) <= TIERD_METRICS_LABEL_MAX)
		return e;
	len = strlen(e);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	/* cut before a UTF-8 continuation byte, never inside a character */
	head = keep;
	while (head > 0 && ((unsigned char)e[head] & 0xc0) == 0x80)
		head--;
	tail = len - keep;
	while (tail < len && ((unsigned char)e[tail] & 0xc0) == 0x80)
		tail++;
	if (asprintf(&out, "%.*s...%016" PRIx64 "...%s", (int)head, e, h, e + tail) < 0)
		out = NULL;
	free(e);
	return out;
}

static int cmp_label(const void *a, const void *b)
{
	const struct tierd_metrics_cgroup *x = *(const struct tierd_metrics_cgroup *const *)a;
	const struct tierd_metrics_cgroup *y = *(const struct tierd_metrics_cgroup *const *)b;
	int c = strcmp(x->label, y->label);

	/* equal labels: the one first in tree order stays */
	return c ? c : (x < y ? -1 : x > y);
}

/*
 * Two cgroups must never share a series: the exposition would be invalid
 * and node_exporter would drop the whole file.  Elided labels that collide
 * (only forged names can) keep the first cgroup of them in tree order.
 */
static int drop_duplicate_labels(struct tierd_metrics *m)
{
	_cleanup_free_ struct tierd_metrics_cgroup **v = NULL;
	size_t o = 0;

	if (m->n_cgroups < 2)
		return 0;
	v = calloc(m->n_cgroups, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_cgroups; i++)
		v[i] = &m->cgroups[i];
	qsort(v, m->n_cgroups, sizeof(*v), cmp_label);
	for (size_t i = 1; i < m->n_cgroups; i++)
		if (strcmp(v[i]->label, v[i - 1]->label) == 0) {
			free(v[i]->label);
			v[i]->label = NULL;	/* dropped below */
		}
	for (size_t i = 0; i < m->n_cgroups; i++) {
		struct tierd_metrics_cgroup *c = &m->cgroups[i];

		if (c->label) {
			m->cgroups[o++] = *c;
			continue;
		}
		free(c->class_name);
		free(c->class_label);
		m->n_dropped_labels++;
	}
	m->n_cgroups = o;
	return 0;
}

int tierd_metrics_collect(struct tier_ctx *ctx, const struct tier_policy *policy,
			  size_t max_cgroups, const char *run_dir,
			  struct tierd_metrics **ret_metrics)
{
	struct tier_topology *topo = NULL;
	struct tier_plan *plan = NULL;
	struct tier_cgroup_reader *rd = NULL;
	struct tierd_metrics *m;
	size_t n;
	int r;

	if (!ctx || !policy || !ret_metrics)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r = tier_topology_read(ctx, &topo);
	if (r < 0)
		goto out;
	m->fast_capacity = tier_topology_fast_capacity(topo);
	m->total_capacity = tier_topology_total_capacity(topo);
	m->n_tiers = tier_topology_tier_count(topo);
	{
		struct tier_backend_choice bc;

		m->backend_requested = tier_policy_daemon(policy)->backend;
		r = tier_backend_choose(m->backend_requested, tier_ctx_get_cgroup_root(ctx),
					tier_ctx_get_sysfs_root(ctx), tier_ctx_get_procfs_root(ctx),
					topo, &bc);
		if (r < 0)
			goto out;
		m->backend = bc.backend;
		tier_backend_choice_done(&bc);
	}
	/* one walk, as tierd's full pass: no observed state of the tree */
	r = tier_plan_new(policy, m->fast_capacity, &plan);
	if (r < 0)
		goto out;
	r = tier_plan_observe(plan, ctx, NULL, TIER_OBSERVE_EXE | TIER_OBSERVE_ANNOTATIONS, NULL,
			      NULL);
	if (r < 0)
		goto out;
	if (!max_cgroups)
		max_cgroups = TIERD_METRICS_CGROUPS_DEFAULT;
	n = tier_plan_count(plan);
	m->cgroups = calloc(n < max_cgroups ? (n ?: 1) : max_cgroups, sizeof(*m->cgroups));
	if (!m->cgroups) {
		r = -ENOMEM;
		goto out;
	}
	/* The plan lists the cgroups in tree order: the reader opens each from
	 * its parent's directory and takes its effective mode from the
	 * parent's, instead of a walk from the root for each. */
	r = tier_cgroup_reader_new(ctx, &rd);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i);
		struct tierd_metrics_cgroup *c = &m->cgroups[m->n_cgroups];
		_cleanup_(tier_cgroup_info_freep) struct tier_cgroup_info *info = NULL;
		_cleanup_free_ char *path = NULL;
		uint64_t mode, eff;

		if (!tier_plan_entry_rule(e))
			continue;
		/* the entry holds its name, its parent the rest */
		r = tier_plan_entry_path_dup(e, &path);
		if (r < 0)
			goto out;
		r = tier_cgroup_reader_read(rd, topo, path,
					    TIER_INFO_MODE | TIER_INFO_EFFECTIVE_MODE |
						    TIER_INFO_RESIDENCY,
					    &info);
		if (r == -ENOMEM)
			goto out;
		if (r == -ENOENT)
			continue;	/* vanished */
		m->n_managed++;
		if (m->n_cgroups >= max_cgroups)
			continue;	/* counted, no series */
		*c = (struct tierd_metrics_cgroup){ 0 };
		c->entry = e;
		c->class_name = strdup(tier_class_name(tier_plan_entry_class(e)));
		c->label = tierd_metrics_label(path);
		c->class_label = tierd_metrics_label(c->class_name ?: "");
		m->n_cgroups++;
		if (!c->class_name || !c->label || !c->class_label) {
			r = -ENOMEM;
			goto out;
		}
		if (info && tier_cgroup_info_get(info, TIER_INFO_MODE, &mode) == 0 &&
		    tier_cgroup_info_get(info, TIER_INFO_EFFECTIVE_MODE, &eff) == 0) {
			c->mode_supported = true;
			c->mode = (enum tier_mode)mode;
			c->effective_mode = (enum tier_mode)eff;
		} else if (tier_cgroup_get_mode(ctx, path, &c->mode) == 0) {
			/* the knob, without an effective mode (a level above has
			 * none): the cgroup's own */
			c->mode_supported = true;
			c->effective_mode = c->mode == TIER_MODE_INHERIT ? TIER_MODE_FULL : c->mode;
		}
		if (info && tier_cgroup_info_get(info, TIER_INFO_FAST_BYTES, &c->fast_bytes) == 0 &&
		    tier_cgroup_info_get(info, TIER_INFO_SLOW_BYTES, &c->slow_bytes) == 0)
			c->has_residency = true;
		if (tier_cgroup_reader_read_stat(rd, path, "memory.stat", "pgpromote_success",
						 &c->promotions) == 0)
			c->has_promotions = true;
	}
	r = fill_targets(ctx, topo, policy, plan, run_dir, m);
	/* the plan goes below: its entries with it */
	for (size_t i = 0; i < m->n_cgroups; i++)
		m->cgroups[i].entry = NULL;
	if (r >= 0)
		r = drop_duplicate_labels(m);
	if (r < 0)
		goto out;
	*ret_metrics = m;
	m = NULL;
	r = 0;
out:
	tier_cgroup_reader_free(rd);
	tier_plan_free(plan);
	tier_topology_free(topo);
	tierd_metrics_free(m);
	return r;
}

/*
 * A label value: the name as tierctl shows it (text_escape(): control
 * characters C0, C1 and DEL, the bidirectional controls and bytes that
 * are not valid UTF-8, noncharacters included, as C escapes such as \x1b,
 * a backslash as \\), so that no byte of a cgroup name reaches a
 * dashboard raw and two names never share a label value, capped
 * (tierd_metrics_label()); then the text format's own escaping of
 * backslash and double quote.
 */
static void put_label(FILE *f, const char *str)
{
	for (; *str; str++) {
		if (*str == '\\')
			fputs("\\\\", f);
		else if (*str == '"')
			fputs("\\\"", f);
		else
			fputc(*str, f);
	}
}

/* {cgroup="...",class="..."[,KEY="VALUE"]} (key: mode, tier) */
static void put_labels_kv(FILE *f, const struct tierd_metrics_cgroup *c, const char *key,
			  const char *value)
{
	fputs("{cgroup=\"", f);
	put_label(f, c->label ?: "");
	fputs("\",class=\"", f);
	put_label(f, c->class_label ?: "");
	if (key && value) {
		fprintf(f, "\",%s=\"", key);
		put_label(f, value);
	}
	fputs("\"}", f);
}

static void put_labels(FILE *f, const struct tierd_metrics_cgroup *c, const char *mode)
{
	put_labels_kv(f, c, "mode", mode);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

enum cg_value { V_FAST, V_SLOW, V_PROMO, V_TARGET, V_HOT, V_DEMAND, V_DEMAND_HOT, V_BUDGET };

static void cgroup_family(FILE *f, const struct tierd_metrics *m, const char *name,
			  const char *type, const char *help, enum cg_value which)
{
	bool any = false;

	for (size_t i = 0; i < m->n_cgroups; i++) {
		const struct tierd_metrics_cgroup *c = &m->cgroups[i];
		uint64_t v;

		switch (which) {
		case V_FAST:
		case V_SLOW:
			if (!c->has_residency)
				continue;
			v = which == V_FAST ? c->fast_bytes : c->slow_bytes;
			break;
		case V_PROMO:
			if (!c->has_promotions)
				continue;
			v = c->promotions;
			break;
		case V_HOT:
			if (!c->has_hot)
				continue;
			v = c->hot;
			break;
		case V_DEMAND:
		case V_DEMAND_HOT:
			if (!c->has_target || c->demand == UINT64_MAX)
				continue;
			v = which == V_DEMAND ? c->demand : c->demand_hot;
			break;
		case V_BUDGET:
			if (!c->promote_budget)
				continue;
			v = c->promote_budget;
			break;
		default:
			if (!c->has_target)
				continue;
			v = c->target;
			break;
		}
		if (!any)
			family(f, name, type, help);
		any = true;
		fputs(name, f);
		put_labels(f, c, NULL);
		fprintf(f, " %" PRIu64 "\n", v);
	}
}

/*
 * tierd_cgroup_hot_bytes{tier="fast"|"slow"}: the hot set on each tier,
 * only where tierd measured the split; summed over tier it is
 * tierd_cgroup_hot_total_bytes, which a reading without a split (an older
 * tierd) has alone.  No tier="all" sample: a sum over the label stays the
 * hot set whatever tierd measured.
 */
static void hot_tier_family(FILE *f, const struct tierd_metrics *m, const char *name,
			    const char *help)
{
	bool any = false;

	for (size_t i = 0; i < m->n_cgroups; i++) {
		const struct tierd_metrics_cgroup *c = &m->cgroups[i];

		if (!c->has_hot || !c->has_hot_tiers)
			continue;
		if (!any)
			family(f, name, "gauge", help);
		any = true;
		fputs(name, f);
		put_labels_kv(f, c, "tier", "fast");
		fprintf(f, " %" PRIu64 "\n", c->hot_fast);
		fputs(name, f);
		put_labels_kv(f, c, "tier", "slow");
		fprintf(f, " %" PRIu64 "\n", c->hot_slow);
	}
}

static void mode_family(FILE *f, const struct tierd_metrics *m, const char *name,
			const char *help, bool effective)
{
	bool any = false;

	for (size_t i = 0; i < m->n_cgroups; i++) {
		const struct tierd_metrics_cgroup *c = &m->cgroups[i];
		enum tier_mode cur = effective ? c->effective_mode : c->mode;

		if (!c->mode_supported)
			continue;
		if (!any)
			family(f, name, "gauge", help);
		any = true;
		for (enum tier_mode md = effective ? TIER_MODE_FULL : TIER_MODE_INHERIT;
		     md < _TIER_MODE_MAX; md++) {
			fputs(name, f);
			put_labels(f, c, tier_mode_to_string(md));
			fprintf(f, " %d\n", md == cur);
		}
	}
}

int tierd_metrics_write(FILE *f, const struct tierd_metrics *m)
{
	if (!f || !m)
		return -EINVAL;
	family(f, "tierd_fast_tier_capacity_bytes", "gauge",
	       "MemTotal of the top-tier (fast) NUMA nodes.");
	fprintf(f, "tierd_fast_tier_capacity_bytes %" PRIu64 "\n", m->fast_capacity);
	family(f, "tierd_memory_capacity_bytes", "gauge", "MemTotal of all memory NUMA nodes.");
	fprintf(f, "tierd_memory_capacity_bytes %" PRIu64 "\n", m->total_capacity);
	family(f, "tierd_memory_tiers", "gauge", "Number of memory tiers.");
	fprintf(f, "tierd_memory_tiers %u\n", m->n_tiers);
	family(f, "tierd_backend_info", "gauge",
	       "The tiering backend tierd uses here (knob, damon, none) and the policy's "
	       "[daemon] backend (1).");
	fprintf(f, "tierd_backend_info{backend=\"%s\",requested=\"%s\"} 1\n",
		tier_backend_to_string(m->backend) ?: "none",
		tier_backend_to_string(m->backend_requested) ?: "auto");
	family(f, "tierd_managed_cgroups", "gauge", "Cgroups a policy rule manages.");
	fprintf(f, "tierd_managed_cgroups %zu\n", m->n_managed);
	family(f, "tierd_exported_cgroups", "gauge",
	       "Managed cgroups with series here (at most --max-cgroups, the first in tree "
	       "order; fewer if two long names share an elided label).");
	fprintf(f, "tierd_exported_cgroups %zu\n", m->n_cgroups);
	cgroup_family(f, m, "tierd_cgroup_fast_tier_bytes", "gauge",
		      "Memory of the cgroup on top-tier nodes (memory.numa_stat anon+file).",
		      V_FAST);
	cgroup_family(f, m, "tierd_cgroup_slow_tier_bytes", "gauge",
		      "Memory of the cgroup on lower-tier nodes (memory.numa_stat anon+file).",
		      V_SLOW);
	cgroup_family(f, m, "tierd_cgroup_promoted_pages_total", "counter",
		      "Pages promoted to the fast tier (memory.stat pgpromote_success).", V_PROMO);
	cgroup_family(f, m, "tierd_cgroup_fast_tier_target_bytes", "gauge",
		      "Fast-tier share tierd aims at (weighted max-min fair share).", V_TARGET);
	cgroup_family(f, m, "tierd_cgroup_hot_total_bytes", "gauge",
		      "Bytes the cgroup accessed in the last second, on both tiers, as tierd "
		      "last measured them through DAMON (demand = hot).", V_HOT);
	hot_tier_family(f, m, "tierd_cgroup_hot_bytes",
			"The hot set (tierd_cgroup_hot_total_bytes) on the fast and on the slow "
			"tier (label tier); absent where tierd measured no split.");
	cgroup_family(f, m, "tierd_cgroup_demand_bytes", "gauge",
		      "The demand the fair share used: resident bytes, or the hot set plus "
		      "hot_margin.", V_DEMAND);
	cgroup_family(f, m, "tierd_cgroup_demand_hot", "gauge",
		      "1 if the demand is the hot set plus hot_margin, 0 if resident bytes.",
		      V_DEMAND_HOT);
	cgroup_family(f, m, "tierd_cgroup_promote_budget_bytes_per_second", "gauge",
		      "The class's promote_budget.", V_BUDGET);
	mode_family(f, m, "tierd_cgroup_mode",
		    "Configured memory.numa_balancing (1 for the current value).", false);
	mode_family(f, m, "tierd_cgroup_effective_mode",
		    "Effective memory.numa_balancing after the ancestors' restrictions "
		    "(1 for the current value).", true);
	if (fflush(f) != 0 || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * What is at name in dfd may be replaced: nothing, or a regular file.
 * A symlink (-ELOOP), a directory (-EISDIR) or anything else (a device
 * node, FIFO or socket: -EEXIST) is refused: renaming over it would
 * replace /dev/null or whatever the link points at.
 */
static int check_target(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return -EEXIST;
}

/* A new temp file ".tierd-metrics.PID.RANDOM" in dfd (not *.prom, so the
 * textfile collector skips it), created by us: O_EXCL, never through a
 * symlink. Its name in ret_tmp. */
static int create_temp(int dfd, char **ret_tmp)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		_cleanup_free_ char *tmp = NULL;
		uint64_t rnd;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&rnd ^ attempt;
		if (asprintf(&tmp, ".tierd-metrics.%ld.%016" PRIx64, (long)getpid(), rnd) < 0) {
			tmp = NULL;
			return -ENOMEM;
		}
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			*ret_tmp = TAKE_PTR(tmp);
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int tierd_metrics_write_file(const char *path, const struct tierd_metrics *m)
{
	_cleanup_free_ char *dir = NULL, *tmp = NULL;
	_cleanup_close_ int dfd = -1;
	const char *name, *slash;
	FILE *f;
	int fd, r;

	if (!path || !m || !*path)
		return -EINVAL;
	slash = strrchr(path, '/');
	if (slash) {
		dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
		name = slash + 1;
	} else {
		dir = strdup(".");
		name = path;
	}
	if (!dir)
		return -ENOMEM;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EISDIR;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = check_target(dfd, name);
	if (r < 0)
		return r;
	fd = create_temp(dfd, &tmp);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto fail;
	}
	r = tierd_metrics_write(f, m);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r < 0)
		goto fail;
	/* again, just before: the check is for mistakes (-o /dev/null), the
	 * directory is the administrator's */
	r = check_target(dfd, name);
	if (r < 0)
		goto fail;
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = -errno;
		goto fail;
	}
	(void)fsync(dfd);
	return 0;
fail:
	unlinkat(dfd, tmp, 0);
	return r;
}
