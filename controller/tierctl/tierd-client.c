// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Client side of tierd's bus API: find the running daemon and call it.
 *
 * The private socket is root-only (0600 in a 0700 directory): root reaches
 * tierd there even without a system bus.  Everyone else, and root when the
 * socket is not there, tries org.tierd.Manager1 on the system bus.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tierd-client.h"

static int open_socket(const char *path, sd_bus **ret)
{
	char *addr = NULL;
	sd_bus *b = NULL;
	int r;

	if (asprintf(&addr, "unix:path=%s", path) < 0)
		return -ENOMEM;
	r = sd_bus_new(&b);
	if (r >= 0)
		r = sd_bus_set_address(b, addr);
	if (r >= 0)
		r = sd_bus_start(b);
	free(addr);
	if (r < 0) {
		sd_bus_unref(b);
		return r;
	}
	*ret = b;
	return 0;
}

/* Is org.tierd.Manager1 owned on bus b? */
static int name_has_owner(sd_bus *b)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int has = 0, r;

	r = sd_bus_call_method(b, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "NameHasOwner", &err, &reply, "s",
			       TIERD_BUS_NAME);
	if (r >= 0)
		r = sd_bus_message_read(reply, "b", &has);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&err);
	return r < 0 ? r : has;
}

int tierd_client_open(struct tierd_client *c, const char *socket_path, bool try_system_bus)
{
	sd_bus *b = NULL;
	int r;

	memset(c, 0, sizeof(*c));
	if (!socket_path)
		socket_path = TIERD_BUS_SOCKET;
	r = open_socket(socket_path, &b);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		c->bus = b;
		snprintf(c->where, sizeof(c->where), "%s", socket_path);
		return 0;
	}
	c->socket_error = r;
	snprintf(c->where, sizeof(c->where), "%s", socket_path);
	if (!try_system_bus)
		return -ESRCH;
	r = sd_bus_open_system(&b);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		r = name_has_owner(b);
		if (r == 0)
			r = -ESRCH;
	}
	if (r < 0) {
		sd_bus_unref(b);
		c->system_error = r;
		return -ESRCH;
	}
	c->bus = b;
	snprintf(c->where, sizeof(c->where), "the system bus");
	return 0;
}

void tierd_client_close(struct tierd_client *c)
{
	c->bus = sd_bus_flush_close_unref(c->bus);
}

int tierd_client_call(struct tierd_client *c, const char *method, sd_bus_error *error,
		      sd_bus_message **ret_reply, const char *types, ...)
{
	sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(c->bus, &m, TIERD_BUS_NAME, TIERD_BUS_PATH,
					   TIERD_BUS_IFACE, method);
	if (r < 0)
		return r;
	if (types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(c->bus, m, 0, error, ret_reply);
	sd_bus_message_unref(m);
	if (r < 0 && (sd_bus_error_has_name(error, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
		      sd_bus_error_has_name(error, SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
		      r == -ECONNRESET || r == -ENOTCONN))
		return -ESRCH;
	return r;
}

/* The rows of one ListCgroups reply; 1 if it was the last page (*next). */
static int list_page_read(sd_bus_message *reply, bool paged, uint64_t *next,
			  tierd_list_row_t row, void *userdata)
{
	const char *path, *cls, *rule;
	uint64_t target;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "(ssst)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(reply, "(ssst)", &path, &cls, &rule, &target)) > 0)
		r = row(userdata, path, cls, rule, target);
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	if (r >= 0 && paged)
		r = sd_bus_message_read(reply, "t", next);
	if (r < 0)
		return r;
	return !paged || *next == 0;
}

/*
 * An unprivileged caller gets BUS_RL_BURST calls at once, then
 * BUS_RL_PER_SEC per second (tierd-bus.c): a listing of more pages than
 * the burst waits for the next token, a tenth of a second, rather than
 * failing half-way (for at most LIST_RATE_TRIES waits a page); the first
 * page is refused as any call is.
 */
#define LIST_RATE_WAIT_NSEC (100 * 1000 * 1000L)
#define LIST_RATE_TRIES 100

int tierd_client_list_cgroups(struct tierd_client *c, bool all, sd_bus_error *error,
			      tierd_list_row_t row, void *userdata)
{
	uint64_t offset = 0, next = 0;
	unsigned limited = 0;
	bool paged = true;
	int r;

	for (;;) {
		sd_bus_message *reply = NULL;

		if (paged)
			r = tierd_client_call(c, "ListCgroups", error, &reply, "bt", (int)all, offset);
		else
			r = tierd_client_call(c, "ListCgroups", error, &reply, "b", (int)all);
		if (r < 0 && offset > 0 && limited < LIST_RATE_TRIES &&
		    sd_bus_error_has_name(error, SD_BUS_ERROR_LIMITS_EXCEEDED)) {
			struct timespec ts = { .tv_nsec = LIST_RATE_WAIT_NSEC };

			sd_bus_error_free(error);
			limited++;
			nanosleep(&ts, NULL);
			continue;
		}
		if (r < 0 && paged && offset == 0 &&
		    (sd_bus_error_has_name(error, SD_BUS_ERROR_INVALID_ARGS) ||
		     sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_METHOD))) {
			/* a tierd from before the pages */
			sd_bus_error_free(error);
			paged = false;
			continue;
		}
		if (r < 0)
			return r;
		r = list_page_read(reply, paged, &next, row, userdata);
		sd_bus_message_unref(reply);
		if (r != 0)
			return r < 0 ? r : 0;
		if (next <= offset)
			return -EBADMSG; /* no progress: a page never ends the listing */
		offset = next;
		limited = 0;	/* the bound is per page */
	}
}

const char *tierd_client_why(const struct tierd_client *c, char *buf, size_t size)
{
	int o = 0;

	buf[0] = '\0';
	if (c->socket_error == -ENOENT || c->socket_error == -ECONNREFUSED)
		o = snprintf(buf, size, "nobody listens on %s", c->where);
	else if (c->socket_error)
		o = snprintf(buf, size, "%s: %s", c->where, strerror(-c->socket_error));
	if (c->system_error && o >= 0 && (size_t)o < size)
		snprintf(buf + o, size - (size_t)o, "%s%s", o ? "; " : "",
			 c->system_error == -ESRCH ? "no tierd on the system bus" :
			 c->system_error == -ENOENT ? "no system bus" :
						       strerror(-c->system_error));
	return buf;
}
