/* test_store_labels.c - host labels in the store (schema 0013, issue 15):
 * store_labels_hosts answers by the labels each report carried, so after a
 * host is relabelled a window before the change finds it under the old value
 * only and a window after under the new one only; hosts show their latest
 * labels; a report without labels ends a host's labels from then on; late
 * reports land in the right run; duplicates change nothing; expiry keeps each
 * host's latest labels. Runs on SQLite, and on PostgreSQL too when
 * SCHEDIO_TEST_PG_STATE names a tests/pg/pg-start.sh cluster (ctest's
 * unit-pg/ run). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <libpq-fe.h>

#include "server/ingest/report_parse.h"
#include "server/store/pg/pg_migrate.h"
#include "server/store/store.h"
#include "tests/unit/server/test_store_helpers.h"

#define S 1000LL

/* Stores one report of host id starting at start (s) with labels (a JSON object or NULL). */
static int put(struct store *st, const char *id, int seq, int64_t start, const char *labels)
{
	char body[2048], err[256];
	struct report rep, *reps[1] = { &rep };
	int result = -1;

	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":%d,\"host\":{\"id\":\"%s\",\"hostname\":\"%s\"%s%s},"
		 "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld}}",
		 seq, id, id, labels ? ",\"labels\":" : "", labels ? labels : "", (long long)(start * S),
		 (long long)(start * S + 10 * S));
	assert_int_equal(report_parse(body, strlen(body), &rep, err, sizeof(err)), 0);
	assert_int_equal(st->ops->put_reports(st, reps, 1, &result, start * S + 20 * S, 0), 0);
	report_free(&rep);
	return result;
}

/* The hosts with key=value in [from, to) (seconds), as "a,b" (sorted by the store). */
static const char *hosts_with(struct store *st, const char *key, const char *value, int64_t from, int64_t to)
{
	static char out[512];
	char **ids;
	size_t n, o = 0;

	assert_int_equal(store_labels_hosts(st, key, value, from * S, to * S, &ids, &n), 0);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", i ? "," : "", ids[i]);
		free(ids[i]);
	}
	free(ids);
	return out;
}

static int take_labels(void *arg, const struct store_host *h)
{
	snprintf(arg, 512, "%s", h->labels ? h->labels : "(null)");
	return 1;
}

static const char *labels_of(struct store *st, const char *id)
{
	static char out[512];

	assert_int_equal(st->ops->hosts(st, id, take_labels, out), 1);
	return out;
}

static void run(struct store *st)
{
	char **ids;
	size_t n;

	/* h1: role=web for reports at 0..90 s, then role=db from 100 s; h2 always web; h3 no labels. */
	for (int i = 0; i < 10; i++)
		assert_int_equal(put(st, "h1", i + 1, 10 * i, "{\"role\":\"web\",\"dc\":\"a\"}"), STORE_STORED);
	for (int i = 10; i < 20; i++)
		assert_int_equal(put(st, "h1", i + 1, 10 * i, "{\"dc\":\"a\",\"role\":\"db\"}"), STORE_STORED);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(put(st, "h2", i + 1, 10 * i, "{\"role\":\"web\"}"), STORE_STORED);
		assert_int_equal(put(st, "h3", i + 1, 10 * i, NULL), STORE_STORED);
	}
	/* a resend is a duplicate and moves nothing */
	assert_int_equal(put(st, "h1", 3, 20, "{\"role\":\"web\",\"dc\":\"a\"}"), STORE_DUPLICATE);

	/* Before the change: h1 is web, not db; after: db, not web; across: both. */
	assert_string_equal(hosts_with(st, "role", "web", 0, 100), "h1,h2");
	assert_string_equal(hosts_with(st, "role", "db", 0, 100), "");
	assert_string_equal(hosts_with(st, "role", "web", 100, 200), "h2");
	assert_string_equal(hosts_with(st, "role", "db", 100, 200), "h1");
	assert_string_equal(hosts_with(st, "role", "db", 95, 101), "h1");
	assert_string_equal(hosts_with(st, "role", "web", 90, 91), "h1,h2"); /* the last web report, [from, to) */
	assert_string_equal(hosts_with(st, "role", "db", 0, 100), "");       /* to is exclusive */
	assert_string_equal(hosts_with(st, "dc", "a", 0, 200), "h1");
	assert_string_equal(hosts_with(st, "role", "web", 1000, 2000), ""); /* after every report */
	assert_string_equal(hosts_with(st, "role", "we", 0, 200), "");      /* a prefix of a value is not it */
	assert_string_equal(hosts_with(st, "ro", "web", 0, 200), "");
	assert_string_equal(labels_of(st, "h1"), "dc=a,role=db");
	assert_string_equal(labels_of(st, "h2"), "role=web");
	assert_string_equal(labels_of(st, "h3"), "(null)");

	/* A late h1 report at 55 s with the old labels joins the old run; one at 57 s with other labels
	 * starts a run of its own there, without moving the later runs. */
	assert_int_equal(put(st, "h1", 100, 55, "{\"role\":\"web\",\"dc\":\"a\"}"), STORE_STORED);
	assert_string_equal(hosts_with(st, "role", "web", 0, 100), "h1,h2");
	assert_int_equal(put(st, "h1", 101, 57, "{\"role\":\"canary\"}"), STORE_STORED);
	assert_string_equal(hosts_with(st, "role", "canary", 56, 58), "h1");
	assert_string_equal(hosts_with(st, "role", "canary", 100, 200), "");
	assert_string_equal(labels_of(st, "h1"), "dc=a,role=db");

	/* h1's labels removed from 200 s on: no labels from then, none shown on the host. */
	assert_int_equal(put(st, "h1", 21, 200, NULL), STORE_STORED);
	assert_int_equal(put(st, "h1", 22, 210, "{}"), STORE_STORED);
	assert_string_equal(hosts_with(st, "role", "db", 200, 300), "");
	assert_string_equal(hosts_with(st, "role", "db", 190, 300), "h1");
	assert_string_equal(labels_of(st, "h1"), "");

	/* Bad pairs are -EINVAL, nothing returned. */
	assert_int_equal(store_labels_hosts(st, "Role", "web", 0, 200 * S, &ids, &n), -EINVAL);
	assert_int_equal(store_labels_hosts(st, "role", "a,b", 0, 200 * S, &ids, &n), -EINVAL);
	assert_int_equal(store_labels_hosts(st, "role", "", 0, 200 * S, &ids, &n), -EINVAL);
	assert_null(ids);
	assert_int_equal(n, 0);

	/* Expiry at the 1-minute level drops the runs that ended before its horizon, but never a
	 * host's latest (h2's only run, which ended at 190 s). */
	assert_int_equal(st->ops->begin(st), 0);
	assert_true(st->ops->expire(st, STORE_MINUTE, 1000 * S, 100) >= 0);
	assert_int_equal(st->ops->commit(st), 0);
	assert_string_equal(hosts_with(st, "role", "web", 0, 200), "h2");
	assert_string_equal(labels_of(st, "h2"), "role=web");
	assert_string_equal(labels_of(st, "h1"), "");
}

static void test_store_labels_sqlite(void **state)
{
	struct test_db t;
	struct store *st;
	char err[256];

	test_db_create(&t, "/tmp/schedio-test-labels-XXXXXX");
	st = store_sqlite_open(t.file, err, sizeof(err));
	assert_non_null(st);
	run(st);
	st->ops->close(st);
	test_db_remove(&t);
}

/* A fresh database in the cluster of SCHEDIO_TEST_PG_STATE (second line: the URI of its postgres
 * database); skipped without one. */
static void test_store_labels_postgresql(void **state)
{
	const char *state_file = getenv("SCHEDIO_TEST_PG_STATE");
	char line[2][512] = { "", "" }, name[64], sql[128], conninfo[600], err[256];
	struct store *st;
	PGconn *c;
	PGresult *r;
	FILE *f;

	if (!state_file || !(f = fopen(state_file, "r"))) {
		skip();
		return;
	}
	for (int i = 0; i < 2 && fgets(line[i], sizeof(line[i]), f); i++)
		line[i][strcspn(line[i], "\n")] = '\0';
	fclose(f);
	c = PQconnectdb(line[1]);
	assert_int_equal(PQstatus(c), CONNECTION_OK);
	snprintf(name, sizeof(name), "labels_%d_%ld", (int)getpid(), (long)time(NULL));
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
	r = PQexec(c, sql);
	assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
	PQclear(r);
	PQfinish(c);
	/* the same cluster, the new database: the URI's last path element replaced */
	assert_non_null(strrchr(line[1], '/'));
	snprintf(conninfo, sizeof(conninfo), "%.*s/%s", (int)(strrchr(line[1], '/') - line[1]), line[1], name);
	assert_int_equal(pg_setup(conninfo, err, sizeof(err)), 0);
	st = store_pg_open(conninfo, err, sizeof(err));
	assert_non_null(st);
	run(st);
	st->ops->close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_labels_sqlite),
		cmocka_unit_test(test_store_labels_postgresql),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
