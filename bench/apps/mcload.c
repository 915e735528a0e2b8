// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mcload: the small memcached client of the real-application runs
 * (bench/apps/, tests/vm/apps/), and the generator of redis's data set.
 *
 *   mcload set SOCK PREFIX NKEYS SIZE
 *	store NKEYS items "PREFIX<i>" of SIZE bytes in the memcached listening
 *	on the unix socket SOCK (pipelined, noreply; ends with a round trip,
 *	so every item is stored when it returns)
 *   mcload get SECONDS PREFIX NKEYS SIZE SOCK...
 *	uniform random multi-gets (16 keys each) over all NKEYS items (of SIZE
 *	bytes) of each
 *	memcached, round robin, for SECONDS (0: until killed); every 5 s and
 *	at the end prints "MCLOAD t=S gets=N rps=R" (items fetched, per second
 *	over the last interval) and "MCLOAD-TOTAL gets=N secs=S rps=R";
 *	a miss counts as an error (exit 1): the data set must stay whole
 *   mcload redis-gen FORMAT FIRST NKEYS SIZE
 *	the RESP of NKEYS SETs with keys printf(FORMAT, FIRST + i) and values
 *	of SIZE bytes, on stdout, for redis-cli --pipe; FORMAT is one %d-style
 *	conversion, e.g. "key:%012d" (redis-benchmark's __rand_int__ keys)
 *
 * Debian 12 has no load generator that fits: memtier-benchmark is not in
 * it, and libmemcached-tools' memslap draws new random keys on every run
 * and has no fixed key space to read uniformly.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define BATCH 16

static void die(const char *what)
{
	fprintf(stderr, "mcload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static unsigned long parse_ul(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "mcload: bad number '%s' (at most %lu)\n", s, max);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "mcload: socket path too long: %s\n", path);
		exit(2);
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(path);
	return fd;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		buf += n;
		len -= (size_t)n;
	}
}

/* Reads until the buffer ends with end (a reply's last line); the reply's
 * length, or exits. buf grows as needed. */
static size_t read_until(int fd, char **buf, size_t *cap, const char *end)
{
	size_t len = 0, el = strlen(end);

	for (;;) {
		ssize_t n;

		if (len == *cap) {
			*cap = *cap ? *cap * 2 : 65536;
			*buf = realloc(*buf, *cap);
			if (!*buf)
				die("realloc");
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : ECONNRESET;
			die("read");
		}
		len += (size_t)n;
		if (len >= el && !memcmp(*buf + len - el, end, el))
			return len;
	}
}

static int cmd_set(const char *sock, const char *prefix, unsigned long nkeys, unsigned long size)
{
	char *val = malloc(size + 2), *out = NULL, *in = NULL;
	size_t cap = 0, olen = 0, ocap = 1 << 20;
	int fd = connect_unix(sock);

	out = malloc(ocap);
	if (!val || !out)
		die("malloc");
	memset(val, 'x', size);
	memcpy(val + size, "\r\n", 2);
	for (unsigned long i = 0; i < nkeys; i++) {
		char hdr[300];
		int h = snprintf(hdr, sizeof(hdr), "set %s%lu 0 0 %lu noreply\r\n", prefix, i, size);

		if (h < 0 || (size_t)h >= sizeof(hdr)) {
			fprintf(stderr, "mcload: key prefix too long\n");
			return 2;
		}
		if (olen + (size_t)h + size + 2 > ocap) {
			write_all(fd, out, olen);
			olen = 0;
		}
		if ((size_t)h + size + 2 > ocap) {
			write_all(fd, hdr, (size_t)h);
			write_all(fd, val, size + 2);
			continue;
		}
		memcpy(out + olen, hdr, (size_t)h);
		memcpy(out + olen + h, val, size + 2);
		olen += (size_t)h + size + 2;
	}
	/* a round trip: memcached answers in order, so every set is done */
	memcpy(out + olen, "version\r\n", 9);
	write_all(fd, out, olen + 9);
	read_until(fd, &in, &cap, "\r\n");
	if (strncmp(in, "VERSION", 7)) {
		fprintf(stderr, "mcload: %s: unexpected reply after the sets: %.60s\n", sock, in);
		return 1;
	}
	close(fd);
	free(in);
	free(out);
	free(val);
	return 0;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* "VALUE " lines in a multi-get's reply. */
static unsigned count_values(const char *buf, size_t len, unsigned long size)
{
	size_t off = 0;
	unsigned n = 0;

	while (off + 6 <= len && !memcmp(buf + off, "VALUE ", 6)) {
		const char *nl = memchr(buf + off, '\n', len - off);

		if (!nl)
			break;
		off = (size_t)(nl - buf) + 1 + size + 2;
		n++;
	}
	return n;
}

static int cmd_get(double secs, const char *prefix, unsigned long nkeys, unsigned long size,
		   int nsock, char **socks)
{
	int *fds = calloc((size_t)nsock, sizeof(int));
	char *in = NULL, req[BATCH * 300 + 16];
	size_t cap = 0;
	double t0 = now(), tl = t0, t;
	uint64_t gets = 0, last = 0;
	int s = 0;

	if (!fds)
		die("calloc");
	for (int i = 0; i < nsock; i++)
		fds[i] = connect_unix(socks[i]);
	rng ^= (uint64_t)getpid() << 20;
	for (;;) {
		size_t rl = 4;
		size_t len;
		unsigned got;

		memcpy(req, "get ", 4);
		for (int i = 0; i < BATCH; i++)
			rl += (size_t)snprintf(req + rl, sizeof(req) - rl, "%s%lu%s", prefix,
					       (unsigned long)(xorshift() % nkeys),
					       i + 1 < BATCH ? " " : "\r\n");
		write_all(fds[s], req, rl);
		len = read_until(fds[s], &in, &cap, "END\r\n");
		got = count_values(in, len, size);
		if (got != BATCH) {
			fprintf(stderr, "mcload: %s: %u of %d keys found: the data set lost items\n",
				socks[s], got, BATCH);
			return 1;
		}
		gets += got;
		s = (s + 1) % nsock;
		t = now();
		if (t - tl >= 5.0) {
			printf("MCLOAD t=%.1f gets=%llu rps=%.0f\n", t - t0, (unsigned long long)gets,
			       (gets - last) / (t - tl));
			fflush(stdout);
			tl = t;
			last = gets;
		}
		if (secs > 0 && t - t0 >= secs)
			break;
	}
	t = now();
	printf("MCLOAD-TOTAL gets=%llu secs=%.1f rps=%.0f\n", (unsigned long long)gets, t - t0,
	       gets / (t - t0));
	free(in);
	free(fds);
	return 0;
}

static int cmd_redis_gen(const char *fmt, unsigned long first, unsigned long nkeys,
			 unsigned long size)
{
	char *val = malloc(size);
	const char *p;
	int conv = 0;

	/* one integer conversion and nothing else */
	for (p = fmt; (p = strchr(p, '%')); p++) {
		p++;
		if (*p == '%')
			continue;
		p += strspn(p, "0123456789");
		if (*p != 'd') {
			fprintf(stderr, "mcload: FORMAT takes one %%d conversion\n");
			return 2;
		}
		conv++;
	}
	if (conv != 1 || !val) {
		fprintf(stderr, "mcload: FORMAT takes one %%d conversion\n");
		return 2;
	}
	memset(val, 'x', size);
	for (unsigned long i = 0; i < nkeys; i++) {
		char key[256];
		/* fmt was checked above: one %d (with an optional width), %% otherwise */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		int k = snprintf(key, sizeof(key), fmt, (int)(first + i));
#pragma GCC diagnostic pop

		if (k < 0 || (size_t)k >= sizeof(key))
			return 2;
		printf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%lu\r\n", k, key, size);
		fwrite(val, 1, size, stdout);
		fputs("\r\n", stdout);
	}
	free(val);
	return fflush(stdout) == 0 ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: mcload set SOCK PREFIX NKEYS SIZE\n"
			"       mcload get SECONDS PREFIX NKEYS SIZE SOCK...\n"
			"       mcload redis-gen FORMAT FIRST NKEYS SIZE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "set"))
		return cmd_set(argv[2], argv[3], parse_ul(argv[4], 1ul << 30),
			       parse_ul(argv[5], 1ul << 20));
	if (argc >= 7 && !strcmp(argv[1], "get"))
		return cmd_get((double)parse_ul(argv[2], 86400), argv[3],
			       parse_ul(argv[4], 1ul << 30), parse_ul(argv[5], 1ul << 20), argc - 6,
			       argv + 6);
	if (argc == 6 && !strcmp(argv[1], "redis-gen"))
		return cmd_redis_gen(argv[2], parse_ul(argv[3], 1ul << 30),
				     parse_ul(argv[4], 1ul << 30), parse_ul(argv[5], 1ul << 20));
	usage();
	return 2;
}
