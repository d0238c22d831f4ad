/* store_sqlite.h - private to the SQLite store: the handle and its prepared
 * statements, shared by store_sqlite.c (writes) and store_sqlite_read.c. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_STORE_SQLITE_H
#define SCHEDIO_SERVER_STORE_SQLITE_STORE_SQLITE_H

#include <sqlite3.h>

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
	STORE_SQLITE_REPORT_INSERT,
	STORE_SQLITE_DIRTY_INSERT,
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
	STORE_SQLITE_PAGES,
	STORE_SQLITE_COUNT
};

struct store_sqlite {
	struct store base;
	sqlite3 *db;
	sqlite3_stmt *st[STORE_SQLITE_COUNT];
	int wal_frames; /* frames in the WAL after this handle's last commit */
};

/* Resets and clears a statement's bindings before it is used again. */
sqlite3_stmt *store_sqlite_stmt(struct store_sqlite *s, enum store_sqlite_stmt which);
/* The read operations, in store_sqlite_read.c; see struct store_ops. */
int store_sqlite_hosts(struct store *base, const char *machine_id, store_host_fn fn, void *arg);
int store_sqlite_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg);
int store_sqlite_scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,
		      store_row_fn fn, void *arg);
int store_sqlite_scan_hist(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,
			   store_row_fn fn, void *arg);
int store_sqlite_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg);
int store_sqlite_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg);
int store_sqlite_fleet_scan(struct store *base, enum store_level lv, const char *dim, int64_t from, int64_t to,
			    store_fleet_fn fn, void *arg);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_STORE_SQLITE_H */
