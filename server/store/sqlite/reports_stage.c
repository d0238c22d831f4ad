/* reports_stage.c - staged report keys on SQLite (schema/sqlite/0018).
 *
 * Reports arrive in an order unrelated to their hosts. A report's row is
 * appended to `reports` and stays there; were its keys by host written into
 * their tables at once, each report would dirty an 8 KiB page of each. So its
 * keys go to a staging table in arrival order first, and every period the
 * active staging table is frozen (arrivals go to the other one) and its keys
 * are copied into report_keys and report_times in host order, a share inside
 * each ingest commit, so each host's key pages are written once a period; the
 * frozen table is then emptied the same way. merged_below (the state row) says
 * which of a frozen table's hosts are moved already; report_ids_by_host reads
 * each report's keys from exactly one place.
 *
 * The writer's memory: a hash set of each staging table's report keys, which
 * is the duplicate check with a read of report_keys, and the frozen table's
 * (host, entry) pairs in host order. It is rebuilt from the tables when it
 * may be stale: after a rollback, or when another connection staged reports
 * (the state row's epoch says so). A key in the set is checked against its
 * entry and row before it counts, so an entry gone (a savepoint rolled back)
 * or a row gone (retention) never makes a report a duplicate; a pair moves
 * its entry only if entry and host both match, so an entry rowid reused after
 * a rollback is moved at its own host's turn.
 */
#include "server/store/sqlite/reports_stage.h"

#include <stdlib.h>
#include <string.h>

#include "server/store/sqlite/host_order.h"
#include "server/store/sqlite/key_index.h"

/* merged_below of a staging table all of whose entries are moved. */
#define MERGED_ALL INT64_MAX

enum {
	RS_INS,
	RS_HAS,
	RS_MOVE_KEY,
	RS_MOVE_TIME,
	RS_DRAIN,
	RS_KEYS,
	RS_ANY,
	RS_PER_TABLE,
};

enum {
	RS_STATE_GET = 2 * RS_PER_TABLE,
	RS_STATE_PUT,
	RS_ROW_INS,
	RS_MAIN_HAS,
	RS_EPOCH_BUMP,
	RS_SAVEPOINT,
	RS_RELEASE,
	RS_ROLLBACK_TO,
	RS_COUNT,
};

#define TABLE_SQL(t)                                                                                                   \
	"INSERT INTO reports_stage" #t " (host_id, incarnation, seq, start_ms, id, arrival_s) "                        \
	"VALUES (?, ?, ?, ?, ?, ?)",                                                                                   \
	    "SELECT 1 FROM reports_stage" #t " s JOIN reports r ON r.id = s.id WHERE s.rowid = ?1 "                    \
	    "AND s.host_id = ?2 AND s.incarnation = ?3 AND s.seq = ?4",                                                \
	    "INSERT OR REPLACE INTO report_keys (host_id, incarnation, seq, id) SELECT host_id, incarnation, seq, "    \
	    "id FROM reports_stage" #t " WHERE rowid = ?1 AND host_id = ?2",                                           \
	    "INSERT OR IGNORE INTO report_times (host_id, start_ms, id) SELECT host_id, start_ms, id "                 \
	    "FROM reports_stage" #t " WHERE rowid = ?1 AND host_id = ?2",                                              \
	    "DELETE FROM reports_stage" #t " WHERE rowid IN (SELECT rowid FROM reports_stage" #t                       \
	    " ORDER BY rowid LIMIT ?1)",                                                                               \
	    "SELECT rowid, host_id, incarnation, seq FROM reports_stage" #t " ORDER BY rowid",                         \
	    "SELECT EXISTS (SELECT 1 FROM reports_stage" #t ")"

static const char *const sql[RS_COUNT] = {
	TABLE_SQL(0),
	TABLE_SQL(1),
	[RS_STATE_GET] = "SELECT active, merged_below0, merged_below1, epoch FROM reports_stage_state WHERE id = 1",
	[RS_STATE_PUT] = "UPDATE reports_stage_state SET active = ?1, merged_below0 = ?2, merged_below1 = ?3, "
			 "epoch = ?4 WHERE id = 1",
	[RS_EPOCH_BUMP] = "UPDATE reports_stage_state SET epoch = epoch + 1 WHERE id = 1",
	[RS_ROW_INS] = "INSERT INTO reports (host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, "
		       "host_hist, series, iocost, dropped, incarnation, health) "
		       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	/* A moved key whose row retention took while it was staged is not a report. */
	[RS_MAIN_HAS] = "SELECT 1 FROM report_keys k JOIN reports r ON r.id = k.id "
			"WHERE k.host_id = ?1 AND k.incarnation = ?2 AND k.seq = ?3",
	[RS_SAVEPOINT] = "SAVEPOINT stage",
	[RS_RELEASE] = "RELEASE stage",
	[RS_ROLLBACK_TO] = "ROLLBACK TO stage",
};

/* What the writer knows of one staging table. */
struct table {
	struct key_index keys;
	int64_t (*pairs)[2]; /* (host_id, rowid), in arrival order; in host order once frozen */
	size_t n_pairs, cap_pairs;
	bool nonempty; /* holds entries (a moved one until emptied) */
};

struct reports_stage {
	sqlite3 *db;
	sqlite3_stmt *st[RS_COUNT];
	bool loaded;
	int64_t epoch;
	int active;
	int64_t below[2];
	struct table t[2];
	size_t next;       /* the frozen table's next pair to move */
	int64_t frozen_ms; /* when the active table began taking arrivals */
	int64_t period_ms;
};

static sqlite3_stmt *stmt(struct reports_stage *g, int which)
{
	sqlite3_reset(g->st[which]);
	sqlite3_clear_bindings(g->st[which]);
	return g->st[which];
}

static int exec(struct reports_stage *g, int which)
{
	int rc = sqlite3_step(stmt(g, which));

	sqlite3_reset(g->st[which]);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static uint64_t key_hash(int64_t host_id, const char *incarnation, uint64_t seq)
{
	uint64_t h = 1469598103934665603ull;

	for (const unsigned char *p = (const unsigned char *)incarnation; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h ^= (uint64_t)host_id * 0x9e3779b97f4a7c15ull;
	h ^= seq * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 31;
	return h ? h : 1;
}

static void table_clear(struct table *t)
{
	key_index_clear(&t->keys);
	free(t->pairs);
	memset(t, 0, sizeof(*t));
}

static int pairs_add(struct table *t, int64_t host_id, int64_t rowid)
{
	if (t->n_pairs == t->cap_pairs) {
		size_t cap = t->cap_pairs ? 2 * t->cap_pairs : 1024;
		void *p = realloc(t->pairs, cap * sizeof(*t->pairs));

		if (!p)
			return -1;
		t->pairs = p;
		t->cap_pairs = cap;
	}
	t->pairs[t->n_pairs][0] = host_id;
	t->pairs[t->n_pairs][1] = rowid;
	t->n_pairs++;
	return 0;
}

/* Orders a frozen table's pairs by host (then arrival) and finds where the move stands. */
static void freeze_order(struct reports_stage *g, int which)
{
	struct table *t = &g->t[which];

	host_order_sort(t->pairs, t->n_pairs);
	for (g->next = 0; g->next < t->n_pairs && t->pairs[g->next][0] < g->below[which]; g->next++)
		;
}

/* Rebuilds the memory from the state row and the staging tables. */
static int load(struct reports_stage *g, int64_t now_ms)
{
	sqlite3_stmt *st = stmt(g, RS_STATE_GET);
	int rc;

	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return -1;
	}
	g->active = sqlite3_column_int(st, 0) ? 1 : 0;
	g->below[0] = sqlite3_column_int64(st, 1);
	g->below[1] = sqlite3_column_int64(st, 2);
	g->epoch = sqlite3_column_int64(st, 3);
	sqlite3_reset(st);
	for (int w = 0; w < 2; w++) {
		struct table *t = &g->t[w];

		table_clear(t);
		if (g->below[w] == MERGED_ALL) { /* being emptied: only whether entries are left matters */
			st = stmt(g, w * RS_PER_TABLE + RS_ANY);
			rc = sqlite3_step(st);
			t->nonempty = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
			sqlite3_reset(st);
			if (rc != SQLITE_ROW)
				return -1;
			continue;
		}
		st = stmt(g, w * RS_PER_TABLE + RS_KEYS);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t rowid = sqlite3_column_int64(st, 0), host = sqlite3_column_int64(st, 1);
			uint64_t h = key_hash(host, (const char *)sqlite3_column_text(st, 2),
					      (uint64_t)sqlite3_column_int64(st, 3));

			if (key_index_add(&t->keys, h, rowid) || pairs_add(t, host, rowid)) {
				rc = SQLITE_NOMEM;
				break;
			}
		}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return -1;
		t->nonempty = t->n_pairs > 0;
	}
	g->next = 0;
	if (g->below[g->active ^ 1] != MERGED_ALL && g->t[g->active ^ 1].nonempty)
		freeze_order(g, g->active ^ 1);
	g->frozen_ms = now_ms;
	g->loaded = true;
	return 0;
}

struct reports_stage *reports_stage_new(sqlite3 *db)
{
	struct reports_stage *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->db = db;
	g->period_ms = REPORTS_STAGE_PERIOD_MS;
	for (int i = 0; i < RS_COUNT; i++) {
		if (sqlite3_prepare_v3(db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &g->st[i], NULL) != SQLITE_OK) {
			reports_stage_free(g);
			return NULL;
		}
	}
	return g;
}

void reports_stage_free(struct reports_stage *g)
{
	if (!g)
		return;
	for (int i = 0; i < RS_COUNT; i++)
		sqlite3_finalize(g->st[i]);
	table_clear(&g->t[0]);
	table_clear(&g->t[1]);
	free(g);
}

void reports_stage_set_period(struct reports_stage *g, int64_t ms)
{
	g->period_ms = ms;
}

int reports_stage_begin(struct reports_stage *g, int64_t now_ms, bool *reloaded)
{
	sqlite3_stmt *st;
	int64_t epoch;

	*reloaded = false;
	if (g->loaded) {
		st = stmt(g, RS_STATE_GET);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_reset(st);
			return -1;
		}
		epoch = sqlite3_column_int64(st, 3);
		sqlite3_reset(st);
		if (epoch == g->epoch)
			return 0;
	}
	g->loaded = false;
	*reloaded = true;
	return load(g, now_ms);
}

struct staged_probe {
	struct reports_stage *g;
	int w;
	int64_t host_id;
	const struct report *r;
};

/* Whether the entry at rowid is this report's: 1, 0, or -1 on an error. */
static int staged_check(void *arg, int64_t rowid)
{
	struct staged_probe *p = arg;
	sqlite3_stmt *st = stmt(p->g, p->w * RS_PER_TABLE + RS_HAS);
	int rc;

	sqlite3_bind_int64(st, 1, rowid);
	sqlite3_bind_int64(st, 2, p->host_id);
	sqlite3_bind_text(st, 3, p->r->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)p->r->seq);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Whether staging table w holds the report with this key (its row checked, not just the hash). */
static int staged(struct reports_stage *g, int w, uint64_t h, int64_t host_id, const struct report *r)
{
	struct staged_probe p = { g, w, host_id, r };

	return key_index_find(&g->t[w].keys, h, staged_check, &p);
}

static void bind_blob(sqlite3_stmt *st, int i, const void *p, size_t len, bool present)
{
	if (present)
		sqlite3_bind_blob64(st, i, p ? p : "", len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

int reports_stage_put(struct reports_stage *g, const struct report *r, int64_t host_id, int64_t now_ms, bool *dup)
{
	uint64_t h = key_hash(host_id, r->incarnation, r->seq);
	struct table *t = &g->t[g->active];
	sqlite3_stmt *st;
	int rc;

	*dup = false;
	for (int w = 0; w < 2; w++) {
		if (g->below[w] == MERGED_ALL)
			continue; /* its keys are in report_keys, which is read below */
		rc = staged(g, w, h, host_id, r);
		if (rc)
			return rc < 0 ? -1 : (*dup = true, 0);
	}
	st = stmt(g, RS_MAIN_HAS);
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_text(st, 2, r->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)r->seq);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW) {
		*dup = true;
		return 0;
	}
	if (rc != SQLITE_DONE)
		return -1;
	st = stmt(g, RS_ROW_INS);
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, (int64_t)r->seq);
	sqlite3_bind_int64(st, 3, r->start_ms);
	sqlite3_bind_int64(st, 4, r->end_ms);
	sqlite3_bind_int64(st, 5, now_ms);
	sqlite3_bind_text(st, 6, r->sched_group, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->kernel ? r->kernel : "", -1, SQLITE_STATIC);
	bind_blob(st, 8, r->host_hist.p, r->host_hist.len, r->has_runqlat);
	bind_blob(st, 9, r->series.p, r->series.len, r->has_runqlat);
	bind_blob(st, 10, r->iocost.p, r->iocost.len, r->has_iocost);
	sqlite3_bind_int64(st, 11, r->dropped);
	sqlite3_bind_text(st, 12, r->incarnation, -1, SQLITE_STATIC);
	if (r->health_json)
		sqlite3_bind_text(st, 13, r->health_json, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	st = stmt(g, g->active * RS_PER_TABLE + RS_INS);
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_text(st, 2, r->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)r->seq);
	sqlite3_bind_int64(st, 4, r->start_ms);
	sqlite3_bind_int64(st, 5, sqlite3_last_insert_rowid(g->db));
	sqlite3_bind_int64(st, 6, now_ms / 1000);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	/* Out of memory here leaves the memory behind the table: reload it. */
	if (key_index_add(&t->keys, h, sqlite3_last_insert_rowid(g->db)) ||
	    pairs_add(t, host_id, sqlite3_last_insert_rowid(g->db)))
		g->loaded = false;
	t->nonempty = true;
	return 0;
}

/* Moves about `rows` of the frozen table's entries (whole hosts) into report_keys and report_times. */
static int move(struct reports_stage *g, int w, size_t rows)
{
	struct table *t = &g->t[w];
	size_t end = g->next + rows < t->n_pairs ? g->next + rows : t->n_pairs;
	sqlite3_stmt *st;
	int rc;

	while (end < t->n_pairs && end > 0 && t->pairs[end][0] == t->pairs[end - 1][0])
		end++;
	for (size_t i = g->next; i < end; i++) {
		for (int which = RS_MOVE_KEY; which <= RS_MOVE_TIME; which++) {
			st = stmt(g, w * RS_PER_TABLE + which);
			sqlite3_bind_int64(st, 1, t->pairs[i][1]);
			sqlite3_bind_int64(st, 2, t->pairs[i][0]);
			rc = sqlite3_step(st);
			sqlite3_reset(st);
			if (rc != SQLITE_DONE)
				return -1;
		}
	}
	g->next = end;
	g->below[w] = end < t->n_pairs ? t->pairs[end][0] : MERGED_ALL;
	if (g->below[w] == MERGED_ALL) { /* report_keys answers for its keys now */
		key_index_clear(&t->keys);
		free(t->pairs);
		t->pairs = NULL;
		t->n_pairs = t->cap_pairs = 0;
	}
	return 0;
}

/* Deletes up to `rows` of a moved table's oldest entries; an emptied table is ready to take arrivals. */
static int drain(struct reports_stage *g, int w, size_t rows)
{
	sqlite3_stmt *st = stmt(g, w * RS_PER_TABLE + RS_DRAIN);
	int rc;

	sqlite3_bind_int64(st, 1, (int64_t)rows);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	if ((size_t)sqlite3_changes(g->db) < rows) {
		g->t[w].nonempty = false;
		g->below[w] = 0;
	}
	return 0;
}

/* The staging work of one commit that took n reports. The move copies twice as
 * many keys as arrive, the emptying four times as many, so both are through
 * well within a period at a steady rate; an idle writer's step (n = 0) does more. */
static int step(struct reports_stage *g, size_t n, int64_t now_ms)
{
	int other = g->active ^ 1;
	struct table *o = &g->t[other];
	sqlite3_stmt *st;
	int rc;

	if (o->nonempty && g->below[other] != MERGED_ALL)
		rc = move(g, other, n ? 2 * n + 64 : 8192);
	else if (o->nonempty)
		rc = drain(g, other, n ? 4 * n + 256 : 16384);
	else
		rc = 0;
	if (rc)
		return -1;
	if (!o->nonempty && g->t[g->active].nonempty && now_ms - g->frozen_ms >= g->period_ms) {
		g->below[other] = 0;
		g->active = other;
		g->frozen_ms = now_ms;
		freeze_order(g, other ^ 1);
	}
	st = stmt(g, RS_STATE_PUT);
	sqlite3_bind_int(st, 1, g->active);
	sqlite3_bind_int64(st, 2, g->below[0]);
	sqlite3_bind_int64(st, 3, g->below[1]);
	sqlite3_bind_int64(st, 4, g->epoch + 1);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	g->epoch++;
	return 0;
}

int reports_stage_end(struct reports_stage *g, size_t n, int64_t now_ms)
{
	if (!g->loaded) /* the next begin reloads; nothing moves until then, but other writers must reload too */
		return exec(g, RS_EPOCH_BUMP);
	if (exec(g, RS_SAVEPOINT))
		return -1;
	if (step(g, n, now_ms) == 0)
		return exec(g, RS_RELEASE);
	exec(g, RS_ROLLBACK_TO);
	exec(g, RS_RELEASE);
	g->loaded = false;
	return -1;
}

bool reports_stage_pending(const struct reports_stage *g)
{
	return !g->loaded || g->t[0].nonempty || g->t[1].nonempty;
}

bool reports_stage_due(const struct reports_stage *g, int64_t now_ms)
{
	const struct table *active = &g->t[g->active], *other = &g->t[g->active ^ 1];

	return !g->loaded || other->nonempty || (active->nonempty && now_ms - g->frozen_ms >= g->period_ms);
}

void reports_stage_abort(struct reports_stage *g)
{
	g->loaded = false;
}
