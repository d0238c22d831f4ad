/* token_store_sqlite.c - tokens on the server's SQLite connection (FULLMUTEX,
 * so concurrent checks are safe); add, revoke and list are auth.c's. */
#include "server/token_store.h"

#include <stdlib.h>

#include "server/auth.h"

struct sq_tokens {
	struct token_store base;
	sqlite3 *db;
};

static sqlite3 *db_of(struct token_store *ts)
{
	return ((struct sq_tokens *)ts)->db;
}

static int sq_add(struct token_store *ts, const char *name, const char *scope, char *out, char *err, size_t errlen)
{
	return auth_token_add(db_of(ts), name, scope, out, err, errlen);
}

static int sq_revoke(struct token_store *ts, const char *name, char *err, size_t errlen)
{
	return auth_token_revoke(db_of(ts), name, err, errlen);
}

static int sq_list(struct token_store *ts, FILE *f)
{
	return auth_token_list(db_of(ts), f);
}

static int sq_check(struct token_store *ts, const char *hash, const char *scope)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(db_of(ts),
			       "SELECT 1 FROM tokens WHERE hash = ? AND revoked_ms IS NULL AND (scope = ? OR scope = 'admin')",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		rc = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

static const char *sq_errmsg(struct token_store *ts)
{
	return sqlite3_errmsg(db_of(ts));
}

static void sq_close(struct token_store *ts)
{
	free(ts);
}

static const struct token_store_ops sq_ops = {
	.add = sq_add,
	.revoke = sq_revoke,
	.list = sq_list,
	.check = sq_check,
	.errmsg = sq_errmsg,
	.close = sq_close,
};

struct token_store *token_store_sqlite_open(sqlite3 *db)
{
	struct sq_tokens *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->base.ops = &sq_ops;
	t->db = db;
	return &t->base;
}
