/* migrations.h - the SQL migrations embedded at build time from schema/. */
#ifndef SCHEDIO_SERVER_STORE_MIGRATIONS_H
#define SCHEDIO_SERVER_STORE_MIGRATIONS_H

#include <stddef.h>

struct migration {
	int version;      /* NNNN of schema/<backend>/NNNN_name.sql */
	const char *name; /* the file's name */
	const char *sql;
};

/* schema/sqlite/ migrations, sorted by version. */
extern const struct migration migrations_sqlite[];
extern const size_t migrations_sqlite_count;
/* schema/postgresql/ migrations, sorted by version. */
extern const struct migration migrations_postgresql[];
extern const size_t migrations_postgresql_count;

#endif /* SCHEDIO_SERVER_STORE_MIGRATIONS_H */
