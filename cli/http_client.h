/* http_client.h - the CLI's requests to the server (libcurl). */
#ifndef SCHEDIO_CLI_HTTP_CLIENT_H
#define SCHEDIO_CLI_HTTP_CLIENT_H

#include <stddef.h>

struct http_result {
	long status; /* HTTP status, or -1 when no answer came */
	char *body;  /* response body, NUL-terminated (malloc'd) */
	size_t len;
	char error[2400];       /* transport error when status is -1 */
	char header_value[256]; /* the header asked for with http_client_request_header, or "" */
};

/* Sends method to server+path with an optional body and bearer token; fills res,
 * which the caller frees with http_client_result_free in every case.
 * Returns 0 when an answer came (any status), -1 otherwise. */
int http_client_request(const char *server, const char *method, const char *path, const char *token, const void *body,
			size_t len, const char *content_type, struct http_result *res);
/* Like http_client_request, also capturing response header want_header into res->header_value. */
int http_client_request_header(const char *server, const char *method, const char *path, const char *token,
			       const void *body, size_t len, const char *content_type, const char *want_header,
			       struct http_result *res);
/* Frees the body of res. */
void http_client_result_free(struct http_result *res);

#endif /* SCHEDIO_CLI_HTTP_CLIENT_H */
