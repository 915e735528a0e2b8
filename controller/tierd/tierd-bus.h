/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd bus API (tierd-bus.c): org.tierd.Manager1 for tierctl, on the
 * private socket in the run directory and on the system bus.  Its state,
 * the connections and the rate limit of unprivileged callers, is struct
 * bus_api.
 */
#ifndef TIERD_BUS_H
#define TIERD_BUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

struct manager;

/*
 * A page of ListCgroups: at most this many bytes of strings (a row is sent
 * whole, so a page exceeds it by less than one cgroup path, itself at most
 * 256 levels of 255 bytes) and this many rows: far below the 128 MiB sd-bus
 * allows a message, and cheap for tierd to build.
 */
#define BUS_LIST_PAGE_BYTES (4u << 20)
#define BUS_LIST_PAGE_ROWS 65536u

/* A token bucket per caller UID for unprivileged bus calls, and one for all. */
#define BUS_RATELIMIT_SLOTS 64
struct bus_bucket {
	bool used;
	uid_t uid;
	uint64_t milli_tokens;
	uint64_t last_usec;
};
struct bus_ratelimit {
	struct bus_bucket slot[BUS_RATELIMIT_SLOTS];
	struct bus_bucket all;
};

/* The bus API's state (struct manager has one, m->api). */
struct bus_api {
	sd_bus *bus;			/* org.tierd.Manager1 on the system bus, or NULL */
	sd_event_source *retry;		/* reconnect to the system bus after losing it */
	sd_event_source *listen;	/* the private socket in the run directory */
	int fd;
	struct bus_ratelimit rl;	/* unprivileged callers */
};

int bus_api_start(struct manager *m);
void bus_api_stop(struct manager *m);
/* Token bucket: may uid make one more unprivileged call at now_usec? */
bool bus_ratelimit_take(struct bus_ratelimit *rl, uid_t uid, uint64_t now_usec);

#endif
