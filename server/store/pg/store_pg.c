/* store_pg.c - the PostgreSQL backend of store.h: a handle is one libpq
 * connection with every statement prepared once, used by one thread.
 *
 * A batch of reports is one transaction and the caller answers only after
 * its COMMIT. Each report is one statement (STORE_PG_HOST_REPORT) that finds or
 * creates its host and inserts the report with ON CONFLICT (host_id,
 * incarnation, seq) DO NOTHING RETURNING: the primary key, not this process, decides what is a
 * duplicate, so a report retried against another server is stored once. The
 * statements of a batch are pipelined (libpq pipeline mode), so a batch
 * costs a few round trips, not one per report. Any error rolls the whole
 * batch back (the agents retry it): PostgreSQL has no per-statement undo
 * short of a savepoint per report, which would cost the pipelining.
 *
 * Several servers may ingest while one of them rolls up (try_lead), whose
 * ingest fence only covers its own writer. So a report here is also "late"
 * when its minute is older than the rollup could possibly have reached by
 * wall clock (ROLLUP_GRACE_MS, less LATE_SLACK_MS of slack for clock skew and
 * slow commits): its minute is then queued for a redo. A redo is idempotent,
 * so marking too many is only work, marking too few would lose data.
 */
#include "server/store/pg/store_pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/series/rollup.h"
#include "server/store/store_dicts.h"
#include "server/store/store_sql.h"

#define LATE_SLACK_MS 30000LL

/* STORE_SQL_ROW_COLS and STORE_SQL_RAW_COLS with the per-cgroup blobs left out (scan_hist). */
#define ROW_COLS_H "host_id, t, sched_group, kernel, host_hist, NULL::bytea, NULL::bytea"
#define RAW_COLS_H "host_id, start_ms, sched_group, kernel, host_hist, NULL::bytea, NULL::bytea, end_ms"

static const char *const sql[STORE_PG_COUNT] = {
	/* One statement per report, so a batch pipelines: find or create the host
	 * (a new host's row takes the report's inventory directly: a statement
	 * does not see rows it inserted itself), insert the report unless (host,
	 * seq) exists, and only if it was inserted update the host's inventory
	 * and queue a late minute ($12 = 1) for a redo. Returns the host id when
	 * stored, no row otherwise. */
	[STORE_PG_HOST_REPORT] =
	    "WITH ins AS (INSERT INTO hosts (machine_id, hostname, kernel, arch, cpus, l3_json, disks_json, "
	    "sched_state, sched_ops, agent_version, first_seen_ms, last_start_ms, last_end_ms) "
	    "VALUES ($1::text, $2::text, $13::text, $14::text, $15::bigint, $16::text, $17::text, $18::text, "
	    "CASE WHEN $18::text IS NULL THEN NULL ELSE $19::text END, $20::text, $3::bigint, "
	    "$5::bigint, $6::bigint) ON CONFLICT (machine_id) DO NOTHING RETURNING id), "
	    "h AS (SELECT id FROM ins UNION ALL SELECT id FROM hosts WHERE machine_id = $1::text LIMIT 1), "
	    "r AS (INSERT INTO reports (host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, "
	    "host_hist, series, iocost, dropped, incarnation, health) SELECT id, $4::bigint, $5::bigint, "
	    "$6::bigint, $3::bigint, $7::text, $8::text, $9::bytea, $10::bytea, $11::bytea, $22::bigint, $23::text, "
	    "$24::text FROM h ON CONFLICT (host_id, incarnation, seq) DO NOTHING "
	    "RETURNING host_id), "
	    /* The report's sched_ext exits ($25: a checked JSON array), only when it was stored. */
	    "x AS (INSERT INTO scx_exits (host_id, t_ms, incarnation, seq, idx, ops, kind, reason, message) "
	    "SELECT r.host_id, (e.v->>'t_ms')::bigint, $23::text, $4::bigint, e.i - 1, e.v->>'ops', e.v->>'kind', "
	    "e.v->>'reason', e.v->>'message' FROM r, jsonb_array_elements($25::text::jsonb) WITH ORDINALITY AS e(v, i) "
	    "ON CONFLICT DO NOTHING), "
	    "u AS (UPDATE hosts SET hostname = $2::text, kernel = coalesce($13::text, kernel), "
	    "arch = coalesce($14::text, arch), cpus = coalesce($15::bigint, cpus), "
	    "l3_json = coalesce($16::text, l3_json), disks_json = coalesce($17::text, disks_json), "
	    "sched_state = coalesce($18::text, sched_state), "
	    "sched_ops = CASE WHEN $18::text IS NULL THEN sched_ops ELSE $19::text END, "
	    "agent_version = coalesce($20::text, agent_version), last_start_ms = $5::bigint, "
	    "last_end_ms = $6::bigint FROM r WHERE hosts.id = r.host_id AND last_start_ms <= $5::bigint), "
	    "d AS (INSERT INTO rollup_dirty (host_id, t) SELECT host_id, $21::bigint FROM r WHERE $12::bigint = 1 "
	    "ON CONFLICT DO NOTHING) "
	    "SELECT host_id FROM r",
	[STORE_PG_DUP_CHECK] =
	    "SELECT h.id, (SELECT count(*) FROM reports r WHERE r.host_id = h.id AND r.seq = $2::bigint "
	    "AND r.incarnation = $3::text) FROM hosts h WHERE h.machine_id = $1::text",
	/* After a report is stored: the host's agent moves on to its incarnation and seq, and
	 * a new incarnation whose seq went back is a restart ($4 = now), the test
	 * store_agent_restart makes again on the old values returned (for its log). The row
	 * is locked first, so two servers see each other's update. */
	[STORE_PG_AGENT_TRACK] =
	    "WITH o AS (SELECT id, agent_incarnation, agent_seq FROM hosts WHERE machine_id = $1::text FOR UPDATE) "
	    "UPDATE hosts h SET agent_incarnation = $2::text, agent_seq = CASE WHEN o.agent_incarnation = $2::text "
	    "THEN greatest(o.agent_seq, $3::bigint) ELSE $3::bigint END, "
	    "agent_restarted_ms = CASE WHEN o.agent_incarnation <> $2::text AND $3::bigint < o.agent_seq "
	    "THEN $4::bigint ELSE h.agent_restarted_ms END FROM o WHERE h.id = o.id "
	    "RETURNING o.agent_incarnation, o.agent_seq",
	[STORE_PG_HOSTS_ALL] =
	    "SELECT " STORE_SQL_HOST_COLS " FROM hosts ORDER BY hostname COLLATE \"C\", machine_id COLLATE \"C\"",
	[STORE_PG_HOSTS_ONE] = STORE_SQL_HOSTS_ONE,
	[STORE_PG_REPORTS] = "SELECT seq, start_ms, end_ms, dropped FROM reports WHERE host_id = $1 AND start_ms >= $2 "
			     "AND start_ms < $3 ORDER BY seq",
	[STORE_PG_SCAN_RAW_HOST] =
	    "SELECT " STORE_SQL_RAW_COLS
	    " FROM reports WHERE host_id = $1 AND start_ms >= $2 AND start_ms < $3 ORDER BY start_ms",
	[STORE_PG_SCAN_RAW_ALL] =
	    "SELECT " STORE_SQL_RAW_COLS " FROM reports WHERE start_ms >= $1::bigint AND start_ms < $2::bigint "
	    "ORDER BY host_id, start_ms",
	[STORE_PG_SCAN_ROLL_HOST] = STORE_SQL_SCAN_ROLL_HOST,
	[STORE_PG_SCAN_ROLL_ALL] =
	    "SELECT " STORE_SQL_ROW_COLS " FROM rollups WHERE level = $1::bigint AND t >= $2::bigint "
	    "AND t < $3::bigint ORDER BY host_id, t",
	[STORE_PG_SCAN_RAW_HOST_H] =
	    "SELECT " RAW_COLS_H " FROM reports WHERE host_id = $1::bigint AND start_ms >= $2::bigint "
	    "AND start_ms < $3::bigint ORDER BY start_ms",
	[STORE_PG_SCAN_RAW_ALL_H] =
	    "SELECT " RAW_COLS_H " FROM reports WHERE start_ms >= $1::bigint AND start_ms < $2::bigint "
	    "ORDER BY host_id, start_ms",
	[STORE_PG_SCAN_ROLL_HOST_H] =
	    "SELECT " ROW_COLS_H " FROM rollups WHERE level = $1::bigint AND host_id = $2::bigint "
	    "AND t >= $3::bigint AND t < $4::bigint ORDER BY t",
	[STORE_PG_SCAN_ROLL_ALL_H] = "SELECT " ROW_COLS_H " FROM rollups WHERE level = $1::bigint AND t >= $2::bigint "
				     "AND t < $3::bigint ORDER BY host_id, t",
	[STORE_PG_LATEST] =
	    "SELECT " STORE_SQL_RAW_COLS " FROM reports WHERE host_id = $1 ORDER BY start_ms DESC LIMIT 1",
	[STORE_PG_HOSTS_IN_RAW] =
	    "SELECT DISTINCT host_id FROM reports WHERE start_ms >= $1::bigint AND start_ms < $2::bigint "
	    "ORDER BY host_id",
	[STORE_PG_HOSTS_IN_ROLL] = "SELECT DISTINCT host_id FROM rollups WHERE level = $1::bigint AND t >= $2::bigint "
				   "AND t < $3::bigint ORDER BY host_id",
	[STORE_PG_FLEET_SCAN] =
	    "SELECT t, key, hosts, hist FROM fleet_rollups WHERE level = $1::bigint AND dim = $2::text "
	    "AND t >= $3::bigint AND t < $4::bigint ORDER BY t, key COLLATE \"C\"",
	[STORE_PG_ROLLUP_PUT] =
	    "INSERT INTO rollups (level, " STORE_SQL_ROW_COLS ") VALUES ($1::bigint, $2::bigint, $3::bigint, "
	    "$4::text, $5::text, $6::bytea, $7::bytea, $8::bytea) ON CONFLICT (level, host_id, t) DO UPDATE "
	    "SET sched_group = EXCLUDED.sched_group, kernel = EXCLUDED.kernel, "
	    "host_hist = EXCLUDED.host_hist, series = EXCLUDED.series, iocost = EXCLUDED.iocost",
	[STORE_PG_FLEET_PUT] =
	    "INSERT INTO fleet_rollups (level, t, dim, key, hosts, hist) VALUES ($1::bigint, $2::bigint, "
	    "$3::text, $4::text, $5::bigint, $6::bytea) ON CONFLICT (level, t, dim, key) DO UPDATE "
	    "SET hosts = EXCLUDED.hosts, hist = EXCLUDED.hist",
	[STORE_PG_FLEET_DEL] = STORE_SQL_FLEET_DEL,
	[STORE_PG_DIRTY_TAKE] = "DELETE FROM rollup_dirty WHERE (host_id, t) IN (SELECT host_id, t FROM rollup_dirty "
				"ORDER BY t LIMIT $1::bigint FOR UPDATE SKIP LOCKED) RETURNING host_id, t",
	/* A raw row whose minute waits for a redo (a late report committed after this
	 * round's redo) stays until that redo has read it. */
	[STORE_PG_EXPIRE_RAW] =
	    "DELETE FROM reports WHERE ctid IN (SELECT ctid FROM reports r WHERE start_ms < $1::bigint "
	    "AND NOT EXISTS (SELECT 1 FROM rollup_dirty d WHERE d.host_id = r.host_id "
	    "AND d.t = r.start_ms - r.start_ms % 60000) LIMIT $2::bigint)",
	[STORE_PG_EXPIRE_ROLL] = "DELETE FROM rollups WHERE ctid IN (SELECT ctid FROM rollups WHERE level = $1::bigint "
				 "AND t < $2::bigint LIMIT $3::bigint)",
	[STORE_PG_EXPIRE_FLEET] = STORE_SQL_EXPIRE_FLEET,
	[STORE_PG_META_GET] = STORE_SQL_META_GET,
	[STORE_PG_META_PUT] =
	    "INSERT INTO server_meta (key, value) VALUES ($1::text, $2::text) ON CONFLICT (key) DO UPDATE "
	    "SET value = EXCLUDED.value",
	[STORE_PG_DICT_PUT] = STORE_SQL_DICT_PUT,
	[STORE_PG_DICTS] = STORE_SQL_DICTS,
	[STORE_PG_SIZE] = "SELECT pg_database_size(current_database())::bigint",
	[STORE_PG_TRY_LOCK] = "SELECT CASE WHEN pg_try_advisory_lock($1::bigint) THEN 1::bigint ELSE 0::bigint END",
	[STORE_PG_EXPIRE_EXITS] = STORE_SQL_EXPIRE_EXITS,
	[STORE_PG_HEALTH_HOST] = "SELECT host_id, start_ms, end_ms, health FROM reports WHERE host_id = $1 AND "
				 "start_ms >= $2 AND start_ms < $3 ORDER BY start_ms, seq",
	[STORE_PG_HEALTH_ALL] = STORE_SQL_HEALTH_ALL,
	[STORE_PG_EXITS_HOST] = STORE_SQL_EXITS_HOST,
	[STORE_PG_EXITS_ALL] = STORE_SQL_EXITS_ALL,
	/* Issue 15 (schema/postgresql/0013): stored report ($1 host, $2 start, $3 labels) extends the
	 * host's span it falls after when that span has the same labels, else starts one; a report
	 * without labels starts none for a host that never had any. As schema/sqlite's two statements. */
	[STORE_PG_LABEL_SPAN] =
	    "WITH h AS (SELECT id FROM hosts WHERE machine_id = $1::text), "
	    "p AS (SELECT max(l.first_ms) AS first_ms FROM label_spans l, h WHERE l.host_id = h.id "
	    "AND l.first_ms <= $2::bigint), "
	    "u AS (UPDATE label_spans l SET last_ms = greatest(l.last_ms, $2::bigint) FROM h, p "
	    "WHERE l.host_id = h.id AND l.first_ms = p.first_ms AND l.labels = $3::text RETURNING 1) "
	    "INSERT INTO label_spans (host_id, first_ms, last_ms, labels) SELECT h.id, $2::bigint, $2::bigint, "
	    "$3::text FROM h WHERE NOT EXISTS (SELECT 1 FROM u) AND ($3::text <> '' OR EXISTS "
	    "(SELECT 1 FROM label_spans x WHERE x.host_id = h.id)) ON CONFLICT (host_id, first_ms) DO NOTHING",
	[STORE_PG_EXPIRE_LABELS] = STORE_SQL_EXPIRE_LABELS,
	/* $1: ",key=value,", matched against the canonical text between commas. */
	[STORE_PG_LABEL_HOSTS] =
	    "SELECT DISTINCT h.machine_id COLLATE \"C\" AS m FROM label_spans l JOIN hosts h ON h.id = l.host_id "
	    "WHERE l.last_ms >= $2::bigint AND l.first_ms < $3::bigint "
	    "AND strpos(',' || l.labels || ',', $1::text) > 0 ORDER BY m",
	/* Issue 15 (schema/postgresql/0014): saved experiments. */
	[STORE_PG_EXPERIMENTS_ALL] = STORE_SQL_EXPERIMENTS_ALL,
	[STORE_PG_EXPERIMENTS_ONE] = STORE_SQL_EXPERIMENTS_ONE,
	[STORE_PG_EXPERIMENT_PUT] = STORE_SQL_EXPERIMENT_PUT,
	[STORE_PG_EXPERIMENT_DELETE] = STORE_SQL_EXPERIMENT_DELETE,
};

static const char *const names[STORE_PG_COUNT] = {
	"p0",  "p1",  "p2",  "p3",  "p4",  "p5",  "p6",  "p7",  "p8",  "p9",  "p10", "p11", "p12", "p13", "p14",
	"p15", "p16", "p17", "p18", "p19", "p20", "p21", "p22", "p23", "p24", "p25", "p26", "p27", "p28", "p29",
	"p30", "p31", "p32", "p33", "p34", "p35", "p36", "p37", "p38", "p39", "p40", "p41", "p42",
};

_Static_assert(STORE_PG_COUNT == 43, "one name per statement");

const char *store_pg_name(enum store_pg_stmt which)
{
	return names[which];
}

static struct store_pg *from(struct store *base)
{
	return (struct store_pg *)base;
}

int store_pg_ready(struct store_pg *s)
{
	int rc = pg_revive(s->c, names, sql, STORE_PG_COUNT);

	/* A new session holds no advisory locks: leadership must be won again. */
	if (rc == 1)
		s->lead[0] = s->lead[1] = false;
	return rc < 0 ? -1 : 0;
}

/* Runs a statement for its effect; returns rows affected or -1. */
static int run_cmd(struct store_pg *s, enum store_pg_stmt which, const struct pg_params *p)
{
	PGresult *r = pg_run(s->c, names[which], p);
	int n;

	if (!r)
		return -1;
	n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n;
}

static int64_t floor_minute(int64_t t)
{
	return t - ((t % STORE_MINUTE_MS) + STORE_MINUTE_MS) % STORE_MINUTE_MS;
}

static void report_params(struct pg_params *p, const struct report *r, int64_t now_ms, int64_t late_mark)
{
	int64_t minute = floor_minute(r->start_ms);

	pg_p_text(p, r->machine_id);
	pg_p_text(p, r->hostname);
	pg_p_int(p, now_ms);
	pg_p_int(p, (int64_t)r->seq);
	pg_p_int(p, r->start_ms);
	pg_p_int(p, r->end_ms);
	pg_p_text(p, r->sched_group);
	pg_p_text(p, r->kernel ? r->kernel : "");
	pg_p_blob(p, r->host_hist.p, r->host_hist.len, r->has_runqlat);
	pg_p_blob(p, r->series.p, r->series.len, r->has_runqlat);
	pg_p_blob(p, r->iocost.p, r->iocost.len, r->has_iocost);
	pg_p_int(p, minute < late_mark);
	pg_p_text(p, r->kernel);
	pg_p_text(p, r->arch);
	if (r->cpus)
		pg_p_int(p, r->cpus);
	else
		pg_p_text(p, NULL);
	pg_p_text(p, r->l3_json);
	pg_p_text(p, r->disks_json);
	pg_p_text(p, r->sched_state);
	pg_p_text(p, r->sched_ops);
	pg_p_text(p, r->agent_version);
	pg_p_int(p, minute);
	pg_p_int(p, r->dropped);
	pg_p_text(p, r->incarnation);
	pg_p_text(p, r->health_json);
	pg_p_text(p, r->exits_json);
}

/* A report whose statement returned no row: a duplicate, or its host was
 * created by another server after the statement's snapshot (then running it
 * again stores it). Sets *result; 0 or -1. */
static int settle(struct store_pg *s, const struct report *r, int64_t now_ms, int64_t late_mark, int *result)
{
	struct pg_params p = { 0 }, q = { 0 };
	PGresult *res;
	bool dup;

	pg_p_text(&q, r->machine_id);
	pg_p_int(&q, (int64_t)r->seq);
	pg_p_text(&q, r->incarnation);
	res = pg_run(s->c, names[STORE_PG_DUP_CHECK], &q);
	if (!res)
		return -1;
	dup = PQntuples(res) == 1 && pg_int(res, 0, 1) > 0;
	PQclear(res);
	if (dup) {
		*result = STORE_DUPLICATE;
		return 0;
	}
	report_params(&p, r, now_ms, late_mark);
	res = pg_run(s->c, names[STORE_PG_HOST_REPORT], &p);
	if (!res || PQntuples(res) != 1) {
		PQclear(res);
		return -1;
	}
	PQclear(res);
	*result = STORE_STORED;
	return 0;
}

/* Reads what is left of a pipeline up to its sync marker and leaves pipeline
 * mode; 0, or -1 when libpq refuses to leave it. */
static int pipeline_end(struct store_pg *s)
{
	PGresult *res;

	while ((res = PQgetResult(s->c))) {
		bool sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;

		PQclear(res);
		if (sync)
			break;
	}
	return PQexitPipelineMode(s->c) == 1 ? 0 : -1;
}

/* Reads the result of one statement of a pipeline: 0 when its status is want, else -1; the result, or NULL, in
 * *out (the caller clears it). */
static int pipeline_result(struct store_pg *s, ExecStatusType want, PGresult **out)
{
	PGresult *res = PQgetResult(s->c), *rest;
	int rc = PQresultStatus(res) == want ? 0 : -1;

	/* Each statement's results end with a NULL. */
	while ((rest = PQgetResult(s->c)))
		PQclear(rest);
	*out = res;
	return rc;
}

/* Sends reports [from, to) as one pipeline and reads their results: STORED
 * for a returned row, DUPLICATE (provisionally) for none. 0, or -1 when any
 * statement failed (the transaction is then aborted). */
static int pipeline_chunk(struct store_pg *s, struct report *const *reps, size_t from, size_t to, int *results,
			  int64_t now_ms, int64_t late_mark)
{
	PGresult *res;
	int rc = 0;

	if (PQenterPipelineMode(s->c) != 1)
		return -1;
	for (size_t i = from; i < to; i++) {
		struct pg_params p = { 0 };

		report_params(&p, reps[i], now_ms, late_mark);
		if (PQsendQueryPrepared(s->c, names[STORE_PG_HOST_REPORT], p.n, p.v, p.len, p.fmt, 1) != 1) {
			rc = -1;
			to = i;
			break;
		}
	}
	if (PQpipelineSync(s->c) != 1)
		rc = -1;
	for (size_t i = from; i < to; i++) {
		if (pipeline_result(s, PGRES_TUPLES_OK, &res) == 0)
			results[i] = PQntuples(res) == 1 ? STORE_STORED : STORE_DUPLICATE;
		else
			rc = -1;
		PQclear(res);
	}
	return pipeline_end(s) < 0 ? -1 : rc;
}

/* For each stored report of [from, to), as one pipeline: moves its host on to its agent incarnation and seq
 * (STORE_PG_AGENT_TRACK) and records its labels in the host's label spans (STORE_PG_LABEL_SPAN); 0, or -1 when
 * any statement failed. */
static int stored_chunk(struct store_pg *s, struct report *const *reps, size_t from, size_t to, const int *results,
			int64_t now_ms)
{
	size_t sent = 0; /* statements, two per report */
	PGresult *res;
	int rc = 0;

	if (PQenterPipelineMode(s->c) != 1)
		return -1;
	for (size_t i = from; i < to; i++) {
		struct pg_params track = { 0 }, span = { 0 };

		if (results[i] != STORE_STORED)
			continue;
		pg_p_text(&track, reps[i]->machine_id);
		pg_p_text(&track, reps[i]->incarnation);
		pg_p_int(&track, (int64_t)reps[i]->seq);
		pg_p_int(&track, now_ms);
		pg_p_text(&span, reps[i]->machine_id);
		pg_p_int(&span, reps[i]->start_ms);
		pg_p_text(&span, reps[i]->labels ? reps[i]->labels : "");
		if (PQsendQueryPrepared(s->c, names[STORE_PG_AGENT_TRACK], track.n, track.v, track.len, track.fmt, 1) !=
		    1) {
			rc = -1;
			break;
		}
		sent++;
		if (PQsendQueryPrepared(s->c, names[STORE_PG_LABEL_SPAN], span.n, span.v, span.len, span.fmt, 1) != 1) {
			rc = -1;
			break;
		}
		sent++;
	}
	if (PQpipelineSync(s->c) != 1)
		rc = -1;
	for (size_t i = from; i < to && sent > 0; i++) {
		if (results[i] != STORE_STORED)
			continue;
		sent--;
		if (pipeline_result(s, PGRES_TUPLES_OK, &res) < 0)
			rc = -1;
		else if (PQntuples(res) == 1)
			store_agent_restart(reps[i], pg_text(res, 0, 0), pg_int(res, 0, 1));
		PQclear(res);
		if (sent > 0) {
			sent--;
			if (pipeline_result(s, PGRES_COMMAND_OK, &res) < 0)
				rc = -1;
			PQclear(res);
		}
	}
	return pipeline_end(s) < 0 ? -1 : rc;
}

/* Reports per pipeline: bounds what sits unread in the socket buffers both ways. */
#define PIPELINE_CHUNK 128

static int store_pg_put_reports(struct store *base, struct report *const *reps, size_t n, int *results, int64_t now_ms,
				int64_t minute_mark)
{
	struct store_pg *s = from(base);
	int64_t late_mark = floor_minute(now_ms - ROLLUP_GRACE_MS + LATE_SLACK_MS);

	if (minute_mark > late_mark)
		late_mark = minute_mark;
	for (size_t i = 0; i < n; i++)
		results[i] = STORE_FAILED;
	/* A connection dropped while idle shows at its first command: reconnect once and go on. */
	if (store_pg_ready(s) < 0 ||
	    (pg_exec(s->c, "BEGIN") < 0 && (store_pg_ready(s) < 0 || pg_exec(s->c, "BEGIN") < 0)))
		return -1;
	for (size_t i = 0; i < n; i += PIPELINE_CHUNK)
		if (pipeline_chunk(s, reps, i, i + PIPELINE_CHUNK < n ? i + PIPELINE_CHUNK : n, results, now_ms,
				   late_mark))
			goto fail;
	for (size_t i = 0; i < n; i++)
		if (results[i] == STORE_DUPLICATE && settle(s, reps[i], now_ms, late_mark, &results[i]))
			goto fail;
	for (size_t i = 0; i < n; i += PIPELINE_CHUNK)
		if (stored_chunk(s, reps, i, i + PIPELINE_CHUNK < n ? i + PIPELINE_CHUNK : n, results, now_ms))
			goto fail;
	if (pg_exec(s->c, "COMMIT") < 0)
		goto fail;
	return 0;
fail:
	pg_exec(s->c, "ROLLBACK");
	for (size_t i = 0; i < n; i++)
		results[i] = STORE_FAILED;
	return -1;
}

static int store_pg_begin(struct store *base)
{
	return store_pg_ready(from(base)) < 0 ? -1 : pg_exec(from(base)->c, "BEGIN");
}

static int store_pg_commit(struct store *base)
{
	return pg_exec(from(base)->c, "COMMIT");
}

static void store_pg_rollback(struct store *base)
{
	pg_exec(from(base)->c, "ROLLBACK");
}

static int store_pg_rollup_put(struct store *base, enum store_level lv, const struct store_row *r)
{
	struct pg_params p = { 0 };

	pg_p_int(&p, lv);
	pg_p_int(&p, r->host_id);
	pg_p_int(&p, r->t);
	pg_p_text(&p, r->sched_group);
	pg_p_text(&p, r->kernel);
	pg_p_blob(&p, r->host_hist, r->host_hist_len, r->host_hist != NULL);
	pg_p_blob(&p, r->series, r->series_len, r->series != NULL);
	pg_p_blob(&p, r->iocost, r->iocost_len, r->iocost != NULL);
	return run_cmd(from(base), STORE_PG_ROLLUP_PUT, &p) < 0 ? -1 : 0;
}

static int store_pg_fleet_put(struct store *base, enum store_level lv, int64_t t, const char *dim, const char *key,
			      int64_t hosts, const struct blob *hist)
{
	struct pg_params p = { 0 };
	bool put = hist && hist->len;

	pg_p_int(&p, lv);
	pg_p_int(&p, t);
	pg_p_text(&p, dim);
	pg_p_text(&p, key);
	if (put) {
		pg_p_int(&p, hosts);
		pg_p_blob(&p, hist->p, hist->len, true);
	}
	return run_cmd(from(base), put ? STORE_PG_FLEET_PUT : STORE_PG_FLEET_DEL, &p) < 0 ? -1 : 0;
}

static int store_pg_dirty_take(struct store *base, int max, store_id_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int n, rc = 0;

	pg_p_int(&p, max);
	r = pg_run(from(base)->c, names[STORE_PG_DIRTY_TAKE], &p);
	if (!r)
		return -1;
	n = PQntuples(r);
	for (int i = 0; i < n && rc == 0; i++)
		rc = fn(arg, pg_int(r, i, 0), pg_int(r, i, 1));
	PQclear(r);
	return rc < 0 ? -1 : n;
}

static int store_pg_expire(struct store *base, enum store_level lv, int64_t before_ms, int max)
{
	struct store_pg *s = from(base);
	struct pg_params p = { 0 }, f = { 0 };
	int n;

	if (lv != STORE_RAW)
		pg_p_int(&p, lv);
	pg_p_int(&p, before_ms);
	pg_p_int(&p, max);
	n = run_cmd(s, lv == STORE_RAW ? STORE_PG_EXPIRE_RAW : STORE_PG_EXPIRE_ROLL, &p);
	if (n < 0)
		return -1;
	if (lv == STORE_MINUTE) {
		struct pg_params x = { 0 };

		pg_p_int(&x, before_ms);
		if (run_cmd(s, STORE_PG_EXPIRE_EXITS, &x) < 0)
			return -1;
		if (run_cmd(s, STORE_PG_EXPIRE_LABELS, &x) < 0)
			return -1;
	}
	if (lv != STORE_RAW) {
		pg_p_int(&f, lv);
		pg_p_int(&f, before_ms);
		if (run_cmd(s, STORE_PG_EXPIRE_FLEET, &f) < 0)
			return -1;
	}
	return n;
}

static int store_pg_meta_get(struct store *base, const char *key, int64_t *v)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int rc = 1;

	pg_p_text(&p, key);
	r = pg_run(from(base)->c, names[STORE_PG_META_GET], &p);
	if (!r)
		return -1;
	if (PQntuples(r) == 1) {
		*v = strtoll(pg_text(r, 0, 0), NULL, 10);
		rc = 0;
	}
	PQclear(r);
	return rc;
}

static int store_pg_meta_put(struct store *base, const char *key, int64_t v)
{
	struct pg_params p = { 0 };
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	pg_p_text(&p, key);
	pg_p_text(&p, buf);
	return run_cmd(from(base), STORE_PG_META_PUT, &p) < 0 ? -1 : 0;
}

static int store_pg_dict_put(struct store *base, uint32_t id, int kind, const void *dict, size_t len, int64_t now_ms)
{
	struct pg_params p = { 0 };

	pg_p_int(&p, id);
	pg_p_int(&p, kind);
	pg_p_blob(&p, dict, len, true);
	pg_p_int(&p, now_ms);
	return run_cmd(from(base), STORE_PG_DICT_PUT, &p) < 0 ? -1 : 0;
}

static int store_pg_dicts(struct store *base, store_dict_fn fn, void *arg)
{
	struct pg_params p = { 0 };
	PGresult *r = pg_run(from(base)->c, names[STORE_PG_DICTS], &p);
	int rc = 0;

	if (!r)
		return -1;
	for (int i = 0; rc == 0 && i < PQntuples(r); i++) {
		size_t len;
		const void *d = pg_blob(r, i, 2, &len);

		rc = fn(arg, (uint32_t)pg_int(r, i, 0), (int)pg_int(r, i, 1), d, len, pg_int(r, i, 3));
	}
	PQclear(r);
	return rc;
}

/* Session-level advisory lock per job: held until this connection ends, so
 * the leader keeps its job while alive and another server takes it over
 * within one rollup round after the leader dies (its connection drops). */
static int store_pg_try_lead(struct store *base, enum store_job job)
{
	struct store_pg *s = from(base);
	struct pg_params p = { 0 };
	PGresult *r;

	if (store_pg_ready(s) < 0)
		return -1;
	if (s->lead[job])
		return 1;
	pg_p_int(&p, PG_MIGRATE_LOCK + 1 + job);
	r = pg_run(s->c, names[STORE_PG_TRY_LOCK], &p);
	if (!r)
		return -1;
	s->lead[job] = pg_int(r, 0, 0) == 1;
	PQclear(r);
	return s->lead[job];
}

/* PostgreSQL's autovacuum and checkpointer do what SQLite's WAL checkpoints need a thread for. */
static int store_pg_maintain(struct store *base, bool background)
{
	(void)base;
	(void)background;
	return 0;
}

static int64_t store_pg_size_bytes(struct store *base)
{
	PGresult *r = pg_run(from(base)->c, names[STORE_PG_SIZE], NULL);
	int64_t v = -1;

	if (!r)
		return -1;
	if (PQntuples(r) == 1)
		v = pg_int(r, 0, 0);
	PQclear(r);
	return v;
}

static const char *store_pg_errmsg(struct store *base)
{
	return PQerrorMessage(from(base)->c);
}

static void store_pg_close(struct store *base)
{
	struct store_pg *s = from(base);

	if (!s)
		return;
	PQfinish(s->c);
	free(s);
}

static const struct store_ops store_pg_ops = {
	.put_reports = store_pg_put_reports,
	.hosts = store_pg_hosts,
	.reports = store_pg_reports,
	.scan = store_pg_scan,
	.scan_hist = store_pg_scan_hist,
	.latest = store_pg_latest,
	.hosts_in = store_pg_hosts_in,
	.fleet_scan = store_pg_fleet_scan,
	.health_scan = store_pg_health_scan,
	.exits_scan = store_pg_exits_scan,
	.label_hosts = store_pg_label_hosts,
	.experiments = store_pg_experiments,
	.experiment_put = store_pg_experiment_put,
	.experiment_delete = store_pg_experiment_delete,
	.begin = store_pg_begin,
	.commit = store_pg_commit,
	.rollback = store_pg_rollback,
	.rollup_put = store_pg_rollup_put,
	.fleet_put = store_pg_fleet_put,
	.dirty_take = store_pg_dirty_take,
	.expire = store_pg_expire,
	.meta_get = store_pg_meta_get,
	.meta_put = store_pg_meta_put,
	.dict_put = store_pg_dict_put,
	.dicts = store_pg_dicts,
	.maintain = store_pg_maintain,
	.try_lead = store_pg_try_lead,
	.size_bytes = store_pg_size_bytes,
	.errmsg = store_pg_errmsg,
	.close = store_pg_close,
};

struct store *store_pg_open(const char *conninfo, char *err, size_t errlen)
{
	struct store_pg *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &store_pg_ops;
	s->c = pg_connect(conninfo, err, errlen);
	if (!s->c || pg_prepare_all(s->c, names, sql, STORE_PG_COUNT, err, errlen) < 0) {
		store_pg_close(&s->base);
		return NULL;
	}
	return &s->base;
}

struct store *store_open(const char *db, char *err, size_t errlen)
{
	struct store *st = pg_is_conninfo(db) ? store_pg_open(db, err, errlen) : store_sqlite_open(db, err, errlen);

	/* its blobs may name dictionaries: every handle's process can read them */
	if (st && store_dicts_load(st)) {
		snprintf(err, errlen, "cannot load the blob dictionaries: %s", st->ops->errmsg(st));
		st->ops->close(st);
		return NULL;
	}
	return st;
}
