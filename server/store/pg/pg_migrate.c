/* pg_migrate.c - schema migrations for PostgreSQL (see pg_migrate.h). They run
 * in one transaction that first takes pg_advisory_xact_lock: servers starting
 * together queue on the lock, the first applies what is missing, the others
 * then find nothing to do. The lock is released by the COMMIT or ROLLBACK
 * itself, so a server killed mid-migration leaves neither the lock nor a
 * half-applied schema.
 */
#include "server/store/pg/pg_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/migrations.h"
#include "server/store/pg/pg_conn.h"

static int latest_version(void)
{
	int v = 0;

	for (size_t i = 0; i < migrations_postgresql_count; i++)
		if (migrations_postgresql[i].version > v)
			v = migrations_postgresql[i].version;
	return v;
}

/* The recorded schema version (0 when the table does not exist yet), or -1. */
static int current_version(PGconn *c)
{
	PGresult *r = PQexec(c, "SELECT to_regclass('schema_version') IS NOT NULL");
	int v = -1;

	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		v = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
	PQclear(r);
	if (v != 1)
		return v;
	r = PQexec(c, "SELECT coalesce(max(version), 0) FROM schema_version");
	v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
	PQclear(r);
	return v;
}

int pg_migrate(PGconn *c, char *err, size_t errlen)
{
	char sql[256];
	int have, latest = latest_version();

	snprintf(sql, sizeof(sql), "BEGIN; SELECT pg_advisory_xact_lock(%lld)", (long long)PG_MIGRATE_LOCK);
	if (pg_exec(c, sql) < 0)
		goto dberr;
	have = current_version(c);
	if (have < 0)
		goto dberr;
	if (have > latest) {
		pg_exec(c, "ROLLBACK");
		snprintf(err, errlen,
			 "database has schema version %d, newer than this server's %d; refusing to use it (upgrade "
			 "schedio-server)",
			 have, latest);
		return -1;
	}
	if (have < latest && pg_exec(c, "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, "
					"name TEXT NOT NULL, applied_ms BIGINT NOT NULL)") < 0)
		goto dberr;
	/* Embedded sorted by version (cmake/embed_migrations.cmake). */
	for (size_t i = 0; i < migrations_postgresql_count; i++) {
		const struct migration *m = &migrations_postgresql[i];

		if (m->version <= have)
			continue;
		if (pg_exec(c, m->sql) < 0) {
			snprintf(err, errlen, "migration %04d (%s) failed: %s", m->version, m->name, PQerrorMessage(c));
			pg_exec(c, "ROLLBACK");
			return -1;
		}
		snprintf(sql, sizeof(sql),
			 "INSERT INTO schema_version (version, name, applied_ms) VALUES (%d, '%s', "
			 "(floor(extract(epoch FROM now()) * 1000))::bigint)",
			 m->version, m->name);
		if (pg_exec(c, sql) < 0)
			goto dberr;
	}
	if (pg_exec(c, "COMMIT") < 0)
		goto dberr;
	return 0;
dberr:
	snprintf(err, errlen, "PostgreSQL migration: %s", PQerrorMessage(c));
	pg_exec(c, "ROLLBACK");
	return -1;
}

int pg_setup(const char *conninfo, char *err, size_t errlen)
{
	PGconn *c = pg_connect(conninfo, err, errlen);
	int rc = c ? pg_migrate(c, err, errlen) : -1;

	PQfinish(c);
	return rc;
}
