// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loading the policy, and watching its files: the main file (through its
 * directory, so editors that write a new file and rename it are seen) and
 * the drop-in directory.  A burst of edits is coalesced into one reload.
 */
#include <errno.h>
#include <libgen.h> /* POSIX dirname() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "tierd-config.h"
#include "tierd-log.h"
#include "tierd-manager.h"

#define RELOAD_DELAY_USEC (200 * 1000)

int config_load(struct manager *m, struct tier_policy **ret_policy)
{
	struct tier_errors *errors = tier_errors_new();
	struct tier_policy *p = NULL;
	size_t n;
	int r;

	if (!errors)
		return log_oom();
	r = tier_policy_load(m->args.config, m->args.dropin_dir, errors, &p);
	n = tier_errors_count(errors);
	if (r < 0) {
		/* Every FILE:LINE error, not just the first. */
		for (size_t i = 0; i < n; i++)
			log_error("%s", tier_errors_get(errors, i));
		if (n == 0)
			log_error_errno(r, "%s: cannot load the policy: %m", m->args.config);
		free(m->last_reload_error);
		m->last_reload_error = NULL;
		if (n > 0)
			m->last_reload_error = strdup(tier_errors_get(errors, 0));
		else if (asprintf(&m->last_reload_error, "%s: %s", m->args.config, strerror(-r)) < 0)
			m->last_reload_error = NULL;
		m->last_reload_n_errors = n ?: 1;
		tier_errors_free(errors);
		return r;
	}
	tier_errors_free(errors);
	*ret_policy = p;
	return 0;
}

static int on_reload_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r = manager_reload(m, "configuration changed");

	if (r == -ENOMEM)
		return sd_event_exit(m->event, r);
	return 0;
}

static void schedule_reload(struct manager *m, const char *what)
{
	int r;

	log_debug("%s changed, reloading in %u ms", what, RELOAD_DELAY_USEC / 1000);
	if (m->cfg.defer) {
		r = sd_event_source_set_time_relative(m->cfg.defer, RELOAD_DELAY_USEC);
		if (r >= 0)
			r = sd_event_source_set_enabled(m->cfg.defer, SD_EVENT_ONESHOT);
	} else {
		r = sd_event_add_time_relative(m->event, &m->cfg.defer, CLOCK_MONOTONIC,
					       RELOAD_DELAY_USEC, 0, on_reload_timer, m);
		if (r >= 0)
			(void)sd_event_source_set_description(m->cfg.defer, "config-reload-delay");
	}
	if (r < 0)
		log_warning_errno(r, "Failed to schedule a reload: %m, ignoring");
}

static bool is_conf(const char *name)
{
	size_t l = strlen(name);

	return l > 5 && strcmp(name + l - 5, ".conf") == 0 && name[0] != '.';
}

static int add_dropin_watch(struct manager *m)
{
	if (!m->cfg.dropin || m->cfg.wd_dropin >= 0)
		return 0;
	m->cfg.wd_dropin = inotify_add_watch(m->cfg.fd, m->cfg.dropin,
					     IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
						     IN_DELETE | IN_DELETE_SELF | IN_ONLYDIR);
	if (m->cfg.wd_dropin < 0 && errno != ENOENT && errno != ENOTDIR)
		log_warning_errno(errno, "Cannot watch %s: %m, ignoring", m->cfg.dropin);
	return 0;
}

static int on_config_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	const char *dropin_base = m->cfg.dropin ? strrchr(m->cfg.dropin, '/') : NULL;
	bool changed = false;

	dropin_base = dropin_base ? dropin_base + 1 : m->cfg.dropin;
	for (;;) {
		char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t len = read(fd, buf, sizeof(buf));

		if (len < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				changed = true;
				continue;
			}
			if (ev->wd == m->cfg.wd_dropin && (ev->mask & (IN_IGNORED | IN_DELETE_SELF))) {
				m->cfg.wd_dropin = -1;
				changed = true;
				continue;
			}
			if (ev->len == 0)
				continue;
			if (ev->wd == m->cfg.wd_dir) {
				if (strcmp(ev->name, m->cfg.base) == 0 && !(ev->mask & IN_ISDIR))
					changed = true;
				else if (dropin_base && strcmp(ev->name, dropin_base) == 0) {
					changed = true;
					add_dropin_watch(m);
				}
			} else if (ev->wd == m->cfg.wd_dropin && is_conf(ev->name)) {
				changed = true;
			}
		}
	}
	if (changed)
		schedule_reload(m, m->args.config);
	return 0;
}

/* The drop-in directory of the policy in force (NULL: none), malloc'ed in *ret. */
static int dropin_dir(struct manager *m, char **ret)
{
	const struct tier_daemon_config *d = tier_policy_daemon(m->policy);
	char *s = NULL;

	if (m->args.dropin_dir && m->args.dropin_dir[0])
		s = strdup(m->args.dropin_dir);
	else if (m->args.dropin_dir)
		s = NULL; /* "": none */
	else if (d->include)
		s = strdup(d->include);
	else if (asprintf(&s, "%s.d", m->args.config) < 0)
		s = NULL;
	if (!s && !(m->args.dropin_dir && !m->args.dropin_dir[0]))
		return -ENOMEM;
	*ret = s;
	return 0;
}

/*
 * After a reload: the same inotify instance goes on, so an edit saved while
 * the reload ran is still in its queue and reloads again; only a drop-in
 * directory that the new policy moved ([daemon] include=) is watched anew.
 */
int config_watcher_update(struct manager *m)
{
	_cleanup_free_ char *dropin = NULL;
	int r;

	if (m->cfg.fd < 0)
		return config_watcher_start(m);
	r = dropin_dir(m, &dropin);
	if (r < 0)
		return log_oom();
	if ((!dropin && !m->cfg.dropin) ||
	    (dropin && m->cfg.dropin && strcmp(dropin, m->cfg.dropin) == 0))
		return 0;
	if (m->cfg.wd_dropin >= 0)
		(void)inotify_rm_watch(m->cfg.fd, m->cfg.wd_dropin);
	m->cfg.wd_dropin = -1;
	free(m->cfg.dropin);
	m->cfg.dropin = TAKE_PTR(dropin);
	log_debug("Drop-in directory now %s", m->cfg.dropin ?: "(none)");
	return add_dropin_watch(m);
}

int config_watcher_start(struct manager *m)
{
	_cleanup_free_ char *copy = strdup(m->args.config);
	int r;

	if (!copy)
		return log_oom();
	m->cfg.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->cfg.fd < 0) {
		log_warning_errno(errno, "Cannot watch the configuration files: %m; reload with "
					 "SIGHUP, ignoring");
		return 0;
	}
	m->cfg.dir = strdup(dirname(copy));
	m->cfg.base = strdup(strrchr(m->args.config, '/') ? strrchr(m->args.config, '/') + 1
							   : m->args.config);
	if (!m->cfg.dir || !m->cfg.base || dropin_dir(m, &m->cfg.dropin) < 0)
		return log_oom();
	m->cfg.wd_dir = inotify_add_watch(m->cfg.fd, m->cfg.dir,
					  IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
						  IN_CREATE | IN_ONLYDIR);
	if (m->cfg.wd_dir < 0)
		log_warning_errno(errno, "Cannot watch %s: %m; reload with SIGHUP, ignoring",
				  m->cfg.dir);
	add_dropin_watch(m);
	r = sd_event_add_io(m->event, &m->cfg.source, m->cfg.fd, EPOLLIN, on_config_inotify, m);
	if (r < 0)
		return log_warning_errno(r, "Cannot watch the configuration files: %m, ignoring"), 0;
	(void)sd_event_source_set_description(m->cfg.source, "config-inotify");
	return 0;
}

void config_watcher_stop(struct manager *m)
{
	m->cfg.source = sd_event_source_disable_unref(m->cfg.source);
	if (m->cfg.fd >= 0)
		close(m->cfg.fd);
	m->cfg.fd = -1;
	m->cfg.wd_dir = m->cfg.wd_dropin = -1;
	free(m->cfg.dir);
	free(m->cfg.base);
	free(m->cfg.dropin);
	m->cfg.dir = m->cfg.base = m->cfg.dropin = NULL;
}
