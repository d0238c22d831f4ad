/* conditional.h - validators of the dashboard's static files (ETag,
 * Last-Modified) and the conditional-GET decision of RFC 9110 13.2.2: a
 * browser that revalidates a file it holds is answered 304 without a body.
 */
#ifndef SCHEDIO_SERVER_HTTP_CONDITIONAL_H
#define SCHEDIO_SERVER_HTTP_CONDITIONAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define CONDITIONAL_ETAG_MAX 48 /* quotes, two 16-digit hex numbers, '-', NUL */
#define CONDITIONAL_DATE_MAX 30 /* "Sun, 06 Nov 1994 08:49:37 GMT" and NUL */

/* Writes the strong entity-tag of a file of this size and mtime: "<size>-<mtime_ns>" in hex, quoted. */
void conditional_etag(char out[CONDITIONAL_ETAG_MAX], uint64_t size, int64_t mtime_ns);
/* Writes t as an IMF-fixdate, the HTTP-date form servers send; "" if t is not representable. */
void conditional_http_date(char out[CONDITIONAL_DATE_MAX], time_t t);
/* Parses an IMF-fixdate into *t; returns false for anything else (the obsolete forms included). */
bool conditional_parse_http_date(const char *s, time_t *t);
/* Whether a GET carrying these headers (NULL when absent) may be answered 304 for a file with this
 * etag and mtime: If-None-Match decides when present (weak comparison, "*" matches), else If-Modified-Since. */
bool conditional_not_modified(const char *if_none_match, const char *if_modified_since, const char *etag, time_t mtime);

#endif /* SCHEDIO_SERVER_HTTP_CONDITIONAL_H */
