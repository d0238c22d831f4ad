/* ingest.h - the ingest pipeline: HTTP threads parse and check reports, then
 * hand them to one writer thread that stores everything queued in one
 * transaction and resumes each suspended connection after the commit. So an
 * acknowledgement always means "on disk", and a few HTTP threads keep many
 * ingests in flight.
 *
 * Overload is answered, not queued: a report is refused (503 with
 * Retry-After) when the queue is full, when the writer's expected wait says
 * it would not be stored in time, or when it waited in the queue past the
 * bound. A refused report is never stored, and a report the writer took is
 * never refused. */
#ifndef SCHEDIO_SERVER_INGEST_INGEST_H
#define SCHEDIO_SERVER_INGEST_INGEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/http/http.h"
#include "server/ingest/report_parse.h"

struct ingest;
struct store;

/* What ingest may hold back before it refuses (server options). */
struct ingest_limits {
	unsigned max_queue;  /* reports waiting for the writer at most */
	int64_t max_wait_us; /* a report is answered within about this long, stored or refused */
	int64_t linger_us;   /* the writer waits this long for a fuller batch (0: never) */
};

/* result of a job that was not stored: the answer is 503 with Retry-After. */
#define INGEST_REFUSED (-1)

/* One report on its way to the writer: the HTTP thread fills rep and t0_us,
 * the writer (or the shedder) sets result, then done, then resumes conn. */
struct ingest_job {
	struct ingest_job *next;
	struct MHD_Connection *conn;
	struct report rep;      /* parsed by the HTTP thread */
	int64_t t0_us;          /* when the request arrived (monotonic) */
	atomic_int done;        /* set before the connection is resumed */
	int result;             /* enum store_put_result, or INGEST_REFUSED */
	unsigned retry_after_s; /* with INGEST_REFUSED: when to come back */
};

/* Frees a job and its report (a request's state_free). */
void ingest_job_free(void *p);
/* Whether a report that arrived at t0_us can still be stored in time: false
 * (with the seconds to wait in *retry_after_s, and the refusal counted) when
 * stopping, the queue is full, or the expected wait passes the bound. Cheap:
 * asked before the report is parsed. */
bool ingest_admit(struct ingest *in, int64_t t0_us, unsigned *retry_after_s);
/* Queues a job whose connection is suspended; false (with job->retry_after_s
 * set) when ingest_admit would refuse it now (the caller answers it at once). */
bool ingest_submit(struct ingest *in, struct ingest_job *job);
/* Microseconds of the monotonic clock (ingest latency). */
int64_t ingest_mono_us(void);

/* Starts the writer and shedder threads; the writer on its own store handle
 * (taken over); NULL on failure. */
struct ingest *ingest_start(struct server *srv, struct store *st, struct ingest_limits lim);
/* Reports waiting for the writer right now (a gauge for /metrics). */
size_t ingest_queued(struct ingest *in);
/* Refuses new reports, stores and answers the queued ones, stops the writer. */
void ingest_stop(struct ingest *in);
/* Moves the late-report mark to minute_mark (reports starting before it queue
 * their minute for a rollup redo) and waits until every batch that began
 * under the old mark has committed. */
void ingest_fence(struct ingest *in, int64_t minute_mark);
/* Milliseconds since the epoch (wall clock). */
int64_t ingest_now_ms(void);

#endif /* SCHEDIO_SERVER_INGEST_INGEST_H */
