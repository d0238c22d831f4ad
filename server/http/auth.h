/* auth.h - API tokens: making and hashing them, and checking a request's
 * "Authorization: Bearer" header against a scope. Where they are kept (add,
 * list, revoke, look up) is the token store's (server/store/token_store.h).
 */
#ifndef SCHEDIO_SERVER_HTTP_AUTH_H
#define SCHEDIO_SERVER_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "server/http/http.h"

#define AUTH_TOKEN_HEX 64 /* 32 random bytes, hex */

/* True if scope names a token scope: read, ingest, submit or admin. */
bool auth_scope_valid(const char *scope);
/* Writes the hex SHA-256 of token into out[65]. */
void auth_hash(const char *token, char out[65]);
/* Checks name and scope and makes a new token (hex, into out[AUTH_TOKEN_HEX + 1]) and its hash;
 * 0, or -1 with the reason in err. */
int auth_token_make(const char *name, const char *scope, char *out, char hash[65], char *err, size_t errlen);
/* Milliseconds since the epoch, as token timestamps are stored. */
long long auth_now_ms(void);
/* True if the request carries a valid token for scope (admin tokens pass every scope);
 * otherwise queues 401 with the reason and stores the queue result in *reply. */
bool auth_require(struct http_request *req, const char *scope, enum MHD_Result *reply);
/* As auth_require, but a valid token of a scope that does not reach scope gets 403 (known, not allowed)
 * instead of 401 (unknown). */
bool auth_require_strict(struct http_request *req, const char *scope, enum MHD_Result *reply);

#endif /* SCHEDIO_SERVER_HTTP_AUTH_H */
