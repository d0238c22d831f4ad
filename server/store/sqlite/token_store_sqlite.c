/* token_store_sqlite.c - tokens on the server's SQLite connection (FULLMUTEX,
 * so concurrent checks are safe); add, revoke and list are auth.c's. */
#include "server/store/token_store.h"

#include <stdlib.h>

#include "server/http/auth.h"

struct token_sqlite_tokens {
	struct token_store base;
	sqlite3 *db;
};

static sqlite3 *db_of(struct token_store *ts)
{
	return ((struct token_sqlite_tokens *)ts)->db;
}

static int token_sqlite_add(struct token_store *ts, const char *name, const char *scope, char *out, char *err,
			    size_t errlen)
{
	return auth_token_add(db_of(ts), name, scope, out, err, errlen);
}

static int token_sqlite_revoke(struct token_store *ts, const char *name, char *err, size_t errlen)
{
	return auth_token_revoke(db_of(ts), name, err, errlen);
}

static int token_sqlite_list(struct token_store *ts, FILE *f)
{
	return auth_token_list(db_of(ts), f);
}

static int token_sqlite_check(struct token_store *ts, const char *hash, const char *scope)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(
		db_of(ts),
		"SELECT 1 FROM tokens WHERE hash = ? AND revoked_ms IS NULL AND (scope = ? OR scope = 'admin')", -1,
		&st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

static const char *token_sqlite_errmsg(struct token_store *ts)
{
	return sqlite3_errmsg(db_of(ts));
}

static void token_sqlite_close(struct token_store *ts)
{
	free(ts);
}

static const struct token_store_ops token_sqlite_ops = {
	.add = token_sqlite_add,
	.revoke = token_sqlite_revoke,
	.list = token_sqlite_list,
	.check = token_sqlite_check,
	.errmsg = token_sqlite_errmsg,
	.close = token_sqlite_close,
};

struct token_store *token_store_sqlite_open(sqlite3 *db)
{
	struct token_sqlite_tokens *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->base.ops = &token_sqlite_ops;
	t->db = db;
	return &t->base;
}
