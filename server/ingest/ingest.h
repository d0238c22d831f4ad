/* ingest.h - the ingest pipeline: HTTP threads parse and check reports, then
 * hand them to one writer thread that stores everything queued in one
 * transaction and resumes each suspended connection after the commit. So an
 * acknowledgement always means "on disk", and a few HTTP threads keep many
 * ingests in flight. */
#ifndef SCHEDIO_SERVER_INGEST_INGEST_H
#define SCHEDIO_SERVER_INGEST_INGEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "server/http/http.h"
#include "server/ingest/report_parse.h"

struct ingest;
struct store;

/* One report on its way to the writer: the HTTP thread fills rep and t0_us,
 * the writer sets result, then done, then resumes conn. */
struct ingest_job {
	struct ingest_job *next;
	struct MHD_Connection *conn;
	struct report rep; /* parsed by the HTTP thread */
	int64_t t0_us;
	atomic_int done; /* set by the writer before it resumes the connection */
	int result;      /* enum store_put_result, or -1 when refused */
};

/* Frees a job and its report (a request's state_free). */
void ingest_job_free(void *p);
/* Queues a job whose connection is suspended; false when the server is
 * stopping or the queue is full (the caller answers it at once). */
bool ingest_submit(struct ingest *in, struct ingest_job *job);
/* Microseconds of the monotonic clock (ingest latency). */
int64_t ingest_mono_us(void);

/* Starts the writer thread on its own store handle (taken over); NULL on failure. */
struct ingest *ingest_start(struct server *srv, struct store *st);
/* Refuses new reports, stores and answers the queued ones, stops the writer. */
void ingest_stop(struct ingest *in);
/* Moves the late-report mark to minute_mark (reports starting before it queue
 * their minute for a rollup redo) and waits until every batch that began
 * under the old mark has committed. */
void ingest_fence(struct ingest *in, int64_t minute_mark);
/* Milliseconds since the epoch (wall clock). */
int64_t ingest_now_ms(void);

#endif /* SCHEDIO_SERVER_INGEST_INGEST_H */
