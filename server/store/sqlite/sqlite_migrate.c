/* sqlite_migrate.c - schema migrations for SQLite. The migrations are the files
 * schema/sqlite/NNNN_name.sql, embedded into the binary at build time
 * (migrations_sqlite.c, generated), so a server never runs against SQL that
 * does not match its code. The version lives in PRAGMA user_version and is
 * set inside the same transaction as the migration's DDL: a crash leaves
 * either the old or the new version, never a half-migrated database.
 */
#include "server/store/sqlite/sqlite_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/migrations.h"

int sqlite_migrate_latest_version(void)
{
	int v = 0;

	for (size_t i = 0; i < migrations_sqlite_count; i++)
		if (migrations_sqlite[i].version > v)
			v = migrations_sqlite[i].version;
	return v;
}

static int user_version(sqlite3 *db, int *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

static int apply_one(sqlite3 *db, const struct migration *m, char *err, size_t errlen)
{
	char *msg = NULL, setv[64];

	snprintf(setv, sizeof(setv), "PRAGMA user_version = %d", m->version);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	if (sqlite3_exec(db, m->sql, NULL, NULL, &msg) != SQLITE_OK)
		goto rollback;
	if (sqlite3_exec(db, setv, NULL, NULL, &msg) != SQLITE_OK)
		goto rollback;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
fail:
	snprintf(err, errlen, "migration %04d (%s) failed: %s", m->version, m->name, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

int sqlite_migrate(sqlite3 *db, char *err, size_t errlen)
{
	int have = 0, latest = sqlite_migrate_latest_version();

	if (user_version(db, &have) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(db));
		return -1;
	}
	if (have > latest) {
		snprintf(err, errlen,
			 "database has schema version %d, newer than this server's %d; refusing to use it (upgrade "
			 "schedio-server)",
			 have, latest);
		return -1;
	}
	/* Migrations are embedded sorted by version (see cmake/embed_migrations.cmake). */
	for (size_t i = 0; i < migrations_sqlite_count; i++) {
		if (migrations_sqlite[i].version <= have)
			continue;
		if (apply_one(db, &migrations_sqlite[i], err, errlen) < 0)
			return -1;
	}
	return 0;
}
