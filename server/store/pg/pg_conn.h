/* pg_conn.h - what every PostgreSQL part of the server shares: telling a
 * libpq connection string from a SQLite path, connecting, and binary parameters and results (every integer column is
 * BIGINT, so one 8-byte big-endian reader serves them all). */
#ifndef SCHEDIO_SERVER_STORE_PG_PG_CONN_H
#define SCHEDIO_SERVER_STORE_PG_PG_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libpq-fe.h>

#define PG_MAX_PARAMS 32

/* Advisory lock key of the migrations (any constant unlikely to clash: "schedio" in ASCII);
 * the keys just above it lock the rollup jobs (store_pg.c). */
#define PG_MIGRATE_LOCK 0x73636865646970LL

/* One statement's parameters, all in binary format. */
struct pg_params {
	int n;
	const char *v[PG_MAX_PARAMS];
	int len[PG_MAX_PARAMS];
	int fmt[PG_MAX_PARAMS];
	uint64_t ints[PG_MAX_PARAMS];
};

/* True if db names a PostgreSQL database (postgresql:// or postgres:// URI, or conninfo with host= or dbname=). */
bool pg_is_conninfo(const char *db);
/* Connects to conninfo (quietly: client_min_messages=warning); NULL with err. */
PGconn *pg_connect(const char *conninfo, char *err, size_t errlen);
/* Runs sql (no parameters, no rows wanted); 0 or -1. */
int pg_exec(PGconn *c, const char *sql);
/* Adds an 8-byte integer, a text (NULL: SQL NULL) or a bytea (present false: SQL NULL). */
void pg_p_int(struct pg_params *p, int64_t v);
void pg_p_text(struct pg_params *p, const char *s);
void pg_p_blob(struct pg_params *p, const void *data, size_t len, bool present);
/* Runs a prepared statement with binary results; the result (caller clears) or NULL on error (cleared). */
PGresult *pg_run(PGconn *c, const char *name, const struct pg_params *p);
/* Binary-result readers: an int8 (0 when NULL), a text (NULL when NULL), a bytea (NULL and 0 when NULL or empty). */
int64_t pg_int(const PGresult *r, int row, int col);
const char *pg_text(const PGresult *r, int row, int col);
const void *pg_blob(const PGresult *r, int row, int col, size_t *len);
/* Reconnects a dropped connection (PostgreSQL restarted, network cut) and prepares its
 * statements again; 0 when usable (1 when it was just reconnected), -1 when still down. */
int pg_revive(PGconn *c, const char *const *names, const char *const *sqls, int count);
/* Prepares count statements named names[i] from sqls[i]; 0 or -1 with err. */
int pg_prepare_all(PGconn *c, const char *const *names, const char *const *sqls, int count, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_STORE_PG_PG_CONN_H */
