/* test_hist.c - the shared histogram layout (bpf/hist.h, common/hist.c):
 * the index formula of the contract, bucket bounds that round-trip, and
 * quantiles within the layout's 6.25% of quantiles of the raw values, and
 * merging.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "common/hist.h"

/* The contract's formula, written out independently of hist_index(). */
static uint32_t contract_index(uint64_t v)
{
	const unsigned g = 4, n = 36;
	unsigned h = 0;

	if (v < (1ull << (g + 1)))
		return (uint32_t)v;
	if (v >= (1ull << n))
		return HIST_BUCKETS - 1;
	while ((v >> (h + 1)) != 0)
		h++;
	return (uint32_t)((h - g + 1) * (1u << g) + ((v >> (h - g)) - (1u << g)));
}

static void test_hist_index_matches_contract(void **state)
{
	uint64_t x = 88172645463325252ull;

	assert_int_equal(HIST_BUCKETS, 528);
	for (uint64_t v = 0; v < 100000; v++)
		assert_int_equal(hist_index(v), contract_index(v));
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t v = x >> (x & 63);
		assert_int_equal(hist_index(v), contract_index(v));
	}
	assert_int_equal(hist_index((1ull << 36) - 1), HIST_BUCKETS - 1);
	assert_int_equal(hist_index(1ull << 36), HIST_BUCKETS - 1);
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_hist_bucket_bounds_round_trip(void **state)
{
	for (uint32_t i = 0; i < HIST_BUCKETS - 1; i++) {
		uint64_t lo = hist_bucket_lower(i), hi = hist_bucket_upper(i);

		assert_int_equal(hist_index(lo), i);
		assert_int_equal(hist_index(hi), i);
		assert_int_equal(hist_bucket_lower(i + 1), hi + 1);
		/* width at most 2^-g of the lower bound: the 6.25% promise */
		assert_true(lo < 32 ? hi == lo : (double)(hi - lo + 1) <= lo / 16.0);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_quantiles(uint64_t *vals, size_t n)
{
	static const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	uint64_t *buckets = calloc(HIST_BUCKETS, sizeof(uint64_t));

	for (size_t i = 0; i < n; i++)
		buckets[hist_index(vals[i])]++;
	qsort(vals, n, sizeof(vals[0]), cmp_u64);
	assert_int_equal(hist_total(buckets), n);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)ceil(qs[k] * (double)n);
		uint64_t truth = vals[rank ? rank - 1 : 0], got = hist_quantile(buckets, qs[k]);

		assert_true(fabs((double)got - (double)truth) <= 0.0625 * (double)truth);
	}
	free(buckets);
}

static void test_hist_quantiles_within_layout_error(void **state)
{
	size_t n = 200000;
	uint64_t *vals = malloc(n * sizeof(uint64_t));

	srand(42);
	/* Log-uniform from 1 ns to ~68 s: every group of the layout is used. */
	for (size_t i = 0; i < n; i++)
		vals[i] = (uint64_t)exp((double)rand() / RAND_MAX * log(6.8e10));
	check_quantiles(vals, n);
	/* Runqueue-like: mostly a few microseconds, a long tail of milliseconds. */
	for (size_t i = 0; i < n; i++)
		vals[i] = 2000 + (uint64_t)(rand() % 8000) + (rand() % 100 == 0 ? (uint64_t)(rand() % 20000000) : 0);
	check_quantiles(vals, n);
	free(vals);
}

static void test_hist_quantile_of_empty_is_zero(void **state)
{
	uint64_t *buckets = calloc(HIST_BUCKETS, sizeof(uint64_t));

	assert_int_equal(hist_quantile(buckets, 0.99), 0);
	free(buckets);
}

static void test_hist_merge_adds_and_keeps_larger_max(void **state)
{
	struct hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	(void)state;
	a->count = 3, a->sum_ns = 300, a->max_ns = 150;
	a->buckets[10] = 2, a->buckets[HIST_BUCKETS - 1] = 1;
	b->count = 4, b->sum_ns = 40, b->max_ns = 20;
	b->buckets[10] = 1, b->buckets[20] = 3;
	hist_merge(a, b);
	assert_int_equal(a->count, 7);
	assert_int_equal(a->sum_ns, 340);
	assert_int_equal(a->max_ns, 150);
	assert_int_equal(a->buckets[10], 3);
	assert_int_equal(a->buckets[20], 3);
	assert_int_equal(a->buckets[HIST_BUCKETS - 1], 1);
	assert_int_equal(hist_total(a->buckets), 7);
	b->max_ns = 1000;
	hist_merge(a, b);
	assert_int_equal(a->max_ns, 1000);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_index_matches_contract),
		cmocka_unit_test(test_hist_bucket_bounds_round_trip),
		cmocka_unit_test(test_hist_quantiles_within_layout_error),
		cmocka_unit_test(test_hist_quantile_of_empty_is_zero),
		cmocka_unit_test(test_hist_merge_adds_and_keeps_larger_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
