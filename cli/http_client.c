/* http_client.c - see http_client.h. Responses are capped at 64 MiB: the CLI
 * talks to servers it was pointed at, but a wrong URL must not eat memory.
 */
#include "cli/http_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HTTP_CLIENT_MAX_BODY (64u << 20)

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct http_result *res = userdata;
	size_t n = size * nmemb;
	char *nb;

	if (res->len + n > HTTP_CLIENT_MAX_BODY)
		return 0;
	nb = realloc(res->body, res->len + n + 1);
	if (!nb)
		return 0;
	res->body = nb;
	memcpy(res->body + res->len, ptr, n);
	res->len += n;
	res->body[res->len] = '\0';
	return n;
}

struct header_want {
	const char *name;
	struct http_result *res;
};

static size_t on_header(char *line, size_t size, size_t nmemb, void *userdata)
{
	struct header_want *w = userdata;
	size_t n = size * nmemb, k = strlen(w->name);

	if (n > k && line[k] == ':' && strncasecmp(line, w->name, k) == 0) {
		const char *v = line + k + 1;
		size_t vlen = n - k - 1;

		while (vlen && (*v == ' ' || *v == '\t')) {
			v++;
			vlen--;
		}
		while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
			vlen--;
		snprintf(w->res->header_value, sizeof(w->res->header_value), "%.*s", (int)vlen, v);
	}
	return n;
}

int http_client_request(const char *server, const char *method, const char *path, const char *token, const void *body,
			size_t len, const char *content_type, struct http_result *res)
{
	return http_client_request_header(server, method, path, token, body, len, content_type, NULL, res);
}

int http_client_request_header(const char *server, const char *method, const char *path, const char *token,
			       const void *body, size_t len, const char *content_type, const char *want_header,
			       struct http_result *res)
{
	struct header_want want = { want_header, res };
	struct curl_slist *hdrs = NULL;
	char url[2048], line[512];
	size_t slen = strlen(server);
	CURLcode rc;
	CURL *c;

	memset(res, 0, sizeof(*res));
	res->status = -1;
	while (slen > 0 && server[slen - 1] == '/')
		slen--;
	snprintf(url, sizeof(url), "%.*s%s", (int)slen, server, path);
	c = curl_easy_init();
	if (!c) {
		snprintf(res->error, sizeof(res->error), "cannot start libcurl");
		return -1;
	}
	if (token && *token) {
		snprintf(line, sizeof(line), "Authorization: Bearer %s", token);
		hdrs = curl_slist_append(hdrs, line);
	}
	if (content_type) {
		snprintf(line, sizeof(line), "Content-Type: %s", content_type);
		hdrs = curl_slist_append(hdrs, line);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, res);
	if (want_header) {
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(c, CURLOPT_HEADERDATA, &want);
	}
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	else
		snprintf(res->error, sizeof(res->error), "%s: %s", url, curl_easy_strerror(rc));
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	if (!res->body)
		res->body = calloc(1, 1);
	return rc == CURLE_OK ? 0 : -1;
}

void http_client_result_free(struct http_result *res)
{
	free(res->body);
	res->body = NULL;
}
