/* token_store.h - where API tokens live, behind a narrow interface so the
 * request check (auth_require) and `schedio-server token` work the same on
 * SQLite and PostgreSQL. Tokens are identified by their SHA-256 (auth.h);
 * check may be called from several HTTP threads at once. */
#ifndef SCHEDIO_SERVER_STORE_TOKEN_STORE_H
#define SCHEDIO_SERVER_STORE_TOKEN_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* Tokens in the SQLite file path, on its own connection (the file created and migrated); NULL with err. */
struct token_store *token_store_sqlite_open(const char *path, char *err, size_t errlen);
/* Tokens on PostgreSQL (its own connection, migrated already); NULL with err. */
struct token_store *token_store_pg_open(const char *conninfo, char *err, size_t errlen);
/* Creates or migrates the database db names (a PostgreSQL conninfo, else a SQLite file) and
 * opens its tokens; NULL with err. */
struct token_store *token_store_open(const char *db, char *err, size_t errlen);
/* The heading line of list's table. */
void token_store_print_header(FILE *f);
/* One line of list's table: name, scope, creation time (UTC) and state. */
void token_store_print_row(FILE *f, const char *name, const char *scope, int64_t created_ms, bool revoked);

#endif /* SCHEDIO_SERVER_STORE_TOKEN_STORE_H */
