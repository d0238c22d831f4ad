/* test_report_chunks.c - raw reports moved into chunks on SQLite
 * (server/store/sqlite/report_chunks.c, schema/sqlite/0020): every raw read
 * answers the same before and after the move (each row's columns, and its
 * blobs byte for byte once unpacked, in the same order), also when a late
 * report makes two chunks of a host overlap; a report in a chunk is a
 * duplicate; retention takes whole chunks and leaves out the reports of a
 * chunk before its bound, but those whose minute waits for a redo. A chunked
 * row leaves its keys first and its row later (the sweep): the reads are the
 * same while such rows wait, after the sweep, for a row chunked after the
 * sweep passed its start, and a staged row is neither chunked nor swept.
 */
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
#include "server/series/blob.h"
#include "server/store/store.h"
#include "tests/unit/server/test_store_helpers.h"

#define MIN 60000LL
#define T0 (1000 * MIN)
#define PER_HOST 150 /* every 10 s: 25 minutes of each host */

/* What the reads answer, written out: each call's fields and an FNV-1a hash of each blob's plain bytes. */
struct text {
	char *p;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->len + (size_t)n + 1);
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	va_start(ap, fmt);
	vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

static unsigned long long plain_hash(const void *p, size_t len)
{
	const uint8_t *plain;
	size_t plen;
	uint8_t *scratch = NULL;
	unsigned long long h = 1469598103934665603ULL;

	if (!p || !len)
		return 0;
	assert_int_equal(blob_unpack(p, len, &plain, &plen, &scratch), 0);
	for (size_t i = 0; i < plen; i++)
		h = (h ^ plain[i]) * 1099511628211ULL;
	free(scratch);
	return h;
}

static int add_row(void *arg, const struct store_row *r)
{
	add(arg, "row %lld %lld %lld %s %s %llx %llx %llx\n", (long long)r->host_id, (long long)r->t, (long long)r->end,
	    r->sched_group, r->kernel, plain_hash(r->host_hist, r->host_hist_len), plain_hash(r->series, r->series_len),
	    plain_hash(r->iocost, r->iocost_len));
	return 0;
}

static int add_report(void *arg, const struct store_report *r)
{
	add(arg, "report %llu %lld %lld %lld\n", (unsigned long long)r->seq, (long long)r->start_ms,
	    (long long)r->end_ms, (long long)r->dropped);
	return 0;
}

static int add_health(void *arg, const struct store_health *h)
{
	add(arg, "health %lld %lld %lld %s\n", (long long)h->host_id, (long long)h->start_ms, (long long)h->end_ms,
	    h->health ? h->health : "-");
	return 0;
}

static int add_id(void *arg, int64_t a, int64_t b)
{
	(void)b;
	add(arg, "host %lld\n", (long long)a);
	return 0;
}

static int count_row(void *arg, const struct store_row *r)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

/* Raw reports of host starting in [from, to), by scan. */
static int raw_rows(struct store *st, int64_t host, int64_t from, int64_t to)
{
	int n = 0;

	assert_int_equal(st->ops->scan(st, STORE_RAW, host, from, to, count_row, &n), 0);
	return n;
}

/* Every raw read over [from, to) for hosts 1 and 2, and all hosts. */
static char *reads(struct store *st, int64_t from, int64_t to)
{
	struct text t = { 0 };

	for (int64_t h = 1; h <= 2; h++) {
		assert_int_equal(st->ops->scan(st, STORE_RAW, h, from, to, add_row, &t), 0);
		assert_int_equal(st->ops->scan_hist(st, STORE_RAW, h, from, to, add_row, &t), 0);
		assert_int_equal(st->ops->reports(st, h, from, to, add_report, &t), 0);
		assert_int_equal(st->ops->health_scan(st, h, from, to, add_health, &t), 0);
		assert_int_equal(st->ops->latest(st, h, add_row, &t), 0);
	}
	assert_int_equal(st->ops->health_scan(st, -1, from, to, add_health, &t), 0);
	add(&t, "%s", "");
	return t.p;
}

/* The all-host reads, whose order is the rows' then the chunks': as sorted lines. */
static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *reads_all(struct store *st, int64_t from, int64_t to)
{
	struct text t = { 0 }, out = { 0 };
	char **lines = NULL, *save = NULL;
	size_t n = 0;

	assert_int_equal(st->ops->scan(st, STORE_RAW, -1, from, to, add_row, &t), 0);
	assert_int_equal(st->ops->scan_hist(st, STORE_RAW, -1, from, to, add_row, &t), 0);
	assert_int_equal(st->ops->hosts_in(st, STORE_RAW, from, to, add_id, &t), 0);
	add(&t, "%s", "");
	for (char *l = strtok_r(t.p, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		assert_non_null(lines);
		lines[n++] = l;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	add(&out, "%s", "");
	for (size_t i = 0; i < n; i++)
		add(&out, "%s\n", lines[i]);
	free(lines);
	free(t.p);
	return out.p;
}

/* Stores report seq of host m<host> starting at start; returns the store's result. */
static int put(struct store *st, int host, int seq, int64_t start, int64_t minute_mark)
{
	char body[2048], err[256];
	struct report rep, *reps[1] = { &rep };
	int result = -1;

	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":%d,\"agent\":{\"incarnation\":\"%032d\"%s},"
		 "\"host\":{\"id\":\"m%d\",\"hostname\":\"h%d\",\"kernel\":\"6.%d\"},"
		 "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld},"
		 "\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
		 "\"cpus\":[{\"cpu\":0,\"count\":%d,\"buckets\":[[9,%d],[%d,1]]}],"
		 "\"cgroups\":[{\"path\":\"/a.slice\",\"count\":%d,\"buckets\":[[12,%d]]}]}}",
		 seq, host, seq % 3 ? "" : ",\"cpu_ns\":12345", host, host, seq / 40, (long long)start,
		 (long long)start + 10000, seq + 1, seq, 20 + seq % 7, seq % 5 + 1, seq % 5 + 1);
	if (report_parse(body, strlen(body), &rep, err, sizeof(err)) != 0)
		fail_msg("report %d of m%d: %s", seq, host, err);
	assert_int_equal(st->ops->put_reports(st, reps, 1, &result, start + 20000, minute_mark), 0);
	report_free(&rep);
	return result;
}

static int64_t count(struct test_db *t, const char *sql)
{
	sqlite3_stmt *q;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(t->db, sql, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* Runs the pass to its end as the rollup worker would at now_ms with the minute mark at mark_ms. */
static void compact(struct store *st, int64_t now_ms, int64_t mark_ms)
{
	int rc;

	do {
		rc = st->ops->compact(st, now_ms, mark_ms);
		assert_true(rc >= 0);
	} while (rc > 0);
}

static void settle(struct store *st)
{
	while (st->ops->idle(st, T0 + 3600 * 1000LL) > 0)
		;
}

static void assert_same(char *a, char *b, const char *what)
{
	if (strcmp(a, b) != 0)
		fail_msg("%s: the reads differ\n--- rows\n%.3000s\n--- chunks\n%.3000s", what, a, b);
	free(a);
	free(b);
}

/* A new store whose chunk pass is eager but for the sweep lag (SCHEDIO_SQLITE_CHUNK_SWEEP_MS), holding
 * PER_HOST reports of hosts 1 and 2, their keys moved. */
static struct store *open_filled(struct test_db *t, const char *sweep_ms)
{
	char err[256];
	struct store *st;

	setenv("SCHEDIO_SQLITE_STAGE_MS", "0", 1);
	setenv("SCHEDIO_SQLITE_CHUNK_AFTER_MS", "0", 1);
	setenv("SCHEDIO_SQLITE_CHUNK_MIN", "1", 1);
	setenv("SCHEDIO_SQLITE_CHUNK_PERIOD_MS", "0", 1);
	setenv("SCHEDIO_SQLITE_CHUNK_SWEEP_MS", sweep_ms, 1);
	test_db_create(t, "/tmp/schedio-test-chunks-XXXXXX");
	st = store_sqlite_open(t->file, err, sizeof(err));
	if (!st)
		fail_msg("%s", err);
	for (int i = 0; i < PER_HOST; i++)
		for (int h = 1; h <= 2; h++)
			assert_int_equal(put(st, h, i + 1, T0 + i * 10000LL, 0), STORE_STORED);
	settle(st);
	return st;
}

static void test_report_chunks_read_as_rows(void **state)
{
	int64_t end = T0 + PER_HOST * 10000LL, from = T0 - MIN, to = end + MIN;
	char *before, *before_all;
	struct text taken = { 0 };
	struct store *st;
	struct test_db t;

	(void)state;
	st = open_filled(&t, "0"); /* chunked rows are deleted once the pass ends */
	before = reads(st, from, to);
	before_all = reads_all(st, from, to);

	/* the pass: everything before the mark (T0 + 20 min) into chunks of up to 60, the rest stays rows */
	compact(st, end, T0 + 20 * MIN);
	assert_int_equal(count(&t, "SELECT sum(n) FROM report_chunks"), 2 * 120);
	assert_int_equal(count(&t, "SELECT max(n) FROM report_chunks"), 60);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports"), 2 * (PER_HOST - 120));
	assert_same(before, reads(st, from, to), "rows and chunks");
	assert_same(before_all, reads_all(st, from, to), "rows and chunks, all hosts");
	/* a window inside one chunk, and one across a chunk's edge and the rows */
	before = reads(st, T0 + 3 * MIN + 5000, T0 + 4 * MIN);
	assert_non_null(strstr(before, "report 20 "));
	free(before);

	/* a report in a chunk is a duplicate, and so is one in a row; a new one is stored */
	assert_int_equal(put(st, 1, 5, T0 + 4 * 10000LL, 0), STORE_DUPLICATE);
	assert_int_equal(put(st, 2, 140, T0 + 139 * 10000LL, 0), STORE_DUPLICATE);
	assert_int_equal(put(st, 1, PER_HOST + 1, end, 0), STORE_STORED);

	/* a late report inside the first chunk's time: a row, then a chunk of its own that overlaps it */
	assert_int_equal(put(st, 1, 500, T0 + 2 * MIN + 5000, T0 + 20 * MIN), STORE_STORED);
	settle(st);
	before = reads(st, from, to + MIN);
	before_all = reads_all(st, from, to + MIN);
	assert_int_equal(st->ops->begin(st), 0);
	assert_true(st->ops->dirty_take(st, 10, add_id, &taken) >= 0);
	free(taken.p);
	assert_int_equal(st->ops->commit(st), 0);
	compact(st, end + 2 * 3600 * 1000LL, T0 + 20 * MIN);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports WHERE seq = 500"), 0);
	assert_same(before, reads(st, from, to + MIN), "overlapping chunks");
	assert_same(before_all, reads_all(st, from, to + MIN), "overlapping chunks, all hosts");

	/* retention: chunks wholly before the bound go; reports before it in a chunk that stays are left
	 * out, but for a minute that waits for a redo */
	assert_int_equal(put(st, 2, 600, T0 + 7 * MIN + 5000, T0 + 20 * MIN), STORE_STORED);
	settle(st);
	compact(st, end + 4 * 3600 * 1000LL, T0 + 20 * MIN);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports WHERE seq = 600"), 1); /* its minute is dirty */
	assert_int_equal(st->ops->begin(st), 0);
	assert_true(st->ops->expire(st, STORE_RAW, T0 + 12 * MIN + 5000, 1000) > 0);
	assert_int_equal(st->ops->commit(st), 0);
	before = reads(st, from, T0 + 12 * MIN + 5000);
	/* host 1: nothing before the bound; host 2: the minute its late report waits in for a redo, kept as its
	 * rows would be (the late report and the six on time) */
	assert_int_equal(raw_rows(st, 1, from, T0 + 12 * MIN + 5000), 0);
	assert_int_equal(raw_rows(st, 2, from, T0 + 12 * MIN + 5000), 7);
	assert_int_equal(raw_rows(st, 2, T0 + 7 * MIN, T0 + 8 * MIN), 7);
	assert_non_null(strstr(before, "report 600 "));
	assert_null(strstr(before, "report 5 "));
	free(before);
	before = reads(st, T0 + 12 * MIN + 5000, T0 + 12 * MIN + 15000);
	assert_non_null(strstr(before, "report 74 ")); /* the first after the bound, in the chunk that stays */
	free(before);
	/* of the chunks wholly before the bound only the one with the waiting minute is left */
	assert_int_equal(count(&t, "SELECT count(*) FROM report_chunks WHERE last_ms < 1000 * 60000 + 12 * 60000"), 1);

	st->ops->close(st);
	test_db_remove(&t);
}

static void test_report_chunks_swept_later(void **state)
{
	int64_t end = T0 + PER_HOST * 10000LL, from = T0 - MIN, to = T0 + 40 * MIN;
	char *before, *before_all;
	struct text taken = { 0 };
	struct store *st;
	struct test_db t;

	(void)state;
	st = open_filled(&t, "3600000"); /* an hour behind where a pass chunked */
	before = reads(st, from, to);
	before_all = reads_all(st, from, to);

	/* chunked up to the mark, T0 + 20 min: the chunked rows lose their keys and stay, unread */
	compact(st, end, T0 + 20 * MIN);
	assert_int_equal(count(&t, "SELECT sum(n) FROM report_chunks"), 2 * 120);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports"), 2 * PER_HOST);
	assert_int_equal(count(&t, "SELECT count(*) FROM report_times"), 2 * (PER_HOST - 120));
	assert_int_equal(count(&t, "SELECT count(*) FROM report_keys"), 2 * (PER_HOST - 120));
	assert_same(before, reads(st, from, to), "chunked rows not yet swept");
	assert_same(before_all, reads_all(st, from, to), "chunked rows not yet swept, all hosts");
	assert_int_equal(put(st, 1, 5, T0 + 4 * 10000LL, 0), STORE_DUPLICATE);

	/* a pass up to T0 + 90 min chunks the rest; the sweep then deletes every row starting an hour before */
	before = reads(st, from, to);
	before_all = reads_all(st, from, to);
	compact(st, T0 + 2 * 3600 * 1000LL, T0 + 90 * MIN);
	assert_int_equal(count(&t, "SELECT sum(n) FROM report_chunks"), 2 * PER_HOST);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports"), 0);
	assert_same(before, reads(st, from, to), "chunked rows swept");
	assert_same(before_all, reads_all(st, from, to), "chunked rows swept, all hosts");

	/* a late report before where the sweep is: chunked, its row goes at once */
	assert_int_equal(put(st, 1, 500, T0 + 2 * MIN + 5000, T0 + 20 * MIN), STORE_STORED);
	settle(st);
	assert_int_equal(st->ops->begin(st), 0);
	assert_true(st->ops->dirty_take(st, 10, add_id, &taken) >= 0);
	free(taken.p);
	assert_int_equal(st->ops->commit(st), 0);
	before = reads(st, from, to);
	before_all = reads_all(st, from, to);
	compact(st, T0 + 3 * 3600 * 1000LL, T0 + 90 * MIN);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports"), 0);
	assert_same(before, reads(st, from, to), "a row chunked behind the sweep");
	assert_same(before_all, reads_all(st, from, to), "a row chunked behind the sweep, all hosts");

	/* a staged report where the next sweep goes is neither chunked nor swept; once moved it is chunked */
	assert_int_equal(put(st, 2, 502, T0 + 32 * MIN, 0), STORE_STORED);
	compact(st, T0 + 4 * 3600 * 1000LL, T0 + 100 * MIN);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports WHERE seq = 502"), 1);
	before = reads(st, from, to);
	assert_non_null(strstr(before, "report 502 "));
	before_all = reads_all(st, from, to);
	settle(st);
	compact(st, T0 + 5 * 3600 * 1000LL, T0 + 100 * MIN);
	assert_int_equal(count(&t, "SELECT count(*) FROM reports"), 0);
	assert_same(before, reads(st, from, to), "a staged row, then chunked");
	assert_same(before_all, reads_all(st, from, to), "a staged row, then chunked, all hosts");

	st->ops->close(st);
	test_db_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_chunks_read_as_rows),
		cmocka_unit_test(test_report_chunks_swept_later),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
