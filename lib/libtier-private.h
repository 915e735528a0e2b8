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
int cgroup_path(const struct tier_ctx *ctx, const char *cgroup, const char *file, char **ret);
/* What tier_observe() makes and tier_observed_free() frees (react.c makes
 * one-cgroup ones too). */
struct observed_owned {
	struct tier_observed pub;	/* must be first */
	struct tier_observed_cgroup *cgroups;
	char **paths;
	char **units;
	char ***exes;
	char ***annotations;
	size_t n;
};
/* The executables of the processes in the cgroup dfd is (deduplicated), and
 * its trusted.* xattrs as "KEY=VALUE"; NULL if none. */
int observe_exes(struct tier_ctx *ctx, int dfd, char ***ret);
int observe_annotations(int dfd, char ***ret);

/* apply.c: tier_apply_entry() with the files below dfd (-1: by path) */
int apply_entry_dfd(struct tier_ctx *ctx, int dfd, const struct tier_plan_entry *entry,
		    unsigned flags, tier_apply_write_fn write_fn, void *userdata,
		    struct tier_apply_result *ret_result);

/* evaluate.c: the desired values of a class (set_* and values of e), with
 * percentages against capacity, as tier_evaluate() decides them. */
void class_desired(const struct tier_class *cls, uint64_t capacity, struct tier_plan_entry *e);

#endif /* LIBTIER_PRIVATE_H */
