/* store_pg.h - private to the PostgreSQL store: the handle and its prepared
 * statements, shared by store_pg.c (writes) and store_pg_read.c. */
#ifndef SCHEDIO_SERVER_STORE_PG_H
#define SCHEDIO_SERVER_STORE_PG_H

#include <stdbool.h>

#include "server/pg_conn.h"
#include "server/store.h"

enum pq_stmt {
	PQ_HOST_REPORT, PQ_DUP_CHECK,
	PQ_HOSTS_ALL, PQ_HOSTS_ONE, PQ_REPORTS, PQ_SCAN_RAW_HOST, PQ_SCAN_RAW_ALL, PQ_SCAN_ROLL_HOST,
	PQ_SCAN_ROLL_ALL, PQ_SCAN_RAW_HOST_H, PQ_SCAN_RAW_ALL_H, PQ_SCAN_ROLL_HOST_H, PQ_SCAN_ROLL_ALL_H, PQ_LATEST, PQ_HOSTS_IN_RAW, PQ_HOSTS_IN_ROLL, PQ_FLEET_SCAN,
	PQ_ROLLUP_PUT, PQ_FLEET_PUT, PQ_FLEET_DEL, PQ_DIRTY_TAKE,
	PQ_EXPIRE_RAW, PQ_EXPIRE_ROLL, PQ_EXPIRE_FLEET, PQ_META_GET, PQ_META_PUT, PQ_SIZE, PQ_TRY_LOCK,
	PQ_COUNT
};

struct pq_store {
	struct store base;
	PGconn *c;
	bool lead[2]; /* advisory locks this session holds (see try_lead) */
};

/* Reconnects the handle if its connection dropped (statements prepared again); 0 or -1. */
int pq_ready(struct pq_store *s);
/* The statement name of which ("pN"). */
const char *pq_name(enum pq_stmt which);
/* The read operations, in store_pg_read.c; see struct store_ops. */
int pq_hosts(struct store *base, const char *machine_id, store_host_fn fn, void *arg);
int pq_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg);
int pq_scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, store_row_fn fn,
	    void *arg);
int pq_scan_hist(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to, store_row_fn fn,
		 void *arg);
int pq_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg);
int pq_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg);
int pq_fleet_scan(struct store *base, enum store_level lv, const char *dim, int64_t from, int64_t to,
		  store_fleet_fn fn, void *arg);

#endif /* SCHEDIO_SERVER_STORE_PG_H */
