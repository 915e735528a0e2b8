// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl-apply.c: apply [--dry-run], reload: the policy onto the cgroup tree, or make
 * the running tierd re-read it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tier.h>

#include "json.h"
#include "macro.h"
#include "tierctl.h"
#include "tierd-client.h"
#include "verbs.h"

/* ------------------------------------------------------------------------
 * apply [--dry-run]
 * ------------------------------------------------------------------------ */

/* One changed (or, dry run, to be changed) file: a line, or a JSON object. */
static void print_change(struct tierctl *t, const char *cgroup, const char *attr,
			 const char *old_value, const char *new_value, const char *rule,
			 const char *cls)
{
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_string(&t->j, "cgroup", cgroup);
		json_kv_string(&t->j, "attribute", attr);
		json_kv_string(&t->j, "old", old_value);
		json_kv_string(&t->j, "new", new_value);
		json_kv_string(&t->j, "rule", rule);
		json_kv_string(&t->j, "class", cls);
		json_object_end(&t->j);
	} else {
		printf("%s: %s %s -> %s (rule %s, class %s)\n", esc(cgroup), esc(attr),
		       old_value[0] ? esc(old_value) : "?", esc(new_value), esc(rule), esc(cls));
	}
}

/* What apply prints after the changes, with or without tierd: one summary. */
struct apply_summary {
	size_t cgroups, managed, changed, unchanged, vanished, unsupported, nomemcg, failed;
	size_t changes;
};

/* The summary line or JSON object, and the exit code both paths share. */
static int apply_summary_print(struct tierctl *t, bool dry_run, const char *source,
			       const struct apply_summary *m)
{
	int rc = EXIT_OK;

	if (t->json) {
		json_array_end(&t->j);
		json_key(&t->j, "summary");
		json_object_begin(&t->j);
		json_kv_uint(&t->j, "cgroups", m->cgroups);
		json_kv_uint(&t->j, "managed", m->managed);
		json_kv_uint(&t->j, "changed", m->changed);
		json_kv_uint(&t->j, "unchanged", m->unchanged);
		json_kv_uint(&t->j, "vanished", m->vanished);
		json_kv_uint(&t->j, "unsupported", m->unsupported);
		json_kv_uint(&t->j, "no_memory_controller", m->nomemcg);
		json_kv_uint(&t->j, "failed", m->failed);
		json_kv_uint(&t->j, "changes", m->changes);
		json_object_end(&t->j);
		json_object_end(&t->j);
	} else {
		if (dry_run && source)
			printf("dry run (tierd, %s): ", esc(source));
		else if (dry_run)
			printf("dry run: ");
		printf("%zu cgroups, %zu managed, %zu %s, %zu unchanged", m->cgroups, m->managed,
		       m->changed, dry_run ? "would change" : "changed", m->unchanged);
		if (m->vanished)
			printf(", %zu vanished", m->vanished);
		if (m->unsupported)
			printf(", %zu unsupported", m->unsupported);
		if (m->nomemcg)
			printf(", %zu without memory controller", m->nomemcg);
		printf(", %zu failed\n", m->failed);
	}
	if (m->unsupported) {
		msg(NOSUPPORT_MSG);
		rc = EXIT_NOTSUPP;
	}
	if (m->failed)
		rc = EXIT_SYSTEM;
	return rc;
}

static void apply_json_begin(struct tierctl *t, bool dry_run, const char *source)
{
	if (!t->json)
		return;
	json_object_begin(&t->j);
	json_kv_bool(&t->j, "dry_run", dry_run);
	json_kv_string(&t->j, "source", source);
	json_key(&t->j, "changes");
	json_array_begin(&t->j);
}

/*
 * The counts tierd's DryRun does not give, from its cgroup list
 * (ListCgroups: every cgroup, a class for the managed ones) and the local
 * tree (a managed cgroup gone, without the knob, without the memory
 * controller), as the files path counts them.
 */
struct count_rows {
	struct tier_ctx *ctx;
	struct apply_summary *m;
};

static int count_row(void *userdata, const char *path, const char *cls, const char *rule,
		     uint64_t target)
{
	struct count_rows *cr = userdata;
	struct apply_summary *m = cr->m;
	_cleanup_free_ char *cur = NULL;
	enum tier_mode mode;
	int r;

	m->cgroups++;
	if (!cls[0])
		return 0;
	m->managed++;
	r = tier_cgroup_get_mode(cr->ctx, path, &mode);
	if (r == -ENOENT) {
		m->vanished++;
	} else if (r == -EOPNOTSUPP &&
		   tier_cgroup_read(cr->ctx, path, "memory.current", &cur) == -EOPNOTSUPP) {
		m->nomemcg++;
		msg("%s: memory controller not enabled, skipped", path);
	} else if (r == -EOPNOTSUPP) {
		m->unsupported++;
	}
	return 0;
}

static int dry_run_daemon_counts(struct tierctl *t, struct tierd_client *c,
				 struct apply_summary *m)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	struct count_rows cr = { .m = m };
	size_t bad = 0;
	int rc, r;

	rc = daemon_open_ctx(t, c, &cr.ctx);
	if (rc)
		goto out;
	r = tierd_client_list_cgroups(c, true, &error, count_row, &cr);
	if (r < 0 && sd_bus_error_is_set(&error)) {
		rc = daemon_fail("ListCgroups", r, &error);
		goto out;
	}
	if (r < 0) {
		rc = fail(r, "cannot parse tierd's answer");
		goto out;
	}
	bad = m->changed + m->vanished + m->unsupported + m->nomemcg;
	m->unchanged = m->managed > bad ? m->managed - bad : 0;
out:
	tier_ctx_unref(cr.ctx);
	sd_bus_error_free(&error);
	return rc;
}

/*
 * apply --dry-run with a running tierd: the changes its next reconcile
 * would make with the policy it has loaded (DryRun), in the same format,
 * summary, JSON schema and exit status as without tierd.
 */
static int dry_run_daemon(struct tierctl *t, struct tierd_client *c)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *cg, *cls, *rule, *knob, *o, *n;
	_cleanup_free_ char *last = NULL;
	struct apply_summary m = { 0 };
	uint64_t offset = 0, next = 0;
	bool paged = true;
	int rc = EXIT_OK, r;

	/* Page after page (DryRun(t)); a tierd from before pages: DryRun(). */
	for (;;) {
		reply = sd_bus_message_unref(reply);
		r = paged ? tierd_client_call(c, "DryRun", &error, &reply, "t", offset) :
			    tierd_client_call(c, "DryRun", &error, &reply, NULL);
		if (r < 0 && paged && offset == 0 &&
		    sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS)) {
			sd_bus_error_free(&error);
			paged = false;
			continue;
		}
		if (r < 0) {
			rc = daemon_fail("DryRun", r, &error);
			goto out;
		}
		if (offset == 0)
			apply_json_begin(t, true, c->where);
		r = sd_bus_message_enter_container(reply, 'a', "(ssssss)");
		while (r >= 0 && (r = sd_bus_message_read(reply, "(ssssss)", &cg, &cls, &rule,
							  &knob, &o, &n)) > 0) {
			m.changes++;
			if (!last || strcmp(last, cg) != 0) {
				m.changed++;
				free(last);
				last = strdup(cg);
				if (!last) {
					r = -ENOMEM;
					break;
				}
			}
			print_change(t, cg, knob, o, n, rule, cls);
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
		next = 0;
		if (r >= 0 && paged)
			r = sd_bus_message_read(reply, "t", &next);
		if (r >= 0 && next && next <= offset)
			r = -EBADMSG; /* no progress */
		if (r < 0) {
			rc = fail(r, "cannot parse tierd's answer");
			goto out;
		}
		if (!next)
			break;
		offset = next;
	}
	rc = dry_run_daemon_counts(t, c, &m);
	if (rc)
		goto out;
	rc = apply_summary_print(t, true, c->where, &m);
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	return rc;
}

int verb_apply(struct tierctl *t, int argc, char **argv)
{
	struct tier_apply_results *res = NULL;
	struct apply_summary m = { 0 };
	bool dry_run = t->verb_option;
	struct session s;
	int rc, r;

	if (dry_run) {
		struct tierd_client c;

		r = daemon_open(t, &c, NULL);
		if (r < 0)
			return -r;
		if (r > 0) {
			rc = dry_run_daemon(t, &c);
			tierd_client_close(&c);
			return rc;
		}
	}

	rc = session_start(t, &s, NULL);
	if (rc)
		goto out;
	r = tier_apply(s.ctx, s.plan, dry_run ? TIER_APPLY_DRY_RUN : 0, &res);
	if (r < 0) {
		rc = fail(r, "apply");
		goto out;
	}

	apply_json_begin(t, dry_run, NULL);
	m.cgroups = tier_apply_results_count(res);
	for (size_t i = 0; i < m.cgroups; i++) {
		const struct tier_apply_result *a = tier_apply_results_get(res, i);
		_cleanup_free_ char *path = NULL;
		enum tier_apply_status status = tier_apply_result_status(a);
		const struct tier_plan_entry *e = tier_plan_entry(s.plan, i);
		bool changed = false, unsupported = false;

		/* tier_apply() gives one result per entry, in plan order */
		if (status == TIER_APPLY_UNMANAGED || !e || !tier_plan_entry_rule(e))
			continue;
		if (tier_apply_result_path_dup(a, &path) < 0) {
			rc = fail(-ENOMEM, "apply");
			goto out;
		}
		m.managed++;
		if (status == TIER_APPLY_VANISHED) {
			m.vanished++;
			continue;
		}
		for (size_t k = 0; k < tier_apply_result_change_count(a); k++) {
			const char *attr = tier_attr_to_string(tier_apply_result_change_attr(a, k));
			const char *new_value = tier_apply_result_change_new_value(a, k);

			switch (tier_apply_result_change_status(a, k)) {
			case TIER_APPLY_CHANGED:
				changed = true;
				m.changes++;
				print_change(t, path, attr, tier_apply_result_change_old_value(a, k),
					     new_value, tier_rule_name(tier_plan_entry_rule(e)),
					     tier_class_name(tier_plan_entry_class(e)));
				break;
			case TIER_APPLY_UNSUPPORTED:
				unsupported = true;
				break;
			case TIER_APPLY_ERROR:
				m.failed++;
				fail(tier_apply_result_change_error(a, k), "%s: cannot write %s %s",
				     path, attr, new_value);
				break;
			default:
				break;
			}
		}
		if (unsupported) {
			_cleanup_free_ char *cur = NULL;

			if (tier_cgroup_read(s.ctx, path, "memory.current", &cur) == -EOPNOTSUPP) {
				m.nomemcg++;
				msg("%s: memory controller not enabled, skipped", path);
			} else {
				m.unsupported++;
			}
		}
		if (changed)
			m.changed++;
		else if (status == TIER_APPLY_UNCHANGED)
			m.unchanged++;
	}
	rc = apply_summary_print(t, dry_run, NULL, &m);
out:
	tier_apply_results_free(res);
	session_done(&s);
	return rc;
}
/* ------------------------------------------------------------------------
 * reload
 * ------------------------------------------------------------------------ */

/* Make the running tierd re-read its policy; needs the daemon. */
int verb_reload(struct tierctl *t, int argc, char **argv)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct tierd_client c;
	const char *err = "";
	int ok = 0, rc = EXIT_OK, r;

	if (t->daemon == DAEMON_NO) {
		msg("reload: tells the running tierd to re-read its policy; not with --no-daemon");
		return EXIT_USAGE;
	}
	/* Files named on the command line do not matter here: always ask tierd. */
	t->daemon = DAEMON_YES;
	r = daemon_open(t, &c, NULL);
	if (r < 0)
		return -r;
	r = tierd_client_call(&c, "Reload", &error, &reply, NULL);
	if (r >= 0)
		r = sd_bus_message_read(reply, "bs", &ok, &err);
	if (r < 0) {
		rc = daemon_fail("Reload", r, &error);
		goto out;
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_kv_bool(&t->j, "reloaded", ok);
		json_kv_string(&t->j, "error", ok ? NULL : err);
		json_kv_string(&t->j, "source", c.where);
		json_object_end(&t->j);
	} else if (ok) {
		printf("tierd reloaded its policy\n");
	}
	if (!ok) {
		msg("tierd kept its previous policy: %s", err[0] ? err : "reload failed");
		msg("run 'tierctl check FILE' for every error, or see the journal (journalctl -u tierd)");
		rc = EXIT_POLICY;
	}
out:
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	tierd_client_close(&c);
	return rc;
}
