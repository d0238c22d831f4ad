/* ingest.h - the ingest pipeline: HTTP threads parse and check reports, then
 * hand them to one writer thread that stores everything queued in one
 * transaction and resumes each suspended connection after the commit. So an
 * acknowledgement always means "on disk", and a few HTTP threads keep many
 * ingests in flight. */
#ifndef SCHEDIO_SERVER_INGEST_INGEST_H
#define SCHEDIO_SERVER_INGEST_INGEST_H

#include <stdint.h>

#include "server/http/http.h"

struct ingest;
struct store;

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
