/* store_sqlite.h - private to the SQLite store: the handle and its prepared
 * statements, shared by store_sqlite.c (writes) and store_sqlite_read.c. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_H
#define SCHEDIO_SERVER_STORE_SQLITE_H

#include <sqlite3.h>

#include "server/store.h"

enum sq_stmt {
	SQ_BEGIN, SQ_COMMIT, SQ_ROLLBACK, SQ_SAVEPOINT, SQ_RELEASE, SQ_ROLLBACK_TO,
	SQ_HOST_ID, SQ_HOST_INSERT, SQ_HOST_UPDATE, SQ_REPORT_INSERT, SQ_DIRTY_INSERT,
	SQ_HOSTS_ALL, SQ_HOSTS_ONE, SQ_REPORTS, SQ_SCAN_RAW_HOST, SQ_SCAN_RAW_ALL, SQ_SCAN_ROLL_HOST,
	SQ_SCAN_ROLL_ALL, SQ_SCAN_RAW_HOST_H, SQ_SCAN_RAW_ALL_H, SQ_SCAN_ROLL_HOST_H, SQ_SCAN_ROLL_ALL_H, SQ_LATEST, SQ_HOSTS_IN_RAW, SQ_HOSTS_IN_ROLL, SQ_FLEET_SCAN,
	SQ_ROLLUP_PUT, SQ_FLEET_PUT, SQ_FLEET_DEL, SQ_DIRTY_SELECT, SQ_DIRTY_DELETE,
	SQ_EXPIRE_RAW, SQ_EXPIRE_ROLL, SQ_EXPIRE_FLEET, SQ_META_GET, SQ_META_PUT, SQ_PAGES,
	SQ_COUNT
};

struct sq_store {
	struct store base;
	sqlite3 *db;
	sqlite3_stmt *st[SQ_COUNT];
	int wal_frames; /* frames in the WAL after this handle's last commit */
};

/* Resets and clears a statement's bindings before it is used again. */
sqlite3_stmt *sq_stmt(struct sq_store *s, enum sq_stmt which);
/* The read operations, in store_sqlite_read.c; see struct store_ops. */
int sq_hosts(struct store *base, const char *machine_id, store_host_fn fn, void *arg);
int sq_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg);
int sq_scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, store_row_fn fn,
	    void *arg);
int sq_scan_hist(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, store_row_fn fn,
		 void *arg);
int sq_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg);
int sq_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg);
int sq_fleet_scan(struct store *base, enum store_level lv, const char *dim, int64_t from, int64_t to,
		  store_fleet_fn fn, void *arg);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_H */
