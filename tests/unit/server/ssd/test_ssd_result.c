/* test_ssd_result.c - the resctl-bench result parser on small hand-made
 * files: fields, trimming, the md5 id, gzip and its failure modes (bomb,
 * truncation), shapes that must be refused, and the stored-summary round
 * trip.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/gz.h"
#include "server/ssd/ssd_result.h"

/* Its md5 (5e0b9bf0...) was computed separately with Python's hashlib. */
static const char good[] =
    "[{\"spec\":{\"kind\":\"iocost-params\"},\"sysinfo\":{\"bench_version\":\"2.2.3 x86_64\",\"sysreqs_report\":"
    "{\"scr_dev_model\":\" Test SSD 1TB \",\"scr_dev_fwrev\":\" FW1 \",\"scr_dev_size\":1000204886016,"
    "\"kernel_version\":\"6.1.0-27-amd64\"}},\"record\":{\"model\":{\"rbps\":1,\"rseqiops\":2,\"rrandiops\":3,"
    "\"wbps\":4,\"wseqiops\":5,\"wrandiops\":6},\"qos\":{\"rpct\":95.0,\"rlat\":1000,\"wpct\":90.5,\"wlat\":2000,"
    "\"min\":60.0,\"max\":100.0}}},{\"spec\":{\"kind\":\"iocost-tune\"},\"result\":{\"solutions\":{\"naive\":"
    "{\"model\":{\"rbps\":10,\"rseqiops\":20,\"rrandiops\":30,\"wbps\":40,\"wseqiops\":50,\"wrandiops\":60},"
    "\"qos\":{\"rpct\":99.0,\"rlat\":500,\"wpct\":99.0,\"wlat\":600,\"min\":75.0,\"max\":100.0},"
    "\"mem_offload_factor\":1.5,\"isol\":0.9},\"bandwidth\":{\"model\":{\"rbps\":11,\"rseqiops\":21,"
    "\"rrandiops\":31,\"wbps\":41,\"wseqiops\":51,\"wrandiops\":61},\"qos\":{\"rpct\":0,\"rlat\":700,\"wpct\":0,"
    "\"wlat\":800,\"min\":100,\"max\":100}}}}}]";

static int parse(const char *text, struct ssd_result *r, char *err)
{
	return ssd_result_parse(text, strlen(text), 1 << 20, r, err, 256);
}

static void test_parses_fields_and_trims(void **state)
{
	struct ssd_result *r = malloc(sizeof(*r));
	char err[256];

	assert_int_equal(parse(good, r, err), 0);
	assert_string_equal(r->id, "5e0b9bf0d8fb96f53b8747a0f76d19a7");
	assert_string_equal(r->model, "Test SSD 1TB");
	assert_string_equal(r->model_id, "Test_SSD_1TB");
	assert_string_equal(r->fwrev, "FW1");
	assert_true(r->size_bytes == 1000204886016ull);
	assert_string_equal(r->kernel, "6.1.0-27-amd64");
	assert_string_equal(r->bench_version, "2.2.3");
	assert_int_equal(r->bench_major, 2);
	assert_int_equal(r->bench_minor, 2);
	assert_false(r->merged);
	assert_true(r->has_params);
	assert_true(r->params_model[SSD_WRANDIOPS] == 6 && r->params_qos[SSD_WPCT] == 90.5);
	assert_int_equal(r->nsolutions, 2);
	assert_string_equal(r->solutions[0].name, "bandwidth"); /* sorted */
	assert_true(isnan(r->solutions[0].mof));
	assert_true(r->solutions[1].mof == 1.5 && r->solutions[1].isol == 0.9 && isnan(r->solutions[1].amof));
	assert_true(ssd_result_solution(r, "naive")->qos[SSD_WLAT] == 600);
	assert_null(ssd_result_solution(r, "isolation"));
	free(r);
}

static void test_gzip_is_detected_by_magic_and_capped(void **state)
{
	struct ssd_result *r = malloc(sizeof(*r));
	char err[256], *gz = NULL, *zeros = calloc(1, 4 << 20);
	size_t len;

	assert_int_equal(gz_deflate(good, strlen(good), &gz, &len), 0);
	assert_int_equal(ssd_result_parse(gz, len, 1 << 20, r, err, sizeof(err)), 0);
	assert_string_equal(r->id, "5e0b9bf0d8fb96f53b8747a0f76d19a7"); /* md5 of the JSON, not the gzip */
	/* truncated anywhere: 400 */
	for (size_t cut = 1; cut < len; cut += len / 7 + 1)
		assert_int_equal(ssd_result_parse(gz, cut, 1 << 20, r, err, sizeof(err)), 400);
	assert_int_equal(ssd_result_parse(gz, len, strlen(good) - 1, r, err, sizeof(err)), 413);
	free(gz);
	/* a bomb: 4 MiB of zeros in a few KiB, cap 1 MiB */
	assert_int_equal(gz_deflate(zeros, 4 << 20, &gz, &len), 0);
	assert_true(len < 64 << 10);
	assert_int_equal(ssd_result_parse(gz, len, 1 << 20, r, err, sizeof(err)), 413);
	assert_non_null(strstr(err, "inflates to more than"));
	assert_string_equal(r->model, ""); /* nothing half-filled */
	/* plain JSON over the cap: 413 too */
	assert_int_equal(ssd_result_parse(good, strlen(good), 100, r, err, sizeof(err)), 413);
	free(gz);
	free(zeros);
	free(r);
}

static void expect(const char *text, int status, const char *words)
{
	struct ssd_result *r = malloc(sizeof(*r));
	char err[256] = "";
	int rc = parse(text, r, err);

	if (rc != status || !strstr(err, words))
		fail_msg("%s -> %d '%s', wanted %d '%s'", text, rc, err, status, words);
	free(r);
}

/* good with the first occurrence of from replaced by to */
static char *variant(const char *from, const char *to)
{
	const char *at = strstr(good, from);
	char *out = malloc(strlen(good) + strlen(to) + 1);

	assert_non_null(at);
	sprintf(out, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	return out;
}

static void test_refuses_with_reasons(void **state)
{
	/* each bad value in to, put in place of from, is refused with 422 and words */
	static const struct {
		const char *from, *words, *to[4];
	} cases[] = {
		{ "\" Test SSD 1TB \"", "no device model", { "\"\"", "42" } },
		{ "\" Test SSD 1TB \"", "not allowed", { "\"a/b\"", "\"a\\nb\"", "\"caf\\u00e9\"" } },
		{ "\" Test SSD 1TB \"", "NUL", { "\"nul\\u0000\"" } },
		{ "\" FW1 \"", "scr_dev_fwrev", { "\"x*\"" } },
		{ "\"sysreqs_report\"", "sysreqs_report", { "\"other\"" } },
		/* "2. 2" was found by the fuzzer */
		{ "\"2.2.3 x86_64\"", "bench_version", { "\"v2\"", "\"2. 2\"", "\"-2.2\"" } },
		{ "\"rbps\":1,", "rbps", { "\"rbps\":-1,", "\"rbps\":1e300,", "\"rbps\":\"1\"," } },
		{ "\"rpct\":99.0", "rpct", { "\"rpct\":100.5" } },
		{ "\"naive\":", "solution name", { "\"Naive Solution\":" } },
		{ "\"solutions\":{", "not an object", { "\"solutions\":7,\"x\":{" } },
		{ "\"kind\":\"iocost-params\"", "wrong shape", { "\"kind\":7" } },
		{ "\"scr_dev_size\":1000204886016", "scr_dev_size", { "\"scr_dev_size\":\"big\"" } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t j = 0; j < sizeof(cases[i].to) / sizeof(cases[i].to[0]) && cases[i].to[j]; j++) {
			char *t = variant(cases[i].from, cases[i].to[j]);

			expect(t, 422, cases[i].words);
			free(t);
		}
	}
	expect("not json", 400, "neither gzip nor valid JSON");
	expect("", 400, "neither gzip nor valid JSON");
	expect("{}", 422, "wrong shape");
	expect("[]", 422, "wrong shape");
	expect("[1]", 422, "wrong shape");
	expect("[{\"spec\":{\"kind\":\"iocost-tune\"},\"sysinfo\":{\"bench_version\":\"2.1\",\"sysreqs_report\":"
	       "{\"scr_dev_model\":\"M\"}},\"result\":null}]",
	       422, "no iocost data");
}

static void test_long_names_refused(void **state)
{
	char name[SSD_MODEL_MAX + 8], quoted[SSD_MODEL_MAX + 16], *t;

	memset(name, 'M', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	t = variant("\" Test SSD 1TB \"", quoted);
	expect(t, 422, "longer than 128");
	free(t);
	name[SSD_MODEL_MAX] = '\0'; /* exactly the limit is fine */
	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	t = variant("\" Test SSD 1TB \"", quoted);
	expect(t, 0, "");
	free(t);
}

static void test_merged_and_summary_round_trip(void **state)
{
	struct ssd_result *r = malloc(sizeof(*r)), *back = malloc(sizeof(*back));
	char err[256], *t = variant("\"kind\":\"iocost-params\"", "\"kind\":\"merge-info\"");
	cJSON *doc;

	assert_int_equal(parse(t, r, err), 0);
	assert_true(r->merged);
	assert_false(r->has_params); /* the iocost-params job became merge-info */
	doc = ssd_result_to_json(r);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "params")));
	assert_int_equal(ssd_result_from_json(doc, back), 0);
	assert_string_equal(back->model_id, r->model_id);
	assert_int_equal(back->nsolutions, r->nsolutions);
	assert_true(back->merged && back->bench_minor == 2);
	assert_memory_equal(back->solutions[1].model, r->solutions[1].model, sizeof(r->solutions[1].model));
	assert_true(back->solutions[1].mof == 1.5 && isnan(back->solutions[1].amof));
	cJSON_Delete(doc);
	free(t);
	free(r);
	free(back);
}

static void test_name_rules(void **state)
{
	char id[SSD_MODEL_MAX + 1];

	assert_true(ssd_name_ok("Samsung SSD 970 EVO 500GB"));
	assert_true(ssd_name_ok("WDC WDS500G2B0A-00SM50 (rev.2)"));
	assert_false(ssd_name_ok("a[1]"));
	assert_false(ssd_name_ok("a\tb"));
	assert_false(ssd_name_ok("x`id`"));
	ssd_model_id("A B  C", id);
	assert_string_equal(id, "A_B__C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parses_fields_and_trims),
		cmocka_unit_test(test_gzip_is_detected_by_magic_and_capped),
		cmocka_unit_test(test_refuses_with_reasons),
		cmocka_unit_test(test_long_names_refused),
		cmocka_unit_test(test_merged_and_summary_round_trip),
		cmocka_unit_test(test_name_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
