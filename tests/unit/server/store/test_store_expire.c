/* test_store_expire.c - raw retention in the SQLite store (server/store/sqlite/store_sqlite.c):
 * a raw row past the horizon is kept while its (host, minute) waits in
 * rollup_dirty for a late-report redo, and goes once the redo has taken it. */
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

static int count_rows(void *arg, const struct store_row *r)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

static int raw_rows(struct store *st)
{
	int n = 0;

	assert_int_equal(st->ops->scan(st, STORE_RAW, -1, 0, INT64_MAX / 4, count_rows, &n), 0);
	return n;
}

static int ignore_id(void *arg, int64_t a, int64_t b)
{
	(void)arg;
	(void)a;
	(void)b;
	return 0;
}

static void put(struct store *st, int seq, int64_t start, int64_t minute_mark)
{
	char body[512], err[256];
	struct report rep, *reps[1] = { &rep };
	int result = -1;

	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":%d,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\"},"
		 "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld},\"runqlat\":{\"layout\":{\"grouping_power\":4,"
		 "\"max_value_power\":36},\"cpus\":[{\"cpu\":0,\"count\":1,\"buckets\":[[9,1]]}]}}",
		 seq, (long long)start, (long long)start + 10000);
	assert_int_equal(report_parse(body, strlen(body), &rep, err, sizeof(err)), 0);
	assert_int_equal(st->ops->put_reports(st, reps, 1, &result, start + 20000, minute_mark), 0);
	report_free(&rep);
}

static int expire_raw(struct store *st, int64_t before)
{
	int n;

	assert_int_equal(st->ops->begin(st), 0);
	n = st->ops->expire(st, STORE_RAW, before, 100);
	assert_int_equal(st->ops->commit(st), 0);
	return n;
}

static void test_store_expire_keeps_rows_queued_for_a_redo(void **state)
{
	char err[256];
	struct store *st;
	struct test_db t;

	test_db_create(&t, "/tmp/schedio-test-expire-XXXXXX");
	st = store_sqlite_open(t.file, err, sizeof(err));
	assert_non_null(st);
	put(st, 1, 10 * MIN + 5000, 0);         /* on time: nothing queued */
	put(st, 2, 20 * MIN + 5000, 100 * MIN); /* late: (m1, minute 20) queued for a redo */
	assert_int_equal(raw_rows(st), 2);
	assert_int_equal(expire_raw(st, 100 * MIN), 1);
	assert_int_equal(raw_rows(st), 1);
	assert_int_equal(st->ops->begin(st), 0);
	assert_int_equal(st->ops->dirty_take(st, 10, ignore_id, NULL), 1);
	assert_int_equal(st->ops->commit(st), 0);
	assert_int_equal(expire_raw(st, 100 * MIN), 1);
	assert_int_equal(raw_rows(st), 0);
	st->ops->close(st);
	test_db_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_expire_keeps_rows_queued_for_a_redo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
