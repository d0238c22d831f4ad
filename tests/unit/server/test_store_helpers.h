/* test_store_helpers.h - a throwaway SQLite database for the server unit
 * tests that go through a real store: a fresh directory holding a migrated
 * "db", removed with its WAL files when the test is done. Header-only, as
 * each unit test is its own program.
 */
#ifndef SCHEDIO_TESTS_UNIT_SERVER_TEST_STORE_HELPERS_H
#define SCHEDIO_TESTS_UNIT_SERVER_TEST_STORE_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/store/sqlite/sqlite_db.h"

struct test_db {
	char dir[64], file[96];
	sqlite3 *db; /* held open until test_db_remove, as the server holds its own */
};

/* Creates a directory from tmpl (mkdtemp's XXXXXX) and a migrated database
 * file "db" in it; the test fails when either cannot be made. */
static inline void test_db_create(struct test_db *t, const char *tmpl)
{
	char err[256];

	snprintf(t->dir, sizeof(t->dir), "%s", tmpl);
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->file, sizeof(t->file), "%s/db", t->dir);
	t->db = sqlite_db_open(t->file, err, sizeof(err));
	assert_non_null(t->db);
}

/* Closes the database and removes it, its WAL files and the directory. */
static inline void test_db_remove(struct test_db *t)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	char path[128];

	sqlite3_close(t->db);
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", t->file, suffix[i]);
		unlink(path);
	}
	rmdir(t->dir);
	memset(t, 0, sizeof(*t));
}

#endif /* SCHEDIO_TESTS_UNIT_SERVER_TEST_STORE_HELPERS_H */
