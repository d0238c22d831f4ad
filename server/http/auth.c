/* auth.c - tokens are 32 random bytes shown once, at creation; only their
 * SHA-256 is stored, so a copy of the database does not leak credentials.
 * A check hashes the presented token and looks the hash up: the lookup is an
 * indexed equality, so it costs the same for a right or a wrong token.
 */
#include "server/http/auth.h"

#include "server/server.h"
#include "server/store/token_store.h"

#include <nettle/sha2.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <stdio.h>
#include <time.h>

static const char hexdig[] = "0123456789abcdef";

static void to_hex(const unsigned char *in, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hexdig[in[i] >> 4];
		out[2 * i + 1] = hexdig[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool auth_scope_valid(const char *scope)
{
	return scope && (!strcmp(scope, "read") || !strcmp(scope, "ingest") || !strcmp(scope, "submit") ||
			 !strcmp(scope, "admin"));
}

void auth_hash(const char *token, char out[65])
{
	struct sha256_ctx ctx;
	unsigned char digest[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, strlen(token), (const uint8_t *)token);
	sha256_digest(&ctx, sizeof(digest), digest);
	to_hex(digest, sizeof(digest), out);
}

int auth_token_make(const char *name, const char *scope, char *out, char hash[65], char *err, size_t errlen)
{
	unsigned char raw[AUTH_TOKEN_HEX / 2];

	if (!auth_scope_valid(scope)) {
		snprintf(err, errlen, "unknown scope '%s' (want read, ingest, submit or admin)", scope ? scope : "");
		return -1;
	}
	if (!*name || strlen(name) > 128) {
		snprintf(err, errlen, "a token name must have 1 to 128 characters");
		return -1;
	}
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		snprintf(err, errlen, "no randomness available");
		return -1;
	}
	to_hex(raw, sizeof(raw), out);
	auth_hash(out, hash);
	return 0;
}

long long auth_now_ms(void)
{
	return now_ms();
}

bool auth_require(struct http_request *req, const char *scope, enum MHD_Result *reply)
{
	const char *h = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
	struct token_store *ts = req->srv->tokens;
	char hash[65];
	bool ok;

	if (!h || strncasecmp(h, "Bearer ", 7) != 0 || !h[7]) {
		*reply = http_reply_error(req, MHD_HTTP_UNAUTHORIZED,
					  "missing bearer token (Authorization: Bearer <token>)");
		return false;
	}
	auth_hash(h + 7, hash);
	ok = ts && ts->ops->check(ts, hash, scope) == 1;
	if (!ok)
		*reply = http_reply_error(req, MHD_HTTP_UNAUTHORIZED, "token is not valid for %s", scope);
	return ok;
}

bool auth_require_strict(struct http_request *req, const char *scope, enum MHD_Result *reply)
{
	static const char *const scopes[] = { "read", "ingest", "submit", "admin" };
	const char *h = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
	struct token_store *ts = req->srv->tokens;
	char hash[65];
	int rc;

	if (!h || strncasecmp(h, "Bearer ", 7) != 0 || !h[7] || !ts)
		return auth_require(req, scope, reply);
	auth_hash(h + 7, hash);
	rc = ts->ops->check(ts, hash, scope);
	if (rc == 1)
		return true;
	for (size_t i = 0; rc == 0 && i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (ts->ops->check(ts, hash, scopes[i]) == 1) {
			*reply = http_reply_error(req, MHD_HTTP_FORBIDDEN, "this token's scope is %s; this needs %s",
						  scopes[i], scope);
			return false;
		}
	*reply = rc < 0 ? http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "cannot check the token now")
			: http_reply_error(req, MHD_HTTP_UNAUTHORIZED, "token is not valid for %s", scope);
	return false;
}
