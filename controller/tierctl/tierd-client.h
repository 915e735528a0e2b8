/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The client side of tierd's bus API (org.tierd.Manager1), for tierctl.
 * See tierd-bus.c for the methods and tierd(8) for where they are served.
 */
#ifndef TIERD_CLIENT_H
#define TIERD_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define TIERD_BUS_NAME "org.tierd.Manager1"
#define TIERD_BUS_PATH "/org/tierd/Manager1"
#define TIERD_BUS_IFACE "org.tierd.Manager1"
#define TIERD_BUS_SOCKET "/run/tierd/bus"

struct tierd_client {
	sd_bus *bus;
	char where[128];	/* "/run/tierd/bus" or "the system bus"; the
				 * socket tried when none answered */
	/* Why each way failed, for the message when none worked: */
	int socket_error;	/* 0 = not tried */
	int system_error;	/* 0 = not tried; -ESRCH: bus up, no tierd on it */
};

/*
 * Connect to a running tierd: its private socket (socket_path, NULL for
 * the default) first, then the system bus if try_system_bus.  0 on success;
 * -ESRCH if no tierd answers either way (the reasons are in c), another
 * negative errno for other failures.
 */
int tierd_client_open(struct tierd_client *c, const char *socket_path, bool try_system_bus);
void tierd_client_close(struct tierd_client *c);

/*
 * Call METHOD with the given signature and arguments; the reply is in
 * *ret_reply, an error in *error.  A daemon that went away between open and
 * call gives -ESRCH.
 */
int tierd_client_call(struct tierd_client *c, const char *method, sd_bus_error *error,
		      sd_bus_message **ret_reply, const char *types, ...);

/*
 * ListCgroups(all), page after page until the last: row() for each
 * cgroup, its strings valid during the call only; a negative return of
 * row() stops and is returned.  A tierd from before the paged method
 * (ListCgroups(b), one reply) is asked that way.  0 or a negative errno,
 * tierd's error in *error.
 */
typedef int (*tierd_list_row_t)(void *userdata, const char *path, const char *class_name,
				const char *rule, uint64_t target);
int tierd_client_list_cgroups(struct tierd_client *c, bool all, sd_bus_error *error,
			      tierd_list_row_t row, void *userdata);

/* Why no tierd answered, e.g. "/run/tierd/bus: Permission denied; no tierd
 * on the system bus", into buf. */
const char *tierd_client_why(const struct tierd_client *c, char *buf, size_t size);

#endif
