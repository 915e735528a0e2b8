/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBTIER_PRIVATE_H
#define LIBTIER_PRIVATE_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

#include "hmap.h"
#include "macro.h"
#include "tier.h"
#include "tier-internal.h"

struct tier_ctx {
	int refcount;
	tier_log_fn log_fn;
	void *log_data;
	int log_priority;
	void *userdata;
	char *cgroup_root;
	char *sysfs_root;
	char *procfs_root;
	bool toptier_known;	/* toptier_counted read from mountinfo */
	bool toptier_counted;	/* memory.stat "toptier" is live: see tier_ctx_toptier_counted() */
};

void tier_log(const struct tier_ctx *ctx, int priority, const char *file, int line,
	      const char *fn, const char *format, ...) _printf_(6, 7);

#define tier_log_cond(ctx, prio, ...)                                                     \
	do {                                                                              \
		if ((ctx) && (ctx)->log_fn && (prio) <= (ctx)->log_priority)              \
			tier_log((ctx), (prio), __FILE__, __LINE__, __func__, __VA_ARGS__); \
	} while (0)

#define dbg(ctx, ...) tier_log_cond(ctx, LOG_DEBUG, __VA_ARGS__)
#define info(ctx, ...) tier_log_cond(ctx, LOG_INFO, __VA_ARGS__)
#define warn(ctx, ...) tier_log_cond(ctx, LOG_WARNING, __VA_ARGS__)
#define err(ctx, ...) tier_log_cond(ctx, LOG_ERR, __VA_ARGS__)

/* topology.c */
struct tier_node {
	int id;			/* NUMA node id */
	int tier;		/* memory tier id (memory_tierN), TIER_ID_NONE if none */
	bool has_memory;	/* in <sysfs>/devices/system/node/has_memory */
	bool has_cpu;		/* in <sysfs>/devices/system/node/has_cpu */
	bool top_tier;		/* the kernel's node_is_toptier() */
	uint64_t mem_total;	/* bytes, from nodeN/meminfo MemTotal */
	uint64_t mem_free;	/* bytes, from nodeN/meminfo MemFree */
};

struct tier_memtier {
	int id;			/* N of memory_tierN; TIER_ID_NONE for the synthetic
				 * single tier of a kernel without memory_tiering */
	bool top;		/* its nodes are top tier */
	unsigned n_nodes;
	const int *nodes;	/* node ids, ascending */
	uint64_t mem_total;	/* sum over its nodes */
	uint64_t mem_free;
};

/* util.c */
int path_join(char **ret, const char *a, const char *b, const char *c);
/* Reads are capped: cgroup and sysfs attributes (cgroup.procs of a large
 * cgroup included) at READ_MAX_DEFAULT. */
#define READ_MAX_DEFAULT (16u << 20)
#define READ_NOFOLLOW 1u	/* refuse a symlink as the last component */
#define READ_SHORT_EOF 2u	/* a short read is the end (one-record attributes) */
/* The file is in a cgroup2 directory (kernfs: nothing but the kernel's
 * regular files and directories can be there): no fstat() to check that
 * it is regular.  Only where the directory was checked to be on the
 * cgroup2 mount (tier_plan_observe()'s and tier_observe()'s walk). */
#define READ_KERNFS 4u
int open_regular_at(int dfd, const char *path, int flags, unsigned rflags);
int read_fd_max(int fd, size_t max, char **ret_buf, size_t *ret_size);
int read_file_at_max(int dfd, const char *path, size_t max, unsigned rflags, char **ret_buf,
		     size_t *ret_size);
int read_file_full(const char *path, char **ret_buf, size_t *ret_size);
int read_file_at(int dfd, const char *path, char **ret_buf, size_t *ret_size);
int sysfs_read(const char *path, char **ret_value);
int sysfs_read_at(int dfd, const char *path, char **ret_value);
int sysfs_read_attr_at(int dfd, const char *path, char **ret_value);
/* sysfs_read_at() with the READ_* flags given (newline stripped). */
int sysfs_read_flags(int dfd, const char *path, unsigned rflags, char **ret_value);
int sysfs_write(const char *path, const char *value);
int sysfs_write_at(int dfd, const char *path, const char *value);
int parse_u64(const char *s, uint64_t *ret);
int parse_int(const char *s, int *ret);
int parse_nodelist(const char *s, int **ret_nodes, unsigned *ret_n);
int strv_push(char ***strv, size_t *n, size_t *alloc, char *s);
int log_level_from_string(const char *s, int *ret);
bool str_has_suffix(const char *s, const char *suffix);
char *strip(char *s);

/*
 * siphash.c: SipHash-2-4 in pieces, for a string hashed as it is read (the
 * prefix index hashes every prefix of a string in one pass: finalize works
 * on a copy of the state).  siphash24_finalize() after compressing the
 * pieces of s equals one pass over s; tier_hash_init() starts with the
 * process's key (tier_hash()).
 */
struct siphash {
	uint64_t v0, v1, v2, v3;
	uint64_t padding;		/* bytes of the incomplete block */
	size_t inlen;
};
void siphash24_init(struct siphash *s, const uint8_t key[16]);
void siphash24_compress(const void *data, size_t len, struct siphash *s);
uint64_t siphash24_finalize(const struct siphash *s);
void tier_hash_init(struct siphash *s);

/* A slot of an open-addressing table: the hash keeps probes off the entries. */
struct hash_slot {
	uint32_t hash;			/* low bits of the entry's hash */
	uint32_t idx;			/* index of the entry + 1, 0 = free */
};

/*
 * util.c: the elements of an array by name (classes and rules of a policy,
 * the candidates of a fair share), so that a lookup is O(1) and n additions
 * cost O(n).  Open addressing of indexes into the owner's array; the table
 * doubles when half full and keeps each name's hash, so growing never reads
 * a name again.  name_of(owner, i) is the name of element i.
 */
struct name_table {
	struct hash_slot *slots;
	size_t size;			/* power of two, or 0 */
	size_t n;
};

typedef const char *(*name_of_fn)(const void *owner, size_t i);

/* Add element idx (not yet in the table): 0 or -ENOMEM. */
int name_table_add(struct name_table *t, const void *owner, name_of_fn name_of, size_t idx);
/* The element named by the first len bytes of name, or SIZE_MAX. */
size_t name_table_find(const struct name_table *t, const void *owner, name_of_fn name_of,
		       const char *name, size_t len);
/* The same for elements that are not strings (interned paths): added by
 * the tier_hash() of their name, found by eq(owner, i, name, len). */
typedef bool (*name_eq_fn)(const void *owner, size_t i, const char *name, size_t len);
int name_table_add_hash(struct name_table *t, uint64_t hash, size_t idx);
size_t name_table_find_eq(const struct name_table *t, const void *owner, name_eq_fn eq,
			  const char *name, size_t len);
void name_table_free(struct name_table *t);

/* policy.c: the capacity a percentage is of (fast tier minus fast_tier_reserve) */
uint64_t policy_share_capacity(const struct tier_policy *policy, uint64_t fast_capacity);

/* ctx.c */
int discover_cgroup_mountinfo(const char *procfs_root, char **ret);

/* cgroup.c */
/* Annotations are trusted.* xattrs: only root can write them. */
#define TRUSTED_PREFIX "trusted."
bool cgroup_path_valid(const char *cgroup);
int cgroup_open_dir(struct tier_ctx *ctx, const char *cgroup);
/* The two halves of cgroup_open_dir(), for a caller that opens many cgroups:
 * the root once, then each cgroup below it (never through a symlink). */
int cgroup_root_open(const struct tier_ctx *ctx);
int cgroup_open_below(int root_fd, const char *cgroup);
/* tier_cgroup_info_read() of the cgroup open at dfd; parent_effective: its
 * parent's effective mode if known (TIER_MODE_INVALID: walk for it). */
int cgroup_info_read_at(struct tier_ctx *ctx, const struct tier_topology *topo, int dfd,
			const char *cgroup, unsigned want, enum tier_mode parent_effective,
			struct tier_cgroup_info **ret_info);
/* A file of cgroup missing (r == -ENOENT): -EOPNOTSUPP if the cgroup is
 * there (a kernel without the knob), -ENOENT if it is gone; r otherwise. */
int cgroup_classify_enoent(struct tier_ctx *ctx, const char *cgroup, int r);
int cgroup_path(const struct tier_ctx *ctx, const char *cgroup, const char *file, char **ret);
/* "key value" lines (memory.stat, cgroup.events): -ENODATA if key is absent. */
int stat_buf_lookup(const char *buf, const char *key, uint64_t *ret);
/* memory.numa_stat content -> fast/slow bytes (anon + file) against topo. */
struct residency {
	uint64_t fast_bytes;
	uint64_t slow_bytes;
	bool fast_exact;	/* fast_bytes is memory.stat "toptier", not numa_stat's */
};
int residency_from_buf(const struct tier_topology *topo, const char *buf,
		       struct residency *res);
/*
 * "toptier" of a memory.stat content buf (cgroup names the cgroup for the
 * debug log): the kernel's exact count of the cgroup's bytes on top-tier
 * nodes, where its tier-aware limits keep each cgroup at its ceiling
 * themselves.  1 and *ret; 0 when the key is absent (an older kernel) or
 * its value is not a number (logged at debug level): the caller falls back
 * on memory.numa_stat; -ENOMEM.
 */
int toptier_from_stat_buf(struct tier_ctx *ctx, const char *cgroup, const char *buf,
			  uint64_t *ret);
/* The same read from memory.stat of the cgroup directory dfd (a file that
 * cannot be read counts as no key). */
int toptier_read_at(struct tier_ctx *ctx, int dfd, const char *cgroup, uint64_t *ret);
/*
 * Residency of the cgroup directory dfd: memory.numa_stat against topo, the
 * fast bytes replaced by toptier_read_at()'s where the kernel has it
 * (fast_exact).  0, or the error of reading or parsing memory.numa_stat
 * (-ENOENT, -ENODATA, ...), -ENOMEM.
 */
int residency_read_at(struct tier_ctx *ctx, int dfd, const char *cgroup,
		      const struct tier_topology *topo, struct residency *res);
/* cgroup.c: the executables of the processes in the cgroup dfd is
 * (deduplicated), and its trusted.* xattrs as "KEY=VALUE"; NULL if none. */
int observe_exes(struct tier_ctx *ctx, int dfd, unsigned rflags, char ***ret);
/*
 * What the cgroups of one tier_observe() walk share: the hook's annotation
 * records' directory, opened at the first cgroup that needs it (or the
 * error that says there is none), and the directory's stat the walk took.
 * NULL for a single cgroup: each is found again.
 */
#define OBSERVE_WALK_UNOPENED (-EBADF - 1000)
struct observe_walk {
	int record_dirfd;		/* an fd, a negative errno, or UNOPENED */
	const struct stat *st;		/* the cgroup directory's, or NULL */
	unsigned rflags;		/* READ_KERNFS for a directory on cgroup2 */
};
int observe_annotations(int dfd, struct observe_walk *ow, char ***ret);

/*
 * path.c: an interned cgroup path, its parent's and its own name (issue 24:
 * a plan of 2,252 cgroups with 64 KB paths held 128 MB of whole paths).
 * Refcounted; a child holds a reference to its parent.  A path without a
 * parent holds its whole path as its name ("/" for the root, or "/a/b" for
 * a cgroup whose parent nobody interned).  The whole path is parent's +
 * '/' + name (no '/' after the root); hash is tier_hash() of it, so a table
 * of paths is searched with a plain string.  Owners: observed cgroups, plan
 * entries (and their dup copies), apply results, share candidates.
 */
#define CGPATH_LEN_MAX ((size_t)INT32_MAX)
struct cgpath {
	struct cgpath *parent;		/* NULL: name is the whole path */
	uint32_t refs;
	uint32_t name_len;
	uint32_t len;			/* of the whole path */
	uint64_t hash;			/* tier_hash() of the whole path */
	char name[];
};
/* A parentless path of the len bytes of path (absolute); NULL on ENOMEM or
 * a path that is not absolute or longer than CGPATH_LEN_MAX. */
struct cgpath *cgpath_new(const char *path, size_t len);
/* name below parent (referenced); hash is tier_hash() of the whole path. */
struct cgpath *cgpath_new_child(struct cgpath *parent, const char *name, size_t name_len,
				uint64_t hash);
struct cgpath *cgpath_ref(struct cgpath *p);
void cgpath_unref(struct cgpath *p);
/* The whole path into buf, which has room for p->len + 1 bytes. */
void cgpath_build(const struct cgpath *p, char *buf);
/* The public accessors' convention: the length, or -ENAMETOOLONG if size
 * <= length; buf NULL and size 0 give the length; -EINVAL. */
int cgpath_format(const struct cgpath *p, char *buf, size_t size);
int cgpath_dup(const struct cgpath *p, char **ret);
/* Is p's whole path the len bytes of s?  Is it top or below it? */
bool cgpath_equal(const struct cgpath *p, const char *s, size_t len);
bool cgpath_below(const struct cgpath *p, const char *top, size_t top_len);

/* observed.c */
struct tier_observed_cgroup {
	struct cgpath *path;
	char *unit;				/* or NULL */
	char **exes;				/* NULL-terminated, or NULL */
	size_t n_exes, alloc_exes;
	char **annotations;			/* "key=value", NULL-terminated, or NULL */
	size_t n_annotations, alloc_annotations;
	bool mode_supported;			/* memory.numa_balancing exists */
	enum tier_mode mode;			/* its value if supported */
	uint64_t memory_low;			/* current values (UINT64_MAX = max) */
	uint64_t memory_high;
};

struct tier_observed {
	uint64_t fast_capacity;
	struct tier_observed_cgroup **cgroups;
	size_t n, alloc;
};
/* One cgroup's observed state; NULL is fine. */
void observed_cgroup_free(struct tier_observed_cgroup *c);

/* Take ownership of strv (NULL-terminated, n entries) as the exes or annotations. */
void observed_cgroup_take_exes(struct tier_observed_cgroup *c, char **strv);
void observed_cgroup_take_annotations(struct tier_observed_cgroup *c, char **strv);
/* tier_observed_add() of an interned path (referenced). */
int observed_add_path(struct tier_observed *observed, struct cgpath *path,
		      struct tier_observed_cgroup **ret_cgroup);
/* Drop the last cgroup added (it vanished while being read). */
void observed_drop_last(struct tier_observed *o);

/* evaluate.c: a plan entry.  Entries of a plan and tier_plan_entry_dup()
 * copies hold a reference to their interned path. */
/* The layouts behind lib/tier.h's opaque class, matcher and rule (2.0). */
struct tier_class {
	const char *name;
	const char *file;		/* where [class:NAME] is */
	unsigned line;
	enum tier_mode mode;		/* default TIER_MODE_INHERIT */
	unsigned weight;		/* 1..10000, default 100 */
	struct tier_amount toptier_min;	/* BYTES or PERCENT, or UNSET */
	struct tier_amount toptier_max;	/* BYTES, PERCENT, MAX, or UNSET */
	struct tier_amount memory_low;	/* BYTES, MAX, or UNSET (leave alone) */
	struct tier_amount memory_high;	/* BYTES, MAX, or UNSET (leave alone) */
};

struct tier_matcher {
	enum tier_matcher_kind kind;
	const char *pattern;	/* the value as written ("key=value" for annotations) */
	const char *key;	/* annotation key, NULL for other kinds */
	const char *value;	/* annotation value glob; for other kinds == pattern */
	const char *file;
	unsigned line;
};

struct tier_rule {
	const char *name;
	const char *class_name;
	const struct tier_class *class;	/* resolved */
	const char *file;		/* where [rule:NAME] is */
	unsigned line;
	size_t n_matchers;
	const struct tier_matcher *matchers;	/* in file order */
};

struct tier_plan_entry {
	const struct tier_rule *rule;		/* NULL: unmanaged */
	const struct tier_class *class;
	const struct tier_matcher *matcher;
	char *matched_value;			/* owned; NULL when it is the path */
	bool set[_TIER_ATTR_MAX];		/* desired values */
	uint64_t desired[_TIER_ATTR_MAX];
	bool mode_supported;			/* current values, as observed */
	uint64_t current[_TIER_ATTR_MAX];
	unsigned current_read;			/* 1 << attr: read by tier_plan_observe()
						 * (TIER_APPLY_CURRENT may use it) */
	unsigned weight;			/* fairness inputs of the class */
	uint64_t toptier_min, toptier_max;
	struct hmap_node node;			/* in the plan's table, by path */
	struct cgpath *path;			/* a reference */
};

/* What one tier_plan_update() reuses from cgroup to cgroup (zeroed to
 * start; update_scratch_done() at the end). */
struct update_scratch {
	struct index_cand *cands;
	size_t n_cands, alloc_cands;
	char *path;			/* the cgroup's whole path, built here */
	size_t alloc_path;
};
void update_scratch_done(struct update_scratch *sc);
/* tier_plan_update() of one cgroup; *ret_entry (may be NULL) its entry. */
int plan_decide(struct tier_plan *plan, const struct tier_observed_cgroup *c,
		struct update_scratch *sc, struct tier_plan_entry **ret_entry);

/* A zeroed, unmanaged entry for path (a new reference); NULL on ENOMEM.
 * Free with plan_entry_free(). */
struct tier_plan_entry *plan_entry_new(struct cgpath *path);
void plan_entry_free(struct tier_plan_entry *e);

/* The desired values of a class (set[] and desired[] of e, and its fairness
 * inputs), with percentages against capacity, as tier_evaluate() decides them. */
void class_desired(const struct tier_class *cls, uint64_t capacity, struct tier_plan_entry *e);
bool attr_valid(enum tier_attr attr);

#endif /* LIBTIER_PRIVATE_H */
