/* host_state.h - the SQLite ingest writer's memory of each host's row: what
 * its descriptive columns hold, and its last report times and agent seq
 * when they are newer than the row. Under load those two are written to
 * `hosts` in host order a share at a time (every row once a sweep), not a
 * row a report: with tens of thousands of hosts every report would
 * otherwise dirty an 8 KiB page of its own (BENCHMARKS.md, issue 18). */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_HOST_STATE_H
#define SCHEDIO_SERVER_STORE_SQLITE_HOST_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#include "server/ingest/report_parse.h"

/* How long a sweep over every host's row takes, by default: the most a row lags under load. */
#define HOST_STATE_SWEEP_MS 20000

struct host_state;

/* A writer's host memory for connection db, its statements prepared; NULL on failure. */
struct host_state *host_state_new(sqlite3 *db);
/* Frees hs and its statements (NULL: nothing). */
void host_state_free(struct host_state *hs);
/* Sets the time a sweep takes (tests use short ones). */
void host_state_set_sweep(struct host_state *hs, int64_t ms);
/* The agent incarnation and seq held for host id, when newer than its row; false if none held. */
bool host_state_agent(const struct host_state *hs, int64_t id, const char **incarnation, int64_t *seq);
/* Keeps stored report r's last times and agent seq (seq) for host id in memory instead of writing
 * its row, when memory knows the row and r changes nothing else of it; false if it must be written. */
bool host_state_defer(struct host_state *hs, int64_t id, const struct report *r, int64_t seq);
/* Before host id's row is written a report at a time: writes what memory holds newer, so
 * that the row's guard against older reports sees the newest times; 0 or -1. */
int host_state_write_held(struct host_state *hs, int64_t id);
/* After report r's values were written to host id's row (applied: its descriptive columns and
 * last times too, as r was the newest; seq the agent seq written): remembers them. */
void host_state_written(struct host_state *hs, int64_t id, const struct report *r, int64_t seq, bool applied);
/* Writes the rows due by now_ms in the sweep (all held ones when all); 0 or -1. */
int host_state_sweep(struct host_state *hs, int64_t now_ms, bool all);
/* Whether rows wait to be written. */
bool host_state_pending(const struct host_state *hs);
/* Forgets everything (after a rollback: memory may hold what was not committed). */
void host_state_forget(struct host_state *hs);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_HOST_STATE_H */
