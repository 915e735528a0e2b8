// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd-oci-hook: an OCI runtime hook (createRuntime stage) that puts a new
 * container's cgroup into its tiering class before the container's process
 * runs.
 *
 *   tierd-oci-hook [--fail-open|--fail-closed] [--annotation KEY]
 *                  [--config FILE] [--cgroup-root DIR] [--procfs-root DIR]
 *                  [--class NAME] [--allow-class NAME[,NAME...]] [--dry-run]
 *                  [--verbose]
 *                      < OCI state JSON
 *
 * 1. Reads the OCI state ({ociVersion, id, status, pid, bundle, annotations})
 *    from stdin.
 * 2. The class is the value of the annotation KEY (default tierd.io/class)
 *    in the state's annotations (or, if the state has none, the bundle's
 *    config.json). No annotation: not our container, exit 0 quietly.
 *    With --class NAME the class is NAME: for one hooks.d file per class
 *    whose "when" matched the annotation (CRI-O matches the pod's
 *    annotations, which the container's state does not carry).
 * 3. Looks the class up in the policy (tier_policy_load(): tierd.conf and
 *    its drop-ins).
 * 4. Finds the cgroup: linux.cgroupsPath of <bundle>/config.json, in its
 *    plain form ("/kubepods/burstable/podX/ID") or its systemd form
 *    ("SLICE:PREFIX:NAME" -> /a.slice/a-b.slice/PREFIX-NAME.scope); if that
 *    does not name an existing cgroup, the "0::" line of /proc/PID/cgroup.
 * 5. Applies the class: memory.numa_balancing, and memory.low/memory.high if
 *    the class sets them, writing only what differs. Values the container's
 *    own configuration already decides win: a memory.* key in
 *    linux.resources.unified, or a memory.low/memory.high the runtime has
 *    already set (the container's reservation, kubelet memory QoS) are left
 *    alone. memory.min is never written.
 * 6. Records the class as the user.KEY xattr of the cgroup directory (best
 *    effort), which libtier reports as the annotation KEY=CLASS, so tierd's
 *    annotation rules see the same class.
 *
 * Exit status: 0 on success, for a container without the annotation, and on
 * any error with --fail-open (the default; the error is still printed);
 * 1 on an error with --fail-closed (the runtime then refuses to start the
 * container); 2 for a bad command line. See tierd-oci-hook(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <syslog.h>
#include <unistd.h>

#include <json-c/json.h>

#include <tier.h>

#include "macro.h"

#ifndef TIERD_VERSION
#define TIERD_VERSION "0.2.0"
#endif

#define PROG "tierd-oci-hook"
#define DEFAULT_ANNOTATION "tierd.io/class"
#define DEFAULT_CONFIG "/etc/tierd/tierd.conf"
#define DEFAULT_CGROUP_ROOT "/sys/fs/cgroup"

/* Input size limits: the state is a few hundred bytes; config.json carries
 * seccomp profiles and can reach a few hundred KiB. */
#define STATE_MAX (1u << 20)
#define CONFIG_MAX (16u << 20)
#define PROC_CGROUP_MAX (64u << 10)
#define JSON_DEPTH 64

/* ------------------------------------------------------------------------
 * Parsing (pure: no I/O; fuzzed by tests/fuzz/hook/)
 * ------------------------------------------------------------------------ */

struct oci_state {
	char *id;		/* NULL if absent */
	char *bundle;		/* NULL if absent */
	int pid;		/* 0 if absent */
	bool has_annotations;	/* the state has an "annotations" object */
	char *class_value;	/* value of the annotation key, NULL if absent */
};

struct oci_config {
	char *cgroups_path;	/* linux.cgroupsPath, NULL if absent */
	bool has_annotations;
	char *class_value;
	/* linux.resources.unified sets these (the container's own choice) */
	bool unified_numa_balancing, unified_low, unified_high;
};

static void oci_state_done(struct oci_state *s)
{
	free(s->id);
	free(s->bundle);
	free(s->class_value);
	*s = (struct oci_state){ 0 };
}

static void oci_config_done(struct oci_config *c)
{
	free(c->cgroups_path);
	free(c->class_value);
	*c = (struct oci_config){ 0 };
}

_printf_(2, 3) static int set_error(char **ret_err, const char *fmt, ...)
{
	va_list ap;

	if (!ret_err)
		return -EBADMSG;
	free(*ret_err);
	*ret_err = NULL;
	va_start(ap, fmt);
	if (vasprintf(ret_err, fmt, ap) < 0)
		*ret_err = NULL;
	va_end(ap);
	return -EBADMSG;
}

/*
 * Parse one JSON document that must be an object.  Rejects NUL bytes,
 * trailing garbage, and what json-c's strict mode rejects.  On failure
 * returns -EBADMSG with a message in *ret_err (-ENOMEM without one).
 */
static int json_parse_object(const char *data, size_t len, struct json_object **ret_obj,
			     char **ret_err)
{
	struct json_tokener *tok;
	struct json_object *obj;
	enum json_tokener_error jerr;
	const char *nul;
	size_t end;

	if (len > INT_MAX)
		return set_error(ret_err, "input too large");
	nul = memchr(data, '\0', len);
	if (nul)
		return set_error(ret_err, "NUL byte at offset %zu", (size_t)(nul - data));
	tok = json_tokener_new_ex(JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	obj = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!obj || jerr != json_tokener_success) {
		int r;

		if (jerr == json_tokener_continue || jerr == json_tokener_success)
			r = set_error(ret_err, "unexpected end of input");
		else
			r = set_error(ret_err, "%s at offset %zu", json_tokener_error_desc(jerr),
				      end);
		json_object_put(obj);
		json_tokener_free(tok);
		return r;
	}
	json_tokener_free(tok);
	for (size_t i = end; i < len; i++) {
		if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r') {
			json_object_put(obj);
			return set_error(ret_err, "trailing characters at offset %zu", i);
		}
	}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return set_error(ret_err, "the document is not a JSON object");
	}
	*ret_obj = obj;
	return 0;
}

/*
 * Optional string member.  *ret is NULL if absent or JSON null.  A string
 * with an embedded NUL, or a non-string, is an error.
 */
static int get_string(struct json_object *obj, const char *key, const char *what, char **ret,
		      char **ret_err)
{
	struct json_object *v;
	const char *s;
	int len;

	*ret = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return set_error(ret_err, "\"%s\" is not a string", what);
	s = json_object_get_string(v);
	len = json_object_get_string_len(v);
	if (!s || len < 0 || strlen(s) != (size_t)len)
		return set_error(ret_err, "\"%s\" contains a NUL character", what);
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* The annotations object: whether it is there, and the value of key. */
static int get_annotation(struct json_object *root, const char *key, bool *ret_has,
			  char **ret_value, char **ret_err)
{
	struct json_object *ann;
	_cleanup_free_ char *what = NULL;

	*ret_has = false;
	*ret_value = NULL;
	if (!json_object_object_get_ex(root, "annotations", &ann) || !ann)
		return 0;
	if (!json_object_is_type(ann, json_type_object))
		return set_error(ret_err, "\"annotations\" is not an object");
	*ret_has = true;
	if (asprintf(&what, "annotations.%s", key) < 0)
		return -ENOMEM;
	return get_string(ann, key, what, ret_value, ret_err);
}

static int oci_state_parse(const char *data, size_t len, const char *annotation_key,
			   struct oci_state *ret_state, char **ret_err)
{
	struct oci_state s = { 0 };
	struct json_object *root = NULL, *v;
	int r;

	r = json_parse_object(data, len, &root, ret_err);
	if (r < 0)
		return r;
	r = get_string(root, "id", "id", &s.id, ret_err);
	if (r < 0)
		goto fail;
	r = get_string(root, "bundle", "bundle", &s.bundle, ret_err);
	if (r < 0)
		goto fail;
	if (s.bundle && s.bundle[0] != '/') {
		r = set_error(ret_err, "\"bundle\" is not an absolute path: '%s'", s.bundle);
		goto fail;
	}
	if (json_object_object_get_ex(root, "pid", &v) && v) {
		int64_t pid;

		if (!json_object_is_type(v, json_type_int)) {
			r = set_error(ret_err, "\"pid\" is not an integer");
			goto fail;
		}
		errno = 0;
		pid = json_object_get_int64(v);
		if (errno != 0 || pid < 0 || pid > INT_MAX) {
			r = set_error(ret_err, "\"pid\" out of range");
			goto fail;
		}
		s.pid = (int)pid;
	}
	r = get_annotation(root, annotation_key, &s.has_annotations, &s.class_value, ret_err);
	if (r < 0)
		goto fail;
	json_object_put(root);
	*ret_state = s;
	return 0;
fail:
	json_object_put(root);
	oci_state_done(&s);
	return r;
}

static int oci_config_parse(const char *data, size_t len, const char *annotation_key,
			    struct oci_config *ret_config, char **ret_err)
{
	struct oci_config c = { 0 };
	struct json_object *root = NULL, *linux_obj, *res, *unified;
	int r;

	r = json_parse_object(data, len, &root, ret_err);
	if (r < 0)
		return r;
	r = get_annotation(root, annotation_key, &c.has_annotations, &c.class_value, ret_err);
	if (r < 0)
		goto fail;
	if (json_object_object_get_ex(root, "linux", &linux_obj) && linux_obj) {
		if (!json_object_is_type(linux_obj, json_type_object)) {
			r = set_error(ret_err, "\"linux\" is not an object");
			goto fail;
		}
		r = get_string(linux_obj, "cgroupsPath", "linux.cgroupsPath", &c.cgroups_path,
			       ret_err);
		if (r < 0)
			goto fail;
		if (json_object_object_get_ex(linux_obj, "resources", &res) && res &&
		    json_object_is_type(res, json_type_object) &&
		    json_object_object_get_ex(res, "unified", &unified) && unified &&
		    json_object_is_type(unified, json_type_object)) {
			c.unified_numa_balancing =
				json_object_object_get_ex(unified, "memory.numa_balancing", NULL);
			c.unified_low = json_object_object_get_ex(unified, "memory.low", NULL);
			c.unified_high = json_object_object_get_ex(unified, "memory.high", NULL);
		}
	}
	json_object_put(root);
	*ret_config = c;
	return 0;
fail:
	json_object_put(root);
	oci_config_done(&c);
	return r;
}

/* A systemd unit-name-ish component: printable, no '/' and no spaces. */
static bool unit_chars_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch <= ' ' || ch >= 0x7f || ch == '/')
			return false;
	}
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t l = strlen(suffix);

	return n >= l && memcmp(s + n - l, suffix, l) == 0;
}

/*
 * Expand a systemd slice name into its cgroup path the way systemd (and
 * runc/crun) do: "a-b-c.slice" -> "/a.slice/a-b.slice/a-b-c.slice",
 * "-.slice" (the root slice) -> "".  -EINVAL for a malformed name.
 */
static int expand_slice(const char *slice, size_t n, char **ret_path)
{
	char *out, *w;
	size_t stem;

	if (!ends_with(slice, n, ".slice") || !unit_chars_ok(slice, n))
		return -EINVAL;
	if (n == 7 && memcmp(slice, "-.slice", 7) == 0) {
		out = strdup("");
		if (!out)
			return -ENOMEM;
		*ret_path = out;
		return 0;
	}
	stem = n - strlen(".slice");
	if (stem == 0 || slice[0] == '-' || slice[stem - 1] == '-')
		return -EINVAL;
	for (size_t i = 0; i + 1 < stem; i++)
		if (slice[i] == '-' && slice[i + 1] == '-')
			return -EINVAL;
	/* Each '-' adds one "/<prefix>.slice" component before the last. */
	{
		size_t dashes = 0, size;

		for (size_t i = 0; i < stem; i++)
			dashes += slice[i] == '-';
		size = (dashes + 1) * (1 + n) + 1;
		out = malloc(size);
		if (!out)
			return -ENOMEM;
		w = out;
		for (size_t i = 0; i < stem; i++) {
			if (slice[i] != '-')
				continue;
			*w++ = '/';
			memcpy(w, slice, i);
			w += i;
			memcpy(w, ".slice", 6);
			w += 6;
		}
		*w++ = '/';
		memcpy(w, slice, n);
		w += n;
		*w = '\0';
	}
	*ret_path = out;
	return 0;
}

/* "/a//b/" -> "/a/b"; -EINVAL for ".", ".." or control characters. */
static int normalize_path(const char *p, char **ret_path)
{
	size_t n = strlen(p);
	char *out = malloc(n + 2), *w = out;

	if (!out)
		return -ENOMEM;
	for (const char *q = p; *q;) {
		const char *e;
		size_t l;

		while (*q == '/')
			q++;
		if (!*q)
			break;
		e = strchrnul(q, '/');
		l = (size_t)(e - q);
		if ((l == 1 && q[0] == '.') || (l == 2 && q[0] == '.' && q[1] == '.')) {
			free(out);
			return -EINVAL;
		}
		for (size_t i = 0; i < l; i++)
			if ((unsigned char)q[i] < ' ') {
				free(out);
				return -EINVAL;
			}
		*w++ = '/';
		memcpy(w, q, l);
		w += l;
		q = e;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	*ret_path = out;
	return 0;
}

/*
 * linux.cgroupsPath -> a cgroup path below the cgroup2 root ("/a/b").
 *  "/kubepods/burstable/podX/ID"          -> itself (normalised)
 *  "SLICE:PREFIX:NAME" (systemd driver)   -> expanded SLICE + "/PREFIX-NAME.scope";
 *                                            NAME ending in ".slice" is used as is;
 *                                            an empty SLICE is "system.slice",
 *                                            an empty PREFIX gives "NAME.scope"
 * Returns -EINVAL for a malformed value, -EXDEV for a relative path (the
 * runtime places it below its own cgroup: the caller must ask /proc).
 */
static int cgroups_path_resolve(const char *cgroups_path, char **ret_path)
{
	const char *c1, *c2;
	_cleanup_free_ char *slice_path = NULL, *unit = NULL, *joined = NULL;
	const char *slice, *prefix, *name;
	size_t slice_n, prefix_n, name_n;
	int r;

	if (!cgroups_path || !*cgroups_path)
		return -EINVAL;
	c1 = strchr(cgroups_path, ':');
	if (!c1) {
		if (cgroups_path[0] != '/')
			return -EXDEV;
		return normalize_path(cgroups_path, ret_path);
	}
	c2 = strchr(c1 + 1, ':');
	if (!c2 || strchr(c2 + 1, ':'))
		return -EINVAL;
	slice = cgroups_path;
	slice_n = (size_t)(c1 - cgroups_path);
	prefix = c1 + 1;
	prefix_n = (size_t)(c2 - prefix);
	name = c2 + 1;
	name_n = strlen(name);
	if (slice_n == 0) {
		slice = "system.slice";
		slice_n = strlen(slice);
	}
	if (!unit_chars_ok(name, name_n) || (prefix_n && !unit_chars_ok(prefix, prefix_n)))
		return -EINVAL;
	r = expand_slice(slice, slice_n, &slice_path);
	if (r < 0)
		return r;
	if (ends_with(name, name_n, ".slice"))
		r = asprintf(&unit, "%.*s", (int)name_n, name);
	else if (prefix_n)
		r = asprintf(&unit, "%.*s-%.*s.scope", (int)prefix_n, prefix, (int)name_n, name);
	else
		r = asprintf(&unit, "%.*s.scope", (int)name_n, name);
	if (r < 0) {
		unit = NULL;
		return -ENOMEM;
	}
	if (strcmp(unit, ".") == 0 || strcmp(unit, "..") == 0)
		return -EINVAL;
	if (asprintf(&joined, "%s/%s", slice_path, unit) < 0) {
		joined = NULL;
		return -ENOMEM;
	}
	return normalize_path(joined, ret_path);
}

/*
 * The cgroup v2 path of /proc/PID/cgroup content: the "0::PATH" line.
 * -ENODATA if there is none (cgroup v1 only), -EINVAL if the path is not
 * below our cgroup namespace root ("/../x") or malformed.
 */
static int proc_cgroup_parse(const char *data, size_t len, char **ret_path)
{
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le - p >= 3 && memcmp(p, "0::", 3) == 0) {
			_cleanup_free_ char *path = strndup(p + 3, (size_t)(le - p - 3));

			if (!path)
				return -ENOMEM;
			if (path[0] != '/' || strlen(path) != (size_t)(le - p - 3))
				return -EINVAL;
			return normalize_path(path, ret_path);
		}
		p = le + 1;
	}
	return -ENODATA;
}

/* Read at most max bytes of fd; -EFBIG beyond. */
static int read_all_fd(int fd, size_t max, char **ret_data, size_t *ret_len)
{
	size_t len = 0, alloc = 4096;
	char *buf = malloc(alloc + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == alloc) {
			char *nb;

			if (alloc >= max) {
				free(buf);
				return -EFBIG;
			}
			alloc = alloc * 2 > max ? max : alloc * 2;
			nb = realloc(buf, alloc + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, alloc - len);
		if (n < 0) {
			int r = -errno;

			if (r == -EINTR)
				continue;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_data = buf;
	*ret_len = len;
	return 0;
}

static int read_all_file(const char *path, size_t max, char **ret_data, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return read_all_fd(fd, max, ret_data, ret_len);
}

#ifndef TIERD_OCI_HOOK_NO_MAIN

/* ------------------------------------------------------------------------
 * The hook
 * ------------------------------------------------------------------------ */

struct hook_opts {
	const char *annotation;
	const char *config;
	const char *cgroup_root;
	const char *proc_root;
	const char *allow;	/* comma-separated class names, NULL = any */
	const char *force_class; /* --class: the runtime matched the annotation */
	bool fail_closed;
	bool dry_run;
	bool verbose;
};

/* The container id for messages ("container ID: "), "" before it is known. */
static char msg_prefix[128];

_printf_(1, 2) static void msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s", PROG, msg_prefix);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

_printf_(6, 0) static void log_hook(void *data, int priority, const char *file, int line,
				    const char *fn, const char *format, va_list args)
{
	fprintf(stderr, "%s: libtier: ", PROG);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

static bool class_allowed(const char *allow, const char *cls)
{
	size_t n = strlen(cls);

	if (!allow)
		return true;
	for (const char *p = allow; *p;) {
		const char *e = strchrnul(p, ',');

		if ((size_t)(e - p) == n && memcmp(p, cls, n) == 0)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

/* "latency, pinned, batch" for the unknown-class message. */
static char *class_list(const struct tier_policy *policy)
{
	size_t n = tier_policy_class_count(policy), size = 1;
	char *out;

	for (size_t i = 0; i < n; i++)
		size += strlen(tier_policy_class(policy, i)->name) + 2;
	out = calloc(1, size);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, ", ");
		strcat(out, tier_policy_class(policy, i)->name);
	}
	return out;
}

/*
 * Find the container's cgroup.  Returns 0 and the path, or a negative errno
 * after printing why nothing was found.
 */
static int find_cgroup(struct tier_ctx *ctx, const struct hook_opts *o, const struct oci_state *st,
		       const struct oci_config *cfg, char **ret_cgroup)
{
	_cleanup_free_ char *from_config = NULL, *from_proc = NULL;
	_cleanup_free_ char *why_config = NULL, *why_proc = NULL;
	int r;

	if (cfg->cgroups_path) {
		r = cgroups_path_resolve(cfg->cgroups_path, &from_config);
		if (r == -ENOMEM)
			return r;
		if (r == -EXDEV)
			r = asprintf(&why_config, "linux.cgroupsPath '%s' is relative to the runtime's cgroup",
				     cfg->cgroups_path);
		else if (r < 0)
			r = asprintf(&why_config, "linux.cgroupsPath '%s' is malformed",
				     cfg->cgroups_path);
		else if (tier_cgroup_exists(ctx, from_config)) {
			*ret_cgroup = TAKE_PTR(from_config);
			return 0;
		} else
			r = asprintf(&why_config, "linux.cgroupsPath '%s' -> %s%s does not exist",
				     cfg->cgroups_path, o->cgroup_root, from_config);
	} else
		r = asprintf(&why_config, "config.json has no linux.cgroupsPath");
	if (r < 0)
		return -ENOMEM;

	if (st->pid > 0) {
		_cleanup_free_ char *file = NULL, *data = NULL;
		size_t len;

		if (asprintf(&file, "%s/%d/cgroup", o->proc_root, st->pid) < 0)
			return -ENOMEM;
		r = read_all_file(file, PROC_CGROUP_MAX, &data, &len);
		if (r == 0)
			r = proc_cgroup_parse(data, len, &from_proc);
		if (r == -ENOMEM)
			return r;
		if (r == 0 && tier_cgroup_exists(ctx, from_proc)) {
			*ret_cgroup = TAKE_PTR(from_proc);
			return 0;
		}
		if (r == 0)
			r = asprintf(&why_proc, "%s names %s%s, which does not exist", file,
				     o->cgroup_root, from_proc);
		else if (r == -ENODATA)
			r = asprintf(&why_proc, "%s has no cgroup v2 (0::) line", file);
		else if (r == -EINVAL)
			r = asprintf(&why_proc, "%s: unusable path (outside our cgroup namespace?)",
				     file);
		else
			r = asprintf(&why_proc, "%s: %s", file, strerror(-r));
	} else
		r = asprintf(&why_proc, "the state has no pid");
	if (r < 0)
		return -ENOMEM;
	msg("cannot find the container's cgroup: %s; %s", why_config, why_proc);
	return -ENOENT;
}

/* "cg: memory.numa_balancing inherit -> full (class c)", said before a write. */
static void msg_transition(const struct hook_opts *o, const char *cg, const struct tier_class *cls,
			   const struct tier_apply_change *ch)
{
	const char *dry = o->dry_run ? " (dry run)" : "";

	if (!o->dry_run && !o->verbose)
		return;
	if (ch->attr == TIER_ATTR_NUMA_BALANCING)
		msg("%s: memory.numa_balancing %s -> %s (class %s)%s", cg, ch->old_value,
		    ch->new_value, cls->name, dry);
	else
		msg("%s: %s %s -> %s%s", cg, tier_attr_to_string(ch->attr), ch->old_value,
		    ch->new_value, dry);
}

/* Say what tier_class_apply() did to one attribute; its errno if it failed. */
static int report_change(const struct hook_opts *o, const char *cg, const struct tier_class *cls,
			 const struct tier_apply_change *ch)
{
	const char *file = tier_attr_to_string(ch->attr);
	bool mode = ch->attr == TIER_ATTR_NUMA_BALANCING;

	switch (ch->status) {
	case TIER_APPLY_UNCHANGED:
		if (o->verbose && mode)
			msg("%s: memory.numa_balancing already %s (class %s)", cg, ch->old_value,
			    cls->name);
		else if (o->verbose)
			msg("%s: %s already %s", cg, file, ch->old_value);
		return 0;
	case TIER_APPLY_KEPT:
		/* The runtime wrote it from the container's resources (e.g.
		 * --memory-reservation, or kubelet memory QoS): do not fight. */
		msg("%s: %s is %s, set by the runtime; leaving it (the class asks for %s)", cg, file,
		    ch->old_value, ch->new_value);
		return 0;
	case TIER_APPLY_CHANGED:
		msg_transition(o, cg, cls, ch);
		return 0;
	default:
		break;
	}
	if (!ch->old_value[0]) {	/* the read failed */
		if (mode && ch->error == -EOPNOTSUPP)
			msg("%s: the kernel does not support memory.numa_balancing "
			    "(the tierd kernel patches are not applied)", cg);
		else
			msg("%s: cannot read %s: %s", cg, file, strerror(-ch->error));
		return ch->error;
	}
	msg_transition(o, cg, cls, ch);
	if (mode)
		msg("%s: cannot write '%s' to memory.numa_balancing: %s", cg, ch->new_value,
		    strerror(-ch->error));
	else
		msg("%s: cannot write %s to %s: %s", cg, ch->new_value, file, strerror(-ch->error));
	return ch->error;
}

/*
 * memory.numa_balancing (unless the class says inherit), then memory.low and
 * memory.high if the class sets them, one at a time: the first failure ends
 * it.  What the container's linux.resources.unified sets, and a memory.low
 * or memory.high the runtime already set, are left alone.
 */
static int apply_class(struct tier_ctx *ctx, const struct hook_opts *o, const char *cg,
		       const struct tier_class *cls, const struct oci_config *cfg)
{
	const unsigned all = TIER_APPLY_SKIP_NUMA_BALANCING | TIER_APPLY_SKIP_MEMORY_LOW |
			     TIER_APPLY_SKIP_MEMORY_HIGH;
	const bool unified[_TIER_ATTR_MAX] = {
		[TIER_ATTR_NUMA_BALANCING] = cfg->unified_numa_balancing,
		[TIER_ATTR_MEMORY_LOW] = cfg->unified_low,
		[TIER_ATTR_MEMORY_HIGH] = cfg->unified_high,
	};
	const bool set[_TIER_ATTR_MAX] = {
		[TIER_ATTR_NUMA_BALANCING] = cls->mode != TIER_MODE_INHERIT,
		[TIER_ATTR_MEMORY_LOW] = cls->memory_low.kind != TIER_AMOUNT_UNSET,
		[TIER_ATTR_MEMORY_HIGH] = cls->memory_high.kind != TIER_AMOUNT_UNSET,
	};
	unsigned flags = TIER_APPLY_KEEP_SET | (o->dry_run ? TIER_APPLY_DRY_RUN : 0);

	for (int a = 0; a < _TIER_ATTR_MAX; a++) {
		struct tier_apply_result res;
		int r;

		if (a == TIER_ATTR_NUMA_BALANCING && unified[a])
			msg("%s: memory.numa_balancing is set by the container's "
			    "linux.resources.unified, leaving it (class %s not applied to it)",
			    cg, cls->name);
		if (!set[a])
			continue;
		if (unified[a]) {
			if (a != TIER_ATTR_NUMA_BALANCING && o->verbose)
				msg("%s: %s is set by the container's linux.resources.unified, "
				    "leaving it", cg, tier_attr_to_string((enum tier_attr)a));
			continue;
		}
		r = tier_class_apply(ctx, cg, cls, NULL, flags | (all & ~TIER_APPLY_SKIP(a)), &res);
		if (r < 0) {
			msg("%s: cannot apply class %s: %s", cg, cls->name, strerror(-r));
			return r;
		}
		if (res.n_changes == 0)
			continue;
		r = report_change(o, cg, cls, &res.changes[0]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Best effort: user.<key> = class on the cgroup directory, so tierd sees the
 * annotation (libtier reads user.* xattrs as annotations). */
static void record_xattr(const struct hook_opts *o, const char *cg, const char *cls)
{
	_cleanup_free_ char *dir = NULL, *name = NULL;

	if (o->dry_run)
		return;
	if (asprintf(&dir, "%s%s", o->cgroup_root, cg) < 0 ||
	    asprintf(&name, "user.%s", o->annotation) < 0)
		return;
	if (setxattr(dir, name, cls, strlen(cls), 0) < 0 && o->verbose)
		msg("%s: cannot set xattr %s (%m), ignoring", cg, name);
}

/* Returns 0 on success or "not our container", negative errno on error
 * (after printing the reason). */
static int run(const struct hook_opts *o)
{
	_cleanup_free_ char *state_data = NULL, *config_data = NULL, *err = NULL;
	_cleanup_free_ char *config_file = NULL, *cgroup = NULL;
	struct oci_state st = { 0 };
	struct oci_config cfg = { 0 };
	struct tier_errors *errors = NULL;
	struct tier_policy *policy = NULL;
	struct tier_ctx *ctx = NULL;
	const struct tier_class *cls;
	const char *class_name, *cgroup_root;
	size_t len;
	int r;

	r = read_all_fd(STDIN_FILENO, STATE_MAX, &state_data, &len);
	if (r < 0) {
		msg("cannot read the OCI state from stdin: %s",
		    r == -EFBIG ? "more than 1 MiB" : strerror(-r));
		return r;
	}
	r = oci_state_parse(state_data, len, o->annotation, &st, &err);
	if (r < 0) {
		msg("malformed OCI state JSON on stdin: %s", err ? err : strerror(-r));
		goto out;
	}
	if (st.id)
		snprintf(msg_prefix, sizeof(msg_prefix), "container %.64s: ", st.id);

	/* Nothing to do unless the container carries the annotation. */
	if (st.has_annotations && !st.class_value && !o->force_class) {
		r = 0;
		goto out;
	}
	if (!st.bundle) {
		if (!st.has_annotations && !o->force_class) {
			/* cannot tell without config.json: not ours */
			r = 0;
			goto out;
		}
		msg("the OCI state has no \"bundle\": cannot read config.json");
		r = -EINVAL;
		goto out;
	}
	if (asprintf(&config_file, "%s/config.json", st.bundle) < 0) {
		config_file = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = read_all_file(config_file, CONFIG_MAX, &config_data, &len);
	if (r < 0) {
		msg("cannot read %s: %s", config_file, r == -EFBIG ? "too large" : strerror(-r));
		goto out;
	}
	r = oci_config_parse(config_data, len, o->annotation, &cfg, &err);
	if (r < 0) {
		msg("malformed %s: %s", config_file, err ? err : strerror(-r));
		goto out;
	}
	class_name = st.has_annotations ? st.class_value : cfg.class_value;
	if (o->force_class) {
		/* The runtime chose this hook file by the annotation (CRI-O
		 * matches pod annotations, which the container's own
		 * annotations do not carry). */
		if (class_name && strcmp(class_name, o->force_class) != 0)
			msg("annotation %s is '%s' but this hook is for class '%s' (--class); "
			    "using '%s'", o->annotation, class_name, o->force_class,
			    o->force_class);
		class_name = o->force_class;
	}
	if (!class_name) {
		r = 0;
		goto out;
	}
	if (!*class_name) {
		msg("annotation %s is empty", o->annotation);
		r = -EINVAL;
		goto out;
	}

	errors = tier_errors_new();
	if (!errors) {
		r = -ENOMEM;
		goto out;
	}
	r = tier_policy_load(o->config, NULL, errors, &policy);
	if (r < 0) {
		for (size_t i = 0; i < tier_errors_count(errors); i++)
			msg("%s", tier_errors_get(errors, i));
		msg("cannot load the policy %s: %s", o->config, strerror(-r));
		goto out;
	}
	cls = tier_policy_find_class(policy, class_name);
	if (!cls) {
		_cleanup_free_ char *names = class_list(policy);

		msg("unknown class '%s' (annotation %s); the policy %s defines: %s", class_name,
		    o->annotation, o->config, names && *names ? names : "no classes");
		r = -ENOENT;
		goto out;
	}
	if (!class_allowed(o->allow, cls->name)) {
		msg("class '%s' (annotation %s) is not allowed for containers (--allow-class %s)",
		    cls->name, o->annotation, o->allow);
		r = -EPERM;
		goto out;
	}

	cgroup_root = o->cgroup_root ? o->cgroup_root : tier_policy_daemon(policy)->cgroup_root;
	if (!cgroup_root)
		cgroup_root = DEFAULT_CGROUP_ROOT;
	r = tier_ctx_new(cgroup_root, NULL, o->proc_root, &ctx);
	if (r < 0) {
		msg("cannot set up libtier: %s", strerror(-r));
		goto out;
	}
	tier_ctx_set_log_fn(ctx, log_hook, NULL);
	{
		struct hook_opts eff = *o;

		eff.cgroup_root = cgroup_root;
		r = find_cgroup(ctx, &eff, &st, &cfg, &cgroup);
		if (r < 0)
			goto out;
		r = apply_class(ctx, &eff, cgroup, cls, &cfg);
		if (r < 0)
			goto out;
		record_xattr(&eff, cgroup, cls->name);
	}
	if (o->verbose)
		msg("%s: class %s applied", cgroup, cls->name);
	r = 0;
out:
	if (r == -ENOMEM)
		msg("out of memory");
	tier_ctx_unref(ctx);
	tier_policy_free(policy);
	tier_errors_free(errors);
	oci_config_done(&cfg);
	oci_state_done(&st);
	return r;
}

static void help(void)
{
	printf("%s [OPTIONS] < STATE\n\n"
	       "OCI createRuntime hook: applies the tierd class named by a container\n"
	       "annotation to the container's cgroup before its process starts.\n\n"
	       "  --fail-open            on an error print it and exit 0 (default)\n"
	       "  --fail-closed          on an error exit 1: the container does not start\n"
	       "  --annotation KEY       annotation naming the class (default %s)\n"
	       "  --config FILE          policy file (default %s, plus its drop-ins)\n"
	       "  --cgroup-root DIR      cgroup2 mount (default: the policy's cgroup_root)\n"
	       "  --procfs-root DIR      procfs (default /proc)\n"
	       "  --allow-class LIST     only these classes (comma-separated) may be chosen\n"
	       "  --class NAME           apply NAME: the runtime picked this hook by the\n"
	       "                         annotation (one hooks.d file per class)\n"
	       "  --dry-run              say what would be written, write nothing\n"
	       "  -v, --verbose          report every value read and written\n"
	       "  -h, --help             this text\n"
	       "      --version          the version\n",
	       PROG, DEFAULT_ANNOTATION, DEFAULT_CONFIG);
}

int main(int argc, char **argv)
{
	enum { ARG_FAIL_OPEN = 0x100, ARG_FAIL_CLOSED, ARG_ANNOTATION, ARG_CONFIG,
	       ARG_CGROUP_ROOT, ARG_PROCFS_ROOT, ARG_ALLOW, ARG_CLASS, ARG_DRY_RUN,
	       ARG_VERSION };
	static const struct option options[] = {
		{ "fail-open", no_argument, NULL, ARG_FAIL_OPEN },
		{ "fail-closed", no_argument, NULL, ARG_FAIL_CLOSED },
		{ "annotation", required_argument, NULL, ARG_ANNOTATION },
		{ "config", required_argument, NULL, ARG_CONFIG },
		{ "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
		{ "procfs-root", required_argument, NULL, ARG_PROCFS_ROOT },
		{ "allow-class", required_argument, NULL, ARG_ALLOW },
		{ "class", required_argument, NULL, ARG_CLASS },
		{ "dry-run", no_argument, NULL, ARG_DRY_RUN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{}
	};
	struct hook_opts o = {
		.annotation = DEFAULT_ANNOTATION,
		.config = DEFAULT_CONFIG,
		.proc_root = "/proc",
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "vh", options, NULL)) >= 0) {
		switch (c) {
		case ARG_FAIL_OPEN:
			o.fail_closed = false;
			break;
		case ARG_FAIL_CLOSED:
			o.fail_closed = true;
			break;
		case ARG_ANNOTATION:
			if (!*optarg || strchr(optarg, '=')) {
				fprintf(stderr, "%s: invalid annotation key '%s'\n", PROG, optarg);
				return 2;
			}
			o.annotation = optarg;
			break;
		case ARG_CONFIG:
			o.config = optarg;
			break;
		case ARG_CGROUP_ROOT:
			o.cgroup_root = optarg;
			break;
		case ARG_PROCFS_ROOT:
			o.proc_root = optarg;
			break;
		case ARG_ALLOW:
			o.allow = optarg;
			break;
		case ARG_CLASS:
			if (!*optarg) {
				fprintf(stderr, "%s: --class needs a class name\n", PROG);
				return 2;
			}
			o.force_class = optarg;
			break;
		case ARG_DRY_RUN:
			o.dry_run = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("%s %s\n", PROG, TIERD_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", PROG);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help'.\n", PROG,
			argv[optind], PROG);
		return 2;
	}

	r = run(&o);
	if (r >= 0)
		return 0;
	if (o.fail_closed) {
		msg("failing the container (--fail-closed)");
		return 1;
	}
	msg("starting the container without its tiering class (--fail-open)");
	return 0;
}

#endif /* TIERD_OCI_HOOK_NO_MAIN */
