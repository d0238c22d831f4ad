/* api.h - the HTTP handlers, one group per file (api_<group>.c). */
#ifndef SCHEDIO_SERVER_API_H
#define SCHEDIO_SERVER_API_H

#include "server/http.h"

/* GET /healthz: {"status": "ok", "version": "..."}. */
enum MHD_Result api_healthz(struct http_request *req);
/* GET of any non-API path: the dashboard's files. */
enum MHD_Result api_static(struct http_request *req);

#endif /* SCHEDIO_SERVER_API_H */
