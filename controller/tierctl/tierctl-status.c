// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierctl-status.c: status [--all], topology: the managed cgroups with their residency
 * and fast-tier targets; the NUMA nodes and memory tiers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <tier.h>

#include "escape.h"
#include "json.h"
#include "macro.h"
#include "tierctl.h"
#include "tierd-client.h"
#include "verbs.h"

/* ------------------------------------------------------------------------
 * status [--all]
 * ------------------------------------------------------------------------ */

/* What a row shows of libtier's struct tier_cgroup_info (valid: TIER_INFO_MODE
 * for both modes, TIER_INFO_RESIDENCY for both byte counts). */
struct status_info {
	unsigned valid;
	enum tier_mode mode, effective_mode;
	uint64_t fast_bytes, slow_bytes;
};

/* One row of the status table: from the local plan (e) or from tierd. */
struct status_row {
	/* NULL for rows from tierd; else path is its table cell (or NULL for
	 * JSON) and the whole path is built from e where needed
	 * (row_full_path()): a tree of 64 KB paths is not kept whole */
	const struct tier_plan_entry *e;
	const char *path;
	const char *class_name;			/* NULL: unmanaged */
	const char *rule_name;
	struct status_info info;
	bool shared;		/* takes part in the fair share (top-most managed) */
	uint64_t target;
	/* computed here (not from tierd): the demand the share used, resident
	 * or the hot set + [daemon] hot_margin; hot UINT64_MAX: not measured */
	const char *demand_kind;	/* NULL: not known */
	uint64_t demand;
	uint64_t hot_read;	/* tierd's last hot-set reading, UINT64_MAX: none */
	uint64_t hot_fast, hot_slow;	/* its split, UINT64_MAX: unknown */
	bool path_shown;	/* path is already the table's cell (escaped, capped) */
};

/* tierd's last hot-set reading (its run directory's hot-sets file, which
 * tierd writes where it measures: classes with demand = hot), for the HOT
 * column with or without tierd answering; NULL if there is none. */
static struct tier_share *status_hot_load(const struct tierctl *t)
{
	struct tier_share *share = NULL;
	char dir[PATH_MAX];

	if (tier_share_new(&share) < 0)
		return NULL;
	if (tier_share_hot_load_dir(share, tierctl_run_dir(t, dir, sizeof(dir)), NULL) < 0) {
		tier_share_free(share);
		return NULL;
	}
	return share;
}

/* The row's hot set and its split between the tiers (UINT64_MAX: none). */
static void status_hot_of(const struct tier_share *hot, const char *path, struct status_row *row)
{
	row->hot_read = row->hot_fast = row->hot_slow = UINT64_MAX;
	if (!hot || tier_share_hot_loaded(hot, path, &row->hot_read) < 0) {
		row->hot_read = UINT64_MAX;
		return;
	}
	if (tier_share_hot_loaded_tiers(hot, path, &row->hot_fast, &row->hot_slow) < 0)
		row->hot_fast = row->hot_slow = UINT64_MAX;
}

/* A row's whole path: tierd's row holds it (unless only its cell), a local
 * one is built from its plan entry into *tmp (freed by the caller).  NULL
 * on ENOMEM. */
static const char *row_full_path(const struct status_row *row, char **tmp)
{
	*tmp = NULL;
	if (!row->e)
		return row->path;
	if (tier_plan_entry_path_dup(row->e, tmp) < 0)
		return NULL;
	return *tmp;
}

/*
 * Fair-share targets of the fast tier: libtier's tier_share_compute(), the
 * computation tierd and tierd-metrics use (the top-most managed, populated
 * cgroups share the fast-tier capacity minus [daemon] fast_tier_reserve by
 * class weight, within toptier_min/max and their demand).  This is the fresh
 * share; tierd holds its target within [daemon] hysteresis of it.
 */
static int status_targets(const struct tierctl *t, const struct session *s,
			  struct status_row *rows, size_t n)
{
	_cleanup_(tier_share_freep) struct tier_share *share = NULL;
	char dir[PATH_MAX];
	bool have_hot;
	int r;

	r = tier_share_new(&share);
	if (r < 0)
		return r;
	/* the hot sets tierd measured last, if it left any: the HOT column,
	 * and the demand of classes that share by hot set */
	have_hot = tier_share_hot_load_dir(share, tierctl_run_dir(t, dir, sizeof(dir)), NULL) == 0;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *tmp = NULL;
		const char *path = row_full_path(&rows[i], &tmp);

		if (!path)
			return -ENOMEM;
		status_hot_of(have_hot ? share : NULL, path, &rows[i]);
	}
	if (!s->topo)
		return 0;
	r = tier_share_add_plan(share, s->plan);
	if (r >= 0)
		r = tier_share_compute(share, s->ctx, s->topo, s->policy, 0);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ char *tmp = NULL;
		const char *path = row_full_path(&rows[i], &tmp);
		size_t k;

		if (!path)
			return -ENOMEM;
		if (tier_share_find(share, path, &k) < 0)
			continue;
		rows[i].shared = true;
		rows[i].target = tier_share_target(share, k);
		rows[i].demand_kind =
			tier_demand_to_string(tier_share_demand_kind(share, k)) ?: "resident";
		rows[i].demand = tier_share_demand(share, k);
	}
	return r < 0 ? r : 0;
}

static const char *fmt_percent(uint64_t part, uint64_t whole, char buf[static SIZE_BUF])
{
	double pc;

	if (whole == 0)
		return "-";
	pc = 100.0 * (double)part / (double)whole;
	if (pc > 999.0)
		return ">999%";	/* the column's width; JSON has the bytes */
	snprintf(buf, SIZE_BUF, "%.0f%%", pc);
	return buf;
}

/*
 * Column caps of the table: a cgroup path or class name longer than this is
 * cut with "..." (a path keeps its end, where the leaf is); --wide and
 * --json show everything. Widths count UTF-8 characters, not bytes.
 */
#define STATUS_PATH_COLS 60
#define STATUS_CLASS_COLS 20
#define CELL_BUF (4 * STATUS_PATH_COLS + 8)

static size_t text_cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s, cut to cap columns unless wide: into buf (CELL_BUF bytes) if cut. */
static const char *cell(const char *s, size_t cap, bool keep_end, bool wide, char *buf)
{
	size_t cols = text_cols(s), skip, i = 0, o = 0;

	if (wide || cols <= cap)
		return s;
	if (keep_end) {
		/* "..." + the last cap - 3 characters */
		skip = cols - (cap - 3);
		memcpy(buf, "...", 3);
		o = 3;
		for (const char *p = s; *p; p++) {
			if (((unsigned char)*p & 0xc0) != 0x80)
				i++;
			if (i > skip)
				buf[o++] = *p;
		}
	} else {
		/* the first cap - 3 characters + "..." */
		for (const char *p = s; *p; p++) {
			if (((unsigned char)*p & 0xc0) != 0x80 && ++i > cap - 3)
				break;
			buf[o++] = *p;
		}
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* s left-aligned in width columns, then two spaces. */
static void print_cell(const char *s, size_t width)
{
	size_t cols = text_cols(s);

	fputs(s, stdout);
	for (size_t i = cols; i < width + 2; i++)
		putchar(' ');
}

/* What status says about the daemon: asked, and its STATUS= text if it runs. */
struct daemon_status {
	bool asked;
	char *status;		/* NULL: not running */
	char where[128];
	struct tierd_client c;	/* open while status is set */
};

static int status_daemon(struct tierctl *t, struct daemon_status *d)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *text;
	int rc = EXIT_OK, r;

	r = daemon_open(t, &d->c, &d->asked);
	if (r <= 0)
		return -r;
	r = tierd_client_call(&d->c, "Status", &error, &reply, NULL);
	if (r >= 0)
		r = sd_bus_message_read(reply, "s", &text);
	if (r >= 0) {
		d->status = strdup(text);
		if (!d->status)
			rc = fail(-ENOMEM, "status");
		snprintf(d->where, sizeof(d->where), "%s", d->c.where);
	} else if (r != -ESRCH || t->daemon == DAEMON_YES) {
		rc = daemon_fail("Status", r, &error);
	}
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	if (!d->status)
		tierd_client_close(&d->c);
	return rc;
}

/*
 * row->info of row->path: 1, or 0 if it vanished meanwhile, or -1 (said
 * why).  The rows come in tree order: rd opens each from its parent's row
 * and takes its effective mode from the parent's (a row 250 levels deep,
 * read from the root, cost about 1,000 openat() calls: `tierctl status`
 * took 28 s for 2,252 cgroups of 64 KB paths).
 */
static int status_row_read(const struct session *s, struct tier_cgroup_reader *rd,
			   struct status_row *row)
{
	_cleanup_(tier_cgroup_info_freep) struct tier_cgroup_info *info = NULL;
	uint64_t mode, eff;
	int r = tier_cgroup_reader_read(rd, s->topo, row->path,
					TIER_INFO_MODE | TIER_INFO_EFFECTIVE_MODE |
						TIER_INFO_RESIDENCY,
					&info);

	if (r == 0) {
		row->info = (struct status_info){ 0 };
		if (tier_cgroup_info_get(info, TIER_INFO_MODE, &mode) == 0 &&
		    tier_cgroup_info_get(info, TIER_INFO_EFFECTIVE_MODE, &eff) == 0) {
			row->info.valid |= TIER_INFO_MODE;
			row->info.mode = (enum tier_mode)mode;
			row->info.effective_mode = (enum tier_mode)eff;
		}
		if (tier_cgroup_info_get(info, TIER_INFO_FAST_BYTES, &row->info.fast_bytes) == 0 &&
		    tier_cgroup_info_get(info, TIER_INFO_SLOW_BYTES, &row->info.slow_bytes) == 0)
			row->info.valid |= TIER_INFO_RESIDENCY;
	}

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		fail(r, "%s: cannot read", row->path);
		return -1;
	}
	return 1;
}

/* The rows of status_rows_daemon(), their strings copied from the pages. */
struct daemon_rows {
	const struct session *s;
	struct tier_cgroup_reader *rd;
	bool shorten;		/* keep the table's cell of each path, not the path */
	const struct tier_share *hot;	/* status_hot_load(), may be NULL */
	struct status_row *rows;
	size_t n, alloc;
	char **strs;		/* every copy, freed by daemon_rows_free() */
	size_t n_strs, alloc_strs;
	int rc;
};

static const char *rows_strdup(struct daemon_rows *dr, const char *str)
{
	char *c;

	if (!str[0])
		return NULL;
	c = strdup(str);
	if (!c || ARRAY_PUSH(dr->strs, dr->n_strs, dr->alloc_strs, c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

static int daemon_row(void *userdata, const char *path, const char *cls, const char *rule,
		      uint64_t target)
{
	struct daemon_rows *dr = userdata;
	struct status_row row = {
		.shared = target != UINT64_MAX,
		.target = target,
	};
	int r;

	status_hot_of(dr->hot, path, &row);
	row.path = path;
	r = status_row_read(dr->s, dr->rd, &row);
	if (r < 0)
		dr->rc = EXIT_SYSTEM;
	if (r <= 0)
		return 0;
	if (dr->shorten) {
		/* Only the cell is shown: a tree of 64 KB paths is not kept whole. */
		_cleanup_free_ char *e = text_is_plain(path) ? NULL : text_escape(path);
		char buf[CELL_BUF];

		if (!text_is_plain(path) && !e)
			return -ENOMEM;
		row.path = rows_strdup(dr, cell(e ?: path, STATUS_PATH_COLS, true, false, buf));
		row.path_shown = true;
	} else {
		row.path = rows_strdup(dr, path);
	}
	if (!row.path || (cls[0] && !(row.class_name = rows_strdup(dr, cls))) ||
	    (rule[0] && !(row.rule_name = rows_strdup(dr, rule))))
		return -ENOMEM;
	if (ARRAY_PUSH(dr->rows, dr->n, dr->alloc, row) < 0)
		return -ENOMEM;
	return 0;
}

static void daemon_rows_free(char **strs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
}

/*
 * The rows from tierd (ListCgroups, page by page: path, class, rule,
 * target); the local tree gives each row's modes and residency.  s gets
 * the context and topology only; *ret_strs owns the rows' strings.
 */
static int status_rows_daemon(struct tierctl *t, struct daemon_status *d, bool all,
			      struct session *s, struct status_row **ret_rows, size_t *ret_n,
			      char ***ret_strs, size_t *ret_n_strs)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(tier_share_freep) struct tier_share *hot = status_hot_load(t);
	struct daemon_rows dr = { .s = s, .shorten = !t->json && !t->wide, .hot = hot,
				  .rc = EXIT_OK };
	int rc, r;

	rc = daemon_open_ctx(t, &d->c, &s->ctx);
	if (rc) {
		tierd_client_close(&d->c);
		return rc;
	}
	s->topo = read_topology(s->ctx);
	r = tier_cgroup_reader_new(s->ctx, &dr.rd);
	if (r >= 0)
		r = tierd_client_list_cgroups(&d->c, all, &error, daemon_row, &dr);
	tier_cgroup_reader_free(dr.rd);
	tierd_client_close(&d->c);
	*ret_rows = dr.rows;
	*ret_n = dr.n;
	*ret_strs = dr.strs;
	*ret_n_strs = dr.n_strs;
	if (r < 0 && sd_bus_error_is_set(&error)) {
		rc = daemon_fail("ListCgroups", r, &error);
		sd_bus_error_free(&error);
		return rc;
	}
	if (r < 0)
		return fail(r, "cannot read tierd's answer");
	return dr.rc;
}

int verb_status(struct tierctl *t, int argc, char **argv)
{
	size_t width = strlen("CGROUP"), cwidth = strlen("CLASS"), n, n_rows = 0,
	       n_unsupported = 0;
	_cleanup_free_ struct status_row *rows = NULL;
	char **strs = NULL;
	size_t n_strs = 0, alloc_strs = 0;
	struct daemon_status d = { 0 };
	bool all = t->verb_option;
	_cleanup_(tier_cgroup_reader_freep) struct tier_cgroup_reader *rd = NULL;
	struct session s;
	int rc, r;

	rc = status_daemon(t, &d);
	if (rc)
		return rc;
	memset(&s, 0, sizeof(s));
	if (d.status) {
		if (!t->json)
			printf("tierd (%s): %s\n\n", esc(d.where), esc(d.status));
		/* The cgroups, classes and targets of tierd; residency from the tree. */
		rc = status_rows_daemon(t, &d, all, &s, &rows, &n_rows, &strs, &n_strs);
		if (rc)
			goto out;
		goto table;
	}
	/* Listing every cgroup needs no policy; the managed ones do. The
	 * table is promised only once there is one to show. */
	t->policy_optional = all;
	rc = session_start(t, &s, NULL);
	if (rc)
		goto out;
	if (!t->json && d.asked)
		printf("tierd: not running; the table below is computed from %s\n\n",
		       esc(t->config));

	n = tier_plan_count(s.plan);
	rows = calloc(n ?: 1, sizeof(*rows));
	r = rows ? tier_cgroup_reader_new(s.ctx, &rd) : -ENOMEM;
	if (r < 0) {
		rc = fail(r, "status");
		goto out;
	}
	/* Rows: every managed (--all: every) cgroup still there, in tree order. */
	for (size_t i = 0; i < n; i++) {
		const struct tier_plan_entry *e = tier_plan_entry(s.plan, i);
		struct status_row *row = &rows[n_rows];
		char *path = NULL;

		if (!tier_plan_entry_rule(e) && !all)
			continue;
		/* the plan holds each name once: the whole path is built for
		 * the read, and the row keeps its table cell (JSON builds it
		 * again when it prints) */
		if (tier_plan_entry_path_dup(e, &path) < 0) {
			rc = fail(-ENOMEM, "status");
			goto out;
		}
		*row = (struct status_row){
			.e = e,
			.path = path,
			.class_name = tier_plan_entry_rule(e) ? tier_class_name(tier_plan_entry_class(e)) : NULL,
			.rule_name = tier_plan_entry_rule(e) ? tier_rule_name(tier_plan_entry_rule(e)) : NULL,
		};
		r = status_row_read(&s, rd, row);
		row->path = NULL;
		if (r > 0 && !t->json) {
			char buf[CELL_BUF];
			char *c = strdup(cell(esc(path), STATUS_PATH_COLS, true, t->wide, buf));

			if (!c || ARRAY_PUSH(strs, n_strs, alloc_strs, c) < 0) {
				free(c);
				free(path);
				rc = fail(-ENOMEM, "status");
				goto out;
			}
			row->path = c;
			row->path_shown = true;
		}
		free(path);
		if (r < 0)
			rc = EXIT_SYSTEM;
		if (r > 0)
			n_rows++;
	}
	r = status_targets(t, &s, rows, n_rows);
	if (r < 0) {
		rc = fail(r, "cannot compute the fast-tier targets");
		goto out;
	}
table:
	for (size_t i = 0; i < n_rows && !t->json; i++) {
		char buf[CELL_BUF];
		size_t w = text_cols(rows[i].path_shown ? rows[i].path :
				     cell(esc(rows[i].path), STATUS_PATH_COLS, true, t->wide, buf));

		if (w > width)
			width = w;
		if (!rows[i].class_name)
			continue;
		w = text_cols(cell(esc(rows[i].class_name), STATUS_CLASS_COLS, false, t->wide, buf));
		if (w > cwidth)
			cwidth = w;
	}
	if (t->json) {
		json_object_begin(&t->j);
		json_key(&t->j, "daemon");
		if (d.asked) {
			json_object_begin(&t->j);
			json_kv_bool(&t->j, "running", d.status != NULL);
			json_kv_string(&t->j, "where", d.status ? d.where : NULL);
			json_kv_string(&t->j, "status", d.status);
			json_object_end(&t->j);
		} else {
			json_null(&t->j);
		}
		json_key(&t->j, "cgroups");
		json_array_begin(&t->j);
	} else {
		printf("%-*s  %-*s  %-10s  %-10s  %9s  %9s  %9s  %9s  %6s\n", (int)width, "CGROUP",
		       (int)cwidth, "CLASS", "CONFIGURED", "EFFECTIVE", "FAST", "SLOW", "HOT",
		       "TARGET", "FAST%");
	}
	for (size_t i = 0; i < n_rows; i++) {
		const struct status_row *row = &rows[i];
		const struct status_info *info = &row->info;
		bool has_mode, has_res;
		char b1[SIZE_BUF], b2[SIZE_BUF], b3[SIZE_BUF], b4[SIZE_BUF], b5[SIZE_BUF];

		has_mode = info->valid & TIER_INFO_MODE;
		has_res = info->valid & TIER_INFO_RESIDENCY;
		if (!has_mode && row->class_name &&
		    (row->e ? tier_plan_entry_path(row->e, NULL, 0) != 1 : strcmp(row->path, "/") != 0))
			n_unsupported++;
		if (t->json) {
			_cleanup_free_ char *tmp = NULL;
			const char *path = row_full_path(row, &tmp);

			if (!path) {
				rc = fail(-ENOMEM, "status");
				goto out;
			}
			json_object_begin(&t->j);
			json_kv_string(&t->j, "cgroup", path);
			json_kv_string(&t->j, "class", row->class_name);
			json_kv_string(&t->j, "rule", row->rule_name);
			json_kv_string(&t->j, "configured", has_mode ? mode_str(info->mode) : NULL);
			json_kv_string(&t->j, "effective",
				       has_mode ? mode_str(info->effective_mode) : NULL);
			if (has_res) {
				json_kv_uint(&t->j, "fast_bytes", info->fast_bytes);
				json_kv_uint(&t->j, "slow_bytes", info->slow_bytes);
			} else {
				json_kv_null(&t->j, "fast_bytes");
				json_kv_null(&t->j, "slow_bytes");
			}
			if (row->shared)
				json_kv_uint(&t->j, "target_bytes", row->target);
			else
				json_kv_null(&t->j, "target_bytes");
			json_kv_string(&t->j, "demand", row->demand_kind);
			if (row->demand_kind && row->demand != UINT64_MAX)
				json_kv_uint(&t->j, "demand_bytes", row->demand);
			else
				json_kv_null(&t->j, "demand_bytes");
			if (row->hot_read != UINT64_MAX)
				json_kv_uint(&t->j, "hot_bytes", row->hot_read);
			else
				json_kv_null(&t->j, "hot_bytes");
			if (row->hot_fast != UINT64_MAX) {
				json_kv_uint(&t->j, "hot_fast_bytes", row->hot_fast);
				json_kv_uint(&t->j, "hot_slow_bytes", row->hot_slow);
			} else {
				json_kv_null(&t->j, "hot_fast_bytes");
				json_kv_null(&t->j, "hot_slow_bytes");
			}
			json_object_end(&t->j);
		} else {
			char c1[CELL_BUF], c2[CELL_BUF];

			print_cell(row->path_shown ? row->path :
				   cell(esc(row->path), STATUS_PATH_COLS, true, t->wide, c1), width);
			print_cell(row->class_name ? cell(esc(row->class_name), STATUS_CLASS_COLS,
							  false, t->wide, c2) : "-",
				   cwidth);
			printf("%-10s  %-10s  %9s  %9s  %9s  %9s  %6s\n",
			       has_mode ? mode_str(info->mode) : "-",
			       has_mode ? mode_str(info->effective_mode) : "-",
			       has_res ? fmt_bytes(info->fast_bytes, b1) : "-",
			       has_res ? fmt_bytes(info->slow_bytes, b2) : "-",
			       row->hot_read != UINT64_MAX ? fmt_bytes(row->hot_read, b5) : "-",
			       row->shared ? fmt_bytes(row->target, b3) : "-",
			       row->shared ? fmt_percent(info->fast_bytes, row->target, b4) : "-");
		}
	}
	if (t->json) {
		json_array_end(&t->j);
		json_object_end(&t->j);
	}
	if (n_unsupported)
		msg("%zu managed cgroup%s without memory.numa_balancing: " NOSUPPORT_MSG
		    " or the memory controller is not enabled there",
		    n_unsupported, n_unsupported == 1 ? "" : "s");
out:
	daemon_rows_free(strs, n_strs);
	free(d.status);
	session_done(&s);
	return rc;
}
/* ------------------------------------------------------------------------
 * topology
 * ------------------------------------------------------------------------ */

/*
 * kernel.numa_balancing from procfs, -1 if unreadable (tierctl.h). The
 * procfs root may come from the command line: a FIFO or a device there is
 * not waited on or read (O_NONBLOCK, regular files only), and one short
 * read is all.
 */
long tierctl_numa_balancing_sysctl(const char *procfs_root)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	char buf[32], *end;
	ssize_t n;
	long v;

	if (asprintf(&path, "%s/sys/kernel/numa_balancing", procfs_root ?: "/proc") < 0) {
		path = NULL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v < 0)
		return -1;
	return v;
}

static void fmt_nodes(const struct tier_memtier *tier, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < tier_memtier_node_count(tier) && o < size; k++) {
		int w = snprintf(buf + o, size - o, "%s%d", k ? "," : "", tier_memtier_node(tier, k));

		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (o >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

int verb_topology(struct tierctl *t, int argc, char **argv)
{
	struct tier_topology *topo = NULL;
	struct tier_ctx *ctx = NULL;
	unsigned n_nodes, n_tiers;
	long sysctl;
	int rc, r;

	/* The cgroup root is not used: give one so no discovery happens. */
	rc = open_ctx(t, NULL, "/sys/fs/cgroup", &ctx);
	if (rc)
		return rc;
	r = tier_topology_read(ctx, &topo);
	if (r < 0) {
		rc = fail(r, "cannot read memory tiers from %s", tier_ctx_get_sysfs_root(ctx));
		goto out;
	}
	n_nodes = tier_topology_node_count(topo);
	n_tiers = tier_topology_tier_count(topo);
	sysctl = tierctl_numa_balancing_sysctl(tier_ctx_get_procfs_root(ctx));

	if (t->json) {
		struct json *j = &t->j;

		json_object_begin(j);
		json_key(j, "nodes");
		json_array_begin(j);
		for (unsigned i = 0; i < n_nodes; i++) {
			const struct tier_node *nd = tier_topology_node(topo, i);

			json_object_begin(j);
			json_kv_int(j, "node", tier_node_id(nd));
			if (tier_node_tier(nd) == TIER_ID_NONE)
				json_kv_null(j, "tier");
			else
				json_kv_int(j, "tier", tier_node_tier(nd));
			json_kv_bool(j, "top_tier", tier_node_is_toptier(nd));
			json_kv_bool(j, "has_cpu", tier_node_has_cpu(nd));
			json_kv_bool(j, "has_memory", tier_node_has_memory(nd));
			json_kv_uint(j, "mem_total", tier_node_mem_total(nd));
			json_kv_uint(j, "mem_free", tier_node_mem_free(nd));
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "tiers");
		json_array_begin(j);
		for (unsigned i = 0; i < n_tiers; i++) {
			const struct tier_memtier *tr = tier_topology_tier(topo, i);

			json_object_begin(j);
			if (tier_memtier_id(tr) == TIER_ID_NONE)
				json_kv_null(j, "tier");
			else
				json_kv_int(j, "tier", tier_memtier_id(tr));
			json_kv_bool(j, "top", tier_memtier_is_top(tr));
			json_key(j, "nodes");
			json_array_begin(j);
			for (unsigned k = 0; k < tier_memtier_node_count(tr); k++)
				json_int(j, tier_memtier_node(tr, k));
			json_array_end(j);
			json_kv_uint(j, "mem_total", tier_memtier_mem_total(tr));
			json_kv_uint(j, "mem_free", tier_memtier_mem_free(tr));
			json_object_end(j);
		}
		json_array_end(j);
		json_kv_uint(j, "fast_capacity", tier_topology_fast_capacity(topo));
		json_kv_uint(j, "total_capacity", tier_topology_total_capacity(topo));
		json_kv_bool(j, "tiering_active", n_tiers > 1);
		if (sysctl >= 0)
			json_kv_int(j, "numa_balancing_sysctl", sysctl);
		else
			json_kv_null(j, "numa_balancing_sysctl");
		json_object_end(j);
	} else {
		char b1[SIZE_BUF], b2[SIZE_BUF], nodes[128];

		printf("%-5s %-6s %-4s %-4s %10s %10s\n", "NODE", "TIER", "TOP", "CPU", "MEMTOTAL",
		       "MEMFREE");
		for (unsigned i = 0; i < n_nodes; i++) {
			const struct tier_node *nd = tier_topology_node(topo, i);
			char tb[16];

			if (tier_node_tier(nd) == TIER_ID_NONE)
				strcpy(tb, "-");
			else
				snprintf(tb, sizeof(tb), "%d", tier_node_tier(nd));
			printf("%-5d %-6s %-4s %-4s %10s %10s\n", tier_node_id(nd), tb,
			       tier_node_is_toptier(nd) ? "yes" : "no", tier_node_has_cpu(nd) ? "yes" : "no",
			       fmt_bytes(tier_node_mem_total(nd), b1), fmt_bytes(tier_node_mem_free(nd), b2));
		}
		printf("\n");
		for (unsigned i = 0; i < n_tiers; i++) {
			const struct tier_memtier *tr = tier_topology_tier(topo, i);

			fmt_nodes(tr, nodes, sizeof(nodes));
			if (tier_memtier_id(tr) == TIER_ID_NONE)
				printf("tier -: ");
			else
				printf("tier %d: ", tier_memtier_id(tr));
			printf("nodes %s, %s total, %s free%s\n", nodes,
			       fmt_bytes(tier_memtier_mem_total(tr), b1), fmt_bytes(tier_memtier_mem_free(tr), b2),
			       tier_memtier_is_top(tr) ? " (top tier)" : "");
		}
		if (n_tiers <= 1)
			printf("single memory tier: tiering inactive\n");
		else
			printf("%u memory tiers: fast-tier capacity %s of %s\n", n_tiers,
			       fmt_bytes(tier_topology_fast_capacity(topo), b1),
			       fmt_bytes(tier_topology_total_capacity(topo), b2));
		if (sysctl >= 0)
			printf("kernel.numa_balancing = %ld%s\n", sysctl,
			       sysctl & 2 ? " (memory tiering mode)" :
			       n_tiers > 1 ? " (promotion needs bit 2, memory tiering mode)" : "");
	}
out:
	tier_topology_free(topo);
	tier_ctx_unref(ctx);
	return rc;
}
