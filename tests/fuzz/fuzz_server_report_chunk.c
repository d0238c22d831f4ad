/* fuzz_server_report_chunk.c - libFuzzer target for the reader of stored
 * report chunks (server/series/report_chunk.h): a corrupt database row must
 * read as an error, never a crash. The input is five 16-bit little-endian
 * lengths, then the five sections back to back (a length past the input's
 * end is cut to it). A chunk that reads must come back the same when its
 * reports are written to a new chunk and read again: every column, every
 * string, every blob byte for byte.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/series/report_chunk.h"

#define HEAD (2 * REPORT_CHUNK_SECTIONS)

static void same_str(const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		abort();
}

static void same_blob(const void *a, size_t alen, const void *b, size_t blen)
{
	if ((a == NULL) != (b == NULL) || alen != blen || (alen && memcmp(a, b, alen) != 0))
		abort();
}

/* Reads chunk sections p/len into rows[] (copies) and, when w is not NULL, writes each to w; 0 or an error. */
static int read_all(const void *const *p, const size_t *len, struct report_chunk_writer *w, size_t *count)
{
	struct report_chunk_reader rd;
	struct report_chunk_row r;
	size_t n;
	int rc = report_chunk_open(&rd, p, len, &n);

	*count = 0;
	while (rc == 0 && (rc = report_chunk_next(&rd, &r)) == 1) {
		(*count)++;
		if (w && report_chunk_add(w, &r) != 0)
			abort(); /* what was read is what a writer takes */
		rc = 0;
	}
	report_chunk_close(&rd);
	return rc;
}

/* The chunk in a and the one in b hold the same reports. */
static void same_chunks(const void *const *pa, const size_t *la, const void *const *pb, const size_t *lb)
{
	struct report_chunk_reader a, b;
	struct report_chunk_row ra, rb;
	size_t na, nb;
	int ca, cb;

	if (report_chunk_open(&a, pa, la, &na) || report_chunk_open(&b, pb, lb, &nb) || na != nb)
		abort();
	while ((ca = report_chunk_next(&a, &ra)) == 1) {
		if ((cb = report_chunk_next(&b, &rb)) != 1)
			abort();
		if (ra.seq != rb.seq || ra.start_ms != rb.start_ms || ra.end_ms != rb.end_ms ||
		    ra.received_ms != rb.received_ms || ra.dropped != rb.dropped)
			abort();
		same_str(ra.sched_group, rb.sched_group);
		same_str(ra.kernel, rb.kernel);
		same_str(ra.incarnation, rb.incarnation);
		same_str(ra.health, rb.health);
		same_blob(ra.host_hist, ra.host_hist_len, rb.host_hist, rb.host_hist_len);
		same_blob(ra.series, ra.series_len, rb.series, rb.series_len);
		same_blob(ra.iocost, ra.iocost_len, rb.iocost, rb.iocost_len);
	}
	if (ca != 0 || report_chunk_next(&b, &rb) != 0)
		abort();
	report_chunk_close(&a);
	report_chunk_close(&b);
}

/* Reads the chunk with only the sections in mask (the meta always): an error where the whole chunk
 * does not read is fine, but what reads has full's columns, and NULL where a section was left out. */
static void partial(const void *const *p, const size_t *len, unsigned mask, bool whole_reads)
{
	const void *some[REPORT_CHUNK_SECTIONS];
	struct report_chunk_reader a, b;
	struct report_chunk_row ra, rb;
	size_t na, nb;
	int ca, cb = 1;

	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		some[s] = s == REPORT_CHUNK_META || (mask & (1u << s)) ? p[s] : NULL;
	ca = report_chunk_open(&a, some, len, &na);
	if (!whole_reads) { /* must not crash, whatever it answers */
		while (ca == 0 && (ca = report_chunk_next(&a, &ra)) == 1)
			ca = 0;
		report_chunk_close(&a);
		return;
	}
	if (ca || report_chunk_open(&b, p, len, &nb) || na != nb)
		abort();
	while ((ca = report_chunk_next(&a, &ra)) == 1 && (cb = report_chunk_next(&b, &rb)) == 1) {
		if (ra.seq != rb.seq || ra.start_ms != rb.start_ms || ra.end_ms != rb.end_ms ||
		    ra.dropped != rb.dropped)
			abort();
		same_str(ra.health, rb.health);
		if (mask & (1u << REPORT_CHUNK_HOST_HIST))
			same_blob(ra.host_hist, ra.host_hist_len, rb.host_hist, rb.host_hist_len);
		else if (ra.host_hist)
			abort();
		if ((mask & (1u << REPORT_CHUNK_HEAD)) && (mask & (1u << REPORT_CHUNK_COUNTS)))
			same_blob(ra.series, ra.series_len, rb.series, rb.series_len);
		else if (ra.series)
			abort();
	}
	if (ca != 0 || cb != 1 || report_chunk_next(&b, &rb) != 0)
		abort();
	report_chunk_close(&a);
	report_chunk_close(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const void *p[REPORT_CHUNK_SECTIONS], *q[REPORT_CHUNK_SECTIONS];
	size_t len[REPORT_CHUNK_SECTIONS], qlen[REPORT_CHUNK_SECTIONS], at = HEAD, n;
	struct report_chunk_writer w = { 0 };
	struct blob out[REPORT_CHUNK_SECTIONS];

	if (size < HEAD)
		return 0;
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		size_t want = (size_t)data[2 * s] | (size_t)data[2 * s + 1] << 8;

		len[s] = want < size - at ? want : size - at;
		p[s] = data + at;
		at += len[s];
	}
	if (read_all(p, len, &w, &n) != 0) {
		report_chunk_writer_free(&w);
		partial(p, len, data[0], false);
		return 0;
	}
	partial(p, len, 0, true);
	partial(p, len, 1u << REPORT_CHUNK_HOST_HIST, true);
	partial(p, len, data[0], true);
	if (report_chunk_finish(&w, out) != 0)
		abort();
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		q[s] = out[s].p;
		qlen[s] = out[s].len;
	}
	same_chunks(p, len, q, qlen);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		blob_free(&out[s]);
	return 0;
}
