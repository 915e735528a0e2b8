// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Policy files: INI, every problem collected as FILE:LINE.
 *
 * The parser is ours, line by line: it counts lines (so every message has
 * the right line number), strips leading whitespace (an indented key is an
 * ordinary line, never a continuation), reads section headers, splits
 * "key = value" (or "key: value") at the first '=' or ':', strips the
 * whitespace around both and an inline " ;" comment after the value, and
 * reports every bad line, not just the first.  It used to hand the
 * key/value lines to inih, which did only the split and the strip and
 * imposed its INI_MAX_LINE of 200 bytes (a cgroup glob or exe path of 199
 * characters was "line too long"); lines are now bounded by
 * POLICY_LINE_MAX.
 *
 * Policy files are untrusted input of bounded cost: each is opened without
 * blocking (a FIFO cannot stall tierd), must be a regular file (a symlink to
 * one is fine) and is read whole only up to POLICY_FILE_MAX; so every line,
 * however long, is bounded too. Drop-ins are opened relative to their
 * directory's fd. Loading is linear in the size of the policy: names are
 * found through hash tables, the prefix index grows geometrically, strings
 * are packed into blocks.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libtier-private.h"
#include "policy.h"
#include "tier-internal.h"

#define NAME_MAX_LEN 64

/* --- error list --- */

struct error_entry {
	char *file;
	unsigned line;
	char *message;
	char *formatted;
};

/*
 * At most ERRORS_MAX problems are kept per load, then one "too many errors":
 * a hostile 16 MiB file of 8 million bad lines must not cost gigabytes (and
 * as many log lines in tierd).
 */
#define ERRORS_MAX 1000

struct tier_errors {
	struct error_entry *e;
	size_t n, alloc;
	size_t load_start;		/* n when the current load began */
	bool truncated;			/* the current load reached ERRORS_MAX */
	bool oom;
};

_public_ struct tier_errors *tier_errors_new(void)
{
	return calloc(1, sizeof(struct tier_errors));
}

_public_ void tier_errors_free(struct tier_errors *errors)
{
	if (!errors)
		return;
	for (size_t i = 0; i < errors->n; i++) {
		free(errors->e[i].file);
		free(errors->e[i].message);
		free(errors->e[i].formatted);
	}
	free(errors->e);
	free(errors);
}

_public_ size_t tier_errors_count(const struct tier_errors *errors)
{
	return errors ? errors->n : 0;
}

_public_ const char *tier_errors_get(const struct tier_errors *errors, size_t i)
{
	return errors && i < errors->n ? errors->e[i].formatted : NULL;
}

_public_ const char *tier_errors_file(const struct tier_errors *errors, size_t i)
{
	return errors && i < errors->n ? errors->e[i].file : NULL;
}

_public_ unsigned tier_errors_line(const struct tier_errors *errors, size_t i)
{
	return errors && i < errors->n ? errors->e[i].line : 0;
}

_public_ const char *tier_errors_message(const struct tier_errors *errors, size_t i)
{
	return errors && i < errors->n ? errors->e[i].message : NULL;
}

/* Start a load: errors from here on count against ERRORS_MAX. */
static size_t errors_begin_load(struct tier_errors *errors)
{
	errors->load_start = errors->n;
	errors->truncated = false;
	return errors->n;
}

static _printf_(4, 0) void errors_addv(struct tier_errors *errors, const char *file, unsigned line,
				       const char *fmt, va_list ap)
{
	struct error_entry *e;
	char *msg = NULL, *formatted = NULL, *f = NULL;
	int r;

	if (errors->truncated)
		return;
	if (errors->n - errors->load_start >= ERRORS_MAX)
		errors->truncated = true;
	if (errors->n == errors->alloc) {
		size_t nalloc = errors->alloc ? errors->alloc * 2 : 16;
		struct error_entry *ne = realloc(errors->e, nalloc * sizeof(*ne));

		if (!ne) {
			errors->oom = true;
			return;
		}
		errors->e = ne;
		errors->alloc = nalloc;
	}
	if (errors->truncated) {
		line = 0;
		r = asprintf(&msg, "too many errors, only the first %d are reported", ERRORS_MAX);
	} else {
		r = vasprintf(&msg, fmt, ap);
	}
	if (r < 0)
		goto oom;
	f = strdup(file);
	if (!f)
		goto oom;
	if (line)
		r = asprintf(&formatted, "%s:%u: %s", file, line, msg);
	else
		r = asprintf(&formatted, "%s: %s", file, msg);
	if (r < 0)
		goto oom;
	e = &errors->e[errors->n++];
	e->file = f;
	e->line = line;
	e->message = msg;
	e->formatted = formatted;
	return;
oom:
	free(msg);
	free(f);
	errors->oom = true;
}

static _printf_(4, 5) void errors_add(struct tier_errors *errors, const char *file, unsigned line,
				      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errors_addv(errors, file, line, fmt, ap);
	va_end(ap);
}

/* --- policy object --- */

#define STR_BLOCK_SIZE (64u << 10)

/*
 * A copy of s that lives as long as the policy. Strings are packed into
 * blocks of STR_BLOCK_SIZE (a longer string gets a block of its own), so a
 * policy of 100,000 rules costs a few hundred allocations for its strings
 * instead of half a million, to make and to free.
 */
static const char *pstrdup(struct tier_policy *p, const char *s)
{
	size_t len = strlen(s) + 1;
	struct str_block *b = p->strings;
	char *c;

	if (!b || b->size - b->used < len) {
		size_t size = len > STR_BLOCK_SIZE / 4 ? len : STR_BLOCK_SIZE;
		struct str_block *nb = malloc(sizeof(*nb) + size);

		if (!nb)
			return NULL;
		nb->used = 0;
		nb->size = size;
		if (b && size != STR_BLOCK_SIZE) {
			/* keep filling the current block */
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			p->strings = nb;
		}
		b = nb;
	}
	c = b->data + b->used;
	memcpy(c, s, len);
	b->used += len;
	return c;
}

static void rule_free(struct policy_rule *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->pub.n_matchers; i++)
		glob_free(&r->globs[i]);
	free(r->globs);
	free(r->matchers);
	free(r);
}

static void policy_free(struct tier_policy *policy)
{
	if (!policy)
		return;
	for (size_t i = 0; i < policy->n_classes; i++)
		free(policy->classes[i]);
	free(policy->classes);
	for (size_t i = 0; i < policy->n_rules; i++)
		rule_free(policy->rules[i]);
	free(policy->rules);
	name_table_free(&policy->class_names);
	name_table_free(&policy->rule_names);
	tier_strv_free(policy->files);
	for (struct str_block *b = policy->strings, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	for (int k = 0; k < _TIER_MATCH_MAX; k++)
		prefix_index_free(&policy->index[k]);
	free(policy);
}

_public_ struct tier_policy *tier_policy_ref(struct tier_policy *policy)
{
	if (policy)
		policy->n_ref++;
	return policy;
}

_public_ struct tier_policy *tier_policy_unref(struct tier_policy *policy)
{
	if (policy && --policy->n_ref == 0)
		policy_free(policy);
	return NULL;
}

/* Accessors of the opaque class, matcher and rule (2.0). */
_public_ const char *tier_class_name(const struct tier_class *cls)
{
	return cls ? cls->name : NULL;
}

_public_ const char *tier_class_file(const struct tier_class *cls)
{
	return cls ? cls->file : NULL;
}

_public_ unsigned tier_class_line(const struct tier_class *cls)
{
	return cls ? cls->line : 0;
}

_public_ enum tier_mode tier_class_mode(const struct tier_class *cls)
{
	return cls ? cls->mode : TIER_MODE_INHERIT;
}

_public_ unsigned tier_class_weight(const struct tier_class *cls)
{
	return cls ? cls->weight : 0;
}

static const struct tier_amount amount_unset = { .kind = TIER_AMOUNT_UNSET };

_public_ const struct tier_amount *tier_class_toptier_min(const struct tier_class *cls)
{
	return cls ? &cls->toptier_min : &amount_unset;
}

_public_ const struct tier_amount *tier_class_toptier_max(const struct tier_class *cls)
{
	return cls ? &cls->toptier_max : &amount_unset;
}

_public_ const struct tier_amount *tier_class_memory_low(const struct tier_class *cls)
{
	return cls ? &cls->memory_low : &amount_unset;
}

_public_ const struct tier_amount *tier_class_memory_high(const struct tier_class *cls)
{
	return cls ? &cls->memory_high : &amount_unset;
}

_public_ enum tier_matcher_kind tier_matcher_kind(const struct tier_matcher *m)
{
	return m ? m->kind : _TIER_MATCH_MAX;
}

_public_ const char *tier_matcher_pattern(const struct tier_matcher *m)
{
	return m ? m->pattern : NULL;
}

_public_ const char *tier_matcher_key(const struct tier_matcher *m)
{
	return m ? m->key : NULL;
}

_public_ const char *tier_matcher_value(const struct tier_matcher *m)
{
	return m ? m->value : NULL;
}

_public_ const char *tier_matcher_file(const struct tier_matcher *m)
{
	return m ? m->file : NULL;
}

_public_ unsigned tier_matcher_line(const struct tier_matcher *m)
{
	return m ? m->line : 0;
}

_public_ const char *tier_rule_name(const struct tier_rule *rule)
{
	return rule ? rule->name : NULL;
}

_public_ const struct tier_class *tier_rule_class(const struct tier_rule *rule)
{
	return rule ? rule->class : NULL;
}

_public_ const char *tier_rule_class_name(const struct tier_rule *rule)
{
	return rule ? rule->class_name : NULL;
}

_public_ const char *tier_rule_file(const struct tier_rule *rule)
{
	return rule ? rule->file : NULL;
}

_public_ unsigned tier_rule_line(const struct tier_rule *rule)
{
	return rule ? rule->line : 0;
}

_public_ size_t tier_rule_matcher_count(const struct tier_rule *rule)
{
	return rule ? rule->n_matchers : 0;
}

_public_ const struct tier_matcher *tier_rule_matcher(const struct tier_rule *rule, size_t i)
{
	return rule && i < rule->n_matchers ? &rule->matchers[i] : NULL;
}

static struct tier_policy *policy_new(void)
{
	struct tier_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->n_ref = 1;
	p->daemon.cgroup_root = NULL;	/* found: tier_cgroup_root_find() */
	p->daemon.reconcile_interval_usec = 30ull * 1000000;
	p->daemon.rebalance_interval_usec = 10ull * 1000000;
	p->daemon.dry_run = false;
	p->daemon.log_level = LOG_INFO;
	p->daemon.fast_tier_reserve = 256ull << 20;
	p->daemon.hysteresis_bp = 500;
	p->daemon.include = NULL;
	p->daemon.backend = TIER_BACKEND_AUTO;
	p->daemon.demand = TIER_DEMAND_RESIDENT;
	p->daemon.hot_margin_bp = 2500;
	return p;
}

/*
 * Class and rule names: name tables (libtier-private.h) of indexes into
 * p->classes or p->rules, so a duplicate check or a class lookup is O(1) and
 * loading n rules is O(n), not O(n^2).
 */
static const char *class_name_of(const void *owner, size_t i)
{
	const struct tier_policy *p = owner;

	return p->classes[i]->pub.name;
}

static const char *rule_name_of(const void *owner, size_t i)
{
	const struct tier_policy *p = owner;

	return p->rules[i]->pub.name;
}

static struct policy_class *find_class(const struct tier_policy *p, const char *name)
{
	size_t i = name_table_find(&p->class_names, p, class_name_of, name, strlen(name));

	return i == SIZE_MAX ? NULL : p->classes[i];
}

static struct policy_rule *find_rule(const struct tier_policy *p, const char *name)
{
	size_t i = name_table_find(&p->rule_names, p, rule_name_of, name, strlen(name));

	return i == SIZE_MAX ? NULL : p->rules[i];
}

/* --- parser state --- */

enum section_kind {
	SEC_NONE,	/* before any section */
	SEC_DAEMON,
	SEC_CLASS,
	SEC_RULE,
	SEC_IGNORE,	/* bad header: its keys are not checked again */
};

enum {
	DK_CGROUP_ROOT,
	DK_RECONCILE,
	DK_REBALANCE,
	DK_DRY_RUN,
	DK_LOG_LEVEL,
	DK_RESERVE,
	DK_HYSTERESIS,
	DK_INCLUDE,
	DK_BACKEND,
	DK_NUMA_BALANCING_SYSCTL,
	DK_DEMAND,
	DK_HOT_MARGIN,
	_DK_MAX,
};

struct parser {
	struct tier_policy *policy;
	struct tier_errors *errors;
	const char *file;		/* as used in messages (owned by policy->files) */
	bool main_file;
	/* input */
	const char *data;
	size_t size, pos;
	unsigned lineno;
	char *line;			/* the current line, NUL-terminated */
	size_t line_alloc;
	/* section */
	enum section_kind kind;
	char *section;			/* full header text, for messages */
	size_t section_alloc;
	struct policy_class *class;
	struct policy_rule *rule;
	unsigned daemon_key_line[_DK_MAX];	/* per file */
	unsigned rule_key_line;		/* "class" key line of the current rule in this file */
	bool oom;
};

#define perr(ps, ...) errors_add((ps)->errors, (ps)->file, (ps)->lineno, __VA_ARGS__)

static bool valid_name(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

/* Check a class or rule name; reports and returns false if bad. */
static bool check_name(struct parser *ps, const char *what, const char *name)
{
	if (!*name) {
		perr(ps, "empty %s name in [%s]", what, ps->section);
		return false;
	}
	if (strlen(name) > NAME_MAX_LEN) {
		perr(ps, "%s name '%s' is too long (max %d characters)", what, name, NAME_MAX_LEN);
		return false;
	}
	if (!valid_name(name)) {
		perr(ps, "invalid %s name '%s' (allowed: A-Z a-z 0-9 _ . -)", what, name);
		return false;
	}
	return true;
}

/* Copy len bytes of s into *buf (of *alloc bytes, grown geometrically), NUL-terminated. */
static int copy_into(char **buf, size_t *alloc, const char *s, size_t len)
{
	if (len + 1 > *alloc) {
		size_t na = *alloc * 2 > len + 1 ? *alloc * 2 : len + 1;
		char *nb;

		if (na < 256)
			na = 256;
		nb = realloc(*buf, na);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*alloc = na;
	}
	memcpy(*buf, s, len);
	(*buf)[len] = '\0';
	return 0;
}

static void begin_section(struct parser *ps, char *name)
{
	struct tier_policy *p = ps->policy;

	if (copy_into(&ps->section, &ps->section_alloc, name, strlen(name)) < 0) {
		ps->oom = true;
		ps->kind = SEC_IGNORE;
		return;
	}
	ps->class = NULL;
	ps->rule = NULL;
	ps->rule_key_line = 0;

	if (strcmp(name, "daemon") == 0) {
		ps->kind = SEC_DAEMON;
		return;
	}
	if (strncmp(name, "class:", 6) == 0) {
		const char *cname = name + 6;
		struct policy_class *c;

		ps->kind = SEC_IGNORE;
		if (!check_name(ps, "class", cname))
			return;
		c = find_class(p, cname);
		if (c) {
			perr(ps, "duplicate class '%s' (first defined at %s:%u)", cname, c->pub.file,
			     c->pub.line);
			return;
		}
		c = calloc(1, sizeof(*c));
		if (!c || ARRAY_PUSH(p->classes, p->n_classes, p->alloc_classes, c) < 0) {
			free(c);
			ps->oom = true;
			return;
		}
		c->pub.name = pstrdup(p, cname);
		c->pub.file = ps->file;
		c->pub.line = ps->lineno;
		c->pub.mode = TIER_MODE_INHERIT;
		c->pub.weight = 100;
		c->page_cache = true;
		if (!c->pub.name ||
		    name_table_add(&p->class_names, p, class_name_of, p->n_classes - 1) < 0)
			ps->oom = true;
		ps->class = c;
		ps->kind = SEC_CLASS;
		return;
	}
	if (strncmp(name, "rule:", 5) == 0) {
		const char *rname = name + 5;
		struct policy_rule *r;

		ps->kind = SEC_IGNORE;
		if (!check_name(ps, "rule", rname))
			return;
		r = find_rule(p, rname);
		if (r) {
			perr(ps, "duplicate rule '%s' (first defined at %s:%u)", rname, r->pub.file,
			     r->pub.line);
			return;
		}
		r = calloc(1, sizeof(*r));
		if (!r || ARRAY_PUSH(p->rules, p->n_rules, p->alloc_rules, r) < 0) {
			free(r);
			ps->oom = true;
			return;
		}
		r->pub.name = pstrdup(p, rname);
		r->pub.file = ps->file;
		r->pub.line = ps->lineno;
		if (!r->pub.name ||
		    name_table_add(&p->rule_names, p, rule_name_of, p->n_rules - 1) < 0)
			ps->oom = true;
		ps->rule = r;
		ps->kind = SEC_RULE;
		return;
	}
	perr(ps, "unknown section [%s] (expected [daemon], [class:NAME] or [rule:NAME])", name);
	ps->kind = SEC_IGNORE;
}

/*
 * Find the first of chars in s, stopping at an inline comment (';' preceded
 * by whitespace).
 */
static char *find_chars_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	for (; *s && !(was_space && *s == ';'); s++) {
		if (chars)
			for (const char *c = chars; *c; c++)
				if (*s == *c)
					return s;
		was_space = isspace((unsigned char)*s);
	}
	return s;
}

/*
 * The next line: false at the end of the data.  A key/value line gives
 * *ret_key and *ret_value (stripped, the value without its inline comment,
 * both in ps->line); every other line (blank, comment, section header, a
 * bad line, said in ps->errors) gives *ret_key NULL.
 */
static bool next_line(struct parser *ps, char **ret_key, char **ret_value)
{
	const char *line, *eol;
	size_t len;
	char *s, *sep;

	*ret_key = *ret_value = NULL;
	if (ps->pos >= ps->size)
		return false;
	line = ps->data + ps->pos;
	eol = memchr(line, '\n', ps->size - ps->pos);
	len = eol ? (size_t)(eol - line) : ps->size - ps->pos;
	ps->pos += len + (eol ? 1 : 0);
	ps->lineno++;

	if (memchr(line, '\0', len)) {
		perr(ps, "NUL byte in line");
		return true;
	}
	if (len > POLICY_LINE_MAX) {
		perr(ps, "line too long (max %u characters)", POLICY_LINE_MAX);
		return true;
	}
	/* one buffer for every line, of at most POLICY_LINE_MAX */
	if (copy_into(&ps->line, &ps->line_alloc, line, len) < 0) {
		ps->oom = true;
		return true;
	}
	s = ps->line;
	if (ps->lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	s = strip(s);
	if (!*s || *s == ';' || *s == '#')
		return true;
	if (*s == '[') {
		char *end = find_chars_or_comment(s + 1, "]");

		if (*end != ']') {
			perr(ps, "syntax error: section header without closing ']'");
			ps->kind = SEC_IGNORE;
			return true;
		}
		*end = '\0';
		begin_section(ps, strip(s + 1));
		/* anything after ']' must be a comment */
		s = strip(end + 1);
		if (*s && *s != ';' && *s != '#')
			perr(ps, "syntax error: unexpected text after section header");
		return true;
	}
	sep = find_chars_or_comment(s, "=:");
	if (!*sep || *sep == ';') {
		perr(ps, "syntax error: expected 'key = value'");
		return true;
	}
	*sep = '\0';
	*find_chars_or_comment(sep + 1, NULL) = '\0';
	*ret_key = strip(s);
	*ret_value = strip(sep + 1);
	return true;
}

/* --- value checks --- */

static bool check_dup(struct parser *ps, unsigned *line, const char *key, const char *where)
{
	if (*line) {
		perr(ps, "duplicate key '%s' in [%s] (first set at line %u)", key, where, *line);
		return false;
	}
	*line = ps->lineno;
	return true;
}

static int parse_amount(const char *value, bool allow_percent, bool allow_max,
			struct tier_amount *ret)
{
	uint64_t bytes;
	unsigned bp;
	int r;

	if (allow_max && strcmp(value, "max") == 0) {
		ret->kind = TIER_AMOUNT_MAX;
		ret->value = UINT64_MAX;
		return 0;
	}
	if (value[0] && value[strlen(value) - 1] == '%') {
		if (!allow_percent)
			return -EPROTO;
		r = tier_parse_percent(value, &bp);
		if (r < 0)
			return r == -ERANGE ? -EDOM : r;
		ret->kind = TIER_AMOUNT_PERCENT;
		ret->value = bp;
		return 0;
	}
	r = tier_parse_size(value, &bytes);
	if (r < 0)
		return r;
	ret->kind = TIER_AMOUNT_BYTES;
	ret->value = bytes;
	return 0;
}

static void amount_key(struct parser *ps, const char *key, const char *value, bool allow_percent,
		       bool allow_max, struct tier_amount *out)
{
	struct tier_amount a;
	int r = parse_amount(value, allow_percent, allow_max, &a);

	switch (r) {
	case 0:
		*out = a;
		return;
	case -EDOM:
		perr(ps, "percentage '%s' out of range for %s (0%%..100%%)", value, key);
		return;
	case -EPROTO:
		perr(ps, "percentage '%s' not allowed for %s (expected a size%s)", value, key,
		     allow_max ? " or 'max'" : "");
		return;
	case -ERANGE:
		perr(ps, "size '%s' out of range for %s", value, key);
		return;
	default:
		perr(ps, "invalid size '%s' for %s (expected e.g. 4096, 512M, 16G, 1.5T%s%s)",
		     value, key, allow_percent ? ", N%" : "", allow_max ? " or 'max'" : "");
		return;
	}
}

static const char *const class_keys[_CK_MAX] = {
	[CK_MODE] = "mode",
	[CK_WEIGHT] = "weight",
	[CK_TOPTIER_MIN] = "toptier_min",
	[CK_TOPTIER_MAX] = "toptier_max",
	[CK_MEMORY_LOW] = "memory_low",
	[CK_MEMORY_HIGH] = "memory_high",
	[CK_DEMAND] = "demand",
	[CK_PROMOTE_BUDGET] = "promote_budget",
	[CK_PAGE_CACHE] = "page_cache",
};

static void class_key(struct parser *ps, const char *key, const char *value)
{
	struct policy_class *c = ps->class;
	int k = -1;

	for (int i = 0; i < _CK_MAX; i++)
		if (strcmp(key, class_keys[i]) == 0)
			k = i;
	if (k < 0) {
		perr(ps, "unknown key '%s' in [%s]", key, ps->section);
		return;
	}
	if (!check_dup(ps, &c->key_line[k], key, ps->section))
		return;
	if (!*value) {
		perr(ps, "missing value for '%s' in [%s]", key, ps->section);
		return;
	}
	switch (k) {
	case CK_MODE:
		if (tier_mode_from_string(value, &c->pub.mode) < 0)
			perr(ps, "invalid mode '%s' (expected inherit, full, promote or off)", value);
		break;
	case CK_WEIGHT: {
		uint64_t w;
		int r = parse_u64(value, &w);

		if (r == -EINVAL)
			perr(ps, "invalid weight '%s' (expected an integer 1..10000)", value);
		else if (r < 0 || w < 1 || w > 10000)
			perr(ps, "weight %s out of range (1..10000)", value);
		else
			c->pub.weight = (unsigned)w;
		break;
	}
	case CK_TOPTIER_MIN:
		amount_key(ps, key, value, true, false, &c->pub.toptier_min);
		break;
	case CK_TOPTIER_MAX:
		amount_key(ps, key, value, true, true, &c->pub.toptier_max);
		break;
	case CK_MEMORY_LOW:
		amount_key(ps, key, value, false, true, &c->pub.memory_low);
		break;
	case CK_MEMORY_HIGH:
		amount_key(ps, key, value, false, true, &c->pub.memory_high);
		break;
	case CK_DEMAND:
		if (tier_demand_from_string(value, &c->demand) < 0)
			perr(ps, "invalid demand '%s' (expected resident or hot)", value);
		break;
	case CK_PROMOTE_BUDGET: {
		struct tier_amount a = {};

		amount_key(ps, key, value, false, true, &a);
		if (a.kind == TIER_AMOUNT_BYTES && a.value == 0)
			perr(ps, "promote_budget 0 would never promote (use mode = off, or 'max' "
			     "for no budget)");
		else if (a.kind == TIER_AMOUNT_BYTES)
			c->promote_budget = a.value;
		break;
	}
	case CK_PAGE_CACHE:
		if (strcmp(value, "on") == 0)
			c->page_cache = true;
		else if (strcmp(value, "off") == 0)
			c->page_cache = false;
		else
			perr(ps, "invalid page_cache '%s' (expected on or off)", value);
		break;
	}
}

static const char *glob_problem(const char *pattern)
{
	size_t l = strlen(pattern);
	struct glob g;
	int r;

	/* a trailing unescaped backslash */
	if (l) {
		size_t bs = 0;

		for (size_t i = l; i > 0 && pattern[i - 1] == '\\'; i--)
			bs++;
		if (bs % 2)
			return "trailing '\\'";
	}
	r = glob_compile(pattern, TIER_GLOB_PATHNAME, &g);
	if (r == -ENOMEM)
		return NULL;
	if (r < 0)
		return "unterminated or invalid '[' class";
	glob_free(&g);
	return NULL;
}

static void rule_matcher(struct parser *ps, enum tier_matcher_kind kind, const char *key,
			 const char *value)
{
	struct tier_policy *p = ps->policy;
	struct policy_rule *r = ps->rule;
	struct tier_matcher *m;
	const char *pattern = value, *problem, *key_name = NULL;
	_cleanup_free_ char *akey = NULL;
	unsigned flags = 0;

	if (!*value) {
		perr(ps, "missing value for '%s' in [%s]", key, ps->section);
		return;
	}
	switch (kind) {
	case TIER_MATCH_CGROUP:
		if (value[0] != '/') {
			perr(ps, "cgroup pattern '%s' must start with '/'", value);
			return;
		}
		flags = TIER_GLOB_PATHNAME;
		break;
	case TIER_MATCH_EXE:
		if (value[0] != '/' && value[0] != '*') {
			perr(ps, "exe pattern '%s' must be an absolute path", value);
			return;
		}
		flags = TIER_GLOB_PATHNAME;
		break;
	case TIER_MATCH_UNIT:
		if (strchr(value, '/')) {
			perr(ps, "unit pattern '%s' must not contain '/'", value);
			return;
		}
		break;
	case TIER_MATCH_ANNOTATION: {
		const char *eq = strchr(value, '=');

		if (!eq || eq == value) {
			perr(ps, "invalid annotation '%s' (expected KEY=VALUE)", value);
			return;
		}
		akey = strndup(value, (size_t)(eq - value));
		if (!akey) {
			ps->oom = true;
			return;
		}
		/* strip spaces around '=' ("key = value" inside the value) */
		key_name = strip(akey);
		pattern = eq + 1;
		while (isspace((unsigned char)*pattern))
			pattern++;
		if (!*key_name) {
			perr(ps, "invalid annotation '%s' (expected KEY=VALUE)", value);
			return;
		}
		break;
	}
	default:
		return;
	}
	problem = glob_problem(pattern);
	if (problem) {
		perr(ps, "invalid %s pattern '%s': %s", key, pattern, problem);
		return;
	}
	if (r->pub.n_matchers == r->alloc) {
		size_t nalloc = r->alloc ? r->alloc * 2 : 4;
		struct tier_matcher *nm = realloc(r->matchers, nalloc * sizeof(*nm));
		struct glob *ng;

		if (!nm) {
			ps->oom = true;
			return;
		}
		r->matchers = nm;
		r->pub.matchers = nm;
		ng = realloc(r->globs, nalloc * sizeof(*ng));
		if (!ng) {
			ps->oom = true;
			return;
		}
		r->globs = ng;
		r->alloc = nalloc;
	}
	m = &r->matchers[r->pub.n_matchers];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->pattern = pstrdup(p, value);
	m->value = kind == TIER_MATCH_ANNOTATION ? pstrdup(p, pattern) : m->pattern;
	m->key = key_name ? pstrdup(p, key_name) : NULL;
	m->file = ps->file;
	m->line = ps->lineno;
	if (!m->pattern || !m->value || (key_name && !m->key)) {
		ps->oom = true;
		return;
	}
	if (glob_compile(m->value, flags, &r->globs[r->pub.n_matchers]) < 0) {
		ps->oom = true;
		return;
	}
	r->pub.n_matchers++;
}

static void rule_key(struct parser *ps, const char *key, const char *value)
{
	struct policy_rule *r = ps->rule;

	if (strcmp(key, "class") == 0) {
		if (!check_dup(ps, &ps->rule_key_line, key, ps->section))
			return;
		if (!*value) {
			perr(ps, "missing value for 'class' in [%s]", ps->section);
			return;
		}
		if (!check_name(ps, "class", value))
			return;
		r->pub.class_name = pstrdup(ps->policy, value);
		if (!r->pub.class_name)
			ps->oom = true;
		r->class_file = ps->file;
		r->class_line = ps->lineno;
		return;
	}
	for (int k = 0; k < _TIER_MATCH_MAX; k++)
		if (strcmp(key, tier_matcher_kind_to_string((enum tier_matcher_kind)k)) == 0) {
			rule_matcher(ps, (enum tier_matcher_kind)k, key, value);
			return;
		}
	perr(ps, "unknown key '%s' in [%s]", key, ps->section);
}

static const char *const daemon_keys[_DK_MAX] = {
	[DK_CGROUP_ROOT] = "cgroup_root",
	[DK_RECONCILE] = "reconcile_interval",
	[DK_REBALANCE] = "rebalance_interval",
	[DK_DRY_RUN] = "dry_run",
	[DK_LOG_LEVEL] = "log_level",
	[DK_RESERVE] = "fast_tier_reserve",
	[DK_HYSTERESIS] = "hysteresis",
	[DK_INCLUDE] = "include",
	[DK_BACKEND] = "backend",
	[DK_NUMA_BALANCING_SYSCTL] = "numa_balancing_sysctl",
	[DK_DEMAND] = "demand",
	[DK_HOT_MARGIN] = "hot_margin",
};

static void daemon_key(struct parser *ps, const char *key, const char *value)
{
	struct tier_daemon_config *d = &ps->policy->daemon;
	int k = -1, r;

	for (int i = 0; i < _DK_MAX; i++)
		if (strcmp(key, daemon_keys[i]) == 0)
			k = i;
	if (k < 0) {
		perr(ps, "unknown key '%s' in [daemon]", key);
		return;
	}
	if (!check_dup(ps, &ps->daemon_key_line[k], key, "daemon"))
		return;
	if (!*value) {
		perr(ps, "missing value for '%s' in [daemon]", key);
		return;
	}
	switch (k) {
	case DK_CGROUP_ROOT:
		if (value[0] != '/') {
			perr(ps, "cgroup_root '%s' must be an absolute path", value);
			return;
		}
		d->cgroup_root = pstrdup(ps->policy, value);
		if (!d->cgroup_root)
			ps->oom = true;
		break;
	case DK_RECONCILE:
	case DK_REBALANCE: {
		uint64_t us;

		r = tier_parse_duration(value, &us);
		if (r < 0 || us == 0) {
			perr(ps, "invalid duration '%s' for %s (expected e.g. 30s, 500ms, 5m)", value,
			     key);
			return;
		}
		if (k == DK_RECONCILE)
			d->reconcile_interval_usec = us;
		else
			d->rebalance_interval_usec = us;
		break;
	}
	case DK_DRY_RUN:
		if (tier_parse_bool(value, &d->dry_run) < 0)
			perr(ps, "invalid boolean '%s' for dry_run (expected yes or no)", value);
		break;
	case DK_LOG_LEVEL: {
		static const char *const names[] = { "err", "warning", "notice", "info", "debug" };
		bool ok = false;

		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			if (strcmp(value, names[i]) == 0) {
				d->log_level = LOG_ERR + (int)i;
				ok = true;
			}
		if (!ok)
			perr(ps, "invalid log_level '%s' (expected err, warning, notice, info or debug)",
			     value);
		break;
	}
	case DK_RESERVE: {
		uint64_t v;

		r = tier_parse_size(value, &v);
		if (r == -ERANGE)
			perr(ps, "size '%s' out of range for fast_tier_reserve", value);
		else if (r < 0)
			perr(ps, "invalid size '%s' for fast_tier_reserve", value);
		else
			d->fast_tier_reserve = v;
		break;
	}
	case DK_HYSTERESIS: {
		unsigned bp;

		r = tier_parse_percent(value, &bp);
		if (r == -ERANGE)
			perr(ps, "percentage '%s' out of range for hysteresis (0%%..100%%)", value);
		else if (r < 0)
			perr(ps, "invalid percentage '%s' for hysteresis (expected e.g. 5%%)", value);
		else
			d->hysteresis_bp = bp;
		break;
	}
	case DK_BACKEND:
		if (tier_backend_from_string(value, &d->backend) < 0)
			perr(ps, "invalid backend '%s' (expected auto, knob, damon or none)", value);
		break;
	case DK_NUMA_BALANCING_SYSCTL:
		if (strcmp(value, "keep") == 0)
			d->numa_balancing_sysctl_off = false;
		else if (strcmp(value, "off") == 0)
			d->numa_balancing_sysctl_off = true;
		else
			perr(ps, "invalid numa_balancing_sysctl '%s' (expected keep or off)", value);
		break;
	case DK_DEMAND:
		if (tier_demand_from_string(value, &d->demand) < 0)
			perr(ps, "invalid demand '%s' (expected resident or hot)", value);
		break;
	case DK_HOT_MARGIN: {
		unsigned bp;

		r = tier_parse_percent(value, &bp);
		if (r == -ERANGE)
			perr(ps, "percentage '%s' out of range for hot_margin (0%%..100%%)", value);
		else if (r < 0)
			perr(ps, "invalid percentage '%s' for hot_margin (expected e.g. 25%%)", value);
		else
			d->hot_margin_bp = bp;
		break;
	}
	case DK_INCLUDE:
		if (!ps->main_file) {
			perr(ps, "'include' is only allowed in the main file");
			return;
		}
		if (value[0] == '/') {
			d->include = pstrdup(ps->policy, value);
		} else {
			/* relative to the main file's directory */
			_cleanup_free_ char *dir = strdup(ps->file), *path = NULL;
			char *slash;

			if (!dir) {
				ps->oom = true;
				return;
			}
			slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
			if (path_join(&path, slash ? dir : ".", value, NULL) < 0) {
				ps->oom = true;
				return;
			}
			d->include = pstrdup(ps->policy, path);
		}
		if (!d->include)
			ps->oom = true;
		break;
	}
}

static void key_value(struct parser *ps, const char *name, const char *value)
{
	if (!*name) {
		perr(ps, "syntax error: missing key before '='");
		return;
	}
	switch (ps->kind) {
	case SEC_NONE:
		perr(ps, "key '%s' outside any section", name);
		break;
	case SEC_DAEMON:
		daemon_key(ps, name, value);
		break;
	case SEC_CLASS:
		class_key(ps, name, value);
		break;
	case SEC_RULE:
		rule_key(ps, name, value);
		break;
	case SEC_IGNORE:
		break;
	}
}

static int parse_buffer(struct tier_policy *p, struct tier_errors *errors, const char *file,
			bool main_file, const char *data, size_t size)
{
	struct parser ps = {
		.policy = p,
		.errors = errors,
		.main_file = main_file,
		.data = data,
		.size = size,
		.kind = SEC_NONE,
	};
	char *f, *key, *value;
	int r;

	f = strdup(file);
	if (!f)
		return -ENOMEM;
	r = strv_push(&p->files, &p->n_files, &p->alloc_files, f);
	if (r < 0) {
		free(f);
		return r;
	}
	ps.file = f;
	while (!ps.oom && next_line(&ps, &key, &value))
		if (key)
			key_value(&ps, key, value);
	free(ps.section);
	free(ps.line);
	return ps.oom ? -ENOMEM : 0;
}

/*
 * Open a policy file as untrusted input (never blocking on a FIFO, only a
 * regular file, a symlink to one included) and read it whole, up to
 * POLICY_FILE_MAX bytes: a larger file is refused from fstat() of the open
 * fd, before any of it is read, and one that grows while it is read stops at
 * the cap. Errors: -EISDIR, -EBADFD (not a regular file), -EFBIG, or
 * openat()'s and read()'s own.
 */
static int read_policy_file(int dfd, const char *name, char **ret_buf, size_t *ret_size)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = open_regular_at(dfd, name, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if ((uint64_t)st.st_size > POLICY_FILE_MAX)
		return -EFBIG;
	return read_fd_max(fd, POLICY_FILE_MAX, ret_buf, ret_size);
}

static void too_large(struct tier_errors *errors, const char *path)
{
	errors_add(errors, path, 0, "file too large (a policy file may have at most %u MiB)",
		   POLICY_FILE_MAX >> 20);
}

/*
 * Whether a drop-in that readdir() listed and openat() did not find is a
 * symlink to nothing. Only where the file system gives no d_type does this
 * look again (lstat); it only picks the message, the open is over.
 */
static bool dangling_symlink(int dfd, const char *name, unsigned char d_type)
{
	struct stat st;

	if (d_type == DT_LNK)
		return true;
	return d_type == DT_UNKNOWN && dfd != AT_FDCWD &&
	       fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/*
 * Parse name below dfd, called path in messages. d_type is the directory
 * entry's type (DT_UNKNOWN if not known), to name a dangling symlink.
 * A file that is not a regular file or too large is a policy error
 * (-EINVAL); other errors are returned as they are. Either is reported.
 */
static int parse_file(struct tier_policy *p, struct tier_errors *errors, int dfd, const char *name,
		      const char *path, bool main_file, unsigned char d_type)
{
	_cleanup_free_ char *buf = NULL;
	size_t size;
	int r;

	r = read_policy_file(dfd, name, &buf, &size);
	switch (r) {
	case 0:
		return parse_buffer(p, errors, path, main_file, buf, size);
	case -ENOMEM:
		return r;
	case -EISDIR:
		errors_add(errors, path, 0, "not a regular file (a directory)");
		return -EINVAL;
	case -EBADFD:
		errors_add(errors, path, 0, "not a regular file");
		return -EINVAL;
	case -EFBIG:
		too_large(errors, path);
		return -EINVAL;
	case -ELOOP:
		errors_add(errors, path, 0, "cannot read: symlink loop (%s)", strerror(-r));
		return r;
	case -ENOENT:
		if (dangling_symlink(dfd, name, d_type)) {
			errors_add(errors, path, 0, "cannot read: dangling symlink");
			return r;
		}
		/* fallthrough */
	default:
		errors_add(errors, path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
}

/* Cross-file checks, after every file was read. */
static void finish(struct tier_policy *p, struct tier_errors *errors)
{
	for (size_t i = 0; i < p->n_classes; i++) {
		struct policy_class *c = p->classes[i];
		const struct tier_amount *mn = &c->pub.toptier_min, *mx = &c->pub.toptier_max;

		if (mn->kind != TIER_AMOUNT_UNSET && mn->kind == mx->kind && mn->value > mx->value) {
			unsigned line = c->key_line[CK_TOPTIER_MIN] > c->key_line[CK_TOPTIER_MAX] ?
						c->key_line[CK_TOPTIER_MIN] :
						c->key_line[CK_TOPTIER_MAX];

			errors_add(errors, c->pub.file, line,
				   "toptier_min is greater than toptier_max in [class:%s]",
				   c->pub.name);
		}
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		struct policy_rule *r = p->rules[i];
		struct policy_class *c;

		if (!r->pub.class_name) {
			errors_add(errors, r->pub.file, r->pub.line, "rule '%s' has no 'class' key",
				   r->pub.name);
		} else {
			c = find_class(p, r->pub.class_name);
			if (!c)
				errors_add(errors, r->class_file, r->class_line,
					   "rule '%s' names unknown class '%s'", r->pub.name,
					   r->pub.class_name);
			else
				r->pub.class = &c->pub;
		}
		if (r->pub.n_matchers == 0)
			errors_add(errors, r->pub.file, r->pub.line,
				   "rule '%s' has no matchers (cgroup, unit, exe or annotation)",
				   r->pub.name);
	}
}

struct dropin {
	char *name;
	unsigned char d_type;
};

static int cmp_dropin(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

/*
 * The *.conf files of dir in lexical order, each opened relative to the
 * directory's fd. Every one must be a regular file or a symlink to one: a
 * dangling symlink, a symlink loop, a directory or a FIFO named *.conf is an
 * error like an unreadable file, never skipped.
 */
static int load_dropins(struct tier_policy *p, struct tier_errors *errors, const char *dir,
			bool explicit)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dropin *entries = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	int r = 0;

	d = opendir(dir);
	if (!d) {
		r = negative_errno();
		if (r == -ENOENT && !explicit)
			return 0;
		errors_add(errors, dir, 0, "cannot open drop-in directory: %s", strerror(-r));
		return r == -ENOMEM ? r : 0;
	}
	p->daemon.include = pstrdup(p, dir);
	if (!p->daemon.include)
		return -ENOMEM;
	for (;;) {
		struct dropin e;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				r = -errno;
				errors_add(errors, dir, 0, "cannot read drop-in directory: %s",
					   strerror(-r));
				if (r == -ENOMEM)
					goto out;
			}
			break;
		}
		if (de->d_name[0] == '.' || !str_has_suffix(de->d_name, ".conf"))
			continue;
		e.name = strdup(de->d_name);
		e.d_type = de->d_type;
		if (!e.name || ARRAY_PUSH(entries, n, alloc, e) < 0) {
			free(e.name);
			r = -ENOMEM;
			goto out;
		}
	}
	if (n)
		qsort(entries, n, sizeof(*entries), cmp_dropin);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;

		/* the joined path is only the name in messages and files[] */
		if (path_join(&path, dir, entries[i].name, NULL) < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = parse_file(p, errors, dirfd(d), entries[i].name, path, false,
			       entries[i].d_type);
		if (r == -ENOMEM)
			goto out;
	}
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(entries[i].name);
	free(entries);
	return r;
}

static int load_common(struct tier_policy *p, struct tier_errors *errors, size_t errors_before,
		       struct tier_policy **ret_policy)
{
	finish(p, errors);
	if (errors->n == errors_before && policy_build_index(p) < 0)
		errors->oom = true;
	if (errors->oom) {
		policy_free(p);
		return -ENOMEM;
	}
	if (errors->n > errors_before) {
		policy_free(p);
		return -EINVAL;
	}
	*ret_policy = p;
	return 0;
}

_public_ int tier_policy_load(const char *main_file, const char *dropin_dir,
			      struct tier_errors *errors, struct tier_policy **ret_policy)
{
	struct tier_errors *own = NULL;
	struct tier_policy *p;
	size_t before;
	int r;

	if (!main_file || !ret_policy)
		return -EINVAL;
	if (!errors) {
		errors = own = tier_errors_new();
		if (!errors)
			return -ENOMEM;
	}
	before = errors_begin_load(errors);
	p = policy_new();
	if (!p) {
		r = -ENOMEM;
		goto out;
	}
	r = parse_file(p, errors, AT_FDCWD, main_file, main_file, true, DT_UNKNOWN);
	if (r < 0) {
		policy_free(p);
		goto out;
	}
	if (dropin_dir) {
		p->daemon.include = NULL;
		if (*dropin_dir)
			r = load_dropins(p, errors, dropin_dir, true);
	} else if (p->daemon.include) {
		const char *inc = p->daemon.include;

		p->daemon.include = NULL;
		r = load_dropins(p, errors, inc, true);
	} else {
		_cleanup_free_ char *def = NULL;

		if (asprintf(&def, "%s.d", main_file) < 0) {
			r = -ENOMEM;
		} else {
			r = load_dropins(p, errors, def, false);
		}
	}
	if (r < 0) {
		policy_free(p);
		goto out;
	}
	r = load_common(p, errors, before, ret_policy);
out:
	tier_errors_free(own);
	return r;
}

_public_ int tier_policy_load_buffer(const char *name, const char *data, size_t size,
				     struct tier_errors *errors, struct tier_policy **ret_policy)
{
	struct tier_errors *own = NULL;
	struct tier_policy *p;
	size_t before;
	int r;

	if (!name || (!data && size) || !ret_policy)
		return -EINVAL;
	if (!errors) {
		errors = own = tier_errors_new();
		if (!errors)
			return -ENOMEM;
	}
	before = errors_begin_load(errors);
	if (size > POLICY_FILE_MAX) {
		/* the same cap as for files */
		too_large(errors, name);
		r = errors->oom ? -ENOMEM : -EINVAL;
		goto out;
	}
	p = policy_new();
	if (!p) {
		r = -ENOMEM;
		goto out;
	}
	r = parse_buffer(p, errors, name, true, data ?: "", size);
	if (r < 0) {
		policy_free(p);
		goto out;
	}
	/* include= has no meaning without files */
	p->daemon.include = NULL;
	r = load_common(p, errors, before, ret_policy);
out:
	tier_errors_free(own);
	return r;
}

/* --- accessors --- */

const char *tier_demand_to_string(enum tier_demand d)
{
	switch (d) {
	case TIER_DEMAND_RESIDENT:
		return "resident";
	case TIER_DEMAND_HOT:
		return "hot";
	default:
		return NULL;
	}
}

int tier_demand_from_string(const char *s, enum tier_demand *ret)
{
	if (!s)
		return -EINVAL;
	if (strcmp(s, "resident") == 0)
		*ret = TIER_DEMAND_RESIDENT;
	else if (strcmp(s, "hot") == 0)
		*ret = TIER_DEMAND_HOT;
	else
		return -EINVAL;
	return 0;
}

/* Every tier_class comes from a policy: the public struct is the first
 * member of its policy_class. */
static const struct policy_class *class_of(const struct tier_class *cls)
{
	return (const struct policy_class *)cls;
}

enum tier_demand tier_class_demand(const struct tier_policy *policy, const struct tier_class *cls)
{
	if (cls && class_of(cls)->demand != TIER_DEMAND_DEFAULT)
		return class_of(cls)->demand;
	return policy ? policy->daemon.demand : TIER_DEMAND_RESIDENT;
}

uint64_t tier_class_promote_budget(const struct tier_class *cls)
{
	return cls ? class_of(cls)->promote_budget : 0;
}

bool tier_class_page_cache(const struct tier_class *cls)
{
	return cls && class_of(cls)->page_cache;
}

uint64_t tier_demand_hot(uint64_t hot, uint64_t resident, unsigned margin_bp)
{
	unsigned __int128 v = (unsigned __int128)hot * (10000 + margin_bp) / 10000;

	return v > resident ? resident : (uint64_t)v;
}

const struct tier_daemon_config *tier_policy_daemon(const struct tier_policy *policy)
{
	return &policy->daemon;
}

/*
 * The one base of a percentage (toptier_min/max = N%): the fast-tier
 * capacity the fair share divides, the fast tier minus fast_tier_reserve
 * (tierd.conf(5)). evaluate.c (the plan, explain) and share.c (the
 * targets) both use it.
 */
uint64_t policy_share_capacity(const struct tier_policy *policy, uint64_t fast_capacity)
{
	uint64_t reserve = policy ? tier_policy_daemon(policy)->fast_tier_reserve : 0;

	return fast_capacity > reserve ? fast_capacity - reserve : 0;
}

_public_ uint64_t tier_amount_resolve(const struct tier_amount *amount, uint64_t capacity,
				      uint64_t dflt)
{
	if (!amount)
		return dflt;
	switch (amount->kind) {
	case TIER_AMOUNT_BYTES:
		return amount->value;
	case TIER_AMOUNT_PERCENT:
		return (uint64_t)((unsigned __int128)capacity * amount->value / 10000);
	case TIER_AMOUNT_MAX:
		return UINT64_MAX;
	default:
		return dflt;
	}
}

_public_ const char *tier_amount_format(const struct tier_amount *amount, char *buf, size_t size)
{
	static const char units[] = "KMGTPE";
	uint64_t v;
	int u = -1;

	if (!amount || !buf || size == 0)
		return NULL;
	switch (amount->kind) {
	case TIER_AMOUNT_BYTES:
		/* The largest binary suffix that divides the value exactly. */
		v = amount->value;
		while (v != 0 && v % 1024 == 0 && u < 5) {
			v /= 1024;
			u++;
		}
		if (u < 0)
			snprintf(buf, size, "%" PRIu64, v);
		else
			snprintf(buf, size, "%" PRIu64 "%c", v, units[u]);
		return buf;
	case TIER_AMOUNT_PERCENT:
		v = amount->value;
		if (v % 100 == 0)
			snprintf(buf, size, "%" PRIu64 "%%", v / 100);
		else if (v % 10 == 0)
			snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%%", v / 100, v % 100 / 10);
		else
			snprintf(buf, size, "%" PRIu64 ".%02" PRIu64 "%%", v / 100, v % 100);
		return buf;
	case TIER_AMOUNT_MAX:
		snprintf(buf, size, "max");
		return buf;
	default:
		return NULL;
	}
}

_public_ const char *tier_matcher_kind_to_string(enum tier_matcher_kind kind)
{
	static const char *const names[_TIER_MATCH_MAX] = {
		[TIER_MATCH_CGROUP] = "cgroup",
		[TIER_MATCH_UNIT] = "unit",
		[TIER_MATCH_EXE] = "exe",
		[TIER_MATCH_ANNOTATION] = "annotation",
	};

	if ((int)kind < 0 || kind >= _TIER_MATCH_MAX)
		return NULL;
	return names[kind];
}

_public_ size_t tier_policy_class_count(const struct tier_policy *policy)
{
	return policy->n_classes;
}

_public_ const struct tier_class *tier_policy_class(const struct tier_policy *policy, size_t i)
{
	return i < policy->n_classes ? &policy->classes[i]->pub : NULL;
}

_public_ const struct tier_class *tier_policy_find_class(const struct tier_policy *policy,
							 const char *name)
{
	struct policy_class *c = name ? find_class(policy, name) : NULL;

	return c ? &c->pub : NULL;
}

_public_ size_t tier_policy_rule_count(const struct tier_policy *policy)
{
	return policy->n_rules;
}

_public_ const struct tier_rule *tier_policy_rule(const struct tier_policy *policy, size_t i)
{
	return i < policy->n_rules ? &policy->rules[i]->pub : NULL;
}

_public_ const struct tier_rule *tier_policy_find_rule(const struct tier_policy *policy,
						       const char *name)
{
	struct policy_rule *r = name ? find_rule(policy, name) : NULL;

	return r ? &r->pub : NULL;
}

_public_ size_t tier_policy_file_count(const struct tier_policy *policy)
{
	return policy->n_files;
}

_public_ const char *tier_policy_file(const struct tier_policy *policy, size_t i)
{
	return i < policy->n_files ? policy->files[i] : NULL;
}

/* tier-internal.h: exe rules through the prefix index, not a glob per rule. */
static int cmp_exe_cand(const void *a, const void *b)
{
	const struct index_cand *x = a, *y = b;

	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return (x->matcher > y->matcher) - (x->matcher < y->matcher);
}

int tier_policy_match_exe(const struct tier_policy *policy, const char *exe,
				   const struct tier_rule **ret_rule)
{
	_cleanup_free_ struct index_cand *cands = NULL;
	size_t n = 0, alloc = 0;
	int r;

	if (!policy || !exe || !ret_rule)
		return -EINVAL;
	r = prefix_index_lookup(&policy->index[TIER_MATCH_EXE], exe, strlen(exe), &cands, &n,
				&alloc);
	if (r < 0)
		return r;
	if (n > 1)
		qsort(cands, n, sizeof(*cands), cmp_exe_cand);
	for (size_t i = 0; i < n; i++) {
		const struct policy_rule *rule = policy->rules[cands[i].rule];

		if (glob_match_compiled(&rule->globs[cands[i].matcher], exe)) {
			*ret_rule = &rule->pub;
			return 1;
		}
	}
	*ret_rule = NULL;
	return 0;
}
