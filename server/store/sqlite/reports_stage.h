/* reports_stage.h - the SQLite store's staged report keys (schema/sqlite/0018):
 * a new report's row is appended to reports and its keys to the active
 * staging table; a frozen one's keys are moved into report_keys and
 * report_times in host order inside the following ingest commits, then it is
 * emptied. The ingest writer keeps in memory which reports are staged (the
 * duplicate check) and the frozen table's entries in host order. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_REPORTS_STAGE_H
#define SCHEDIO_SERVER_STORE_SQLITE_REPORTS_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "server/ingest/report_parse.h"

/* How often the active staging table is frozen and moved, by default. */
#define REPORTS_STAGE_PERIOD_MS 60000

struct reports_stage;

/* A writer's staging for connection db, its statements prepared; NULL on failure (see sqlite3_errmsg). */
struct reports_stage *reports_stage_new(sqlite3 *db);
/* Frees g and its statements (NULL: nothing). */
void reports_stage_free(struct reports_stage *g);
/* Sets the time between freezes of the active staging table (tests use short ones). */
void reports_stage_set_period(struct reports_stage *g, int64_t ms);
/* Inside an ingest transaction, before its reports: reloads the memory when it is stale (*reloaded
 * set: another connection wrote, or this handle had none); 0 or -1. */
int reports_stage_begin(struct reports_stage *g, int64_t now_ms, bool *reloaded);
/* Stores report r of host host_id and stages its keys, unless it is stored already (*dup set); 0 or -1. */
int reports_stage_put(struct reports_stage *g, const struct report *r, int64_t host_id, int64_t now_ms, bool *dup);
/* Before the commit of a transaction that took n reports (0: an idle writer's own transaction):
 * a share of the move (or of the emptying) sized to n, a freeze when one is due, the state row;
 * 0 or -1 (nothing of it kept). */
int reports_stage_end(struct reports_stage *g, size_t n, int64_t now_ms);
/* Whether staging work is left: a table to move or empty, or staged reports to freeze. */
bool reports_stage_pending(const struct reports_stage *g);
/* Whether staging work can be done at now_ms: a table to move or empty, or a freeze due. */
bool reports_stage_due(const struct reports_stage *g, int64_t now_ms);
/* After a transaction rolled back: the memory is reloaded from the database at the next begin. */
void reports_stage_abort(struct reports_stage *g);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_REPORTS_STAGE_H */
