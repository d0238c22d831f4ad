/* sqlite_db.h - opening the server's SQLite database: refuse what cannot be used,
 * migrate, then switch to WAL; and the statements every SQLite store keeps
 * prepared for its connection's life. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_SQLITE_DB_H
#define SCHEDIO_SERVER_STORE_SQLITE_SQLITE_DB_H

#include <stddef.h>
#include <sqlite3.h>

/* Process-wide SQLite settings, called once before any connection opens: no
 * memory statistics, whose global mutex every SQLite allocation takes. */
void sqlite_db_configure(void);
/* Opens (creating if absent) and migrates the database at path; returns the
 * handle or NULL with the reason in err. A file it created is removed again
 * when setup fails, so no half-initialised database is left behind. */
sqlite3 *sqlite_db_open(const char *path, char *err, size_t errlen);
/* Prepares sql[0..n) into st[] once, for the connection's life (persistent); 0 or -1 (see sqlite3_errmsg). */
int sqlite_db_prepare_all(sqlite3 *db, const char *const *sql, int n, sqlite3_stmt **st);
/* Resets st and clears its bindings for its next use; returns st. */
sqlite3_stmt *sqlite_db_stmt(sqlite3_stmt *st);
/* Finalizes st[0..n) (NULL ones skipped) and closes db (NULL: nothing). */
void sqlite_db_close(sqlite3 *db, sqlite3_stmt **st, int n);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_SQLITE_DB_H */
