/* test_runqlat_counters.c - the runqueue latency histograms /metrics exports
 * (server/ingest/runqlat_counters.c): every layout bucket folds into the
 * first bound at or above the value it stands for; reports add up exactly,
 * per host and for the fleet, as cumulative Prometheus buckets whose +Inf
 * equals _count; nothing ever goes down as reports come in; per-host series
 * only when asked for and only for hosts heard from since the given time; a
 * corrupt blob adds nothing. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/ingest/runqlat_counters.h"
#include "server/series/runqlat_set.h"

struct text {
	char s[65536];
	size_t n;
};

static void collect(void *arg, const char *text, size_t len)
{
	struct text *t = arg;

	assert_true(t->n + len < sizeof(t->s));
	memcpy(t->s + t->n, text, len);
	t->n += len;
	t->s[t->n] = '\0';
}

static const char *output(struct text *t, bool per_host, int64_t since_ms)
{
	t->n = 0;
	t->s[0] = '\0';
	assert_int_equal(runqlat_counters_write(collect, t, per_host, since_ms), 0);
	return t->s;
}

/* A host_hist blob of one RUNQLAT_HOST series: cnt[i] samples of value_ns[i] each. */
static void report_blob(struct blob *b, const uint64_t *value_ns, const uint64_t *cnt, size_t n)
{
	uint16_t idx[8];
	uint64_t c[8], count = 0, sum = 0;

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) { /* ascending values give ascending indexes */
		idx[i] = (uint16_t)hist_index(value_ns[i]);
		c[i] = cnt[i];
		count += cnt[i];
		sum += cnt[i] * value_ns[i];
	}
	memset(b, 0, sizeof(*b));
	runqlat_set_encode_begin(b, 1);
	runqlat_set_encode_series(b, RUNQLAT_HOST, "", 0, count, sum, value_ns[n - 1], idx, c, n);
	assert_false(b->oom);
}

static void add(const char *id, const char *hostname, int64_t end_ms, const uint64_t *value_ns, const uint64_t *cnt,
		size_t n)
{
	struct blob b;

	report_blob(&b, value_ns, cnt, n);
	assert_int_equal(runqlat_counters_add(id, hostname, end_ms, b.p, b.len), 0);
	blob_free(&b);
}

/* The value of the sample line that starts with prefix; fails when there is none. */
static double sample(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0 && p[strlen(prefix)] == ' ')
			return strtod(p + strlen(prefix) + 1, NULL);
	fail_msg("no sample %s in:\n%s", prefix, text);
	return -1;
}

static int occurrences(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_runqlat_counters_fold_to_first_bound_at_or_above_the_value(void **state)
{
	uint64_t one[HIST_BUCKETS], out[RUNQLAT_COUNTERS_BOUNDS + 1];

	(void)state;
	for (uint32_t idx = 0; idx < HIST_BUCKETS; idx++) {
		double v = (double)hist_bucket_value(idx) / 1e9;
		size_t got = RUNQLAT_COUNTERS_BOUNDS + 1;

		memset(one, 0, sizeof(one));
		one[idx] = 3;
		runqlat_counters_fold(one, out);
		for (size_t i = 0; i <= RUNQLAT_COUNTERS_BOUNDS; i++) {
			if (out[i]) {
				assert_int_equal(out[i], 3);
				assert_int_equal(got, RUNQLAT_COUNTERS_BOUNDS + 1); /* only one bucket gets it */
				got = i;
			}
		}
		if (got < RUNQLAT_COUNTERS_BOUNDS)
			assert_true(v <= runqlat_counters_le[got]);
		if (got > 0)
			assert_true(v > runqlat_counters_le[got - 1]);
	}
	/* Three known values: 500 ns under 1 us, 3 us under 5 us, 10 s above 2.5 s. */
	memset(one, 0, sizeof(one));
	one[hist_index(500)] = 1;
	one[hist_index(3000)] = 2;
	one[hist_index(10000000000ULL)] = 4;
	runqlat_counters_fold(one, out);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[2], 2);
	assert_int_equal(out[RUNQLAT_COUNTERS_BOUNDS], 4);
}

static void test_runqlat_counters_fleet_is_zero_before_any_report(void **state)
{
	struct text t;
	const char *s;

	(void)state;
	runqlat_counters_reset();
	s = output(&t, true, 0);
	assert_non_null(strstr(s, "# TYPE schedio_fleet_runqlat_seconds histogram\n"));
	assert_non_null(strstr(s, "schedio_fleet_runqlat_seconds_bucket{le=\"1e-06\"} 0\n"));
	assert_non_null(strstr(s, "schedio_fleet_runqlat_seconds_bucket{le=\"+Inf\"} 0\n"));
	assert_non_null(strstr(s, "schedio_fleet_runqlat_seconds_sum 0.000000000\n"));
	assert_non_null(strstr(s, "schedio_fleet_runqlat_seconds_count 0\n"));
	assert_non_null(strstr(s, "# TYPE schedio_runqlat_seconds histogram\n"));
	assert_null(strstr(s, "schedio_runqlat_seconds_bucket"));
	assert_null(strstr(output(&t, false, 0), "schedio_runqlat_seconds"));
}

static void test_runqlat_counters_sum_reports_exactly(void **state)
{
	static const uint64_t v1[] = { 500, 3000, 2000000 }, c1[] = { 10, 5, 1 };
	static const uint64_t v2[] = { 3000, 10000000000ULL }, c2[] = { 7, 2 };
	struct text t;
	const char *s;

	(void)state;
	runqlat_counters_reset();
	add("a", "a.example", 1000, v1, c1, 3);
	add("a", "a.example", 2000, v2, c2, 2);
	add("b\"q", "b\\host", 1500, v1, c1, 3);
	s = output(&t, true, 0);
	/* Host a: 10 at 500 ns, 12 at 3 us, 1 at 2 ms, 2 at 10 s. */
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"1e-06\"}") == 10);
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"2.5e-06\"}") == 10);
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"5e-06\"}") == 22);
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"0.001\"}") == 22);
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"0.0025\"}") == 23);
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"2.5\"}") == 23);
	assert_true(sample(s, "schedio_runqlat_seconds_bucket{host=\"a.example\",id=\"a\",le=\"+Inf\"}") == 25);
	assert_true(sample(s, "schedio_runqlat_seconds_count{host=\"a.example\",id=\"a\"}") == 25);
	/* The sum is exact to the nanosecond: 5000 + 15000 + 2000000 + 21000 + 20000000000 ns. */
	assert_non_null(strstr(s, "schedio_runqlat_seconds_sum{host=\"a.example\",id=\"a\"} 20.002041000\n"));
	/* Label values escaped. */
	assert_true(sample(s, "schedio_runqlat_seconds_count{host=\"b\\\\host\",id=\"b\\\"q\"}") == 16);
	/* The fleet is the two hosts added. */
	assert_true(sample(s, "schedio_fleet_runqlat_seconds_bucket{le=\"5e-06\"}") == 22 + 15);
	assert_true(sample(s, "schedio_fleet_runqlat_seconds_bucket{le=\"+Inf\"}") == 41);
	assert_true(sample(s, "schedio_fleet_runqlat_seconds_count") == 41);
	assert_non_null(strstr(s, "schedio_fleet_runqlat_seconds_sum 20.004061000\n"));
	/* Hosts sorted by id, HELP and TYPE once. */
	assert_true(strstr(s, "id=\"a\"") < strstr(s, "id=\"b\\\"q\""));
	assert_int_equal(occurrences(s, "# TYPE schedio_runqlat_seconds histogram\n"), 1);
	assert_int_equal(occurrences(s, "# HELP schedio_runqlat_seconds "), 1);
}

static void test_runqlat_counters_never_go_down(void **state)
{
	static const uint64_t lo[] = { 2000 }, one[] = { 100 };
	static const uint64_t hi[] = { 40000000 }, few[] = { 3 };
	struct text before, after;
	const char *names[] = { "le=\"1e-06\"}", "le=\"2.5e-06\"}", "le=\"0.05\"}", "le=\"+Inf\"}" };

	(void)state;
	runqlat_counters_reset();
	add("h", "h", 10, lo, one, 1);
	output(&before, true, 0);
	/* A report of a few slow samples, as the latest report, would have shown fewer counts. */
	add("h", "h", 20, hi, few, 1);
	output(&after, true, 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char host[128], fleet[128];

		snprintf(host, sizeof(host), "schedio_runqlat_seconds_bucket{host=\"h\",id=\"h\",%s", names[i]);
		snprintf(fleet, sizeof(fleet), "schedio_fleet_runqlat_seconds_bucket{%s", names[i]);
		assert_true(sample(after.s, host) >= sample(before.s, host));
		assert_true(sample(after.s, fleet) >= sample(before.s, fleet));
	}
	assert_true(sample(after.s, "schedio_runqlat_seconds_count{host=\"h\",id=\"h\"}") == 103);
}

static void test_runqlat_counters_per_host_only_when_recent(void **state)
{
	static const uint64_t v[] = { 1000 }, c[] = { 1 };
	struct text t;
	const char *s;

	(void)state;
	runqlat_counters_reset();
	add("old", "old", 1000, v, c, 1);
	add("new", "new-name", 5000, v, c, 1);
	add("new", "stale-name", 4000, v, c, 1); /* replayed late: counts, keeps the newer name */
	s = output(&t, true, 3000);
	assert_null(strstr(s, "id=\"old\""));
	assert_true(sample(s, "schedio_runqlat_seconds_count{host=\"new-name\",id=\"new\"}") == 2);
	assert_null(strstr(s, "stale-name"));
	assert_true(sample(s, "schedio_fleet_runqlat_seconds_count") == 3);
}

static void test_runqlat_counters_corrupt_blob_adds_nothing(void **state)
{
	static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0x01, 0x02 };
	struct text t;

	(void)state;
	runqlat_counters_reset();
	assert_int_equal(runqlat_counters_add("x", "x", 1, junk, sizeof(junk)), -EINVAL);
	assert_true(sample(output(&t, true, 0), "schedio_fleet_runqlat_seconds_count") == 0);
	assert_null(strstr(t.s, "id=\"x\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqlat_counters_fold_to_first_bound_at_or_above_the_value),
		cmocka_unit_test(test_runqlat_counters_fleet_is_zero_before_any_report),
		cmocka_unit_test(test_runqlat_counters_sum_reports_exactly),
		cmocka_unit_test(test_runqlat_counters_never_go_down),
		cmocka_unit_test(test_runqlat_counters_per_host_only_when_recent),
		cmocka_unit_test(test_runqlat_counters_corrupt_blob_adds_nothing),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	runqlat_counters_reset();
	return rc;
}
