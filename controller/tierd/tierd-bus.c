// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bus API for tierctl: org.tierd.Manager1 at /org/tierd/Manager1, served
 * with sd-bus
 *  - on a private root-only Unix socket (/run/tierd/bus, mode 0600 in a 0700
 *    directory), peer to peer like systemd's /run/systemd/private; works
 *    with and without a system bus;
 *  - on the system bus as org.tierd.Manager1 where one runs and the tree is
 *    the host's (etc/dbus-1/system.d/org.tierd.Manager1.conf lets root own
 *    the name, anyone call the read-only methods and only root Reload).
 *
 *   Status() -> s                   the status text (as in STATUS=)
 *   Reload() -> b ok, s error       reload now; on failure the first error
 *                                   (needs CAP_SYS_ADMIN, i.e. root)
 *   Explain(s cgroup) -> s          which rule matches and what it gets
 *   ExplainCgroup(s cgroup) -> a(ss)  the same as ordered key/value pairs
 *                                   (what tierctl explain shows)
 *   DryRun(t offset) -> a(ssssss) changes, t next
 *                                   the changes a reconcile would make:
 *                                   cgroup, class, rule, knob, old, new; a
 *                                   page as ListCgroups', from the cursor
 *                                   offset (0 first) to next (0: the last)
 *   Backend() -> s s b s            the tiering backend: requested ([daemon]
 *                                   backend), used (knob, damon, none), whether
 *                                   the request is served, and why (tierd(8))
 *   ListCgroups(b all, t cursor) -> a(ssst) rows, t next
 *                                   managed (all: every) cgroup in tree order,
 *                                   a page from the cursor (0 first; next:
 *                                   the next page's, 0 after the last):
 *                                   cgroup, class, rule ("" if unmanaged),
 *                                   fast-tier target in bytes of the last
 *                                   rebalance (UINT64_MAX: not shared)
 *
 *   busctl --address=unix:path=/run/tierd/bus call org.tierd.Manager1 \
 *       /org/tierd/Manager1 org.tierd.Manager1 Status
 *
 * Who gets what (design.md, "Trust"): a caller whose effective UID is root
 * (or tierd's own) gets answers computed now, from the tree: Explain,
 * ExplainCgroup, DryRun and ListCgroups observe it (and read every
 * /proc/PID/exe where the policy has exe= rules).  Anyone else (the system
 * bus lets every user call the read-only methods) gets cheap answers from
 * what tierd's last full pass saw, without the values an exe= or annotation
 * matcher matched (exe paths, trusted.* xattrs), and at most
 * BUS_RL_BURST calls at once, BUS_RL_PER_SEC per second afterwards, per UID
 * (and BUS_RL_ALL_* for all of them together): over that, the call fails
 * with org.freedesktop.DBus.Error.LimitsExceeded.  Cgroup arguments are
 * normalised (tier_cgroup_path_normalize()) once, here: "//a/" is "/a".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

#include "escape.h"
#include "tierd-bus.h"
#include "tierd-fair.h"
#include "tierd-log.h"
#include "tierd-manager.h"
#include "tierd-rundir.h"

#define BUS_PATH "/org/tierd/Manager1"
#define BUS_IFACE "org.tierd.Manager1"
#define MAX_CONNECTIONS 64

/* Unprivileged callers: per UID, and all of them together. */
#define BUS_RL_BURST 20
#define BUS_RL_PER_SEC 10
#define BUS_RL_ALL_BURST 100
#define BUS_RL_ALL_PER_SEC 50

struct bus_conn {
	sd_bus *bus;
};

static struct bus_conn conns[MAX_CONNECTIONS];

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/* Refill b (rate per second, burst at most) to now and take one token. */
static bool bucket_take(struct bus_bucket *b, unsigned burst, unsigned rate, uint64_t now)
{
	uint64_t max = (uint64_t)burst * 1000;

	if (!b->used) {
		b->used = true;
		b->milli_tokens = max;
	} else if (now > b->last_usec) {
		uint64_t add = (now - b->last_usec) * rate / 1000;

		b->milli_tokens = add >= max - b->milli_tokens ? max : b->milli_tokens + add;
	}
	b->last_usec = now;
	if (b->milli_tokens < 1000)
		return false;
	b->milli_tokens -= 1000;
	return true;
}

bool bus_ratelimit_take(struct bus_ratelimit *rl, uid_t uid, uint64_t now)
{
	struct bus_bucket *b = NULL, *oldest = NULL;

	for (size_t i = 0; i < BUS_RATELIMIT_SLOTS && !b; i++) {
		struct bus_bucket *x = &rl->slot[i];

		if (x->used && x->uid == uid)
			b = x;
		else if (!oldest || !x->used || (oldest->used && x->last_usec < oldest->last_usec))
			oldest = x;
	}
	if (!b) {
		/* A new UID takes a free slot or the one idle the longest. */
		b = oldest;
		*b = (struct bus_bucket){ .uid = uid };
	}
	if (!bucket_take(b, BUS_RL_BURST, BUS_RL_PER_SEC, now))
		return false;
	if (!bucket_take(&rl->all, BUS_RL_ALL_BURST, BUS_RL_ALL_PER_SEC, now)) {
		b->milli_tokens += 1000; /* not this caller's fault */
		return false;
	}
	return true;
}

/*
 * Who calls: *ret_privileged if the effective UID is root or ours (on the
 * private socket it is root: the socket is 0600).  An unprivileged caller
 * over its rate is refused here (an error reply, > 0 is never returned).
 */
static int bus_caller(struct manager *m, sd_bus_message *msg, sd_bus_error *error,
		      bool *ret_privileged)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *c = NULL;
	uid_t uid = (uid_t)-1;
	int r;

	r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &c);
	if (r == -ENOMEM)
		return r;
	if (r >= 0 && sd_bus_creds_get_euid(c, &uid) >= 0 && (uid == 0 || uid == geteuid())) {
		*ret_privileged = true;
		return 0;
	}
	*ret_privileged = false;
	if (!bus_ratelimit_take(&m->api.rl, uid, now_usec())) {
		log_ratelimit(LOG_NOTICE, "Bus caller UID %d over its rate (%s), refusing calls for now",
			      (int)uid, sd_bus_message_get_member(msg));
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "Too many calls; try again in a second");
	}
	return 0;
}

/*
 * D-Bus strings must be valid UTF-8; cgroup names and file contents need
 * not be.  Such a string goes out with each invalid byte as U+FFFD
 * (utf8_sanitize()), so that one cgroup's name cannot make every listing of
 * the tree fail.  The copies live in the pool until the reply is sent.
 */
struct str_pool {
	char **v;
	size_t n, alloc;
};

static const char *bus_str(struct str_pool *p, const char *s)
{
	char *c;

	if (!s || utf8_is_valid(s))
		return s;
	c = utf8_sanitize(s);
	if (!c || ARRAY_PUSH(p->v, p->n, p->alloc, c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

static void str_pool_free(struct str_pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	*p = (struct str_pool){};
}

/* Append "(ssssss)" of a change, each string made valid for the bus. */
static int append_change(sd_bus_message *reply, struct str_pool *pool, const char *cgroup,
			 const char *class, const char *rule, const char *knob, const char *old,
			 const char *new)
{
	const char *c = bus_str(pool, cgroup), *o = bus_str(pool, old), *n = bus_str(pool, new);

	if (!c || !o || !n)
		return -ENOMEM;
	return sd_bus_message_append(reply, "(ssssss)", c, class, rule, knob, o, n);
}

/* The cached evaluation an unprivileged caller is answered from. */
static int cached_tree(struct manager *m, sd_bus_error *error)
{
	if (!m->cache_plan)
		return sd_bus_error_setf(error, "org.tierd.NotReady",
					 "No full pass of the tree yet; try again later");
	return 0;
}

/* May the value the matcher matched be shown?  Exe paths (/proc/PID/exe of
 * processes the caller may not see) and trusted.* xattrs are root's. */
static bool matched_visible(const struct tier_plan_entry *e, bool privileged)
{
	const struct tier_matcher *mt = tier_plan_entry_matcher(e);

	return privileged || !mt ||
	       (tier_matcher_kind(mt) != TIER_MATCH_EXE && tier_matcher_kind(mt) != TIER_MATCH_ANNOTATION);
}

static int method_status(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_free_ char *s = NULL;
	bool privileged;
	int r;

	r = bus_caller(m, msg, error, &privileged);
	if (r < 0)
		return r;
	s = manager_status_text(m);
	if (!s)
		return -ENOMEM;
	if (utf8_make_valid(&s) < 0)
		return -ENOMEM;
	return sd_bus_reply_method_return(msg, "s", s);
}

/* The backend chosen at start-up: cheap, the same for every caller. */
static int method_backend(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_free_ char *why = NULL;
	bool privileged;
	int r;

	r = bus_caller(m, msg, error, &privileged);
	if (r < 0)
		return r;
	why = utf8_sanitize(m->backend.reason ?: "");
	if (!why)
		return -ENOMEM;
	return sd_bus_reply_method_return(msg, "ssbs",
					  tier_backend_to_string(m->backend.requested) ?: "",
					  tier_backend_to_string(m->backend.backend) ?: "",
					  (int)m->backend.satisfied, why);
}

/*
 * The cgroup, sysfs and procfs roots tierd reads: tierctl reads the knobs
 * and residency of the cgroups tierd lists from the same tree, not from
 * one it finds itself (tierd(8), BUS API).  A root that is no valid UTF-8
 * cannot go on the bus as it is, and a sanitised one would name another
 * directory: an error instead.
 */
static int method_roots(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *cg = tier_ctx_get_cgroup_root(m->ctx), *sys = tier_ctx_get_sysfs_root(m->ctx),
		   *proc = tier_ctx_get_procfs_root(m->ctx);
	bool privileged;
	int r;

	r = bus_caller(m, msg, error, &privileged);
	if (r < 0)
		return r;
	if (!utf8_is_valid(cg) || !utf8_is_valid(sys) || !utf8_is_valid(proc))
		return sd_bus_error_setf(error, "org.tierd.NotUTF8",
					 "A root of tierd's is not valid UTF-8");
	return sd_bus_reply_method_return(msg, "sss", cg, sys, proc);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_free_ char *e = NULL;
	int r = manager_reload(m, "bus request");

	if (r < 0)
		return r;
	if (m->last_reload_failed && m->last_reload_error) {
		e = utf8_sanitize(m->last_reload_error);
		if (!e)
			return -ENOMEM;
	}
	return sd_bus_reply_method_return(msg, "bs", !m->last_reload_failed, e ?: "");
}

/* The knob as observed, or "(not supported)". */
static const char *current_mode_str(const struct tier_plan_entry *e)
{
	uint64_t v;

	if (tier_plan_entry_get_current(e, TIER_ATTR_NUMA_BALANCING, &v) < 0)
		return "(not supported)";
	return tier_mode_to_string((enum tier_mode)v);
}

/*
 * An unmanaged cgroup's knob, read now: a full pass reads only the values
 * an entry sets (tier_plan_observe()), so the plan has none for it.  One
 * read below the cgroup root, never through a symlink.
 */
static const char *live_mode_str(struct manager *m, const char *cgroup)
{
	enum tier_mode mode;

	if (tier_cgroup_get_mode(m->ctx, cgroup, &mode) < 0)
		return "(not supported)";
	return tier_mode_to_string(mode);
}

/* The mode the entry sets, or NULL. */
static const char *desired_mode_str(const struct tier_plan_entry *e)
{
	uint64_t v;

	if (tier_plan_entry_get_desired(e, TIER_ATTR_NUMA_BALANCING, &v) < 0)
		return NULL;
	return tier_mode_to_string((enum tier_mode)v);
}

static uint64_t desired_or(const struct tier_plan_entry *e, enum tier_attr attr, uint64_t dflt)
{
	uint64_t v;

	return tier_plan_entry_get_desired(e, attr, &v) == 0 ? v : dflt;
}

/*
 * The loaded policy evaluated over subtree (NULL: the whole tree), as the
 * reconcile sees it.  A missing subtree is org.tierd.NoSuchCgroup.
 */
static int evaluate_tree(struct manager *m, const char *subtree, sd_bus_error *error,
			 struct tier_plan **ret_plan)
{
	_cleanup_(tier_plan_freep) struct tier_plan *plan = NULL;
	int r;

	/* one walk, as the full pass: no observed state of the tree */
	r = tier_plan_new(m->policy, m->topo ? tier_topology_fast_capacity(m->topo) : 0, &plan);
	if (r >= 0)
		r = tier_plan_observe(plan, m->ctx, subtree,
				      (m->policy_has_exe ? TIER_OBSERVE_EXE : 0) |
					      (m->policy_has_annotation ? TIER_OBSERVE_ANNOTATIONS : 0),
				      NULL, NULL);
	if (r == -ENOENT && subtree)
		return sd_bus_error_setf(error, "org.tierd.NoSuchCgroup", "No cgroup %s", subtree);
	if (r < 0)
		return r;
	*ret_plan = TAKE_PTR(plan);
	return 0;
}

/*
 * The tree a method answers from: for a privileged caller evaluated now
 * (below subtree, NULL: all), which *ret_plan owns; for anyone else the
 * plan of the last full pass, not owned (*ret_owned false).
 */
static int answer_tree(struct manager *m, bool privileged, const char *subtree,
		       sd_bus_error *error, const struct tier_plan **ret_plan, bool *ret_owned)
{
	struct tier_plan *plan = NULL;
	int r;

	if (!privileged) {
		r = cached_tree(m, error);
		if (r < 0)
			return r;
		*ret_plan = m->cache_plan;
		*ret_owned = false;
		return 0;
	}
	r = evaluate_tree(m, subtree, error, &plan);
	if (r < 0)
		return r;
	*ret_plan = plan;
	*ret_owned = true;
	return 0;
}

static void answer_done(const struct tier_plan *plan, bool owned)
{
	if (owned)
		tier_plan_free((struct tier_plan *)plan);
}

/*
 * The end of a method that replies with an array: unless r says it failed,
 * close the array and send the reply; then free the reply and what
 * answer_tree() gave.
 */
static int reply_array_done(sd_bus_message *reply, int r, const struct tier_plan *plan,
			    bool owned)
{
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	answer_done(plan, owned);
	return r;
}

/*
 * The cgroup argument of Explain and ExplainCgroup, normalised once here
 * (the one normaliser, tier_cgroup_path_normalize()): "//a/b/" is "/a/b";
 * a relative path or a "." or ".." component is InvalidArgs.
 */
static int read_cgroup_arg(sd_bus_message *msg, sd_bus_error *error, char **ret)
{
	const char *arg;
	char esc[256];
	int r = sd_bus_message_read(msg, "s", &arg);

	if (r < 0)
		return r;
	r = tier_cgroup_path_normalize(arg, ret);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Not an absolute cgroup path without . or .. components: %s",
					 text_escape_buf(arg, esc, sizeof(esc)));
	return 0;
}

/* "No cgroup X", from the tree now or from the last full pass. */
static int no_such_cgroup(sd_bus_error *error, const char *cgroup, bool privileged)
{
	char esc[256];

	return sd_bus_error_setf(error, "org.tierd.NoSuchCgroup", "No cgroup %s%s",
				 text_escape_buf(cgroup, esc, sizeof(esc)),
				 privileged ? "" : " (as of tierd's last full pass)");
}

static int method_explain(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct tier_plan *plan = NULL;
	const struct tier_plan_entry *e;
	_cleanup_free_ char *text = NULL, *cgroup = NULL;
	bool privileged, owned = false;
	int r;

	r = bus_caller(m, msg, error, &privileged);
	if (r >= 0)
		r = read_cgroup_arg(msg, error, &cgroup);
	if (r >= 0)
		r = answer_tree(m, privileged, cgroup, error, &plan, &owned);
	if (r < 0)
		return r;
	e = tier_plan_find(plan, cgroup);
	if (!e && !privileged)
		r = no_such_cgroup(error, cgroup, privileged);
	else if (!e)
		r = asprintf(&text, "%s: not found", cgroup);
	else if (!tier_plan_entry_rule(e))
		r = asprintf(&text, "%s: unmanaged (no rule matches); memory.numa_balancing %s",
			     cgroup, live_mode_str(m, cgroup));
	else {
		const struct tier_rule *rule = tier_plan_entry_rule(e);
		const struct tier_matcher *mt = tier_plan_entry_matcher(e);
		const char *matched = tier_plan_entry_matched_value(e);

		r = asprintf(&text,
			     "%s: class %s, rule %s (%s:%u): %s matcher '%s' matched %s%s%s; "
			     "memory.numa_balancing %s -> %s",
			     cgroup, tier_class_name(tier_plan_entry_class(e)), tier_rule_name(rule),
			     tier_rule_file(rule), tier_rule_line(rule),
			     mt ? tier_matcher_kind_to_string(tier_matcher_kind(mt)) : "?",
			     mt ? tier_matcher_pattern(mt) : "?",
			     matched_visible(e, privileged) ? "'" : "",
			     !matched_visible(e, privileged) ? "(shown to root only)" :
			     matched ? matched : cgroup,
			     matched_visible(e, privileged) ? "'" : "",
			     current_mode_str(e),
			     desired_mode_str(e) ?: "(unchanged)");
	}
	if (r < 0 || !text) {
		if (r >= 0 || !sd_bus_error_is_set(error)) {
			text = NULL;
			r = -ENOMEM;
		}
		goto out;
	}
	r = utf8_make_valid(&text);
	if (r >= 0)
		r = sd_bus_reply_method_return(msg, "s", text);
out:
	answer_done(plan, owned);
	return r;
}

static int append_pair(sd_bus_message *reply, const char *key, const char *value)
{
	_cleanup_free_ char *c = NULL;

	if (!value)
		return 0;
	if (!utf8_is_valid(value)) {
		c = utf8_sanitize(value);
		if (!c)
			return -ENOMEM;
		value = c;
	}
	return sd_bus_message_append(reply, "(ss)", key, value);
}

static int append_pair_u64(sd_bus_message *reply, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return append_pair(reply, key, buf);
}

static int append_amount(sd_bus_message *reply, const char *key, const struct tier_amount *a,
			 uint64_t bytes)
{
	char buf[TIER_AMOUNT_FORMAT_MAX], k[64];
	int r;

	if (!tier_amount_format(a, buf, sizeof(buf)))
		return 0;
	r = append_pair(reply, key, buf);
	snprintf(k, sizeof(k), "%s_bytes", key);
	if (r >= 0)
		r = bytes == UINT64_MAX ? append_pair(reply, k, "max") : append_pair_u64(reply, k, bytes);
	return r;
}

/*
 * The hot set's split between the tiers (hot_fast_bytes, hot_slow_bytes):
 * from the reading tierd saved in its run directory (hot-sets, what
 * tierctl's explain reads without tierd), only where that reading is the
 * one the round used (its total is hot), so the two add up to hot_bytes.
 * Nothing when the file has no split for the cgroup (an older reading).
 */
static int append_hot_tiers(sd_bus_message *reply, struct manager *m, const char *cgroup,
			    uint64_t hot)
{
	_cleanup_(tier_share_freep) struct tier_share *share = NULL;
	uint64_t total, fast, slow;
	int r;

	if (hot == UINT64_MAX || m->run.fd < 0 || tier_share_new(&share) < 0 ||
	    tier_share_hot_load(share, m->run.fd, TIER_HOT_SETS_NAME, NULL) < 0 ||
	    tier_share_hot_loaded(share, cgroup, &total) < 0 || total != hot ||
	    tier_share_hot_loaded_tiers(share, cgroup, &fast, &slow) < 0)
		return 0;
	r = append_pair_u64(reply, "hot_fast_bytes", fast);
	if (r >= 0)
		r = append_pair_u64(reply, "hot_slow_bytes", slow);
	return r;
}

/*
 * The fair share as tierd's last round decided it (absent for a cgroup that
 * does not share: not top-most managed, or not populated): its target and
 * the demand it was computed from (what the class asks for, what was used:
 * resident while no hot-set measurement is there), and the class's
 * promotion budget.
 */
static int append_share(sd_bus_message *reply, struct manager *m, const char *cgroup,
			const struct tier_class *c)
{
	const struct fair_decision *d = m->fair ? fair_state_find(m->fair, cgroup) : NULL;
	const char *wanted = tier_demand_to_string(tier_class_demand(m->policy, c));
	uint64_t budget = tier_class_promote_budget(c);
	int r = 0;

	if (budget)
		r = append_pair_u64(reply, "promote_budget_bytes", budget);
	if (r >= 0 && wanted)
		r = append_pair(reply, "demand_wanted", wanted);
	if (r >= 0)
		r = append_pair(reply, "page_cache", tier_class_page_cache(c) ? "on" : "off");
	if (!d || r < 0)
		return r;
	r = append_pair_u64(reply, "target_bytes", d->target);
	if (r >= 0)
		r = append_pair(reply, "demand",
				tier_demand_to_string(d->demand_kind) ?: "resident");
	if (r >= 0 && d->demand != UINT64_MAX)
		r = append_pair_u64(reply, "demand_bytes", d->demand);
	if (r >= 0)
		r = append_pair_u64(reply, "resident_bytes", d->resident);
	if (r >= 0 && d->hot != UINT64_MAX)
		r = append_pair_u64(reply, "hot_bytes", d->hot);
	if (r >= 0)
		r = append_hot_tiers(reply, m, cgroup, d->hot);
	return r;
}

/*
 * ExplainCgroup: what the loaded policy says about one cgroup, as ordered
 * (key, value) pairs; keys without a value are left out.  The cgroup's
 * current knobs are not included: a client reads those from the tree.
 */
static int method_explain_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct tier_plan *plan = NULL;
	sd_bus_message *reply = NULL;
	const struct tier_plan_entry *e;
	_cleanup_free_ char *cgroup = NULL, *unit = NULL;
	bool privileged, owned = false;
	int r;

	r = bus_caller(m, msg, error, &privileged);
	if (r >= 0)
		r = read_cgroup_arg(msg, error, &cgroup);
	if (r >= 0)
		r = answer_tree(m, privileged, cgroup, error, &plan, &owned);
	if (r < 0)
		return r;
	e = tier_plan_find(plan, cgroup);
	if (!e) {
		r = no_such_cgroup(error, cgroup, privileged);
		goto out;
	}
	/* the unit is a function of the path, as the observe derived it */
	r = tier_cgroup_path_unit(cgroup, &unit);
	if (r < 0 && r != -ENOMEM)
		r = 0;
	if (r < 0)
		goto out;
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ss)");
	if (r >= 0)
		r = append_pair(reply, "cgroup", cgroup);
	if (r >= 0)
		r = append_pair(reply, "unit", unit);
	if (r >= 0)
		r = append_pair(reply, "managed", tier_plan_entry_rule(e) ? "true" : "false");
	if (r >= 0 && tier_plan_entry_rule(e)) {
		const struct tier_class *c = tier_plan_entry_class(e);
		const struct tier_rule *rule = tier_plan_entry_rule(e);
		const struct tier_matcher *mt = tier_plan_entry_matcher(e);

		r = append_pair(reply, "rule", tier_rule_name(rule));
		if (r >= 0)
			r = append_pair(reply, "rule_file", tier_rule_file(rule));
		if (r >= 0)
			r = append_pair_u64(reply, "rule_line", tier_rule_line(rule));
		if (r >= 0 && mt) {
			r = append_pair(reply, "matcher_kind", tier_matcher_kind_to_string(tier_matcher_kind(mt)));
			if (r >= 0)
				r = append_pair(reply, "matcher_pattern", tier_matcher_pattern(mt));
			if (r >= 0)
				r = append_pair(reply, "matcher_file", tier_matcher_file(mt));
			if (r >= 0)
				r = append_pair_u64(reply, "matcher_line", tier_matcher_line(mt));
			if (r >= 0 && matched_visible(e, privileged))
				/* a cgroup matcher matched the path itself */
				r = append_pair(reply, "matched",
						tier_plan_entry_matched_value(e) ?: cgroup);
		}
		if (r >= 0) {
			r = append_pair(reply, "class", tier_class_name(c));
			if (r >= 0)
				r = append_pair(reply, "class_mode", tier_mode_to_string(tier_class_mode(c)));
			if (r >= 0)
				r = append_pair_u64(reply, "weight", tier_class_weight(c));
			if (r >= 0)
				r = append_amount(reply, "toptier_min", tier_class_toptier_min(c),
						  tier_plan_entry_toptier_min(e));
			if (r >= 0)
				r = append_amount(reply, "toptier_max", tier_class_toptier_max(c),
						  tier_plan_entry_toptier_max(e));
			if (r >= 0)
				r = append_amount(reply, "memory_low", tier_class_memory_low(c),
						  desired_or(e, TIER_ATTR_MEMORY_LOW, 0));
			if (r >= 0)
				r = append_amount(reply, "memory_high", tier_class_memory_high(c),
						  desired_or(e, TIER_ATTR_MEMORY_HIGH, UINT64_MAX));
		}
		if (r >= 0 && desired_mode_str(e))
			r = append_pair(reply, "desired_mode", desired_mode_str(e));
		if (r >= 0)
			r = append_share(reply, m, cgroup, c);
	}
out:
	return reply_array_done(reply, r, plan, owned);
}

/*
 * DryRun: what a reconcile would write now, computed the way it writes
 * (tier_apply_entry in dry-run mode, on the entry as fairness filters it,
 * limits rounded to pages), so the two cannot disagree.  That re-reads the
 * knobs of every managed cgroup: root's.  Anyone else is told what the last
 * full pass left undone (in dry-run mode: everything it would have done).
 */
/*
 * A DryRun page: changes until BUS_LIST_PAGE_BYTES of strings (whole
 * cgroups: every change of one cgroup goes in the page that starts it),
 * then the cursor of the next page, 0 after the last.
 */
static size_t change_bytes(const char *cgroup, const char *class, const char *rule,
			   const char *knob, const char *old, const char *new)
{
	return strlen(cgroup) + strlen(class) + strlen(rule) + strlen(knob) + strlen(old) +
	       strlen(new) + 32;
}

static int reply_page_done(sd_bus_message *reply, int r, uint64_t next)
{
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "t", next);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

static int dry_run_cached(struct manager *m, sd_bus_message *msg, uint64_t offset,
			  sd_bus_error *error)
{
	sd_bus_message *reply = NULL;
	struct str_pool pool = {};
	uint64_t next = 0;
	size_t bytes = 0;
	int r;

	if (!m->pending_valid)
		return sd_bus_error_setf(error, "org.tierd.NotReady",
					 "No full pass of the tree yet; try again later");
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ssssss)");
	for (size_t i = offset; r >= 0 && i < m->n_pending; i++) {
		const struct pending_change *p = &m->pending[i];
		_cleanup_free_ char *cgroup = NULL;
		size_t b;

		if (tier_plan_entry_path_dup(p->entry, &cgroup) < 0) {
			r = -ENOMEM;
			break;
		}
		b = change_bytes(cgroup, p->class, p->rule, p->knob, p->old_value, p->new_value);
		/* a cgroup's changes stay on one page */
		if (bytes && bytes + b > BUS_LIST_PAGE_BYTES && p->entry != m->pending[i - 1].entry) {
			next = i;
			break;
		}
		bytes += b;
		r = append_change(reply, &pool, cgroup, p->class, p->rule, p->knob, p->old_value,
				  p->new_value);
	}
	r = reply_page_done(reply, r, next);
	str_pool_free(&pool);
	return r;
}

static int method_dry_run(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct tier_plan *plan = NULL;
	sd_bus_message *reply = NULL;
	struct str_pool pool = {};
	bool privileged, owned = false;
	uint64_t offset, next = 0;
	size_t bytes = 0;
	int r;

	r = bus_caller(m, msg, error, &privileged);
	if (r >= 0)
		r = sd_bus_message_read(msg, "t", &offset);
	if (r < 0)
		return r;
	if (!privileged)
		return dry_run_cached(m, msg, offset, error);
	r = answer_tree(m, privileged, NULL, error, &plan, &owned);
	if (r < 0)
		return r;
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ssssss)");
	for (size_t i = offset; r >= 0 && i < tier_plan_count(plan); i++) {
		const struct tier_plan_entry *e = tier_plan_entry(plan, i), *f;
		_cleanup_(tier_plan_entry_freep) struct tier_plan_entry *tmp = NULL;
		_cleanup_(tier_apply_result_freep) struct tier_apply_result *res = NULL;
		_cleanup_free_ char *path = NULL;
		unsigned flags = TIER_APPLY_DRY_RUN;
		size_t b = 0;
		uint64_t v;

		if (!tier_plan_entry_rule(e))
			continue;
		if (tier_plan_entry_get_current(e, TIER_ATTR_NUMA_BALANCING, &v) == -EOPNOTSUPP)
			flags |= TIER_APPLY_SKIP_NUMA_BALANCING;
		f = fair_filter_entry(m->fair, e, &tmp);
		if (!f) {
			r = -ENOMEM;
			break;
		}
		if (tier_apply_entry(m->ctx, f, flags, NULL, NULL, &res) < 0)
			continue;
		if (tier_plan_entry_path_dup(e, &path) < 0) {
			r = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < tier_apply_result_change_count(res); k++)
			if (tier_apply_result_change_status(res, k) == TIER_APPLY_CHANGED)
				b += change_bytes(
					path, tier_class_name(tier_plan_entry_class(e)),
					tier_rule_name(tier_plan_entry_rule(e)),
					tier_attr_to_string(tier_apply_result_change_attr(res, k)),
					tier_apply_result_change_old_value(res, k),
					tier_apply_result_change_new_value(res, k));
		if (bytes && b && bytes + b > BUS_LIST_PAGE_BYTES) {
			next = i;
			break;
		}
		bytes += b;
		for (size_t k = 0; r >= 0 && k < tier_apply_result_change_count(res); k++)
			if (tier_apply_result_change_status(res, k) == TIER_APPLY_CHANGED)
				r = append_change(
					reply, &pool, path,
					tier_class_name(tier_plan_entry_class(e)), tier_rule_name(tier_plan_entry_rule(e)),
					tier_attr_to_string(tier_apply_result_change_attr(res, k)),
					tier_apply_result_change_old_value(res, k),
					tier_apply_result_change_new_value(res, k));
		while (pool.n)
			free(pool.v[--pool.n]);
	}
	r = reply_page_done(reply, r, next);
	answer_done(plan, owned);
	str_pool_free(&pool);
	return r;
}

static int list_row(sd_bus_message *reply, struct str_pool *pool, struct manager *m,
		    const char *epath, const struct tier_plan_entry *e)
{
	const struct tier_rule *rule = e ? tier_plan_entry_rule(e) : NULL;
	const struct fair_decision *d = m->fair ? fair_state_find(m->fair, epath) : NULL;
	const char *path = bus_str(pool, epath);

	if (!path)
		return -ENOMEM;
	return sd_bus_message_append(reply, "(ssst)", path,
				     rule ? tier_class_name(tier_plan_entry_class(e)) : "",
				     rule ? tier_rule_name(rule) : "", d ? d->target : UINT64_MAX);
}

/* A cgroup managed since the full pass, with its path built for the sort. */
struct fresh_row {
	char *path;
	const struct managed *x;
};

static int cmp_fresh_path(const void *a, const void *b)
{
	return strcmp(((const struct fresh_row *)a)->path, ((const struct fresh_row *)b)->path);
}

/*
 * From the state, for every caller, with no observe of the tree (root's
 * tierctl status rescanned the whole tree on each call): the managed
 * cgroups from the table, which every event keeps current, in the tree
 * order of the last full pass, then those that appeared since, by path;
 * with all, the others as the last full pass saw them.
 *
 * One page at a time, from a cursor (0 first): its rows until the page
 * holds BUS_LIST_PAGE_BYTES of strings or BUS_LIST_PAGE_ROWS rows (at least
 * one row, which a cgroup path bounds at 256 levels of 255 bytes), and the
 * cursor of the next page, 0 after the last.  A tree of long paths once
 * made the one reply larger than sd-bus allows (ENOBUFS for every caller)
 * after building all of it.  The cursor is a position in the last full
 * pass's plan, then (past its end) in the cgroups managed since, so a page
 * costs its own rows: nothing before the cursor is looked at again, and
 * the cgroups managed since are gathered only by the page that reaches
 * them.  Pages are cut from the state of the moment: a cgroup created or
 * removed between two pages can be missed or listed twice.
 */
static size_t list_row_bytes(const char *path, const struct tier_plan_entry *e)
{
	const struct tier_rule *rule = e ? tier_plan_entry_rule(e) : NULL;

	return strlen(path) + 16 +
	       (rule ? strlen(tier_class_name(tier_plan_entry_class(e))) + strlen(tier_rule_name(rule)) : 0);
}

struct list_page {
	size_t rows, bytes;	/* sent */
	bool full;
};

/* One row, if the page has room (else it is full, and the row is the next page's). */
static int list_page_row(struct list_page *pg, sd_bus_message *reply, struct str_pool *pool,
			 struct manager *m, const char *epath, const struct tier_plan_entry *e)
{
	size_t b = list_row_bytes(epath, e), pooled = pool->n;
	int r;

	if (pg->rows && (pg->rows >= BUS_LIST_PAGE_ROWS || pg->bytes + b > BUS_LIST_PAGE_BYTES)) {
		pg->full = true;
		return 0;
	}
	r = list_row(reply, pool, m, epath, e);
	/* the sanitised copy, if one was made, is not needed after the append */
	while (pool->n > pooled)
		free(pool->v[--pool->n]);
	pg->rows++;
	pg->bytes += b;
	return r;
}

static int method_list_cgroups(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct tier_plan *plan = m->cache_plan;
	_cleanup_free_ struct fresh_row *fresh = NULL;
	_cleanup_free_ char *epath = NULL;
	sd_bus_message *reply = NULL;
	struct str_pool pool = {};
	struct list_page pg = {};
	uint64_t cursor, n_plan;
	size_t n_fresh = 0;
	bool privileged;
	int all, r;

	r = bus_caller(m, msg, error, &privileged);
	if (r >= 0)
		r = sd_bus_message_read(msg, "bt", &all, &cursor);
	if (r >= 0)
		r = cached_tree(m, error);
	if (r < 0)
		return r;
	n_plan = tier_plan_count(plan);
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ssst)");
	for (; r >= 0 && cursor < n_plan; cursor++) {
		const struct managed *x;

		/* the entry holds its name, its parent the rest: built per row */
		free(epath);
		epath = NULL;
		if (tier_plan_entry_path_dup(tier_plan_entry(plan, cursor), &epath) < 0) {
			r = -ENOMEM;
			break;
		}
		x = managed_table_get(&m->managed, epath);

		if (x)
			r = list_page_row(&pg, reply, &pool, m, epath, x->entry);
		else if (all)
			r = list_page_row(&pg, reply, &pool, m, epath, NULL);
		if (pg.full)
			break;
	}
	if (r >= 0 && !pg.full && m->managed.n) {
		/* the cgroups managed since the full pass, by path */
		fresh = calloc(m->managed.n, sizeof(*fresh));
		if (!fresh)
			r = -ENOMEM;
		if (r >= 0) {
			struct managed *x;

			MANAGED_FOREACH(x, &m->managed) {
				char *path;

				if (r < 0 || n_fresh >= m->managed.n)
					break;
				if (tier_plan_entry_path_dup(x->entry, &path) < 0) {
					r = -ENOMEM;
					break;
				}
				if (tier_plan_find(plan, path)) {
					free(path);
					continue;
				}
				fresh[n_fresh++] = (struct fresh_row){ path, x };
			}
		}
		if (r >= 0)
			qsort(fresh, n_fresh, sizeof(*fresh), cmp_fresh_path);
		for (; r >= 0 && cursor - n_plan < n_fresh; cursor++) {
			const struct fresh_row *f = &fresh[cursor - n_plan];

			r = list_page_row(&pg, reply, &pool, m, f->path, f->x->entry);
			if (pg.full)
				break;
		}
		for (size_t i = 0; i < n_fresh; i++)
			free(fresh[i].path);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "t", pg.full ? cursor : (uint64_t)0);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	str_pool_free(&pool);
	return r;
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Status", "", "s", method_status, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Reload", "", "bs", method_reload, 0),
	SD_BUS_METHOD("Backend", "", "ssbs", method_backend, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Roots", "", "sss", method_roots, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Explain", "s", "s", method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("ExplainCgroup", "s", "a(ss)", method_explain_cgroup,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("DryRun", "t", "a(ssssss)t", method_dry_run, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("ListCgroups", "bt", "a(ssst)t", method_list_cgroups,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

/* Answer the Hello() of clients that think they talk to a bus daemon (busctl
 * --address=...), so the socket works with them too. */
static int method_hello(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	static unsigned n;
	char name[32];

	snprintf(name, sizeof(name), ":1.%u", ++n);
	return sd_bus_reply_method_return(msg, "s", name);
}

static const sd_bus_vtable dbus_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Hello", "", "s", method_hello, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

static void prune_connections(void)
{
	for (size_t i = 0; i < MAX_CONNECTIONS; i++)
		if (conns[i].bus && !sd_bus_is_open(conns[i].bus))
			conns[i].bus = sd_bus_flush_close_unref(conns[i].bus);
}

static int on_connection(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	sd_bus *b = NULL;
	sd_id128_t id;
	size_t slot;
	int nfd, r;

	nfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (nfd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			log_warning_errno(errno, "Failed to accept a bus connection: %m, ignoring");
		return 0;
	}
	prune_connections();
	for (slot = 0; slot < MAX_CONNECTIONS && conns[slot].bus; slot++)
		;
	if (slot == MAX_CONNECTIONS) {
		close(nfd);
		log_warning("Too many bus connections, refusing one, ignoring");
		return 0;
	}
	r = sd_bus_new(&b);
	if (r >= 0)
		r = sd_bus_set_fd(b, nfd, nfd);
	if (r >= 0)
		r = sd_id128_randomize(&id);
	if (r >= 0)
		r = sd_bus_set_server(b, 1, id);
	if (r >= 0)
		r = sd_bus_add_object_vtable(b, NULL, BUS_PATH, BUS_IFACE, manager_vtable, m);
	if (r >= 0)
		r = sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/DBus", "org.freedesktop.DBus",
					     dbus_vtable, m);
	if (r >= 0)
		r = sd_bus_start(b);
	if (r >= 0)
		r = sd_bus_attach_event(b, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0) {
		if (b)
			sd_bus_flush_close_unref(b); /* closes nfd */
		else
			close(nfd);
		if (r == -ENOMEM)
			return sd_event_exit(m->event, log_oom());
		log_warning_errno(r, "Failed to set up a bus connection: %m, ignoring");
		return 0;
	}
	conns[slot].bus = b;
	log_debug("New bus connection");
	return 0;
}

static int socket_start(struct manager *m)
{
	const char *path = rundir_socket_path(m);
	int fd = -1, r;

	/* In the run directory, checked and locked (tierd-rundir.c). */
	r = rundir_bind_socket(m, &fd);
	if (r == -ENOENT)
		return 0; /* no run directory: said so */
	if (r < 0)
		return r;
	r = sd_event_add_io(m->event, &m->api.listen, fd, EPOLLIN, on_connection, m);
	if (r < 0) {
		close(fd);
		rundir_unlink_socket(m);
		return log_warning_errno(r, "Cannot watch the bus socket: %m, ignoring"), 0;
	}
	(void)sd_event_source_set_description(m->api.listen, "bus-api-listen");
	m->api.fd = fd;
	log_debug("Bus API %s on unix:path=%s", BUS_IFACE, path);
	return 0;
}

/*
 * org.tierd.Manager1 on the system bus, for tierctl run by users who cannot
 * open the root-only socket.  Only for the host's tree (a test tree must not
 * take the name) unless --system-bus; every failure is a notice, the private
 * socket keeps working.
 */
#define SYSTEM_BUS_RETRY_USEC (5 * 1000000ull)

static int system_bus_connect(struct manager *m, bool retrying);

static int on_system_bus_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	m->api.bus = sd_bus_flush_close_unref(m->api.bus);
	return system_bus_connect(m, true) == -ENOMEM ? sd_event_exit(m->event, -ENOMEM) : 0;
}

/* Try again in a while: the bus daemon restarts (or is not up yet). */
static void system_bus_retry(struct manager *m)
{
	uint64_t now;
	int r;

	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0 && m->api.retry)
		r = sd_event_source_set_time(m->api.retry, now + SYSTEM_BUS_RETRY_USEC);
	if (r >= 0 && m->api.retry)
		r = sd_event_source_set_enabled(m->api.retry, SD_EVENT_ONESHOT);
	else if (r >= 0)
		r = sd_event_add_time(m->event, &m->api.retry, CLOCK_MONOTONIC,
				      now + SYSTEM_BUS_RETRY_USEC, 0, on_system_bus_retry, m);
	if (r < 0)
		log_warning_errno(r, "Cannot schedule a system bus reconnect: %m, ignoring");
}

static int on_system_bus_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	log_notice("Lost the system bus; bus API on the private socket only until it is back");
	/* The connection is closed on the retry, not inside its own callback. */
	system_bus_retry(m);
	return 0;
}

static int system_bus_start(struct manager *m)
{
	const char *root = tier_ctx_get_cgroup_root(m->ctx);

	if (m->args.system_bus == 0 ||
	    (m->args.system_bus < 0 && strcmp(root, "/sys/fs/cgroup") != 0)) {
		log_debug("Not serving the bus API on the system bus (%s)",
			  m->args.system_bus == 0 ? "--no-system-bus" : "not the host's cgroup tree");
		return 0;
	}
	return system_bus_connect(m, false);
}

static int system_bus_connect(struct manager *m, bool retrying)
{
	sd_bus *b = NULL;
	int r;

	r = sd_bus_open_system(&b);
	if (r < 0) {
		if (r == -ENOMEM)
			return log_oom();
		if (retrying)
			system_bus_retry(m);
		else
			log_info_errno(r, "No system bus (%m): bus API on the private socket only");
		return 0;
	}
	r = sd_bus_match_signal(b, NULL, "org.freedesktop.DBus.Local", "/org/freedesktop/DBus/Local",
				"org.freedesktop.DBus.Local", "Disconnected",
				on_system_bus_disconnected, m);
	if (r >= 0)
		r = sd_bus_add_object_vtable(b, NULL, BUS_PATH, BUS_IFACE, manager_vtable, m);
	if (r >= 0)
		r = sd_bus_request_name(b, BUS_IFACE, 0);
	if (r == -EEXIST || r == -EACCES || r == -EPERM) {
		log_notice_errno(r, "Cannot own %s on the system bus: %s; bus API on the private "
				    "socket only, ignoring", BUS_IFACE,
				 r == -EEXIST ? "another tierd has it" :
						"not allowed (is org.tierd.Manager1.conf installed "
						"in /usr/share/dbus-1/system.d?)");
		sd_bus_flush_close_unref(b);
		return 0;
	}
	if (r >= 0)
		r = sd_bus_attach_event(b, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0) {
		sd_bus_flush_close_unref(b);
		if (r == -ENOMEM)
			return log_oom();
		log_warning_errno(r, "Cannot serve the bus API on the system bus: %m, ignoring");
		return 0;
	}
	/* Asking the bus daemon for a caller's credentials is a call too. */
	(void)sd_bus_set_method_call_timeout(b, 5 * 1000000ull);
	m->api.bus = b;
	if (retrying)
		log_notice("Bus API %s on the system bus again", BUS_IFACE);
	else
		log_debug("Bus API %s on the system bus", BUS_IFACE);
	return 0;
}

int bus_api_start(struct manager *m)
{
	int r = socket_start(m);

	return r < 0 ? r : system_bus_start(m);
}

void bus_api_stop(struct manager *m)
{
	for (size_t i = 0; i < MAX_CONNECTIONS; i++)
		conns[i].bus = sd_bus_flush_close_unref(conns[i].bus);
	m->api.bus = sd_bus_flush_close_unref(m->api.bus);
	m->api.retry = sd_event_source_disable_unref(m->api.retry);
	m->api.listen = sd_event_source_disable_unref(m->api.listen);
	if (m->api.fd >= 0)
		close(m->api.fd);
	rundir_unlink_socket(m);
	m->api.fd = -1;
}
