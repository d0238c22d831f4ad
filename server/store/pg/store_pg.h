/* store_pg.h - private to the PostgreSQL store: the handle and its prepared
 * statements, shared by store_pg.c (writes) and store_pg_read.c. */
#ifndef SCHEDIO_SERVER_STORE_PG_STORE_PG_H
#define SCHEDIO_SERVER_STORE_PG_STORE_PG_H

#include <stdbool.h>

#include "server/store/pg/pg_conn.h"
#include "server/store/store.h"

enum store_pg_stmt {
	STORE_PG_HOST_REPORT,
	STORE_PG_DUP_CHECK,
	STORE_PG_AGENT_TRACK,
	STORE_PG_HOSTS_ALL,
	STORE_PG_HOSTS_ONE,
	STORE_PG_REPORTS,
	STORE_PG_SCAN_RAW_HOST,
	STORE_PG_SCAN_RAW_ALL,
	STORE_PG_SCAN_ROLL_HOST,
	STORE_PG_SCAN_ROLL_ALL,
	STORE_PG_SCAN_RAW_HOST_H,
	STORE_PG_SCAN_RAW_ALL_H,
	STORE_PG_SCAN_ROLL_HOST_H,
	STORE_PG_SCAN_ROLL_ALL_H,
	STORE_PG_LATEST,
	STORE_PG_HOSTS_IN_RAW,
	STORE_PG_HOSTS_IN_ROLL,
	STORE_PG_FLEET_SCAN,
	STORE_PG_ROLLUP_PUT,
	STORE_PG_FLEET_PUT,
	STORE_PG_FLEET_DEL,
	STORE_PG_DIRTY_TAKE,
	STORE_PG_EXPIRE_RAW,
	STORE_PG_EXPIRE_ROLL,
	STORE_PG_EXPIRE_FLEET,
	STORE_PG_META_GET,
	STORE_PG_META_PUT,
	STORE_PG_DICT_PUT,
	STORE_PG_DICTS,
	STORE_PG_SIZE,
	STORE_PG_TRY_LOCK,
	STORE_PG_EXPIRE_EXITS,
	STORE_PG_HEALTH_HOST,
	STORE_PG_HEALTH_ALL,
	STORE_PG_EXITS_HOST,
	STORE_PG_EXITS_ALL,
	STORE_PG_LABEL_SPAN,
	STORE_PG_EXPIRE_LABELS,
	STORE_PG_LABEL_HOSTS,
	STORE_PG_EXPERIMENTS_ALL,
	STORE_PG_EXPERIMENTS_ONE,
	STORE_PG_EXPERIMENT_PUT,
	STORE_PG_EXPERIMENT_DELETE,
	STORE_PG_COUNT
};

struct store_pg {
	struct store base;
	PGconn *c;
	bool lead[2]; /* advisory locks this session holds (see try_lead) */
};

/* Reconnects the handle if its connection dropped (statements prepared again); 0 or -1. */
int store_pg_ready(struct store_pg *s);
/* The statement name of which ("pN"). */
const char *store_pg_name(enum store_pg_stmt which);
/* The read operations, in store_pg_read.c; see struct store_ops. */
STORE_DECLARE_READ_OPS(store_pg);

#endif /* SCHEDIO_SERVER_STORE_PG_STORE_PG_H */
