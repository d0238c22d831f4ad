/* store_sqlite_read.c - the SQLite backend's reads: hosts, report lists and
 * row scans per level. Every scan walks an index in time order and hands
 * blobs to the caller without copying; a callback's non-zero return stops
 * the scan and is returned. */
#include "server/store/sqlite/store_sqlite.h"

#include <stdlib.h>

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

/* A read of rows and chunks in one snapshot: the chunk pass swaps a host's rows for its chunks, and
 * between two statements of a read in autocommit mode it would see both or neither. Opens a read
 * transaction unless one is open already (the rollup worker reads inside its own); whether it did. */
static bool snapshot_begin(struct store_sqlite *s)
{
	return sqlite3_get_autocommit(s->db) && sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

/* Ends what snapshot_begin opened; the read's result rc, or -1 when it cannot end. */
static int snapshot_end(struct store_sqlite *s, bool began, int rc)
{
	if (began && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return rc ? rc : -1;
	}
	return rc;
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

static int report_cmp(const void *a, const void *b)
{
	const struct store_report *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->start_ms < y->start_ms ? -1 : x->start_ms > y->start_ms;
}

/* Appends r to the array *v of *n (capacity *cap): 0 or -1. */
static int reports_add(struct store_report **v, size_t *n, size_t *cap, const struct store_report *r)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct store_report *grown = realloc(*v, ncap * sizeof(*grown));

		if (!grown)
			return -1;
		*v = grown;
		*cap = ncap;
	}
	(*v)[(*n)++] = *r;
	return 0;
}

/* The host's reports from rows and chunks, by seq. */
static int reports_read(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	struct report_chunks *c = store_sqlite_chunks(s);
	struct report_chunks_cursor cur = { 0 };
	struct report_chunk_row cr;
	struct store_report *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int64_t h;
	int rc, stop = 0;

	if (!c || report_chunks_cursor_open(&cur, c, host_id, from, to, REPORT_CHUNKS_META))
		goto fail;
	while ((rc = report_chunks_cursor_next(&cur, &h, &cr)) == 1) {
		struct store_report r = {
			.seq = (uint64_t)cr.seq, .start_ms = cr.start_ms, .end_ms = cr.end_ms, .dropped = cr.dropped
		};

		if (reports_add(&v, &n, &cap, &r))
			goto fail;
	}
	if (rc < 0)
		goto fail;
	report_chunks_cursor_close(&cur);
	st = store_sqlite_stmt(s, STORE_SQLITE_REPORTS);
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

		if (n == 0) /* no chunk holds any: the rows as they come */
			stop = fn(arg, &r);
		else if (reports_add(&v, &n, &cap, &r))
			stop = -1;
	}
	rc = finish(st, rc, stop);
	if (rc == 0 && n) {
		qsort(v, n, sizeof(*v), report_cmp);
		for (size_t i = 0; i < n && !rc; i++)
			rc = fn(arg, &v[i]);
	}
	free(v);
	return rc;
fail:
	report_chunks_cursor_close(&cur);
	free(v);
	return -1;
}

/* The row st is on, in the column order of ROW_COLS (raw scans add end_ms last). */
static void row_of(sqlite3_stmt *st, int64_t width, struct store_row *r)
{
	*r = (struct store_row){
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
	r->end = width ? r->t + width : sqlite3_column_int64(st, 7);
}

/* A chunk's report as a raw row. */
static void chunk_row(int64_t host_id, const struct report_chunk_row *c, struct store_row *r)
{
	*r = (struct store_row){
		.host_id = host_id,
		.t = c->start_ms,
		.end = c->end_ms,
		.sched_group = c->sched_group,
		.kernel = c->kernel,
		.host_hist = c->host_hist,
		.host_hist_len = c->host_hist_len,
		.series = c->series,
		.series_len = c->series_len,
		.iocost = c->iocost,
		.iocost_len = c->iocost_len,
	};
}

/* Walks rows in the column order of ROW_COLS (raw scans add end_ms last). */
static int walk_rows(sqlite3_stmt *st, int64_t width, store_row_fn fn, void *arg)
{
	int rc, stop = 0;

	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_row r;

		row_of(st, width, &r);
		stop = fn(arg, &r);
	}
	return finish(st, rc, stop);
}

/* What a merge of rows and chunk reports hands each of them to. */
struct merge_to {
	int (*row)(sqlite3_stmt *st, void *ctx);
	int (*chunk)(int64_t host_id, const struct report_chunk_row *r, void *ctx);
	void *ctx;
};

/* Steps st (bound; its column start_col the start time, in order) and the cursor's reports together
 * by start time, a chunk's report first on a tie (it is the older): the callbacks' stop value, 0, -1. */
static int merge(sqlite3_stmt *st, int start_col, struct report_chunks_cursor *cur, const struct merge_to *to)
{
	struct report_chunk_row cr;
	int64_t host;
	int crc = report_chunks_cursor_next(cur, &host, &cr), rc = sqlite3_step(st), stop = 0;

	while (!stop) {
		bool row = rc == SQLITE_ROW, item = crc == 1;

		if (crc < 0 || (!row && rc != SQLITE_DONE)) {
			stop = -1;
			break;
		}
		if (!row && !item)
			break;
		if (item && (!row || cr.start_ms <= sqlite3_column_int64(st, start_col))) {
			stop = to->chunk(host, &cr, to->ctx);
			crc = report_chunks_cursor_next(cur, &host, &cr);
		} else {
			stop = to->row(st, to->ctx);
			rc = sqlite3_step(st);
		}
	}
	sqlite3_reset(st);
	return stop;
}

struct row_ctx {
	store_row_fn fn;
	void *arg;
};

static int row_from_stmt(sqlite3_stmt *st, void *ctx)
{
	struct row_ctx *c = ctx;
	struct store_row r;

	row_of(st, 0, &r);
	return c->fn(c->arg, &r);
}

static int row_from_chunk(int64_t host_id, const struct report_chunk_row *cr, void *ctx)
{
	struct row_ctx *c = ctx;
	struct store_row r;

	chunk_row(host_id, cr, &r);
	return c->fn(c->arg, &r);
}

/* The raw rows of one host merged with its chunks' reports by time, or of all hosts: the rows, then
 * the chunks' reports. */
static int scan_raw(struct store_sqlite *s, sqlite3_stmt *st, int64_t host_id, int64_t from, int64_t to, bool hist_only,
		    store_row_fn fn, void *arg)
{
	struct report_chunks *c = store_sqlite_chunks(s);
	struct report_chunks_cursor cur = { 0 };
	struct row_ctx ctx = { fn, arg };
	const struct merge_to mt = { row_from_stmt, row_from_chunk, &ctx };
	struct report_chunk_row cr;
	int64_t h;
	int rc;

	if (!c ||
	    report_chunks_cursor_open(&cur, c, host_id, from, to, hist_only ? REPORT_CHUNKS_HIST : REPORT_CHUNKS_ALL)) {
		sqlite3_reset(st);
		report_chunks_cursor_close(&cur);
		return -1;
	}
	if (host_id >= 0) {
		rc = merge(st, 1, &cur, &mt);
	} else {
		rc = walk_rows(st, 0, fn, arg);
		while (rc == 0 && (rc = report_chunks_cursor_next(&cur, &h, &cr)) == 1)
			rc = row_from_chunk(h, &cr, &ctx);
	}
	report_chunks_cursor_close(&cur);
	return rc;
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
	if (lv == STORE_RAW) {
		bool began = snapshot_begin(s);

		return snapshot_end(s, began, scan_raw(s, st, host_id, from, to, hist_only, fn, arg));
	}
	return walk_rows(st, lv == STORE_MINUTE ? STORE_MINUTE_MS : STORE_HOUR_MS, fn, arg);
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

/* The host's latest raw report: its latest row, or its chunks' latest report when that starts later. */
static int latest_read(struct store *base, int64_t host_id, store_row_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	struct report_chunks *c = store_sqlite_chunks(s);
	struct report_chunks_cursor cur = { 0 };
	struct report_chunk_row cr;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_LATEST);
	int64_t ms, h;
	int rc, found = 0;

	sqlite3_bind_int64(st, 1, host_id);
	rc = c ? report_chunks_last_ms(c, host_id, &ms) : -1;
	if (rc < 0) {
		sqlite3_reset(st);
		return -1;
	}
	if (rc == 0)
		return walk_rows(st, 0, fn, arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 1) >= ms) {
		struct store_row r;

		row_of(st, 0, &r);
		rc = fn(arg, &r);
		sqlite3_reset(st);
		return rc;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (report_chunks_cursor_open(&cur, c, host_id, ms, ms + 1, REPORT_CHUNKS_ALL))
		goto out;
	/* the report that starts at ms (the first of several, as the rows' own ties fall either way) */
	rc = report_chunks_cursor_next(&cur, &h, &cr);
	if (rc == 1) {
		struct store_row r;

		found = 1;
		chunk_row(host_id, &cr, &r);
		rc = fn(arg, &r);
	}
out:
	report_chunks_cursor_close(&cur);
	return rc < 0 || !found ? -1 : rc;
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Appends id to the array *v of *n (capacity *cap): 0 or -1. */
static int ids_add(int64_t **v, size_t *n, size_t *cap, int64_t id)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 256;
		int64_t *grown = realloc(*v, ncap * sizeof(*grown));

		if (!grown)
			return -1;
		*v = grown;
		*cap = ncap;
	}
	(*v)[(*n)++] = id;
	return 0;
}

/* The hosts with a raw report starting in [from, to), from rows and chunks, sorted and each once
 * into *v (*n of them): 0 or -1. cur is open on every host's chunks of the range (META). */
static int raw_hosts(struct store_sqlite *s, struct report_chunks_cursor *cur, int64_t from, int64_t to, int64_t **v,
		     size_t *n)
{
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_HOSTS_IN_RAW);
	struct report_chunk_row cr;
	size_t cap = 0, k = 0;
	int64_t h;
	int rc;

	*v = NULL;
	*n = 0;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (ids_add(v, n, &cap, sqlite3_column_int64(st, 0)))
			break;
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	while ((rc = report_chunks_cursor_next(cur, &h, &cr)) == 1)
		if ((*n == 0 || (*v)[*n - 1] != h) && ids_add(v, n, &cap, h))
			return -1;
	if (rc < 0)
		return -1;
	qsort(*v, *n, sizeof(**v), id_cmp);
	for (size_t i = 0; i < *n; i++)
		if (k == 0 || (*v)[k - 1] != (*v)[i])
			(*v)[k++] = (*v)[i];
	*n = k;
	return 0;
}

static int hosts_in_read(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	struct report_chunks *c = lv == STORE_RAW ? store_sqlite_chunks(s) : NULL;
	struct report_chunks_cursor cur = { 0 };
	sqlite3_stmt *st;
	int rc, stop = 0, i = 1;

	if (lv == STORE_RAW) {
		int64_t *v;
		size_t n;

		if (!c || report_chunks_cursor_open(&cur, c, -1, from, to, REPORT_CHUNKS_META))
			goto fail;
		if (cur.nrefs) { /* chunks may hold some: rows' and chunks' hosts together */
			rc = raw_hosts(s, &cur, from, to, &v, &n);
			report_chunks_cursor_close(&cur);
			for (size_t k = 0; rc == 0 && !stop && k < n; k++)
				stop = fn(arg, v[k], 0);
			free(v);
			return rc ? -1 : stop;
		}
		report_chunks_cursor_close(&cur);
	}
	st = store_sqlite_stmt(s, lv == STORE_RAW ? STORE_SQLITE_HOSTS_IN_RAW : STORE_SQLITE_HOSTS_IN_ROLL);
	if (lv != STORE_RAW)
		sqlite3_bind_int(st, i++, lv);
	sqlite3_bind_int64(st, i++, from);
	sqlite3_bind_int64(st, i++, to);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
		stop = fn(arg, sqlite3_column_int64(st, 0), 0);
	return finish(st, rc, stop);
fail:
	report_chunks_cursor_close(&cur);
	return -1;
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

struct health_ctx {
	store_health_fn fn;
	void *arg;
};

static int health_from_stmt(sqlite3_stmt *st, void *ctx)
{
	struct health_ctx *c = ctx;
	struct store_health h = {
		.host_id = sqlite3_column_int64(st, 0),
		.start_ms = sqlite3_column_int64(st, 1),
		.end_ms = sqlite3_column_int64(st, 2),
		.health = col_text(st, 3),
	};

	return c->fn(c->arg, &h);
}

static int health_from_chunk(int64_t host_id, const struct report_chunk_row *r, void *ctx)
{
	struct health_ctx *c = ctx;
	struct store_health h = {
		.host_id = host_id, .start_ms = r->start_ms, .end_ms = r->end_ms, .health = r->health
	};

	return c->fn(c->arg, &h);
}

/* One host's health, rows and chunks merged by time. */
static int health_host(struct store_sqlite *s, struct report_chunks *c, int64_t host_id, int64_t from, int64_t to,
		       struct health_ctx *ctx)
{
	const struct merge_to mt = { health_from_stmt, health_from_chunk, ctx };
	struct report_chunks_cursor cur = { 0 };
	sqlite3_stmt *st = range_stmt(s, STORE_SQLITE_HEALTH_ALL, STORE_SQLITE_HEALTH_HOST, host_id, from, to);
	int rc;

	if (report_chunks_cursor_open(&cur, c, host_id, from, to, REPORT_CHUNKS_META)) {
		sqlite3_reset(st);
		report_chunks_cursor_close(&cur);
		return -1;
	}
	rc = merge(st, 1, &cur, &mt);
	report_chunks_cursor_close(&cur);
	return rc;
}

static int health_read(struct store *base, int64_t host_id, int64_t from, int64_t to, store_health_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	struct report_chunks *c = store_sqlite_chunks(s);
	struct report_chunks_cursor cur = { 0 };
	struct health_ctx ctx = { fn, arg };
	sqlite3_stmt *st;
	int rc, stop = 0;

	if (!c)
		return -1;
	if (host_id >= 0)
		return health_host(s, c, host_id, from, to, &ctx);
	if (report_chunks_cursor_open(&cur, c, -1, from, to, REPORT_CHUNKS_META))
		goto fail;
	if (cur.nrefs) { /* chunks may hold some: host by host, each merged */
		int64_t *v;
		size_t n;

		rc = raw_hosts(s, &cur, from, to, &v, &n);
		report_chunks_cursor_close(&cur);
		for (size_t k = 0; rc == 0 && !stop && k < n; k++) {
			stop = health_host(s, c, v[k], from, to, &ctx);
			rc = stop < 0 ? -1 : 0;
		}
		free(v);
		return rc ? -1 : stop;
	}
	report_chunks_cursor_close(&cur);
	st = range_stmt(s, STORE_SQLITE_HEALTH_ALL, STORE_SQLITE_HEALTH_HOST, -1, from, to);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
		stop = health_from_stmt(st, &ctx);
	return finish(st, rc, stop);
fail:
	report_chunks_cursor_close(&cur);
	return -1;
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

/* The reads above that may read chunks, each in one snapshot (snapshot_begin). */
int store_sqlite_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	bool began = snapshot_begin(s);

	return snapshot_end(s, began, reports_read(base, host_id, from, to, fn, arg));
}

int store_sqlite_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	bool began = snapshot_begin(s);

	return snapshot_end(s, began, latest_read(base, host_id, fn, arg));
}

int store_sqlite_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	bool began = lv == STORE_RAW && snapshot_begin(s);

	return snapshot_end(s, began, hosts_in_read(base, lv, from, to, fn, arg));
}

int store_sqlite_health_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_health_fn fn,
			     void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	bool began = snapshot_begin(s);

	return snapshot_end(s, began, health_read(base, host_id, from, to, fn, arg));
}
