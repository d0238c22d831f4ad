/* chunk_probe.c - what the raw level would take if a host's consecutive
 * reports were stored several to a row (issue 18), measured before such a
 * layout is built. One report a row cannot reach 1.2 KB (BENCHMARKS.md,
 * "Blob dictionaries"): its payload alone is ~1,250 B, SQLite keeps whole
 * rows in a page, and the key tables add ~51 B a report.
 *
 * It reads a filled database (bench_fill), registers its blob dictionaries,
 * and writes its raw reports into a new database as chunks
 * (server/series/report_chunk.h) of up to --chunk consecutive reports of one
 * host, in the order the last report of each chunk arrived, as a writer that
 * closes a host's chunk when it is full would. A chunk is one row, its
 * sections back to back behind their lengths, packed with the source
 * database's dictionaries unless --no-dict. Beside the rows, the key tables
 * a server would need: (host, incarnation, first seq) and (host, first
 * start) to the chunk, and an index on the first start.
 *   chunk_probe --db FILLED --out NEW [--chunk K] [--no-dict]
 * Prints one line: reports, chunks, bytes a report of the source's raw level
 * (reports, its time index and key tables, by dbstat) and of the chunks (the
 * same parts), and each section's bytes a report. Every chunk is read back
 * before it is written.
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/series/blob.h"
#include "server/series/blob_dict.h"
#include "server/series/report_chunk.h"

static const char *const sec_name[REPORT_CHUNK_SECTIONS] = { "meta", "host_hist", "series_head", "series_counts",
							     "iocost" };

struct opts {
	const char *db, *out;
	int chunk;
	bool dict;
};

/* A host's chunk: open while its reports are read, then its packed sections until it is written. */
struct chunk {
	int64_t host_id, first_ms, last_ms, first_seq, last_seq;
	size_t n; /* reports, once closed */
	char incarnation[128];
	struct report_chunk_writer w;
	struct blob sec[REPORT_CHUNK_SECTIONS];
};

struct probe {
	struct opts o;
	sqlite3 *src, *dst;
	sqlite3_stmt *ins, *key, *times;
	uint64_t sec_bytes[REPORT_CHUNK_SECTIONS];
	uint64_t reports, chunks;
	struct chunk **done; /* closed chunks, written in the order their last report arrived */
	size_t ndone, cap;
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s --db FILLED --out NEW [--chunk K] [--no-dict]\n", prog);
	exit(2);
}

/* Registers the database's dictionaries; with dict, packs chunks with the newest of each kind. */
static int load_dicts(struct probe *p)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(p->src, "SELECT id, kind, dict FROM blob_dicts ORDER BY created_ms", -1, &st, NULL))
		return 0; /* a database from before dictionaries */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(st, 0);
		int kind = sqlite3_column_int(st, 1);

		if (blob_dict_add(id, kind, sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2)) < 0 ||
		    (p->o.dict && blob_dict_use(kind, id) < 0))
			fprintf(stderr, "chunk_probe: dictionary %08x not loaded\n", id);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "";
}

/* Adds the row st is on to chunk c. */
static int chunk_add(struct chunk *c, sqlite3_stmt *st)
{
	struct report_chunk_row r = {
		.seq = sqlite3_column_int64(st, 1),
		.start_ms = sqlite3_column_int64(st, 2),
		.end_ms = sqlite3_column_int64(st, 3),
		.received_ms = sqlite3_column_int64(st, 4),
		.sched_group = text(st, 5),
		.kernel = text(st, 6),
		.host_hist = sqlite3_column_blob(st, 7),
		.host_hist_len = (size_t)sqlite3_column_bytes(st, 7),
		.series = sqlite3_column_blob(st, 8),
		.series_len = (size_t)sqlite3_column_bytes(st, 8),
		.iocost = sqlite3_column_blob(st, 9),
		.iocost_len = (size_t)sqlite3_column_bytes(st, 9),
		.dropped = sqlite3_column_int64(st, 10),
		.incarnation = text(st, 11),
		.health = (const char *)sqlite3_column_text(st, 12),
	};

	if (c->w.n == 0) {
		c->host_id = sqlite3_column_int64(st, 0);
		c->first_seq = r.seq;
		c->first_ms = r.start_ms;
		snprintf(c->incarnation, sizeof(c->incarnation), "%s", r.incarnation);
	}
	c->last_seq = r.seq;
	c->last_ms = r.start_ms;
	return report_chunk_add(&c->w, &r);
}

static void chunk_free(struct chunk *c)
{
	if (!c)
		return;
	report_chunk_writer_free(&c->w);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		blob_free(&c->sec[s]);
	free(c);
}

/* Packs c's sections and keeps it for writing. */
static int chunk_close(struct probe *p, struct chunk *c)
{
	if (p->ndone == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct chunk **n = realloc(p->done, cap * sizeof(*n));

		if (!n)
			return -1;
		p->done = n;
		p->cap = cap;
	}
	c->n = c->w.n;
	if (report_chunk_finish(&c->w, c->sec) < 0)
		return -1;
	p->done[p->ndone++] = c;
	return 0;
}

static int by_last(const void *a, const void *b)
{
	const struct chunk *x = *(struct chunk *const *)a, *y = *(struct chunk *const *)b;

	return x->last_ms < y->last_ms   ? -1
	       : x->last_ms > y->last_ms ? 1
					 : (x->host_id > y->host_id) - (x->host_id < y->host_id);
}

/* Reads c back: as many reports as went in, the last with the last seq; 0 or -1. */
static int chunk_check(const struct chunk *c)
{
	const void *p[REPORT_CHUNK_SECTIONS];
	size_t len[REPORT_CHUNK_SECTIONS], n, got = 0;
	struct report_chunk_reader rd;
	struct report_chunk_row r;
	int64_t last = 0;
	int rc;

	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		p[s] = c->sec[s].p;
		len[s] = c->sec[s].len;
	}
	rc = report_chunk_open(&rd, p, len, &n);
	while (rc == 0 && (rc = report_chunk_next(&rd, &r)) == 1) {
		got++;
		last = r.seq;
		rc = 0;
	}
	report_chunk_close(&rd);
	return rc == 0 && got == c->n && last == c->last_seq ? 0 : -1;
}

/* Writes chunk c (its sections behind their lengths, one row) and its keys; 0 or -1. */
static int chunk_write(struct probe *p, const struct chunk *c)
{
	struct blob body = { 0 };
	int rc = -1;

	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		blob_put_u64(&body, c->sec[s].len);
		if (c->sec[s].len && blob_reserve(&body, c->sec[s].len)) {
			memcpy(body.p + body.len, c->sec[s].p, c->sec[s].len);
			body.len += c->sec[s].len;
		}
		p->sec_bytes[s] += c->sec[s].len;
	}
	if (body.oom)
		goto out;
	sqlite3_bind_int64(p->ins, 1, c->host_id);
	sqlite3_bind_int64(p->ins, 2, c->first_ms);
	sqlite3_bind_int64(p->ins, 3, c->last_ms);
	sqlite3_bind_blob(p->ins, 4, body.p, (int)body.len, SQLITE_STATIC);
	if (sqlite3_step(p->ins) != SQLITE_DONE)
		goto out;
	sqlite3_reset(p->ins);
	sqlite3_bind_int64(p->key, 1, c->host_id);
	sqlite3_bind_text(p->key, 2, c->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(p->key, 3, c->first_seq);
	sqlite3_bind_int64(p->key, 4, c->last_seq);
	sqlite3_bind_int64(p->key, 5, sqlite3_last_insert_rowid(p->dst));
	if (sqlite3_step(p->key) != SQLITE_DONE)
		goto out;
	sqlite3_reset(p->key);
	sqlite3_bind_int64(p->times, 1, c->host_id);
	sqlite3_bind_int64(p->times, 2, c->first_ms);
	sqlite3_bind_int64(p->times, 3, sqlite3_last_insert_rowid(p->dst));
	if (sqlite3_step(p->times) != SQLITE_DONE)
		goto out;
	sqlite3_reset(p->times);
	p->chunks++;
	rc = 0;
out:
	blob_free(&body);
	return rc;
}

/* Bytes of the named tables and indexes, by dbstat. */
static int64_t bytes_of(sqlite3 *db, const char *names)
{
	char sql[512];
	sqlite3_stmt *st;
	int64_t v = -1;

	snprintf(sql, sizeof(sql), "SELECT sum(pgsize) FROM dbstat WHERE name IN (%s)", names);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char dst_schema[] =
    "PRAGMA page_size=8192; PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
    "CREATE TABLE chunks (id INTEGER PRIMARY KEY AUTOINCREMENT, host_id INTEGER NOT NULL,"
    " first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL, body BLOB NOT NULL) STRICT;"
    "CREATE INDEX chunks_time ON chunks (first_ms);"
    "CREATE TABLE chunk_keys (host_id INTEGER NOT NULL, incarnation TEXT NOT NULL, first_seq INTEGER NOT NULL,"
    " last_seq INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (host_id, incarnation, first_seq)) STRICT,"
    " WITHOUT ROWID;"
    "CREATE TABLE chunk_times (host_id INTEGER NOT NULL, first_ms INTEGER NOT NULL, id INTEGER NOT NULL,"
    " PRIMARY KEY (host_id, first_ms, id)) STRICT, WITHOUT ROWID;";

static int run(struct probe *p)
{
	sqlite3_stmt *st = NULL;
	struct chunk *c = NULL;
	int rc = -1, step;
	int64_t src_bytes, dst_bytes;

	if (sqlite3_open_v2(p->o.db, &p->src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_open(p->o.out, &p->dst) != SQLITE_OK || load_dicts(p) < 0 ||
	    sqlite3_exec(p->dst, dst_schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(p->dst, "INSERT INTO chunks (host_id, first_ms, last_ms, body) VALUES (?, ?, ?, ?)", -1,
			       &p->ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(p->dst, "INSERT INTO chunk_keys VALUES (?, ?, ?, ?, ?)", -1, &p->key, NULL) !=
		SQLITE_OK ||
	    sqlite3_prepare_v2(p->dst, "INSERT INTO chunk_times VALUES (?, ?, ?)", -1, &p->times, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		p->src,
		"SELECT host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series,"
		" iocost, dropped, incarnation, health FROM reports ORDER BY host_id, incarnation, start_ms",
		-1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "chunk_probe: %s / %s\n", p->src ? sqlite3_errmsg(p->src) : "",
			p->dst ? sqlite3_errmsg(p->dst) : "");
		goto out;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (c && ((int)c->w.n == p->o.chunk || c->host_id != sqlite3_column_int64(st, 0) ||
			  strcmp(c->incarnation, text(st, 11)) != 0)) {
			if (chunk_close(p, c) < 0)
				goto out;
			c = NULL;
		}
		if (!c && !(c = calloc(1, sizeof(*c))))
			goto out;
		if (chunk_add(c, st) < 0) {
			fprintf(stderr, "chunk_probe: a stored blob does not unpack\n");
			goto out;
		}
		p->reports++;
	}
	if (step != SQLITE_DONE || (c && chunk_close(p, c) < 0))
		goto out;
	c = NULL;
	qsort(p->done, p->ndone, sizeof(*p->done), by_last);
	sqlite3_exec(p->dst, "BEGIN", NULL, NULL, NULL);
	for (size_t i = 0; i < p->ndone; i++) {
		const struct chunk *d = p->done[i];

		if (chunk_check(d) < 0) {
			fprintf(stderr, "chunk_probe: a chunk does not read back\n");
			goto out;
		}
		if (chunk_write(p, d) < 0) {
			fprintf(stderr, "chunk_probe: %s\n", sqlite3_errmsg(p->dst));
			goto out;
		}
	}
	sqlite3_exec(p->dst, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	src_bytes = bytes_of(p->src, "'reports','reports_time','report_keys','report_times'");
	dst_bytes = bytes_of(p->dst, "'chunks','chunks_time','chunk_keys','chunk_times'");
	printf("reports=%llu chunks=%llu chunk=%d dict=%s src_bytes_per_report=%.0f chunk_bytes_per_report=%.0f",
	       (unsigned long long)p->reports, (unsigned long long)p->chunks, p->o.chunk, p->o.dict ? "yes" : "no",
	       (double)src_bytes / (double)p->reports, (double)dst_bytes / (double)p->reports);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		printf(" %s=%.0f", sec_name[s], (double)p->sec_bytes[s] / (double)p->reports);
	printf("\n");
	rc = 0;
out:
	chunk_free(c);
	for (size_t i = 0; i < p->ndone; i++)
		chunk_free(p->done[i]);
	free(p->done);
	sqlite3_finalize(st);
	sqlite3_finalize(p->ins);
	sqlite3_finalize(p->key);
	sqlite3_finalize(p->times);
	sqlite3_close(p->src);
	sqlite3_close(p->dst);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "chunk", required_argument, NULL, 'k' },
		{ "no-dict", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe p = { .o = { .chunk = 6, .dict = true } };
	int ch;

	while ((ch = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			p.o.db = optarg;
			break;
		case 'o':
			p.o.out = optarg;
			break;
		case 'k':
			p.o.chunk = atoi(optarg);
			break;
		case 'n':
			p.o.dict = false;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!p.o.db || !p.o.out || p.o.chunk < 1 || p.o.chunk > REPORT_CHUNK_MAX)
		usage(argv[0]);
	return run(&p) ? 1 : 0;
}
