// SPDX-License-Identifier: LGPL-2.1-or-later
/* NUMA nodes and memory tiers from sysfs. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"

struct tier_topology {
	unsigned n_nodes;
	struct tier_node *nodes;	/* ascending id */
	unsigned n_tiers;
	struct tier_memtier *tiers;	/* ascending id */
	int **tier_nodes;		/* owned arrays behind tiers[i].nodes */
	uint64_t fast_capacity;
	uint64_t total_capacity;
};

_public_ void tier_topology_free(struct tier_topology *topo)
{
	if (!topo)
		return;
	for (unsigned i = 0; i < topo->n_tiers; i++)
		free(topo->tier_nodes[i]);
	free(topo->tier_nodes);
	free(topo->tiers);
	free(topo->nodes);
	free(topo);
}

/* "N<id>" directory name -> id, or -1. */
static int dirent_id(const char *name, const char *prefix)
{
	size_t l = strlen(prefix);
	int id;

	if (strncmp(name, prefix, l) != 0 || !isdigit((unsigned char)name[l]))
		return -1;
	if (parse_int(name + l, &id) < 0 || id < 0)
		return -1;
	return id;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sorted ids of "<prefix>N" entries of dir.  -ENOENT if dir is missing. */
static int list_ids(const char *dir, const char *prefix, int **ret_ids, unsigned *ret_n)
{
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ int *ids = NULL;
	unsigned n = 0, alloc = 0;
	struct dirent *de;

	d = opendir(dir);
	if (!d)
		return negative_errno();
	errno = 0;
	while ((de = readdir(d))) {
		int id = dirent_id(de->d_name, prefix);

		if (id < 0)
			continue;
		if (n == alloc) {
			unsigned nalloc = alloc ? alloc * 2 : 8;
			int *nids = realloc(ids, nalloc * sizeof(int));

			if (!nids)
				return -ENOMEM;
			ids = nids;
			alloc = nalloc;
		}
		ids[n++] = id;
	}
	if (errno)
		return negative_errno();
	if (n)
		qsort(ids, n, sizeof(int), cmp_int);
	*ret_ids = TAKE_PTR(ids);
	*ret_n = n;
	return 0;
}

/*
 * Node meminfo: "Node 0 MemTotal:       16318516 kB".  /proc/meminfo has the
 * same lines without the "Node N " prefix; both are accepted.
 */
static int parse_meminfo(const char *buf, uint64_t *ret_total, uint64_t *ret_free)
{
	uint64_t total = 0, mfree = 0;
	bool have_total = false, have_free = false;
	const char *line = buf;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		_cleanup_free_ char *copy = strndup(line, len);
		char *p, *key, *val, *unit, *save = NULL;
		uint64_t v;

		if (!copy)
			return -ENOMEM;
		line = eol ? eol + 1 : NULL;
		p = copy;
		if (strncmp(p, "Node ", 5) == 0) {
			p += 5;
			while (isdigit((unsigned char)*p))
				p++;
		}
		key = strtok_r(p, " \t", &save);
		val = strtok_r(NULL, " \t", &save);
		unit = strtok_r(NULL, " \t", &save);
		if (!key || !val)
			continue;
		if (strcmp(key, "MemTotal:") != 0 && strcmp(key, "MemFree:") != 0)
			continue;
		if (parse_u64(val, &v) < 0)
			return -EINVAL;
		if (unit && strcmp(unit, "kB") == 0) {
			if (v > UINT64_MAX / 1024)
				return -ERANGE;
			v *= 1024;
		} else if (unit) {
			return -EINVAL;
		}
		if (key[3] == 'T') {
			total = v;
			have_total = true;
		} else {
			mfree = v;
			have_free = true;
		}
	}
	if (!have_total || !have_free)
		return -ENODATA;
	*ret_total = total;
	*ret_free = mfree;
	return 0;
}

static bool in_list(const int *ids, unsigned n, int id)
{
	return bsearch(&id, ids, n, sizeof(int), cmp_int) != NULL;
}

static int read_nodelist_file(const char *dir, const char *name, int **ret, unsigned *ret_n)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	int r;

	r = path_join(&path, dir, name, NULL);
	if (r < 0)
		return r;
	r = sysfs_read(path, &buf);
	if (r < 0)
		return r;
	return parse_nodelist(buf, ret, ret_n);
}

static int read_nodes(struct tier_ctx *ctx, struct tier_topology *topo)
{
	_cleanup_free_ char *nodedir = NULL;
	_cleanup_free_ int *ids = NULL, *mem = NULL, *cpu = NULL;
	unsigned n = 0, n_mem = 0, n_cpu = 0;
	bool have_mem, have_cpu;
	int r;

	r = path_join(&nodedir, ctx->sysfs_root, "devices/system/node", NULL);
	if (r < 0)
		return r;
	r = list_ids(nodedir, "node", &ids, &n);
	if (r == -ENOENT || (r == 0 && n == 0)) {
		/* non-NUMA kernel: one node from /proc/meminfo */
		_cleanup_free_ char *path = NULL, *buf = NULL;

		dbg(ctx, "%s: no NUMA nodes, using %s/meminfo", nodedir, ctx->procfs_root);
		r = path_join(&path, ctx->procfs_root, "meminfo", NULL);
		if (r < 0)
			return r;
		r = read_file_full(path, &buf, NULL);
		if (r < 0)
			return r;
		topo->nodes = calloc(1, sizeof(struct tier_node));
		if (!topo->nodes)
			return -ENOMEM;
		topo->n_nodes = 1;
		topo->nodes[0].has_memory = true;
		topo->nodes[0].has_cpu = true;
		topo->nodes[0].tier = TIER_ID_NONE;
		return parse_meminfo(buf, &topo->nodes[0].mem_total, &topo->nodes[0].mem_free);
	}
	if (r < 0)
		return r;

	have_mem = read_nodelist_file(nodedir, "has_memory", &mem, &n_mem) == 0;
	have_cpu = read_nodelist_file(nodedir, "has_cpu", &cpu, &n_cpu) == 0;

	topo->nodes = calloc(n, sizeof(struct tier_node));
	if (!topo->nodes)
		return -ENOMEM;
	topo->n_nodes = n;
	for (unsigned i = 0; i < n; i++) {
		struct tier_node *node = &topo->nodes[i];
		_cleanup_free_ char *path = NULL, *buf = NULL;
		char name[32];

		node->id = ids[i];
		node->tier = TIER_ID_NONE;
		snprintf(name, sizeof(name), "node%d/meminfo", ids[i]);
		r = path_join(&path, nodedir, name, NULL);
		if (r < 0)
			return r;
		r = read_file_full(path, &buf, NULL);
		if (r < 0) {
			err(ctx, "%s: %s", path, strerror(-r));
			return r;
		}
		r = parse_meminfo(buf, &node->mem_total, &node->mem_free);
		if (r < 0) {
			err(ctx, "%s: cannot parse MemTotal/MemFree: %s", path, strerror(-r));
			return r;
		}
		node->has_memory = have_mem ? in_list(mem, n_mem, node->id) : node->mem_total > 0;
		node->has_cpu = have_cpu ? in_list(cpu, n_cpu, node->id) : false;
	}
	/* remember whether has_cpu was known: needed for the top-tier rule */
	return have_cpu ? 1 : 0;
}

static struct tier_node *find_node(struct tier_topology *topo, int id)
{
	for (unsigned i = 0; i < topo->n_nodes; i++)
		if (topo->nodes[i].id == id)
			return &topo->nodes[i];
	return NULL;
}

static int read_tiers(struct tier_ctx *ctx, struct tier_topology *topo)
{
	_cleanup_free_ char *tierdir = NULL;
	_cleanup_free_ int *ids = NULL;
	unsigned n = 0;
	int r;

	r = path_join(&tierdir, ctx->sysfs_root, "devices/virtual/memory_tiering", NULL);
	if (r < 0)
		return r;
	r = list_ids(tierdir, "memory_tier", &ids, &n);
	if (r == -ENOENT)
		n = 0;
	else if (r < 0)
		return r;

	if (n == 0) {
		/* no memory tiering: one synthetic tier of all memory nodes */
		dbg(ctx, "%s: no memory tiers, one synthetic tier", tierdir);
		topo->tiers = calloc(1, sizeof(struct tier_memtier));
		topo->tier_nodes = calloc(1, sizeof(int *));
		if (!topo->tiers || !topo->tier_nodes)
			return -ENOMEM;
		topo->tier_nodes[0] = calloc(topo->n_nodes ?: 1, sizeof(int));
		if (!topo->tier_nodes[0])
			return -ENOMEM;
		topo->n_tiers = 1;
		topo->tiers[0].id = TIER_ID_NONE;
		for (unsigned i = 0; i < topo->n_nodes; i++)
			if (topo->nodes[i].has_memory)
				topo->tier_nodes[0][topo->tiers[0].n_nodes++] = topo->nodes[i].id;
		topo->tiers[0].nodes = topo->tier_nodes[0];
		return 0;
	}

	topo->tiers = calloc(n, sizeof(struct tier_memtier));
	topo->tier_nodes = calloc(n, sizeof(int *));
	if (!topo->tiers || !topo->tier_nodes)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		_cleanup_free_ char *sub = NULL;
		char name[48];
		int *nodes = NULL;
		unsigned nn = 0;

		snprintf(name, sizeof(name), "memory_tier%d", ids[i]);
		r = path_join(&sub, tierdir, name, NULL);
		if (r < 0)
			return r;
		r = read_nodelist_file(sub, "nodelist", &nodes, &nn);
		if (r < 0) {
			err(ctx, "%s/nodelist: %s", sub, strerror(-r));
			return r;
		}
		topo->tier_nodes[i] = nodes;
		topo->n_tiers++;
		topo->tiers[i].id = ids[i];
		topo->tiers[i].nodes = nodes;
		topo->tiers[i].n_nodes = nn;
		for (unsigned j = 0; j < nn; j++) {
			struct tier_node *node = find_node(topo, nodes[j]);

			if (!node) {
				warn(ctx, "%s lists node %d which does not exist, ignoring", sub,
				     nodes[j]);
				continue;
			}
			node->tier = ids[i];
		}
	}
	return 0;
}

/*
 * The kernel (mm/memory-tiers.c): top_tier_adistance is the end of the
 * slowest tier that contains a node with CPUs; a node is top tier if its
 * tier starts at or below that, or if it has no tier at all.
 */
static void mark_top(struct tier_topology *topo, bool cpu_known)
{
	int top_id = TIER_ID_NONE;
	bool found = false;

	if (cpu_known) {
		for (unsigned i = 0; i < topo->n_tiers; i++)
			for (unsigned j = 0; j < topo->tiers[i].n_nodes; j++) {
				const struct tier_node *node = find_node(topo,
									  topo->tiers[i].nodes[j]);

				if (node && node->has_cpu) {
					top_id = topo->tiers[i].id; /* ascending: keep the last */
					found = true;
				}
			}
	}
	if (!found) {
		for (unsigned i = 0; i < topo->n_tiers; i++)
			if (topo->tiers[i].n_nodes > 0) {
				top_id = topo->tiers[i].id;
				found = true;
				break;
			}
	}
	for (unsigned i = 0; i < topo->n_tiers; i++)
		topo->tiers[i].top = !found || topo->tiers[i].id <= top_id;
	for (unsigned i = 0; i < topo->n_nodes; i++) {
		struct tier_node *node = &topo->nodes[i];

		node->top_tier = node->tier == TIER_ID_NONE || !found || node->tier <= top_id;
	}
	for (unsigned i = 0; i < topo->n_tiers; i++) {
		struct tier_memtier *t = &topo->tiers[i];

		for (unsigned j = 0; j < t->n_nodes; j++) {
			const struct tier_node *node = find_node(topo, t->nodes[j]);

			if (!node)
				continue;
			t->mem_total += node->mem_total;
			t->mem_free += node->mem_free;
		}
	}
	for (unsigned i = 0; i < topo->n_nodes; i++) {
		const struct tier_node *node = &topo->nodes[i];

		if (!node->has_memory)
			continue;
		topo->total_capacity += node->mem_total;
		if (node->top_tier)
			topo->fast_capacity += node->mem_total;
	}
}

_public_ int tier_topology_read(struct tier_ctx *ctx, struct tier_topology **ret_topo)
{
	struct tier_topology *topo;
	int r, cpu_known;

	if (!ctx || !ret_topo)
		return -EINVAL;
	topo = calloc(1, sizeof(*topo));
	if (!topo)
		return -ENOMEM;
	cpu_known = read_nodes(ctx, topo);
	if (cpu_known < 0) {
		r = cpu_known;
		goto fail;
	}
	r = read_tiers(ctx, topo);
	if (r < 0)
		goto fail;
	mark_top(topo, cpu_known > 0);
	*ret_topo = topo;
	return 0;
fail:
	tier_topology_free(topo);
	return r;
}

_public_ unsigned tier_topology_node_count(const struct tier_topology *topo)
{
	return topo->n_nodes;
}

_public_ const struct tier_node *tier_topology_node(const struct tier_topology *topo, unsigned i)
{
	return i < topo->n_nodes ? &topo->nodes[i] : NULL;
}

_public_ const struct tier_node *tier_topology_find_node(const struct tier_topology *topo, int id)
{
	for (unsigned i = 0; i < topo->n_nodes; i++)
		if (topo->nodes[i].id == id)
			return &topo->nodes[i];
	return NULL;
}

_public_ unsigned tier_topology_tier_count(const struct tier_topology *topo)
{
	return topo->n_tiers;
}

_public_ const struct tier_memtier *tier_topology_tier(const struct tier_topology *topo, unsigned i)
{
	return i < topo->n_tiers ? &topo->tiers[i] : NULL;
}

_public_ uint64_t tier_topology_fast_capacity(const struct tier_topology *topo)
{
	return topo->fast_capacity;
}

_public_ uint64_t tier_topology_total_capacity(const struct tier_topology *topo)
{
	return topo->total_capacity;
}

_public_ bool tier_topology_node_is_toptier(const struct tier_topology *topo, int node)
{
	const struct tier_node *n = tier_topology_find_node(topo, node);

	return !n || n->top_tier;
}

_public_ int tier_node_id(const struct tier_node *node)
{
	return node ? node->id : TIER_ID_NONE;
}

_public_ int tier_node_tier(const struct tier_node *node)
{
	return node ? node->tier : TIER_ID_NONE;
}

_public_ bool tier_node_has_memory(const struct tier_node *node)
{
	return node && node->has_memory;
}

_public_ bool tier_node_has_cpu(const struct tier_node *node)
{
	return node && node->has_cpu;
}

_public_ bool tier_node_is_toptier(const struct tier_node *node)
{
	return node && node->top_tier;
}

_public_ uint64_t tier_node_mem_total(const struct tier_node *node)
{
	return node ? node->mem_total : 0;
}

_public_ uint64_t tier_node_mem_free(const struct tier_node *node)
{
	return node ? node->mem_free : 0;
}

_public_ int tier_memtier_id(const struct tier_memtier *tier)
{
	return tier ? tier->id : TIER_ID_NONE;
}

_public_ bool tier_memtier_is_top(const struct tier_memtier *tier)
{
	return tier && tier->top;
}

_public_ unsigned tier_memtier_node_count(const struct tier_memtier *tier)
{
	return tier ? tier->n_nodes : 0;
}

_public_ int tier_memtier_node(const struct tier_memtier *tier, unsigned i)
{
	return tier && i < tier->n_nodes ? tier->nodes[i] : -1;
}

_public_ uint64_t tier_memtier_mem_total(const struct tier_memtier *tier)
{
	return tier ? tier->mem_total : 0;
}

_public_ uint64_t tier_memtier_mem_free(const struct tier_memtier *tier)
{
	return tier ? tier->mem_free : 0;
}
