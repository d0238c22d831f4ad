/* token_store_sqlite.c - tokens in SQLite. The store owns a FULLMUTEX
 * connection opened (created and migrated) by sqlite_db_open, with its four
 * statements prepared once; a mutex keeps one statement's bind-step-reset
 * from interleaving with another HTTP thread's check, and keeps the error
 * message read after a failure the failing call's own. */
#include "server/store/token_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/auth.h"
#include "server/store/sqlite/sqlite_db.h"
#include "server/store/store_sql.h"

enum { T_ADD, T_REVOKE, T_LIST, T_CHECK, T_COUNT };

static const char *const sql[T_COUNT] = {
	[T_ADD] = "INSERT INTO tokens (name, scope, hash, created_ms) VALUES (?, ?, ?, ?)",
	[T_REVOKE] = STORE_SQL_TOKEN_REVOKE,
	[T_LIST] = STORE_SQL_TOKEN_LIST,
	[T_CHECK] = STORE_SQL_TOKEN_CHECK,
};

struct token_sqlite_tokens {
	struct token_store base;
	sqlite3 *db;
	sqlite3_stmt *st[T_COUNT];
	pthread_mutex_t lock;
};

static struct token_sqlite_tokens *from(struct token_store *ts)
{
	return (struct token_sqlite_tokens *)ts;
}

/* Statement which, its last use reset and unbound; call with the lock held. */
static sqlite3_stmt *stmt(struct token_sqlite_tokens *t, int which)
{
	return sqlite_db_stmt(t->st[which]);
}

static int token_sqlite_add(struct token_store *ts, const char *name, const char *scope, char *out, char *err,
			    size_t errlen)
{
	struct token_sqlite_tokens *t = from(ts);
	sqlite3_stmt *st;
	char hash[65];
	int rc = -1;

	if (auth_token_make(name, scope, out, hash, err, errlen))
		return -1;
	pthread_mutex_lock(&t->lock);
	st = stmt(t, T_ADD);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, auth_now_ms());
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else if (sqlite3_extended_errcode(t->db) == SQLITE_CONSTRAINT_UNIQUE)
		snprintf(err, errlen, "a token named '%s' exists already", name);
	else
		snprintf(err, errlen, "database error: %s", sqlite3_errmsg(t->db));
	sqlite3_reset(st);
	pthread_mutex_unlock(&t->lock);
	if (rc)
		memset(out, 0, AUTH_TOKEN_HEX + 1);
	return rc;
}

static int token_sqlite_revoke(struct token_store *ts, const char *name, char *err, size_t errlen)
{
	struct token_sqlite_tokens *t = from(ts);
	sqlite3_stmt *st;
	int rc = -1;

	pthread_mutex_lock(&t->lock);
	st = stmt(t, T_REVOKE);
	sqlite3_bind_int64(st, 1, auth_now_ms());
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		snprintf(err, errlen, "database error: %s", sqlite3_errmsg(t->db));
	else if (sqlite3_changes(t->db) == 0)
		snprintf(err, errlen, "no valid token named '%s'", name);
	else
		rc = 0;
	sqlite3_reset(st);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static int token_sqlite_list(struct token_store *ts, FILE *f)
{
	struct token_sqlite_tokens *t = from(ts);
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&t->lock);
	st = stmt(t, T_LIST);
	token_store_print_header(f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		token_store_print_row(f, (const char *)sqlite3_column_text(st, 0),
				      (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
				      sqlite3_column_type(st, 3) != SQLITE_NULL);
	/* Reset now, so no read transaction stays open; a failure's message stays for errmsg. */
	sqlite3_reset(st);
	pthread_mutex_unlock(&t->lock);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int token_sqlite_check(struct token_store *ts, const char *hash, const char *scope)
{
	struct token_sqlite_tokens *t = from(ts);
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&t->lock);
	st = stmt(t, T_CHECK);
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
	sqlite3_reset(st);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static const char *token_sqlite_errmsg(struct token_store *ts)
{
	return sqlite3_errmsg(from(ts)->db);
}

static void token_sqlite_close(struct token_store *ts)
{
	struct token_sqlite_tokens *t = from(ts);

	if (!t)
		return;
	sqlite_db_close(t->db, t->st, T_COUNT);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const struct token_store_ops token_sqlite_ops = {
	.add = token_sqlite_add,
	.revoke = token_sqlite_revoke,
	.list = token_sqlite_list,
	.check = token_sqlite_check,
	.errmsg = token_sqlite_errmsg,
	.close = token_sqlite_close,
};

struct token_store *token_store_sqlite_open(const char *path, char *err, size_t errlen)
{
	struct token_sqlite_tokens *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->base.ops = &token_sqlite_ops;
	pthread_mutex_init(&t->lock, NULL);
	t->db = sqlite_db_open(path, err, errlen);
	if (!t->db)
		goto fail;
	if (sqlite_db_prepare_all(t->db, sql, T_COUNT, t->st) < 0) {
		snprintf(err, errlen, "database %s: %s", path, sqlite3_errmsg(t->db));
		goto fail;
	}
	return &t->base;
fail:
	token_sqlite_close(&t->base);
	return NULL;
}
