/* push.c - libcurl delivery. One easy handle is kept for the agent's life so
 * the connection is reused between intervals (keep-alive); bodies are gzip'd
 * because histogram JSON compresses about tenfold.
 */
#include "agent/push.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gz.h"

struct push {
	CURL *curl;
	struct curl_slist *headers;
	char url[1024];
};

static size_t discard(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	return size * nmemb;
}

struct push *push_new(const char *server, const char *token)
{
	struct push *p = calloc(1, sizeof(*p));
	char auth[512];
	size_t slen = strlen(server);

	if (!p)
		return NULL;
	while (slen > 0 && server[slen - 1] == '/')
		slen--;
	snprintf(p->url, sizeof(p->url), "%.*s/api/v1/reports", (int)slen, server);
	p->curl = curl_easy_init();
	if (!p->curl) {
		free(p);
		return NULL;
	}
	p->headers = curl_slist_append(p->headers, "Content-Type: application/json");
	p->headers = curl_slist_append(p->headers, "Content-Encoding: gzip");
	if (token && *token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		p->headers = curl_slist_append(p->headers, auth);
	}
	curl_easy_setopt(p->curl, CURLOPT_URL, p->url);
	curl_easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers);
	curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(p->curl, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	return p;
}

long push_report(struct push *p, const char *body, size_t len, char *err, size_t errlen)
{
	char *gz = NULL;
	size_t gzlen = 0;
	long status = -1;
	CURLcode rc;

	if (gz_deflate(body, len, &gz, &gzlen) < 0) {
		snprintf(err, errlen, "cannot compress the report");
		return -1;
	}
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, gz);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)gzlen);
	rc = curl_easy_perform(p->curl);
	if (rc != CURLE_OK)
		snprintf(err, errlen, "%s: %s", p->url, curl_easy_strerror(rc));
	else
		curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
	free(gz);
	return status;
}

void push_free(struct push *p)
{
	if (!p)
		return;
	curl_slist_free_all(p->headers);
	curl_easy_cleanup(p->curl);
	free(p);
}
