/* test_report_chunk.c - server/series/report_chunk.c: reports written to a
 * chunk read back with every column and, byte for byte, every blob's plain
 * form (packed, plain, split into head and counts or not, absent); strings
 * that change, repeat, are empty or NULL; deltas that wrap; a chunk of a
 * host's consecutive reports is smaller than their blobs packed one by one;
 * every truncation and corruption of a section is -EINVAL, never a crash;
 * the writer's limits, and a writer spoilt by a report it could not take.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/series/blob.h"
#include "server/series/blob_dict.h"
#include "server/series/report_chunk.h"
#include "server/series/runqlat_set.h"
#include "tests/unit/test_rng.h"

#define REPORTS 30

static uint64_t rng = 2463534242ULL;

static unsigned rnd(unsigned n)
{
	return test_rng_below(&rng, n);
}

/* A series blob of 20 cgroups' histograms, as a report's: the same keys, new counts. Packed when pack. */
static void make_series(struct blob *b, bool pack)
{
	uint16_t idx[60];
	uint64_t cnt[60];

	memset(b, 0, sizeof(*b));
	runqlat_set_encode_begin(b, 20);
	for (int c = 0; c < 20; c++) {
		char key[64];
		int n = snprintf(key, sizeof(key), "/workload.slice/job-%d.service", c);

		for (int i = 0; i < 60; i++) {
			idx[i] = (uint16_t)(i * 3);
			cnt[i] = 1 + rnd(20);
		}
		runqlat_set_encode_series(b, 2, key, (size_t)n, 1200, 5000000, 90000, idx, cnt, 60);
	}
	if (pack)
		assert_int_equal(blob_pack(b), 0);
	else
		blob_layout(b);
	assert_false(b->oom);
}

/* An opaque blob of n bytes starting with version 1 (host_hist and iocost go through unread). */
static void make_bytes(struct blob *b, size_t n, bool pack)
{
	memset(b, 0, sizeof(*b));
	blob_put_u64(b, 1);
	for (size_t i = 1; i < n; i++)
		blob_put_u64(b, (i % 7) == 0 ? rnd(100) : i % 5);
	if (pack)
		assert_int_equal(blob_pack(b), 0);
	assert_false(b->oom);
}

struct fixture {
	struct report_chunk_row row[REPORTS];
	struct blob hh[REPORTS], series[REPORTS], io[REPORTS];
	char kernel[REPORTS][32];
};

static void fixture_make(struct fixture *f)
{
	static const char *const groups[] = { "eevdf", "eevdf", "scx_lavd" };

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < REPORTS; i++) {
		struct report_chunk_row *r = &f->row[i];

		make_bytes(&f->hh[i], 40 + rnd(40), i % 2 == 0);
		make_series(&f->series[i], i % 3 != 1);
		make_bytes(&f->io[i], 150, true);
		snprintf(f->kernel[i], sizeof(f->kernel[i]), "6.%d.0", i < 20 ? 12 : 13);
		r->seq = i == 0 ? INT64_MAX - 3 : (int64_t)((uint64_t)f->row[i - 1].seq + 1); /* wraps past INT64_MAX */
		r->start_ms =
		    1767225600000LL + i * 10000 - (i == 7 ? 25000 : 0); /* one late report: a negative delta */
		r->end_ms = r->start_ms + 10000 + (i % 4);
		r->received_ms = r->end_ms + 40 - (i % 3) * 30; /* received before its end: clocks differ */
		r->dropped = i == 5 ? 3 : 0;
		r->sched_group = groups[(i / 10) % 3];
		r->kernel = i == 11 ? "" : f->kernel[i];
		r->incarnation = "a1b2c3d4";
		r->health = i % 5 == 0 ? NULL : i % 5 == 1 ? "{\"scx\":{}}" : "{}";
		r->host_hist = i == 3 ? NULL : f->hh[i].p;
		r->host_hist_len = i == 3 ? 0 : f->hh[i].len;
		r->series = i == 4 ? NULL : f->series[i].p;
		r->series_len = i == 4 ? 0 : f->series[i].len;
		r->iocost = f->io[i].p;
		r->iocost_len = f->io[i].len;
	}
}

static void fixture_free(struct fixture *f)
{
	for (int i = 0; i < REPORTS; i++) {
		blob_free(&f->hh[i]);
		blob_free(&f->series[i]);
		blob_free(&f->io[i]);
	}
}

/* Writes every report of f to a chunk: out[] its sections. */
static void write_all(struct fixture *f, struct blob *out)
{
	struct report_chunk_writer w = { 0 };

	for (int i = 0; i < REPORTS; i++)
		assert_int_equal(report_chunk_add(&w, &f->row[i]), 0);
	assert_int_equal(report_chunk_finish(&w, out), 0);
}

static void open_sections(struct report_chunk_reader *rd, struct blob *sec, int want, size_t *n)
{
	const void *p[REPORT_CHUNK_SECTIONS];
	size_t len[REPORT_CHUNK_SECTIONS];

	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		p[s] = sec[s].p;
		len[s] = sec[s].len;
	}
	assert_int_equal(report_chunk_open(rd, p, len, n), want);
}

/* A stored blob and a chunk's plain one hold the same plain bytes (both absent, or equal). */
static void assert_same_blob(const void *stored, size_t stored_len, const void *got, size_t got_len)
{
	const uint8_t *plain;
	size_t plen;
	uint8_t *scratch = NULL;

	if (!stored) {
		assert_null(got);
		assert_int_equal(got_len, 0);
		return;
	}
	assert_int_equal(blob_unpack(stored, stored_len, &plain, &plen, &scratch), 0);
	assert_int_equal(got_len, plen);
	assert_memory_equal(got, plain, plen);
	free(scratch);
}

static void assert_same_str(const char *want, const char *got)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

static void test_reports_read_back_with_every_column_and_blob(void **state)
{
	struct fixture f;
	struct blob sec[REPORT_CHUNK_SECTIONS];
	struct report_chunk_reader rd;
	struct report_chunk_row r;
	size_t n;

	(void)state;
	fixture_make(&f);
	write_all(&f, sec);
	open_sections(&rd, sec, 0, &n);
	assert_int_equal(n, REPORTS);
	for (int i = 0; i < REPORTS; i++) {
		const struct report_chunk_row *w = &f.row[i];

		assert_int_equal(report_chunk_next(&rd, &r), 1);
		assert_true(r.seq == w->seq && r.start_ms == w->start_ms && r.end_ms == w->end_ms);
		assert_true(r.received_ms == w->received_ms && r.dropped == w->dropped);
		assert_same_str(w->sched_group, r.sched_group);
		assert_same_str(w->kernel, r.kernel);
		assert_same_str(w->incarnation, r.incarnation);
		assert_same_str(w->health, r.health);
		assert_same_blob(w->host_hist, w->host_hist_len, r.host_hist, r.host_hist_len);
		assert_same_blob(w->series, w->series_len, r.series, r.series_len);
		assert_same_blob(w->iocost, w->iocost_len, r.iocost, r.iocost_len);
		if (r.series) { /* and the series decodes as the stored one does */
			struct runqlat_set a = { 0 }, b = { 0 };

			assert_int_equal(runqlat_set_add_blob(&a, w->series, w->series_len, NULL, NULL), 0);
			assert_int_equal(runqlat_set_add_blob(&b, r.series, r.series_len, NULL, NULL), 0);
			assert_int_equal(a.n, 20);
			assert_int_equal(b.n, a.n);
			runqlat_set_free(&a);
			runqlat_set_free(&b);
		}
	}
	assert_int_equal(report_chunk_next(&rd, &r), 0);
	report_chunk_close(&rd);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		blob_free(&sec[s]);
	fixture_free(&f);
}

static void test_chunk_smaller_than_blobs_packed_one_by_one(void **state)
{
	struct fixture f;
	struct blob sec[REPORT_CHUNK_SECTIONS];
	size_t alone = 0, chunk = 0;

	(void)state;
	fixture_make(&f);
	for (int i = 0; i < REPORTS; i++) {
		struct blob s;

		make_series(&s, true); /* every one packed, as the server stores them */
		blob_free(&f.series[i]);
		f.series[i] = s;
		f.row[i].series = s.p;
		f.row[i].series_len = s.len;
		alone += f.row[i].host_hist_len + s.len + f.row[i].iocost_len;
	}
	write_all(&f, sec);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		chunk += sec[s].len;
		blob_free(&sec[s]);
	}
	print_message("blobs packed one by one %zu B, as a chunk %zu B (%d reports)\n", alone, chunk, REPORTS);
	/* the keys and code tables are written once instead of once a report */
	assert_true(chunk * 100 < alone * 90);
	fixture_free(&f);
}

static void test_truncated_or_corrupt_sections_are_einval(void **state)
{
	struct fixture f;
	struct blob sec[REPORT_CHUNK_SECTIONS], plain[REPORT_CHUNK_SECTIONS];
	int tried = 0;

	(void)state;
	fixture_make(&f);
	for (int i = 0; i < 6; i++) { /* some rows without series, the rest split */
		f.row[i].series = NULL;
		f.row[i].series_len = 0;
	}
	write_all(&f, sec);
	/* the sections' plain bytes, to cut and flip where the structure is, not in zstd frames */
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		const uint8_t *p;
		size_t len;
		uint8_t *scratch = NULL;

		assert_int_equal(blob_unpack(sec[s].p, sec[s].len, &p, &len, &scratch), 0);
		memset(&plain[s], 0, sizeof(plain[s]));
		assert_true(blob_reserve(&plain[s], len));
		memcpy(plain[s].p, p, len);
		plain[s].len = len;
		free(scratch);
	}
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		size_t full = plain[s].len;
		size_t step = full > 400 ? full / 200 : 1;

		for (size_t cut = 0; cut < full; cut += step) {
			struct report_chunk_reader rd;
			struct report_chunk_row r;
			size_t n;
			int rc;

			plain[s].len = cut;
			{
				const void *p[REPORT_CHUNK_SECTIONS];
				size_t len[REPORT_CHUNK_SECTIONS];

				for (int k = 0; k < REPORT_CHUNK_SECTIONS; k++) {
					p[k] = plain[k].p;
					len[k] = plain[k].len;
				}
				rc = report_chunk_open(&rd, p, len, &n);
			}
			if (rc == 0)
				while ((rc = report_chunk_next(&rd, &r)) == 1)
					;
			report_chunk_close(&rd);
			tried++;
			assert_int_equal(rc, -EINVAL);
		}
		plain[s].len = full;
	}
	/* one byte more at the end of a section is left over: -EINVAL */
	{
		struct report_chunk_reader rd;
		struct report_chunk_row r;
		size_t n;
		int rc;

		blob_put_u64(&plain[REPORT_CHUNK_IOCOST], 0);
		open_sections(&rd, plain, 0, &n);
		while ((rc = report_chunk_next(&rd, &r)) == 1)
			;
		assert_int_equal(rc, -EINVAL);
		report_chunk_close(&rd);
		plain[REPORT_CHUNK_IOCOST].len--;
	}
	/* the first report cannot repeat a previous string: its tag 0 is -EINVAL */
	{
		struct report_chunk_reader rd;
		struct report_chunk_row r;
		struct blob m = { 0 };
		struct blob saved = plain[REPORT_CHUNK_META];
		size_t n;

		blob_put_u64(&m, 1);
		blob_put_u64(&m, 1);
		for (int k = 0; k < 5; k++)
			blob_put_i64(&m, 0);
		blob_put_u64(&m, 0);
		plain[REPORT_CHUNK_META] = m;
		open_sections(&rd, plain, 0, &n);
		assert_int_equal(report_chunk_next(&rd, &r), -EINVAL);
		report_chunk_close(&rd);
		plain[REPORT_CHUNK_META] = saved;
		blob_free(&m);
	}
	print_message("%d truncations, every one -EINVAL\n", tried);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		blob_free(&sec[s]);
		blob_free(&plain[s]);
	}
	fixture_free(&f);
}

static void test_writer_limits(void **state)
{
	struct report_chunk_writer w = { 0 };
	struct blob out[REPORT_CHUNK_SECTIONS];
	struct report_chunk_row r = { .sched_group = "eevdf", .kernel = "", .incarnation = "" };
	uint8_t bad[] = { BLOB_PACKED_ZSTD, 40, 1, 2, 3 };

	(void)state;
	assert_int_equal(report_chunk_finish(&w, out), -EINVAL); /* nothing added */
	r.iocost = bad;
	r.iocost_len = sizeof(bad);
	assert_int_equal(report_chunk_add(&w, &r), -EINVAL); /* a blob that does not unpack */
	r.iocost = NULL;
	r.iocost_len = 0;
	/* the sections hold part of that report: the writer is spoilt, also for a good one */
	assert_int_equal(report_chunk_add(&w, &r), -EINVAL);
	assert_int_equal(report_chunk_finish(&w, out), -EINVAL);
	for (int i = 0; i < REPORT_CHUNK_MAX; i++) {
		r.seq = i;
		assert_int_equal(report_chunk_add(&w, &r), 0);
	}
	assert_int_equal(report_chunk_add(&w, &r), -EINVAL);
	r.kernel = NULL;
	report_chunk_writer_free(&w);
	assert_int_equal(report_chunk_add(&w, &r), -EINVAL); /* a column that cannot be NULL */
	report_chunk_writer_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reports_read_back_with_every_column_and_blob),
		cmocka_unit_test(test_chunk_smaller_than_blobs_packed_one_by_one),
		cmocka_unit_test(test_truncated_or_corrupt_sections_are_einval),
		cmocka_unit_test(test_writer_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
