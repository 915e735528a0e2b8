// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/siphash.c, the keyed hash of every table (issue 24, item 7): the
 * reference vectors, the streaming form, and names chosen against the old
 * unkeyed hashes (tierd's djb2, libtier's FNV-1a) spread over the tables
 * (chain and probe lengths, not times).  test-main.c fixes the key
 * (TEST_HASH_KEY) so that these counts are the same on every run; the key
 * is as unknown to the name chooser as a random one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "libtier-private.h"
#include "tierd-table.h"

/* The reference vectors of the SipHash paper (vectors_sip64): key 00..0f,
 * message 00 01 .. n-1. */
static const uint64_t vectors[] = {
	0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull,
	0x85676696d7fb7e2dull, 0xcf2794e0277187b7ull, 0x18765564cd99a68dull,
	0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull, 0x93f5f5799a932462ull,
	0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
	0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull,
	0xa129ca6149be45e5ull, 0x3f2acc7f57c29bdbull, 0x699ae9f52cbe4794ull,
};

START_TEST(test_siphash_vectors)
{
	uint8_t key[16], msg[ARRAY_SIZE(vectors)];

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (size_t n = 0; n < ARRAY_SIZE(vectors); n++) {
		struct siphash s;

		siphash24_init(&s, key);
		siphash24_compress(msg, n, &s);
		ck_assert_msg(siphash24_finalize(&s) == vectors[n], "length %zu", n);
		/* the same in two pieces, cut anywhere */
		for (size_t cut = 0; cut <= n; cut++) {
			siphash24_init(&s, key);
			siphash24_compress(msg, cut, &s);
			siphash24_compress(msg + cut, n - cut, &s);
			ck_assert_msg(siphash24_finalize(&s) == vectors[n], "length %zu cut %zu", n,
				      cut);
		}
		/* byte by byte, finalizing every prefix on the way (index.c) */
		siphash24_init(&s, key);
		for (size_t i = 0; i < n; i++) {
			siphash24_compress(msg + i, 1, &s);
			ck_assert(siphash24_finalize(&s) == vectors[i + 1]);
		}
	}
}
END_TEST

/* tier_hash() is SipHash-2-4 under the process's key, and another key
 * gives other values. */
START_TEST(test_hash_keyed)
{
	static const uint8_t key[16] = TEST_HASH_KEY;
	uint8_t other[16];
	struct siphash s;
	uint64_t h = tier_hash_string("/system.slice/x.service");

	siphash24_init(&s, key);
	siphash24_compress("/system.slice/x.service", 23, &s);
	ck_assert(siphash24_finalize(&s) == h);
	ck_assert(tier_hash("/system.slice/x.service", 23) == h);
	memcpy(other, key, sizeof(other));
	other[0] ^= 1;
	siphash24_init(&s, other);
	siphash24_compress("/system.slice/x.service", 23, &s);
	ck_assert(siphash24_finalize(&s) != h);
}
END_TEST

/* tierd's old hash, to check that the names below do collide under it. */
static size_t djb2(const char *s)
{
	size_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

#define N_FLOOD 4096

/* N_FLOOD sibling paths of one djb2 hash: 12 blocks of "az" or "bY"
 * (97 * 33 + 122 == 98 * 33 + 89). */
static char **djb2_flood(void)
{
	char **v = calloc(N_FLOOD, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < N_FLOOD; i++) {
		char name[64] = "/user.slice/flood/", *p = name + strlen(name);

		for (unsigned b = 0; b < 12; b++, p += 2)
			memcpy(p, (i >> b) & 1 ? "bY" : "az", 2);
		*p = '\0';
		v[i] = strdup(name);
		ck_assert_ptr_nonnull(v[i]);
	}
	return v;
}

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = FNV_OFFSET;

	for (; *s; s++)
		h = fnv_step(h, (unsigned char)*s);
	return h;
}

/*
 * N_FLOOD names whose FNV-1a hash (libtier's old hash) has its low 16 bits
 * 0: the home slot of every table up to 65,536 slots.  The low bits of
 * FNV-1a depend only on the low bits of the state and the bytes: try two
 * bytes until bits 8..15 of the state are 0, then the last byte (the
 * state's low byte) clears bits 0..7 before the last multiplication.
 */
static char **fnv_flood(const char *prefix)
{
	char **v = calloc(N_FLOOD, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < N_FLOOD; i++) {
		char name[64];
		size_t len = (size_t)snprintf(name, sizeof(name), "%sp%05zu", prefix, i);
		uint64_t h = FNV_OFFSET;

		for (size_t j = 0; j < len; j++)
			h = fnv_step(h, (unsigned char)name[j]);
		name[len] = '\0';
		for (unsigned c0 = 'a'; c0 <= 'z' && !name[len]; c0++)
			for (unsigned c1 = 1; c1 < 256 && !name[len]; c1++) {
				uint64_t h1 = fnv_step(fnv_step(h, (unsigned char)c0), (unsigned char)c1);
				unsigned c2 = (unsigned)(h1 & 0xff);

				if (c1 == '/' || (h1 & 0xff00) || c2 == 0 || c2 == '/')
					continue;
				name[len] = (char)c0;
				name[len + 1] = (char)c1;
				name[len + 2] = (char)c2;
				name[len + 3] = '\0';
			}
		ck_assert(name[len]);
		ck_assert_uint_eq(fnv(name) & 0xffff, 0);
		v[i] = strdup(name);
		ck_assert_ptr_nonnull(v[i]);
	}
	return v;
}

static void flood_free(char **v)
{
	for (size_t i = 0; i < N_FLOOD; i++)
		free(v[i]);
	free(v);
}

/* The longest chain of a table's buckets under tier_hash() for the names. */
static size_t max_bucket(char **names, size_t n_buckets)
{
	size_t *load = calloc(n_buckets, sizeof(*load)), max = 0;

	ck_assert_ptr_nonnull(load);
	for (size_t i = 0; i < N_FLOOD; i++) {
		size_t b = tier_hash_string(names[i]) & (n_buckets - 1);

		if (++load[b] > max)
			max = load[b];
	}
	free(load);
	return max;
}

/* tierd's managed table with 4,096 paths of one djb2 hash: before, one
 * chain of 4,096 (every insert and lookup walked it); now the longest
 * chain is a few entries, as for any names. */
START_TEST(test_flood_managed_table)
{
	char **paths = djb2_flood();
	struct managed_table t = { 0 };
	size_t max = 0;

	for (size_t i = 1; i < N_FLOOD; i++)
		ck_assert_uint_eq(djb2(paths[i]), djb2(paths[0]));
	for (size_t i = 0; i < N_FLOOD; i++) {
		struct cgpath *p = cgpath_new(paths[i], strlen(paths[i]));
		struct tier_plan_entry *e = p ? plan_entry_new(p) : NULL;
		struct managed *m;

		cgpath_unref(p);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(managed_table_put(&t, e, false, &m), 1);
		plan_entry_free(e);
	}
	ck_assert_uint_eq(t.n, N_FLOOD);
	for (size_t b = 0; b < t.map.size; b++) {
		size_t len = 0;

		for (struct hmap_node *x = t.map.buckets[b]; x; x = x->next)
			len++;
		if (len > max)
			max = len;
	}
	ck_assert_msg(max <= 12, "longest chain %zu of %zu entries", max, t.n);
	for (size_t i = 0; i < N_FLOOD; i++)
		ck_assert_ptr_nonnull(managed_table_get(&t, paths[i]));
	managed_table_clear(&t);
	flood_free(paths);
}
END_TEST

/* The one hash table (lib/hmap.h) under every table above: add, find,
 * delete while walking, growth keeping each element's hash, clear. */
struct hm_item {
	int key;
	struct hmap_node node;
};

static bool hm_eq(const struct hmap_node *node, const void *key)
{
	return hmap_entry(node, struct hm_item, node)->key == *(const int *)key;
}

START_TEST(test_hmap)
{
	enum { N = 1000 };
	static struct hm_item items[N];
	struct hmap h = { 0 };
	struct hmap_node *x, *tmp;
	size_t seen = 0;

	ck_assert_ptr_null(hmap_find(&h, 1, hm_eq, &(int){ 1 }));
	for (int i = 0; i < N; i++) {
		items[i].key = i;
		/* a few hashes only: chains, and equal hashes told apart by eq */
		ck_assert_int_eq(hmap_add(&h, &items[i].node, (uint64_t)(i % 7)), 0);
	}
	ck_assert_uint_eq(hmap_count(&h), N);
	ck_assert_uint_ge(h.size, N);	/* at most one per bucket on average */
	for (int i = 0; i < N; i++)
		ck_assert_ptr_eq(hmap_find(&h, (uint64_t)(i % 7), hm_eq, &i), &items[i].node);
	ck_assert_ptr_null(hmap_find(&h, 3, hm_eq, &(int){ 4 }));
	/* delete every even key while walking */
	HMAP_FOREACH_SAFE(x, tmp, &h) {
		seen++;
		if (hmap_entry(x, struct hm_item, node)->key % 2 == 0)
			hmap_del(&h, x);
	}
	ck_assert_uint_eq(seen, N);
	ck_assert_uint_eq(hmap_count(&h), N / 2);
	for (int i = 0; i < N; i++)
		ck_assert(!hmap_find(&h, (uint64_t)(i % 7), hm_eq, &i) == (i % 2 == 0));
	seen = 0;
	HMAP_FOREACH(x, &h)
		seen++;
	ck_assert_uint_eq(seen, N / 2);
	hmap_done(&h);
	ck_assert_uint_eq(hmap_count(&h), 0);
	ck_assert_ptr_null(hmap_find(&h, 1, hm_eq, &(int){ 1 }));
}
END_TEST

/*
 * tierd's full pass fills the table from the plan it keeps for the bus API:
 * the table refers to the plan's entries instead of copying each (which
 * held every path once more: with 2,252 cgroups of 64 KB paths, 140 MB of
 * tierd's RSS).  An entry decided by an event afterwards is a copy the table
 * owns, and replaces the borrowed one in place.
 */
START_TEST(test_managed_table_borrows)
{
	static const char text[] = "[class:a]\nmode = promote\n[class:b]\nmode = off\n"
				   "[rule:a]\nclass = a\ncgroup = /**\n";
	static const char text_b[] = "[class:b]\nmode = off\n[rule:b]\nclass = b\ncgroup = /**\n";
	struct tier_observed *obs = NULL, *one = NULL;
	struct tier_plan *plan = NULL, *plan_b = NULL;
	struct tier_policy *p = NULL, *pb = NULL;
	struct managed_table t = { 0 };
	struct tier_observed_cgroup *c;
	char path[4096] = "";
	struct managed *x;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	ck_assert_int_eq(tier_policy_load_buffer("b.conf", text_b, strlen(text_b), NULL, &pb), 0);
	ck_assert_int_eq(tier_observed_new(0, &obs), 0);
	for (int i = 0; i < 8; i++) {
		strcat(path, "/");
		memset(path + strlen(path), 'a' + i, 255);
		ck_assert_int_eq(tier_observed_add(obs, path, &c), 0);
	}
	ck_assert_int_eq(tier_evaluate(p, obs, &plan), 0);
	for (size_t i = 0; i < tier_plan_count(plan); i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i);

		ck_assert_int_eq(managed_table_put(&t, e, true, &x), 1);
		/* the plan's own entry and path: nothing copied */
		ck_assert_ptr_eq(x->entry, e);
		ck_assert_ptr_eq(managed_table_get(&t, fx_entry_path(e)), x);
		ck_assert_ptr_null(x->owned);
	}
	ck_assert_uint_eq(t.n, 8);

	/* an event decides the deepest one again, under another class */
	ck_assert_int_eq(tier_observed_new(0, &one), 0);
	ck_assert_int_eq(tier_observed_add(one, path, &c), 0);
	ck_assert_int_eq(tier_evaluate(pb, one, &plan_b), 0);
	ck_assert_int_eq(managed_table_put(&t, tier_plan_entry(plan_b, 0), false, &x), 1);
	ck_assert_ptr_nonnull(x->owned);
	ck_assert_ptr_eq(x->entry, x->owned);
	/* the copy outlives the event's plan */
	tier_plan_free(plan_b);
	ck_assert_str_eq(fx_entry_path(x->entry), path);
	ck_assert_str_eq(tier_plan_entry_class(managed_table_get(&t, path)->entry)->name, "b");
	ck_assert_uint_eq(t.n, 8);
	/* the others still borrow from the plan */
	path[strlen(path) - 256] = '\0';
	x = managed_table_get(&t, path);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_null(x->owned);
	ck_assert_ptr_eq(x->entry, tier_plan_find(plan, path));
	managed_table_clear(&t);
	tier_plan_free(plan);
	tier_observed_free(obs);
	tier_observed_free(one);
	tier_policy_unref(p);
	tier_policy_unref(pb);
}
END_TEST

/*
 * The cgroup watcher's table names a watch by its parent's watch and its own
 * name: a chain 250 deep of 255-byte names, each directory watched with its
 * cgroup.events, holds each name once (about 130 KB of names) where whole
 * paths were 16 MB (2,252 cgroups of 64 KB paths: 280 MB of tierd's RSS).
 */
START_TEST(test_watch_table_names)
{
	enum { DEPTH = 250 };
	struct watch_table t = { 0 };
	char *path = calloc(DEPTH + 1, 256), *other;
	size_t len = 0, paths = 0, names = 0;
	struct watch *x;

	ck_assert_ptr_nonnull(path);
	for (int i = 0; i < DEPTH; i++) {
		char *ev;

		path[len++] = '/';
		memset(path + len, 'a' + i % 26, 255);
		len += 255;
		path[len] = '\0';
		ck_assert_int_eq(watch_table_insert(&t, 2 * i + 1, path, false), 0);
		ck_assert_int_ne(asprintf(&ev, "%s/cgroup.events", path), -1);
		ck_assert_int_eq(watch_table_insert(&t, 2 * i + 2, ev, true), 0);
		paths += len + strlen(ev);
		names += 255 + strlen("cgroup.events");
		free(ev);
	}
	ck_assert_uint_eq(t.n, 2 * DEPTH);
	ck_assert_uint_eq(t.n_events, DEPTH);
	/* each name once (the first level holds its path, "/" + name) */
	ck_assert_uint_le(t.name_bytes, names + 1);
	ck_assert_uint_lt(t.name_bytes * 50, paths);

	/* found by path, and the path rebuilt from the names */
	x = watch_table_find(&t, path);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(x->wd, 2 * DEPTH - 1);
	other = watch_path(x);
	ck_assert_str_eq(other, path);
	free(other);
	ck_assert_ptr_eq(watch_table_find_wd(&t, 2 * DEPTH - 1), x);
	/* the same last name below another parent is another path */
	other = strdup(path);
	other[1] = 'z';
	ck_assert_ptr_null(watch_table_find(&t, other));
	free(other);

	/* a middle level's watch goes (IN_IGNORED): the levels below keep
	 * their paths through it */
	path[100 * 256] = '\0';
	x = watch_table_find(&t, path);
	ck_assert_ptr_nonnull(x);
	watch_table_remove(&t, x);
	ck_assert_ptr_null(watch_table_find(&t, path));
	path[100 * 256] = '/';
	x = watch_table_find(&t, path);
	ck_assert_ptr_nonnull(x);
	other = watch_path(x);
	ck_assert_str_eq(other, path);
	free(other);

	/* renamed: the same wd under a new path */
	x = watch_table_find_wd(&t, 1);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(watch_table_insert(&t, 1, "/renamed", false), 0);
	ck_assert_ptr_eq(watch_table_find(&t, "/renamed"), x);
	path[256] = '\0';
	ck_assert_ptr_null(watch_table_find(&t, path));

	watch_table_clear(&t);
	ck_assert_uint_eq(t.n, 0);
	free(path);
}
END_TEST

static const char *name_at(const void *owner, size_t i)
{
	return ((char *const *)owner)[i];
}

/* libtier's name tables (classes, rules, share candidates; open addressing)
 * with 4,096 names of one FNV-1a home slot: before, the last one probed
 * 4,095 slots; now the longest probe is short. */
START_TEST(test_flood_name_table)
{
	char **names = fnv_flood("class-");
	struct name_table t = { 0 };
	size_t max = 0;

	for (size_t i = 0; i < N_FLOOD; i++)
		ck_assert_int_eq(name_table_add(&t, names, name_at, i), 0);
	/* probe length of each entry: its distance from its home slot */
	for (size_t i = 0; i < t.size; i++) {
		size_t home, d;

		if (!t.slots[i].idx)
			continue;
		home = tier_hash_string(names[t.slots[i].idx - 1]) & (t.size - 1);
		d = (i - home) & (t.size - 1);
		if (d > max)
			max = d;
	}
	ck_assert_msg(max <= 48, "longest probe %zu in %zu slots", max, t.size);
	for (size_t i = 0; i < N_FLOOD; i++)
		ck_assert_uint_eq(name_table_find(&t, names, name_at, names[i], strlen(names[i])),
				  i);
	name_table_free(&t);
	flood_free(names);
}
END_TEST

/* The plan's table: the same paths evaluate into a plan and are each found
 * again; the buckets a plan of that size uses hold a few each. */
START_TEST(test_flood_plan)
{
	static const char text[] = "[class:c]\nmode = off\n[rule:r]\nclass = c\ncgroup = /f/*\n";
	char **paths = fnv_flood("/f/");
	struct tier_policy *p = NULL;
	struct tier_observed *o = NULL;
	struct tier_plan *plan = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	ck_assert_int_eq(tier_observed_new(1ull << 30, &o), 0);
	for (size_t i = 0; i < N_FLOOD; i++) {
		struct tier_observed_cgroup *c;

		ck_assert_int_eq(tier_observed_add(o, paths[i], &c), 0);
	}
	ck_assert_int_eq(tier_evaluate(p, o, &plan), 0);
	for (size_t i = 0; i < N_FLOOD; i++) {
		const struct tier_plan_entry *e = tier_plan_find(plan, paths[i]);

		ck_assert_ptr_nonnull(e);
		ck_assert_str_eq(fx_entry_path(e), paths[i]);
		ck_assert_ptr_nonnull(tier_plan_entry_rule(e));
	}
	ck_assert_uint_le(max_bucket(paths, N_FLOOD), 12);
	ck_assert_uint_le(max_bucket(paths, 2 * N_FLOOD), 12);
	tier_plan_free(plan);
	tier_observed_free(o);
	tier_policy_unref(p);
	flood_free(paths);
}
END_TEST

/* The prefix index hashes every prefix of a string in one pass: prefixes
 * around the 8-byte blocks of SipHash are all found. */
START_TEST(test_prefix_index_lengths)
{
	static const char text[] = "[class:c]\nmode = off\n"
				   "[rule:f]\nclass = c\nexe = /usr/sbin/mysqld\n" /* 16 */
				   "[rule:e]\nclass = c\nexe = /usr/bin/*\n"	  /* 9 */
				   "[rule:d]\nclass = c\nexe = /usr/bin*\n"	  /* 8 */
				   "[rule:b]\nclass = c\nexe = /usr/bi*\n"	  /* 7 */
				   "[rule:a]\nclass = c\nexe = /bin/a*\n";	  /* 6 */
	static const struct {
		const char *exe, *rule;
	} t[] = {
		{ "/bin/ab", "a" },	     { "/usr/bix", "b" },	   { "/usr/binx", "d" },
		{ "/usr/bin/x", "e" },	     { "/usr/sbin/mysqld", "f" }, { "/usr/sbin/mysql", NULL },
		{ "/usr/sbin/mysqldx", NULL },
	};
	struct tier_policy *p = NULL;

	ck_assert_int_eq(tier_policy_load_buffer("t.conf", text, strlen(text), NULL, &p), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct tier_rule *rule = NULL;
		int r = tier_policy_match_exe(p, t[i].exe, &rule);

		ck_assert_int_eq(r, t[i].rule ? 1 : 0);
		if (t[i].rule)
			ck_assert_str_eq(rule->name, t[i].rule);
	}
	tier_policy_unref(p);
}
END_TEST

Suite *suite_hash(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, test_siphash_vectors);
	tcase_add_test(tc, test_hash_keyed);
	tcase_add_test(tc, test_hmap);
	tcase_add_test(tc, test_flood_managed_table);
	tcase_add_test(tc, test_managed_table_borrows);
	tcase_add_test(tc, test_watch_table_names);
	tcase_add_test(tc, test_flood_name_table);
	tcase_add_test(tc, test_flood_plan);
	tcase_add_test(tc, test_prefix_index_lengths);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
