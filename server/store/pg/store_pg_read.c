/* store_pg_read.c - the PostgreSQL backend's reads: the same statements as
 * the SQLite ones, with results in binary format. Each query's rows arrive
 * whole (one PGresult); blobs are handed to the callback without copying and
 * live until the result is cleared after the walk. */
#include "server/store/pg/store_pg.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/labels.h"

static PGresult *query(struct store *base, enum store_pg_stmt which, const struct pg_params *p)
{
	struct store_pg *s = (struct store_pg *)base;

	PGresult *r = store_pg_ready(s) < 0 ? NULL : pg_run(s->c, store_pg_name(which), p);

	/* Reads are idempotent: one more try on a connection dropped while idle. */
	if (!r && PQstatus(s->c) != CONNECTION_OK && store_pg_ready(s) == 0)
		r = pg_run(s->c, store_pg_name(which), p);
	return r;
}

int store_pg_hosts(struct store *base, const char *machine_id, store_host_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int stop = 0;

	if (machine_id)
		pg_p_text(&p, machine_id);
	r = query(base, machine_id ? STORE_PG_HOSTS_ONE : STORE_PG_HOSTS_ALL, &p);
	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_host h = {
			.id = pg_int(r, i, 0),
			.machine_id = pg_text(r, i, 1),
			.hostname = pg_text(r, i, 2),
			.kernel = pg_text(r, i, 3),
			.arch = pg_text(r, i, 4),
			.cpus = pg_int(r, i, 5),
			.l3_json = pg_text(r, i, 6),
			.disks_json = pg_text(r, i, 7),
			.sched_state = pg_text(r, i, 8),
			.sched_ops = pg_text(r, i, 9),
			.agent_version = pg_text(r, i, 10),
			.first_seen_ms = pg_int(r, i, 11),
			.last_start_ms = pg_int(r, i, 12),
			.last_end_ms = pg_int(r, i, 13),
			.agent_restarted_ms = pg_int(r, i, 14),
			.labels = pg_text(r, i, 15),
		};
		stop = fn(arg, &h);
	}
	PQclear(r);
	return stop;
}

int store_pg_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int stop = 0;

	pg_p_int(&p, host_id);
	pg_p_int(&p, from);
	pg_p_int(&p, to);
	r = query(base, STORE_PG_REPORTS, &p);
	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_report rep = {
			.seq = (uint64_t)pg_int(r, i, 0),
			.start_ms = pg_int(r, i, 1),
			.end_ms = pg_int(r, i, 2),
			.dropped = pg_int(r, i, 3),
		};
		stop = fn(arg, &rep);
	}
	PQclear(r);
	return stop;
}

/* Walks rows in the column order of ROW_COLS (raw scans add end_ms last); clears r. */
static int walk_rows(PGresult *r, int64_t width, store_row_fn fn, void *arg)
{
	int stop = 0;

	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_row row = {
			.host_id = pg_int(r, i, 0),
			.t = pg_int(r, i, 1),
			.sched_group = pg_text(r, i, 2),
			.kernel = pg_text(r, i, 3),
		};
		row.host_hist = pg_blob(r, i, 4, &row.host_hist_len);
		row.series = pg_blob(r, i, 5, &row.series_len);
		row.iocost = pg_blob(r, i, 6, &row.iocost_len);
		row.end = width ? row.t + width : pg_int(r, i, 7);
		stop = fn(arg, &row);
	}
	PQclear(r);
	return stop;
}

/* scan and scan_hist: the same query, with or without the per-cgroup blobs. */
static int scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, bool hist_only,
		store_row_fn fn, void *arg)
{
	static const enum store_pg_stmt stmts[2][2][2] = {
		/* [hist_only][rollup][all hosts] */
		{ { STORE_PG_SCAN_RAW_HOST, STORE_PG_SCAN_RAW_ALL },
		  { STORE_PG_SCAN_ROLL_HOST, STORE_PG_SCAN_ROLL_ALL } },
		{ { STORE_PG_SCAN_RAW_HOST_H, STORE_PG_SCAN_RAW_ALL_H },
		  { STORE_PG_SCAN_ROLL_HOST_H, STORE_PG_SCAN_ROLL_ALL_H } },
	};
	struct pg_params p = { 0 };
	enum store_pg_stmt which = stmts[hist_only][lv != STORE_RAW][host_id < 0];

	if (lv != STORE_RAW)
		pg_p_int(&p, lv);
	if (host_id >= 0)
		pg_p_int(&p, host_id);
	pg_p_int(&p, from);
	pg_p_int(&p, to);
	return walk_rows(query(base, which, &p),
			 lv == STORE_RAW      ? 0
			 : lv == STORE_MINUTE ? STORE_MINUTE_MS
					      : STORE_HOUR_MS,
			 fn, arg);
}

int store_pg_scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, store_row_fn fn,
		  void *arg)
{
	return scan(base, lv, host_id, from, to, false, fn, arg);
}

int store_pg_scan_hist(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,
		       store_row_fn fn, void *arg)
{
	return scan(base, lv, host_id, from, to, true, fn, arg);
}

int store_pg_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg)
{
	struct pg_params p = { 0 };

	pg_p_int(&p, host_id);
	return walk_rows(query(base, STORE_PG_LATEST, &p), 0, fn, arg);
}

int store_pg_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int stop = 0;

	if (lv != STORE_RAW)
		pg_p_int(&p, lv);
	pg_p_int(&p, from);
	pg_p_int(&p, to);
	r = query(base, lv == STORE_RAW ? STORE_PG_HOSTS_IN_RAW : STORE_PG_HOSTS_IN_ROLL, &p);
	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++)
		stop = fn(arg, pg_int(r, i, 0), 0);
	PQclear(r);
	return stop;
}

int store_pg_fleet_scan(struct store *base, enum store_level lv, const char *dim, int64_t from, int64_t to,
			store_fleet_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int stop = 0;

	pg_p_int(&p, lv);
	pg_p_text(&p, dim);
	pg_p_int(&p, from);
	pg_p_int(&p, to);
	r = query(base, STORE_PG_FLEET_SCAN, &p);
	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_fleet_row f = {
			.t = pg_int(r, i, 0),
			.key = pg_text(r, i, 1),
			.hosts = pg_int(r, i, 2),
		};
		f.hist = pg_blob(r, i, 3, &f.hist_len);
		stop = fn(arg, &f);
	}
	PQclear(r);
	return stop;
}

/* Rows of one host (host_id >= 0, statement one) or of all (all) in [from, to); NULL on error. */
static PGresult *range_query(struct store *base, enum store_pg_stmt all, enum store_pg_stmt one, int64_t host_id,
			     int64_t from, int64_t to)
{
	struct pg_params p = { 0 };

	if (host_id >= 0)
		pg_p_int(&p, host_id);
	pg_p_int(&p, from);
	pg_p_int(&p, to);
	return query(base, host_id < 0 ? all : one, &p);
}

int store_pg_health_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_health_fn fn, void *arg)
{
	PGresult *r = range_query(base, STORE_PG_HEALTH_ALL, STORE_PG_HEALTH_HOST, host_id, from, to);
	int stop = 0;

	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_health h = {
			.host_id = pg_int(r, i, 0),
			.start_ms = pg_int(r, i, 1),
			.end_ms = pg_int(r, i, 2),
			.health = pg_text(r, i, 3),
		};
		stop = fn(arg, &h);
	}
	PQclear(r);
	return stop;
}

int store_pg_exits_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_exit_fn fn, void *arg)
{
	PGresult *r = range_query(base, STORE_PG_EXITS_ALL, STORE_PG_EXITS_HOST, host_id, from, to);
	int stop = 0;

	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_exit e = {
			.host_id = pg_int(r, i, 0),
			.t_ms = pg_int(r, i, 1),
			.ops = pg_text(r, i, 2),
			.kind = pg_text(r, i, 3),
			.reason = pg_text(r, i, 4),
			.message = pg_text(r, i, 5),
		};
		stop = fn(arg, &e);
	}
	PQclear(r);
	return stop;
}

int store_pg_label_hosts(struct store *base, const char *pair, int64_t from, int64_t to, store_name_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	char key[LABELS_TEXT_MAX + 3];
	PGresult *r;
	int stop = 0;

	snprintf(key, sizeof(key), ",%s,", pair);
	pg_p_text(&p, key);
	pg_p_int(&p, from);
	pg_p_int(&p, to);
	r = query(base, STORE_PG_LABEL_HOSTS, &p);
	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++)
		stop = fn(arg, pg_text(r, i, 0));
	PQclear(r);
	return stop;
}

int store_pg_experiments(struct store *base, int64_t id, store_experiment_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int stop = 0;

	if (id > 0)
		pg_p_int(&p, id);
	r = query(base, id > 0 ? STORE_PG_EXPERIMENTS_ONE : STORE_PG_EXPERIMENTS_ALL, &p);
	if (!r)
		return -1;
	for (int i = 0; !stop && i < PQntuples(r); i++) {
		struct store_experiment e = {
			.id = pg_int(r, i, 0),
			.created_ms = pg_int(r, i, 1),
			.name = pg_text(r, i, 2),
			.definition = pg_text(r, i, 3),
		};
		stop = fn(arg, &e);
	}
	PQclear(r);
	return stop;
}

/* The experiment writes run on a reader's connection, one autocommit statement each. They are
 * not retried on a dropped connection (a put that did commit would come back as a taken name). */
int store_pg_experiment_put(struct store *base, const char *name, const char *definition, int64_t created_ms,
			    int64_t *id)
{
	struct store_pg *s = (struct store_pg *)base;
	struct pg_params p = { 0 };
	PGresult *r;
	int rc = 1;

	pg_p_text(&p, name);
	pg_p_text(&p, definition);
	pg_p_int(&p, created_ms);
	r = store_pg_ready(s) < 0 ? NULL : pg_run(s->c, store_pg_name(STORE_PG_EXPERIMENT_PUT), &p);
	if (!r)
		return -1;
	if (PQntuples(r) == 1) {
		*id = pg_int(r, 0, 0);
		rc = 0;
	}
	PQclear(r);
	return rc;
}

int store_pg_experiment_delete(struct store *base, int64_t id)
{
	struct store_pg *s = (struct store_pg *)base;
	struct pg_params p = { 0 };
	PGresult *r;
	int n;

	pg_p_int(&p, id);
	r = store_pg_ready(s) < 0 ? NULL : pg_run(s->c, store_pg_name(STORE_PG_EXPERIMENT_DELETE), &p);
	if (!r)
		return -1;
	n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n > 0 ? 0 : 1;
}
