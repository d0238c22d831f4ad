/* test_report_labels.c - host.labels in reports (server/ingest/report_parse.c,
 * common/labels.c; issue 15): valid labels become canonical text sorted by
 * key, an empty or absent object is no labels, and every limit of the contract
 * is refused with 400 naming the label. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/labels.h"
#include "server/ingest/report_parse.h"

static int parse_labels(const char *labels_json, struct report *rep, char *err)
{
	char body[16384];

	snprintf(body, sizeof(body),
		 "{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\"%s%s},"
		 "\"interval\":{\"start_ms\":1000,\"end_ms\":11000}}",
		 labels_json ? ",\"labels\":" : "", labels_json ? labels_json : "");
	return report_parse(body, strlen(body), rep, err, 512);
}

static void test_labels_become_sorted_canonical_text(void **state)
{
	struct report rep;
	char err[512];

	assert_int_equal(parse_labels("{\"zone\":\"eu west-1:a\",\"role\":\"web\",\"canary\":\"1\"}", &rep, err), 0);
	assert_string_equal(rep.labels, "canary=1,role=web,zone=eu west-1:a");
	report_free(&rep);
}

static void test_no_labels_is_null(void **state)
{
	struct report rep;
	char err[512];

	assert_int_equal(parse_labels(NULL, &rep, err), 0);
	assert_null(rep.labels);
	report_free(&rep);
	assert_int_equal(parse_labels("{}", &rep, err), 0);
	assert_null(rep.labels);
	report_free(&rep);
	/* null is no value the schema has: the member is left out when there are no labels */
	assert_int_equal(parse_labels("null", &rep, err), 400);
	assert_non_null(strstr(err, "host.labels must not be null"));
	report_free(&rep);
}

static void test_bad_labels_are_400_naming_the_label(void **state)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "[\"role\"]", "host.labels must be an object" },
		{ "\"role=web\"", "host.labels must be an object" },
		{ "{\"Role\":\"web\"}", "host.labels: label key 'Role' must be a lowercase letter" },
		{ "{\"\":\"web\"}", "host.labels: label key ''" },
		{ "{\"9\":\"web\"}", "label key '9'" },
		{ "{\"ro.le\":\"web\"}", "label key 'ro.le'" },
		{ "{\"role\":3}", "host.labels.role must be a string" },
		{ "{\"role\":null}", "host.labels.role must be a string" },
		{ "{\"role\":\"\"}", "host.labels: label role: the value must be 1..128 bytes, not 0" },
		{ "{\"role\":\"a,b\"}", "label role: the value may hold printable ASCII but" },
		{ "{\"role\":\"a=b\"}", "label role: the value may hold printable ASCII but" },
		{ "{\"role\":\"a\\\"b\"}", "(byte 1 is 0x22)" },
		{ "{\"role\":\"a\\\\b\"}", "(byte 1 is 0x5c)" },
		{ "{\"role\":\"a\\nb\"}", "(byte 1 is 0x0a)" },
		{ "{\"role\":\"caf\\u00e9\"}", "(byte 3 is 0xc3)" },
		{ "{\"role\":\"a\",\"role\":\"b\"}", "host.labels: label role is given twice" },
	};
	struct report rep;
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse_labels(bad[i].json, &rep, err), 400);
		if (!strstr(err, bad[i].msg))
			fail_msg("%s: got '%s', want '%s'", bad[i].json, err, bad[i].msg);
		report_free(&rep);
	}
}

/* 32 labels of 63-byte keys and 128-byte values are the most a report may carry. */
static void test_label_limits_at_and_past_the_edge(void **state)
{
	char json[16000], val[130], err[512];
	struct report rep;
	size_t o;

	memset(val, 'v', 128);
	val[128] = '\0';
	o = (size_t)snprintf(json, sizeof(json), "{");
	for (int i = 0; i < LABELS_MAX; i++)
		o += (size_t)snprintf(json + o, sizeof(json) - o, "%s\"k%062d\":\"%s\"", i ? "," : "", i, val);
	snprintf(json + o, sizeof(json) - o, "}");
	assert_int_equal(parse_labels(json, &rep, err), 0);
	assert_int_equal(strlen(rep.labels), LABELS_TEXT_MAX - 1); /* no comma after the last */
	report_free(&rep);
	/* a 33rd label */
	snprintf(json + o, sizeof(json) - o, ",\"x\":\"y\"}");
	assert_int_equal(parse_labels(json, &rep, err), 400);
	assert_string_equal(err, "host.labels has more than the limit of 32 labels");
	report_free(&rep);
	/* a 64-byte key, a 129-byte value */
	snprintf(json, sizeof(json), "{\"k%063d\":\"x\"}", 0);
	assert_int_equal(parse_labels(json, &rep, err), 400);
	assert_non_null(strstr(err, "(63 bytes at most)"));
	report_free(&rep);
	snprintf(json, sizeof(json), "{\"role\":\"%sv\"}", val);
	assert_int_equal(parse_labels(json, &rep, err), 400);
	assert_non_null(strstr(err, "label role: the value must be 1..128 bytes, not 129"));
	report_free(&rep);
}

/* labels_find and labels_to_json read back exactly what labels_canonical wrote. */
static void test_canonical_text_reads_back(void **state)
{
	const char *keys[] = { "zone", "role", "r" }, *values[] = { "eu", "web", "x y" };
	char text[LABELS_TEXT_MAX + 1];
	cJSON *o = cJSON_CreateObject();
	size_t len;
	const char *v;

	labels_canonical(keys, values, 3, text);
	assert_string_equal(text, "r=x y,role=web,zone=eu");
	v = labels_find(text, "role", &len);
	assert_non_null(v);
	assert_int_equal(len, 3);
	assert_memory_equal(v, "web", 3);
	assert_null(labels_find(text, "rol", &len)); /* a prefix of a key is not the key */
	assert_null(labels_find(text, "web", &len));
	assert_null(labels_find("", "role", &len));
	assert_int_equal(labels_to_json(text, o), 0);
	assert_int_equal(cJSON_GetArraySize(o), 3);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "r")->valuestring, "x y");
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_become_sorted_canonical_text),
		cmocka_unit_test(test_no_labels_is_null),
		cmocka_unit_test(test_bad_labels_are_400_naming_the_label),
		cmocka_unit_test(test_label_limits_at_and_past_the_edge),
		cmocka_unit_test(test_canonical_text_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
