/* test_runqlat_report.c - agent/runqlat/runqlat_report.c: percentiles read from the
 * BPF histogram layout agree with percentiles of the raw waits within the
 * layout's 6.25%, and the JSON entry carries what the report contract says
 * (count, sum_ns, max_ns, sparse [index, count] buckets, p50..p999).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "agent/runqlat/runqlat_report.h"

/* What the BPF program does per event (bpf/runqlat.bpf.c hist_add). */
static void bpf_add(struct runqlat_hist *h, uint64_t v)
{
	h->buckets[hist_index(v)]++;
	h->count++;
	h->sum_ns += v;
	if (v > h->max_ns)
		h->max_ns = v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t raw_quantile(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	return sorted[rank ? rank - 1 : 0];
}

static void check_percentiles(uint64_t *vals, size_t n)
{
	static const struct {
		const char *name;
		double q;
	} pct[] = { { "p50_ns", 0.5 }, { "p90_ns", 0.9 }, { "p99_ns", 0.99 }, { "p999_ns", 0.999 } };
	struct runqlat_hist *h = calloc(1, sizeof(*h));
	struct hist *s = calloc(1, sizeof(*s));
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < n; i++)
		bpf_add(h, vals[i]);
	runqlat_summary_add(s, h);
	assert_int_equal(runqlat_summary_to_json(s, o), 0);
	qsort(vals, n, sizeof(vals[0]), cmp_u64);
	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		double truth = (double)raw_quantile(vals, n, pct[k].q);
		double got = cJSON_GetObjectItem(o, pct[k].name)->valuedouble;

		if (fabs(got - truth) > 0.0625 * truth)
			fail_msg("%s: %.0f from buckets, %.0f from raw values", pct[k].name, got, truth);
	}
	cJSON_Delete(o);
	free(s);
	free(h);
}

static void test_runqlat_percentiles_within_layout_error(void **state)
{
	size_t n = 100000;
	uint64_t *vals = malloc(n * sizeof(*vals));

	srand(7);
	/* Runqueue-like: a few microseconds, 2% tail of milliseconds. */
	for (size_t i = 0; i < n; i++)
		vals[i] = 1500 + (uint64_t)(rand() % 20000) + (rand() % 50 == 0 ? (uint64_t)(rand() % 30000000) : 0);
	check_percentiles(vals, n);
	/* Bimodal: idle CPUs (sub-microsecond) and an overloaded one (tens of ms). */
	for (size_t i = 0; i < n; i++)
		vals[i] = i % 3 ? 200 + (uint64_t)(rand() % 600) : 10000000 + (uint64_t)(rand() % 40000000);
	check_percentiles(vals, n);
	/* Log-uniform over the whole layout, 1 ns to ~60 s. */
	for (size_t i = 0; i < n; i++)
		vals[i] = 1 + (uint64_t)exp((double)rand() / RAND_MAX * log(6e10));
	check_percentiles(vals, n);
	free(vals);
}

static void test_runqlat_entry_is_sparse_and_complete(void **state)
{
	struct runqlat_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct hist *s = calloc(1, sizeof(*s));
	cJSON *o = cJSON_CreateObject(), *buckets, *pair;

	bpf_add(a, 5);
	bpf_add(a, 1000);
	bpf_add(b, 1000);
	bpf_add(b, 123456789);
	/* Two slots in one entry (a vanished cgroup under its ancestor) add up. */
	runqlat_summary_add(s, a);
	runqlat_summary_add(s, b);
	assert_int_equal(runqlat_summary_to_json(s, o), 0);
	assert_int_equal(cJSON_GetObjectItem(o, "count")->valuedouble, 4);
	assert_int_equal(cJSON_GetObjectItem(o, "sum_ns")->valuedouble, 5 + 1000 + 1000 + 123456789);
	assert_int_equal(cJSON_GetObjectItem(o, "max_ns")->valuedouble, 123456789);
	buckets = cJSON_GetObjectItem(o, "buckets");
	assert_int_equal(cJSON_GetArraySize(buckets), 3);
	pair = cJSON_GetArrayItem(buckets, 0);
	assert_int_equal(cJSON_GetArrayItem(pair, 0)->valueint, 5);
	assert_int_equal(cJSON_GetArrayItem(pair, 1)->valueint, 1);
	pair = cJSON_GetArrayItem(buckets, 1);
	assert_int_equal(cJSON_GetArrayItem(pair, 0)->valueint, hist_index(1000));
	assert_int_equal(cJSON_GetArrayItem(pair, 1)->valueint, 2);
	pair = cJSON_GetArrayItem(buckets, 2);
	assert_int_equal(cJSON_GetArrayItem(pair, 0)->valueint, hist_index(123456789));
	assert_true(cJSON_GetArrayItem(pair, 0)->valueint >
		    cJSON_GetArrayItem(cJSON_GetArrayItem(buckets, 1), 0)->valueint);
	assert_int_equal(cJSON_GetObjectItem(o, "p50_ns")->valuedouble, hist_bucket_value(hist_index(1000)));
	assert_non_null(cJSON_GetObjectItem(o, "p90_ns"));
	assert_non_null(cJSON_GetObjectItem(o, "p99_ns"));
	assert_non_null(cJSON_GetObjectItem(o, "p999_ns"));
	cJSON_Delete(o);
	free(s);
	free(a);
	free(b);
}

static void test_runqlat_layout_names_the_contract(void **state)
{
	cJSON *l = runqlat_layout_json();

	assert_int_equal(cJSON_GetObjectItem(l, "grouping_power")->valueint, 4);
	assert_int_equal(cJSON_GetObjectItem(l, "max_value_power")->valueint, 36);
	cJSON_Delete(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqlat_percentiles_within_layout_error),
		cmocka_unit_test(test_runqlat_entry_is_sparse_and_complete),
		cmocka_unit_test(test_runqlat_layout_names_the_contract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
