/* rollup.h - the background worker that turns raw reports into 1-minute and
 * 1-hour rollups (per host and per fleet group), redoes buckets that got late
 * reports, and applies each level's retention. It works in small
 * transactions beside the ingest writer, so ingest never waits long. */
#ifndef SCHEDIO_SERVER_SERIES_ROLLUP_H
#define SCHEDIO_SERVER_SERIES_ROLLUP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/store/store.h"

/* A minute is rolled up once this long has passed since it ended; reports
 * for it that arrive later are "late" and redo it. */
#define ROLLUP_GRACE_MS 120000LL

struct ingest;

struct rollup {
	struct store *st;      /* the worker's own handle */
	struct ingest *ingest; /* fenced before a minute is read; NULL in offline tools */
	int64_t retain_ms[STORE_LEVELS];
	_Atomic int64_t mark[STORE_LEVELS]; /* every bucket before mark[lv] is rolled up (lv >= 1) */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stopping, running;
};

/* Default retention per level: raw 48 h, 1-minute 14 days, 1-hour 365 days. */
extern const int64_t rollup_default_retain_ms[STORE_LEVELS];

/* Sets up a worker on st (taken over) and loads its progress; NULL on error. */
struct rollup *rollup_new(struct store *st, struct ingest *in, const int64_t retain_ms[STORE_LEVELS]);
/* Does what is due at now_ms, in bounded steps; returns 1 if work remains, 0 when idle, -1 on error. */
int rollup_run(struct rollup *r, int64_t now_ms);
/* Runs rollup_run in a background thread every few seconds until rollup_free. */
int rollup_start_thread(struct rollup *r);
/* Stops the thread if running and frees the worker and its store handle. */
void rollup_free(struct rollup *r);

#endif /* SCHEDIO_SERVER_SERIES_ROLLUP_H */
