/* test_reports_stage.c - staged report keys on SQLite (server/store/sqlite/reports_stage.c,
 * schema/sqlite/0018): every report stored exactly once and read exactly once,
 * by time and by host, while its keys are staged, frozen, half moved, moved
 * and emptied; a resend found in each of those places; a writer reopened in
 * the middle of a move, and two writers taking turns, carry on from the
 * database; retention takes a report's moved keys with its row. A period of
 * zero freezes the active staging table at every commit that finds the other
 * one empty. */
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

#define HOSTS 200
#define T0 1700000000000LL

/* Parses report seq of host `host` (machine id "m<host>", its own incarnation) into rep. */
static void make(struct report *rep, int host, int seq)
{
	char body[640], err[256], mid[16];
	int64_t start = T0 + (int64_t)seq * 10000;

	snprintf(mid, sizeof(mid), "m%03d", host);
	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":%d,\"host\":{\"id\":\"%s\",\"hostname\":\"%s\"},"
		 "\"agent\":{\"incarnation\":\"%032x\"},"
		 "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld},\"runqlat\":{\"layout\":{\"grouping_power\":4,"
		 "\"max_value_power\":36},\"cpus\":[{\"cpu\":0,\"count\":1,\"buckets\":[[9,1]]}]}}",
		 seq, mid, mid, host, (long long)start, (long long)start + 10000);
	assert_int_equal(report_parse(body, strlen(body), rep, err, sizeof(err)), 0);
}

/* Stores report seq of host `host` alone; returns its put result. */
static int put(struct store *st, int host, int seq)
{
	struct report rep, *reps[1] = { &rep };
	int result = -1;

	make(&rep, host, seq);
	assert_int_equal(st->ops->put_reports(st, reps, 1, &result, T0 + (int64_t)seq * 10000 + 20000, INT64_MIN), 0);
	report_free(&rep);
	return result;
}

/* Stores seq of every host in one batch. */
static void put_all(struct store *st, int seq)
{
	struct report *reps[HOSTS];
	int results[HOSTS];

	for (int h = 0; h < HOSTS; h++) {
		reps[h] = calloc(1, sizeof(**reps));
		assert_non_null(reps[h]);
		make(reps[h], h, seq);
	}
	assert_int_equal(st->ops->put_reports(st, reps, HOSTS, results, T0 + (int64_t)seq * 10000 + 20000, INT64_MIN),
			 0);
	for (int h = 0; h < HOSTS; h++) {
		assert_int_equal(results[h], STORE_STORED);
		report_free(reps[h]);
		free(reps[h]);
	}
}

static int64_t count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int count_rows(void *arg, const struct store_row *r)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

/* What the store reads: every report once, each host's own once each, and where they are. */
static void expect(struct test_db *t, struct store *st, int per_host)
{
	int all = 0;

	assert_int_equal(st->ops->scan(st, STORE_RAW, -1, 0, INT64_MAX / 4, count_rows, &all), 0);
	assert_int_equal(all, HOSTS * per_host);
	for (int64_t id = 1; id <= HOSTS; id++) {
		int one = 0;

		assert_int_equal(st->ops->scan_hist(st, STORE_RAW, id, 0, INT64_MAX / 4, count_rows, &one), 0);
		assert_int_equal(one, per_host);
	}
	assert_int_equal(count(t->db, "SELECT count(*) FROM (SELECT DISTINCT host_id, incarnation, seq FROM reports)"),
			 HOSTS * per_host);
	assert_int_equal(count(t->db, "SELECT count(*) FROM reports"), HOSTS * per_host);
	assert_int_equal(count(t->db, "SELECT count(*) FROM (SELECT DISTINCT id FROM report_ids_by_host)"),
			 HOSTS * per_host);
	assert_int_equal(count(t->db, "SELECT count(*) FROM report_ids_by_host"), HOSTS * per_host);
}

/* Keys moved into report_keys and report_times (each must hold the same reports). */
static int64_t moved(struct test_db *t)
{
	int64_t keys = count(t->db, "SELECT count(*) FROM report_keys");

	assert_int_equal(count(t->db, "SELECT count(*) FROM report_times"), keys);
	return keys;
}

/* Where the moved table stands: its merged_below (what the view skips). */
static int64_t below(struct test_db *t, int which)
{
	return count(t->db, which ? "SELECT merged_below1 FROM reports_stage_state"
				  : "SELECT merged_below0 FROM reports_stage_state");
}

static struct store *open_store(struct test_db *t)
{
	char err[256];
	struct store *st = store_sqlite_open(t->file, err, sizeof(err));

	assert_non_null(st);
	return st;
}

static void test_a_resend_is_a_duplicate_wherever_its_first_copy_is(void **state)
{
	struct test_db t;
	struct store *st;

	(void)state;
	test_db_create(&t, "/tmp/schedio-test-stage-XXXXXX");
	st = open_store(&t);
	put_all(st, 1); /* staged in table 0, which the end of the commit freezes */
	expect(&t, st, 1);
	assert_int_equal(count(t.db, "SELECT active FROM reports_stage_state"), 1);
	assert_int_equal(put(st, 5, 1), STORE_DUPLICATE); /* frozen, not moved; this commit moves a share */
	assert_true(below(&t, 0) > 1 && below(&t, 0) < HOSTS);
	expect(&t, st, 1);
	assert_int_equal(put(st, 5, 1), STORE_DUPLICATE);   /* host below the mark: in both places */
	assert_int_equal(put(st, 190, 1), STORE_DUPLICATE); /* above it: staged only */
	expect(&t, st, 1);
	while (below(&t, 0) != INT64_MAX)
		assert_int_equal(put(st, 7, 1), STORE_DUPLICATE);
	assert_true(count(t.db, "SELECT count(*) FROM reports_stage0") > 0); /* moved, not yet emptied */
	assert_int_equal(put(st, 190, 1), STORE_DUPLICATE);
	expect(&t, st, 1);
	assert_int_equal(put(st, 190, 1), STORE_DUPLICATE); /* this commit empties it */
	assert_int_equal(count(t.db, "SELECT count(*) FROM reports_stage0"), 0);
	assert_int_equal(below(&t, 0), 0);
	assert_int_equal(moved(&t), HOSTS);
	assert_int_equal(put(st, 190, 1), STORE_DUPLICATE); /* moved only */
	assert_int_equal(put(st, 3, 2), STORE_STORED);
	assert_int_equal(put(st, 3, 2), STORE_DUPLICATE); /* in the active table */
	assert_int_equal(count(t.db, "SELECT count(*) FROM reports WHERE host_id = 4"), 2);
	st->ops->close(st);
	test_db_remove(&t);
}

static void test_reopened_in_the_middle_of_a_move(void **state)
{
	struct test_db t;
	struct store *st;

	(void)state;
	test_db_create(&t, "/tmp/schedio-test-stage-XXXXXX");
	st = open_store(&t);
	put_all(st, 1);
	assert_int_equal(put(st, 9, 1), STORE_DUPLICATE);
	assert_true(below(&t, 0) > 1 && below(&t, 0) < HOSTS);
	st->ops->close(st); /* what the database holds is all a new writer has */
	st = open_store(&t);
	expect(&t, st, 1);
	assert_int_equal(put(st, 9, 1), STORE_DUPLICATE);
	assert_int_equal(put(st, 199, 1), STORE_DUPLICATE);
	put_all(st, 2); /* into the active table while table 0 is still moving */
	expect(&t, st, 2);
	st->ops->close(st);
	st = open_store(&t);
	for (int i = 0; i < 100 && st->ops->idle(st, T0 + 10000000) > 0; i++)
		;
	assert_int_equal(st->ops->idle(st, T0 + 10000000), 0);
	assert_int_equal(
	    count(t.db, "SELECT count(*) FROM reports_stage0") + count(t.db, "SELECT count(*) FROM reports_stage1"), 0);
	assert_int_equal(moved(&t), 2 * HOSTS);
	expect(&t, st, 2);
	for (int seq = 1; seq <= 2; seq++)
		assert_int_equal(put(st, 42, seq), STORE_DUPLICATE);
	st->ops->close(st);
	test_db_remove(&t);
}

static void test_two_writers_taking_turns(void **state)
{
	struct test_db t;
	struct store *a, *b;

	(void)state;
	test_db_create(&t, "/tmp/schedio-test-stage-XXXXXX");
	a = open_store(&t);
	b = open_store(&t);
	put_all(a, 1);
	assert_int_equal(put(b, 11, 1), STORE_DUPLICATE); /* b reads what a staged */
	put_all(b, 2);
	assert_int_equal(put(a, 11, 2), STORE_DUPLICATE); /* and a what b did, and where b's move stands */
	assert_int_equal(put(a, 150, 1), STORE_DUPLICATE);
	expect(&t, a, 2);
	expect(&t, b, 2);
	a->ops->close(a);
	b->ops->close(b);
	test_db_remove(&t);
}

static void test_retention_takes_the_moved_keys(void **state)
{
	struct test_db t;
	struct store *st;

	(void)state;
	test_db_create(&t, "/tmp/schedio-test-stage-XXXXXX");
	st = open_store(&t);
	put_all(st, 1);
	put_all(st, 2);
	for (int i = 0; i < 100 && st->ops->idle(st, T0 + 10000000) > 0; i++)
		;
	assert_int_equal(moved(&t), 2 * HOSTS);
	/* seq 1 starts at T0 + 10 s, seq 2 at T0 + 20 s */
	assert_int_equal(st->ops->expire(st, STORE_RAW, T0 + 15000, 10 * HOSTS), HOSTS);
	assert_int_equal(moved(&t), HOSTS);
	expect(&t, st, 1);
	assert_int_equal(put(st, 8, 2), STORE_DUPLICATE);
	assert_int_equal(put(st, 8, 1), STORE_STORED); /* its first copy is gone */
	assert_int_equal(count(t.db, "SELECT count(*) FROM report_ids_by_host WHERE host_id = 9"), 2);
	st->ops->close(st);
	test_db_remove(&t);
}

/* The writer's index of staged keys grows a step at a time (key_index.c): a resend is still
 * found while the index is half moved, before and after, in a period long enough to stage
 * several thousand reports in one table. */
static void test_a_resend_is_found_while_the_index_grows(void **state)
{
	enum { MANY = 3000, BATCH = 100 };
	struct test_db t;
	struct store *st;

	(void)state;
	setenv("SCHEDIO_SQLITE_STAGE_MS", "3600000", 1);
	test_db_create(&t, "/tmp/schedio-test-stage-XXXXXX");
	st = open_store(&t);
	for (int from = 0; from < MANY; from += BATCH) {
		struct report *reps[BATCH];
		int results[BATCH];

		for (int i = 0; i < BATCH; i++) {
			reps[i] = calloc(1, sizeof(**reps));
			assert_non_null(reps[i]);
			make(reps[i], from + i, 1);
		}
		assert_int_equal(st->ops->put_reports(st, reps, BATCH, results, T0 + 30000, INT64_MIN), 0);
		for (int i = 0; i < BATCH; i++) {
			assert_int_equal(results[i], STORE_STORED);
			report_free(reps[i]);
			free(reps[i]);
		}
		for (int h = from % 7; h < from + BATCH; h += 7) /* a resend of any host so far, old or new */
			assert_int_equal(put(st, h, 1), STORE_DUPLICATE);
	}
	assert_int_equal(count(t.db, "SELECT count(*) FROM reports"), MANY);
	assert_int_equal(count(t.db, "SELECT count(*) FROM reports_stage0") +
			     count(t.db, "SELECT count(*) FROM reports_stage1"),
			 MANY); /* all staged in this one period */
	for (int h = 0; h < MANY; h++)
		assert_int_equal(put(st, h, 1), STORE_DUPLICATE);
	assert_int_equal(put(st, 5, 2), STORE_STORED);
	st->ops->close(st);
	test_db_remove(&t);
	setenv("SCHEDIO_SQLITE_STAGE_MS", "0", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_resend_is_a_duplicate_wherever_its_first_copy_is),
		cmocka_unit_test(test_reopened_in_the_middle_of_a_move),
		cmocka_unit_test(test_two_writers_taking_turns),
		cmocka_unit_test(test_retention_takes_the_moved_keys),
		cmocka_unit_test(test_a_resend_is_found_while_the_index_grows),
	};
	/* Freeze at every commit that can, so a few commits walk through a whole move. */
	setenv("SCHEDIO_SQLITE_STAGE_MS", "0", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
