/* ssd_store_search.c - what both SSD stores share for the model search: the
 * LIKE pattern made of the user's text.
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
