/* http.h - the HTTP layer over libmicrohttpd: one request object per request
 * that collects the body under a cap, route dispatch, and JSON replies. Every
 * error reply is {"error": "..."} with a fitting status.
 */
#ifndef SCHEDIO_SERVER_HTTP_HTTP_H
#define SCHEDIO_SERVER_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "server/server.h"

#define HTTP_MAX_PATH_ARGS 4

struct http_request {
	struct MHD_Connection *conn;
	struct server *srv;
	const char *method;
	const char *path; /* URL path, no query string */
	char *body;       /* NUL-terminated */
	size_t body_len;
	size_t body_cap;
	bool body_too_large;
	bool body_released;             /* http_body_release gave the buffer back; body is "" */
	char *args[HTTP_MAX_PATH_ARGS]; /* decoded {captures} of the route */
	int nargs;
	int64_t t0_us; /* when its last byte reached the socket (monotonic, as ingest_mono_us); 0 until read */
	void *state;   /* a handler's own state across calls */
	void (*state_free)(void *state);
	bool held; /* suspended by http_suspend: counted until its answer is sent */
	/* a handler run on an offload worker (offload.c): its reply is kept here until the request resumes */
	bool on_worker;
	bool worker_done;
	enum MHD_Result worker_ret;
	struct MHD_Response *reply;
	unsigned reply_status;
};

/* How many read workers (offload.h) serve beside http_threads HTTP threads. */
unsigned http_read_workers(unsigned http_threads);
/* Starts the HTTP daemon on srv->listen_fd; returns 0 or -1 with a message on stderr. */
int http_start(struct server *srv);
/* Answers new requests 503 and waits until no handler runs (before the stores stop). */
void http_drain(struct server *srv);
/* Stops the daemon once every suspended request has been answered (a bounded wait). */
void http_stop(struct server *srv);
/* Suspends req until MHD_resume_connection; http_stop waits for its answer to be sent. */
void http_suspend(struct http_request *req);

/* Adds what every answer carries: a Content-Security-Policy (the dashboard's when ctype is HTML,
 * "nothing may load" otherwise), X-Content-Type-Options: nosniff and a Referrer-Policy. */
void http_add_security_headers(struct MHD_Response *res, const char *ctype);
/* Runs handler for req unless the server drains (then 503); http_drain waits for it either way. */
enum MHD_Result http_run_handler(struct http_request *req, enum MHD_Result (*handler)(struct http_request *req));
/* Queues res with status and releases it; on an offload worker, keeps it for the request's HTTP thread. */
enum MHD_Result http_send(struct http_request *req, unsigned status, struct MHD_Response *res);
/* Gives the body's buffer back to the thread's pool once it is read; req->body is "" after. */
void http_body_release(struct http_request *req);
/* Queues a reply with the given status, content type and body (copied). */
enum MHD_Result http_reply(struct http_request *req, unsigned status, const char *ctype, const void *body, size_t len);
/* Queues a JSON reply; takes ownership of doc. */
enum MHD_Result http_reply_json(struct http_request *req, unsigned status, cJSON *doc);
/* Queues {"error": "<formatted message>"} with the given status. */
__attribute__((format(printf, 3, 4))) enum MHD_Result http_reply_error(struct http_request *req, unsigned status,
								       const char *fmt, ...);
/* Queues 503 {"error": "<formatted message>"} with Retry-After: retry_after_s (seconds). */
__attribute__((format(printf, 3, 4))) enum MHD_Result
http_reply_unavailable(struct http_request *req, unsigned retry_after_s, const char *fmt, ...);
/* Queues 405 {"error": ...} with an Allow header listing the allowed methods. */
enum MHD_Result http_reply_error_allow(struct http_request *req, const char *allow);
/* Value of query parameter key, or NULL. */
const char *http_query(struct http_request *req, const char *key);
/* Value of request header name, or NULL. */
const char *http_header(struct http_request *req, const char *name);

#endif /* SCHEDIO_SERVER_HTTP_HTTP_H */
