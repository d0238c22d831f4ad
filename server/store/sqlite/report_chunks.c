/* report_chunks.c - see report_chunks.h.
 *
 * The pass walks the hosts in id order, a share of them a call, at most
 * once a period. For each host it counts the rows that may be chunked: keys
 * moved (in report_times, so not staged), start before the bound (older
 * than after_ms and rolled up), minute not waiting for a redo. When enough
 * wait, it reads them by incarnation and start, cuts them into chunks of at
 * most CHUNK_REPORTS reports of one incarnation spanning at most
 * CHUNK_SPAN_MS of start times and CHUNK_SEQ_SPAN seqs, and writes each chunk
 * and deletes its rows' keys. The last chunk of a host is left as rows while
 * it is short and young: it would be written again fuller later.
 *
 * A chunked row loses its keys at once and its row later: rows lie in arrival
 * order, so a host's rows are spread over as many pages as it has rows, and
 * deleting them host by host wrote each page once for each host on it
 * (BENCHMARKS.md, issue 18), while its keys lie together in host order. The
 * rows go in start order, pages at a time: once a pass over every host has
 * ended, the sweep deletes the rows without keys that start before that
 * pass's bound less the sweep lag. A row chunked after the sweep has passed
 * its start is deleted at once with its keys (schema/sqlite/0018's trigger).
 * Until it is swept, readers by time alone leave such a row out
 * (REPORT_CHUNKS_ROW_LIVE); readers by host never see it, having no key.
 *
 * A reader finds the chunks of a time range through last_ms: a chunk
 * overlapping [from, to) has last_ms in [from, to + CHUNK_SPAN_MS). A host's
 * chunks rarely overlap one another (only late reports make them); when they
 * do, a cursor reads all their reports in range and sorts them.
 */
#include "server/store/sqlite/report_chunks.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_REPORTS 60                  /* ten minutes of a host at the agent's 10 s */
#define CHUNK_SPAN_MS (3600 * 1000LL)     /* start times a chunk may span */
#define CHUNK_SEQ_SPAN 1024LL             /* seqs a chunk may span */
#define STRAGGLER_MS (3600 * 1000LL)      /* a short tail this much past the bound is chunked anyway */
#define HOST_ROWS_MAX (5 * CHUNK_REPORTS) /* rows of one host read by one call */
#define CALL_REPORTS (5 * CHUNK_REPORTS)  /* reports one call chunks */
#define HOSTS_A_CALL 512                  /* hosts one call looks at */
#define DEFAULT_AFTER_MS (15 * 60 * 1000LL)
#define DEFAULT_PERIOD_MS (60 * 1000LL)
#define SWEEP_ROWS 500 /* rows one sweep transaction looks at (more when they share a start) */
/* How far behind a pass's bound the sweep stays: a host at the agent's 10 s fills its last chunk within
 * 10 minutes of its first report passing the bound; a row chunked after the sweep passed it costs what
 * it did before the sweep. */
#define DEFAULT_SWEEP_LAG_MS (15 * 60 * 1000LL)

enum {
	RC_HOSTS,
	RC_COUNT,
	RC_ROWS,
	RC_INSERT,
	RC_DELETE_ROW,
	RC_ROW_EXISTS,
	RC_HAS,
	RC_META,
	RC_SECTIONS,
	RC_REFS_HOST,
	RC_REFS_ALL,
	RC_EXPIRE,
	RC_LAST,
	RC_NEWEST,
	RC_HORIZON_GET,
	RC_HORIZON_PUT,
	RC_DIRTY,
	RC_BOUND,
	RC_DELETE_TIME,
	RC_DELETE_KEY,
	RC_OLDEST,
	RC_SWEEP_TO,
	RC_SWEEP,
	RC_STMTS,
};

static const char *const sql[RC_STMTS] = {
	[RC_HOSTS] = "SELECT id FROM hosts WHERE id > ?1 ORDER BY id LIMIT ?2",
	[RC_COUNT] = "SELECT count(*), min(start_ms) FROM report_times WHERE host_id = ?1 AND start_ms < ?2",
	[RC_ROWS] = "SELECT r.id, r.seq, r.start_ms, r.end_ms, r.received_ms, r.dropped, r.sched_group, r.kernel, "
		    "r.incarnation, r.health, r.host_hist, r.series, r.iocost FROM report_times t "
		    "JOIN reports r ON r.id = t.id WHERE t.host_id = ?1 AND t.start_ms < ?2 AND NOT EXISTS "
		    "(SELECT 1 FROM rollup_dirty d WHERE d.host_id = ?1 AND d.t = t.start_ms - t.start_ms % 60000) "
		    "AND t.id < ?4 ORDER BY r.incarnation, t.start_ms, r.seq LIMIT ?3",
	[RC_INSERT] = "INSERT INTO report_chunks (host_id, incarnation, first_seq, last_seq, first_ms, last_ms, n, "
		      "meta, host_hist, iocost, head, counts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[RC_DELETE_ROW] = "DELETE FROM reports WHERE id = ?1",
	[RC_ROW_EXISTS] = "SELECT 1 FROM reports WHERE id = ?1",
	[RC_HAS] = "SELECT id FROM report_chunks WHERE host_id = ?1 AND incarnation = ?2 AND first_seq <= ?3 "
		   "AND first_seq >= ?3 - ?4 AND last_seq >= ?3",
	[RC_META] = "SELECT meta FROM report_chunks WHERE id = ?1",
	[RC_SECTIONS] = "SELECT meta, host_hist, iocost, head, counts FROM report_chunks WHERE id = ?1",
	[RC_REFS_HOST] = "SELECT id, host_id, first_ms, last_ms FROM report_chunks WHERE host_id = ?1 "
			 "AND last_ms >= ?2 AND last_ms < ?3 + ?4 AND first_ms < ?3 ORDER BY first_ms, id",
	[RC_REFS_ALL] = "SELECT id, host_id, first_ms, last_ms FROM report_chunks WHERE last_ms >= ?1 "
			"AND last_ms < ?2 + ?3 AND first_ms < ?2 ORDER BY host_id, first_ms, id",
	[RC_EXPIRE] = "DELETE FROM report_chunks WHERE id IN (SELECT id FROM report_chunks c WHERE last_ms < ?1 "
		      "AND NOT EXISTS (SELECT 1 FROM rollup_dirty d WHERE d.host_id = c.host_id "
		      "AND d.t >= c.first_ms - 60000 AND d.t <= c.last_ms) LIMIT ?2)",
	[RC_LAST] = "SELECT max(last_ms) FROM report_chunks WHERE host_id = ?1",
	[RC_NEWEST] = "SELECT max(last_ms) FROM report_chunks",
	[RC_HORIZON_GET] = "SELECT CAST(value AS INTEGER) FROM server_meta WHERE key = 'raw_horizon_ms'",
	[RC_HORIZON_PUT] = "INSERT INTO server_meta (key, value) VALUES ('raw_horizon_ms', CAST(?1 AS TEXT)) "
			   "ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), "
			   "CAST(excluded.value AS INTEGER)) AS TEXT)",
	[RC_DIRTY] = "SELECT 1 FROM rollup_dirty WHERE host_id = ?1 AND t = ?2",
	[RC_BOUND] = "SELECT " REPORT_CHUNKS_STAGE_BOUND,
	[RC_DELETE_TIME] = "DELETE FROM report_times WHERE host_id = ?1 AND start_ms = ?2 AND id = ?3",
	[RC_DELETE_KEY] = "DELETE FROM report_keys WHERE host_id = ?1 AND incarnation = ?2 AND seq = ?3 AND id = ?4",
	[RC_OLDEST] = "SELECT min(start_ms) FROM reports",
	[RC_SWEEP_TO] = "SELECT start_ms FROM reports WHERE start_ms >= ?1 AND start_ms < ?2 ORDER BY start_ms "
			"LIMIT 1 OFFSET ?3",
	[RC_SWEEP] =
	    "DELETE FROM reports WHERE start_ms >= ?1 AND start_ms < ?2 AND NOT " REPORT_CHUNKS_ROW_LIVE("reports"),
};

struct report_chunks {
	sqlite3 *db;
	sqlite3_stmt *st[RC_STMTS];
	int64_t after_ms, period_ms;
	int min_reports;
	int64_t sweep_lag_ms;
	int64_t cursor;      /* the pass's last host (0: a new pass starts) */
	int64_t next_pass;   /* when the next pass may start */
	int64_t pass_before; /* the lowest bound of the pass under way */
	int64_t settled_ms;  /* rows starting before this may be swept: a whole pass has looked at them */
	int64_t swept_ms;    /* rows starting before this were swept: chunked, they are deleted at once */
	bool swept_known;    /* swept_ms is set (the oldest row's start when the handle began) */
};

/* A row read to be chunked: what its keys are found by. */
struct row_key {
	int64_t id, start_ms, seq;
};

/* One report of a cursor's sorted items: its row and, after it, its strings and blobs. */
struct chunk_item {
	int64_t host_id;
	struct report_chunk_row r;
};

struct report_chunks *report_chunks_new(sqlite3 *db)
{
	struct report_chunks *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->db = db;
	c->after_ms = DEFAULT_AFTER_MS;
	c->min_reports = CHUNK_REPORTS;
	c->period_ms = DEFAULT_PERIOD_MS;
	c->sweep_lag_ms = DEFAULT_SWEEP_LAG_MS;
	c->settled_ms = INT64_MIN;
	return c;
}

void report_chunks_free(struct report_chunks *c)
{
	if (!c)
		return;
	for (int i = 0; i < RC_STMTS; i++)
		sqlite3_finalize(c->st[i]);
	free(c);
}

void report_chunks_configure(struct report_chunks *c, int64_t after_ms, int min_reports, int64_t period_ms,
			     int64_t sweep_lag_ms)
{
	c->after_ms = after_ms < 0 ? -1 : after_ms;
	c->min_reports = min_reports < 1 ? 1 : min_reports > CHUNK_REPORTS ? CHUNK_REPORTS : min_reports;
	c->period_ms = period_ms < 0 ? 0 : period_ms;
	c->sweep_lag_ms = sweep_lag_ms < 0 ? 0 : sweep_lag_ms;
}

/* Statement i, reset and cleared; NULL when it does not prepare. */
static sqlite3_stmt *stmt(struct report_chunks *c, int i)
{
	if (!c->st[i] && sqlite3_prepare_v3(c->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &c->st[i], NULL) != SQLITE_OK)
		return NULL;
	sqlite3_reset(c->st[i]);
	sqlite3_clear_bindings(c->st[i]);
	return c->st[i];
}

static void bind_blob(sqlite3_stmt *st, int i, const struct blob *b)
{
	sqlite3_bind_blob64(st, i, b->p ? (const void *)b->p : "", b->len, SQLITE_STATIC);
}

/* A chunk being cut from a host's rows: the writer and what its row says of it. */
struct cut {
	struct report_chunk_writer w;
	char *incarnation;
	int64_t first_seq, last_seq, first_ms, last_ms;
	size_t first_row, n;                    /* its rows: rows[first_row .. first_row + n) */
	struct blob sec[REPORT_CHUNK_SECTIONS]; /* its sections once finished */
	bool ready;                             /* to be written */
};

/* Step of a statement that changes rows: 0 or -1. */
static int run(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Inside the write transaction: takes row r out of the raw rows now chunked. Its keys go; so does the row
 * when the sweep has passed its start (else the sweep deletes it with its neighbours). 0 or -1. */
static int row_chunked(struct report_chunks *c, int64_t host_id, const char *incarnation, const struct row_key *r)
{
	sqlite3_stmt *st;

	if (r->start_ms < c->swept_ms) { /* schema/sqlite/0018's trigger takes the keys */
		if (!(st = stmt(c, RC_DELETE_ROW)))
			return -1;
		sqlite3_bind_int64(st, 1, r->id);
		return run(st);
	}
	if (!(st = stmt(c, RC_DELETE_TIME)))
		return -1;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, r->start_ms);
	sqlite3_bind_int64(st, 3, r->id);
	if (run(st) || !(st = stmt(c, RC_DELETE_KEY)))
		return -1;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_text(st, 2, incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->seq);
	sqlite3_bind_int64(st, 4, r->id);
	return run(st);
}

/* Inside the write transaction: writes chunk k and takes its rows out, unless one of them is gone since it
 * was read (retention); 0 or -1. */
static int cut_write(struct report_chunks *c, int64_t host_id, struct cut *k, const struct row_key *rows)
{
	static const int col[REPORT_CHUNK_SECTIONS] = {
		[REPORT_CHUNK_META] = 8,  [REPORT_CHUNK_HOST_HIST] = 9, [REPORT_CHUNK_IOCOST] = 10,
		[REPORT_CHUNK_HEAD] = 11, [REPORT_CHUNK_COUNTS] = 12,
	};
	sqlite3_stmt *st = NULL;

	for (size_t i = 0; i < k->n; i++) {
		int found;

		if (!(st = stmt(c, RC_ROW_EXISTS)))
			return -1;
		sqlite3_bind_int64(st, 1, rows[k->first_row + i].id);
		found = sqlite3_step(st);
		sqlite3_reset(st);
		if (found == SQLITE_DONE)
			return 0;
		if (found != SQLITE_ROW)
			return -1;
	}
	if (!(st = stmt(c, RC_INSERT)))
		return -1;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_text(st, 2, k->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, k->first_seq);
	sqlite3_bind_int64(st, 4, k->last_seq);
	sqlite3_bind_int64(st, 5, k->first_ms);
	sqlite3_bind_int64(st, 6, k->last_ms);
	sqlite3_bind_int64(st, 7, (int64_t)k->n);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		bind_blob(st, col[s], &k->sec[s]);
	if (run(st))
		return -1;
	for (size_t i = 0; i < k->n; i++)
		if (row_chunked(c, host_id, k->incarnation, &rows[k->first_row + i]))
			return -1;
	return 0;
}

/* Writes the ready chunks in one transaction, the only time the pass holds the database lock: 0 or -1. */
static int cuts_write(struct report_chunks *c, int64_t host_id, struct cut *cuts, size_t ncuts,
		      const struct row_key *rows)
{
	if (sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	for (size_t i = 0; i < ncuts; i++) {
		if (cuts[i].ready && cut_write(c, host_id, &cuts[i], rows)) {
			sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

static void cut_free(struct cut *k)
{
	report_chunk_writer_free(&k->w);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		blob_free(&k->sec[s]);
	free(k->incarnation);
	memset(k, 0, sizeof(*k));
}

static const void *col_blob(sqlite3_stmt *st, int i, size_t *len)
{
	*len = (size_t)sqlite3_column_bytes(st, i);
	return *len ? sqlite3_column_blob(st, i) : NULL;
}

/* Whether row r of incarnation inc fits in chunk k (which has reports). */
static bool cut_fits(const struct cut *k, const char *inc, const struct report_chunk_row *r)
{
	int64_t lo = r->seq < k->first_seq ? r->seq : k->first_seq, hi = r->seq > k->last_seq ? r->seq : k->last_seq;

	return k->n < CHUNK_REPORTS && strcmp(inc, k->incarnation) == 0 && r->start_ms - k->first_ms <= CHUNK_SPAN_MS &&
	       (uint64_t)hi - (uint64_t)lo <= (uint64_t)CHUNK_SEQ_SPAN;
}

/* Chunks host's rows that start before `before` and whose ids are below `bound` (REPORT_CHUNKS_STAGE_BOUND):
 * the number of reports chunked, or -1; *more when it read as many rows as it may (more may wait). The
 * chunks are cut while the rows are read and written after, when no statement reads them. */
static int compact_host(struct report_chunks *c, int64_t host_id, int64_t before, int64_t bound, bool *more)
{
	struct cut *cuts = NULL, *k = NULL;
	size_t ncuts = 0, nrows = 0, done = 0;
	struct row_key *rows = NULL;
	sqlite3_stmt *st = stmt(c, RC_ROWS);
	int rc, ret = -1;

	rows = malloc(HOST_ROWS_MAX * sizeof(*rows));
	cuts = calloc(HOST_ROWS_MAX, sizeof(*cuts));
	if (!st || !rows || !cuts)
		goto out;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, before);
	sqlite3_bind_int64(st, 3, HOST_ROWS_MAX);
	sqlite3_bind_int64(st, 4, bound);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *inc = (const char *)sqlite3_column_text(st, 8);
		struct report_chunk_row r = {
			.seq = sqlite3_column_int64(st, 1),
			.start_ms = sqlite3_column_int64(st, 2),
			.end_ms = sqlite3_column_int64(st, 3),
			.received_ms = sqlite3_column_int64(st, 4),
			.dropped = sqlite3_column_int64(st, 5),
			.sched_group = (const char *)sqlite3_column_text(st, 6),
			.kernel = (const char *)sqlite3_column_text(st, 7),
			.incarnation = inc,
			.health = (const char *)sqlite3_column_text(st, 9),
		};

		r.host_hist = col_blob(st, 10, &r.host_hist_len);
		r.series = col_blob(st, 11, &r.series_len);
		r.iocost = col_blob(st, 12, &r.iocost_len);
		if (!inc || !r.sched_group || !r.kernel) {
			ret = 0; /* not a row this code wrote: the host's rows stay rows */
			goto out;
		}
		if (!k || !cut_fits(k, inc, &r)) {
			k = &cuts[ncuts++];
			if (!(k->incarnation = strdup(inc)))
				goto out;
			k->first_seq = k->last_seq = r.seq;
			k->first_ms = r.start_ms;
			k->first_row = nrows;
		}
		if ((rc = report_chunk_add(&k->w, &r)) != 0) {
			ret = rc == -EINVAL ? 0 : -1; /* a blob that does not unpack: the host's rows stay rows */
			goto out;
		}
		k->first_seq = r.seq < k->first_seq ? r.seq : k->first_seq;
		k->last_seq = r.seq > k->last_seq ? r.seq : k->last_seq;
		k->last_ms = r.start_ms > k->last_ms || k->n == 0 ? r.start_ms : k->last_ms;
		k->n++;
		rows[nrows++] = (struct row_key){ sqlite3_column_int64(st, 0), r.start_ms, r.seq };
	}
	if (rc != SQLITE_DONE)
		goto out;
	sqlite3_reset(st);
	*more = nrows == HOST_ROWS_MAX;
	/* packed outside the write transaction: the ingest writer never waits for zstd here */
	for (size_t i = 0; i < ncuts; i++) {
		/* the last chunk of an incarnation may still grow; short and young, it waits */
		bool last = i + 1 == ncuts || strcmp(cuts[i].incarnation, cuts[i + 1].incarnation) != 0;

		if (last && cuts[i].n < (size_t)c->min_reports && cuts[i].first_ms >= before - STRAGGLER_MS)
			continue;
		if (report_chunk_finish(&cuts[i].w, cuts[i].sec))
			goto out;
		cuts[i].ready = true;
		done += cuts[i].n;
	}
	if (done && cuts_write(c, host_id, cuts, ncuts, rows))
		goto out;
	ret = (int)done;
out:
	if (st)
		sqlite3_reset(st);
	for (size_t i = 0; cuts && i < ncuts; i++)
		cut_free(&cuts[i]);
	free(cuts);
	free(rows);
	return ret;
}

/* A value the statement reads into *v: 1, 0 when it reads none or NULL, -1 on error. */
static int read_int(sqlite3_stmt *st, int64_t *v)
{
	int rc = st ? sqlite3_step(st) : SQLITE_ERROR, ret = -1;

	if (rc == SQLITE_ROW) {
		ret = sqlite3_column_type(st, 0) != SQLITE_NULL;
		*v = sqlite3_column_int64(st, 0);
	} else if (rc == SQLITE_DONE) {
		ret = 0;
	}
	if (st)
		sqlite3_reset(st);
	return ret;
}

/* One sweep transaction: deletes the chunked rows (those without keys) starting from swept_ms on, up to
 * SWEEP_ROWS rows of them or of rows still keyed, and moves swept_ms past them. 1 if more remains before
 * settled_ms, 0, -1. */
static int sweep(struct report_chunks *c)
{
	int64_t to = c->settled_ms;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (!(st = stmt(c, RC_SWEEP_TO)))
		goto fail;
	sqlite3_bind_int64(st, 1, c->swept_ms);
	sqlite3_bind_int64(st, 2, to);
	sqlite3_bind_int64(st, 3, SWEEP_ROWS);
	if ((rc = read_int(st, &to)) < 0)
		goto fail;
	if (rc == 0)
		to = c->settled_ms; /* fewer rows than that wait */
	else if (to == c->swept_ms)
		to++; /* more than that start at once: all of them */
	if (!(st = stmt(c, RC_SWEEP)))
		goto fail;
	sqlite3_bind_int64(st, 1, c->swept_ms);
	sqlite3_bind_int64(st, 2, to);
	if (run(st) || sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	c->swept_ms = to;
	return to < c->settled_ms;
fail:
	sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int report_chunks_compact(struct report_chunks *c, int64_t now_ms, int64_t mark_ms)
{
	int64_t before = now_ms - c->after_ms < mark_ms ? now_ms - c->after_ms : mark_ms;
	int64_t hosts[HOSTS_A_CALL], bound;
	size_t n = 0, i;
	int done = 0, rc;
	sqlite3_stmt *st;

	if (c->after_ms < 0)
		return 0;
	if (!c->swept_known) { /* rows before the oldest there is are swept: there are none */
		if ((rc = read_int(stmt(c, RC_OLDEST), &c->swept_ms)) < 0)
			return -1;
		if (rc == 0)
			c->swept_ms = INT64_MIN;
		c->swept_known = true;
	}
	if (c->swept_ms < c->settled_ms)
		return sweep(c); /* the pass waits for the next call: a worker with nothing else to do rests */
	if (c->cursor == 0 && now_ms < c->next_pass)
		return 0;
	if (c->cursor == 0 || before < c->pass_before)
		c->pass_before = before;
	/* rows still staged stay rows: the readers by time alone tell a chunked row by its missing keys */
	if ((rc = read_int(stmt(c, RC_BOUND), &bound)) < 0)
		return -1;
	if (rc == 0)
		bound = 0; /* no row at all */
	if (!(st = stmt(c, RC_HOSTS)))
		return -1;
	sqlite3_bind_int64(st, 1, c->cursor);
	sqlite3_bind_int64(st, 2, HOSTS_A_CALL);
	while (n < HOSTS_A_CALL && (rc = sqlite3_step(st)) == SQLITE_ROW)
		hosts[n++] = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	for (i = 0; i < n && done < CALL_REPORTS; i++) {
		int64_t waiting, oldest;

		if (!(st = stmt(c, RC_COUNT)))
			return -1;
		sqlite3_bind_int64(st, 1, hosts[i]);
		sqlite3_bind_int64(st, 2, before);
		if (sqlite3_step(st) != SQLITE_ROW)
			return -1;
		waiting = sqlite3_column_int64(st, 0);
		oldest = sqlite3_column_int64(st, 1);
		sqlite3_reset(st);
		if (waiting > 0 && (waiting >= c->min_reports || oldest < before - STRAGGLER_MS)) {
			bool more = false;

			rc = compact_host(c, hosts[i], before, bound, &more);
			if (rc < 0)
				return -1;
			done += rc;
			if (more && rc > 0)
				return 1; /* the same host again next call */
		}
		c->cursor = hosts[i];
	}
	if (n < HOSTS_A_CALL && i == n) { /* every host looked at: the pass is over, the sweep may follow it */
		c->cursor = 0;
		c->next_pass = now_ms + c->period_ms;
		if (c->pass_before - c->sweep_lag_ms > c->settled_ms)
			c->settled_ms = c->pass_before - c->sweep_lag_ms;
		return c->swept_ms < c->settled_ms;
	}
	return 1;
}

/* Whether the meta section of a chunk holds seq: 1, 0, or -1 when it does not read. */
static int meta_holds(const void *meta, size_t len, int64_t seq)
{
	const void *p[REPORT_CHUNK_SECTIONS] = { [REPORT_CHUNK_META] = meta };
	size_t lens[REPORT_CHUNK_SECTIONS] = { [REPORT_CHUNK_META] = len }, n;
	struct report_chunk_reader rd;
	struct report_chunk_row r;
	int rc = report_chunk_open(&rd, p, lens, &n), found = 0;

	if (rc == 0)
		while (!found && (rc = report_chunk_next(&rd, &r)) == 1)
			found = r.seq == seq;
	report_chunk_close(&rd);
	return rc < 0 ? -1 : found;
}

int report_chunks_has(struct report_chunks *c, int64_t host_id, const char *incarnation, int64_t seq)
{
	sqlite3_stmt *st = stmt(c, RC_HAS), *m;
	int rc, found = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_text(st, 2, incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, seq);
	sqlite3_bind_int64(st, 4, CHUNK_SEQ_SPAN);
	/* the index holds both seq bounds: only chunks whose range holds seq are read */
	while (found == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len;

		if (!(m = stmt(c, RC_META))) {
			found = -1;
			break;
		}
		sqlite3_bind_int64(m, 1, sqlite3_column_int64(st, 0));
		if (sqlite3_step(m) == SQLITE_ROW) {
			const void *meta = col_blob(m, 0, &len);

			found = meta_holds(meta, len, seq);
		} else {
			found = -1;
		}
		sqlite3_reset(m);
	}
	if (found == 0 && rc != SQLITE_DONE)
		found = -1;
	sqlite3_reset(st);
	return found;
}

int report_chunks_expire(struct report_chunks *c, int64_t before_ms, int max)
{
	sqlite3_stmt *st = stmt(c, RC_EXPIRE);
	int rc, n;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, before_ms);
	sqlite3_bind_int(st, 2, max);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	n = sqlite3_changes(c->db);
	/* what is left of a chunk before the bound is expired too: readers leave it out */
	if (!(st = stmt(c, RC_HORIZON_PUT)))
		return -1;
	sqlite3_bind_int64(st, 1, before_ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? n : -1;
}

int report_chunks_last_ms(struct report_chunks *c, int64_t host_id, int64_t *ms)
{
	sqlite3_stmt *st = stmt(c, host_id < 0 ? RC_NEWEST : RC_LAST);
	int rc, ret = -1;

	if (!st)
		return -1;
	if (host_id >= 0)
		sqlite3_bind_int64(st, 1, host_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ret = sqlite3_column_type(st, 0) != SQLITE_NULL;
		*ms = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	return ret;
}

/* Opens the cursor's reader on chunk ref i, its sections copied out of the statement: 0 or -1. */
static int open_ref(struct report_chunks_cursor *cur, size_t i)
{
	static const int col[REPORT_CHUNK_SECTIONS] = {
		[REPORT_CHUNK_META] = 0, [REPORT_CHUNK_HOST_HIST] = 1, [REPORT_CHUNK_IOCOST] = 2,
		[REPORT_CHUNK_HEAD] = 3, [REPORT_CHUNK_COUNTS] = 4,
	};
	sqlite3_stmt *st = stmt(cur->c, RC_SECTIONS);
	const void *p[REPORT_CHUNK_SECTIONS] = { 0 };
	size_t len[REPORT_CHUNK_SECTIONS] = { 0 }, n;
	int rc = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, cur->refs[i].id);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto out;
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		bool want = s == REPORT_CHUNK_META ||
			    (s == REPORT_CHUNK_HOST_HIST && cur->want >= REPORT_CHUNKS_HIST) ||
			    cur->want == REPORT_CHUNKS_ALL;

		if (!want)
			continue;
		len[s] = (size_t)sqlite3_column_bytes(st, col[s]);
		if (len[s] + 1 > cur->sec_cap[s]) {
			void *grown = realloc(cur->sec[s], len[s] + 1);

			if (!grown)
				goto out;
			cur->sec[s] = grown;
			cur->sec_cap[s] = len[s] + 1;
		}
		if (len[s])
			memcpy(cur->sec[s], sqlite3_column_blob(st, col[s]), len[s]);
		p[s] = cur->sec[s];
	}
	/* the reader's buffers serve chunk after chunk (a fresh one each time faults its pages in again) */
	rc = (cur->used ? report_chunk_reopen : report_chunk_open)(&cur->rd, p, len, &n) ? -1 : 0;
	cur->used = cur->open = true;
out:
	sqlite3_reset(st);
	return rc;
}

/* Whether the minute of start_ms of host waits for a rollup redo (its rows are then kept): 1, 0, -1. */
static int dirty(struct report_chunks *c, int64_t host_id, int64_t start_ms)
{
	sqlite3_stmt *st = stmt(c, RC_DIRTY);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, start_ms - start_ms % 60000);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The next report in range of the chunks, one after the other: 1, 0 after the last, -1. */
static int stream_next(struct report_chunks_cursor *cur, int64_t *host_id, struct report_chunk_row *r)
{
	for (;;) {
		int rc;

		if (cur->open) {
			rc = report_chunk_next(&cur->rd, r);
			if (rc < 0)
				return -1;
			if (rc == 1) {
				*host_id = cur->refs[cur->next - 1].host_id;
				if (r->start_ms < cur->from || r->start_ms >= cur->to)
					continue;
				if (r->start_ms < cur->horizon && (rc = dirty(cur->c, *host_id, r->start_ms)) <= 0) {
					if (rc < 0)
						return -1;
					continue; /* expired, as its row would have been */
				}
				return 1;
			}
			cur->open = false;
		}
		if (cur->next == cur->nrefs)
			return 0;
		if (open_ref(cur, cur->next++))
			return -1;
	}
}

/* A copy of r in one allocation (its strings and blobs after it). */
static struct chunk_item *item_copy(int64_t host_id, const struct report_chunk_row *r)
{
	const char *str[4] = { r->sched_group, r->kernel, r->incarnation, r->health };
	size_t slen[4], total = sizeof(struct chunk_item) + r->host_hist_len + r->series_len + r->iocost_len;
	struct chunk_item *it;
	char *o;

	for (int i = 0; i < 4; i++)
		total += (slen[i] = str[i] ? strlen(str[i]) + 1 : 0);
	if (!(it = malloc(total)))
		return NULL;
	it->host_id = host_id;
	it->r = *r;
	o = (char *)(it + 1);
#define TAKE(field, src, len)                                                                                          \
	do {                                                                                                           \
		if (src) {                                                                                             \
			memcpy(o, src, len);                                                                           \
			it->r.field = (void *)o;                                                                       \
			o += len;                                                                                      \
		}                                                                                                      \
	} while (0)
	TAKE(sched_group, r->sched_group, slen[0]);
	TAKE(kernel, r->kernel, slen[1]);
	TAKE(incarnation, r->incarnation, slen[2]);
	TAKE(health, r->health, slen[3]);
	TAKE(host_hist, r->host_hist, r->host_hist_len);
	TAKE(series, r->series, r->series_len);
	TAKE(iocost, r->iocost, r->iocost_len);
#undef TAKE
	return it;
}

static int item_cmp(const void *a, const void *b)
{
	const struct chunk_item *x = *(struct chunk_item *const *)a, *y = *(struct chunk_item *const *)b;

	if (x->r.start_ms != y->r.start_ms)
		return x->r.start_ms < y->r.start_ms ? -1 : 1;
	return x->r.seq < y->r.seq ? -1 : x->r.seq > y->r.seq;
}

/* Reads every report in range of the cursor's chunks into items, sorted: 0 or -1. */
static int load_sorted(struct report_chunks_cursor *cur)
{
	struct report_chunk_row r;
	size_t cap = 0;
	int64_t host;
	int rc;

	while ((rc = stream_next(cur, &host, &r)) == 1) {
		if (cur->nitems == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			struct chunk_item **grown = realloc(cur->items, ncap * sizeof(*grown));

			if (!grown)
				return -1;
			cur->items = grown;
			cap = ncap;
		}
		if (!(cur->items[cur->nitems] = item_copy(host, &r)))
			return -1;
		cur->nitems++;
	}
	if (rc < 0)
		return -1;
	qsort(cur->items, cur->nitems, sizeof(*cur->items), item_cmp);
	return 0;
}

int report_chunks_cursor_open(struct report_chunks_cursor *cur, struct report_chunks *c, int64_t host_id, int64_t from,
			      int64_t to, enum report_chunks_want want)
{
	sqlite3_stmt *st = stmt(c, host_id < 0 ? RC_REFS_ALL : RC_REFS_HOST), *h;
	size_t cap = 0;
	int i = 1, rc;
	int64_t end = INT64_MIN; /* the latest last_ms of the chunks so far */
	bool overlap = false;

	memset(cur, 0, sizeof(*cur));
	cur->c = c;
	cur->want = want;
	cur->from = from;
	cur->to = to;
	if (!st)
		return -1;
	cur->horizon = INT64_MIN;
	h = stmt(c, RC_HORIZON_GET);
	if (!h)
		return -1;
	rc = sqlite3_step(h);
	if (rc == SQLITE_ROW)
		cur->horizon = sqlite3_column_int64(h, 0);
	sqlite3_reset(h);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (host_id >= 0)
		sqlite3_bind_int64(st, i++, host_id);
	sqlite3_bind_int64(st, i++, from);
	sqlite3_bind_int64(st, i++, to);
	sqlite3_bind_int64(st, i, CHUNK_SPAN_MS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct chunk_ref ref = {
			.id = sqlite3_column_int64(st, 0),
			.host_id = sqlite3_column_int64(st, 1),
			.first_ms = sqlite3_column_int64(st, 2),
			.last_ms = sqlite3_column_int64(st, 3),
		};

		if (cur->nrefs == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct chunk_ref *grown = realloc(cur->refs, ncap * sizeof(*grown));

			if (!grown) {
				sqlite3_reset(st);
				return -1;
			}
			cur->refs = grown;
			cap = ncap;
		}
		/* a host's chunks by first_ms: one starting before an earlier one's end overlaps it */
		if (host_id >= 0 && ref.first_ms <= end)
			overlap = true;
		end = ref.last_ms > end ? ref.last_ms : end;
		cur->refs[cur->nrefs++] = ref;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	if (overlap)
		return load_sorted(cur);
	return 0;
}

int report_chunks_cursor_next(struct report_chunks_cursor *cur, int64_t *host_id, struct report_chunk_row *r)
{
	if (cur->items) {
		if (cur->pos == cur->nitems)
			return 0;
		*host_id = cur->items[cur->pos]->host_id;
		*r = cur->items[cur->pos++]->r;
		return 1;
	}
	return stream_next(cur, host_id, r);
}

void report_chunks_cursor_close(struct report_chunks_cursor *cur)
{
	if (cur->used)
		report_chunk_close(&cur->rd);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		free(cur->sec[s]);
	for (size_t i = 0; i < cur->nitems; i++)
		free(cur->items[i]);
	free(cur->items);
	free(cur->refs);
	memset(cur, 0, sizeof(*cur));
}
