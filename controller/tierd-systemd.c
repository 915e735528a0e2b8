// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * systemd over D-Bus.  systemd rewrites the attributes it manages (MemoryLow=,
 * MemoryHigh=, ...) on every daemon-reload, so for the cgroup of a unit we
 * change them through SetUnitProperties(runtime=true) and never behind its
 * back.  The unit of a cgroup is derived from the path (like systemd's
 * cg_path_get_unit()) and confirmed with the unit's ControlGroup property.
 * As root we talk to systemd's private socket first, which works without a
 * system bus, like systemctl does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "tierd-log.h"
#include "tierd-manager.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

static int bus_open_private(sd_bus **ret)
{
	sd_bus *b = NULL;
	int r;

	r = sd_bus_new(&b);
	if (r < 0)
		return r;
	r = sd_bus_set_address(b, "unix:path=/run/systemd/private");
	if (r >= 0)
		r = sd_bus_start(b);
	if (r < 0) {
		sd_bus_unref(b);
		return r;
	}
	*ret = b;
	return 0;
}

int systemd_connect(struct manager *m)
{
	const char *root = tier_ctx_get_cgroup_root(m->ctx);
	sd_bus *b = NULL;
	int r;

	/* Only the real tree has systemd units; a test tree has none. */
	if (strcmp(root, "/sys/fs/cgroup") != 0 || sd_booted() <= 0) {
		log_debug("Not talking to systemd (%s)",
			  sd_booted() > 0 ? "not the host's cgroup tree" : "not booted with systemd");
		return 0;
	}
	r = geteuid() == 0 ? bus_open_private(&b) : -EPERM;
	if (r < 0)
		r = sd_bus_open_system(&b);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0) {
		log_notice_errno(r, "Cannot connect to systemd: %m; writing memory.low/high of unit "
				    "cgroups directly, ignoring");
		return 0;
	}
	r = sd_bus_attach_event(b, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0) {
		sd_bus_unref(b);
		log_warning_errno(r, "Cannot attach the systemd bus to the event loop: %m, ignoring");
		return 0;
	}
	m->systemd_bus = b;
	log_debug("Connected to systemd");
	return 0;
}

void systemd_disconnect(struct manager *m)
{
	m->systemd_bus = sd_bus_flush_close_unref(m->systemd_bus);
}

static const char *unit_interface(const char *unit)
{
	static const struct {
		const char *suffix, *iface;
	} map[] = {
		{ ".service", "org.freedesktop.systemd1.Service" },
		{ ".scope", "org.freedesktop.systemd1.Scope" },
		{ ".slice", "org.freedesktop.systemd1.Slice" },
		{ ".socket", "org.freedesktop.systemd1.Socket" },
		{ ".mount", "org.freedesktop.systemd1.Mount" },
		{ ".swap", "org.freedesktop.systemd1.Swap" },
	};
	size_t l = strlen(unit);

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		size_t sl = strlen(map[i].suffix);

		if (l > sl && strcmp(unit + l - sl, map[i].suffix) == 0)
			return map[i].iface;
	}
	return NULL;
}

int systemd_cgroup_unit(struct manager *m, const char *cgroup, char **ret_unit)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *unit = NULL, *cg = NULL;
	sd_bus_message *reply = NULL;
	const char *last, *obj, *iface;
	int r;

	*ret_unit = NULL;
	if (!m->systemd_bus)
		return 0;
	r = tier_cgroup_path_unit(cgroup, &unit);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	/* Only the unit's own cgroup; a delegated subtree below belongs to the
	 * service, and raw writes are right there. */
	last = strrchr(cgroup, '/');
	if (!last || strcmp(last + 1, unit) != 0)
		return 0;
	iface = unit_interface(unit);
	if (!iface)
		return 0;
	r = sd_bus_call_method(m->systemd_bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", &error,
			       &reply, "s", unit);
	if (r < 0) {
		log_debug("%s: unit %s not loaded (%s), writing directly", cgroup, unit,
			  error.message ? error.message : strerror(-r));
		sd_bus_error_free(&error);
		return 0;
	}
	r = sd_bus_message_read(reply, "o", &obj);
	if (r >= 0)
		r = sd_bus_get_property_string(m->systemd_bus, SD_DEST, obj, iface, "ControlGroup",
					       &error, &cg);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	if (r < 0 || !cg || strcmp(cg, cgroup) != 0)
		return 0;
	*ret_unit = TAKE_PTR(unit);
	return 1;
}

int systemd_set_unit_memory(struct manager *m, const char *unit, const char *property,
			    uint64_t value)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	if (!m->systemd_bus)
		return -ENOTCONN;
	r = sd_bus_call_method(m->systemd_bus, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties",
			       &error, NULL, "sba(sv)", unit, 1, 1, property, "t", value);
	if (r < 0)
		log_debug("SetUnitProperties(%s, %s=%llu): %s", unit, property,
			  (unsigned long long)value, error.message ? error.message : strerror(-r));
	sd_bus_error_free(&error);
	return r;
}
