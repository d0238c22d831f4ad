/* pg_conn.c - see pg_conn.h. Migrations run in one transaction that first
 * takes pg_advisory_xact_lock: servers starting together queue on the lock,
 * the first applies what is missing, the others then find nothing to do. The
 * lock is released by the COMMIT or ROLLBACK itself, so a server killed
 * mid-migration leaves neither the lock nor a half-applied schema.
 */
#include "server/store/pg/pg_conn.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/migrations.h"

bool pg_is_conninfo(const char *db)
{
	return db && (!strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11) || strstr(db, "host=") ||
		      strstr(db, "dbname="));
}

PGconn *pg_connect(const char *conninfo, char *err, size_t errlen)
{
	PGconn *c = PQconnectdb(conninfo);

	if (!c || PQstatus(c) != CONNECTION_OK) {
		const char *m = c ? PQerrorMessage(c) : "out of memory";
		size_t n;

		snprintf(err, errlen, "cannot connect to PostgreSQL: %s", m);
		/* libpq's message spans lines; the server's start-up errors are one line. */
		for (char *p = err; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		n = strlen(err);
		while (n && err[n - 1] == ' ')
			err[--n] = '\0';
		PQfinish(c);
		return NULL;
	}
	if (pg_exec(c, "SET client_min_messages = warning") < 0) {
		snprintf(err, errlen, "PostgreSQL: %s", PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	return c;
}

int pg_exec(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	ExecStatusType s = PQresultStatus(r);

	PQclear(r);
	return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? 0 : -1;
}

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

void pg_p_int(struct pg_params *p, int64_t v)
{
	int i = p->n++;

	p->ints[i] = htobe64((uint64_t)v);
	p->v[i] = (const char *)&p->ints[i];
	p->len[i] = 8;
	p->fmt[i] = 1;
}

void pg_p_text(struct pg_params *p, const char *s)
{
	int i = p->n++;

	p->v[i] = s;
	p->len[i] = s ? (int)strlen(s) : 0;
	p->fmt[i] = 1;
}

void pg_p_blob(struct pg_params *p, const void *data, size_t len, bool present)
{
	int i = p->n++;

	/* A present but empty blob is an empty BYTEA, not NULL. */
	p->v[i] = present ? (data && len ? (const char *)data : "") : NULL;
	p->len[i] = present ? (int)len : 0;
	p->fmt[i] = 1;
}

PGresult *pg_run(PGconn *c, const char *name, const struct pg_params *p)
{
	PGresult *r = PQexecPrepared(c, name, p ? p->n : 0, p ? p->v : NULL, p ? p->len : NULL, p ? p->fmt : NULL, 1);
	ExecStatusType s = PQresultStatus(r);

	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
		return r;
	PQclear(r);
	return NULL;
}

int64_t pg_int(const PGresult *r, int row, int col)
{
	uint64_t v;

	if (PQgetisnull(r, row, col) || PQgetlength(r, row, col) != 8)
		return 0;
	memcpy(&v, PQgetvalue(r, row, col), 8);
	return (int64_t)be64toh(v);
}

const char *pg_text(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

const void *pg_blob(const PGresult *r, int row, int col, size_t *len)
{
	/* As SQLite hands back an empty blob: NULL with length 0. */
	*len = PQgetisnull(r, row, col) ? 0 : (size_t)PQgetlength(r, row, col);
	return *len ? PQgetvalue(r, row, col) : NULL;
}

int pg_prepare_all(PGconn *c, const char *const *names, const char *const *sqls, int count, char *err, size_t errlen)
{
	for (int i = 0; i < count; i++) {
		PGresult *r = PQprepare(c, names[i], sqls[i], 0, NULL);
		bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;

		PQclear(r);
		if (!ok) {
			snprintf(err, errlen, "PostgreSQL: preparing %s: %s", names[i], PQerrorMessage(c));
			return -1;
		}
	}
	return 0;
}

int pg_revive(PGconn *c, const char *const *names, const char *const *sqls, int count)
{
	char err[256];

	if (PQstatus(c) == CONNECTION_OK)
		return 0;
	PQreset(c);
	if (PQstatus(c) != CONNECTION_OK || pg_exec(c, "SET client_min_messages = warning") < 0 ||
	    pg_prepare_all(c, names, sqls, count, err, sizeof(err)) < 0)
		return -1;
	return 1;
}
