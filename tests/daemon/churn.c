// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * churn: create and remove cgroups as fast as the kernel allows, so that
 * tierd meets cgroups that vanish between the event and the write.
 *
 *   churn DIR N [KEEP_US]
 *
 * mkdir DIR/rI, optionally wait KEEP_US microseconds, rmdir DIR/rI, for I in
 * 0..N-1.  Exits non-zero if a mkdir or rmdir fails (rmdir may be retried
 * on EBUSY: a cgroup being written to can be busy for a moment).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char p[4096];
	long n, keep = 0;

	if (argc < 3)
		return 2;
	n = strtol(argv[2], NULL, 10);
	if (argc > 3)
		keep = strtol(argv[3], NULL, 10);
	for (long i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/r%ld", argv[1], i);
		if (mkdir(p, 0755) < 0) {
			perror(p);
			return 1;
		}
		if (keep)
			usleep((useconds_t)keep);
		while (rmdir(p) < 0) {
			if (errno != EBUSY) {
				perror(p);
				return 1;
			}
			usleep(100);
		}
	}
	return 0;
}
