/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal representation of a parsed policy, shared with evaluate.c. */
#ifndef LIBTIER_POLICY_H
#define LIBTIER_POLICY_H

#include "glob.h"
#include "libtier-private.h"

enum {
	CK_MODE,
	CK_WEIGHT,
	CK_TOPTIER_MIN,
	CK_TOPTIER_MAX,
	CK_MEMORY_LOW,
	CK_MEMORY_HIGH,
	_CK_MAX,
};

struct policy_class {
	struct tier_class pub;
	unsigned key_line[_CK_MAX];	/* 0 = not set */
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
	char *prefix;
	size_t len;
	uint64_t hash;
	struct index_cand *cands;
	size_t n, alloc;
};

struct prefix_index {
	struct index_bucket *buckets;
	size_t n_buckets, alloc_buckets;
	size_t *table;			/* open addressing, bucket index + 1 */
	size_t table_size;		/* power of two */
	unsigned char *len_present;	/* [len] = a prefix of that length exists */
	size_t max_len;			/* size of len_present */
};

struct tier_policy {
	struct tier_daemon_config daemon;
	struct policy_class **classes;
	size_t n_classes, alloc_classes;
	struct policy_rule **rules;
	size_t n_rules, alloc_rules;
	char **files;
	size_t n_files, alloc_files;
	char **strings;			/* every string the public structs point to */
	size_t n_strings, alloc_strings;
	struct prefix_index index[_TIER_MATCH_MAX];
};

/* index.c */
int policy_build_index(struct tier_policy *p);
void prefix_index_free(struct prefix_index *idx);
int prefix_index_lookup(const struct prefix_index *idx, const char *s, size_t len,
			struct index_cand **cands, size_t *n, size_t *alloc);

#endif
