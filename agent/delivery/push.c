/* push.c - libcurl delivery (libcurl loaded on first use: curl_lib.h). One easy handle is kept for the agent's life so
 * the connection is reused between intervals (keep-alive); bodies are gzip'd
 * because histogram JSON compresses about tenfold. TLS peers are always
 * verified (against ca_file when set). Every failure becomes one sentence
 * that says what to fix: an untrusted certificate, a refused token and a
 * server that is down read differently in the log.
 */
#include "agent/delivery/push.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/delivery/curl_lib.h"
#include "common/gz.h"
#include "common/log.h"

struct push {
	const struct curl_lib *c;
	CURL *curl;
	struct curl_slist *headers;
	volatile sig_atomic_t *abort;
	char url[1024];
	char ca_file[1024];
	char errbuf[CURL_ERROR_SIZE];
	char answer[256]; /* head of the response body, for error messages */
	size_t answer_len;
	long retry_after_s; /* the last answer's Retry-After, 0 if none */
};

static size_t keep_head(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct push *p = userdata;
	size_t n = size * nmemb, room = sizeof(p->answer) - 1 - p->answer_len;

	if (room > n)
		room = n;
	memcpy(p->answer + p->answer_len, ptr, room);
	p->answer_len += room;
	p->answer[p->answer_len] = '\0';
	return n;
}

static int on_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct push *p = userdata;

	return p->abort && *p->abort; /* non-zero aborts the transfer */
}

struct push *push_new(const char *server, const char *token, const char *ca_file, volatile sig_atomic_t *abort)
{
	struct push *p = calloc(1, sizeof(*p));
	char auth[600], why[600];
	size_t slen = strlen(server);

	if (!p)
		return NULL;
	p->c = curl_lib_get(why, sizeof(why));
	if (!p->c) {
		log_error("%s", why);
		free(p);
		return NULL;
	}
	p->abort = abort;
	while (slen > 0 && server[slen - 1] == '/')
		slen--;
	snprintf(p->url, sizeof(p->url), "%.*s/api/v1/reports", (int)slen, server);
	if (ca_file)
		snprintf(p->ca_file, sizeof(p->ca_file), "%s", ca_file);
	p->curl = p->c->easy_init();
	if (!p->curl) {
		free(p);
		return NULL;
	}
	p->headers = p->c->slist_append(p->headers, "Content-Type: application/json");
	p->headers = p->c->slist_append(p->headers, "Content-Encoding: gzip");
	if (token && *token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		p->headers = p->c->slist_append(p->headers, auth);
	}
	p->c->easy_setopt(p->curl, CURLOPT_URL, p->url);
	p->c->easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers);
	p->c->easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, keep_head);
	p->c->easy_setopt(p->curl, CURLOPT_WRITEDATA, p);
	p->c->easy_setopt(p->curl, CURLOPT_ERRORBUFFER, p->errbuf);
	p->c->easy_setopt(p->curl, CURLOPT_NOPROGRESS, 0L);
	p->c->easy_setopt(p->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	p->c->easy_setopt(p->curl, CURLOPT_XFERINFODATA, p);
	p->c->easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT, 5L);
	p->c->easy_setopt(p->curl, CURLOPT_TIMEOUT, 30L);
	p->c->easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	p->c->easy_setopt(p->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	p->c->easy_setopt(p->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	p->c->easy_setopt(p->curl, CURLOPT_SSL_VERIFYPEER, 1L);
	p->c->easy_setopt(p->curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (p->ca_file[0])
		p->c->easy_setopt(p->curl, CURLOPT_CAINFO, p->ca_file);
	return p;
}

static void describe_curl_error(struct push *p, CURLcode rc, char *err, size_t errlen)
{
	const char *detail = p->errbuf[0] ? p->errbuf : p->c->easy_strerror(rc);

	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		snprintf(err, errlen, "server unreachable at %s (down?): %s", p->url, detail);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
#if CURLE_SSL_CACERT != CURLE_PEER_FAILED_VERIFICATION
	case CURLE_SSL_CACERT:
#endif
		snprintf(err, errlen, "TLS: the certificate of %s is not trusted by %s (wrong ca_file?): %s", p->url,
			 p->ca_file[0] ? p->ca_file : "the system's CAs", detail);
		break;
	case CURLE_SSL_CACERT_BADFILE:
		snprintf(err, errlen, "TLS: cannot load ca_file %s: %s", p->ca_file, detail);
		break;
	case CURLE_SSL_CONNECT_ERROR:
		snprintf(err, errlen, "TLS handshake with %s failed (is it https?): %s", p->url, detail);
		break;
	case CURLE_ABORTED_BY_CALLBACK:
		snprintf(err, errlen, "sending to %s interrupted by shutdown", p->url);
		break;
	default:
		snprintf(err, errlen, "sending to %s failed: %s", p->url, detail);
	}
}

enum push_result push_send_gz(struct push *p, const void *gz, size_t len, long *status, char *err, size_t errlen)
{
	CURLcode rc;

	*status = 0;
	p->errbuf[0] = '\0';
	p->answer_len = 0;
	p->answer[0] = '\0';
	p->retry_after_s = 0;
	p->c->easy_setopt(p->curl, CURLOPT_POSTFIELDS, gz);
	p->c->easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = p->c->easy_perform(p->curl);
	if (rc != CURLE_OK) {
		describe_curl_error(p, rc, err, errlen);
		return PUSH_RETRY;
	}
	p->c->easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, status);
	if (*status >= 200 && *status <= 299)
		return PUSH_OK;
	p->answer[strcspn(p->answer, "\r\n")] = '\0';
	if (*status == 401 || *status == 403) {
		snprintf(err, errlen, "%s refused the token (%ld): set token or token_file to an ingest token: %s",
			 p->url, *status, p->answer);
		return PUSH_RETRY;
	}
	if (*status == 503 || *status == 429) {
		curl_off_t ra = 0;

		/* Seconds, or an HTTP date turned into seconds from now by libcurl. */
		if (p->c->easy_getinfo(p->curl, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
			p->retry_after_s = ra > LONG_MAX ? LONG_MAX : (long)ra;
	}
	if (*status >= 500 || *status == 408 || *status == 429 || *status == 404) {
		/* 404: a proxy or a server without ingest yet; the report is fine, the path is not there. */
		snprintf(err, errlen, "%s answered %ld, will retry: %s", p->url, *status, p->answer);
		return PUSH_RETRY;
	}
	snprintf(err, errlen, "%s rejected the report (%ld): %s", p->url, *status, p->answer);
	return PUSH_REJECTED;
}

enum push_result push_report(struct push *p, const char *body, size_t len, long *status, char *err, size_t errlen)
{
	char *gz = NULL;
	size_t gzlen = 0;
	enum push_result res;

	*status = 0;
	if (gz_deflate(body, len, &gz, &gzlen) < 0) {
		snprintf(err, errlen, "cannot compress the report");
		return PUSH_RETRY;
	}
	res = push_send_gz(p, gz, gzlen, status, err, errlen);
	free(gz);
	return res;
}

long push_retry_after_s(const struct push *p)
{
	return p->retry_after_s;
}

void push_rest(struct push *p)
{
	(void)p;
	curl_lib_rest();
}

void push_free(struct push *p)
{
	if (!p)
		return;
	p->c->slist_free_all(p->headers);
	p->c->easy_cleanup(p->curl);
	free(p);
}
