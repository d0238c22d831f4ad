/* test_query.c - server/series/query.c: the from/to/step contract of the
 * API through its pure parsers (query_range_args, query_from_to_args):
 * defaults to the last hour at ~200 points, rejects malformed or reversed
 * bounds, rounds the step to whole buckets of the level it picks, never
 * finer than what is stored for the data's age, and caps the points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "server/series/query.h"

#define MIN_MS STORE_MINUTE_MS
#define HOUR_MS STORE_HOUR_MS
#define DAY_MS (24 * HOUR_MS)
/* A whole number of days, so the default range is aligned to any default step. */
#define NOW ((int64_t)20000 * DAY_MS)

static const int64_t retain[STORE_LEVELS] = { 2 * DAY_MS, 30 * DAY_MS, 400 * DAY_MS };

/* Parses a range at NOW with the retention above; returns query_range_args' result. */
static int parse(const char *from, const char *to, const char *step, struct query_range *qr, const char **why)
{
	struct query_args a = { .from = from, .to = to, .step = step, .now = NOW, .retain_ms = retain };

	memset(qr, 0, sizeof(*qr));
	*why = NULL;
	return query_range_args(&a, qr, why);
}

static void test_query_range_defaults_to_last_hour_at_30s(void **state)
{
	struct query_range qr;
	const char *why;

	(void)state;
	assert_int_equal(parse(NULL, NULL, NULL, &qr, &why), 0);
	assert_true(qr.to == NOW);
	assert_true(qr.from == NOW - HOUR_MS);
	/* an hour / 200 = 18 s, rounded up to the next nice step */
	assert_true(qr.step == 30000);
	assert_int_equal(qr.lv, STORE_RAW);
	assert_int_equal(qr.points, 120);

	/* empty parameters count as absent */
	assert_int_equal(parse("", "", "", &qr, &why), 0);
	assert_true(qr.from == NOW - HOUR_MS && qr.to == NOW && qr.step == 30000);
}

static void test_query_range_keeps_explicit_step_and_aligns_from(void **state)
{
	struct query_range qr;
	const char *why;
	char from[32], to[32];

	(void)state;
	snprintf(from, sizeof(from), "%lld", (long long)(NOW - 10 * MIN_MS + 1234));
	snprintf(to, sizeof(to), "%lld", (long long)(NOW - 10 * MIN_MS + 11234));
	assert_int_equal(parse(from, to, "1000", &qr, &why), 0);
	assert_true(qr.step == 1000);
	assert_int_equal(qr.lv, STORE_RAW);
	/* from is aligned down to the step; the last partial point counts */
	assert_true(qr.from == NOW - 10 * MIN_MS + 1000);
	assert_true(qr.to == NOW - 10 * MIN_MS + 11234);
	assert_int_equal(qr.points, 11);
	assert_int_equal(query_point(&qr, qr.from), 0);
	assert_int_equal(query_point(&qr, qr.from + 1999), 1);
	assert_int_equal(query_point(&qr, qr.to - 1), 10);
	assert_int_equal(query_point(&qr, qr.to), -1);
	assert_int_equal(query_point(&qr, qr.from - 1), -1);
}

static void test_query_range_rejects_malformed_numbers(void **state)
{
	const char *bad[] = { "abc", "-5", "12x", "1e3", "7 ", "99999999999999999999" };
	struct query_range qr;
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], NULL, NULL, &qr, &why), -1);
		assert_string_equal(why, "from and to must be non-negative integers (ms)");
		assert_int_equal(parse(NULL, bad[i], NULL, &qr, &why), -1);
		assert_string_equal(why, "from and to must be non-negative integers (ms)");
		assert_int_equal(parse(NULL, NULL, bad[i], &qr, &why), -1);
		assert_string_equal(why, "step must be a non-negative integer (ms)");
	}
}

static void test_query_range_rejects_to_not_after_from(void **state)
{
	struct query_range qr;
	const char *why;

	(void)state;
	assert_int_equal(parse("5000", "5000", NULL, &qr, &why), -1);
	assert_string_equal(why, "to must be after from");
	assert_int_equal(parse("6000", "5000", NULL, &qr, &why), -1);
	assert_string_equal(why, "to must be after from");
	/* to=0 leaves no room for any from */
	assert_int_equal(parse(NULL, "0", NULL, &qr, &why), -1);
	assert_string_equal(why, "to must be after from");
}

/* Parses [from, to) with step (NULL: default) and checks the level, step and
 * point count it chose. */
static void expect_range(int64_t from, int64_t to, const char *step, enum store_level lv, int64_t want_step,
			 size_t points)
{
	struct query_range qr;
	const char *why;
	char f[32], t[32];

	snprintf(f, sizeof(f), "%lld", (long long)from);
	snprintf(t, sizeof(t), "%lld", (long long)to);
	assert_int_equal(parse(f, t, step, &qr, &why), 0);
	assert_int_equal(qr.lv, lv);
	assert_true(qr.step == want_step);
	assert_int_equal(qr.points, points);
}

/* Parses [from, to) with step and checks it is refused for too many points. */
static void expect_too_many_points(int64_t from, int64_t to, const char *step)
{
	struct query_range qr;
	const char *why;
	char f[32], t[32];

	snprintf(f, sizeof(f), "%lld", (long long)from);
	snprintf(t, sizeof(t), "%lld", (long long)to);
	assert_int_equal(parse(f, t, step, &qr, &why), -1);
	assert_string_equal(why, "more than 2000 points: use a larger step");
}

static void test_query_range_picks_level_and_rounds_step_to_its_buckets(void **state)
{
	(void)state;
	expect_range(NOW - DAY_MS, NOW, "59999", STORE_RAW, 59999, 1442);
	expect_range(NOW - DAY_MS, NOW, "60000", STORE_MINUTE, MIN_MS, 1440);
	/* 90 s would straddle minute buckets: rounded up to two minutes */
	expect_range(NOW - DAY_MS, NOW, "90000", STORE_MINUTE, 2 * MIN_MS, 720);
	expect_range(NOW - DAY_MS, NOW, "5400000", STORE_HOUR, 2 * HOUR_MS, 12);
	/* step 0 means "choose": a day / 200 = 432 s, the next nice step is 10 min */
	expect_range(NOW - DAY_MS, NOW, "0", STORE_MINUTE, 10 * MIN_MS, 144);
}

static void test_query_range_never_finer_than_stored_for_the_age(void **state)
{
	const int64_t raw_end = NOW - retain[STORE_RAW], minute_end = NOW - retain[STORE_MINUTE];

	(void)state;
	/* from is older than raw retention: minute buckets at least */
	expect_range(raw_end - HOUR_MS, raw_end, "1000", STORE_MINUTE, MIN_MS, 60);
	/* from is older than minute retention: hour buckets at least */
	expect_range(minute_end - DAY_MS, minute_end, "1000", STORE_HOUR, HOUR_MS, 24);
	/* just inside raw retention: the asked step stays */
	expect_range(raw_end, raw_end + MIN_MS, "1000", STORE_RAW, 1000, 60);
}

static void test_query_range_caps_points(void **state)
{
	(void)state;
	expect_range(NOW - 1999 * 1000, NOW, "1000", STORE_RAW, 1000, 1999);
	expect_too_many_points(NOW - 2000 * 1000, NOW, "1000");
	/* the default step grows with the range up to a week ... */
	expect_range(NOW - 1000 * DAY_MS, NOW, NULL, STORE_HOUR, 7 * DAY_MS, 144);
	/* ... and no further: all 20000 days at a week per point is too many */
	expect_too_many_points(0, NOW, NULL);
}

static void test_query_from_to_defaults_and_clamps(void **state)
{
	int64_t from = -1, to = -1;
	const char *why = NULL;

	(void)state;
	assert_int_equal(query_from_to_args(NULL, NULL, NOW, &from, &to, &why), 0);
	assert_true(to == NOW && from == NOW - HOUR_MS);
	/* to alone: an hour before it, but not before the epoch */
	assert_int_equal(query_from_to_args(NULL, "90000", NOW, &from, &to, &why), 0);
	assert_true(to == 90000 && from == 0);
	assert_int_equal(query_from_to_args("100", "200", NOW, &from, &to, &why), 0);
	assert_true(from == 100 && to == 200);
	/* from alone: up to now, not aligned to anything */
	assert_int_equal(query_from_to_args("1234567", NULL, NOW, &from, &to, &why), 0);
	assert_true(from == 1234567 && to == NOW);
	assert_int_equal(query_from_to_args("x", NULL, NOW, &from, &to, &why), -1);
	assert_string_equal(why, "from and to must be non-negative integers (ms)");
	assert_int_equal(query_from_to_args("200", "100", NOW, &from, &to, &why), -1);
	assert_string_equal(why, "to must be after from");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_range_defaults_to_last_hour_at_30s),
		cmocka_unit_test(test_query_range_keeps_explicit_step_and_aligns_from),
		cmocka_unit_test(test_query_range_rejects_malformed_numbers),
		cmocka_unit_test(test_query_range_rejects_to_not_after_from),
		cmocka_unit_test(test_query_range_picks_level_and_rounds_step_to_its_buckets),
		cmocka_unit_test(test_query_range_never_finer_than_stored_for_the_age),
		cmocka_unit_test(test_query_range_caps_points),
		cmocka_unit_test(test_query_from_to_defaults_and_clamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
