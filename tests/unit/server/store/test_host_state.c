/* test_host_state.c - the SQLite writer's memory of hosts' rows
 * (server/store/sqlite/host_state.c): the same reports stored in commits large
 * enough to leave the rows to the sweep, and one a commit (each row written
 * with its report), end with identical hosts tables once the writer has been
 * idle; meanwhile a row lags its newest report by at most one sweep. The
 * reports change a kernel, restart an agent (a new incarnation counting from
 * 1) and arrive late, so that every column's rule is exercised. */
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

#define HOSTS 40
#define ROUNDS 20
#define T0 1700000000000LL
#define INTERVAL_MS 10000
#define SWEEP_MS 20000

/* Round `round`'s report of host `host`: kernel 6.8 from round 10 on even hosts; host 3's agent
 * restarts at round 12 (a new incarnation, seq from 1). */
static void make(struct report *rep, int host, int round)
{
	char body[768], err[256], mid[16];
	int64_t start = T0 + (int64_t)round * INTERVAL_MS;
	bool restarted = host == 3 && round >= 12;

	snprintf(mid, sizeof(mid), "m%03d", host);
	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":%d,\"host\":{\"id\":\"%s\",\"hostname\":\"h%d\","
		 "\"kernel\":\"%s\"},\"agent\":{\"incarnation\":\"%031x%d\",\"version\":\"1.%d\"},"
		 "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld},\"runqlat\":{\"layout\":{\"grouping_power\":4,"
		 "\"max_value_power\":36},\"cpus\":[{\"cpu\":0,\"count\":1,\"buckets\":[[9,1]]}]}}",
		 restarted ? round - 11 : round, mid, host, host % 2 == 0 && round >= 10 ? "6.8" : "6.1", host,
		 restarted, host % 3, (long long)start, (long long)start + INTERVAL_MS);
	assert_int_equal(report_parse(body, strlen(body), rep, err, sizeof(err)), 0);
}

/* Whether round `round` sends host `host`'s report of round `of`: host 5's round 7 comes in round 15. */
static bool sends(int host, int round, int of)
{
	if (host == 5 && of == 7)
		return round == 15;
	return round == of;
}

/* Stores round `round` in st, as one commit (batched) or a commit a report. */
static void put_round(struct store *st, int round, bool batched)
{
	struct report reps[HOSTS + 1], *ptrs[HOSTS + 1];
	int results[HOSTS + 1], n = 0;
	int64_t now = T0 + (int64_t)round * INTERVAL_MS + 2 * INTERVAL_MS;

	for (int of = 1; of <= round; of++)
		for (int h = 0; h < HOSTS; h++)
			if (sends(h, round, of)) {
				make(&reps[n], h, of);
				ptrs[n] = &reps[n];
				n++;
			}
	if (batched) {
		assert_true(n >= 32); /* HOST_DEFER_BATCH: the rows are left to the sweep */
		assert_int_equal(st->ops->put_reports(st, ptrs, (size_t)n, results, now, INT64_MIN), 0);
	} else {
		for (int i = 0; i < n; i++)
			assert_int_equal(st->ops->put_reports(st, &ptrs[i], 1, &results[i], now, INT64_MIN), 0);
	}
	for (int i = 0; i < n; i++) {
		assert_int_equal(results[i], STORE_STORED);
		report_free(&reps[i]);
	}
}

/* The hosts table as text, every column a report moves. */
static char *hosts_text(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *text;

	assert_int_equal(
	    sqlite3_prepare_v2(
		db,
		"SELECT group_concat(line, char(10)) FROM (SELECT machine_id || '|' || hostname || '|' || "
		"quote(kernel) || '|' || quote(agent_version) || '|' || first_seen_ms || '|' || "
		"last_start_ms || '|' || last_end_ms || '|' || quote(agent_incarnation) || '|' || "
		"quote(agent_seq) || '|' || quote(agent_restarted_ms) AS line FROM hosts ORDER BY machine_id)",
		-1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_non_null(text);
	return text;
}

static int64_t last_end(sqlite3 *db, int host)
{
	sqlite3_stmt *st;
	char mid[16];
	int64_t v;

	snprintf(mid, sizeof(mid), "m%03d", host);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT last_end_ms FROM hosts WHERE machine_id = ?", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, mid, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static struct store *open_store(struct test_db *t)
{
	char err[256];
	struct store *st = store_sqlite_open(t->file, err, sizeof(err));

	assert_non_null(st);
	return st;
}

static void test_rows_left_to_the_sweep_end_as_written_ones(void **state)
{
	struct test_db a, b;
	struct store *sa, *sb;
	char *ta, *tb;
	int lagging = 0;

	(void)state;
	test_db_create(&a, "/tmp/schedio-test-hosts-XXXXXX");
	test_db_create(&b, "/tmp/schedio-test-hosts-XXXXXX");
	sa = open_store(&a);
	sb = open_store(&b);
	for (int round = 1; round <= ROUNDS; round++) {
		put_round(sa, round, true);
		put_round(sb, round, false);
		for (int h = 0; h < HOSTS; h++) {
			int64_t want = last_end(b.db, h), got = last_end(a.db, h);

			assert_true(got <= want);
			assert_true(got >= want - SWEEP_MS - INTERVAL_MS); /* at most a sweep behind */
			lagging += got < want;
		}
	}
	assert_true(lagging > 0); /* the batched commits did leave rows to the sweep */
	for (int i = 0; i < 10 && sa->ops->idle(sa, T0 + 10000000) > 0; i++)
		;
	ta = hosts_text(a.db);
	tb = hosts_text(b.db);
	assert_string_equal(ta, tb);
	assert_non_null(strstr(tb, "m003|h3|'6.1'|'1.0'|")); /* the restart is in it */
	free(ta);
	free(tb);
	sa->ops->close(sa);
	sb->ops->close(sb);
	test_db_remove(&a);
	test_db_remove(&b);
}

static void test_closing_writes_what_memory_holds(void **state)
{
	struct test_db a, b;
	struct store *sa, *sb;
	char *ta, *tb;

	(void)state;
	test_db_create(&a, "/tmp/schedio-test-hosts-XXXXXX");
	test_db_create(&b, "/tmp/schedio-test-hosts-XXXXXX");
	sa = open_store(&a);
	sb = open_store(&b);
	for (int round = 1; round <= 5; round++) {
		put_round(sa, round, true);
		put_round(sb, round, false);
	}
	sa->ops->close(sa);
	ta = hosts_text(a.db);
	tb = hosts_text(b.db);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	sb->ops->close(sb);
	test_db_remove(&a);
	test_db_remove(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_left_to_the_sweep_end_as_written_ones),
		cmocka_unit_test(test_closing_writes_what_memory_holds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
