/* route.h - the table from (method, path pattern) to handler. Patterns are
 * literal segments and {name} captures, e.g. /api/v1/hosts/{id}/runqlat.
 */
#ifndef SCHEDIO_SERVER_HTTP_ROUTE_H
#define SCHEDIO_SERVER_HTTP_ROUTE_H

#include "server/http/http.h"

typedef enum MHD_Result (*route_handler)(struct http_request *req);

struct route {
	const char *method;
	const char *pattern;
	route_handler handler;
	bool offload; /* a read that may take long: run on a read worker (offload.h), not an HTTP thread */
};

/* Finds the handler for req (filling req->args), or answers 404/405 itself. */
enum MHD_Result route_dispatch(struct http_request *req);
/* Matches the (already percent-decoded) path against pattern, storing up to max captures
 * (malloc'd copies); returns count or -1. */
int route_match(const char *pattern, const char *path, char **args, int max);

#endif /* SCHEDIO_SERVER_HTTP_ROUTE_H */
