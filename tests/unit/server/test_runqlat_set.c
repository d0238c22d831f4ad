/* test_runqlat_set.c - the stored histogram encoding (server/runqlat_set.c):
 * round trips exactly, merges by adding buckets, and refuses corrupt blobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/runqlat_set.h"

static void fill(struct rq_set *s, const char *key, uint32_t base, uint64_t scale)
{
	struct rq_hist *h = rq_set_get(s, RQ_CGROUP, key, strlen(key));

	assert_non_null(h);
	for (uint32_t i = 0; i < 60; i++)
		h->buckets[base + i] += scale * (i + 1);
	h->count += 1830 * scale;
	h->sum_ns += 1000 * scale;
	h->max_ns = base * 100;
}

static void test_runqlat_set_round_trips_exactly(void **state)
{
	struct rq_set a = { 0 }, b = { 0 };
	struct blob blob = { 0 };

	fill(&a, "/", 10, 1);
	fill(&a, "/system.slice/x'; DROP TABLE y;--", 400, 1000000007ULL);
	rq_set_get(&a, RQ_CPU, "3", 1)->buckets[HIST_BUCKETS - 1] = UINT64_MAX / 2;
	rq_set_encode(&a, &blob);
	assert_false(blob.oom);
	/* about 2-3 bytes per non-zero bucket */
	assert_true(blob.len < 3 * 121 * 3 + 100);
	assert_int_equal(rq_set_add_blob(&b, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(b.n, a.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.v[i]->key, b.v[i]->key);
		assert_int_equal(a.v[i]->count, b.v[i]->count);
		assert_int_equal(a.v[i]->max_ns, b.v[i]->max_ns);
		assert_memory_equal(a.v[i]->buckets, b.v[i]->buckets, sizeof(a.v[i]->buckets));
	}
	blob_free(&blob);
	rq_set_free(&a);
	rq_set_free(&b);
}

static void test_runqlat_set_merges_by_adding_buckets(void **state)
{
	struct rq_set a = { 0 }, m = { 0 };
	struct blob blob = { 0 };
	struct rq_hist one = { 0 };

	fill(&a, "/a", 100, 2);
	rq_set_encode(&a, &blob);
	assert_int_equal(rq_set_add_blob(&m, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(rq_set_add_blob(&m, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(m.n, 1);
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		assert_int_equal(m.v[0]->buckets[i], 2 * a.v[0]->buckets[i]);
	assert_int_equal(m.v[0]->max_ns, a.v[0]->max_ns);
	assert_int_equal(rq_hist_add_blob(&one, blob.p, blob.len, NULL, NULL), 0);
	assert_int_equal(hist_total(one.buckets), hist_total(a.v[0]->buckets));
	blob_free(&blob);
	rq_set_free(&a);
	rq_set_free(&m);
}

static void test_runqlat_set_refuses_corrupt_blobs(void **state)
{
	struct rq_set a = { 0 }, b = { 0 };
	struct blob blob = { 0 };

	fill(&a, "/", 10, 1);
	rq_set_encode(&a, &blob);
	for (size_t cut = 0; cut < blob.len; cut++)
		assert_int_not_equal(rq_set_add_blob(&b, blob.p, cut, NULL, NULL), 0);
	blob.p[0] = 99; /* unknown version */
	assert_int_not_equal(rq_set_add_blob(&b, blob.p, blob.len, NULL, NULL), 0);
	blob_free(&blob);
	rq_set_free(&a);
	rq_set_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqlat_set_round_trips_exactly),
		cmocka_unit_test(test_runqlat_set_merges_by_adding_buckets),
		cmocka_unit_test(test_runqlat_set_refuses_corrupt_blobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
