/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd run directory (tierd-rundir.c): the lock against a second tierd,
 * the bus socket and the files of ours in it (fairness state).
 */
#ifndef TIERD_RUNDIR_H
#define TIERD_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DEFAULT_BUS_SOCKET "/run/tierd/bus"
/* In the run directory (the bus socket's): what fairness holds. */
#define FAIR_STATE_NAME "fair-state"
#define FAIR_STATE_MAX (8u << 20)

struct manager;

/* The run directory (tierd-rundir.c): lock, bus socket, fairness state. */
struct run_dir {
	int fd;				/* -1: none (tierd runs without one) */
	char *path;
	int lock_fd;
	char *socket_name;		/* the bus socket in it */
	bool socket_bound;		/* we bound it: dev/ino of what we bound */
	dev_t sock_dev;
	ino_t sock_ino;
};

const char *rundir_socket_path(const struct manager *m);
/* Open, check and lock the run directory: 0 (also when there is none, said
 * so), a negative errno when tierd must not start (logged). */
int rundir_open(struct manager *m);
void rundir_close(struct manager *m);
/* Bind and listen on the bus socket: 0, -ENOENT without a run directory,
 * another negative errno when tierd must not start (logged). */
int rundir_bind_socket(struct manager *m, int *ret_fd);
/* Remove the socket, only if it is still the one we bound. */
void rundir_unlink_socket(struct manager *m);
/* A regular file of ours in the run directory, at most max bytes. */
int rundir_read_file(struct manager *m, const char *name, size_t max, char **ret,
		     size_t *ret_size);
/* Write name atomically: a temp file, fsync, rename; mode 0600. */
int rundir_write_file(struct manager *m, const char *name, const char *data, size_t size);
int rundir_unlink_file(struct manager *m, const char *name);

#endif
