/* token_store.h - where API tokens live, behind a narrow interface so the
 * request check (auth_require) and `schedio-server token` work the same on
 * SQLite and PostgreSQL. Tokens are identified by their SHA-256 (auth.h);
 * check may be called from several HTTP threads at once. */
#ifndef SCHEDIO_SERVER_STORE_TOKEN_STORE_H
#define SCHEDIO_SERVER_STORE_TOKEN_STORE_H

#include <stddef.h>
#include <stdio.h>
#include <sqlite3.h>

struct token_store;

struct token_store_ops {
	/* Creates token name with scope, writing it into out[AUTH_TOKEN_HEX + 1]; 0 or -1 with err. */
	int (*add)(struct token_store *ts, const char *name, const char *scope, char *out, char *err, size_t errlen);
	/* Revokes token name; 0 or -1 with err (no such valid token, database error). */
	int (*revoke)(struct token_store *ts, const char *name, char *err, size_t errlen);
	/* Prints the token table to f; 0 or -1. */
	int (*list)(struct token_store *ts, FILE *f);
	/* 1 if hash (hex SHA-256) is a valid token for scope or admin, 0 if not, -1 on error. */
	int (*check)(struct token_store *ts, const char *hash, const char *scope);
	/* Last error message. */
	const char *(*errmsg)(struct token_store *ts);
	void (*close)(struct token_store *ts);
};

struct token_store {
	const struct token_store_ops *ops;
};

/* Tokens on an open (migrated) SQLite connection, borrowed: close leaves db open. */
struct token_store *token_store_sqlite_open(sqlite3 *db);
/* Tokens on PostgreSQL (its own connection, migrated already); NULL with err. */
struct token_store *token_store_pg_open(const char *conninfo, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_STORE_TOKEN_STORE_H */
