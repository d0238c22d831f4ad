/* test_route.c - the route matcher: literal segments, {captures} decoded,
 * kept as libmicrohttpd decoded them, and paths that must not match.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "server/http/route.h"

static void free_args(char **args, int n)
{
	for (int i = 0; i < n; i++)
		free(args[i]);
}

static void test_route_match_literal_and_captures(void **state)
{
	char *args[HTTP_MAX_PATH_ARGS] = { 0 };
	int n;

	assert_int_equal(route_match("/healthz", "/healthz", args, HTTP_MAX_PATH_ARGS), 0);
	n = route_match("/api/v1/hosts/{id}/runqlat", "/api/v1/hosts/abc d/runqlat", args, HTTP_MAX_PATH_ARGS);
	assert_int_equal(n, 1);
	assert_string_equal(args[0], "abc d");
	free_args(args, n);
	n = route_match("/a/{x}/b/{y}", "/a/1/b/'; DROP%41", args, HTTP_MAX_PATH_ARGS);
	assert_int_equal(n, 2);
	assert_string_equal(args[1], "'; DROP%41"); /* never decoded twice */
	free_args(args, n);
}

static void test_route_match_rejects(void **state)
{
	char *args[HTTP_MAX_PATH_ARGS] = { 0 };

	assert_int_equal(route_match("/healthz", "/healthz/", args, HTTP_MAX_PATH_ARGS), -1);
	assert_int_equal(route_match("/api/v1/hosts/{id}", "/api/v1/hosts/", args, HTTP_MAX_PATH_ARGS), -1);
	assert_int_equal(route_match("/api/v1/hosts/{id}", "/api/v1/hosts/a/b", args, HTTP_MAX_PATH_ARGS), -1);
	assert_int_equal(route_match("/api/v1/hosts", "/api/v1/host", args, HTTP_MAX_PATH_ARGS), -1);
	assert_int_equal(route_match("/api/v1/hosts", "", args, HTTP_MAX_PATH_ARGS), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_match_literal_and_captures),
		cmocka_unit_test(test_route_match_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
