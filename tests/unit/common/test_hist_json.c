/* test_hist_json.c - the JSON form of a histogram (common/hist_json.c): only
 * non-zero buckets, as [index, count] in index order, the exact bytes the
 * agent's reports and the server's answers have always carried.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/hist_json.h"

static char *print(const cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	assert_non_null(s);
	return s;
}

static void test_hist_json_buckets_sparse_in_index_order(void **state)
{
	uint64_t *b = calloc(HIST_BUCKETS, sizeof(*b));
	cJSON *arr;
	char *s;

	(void)state;
	b[HIST_BUCKETS - 1] = 7;
	b[0] = 1;
	b[100] = 123456789012ull;
	arr = hist_json_buckets(b);
	s = print(arr);
	assert_string_equal(s, "[[0,1],[100,123456789012],[527,7]]");
	free(s);
	cJSON_Delete(arr);
	free(b);
}

static void test_hist_json_empty_histogram_has_empty_buckets(void **state)
{
	uint64_t *b = calloc(HIST_BUCKETS, sizeof(*b));
	cJSON *o = cJSON_CreateObject();
	char *s;

	(void)state;
	assert_int_equal(hist_json_add_buckets(o, b), 0);
	assert_int_equal(hist_json_add_quantiles(o, b), 0);
	s = print(o);
	assert_string_equal(s, "{\"buckets\":[],\"p50_ns\":0,\"p90_ns\":0,\"p99_ns\":0,\"p999_ns\":0}");
	free(s);
	cJSON_Delete(o);
	free(b);
}

static void test_hist_json_quantiles_are_bucket_middles(void **state)
{
	uint64_t *b = calloc(HIST_BUCKETS, sizeof(*b));
	cJSON *o = cJSON_CreateObject();
	uint32_t lo = hist_index(1000), hi = hist_index(1000000);

	(void)state;
	b[lo] = 99;
	b[hi] = 1;
	assert_int_equal(hist_json_add_quantiles(o, b), 0);
	assert_int_equal((uint64_t)cJSON_GetObjectItem(o, "p50_ns")->valuedouble, hist_bucket_value(lo));
	assert_int_equal((uint64_t)cJSON_GetObjectItem(o, "p99_ns")->valuedouble, hist_bucket_value(lo));
	assert_int_equal((uint64_t)cJSON_GetObjectItem(o, "p999_ns")->valuedouble, hist_bucket_value(hi));
	cJSON_Delete(o);
	free(b);
}

/* The sparse form read back densely is the histogram written. */
static void test_hist_json_buckets_round_trip(void **state)
{
	uint64_t *b = calloc(HIST_BUCKETS, sizeof(*b)), *back = calloc(HIST_BUCKETS, sizeof(*back));
	const cJSON *pair;
	cJSON *arr;
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (int i = 0; i < 60; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[x % HIST_BUCKETS] += x >> 40;
	}
	arr = hist_json_buckets(b);
	assert_non_null(arr);
	cJSON_ArrayForEach(pair, arr)
	{
		uint32_t idx = (uint32_t)cJSON_GetArrayItem(pair, 0)->valuedouble;

		assert_int_equal(cJSON_GetArraySize(pair), 2);
		assert_int_not_equal(cJSON_GetArrayItem(pair, 1)->valuedouble, 0);
		back[idx] = (uint64_t)cJSON_GetArrayItem(pair, 1)->valuedouble;
	}
	assert_memory_equal(b, back, HIST_BUCKETS * sizeof(*b));
	cJSON_Delete(arr);
	free(b);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_json_buckets_sparse_in_index_order),
		cmocka_unit_test(test_hist_json_empty_histogram_has_empty_buckets),
		cmocka_unit_test(test_hist_json_quantiles_are_bucket_middles),
		cmocka_unit_test(test_hist_json_buckets_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
