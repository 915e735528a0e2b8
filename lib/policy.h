/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal representation of a parsed policy, shared with evaluate.c. */
#ifndef LIBTIER_POLICY_H
#define LIBTIER_POLICY_H

#include "glob.h"
#include "libtier-private.h"

/*
 * Every policy file (the main file and each drop-in) is read whole, up to
 * this size; a larger one is refused before it is read. 16 MiB holds about
 * 100,000 rules of four matchers each. Documented in tierd.conf(5).
 */
#define POLICY_FILE_MAX (16u << 20)

/*
 * The longest line of a policy file, in bytes without its newline: room
 * for a PATH_MAX exe path or a long cgroup glob, while a message that
 * quotes a bad value stays bounded. Documented in tierd.conf(5).
 */
#define POLICY_LINE_MAX 16384u

enum {
	CK_MODE,
	CK_WEIGHT,
	CK_TOPTIER_MIN,
	CK_TOPTIER_MAX,
	CK_MEMORY_LOW,
	CK_MEMORY_HIGH,
	CK_DEMAND,
	CK_PROMOTE_BUDGET,
	CK_PAGE_CACHE,
	_CK_MAX,
};

struct policy_class {
	struct tier_class pub;		/* first: tier_class_*() cast back to it */
	unsigned key_line[_CK_MAX];	/* 0 = not set */
	/* keys outside libtier's ABI (tier-internal.h accessors) */
	enum tier_demand demand;	/* DEFAULT: [daemon] demand */
	uint64_t promote_budget;	/* bytes per second, 0: none */
	bool page_cache;		/* tierd promotes its hot page cache through DAMON */
};

struct policy_rule {
	struct tier_rule pub;
	struct tier_matcher *matchers;
	struct glob *globs;		/* one per matcher (the value glob) */
	size_t alloc;
	const char *class_file;
	unsigned class_line;		/* line of "class =", 0 if none */
};

struct index_cand {
	uint32_t rule;
	uint32_t matcher;
};

struct index_bucket {
	size_t off;			/* of the prefix in prefix_index.text */
	size_t len;
	uint64_t hash;
	size_t start, n;		/* its candidates: cands[start .. start + n) */
};

struct prefix_index {
	struct index_bucket *buckets;
	size_t n_buckets, alloc_buckets;
	struct hash_slot *table;	/* bucket index + 1 */
	size_t table_size;		/* power of two */
	unsigned char *len_present;	/* [len] = a prefix of that length exists */
	size_t max_len;			/* used length of len_present */
	size_t alloc_len;		/* its allocation */
	char *text;			/* every bucket's prefix, not NUL-terminated */
	size_t text_len, text_alloc;
	struct index_cand *cands;	/* by bucket, in policy order within one */
	size_t n_cands;
};

/* Strings of a policy, packed into blocks that never move (see pstrdup()). */
struct str_block {
	struct str_block *next;
	size_t used, size;
	char data[];
};

struct tier_policy {
	unsigned n_ref;
	struct tier_daemon_config daemon;
	struct policy_class **classes;
	size_t n_classes, alloc_classes;
	struct policy_rule **rules;
	size_t n_rules, alloc_rules;
	struct name_table class_names, rule_names;
	char **files;
	size_t n_files, alloc_files;
	struct str_block *strings;	/* every string the public structs point to */
	struct prefix_index index[_TIER_MATCH_MAX];
};

/* index.c */
int policy_build_index(struct tier_policy *p);
void prefix_index_free(struct prefix_index *idx);
int prefix_index_lookup(const struct prefix_index *idx, const char *s, size_t len,
			struct index_cand **cands, size_t *n, size_t *alloc);

#endif
