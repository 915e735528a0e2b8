// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oci-parse.c: tierd-oci-hook's parsers of what runtimes and users hand it
 * (pure, no I/O; fuzzed by tests/fuzz/hook/), and its bounded readers.
 * See oci-parse.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include <tier.h>

#include "macro.h"
#include "oci-parse.h"

void oci_state_done(struct oci_state *s)
{
	free(s->id);
	free(s->bundle);
	free(s->class_value);
	*s = (struct oci_state){ 0 };
}

void oci_config_done(struct oci_config *c)
{
	free(c->cgroups_path);
	free(c->class_value);
	*c = (struct oci_config){ 0 };
}

/* Messages quote at most this much of a value from the input. */
#define QUOTE_MAX 64

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
 * In a valid JSON document: the first object key that holds an escaped NUL
 * ("\u0000"), by the offset of its opening quote.  json-c keeps keys as C
 * strings and cuts them there: {"tierd.io/class\u0000x": "latency"} would
 * be read as the key tierd.io/class, which the runtime that wrote it and
 * every other reader take for another key.  Returns true and *ret_off.
 */
static bool find_key_with_nul(const char *data, size_t len, size_t *ret_off)
{
	for (size_t i = 0; i < len; i++) {
		size_t start = i, j;
		bool nul = false;

		if (data[i] != '"')
			continue;
		for (i++; i < len && data[i] != '"'; i++) {
			if (data[i] != '\\')
				continue;
			i++;	/* the escaped character: \" or \\ end nothing */
			if (i + 4 < len && data[i] == 'u' && memcmp(data + i + 1, "0000", 4) == 0)
				nul = true;
		}
		if (!nul)
			continue;
		for (j = i + 1; j < len && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' ||
					    data[j] == '\r'); j++)
			;
		if (j < len && data[j] == ':') {
			*ret_off = start;
			return true;
		}
	}
	return false;
}

/*
 * Parse one JSON document that must be an object.  Rejects NUL bytes,
 * object keys with an escaped NUL (find_key_with_nul()), trailing garbage,
 * and what json-c's strict mode rejects.  On failure returns -EBADMSG with a
 * message in *ret_err (-ENOMEM without one).
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
	if (find_key_with_nul(data, len, &end)) {
		json_object_put(obj);
		return set_error(ret_err, "an object key contains a NUL character (\\u0000) "
				 "at offset %zu", end);
	}
	*ret_obj = obj;
	return 0;
}

/*
 * Optional string member.  *ret is NULL if absent or JSON null.  A string
 * with an embedded NUL, or a non-string, is an error.  what names the
 * member in the message (the caller escapes it).
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

/* The annotations object: whether it is there, and the value of key.  A
 * value with a NUL is an error, whatever its key (keys: json_parse_object()). */
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
	json_object_object_foreach(ann, k, v) {
		const char *s = json_object_is_type(v, json_type_string) ?
					json_object_get_string(v) : NULL;

		if (s && strlen(s) != (size_t)json_object_get_string_len(v))
			return set_error(ret_err, "\"annotations.%.*s\" contains a NUL character",
					 QUOTE_MAX, k);
	}
	*ret_has = true;
	if (asprintf(&what, "annotations.%.*s", QUOTE_MAX, key) < 0)
		return -ENOMEM;
	return get_string(ann, key, what, ret_value, ret_err);
}

int oci_state_parse(const char *data, size_t len, const char *annotation_key,
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
		/* the value is not quoted: the hook escapes what it prints,
		 * a parser's message stays plain */
		r = set_error(ret_err, "\"bundle\" is not an absolute path");
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

int oci_config_parse(const char *data, size_t len, const char *annotation_key,
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
		/* "" is the runtime's default, as if absent */
		if (c.cgroups_path && !*c.cgroups_path) {
			free(c.cgroups_path);
			c.cgroups_path = NULL;
		}
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

/* systemd's unit name characters (unit_name_is_valid(): VALID_CHARS and
 * '@' for instances); ':' cannot occur, it separates the fields. */
static bool unit_chars_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' ||
		      ch == '\\' || ch == '@'))
			return false;
	}
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t l = strlen(suffix);

	return n >= l && memcmp(s + n - l, suffix, l) == 0;
}

#define SLICE_SUFFIX ".slice"
#define SLICE_SUFFIX_LEN (sizeof(SLICE_SUFFIX) - 1)

int slice_expand(const char *slice, size_t n, char **ret_path)
{
	size_t stem, size = 0;
	char *out, *w;

	if (n > UNIT_NAME_MAX)
		return -ENAMETOOLONG;
	if (!ends_with(slice, n, SLICE_SUFFIX) || !unit_chars_ok(slice, n))
		return -EINVAL;
	if (n == 7 && memcmp(slice, "-.slice", 7) == 0) {
		out = strdup("");
		if (!out)
			return -ENOMEM;
		*ret_path = out;
		return 0;
	}
	stem = n - SLICE_SUFFIX_LEN;
	if (stem == 0 || slice[0] == '-' || slice[stem - 1] == '-')
		return -EINVAL;
	/* One pass to validate and size: each '-' at i adds "/" + i bytes
	 * of prefix + ".slice" before the last component "/" + the name. */
	for (size_t i = 0; i < stem; i++) {
		if (slice[i] != '-')
			continue;
		if (slice[i + 1] == '-')
			return -EINVAL;
		size += 1 + i + SLICE_SUFFIX_LEN;
	}
	size += 1 + n + 1;
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
		memcpy(w, SLICE_SUFFIX, SLICE_SUFFIX_LEN);
		w += SLICE_SUFFIX_LEN;
	}
	*w++ = '/';
	memcpy(w, slice, n);
	w += n;
	*w = '\0';
	*ret_path = out;
	return 0;
}

/* The systemd form, SLICE:PREFIX:NAME (c1, c2: the colons). */
static int systemd_path_resolve(const char *cgroups_path, const char *c1, const char *c2,
				char **ret_path)
{
	_cleanup_free_ char *slice_path = NULL, *joined = NULL;
	const char *slice = cgroups_path, *prefix = c1 + 1, *name = c2 + 1;
	size_t slice_n = (size_t)(c1 - cgroups_path), prefix_n = (size_t)(c2 - prefix);
	size_t name_n = strlen(name), unit_n;
	int r;

	if (slice_n == 0) {
		slice = "system.slice";
		slice_n = strlen(slice);
	}
	if (!unit_chars_ok(name, name_n) || (prefix_n && !unit_chars_ok(prefix, prefix_n)))
		return -EINVAL;
	/* the unit: NAME (a slice), PREFIX-NAME.scope or NAME.scope */
	if (ends_with(name, name_n, SLICE_SUFFIX))
		unit_n = name_n;
	else
		unit_n = (prefix_n ? prefix_n + 1 : 0) + name_n + strlen(".scope");
	if (unit_n > UNIT_NAME_MAX || slice_n > UNIT_NAME_MAX)
		return -ENAMETOOLONG;
	if ((name_n == 1 && name[0] == '.') || (name_n == 2 && memcmp(name, "..", 2) == 0))
		return -EINVAL;
	r = slice_expand(slice, slice_n, &slice_path);
	if (r < 0)
		return r;
	if (ends_with(name, name_n, SLICE_SUFFIX))
		r = asprintf(&joined, "%s/%s", slice_path, name);
	else if (prefix_n)
		r = asprintf(&joined, "%s/%.*s-%s.scope", slice_path, (int)prefix_n, prefix, name);
	else
		r = asprintf(&joined, "%s/%s.scope", slice_path, name);
	if (r < 0) {
		joined = NULL;
		return -ENOMEM;
	}
	return tier_cgroup_path_normalize(joined, ret_path);
}

int cgroups_path_resolve(const char *cgroups_path, char **ret_path, bool *ret_relative)
{
	_cleanup_free_ char *abs = NULL;
	const char *c1, *c2;
	char *out;
	int r;

	if (!cgroups_path || !*cgroups_path)
		return -EINVAL;
	if (strlen(cgroups_path) > CGROUPS_PATH_MAX)
		return -ENAMETOOLONG;
	c1 = strchr(cgroups_path, ':');
	if (c1) {
		c2 = strchr(c1 + 1, ':');
		if (!c2 || strchr(c2 + 1, ':'))
			return -EINVAL;
		r = systemd_path_resolve(cgroups_path, c1, c2, &out);
		if (r < 0)
			return r;
		*ret_path = out;
		*ret_relative = false;
		return 0;
	}
	if (cgroups_path[0] == '/') {
		r = tier_cgroup_path_normalize(cgroups_path, &out);
		if (r < 0)
			return r;
		*ret_path = out;
		*ret_relative = false;
		return 0;
	}
	if (asprintf(&abs, "/%s", cgroups_path) < 0) {
		abs = NULL;
		return -ENOMEM;
	}
	r = tier_cgroup_path_normalize(abs, &out);
	if (r < 0)
		return r;
	*ret_path = out;
	*ret_relative = true;
	return 0;
}

/* The parent of a normalised path ("/a/b" -> "/a", "/a" -> "/"), NULL for
 * the root. */
static char *path_parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || strcmp(path, "/") == 0)
		return NULL;
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* a ends with the components of the absolute b ("/x/a/b" ends with "/a/b"). */
static bool path_ends_with(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (strcmp(b, "/") == 0)
		return false;
	return la >= lb && strcmp(a + la - lb, b) == 0;
}

static void *mfree(void *p)
{
	free(p);
	return NULL;
}

int cgroup_config_match(const char *config_path, bool relative, const char *proc_cgroup,
			char **ret_cgroup)
{
	_cleanup_free_ char *parent = path_parent(proc_cgroup);
	const char *hit = NULL;
	char *out;

	if (strcmp(proc_cgroup, "/") != 0 && !parent)
		return -ENOMEM;
	/* a slice groups units by design: the init in a child of one is in
	 * another unit, not in the container's own cgroup */
	if (parent && ends_with(parent, strlen(parent), SLICE_SUFFIX))
		parent = mfree(parent);
	if (!relative) {
		if (strcmp(proc_cgroup, config_path) == 0 ||
		    (parent && strcmp(parent, config_path) == 0))
			hit = config_path;
	} else if (path_ends_with(proc_cgroup, config_path)) {
		hit = proc_cgroup;
	} else if (parent && path_ends_with(parent, config_path)) {
		hit = parent;
	}
	if (!hit)
		return -ESRCH;
	out = strdup(hit);
	if (!out)
		return -ENOMEM;
	*ret_cgroup = out;
	return 0;
}

int read_all_fd(int fd, size_t max, char **ret_data, size_t *ret_len)
{
	/* room for max + 1 bytes: reading that much means there are more */
	size_t len = 0, alloc = max < 4096 ? max + 1 : 4096;
	char *buf = malloc(alloc + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == alloc) {
			char *nb;

			alloc = alloc > max / 2 ? max + 1 : alloc * 2;
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
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[len] = '\0';
	*ret_data = buf;
	*ret_len = len;
	return 0;
}

int read_regular_file(const char *path, size_t max, char **ret_data, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	return read_all_fd(fd, max, ret_data, ret_len);
}
