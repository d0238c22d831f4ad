/* test_store_health.c - the issue-17 storage of the SQLite store (schema 0012,
 * server/store/sqlite/store_sqlite.c): a report's health JSON comes back
 * from health_scan with its interval (NULL for a report without it), its
 * exits from exits_scan in time order, a resent report adds no exits twice,
 * raw expiry takes the health with the report while the exits stay, and
 * the 1-minute level's expiry takes the exits before its horizon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "server/ingest/report_parse.h"
#include "server/store/store.h"
#include "tests/unit/server/test_store_helpers.h"

#define MIN 60000LL

/* Stores one report of host m1; extra is appended inside the report object. */
static int put(struct store *st, int seq, int64_t start, const char *extra)
{
	char body[2048], err[256];
	struct report rep, *reps[1] = { &rep };
	int result = -1;

	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":%d,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\"},"
		 "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld}%s}",
		 seq, (long long)start, (long long)start + 10000, extra);
	assert_int_equal(report_parse(body, strlen(body), &rep, err, sizeof(err)), 0);
	assert_int_equal(st->ops->put_reports(st, reps, 1, &result, start + 20000, 0), 0);
	report_free(&rep);
	return result;
}

struct seen {
	char text[4096];
	int n;
};

static int add_health(void *arg, const struct store_health *h)
{
	struct seen *s = arg;
	size_t o = strlen(s->text);

	snprintf(s->text + o, sizeof(s->text) - o, "[%lld,%lld,%s]", (long long)h->start_ms, (long long)h->end_ms,
		 h->health ? h->health : "null");
	s->n++;
	return 0;
}

static int add_exit(void *arg, const struct store_exit *e)
{
	struct seen *s = arg;
	size_t o = strlen(s->text);

	snprintf(s->text + o, sizeof(s->text) - o, "[%lld,%s,%s,%s,%s]", (long long)e->t_ms, e->ops, e->kind, e->reason,
		 e->message);
	s->n++;
	return 0;
}

static struct seen health_of(struct store *st, int64_t host)
{
	struct seen s = { 0 };

	assert_int_equal(st->ops->health_scan(st, host, 0, INT64_MAX / 4, add_health, &s), 0);
	return s;
}

static struct seen exits_of(struct store *st, int64_t host, int64_t from, int64_t to)
{
	struct seen s = { 0 };

	assert_int_equal(st->ops->exits_scan(st, host, from, to, add_exit, &s), 0);
	return s;
}

static int expire(struct store *st, enum store_level lv, int64_t before)
{
	int n;

	assert_int_equal(st->ops->begin(st), 0);
	n = st->ops->expire(st, lv, before, 100);
	assert_int_equal(st->ops->commit(st), 0);
	return n;
}

#define EXITS(t1, t2)                                                                                                  \
	",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"b\",\"nr_rejected\":4,\"exits\":[{\"ops\":\"b\",\"t_"         \
	"ms\":" #t2 ",\"kind\":\"error_stall\",\"reason\":\"stall\",\"message\":\"m\"},{\"ops\":\"a\",\"t_ms\":" #t1   \
	",\"kind\":\"unreg\"}]}"

static void test_store_health_round_trip_and_expiry(void **state)
{
	char err[256];
	struct store *st;
	struct test_db t;
	struct seen s;

	test_db_create(&t, "/tmp/schedio-test-health-XXXXXX");
	st = store_sqlite_open(t.file, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(put(st, 1, 10 * MIN, ",\"agent\":{\"cpu_ns\":5}"), STORE_STORED);
	assert_int_equal(put(st, 2, 20 * MIN, ""), STORE_STORED); /* an older agent */
	assert_int_equal(put(st, 3, 30 * MIN, EXITS(1800500, 1800900)), STORE_STORED);
	assert_int_equal(put(st, 3, 30 * MIN, EXITS(1800500, 1800900)), STORE_DUPLICATE); /* resent */

	s = health_of(st, 1);
	assert_string_equal(s.text, "[600000,610000,{\"agent\":{\"cpu_ns\":5}}][1200000,1210000,null]"
				    "[1800000,1810000,{\"nr_rejected\":4}]");
	assert_int_equal(health_of(st, -1).n, 3);
	assert_int_equal(health_of(st, 2).n, 0);
	/* By time, once each, whatever their order in the report. */
	s = exits_of(st, 1, 0, INT64_MAX / 4);
	assert_string_equal(s.text, "[1800500,a,unreg,,][1800900,b,error_stall,stall,m]");
	assert_int_equal(exits_of(st, -1, 1800500, 1800900).n, 1);
	assert_int_equal(exits_of(st, -1, 1800501, 1800901).n, 1);

	/* Raw expiry takes the reports and their health; the exits stay. */
	assert_int_equal(expire(st, STORE_RAW, 40 * MIN), 3);
	assert_int_equal(health_of(st, 1).n, 0);
	assert_int_equal(exits_of(st, 1, 0, INT64_MAX / 4).n, 2);
	/* The hour level's expiry leaves them too; the minute level's takes those before its horizon. */
	expire(st, STORE_HOUR, 40 * MIN);
	assert_int_equal(exits_of(st, 1, 0, INT64_MAX / 4).n, 2);
	expire(st, STORE_MINUTE, 1800600);
	assert_string_equal(exits_of(st, 1, 0, INT64_MAX / 4).text, "[1800900,b,error_stall,stall,m]");
	expire(st, STORE_MINUTE, 40 * MIN);
	assert_int_equal(exits_of(st, 1, 0, INT64_MAX / 4).n, 0);
	st->ops->close(st);
	test_db_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_health_round_trip_and_expiry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
