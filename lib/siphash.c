// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one hash of the project's hash tables: SipHash-2-4 (Aumasson and
 * Bernstein, "SipHash: a fast short-input PRF", 2012), as systemd's
 * hashmap uses it, keyed with 16 random bytes drawn once per process.
 * Names of cgroups are chosen by whoever may create them: with an unkeyed
 * hash (djb2, FNV-1a before) 4,096 chosen names share one bucket and every
 * insertion and lookup walks all of them; without the key nobody can
 * compute which names collide.
 *
 * The streaming form (siphash24_init/compress/finalize) hashes a string
 * piece by piece with the same result as hashing it whole; finalize works
 * on a copy, so the prefix index hashes every prefix of a string in one
 * pass (index.c).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "libtier-private.h"

#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

static inline uint64_t rotl(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline void sipround(struct siphash *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static inline void block(struct siphash *s, uint64_t m)
{
	s->v3 ^= m;
	sipround(s);
	sipround(s);
	s->v0 ^= m;
}

void siphash24_init(struct siphash *s, const uint8_t key[16])
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);

	*s = (struct siphash){
		.v0 = 0x736f6d6570736575ull ^ k0,
		.v1 = 0x646f72616e646f6dull ^ k1,
		.v2 = 0x6c7967656e657261ull ^ k0,
		.v3 = 0x7465646279746573ull ^ k1,
	};
}

void siphash24_compress(const void *data, size_t len, struct siphash *s)
{
	const uint8_t *in = data;
	size_t left = s->inlen & 7;

	s->inlen += len;
	if (left) {
		for (; len && left < 8; len--, left++)
			s->padding |= (uint64_t)*in++ << (8 * left);
		if (left < 8)
			return;
		block(s, s->padding);
		s->padding = 0;
	}
	for (; len >= 8; len -= 8, in += 8)
		block(s, le64(in));
	for (size_t i = 0; i < len; i++)
		s->padding |= (uint64_t)in[i] << (8 * i);
}

uint64_t siphash24_finalize(const struct siphash *state)
{
	struct siphash s = *state;
	uint64_t b = ((uint64_t)s.inlen << 56) | s.padding;

	block(&s, b);
	s.v2 ^= 0xff;
	sipround(&s);
	sipround(&s);
	sipround(&s);
	sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

/* --- the process's key --- */

static uint8_t hash_key[16];
static bool hash_key_fixed;
static pthread_once_t hash_key_once = PTHREAD_ONCE_INIT;

static void hash_key_init(void)
{
	uint8_t *k = hash_key;
	size_t got = 0;

	if (hash_key_fixed)
		return;
	/*
	 * GRND_INSECURE (Linux 5.6): never blocks, even before the pool is
	 * initialised at early boot, which is good enough for a hash key;
	 * older kernels refuse the flag: GRND_NONBLOCK then.
	 */
	while (got < sizeof(hash_key)) {
		ssize_t r = getrandom(k + got, sizeof(hash_key) - got, GRND_INSECURE);

		if (r < 0 && errno == EINVAL)
			r = getrandom(k + got, sizeof(hash_key) - got, GRND_NONBLOCK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got < sizeof(hash_key)) {
		/* no getrandom(): the 16 random bytes the kernel gave this
		 * process at exec (AT_RANDOM), mixed with the time and PID */
		const uint8_t *at = (const uint8_t *)getauxval(AT_RANDOM);
		struct timespec ts;
		struct siphash s;
		uint64_t x[2];

		clock_gettime(CLOCK_MONOTONIC, &ts);
		siphash24_init(&s, at ? at : hash_key);
		siphash24_compress(&ts, sizeof(ts), &s);
		x[0] = siphash24_finalize(&s);
		x[1] = x[0] ^ ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec;
		siphash24_compress(&x[1], sizeof(x[1]), &s);
		x[1] = siphash24_finalize(&s);
		memcpy(hash_key, x, sizeof(hash_key));
	}
}

void tier_hash_set_key(const uint8_t key[16])
{
	memcpy(hash_key, key, sizeof(hash_key));
	hash_key_fixed = true;
	pthread_once(&hash_key_once, hash_key_init);
}

void tier_hash_init(struct siphash *s)
{
	pthread_once(&hash_key_once, hash_key_init);
	siphash24_init(s, hash_key);
}

uint64_t tier_hash(const void *data, size_t len)
{
	struct siphash s;

	tier_hash_init(&s);
	siphash24_compress(data, len, &s);
	return siphash24_finalize(&s);
}

uint64_t tier_hash_string(const char *s)
{
	return tier_hash(s, strlen(s));
}
