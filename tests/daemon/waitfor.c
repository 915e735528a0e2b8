// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waitfor: wait (with inotify, not by sleeping in a loop) until a file
 * exists and one of its lines matches an extended regex.
 *
 *   waitfor [-t SECONDS] [-n COUNT] [-v] FILE REGEX
 *
 * -n COUNT waits until COUNT lines match; -v inverts: wait until no line
 * matches.  Exits 0 when the condition holds, 1 on timeout (printing the
 * file's last lines), 2 on usage errors.  Works on regular files and on
 * cgroup files (writes through write(2) raise IN_MODIFY on both).
 */
#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

static long count_matches(const char *file, const regex_t *re)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t sz = 0;
	ssize_t l;
	long n = 0;

	if (!f)
		return -1;
	while ((l = getline(&line, &sz, f)) >= 0) {
		if (l > 0 && line[l - 1] == '\n')
			line[l - 1] = '\0';
		if (regexec(re, line, 0, NULL, 0) == 0)
			n++;
	}
	free(line);
	fclose(f);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double timeout = 10, deadline;
	long want = 1;
	bool invert = false;
	char *dircopy;
	regex_t re;
	int c, fd, wd_file = -1;

	while ((c = getopt(argc, argv, "t:n:v")) >= 0) {
		switch (c) {
		case 't':
			timeout = strtod(optarg, NULL);
			break;
		case 'n':
			want = strtol(optarg, NULL, 10);
			break;
		case 'v':
			invert = true;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: waitfor [-t SEC] [-n COUNT] [-v] FILE REGEX\n");
		return 2;
	}
	if (regcomp(&re, argv[optind + 1], REG_EXTENDED | REG_NOSUB) != 0) {
		fprintf(stderr, "waitfor: bad regex\n");
		return 2;
	}
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0) {
		perror("waitfor: inotify_init1");
		return 2;
	}
	dircopy = strdup(argv[optind]);
	/* The directory, to see the file appear (and files replaced by rename). */
	(void)inotify_add_watch(fd, dirname(dircopy), IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE);
	deadline = now() + timeout;
	for (;;) {
		char buf[4096];
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long n;
		double left;

		if (wd_file < 0)
			wd_file = inotify_add_watch(fd, argv[optind], IN_MODIFY | IN_CLOSE_WRITE);
		n = count_matches(argv[optind], &re);
		if (invert ? n == 0 : n >= want)
			return 0;
		left = deadline - now();
		if (left <= 0)
			break;
		/* Bounded wait for the next event (100 ms cap covers files that
		 * change without an event, like cgroup files written by the kernel). */
		if (poll(&p, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100) > 0)
			while (read(fd, buf, sizeof(buf)) > 0)
				;
	}
	fprintf(stderr, "waitfor: timeout after %.1fs waiting for /%s/%s in %s\n", timeout,
		argv[optind + 1], invert ? " to disappear" : "", argv[optind]);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "tail -n 20 '%s' >&2", argv[optind]);
		if (system(cmd) < 0)
			return 1;
	}
	return 1;
}
