/* token_store.c - what both token backends share: choosing the backend from
 * --db, and the table `schedio-server token list` prints. */
#include "server/store/token_store.h"

#include <time.h>

#include "server/store/pg/pg_conn.h"
#include "server/store/pg/pg_migrate.h"

struct token_store *token_store_open(const char *db, char *err, size_t errlen)
{
	if (!pg_is_conninfo(db))
		return token_store_sqlite_open(db, err, errlen);
	/* The token store is the first connection a server or a token command opens: it migrates. */
	return pg_setup(db, err, errlen) == 0 ? token_store_pg_open(db, err, errlen) : NULL;
}

void token_store_print_header(FILE *f)
{
	fprintf(f, "%-32s %-7s %-24s %s\n", "NAME", "SCOPE", "CREATED", "STATE");
}

void token_store_print_row(FILE *f, const char *name, const char *scope, int64_t created_ms, bool revoked)
{
	time_t created = (time_t)(created_ms / 1000);
	char stamp[32];
	struct tm tm;

	gmtime_r(&created, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "%-32s %-7s %-24s %s\n", name, scope, stamp, revoked ? "revoked" : "valid");
}
