/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef LIBTIER_PRIVATE_H
#define LIBTIER_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

#include "macro.h"
#include "tier.h"

struct tier_ctx {
	int refcount;
	tier_log_fn log_fn;
	void *log_data;
	int log_priority;
	void *userdata;
	char *cgroup_root;
	char *sysfs_root;
	char *procfs_root;
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

/* util.c */
int path_join(char **ret, const char *a, const char *b, const char *c);
/* Reads are capped: cgroup and sysfs attributes (cgroup.procs of a large
 * cgroup included) at READ_MAX_DEFAULT. */
#define READ_MAX_DEFAULT (16u << 20)
#define READ_NOFOLLOW 1u	/* refuse a symlink as the last component */
int open_regular_at(int dfd, const char *path, int flags, unsigned rflags);
int read_fd_max(int fd, size_t max, char **ret_buf, size_t *ret_size);
int read_file_at_max(int dfd, const char *path, size_t max, unsigned rflags, char **ret_buf,
		     size_t *ret_size);
int read_file_full(const char *path, char **ret_buf, size_t *ret_size);
int read_file_at(int dfd, const char *path, char **ret_buf, size_t *ret_size);
int sysfs_read(const char *path, char **ret_value);
int sysfs_read_at(int dfd, const char *path, char **ret_value);
int sysfs_write(const char *path, const char *value);
int sysfs_write_at(int dfd, const char *path, const char *value);
int parse_u64(const char *s, uint64_t *ret);
int parse_int(const char *s, int *ret);
int parse_nodelist(const char *s, int **ret_nodes, unsigned *ret_n);
int strv_push(char ***strv, size_t *n, size_t *alloc, char *s);
int log_level_from_string(const char *s, int *ret);
bool str_has_suffix(const char *s, const char *suffix);
char *strip(char *s);

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
int cgroup_path(const struct tier_ctx *ctx, const char *cgroup, const char *file, char **ret);
/* "key value" lines (memory.stat, cgroup.events): -ENODATA if key is absent. */
int stat_buf_lookup(const char *buf, const char *key, uint64_t *ret);
/* memory.numa_stat content -> fast/slow bytes (anon + file) against topo. */
int residency_from_buf(const struct tier_topology *topo, const char *buf,
		       struct tier_residency *res);

/* evaluate.c: the desired values of a class (set_* and values of e), with
 * percentages against capacity, as tier_evaluate() decides them. */
void class_desired(const struct tier_class *cls, uint64_t capacity, struct tier_plan_entry *e);

#endif /* LIBTIER_PRIVATE_H */
