/* ssd_list_query.h - the query parameters of the SSD model list (limit,
 * offset, q), checked before they reach a store.
 */
#ifndef SCHEDIO_SERVER_SSD_SSD_LIST_QUERY_H
#define SCHEDIO_SERVER_SSD_SSD_LIST_QUERY_H

#include <stdbool.h>
#include <stddef.h>

/* Reads a count parameter: NULL leaves *out; else decimal digits only within lo..hi, or false. */
bool ssd_list_query_count(const char *s, size_t lo, size_t hi, size_t *out);
/* True if q is well-formed UTF-8 (no overlong forms or surrogates) without control characters. */
bool ssd_list_query_search_ok(const char *q);

#endif /* SCHEDIO_SERVER_SSD_SSD_LIST_QUERY_H */
