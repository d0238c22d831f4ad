/* push.h - sending one encoded report to the server over HTTP(S). */
#ifndef SCHEDIO_AGENT_DELIVERY_PUSH_H
#define SCHEDIO_AGENT_DELIVERY_PUSH_H

#include <signal.h>
#include <stddef.h>

struct push;

enum push_result {
	PUSH_OK,       /* 2xx: the server has it */
	PUSH_RETRY,    /* no answer, 5xx, 401/403, 408, 429: keep it and try again later */
	PUSH_REJECTED, /* any other 4xx: the server will never take this report */
};

/* Creates a sender for server (base URL) with an optional bearer token and CA file (NULL: the
 * system's CAs); a non-zero *abort (e.g. set by a signal handler) cuts a transfer short. NULL on failure. */
struct push *push_new(const char *server, const char *token, const char *ca_file, volatile sig_atomic_t *abort);
/* POSTs a gzip'd JSON body to /api/v1/reports; returns the outcome, with the HTTP status in *status
 * (0 when no answer came) and, unless PUSH_OK, a one-line reason in err. */
enum push_result push_send_gz(struct push *p, const void *gz, size_t len, long *status, char *err, size_t errlen);
/* Compresses body (JSON) and sends it like push_send_gz. */
enum push_result push_report(struct push *p, const char *body, size_t len, long *status, char *err, size_t errlen);
/* Seconds the last answer (503 or 429) asked to wait before the next try (Retry-After); 0 if none. */
long push_retry_after_s(const struct push *p);
/* Call between sends (none running): lets libcurl's file pages go now and then (curl_lib_rest). */
void push_rest(struct push *p);
/* Frees the sender and its connection. */
void push_free(struct push *p);

#endif /* SCHEDIO_AGENT_DELIVERY_PUSH_H */
