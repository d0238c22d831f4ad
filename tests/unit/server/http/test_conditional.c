/* test_conditional.c - the static files' validators and the conditional GET
 * decision: HTTP-dates both ways (against the RFC's own example), the
 * ETag's shape, If-None-Match lists (weak forms, "*", garbage) and its
 * precedence over If-Modified-Since.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/http/conditional.h"

/* RFC 9110 5.6.7's example date, as seconds since the epoch */
#define RFC_DATE "Sun, 06 Nov 1994 08:49:37 GMT"
#define RFC_SECS 784111777

static void test_http_date_round_trip(void **state)
{
	char out[CONDITIONAL_DATE_MAX];
	time_t t = 0;

	conditional_http_date(out, RFC_SECS);
	assert_string_equal(out, RFC_DATE);
	assert_true(conditional_parse_http_date(RFC_DATE, &t));
	assert_int_equal(t, RFC_SECS);
	conditional_http_date(out, 0);
	assert_string_equal(out, "Thu, 01 Jan 1970 00:00:00 GMT");
	assert_true(conditional_parse_http_date("Thu, 29 Feb 2024 23:59:59 GMT", &t));
	assert_int_equal(t, 1709251199);
}

static void test_http_date_refuses_what_is_not_one(void **state)
{
	static const char *bad[] = {
		"",
		"yesterday",
		"Sunday, 06-Nov-94 08:49:37 GMT", /* RFC 850: obsolete, not read */
		"Sun Nov  6 08:49:37 1994",       /* asctime: obsolete, not read */
		"Sun, 06 Nov 1994 08:49:37 UTC",
		"Sun, 06 Nov 1994 08:49:37 GMT ",
		"Sun, 06 Nov 1994 24:00:00 GMT",
		"Sun, 06 Nov 1994 08:60:00 GMT",
		"Sun, 00 Nov 1994 08:49:37 GMT",
		"Sun, 06 Nox 1994 08:49:37 GMT",
		"Mon, 06 Nov 1994 08:49:37 GMT", /* 6 Nov 1994 was a Sunday */
		"Fri, 31 Feb 2023 00:00:00 GMT", /* no such day */
		"Sun, 0x Nov 1994 08:49:37 GMT",
		"Sun, 06 Nov 19a4 08:49:37 GMT",
	};
	time_t t = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (conditional_parse_http_date(bad[i], &t))
			fail_msg("\"%s\" was read as a date", bad[i]);
		assert_int_equal(t, 42);
	}
}

static void test_etag_changes_with_size_and_mtime(void **state)
{
	char a[CONDITIONAL_ETAG_MAX], b[CONDITIONAL_ETAG_MAX], c[CONDITIONAL_ETAG_MAX];

	conditional_etag(a, 1234, 1700000000123456789);
	conditional_etag(b, 1235, 1700000000123456789);
	conditional_etag(c, 1234, 1700000000123456790);
	assert_string_equal(a, "\"4d2-17979cfe3d85cd15\"");
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	conditional_etag(a, UINT64_MAX, INT64_MAX);
	assert_true(strlen(a) < CONDITIONAL_ETAG_MAX);
}

static void test_if_none_match(void **state)
{
	const char *etag = "\"4d2-1f\"";

	assert_true(conditional_not_modified("\"4d2-1f\"", NULL, etag, 0));
	assert_true(conditional_not_modified("W/\"4d2-1f\"", NULL, etag, 0)); /* weak comparison */
	assert_true(conditional_not_modified("\"a\", \"b\" ,W/\"4d2-1f\"", NULL, etag, 0));
	assert_true(conditional_not_modified(" *", NULL, etag, 0));
	assert_false(conditional_not_modified("\"4d2-1\"", NULL, etag, 0));
	assert_false(conditional_not_modified("\"4d2-1f0\"", NULL, etag, 0));
	assert_false(conditional_not_modified("4d2-1f", NULL, etag, 0));          /* unquoted: not an entity-tag */
	assert_false(conditional_not_modified("\"a\", 4d2-1f\"", NULL, etag, 0)); /* unreadable past "a" */
	assert_false(conditional_not_modified("\"4d2-1f", NULL, etag, 0));        /* unterminated */
	assert_false(conditional_not_modified("", NULL, etag, 0));
	assert_false(conditional_not_modified(",,, ", NULL, etag, 0));
}

static void test_if_modified_since(void **state)
{
	assert_true(conditional_not_modified(NULL, RFC_DATE, "\"x\"", RFC_SECS));
	assert_true(conditional_not_modified(NULL, RFC_DATE, "\"x\"", RFC_SECS - 1));
	assert_false(conditional_not_modified(NULL, RFC_DATE, "\"x\"", RFC_SECS + 1));
	assert_false(conditional_not_modified(NULL, "garbage", "\"x\"", 0));
	assert_false(conditional_not_modified(NULL, NULL, "\"x\"", 0));
	/* If-None-Match decides when both are sent, whatever the date says */
	assert_false(conditional_not_modified("\"y\"", RFC_DATE, "\"x\"", RFC_SECS));
	assert_true(conditional_not_modified("\"x\"", "garbage", "\"x\"", RFC_SECS + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_date_round_trip),
		cmocka_unit_test(test_http_date_refuses_what_is_not_one),
		cmocka_unit_test(test_etag_changes_with_size_and_mtime),
		cmocka_unit_test(test_if_none_match),
		cmocka_unit_test(test_if_modified_since),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
