/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd proc connector (tierd-proc.c): exec events over netlink, for the
 * policy's exe= rules.
 */
#ifndef TIERD_PROC_H
#define TIERD_PROC_H

#include <stdint.h>

#include <systemd/sd-event.h>

struct manager;
struct nl_sock;

struct proc_connector {
	struct nl_sock *sk;
	sd_event_source *source;
	uint64_t n_foreign;	/* datagrams not from the kernel, dropped */
};

int proc_connector_start(struct manager *m);
void proc_connector_stop(struct manager *m);

#endif
