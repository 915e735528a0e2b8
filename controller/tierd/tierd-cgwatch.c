// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cgroup watcher: one inotify watch per cgroup directory.
 *
 * A new directory gets a watch first and is then rescanned, so children
 * created before the watch existed are not missed; then the policy is applied
 * to the new subtree right away.  Watches of removed (or moved away)
 * directories are pruned.  When fs.inotify.max_user_watches is reached we
 * say so once and rely on the periodic reconcile for the unwatched part of
 * the tree; an event queue overflow triggers a full reconcile.
 *
 * Only what a rule can reach is watched (struct watch_scope): a directory
 * gets a watch if a cgroup created below it could match a rule of the
 * policy (a cgroup= pattern whose leading components match its path and
 * that is longer, or has '**'; below systemd's slices, or below a unit a
 * unit= pattern matches; everywhere with exe= or annotation= rules, which
 * any cgroup can match).  A user's subtree of 20,000 cgroups that no rule
 * names costs no watch at all, where it cost two per cgroup.  A reload
 * that widens the scope adds the watches in its full pass (which walks the
 * whole tree anyway); one that narrows it drops them.
 *
 * The cgroup.events of a cgroup is watched where exe= or annotation= rules
 * exist, and of every managed cgroup (the fair share).  When a cgroup becomes
 * populated (processes were moved into it, which the proc connector does not
 * report) it is evaluated again: exe= rules may match now, and a managed
 * cgroup joins the fair share of the fast tier.  When it becomes empty it
 * leaves the fair share at once (its target, and any knob fairness held, is
 * released) instead of at the next periodic rebalance.  Those watches live
 * in the same tables under "<cgroup>/cgroup.events" (no cgroup can have that
 * name: the file is there) and are pruned with their cgroup.
 *
 * Cgroup names and depth in delegated subtrees are anyone's, so nothing here
 * resolves a path string twice: a subtree is opened once below the cgroup
 * root without following symlinks (tier_cgroup_open()), walked down by
 * directory fds (openat(O_NOFOLLOW)), and each watch is added on the fd,
 * through /proc/self/fd/N (systemd's inotify_add_watch_fd()), so neither a
 * symlink swapped in nor a path longer than PATH_MAX matters.  A subtree
 * deeper than CG_WATCH_MAX_DEPTH levels (as deep as tier_cgroup_enumerate()
 * goes) is not watched; that is said in one rate-limited line and the rest
 * of the tree is watched as usual.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tierd-cgwatch.h"
#include "tierd-fair.h"
#include "tierd-log.h"
#include "tierd-manager.h"

/* No IN_DONT_FOLLOW: the watch is added through the /proc/self/fd/N magic
 * link, which must be followed to the directory the fd is; the fd itself was
 * opened without following anything. */
#define CG_WATCH_MASK                                                                      \
	(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | \
	 IN_ONLYDIR)

#define CG_WATCH_MAX_DEPTH 256

#define EVENTS_SUFFIX "/cgroup.events"

/* The watches (tierd-table.h: named by parent and name, not whole paths). */
static struct watch *find_wd(struct cgroup_watcher *w, int wd)
{
	return watch_table_find_wd(&w->watches, wd);
}

static struct watch *find_path(struct cgroup_watcher *w, const char *path)
{
	return watch_table_find(&w->watches, path);
}

static void watch_free(struct cgroup_watcher *w, struct watch *x)
{
	watch_table_remove(&w->watches, x);
}

/* inotify_add_watch() on the file fd refers to: the watch descriptor or -errno. */
static int add_watch_fd(int inotify_fd, int fd, uint32_t mask)
{
	char p[64];
	int wd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(inotify_fd, p, mask);
	return wd < 0 ? -errno : wd;
}

/* Components of a cgroup path: "/" is 0, "/a/b" is 2. */
static unsigned path_depth(const char *cgroup)
{
	unsigned n = 0;

	for (const char *p = cgroup; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		n++;
		p = strchrnul(p, '/');
	}
	return n;
}

static char *child_path(const char *parent, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, name) < 0)
		return NULL;
	return p;
}

static void log_limit_once(struct manager *m, const char *cgroup)
{
	_cleanup_fclose_ FILE *f = NULL;
	unsigned long long max = 0;
	char buf[64];

	if (m->cg.limit_hit)
		return;
	m->cg.limit_hit = true;
	manager_reconcile_timer_update(m);
	f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");
	if (f && fgets(buf, sizeof(buf), f))
		max = strtoull(buf, NULL, 10);
	log_warning("fs.inotify.max_user_watches (%llu) reached with %zu cgroup watches at %s; "
		    "new cgroups below unwatched directories are picked up by the periodic "
		    "reconcile every %llu s instead. Raise the sysctl to fix this.",
		    max, m->cg.watches.n, cgroup,
		    (unsigned long long)(m->reconcile_usec / 1000000));
}

static char *events_key(const char *cgroup)
{
	char *p;

	if (asprintf(&p, "%s%s", strcmp(cgroup, "/") == 0 ? "" : cgroup, EVENTS_SUFFIX) < 0)
		return NULL;
	return p;
}

/* Watch <cgroup>/cgroup.events (not on the root, which has none); dfd is
 * the cgroup's directory. */
static int watch_events(struct manager *m, const char *cgroup, int dfd)
{
	_cleanup_free_ char *key = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int wd;

	if (strcmp(cgroup, "/") == 0)
		return 0;
	key = events_key(cgroup);
	if (!key)
		return log_oom();
	if (find_path(&m->cg, key))
		return 0;
	/* O_PATH: nothing is read, and a FIFO in a fake tree does not block. */
	fd = openat(dfd, "cgroup.events", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0; /* vanished, or no such file (a test tree): not needed */
	wd = add_watch_fd(m->cg.fd, fd, IN_MODIFY);
	if (wd < 0) {
		if (wd == -ENOSPC) {
			log_limit_once(m, key);
			return -ENOSPC;
		}
		return wd == -ENOMEM ? log_oom() : 0;
	}
	if (watch_table_insert(&m->cg.watches, wd, key, true) < 0)
		return log_oom();
	return 0;
}

/* ------------------------------------------------------------------------
 * The scope: what the policy in force can reach
 * ------------------------------------------------------------------------ */

static void scope_clear(struct watch_scope *sc)
{
	for (size_t i = 0; i < sc->n_cg; i++)
		tier_strv_free(sc->cg[i].comps);
	free(sc->cg);
	tier_strv_free(sc->units);
	*sc = (struct watch_scope){};
}

/* "/a/b*" -> { "a", "b*" }: the components of a cgroup= pattern. */
static int pattern_split(const char *pattern, struct watch_pattern *ret)
{
	char **comps = NULL;
	size_t n = 0;

	for (const char *p = pattern; *p;) {
		const char *e;
		char **nv;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		nv = realloc(comps, (n + 2) * sizeof(*nv));
		if (!nv)
			goto oom;
		comps = nv;
		comps[n] = strndup(p, (size_t)(e - p));
		comps[n + 1] = NULL;
		if (!comps[n])
			goto oom;
		n++;
		p = e;
	}
	ret->comps = comps;
	ret->n = n;
	return 0;
oom:
	tier_strv_free(comps);
	return -ENOMEM;
}

int cgroup_watcher_set_scope(struct manager *m)
{
	struct watch_scope sc = {};
	int r = 0;

	for (size_t i = 0; r >= 0 && m->policy && i < tier_policy_rule_count(m->policy); i++) {
		const struct tier_rule *rule = tier_policy_rule(m->policy, i);

		for (size_t j = 0; r >= 0 && j < tier_rule_matcher_count(rule); j++) {
			const struct tier_matcher *mt = tier_rule_matcher(rule, j);
			struct watch_pattern *nv;

			switch (tier_matcher_kind(mt)) {
			case TIER_MATCH_CGROUP:
				if (tier_matcher_pattern(mt)[0] != '/') {
					sc.everything = true; /* cannot bound it */
					break;
				}
				nv = realloc(sc.cg, (sc.n_cg + 1) * sizeof(*nv));
				if (!nv) {
					r = -ENOMEM;
					break;
				}
				sc.cg = nv;
				r = pattern_split(tier_matcher_pattern(mt), &sc.cg[sc.n_cg]);
				if (r >= 0)
					sc.n_cg++;
				break;
			case TIER_MATCH_UNIT: {
				char **nu = realloc(sc.units, (sc.n_units + 2) * sizeof(*nu));

				if (!nu) {
					r = -ENOMEM;
					break;
				}
				sc.units = nu;
				sc.units[sc.n_units] = strdup(tier_matcher_pattern(mt));
				sc.units[sc.n_units + 1] = NULL;
				if (!sc.units[sc.n_units])
					r = -ENOMEM;
				else
					sc.n_units++;
				break;
			}
			default:
				/* exe=, annotation=: any cgroup, at any depth. */
				sc.everything = true;
				break;
			}
		}
	}
	if (r < 0) {
		scope_clear(&sc);
		return log_oom();
	}
	scope_clear(&m->cg.scope);
	m->cg.scope = sc;
	return 0;
}

static bool is_slice(const char *comp)
{
	size_t l = strlen(comp);

	return l > 6 && strcmp(comp + l - 6, ".slice") == 0;
}

/*
 * Could a cgroup strictly below cgroup match a rule?  Conservative: a
 * pattern component is matched with fnmatch() (the policy's globs within
 * one component: '*', '?', '[...]', '\'), a '**' matches anything from
 * there on.  O(patterns x depth), no I/O.
 */
bool cgroup_watcher_wanted(struct manager *m, const char *cgroup)
{
	const struct watch_scope *sc = &m->cg.scope;
	_cleanup_free_ char *copy = NULL;
	_cleanup_free_ char **comps = NULL;
	size_t k = 0;
	const char *unit = NULL;

	if (sc->everything)
		return true;
	copy = strdup(cgroup);
	comps = calloc(strlen(cgroup) / 2 + 2, sizeof(*comps));
	if (!copy || !comps)
		return true; /* out of memory: watch rather than miss */
	for (char *p = copy; *p;) {
		while (*p == '/')
			*p++ = '\0';
		if (!*p)
			break;
		comps[k++] = p;
		p = strchrnul(p, '/');
	}
	if (k == 0)
		return true; /* the root */
	for (size_t i = 0; i < sc->n_cg; i++) {
		const struct watch_pattern *pt = &sc->cg[i];
		bool ok = true;

		for (size_t c = 0; ok && c < k; c++) {
			if (c >= pt->n) {
				ok = false;
				break;
			}
			if (strstr(pt->comps[c], "**"))
				return true;
			ok = fnmatch(pt->comps[c], comps[c], 0) == 0;
		}
		if (ok && pt->n > k)
			return true;
	}
	if (sc->n_units == 0)
		return false;
	/* The unit of a cgroup is the first component below systemd's slices
	 * (tier_cgroup_path_unit()); below the slices anything can be one. */
	for (size_t c = 0; c < k && !unit; c++)
		if (!is_slice(comps[c]))
			unit = comps[c];
	if (!unit)
		return true;
	for (size_t i = 0; i < sc->n_units; i++)
		if (fnmatch(sc->units[i], unit[0] == '_' ? unit + 1 : unit, 0) == 0)
			return true;
	return false;
}

static bool events_wanted(struct manager *m, const char *cgroup)
{
	return m->cg.scope.everything || managed_table_get(&m->managed, cgroup);
}

int cgroup_watcher_add_events(struct manager *m, const char *cgroup, int dfd)
{
	_cleanup_free_ char *key = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (m->cg.fd < 0 || m->cg.limit_hit || strcmp(cgroup, "/") == 0)
		return 0;
	key = events_key(cgroup);
	if (!key)
		return log_oom();
	if (find_path(&m->cg, key))
		return 0;
	if (dfd < 0) {
		r = tier_cgroup_open(m->ctx, cgroup, &fd);
		if (r == -ENOMEM)
			return log_oom();
		if (r < 0)
			return 0; /* vanished */
		dfd = fd;
	}
	r = watch_events(m, cgroup, dfd);
	return r == -ENOMEM ? r : 0;
}

/* Watch one directory, dfd.  0 on success or if it vanished, -ENOSPC at the limit. */
static int watch_one(struct manager *m, const char *cgroup, int dfd)
{
	int wd;

	wd = add_watch_fd(m->cg.fd, dfd, CG_WATCH_MASK);
	if (wd < 0) {
		if (wd == -ENOSPC) {
			log_limit_once(m, cgroup);
			return -ENOSPC;
		}
		if (wd == -ENOMEM)
			return log_oom();
		log_ratelimit_errno(LOG_WARNING, wd, "%s: cannot watch it: %m, ignoring", cgroup);
		return 0;
	}
	if (watch_table_insert(&m->cg.watches, wd, cgroup, false) < 0)
		return log_oom();
	if (!events_wanted(m, cgroup))
		return 0;
	return watch_events(m, cgroup, dfd);
}


/*
 * Watch cgroup (its directory is dfd, depth components below the root) and
 * everything below it, going down by fds; the names are read first, so one
 * fd per level is open.
 */
static int add_tree_rec(struct manager *m, const char *cgroup, int dfd, unsigned depth,
			bool notify)
{
	struct stat st;
	char **names = NULL;
	size_t n = 0;
	int r;

	/* No cgroup below one that no rule can reach can match either: it is
	 * neither watched nor walked. */
	bool wanted = cgroup_watcher_wanted(m, cgroup);

	if (wanted) {
		r = watch_one(m, cgroup, dfd);
		if (r == -ENOMEM)
			return r;
	}
	if (notify) {
		/* Watched first, then applied: nothing below is missed, and the
		 * directory fd serves both. */
		r = manager_cgroup_added(m, cgroup, dfd, "new cgroup");
		if (r == -ENOMEM)
			return r;
	}
	if (!wanted)
		return 0;
	/* A directory's link count is 2 + its subdirectories on cgroupfs
	 * (kernfs) and tmpfs: a leaf, most new cgroups, needs no listing.
	 * Counted after the watch is added, so none is missed. */
	if (fstat(dfd, &st) >= 0 && S_ISDIR(st.st_mode) && st.st_nlink == 2)
		return 0;
	r = tier_dir_list_subdirs(dfd, &names, &n);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return 0; /* vanished or unreadable: the watch (if any) reports the rest */
	if (n > 0 && depth >= CG_WATCH_MAX_DEPTH) {
		log_ratelimit(LOG_WARNING, "%s: subtree deeper than %u levels, not watched (and "
			      "left out of every pass), ignoring", cgroup, CG_WATCH_MAX_DEPTH);
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *c = NULL;
		_cleanup_close_ int cfd = -1;

		c = child_path(cgroup, names[i]);
		if (!c) {
			r = log_oom();
			break;
		}
		cfd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
				log_ratelimit_errno(LOG_WARNING, errno, "%s: cannot open it: %m, "
						    "ignoring", c);
			continue;
		}
		r = add_tree_rec(m, c, cfd, depth + 1, notify);
		if (r == -ENOMEM)
			break;
		r = 0;
	}
	tier_strv_free(names);
	return r == -ENOMEM ? r : 0;
}

int cgroup_watcher_add_tree(struct manager *m, const char *cgroup, bool notify)
{
	_cleanup_close_ int fd = -1;
	unsigned depth;
	int r;

	if (m->cg.fd < 0)
		return 0;
	depth = path_depth(cgroup);
	if (depth > CG_WATCH_MAX_DEPTH) {
		log_ratelimit(LOG_WARNING, "%s: deeper than %u levels, not watched, ignoring", cgroup,
			      CG_WATCH_MAX_DEPTH);
		return 0;
	}
	r = tier_cgroup_open(m->ctx, cgroup, &fd);
	if (r == -ENOMEM)
		return log_oom();
	if (r == -ENOENT || r == -ENOTDIR)
		return log_debug("%s: vanished before it could be watched, ignoring", cgroup), 0;
	if (r < 0)
		return log_ratelimit_errno(LOG_WARNING, r, "%s: cannot open it: %m, not watched, "
					   "ignoring", cgroup), 0;
	return add_tree_rec(m, cgroup, fd, depth, notify);
}

/*
 * Is cgroup's directory watched?  Its cgroup.events watch is added with it
 * (or could not be: no such file in a test tree, or the watch limit), so
 * the directory alone answers; asking for both made every full pass re-add
 * the watches of a tree without cgroup.events files.
 */
bool cgroup_watcher_has(struct manager *m, const char *cgroup)
{
	return find_path(&m->cg, cgroup) != NULL;
}

/* Drop the watch of cgroup (and its cgroup.events watch). */
static void prune_one(struct manager *m, const char *cgroup)
{
	_cleanup_free_ char *key = events_key(cgroup);
	struct watch *x;

	x = find_path(&m->cg, cgroup);
	if (x) {
		(void)inotify_rm_watch(m->cg.fd, x->wd); /* EINVAL if already gone */
		watch_free(&m->cg, x);
	}
	x = key ? find_path(&m->cg, key) : NULL;
	if (x) {
		(void)inotify_rm_watch(m->cg.fd, x->wd);
		watch_free(&m->cg, x);
	}
}

/*
 * Drop the watches of cgroup, and with subtree of everything below it.  A
 * removed cgroup (rmdir) has no children, so that is O(1); a directory
 * moved away (IN_MOVED_FROM) takes its subtree along, and only that walks
 * the table.  The manager forgets them.
 */
static void prune(struct manager *m, const char *cgroup, bool subtree)
{
	struct cgroup_watcher *w = &m->cg;
	size_t len = strlen(cgroup);
	struct watch *x;

	log_debug("%s: removed%s", cgroup, subtree ? " (moved away)" : "");
	manager_cgroup_removed(m, cgroup, subtree);
	if (!subtree) {
		prune_one(m, cgroup);
		return;
	}
	WATCH_FOREACH_SAFE(x, &w->watches) {
		_cleanup_free_ char *p = watch_path(x);

		if (!p) {
			(void)log_oom();
			continue;
		}
		if (strncmp(p, cgroup, len) != 0 || (p[len] != '\0' && p[len] != '/'))
			continue;
		log_debug("%s: removed, dropping its watch", p);
		(void)inotify_rm_watch(w->fd, x->wd); /* EINVAL if already gone */
		watch_free(w, x);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_ancestor_in(char **sorted, size_t n, const char *path)
{
	_cleanup_free_ char *p = strdup(path);
	char *slash;

	if (!p)
		return false;
	while ((slash = strrchr(p, '/')) && slash != p) {
		*slash = '\0';
		if (bsearch(&p, sorted, n, sizeof(char *), cmp_str))
			return true;
	}
	return false;
}

static int on_cgroup_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	char **created = NULL, **moved = NULL;
	size_t n_created = 0, alloc = 0, n_moved = 0, alloc_moved = 0;
	bool overflow = false;
	int r = 0;

	for (;;) {
		char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t len = read(fd, buf, sizeof(buf));

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				log_warning_errno(errno, "Failed to read cgroup inotify events: %m, ignoring");
			break;
		}
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			struct watch *x;
			char *c;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflow = true;
				continue;
			}
			x = find_wd(&m->cg, ev->wd);
			if (ev->mask & IN_IGNORED) {
				if (x)
					watch_free(&m->cg, x);
				continue;
			}
			if (!x)
				continue;
			if (x->events) {
				uint64_t populated = 0;

				if (!(ev->mask & IN_MODIFY))
					continue;
				c = watch_path(x);
				if (c)
					c[strlen(c) - strlen(EVENTS_SUFFIX)] = '\0';
				if (!c) {
					r = log_oom();
					goto out;
				}
				if (tier_cgroup_read_stat(m->ctx, c, "cgroup.events", "populated",
							  &populated) < 0) {
					free(c);
					continue;
				}
				if (populated == 0) {
					/* Cleanup: an empty cgroup holds no fair share. */
					if (m->fair && fair_state_find(m->fair, c)) {
						log_debug("%s: empty now (cgroup.events), leaving the "
							  "fair share", c);
						manager_schedule_rebalance(m);
					}
					free(c);
					continue;
				}
				log_debug("%s: populated, evaluating it again", c);
				if (n_moved == alloc_moved) {
					size_t na = alloc_moved ? alloc_moved * 2 : 16;
					char **nv = realloc(moved, na * sizeof(*nv));

					if (!nv) {
						free(c);
						r = log_oom();
						goto out;
					}
					moved = nv;
					alloc_moved = na;
				}
				moved[n_moved++] = c;
				continue;
			}
			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
				/* IN_IGNORED follows for DELETE_SELF; a moved directory is
				 * found again under its new name by IN_MOVED_TO. */
				continue;
			}
			if (!(ev->mask & IN_ISDIR) || ev->len == 0)
				continue;
			{
				_cleanup_free_ char *xp = watch_path(x);

				c = xp ? child_path(xp, ev->name) : NULL;
			}
			if (!c) {
				r = log_oom();
				goto out;
			}
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				prune(m, c, ev->mask & IN_MOVED_FROM);
				free(c);
				continue;
			}
			/* IN_CREATE or IN_MOVED_TO of a directory */
			log_debug("%s: created", c);
			if (n_created == alloc) {
				size_t na = alloc ? alloc * 2 : 16;
				char **nv = realloc(created, na * sizeof(*nv));

				if (!nv) {
					free(c);
					r = log_oom();
					goto out;
				}
				created = nv;
				alloc = na;
			}
			created[n_created++] = c;
		}
	}

	if (n_created) {
		/* Sorted, an ancestor comes before its descendants.  Watch (and
		 * rescan) each topmost new directory and apply the policy to its
		 * subtree right away; the rescan covers the new directories below
		 * it, so those are skipped. */
		qsort(created, n_created, sizeof(char *), cmp_str);
		for (size_t i = 0; i < n_created; i++) {
			if (i > 0 && strcmp(created[i], created[i - 1]) == 0)
				continue;
			if (has_ancestor_in(created, n_created, created[i]))
				continue;
			r = cgroup_watcher_add_tree(m, created[i], true);
			if (r == -ENOMEM)
				goto out;
		}
		manager_update_status(m);
	}
	for (size_t i = 0; i < n_moved; i++) {
		if (i > 0 && strcmp(moved[i], moved[i - 1]) == 0)
			continue;
		r = manager_cgroup_populated(m, moved[i], "processes moved in");
		if (r == -ENOMEM)
			goto out;
	}
	if (overflow) {
		log_notice("cgroup inotify queue overflowed, rescanning the whole tree");
		manager_schedule_reconcile(m, "inotify queue overflow");
	}
	r = 0;
out:
	for (size_t i = 0; i < n_created; i++)
		free(created[i]);
	free(created);
	for (size_t i = 0; i < n_moved; i++)
		free(moved[i]);
	free(moved);
	if (r == -ENOMEM)
		return sd_event_exit(sd_event_source_get_event(s), r);
	return 0;
}

void cgroup_watcher_prune_unwanted(struct manager *m)
{
	struct cgroup_watcher *w = &m->cg;
	size_t before = w->watches.n;
	struct watch *x;

	WATCH_FOREACH_SAFE(x, &w->watches) {
		_cleanup_free_ char *p = watch_path(x);
		bool keep;

		if (!p)
			keep = true;
		else if (x->events) {
			p[strlen(p) - strlen(EVENTS_SUFFIX)] = '\0';
			keep = events_wanted(m, p);
		} else {
			keep = strcmp(p, "/") == 0 || cgroup_watcher_wanted(m, p);
		}
		if (keep)
			continue;
		(void)inotify_rm_watch(w->fd, x->wd);
		watch_free(w, x);
	}
	if (w->watches.n != before)
		log_debug("Dropped %zu watches the policy no longer needs", before - w->watches.n);
}

int cgroup_watcher_start(struct manager *m)
{
	int r;

	m->cg.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->cg.fd < 0)
		return log_error_errno(errno, "Failed to create the cgroup inotify instance: %m");
	r = sd_event_add_io(m->event, &m->cg.source, m->cg.fd, EPOLLIN, on_cgroup_inotify, m);
	if (r < 0)
		return log_error_errno(r, "Failed to add the cgroup inotify source: %m");
	(void)sd_event_source_set_description(m->cg.source, "cgroup-inotify");
	/* New cgroups first: before the reconcile timer and config reloads. */
	(void)sd_event_source_set_priority(m->cg.source, SD_EVENT_PRIORITY_NORMAL - 10);
	r = cgroup_watcher_set_scope(m);
	if (r < 0)
		return r;
	r = cgroup_watcher_add_tree(m, "/", false);
	if (r < 0)
		return r;
	log_debug("Watching %zu cgroup directories below %s (what the policy's rules can reach)",
		  m->cg.watches.n - m->cg.watches.n_events, tier_ctx_get_cgroup_root(m->ctx));
	return 0;
}

void cgroup_watcher_stop(struct manager *m)
{
	struct cgroup_watcher *w = &m->cg;

	w->source = sd_event_source_disable_unref(w->source);
	watch_table_clear(&w->watches);
	scope_clear(&w->scope);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
