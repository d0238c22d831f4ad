/* pg_migrate.h - bringing a PostgreSQL database to this server's schema
 * (the embedded schema/postgresql migrations). */
#ifndef SCHEDIO_SERVER_STORE_PG_PG_MIGRATE_H
#define SCHEDIO_SERVER_STORE_PG_PG_MIGRATE_H

#include <stddef.h>
#include <libpq-fe.h>

/* Applies the embedded schema/postgresql migrations once, whoever else is starting; 0 or -1 with err.
 * A database newer than this server is refused and left untouched. */
int pg_migrate(PGconn *c, char *err, size_t errlen);
/* Connects once to conninfo and migrates it (pg_migrate); 0 or -1 with err. */
int pg_setup(const char *conninfo, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_STORE_PG_PG_MIGRATE_H */
