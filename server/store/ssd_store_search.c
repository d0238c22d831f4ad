/* ssd_store_search.c - what both SSD stores share: choosing the backend, and
 * for the model search the LIKE pattern made of the user's text.
 *
 * The text is matched as a literal substring, so LIKE's own wildcards (%
 * and _) and the escape character itself are escaped with '\'; the stores
 * say ESCAPE '\' (SQLite has no default escape, PostgreSQL's default is the
 * same). It is lower-cased here and the columns with lower() in SQL, ASCII
 * only on both sides: model names are printable ASCII (ssd_name_ok), so
 * folding beyond ASCII could never change what matches.
 */
#include "server/store/ssd_store.h"

#include <stdlib.h>
#include <string.h>

#include "server/store/pg/pg_conn.h"

struct ssd_store *ssd_store_open(const char *db, char *err, size_t errlen)
{
	return pg_is_conninfo(db) ? ssd_store_pg_open(db, err, errlen) : ssd_store_sqlite_open(db, err, errlen);
}

char *ssd_store_like_pattern(const char *q)
{
	char *out, *p;

	if (!q || !*q)
		return NULL;
	/* Worst case every byte escaped, plus the two '%' and the NUL. */
	out = malloc(strlen(q) * 2 + 3);
	if (!out)
		return NULL;
	p = out;
	*p++ = '%';
	for (; *q; q++) {
		char c = *q;

		if (c == '\\' || c == '%' || c == '_')
			*p++ = '\\';
		*p++ = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	*p++ = '%';
	*p = '\0';
	return out;
}
