// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A stand-in for systemd's private bus socket, for the host test of tierd's
 * calls to systemd (tests/daemon/host-systemd.sh):
 *
 *   tierd-fake-systemd SOCKET CGROUP_ROOT LOG
 *
 * serves, peer to peer on SOCKET (as /run/systemd/private), what tierd
 * asks: the ControlGroup property of each unit object ("/system.slice/UNIT"),
 * org.freedesktop.systemd1.Manager SetUnitProperties(sba(sv)) at
 * /org/freedesktop/systemd1 (and GetUnit(s), which older tierds called).
 * SetUnitProperties writes MemoryLow=/MemoryHigh= to the unit's memory.low /
 * memory.high below CGROUP_ROOT, as systemd does.  Every call is a line in
 * LOG.  Units behave by their name:
 *   late-*   no ControlGroup (GetUnit: NoSuchUnit) twice, then found: a
 *            transient unit whose cgroup appeared before systemd loaded it;
 *   gone-*   never a ControlGroup (GetUnit fails): not a unit systemd knows;
 *   any unit with a file in $FAKE_SYSTEMD_MOVED: that file's ControlGroup;
 *   slow-*   SetUnitProperties answers only when the process gets SIGUSR1
 *            (the test decides when systemd "gets to it", not a clock);
 *   other    answered at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>

#include "macro.h"

#define UNIT_PREFIX "/org/freedesktop/systemd1/unit"

static const char *cg_root;
static FILE *log_file;
static sd_event *event;

static struct late {
	char unit[256];
	unsigned calls;
} lates[64];

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
	fputc('\n', log_file);
	fflush(log_file);
}

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int method_get_unit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *path = NULL;
	const char *unit;
	int r;

	r = sd_bus_message_read(m, "s", &unit);
	if (r < 0)
		return r;
	if (prefix(unit, "gone-")) {
		say("GetUnit %s: NoSuchUnit", unit);
		return sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit",
					 "Unit %s not loaded.", unit);
	}
	if (prefix(unit, "late-")) {
		struct late *l = NULL;

		for (size_t i = 0; i < 64 && !l; i++)
			if (!lates[i].unit[0] || strcmp(lates[i].unit, unit) == 0)
				l = &lates[i];
		if (l && !l->unit[0])
			snprintf(l->unit, sizeof(l->unit), "%s", unit);
		if (l && l->calls++ < 2) {
			say("GetUnit %s: NoSuchUnit (call %u)", unit, l->calls);
			return sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit",
						 "Unit %s not loaded.", unit);
		}
	}
	r = sd_bus_path_encode(UNIT_PREFIX, unit, &path);
	if (r < 0)
		return r;
	say("GetUnit %s: %s", unit, path);
	return sd_bus_reply_method_return(m, "o", path);
}

static int write_knob(const char *unit, const char *file, uint64_t v)
{
	char path[4096], val[32];
	int fd;

	snprintf(path, sizeof(path), "%s/system.slice/%s/%s", cg_root, unit, file);
	if (v == UINT64_MAX)
		snprintf(val, sizeof(val), "max\n");
	else
		snprintf(val, sizeof(val), "%llu\n", (unsigned long long)v);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0) {
		close(fd);
		return -errno;
	}
	close(fd);
	return 0;
}

/* The calls of slow-* units, held until SIGUSR1. */
static sd_bus_message *held[64];
static size_t n_held;

static int on_release(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	for (size_t i = 0; i < n_held; i++) {
		say("SetUnitProperties: answering now (late)");
		(void)sd_bus_reply_method_return(held[i], "");
		held[i] = sd_bus_message_unref(held[i]);
	}
	n_held = 0;
	return 0;
}

static int method_set_unit_properties(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *unit, *name;
	int runtime, r;

	r = sd_bus_message_read(m, "sb", &unit, &runtime);
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(m, 'a', "(sv)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
		uint64_t v;

		r = sd_bus_message_read(m, "s", &name);
		if (r >= 0)
			r = sd_bus_message_read(m, "v", "t", &v);
		if (r < 0)
			return r;
		if (strcmp(name, "MemoryLow") != 0 && strcmp(name, "MemoryHigh") != 0)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "Cannot set property %s", name);
		say("SetUnitProperties %s %s=%llu runtime=%d", unit, name, (unsigned long long)v,
		    runtime);
		r = write_knob(unit, strcmp(name, "MemoryLow") == 0 ? "memory.low" : "memory.high", v);
		if (r < 0)
			return sd_bus_error_set_errnof(error, -r, "Cannot write %s of %s", name, unit);
		r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	if (prefix(unit, "slow-")) {
		if (n_held == ARRAY_SIZE(held))
			return -ENOBUFS;
		held[n_held++] = sd_bus_message_ref(m);
		return 1; /* the answer comes on SIGUSR1 */
	}
	return sd_bus_reply_method_return(m, "");
}

/* UNIT's ControlGroup: "" for a unit systemd does not have (gone-*, and
 * late-* the first two times), the content of $FAKE_SYSTEMD_MOVED/UNIT if
 * that file exists (a unit whose cgroup is elsewhere now), otherwise
 * /system.slice/UNIT. */
static int property_control_group(sd_bus *bus, const char *path, const char *interface,
				  const char *property, sd_bus_message *reply, void *userdata,
				  sd_bus_error *error)
{
	_cleanup_free_ char *unit = NULL, *cg = NULL;
	const char *moved = getenv("FAKE_SYSTEMD_MOVED");
	char buf[4096];
	int r;

	r = sd_bus_path_decode(path, UNIT_PREFIX, &unit);
	if (r <= 0)
		return r < 0 ? r : -ENOENT;
	if (prefix(unit, "gone-")) {
		say("Get %s ControlGroup: (none)", unit);
		return sd_bus_message_append(reply, "s", "");
	}
	if (prefix(unit, "late-")) {
		struct late *l = NULL;

		for (size_t i = 0; i < 64 && !l; i++)
			if (!lates[i].unit[0] || strcmp(lates[i].unit, unit) == 0)
				l = &lates[i];
		if (l && !l->unit[0])
			snprintf(l->unit, sizeof(l->unit), "%s", unit);
		if (l && l->calls++ < 2) {
			say("Get %s ControlGroup: (none, call %u)", unit, l->calls);
			return sd_bus_message_append(reply, "s", "");
		}
	}
	if (moved) {
		char f[4096];
		FILE *mf;

		snprintf(f, sizeof(f), "%s/%s", moved, unit);
		mf = fopen(f, "re");
		if (mf) {
			if (fgets(buf, sizeof(buf), mf)) {
				buf[strcspn(buf, "\n")] = '\0';
				cg = strdup(buf);
			}
			fclose(mf);
		}
	}
	if (!cg && asprintf(&cg, "/system.slice/%s", unit) < 0)
		return -ENOMEM;
	if (!cg)
		return -ENOMEM;
	say("Get %s ControlGroup: %s", unit, cg);
	return sd_bus_message_append(reply, "s", cg);
}

static int find_unit(sd_bus *bus, const char *path, const char *interface, void *userdata,
		     void **found, sd_bus_error *error)
{
	*found = NULL;
	return prefix(path, UNIT_PREFIX "/");
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("GetUnit", "s", "o", method_get_unit, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("SetUnitProperties", "sba(sv)", "", method_set_unit_properties,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

static const sd_bus_vtable unit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("ControlGroup", "s", property_control_group, 0, 0),
	SD_BUS_VTABLE_END
};

static int on_connection(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	static const char *const ifaces[] = { "org.freedesktop.systemd1.Service",
					      "org.freedesktop.systemd1.Scope",
					      "org.freedesktop.systemd1.Slice" };
	sd_bus *b = NULL;
	sd_id128_t id;
	int nfd, r;

	nfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (nfd < 0)
		return 0;
	r = sd_bus_new(&b);
	if (r >= 0)
		r = sd_bus_set_fd(b, nfd, nfd);
	if (r >= 0)
		r = sd_id128_randomize(&id);
	if (r >= 0)
		r = sd_bus_set_server(b, 1, id);
	if (r >= 0)
		r = sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/systemd1",
					     "org.freedesktop.systemd1.Manager", manager_vtable, NULL);
	for (size_t i = 0; r >= 0 && i < 3; i++)
		r = sd_bus_add_fallback_vtable(b, NULL, UNIT_PREFIX, ifaces[i], unit_vtable,
					       find_unit, NULL);
	if (r >= 0)
		r = sd_bus_start(b);
	if (r >= 0)
		r = sd_bus_attach_event(b, event, 0);
	if (r < 0) {
		say("connection setup failed: %s", strerror(-r));
		sd_bus_flush_close_unref(b);
		return 0;
	}
	say("connection");
	return 0; /* the bus lives until the process ends */
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	sd_event_source *s = NULL, *sig = NULL;
	sigset_t mask;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: %s SOCKET CGROUP_ROOT LOG\n", argv[0]);
		return 2;
	}
	cg_root = argv[2];
	log_file = fopen(argv[3], "ae");
	if (!log_file || strlen(argv[1]) >= sizeof(sa.sun_path))
		return 1;
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		perror("listen");
		return 1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return 1;
	if (sd_event_default(&event) < 0 ||
	    sd_event_add_io(event, &s, fd, EPOLLIN, on_connection, NULL) < 0 ||
	    sd_event_add_signal(event, &sig, SIGUSR1, on_release, NULL) < 0)
		return 1;
	say("ready");
	return sd_event_loop(event) < 0 ? 1 : 0;
}
