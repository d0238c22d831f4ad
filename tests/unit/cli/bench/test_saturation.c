/* test_saturation.c - cli/bench/saturation.c: the search doubles the depth
 * until two probes in a row add less than 5%, or the cap; the depth chosen
 * is twice the knee, within what was probed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/bench/saturation.h"

/* Runs the search against a disk whose rate at each depth is rate_at(depth). */
static size_t search(double (*rate_at)(unsigned), unsigned cap, struct bench_probe *p)
{
	size_t n = 0;
	unsigned d;

	while ((d = bench_saturation_next(p, n, cap, 0.05)))
		p[n++] = (struct bench_probe){ d, rate_at(d) };
	return n;
}

static double nvme(unsigned d)
{
	/* 15k per IO in flight up to the knee at 32, 128k flat beyond */
	double r = 15000.0 * d;

	return r > 128000 ? 128000 : r;
}

static double throttled(unsigned d)
{
	return d >= 2 ? 2000 : 1400;
}

static void test_search_stops_after_two_probes_without_gain(void **state)
{
	struct bench_probe p[BENCH_PROBES_MAX];
	size_t n = search(nvme, 256, p);

	/* 1 2 4 8 16 each gain (16: 128k after 120k), 32 and 64 do not */
	assert_int_equal(p[0].depth, 1);
	assert_int_equal(p[n - 1].depth, 64);
	assert_int_equal(n, 7);
	/* the knee is 16, the shallowest within 5% of the best: 32 is chosen */
	assert_int_equal(bench_saturation_choice(p, n, 0.05), 16 * 2);
}

static void test_throttled_disk_saturates_early(void **state)
{
	struct bench_probe p[BENCH_PROBES_MAX];
	size_t n = search(throttled, 256, p);

	assert_int_equal(n, 4); /* 1, 2, then 4 and 8 without gain */
	assert_int_equal(bench_saturation_choice(p, n, 0.05), 4);
}

static void test_search_respects_the_cap(void **state)
{
	struct bench_probe p[BENCH_PROBES_MAX];
	size_t n = search(nvme, 8, p);

	assert_int_equal(p[n - 1].depth, 8);
	assert_int_equal(bench_saturation_choice(p, n, 0.05), 8); /* never deeper than probed */
	assert_int_equal(bench_saturation_next(NULL, 0, 0, 0.05), 0);
	n = search(nvme, 1, p);
	assert_int_equal(n, 1);
}

static void test_one_unlucky_probe_does_not_end_the_search(void **state)
{
	struct bench_probe p[] = { { 1, 1000 }, { 2, 900 } };

	assert_int_equal(bench_saturation_next(p, 2, 256, 0.05), 4);
}

static void test_bucket_emptied_during_probes_chooses_past_the_burst_knee(void **state)
{
	/* the burst ran at 4000 at depth 2 and 4, the bucket emptied at 8 */
	struct bench_probe p[] = { { 1, 2000 }, { 2, 4000 }, { 4, 4000 }, { 8, 2000 }, { 16, 2000 } };

	assert_int_equal(bench_saturation_next(p, 5, 256, 0.05), 0);
	assert_int_equal(bench_saturation_choice(p, 5, 0.05), 4);
	assert_int_equal(bench_saturation_choice(NULL, 0, 0.05), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_stops_after_two_probes_without_gain),
		cmocka_unit_test(test_throttled_disk_saturates_early),
		cmocka_unit_test(test_search_respects_the_cap),
		cmocka_unit_test(test_one_unlucky_probe_does_not_end_the_search),
		cmocka_unit_test(test_bucket_emptied_during_probes_chooses_past_the_burst_knee),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
