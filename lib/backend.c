// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tiering backend: which mechanism tiers the cgroups on this machine,
 * decided in one place for tierd, tierctl and tierd-metrics.
 *
 *   knob   memory.numa_balancing, the kernel with the tierd series
 *   damon  DAMON's sysfs interface (migrate_hot/migrate_cold per cgroup),
 *          stock kernels with two or more memory tiers
 *   none   neither: memory_low/memory_high only
 *
 * tier_backend_probe() reads what the machine offers (nothing is written);
 * tier_backend_decide() is pure, so each combination is a unit test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "damon.h"
#include "libtier-private.h"

static const char *const backend_names[_TIER_BACKEND_MAX] = {
	[TIER_BACKEND_AUTO] = "auto",
	[TIER_BACKEND_KNOB] = "knob",
	[TIER_BACKEND_DAMON] = "damon",
	[TIER_BACKEND_NONE] = "none",
};

const char *tier_backend_to_string(enum tier_backend b)
{
	if ((int)b < 0 || b >= _TIER_BACKEND_MAX)
		return NULL;
	return backend_names[b];
}

int tier_backend_from_string(const char *s, enum tier_backend *ret)
{
	if (!s)
		return -EINVAL;
	for (int i = 0; i < _TIER_BACKEND_MAX; i++)
		if (strcmp(s, backend_names[i]) == 0) {
			*ret = (enum tier_backend)i;
			return 0;
		}
	return -EINVAL;
}

/* A regular file name in the directory dfd, not through a symlink. */
static bool file_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Does <proc>/vmstat have a line "key N"? */
static int vmstat_has(const char *procfs_root, const char *key, bool *ret)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	size_t n = strlen(key);
	int r;

	*ret = false;
	r = path_join(&path, procfs_root, "vmstat", NULL);
	if (r < 0)
		return r;
	r = read_file_at_max(AT_FDCWD, path, 1u << 20, 0, &buf, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, n) == 0 && p[n] == ' ') {
			*ret = true;
			break;
		}
	return 0;
}

/* memory.numa_balancing: in the first child of the root with the memory
 * controller's files, else from vmstat. */
static int probe_knob(const char *cgroup_root, const char *procfs_root,
		      struct tier_backend_probe *p)
{
	_cleanup_close_ int dfd = -1;
	char **names = NULL;
	size_t n = 0;
	int r;

	p->knob_evidence = TIER_KNOB_NO_CGROUP;
	if (!cgroup_root)
		return 0;
	dfd = open(cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		r = tier_dir_list_subdirs(dfd, &names, &n);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			n = 0;
	}
	for (size_t i = 0; i < n && i < TIER_BACKEND_PROBE_MAX; i++) {
		_cleanup_close_ int cfd = -1;

		cfd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0 || !file_at(cfd, "memory.current"))
			continue;
		p->knob = file_at(cfd, "memory.numa_balancing");
		p->knob_evidence = TIER_KNOB_CGROUP;
		if (asprintf(&p->knob_cgroup, "/%s", names[i]) < 0) {
			p->knob_cgroup = NULL;
			tier_strv_free(names);
			return -ENOMEM;
		}
		break;
	}
	tier_strv_free(names);
	if (p->knob_evidence == TIER_KNOB_CGROUP)
		return 0;
	p->knob_evidence = TIER_KNOB_VMSTAT;
	return vmstat_has(procfs_root, "numa_promo_pte_updates", &p->knob);
}

/* MGLRU: <sys>/kernel/mm/lru_gen/enabled ("0x0007"; 0x0000 off); absent:
 * a kernel without CONFIG_LRU_GEN, off.  1, 0, -1 unreadable. */
static int lru_gen_enabled(const char *sysfs_root)
{
	_cleanup_free_ char *path = NULL, *v = NULL;
	unsigned long x;
	char *end;
	int r;

	if (path_join(&path, sysfs_root, "kernel/mm/lru_gen/enabled", NULL) < 0)
		return -1;
	r = sysfs_read(path, &v);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return -1;
	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || end == v)
		return -1;
	return x != 0;
}

int tier_pagecache_read_seen(const struct tier_backend_probe *p, const char **ret_why)
{
	const char *why;
	int r;

	if (p->knob) {
		r = 1;
		why = "the tierd series (memory.numa_balancing present) clears the idle flag of "
		      "page cache read with read(2), MGLRU on or off";
	} else if (p->lru_gen == 0) {
		r = 1;
		why = "MGLRU off (/sys/kernel/mm/lru_gen/enabled 0x0000, or not built)";
	} else if (p->lru_gen > 0) {
		r = 0;
		why = "MGLRU on: 6.12's folio_mark_accessed() leaves DAMON's idle flag set, so "
		      "DAMON never sees page cache read with read(2) (mapped page cache and "
		      "buffered writes it does see); the tierd series fixes that, or echo 0 > "
		      "/sys/kernel/mm/lru_gen/enabled";
	} else {
		r = -1;
		why = "unknown: /sys/kernel/mm/lru_gen/enabled unreadable (with MGLRU on, DAMON "
		      "does not see page cache read with read(2) on a stock kernel)";
	}
	if (ret_why)
		*ret_why = why;
	return r;
}

int tier_backend_probe(const char *cgroup_root, const char *sysfs_root, const char *procfs_root,
		       const struct tier_topology *topo, struct tier_backend_probe *ret)
{
	struct tier_backend_probe p = {};
	_cleanup_free_ char *admin = NULL;
	struct stat st;
	int r;

	sysfs_root = sysfs_root ?: "/sys";
	procfs_root = procfs_root ?: "/proc";
	r = probe_knob(cgroup_root, procfs_root, &p);
	if (r < 0)
		goto fail;
	r = path_join(&admin, sysfs_root, "kernel/mm/damon/admin", NULL);
	if (r < 0)
		goto fail;
	p.damon = stat(admin, &st) == 0 && S_ISDIR(st.st_mode);
	if (tier_damon_modules_enabled(sysfs_root, &p.damon_modules) < 0)
		p.damon_modules = 0;
	p.n_tiers = topo ? tier_topology_tier_count(topo) : 0;
	p.lru_gen = lru_gen_enabled(sysfs_root);
	*ret = p;
	return 0;
fail:
	tier_backend_probe_done(&p);
	return r;
}

void tier_backend_probe_done(struct tier_backend_probe *p)
{
	if (!p)
		return;
	free(p->knob_cgroup);
	p->knob_cgroup = NULL;
}

void tier_backend_choice_done(struct tier_backend_choice *c)
{
	if (!c)
		return;
	free(c->reason);
	c->reason = NULL;
	tier_backend_probe_done(&c->probe);
}

/* Appends to a malloc'd string; on -ENOMEM *s is freed and NULL. */
_printf_(2, 3) static int append(char **s, const char *fmt, ...)
{
	_cleanup_free_ char *add = NULL;
	char *n;
	va_list ap;
	int k;

	if (!*s)
		return -ENOMEM;
	va_start(ap, fmt);
	k = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (k < 0) {
		add = NULL;
		goto oom;
	}
	if (asprintf(&n, "%s%s", *s, add) < 0)
		goto oom;
	free(*s);
	*s = n;
	return 0;
oom:
	free(*s);
	*s = NULL;
	return -ENOMEM;
}

static void knob_text(char **s, const struct tier_backend_probe *p)
{
	switch (p->knob_evidence) {
	case TIER_KNOB_NO_CGROUP:
		append(s, "no cgroup v2 memory controller");
		break;
	case TIER_KNOB_CGROUP:
		if (p->knob)
			append(s, "memory.numa_balancing present (in %s: a kernel with the tierd "
				  "series)", p->knob_cgroup);
		else
			append(s, "memory.numa_balancing not present (kernel without the tierd "
				  "series)");
		break;
	case TIER_KNOB_VMSTAT:
		if (p->knob)
			append(s, "memory.numa_balancing present (no cgroup below the root has "
				  "the memory controller to look in; vmstat has the series' "
				  "numa_promo_pte_updates)");
		else
			append(s, "memory.numa_balancing not present (kernel without the tierd "
				  "series: no cgroup below the root has the memory controller to "
				  "look in, and vmstat lacks the series' numa_promo_pte_updates)");
		break;
	}
}

static void tiers_text(char **s, unsigned n)
{
	if (n == 0)
		append(s, "memory tiers unknown");
	else
		append(s, "%u memory tier%s", n, n == 1 ? "" : "s");
}

/* Why DAMON cannot serve, or NULL if it can. */
static const char *damon_lacks(const struct tier_backend_probe *p)
{
	if (p->knob_evidence == TIER_KNOB_NO_CGROUP)
		return "no cgroup v2 memory controller (DAMON's memcg filters name cgroup v2 paths)";
	if (!p->damon)
		return "no DAMON sysfs interface (kernel/mm/damon/admin: CONFIG_DAMON_SYSFS off)";
	if (p->n_tiers < 2)
		return "fewer than two memory tiers: nothing to promote to or demote from";
	return NULL;
}

static void damon_busy_text(char **s, const struct tier_backend_probe *p)
{
	if (!p->damon_modules)
		return;
	append(s, "; DAMON busy: %s%s%s enabled (tierd's kdamond cannot start while it is on)",
	       p->damon_modules & TIER_DAMON_MODULE_RECLAIM ? "DAMON_RECLAIM" : "",
	       (p->damon_modules & TIER_DAMON_MODULE_RECLAIM) &&
			       (p->damon_modules & TIER_DAMON_MODULE_LRU_SORT) ? " and " : "",
	       p->damon_modules & TIER_DAMON_MODULE_LRU_SORT ? "DAMON_LRU_SORT" : "");
}

int tier_backend_decide(enum tier_backend requested, const struct tier_backend_probe *probe,
			struct tier_backend_choice *ret)
{
	struct tier_backend_choice c = { .requested = requested, .satisfied = true };
	const char *lacks;

	if (!probe || !ret || (int)requested < 0 || requested >= _TIER_BACKEND_MAX)
		return -EINVAL;
	c.probe = *probe;
	c.probe.knob_cgroup = NULL;
	if (probe->knob_cgroup) {
		c.probe.knob_cgroup = strdup(probe->knob_cgroup);
		if (!c.probe.knob_cgroup)
			return -ENOMEM;
	}
	c.reason = strdup("");
	lacks = damon_lacks(probe);

	switch (requested) {
	case TIER_BACKEND_AUTO:
		knob_text(&c.reason, probe);
		if (probe->knob) {
			c.backend = TIER_BACKEND_KNOB;
		} else if (probe->knob_evidence == TIER_KNOB_NO_CGROUP) {
			c.backend = TIER_BACKEND_NONE;
			append(&c.reason, ": tierd cannot manage cgroups here");
		} else if (!lacks) {
			c.backend = TIER_BACKEND_DAMON;
			append(&c.reason, "; DAMON sysfs present; ");
			tiers_text(&c.reason, probe->n_tiers);
			damon_busy_text(&c.reason, probe);
		} else {
			c.backend = TIER_BACKEND_NONE;
			if (!probe->damon) {
				append(&c.reason, "; no DAMON sysfs interface (CONFIG_DAMON_SYSFS "
						  "off); ");
				tiers_text(&c.reason, probe->n_tiers);
			} else {
				append(&c.reason, "; DAMON sysfs present, but ");
				tiers_text(&c.reason, probe->n_tiers);
				append(&c.reason, ": nothing to promote to or demote from");
			}
		}
		break;
	case TIER_BACKEND_KNOB:
		append(&c.reason, "backend = knob in the policy");
		if (probe->knob) {
			c.backend = TIER_BACKEND_KNOB;
			append(&c.reason, "; ");
		} else {
			c.backend = TIER_BACKEND_NONE;
			c.satisfied = false;
			append(&c.reason, ", but ");
		}
		knob_text(&c.reason, probe);
		break;
	case TIER_BACKEND_DAMON:
		append(&c.reason, "backend = damon in the policy");
		if (!lacks) {
			c.backend = TIER_BACKEND_DAMON;
			append(&c.reason, "; DAMON sysfs present; ");
			tiers_text(&c.reason, probe->n_tiers);
			damon_busy_text(&c.reason, probe);
		} else {
			c.backend = TIER_BACKEND_NONE;
			c.satisfied = false;
			append(&c.reason, ", but %s", lacks);
		}
		break;
	case TIER_BACKEND_NONE:
	default:
		c.backend = TIER_BACKEND_NONE;
		append(&c.reason, "backend = none in the policy");
		break;
	}
	/*
	 * lib/damon.c drives DAMON's sysfs, but tierd does not call it yet:
	 * every reader of the choice (tierd's log, Backend(), doctor,
	 * tierd-metrics) says so rather than promise tiering it cannot do.
	 */
	if (c.backend == TIER_BACKEND_DAMON && !TIER_BACKEND_DAMON_DRIVEN)
		append(&c.reason, "; this tierd does not drive DAMON yet: no mode is enforced "
				  "through it");
	if (!c.reason) {
		tier_backend_choice_done(&c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

int tier_backend_choose(enum tier_backend requested, const char *cgroup_root,
			const char *sysfs_root, const char *procfs_root,
			const struct tier_topology *topo, struct tier_backend_choice *ret)
{
	struct tier_backend_probe p;
	int r;

	r = tier_backend_probe(cgroup_root, sysfs_root, procfs_root, topo, &p);
	if (r < 0)
		return r;
	r = tier_backend_decide(requested, &p, ret);
	tier_backend_probe_done(&p);
	return r;
}
