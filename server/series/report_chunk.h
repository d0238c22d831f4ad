/* report_chunk.h - several raw reports of one host stored as one chunk (issue
 * 18). One report a row cannot get under ~1.2 KB in SQLite: its row, page
 * fill and keys cost ~180 B beside its blobs (BENCHMARKS.md, "Several reports
 * of a host to a row"). A chunk keeps its reports' columns as deltas and a
 * string only when it changed, and their blobs by section, each section one
 * packed blob: the columns, all host histograms, all series heads, all series
 * counts (each kind with its dictionary in use, blob_dict.h), all iocost sets.
 *
 * The writer takes reports in the order they are to be read back (by start
 * time) with their blobs as stored (blob_unpack is applied); the reader gives
 * them back one by one, each blob in its plain form, which every blob decoder
 * reads as it reads a stored one. */
#ifndef SCHEDIO_SERVER_SERIES_REPORT_CHUNK_H
#define SCHEDIO_SERVER_SERIES_REPORT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "server/series/blob.h"

enum report_chunk_section {
	REPORT_CHUNK_META,      /* seq, times, drop count and the string columns */
	REPORT_CHUNK_HOST_HIST, /* the host histograms */
	REPORT_CHUNK_HEAD,      /* each series blob's first section (or all of it) */
	REPORT_CHUNK_COUNTS,    /* each series blob's second section: the counts */
	REPORT_CHUNK_IOCOST,    /* the iocost sets */
	REPORT_CHUNK_SECTIONS,
};

/* A chunk holds at most this many reports. */
#define REPORT_CHUNK_MAX 4096

/* One raw report of a chunk. Strings are NUL-terminated; health and the blobs are NULL when the report had none. */
struct report_chunk_row {
	int64_t seq, start_ms, end_ms, received_ms, dropped;
	const char *sched_group, *kernel, *incarnation, *health;
	const void *host_hist, *series, *iocost;
	size_t host_hist_len, series_len, iocost_len;
};

struct report_chunk_writer {
	struct blob sec[REPORT_CHUNK_SECTIONS];
	size_t n;
	int64_t seq, start_ms; /* the previous report's, which the next one's are written against */
	char *str[4];          /* the previous report's strings (NULL: none yet, or health NULL) */
	int err;               /* the first failure of report_chunk_add, which then takes no more */
};

struct report_chunk_reader {
	struct blob_reader sec[REPORT_CHUNK_SECTIONS];
	uint8_t *scratch[REPORT_CHUNK_SECTIONS]; /* unpacked sections (blob_unpack_reuse) */
	size_t scratch_cap[REPORT_CHUNK_SECTIONS];
	uint8_t *series; /* the current report's series blob, joined again */
	size_t series_cap, n, i;
	unsigned skip; /* bit s: section s is not read (its blobs come back NULL) */
	int64_t seq, start_ms;
	const char *str[4];
};

/* Adds report r after the ones added so far: 0, -EINVAL (a blob that does not unpack, sched_group, kernel or
 * incarnation NULL, or REPORT_CHUNK_MAX reports already), -ENOMEM. After a blob that does not unpack or
 * -ENOMEM the writer is spoilt: every later call fails the same way (free it). */
int report_chunk_add(struct report_chunk_writer *w, const struct report_chunk_row *r);
/* The reports added so far as packed sections out[REPORT_CHUNK_SECTIONS] (blobs to free; the caller's
 * are overwritten); the writer is emptied, also on failure. 0, -EINVAL (no report added), -ENOMEM, or the
 * error that spoilt the writer. */
int report_chunk_finish(struct report_chunk_writer *w, struct blob *out);
/* Frees what the writer holds. */
void report_chunk_writer_free(struct report_chunk_writer *w);

/* Opens a chunk from its sections p[i] of len[i] bytes: 0 (*n reports), -EINVAL (a section that does not
 * unpack or whose counts disagree), -ENOMEM. A section other than the meta whose p[i] is NULL is not read:
 * its blobs come back NULL (head or counts NULL: no series). Free the reader with report_chunk_close, also on
 * failure. */
int report_chunk_open(struct report_chunk_reader *rd, const void *const *p, const size_t *len, size_t *n);
/* Like report_chunk_open, for a reader opened before and not closed since: its buffers are used again. */
int report_chunk_reopen(struct report_chunk_reader *rd, const void *const *p, const size_t *len, size_t *n);
/* The next report into *r, pointing into the reader (valid until the next call): 1, 0 after the last
 * one, -EINVAL for a malformed chunk, -ENOMEM. */
int report_chunk_next(struct report_chunk_reader *rd, struct report_chunk_row *r);
/* Frees what the reader holds. */
void report_chunk_close(struct report_chunk_reader *rd);

#endif /* SCHEDIO_SERVER_SERIES_REPORT_CHUNK_H */
