/* test_compare_stats.c - server/compare/compare_stats.c on hand-made input:
 * metric names, the metric of a histogram as the runqlat API reads it, the
 * verdict at the edges of the band (arms whose hosts all agree give an
 * interval of one point, so the edges are exact), the fewer-than-5-hosts
 * rule, pairing by host id, the sentences, and the same answer for the same
 * input and seed. The statistical behaviour is test_compare_calibration.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <cmocka.h>

#include "common/hist.h"
#include "server/compare/compare_stats.h"

#define MAXH 64
/* cmocka's assert_float_equal compares floats: doubles need their own. */
#define assert_near(x, y, eps) assert_true(fabs((double)(x) - (double)(y)) <= (eps))

static const struct compare_opts opts = { .metric = COMPARE_P99, .threshold = 0.05, .resamples = 2000, .seed = 42 };

/* n hosts named prefix-i with value v[i] (or all v0 when v is NULL), 1000 samples each. */
static void hosts(struct compare_host *h, size_t n, const char *prefix, const double *v, double v0)
{
	for (size_t i = 0; i < n; i++) {
		snprintf(h[i].host_id, sizeof(h[i].host_id), "%s-%zu", prefix, i);
		h[i].value_ns = v ? v[i] : v0;
		h[i].samples = 1000;
	}
}

/* The verdict when every A host has value va and every B host vb (a one-point interval at va / vb). */
static enum compare_verdict verdict_flat(double va, double vb, double threshold, struct compare_result *res)
{
	struct compare_host a[8], b[8];
	struct compare_opts o = opts;

	o.threshold = threshold;
	hosts(a, 8, "a", NULL, va);
	hosts(b, 8, "b", NULL, vb);
	assert_int_equal(compare_run(a, 8, b, 8, &o, res), 0);
	assert_true(res->ci_low == res->ratio && res->ci_high == res->ratio);
	return res->verdict;
}

static void test_compare_metric_parse_names(void **state)
{
	static const char *names[] = { "p50", "p90", "p99", "p999", "mean" };
	enum compare_metric m;

	(void)state;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(compare_metric_parse(names[i], &m), 0);
		assert_int_equal(m, i);
		assert_string_equal(compare_metric_name(m), names[i]);
	}
	assert_int_equal(compare_metric_parse("P99", &m), -EINVAL);
	assert_int_equal(compare_metric_parse("p99 ", &m), -EINVAL);
	assert_int_equal(compare_metric_parse("p9", &m), -EINVAL);
	assert_int_equal(compare_metric_parse("", &m), -EINVAL);
	assert_int_equal(compare_metric_parse(NULL, &m), -EINVAL);
	assert_int_equal(compare_metric_parse("median", &m), -EINVAL);
}

/* Quantiles as hist_quantile (so the runqlat API's p99_ns) reads them; mean = sum / count. */
static void test_compare_metric_of_matches_runqlat_api(void **state)
{
	struct hist h = { 0 };

	(void)state;
	assert_true(isnan(compare_metric_of(&h, COMPARE_P99)));
	assert_true(isnan(compare_metric_of(&h, COMPARE_MEAN)));
	/* 980 waits of 10 us, 15 of 1 ms, 5 of 50 ms: p50 10 us, p99 1 ms, p999 50 ms (bucket middles) */
	h.buckets[hist_index(10000)] = 980;
	h.buckets[hist_index(1000000)] = 15;
	h.buckets[hist_index(50000000)] = 5;
	h.count = 1000;
	h.sum_ns = 980ULL * 10000 + 15ULL * 1000000 + 5ULL * 50000000;
	assert_true(compare_metric_of(&h, COMPARE_P50) == (double)hist_bucket_value(hist_index(10000)));
	assert_true(compare_metric_of(&h, COMPARE_P90) == (double)hist_bucket_value(hist_index(10000)));
	assert_true(compare_metric_of(&h, COMPARE_P99) == (double)hist_bucket_value(hist_index(1000000)));
	assert_true(compare_metric_of(&h, COMPARE_P999) == (double)hist_bucket_value(hist_index(50000000)));
	assert_true(compare_metric_of(&h, COMPARE_P99) == (double)hist_quantile(h.buckets, 0.99));
	/* a bucket middle is within half a bucket (<= 3.125%) of the value */
	assert_true(fabs(compare_metric_of(&h, COMPARE_P99) / 1e6 - 1) <= 0.03125);
	assert_near(compare_metric_of(&h, COMPARE_MEAN), 274800.0, 1e-9);
}

static void test_compare_verdict_band_edges(void **state)
{
	struct compare_result res;

	(void)state;
	assert_int_equal(verdict_flat(100, 100, 0.05, &res), COMPARE_NO_DIFFERENCE);
	assert_true(res.ratio == 1);
	/* the band [1 - t, 1 + t] is closed: its edges are no difference */
	assert_int_equal(verdict_flat(105, 100, 0.05, &res), COMPARE_NO_DIFFERENCE);
	assert_int_equal(verdict_flat(95, 100, 0.05, &res), COMPARE_NO_DIFFERENCE);
	assert_int_equal(verdict_flat(105.01, 100, 0.05, &res), COMPARE_WORSE);
	assert_int_equal(verdict_flat(94.99, 100, 0.05, &res), COMPARE_BETTER);
	assert_int_equal(verdict_flat(131, 100, 0.05, &res), COMPARE_WORSE);
	assert_int_equal(verdict_flat(131, 100, 0.40, &res), COMPARE_NO_DIFFERENCE);
	/* threshold 0: any difference the interval excludes is called */
	assert_int_equal(verdict_flat(100.5, 100, 0, &res), COMPARE_WORSE);
	assert_int_equal(verdict_flat(100, 100, 0, &res), COMPARE_NO_DIFFERENCE);
	assert_string_equal(res.reason, "");
}

static void test_compare_wide_interval_is_inconclusive(void **state)
{
	/* B spread from 60 to 160: an interval much wider than the band, around 1 */
	double vb[10] = { 60, 70, 80, 90, 100, 110, 120, 130, 150, 160 };
	struct compare_host a[10], b[10];
	struct compare_result res;

	(void)state;
	hosts(a, 10, "a", vb, 0);
	hosts(b, 10, "b", vb, 0);
	for (int i = 0; i < 10; i++)
		a[i].value_ns *= 1.02;
	assert_int_equal(compare_run(a, 10, b, 10, &opts, &res), 0);
	assert_int_equal(res.verdict, COMPARE_INCONCLUSIVE);
	assert_true(res.ci_low < 0.95 && res.ci_high > 1.05);
	assert_true(res.ci_low <= res.ratio && res.ratio <= res.ci_high);
	assert_near(res.ratio, 1.02, 1e-12);
	assert_non_null(strstr(res.reason, "no-difference band 0.950 to 1.050"));
	assert_non_null(strstr(res.summary, "A's p99 runqueue latency is 2% higher than B's (95% interval "));
	assert_non_null(strstr(res.summary, "): inconclusive, the 95% interval"));
}

static void test_compare_fewer_than_five_hosts_inconclusive(void **state)
{
	struct compare_host a[MAXH], b[MAXH];
	struct compare_result res;

	(void)state;
	hosts(a, 4, "a", NULL, 500);
	hosts(b, 30, "b", NULL, 100);
	assert_int_equal(compare_run(a, 4, b, 30, &opts, &res), 0);
	assert_int_equal(res.verdict, COMPARE_INCONCLUSIVE);
	assert_true(isnan(res.ratio) && isnan(res.ci_low) && isnan(res.ci_high));
	assert_int_equal(res.a_hosts, 4);
	assert_int_equal(res.b_hosts, 30);
	assert_true(res.a_value_ns == 500 && res.b_value_ns == 100);
	assert_string_equal(res.reason, "arm A has 4 hosts with samples; at least 5 are needed");
	assert_string_equal(res.summary, "A's p99 runqueue latency cannot be compared with B's: arm A has 4 hosts with "
					 "samples; at least 5 are needed.");

	/* hosts without samples or without a value do not count */
	hosts(a, 6, "a", NULL, 500);
	a[0].samples = 0;
	a[1].value_ns = NAN;
	assert_int_equal(compare_run(a, 6, b, 30, &opts, &res), 0);
	assert_int_equal(res.a_hosts, 4);
	assert_int_equal(res.a_samples, 4000);
	assert_int_equal(res.verdict, COMPARE_INCONCLUSIVE);

	/* five is enough */
	hosts(a, 5, "a", NULL, 500);
	assert_int_equal(compare_run(a, 5, b, 30, &opts, &res), 0);
	assert_int_equal(res.verdict, COMPARE_WORSE);
	assert_true(res.ratio == 5);

	/* an empty arm */
	assert_int_equal(compare_run(a, 5, NULL, 0, &opts, &res), 0);
	assert_int_equal(res.verdict, COMPARE_INCONCLUSIVE);
	assert_true(isnan(res.b_value_ns) && isnan(res.ratio));
	assert_string_equal(res.reason, "arm B has 0 hosts with samples; at least 5 are needed");
}

static void test_compare_sentences(void **state)
{
	struct compare_result res;

	(void)state;
	verdict_flat(131, 100, 0.05, &res);
	assert_string_equal(res.summary,
			    "A's p99 runqueue latency is 31% higher than B's (95% interval 31% to 31%): worse.");
	verdict_flat(76, 100, 0.05, &res);
	assert_string_equal(res.summary,
			    "A's p99 runqueue latency is 24% lower than B's (95% interval 24% to 24%): better.");
	verdict_flat(102, 100, 0.05, &res);
	assert_string_equal(res.summary, "A's p99 runqueue latency is 2% higher than B's (95% interval 2% to 2%): no "
					 "difference beyond the 5% threshold.");
	verdict_flat(100, 100, 0.05, &res);
	assert_string_equal(res.summary,
			    "A's p99 runqueue latency is about the same as B's (95% interval 0% to 0%): no "
			    "difference beyond the 5% threshold.");
	assert_string_equal(compare_verdict_name(COMPARE_BETTER), "better");
	assert_string_equal(compare_verdict_name(COMPARE_WORSE), "worse");
	assert_string_equal(compare_verdict_name(COMPARE_NO_DIFFERENCE), "no_difference");
	assert_string_equal(compare_verdict_name(COMPARE_INCONCLUSIVE), "inconclusive");
}

/* Pairs match by host id whatever the order; hosts in one window only are left out. */
static void test_compare_paired_matches_by_host(void **state)
{
	struct compare_host a[12], b[12];
	struct compare_result res;
	struct compare_opts o = opts;
	double level[10] = { 10, 400, 35, 90, 1000, 55, 20, 700, 150, 75 };

	(void)state;
	o.paired = true;
	hosts(b, 10, "h", level, 0);
	/* after: each host 10% slower, listed in reverse, plus two hosts only in A */
	for (int i = 0; i < 10; i++) {
		a[9 - i] = b[i];
		a[9 - i].value_ns = b[i].value_ns * 1.10;
	}
	hosts(a + 10, 2, "new", NULL, 1);
	assert_int_equal(compare_run(a, 12, b, 10, &o, &res), 0);
	assert_int_equal(res.pairs, 10);
	assert_int_equal(res.a_hosts, 12);
	assert_int_equal(res.b_hosts, 10);
	assert_int_equal(res.a_samples, 10000);
	/* every pair says 1.10: no host-to-host spread left in the interval */
	assert_near(res.ratio, 1.10, 1e-12);
	assert_near(res.ci_low, 1.10, 1e-12);
	assert_near(res.ci_high, 1.10, 1e-12);
	assert_int_equal(res.verdict, COMPARE_WORSE);
	assert_near(res.b_value_ns, (75 + 90) / 2.0, 1e-12);

	/* the same data unpaired: the spread between hosts swamps the 10% */
	o.paired = false;
	assert_int_equal(compare_run(a, 10, b, 10, &o, &res), 0);
	assert_int_equal(res.verdict, COMPARE_INCONCLUSIVE);

	/* four common hosts are too few */
	o.paired = true;
	assert_int_equal(compare_run(a + 6, 6, b, 10, &o, &res), 0);
	assert_int_equal(res.pairs, 4);
	assert_int_equal(res.verdict, COMPARE_INCONCLUSIVE);
	assert_string_equal(res.reason, "4 hosts reported in both windows; at least 5 are needed");
}

/* Same input and seed, same answer; the answer does not depend on the hosts' order. */
static void test_compare_same_input_same_answer(void **state)
{
	struct compare_host a[40], b[40], ra[40];
	struct compare_result r1, r2, r3;
	struct compare_opts o = opts;
	double va[40], vb[40];

	(void)state;
	for (int i = 0; i < 40; i++) {
		va[i] = 1000 + 37 * ((i * 7919) % 40);
		vb[i] = 900 + 41 * ((i * 104729) % 40);
	}
	hosts(a, 40, "a", va, 0);
	hosts(b, 40, "b", vb, 0);
	for (int i = 0; i < 40; i++)
		ra[i] = a[39 - i];
	o.seed = compare_seed("a=sched=scx_lavd&b=sched=eevdf&metric=p99");
	assert_int_equal(compare_run(a, 40, b, 40, &o, &r1), 0);
	assert_int_equal(compare_run(ra, 40, b, 40, &o, &r2), 0);
	assert_memory_equal(&r1, &r2, sizeof(r1));
	/* another seed moves the interval's ends a little, not the point */
	o.seed = compare_seed("a=sched=scx_lavd&b=sched=eevdf&metric=p90");
	assert_int_equal(compare_run(a, 40, b, 40, &o, &r3), 0);
	assert_true(r3.ratio == r1.ratio);
	assert_true(r3.ci_low != r1.ci_low || r3.ci_high != r1.ci_high);
	assert_true(fabs(r3.ci_low - r1.ci_low) < 0.05 && fabs(r3.ci_high - r1.ci_high) < 0.05);
	/* fewer resamples than the floor are raised to it: the same answer as 2000 */
	o.seed = compare_seed("a=sched=scx_lavd&b=sched=eevdf&metric=p99");
	o.resamples = 10;
	assert_int_equal(compare_run(a, 40, b, 40, &o, &r3), 0);
	assert_memory_equal(&r1, &r3, sizeof(r1));
}

static void test_compare_seed_is_fnv1a(void **state)
{
	(void)state;
	assert_true(compare_seed("") == 0xcbf29ce484222325ULL);
	assert_true(compare_seed("a") == 0xaf63dc4c8601ec8cULL);
	assert_true(compare_seed("foobar") == 0x85944171f73967e8ULL);
	assert_true(compare_seed("a=x") != compare_seed("a=y"));
}

static void test_compare_refuses_bad_arguments(void **state)
{
	struct compare_host a[5];
	struct compare_result res;
	struct compare_opts o = opts;

	(void)state;
	hosts(a, 5, "a", NULL, 1);
	assert_int_equal(compare_run(a, 5, a, 5, NULL, &res), -EINVAL);
	assert_int_equal(compare_run(a, 5, a, 5, &o, NULL), -EINVAL);
	assert_int_equal(compare_run(NULL, 5, a, 5, &o, &res), -EINVAL);
	o.threshold = 1;
	assert_int_equal(compare_run(a, 5, a, 5, &o, &res), -EINVAL);
	o.threshold = -0.01;
	assert_int_equal(compare_run(a, 5, a, 5, &o, &res), -EINVAL);
	o.threshold = NAN;
	assert_int_equal(compare_run(a, 5, a, 5, &o, &res), -EINVAL);
	/* values of 0 ns (bucket 0) count as 1 ns: ratios stay finite */
	o.threshold = 0.05;
	hosts(a, 5, "a", NULL, 0);
	assert_int_equal(compare_run(a, 5, a, 5, &o, &res), 0);
	assert_true(res.ratio == 1 && res.verdict == COMPARE_NO_DIFFERENCE);
	assert_non_null(strstr(compare_method(&o), "median(A) / median(B)"));
	o.paired = true;
	assert_non_null(strstr(compare_method(&o), "pairs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_metric_parse_names),
		cmocka_unit_test(test_compare_metric_of_matches_runqlat_api),
		cmocka_unit_test(test_compare_verdict_band_edges),
		cmocka_unit_test(test_compare_wide_interval_is_inconclusive),
		cmocka_unit_test(test_compare_fewer_than_five_hosts_inconclusive),
		cmocka_unit_test(test_compare_sentences),
		cmocka_unit_test(test_compare_paired_matches_by_host),
		cmocka_unit_test(test_compare_same_input_same_answer),
		cmocka_unit_test(test_compare_seed_is_fnv1a),
		cmocka_unit_test(test_compare_refuses_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
