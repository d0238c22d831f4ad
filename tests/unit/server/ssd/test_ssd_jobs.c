/* test_ssd_jobs.c - the pruning job scanner: it keeps what the importer
 * reads, drops the rest, and still refuses a file that is not valid JSON
 * anywhere, including inside the parts it skips, by the same grammar and
 * limits as report bodies (server/json/json_lex.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/json/json_parse.h"
#include "server/ssd/ssd_jobs.h"

static cJSON *parse(const char *s)
{
	bool oom;
	cJSON *v = ssd_jobs_parse(s, strlen(s), &oom);

	assert_false(oom);
	return v;
}

static void test_keeps_what_is_read(void **state)
{
	cJSON *jobs =
	    parse(" [ {\"spec\":{\"kind\":\"iocost-qos\"},\"sysinfo\":{\"a\":1},\"record\":[1,2],"
		  "\"result\":{\"big\":[1.5e3,-2,true,false,null,\"x\\u00e9\\ud83d\\ude00\"]}},"
		  "{\"result\":{\"solutions\":{}},\"spec\":{\"kind\":\"iocost-tune\"},\"period\":[1,2]},"
		  "{\"spec\":{\"kind\":\"iocost-params\"},\"record\":{\"model\":{}},\"spec\":{\"kind\":\"x\"}},"
		  "7, {} ] \n");
	cJSON *qos, *tune, *params;

	assert_non_null(jobs);
	assert_int_equal(cJSON_GetArraySize(jobs), 5);
	qos = cJSON_GetArrayItem(jobs, 0);
	assert_non_null(cJSON_GetObjectItem(qos, "spec"));
	assert_non_null(cJSON_GetObjectItem(qos, "sysinfo"));
	assert_null(cJSON_GetObjectItem(qos, "record")); /* iocost-qos: measured data is not read */
	assert_null(cJSON_GetObjectItem(qos, "result"));
	tune = cJSON_GetArrayItem(jobs, 1);
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(tune, "result"), "solutions")));
	assert_null(cJSON_GetObjectItem(tune, "period"));
	params = cJSON_GetArrayItem(jobs, 2);
	/* duplicate keys: the first wins, as cJSON's lookup does */
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(params, "spec"), "kind")->valuestring,
			    "iocost-params");
	assert_non_null(cJSON_GetObjectItem(params, "record"));
	assert_true(cJSON_IsNumber(cJSON_GetArrayItem(jobs, 3)));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(jobs, 4)), 0);
	cJSON_Delete(jobs);
	jobs = parse("{\"not\":\"an array\"}");
	assert_true(cJSON_IsObject(jobs));
	cJSON_Delete(jobs);
	jobs = parse("[]");
	assert_int_equal(cJSON_GetArraySize(jobs), 0);
	cJSON_Delete(jobs);
}

static void test_invalid_json_in_skipped_parts_is_refused(void **state)
{
	static const char *bad[] = {
		"",
		"[",
		"[{}",
		"[{},]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":[1,]}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":tru}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":01}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":1.}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":-}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":\"\\x\"}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":\"\\ud800\"}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":\"\\udc00\"}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":\"\\u12\"}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":\"tab\there\"}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":{\"a\" 1}}]",
		"[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":{1:2}}]",
		"[{\"spec\" {}}]",
		"[{} {}]",
		"[] x",
		"[{\"a\":1,}]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *v = parse(bad[i]);

		if (v)
			fail_msg("accepted %s", bad[i]);
	}
}

static void test_nesting_limit_matches_report_parser(void **state)
{
	/* one nesting limit for every JSON the server reads: JSON_MAX_DEPTH
	 * containers in all, in skipped parts too, as json_parse counts them */
	const char *head = "[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":";
	size_t depth = JSON_MAX_DEPTH - 2, n = strlen(head);
	char *s = malloc(n + 2 * depth + 8);
	cJSON *v, *full;

	(void)state;
	for (int extra = 0; extra < 2; extra++) {
		size_t d = depth + (size_t)extra, k = n;

		memcpy(s, head, n);
		memset(s + k, '[', d);
		k += d;
		memset(s + k, ']', d);
		k += d;
		strcpy(s + k, "}]");
		v = parse(s);
		full = json_parse(s, strlen(s));
		assert_int_equal(v != NULL, full != NULL);
		assert_int_equal(v != NULL, extra == 0); /* 62 nested in the job accepted, 63 refused */
		cJSON_Delete(v);
		cJSON_Delete(full);
	}
	free(s);
}

static void test_refuses_bad_utf8_in_skipped_parts(void **state)
{
	(void)state;
	assert_null(parse("[{\"spec\":{\"kind\":\"iocost-qos\"},\"result\":[\"\xc0\xaf\"]}]"));
	assert_null(parse("[{\"spec\":{\"kind\":\"iocost-qos\"},\"skipped\":{\"k\xff\":1}}]"));
	assert_null(parse("{\"not\":\"an array \xed\xa0\x80\"}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeps_what_is_read),
		cmocka_unit_test(test_invalid_json_in_skipped_parts_is_refused),
		cmocka_unit_test(test_nesting_limit_matches_report_parser),
		cmocka_unit_test(test_refuses_bad_utf8_in_skipped_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
