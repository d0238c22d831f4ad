/* test_iocost_set.c - the stored iocost encoding (server/series/iocost_set.c):
 * every field's samples and sum round trip exactly (decimal exponents,
 * negatives, the int64 limits, sums without samples), rows merge by adding,
 * corrupt blobs are refused, and blobs written before issue 18 (version 1)
 * still read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/series/iocost_set.h"

/* Written by the encoder before issue 18 (version 1): disk 8:0 with vrate 95000 (1 sample),
 * cgroup /w.slice on it with weight 200000 (2 samples), usage -1500 and wait_us 4321 (1 each). */
static const uint8_t v1_iocost[] = {
	0x01, 0x02, 0x00, 0x03, 0x38, 0x3a, 0x30, 0x00, 0x01, 0xb0, 0xcc, 0x0b, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x38, 0x3a,
	0x30, 0x08, 0x2f, 0x77, 0x2e, 0x73, 0x6c, 0x69, 0x63, 0x65, 0x02, 0x80, 0xb5, 0x18,
	0x00, 0x00, 0x00, 0x00, 0x01, 0xb7, 0x17, 0x01, 0xc2, 0x43, 0x00, 0x00, 0x00, 0x00,
};

static void test_iocost_set_reads_blob_written_before_issue_18(void **state)
{
	struct iocost_set s = { 0 };

	(void)state;
	assert_int_equal(iocost_set_add_blob(&s, v1_iocost, sizeof(v1_iocost)), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0]->kind, IOCOST_DISK);
	assert_string_equal(s.v[0]->dev, "8:0");
	assert_string_equal(s.v[0]->path, "");
	assert_int_equal(s.v[0]->sum[IOCOST_VRATE], 95000);
	assert_int_equal(s.v[0]->n[IOCOST_VRATE], 1);
	assert_string_equal(s.v[1]->path, "/w.slice");
	assert_int_equal(s.v[1]->sum[IOCOST_WEIGHT], 200000);
	assert_int_equal(s.v[1]->n[IOCOST_WEIGHT], 2);
	assert_int_equal(s.v[1]->sum[IOCOST_USAGE], -1500);
	assert_int_equal(s.v[1]->sum[IOCOST_WAIT_US], 4321);
	assert_int_equal(s.v[1]->n[IOCOST_HWEIGHT_ACTIVE], 0);
	iocost_set_free(&s);
}

static void add_row(struct iocost_set *s, uint8_t kind, const char *dev, const char *path, const int64_t *sum,
		    const uint64_t *n)
{
	struct iocost_row *r = iocost_set_get(s, kind, dev, strlen(dev), path, strlen(path));

	assert_non_null(r);
	memcpy(r->sum, sum, sizeof(r->sum));
	memcpy(r->n, n, sizeof(r->n));
}

static void test_iocost_set_round_trips_every_field_exactly(void **state)
{
	static const int64_t sums[][IOCOST_FIELDS] = {
		{ 100000, 12500, 12250, 23400, 4321, 7, 0 },
		{ INT64_MIN, INT64_MAX, -1000, -10, 999000, 1000000000000000000LL, -5 },
		{ 0, 0, 0, 0, 0, 0, 0 },
		{ 42, 0, 0, 0, 0, 0, 0 },
	};
	static const uint64_t ns[][IOCOST_FIELDS] = {
		{ 1, 1, 1, 1, 1, 1, 1 },
		{ 6, 5, 4, 3, 2, 1, UINT64_MAX },
		{ 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 3, 0, 0, 0, 0, 0 }, /* a sum without samples, samples without a sum */
	};
	struct iocost_set a = { 0 }, b = { 0 };
	struct blob blob = { 0 };

	(void)state;
	add_row(&a, IOCOST_DISK, "253:0", "", sums[0], ns[0]);
	add_row(&a, IOCOST_CGROUP, "253:0", "/workload0.slice", sums[1], ns[1]);
	add_row(&a, IOCOST_CGROUP, "253:16", "/x", sums[2], ns[2]);
	add_row(&a, IOCOST_CGROUP, "253:16", "/y", sums[3], ns[3]);
	iocost_set_encode(&a, &blob);
	assert_int_equal(blob_pack(&blob), 0);
	assert_false(blob.oom);
	assert_int_equal(iocost_set_add_blob(&b, blob.p, blob.len), 0);
	assert_int_equal(b.n, a.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(b.v[i]->kind, a.v[i]->kind);
		assert_string_equal(b.v[i]->dev, a.v[i]->dev);
		assert_string_equal(b.v[i]->path, a.v[i]->path);
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			assert_true(b.v[i]->sum[f] == a.v[i]->sum[f]);
			assert_true(b.v[i]->n[f] == a.v[i]->n[f]);
		}
	}
	/* merging the same blob again doubles the samples and sums of the first row */
	assert_int_equal(iocost_set_add_blob(&b, blob.p, blob.len), 0);
	assert_int_equal(b.n, a.n);
	assert_int_equal(b.v[0]->sum[IOCOST_WEIGHT], 200000);
	assert_int_equal(b.v[0]->n[IOCOST_USAGE], 2);
	blob_free(&blob);
	iocost_set_free(&a);
	iocost_set_free(&b);
}

static void test_iocost_set_refuses_corrupt_blobs(void **state)
{
	static const int64_t sum[IOCOST_FIELDS] = { 100000, 12500, 12250, 23400, 4321, 7, 0 };
	static const uint64_t n[IOCOST_FIELDS] = { 1, 1, 1, 1, 1, 1, 2 };
	struct iocost_set a = { 0 }, b = { 0 };
	struct blob blob = { 0 };

	(void)state;
	add_row(&a, IOCOST_CGROUP, "8:0", "/a", sum, n);
	iocost_set_encode(&a, &blob);
	for (size_t cut = 0; cut < blob.len; cut++)
		assert_int_not_equal(iocost_set_add_blob(&b, blob.p, cut), 0);
	blob.p[0] = 99; /* unknown version */
	assert_int_not_equal(iocost_set_add_blob(&b, blob.p, blob.len), 0);
	blob.p[0] = 2;
	blob.p[10] = 0xff; /* the mask byte with a field bit past the last */
	assert_int_equal(iocost_set_add_blob(&b, blob.p, blob.len), -EINVAL);
	blob_free(&blob);
	iocost_set_free(&a);
	iocost_set_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iocost_set_reads_blob_written_before_issue_18),
		cmocka_unit_test(test_iocost_set_round_trips_every_field_exactly),
		cmocka_unit_test(test_iocost_set_refuses_corrupt_blobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
