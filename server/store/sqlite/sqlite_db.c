/* sqlite_db.c - see sqlite_db.h. The version check runs before anything that writes (even
 * switching the journal mode writes), so a database from a newer schedio is
 * left exactly as it was found.
 */
#include "server/store/sqlite/sqlite_db.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/store/sqlite/sqlite_migrate.h"

static void remove_db_files(const char *path)
{
	char p[PATH_MAX];

	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

void sqlite_db_configure(void)
{
	/* Statistics on: every sqlite3_malloc and sqlite3_free locks one mutex for all connections, and the
	 * ingest writer makes hundreds a commit. Nothing here reads the statistics. SQLITE_MISUSE when
	 * SQLite has started already (a second call): the setting then stays as it was. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

sqlite3 *sqlite_db_open(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	struct stat st;
	bool created = stat(path, &st) != 0;
	char merr[512];

	if (!created && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "database %s is not a regular file", path);
		return NULL;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "cannot open database %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(db, 5000);
	sqlite3_extended_result_codes(db, 1);
	/* Report rows are 2-3 KiB: with 4 KiB pages only one fits per page and
	 * half of each page is wasted; larger pages waste less but make every
	 * random index page a commit touches cost more WAL. 8 KiB balances the
	 * two. The page size only takes on a new file. */
	if (created && sqlite3_exec(db, "PRAGMA page_size=8192", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "database %s: %s", path, sqlite3_errmsg(db));
		goto fail;
	}
	if (sqlite_migrate(db, merr, sizeof(merr)) < 0) {
		snprintf(err, errlen, "database %s: %s", path, merr);
		goto fail;
	}
	if (sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON", NULL, NULL,
			 NULL) != SQLITE_OK) {
		snprintf(err, errlen, "database %s: cannot enable WAL: %s", path, sqlite3_errmsg(db));
		goto fail;
	}
	return db;
fail:
	sqlite3_close(db);
	if (created)
		remove_db_files(path);
	return NULL;
}

int sqlite_db_prepare_all(sqlite3 *db, const char *const *sql, int n, sqlite3_stmt **st)
{
	for (int i = 0; i < n; i++)
		if (sqlite3_prepare_v3(db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st[i], NULL) != SQLITE_OK)
			return -1;
	return 0;
}

sqlite3_stmt *sqlite_db_stmt(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

void sqlite_db_close(sqlite3 *db, sqlite3_stmt **st, int n)
{
	for (int i = 0; i < n; i++)
		sqlite3_finalize(st[i]);
	sqlite3_close(db);
}
