/* sqlite_migrate.h - brings a SQLite database to this build's schema version. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_SQLITE_MIGRATE_H
#define SCHEDIO_SERVER_STORE_SQLITE_SQLITE_MIGRATE_H

#include <stddef.h>
#include <sqlite3.h>

/* Schema version this build's newest migration produces. */
int sqlite_migrate_latest_version(void);
/* Applies every pending migration in order, each in its own transaction;
 * refuses (returns -1, database untouched) one newer than this build.
 * Returns 0 or -1 with the reason in err. */
int sqlite_migrate(sqlite3 *db, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_SQLITE_MIGRATE_H */
