/* test_json_parse.c - the server's JSON parser (server/json/json_parse.c):
 * what RFC 8259 accepts it accepts, with the tree cJSON would build; it
 * refuses what the report path must refuse (bad UTF-8, nesting past
 * JSON_MAX_DEPTH, truncated documents, lone surrogates, \u0000).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/json/json_parse.h"

static cJSON *parse(const char *s)
{
	return json_parse(s, strlen(s));
}

/* Parses s and checks the tree is the one cJSON builds. Compared printed,
 * because cJSON_Compare looks object members up by key and so calls two
 * identical objects with a duplicate key different. */
static void assert_same_as_cjson(const char *s)
{
	cJSON *a = parse(s), *b = cJSON_ParseWithLength(s, strlen(s));
	char *pa, *pb;

	assert_non_null(a);
	assert_non_null(b);
	pa = cJSON_PrintUnformatted(a);
	pb = cJSON_PrintUnformatted(b);
	assert_string_equal(pa, pb);
	cJSON_free(pa);
	cJSON_free(pb);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void assert_refused(const char *s, size_t len)
{
	cJSON *v = json_parse(s, len);

	if (v)
		fail_msg("accepted: %.*s", (int)len, s);
}

static void test_json_parse_valid_documents_match_cjson(void **state)
{
	static const char *const docs[] = {
		"{}",
		"[]",
		" \t\r\n{\"a\" : [1, 2, {\"b\": null}], \"c\": true, \"d\": false} \n",
		"\"just a string\"",
		"0",
		"[-0, 1, -1, 123456789012345, 1234567890123456789, 0.5, -2.5e-3, 1E10, 1e+2]",
		"{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"h\",\"cpus\":4}}",
		"[[1,2],[3,4],[],[[]]]",
		"{\"k\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		assert_same_as_cjson(docs[i]);
}

static void test_json_parse_numbers(void **state)
{
	cJSON *v;

	(void)state;
	v = parse("[9007199254740993, -42, 3.25, 1e3, 999999999999999]");
	assert_non_null(v);
	assert_true(cJSON_GetArrayItem(v, 0)->valuedouble == 9007199254740993.0);
	assert_int_equal(cJSON_GetArrayItem(v, 1)->valueint, -42);
	assert_true(cJSON_GetArrayItem(v, 2)->valuedouble == 3.25);
	assert_int_equal(cJSON_GetArrayItem(v, 3)->valueint, 1000);
	assert_true(cJSON_GetArrayItem(v, 4)->valuedouble == 999999999999999.0);
	cJSON_Delete(v);
	assert_refused("01", 2);
	assert_refused("-", 1);
	assert_refused("1.", 2);
	assert_refused(".5", 2);
	assert_refused("1e", 2);
	assert_refused("+1", 2);
	assert_refused("[1,]", 4);
	assert_refused("0x10", 4);
	assert_refused("NaN", 3);
}

/* Decimals of up to 15 digits skip strtod (json_parse.c's fast path): every
 * one must be the double strtod reads, bit for bit, around the fast path's
 * edges (15 and 16 digits, leading zeros, -0) and on random ones. */
static void test_json_parse_decimals_match_strtod(void **state)
{
	static const char *const fixed[] = { "0.0",
					     "-0.0",
					     "0.1",
					     "-0.3",
					     "0.000000000000001",
					     "123456789012.345",
					     "999999999999999.0",
					     "9999999999999.99",
					     "0.1234567890123456",
					     "1.7976931348623157",
					     "2.2250738585072014",
					     "5e-324",
					     "0.30000000000000004" };
	char text[64];
	unsigned seed = 18;

	(void)state;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 200000; i++) {
		const char *t = text;
		cJSON *v;
		double want;

		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			t = fixed[i];
		} else { /* up to 16 digits with the point anywhere after the first */
			int n = 1 + (int)(rand_r(&seed) % 16), point = 1 + (int)(rand_r(&seed) % (unsigned)n), o = 0;

			if (rand_r(&seed) % 2)
				text[o++] = '-';
			for (int d = 0; d < n; d++) {
				if (d == point)
					text[o++] = '.';
				text[o++] =
				    (char)('0' + (d == 0 && point > 1 ? 1 + rand_r(&seed) % 9 : rand_r(&seed) % 10));
			}
			if (point == n)
				text[o++] = '.', text[o++] = (char)('0' + rand_r(&seed) % 10);
			text[o] = '\0';
		}
		v = parse(t);
		if (!v)
			fail_msg("refused: %s", t);
		want = strtod(t, NULL);
		if (memcmp(&v->valuedouble, &want, sizeof(want)) != 0)
			fail_msg("%s: %.17g, strtod %.17g", t, v->valuedouble, want);
		cJSON_Delete(v);
	}
}

static void test_json_parse_escapes(void **state)
{
	cJSON *v;

	(void)state;
	v = parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00\"");
	assert_non_null(v);
	assert_string_equal(v->valuestring, "\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	cJSON_Delete(v);
	assert_same_as_cjson("[\"a\\u0041\\n\", \"\\ud83d\\ude00\"]");
	assert_refused("\"\\x\"", 4);
	assert_refused("\"\\u12\"", 6);
	assert_refused("\"\\ud83d\"", 8);         /* lone high surrogate */
	assert_refused("\"\\ude00\"", 8);         /* lone low surrogate */
	assert_refused("\"\\ud83d\\u0041\"", 14); /* high surrogate, then no low one */
	assert_refused("\"\\u0000\"", 8);         /* would cut the C string */
	assert_refused("\"tab\there\"", 10);      /* raw control character */
}

static void test_json_parse_refuses_bad_utf8(void **state)
{
	static const char *const bad[] = {
		"\"\x80\"",             /* lone continuation byte */
		"\"\xc0\xaf\"",         /* overlong '/' */
		"\"\xc3\"",             /* truncated sequence */
		"\"\xe0\x80\xaf\"",     /* overlong three-byte */
		"\"\xed\xa0\x80\"",     /* UTF-16 surrogate in UTF-8 */
		"\"\xf4\x90\x80\x80\"", /* past U+10FFFF */
		"\"\xff\"",
		"{\"k\xfe\":1}", /* in a key */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(bad[i], strlen(bad[i]));
}

static char *nested(int depth)
{
	char *s = malloc(2 * (size_t)depth + 1);

	memset(s, '[', (size_t)depth);
	memset(s + depth, ']', (size_t)depth);
	s[2 * depth] = '\0';
	return s;
}

static void test_json_parse_depth_limit(void **state)
{
	char *ok = nested(JSON_MAX_DEPTH), *deep = nested(JSON_MAX_DEPTH + 1);
	cJSON *v;

	(void)state;
	v = parse(ok);
	assert_non_null(v);
	cJSON_Delete(v);
	assert_refused(deep, strlen(deep));
	free(ok);
	free(deep);
}

static void test_json_parse_refuses_truncated_input(void **state)
{
	const char *doc = "{\"a\":[1,{\"b\":\"xyz\"},true,null,-1.5e3],\"c\":false}";
	size_t len = strlen(doc);
	cJSON *v;

	(void)state;
	for (size_t n = 0; n < len; n++)
		assert_refused(doc, n);
	v = json_parse(doc, len);
	assert_non_null(v);
	cJSON_Delete(v);
}

static void test_json_parse_refuses_trailing_data(void **state)
{
	(void)state;
	assert_refused("{} {}", 5);
	assert_refused("1 2", 3);
	assert_refused("[1]x", 4);
	assert_refused("{\"a\":1,}", 8);
	assert_refused("{\"a\" 1}", 7);
	assert_refused("{a:1}", 5);
	assert_refused("tru", 3);
	assert_refused("", 0);
	assert_refused("   ", 3);
}

/* Both keys are kept, in order, and lookup finds the first, as in cJSON. */
static void test_json_parse_duplicate_keys_keep_first_for_lookup(void **state)
{
	cJSON *v;

	(void)state;
	v = parse("{\"a\":1,\"a\":2}");
	assert_non_null(v);
	assert_int_equal(cJSON_GetArraySize(v), 2);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(v, "a")->valueint, 1);
	cJSON_Delete(v);
	assert_same_as_cjson("{\"a\":1,\"a\":2}");
}

/* The length bounds the parse: what follows it in memory is never read. */
static void test_json_parse_stops_at_length(void **state)
{
	const char buf[] = "[1,2]garbage";
	cJSON *v = json_parse(buf, 5);

	(void)state;
	assert_non_null(v);
	assert_int_equal(cJSON_GetArraySize(v), 2);
	cJSON_Delete(v);
}

/* Arrays under the named member stay checked text; the rest is the usual tree, and
 * whatever json_parse refuses (bad arrays, depth) json_parse_raw_member refuses too. */
static void test_json_parse_raw_member(void **state)
{
	const char *doc = "{\"b\":[[1, 2],[3,4]],\"x\":{\"b\":[ ]},\"c\":[5],\"b2\":[1],\"s\":{\"b\":7}}";
	static const char *const bad[] = { "{\"b\":[[1,2],]}", "{\"b\":[01]}", "{\"b\":[\"\\x\"]}", "{\"b\":[1" };
	char deep[2 * JSON_MAX_DEPTH + 16];
	cJSON *v;
	size_t n = 0;

	(void)state;
	v = json_parse_raw_member(doc, strlen(doc), "b");
	assert_non_null(v);
	assert_true(cJSON_IsRaw(cJSON_GetObjectItemCaseSensitive(v, "b")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "b")->valuestring, "[[1, 2],[3,4]]");
	assert_string_equal(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "x"), "b")->valuestring, "[ ]");
	assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(v, "c")));
	assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(v, "b2")));
	assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "s"), "b")));
	cJSON_Delete(v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(json_parse_raw_member(bad[i], strlen(bad[i]), "b"));
	/* {"b": followed by arrays nested to the limit and one past it: both parsers agree. */
	for (int extra = 0; extra < 2; extra++) {
		n = (size_t)snprintf(deep, sizeof(deep), "{\"b\":");
		for (int d = 1; d < JSON_MAX_DEPTH + extra; d++)
			deep[n++] = '[';
		for (int d = 1; d < JSON_MAX_DEPTH + extra; d++)
			deep[n++] = ']';
		deep[n++] = '}';
		v = json_parse(deep, n);
		cJSON *r = json_parse_raw_member(deep, n, "b");

		assert_true((v == NULL) == (r == NULL));
		assert_true(extra ? v == NULL : v != NULL);
		cJSON_Delete(v);
		cJSON_Delete(r);
	}
}

/* An array of integer pairs under the raw member keeps them read; anything else
 * (a float, a sign, 16 digits, a triple, nesting at the depth limit) is text alone,
 * accepted or refused as json_parse decides; a copy of the node has no pairs. */
static void test_json_parse_raw_pairs(void **state)
{
	const char *doc = "{\"b\":[ [0 ,7] ,[\t12,\n999999999999999 ]],\"c\":{\"b\":[]}}";
	static const char *const text_only[] = { "{\"b\":[[1,2.5]]}", "{\"b\":[[-1,2]]}",
						 "{\"b\":[[1,2,3]]}", "{\"b\":[[1,1234567890123456]]}",
						 "{\"b\":[[1,2],3]}", "{\"b\":[[1,2e1]]}" };
	char deep[8 * JSON_MAX_DEPTH + 32];
	const uint64_t *v;
	cJSON *r, *raw, *copy;
	size_t n = 0, len;

	(void)state;
	r = json_parse_raw_member(doc, strlen(doc), "b");
	assert_non_null(r);
	raw = cJSON_GetObjectItemCaseSensitive(r, "b");
	v = json_raw_pairs(raw, &n);
	assert_non_null(v);
	assert_int_equal(n, 2);
	assert_true(v[0] == 0 && v[1] == 7 && v[2] == 12 && v[3] == 999999999999999ull);
	v = json_raw_pairs(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "c"), "b"), &n);
	assert_non_null(v);
	assert_int_equal(n, 0);
	copy = cJSON_Duplicate(raw, true);
	assert_non_null(copy);
	assert_null(json_raw_pairs(copy, &n));
	cJSON_Delete(copy);
	cJSON_Delete(r);
	for (size_t i = 0; i < sizeof(text_only) / sizeof(text_only[0]); i++) {
		r = json_parse_raw_member(text_only[i], strlen(text_only[i]), "b");
		assert_non_null(r);
		raw = cJSON_GetObjectItemCaseSensitive(r, "b");
		assert_true(cJSON_IsRaw(raw));
		assert_null(json_raw_pairs(raw, NULL));
		cJSON_Delete(r);
	}
	/* "b":[[1,2]] inside objects nested so that the pairs sit at the depth limit, and one past it */
	for (int extra = 0; extra < 2; extra++) {
		int objs = JSON_MAX_DEPTH - 2 + extra;
		cJSON *t;

		len = 0;
		for (int d = 0; d < objs; d++)
			len += (size_t)snprintf(deep + len, sizeof(deep) - len, d + 1 < objs ? "{\"a\":" : "{\"b\":");
		len += (size_t)snprintf(deep + len, sizeof(deep) - len, "[[1,2]]");
		for (int d = 0; d < objs; d++)
			deep[len++] = '}';
		t = json_parse(deep, len);
		r = json_parse_raw_member(deep, len, "b");
		assert_true(extra ? t == NULL : t != NULL);
		assert_true((t == NULL) == (r == NULL));
		cJSON_Delete(t);
		cJSON_Delete(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_parse_valid_documents_match_cjson),
		cmocka_unit_test(test_json_parse_numbers),
		cmocka_unit_test(test_json_parse_decimals_match_strtod),
		cmocka_unit_test(test_json_parse_escapes),
		cmocka_unit_test(test_json_parse_refuses_bad_utf8),
		cmocka_unit_test(test_json_parse_depth_limit),
		cmocka_unit_test(test_json_parse_refuses_truncated_input),
		cmocka_unit_test(test_json_parse_refuses_trailing_data),
		cmocka_unit_test(test_json_parse_duplicate_keys_keep_first_for_lookup),
		cmocka_unit_test(test_json_parse_stops_at_length),
		cmocka_unit_test(test_json_parse_raw_member),
		cmocka_unit_test(test_json_parse_raw_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
