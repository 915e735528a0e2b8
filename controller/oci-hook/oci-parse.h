/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oci-parse.h: what tierd-oci-hook reads from others, parsed without I/O
 * (the OCI state, config.json, linux.cgroupsPath; /proc/PID/cgroup through
 * libtier's tier_proc_cgroup_parse(), which tierd uses too), and
 * the bounded readers it reads them with. Linked by the hook, its unit
 * test and its fuzzers (tests/fuzz/hook/).
 */
#ifndef TIERD_OCI_PARSE_H
#define TIERD_OCI_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* Input size limits, inclusive: the state is a few hundred bytes;
 * config.json carries seccomp profiles and can reach a few hundred KiB. */
#define STATE_MAX (1u << 20)
#define CONFIG_MAX (16u << 20)
#define JSON_DEPTH 64

/* systemd's limit on a unit name (UNIT_NAME_MAX - 1), and ours on a whole
 * linux.cgroupsPath. */
#define UNIT_NAME_MAX 255
#define CGROUPS_PATH_MAX 4095

struct oci_state {
	char *id;		/* NULL if absent */
	char *bundle;		/* NULL if absent */
	int pid;		/* 0 if absent */
	bool has_annotations;	/* the state has an "annotations" object */
	char *class_value;	/* value of the annotation key, NULL if absent */
};

struct oci_config {
	char *cgroups_path;	/* linux.cgroupsPath, NULL if absent or "" */
	bool has_annotations;
	char *class_value;
	/* linux.resources.unified sets these (the container's own choice) */
	bool unified_numa_balancing, unified_low, unified_high;
};

void oci_state_done(struct oci_state *s);
void oci_config_done(struct oci_config *c);

/*
 * Parse the OCI state / config.json (one JSON object; NUL bytes, trailing
 * garbage and nesting deeper than JSON_DEPTH are errors). On a malformed
 * document -EBADMSG with a message in *ret_err (free it); -ENOMEM.
 */
int oci_state_parse(const char *data, size_t len, const char *annotation_key,
		    struct oci_state *ret_state, char **ret_err);
int oci_config_parse(const char *data, size_t len, const char *annotation_key,
		     struct oci_config *ret_config, char **ret_err);

/*
 * A systemd slice name as its cgroup path, as systemd (and runc, crun)
 * expand it: "a-b-c.slice" -> "/a.slice/a-b.slice/a-b-c.slice", the root
 * slice "-.slice" -> "". -EINVAL for a malformed name, -ENAMETOOLONG for
 * one over UNIT_NAME_MAX bytes. Work and output are linear in the output,
 * which is at most (UNIT_NAME_MAX + 1)^2 / 2 bytes.
 */
int slice_expand(const char *slice, size_t n, char **ret_path);

/*
 * linux.cgroupsPath -> a normalised cgroup path (tier_cgroup_path_normalize()):
 *  "/kubepods/burstable/podX/ID"          itself, normalised ("//a/" is "/a")
 *  "SLICE:PREFIX:NAME" (systemd driver)   expanded SLICE + "/PREFIX-NAME.scope";
 *                                         NAME ending in ".slice" is used as is,
 *                                         an empty SLICE is "system.slice", an
 *                                         empty PREFIX gives "NAME.scope"
 *  "a/b" (relative: the runtime puts it   "/a/b" with *ret_relative = true: the
 *   below a cgroup of its choosing)       caller must find where (/proc)
 * -EINVAL for a malformed value; -ENAMETOOLONG for a unit name over
 * UNIT_NAME_MAX or a value over CGROUPS_PATH_MAX bytes.
 */
int cgroups_path_resolve(const char *cgroups_path, char **ret_path, bool *ret_relative);

/*
 * Is proc_cgroup (where the container's init is) the cgroup that
 * config.json names, or a child of it that is not a systemd slice's (crun
 * runs the init in a "container" child of the scope)? config_path is an
 * absolute cgroup, or with relative set, a path the runtime placed below a
 * cgroup of its choosing, which matches a proc_cgroup (or its parent) that
 * ends in those components. Paths are normalised. Returns 0 and the cgroup
 * config.json names in *ret_cgroup, -ESRCH if proc_cgroup is not in it,
 * -ENOMEM.
 */
int cgroup_config_match(const char *config_path, bool relative, const char *proc_cgroup,
			char **ret_cgroup);

/*
 * Read at most max bytes: -EFBIG if there are more (exactly max is fine).
 * read_regular_file() opens with O_NONBLOCK (a FIFO does not block the
 * hook) and refuses anything but a regular file with -EBADFD.
 */
int read_all_fd(int fd, size_t max, char **ret_data, size_t *ret_len);
int read_regular_file(const char *path, size_t max, char **ret_data, size_t *ret_len);

#endif /* TIERD_OCI_PARSE_H */
