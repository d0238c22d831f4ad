/* push.h - sending one encoded report to the server over HTTP(S). */
#ifndef SCHEDIO_AGENT_PUSH_H
#define SCHEDIO_AGENT_PUSH_H

#include <stddef.h>

struct push;

/* Creates a sender for server (base URL) with an optional bearer token; NULL on failure. */
struct push *push_new(const char *server, const char *token);
/* POSTs body (JSON) gzip-compressed to /api/v1/reports; returns the HTTP status, or -1
 * when no answer came, with a one-line reason in err. */
long push_report(struct push *p, const char *body, size_t len, char *err, size_t errlen);
/* Frees the sender and its connection. */
void push_free(struct push *p);

#endif /* SCHEDIO_AGENT_PUSH_H */
