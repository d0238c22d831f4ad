/* store_sqlite_read.c - the SQLite backend's reads: hosts, report lists and
 * row scans per level. Every scan walks an index in time order and hands
 * blobs to the caller without copying; a callback's non-zero return stops
 * the scan and is returned. */
#include "server/store/sqlite/store_sqlite.h"

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Ends a walk over st's rows: the callback's stop value if it stopped, else 0 or -1 on a step error. */
static int finish(sqlite3_stmt *st, int rc, int stop)
{
	sqlite3_reset(st);
	if (stop)
		return stop;
	if (rc == SQLITE_DONE)
		return 0;
	return rc == SQLITE_ROW ? 0 : -1;
}

/* The statement for rows of one host (host_id >= 0) or all, in [from, to): bound, ready to step. */
static sqlite3_stmt *range_stmt(struct store_sqlite *s, enum store_sqlite_stmt all, enum store_sqlite_stmt one,
				int64_t host_id, int64_t from, int64_t to)
{
	sqlite3_stmt *st = store_sqlite_stmt(s, host_id < 0 ? all : one);
	int i = 1;

	if (host_id >= 0)
		sqlite3_bind_int64(st, i++, host_id);
	sqlite3_bind_int64(st, i++, from);
	sqlite3_bind_int64(st, i, to);
	return st;
}

int store_sqlite_hosts(struct store *base, const char *machine_id, store_host_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, machine_id ? STORE_SQLITE_HOSTS_ONE : STORE_SQLITE_HOSTS_ALL);
	int rc, stop = 0;

	if (machine_id)
		sqlite3_bind_text(st, 1, machine_id, -1, SQLITE_STATIC);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_host h = {
			.id = sqlite3_column_int64(st, 0),
			.machine_id = col_text(st, 1),
			.hostname = col_text(st, 2),
			.kernel = col_text(st, 3),
			.arch = col_text(st, 4),
			.cpus = sqlite3_column_int64(st, 5),
			.l3_json = col_text(st, 6),
			.disks_json = col_text(st, 7),
			.sched_state = col_text(st, 8),
			.sched_ops = col_text(st, 9),
			.agent_version = col_text(st, 10),
			.first_seen_ms = sqlite3_column_int64(st, 11),
			.last_start_ms = sqlite3_column_int64(st, 12),
			.last_end_ms = sqlite3_column_int64(st, 13),
			.agent_restarted_ms = sqlite3_column_int64(st, 14),
			.labels = col_text(st, 15),
		};
		stop = fn(arg, &h);
	}
	return finish(st, rc, stop);
}

int store_sqlite_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_REPORTS);
	int rc, stop = 0;

	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, to);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_report r = {
			.seq = (uint64_t)sqlite3_column_int64(st, 0),
			.start_ms = sqlite3_column_int64(st, 1),
			.end_ms = sqlite3_column_int64(st, 2),
			.dropped = sqlite3_column_int64(st, 3),
		};
		stop = fn(arg, &r);
	}
	return finish(st, rc, stop);
}

/* Walks rows in the column order of ROW_COLS (raw scans add end_ms last). */
static int walk_rows(sqlite3_stmt *st, int64_t width, store_row_fn fn, void *arg)
{
	int rc, stop = 0;

	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_row r = {
			.host_id = sqlite3_column_int64(st, 0),
			.t = sqlite3_column_int64(st, 1),
			.sched_group = col_text(st, 2),
			.kernel = col_text(st, 3),
			.host_hist = sqlite3_column_blob(st, 4),
			.host_hist_len = (size_t)sqlite3_column_bytes(st, 4),
			.series = sqlite3_column_blob(st, 5),
			.series_len = (size_t)sqlite3_column_bytes(st, 5),
			.iocost = sqlite3_column_blob(st, 6),
			.iocost_len = (size_t)sqlite3_column_bytes(st, 6),
		};
		r.end = width ? r.t + width : sqlite3_column_int64(st, 7);
		stop = fn(arg, &r);
	}
	return finish(st, rc, stop);
}

/* scan and scan_hist: the same query, with or without the per-cgroup blobs. */
static int scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, bool hist_only,
		store_row_fn fn, void *arg)
{
	static const enum store_sqlite_stmt which[2][2][2] = {
		/* [hist_only][rollup][all hosts] */
		{ { STORE_SQLITE_SCAN_RAW_HOST, STORE_SQLITE_SCAN_RAW_ALL },
		  { STORE_SQLITE_SCAN_ROLL_HOST, STORE_SQLITE_SCAN_ROLL_ALL } },
		{ { STORE_SQLITE_SCAN_RAW_HOST_H, STORE_SQLITE_SCAN_RAW_ALL_H },
		  { STORE_SQLITE_SCAN_ROLL_HOST_H, STORE_SQLITE_SCAN_ROLL_ALL_H } },
	};
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, which[hist_only][lv != STORE_RAW][host_id < 0]);
	int i = 1;

	if (lv != STORE_RAW)
		sqlite3_bind_int(st, i++, lv);
	if (host_id >= 0)
		sqlite3_bind_int64(st, i++, host_id);
	sqlite3_bind_int64(st, i++, from);
	sqlite3_bind_int64(st, i++, to);
	return walk_rows(st, lv == STORE_RAW ? 0 : lv == STORE_MINUTE ? STORE_MINUTE_MS : STORE_HOUR_MS, fn, arg);
}

int store_sqlite_scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,
		      store_row_fn fn, void *arg)
{
	return scan(base, lv, host_id, from, to, false, fn, arg);
}

int store_sqlite_scan_hist(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,
			   store_row_fn fn, void *arg)
{
	return scan(base, lv, host_id, from, to, true, fn, arg);
}

int store_sqlite_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_LATEST);

	sqlite3_bind_int64(st, 1, host_id);
	return walk_rows(st, 0, fn, arg);
}

int store_sqlite_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st;
	int rc, stop = 0, i = 1;

	st = store_sqlite_stmt(s, lv == STORE_RAW ? STORE_SQLITE_HOSTS_IN_RAW : STORE_SQLITE_HOSTS_IN_ROLL);
	if (lv != STORE_RAW)
		sqlite3_bind_int(st, i++, lv);
	sqlite3_bind_int64(st, i++, from);
	sqlite3_bind_int64(st, i++, to);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
		stop = fn(arg, sqlite3_column_int64(st, 0), 0);
	return finish(st, rc, stop);
}

int store_sqlite_fleet_scan(struct store *base, enum store_level lv, const char *dim, int64_t from, int64_t to,
			    store_fleet_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_FLEET_SCAN);
	int rc, stop = 0;

	sqlite3_bind_int(st, 1, lv);
	sqlite3_bind_text(st, 2, dim, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_fleet_row r = {
			.t = sqlite3_column_int64(st, 0),
			.key = col_text(st, 1),
			.hosts = sqlite3_column_int64(st, 2),
			.hist = sqlite3_column_blob(st, 3),
			.hist_len = (size_t)sqlite3_column_bytes(st, 3),
		};
		stop = fn(arg, &r);
	}
	return finish(st, rc, stop);
}

int store_sqlite_health_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_health_fn fn,
			     void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = range_stmt(s, STORE_SQLITE_HEALTH_ALL, STORE_SQLITE_HEALTH_HOST, host_id, from, to);
	int rc, stop = 0;

	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_health h = {
			.host_id = sqlite3_column_int64(st, 0),
			.start_ms = sqlite3_column_int64(st, 1),
			.end_ms = sqlite3_column_int64(st, 2),
			.health = col_text(st, 3),
		};
		stop = fn(arg, &h);
	}
	return finish(st, rc, stop);
}

int store_sqlite_exits_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_exit_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = range_stmt(s, STORE_SQLITE_EXITS_ALL, STORE_SQLITE_EXITS_HOST, host_id, from, to);
	int rc, stop = 0;

	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_exit e = {
			.host_id = sqlite3_column_int64(st, 0),
			.t_ms = sqlite3_column_int64(st, 1),
			.ops = col_text(st, 2),
			.kind = col_text(st, 3),
			.reason = col_text(st, 4),
			.message = col_text(st, 5),
		};
		stop = fn(arg, &e);
	}
	return finish(st, rc, stop);
}

int store_sqlite_label_hosts(struct store *base, const char *pair, int64_t from, int64_t to, store_name_fn fn,
			     void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_LABEL_HOSTS);
	int rc, stop = 0;

	sqlite3_bind_text(st, 1, sqlite3_mprintf(",%s,", pair), -1, sqlite3_free);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, to);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
		stop = fn(arg, col_text(st, 0));
	return finish(st, rc, stop);
}

int store_sqlite_experiments(struct store *base, int64_t id, store_experiment_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, id > 0 ? STORE_SQLITE_EXPERIMENTS_ONE : STORE_SQLITE_EXPERIMENTS_ALL);
	int rc, stop = 0;

	if (id > 0)
		sqlite3_bind_int64(st, 1, id);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_experiment e = {
			.id = sqlite3_column_int64(st, 0),
			.created_ms = sqlite3_column_int64(st, 1),
			.name = col_text(st, 2),
			.definition = col_text(st, 3),
		};
		stop = fn(arg, &e);
	}
	return finish(st, rc, stop);
}

/* The experiment writes run on a reader's handle: one autocommit statement each, rare, and
 * the busy timeout waits out the ingest writer's transaction. */
int store_sqlite_experiment_put(struct store *base, const char *name, const char *definition, int64_t created_ms,
				int64_t *id)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_EXPERIMENT_PUT);
	int rc, ret;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, definition, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, created_ms);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		rc = sqlite3_step(st);
		ret = rc == SQLITE_DONE ? 0 : -1;
	} else {
		ret = rc == SQLITE_DONE ? 1 : -1; /* no row: the name is taken */
	}
	sqlite3_reset(st);
	return ret;
}

int store_sqlite_experiment_delete(struct store *base, int64_t id)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_EXPERIMENT_DELETE);
	int rc;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	return sqlite3_changes(s->db) > 0 ? 0 : 1;
}
