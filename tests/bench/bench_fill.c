/* bench_fill.c - fills a schedio database with simulated history for the
 * benchmarks, through the server's own code path minus HTTP: report_parse,
 * the SQLite store's put_reports in batches, then the rollup worker until it
 * is idle. Used for the 24-hour fleet query (1,000 hosts) and to measure
 * database growth per host-day. Prints what it did and the bytes each
 * storage level takes per host-day.
 *   bench_fill --db FILE --hosts N (--hours H | --minutes M) --interval-s S
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_report.h"
#include "server/store/sqlite/sqlite_db.h"
#include "server/ingest/ingest.h"
#include "server/ingest/report_parse.h"
#include "server/series/rollup.h"
#include "server/store/store.h"
#include "server/store/store_dicts.h"

#define BATCH 500

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double query_d(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "hours", required_argument, NULL, 'h' },
		{ "minutes", required_argument, NULL, 'm' }, /* the span in minutes instead */
		{ "interval-s", required_argument, NULL, 'i' },
		{ 0 },
	};
	const char *path = NULL;
	unsigned hosts = 10, span_min = 24 * 60, interval_s = 10;
	struct report reps[BATCH], *ptrs[BATCH];
	int results[BATCH], c, n = 0, rc = 1;
	char err[512];
	long long end_ms, start_ms, count = 0;
	struct store *st, *rs;
	struct rollup *ru;
	sqlite3 *db;
	double t0, t1, t2, host_days;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			path = optarg;
			break;
		case 'H':
			hosts = (unsigned)atoi(optarg);
			break;
		case 'h':
			span_min = (unsigned)atoi(optarg) * 60;
			break;
		case 'm':
			span_min = (unsigned)atoi(optarg);
			break;
		case 'i':
			interval_s = (unsigned)atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!path || !hosts || !span_min || !interval_s) {
		fprintf(stderr, "usage: bench_fill --db FILE --hosts N (--hours H | --minutes M) --interval-s S\n");
		return 2;
	}
	db = sqlite_db_open(path, err, sizeof(err));
	st = db ? store_sqlite_open(path, err, sizeof(err)) : NULL;
	if (!st) {
		fprintf(stderr, "bench_fill: %s\n", err);
		return 1;
	}
	end_ms = ingest_now_ms();
	end_ms -= end_ms % 60000;
	start_ms = end_ms - (long long)span_min * 60000;
	t0 = now_s();
	for (long long t = start_ms, seq = 1; t < end_ms; t += interval_s * 1000LL, seq++) {
		for (unsigned h = 0; h < hosts; h++) {
			size_t len;
			/* a tail of its own: the blob dictionaries are trained on the first reports,
			 * and a few tails repeated would be learnt whole (see loadgen's TAILS) */
			char *tail = bench_tail();
			char *body =
			    tail ? bench_body("fill", h, (unsigned long long)seq, t, interval_s * 1000LL, tail, &len)
				 : NULL;
			int status = body ? report_parse(body, len, &reps[n], err, sizeof(err)) : 500;

			free(body);
			free(tail);
			if (status) {
				fprintf(stderr, "bench_fill: report refused: %s\n", err);
				goto out;
			}
			ptrs[n] = &reps[n];
			if (++n == BATCH || (t + interval_s * 1000LL >= end_ms && h + 1 == hosts)) {
				/* stored as they would have arrived, so staged keys move on the way
				 * (schema/sqlite/0018) */
				if (st->ops->put_reports(st, ptrs, (size_t)n, results, t + interval_s * 1000LL,
							 INT64_MIN) < 0) {
					fprintf(stderr, "bench_fill: %s\n", st->ops->errmsg(st));
					goto out;
				}
				for (int k = 0; k < n; k++)
					report_free(&reps[k]);
				/* the blob dictionaries are trained and taken into use as a server's rollup worker
				 * would (it does so every 5 s), on the fill's clock */
				if (store_dicts_tend(st, t + interval_s * 1000LL, true) < 0) {
					fprintf(stderr, "bench_fill: %s\n", st->ops->errmsg(st));
					goto out;
				}
				if ((count / BATCH) % 20 == 0)
					st->ops->maintain(st, true); /* handles never checkpoint on their own */
				count += n;
				n = 0;
			}
		}
	}
	/* what is still staged moves as a server idle past the fill would move it */
	c = 0;
	while (st->ops->idle && (c = st->ops->idle(st, end_ms + 3600000)) > 0)
		;
	if (c < 0)
		goto out;
	t1 = now_s();
	rs = store_sqlite_open(path, err, sizeof(err));
	ru = rs ? rollup_new(rs, NULL, rollup_default_retain_ms) : NULL;
	if (!ru)
		goto out;
	while ((c = rollup_run(ru, end_ms + ROLLUP_GRACE_MS)) > 0)
		rs->ops->maintain(rs, true);
	/* and, as a server's worker would a minute later, the raw rows behind the caught-up mark into chunks */
	if (c == 0)
		while ((c = rollup_run(ru, end_ms + ROLLUP_GRACE_MS + 2 * 60000)) > 0)
			rs->ops->maintain(rs, true);
	rs->ops->maintain(rs, true);
	rollup_free(ru);
	t2 = now_s();
	if (c < 0)
		goto out;
	host_days = (double)hosts * span_min / 1440.0;
	{
		double reports_b =
		    query_d(db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'reports%' OR "
				"name LIKE 'report_chunks%' OR name IN ('sqlite_autoindex_reports_1', 'report_keys', "
				"'report_times')");
		double roll_b = query_d(db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'rollups%' OR "
					    "name = 'sqlite_autoindex_rollups_1'");
		double fleet_b = query_d(db, "SELECT sum(pgsize) FROM dbstat WHERE name = 'fleet_rollups'");
		double pay1 = query_d(db, "SELECT sum(length(host_hist) + length(series) + coalesce(length(iocost), 0) "
					  "+ 64) FROM rollups WHERE level = 1");
		double pay2 = query_d(db, "SELECT sum(length(host_hist) + length(series) + coalesce(length(iocost), 0) "
					  "+ 64) FROM rollups WHERE level = 2");
		double min_b = pay1 + pay2 > 0 ? roll_b * pay1 / (pay1 + pay2) : 0, hour_b = roll_b - min_b;
		double raw_d = reports_b / host_days, min_d = min_b / host_days, hour_d = hour_b / host_days;
		/* At the default retention a host keeps 2 days raw, 14 days of minutes, 365 of hours. */
		double steady = 2 * raw_d + 14 * min_d + 365 * hour_d;

		printf("filled reports=%lld hosts=%u hours=%g interval_s=%u store_rate=%.0f/s rollup_s=%.1f\n", count,
		       hosts, span_min / 60.0, interval_s, (double)count / (t1 - t0), t2 - t1);
		printf("bytes_per_host_day raw=%.0f minute=%.0f hour=%.0f all_levels=%.0f (fleet rollups: %.0f per day "
		       "for the whole fleet)\n",
		       raw_d, min_d, hour_d, raw_d + min_d + hour_d, fleet_b / (span_min / 1440.0));
		printf("at_default_retention growth_per_host_day=%.0f (once the 48 h raw and 14 d minute windows are "
		       "full only the hour level grows) footprint_per_host_at_steady_state=%.0f\n",
		       hour_d, steady);
	}
	rc = 0;
out:
	for (int k = 0; k < n; k++)
		report_free(&reps[k]);
	st->ops->close(st);
	sqlite3_close(db);
	return rc;
}
