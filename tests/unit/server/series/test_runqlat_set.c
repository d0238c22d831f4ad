/* test_runqlat_set.c - the stored histogram encoding (server/series/runqlat_set.c):
 * round trips exactly, merges by adding buckets, refuses corrupt blobs, and
 * keeps a host's split by scheduler apart from its whole-host series. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqlat_set_round_trips_exactly),
		cmocka_unit_test(test_runqlat_set_merges_by_adding_buckets),
		cmocka_unit_test(test_runqlat_set_refuses_corrupt_blobs),
		cmocka_unit_test(test_runqlat_set_bucket_varints_at_their_limits),
		cmocka_unit_test(test_runqlat_set_sched_split_from_blob),
		cmocka_unit_test(test_runqlat_set_sched_split_falls_back_to_row_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
