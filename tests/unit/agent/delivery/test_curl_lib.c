/* test_curl_lib.c - agent/delivery/curl_lib.c: loading libcurl leaves little
 * of its libraries' file pages resident (they are let go right after the
 * load), and trimming never loses anything libcurl wrote: requests to a real
 * HTTP listener on loopback keep working, handle and options intact, across
 * trims.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/delivery/curl_lib.h"

/* A listener that answers every request on its connection with 200 and "ok". */
struct listener {
	int fd;
	unsigned short port;
	pthread_t thread;
};

static void *serve(void *arg)
{
	struct listener *l = arg;
	int c;

	while ((c = accept(l->fd, NULL, NULL)) >= 0) {
		char buf[4096];
		size_t have = 0;
		ssize_t n;

		while ((n = read(c, buf + have, sizeof(buf) - 1 - have)) > 0) {
			char *end;

			have += (size_t)n;
			buf[have] = '\0';
			while ((end = strstr(buf, "\r\n\r\n"))) { /* GETs only: no body */
				static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
				size_t used = (size_t)(end + 4 - buf);

				if (write(c, ok, sizeof(ok) - 1) < 0)
					break;
				memmove(buf, end + 4, have - used + 1);
				have -= used;
			}
		}
		close(c);
	}
	return NULL;
}

static void listener_start(struct listener *l)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l->fd >= 0);
	assert_int_equal(bind(l->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l->fd, 8), 0);
	assert_int_equal(getsockname(l->fd, (struct sockaddr *)&a, &len), 0);
	l->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&l->thread, NULL, serve, l), 0);
}

static void listener_stop(struct listener *l)
{
	shutdown(l->fd, SHUT_RDWR);
	close(l->fd);
	pthread_join(l->thread, NULL);
}

/* RssFile of this process in kB. */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "RssFile:", 8) == 0)
			kb = atol(line + 8);
	fclose(f);
	return kb;
}

struct body {
	char text[64];
	size_t len;
};

static size_t keep(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb;

	if (n > sizeof(b->text) - 1 - b->len)
		n = sizeof(b->text) - 1 - b->len;
	memcpy(b->text + b->len, ptr, n);
	b->len += n;
	b->text[b->len] = '\0';
	return size * nmemb;
}

/* GETs url with the handle as it is set up; asserts 200 and "ok". */
static void get_ok(const struct curl_lib *c, CURL *h, struct body *b)
{
	long status = 0;

	b->len = 0;
	b->text[0] = '\0';
	assert_int_equal(c->easy_perform(h), CURLE_OK);
	assert_int_equal(c->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status), CURLE_OK);
	assert_int_equal(status, 200);
	assert_string_equal(b->text, "ok");
}

static void test_curl_lib_load_leaves_little_resident(void **state)
{
	char err[512];
	long before, after;

	(void)state;
	before = rss_file_kb();
	if (!curl_lib_get(err, sizeof(err)))
		fail_msg("%s", err);
	after = rss_file_kb();
	/* Untrimmed, the load makes ~7.5 MiB of file pages resident (libcrypto alone ~2.9). */
	assert_true(after - before < 2048);
}

static void test_curl_lib_requests_work_across_trims(void **state)
{
	struct listener l;
	struct body b = { 0 };
	char err[512], url[64];
	const struct curl_lib *c;
	CURL *h;

	(void)state;
	c = curl_lib_get(err, sizeof(err));
	if (!c)
		fail_msg("%s", err);
	listener_start(&l);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", l.port);
	h = c->easy_init();
	assert_non_null(h);
	c->easy_setopt(h, CURLOPT_URL, url);
	c->easy_setopt(h, CURLOPT_WRITEFUNCTION, keep);
	c->easy_setopt(h, CURLOPT_WRITEDATA, &b);
	for (int i = 0; i < 3; i++) {
		long sent;

		get_ok(c, h, &b);
		sent = rss_file_kb();
		curl_lib_trim();
		assert_true(rss_file_kb() < sent); /* the pages the request touched are let go */
		assert_string_equal(c->easy_strerror(CURLE_OK), "No error");
	}
	get_ok(c, h, &b);
	curl_lib_rest(); /* the last trim was just now: nothing to do, and the next request still works */
	get_ok(c, h, &b);
	c->easy_cleanup(h);
	listener_stop(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_curl_lib_load_leaves_little_resident),
		cmocka_unit_test(test_curl_lib_requests_work_across_trims),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	curl_lib_release();
	return rc;
}
