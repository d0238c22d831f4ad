/* sqlite_db.h - opening the server's SQLite database: refuse what cannot be used,
 * migrate, then switch to WAL. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_SQLITE_DB_H
#define SCHEDIO_SERVER_STORE_SQLITE_SQLITE_DB_H

#include <stddef.h>
#include <sqlite3.h>

/* Opens (creating if absent) and migrates the database at path; returns the
 * handle or NULL with the reason in err. A file it created is removed again
 * when setup fails, so no half-initialised database is left behind. */
sqlite3 *sqlite_db_open(const char *path, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_SQLITE_DB_H */
