/* store_sqlite.h - private to the SQLite store: the handle and its prepared
 * statements, shared by store_sqlite.c (writes) and store_sqlite_read.c. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_STORE_SQLITE_H
#define SCHEDIO_SERVER_STORE_SQLITE_STORE_SQLITE_H

#include <sqlite3.h>
#include <stdbool.h>

#include "server/store/sqlite/report_chunks.h"
#include "server/store/store.h"

enum store_sqlite_stmt {
	STORE_SQLITE_BEGIN,
	STORE_SQLITE_COMMIT,
	STORE_SQLITE_ROLLBACK,
	STORE_SQLITE_SAVEPOINT,
	STORE_SQLITE_RELEASE,
	STORE_SQLITE_ROLLBACK_TO,
	STORE_SQLITE_HOST_ID,
	STORE_SQLITE_HOST_INSERT,
	STORE_SQLITE_HOST_UPDATE,
	STORE_SQLITE_DIRTY_INSERT,
	STORE_SQLITE_AGENT_PUT,
	STORE_SQLITE_HOSTS_ALL,
	STORE_SQLITE_HOSTS_ONE,
	STORE_SQLITE_REPORTS,
	STORE_SQLITE_SCAN_RAW_HOST,
	STORE_SQLITE_SCAN_RAW_ALL,
	STORE_SQLITE_SCAN_ROLL_HOST,
	STORE_SQLITE_SCAN_ROLL_ALL,
	STORE_SQLITE_SCAN_RAW_HOST_H,
	STORE_SQLITE_SCAN_RAW_ALL_H,
	STORE_SQLITE_SCAN_ROLL_HOST_H,
	STORE_SQLITE_SCAN_ROLL_ALL_H,
	STORE_SQLITE_LATEST,
	STORE_SQLITE_HOSTS_IN_RAW,
	STORE_SQLITE_HOSTS_IN_ROLL,
	STORE_SQLITE_FLEET_SCAN,
	STORE_SQLITE_ROLLUP_PUT,
	STORE_SQLITE_FLEET_PUT,
	STORE_SQLITE_FLEET_DEL,
	STORE_SQLITE_DIRTY_SELECT,
	STORE_SQLITE_DIRTY_DELETE,
	STORE_SQLITE_EXPIRE_RAW,
	STORE_SQLITE_EXPIRE_ROLL,
	STORE_SQLITE_EXPIRE_FLEET,
	STORE_SQLITE_META_GET,
	STORE_SQLITE_META_PUT,
	STORE_SQLITE_DICT_PUT,
	STORE_SQLITE_DICTS,
	STORE_SQLITE_PAGES,
	STORE_SQLITE_EXITS_INSERT,
	STORE_SQLITE_EXPIRE_EXITS,
	STORE_SQLITE_HEALTH_HOST,
	STORE_SQLITE_HEALTH_ALL,
	STORE_SQLITE_EXITS_HOST,
	STORE_SQLITE_EXITS_ALL,
	STORE_SQLITE_LABEL_EXTEND,
	STORE_SQLITE_LABEL_START,
	STORE_SQLITE_EXPIRE_LABELS,
	STORE_SQLITE_LABEL_HOSTS,
	STORE_SQLITE_EXPERIMENTS_ALL,
	STORE_SQLITE_EXPERIMENTS_ONE,
	STORE_SQLITE_EXPERIMENT_PUT,
	STORE_SQLITE_EXPERIMENT_DELETE,
	STORE_SQLITE_COUNT
};

struct store_sqlite {
	struct store base;
	sqlite3 *db;
	sqlite3_stmt *st[STORE_SQLITE_COUNT];
	int wal_frames;               /* frames in the WAL after this handle's last commit */
	struct reports_stage *stage;  /* the staging of reports, made by the first put_reports */
	struct host_state *hosts;     /* the hosts' rows in memory, made by the first put_reports */
	struct report_chunks *chunks; /* raw reports kept as chunks (store_sqlite_chunks) */
	bool nosync;                  /* this handle runs the chunk pass: it commits without fsync */
	int64_t chunked_below;        /* put_reports: no chunk holds a report starting at or after this */
};

/* Resets and clears a statement's bindings before it is used again. */
sqlite3_stmt *store_sqlite_stmt(struct store_sqlite *s, enum store_sqlite_stmt which);
/* The handle's chunk statements (report_chunks.h), made when first used; NULL when out of memory.
 * SCHEDIO_SQLITE_CHUNK_AFTER_MS, _MIN, _PERIOD_MS and _SWEEP_MS set the
 * pass's knobs (report_chunks_configure; tests make them small). */
struct report_chunks *store_sqlite_chunks(struct store_sqlite *s);
/* The read operations, in store_sqlite_read.c; see struct store_ops. */
STORE_DECLARE_READ_OPS(store_sqlite);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_STORE_SQLITE_H */
