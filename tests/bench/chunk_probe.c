/* chunk_probe.c - what the raw level would take if a host's consecutive
 * reports were stored several to a row (issue 18), measured before such a
 * layout is built. One report a row cannot reach 1.2 KB (BENCHMARKS.md,
 * "Blob dictionaries"): its payload alone is ~1,250 B, SQLite keeps whole
 * rows in a page, and the key tables add ~51 B a report.
 *
 * It reads a filled database (bench_fill), unpacks every raw report's blobs
 * (loading the database's blob dictionaries), and writes the same reports
 * into a new database as chunks of up to --chunk consecutive reports of one
 * host, in the order the last report of each chunk arrived, as a writer that
 * closes a host's chunk when it is full would. A chunk is one row: the
 * reports' scalar columns as deltas (a string only when it changed), then
 * the blobs by kind and section (all host histograms, all series heads, all
 * series counts, all iocost sets), each kind one zstd frame, packed with that
 * kind's dictionary of the source database unless --no-dict. Beside the rows,
 * the key tables a server would need: (host, incarnation, first seq) and
 * (host, first start) to the chunk, and an index on the first start.
 *   chunk_probe --db FILLED --out NEW [--chunk K] [--level L] [--no-dict]
 * Prints one line: reports, chunks, bytes a report of the source's raw level
 * (reports, its time index and key tables, by dbstat) and of the chunks (the
 * same parts), and each section's bytes a report. It checks that every
 * chunk's frames decompress to what went in.
 */
#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "server/series/blob.h"
#include "server/series/blob_dict.h"

enum { SEC_META, SEC_HOST, SEC_HEAD, SEC_COUNTS, SEC_IOCOST, SEC_N };

static const char *const sec_name[SEC_N] = { "meta", "host_hist", "series_head", "series_counts", "iocost" };

struct opts {
	const char *db, *out;
	int chunk, level;
	bool dict;
};

struct chunk {
	int64_t host_id, first_ms, last_ms, first_seq, last_seq, prev_start, prev_seq;
	char incarnation[128];
	char last_str[4][256];
	int n;
	struct blob sec[SEC_N];
};

struct probe {
	struct opts o;
	sqlite3 *src, *dst;
	sqlite3_stmt *ins, *key, *times;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	uint8_t *dict[SEC_N];
	size_t dict_len[SEC_N];
	uint64_t sec_bytes[SEC_N];
	uint64_t reports, chunks;
	struct chunk **pending; /* closed chunks, written in the order their last report arrived */
	size_t npending, cap;
};

/* Appends len raw bytes to b. */
static void blob_put_bytes(struct blob *b, const void *p, size_t len)
{
	if (len && blob_reserve(b, len)) {
		memcpy(b->p + b->len, p, len);
		b->len += len;
	}
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s --db FILLED --out NEW [--chunk K] [--level L] [--no-dict]\n", prog);
	exit(2);
}

static int load_dicts(struct probe *p)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(p->src, "SELECT id, kind, dict FROM blob_dicts ORDER BY created_ms", -1, &st, NULL))
		return 0; /* a database from before dictionaries */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(st, 1), n = sqlite3_column_bytes(st, 2);
		const void *d = sqlite3_column_blob(st, 2);
		int sec = kind == BLOB_DICT_SERIES ? SEC_COUNTS : kind == BLOB_DICT_IOCOST ? SEC_IOCOST : -1;

		if (blob_dict_add((uint32_t)sqlite3_column_int64(st, 0), kind, d, (size_t)n) < 0)
			fprintf(stderr, "chunk_probe: dictionary %lld not loaded\n", sqlite3_column_int64(st, 0));
		if (sec >= 0 && p->o.dict) { /* the newest of a kind, as the server packs with it */
			free(p->dict[sec]);
			p->dict[sec] = malloc((size_t)n);
			memcpy(p->dict[sec], d, (size_t)n);
			p->dict_len[sec] = (size_t)n;
			if (sec == SEC_COUNTS) { /* the series dictionary also learnt the heads */
				free(p->dict[SEC_HEAD]);
				p->dict[SEC_HEAD] = malloc((size_t)n);
				memcpy(p->dict[SEC_HEAD], d, (size_t)n);
				p->dict_len[SEC_HEAD] = (size_t)n;
			}
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Appends a string column: 0 when it is the chunk's previous value, else its length + 1 and the bytes. */
static void put_str(struct chunk *c, int i, const unsigned char *s)
{
	const char *v = s ? (const char *)s : "";
	size_t len = strlen(v);

	if (c->n > 0 && strcmp(c->last_str[i], v) == 0) {
		blob_put_u64(&c->sec[SEC_META], 0);
		return;
	}
	blob_put_u64(&c->sec[SEC_META], len + 1);
	blob_put_bytes(&c->sec[SEC_META], v, len);
	snprintf(c->last_str[i], sizeof(c->last_str[i]), "%s", v);
}

/* Appends a stored blob's plain bytes to sec with their length in front. A series blob (sec SEC_HEAD) goes
 * in its two sections (blob_split): the first to SEC_HEAD, the second (the counts) to SEC_COUNTS. */
static int put_blob(struct chunk *c, int sec, const void *p, size_t len)
{
	const uint8_t *plain;
	size_t plen, first, second = 0;
	uint8_t *scratch = NULL;

	if (!p || !len) {
		blob_put_u64(&c->sec[sec], 0);
		return 0;
	}
	if (blob_unpack(p, len, &plain, &plen, &scratch) < 0)
		return -1;
	first = plen;
	if (sec == SEC_HEAD && !blob_split(plain, plen, &first, &second)) {
		first = plen;
		second = 0;
	}
	blob_put_u64(&c->sec[sec], first);
	blob_put_bytes(&c->sec[sec], plain, first);
	blob_put_bytes(&c->sec[SEC_COUNTS], plain + first, second);
	free(scratch);
	return 0;
}

/* Appends section s of c to body as one zstd frame behind its length, checking that it decompresses to what went
 * in; 0 or -1. */
static int pack_section(struct probe *p, const struct chunk *c, int s, struct blob *body)
{
	const struct blob *in = &c->sec[s];
	size_t bound = ZSTD_compressBound(in->len), z, back;
	uint8_t *zb = malloc(bound), *chk = malloc(in->len + 1);
	int rc = -1;

	if (!zb || !chk)
		goto out;
	z = p->dict[s]
		? ZSTD_compress_usingDict(p->cctx, zb, bound, in->p, in->len, p->dict[s], p->dict_len[s], p->o.level)
		: ZSTD_compressCCtx(p->cctx, zb, bound, in->p, in->len, p->o.level);
	if (ZSTD_isError(z))
		goto out;
	back = p->dict[s] ? ZSTD_decompress_usingDict(p->dctx, chk, in->len + 1, zb, z, p->dict[s], p->dict_len[s])
			  : ZSTD_decompressDCtx(p->dctx, chk, in->len + 1, zb, z);
	if (ZSTD_isError(back) || back != in->len || (back && memcmp(chk, in->p, back) != 0)) {
		fprintf(stderr, "chunk_probe: section %s does not round-trip\n", sec_name[s]);
		goto out;
	}
	blob_put_u64(body, z);
	blob_put_bytes(body, zb, z);
	p->sec_bytes[s] += z;
	rc = 0;
out:
	free(zb);
	free(chk);
	return rc;
}

/* Packs every section of c and writes the chunk row and its keys; 0 or -1. */
static int write_chunk(struct probe *p, struct chunk *c)
{
	struct blob body = { 0 };
	int rc = -1;

	blob_put_u64(&body, (uint64_t)c->n);
	for (int s = 0; s < SEC_N; s++)
		if (pack_section(p, c, s, &body) < 0)
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

static struct chunk *chunk_new(sqlite3_stmt *st)
{
	struct chunk *c = calloc(1, sizeof(*c));
	const unsigned char *inc = sqlite3_column_text(st, 11);

	if (!c)
		return NULL;
	c->host_id = sqlite3_column_int64(st, 0);
	c->first_seq = sqlite3_column_int64(st, 1);
	c->first_ms = sqlite3_column_int64(st, 2);
	c->prev_start = c->first_ms;
	c->prev_seq = c->first_seq;
	snprintf(c->incarnation, sizeof(c->incarnation), "%s", inc ? (const char *)inc : "");
	return c;
}

/* Adds the row st is on to chunk c. */
static int chunk_add(struct chunk *c, sqlite3_stmt *st)
{
	struct blob *m = &c->sec[SEC_META];
	int64_t seq = sqlite3_column_int64(st, 1), start = sqlite3_column_int64(st, 2);
	int64_t end = sqlite3_column_int64(st, 3), recv = sqlite3_column_int64(st, 4);

	blob_put_u64(m, (uint64_t)(seq - c->prev_seq));
	blob_put_i64(m, start - c->prev_start);
	blob_put_i64(m, end - start);
	blob_put_i64(m, recv - end);
	blob_put_u64(m, (uint64_t)sqlite3_column_int64(st, 10));
	put_str(c, 0, sqlite3_column_text(st, 5));
	put_str(c, 1, sqlite3_column_text(st, 6));
	put_str(c, 2, sqlite3_column_text(st, 11));
	put_str(c, 3, sqlite3_column_text(st, 12));
	c->prev_seq = seq;
	c->prev_start = start;
	c->last_seq = seq;
	c->last_ms = start;
	c->n++;
	if (put_blob(c, SEC_HOST, sqlite3_column_blob(st, 7), (size_t)sqlite3_column_bytes(st, 7)) ||
	    put_blob(c, SEC_HEAD, sqlite3_column_blob(st, 8), (size_t)sqlite3_column_bytes(st, 8)) ||
	    put_blob(c, SEC_IOCOST, sqlite3_column_blob(st, 9), (size_t)sqlite3_column_bytes(st, 9)))
		return -1;
	return 0;
}

static int close_chunk(struct probe *p, struct chunk *c)
{
	if (p->npending == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct chunk **n = realloc(p->pending, cap * sizeof(*n));

		if (!n)
			return -1;
		p->pending = n;
		p->cap = cap;
	}
	p->pending[p->npending++] = c;
	return 0;
}

static int by_last(const void *a, const void *b)
{
	const struct chunk *x = *(struct chunk *const *)a, *y = *(struct chunk *const *)b;

	return x->last_ms < y->last_ms   ? -1
	       : x->last_ms > y->last_ms ? 1
					 : (x->host_id > y->host_id) - (x->host_id < y->host_id);
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
		const unsigned char *inc = sqlite3_column_text(st, 11);

		if (c && (c->n == p->o.chunk || c->host_id != sqlite3_column_int64(st, 0) ||
			  strcmp(c->incarnation, inc ? (const char *)inc : "") != 0)) {
			if (close_chunk(p, c) < 0)
				goto out;
			c = NULL;
		}
		if (!c && !(c = chunk_new(st)))
			goto out;
		if (chunk_add(c, st) < 0) {
			fprintf(stderr, "chunk_probe: a stored blob does not unpack\n");
			goto out;
		}
		p->reports++;
	}
	if (step != SQLITE_DONE || (c && close_chunk(p, c) < 0))
		goto out;
	c = NULL;
	qsort(p->pending, p->npending, sizeof(*p->pending), by_last);
	sqlite3_exec(p->dst, "BEGIN", NULL, NULL, NULL);
	for (size_t i = 0; i < p->npending; i++)
		if (write_chunk(p, p->pending[i]) < 0) {
			fprintf(stderr, "chunk_probe: %s\n", sqlite3_errmsg(p->dst));
			goto out;
		}
	sqlite3_exec(p->dst, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	src_bytes = bytes_of(p->src, "'reports','reports_time','report_keys','report_times'");
	dst_bytes = bytes_of(p->dst, "'chunks','chunks_time','chunk_keys','chunk_times'");
	printf(
	    "reports=%llu chunks=%llu chunk=%d level=%d dict=%s src_bytes_per_report=%.0f chunk_bytes_per_report=%.0f",
	    (unsigned long long)p->reports, (unsigned long long)p->chunks, p->o.chunk, p->o.level,
	    p->o.dict ? "yes" : "no", (double)src_bytes / (double)p->reports, (double)dst_bytes / (double)p->reports);
	for (int s = 0; s < SEC_N; s++)
		printf(" %s=%.0f", sec_name[s], (double)p->sec_bytes[s] / (double)p->reports);
	printf("\n");
	rc = 0;
out:
	if (c) {
		for (int s = 0; s < SEC_N; s++)
			blob_free(&c->sec[s]);
		free(c);
	}
	for (size_t i = 0; i < p->npending; i++) {
		for (int s = 0; s < SEC_N; s++)
			blob_free(&p->pending[i]->sec[s]);
		free(p->pending[i]);
	}
	free(p->pending);
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
		{ "db", required_argument, NULL, 'd' },    { "out", required_argument, NULL, 'o' },
		{ "chunk", required_argument, NULL, 'k' }, { "level", required_argument, NULL, 'l' },
		{ "no-dict", no_argument, NULL, 'n' },     { NULL, 0, NULL, 0 },
	};
	struct probe p = { .o = { .chunk = 6, .level = 3, .dict = true } };
	int ch, rc;

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
		case 'l':
			p.o.level = atoi(optarg);
			break;
		case 'n':
			p.o.dict = false;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!p.o.db || !p.o.out || p.o.chunk < 1)
		usage(argv[0]);
	p.cctx = ZSTD_createCCtx();
	p.dctx = ZSTD_createDCtx();
	rc = run(&p);
	ZSTD_freeCCtx(p.cctx);
	ZSTD_freeDCtx(p.dctx);
	for (int s = 0; s < SEC_N; s++)
		free(p.dict[s]);
	return rc ? 1 : 0;
}
