/* layout_probe.c - measures two SQLite layouts for the reports table under a
 * fleet's ingest, before either is built into the store (issue 18): what a
 * commit writes, how long reports wait for it, and what a host's read costs.
 * "direct" is the store's layout today: each report goes into `reports` with
 * its primary key and per-host time index, and updates its host's row.
 * "staged" appends reports to one of two index-light staging tables in
 * arrival order and keeps the hosts' last times in memory; every --merge-s the
 * filled staging table is frozen and copied into `reports` in host order, so
 * each host's index pages are written once a merge instead of once a report.
 * The merge runs in transactions of its own between the ingest commits, or
 * (--piggyback) inside them; a merged staging table is then emptied a slice
 * at a time the same way.
 *
 * It is a model, not the server: one writer thread commits every
 * --linger-ms what arrived (an open loop at --rate; each agent reports at its
 * own phase of the interval, in an order unrelated to the hosts' numbers), a
 * second thread runs a passive checkpoint every 100 ms, as the store's
 * checkpointer does. Blobs are random bytes of a realistic report's stored
 * sizes. No HTTP, no report check; the hosts rows carry only their times.
 *   layout_probe --db FILE --fill --hosts N --fill-per-host K
 *   layout_probe --db FILE --layout direct|staged [--piggyback] --hosts N --fill-per-host K --rate R --seconds S
 * Prints one line of key=value figures; tests/bench/layout_probe.sh runs it.
 */
#include <getopt.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Stored blob sizes of a realistic report (BENCHMARKS.md, "Stored bytes and
 * encode CPU per report"): host_hist, series, iocost. */
#define BLOB_HOST 91
#define BLOB_SERIES 1022
#define BLOB_IOCOST 408
#define FILL_BLOB 16
#define MAX_BATCH 4000

struct opts {
	const char *db;
	bool fill;
	bool staged;
	bool piggyback;
	bool arrival_key;
	int hosts;
	int fill_per_host;
	int rate;
	int seconds;
	int interval_s;
	int linger_ms;
	int merge_s;
	int chunk_rows;
};

struct host_state {
	int64_t seq;
	int64_t start_ms;
	int64_t end_ms;
};

/* The staged layout's state: which staging table takes arrivals, which one
 * is being merged, its rows in host order and how far the merge has come. */
struct merge {
	int active;
	int frozen;   /* being merged, -1: none */
	int draining; /* merged, its rows being deleted slice by slice, -1: none */
	size_t next_row;
	double next_freeze;
	double *chunk_ms;
	size_t n_chunks;
	size_t cap_chunks;
	double sort_ms_max;
};

/* What the writer remembers of one staging table: its keys (an
 * open-addressing set of host << 32 | seq, the duplicate check) and its rows
 * in arrival order as (host, rowid) pairs, which the merge sorts. */
struct stage {
	uint64_t *keys;
	int64_t *pairs;
	size_t n;
};

struct probe {
	struct opts o;
	sqlite3 *db;
	uint64_t rng;
	struct host_state *hosts;
	int *order;
	int order_pos;
	unsigned char blob[BLOB_HOST + BLOB_SERIES + BLOB_IOCOST];
	sqlite3_stmt *ins_direct;
	sqlite3_stmt *host_update;
	sqlite3_stmt *ins_staged[2];
	sqlite3_stmt *pk_probe;
	sqlite3_stmt *copy[2];
	sqlite3_stmt *drain[2];
	struct stage stage[2];
	size_t stage_cap;
	struct merge m;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Puts the hosts in a random order: the order their reports arrive in. */
static void shuffle(struct probe *p)
{
	for (int i = p->o.hosts - 1; i > 0; i--) {
		int j = (int)(rng_next(&p->rng) % (uint64_t)(i + 1));
		int t = p->order[i];

		p->order[i] = p->order[j];
		p->order[j] = t;
	}
	p->order_pos = 0;
}

static int exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "layout_probe: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
		fprintf(stderr, "layout_probe: %s: %s\n", sql, sqlite3_errmsg(db));
	return st;
}

/* The columns and indexes of the store's reports and hosts tables
 * (schema/sqlite/0002, 0011, 0012). */
static const char *const SCHEMA =
    "CREATE TABLE IF NOT EXISTS hosts (id INTEGER PRIMARY KEY, machine_id TEXT NOT NULL UNIQUE, "
    "hostname TEXT NOT NULL, kernel TEXT, arch TEXT, cpus INTEGER, l3_json TEXT, disks_json TEXT, "
    "sched_state TEXT, sched_ops TEXT, agent_version TEXT, first_seen_ms INTEGER NOT NULL, "
    "last_start_ms INTEGER NOT NULL, last_end_ms INTEGER NOT NULL, agent_incarnation TEXT, "
    "agent_seq INTEGER, agent_restarted_ms INTEGER) STRICT;"
    "CREATE TABLE IF NOT EXISTS reports (host_id INTEGER NOT NULL, seq INTEGER NOT NULL, "
    "start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, received_ms INTEGER NOT NULL, "
    "sched_group TEXT NOT NULL, kernel TEXT NOT NULL, host_hist BLOB, series BLOB, iocost BLOB, "
    "dropped INTEGER NOT NULL DEFAULT 0, incarnation TEXT NOT NULL DEFAULT '', health TEXT, "
    "PRIMARY KEY (host_id, incarnation, seq)) STRICT;"
    "CREATE INDEX IF NOT EXISTS reports_host_time ON reports (host_id, start_ms);"
    "CREATE INDEX IF NOT EXISTS reports_time ON reports (start_ms);";

/* The staged layout's two staging tables (the columns of reports) and the
 * merge's progress. */
static const char *const STAGED_SCHEMA =
    "CREATE TABLE IF NOT EXISTS reports_stage0 AS SELECT * FROM reports LIMIT 0;"
    "CREATE TABLE IF NOT EXISTS reports_stage1 AS SELECT * FROM reports LIMIT 0;"
    "CREATE TABLE IF NOT EXISTS stage_meta (k TEXT PRIMARY KEY, v INTEGER) STRICT;";

/* The staging tables' one index, by --stage-key. time: report time, then host
 * and end (near-append, as reports arrive in time order; a read by host scans
 * every staged entry in its time range). arrival: the second a report
 * arrived, then host (a second of arrivals is a small region, so still nearly
 * appends; a read by host seeks once per second of the staging window). */
static const char *const STAGE_INDEX_TIME =
    "CREATE INDEX IF NOT EXISTS reports_stage0_key ON reports_stage0 (start_ms, host_id, end_ms);"
    "CREATE INDEX IF NOT EXISTS reports_stage1_key ON reports_stage1 (start_ms, host_id, end_ms);";
static const char *const STAGE_INDEX_ARRIVAL =
    "CREATE INDEX IF NOT EXISTS reports_stage0_key ON reports_stage0 (received_ms / 1000, host_id);"
    "CREATE INDEX IF NOT EXISTS reports_stage1_key ON reports_stage1 (received_ms / 1000, host_id);";

#define REPORT_COLS                                                                                                    \
	"host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost, dropped, "       \
	"incarnation, health"
#define REPORT_VALUES "?1, ?2, ?3, ?4, ?5, 'eevdf', '6.1.0', ?6, ?7, ?8, 0, '', NULL"

static void bind_report(sqlite3_stmt *st, struct probe *p, int host, int64_t received_ms, int blob_scale)
{
	struct host_state *h = &p->hosts[host];
	int sizes[3] = { BLOB_HOST, BLOB_SERIES, BLOB_IOCOST };
	size_t off = 0;

	for (size_t i = 0; i < sizeof(p->blob); i += 8) {
		uint64_t r = rng_next(&p->rng);

		memcpy(p->blob + i, &r, sizeof(p->blob) - i < 8 ? sizeof(p->blob) - i : 8);
	}
	sqlite3_bind_int64(st, 1, host + 1);
	sqlite3_bind_int64(st, 2, h->seq);
	sqlite3_bind_int64(st, 3, h->start_ms);
	sqlite3_bind_int64(st, 4, h->end_ms);
	sqlite3_bind_int64(st, 5, received_ms);
	for (int i = 0; i < 3; i++) {
		int n = blob_scale ? sizes[i] : FILL_BLOB;

		sqlite3_bind_blob(st, 6 + i, p->blob + off, n, SQLITE_STATIC);
		off += (size_t)n;
	}
}

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static void advance(struct probe *p, int host)
{
	struct host_state *h = &p->hosts[host];

	h->seq++;
	h->start_ms = h->end_ms;
	h->end_ms = h->start_ms + p->o.interval_s * 1000;
}

/* History: fill_per_host reports of every host, round after round in the
 * hosts' arrival order, with small blobs (only the indexes' shape matters). */
static int fill(struct probe *p)
{
	sqlite3_stmt *hi = prepare(p->db, "INSERT INTO hosts (id, machine_id, hostname, first_seen_ms, "
					  "last_start_ms, last_end_ms) VALUES (?1, printf('probe-%06d', ?1), "
					  "printf('probe-%06d', ?1), 0, ?2, ?3)");
	int rc = -1;

	if (!hi || !p->ins_direct || exec(p->db, "PRAGMA synchronous=OFF; BEGIN"))
		goto out;
	for (int r = 0; r < p->o.fill_per_host; r++) {
		for (int i = 0; i < p->o.hosts; i++) {
			int host = p->order[i];

			advance(p, host);
			bind_report(p->ins_direct, p, host, p->hosts[host].end_ms, 0);
			if (step_done(p->ins_direct))
				goto out;
		}
		if (exec(p->db, "COMMIT; BEGIN"))
			goto out;
	}
	for (int host = 0; host < p->o.hosts; host++) {
		sqlite3_bind_int(hi, 1, host + 1);
		sqlite3_bind_int64(hi, 2, p->hosts[host].start_ms);
		sqlite3_bind_int64(hi, 3, p->hosts[host].end_ms);
		if (step_done(hi))
			goto out;
	}
	rc = exec(p->db, "COMMIT; PRAGMA synchronous=FULL; PRAGMA wal_checkpoint(TRUNCATE)");
out:
	sqlite3_finalize(hi);
	return rc;
}

static bool stage_has(struct probe *p, int which, uint64_t key, size_t *slot)
{
	uint64_t *keys = p->stage[which].keys;
	size_t mask = 2 * p->stage_cap - 1, i = (key * 0x9e3779b97f4a7c15ull) & mask;

	while (keys[i]) {
		if (keys[i] == key)
			return true;
		i = (i + 1) & mask;
	}
	*slot = i;
	return false;
}

/* One report of the staged layout: duplicate check against the staging
 * tables (in memory) and reports (a read of the host's key page), then an
 * append to the active staging table. */
static int put_staged(struct probe *p, int host, int64_t received_ms)
{
	uint64_t key = ((uint64_t)(host + 1) << 32) | (uint64_t)p->hosts[host].seq;
	struct stage *a = &p->stage[p->m.active];
	size_t slot, other;
	int present;

	if (a->n == p->stage_cap || stage_has(p, p->m.active ^ 1, key, &other) || stage_has(p, p->m.active, key, &slot))
		return a->n == p->stage_cap ? -1 : 0;
	sqlite3_bind_int64(p->pk_probe, 1, host + 1);
	sqlite3_bind_int64(p->pk_probe, 2, p->hosts[host].seq);
	present = sqlite3_step(p->pk_probe) == SQLITE_ROW;
	sqlite3_reset(p->pk_probe);
	if (present)
		return 0;
	bind_report(p->ins_staged[p->m.active], p, host, received_ms, 1);
	if (step_done(p->ins_staged[p->m.active]))
		return -1;
	a->keys[slot] = key;
	a->pairs[2 * a->n] = host + 1;
	a->pairs[2 * a->n + 1] = sqlite3_last_insert_rowid(p->db);
	a->n++;
	return 0;
}

static int put_direct(struct probe *p, int host, int64_t received_ms)
{
	struct host_state *h = &p->hosts[host];

	bind_report(p->ins_direct, p, host, received_ms, 1);
	if (step_done(p->ins_direct))
		return -1;
	sqlite3_bind_int64(p->host_update, 1, host + 1);
	sqlite3_bind_int64(p->host_update, 2, h->start_ms);
	sqlite3_bind_int64(p->host_update, 3, h->end_ms);
	return step_done(p->host_update);
}

/* Orders a staging table's (host, rowid) pairs by host, keeping arrival
 * order within a host: a counting sort over the host ids. */
static int sort_by_host(struct probe *p, struct stage *f)
{
	size_t *first = calloc((size_t)p->o.hosts + 2, sizeof(*first));
	int64_t *out = malloc((f->n + 1) * 2 * sizeof(*out));

	if (!first || !out) {
		free(first);
		free(out);
		return -1;
	}
	for (size_t i = 0; i < f->n; i++)
		first[f->pairs[2 * i] + 1]++;
	for (int h = 1; h <= p->o.hosts + 1; h++)
		first[h] += first[h - 1];
	for (size_t i = 0; i < f->n; i++) {
		size_t at = first[f->pairs[2 * i]]++;

		out[2 * at] = f->pairs[2 * i];
		out[2 * at + 1] = f->pairs[2 * i + 1];
	}
	memcpy(f->pairs, out, f->n * 2 * sizeof(*out));
	free(first);
	free(out);
	return 0;
}

/* Freezes the active staging table: arrivals go to the other one; the
 * frozen table's rows are sorted in host order for the merge. */
static int freeze(struct probe *p)
{
	struct stage *f;
	double t0 = now_s(), ms;

	p->m.frozen = p->m.active;
	p->m.active ^= 1;
	f = &p->stage[p->m.frozen];
	if (sort_by_host(p, f))
		return -1;
	p->m.next_row = 0;
	ms = (now_s() - t0) * 1e3;
	if (ms > p->m.sort_ms_max)
		p->m.sort_ms_max = ms;
	return 0;
}

static void record_chunk(struct probe *p, double seconds)
{
	if (p->m.n_chunks == p->m.cap_chunks) {
		size_t cap = p->m.cap_chunks ? 2 * p->m.cap_chunks : 256;
		double *grown = realloc(p->m.chunk_ms, cap * sizeof(*grown));

		if (!grown)
			return;
		p->m.chunk_ms = grown;
		p->m.cap_chunks = cap;
	}
	p->m.chunk_ms[p->m.n_chunks++] = seconds * 1e3;
}

/* One step of the merge, inside the caller's transaction: the frozen rows
 * of about `rows` rows' worth of whole hosts copied into reports in host
 * order, those hosts' rows in `hosts` brought up to date, the merge's host
 * watermark moved past them. */
static int merge_rows(struct probe *p, size_t rows)
{
	struct stage *f = &p->stage[p->m.frozen];
	sqlite3_stmt *cp = p->copy[p->m.frozen];
	size_t end = p->m.next_row + rows;
	int last_host = -1;
	char sql[128];

	if (end >= f->n)
		end = f->n;
	while (end < f->n && end > 0 && f->pairs[2 * end] == f->pairs[2 * end - 2])
		end++;
	for (size_t i = p->m.next_row; i < end; i++) {
		int host = (int)f->pairs[2 * i] - 1;

		sqlite3_bind_int64(cp, 1, f->pairs[2 * i + 1]);
		if (step_done(cp))
			return -1;
		if (host != last_host) {
			sqlite3_bind_int64(p->host_update, 1, host + 1);
			sqlite3_bind_int64(p->host_update, 2, p->hosts[host].start_ms);
			sqlite3_bind_int64(p->host_update, 3, p->hosts[host].end_ms);
			if (step_done(p->host_update))
				return -1;
			last_host = host;
		}
	}
	/* Reads would skip the frozen table's hosts below the watermark, and all
	 * of it once merged (-1). */
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO stage_meta VALUES ('merged_below_host', %d)",
		 end < f->n ? (int)f->pairs[2 * end] : -1);
	if (exec(p->db, sql))
		return -1;
	p->m.next_row = end;
	if (end == f->n) {
		/* The frozen table's keys leave the duplicate set: they are in reports now. */
		memset(f->keys, 0, 2 * p->stage_cap * sizeof(*f->keys));
		f->n = 0;
		p->m.draining = p->m.frozen;
		p->m.frozen = -1;
	}
	return 0;
}

/* Deletes the oldest `rows` rows of a merged staging table, inside the
 * caller's transaction; one DELETE of the whole table would free all its
 * pages at once (a second and more at 5,000 reports/s), holding ingest up. */
static int drain_rows(struct probe *p, size_t rows)
{
	sqlite3_stmt *st = p->drain[p->m.draining];

	sqlite3_bind_int64(st, 1, (int64_t)rows);
	if (step_done(st))
		return -1;
	if (sqlite3_changes(p->db) == 0)
		p->m.draining = -1;
	return 0;
}

/* The merge's work of one step, in a transaction of its own (separate) or in
 * the ingest commit's (piggyback). */
static int merge_step(struct probe *p, size_t rows)
{
	if (p->m.frozen >= 0)
		return merge_rows(p, rows);
	if (p->m.draining >= 0)
		return drain_rows(p, rows);
	return 0;
}

static int merge_txn(struct probe *p)
{
	double t0 = now_s();

	if (exec(p->db, "BEGIN") || merge_step(p, (size_t)p->o.chunk_rows) || exec(p->db, "COMMIT"))
		return -1;
	record_chunk(p, now_s() - t0);
	return 0;
}

static volatile int checkpointer_stop;

static void *checkpointer(void *arg)
{
	const char *path = arg;
	sqlite3 *db = NULL;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return NULL;
	sqlite3_busy_timeout(db, 1000);
	while (!checkpointer_stop) {
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		usleep(100000);
	}
	sqlite3_close(db);
	return NULL;
}

static long long io_wchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	long long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "wchar: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(q * (double)(n - 1))];
}

/* What the layout costs a reader: the median time of 51 queries for one
 * random host's last 15 minutes of series blobs, as the host page asks.
 * Staged reads both staging tables too, through their index (a timing only;
 * rows a merge has copied are not told apart here). With the arrival key, a
 * recursive CTE lists the run's seconds (?3 to ?4) to seek. */
static double host_read_ms(struct probe *p, int64_t first_s, int64_t last_s)
{
	static const char *const direct_sql =
	    "SELECT count(*), sum(length(series)) FROM reports WHERE host_id = ?1 AND start_ms >= ?2";
	static const char *const staged_sql =
	    "SELECT count(*), sum(length(series)) FROM (SELECT series FROM reports WHERE host_id = ?1 AND "
	    "start_ms >= ?2 UNION ALL SELECT series FROM reports_stage0 WHERE host_id = ?1 AND start_ms >= ?2 "
	    "UNION ALL SELECT series FROM reports_stage1 WHERE host_id = ?1 AND start_ms >= ?2)";
	static const char *const arrival_sql =
	    "WITH RECURSIVE s(x) AS (SELECT ?3 UNION ALL SELECT x + 1 FROM s WHERE x < ?4) "
	    "SELECT count(*), sum(length(series)) FROM (SELECT series FROM reports WHERE host_id = ?1 AND "
	    "start_ms >= ?2 UNION ALL SELECT r.series FROM s JOIN reports_stage0 r ON r.received_ms / 1000 = s.x "
	    "AND r.host_id = ?1 WHERE r.start_ms >= ?2 UNION ALL SELECT r.series FROM s JOIN reports_stage1 r "
	    "ON r.received_ms / 1000 = s.x AND r.host_id = ?1 WHERE r.start_ms >= ?2)";
	sqlite3_stmt *st = prepare(p->db, !p->o.staged ? direct_sql : p->o.arrival_key ? arrival_sql : staged_sql);
	double ms[51];

	if (!st)
		return -1;
	for (int i = 0; i < 51; i++) {
		int host = (int)(rng_next(&p->rng) % (uint64_t)p->o.hosts);
		double t0 = now_s();

		sqlite3_bind_int(st, 1, host + 1);
		sqlite3_bind_int64(st, 2, p->hosts[host].end_ms - 15 * 60 * 1000);
		if (p->o.staged && p->o.arrival_key) {
			sqlite3_bind_int64(st, 3, first_s);
			sqlite3_bind_int64(st, 4, last_s);
		}
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_reset(st);
		ms[i] = (now_s() - t0) * 1e3;
	}
	sqlite3_finalize(st);
	return pct(ms, 51, 0.5);
}

/* The hosts list's cost: the median of 5 reads of every host's last report
 * time. Staged takes the newer of `hosts` (as of the last merge) and the
 * staging tables' newest report of the host, from their covering index. */
static double hosts_list_ms(struct probe *p)
{
	static const char *const direct_sql = "SELECT id, last_end_ms FROM hosts ORDER BY id";
	static const char *const staged_sql =
	    "SELECT h.id, max(h.last_end_ms, coalesce(s.e, 0)) FROM hosts h LEFT JOIN "
	    "(SELECT host_id, max(end_ms) AS e FROM (SELECT host_id, end_ms FROM reports_stage0 "
	    "UNION ALL SELECT host_id, end_ms FROM reports_stage1) GROUP BY host_id) s ON s.host_id = h.id "
	    "ORDER BY h.id";
	sqlite3_stmt *st = prepare(p->db, p->o.staged ? staged_sql : direct_sql);
	double ms[5];

	if (!st)
		return -1;
	for (int i = 0; i < 5; i++) {
		double t0 = now_s();

		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_reset(st);
		ms[i] = (now_s() - t0) * 1e3;
	}
	sqlite3_finalize(st);
	return pct(ms, 5, 0.5);
}

/* The open loop: report i arrives at start + i / rate; the writer commits
 * what has arrived once the oldest has waited linger_ms (or at once when it
 * is late), and between commits runs one merge chunk when one is due. */
static int run(struct probe *p)
{
	size_t total = (size_t)p->o.rate * (size_t)p->o.seconds, done = 0;
	double *lat = malloc(total * sizeof(*lat));
	double start, cpu0, lin = p->o.linger_ms / 1e3;
	long long w0;
	pthread_t ck;
	int rc = -1;

	if (!lat)
		return -1;
	p->order_pos = 0;
	checkpointer_stop = 0;
	pthread_create(&ck, NULL, checkpointer, (void *)p->o.db);
	cpu0 = cpu_s();
	w0 = io_wchar();
	start = now_s();
	p->m.next_freeze = p->o.merge_s;
	while (done < total) {
		double t = now_s() - start;
		size_t arrived = (size_t)(t * p->o.rate), n;

		if (arrived > total)
			arrived = total;
		if (p->o.staged && p->m.frozen < 0 && p->m.draining < 0 && t >= p->m.next_freeze) {
			if (freeze(p))
				goto out;
			p->m.next_freeze += p->o.merge_s;
		}
		if (arrived == done || t < (double)done / p->o.rate + lin) {
			if (p->o.staged && !p->o.piggyback && (p->m.frozen >= 0 || p->m.draining >= 0)) {
				if (merge_txn(p))
					goto out;
			} else {
				usleep(500);
			}
			continue;
		}
		n = arrived - done;
		if (n > MAX_BATCH)
			n = MAX_BATCH;
		if (exec(p->db, "BEGIN"))
			goto out;
		for (size_t i = 0; i < n; i++) {
			int host = p->order[p->order_pos++];
			int64_t received = (int64_t)((start + (double)(done + i) / p->o.rate) * 1e3);

			if (p->order_pos == p->o.hosts)
				p->order_pos = 0;
			advance(p, host);
			if (p->o.staged ? put_staged(p, host, received) : put_direct(p, host, received))
				goto out;
		}
		/* Piggyback: the merge moves a quarter more rows than arrived, so it
		 * is through well before the next freeze. */
		if (p->o.staged && p->o.piggyback && merge_step(p, n + n / 4 + 1))
			goto out;
		if (exec(p->db, "COMMIT"))
			goto out;
		t = now_s() - start;
		for (size_t i = 0; i < n; i++)
			lat[done + i] = (t - (double)(done + i) / p->o.rate) * 1e3;
		done += n;
	}
	{
		double wall = now_s() - start, cpu = cpu_s() - cpu0;
		long long w = io_wchar() - w0;
		double read_ms = host_read_ms(p, (int64_t)start, (int64_t)(start + wall) + 1);
		double list_ms = hosts_list_ms(p);

		printf("layout=%s%s hosts=%d fill_per_host=%d rate=%d seconds=%d reports=%zu wall_s=%.1f "
		       "cpu_us_per_report=%.1f written_bytes_per_report=%.0f p50_ms=%.1f p99_ms=%.1f max_ms=%.1f",
		       p->o.staged ? "staged" : "direct",
		       !p->o.staged                         ? ""
		       : p->o.piggyback && p->o.arrival_key ? "-piggyback-arrival"
		       : p->o.piggyback                     ? "-piggyback"
		       : p->o.arrival_key                   ? "-arrival"
							    : "",
		       p->o.hosts, p->o.fill_per_host, p->o.rate, p->o.seconds, total, wall, cpu / (double)total * 1e6,
		       (double)w / (double)total, pct(lat, total, 0.5), pct(lat, total, 0.99), pct(lat, total, 1.0));
		if (p->o.staged)
			printf(" merge_chunks=%zu chunk_p50_ms=%.1f chunk_max_ms=%.1f freeze_max_ms=%.1f",
			       p->m.n_chunks, pct(p->m.chunk_ms, p->m.n_chunks, 0.5),
			       pct(p->m.chunk_ms, p->m.n_chunks, 1.0), p->m.sort_ms_max);
		printf(" host_read_ms=%.2f hosts_list_ms=%.1f\n", read_ms, list_ms);
	}
	rc = 0;
out:
	checkpointer_stop = 1;
	pthread_join(ck, NULL);
	free(lat);
	return rc;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "fill", no_argument, NULL, 'F' },
		{ "layout", required_argument, NULL, 'l' },
		{ "hosts", required_argument, NULL, 'h' },
		{ "fill-per-host", required_argument, NULL, 'k' },
		{ "rate", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "interval-s", required_argument, NULL, 'i' },
		{ "linger-ms", required_argument, NULL, 'g' },
		{ "merge-s", required_argument, NULL, 'm' },
		{ "chunk-rows", required_argument, NULL, 'c' },
		{ "piggyback", no_argument, NULL, 'p' },
		{ "stage-key", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .hosts = 50000,
			    .fill_per_host = 60,
			    .rate = 5000,
			    .seconds = 60,
			    .interval_s = 10,
			    .linger_ms = 10,
			    .merge_s = 60,
			    .chunk_rows = 250 };
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->db = optarg;
			break;
		case 'F':
			o->fill = true;
			break;
		case 'l':
			o->staged = !strcmp(optarg, "staged");
			break;
		case 'h':
			o->hosts = atoi(optarg);
			break;
		case 'k':
			o->fill_per_host = atoi(optarg);
			break;
		case 'r':
			o->rate = atoi(optarg);
			break;
		case 's':
			o->seconds = atoi(optarg);
			break;
		case 'i':
			o->interval_s = atoi(optarg);
			break;
		case 'g':
			o->linger_ms = atoi(optarg);
			break;
		case 'm':
			o->merge_s = atoi(optarg);
			break;
		case 'c':
			o->chunk_rows = atoi(optarg);
			break;
		case 'p':
			o->piggyback = true;
			break;
		case 'K':
			o->arrival_key = !strcmp(optarg, "arrival");
			break;
		default:
			return -1;
		}
	}
	return o->db && o->hosts > 0 && o->rate > 0 && o->seconds > 0 && o->interval_s > 0 && o->merge_s > 0 &&
		       o->chunk_rows > 0
		   ? 0
		   : -1;
}

static int prepare_all(struct probe *p)
{
	char sql[512];

	p->ins_direct = prepare(p->db, "INSERT INTO reports (" REPORT_COLS ") VALUES (" REPORT_VALUES
				       ") ON CONFLICT (host_id, incarnation, seq) DO NOTHING");
	p->host_update = prepare(p->db, "UPDATE hosts SET last_start_ms = ?2, last_end_ms = ?3 "
					"WHERE id = ?1 AND last_start_ms <= ?2");
	if (!p->o.staged)
		return p->ins_direct && p->host_update ? 0 : -1;
	if (exec(p->db, STAGED_SCHEMA) || exec(p->db, p->o.arrival_key ? STAGE_INDEX_ARRIVAL : STAGE_INDEX_TIME))
		return -1;
	for (int i = 0; i < 2; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO reports_stage%d (" REPORT_COLS ") VALUES (" REPORT_VALUES ")",
			 i);
		p->ins_staged[i] = prepare(p->db, sql);
		snprintf(sql, sizeof(sql),
			 "INSERT INTO reports (" REPORT_COLS ") SELECT " REPORT_COLS
			 " FROM reports_stage%d WHERE rowid = ?1 ON CONFLICT (host_id, incarnation, seq) DO NOTHING",
			 i);
		p->copy[i] = prepare(p->db, sql);
		snprintf(sql, sizeof(sql),
			 "DELETE FROM reports_stage%d WHERE rowid IN (SELECT rowid FROM reports_stage%d "
			 "ORDER BY rowid LIMIT ?1)",
			 i, i);
		p->drain[i] = prepare(p->db, sql);
		if (!p->ins_staged[i] || !p->copy[i] || !p->drain[i])
			return -1;
	}
	p->pk_probe = prepare(p->db, "SELECT 1 FROM reports WHERE host_id = ?1 AND incarnation = '' AND seq = ?2");
	/* A staging table takes a merge period of arrivals, and the next one's
	 * while it is merged: room for four periods. */
	p->stage_cap = 1;
	while (p->stage_cap < (size_t)p->o.rate * (size_t)p->o.merge_s * 4)
		p->stage_cap <<= 1;
	for (int i = 0; i < 2; i++) {
		p->stage[i].keys = calloc(2 * p->stage_cap, sizeof(*p->stage[i].keys));
		p->stage[i].pairs = malloc(2 * p->stage_cap * sizeof(*p->stage[i].pairs));
		if (!p->stage[i].keys || !p->stage[i].pairs)
			return -1;
	}
	p->m.frozen = -1;
	p->m.draining = -1;
	return p->pk_probe && p->host_update ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct probe p = { .rng = 0x2545f4914f6cdd1dull };
	int rc = 1;

	if (parse(argc, argv, &p.o)) {
		fprintf(stderr, "usage: layout_probe --db FILE (--fill | --layout direct|staged --rate R --seconds S) "
				"[--hosts N] [--fill-per-host K] [--interval-s S] [--linger-ms M] [--merge-s S] "
				"[--chunk-rows N] [--piggyback] [--stage-key time|arrival]\n");
		return 2;
	}
	p.hosts = calloc((size_t)p.o.hosts, sizeof(*p.hosts));
	p.order = malloc((size_t)p.o.hosts * sizeof(*p.order));
	if (!p.hosts || !p.order || sqlite3_open(p.o.db, &p.db) != SQLITE_OK)
		goto out;
	/* Each agent reports at its own phase of the interval, the phases spread
	 * evenly, in an order unrelated to the hosts' numbers (agents restart
	 * and start their intervals anew at different times): the reports of one
	 * commit are of hosts far apart in every per-host index. The same seed
	 * gives the fill and the runs the same phases. */
	for (int i = 0; i < p.o.hosts; i++)
		p.order[i] = i;
	shuffle(&p);
	for (int k = 0; k < p.o.hosts; k++)
		p.hosts[p.order[k]].end_ms = 1700000000000LL + (int64_t)k * p.o.interval_s * 1000 / p.o.hosts;
	if (exec(p.db, "PRAGMA page_size=8192; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
		       "PRAGMA cache_size=-16384; PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint=0") ||
	    exec(p.db, SCHEMA) || prepare_all(&p))
		goto out;
	/* The hosts' next reports follow their history (the fill's count and interval). */
	for (int i = 0; i < p.o.hosts; i++) {
		p.hosts[i].seq = p.o.fill ? 0 : p.o.fill_per_host;
		p.hosts[i].end_ms += p.o.fill ? 0 : (int64_t)p.o.fill_per_host * p.o.interval_s * 1000;
		p.hosts[i].start_ms = p.hosts[i].end_ms - p.o.interval_s * 1000;
	}
	if (p.o.fill) {
		double t0 = now_s();

		if (fill(&p))
			goto out;
		printf("filled hosts=%d fill_per_host=%d in %.1f s\n", p.o.hosts, p.o.fill_per_host, now_s() - t0);
	} else if (run(&p)) {
		goto out;
	}
	rc = 0;
out:
	if (rc && p.db)
		fprintf(stderr, "layout_probe: %s\n", sqlite3_errmsg(p.db));
	sqlite3_finalize(p.ins_direct);
	sqlite3_finalize(p.host_update);
	sqlite3_finalize(p.pk_probe);
	for (int i = 0; i < 2; i++) {
		sqlite3_finalize(p.ins_staged[i]);
		sqlite3_finalize(p.copy[i]);
		sqlite3_finalize(p.drain[i]);
	}
	sqlite3_close(p.db);
	free(p.hosts);
	free(p.order);
	for (int i = 0; i < 2; i++) {
		free(p.stage[i].keys);
		free(p.stage[i].pairs);
	}
	free(p.m.chunk_ms);
	return rc;
}
