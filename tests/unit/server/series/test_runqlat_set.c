/* test_runqlat_set.c - the stored histogram encoding (server/series/runqlat_set.c):
 * round trips exactly, merges by adding buckets, refuses corrupt blobs, and
 * keeps a host's split by scheduler apart from its whole-host series; blobs
 * written before issue 18 (version 1, zlib packed) still read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "server/series/runqlat_set.h"

static void fill(struct runqlat_set *s, const char *key, uint32_t base, uint64_t scale)
{
	struct runqlat_hist *h = runqlat_set_get(s, RUNQLAT_CGROUP, key, strlen(key));

	assert_non_null(h);
	for (uint32_t i = 0; i < 60; i++)
		h->hist.buckets[base + i] += scale * (i + 1);
	h->hist.count += 1830 * scale;
	h->hist.sum_ns += 1000 * scale;
	h->hist.max_ns = base * 100;
}

static void test_runqlat_set_round_trips_exactly(void **state)
{
	struct runqlat_set a = { 0 }, b = { 0 };
	struct blob blob = { 0 };

	fill(&a, "/", 10, 1);
	fill(&a, "/system.slice/x'; DROP TABLE y;--", 400, 1000000007ULL);
	runqlat_set_get(&a, RUNQLAT_CPU, "3", 1)->hist.buckets[HIST_BUCKETS - 1] = UINT64_MAX / 2;
	runqlat_set_encode(&a, &blob);
	assert_false(blob.oom);
	/* about 2-3 bytes per non-zero bucket */
	assert_true(blob.len < 3 * 121 * 3 + 100);
	assert_int_equal(runqlat_set_add_blob(&b, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(b.n, a.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.v[i]->key, b.v[i]->key);
		assert_int_equal(a.v[i]->hist.count, b.v[i]->hist.count);
		assert_int_equal(a.v[i]->hist.max_ns, b.v[i]->hist.max_ns);
		assert_memory_equal(a.v[i]->hist.buckets, b.v[i]->hist.buckets, sizeof(a.v[i]->hist.buckets));
	}
	blob_free(&blob);
	runqlat_set_free(&a);
	runqlat_set_free(&b);
}

static void test_runqlat_set_merges_by_adding_buckets(void **state)
{
	struct runqlat_set a = { 0 }, m = { 0 };
	struct blob blob = { 0 };
	struct runqlat_hist one = { 0 };

	fill(&a, "/a", 100, 2);
	runqlat_set_encode(&a, &blob);
	assert_int_equal(runqlat_set_add_blob(&m, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(runqlat_set_add_blob(&m, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(m.n, 1);
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		assert_int_equal(m.v[0]->hist.buckets[i], 2 * a.v[0]->hist.buckets[i]);
	assert_int_equal(m.v[0]->hist.max_ns, a.v[0]->hist.max_ns);
	assert_int_equal(runqlat_hist_add_blob(&one, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(hist_total(one.hist.buckets), hist_total(a.v[0]->hist.buckets));
	blob_free(&blob);
	runqlat_set_free(&a);
	runqlat_set_free(&m);
}

static void test_runqlat_set_refuses_corrupt_blobs(void **state)
{
	struct runqlat_set a = { 0 }, b = { 0 };
	struct blob blob = { 0 };

	fill(&a, "/", 10, 1);
	runqlat_set_encode(&a, &blob);
	for (size_t cut = 0; cut < blob.len; cut++)
		assert_int_not_equal(runqlat_set_add_blob(&b, blob.p, cut, NULL, NULL), 0);
	blob.p[0] = 99; /* unknown version */
	assert_int_not_equal(runqlat_set_add_blob(&b, blob.p, blob.len, NULL, NULL), 0);
	blob_free(&blob);
	runqlat_set_free(&a);
	runqlat_set_free(&b);
}

/* A blob of one series whose one bucket's gap and count are the given varint bytes. */
static size_t one_bucket_blob(uint8_t *out, const uint8_t *gap, size_t gaplen, const uint8_t *cnt, size_t cntlen)
{
	static const uint8_t head[] = {
		1, 1, RUNQLAT_CGROUP, 1, '/', 5, 50, 9, 1
	}; /* version, n, kind, key, totals, nb */
	size_t n = sizeof(head);

	memcpy(out, head, n);
	memcpy(out + n, gap, gaplen);
	n += gaplen;
	memcpy(out + n, cnt, cntlen);
	return n + cntlen;
}

/* Bucket varints: one byte or up to ten (bits past 64 dropped), never eleven or cut short. */
static void test_runqlat_set_bucket_varints_at_their_limits(void **state)
{
	static const uint8_t one[] = { 0x7f }, two[] = { 0x80, 0x01 }, three[] = { 0x85, 0x80, 0x00 };
	static const uint8_t ten[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	uint8_t buf[64];
	struct runqlat_hist h;
	size_t n;

	memset(&h, 0, sizeof(h));
	n = one_bucket_blob(buf, one, sizeof(one), two, sizeof(two)); /* gap 127: bucket 127, count 128 */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, n, NULL, NULL), 0);
	assert_int_equal(h.hist.buckets[127], 128);
	memset(&h, 0, sizeof(h));
	n = one_bucket_blob(buf, three, sizeof(three), ten, sizeof(ten)); /* gap 5 in three bytes, count all ones */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, n, NULL, NULL), 0);
	assert_true(h.hist.buckets[5] == UINT64_MAX);
	assert_int_equal(hist_total(h.hist.buckets), UINT64_MAX);
	n = one_bucket_blob(buf, one, sizeof(one), eleven, sizeof(eleven));
	assert_int_equal(runqlat_hist_add_blob(&h, buf, n, NULL, NULL), -EINVAL);
	n = one_bucket_blob(buf, eleven, sizeof(eleven), one, sizeof(one));
	assert_int_equal(runqlat_hist_add_blob(&h, buf, n, NULL, NULL), -EINVAL);
	n = one_bucket_blob(buf, one, sizeof(one), two, 1); /* the count cut short */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, n, NULL, NULL), -EINVAL);
	n = one_bucket_blob(buf, (const uint8_t[]){ 0x90, 0x04 }, 2, one,
			    sizeof(one)); /* gap 528: past the last bucket */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, n, NULL, NULL), -EINVAL);
}

/* A host series of n samples in bucket b. */
static void host_of(struct runqlat_hist *h, uint32_t b, uint64_t n)
{
	static char empty[1];

	memset(h, 0, sizeof(*h));
	h->kind = RUNQLAT_HOST;
	h->key = empty;
	h->hist.buckets[b] = n;
	h->hist.count = n;
}

static struct runqlat_hist *sched_of(struct runqlat_set *s, const char *key, uint32_t b, uint64_t n)
{
	struct runqlat_hist *h = runqlat_set_get(s, RUNQLAT_SCHED, key, strlen(key));

	assert_non_null(h);
	h->hist.buckets[b] += n;
	h->hist.count += n;
	return h;
}

/* A split blob yields its RUNQLAT_SCHED series; the whole host is read once with runqlat_set_want_host. */
static void test_runqlat_set_sched_split_from_blob(void **state)
{
	static struct runqlat_hist host, whole;
	struct runqlat_set sched = { 0 }, got = { 0 };
	struct blob blob = { 0 };

	host_of(&host, 20, 10);
	sched_of(&sched, "eevdf", 20, 4);
	sched_of(&sched, "scx_fifo", 20, 6);
	runqlat_set_encode_host_hist(&blob, &host, &sched, "scx_fifo");
	assert_false(blob.oom);
	assert_int_equal(runqlat_set_add_sched(&got, blob.p, blob.len, "scx_fifo"), 0);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.v[0]->key, "eevdf");
	assert_int_equal(got.v[0]->kind, RUNQLAT_SCHED);
	assert_int_equal(got.v[0]->hist.buckets[20], 4);
	assert_string_equal(got.v[1]->key, "scx_fifo");
	assert_int_equal(got.v[1]->hist.count, 6);
	memset(&whole, 0, sizeof(whole));
	assert_int_equal(runqlat_hist_add_blob(&whole, blob.p, blob.len, runqlat_set_want_host, NULL), 0);
	assert_int_equal(whole.hist.count, 10);
	assert_int_equal(whole.hist.buckets[20], 10);
	/* Adding it twice merges per group. */
	assert_int_equal(runqlat_set_add_sched(&got, blob.p, blob.len, "other"), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.v[1]->hist.count, 12);
	/* A corrupt blob adds nothing. */
	assert_int_not_equal(runqlat_set_add_sched(&got, blob.p, blob.len - 1, "other"), 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.v[1]->hist.count, 12);
	blob_free(&blob);
	runqlat_set_free(&sched);
	runqlat_set_free(&got);
}

/* Without RUNQLAT_SCHED series (old rows, one scheduler) the host series is the row's group's. */
static void test_runqlat_set_sched_split_falls_back_to_row_group(void **state)
{
	static struct runqlat_hist host;
	struct runqlat_set sched = { 0 }, got = { 0 }, all = { 0 };
	struct blob one = { 0 }, none = { 0 };

	host_of(&host, 30, 7);
	sched_of(&sched, "eevdf", 30, 7);
	/* A split that is only the row's own group is not stored. */
	runqlat_set_encode_host_hist(&one, &host, &sched, "eevdf");
	runqlat_set_encode_host_hist(&none, &host, NULL, "eevdf");
	assert_int_equal(one.len, none.len);
	assert_memory_equal(one.p, none.p, one.len);
	assert_int_equal(runqlat_set_add_blob(&all, one.p, one.len, NULL, NULL), 0);
	assert_int_equal(all.n, 1);
	assert_int_equal(runqlat_set_add_sched(&got, one.p, one.len, "fair"), 0);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0]->key, "fair");
	assert_int_equal(got.v[0]->hist.buckets[30], 7);
	blob_free(&one);
	blob_free(&none);
	/* One group other than the row's is kept. */
	runqlat_set_encode_host_hist(&one, &host, &sched, "scx_fifo");
	runqlat_set_free(&got);
	assert_int_equal(runqlat_set_add_sched(&got, one.p, one.len, "scx_fifo"), 0);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0]->key, "eevdf");
	blob_free(&one);
	runqlat_set_free(&sched);
	runqlat_set_free(&got);
	runqlat_set_free(&all);
}

/* Written by the encoder before issue 18 (version 1, zlib packed): a cgroup "/a" with buckets
 * 100..399 holding i % 7 + 1, count their sum, sum_ns 12345, max_ns 999; CPU "0" with buckets
 * 5 and 9 holding 3 and 4, count 8, sum_ns 700, max_ns 300. */
static const uint8_t v1_series_zlib[] = {
	0x7f, 0xf3, 0x04, 0x48, 0x0d, 0x63, 0x64, 0x62, 0x64, 0xd2, 0x4f, 0x5c, 0xcb, 0xb9, 0x33, 0xe1,
	0x39, 0xfb, 0x1a, 0xa6, 0x14, 0x46, 0x06, 0x26, 0x06, 0x66, 0x06, 0x16, 0x06, 0x56, 0x06, 0x36,
	0x06, 0x76, 0x86, 0x51, 0xde, 0x68, 0x48, 0x50, 0x25, 0x15, 0x30, 0x31, 0x1a, 0x70, 0xec, 0x61,
	0x5d, 0xc3, 0xc4, 0xc4, 0xca, 0xcc, 0xcc, 0x02, 0x00, 0x5f, 0x8c, 0x0a, 0xce,
};

static void test_runqlat_set_reads_blob_written_before_issue_18(void **state)
{
	struct runqlat_set s = { 0 };
	uint64_t total = 0;

	(void)state;
	assert_int_equal(v1_series_zlib[0], BLOB_PACKED);
	assert_int_equal(runqlat_set_add_blob(&s, v1_series_zlib, sizeof(v1_series_zlib), NULL, NULL), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0]->key, "/a");
	assert_int_equal(s.v[0]->kind, RUNQLAT_CGROUP);
	for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
		uint64_t want = i >= 100 && i < 400 ? (i - 100) % 7 + 1 : 0;

		assert_int_equal(s.v[0]->hist.buckets[i], want);
		total += want;
	}
	assert_int_equal(s.v[0]->hist.count, total);
	assert_int_equal(s.v[0]->hist.sum_ns, 12345);
	assert_int_equal(s.v[0]->hist.max_ns, 999);
	assert_string_equal(s.v[1]->key, "0");
	assert_int_equal(s.v[1]->kind, RUNQLAT_CPU);
	assert_int_equal(s.v[1]->hist.buckets[5], 3);
	assert_int_equal(s.v[1]->hist.buckets[9], 4);
	assert_int_equal(hist_total(s.v[1]->hist.buckets), 7);
	assert_int_equal(s.v[1]->hist.count, 8);
	assert_int_equal(s.v[1]->hist.sum_ns, 700);
	assert_int_equal(s.v[1]->hist.max_ns, 300);
	runqlat_set_free(&s);
}

/* The count is stored as its difference to the buckets' total: any count comes back, not just their sum. */
static void check_count_blob(const struct blob *b, uint64_t count, const uint16_t *idx, const uint64_t *cnt)
{
	struct runqlat_set s = { 0 };

	assert_int_equal(runqlat_set_add_blob(&s, b->p, b->len, NULL, NULL), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.v[0]->hist.count == count);
	assert_int_equal(s.v[0]->hist.sum_ns, 5);
	assert_int_equal(s.v[0]->hist.max_ns, 6);
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(s.v[0]->hist.buckets[idx[k]], cnt[k]);
	assert_int_equal(hist_total(s.v[0]->hist.buckets), 7);
	runqlat_set_free(&s);
}

static void test_runqlat_set_count_apart_from_bucket_total_round_trips(void **state)
{
	static const uint64_t counts[] = { 0, 1, 6, 7, 8, UINT64_MAX };
	static const uint16_t idx[] = { 0, 1, 2, 40, HIST_BUCKETS - 1 };
	static const uint64_t cnt[] = { 1, 0, 2, 3, 1 }; /* total 7; a zero count inside a run is kept */

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct blob b = { 0 };

		runqlat_set_encode_begin(&b, 1);
		runqlat_set_encode_series(&b, RUNQLAT_CPU, "1", 1, counts[i], 5, 6, idx, cnt, 5);
		/* complete as written (version 2), and again once laid out for packing (version 3) */
		assert_int_equal(b.p[0], 2);
		check_count_blob(&b, counts[i], idx, cnt);
		assert_int_equal(blob_pack(&b), 0);
		assert_int_equal(b.p[0], 3);
		check_count_blob(&b, counts[i], idx, cnt);
		blob_free(&b);
	}
}

/* A report's series blob as ingest writes it (22 histograms of 60 neighbouring buckets, counts
 * 1..20) comes back exactly and packs near the counts' entropy (1320 counts of log2(20) bits: 713 B). */
static void test_runqlat_set_streamed_report_packs_near_entropy(void **state)
{
	uint16_t idx[22][60];
	uint64_t cnt[22][60], x = 12345;
	struct runqlat_set s = { 0 };
	struct blob b = { 0 };
	char key[32];

	(void)state;
	runqlat_set_encode_begin(&b, 22);
	for (int k = 0; k < 22; k++) {
		uint64_t total = 0, start;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		start = 80 + (x >> 33) % 40;
		for (int i = 0; i < 60; i++) {
			idx[k][i] = (uint16_t)(start + (uint64_t)i);
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			cnt[k][i] = 1 + (x >> 33) % 20;
			total += cnt[k][i];
		}
		snprintf(key, sizeof(key), "/system.slice/svc%d", k);
		runqlat_set_encode_series(&b, RUNQLAT_CGROUP, key, strlen(key), total, total * 50000, 4000000, idx[k],
					  cnt[k], 60);
	}
	assert_int_equal(blob_pack(&b), 0);
	assert_int_equal(b.p[0], BLOB_PACKED_ZSTD);
	assert_true(b.len < 1100);
	assert_int_equal(runqlat_set_add_blob(&s, b.p, b.len, NULL, NULL), 0);
	assert_int_equal(s.n, 22);
	for (int k = 0; k < 22; k++) {
		uint64_t total = 0;

		for (int i = 0; i < 60; i++) {
			assert_int_equal(s.v[k]->hist.buckets[idx[k][i]], cnt[k][i]);
			total += cnt[k][i];
		}
		assert_int_equal(hist_total(s.v[k]->hist.buckets), total);
		assert_int_equal(s.v[k]->hist.count, total);
		assert_int_equal(s.v[k]->hist.sum_ns, total * 50000);
	}
	blob_free(&b);
	runqlat_set_free(&s);
}

/* Version 3 (as packed): runs past the last bucket, a trailer past the end, bytes left over are all refused. */
static void test_runqlat_set_refuses_bad_runs_and_sections(void **state)
{
	/* version 3, 1 series, cgroup "/", count +0, sum 5, max 9, 2 buckets: run at 526 of 2, counts 1 1 */
	uint8_t buf[] = { 3, 1, RUNQLAT_CGROUP, 1, '/', 0, 5, 9, 2, 0x8e, 0x04, 2, 1, 1, 12, 0, 0, 0 };
	struct runqlat_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), 0);
	assert_int_equal(h.hist.buckets[HIST_BUCKETS - 2] + h.hist.buckets[HIST_BUCKETS - 1], 2);
	assert_int_equal(h.hist.count, 2);
	buf[9] = 0x8f; /* the run starts at 527: its second bucket is past the last */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), -EINVAL);
	buf[9] = 0x8e;
	buf[11] = 0; /* a run of no buckets */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), -EINVAL);
	buf[11] = 3; /* a run longer than the buckets said */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), -EINVAL);
	buf[11] = 2;
	buf[14] = 40; /* the trailer points past the end */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), -EINVAL);
	buf[14] = 11; /* the counts section starts inside the series: the run is cut short */
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), -EINVAL);
	buf[14] = 12;
	buf[8] = 1; /* one bucket in a run of one: the second count is left over */
	buf[11] = 1;
	assert_int_equal(runqlat_hist_add_blob(&h, buf, sizeof(buf), NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqlat_set_round_trips_exactly),
		cmocka_unit_test(test_runqlat_set_merges_by_adding_buckets),
		cmocka_unit_test(test_runqlat_set_refuses_corrupt_blobs),
		cmocka_unit_test(test_runqlat_set_bucket_varints_at_their_limits),
		cmocka_unit_test(test_runqlat_set_sched_split_from_blob),
		cmocka_unit_test(test_runqlat_set_sched_split_falls_back_to_row_group),
		cmocka_unit_test(test_runqlat_set_reads_blob_written_before_issue_18),
		cmocka_unit_test(test_runqlat_set_count_apart_from_bucket_total_round_trips),
		cmocka_unit_test(test_runqlat_set_streamed_report_packs_near_entropy),
		cmocka_unit_test(test_runqlat_set_refuses_bad_runs_and_sections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
