/* token_store_pg.c - tokens in PostgreSQL: one connection behind a mutex
 * (libpq connections are not shared between threads; a check is one indexed
 * lookup, so the lock is held for one round trip). Uniqueness of names and
 * hashes is the database's, as on SQLite. */
#include "server/store/token_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/auth.h"
#include "server/store/pg/pg_conn.h"
#include "server/store/store_sql.h"

struct pg_tokens {
	struct token_store base;
	PGconn *c;
	pthread_mutex_t lock;
};

static struct pg_tokens *from(struct token_store *ts)
{
	return (struct pg_tokens *)ts;
}

static const char *const sql[] = {
	("INSERT INTO tokens (name, scope, hash, created_ms) VALUES ($1::text, $2::text, $3::text, $4::bigint) "
	 "ON CONFLICT (name) DO NOTHING"),
	STORE_SQL_TOKEN_REVOKE,
	STORE_SQL_TOKEN_LIST,
	STORE_SQL_TOKEN_CHECK,
};
static const char *const names[] = { "t_add", "t_revoke", "t_list", "t_check" };

/* Runs statement i under the lock; the result or NULL. */
static PGresult *run(struct pg_tokens *t, int i, const struct pg_params *p)
{
	PGresult *r;

	pthread_mutex_lock(&t->lock);
	r = pg_revive(t->c, names, sql, 4) < 0 ? NULL : pg_run(t->c, names[i], p);
	/* Once more on a connection dropped while idle (a check or a name-unique insert: safe to repeat). */
	if (!r && PQstatus(t->c) != CONNECTION_OK && pg_revive(t->c, names, sql, 4) >= 0)
		r = pg_run(t->c, names[i], p);
	pthread_mutex_unlock(&t->lock);
	return r;
}

static int pg_add(struct token_store *ts, const char *name, const char *scope, char *out, char *err, size_t errlen)
{
	struct pg_params p = { 0 };
	char hash[65];
	PGresult *r;
	int rc = -1;

	if (auth_token_make(name, scope, out, hash, err, errlen))
		return -1;
	pg_p_text(&p, name);
	pg_p_text(&p, scope);
	pg_p_text(&p, hash);
	pg_p_int(&p, auth_now_ms());
	r = run(from(ts), 0, &p);
	if (!r)
		snprintf(err, errlen, "database error: %s", PQerrorMessage(from(ts)->c));
	else if (atoi(PQcmdTuples(r)) == 0)
		snprintf(err, errlen, "a token named '%s' exists already", name);
	else
		rc = 0;
	PQclear(r);
	if (rc)
		memset(out, 0, AUTH_TOKEN_HEX + 1);
	return rc;
}

static int pg_revoke(struct token_store *ts, const char *name, char *err, size_t errlen)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int rc = -1;

	pg_p_int(&p, auth_now_ms());
	pg_p_text(&p, name);
	r = run(from(ts), 1, &p);
	if (!r)
		snprintf(err, errlen, "database error: %s", PQerrorMessage(from(ts)->c));
	else if (atoi(PQcmdTuples(r)) == 0)
		snprintf(err, errlen, "no valid token named '%s'", name);
	else
		rc = 0;
	PQclear(r);
	return rc;
}

static int pg_list(struct token_store *ts, FILE *f)
{
	PGresult *r = run(from(ts), 2, NULL);

	if (!r)
		return -1;
	token_store_print_header(f);
	for (int i = 0; i < PQntuples(r); i++)
		token_store_print_row(f, pg_text(r, i, 0), pg_text(r, i, 1), pg_int(r, i, 2), !PQgetisnull(r, i, 3));
	PQclear(r);
	return 0;
}

static int pg_check(struct token_store *ts, const char *hash, const char *scope)
{
	struct pg_params p = { 0 };
	PGresult *r;
	int rc;

	pg_p_text(&p, hash);
	pg_p_text(&p, scope);
	r = run(from(ts), 3, &p);
	if (!r)
		return -1;
	rc = PQntuples(r) > 0;
	PQclear(r);
	return rc;
}

static const char *pg_errmsg(struct token_store *ts)
{
	return PQerrorMessage(from(ts)->c);
}

static void pg_close(struct token_store *ts)
{
	struct pg_tokens *t = from(ts);

	if (!t)
		return;
	PQfinish(t->c);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const struct token_store_ops pg_ops = {
	.add = pg_add,
	.revoke = pg_revoke,
	.list = pg_list,
	.check = pg_check,
	.errmsg = pg_errmsg,
	.close = pg_close,
};

struct token_store *token_store_pg_open(const char *conninfo, char *err, size_t errlen)
{
	struct pg_tokens *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->base.ops = &pg_ops;
	pthread_mutex_init(&t->lock, NULL);
	t->c = pg_connect(conninfo, err, errlen);
	if (!t->c || pg_prepare_all(t->c, names, sql, 4, err, errlen) < 0) {
		pg_close(&t->base);
		return NULL;
	}
	return &t->base;
}
