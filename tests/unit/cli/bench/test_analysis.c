/* test_analysis.c - cli/bench/analysis.c on synthetic series: a steady disk
 * is steady and warns of nothing (not even its first half-second ramp); a
 * token bucket's burst is named and the sustained rate is the value; a
 * sliding rate is "falling", not a burst; a jumpy one is noisy and never
 * steady; a slow bandwidth phase's IO-count jitter is not noise.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/bench/analysis.h"

#define N 120

static uint64_t seed = 42;

/* Uniform in [-1, 1], deterministic. */
static double jitter(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (double)(seed % 20001) / 10000.0 - 1;
}

static void params(struct bench_analysis_params *p)
{
	bench_analysis_defaults(p, 0.5, 1);
}

static void test_steady_disk_is_steady_and_warns_of_nothing(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	struct bench_window w;
	double r[N];
	size_t n = 40;

	params(&p);
	r[0] = 3000; /* the half-second ramp of the first probe */
	for (size_t i = 1; i < n; i++)
		r[i] = 10000 * (1 + 0.02 * jitter());
	assert_true(bench_is_steady(r, n, 8, &p, &w));
	assert_true(w.cv < 0.02);
	bench_analyse(r, n, 8, &p, &f);
	assert_false(f.burst);
	assert_false(f.falling);
	assert_false(f.noisy);
	assert_true(fabs(f.value - 10000) < 150);
}

static void test_not_steady_before_a_full_window_of_measurement(void **state)
{
	struct bench_analysis_params p;
	double r[N];

	params(&p);
	for (size_t i = 0; i < N; i++)
		r[i] = 5000;
	assert_false(bench_is_steady(r, 17, 8, &p, NULL)); /* 9 steps of 10 measured */
	assert_true(bench_is_steady(r, 18, 8, &p, NULL));
}

/* qemu's throttling.iops-read=2000, iops-read-max=4000: probes at depth 1, 2, 4, 8 (1 s
 * each), the bucket lasts 7 s in all, then the base rate. */
static size_t token_bucket(double *r)
{
	size_t n = 0;
	double probe[] = { 1500, 1500, 3000, 3000, 4000, 4000, 4000, 4000 };

	for (size_t i = 0; i < 8; i++)
		r[n++] = probe[i] * (1 + 0.01 * jitter());
	for (size_t i = 0; i < 6; i++)
		r[n++] = 4000 * (1 + 0.01 * jitter());
	for (size_t i = 0; i < 30; i++)
		r[n++] = 2000 * (1 + 0.01 * jitter());
	return n;
}

static void test_token_bucket_burst_is_named_and_the_sustained_rate_kept(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];
	size_t n = token_bucket(r);

	params(&p);
	bench_analyse(r, n, 8, &p, &f);
	assert_true(f.burst);
	assert_true(fabs(f.value - 2000) < 40);
	assert_true(fabs(f.burst_value - 4000) < 100);
	/* from the depth 2 probe on (3000, above the base already): 6 s above the base */
	assert_true(f.burst_s >= 5.5 && f.burst_s <= 6.5);
	assert_false(f.falling);
	assert_false(f.noisy);
}

static void test_window_with_the_burst_end_is_not_steady(void **state)
{
	struct bench_analysis_params p;
	double r[N];
	size_t n = token_bucket(r);

	params(&p);
	/* 10 s of measurement with the drop 3 s before the end: not steady yet */
	assert_false(bench_is_steady(r, 8 + 6 + 6, 8, &p, NULL));
	/* once 5 s are past the drop it is */
	assert_true(bench_is_steady(r, 8 + 6 + 10, 8, &p, NULL));
	(void)n;
}

static void test_sliding_rate_is_falling_not_a_burst(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];
	size_t n = 60;

	params(&p);
	for (size_t i = 0; i < n; i++)
		r[i] = (10000 - 4000.0 * (double)i / (double)n) * (1 + 0.01 * jitter());
	assert_false(bench_is_steady(r, n, 8, &p, NULL));
	bench_analyse(r, n, 8, &p, &f);
	assert_true(f.falling);
	assert_true(f.fall > 0.25 && f.fall < 0.45);
	assert_false(f.burst);
}

static void test_one_time_drop_that_flattens_is_not_falling(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];
	size_t n = 60;

	params(&p);
	for (size_t i = 0; i < n; i++)
		r[i] = (i < 30 ? 10000 - 200.0 * (double)i / 30 : 9800) * (1 + 0.005 * jitter());
	bench_analyse(r, n, 0, &p, &f);
	assert_false(f.falling);
	assert_false(f.burst);
}

static void test_jumpy_rate_is_noisy_and_never_steady(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];

	params(&p);
	for (size_t i = 0; i < N; i++)
		r[i] = 10000 * (1 + 0.35 * jitter());
	for (size_t n = 20; n <= N; n++)
		assert_false(bench_is_steady(r, n, 0, &p, NULL));
	bench_analyse(r, N, 0, &p, &f);
	assert_true(f.noisy);
}

static void test_scattered_spikes_are_not_a_burst(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];
	size_t n = 60;

	params(&p);
	for (size_t i = 0; i < n; i++)
		r[i] = 10000 * (1 + 0.02 * jitter());
	r[3] = r[11] = r[19] = r[27] = 14000; /* four lone half seconds well above */
	bench_analyse(r, n, 0, &p, &f);
	assert_false(f.burst);
}

static void test_high_start_before_a_noisy_tail_is_not_a_burst(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];
	size_t n = 60;

	params(&p);
	for (size_t i = 0; i < n; i++)
		r[i] = (i < 20 ? 14000 : 10000) * (1 + (i < 20 ? 0.02 : 0.45) * jitter());
	bench_analyse(r, n, 0, &p, &f);
	assert_true(f.noisy);
	assert_false(f.burst);
}

static void test_steep_fall_is_at_most_all_of_it(void **state)
{
	struct bench_analysis_params p;
	struct bench_findings f;
	double r[N];
	size_t n = 40;

	params(&p);
	for (size_t i = 0; i < n; i++)
		r[i] = 10000 * pow(1 - (double)i / (double)n, 3); /* a fitted line through this ends below zero */
	bench_analyse(r, n, 0, &p, &f);
	assert_true(f.falling);
	assert_true(f.fall > 0.9 && f.fall <= 1.0);
}

static void test_slow_bandwidth_count_jitter_is_steady(void **state)
{
	struct bench_analysis_params p;
	double r[N];

	/* 40 MB/s of 1 MiB IOs: 19 or 20 or 21 IOs per half second */
	bench_analysis_defaults(&p, 0.5, 1 << 20);
	for (size_t i = 0; i < 30; i++)
		r[i] = (double)(20 + (int)(i % 3) - 1) * (1 << 20) / 0.5;
	assert_true(bench_is_steady(r, 30, 0, &p, NULL));
	/* the same jitter at 4 KiB IOPS scale would be too much for a fast disk */
	bench_analysis_defaults(&p, 0.5, 1);
	for (size_t i = 0; i < 30; i++)
		r[i] = (double)(20 + 2 * ((int)(i % 3) - 1)) * 1000;
	assert_false(bench_is_steady(r, 30, 0, &p, NULL));
}

static void test_window_stats_trend_and_spread(void **state)
{
	struct bench_window w;
	double r[10];

	for (int i = 0; i < 10; i++)
		r[i] = 100 + i;
	bench_window_stats(r, 0, 10, &w);
	assert_true(fabs(w.mean - 104.5) < 1e-9);
	assert_true(fabs(w.trend - 10 / 104.5) < 1e-9); /* slope 1 per step over 10 steps */
	bench_window_stats(r, 3, 3, &w);
	assert_true(w.mean == 0 && w.cv == 0 && w.trend == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_disk_is_steady_and_warns_of_nothing),
		cmocka_unit_test(test_not_steady_before_a_full_window_of_measurement),
		cmocka_unit_test(test_token_bucket_burst_is_named_and_the_sustained_rate_kept),
		cmocka_unit_test(test_window_with_the_burst_end_is_not_steady),
		cmocka_unit_test(test_sliding_rate_is_falling_not_a_burst),
		cmocka_unit_test(test_one_time_drop_that_flattens_is_not_falling),
		cmocka_unit_test(test_jumpy_rate_is_noisy_and_never_steady),
		cmocka_unit_test(test_scattered_spikes_are_not_a_burst),
		cmocka_unit_test(test_high_start_before_a_noisy_tail_is_not_a_burst),
		cmocka_unit_test(test_steep_fall_is_at_most_all_of_it),
		cmocka_unit_test(test_slow_bandwidth_count_jitter_is_steady),
		cmocka_unit_test(test_window_stats_trend_and_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
