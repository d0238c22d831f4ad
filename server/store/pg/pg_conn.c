/* pg_conn.c - see pg_conn.h. */
#include "server/store/pg/pg_conn.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
