/* store_sqlite.c - the SQLite backend of store.h: opening a handle with all
 * its statements prepared once, the ingest transaction, and the rollup
 * worker's writes. One handle is one connection and is used by one thread.
 *
 * A batch of reports is one transaction (one WAL fsync with synchronous=FULL)
 * and each report inside it a savepoint, so a report that fails to store
 * takes nothing of itself or its neighbours into the commit.
 */
#include "server/store/sqlite/store_sqlite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/store/sqlite/host_state.h"
#include "server/store/sqlite/reports_stage.h"
#include "server/store/sqlite/sqlite_db.h"
#include "server/store/store_sql.h"

/* Tries of the busy handler, one a millisecond or more: ~10 s. */
#define BUSY_TRIES 10000

/* STORE_SQL_ROW_COLS and STORE_SQL_RAW_COLS with the per-cgroup blobs left out (scan_hist). */
#define ROW_COLS_H "host_id, t, sched_group, kernel, host_hist, NULL, NULL"
#define RAW_COLS_H "host_id, start_ms, sched_group, kernel, host_hist, NULL, NULL, end_ms"

/* Reads by host go through report_ids_by_host (schema/sqlite/0018): the moved keys and the staged ones. */
#define BY_HOST(cols) "SELECT " cols " FROM report_ids_by_host i JOIN reports r ON r.id = i.id "
#define RAW_COLS_BY_HOST "i.host_id, i.start_ms, r.sched_group, r.kernel, r.host_hist, r.series, r.iocost, r.end_ms"
#define RAW_COLS_H_BY_HOST "i.host_id, i.start_ms, r.sched_group, r.kernel, r.host_hist, NULL, NULL, r.end_ms"

static const char *const sql[STORE_SQLITE_COUNT] = {
	[STORE_SQLITE_BEGIN] = "BEGIN IMMEDIATE",
	[STORE_SQLITE_COMMIT] = "COMMIT",
	[STORE_SQLITE_ROLLBACK] = "ROLLBACK",
	[STORE_SQLITE_SAVEPOINT] = "SAVEPOINT report",
	[STORE_SQLITE_RELEASE] = "RELEASE report",
	[STORE_SQLITE_ROLLBACK_TO] = "ROLLBACK TO report",
	/* The host's id, its agent's incarnation and seq, and whether it has label spans: one read per report. */
	[STORE_SQLITE_HOST_ID] =
	    "SELECT id, agent_incarnation, agent_seq, "
	    "EXISTS (SELECT 1 FROM label_spans WHERE host_id = hosts.id) FROM hosts WHERE machine_id = ?",
	[STORE_SQLITE_HOST_INSERT] =
	    "INSERT INTO hosts (machine_id, hostname, first_seen_ms, last_start_ms, last_end_ms) "
	    "VALUES (?, ?, ?, -1, -1)",
	[STORE_SQLITE_HOST_UPDATE] =
	    "UPDATE hosts SET hostname = ?2, kernel = coalesce(?3, kernel), arch = coalesce(?4, arch), "
	    "cpus = coalesce(?5, cpus), l3_json = coalesce(?6, l3_json), "
	    "disks_json = coalesce(?7, disks_json), sched_state = coalesce(?8, sched_state), "
	    "sched_ops = CASE WHEN ?8 IS NULL THEN sched_ops ELSE ?9 END, "
	    "agent_version = coalesce(?10, agent_version), last_start_ms = ?11, last_end_ms = ?12 "
	    "WHERE id = ?1 AND last_start_ms <= ?11",
	[STORE_SQLITE_DIRTY_INSERT] = "INSERT OR IGNORE INTO rollup_dirty (host_id, t) VALUES (?, ?)",
	/* ?3: the seq this incarnation has reached; ?4: a restart's time, or NULL. */
	[STORE_SQLITE_AGENT_PUT] = "UPDATE hosts SET agent_incarnation = ?2, agent_seq = ?3, "
				   "agent_restarted_ms = coalesce(?4, agent_restarted_ms) WHERE id = ?1",
	[STORE_SQLITE_HOSTS_ALL] = "SELECT " STORE_SQL_HOST_COLS " FROM hosts ORDER BY hostname, machine_id",
	[STORE_SQLITE_HOSTS_ONE] = STORE_SQL_HOSTS_ONE,
	[STORE_SQLITE_REPORTS] =
	    BY_HOST("r.seq, i.start_ms, r.end_ms, r.dropped") "WHERE i.host_id = $1 AND "
							      "i.start_ms >= $2 AND i.start_ms < $3 ORDER BY r.seq",
	[STORE_SQLITE_SCAN_RAW_HOST] = BY_HOST(RAW_COLS_BY_HOST) "WHERE i.host_id = $1 AND i.start_ms >= $2 AND "
								 "i.start_ms < $3 ORDER BY i.start_ms",
	[STORE_SQLITE_SCAN_RAW_ALL] =
	    "SELECT " STORE_SQL_RAW_COLS
	    " FROM reports r WHERE start_ms >= ? AND start_ms < ? AND " REPORT_CHUNKS_ROW_LIVE("r"),
	[STORE_SQLITE_SCAN_ROLL_HOST] = STORE_SQL_SCAN_ROLL_HOST,
	[STORE_SQLITE_SCAN_ROLL_ALL] =
	    "SELECT " STORE_SQL_ROW_COLS " FROM rollups WHERE level = ? AND t >= ? AND t < ?",
	[STORE_SQLITE_SCAN_RAW_HOST_H] = BY_HOST(RAW_COLS_H_BY_HOST) "WHERE i.host_id = ? AND i.start_ms >= ? AND "
								     "i.start_ms < ? ORDER BY i.start_ms",
	[STORE_SQLITE_SCAN_RAW_ALL_H] =
	    "SELECT " RAW_COLS_H
	    " FROM reports r WHERE start_ms >= ? AND start_ms < ? AND " REPORT_CHUNKS_ROW_LIVE("r"),
	[STORE_SQLITE_SCAN_ROLL_HOST_H] =
	    "SELECT " ROW_COLS_H " FROM rollups WHERE level = ? AND host_id = ? AND t >= ? "
	    "AND t < ? ORDER BY t",
	[STORE_SQLITE_SCAN_ROLL_ALL_H] = "SELECT " ROW_COLS_H " FROM rollups WHERE level = ? AND t >= ? AND t < ?",
	/* Each part of report_ids_by_host in start order, merged: the latest is found without a sort. */
	[STORE_SQLITE_LATEST] =
	    "SELECT " STORE_SQL_RAW_COLS " FROM reports WHERE id = (SELECT id FROM ("
	    "SELECT start_ms, id FROM report_times WHERE host_id = $1 UNION ALL "
	    "SELECT start_ms, id FROM reports_stage0 WHERE host_id = $1 "
	    "AND host_id >= (SELECT merged_below0 FROM reports_stage_state) UNION ALL "
	    "SELECT start_ms, id FROM reports_stage1 WHERE host_id = $1 "
	    "AND host_id >= (SELECT merged_below1 FROM reports_stage_state) ORDER BY start_ms DESC LIMIT 1))",
	[STORE_SQLITE_HOSTS_IN_RAW] =
	    "SELECT DISTINCT host_id FROM reports r WHERE start_ms >= ? AND start_ms < ? AND " REPORT_CHUNKS_ROW_LIVE(
		"r"),
	[STORE_SQLITE_HOSTS_IN_ROLL] = "SELECT DISTINCT host_id FROM rollups WHERE level = ? AND t >= ? AND t < ?",
	[STORE_SQLITE_FLEET_SCAN] =
	    "SELECT t, key, hosts, hist FROM fleet_rollups WHERE level = ? AND dim = ? AND t >= ? "
	    "AND t < ? ORDER BY t",
	[STORE_SQLITE_ROLLUP_PUT] =
	    "INSERT OR REPLACE INTO rollups (level, " STORE_SQL_ROW_COLS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[STORE_SQLITE_FLEET_PUT] =
	    "INSERT OR REPLACE INTO fleet_rollups (level, t, dim, key, hosts, hist) VALUES (?, ?, ?, ?, ?, ?)",
	[STORE_SQLITE_FLEET_DEL] = STORE_SQL_FLEET_DEL,
	[STORE_SQLITE_DIRTY_SELECT] = "SELECT host_id, t FROM rollup_dirty ORDER BY t LIMIT ?",
	[STORE_SQLITE_DIRTY_DELETE] = "DELETE FROM rollup_dirty WHERE host_id = ? AND t = ?",
	/* A raw row whose minute waits for a redo (a late report committed after this
	 * round's redo) stays until that redo has read it, as on PostgreSQL. Its
	 * moved keys go with it (schema/sqlite/0018's trigger). */
	[STORE_SQLITE_EXPIRE_RAW] = "DELETE FROM reports WHERE id IN (SELECT id FROM reports r WHERE start_ms < ? "
				    "AND NOT EXISTS (SELECT 1 FROM rollup_dirty d WHERE d.host_id = r.host_id "
				    "AND d.t = r.start_ms - r.start_ms % 60000) LIMIT ?)",
	[STORE_SQLITE_EXPIRE_ROLL] =
	    "DELETE FROM rollups WHERE rowid IN (SELECT rowid FROM rollups WHERE level = ? AND t < ? "
	    "LIMIT ?)",
	[STORE_SQLITE_EXPIRE_FLEET] = STORE_SQL_EXPIRE_FLEET,
	[STORE_SQLITE_META_GET] = STORE_SQL_META_GET,
	[STORE_SQLITE_META_PUT] = "INSERT OR REPLACE INTO server_meta (key, value) VALUES (?, ?)",
	[STORE_SQLITE_DICT_PUT] = STORE_SQL_DICT_PUT,
	[STORE_SQLITE_DICTS] = STORE_SQL_DICTS,
	[STORE_SQLITE_PAGES] = "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
	/* ?4: the report's exits_json, a checked array of {ops, t_ms, kind, reason, message}. */
	[STORE_SQLITE_EXITS_INSERT] =
	    "INSERT OR IGNORE INTO scx_exits (host_id, t_ms, incarnation, seq, idx, ops, kind, reason, message) "
	    "SELECT ?1, json_extract(value, '$.t_ms'), ?2, ?3, key, json_extract(value, '$.ops'), "
	    "json_extract(value, '$.kind'), json_extract(value, '$.reason'), json_extract(value, '$.message') "
	    "FROM json_each(?4)",
	[STORE_SQLITE_EXPIRE_EXITS] = STORE_SQL_EXPIRE_EXITS,
	[STORE_SQLITE_HEALTH_HOST] =
	    BY_HOST("i.host_id, i.start_ms, r.end_ms, r.health") "WHERE i.host_id = $1 AND "
								 "i.start_ms >= $2 AND i.start_ms < $3 ORDER BY "
								 "i.start_ms, r.seq",
	[STORE_SQLITE_HEALTH_ALL] =
	    "SELECT host_id, start_ms, end_ms, health FROM reports r WHERE start_ms >= $1 "
	    "AND start_ms < $2 AND " REPORT_CHUNKS_ROW_LIVE("r") " ORDER BY host_id, start_ms, seq",
	[STORE_SQLITE_EXITS_HOST] = STORE_SQL_EXITS_HOST,
	[STORE_SQLITE_EXITS_ALL] = STORE_SQL_EXITS_ALL,
	/* Issue 15 (schema/sqlite/0013): a report at ?2 with labels ?3 extends the host's span it
	 * falls after when that span has the same labels, else (LABEL_START) starts one; a report
	 * without labels starts none for a host that never had any. */
	[STORE_SQLITE_LABEL_EXTEND] =
	    "UPDATE label_spans SET last_ms = max(last_ms, ?2) WHERE host_id = ?1 AND labels = ?3 AND first_ms = "
	    "(SELECT max(first_ms) FROM label_spans WHERE host_id = ?1 AND first_ms <= ?2)",
	[STORE_SQLITE_LABEL_START] =
	    "INSERT OR IGNORE INTO label_spans (host_id, first_ms, last_ms, labels) SELECT ?1, ?2, ?2, ?3 "
	    "WHERE ?3 <> '' OR EXISTS (SELECT 1 FROM label_spans WHERE host_id = ?1)",
	[STORE_SQLITE_EXPIRE_LABELS] = STORE_SQL_EXPIRE_LABELS,
	/* ?1: ",key=value,", matched against the canonical text between commas. */
	[STORE_SQLITE_LABEL_HOSTS] =
	    "SELECT DISTINCT h.machine_id FROM label_spans l JOIN hosts h ON h.id = l.host_id "
	    "WHERE l.last_ms >= ?2 AND l.first_ms < ?3 AND instr(',' || l.labels || ',', ?1) > 0 ORDER BY h.machine_id",
	/* Issue 15 (schema/sqlite/0014): saved experiments. */
	[STORE_SQLITE_EXPERIMENTS_ALL] = STORE_SQL_EXPERIMENTS_ALL,
	[STORE_SQLITE_EXPERIMENTS_ONE] = STORE_SQL_EXPERIMENTS_ONE,
	[STORE_SQLITE_EXPERIMENT_PUT] = STORE_SQL_EXPERIMENT_PUT,
	[STORE_SQLITE_EXPERIMENT_DELETE] = STORE_SQL_EXPERIMENT_DELETE,
};

sqlite3_stmt *store_sqlite_stmt(struct store_sqlite *s, enum store_sqlite_stmt which)
{
	return sqlite_db_stmt(s->st[which]);
}

static int exec1(struct store_sqlite *s, enum store_sqlite_stmt which)
{
	sqlite3_stmt *st = store_sqlite_stmt(s, which);
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_blob(sqlite3_stmt *st, int i, const void *p, size_t len, bool present)
{
	if (present)
		sqlite3_bind_blob64(st, i, p ? p : "", len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* What put_one needs to know of a report's host before storing it. */
struct host_row {
	int64_t id;
	bool agent_known; /* an incarnation was stored before */
	char incarnation[REPORT_INCARNATION_LEN + 1];
	int64_t agent_seq;
	bool has_spans; /* the host has label spans */
};

/* Finds (or adds) r's host; 0 or -1. */
static int host_row(struct store_sqlite *s, const struct report *r, int64_t now_ms, struct host_row *h)
{
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_HOST_ID);
	const char *inc;
	int rc;

	memset(h, 0, sizeof(*h));
	sqlite3_bind_text(st, 1, r->machine_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		h->id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			h->agent_known = true;
			snprintf(h->incarnation, sizeof(h->incarnation), "%s",
				 (const char *)sqlite3_column_text(st, 1));
			h->agent_seq = sqlite3_column_int64(st, 2);
		}
		h->has_spans = sqlite3_column_int(st, 3) != 0;
		sqlite3_reset(st);
		if (s->hosts && host_state_agent(s->hosts, h->id, &inc, &h->agent_seq)) { /* newer than the row */
			h->agent_known = true;
			snprintf(h->incarnation, sizeof(h->incarnation), "%s", inc);
		}
		return 0;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	st = store_sqlite_stmt(s, STORE_SQLITE_HOST_INSERT);
	sqlite3_bind_text(st, 1, r->machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->hostname, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now_ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	h->id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* The agent seq host h moves on to with stored report r: the highest of its incarnation's. */
static int64_t agent_seq(const struct report *r, const struct host_row *h)
{
	bool same = h->agent_known && strcmp(h->incarnation, r->incarnation) == 0;

	return same && h->agent_seq > (int64_t)r->seq ? h->agent_seq : (int64_t)r->seq;
}

/* Writes stored report r's values into its host's row, after what memory holds newer of it: the
 * descriptive columns and last times (when r is the newest), the agent incarnation and seq, and a
 * restart's time; memory then knows them. */
static int host_write(struct store_sqlite *s, const struct report *r, const struct host_row *h, bool restart,
		      int64_t now_ms)
{
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_HOST_UPDATE);
	bool applied;
	int rc;

	if (host_state_write_held(s->hosts, h->id))
		return -1;
	sqlite3_bind_int64(st, 1, h->id);
	sqlite3_bind_text(st, 2, r->hostname, -1, SQLITE_STATIC);
	bind_text(st, 3, r->kernel);
	bind_text(st, 4, r->arch);
	if (r->cpus)
		sqlite3_bind_int64(st, 5, r->cpus);
	bind_text(st, 6, r->l3_json);
	bind_text(st, 7, r->disks_json);
	bind_text(st, 8, r->sched_state);
	bind_text(st, 9, r->sched_ops);
	bind_text(st, 10, r->agent_version);
	sqlite3_bind_int64(st, 11, r->start_ms);
	sqlite3_bind_int64(st, 12, r->end_ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	applied = sqlite3_changes(s->db) > 0;
	st = store_sqlite_stmt(s, STORE_SQLITE_AGENT_PUT);
	sqlite3_bind_int64(st, 1, h->id);
	sqlite3_bind_text(st, 2, r->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, agent_seq(r, h));
	if (restart)
		sqlite3_bind_int64(st, 4, now_ms);
	else
		sqlite3_bind_null(st, 4);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	host_state_written(s->hosts, h->id, r, agent_seq(r, h), applied);
	return 0;
}

/* Records stored report r's labels in the host's label spans (schema/sqlite/0013). */
static int track_labels(struct store_sqlite *s, const struct report *r, const struct host_row *h)
{
	const char *labels = r->labels ? r->labels : "";
	sqlite3_stmt *st;
	int64_t id = h->id;
	int rc;

	if (!*labels && !h->has_spans)
		return 0; /* a host that never had labels gets no span (LABEL_START's own rule) */
	st = store_sqlite_stmt(s, STORE_SQLITE_LABEL_EXTEND);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, r->start_ms);
	sqlite3_bind_text(st, 3, labels, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	if (sqlite3_changes(s->db) > 0)
		return 0;
	st = store_sqlite_stmt(s, STORE_SQLITE_LABEL_START);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, r->start_ms);
	sqlite3_bind_text(st, 3, labels, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Stores one report inside the open transaction; the caller wraps it in a savepoint. */
static int put_one(struct store_sqlite *s, struct report *r, int64_t now_ms, int64_t minute_mark, bool defer,
		   int *result)
{
	struct host_row h;
	struct report_chunks *c;
	sqlite3_stmt *st;
	bool dup, restart;
	int64_t id;
	int in;

	if (host_row(s, r, now_ms, &h))
		return -1;
	id = h.id;
	/* A report already moved into a chunk is a duplicate too; only one as old as the chunks may be. */
	if (r->start_ms < s->chunked_below) {
		c = store_sqlite_chunks(s);
		in = c ? report_chunks_has(c, id, r->incarnation, (int64_t)r->seq) : -1;
		if (in < 0)
			return -1;
		if (in) {
			*result = STORE_DUPLICATE;
			return 0;
		}
	}
	if (reports_stage_put(s->stage, r, id, now_ms, &dup))
		return -1;
	if (dup) {
		*result = STORE_DUPLICATE;
		return 0;
	}
	if (r->exits_json) {
		st = store_sqlite_stmt(s, STORE_SQLITE_EXITS_INSERT);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, r->incarnation, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (int64_t)r->seq);
		sqlite3_bind_text(st, 4, r->exits_json, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			return -1;
	}
	if (track_labels(s, r, &h))
		return -1;
	if (r->start_ms - r->start_ms % STORE_MINUTE_MS < minute_mark) {
		st = store_sqlite_stmt(s, STORE_SQLITE_DIRTY_INSERT);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, r->start_ms - r->start_ms % STORE_MINUTE_MS);
		if (sqlite3_step(st) != SQLITE_DONE)
			return -1;
	}
	/* Last: memory must not hold what a failed report would have written. A restart is written at once. */
	restart = store_agent_restart(r, h.agent_known ? h.incarnation : NULL, h.agent_seq);
	if (!(defer && !restart && host_state_defer(s->hosts, id, r, agent_seq(r, &h)))) {
		if (host_write(s, r, &h, restart, now_ms))
			return -1;
	}
	*result = STORE_STORED;
	return 0;
}

/* Reports a commit must carry for their hosts' rows to be left to the sweep (host_state.h); in a
 * smaller one each row is written with its report, as the cost of a page a report is then small. */
#define HOST_DEFER_BATCH 32

/* The handle's staging of reports and memory of hosts, made when it first writes reports.
 * SCHEDIO_SQLITE_STAGE_MS sets the period between moves, SCHEDIO_SQLITE_HOST_SWEEP_MS the time a
 * sweep of the hosts' rows takes (tests make them short); 0 or -1. */
static int stage_open(struct store_sqlite *s)
{
	const char *period = getenv("SCHEDIO_SQLITE_STAGE_MS"), *sweep = getenv("SCHEDIO_SQLITE_HOST_SWEEP_MS");

	if (!s->stage) {
		s->stage = reports_stage_new(s->db);
		if (!s->stage)
			return -1;
		if (period && *period)
			reports_stage_set_period(s->stage, strtoll(period, NULL, 10));
	}
	if (!s->hosts) {
		s->hosts = host_state_new(s->db);
		if (!s->hosts)
			return -1;
		if (sweep && *sweep)
			host_state_set_sweep(s->hosts, strtoll(sweep, NULL, 10));
	}
	return 0;
}

/* At the start of a transaction: the staging memory reloaded when another connection wrote
 * since (or this handle never had it), and the hosts' memory, which may then be stale, written
 * and forgotten; 0 or -1. */
static int writer_begin(struct store_sqlite *s, int64_t now_ms)
{
	bool reloaded;

	if (reports_stage_begin(s->stage, now_ms, &reloaded))
		return -1;
	if (reloaded) {
		if (host_state_sweep(s->hosts, now_ms, true))
			return -1;
		host_state_forget(s->hosts);
	}
	return 0;
}

/* In the writer's transaction (no chunk is written meanwhile): the newest chunked report's start; 0 or -1. */
static int chunks_begin(struct store_sqlite *s)
{
	struct report_chunks *c = store_sqlite_chunks(s);
	int64_t ms;
	int rc = c ? report_chunks_last_ms(c, -1, &ms) : -1;

	if (rc < 0)
		return -1;
	s->chunked_below = rc ? ms + 1 : INT64_MIN;
	return 0;
}

static int store_sqlite_put_reports(struct store *base, struct report *const *reps, size_t n, int *results,
				    int64_t now_ms, int64_t minute_mark)
{
	struct store_sqlite *s = (struct store_sqlite *)base;

	if (stage_open(s) || exec1(s, STORE_SQLITE_BEGIN))
		return -1;
	if (writer_begin(s, now_ms) || chunks_begin(s))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		results[i] = STORE_FAILED;
		if (exec1(s, STORE_SQLITE_SAVEPOINT))
			goto fail;
		if (put_one(s, reps[i], now_ms, minute_mark, n >= HOST_DEFER_BATCH, &results[i])) {
			results[i] = STORE_FAILED;
			exec1(s, STORE_SQLITE_ROLLBACK_TO);
			host_state_forget(s->hosts); /* it may hold what was just rolled back */
		}
		if (exec1(s, STORE_SQLITE_RELEASE))
			goto fail;
	}
	/* A move or a sweep that fails is tried again; the reports still commit. */
	reports_stage_end(s->stage, n, now_ms);
	host_state_sweep(s->hosts, now_ms, false);
	if (exec1(s, STORE_SQLITE_COMMIT))
		goto fail;
	return 0;
fail:
	exec1(s, STORE_SQLITE_ROLLBACK);
	reports_stage_abort(s->stage);
	host_state_forget(s->hosts);
	for (size_t i = 0; i < n; i++)
		results[i] = STORE_FAILED;
	return -1;
}

/* A transaction of deferred work alone: a share of the staging (reports_stage_end with no
 * reports) and every host row memory holds newer. */
static int store_sqlite_idle(struct store *base, int64_t now_ms)
{
	struct store_sqlite *s = (struct store_sqlite *)base;

	if (stage_open(s))
		return -1;
	/* No transaction (and no fsync) when nothing is due: a report arriving meanwhile would wait for it. */
	if (!reports_stage_due(s->stage, now_ms) && !host_state_pending(s->hosts))
		return reports_stage_pending(s->stage);
	if (exec1(s, STORE_SQLITE_BEGIN))
		return -1;
	if (writer_begin(s, now_ms) || reports_stage_end(s->stage, 0, now_ms) ||
	    host_state_sweep(s->hosts, now_ms, true) || exec1(s, STORE_SQLITE_COMMIT)) {
		exec1(s, STORE_SQLITE_ROLLBACK);
		reports_stage_abort(s->stage);
		host_state_forget(s->hosts);
		return -1;
	}
	return reports_stage_pending(s->stage) || host_state_pending(s->hosts);
}

static int store_sqlite_begin(struct store *base)
{
	return exec1((struct store_sqlite *)base, STORE_SQLITE_BEGIN);
}

static int store_sqlite_commit(struct store *base)
{
	return exec1((struct store_sqlite *)base, STORE_SQLITE_COMMIT);
}

static void store_sqlite_rollback(struct store *base)
{
	exec1((struct store_sqlite *)base, STORE_SQLITE_ROLLBACK);
}

static int store_sqlite_rollup_put(struct store *base, enum store_level lv, const struct store_row *r)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_ROLLUP_PUT);
	int rc;

	sqlite3_bind_int(st, 1, lv);
	sqlite3_bind_int64(st, 2, r->host_id);
	sqlite3_bind_int64(st, 3, r->t);
	sqlite3_bind_text(st, 4, r->sched_group, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r->kernel, -1, SQLITE_STATIC);
	bind_blob(st, 6, r->host_hist, r->host_hist_len, r->host_hist != NULL);
	bind_blob(st, 7, r->series, r->series_len, r->series != NULL);
	bind_blob(st, 8, r->iocost, r->iocost_len, r->iocost != NULL);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int store_sqlite_fleet_put(struct store *base, enum store_level lv, int64_t t, const char *dim, const char *key,
				  int64_t hosts, const struct blob *hist)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, hist && hist->len ? STORE_SQLITE_FLEET_PUT : STORE_SQLITE_FLEET_DEL);
	int rc;

	sqlite3_bind_int(st, 1, lv);
	sqlite3_bind_int64(st, 2, t);
	sqlite3_bind_text(st, 3, dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, key, -1, SQLITE_STATIC);
	if (hist && hist->len) {
		sqlite3_bind_int64(st, 5, hosts);
		sqlite3_bind_blob64(st, 6, hist->p, hist->len, SQLITE_STATIC);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int store_sqlite_dirty_take(struct store *base, int max, store_id_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_DIRTY_SELECT), *del;
	int64_t(*ids)[2] = calloc((size_t)max, sizeof(*ids));
	int n = 0, rc = 0;

	if (!ids)
		return -1;
	sqlite3_bind_int(st, 1, max);
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n][0] = sqlite3_column_int64(st, 0);
		ids[n][1] = sqlite3_column_int64(st, 1);
		n++;
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
	for (int i = 0; i < n && rc == 0; i++) {
		del = store_sqlite_stmt(s, STORE_SQLITE_DIRTY_DELETE);
		sqlite3_bind_int64(del, 1, ids[i][0]);
		sqlite3_bind_int64(del, 2, ids[i][1]);
		rc = sqlite3_step(del) == SQLITE_DONE ? 0 : -1;
		sqlite3_reset(del);
		if (rc == 0)
			rc = fn(arg, ids[i][0], ids[i][1]);
	}
	free(ids);
	return rc < 0 ? -1 : n;
}

static int store_sqlite_expire(struct store *base, enum store_level lv, int64_t before_ms, int max)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st;
	int rc, n;

	if (lv == STORE_RAW) {
		st = store_sqlite_stmt(s, STORE_SQLITE_EXPIRE_RAW);
		sqlite3_bind_int64(st, 1, before_ms);
		sqlite3_bind_int(st, 2, max);
	} else {
		st = store_sqlite_stmt(s, STORE_SQLITE_EXPIRE_ROLL);
		sqlite3_bind_int(st, 1, lv);
		sqlite3_bind_int64(st, 2, before_ms);
		sqlite3_bind_int(st, 3, max);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	n = sqlite3_changes(s->db);
	if (lv == STORE_RAW && n < max) {
		struct report_chunks *c = store_sqlite_chunks(s);
		int m = c ? report_chunks_expire(c, before_ms, max - n) : -1;

		if (m < 0)
			return -1;
		n += m;
	}
	if (lv == STORE_MINUTE) {
		st = store_sqlite_stmt(s, STORE_SQLITE_EXPIRE_EXITS);
		sqlite3_bind_int64(st, 1, before_ms);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return -1;
		st = store_sqlite_stmt(s, STORE_SQLITE_EXPIRE_LABELS);
		sqlite3_bind_int64(st, 1, before_ms);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return -1;
	}
	if (lv != STORE_RAW) {
		st = store_sqlite_stmt(s, STORE_SQLITE_EXPIRE_FLEET);
		sqlite3_bind_int(st, 1, lv);
		sqlite3_bind_int64(st, 2, before_ms);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return -1;
	}
	return n;
}

static int store_sqlite_meta_get(struct store *base, const char *key, int64_t *v)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_META_GET);
	int rc;

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = strtoll((const char *)sqlite3_column_text(st, 0), NULL, 10);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

static int store_sqlite_meta_put(struct store *base, const char *key, int64_t v)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_META_PUT);
	char buf[32];
	int rc;

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, buf, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int store_sqlite_dict_put(struct store *base, uint32_t id, int kind, const void *p, size_t len, int64_t now_ms)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_DICT_PUT);
	int rc;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, kind);
	sqlite3_bind_blob(st, 3, p, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now_ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int store_sqlite_dicts(struct store *base, store_dict_fn fn, void *arg)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_DICTS);
	int rc, cb = 0;

	while (cb == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		cb = fn(arg, (uint32_t)sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1),
			sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2), sqlite3_column_int64(st, 3));
	sqlite3_reset(st);
	return cb ? cb : rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* WAL frames past which a writer checkpoints itself (the background one lags). */
#define STORE_SQLITE_CHECKPOINT_FRAMES 1000

static int store_sqlite_wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	((struct store_sqlite *)arg)->wal_frames = frames;
	return SQLITE_OK;
}

/* A passive checkpoint never blocks the writer; when it has copied every
 * frame, the writer's next commit starts the WAL over, so the background one
 * keeps the WAL small while ingest runs. If it falls behind (readers holding
 * old snapshots, a busy disk), the writer checkpoints between batches, after
 * their answers went out; nothing is appended meanwhile, so that one completes. */
static int store_sqlite_maintain(struct store *base, bool background)
{
	struct store_sqlite *s = (struct store_sqlite *)base;

	if (!background && s->wal_frames < STORE_SQLITE_CHECKPOINT_FRAMES)
		return 0;
	s->wal_frames = 0;
	return sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static int64_t store_sqlite_size_bytes(struct store *base)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	sqlite3_stmt *st = store_sqlite_stmt(s, STORE_SQLITE_PAGES);
	int64_t v = -1;

	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
}

static const char *store_sqlite_errmsg(struct store *base)
{
	return sqlite3_errmsg(((struct store_sqlite *)base)->db);
}

static void store_sqlite_close(struct store *base)
{
	struct store_sqlite *s = (struct store_sqlite *)base;

	if (!s)
		return;
	if (s->hosts && host_state_pending(s->hosts) && exec1(s, STORE_SQLITE_BEGIN) == 0) {
		/* the rows memory holds newer go in before the handle goes */
		if (host_state_sweep(s->hosts, 0, true) || exec1(s, STORE_SQLITE_COMMIT))
			exec1(s, STORE_SQLITE_ROLLBACK);
	}
	host_state_free(s->hosts);
	reports_stage_free(s->stage);
	report_chunks_free(s->chunks);
	sqlite_db_close(s->db, s->st, STORE_SQLITE_COUNT);
	free(s);
}

static int64_t env_ms(const char *name, int64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoll(v, NULL, 10) : dflt;
}

struct report_chunks *store_sqlite_chunks(struct store_sqlite *s)
{
	if (!s->chunks && (s->chunks = report_chunks_new(s->db)))
		report_chunks_configure(s->chunks, env_ms("SCHEDIO_SQLITE_CHUNK_AFTER_MS", 15 * 60000),
					(int)env_ms("SCHEDIO_SQLITE_CHUNK_MIN", 60),
					env_ms("SCHEDIO_SQLITE_CHUNK_PERIOD_MS", 60000),
					env_ms("SCHEDIO_SQLITE_CHUNK_SWEEP_MS", 15 * 60000));
	return s->chunks;
}

/* On the rollup worker's handle, outside its transactions: a share of the pass that moves old raw rows into chunks. */
static int store_sqlite_compact(struct store *base, int64_t now_ms, int64_t mark_ms)
{
	struct store_sqlite *s = (struct store_sqlite *)base;
	struct report_chunks *c = store_sqlite_chunks(s);

	/* The handle that runs the chunk pass (the rollup worker's) needs no fsync of its own: a commit of it
	 * lost to a power cut loses no report (rows and rollups are made again from what is still there), and
	 * the ingest writer's next commit syncs the WAL with its frames in it. Set outside a transaction. */
	if (!s->nosync)
		s->nosync = sqlite3_exec(s->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) == SQLITE_OK;

	return c ? report_chunks_compact(c, now_ms, mark_ms) : -1;
}

static const struct store_ops store_sqlite_ops = {
	.put_reports = store_sqlite_put_reports,
	.hosts = store_sqlite_hosts,
	.reports = store_sqlite_reports,
	.scan = store_sqlite_scan,
	.scan_hist = store_sqlite_scan_hist,
	.latest = store_sqlite_latest,
	.hosts_in = store_sqlite_hosts_in,
	.fleet_scan = store_sqlite_fleet_scan,
	.health_scan = store_sqlite_health_scan,
	.exits_scan = store_sqlite_exits_scan,
	.label_hosts = store_sqlite_label_hosts,
	.experiments = store_sqlite_experiments,
	.experiment_put = store_sqlite_experiment_put,
	.experiment_delete = store_sqlite_experiment_delete,
	.begin = store_sqlite_begin,
	.commit = store_sqlite_commit,
	.rollback = store_sqlite_rollback,
	.rollup_put = store_sqlite_rollup_put,
	.fleet_put = store_sqlite_fleet_put,
	.dirty_take = store_sqlite_dirty_take,
	.expire = store_sqlite_expire,
	.compact = store_sqlite_compact,
	.meta_get = store_sqlite_meta_get,
	.meta_put = store_sqlite_meta_put,
	.dict_put = store_sqlite_dict_put,
	.dicts = store_sqlite_dicts,
	.maintain = store_sqlite_maintain,
	.idle = store_sqlite_idle,
	.size_bytes = store_sqlite_size_bytes,
	.errmsg = store_sqlite_errmsg,
	.close = store_sqlite_close,
};

/* SQLite's own busy timeout sleeps longer and longer (up to 100 ms a try), so a writer that found the
 * database locked by the rollup worker's transaction sleeps on well past its end while the worker takes
 * the lock again: the ingest writer starved (BENCHMARKS.md, chunked raw reports). Trying again every
 * millisecond takes the lock as soon as it is free; 1 when to try again, 0 after ~10 s. */
static int busy_wait(void *arg, int tries)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	if (tries >= BUSY_TRIES)
		return 0;
	nanosleep(&ms, NULL);
	return 1;
}

struct store *store_sqlite_open(const char *path, char *err, size_t errlen)
{
	struct store_sqlite *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &store_sqlite_ops;
	/* NOMUTEX: a handle belongs to one thread; WAL lets readers run beside the writer. */
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_busy_handler(s->db, busy_wait, NULL);
	sqlite3_extended_result_codes(s->db, 1);
	/* A commit that crosses the auto-checkpoint size would copy the WAL into
	 * the database inside the ingest writer's acknowledgement path; the
	 * writer checkpoints after answering instead (maintain). */
	if (sqlite3_exec(s->db,
			 "PRAGMA synchronous=FULL; PRAGMA cache_size=-16384; PRAGMA temp_store=MEMORY; "
			 "PRAGMA wal_autocheckpoint=0",
			 NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_wal_hook(s->db, store_sqlite_wal_hook, s);
	if (sqlite_db_prepare_all(s->db, sql, STORE_SQLITE_COUNT, s->st) < 0)
		goto fail;
	return &s->base;
fail:
	snprintf(err, errlen, "cannot open store %s: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
	store_sqlite_close(&s->base);
	return NULL;
}
