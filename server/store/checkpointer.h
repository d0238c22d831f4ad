/* checkpointer.h - a thread that runs the store's background maintenance
 * (SQLite: WAL checkpoints) every 100 ms on its own handle, so the ingest
 * writer never copies the WAL back in its acknowledgement path. */
#ifndef SCHEDIO_SERVER_STORE_CHECKPOINTER_H
#define SCHEDIO_SERVER_STORE_CHECKPOINTER_H

#include "server/store/store.h"

struct checkpointer;

/* Starts the thread on st (taken over); NULL on failure (st closed). */
struct checkpointer *checkpointer_start(struct store *st);
/* Stops the thread and closes its handle. */
void checkpointer_stop(struct checkpointer *c);

#endif /* SCHEDIO_SERVER_STORE_CHECKPOINTER_H */
