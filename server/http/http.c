/* http.c - libmicrohttpd glue. A request's body is collected into one buffer
 * that never grows past the configured cap: a Content-Length above it is
 * refused before any byte is read, and a chunked body that crosses it is
 * drained and refused, so no client can make the server hold more than the
 * cap per connection.
 */
#include "server/http/http.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "server/http/body_pool.h"
#include "server/http/offload.h"
#include "server/http/route.h"

/* A request older than this when read is taken as this old (a guard against odd values). */
#define HTTP_ARRIVAL_MAX_AGO_MS 60000

static int64_t http_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* When a request was all there, read once its body is: now, less how long
 * ago the kernel last received data on its socket (TCP_INFO, in ms). A
 * request that sat unread in the socket while the HTTP threads were busy has
 * waited that long too, and the ingest bound counts it; a slow upload does not. */
static int64_t http_arrival_us(struct MHD_Connection *conn, int64_t now)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int64_t ago_ms;

	memset(&ti, 0, sizeof(ti));
	if (!ci || getsockopt(ci->connect_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_last_data_recv) + sizeof(ti.tcpi_last_data_recv))
		return now;
	ago_ms = ti.tcpi_last_data_recv;
	return now - (ago_ms < HTTP_ARRIVAL_MAX_AGO_MS ? ago_ms : HTTP_ARRIVAL_MAX_AGO_MS) * 1000;
}

static void request_free(struct http_request *req)
{
	if (!req)
		return;
	if (req->held)
		atomic_fetch_sub(&req->srv->held, 1);
	if (req->state_free)
		req->state_free(req->state);
	for (int i = 0; i < req->nargs; i++)
		free(req->args[i]);
	if (req->reply)
		MHD_destroy_response(req->reply);
	if (!req->body_released)
		body_pool_put(req->body, req->body_cap);
	free(req);
}

void http_body_release(struct http_request *req)
{
	static char empty[1];

	if (req->body_released)
		return;
	body_pool_put(req->body, req->body_cap);
	req->body = empty;
	req->body_len = 0;
	req->body_cap = 0;
	req->body_released = true;
}

/* The most a request's Content-Length reserves before its bytes arrive. */
#define HTTP_BODY_PRESIZE_MAX (1u << 20)

/* Grows the body buffer to at least cap bytes: the first one from the thread's pool. */
static int body_reserve(struct http_request *req, size_t cap)
{
	char *nb;

	if (!req->body) {
		req->body = body_pool_get(cap, &req->body_cap);
		return req->body ? 0 : -ENOMEM;
	}
	nb = realloc(req->body, cap);
	if (!nb)
		return -ENOMEM;
	req->body = nb;
	req->body_cap = cap;
	return 0;
}

static int body_append(struct http_request *req, const char *data, size_t len)
{
	size_t max = req->srv->opt.max_body;

	if (req->body_too_large || req->body_len + len > max) {
		req->body_too_large = true;
		return 0;
	}
	if (req->body_len + len + 1 > req->body_cap) {
		size_t cap = req->body_cap ? req->body_cap : 4096;

		while (cap < req->body_len + len + 1)
			cap *= 2;
		if (cap > max + 1)
			cap = max + 1;
		if (body_reserve(req, cap) < 0)
			return -ENOMEM;
	}
	memcpy(req->body + req->body_len, data, len);
	req->body_len += len;
	req->body[req->body_len] = '\0';
	return 0;
}

/* How long http_stop waits for the answers of resumed requests to be sent. */
#define HTTP_STOP_ANSWER_WAIT_MS 5000

/* A restart takes a few seconds; come back then. */
#define HTTP_RETRY_AFTER_SHUTDOWN_S 5

enum MHD_Result http_send(struct http_request *req, unsigned status, struct MHD_Response *res)
{
	enum MHD_Result ret;

	if (req->on_worker) {
		if (req->reply)
			MHD_destroy_response(req->reply);
		req->reply = res;
		req->reply_status = status;
		return MHD_YES;
	}
	ret = MHD_queue_response(req->conn, status, res);
	MHD_destroy_response(res);
	return ret;
}

/* Queues the reply an offload worker kept, or closes the connection when it made none. */
static enum MHD_Result send_kept(struct http_request *req)
{
	struct MHD_Response *res = req->reply;

	req->reply = NULL;
	if (!res)
		return MHD_NO;
	if (req->worker_ret == MHD_NO) {
		MHD_destroy_response(res);
		return MHD_NO;
	}
	return http_send(req, req->reply_status, res);
}

/* The count goes up before the flag is read, so http_drain, which sets the
 * flag and then waits for a zero count, never returns while a handler can
 * still reach the stores. A request resumed after its report was committed
 * still gets its answer. */
enum MHD_Result http_run_handler(struct http_request *req, enum MHD_Result (*handler)(struct http_request *req))
{
	struct server *srv = req->srv;
	enum MHD_Result ret;

	atomic_fetch_add(&srv->in_handler, 1);
	if (atomic_load(&srv->draining) && !req->state)
		ret = http_reply_unavailable(req, HTTP_RETRY_AFTER_SHUTDOWN_S,
					     "the server is shutting down; retry later");
	else
		ret = handler(req);
	atomic_fetch_sub(&srv->in_handler, 1);
	return ret;
}

/* Routes req, or queues the reply a read worker kept for it. */
static enum MHD_Result dispatch(struct http_request *req)
{
	if (req->worker_done)
		return send_kept(req);
	return http_run_handler(req, route_dispatch);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct server *srv = cls;
	struct http_request *req = *con_cls;

	if (!req) {
		const char *clen;

		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		req->conn = conn;
		req->srv = srv;
		req->method = method;
		req->path = url;
		*con_cls = req;
		clen = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (clen) {
			unsigned long long n = strtoull(clen, NULL, 10);

			if (n > srv->opt.max_body)
				return http_reply_error(req, MHD_HTTP_CONTENT_TOO_LARGE,
							"request body is larger than the limit of %zu bytes",
							srv->opt.max_body);
			/* the whole body in one allocation instead of doubling up to it; a
			 * claim past HTTP_BODY_PRESIZE_MAX still grows only as bytes come */
			if (n &&
			    body_reserve(req, (size_t)(n < HTTP_BODY_PRESIZE_MAX ? n : HTTP_BODY_PRESIZE_MAX) + 1) < 0)
				return MHD_NO;
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (body_append(req, upload_data, *upload_data_size) < 0)
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->body_too_large)
		return http_reply_error(req, MHD_HTTP_CONTENT_TOO_LARGE,
					"request body is larger than the limit of %zu bytes", srv->opt.max_body);
	if (!req->body) {
		req->body = calloc(1, 1);
		if (!req->body)
			return MHD_NO;
	}
	if (!req->t0_us) /* the first time the whole request is here, not when resumed */
		req->t0_us = http_arrival_us(conn, http_mono_us());
	return dispatch(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	request_free(*con_cls);
	*con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_debug("http: %s", msg);
}

/* A connection's memory for its request and answer: half of it is the read buffer, which then holds
 * a whole report (~17 KB) in one recv, where MHD's default (32 KB) read one in two. */
#define HTTP_CONNECTION_MEMORY (64 * 1024)

/* Reads are not the hot path: a few workers are enough, and each holds a store connection. */
#define HTTP_READ_WORKERS_MAX 4

unsigned http_read_workers(unsigned http_threads)
{
	return http_threads < HTTP_READ_WORKERS_MAX ? http_threads : HTTP_READ_WORKERS_MAX;
}

int http_start(struct server *srv)
{
	unsigned threads = srv->opt.threads;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, srv->tls_cert_pem },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, srv->tls_key_pem },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (threads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 1;
	}
	/* main.c sizes the reader pool for the HTTP threads and these */
	srv->offload = offload_start(http_read_workers(threads));
	if (!srv->offload) {
		log_error("cannot start the read workers: %s", strerror(errno));
		return -1;
	}
	if (srv->tls_cert_pem) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			log_error("this libmicrohttpd has no TLS support");
			return -1;
		}
		flags |= MHD_USE_TLS;
	} else {
		tls[0].option = MHD_OPTION_END; /* plain HTTP: no TLS options */
	}
	srv->mhd = MHD_start_daemon(
	    flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_ARRAY, tls, MHD_OPTION_LISTEN_SOCKET, srv->listen_fd,
	    MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT, srv->opt.max_connections,
	    MHD_OPTION_CONNECTION_TIMEOUT, srv->opt.conn_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)HTTP_CONNECTION_MEMORY, MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, MHD_OPTION_NOTIFY_COMPLETED,
	    on_completed, srv, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv, MHD_OPTION_END);
	if (!srv->mhd) {
		log_error("cannot start the HTTP server%s",
			  srv->tls_cert_pem ? " (is --tls-key the key of --tls-cert?)" : "");
		return -1;
	}
	return 0;
}

void http_drain(struct server *srv)
{
	const struct timespec tick = { .tv_nsec = 1000000 };

	/* Not MHD_quiesce_daemon: with a thread pool on epoll it races the
	 * workers removing the listen socket themselves and aborts (0.9.75). */
	atomic_store(&srv->draining, true);
	while (atomic_load(&srv->in_handler) > 0)
		nanosleep(&tick, NULL);
}

void http_suspend(struct http_request *req)
{
	req->held = true;
	atomic_fetch_add(&req->srv->held, 1);
	MHD_suspend_connection(req->conn);
}

void http_stop(struct server *srv)
{
	const struct timespec tick = { .tv_nsec = 1000000 };
	int64_t until_us = http_mono_us() + HTTP_STOP_ANSWER_WAIT_MS * 1000;

	/* After http_drain nothing new is queued; the read workers answer what
	 * waits (503) and resume it, so none resumes a request once the daemon
	 * is stopped. */
	offload_stop(srv->offload);
	srv->offload = NULL;
	/* A resumed request is answered by its HTTP thread some time after the
	 * resume; stopping the daemon before would close its connection with a
	 * report committed and no answer sent, and the sender would send it
	 * again. A client that does not read its answer is given up on. */
	while (srv->mhd && atomic_load(&srv->held) > 0 && http_mono_us() < until_us)
		nanosleep(&tick, NULL);
	if (atomic_load(&srv->held) > 0)
		log_warn("stopping with %d answers not sent", atomic_load(&srv->held));
	if (srv->mhd) {
		MHD_stop_daemon(srv->mhd); /* closes the listen socket too */
		srv->listen_fd = -1;
	}
	srv->mhd = NULL;
}

/* The dashboard loads its scripts, styles and icon from this server only and
 * talks to nothing else; it has no inline script or style attribute (Chart.js
 * sizes its canvas through the CSSOM, which style-src does not govern). No
 * page may frame it, so no click can be borrowed. */
#define CSP_DASHBOARD                                                                                                  \
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "                \
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
/* Everything else (JSON, metrics, scripts, files) is data: opened on its own,
 * it may load and run nothing. */
#define CSP_DATA "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

void http_add_security_headers(struct MHD_Response *res, const char *ctype)
{
	bool html = ctype && strncmp(ctype, "text/html", 9) == 0;

	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_SECURITY_POLICY, html ? CSP_DASHBOARD : CSP_DATA);
	MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
	/* same-origin, not no-referrer: the latter would also turn the Origin of
	 * the dashboard's own POSTs into "null" */
	MHD_add_response_header(res, "Referrer-Policy", "same-origin");
}

enum MHD_Result http_reply(struct http_request *req, unsigned status, const char *ctype, const void *body, size_t len)
{
	struct MHD_Response *res;

	res = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!res)
		return MHD_NO;
	if (ctype)
		MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	http_add_security_headers(res, ctype);
	return http_send(req, status, res);
}

enum MHD_Result http_reply_json(struct http_request *req, unsigned status, cJSON *doc)
{
	char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
	enum MHD_Result ret;

	cJSON_Delete(doc);
	if (!text)
		return http_reply(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "application/json",
				  "{\"error\":\"out of memory\"}", 25);
	ret = http_reply(req, status, "application/json", text, strlen(text));
	free(text);
	return ret;
}

enum MHD_Result http_reply_error(struct http_request *req, unsigned status, const char *fmt, ...)
{
	char msg[512];
	cJSON *doc;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	doc = cJSON_CreateObject();
	if (doc)
		cJSON_AddStringToObject(doc, "error", msg);
	return http_reply_json(req, status, doc);
}

enum MHD_Result http_reply_unavailable(struct http_request *req, unsigned retry_after_s, const char *fmt, ...)
{
	char msg[512], retry[16];
	struct MHD_Response *res = NULL;
	cJSON *doc;
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	doc = cJSON_CreateObject();
	if (doc && cJSON_AddStringToObject(doc, "error", msg))
		text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!text)
		return http_reply(req, MHD_HTTP_SERVICE_UNAVAILABLE, "application/json",
				  "{\"error\":\"out of memory\"}", 25);
	res = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!res) {
		free(text);
		return MHD_NO;
	}
	snprintf(retry, sizeof(retry), "%u", retry_after_s);
	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(res, MHD_HTTP_HEADER_RETRY_AFTER, retry);
	http_add_security_headers(res, "application/json");
	return http_send(req, MHD_HTTP_SERVICE_UNAVAILABLE, res);
}

enum MHD_Result http_reply_error_allow(struct http_request *req, const char *allow)
{
	static const char body[] = "{\"error\":\"method not allowed on this path\"}";
	struct MHD_Response *res;

	res = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!res)
		return MHD_NO;
	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(res, MHD_HTTP_HEADER_ALLOW, allow);
	http_add_security_headers(res, "application/json");
	return http_send(req, MHD_HTTP_METHOD_NOT_ALLOWED, res);
}

const char *http_query(struct http_request *req, const char *key)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *http_header(struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}
