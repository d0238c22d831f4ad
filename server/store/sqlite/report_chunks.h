/* report_chunks.h - raw reports kept as chunks on SQLite (schema/sqlite/0020,
 * issue 18): the pass that moves a host's old rows into chunks, and what the
 * readers of raw reports need to read them back beside the rows. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_REPORT_CHUNKS_H
#define SCHEDIO_SERVER_STORE_SQLITE_REPORT_CHUNKS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/series/report_chunk.h"

/* What a read takes from each chunk. */
enum report_chunks_want {
	REPORT_CHUNKS_META, /* the columns alone: every blob NULL */
	REPORT_CHUNKS_HIST, /* and the host histograms */
	REPORT_CHUNKS_ALL,  /* every blob */
};

struct report_chunks;

/* SQL: an id below which no row is staged (schema/sqlite/0018): the first of each staging table, else the
 * next id. Its value only grows while a chunked row is left, so every row the pass chunked, which it takes
 * only below this, stays below it. */
#define REPORT_CHUNKS_STAGE_BOUND                                                                                      \
	"(SELECT min(b) FROM (SELECT (SELECT id FROM reports_stage0 ORDER BY rowid LIMIT 1) AS b UNION ALL "           \
	"SELECT (SELECT id FROM reports_stage1 ORDER BY rowid LIMIT 1) UNION ALL "                                     \
	"SELECT (SELECT max(id) FROM reports) + 1))"
/* SQL: whether row r of reports is a raw report, not one the pass chunked and the sweep has yet to delete:
 * it starts after every chunk's last report (no key lookup for the newest rows, which most reads want), is
 * staged, or has its keys. Readers by time alone (not through the keys) need it. */
#define REPORT_CHUNKS_ROW_LIVE(r)                                                                                      \
	"(" r ".start_ms > coalesce((SELECT max(last_ms) FROM report_chunks), -1) OR " r                               \
	".id >= " REPORT_CHUNKS_STAGE_BOUND " OR EXISTS (SELECT 1 FROM report_times k WHERE k.host_id = " r            \
	".host_id AND k.start_ms = " r ".start_ms AND k.id = " r ".id))"

/* A chunk a read looks into. */
struct chunk_ref {
	int64_t id, host_id, first_ms, last_ms;
};

/* The chunk reports of one host, or of all, starting in [from, to). */
struct report_chunks_cursor {
	struct report_chunks *c;
	enum report_chunks_want want;
	int64_t from, to;
	int64_t horizon;        /* raw retention's last bound: reports before it are expired */
	struct chunk_ref *refs; /* the chunks that may hold such reports */
	size_t nrefs, next;
	bool open; /* rd reads chunk refs[next - 1] */
	bool used; /* rd was opened (close it at the end) */
	struct report_chunk_reader rd;
	void *sec[REPORT_CHUNK_SECTIONS]; /* rd's input, copied out of the statement */
	size_t sec_cap[REPORT_CHUNK_SECTIONS];
	struct chunk_item **items; /* all of them by (start, seq), when the chunks overlap */
	size_t nitems, pos;
};

/* A handle's chunk statements, prepared when first used; NULL when out of memory. */
struct report_chunks *report_chunks_new(sqlite3 *db);
void report_chunks_free(struct report_chunks *c);
/* Sets the pass's knobs: rows are chunked once older than after_ms (and rolled up; never when < 0), a host's rows
 * once at least min_reports wait (or the oldest has waited an hour more), a pass over the hosts at
 * most once a period_ms; chunked rows are deleted once a pass has ended sweep_lag_ms past their start. */
void report_chunks_configure(struct report_chunks *c, int64_t after_ms, int min_reports, int64_t period_ms,
			     int64_t sweep_lag_ms);

/* Outside a transaction: moves old raw rows of some hosts into chunks (rows whose minute waits for a
 * rollup redo, or whose keys are still staged, stay rows), each host's in a short write transaction of
 * its own, packed before it, or deletes some chunked rows (the sweep). mark_ms: where the minute rollups
 * are. 1 when more remains, 0, -1 on error. */
int report_chunks_compact(struct report_chunks *c, int64_t now_ms, int64_t mark_ms);
/* 1 if a chunk of host holds the report (incarnation, seq), 0 if none does, -1 on error. */
int report_chunks_has(struct report_chunks *c, int64_t host_id, const char *incarnation, int64_t seq);
/* Deletes up to max chunks whose reports all start before before_ms and none of whose minutes waits
 * for a redo, and keeps before_ms as the bound readers leave the rest out by (the reports before it
 * in a chunk that stays, but those whose minute waits for a redo); returns the number deleted, or -1. */
int report_chunks_expire(struct report_chunks *c, int64_t before_ms, int max);
/* The latest start of host's chunk reports (any host's when host_id < 0) into *ms: 1, 0 when there are
 * none, -1 on error. */
int report_chunks_last_ms(struct report_chunks *c, int64_t host_id, int64_t *ms);

/* Opens a cursor over the reports of host's chunks (all hosts when host_id < 0) starting in [from, to):
 * for one host in (start, seq) order, for all hosts chunk by chunk. 0 or -1. */
int report_chunks_cursor_open(struct report_chunks_cursor *cur, struct report_chunks *c, int64_t host_id, int64_t from,
			      int64_t to, enum report_chunks_want want);
/* The next report into *r (valid until the next call) and its host into *host_id: 1, 0 after the last,
 * -1 on error (a chunk that does not read is an error: it was written by this code). */
int report_chunks_cursor_next(struct report_chunks_cursor *cur, int64_t *host_id, struct report_chunk_row *r);
void report_chunks_cursor_close(struct report_chunks_cursor *cur);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_REPORT_CHUNKS_H */
