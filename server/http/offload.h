/* offload.h - runs the handlers of slow reads (store queries, /metrics) on a
 * pool of their own threads, so that a long read never holds up the HTTP
 * threads that take in reports. The request is suspended while its handler
 * runs; its answer is queued by its HTTP thread when the request resumes.
 */
#ifndef SCHEDIO_SERVER_HTTP_OFFLOAD_H
#define SCHEDIO_SERVER_HTTP_OFFLOAD_H

#include "server/http/route.h"

struct offload;

/* Starts threads workers; NULL with errno set on failure. */
struct offload *offload_start(unsigned threads);
/* Runs every queued handler (answering 503 once the server drains) and joins the workers. */
void offload_stop(struct offload *o);
/* Queues handler for req on a worker and suspends req; answers 503 itself when the queue is full. */
enum MHD_Result offload_run(struct offload *o, struct http_request *req, route_handler handler);

#endif /* SCHEDIO_SERVER_HTTP_OFFLOAD_H */
