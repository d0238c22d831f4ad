/* test_ssdbench_result.c - the schedio bench result parser on hand-written
 * documents: a minimal accepted one (every field as ssd_result holds it),
 * the summary round trip, the rebuilt read-back (unknown fields dropped), and
 * refusals that name the field at fault.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/ssd/ssd_result.h"
#include "server/ssd/ssdbench_result.h"

#define DOC(model, extra)                                                                                              \
	"{\"schema\":\"schedio.ssdbench.v1\",\"tool\":{\"name\":\"schedio bench\",\"version\":\"0.7.2 dev\"},"         \
	"\"started_ms\":1764800000000,\"duration_s\":143.2,\"kernel\":\"6.1.0\",\"future\":{\"x\":1},"                 \
	"\"device\":{\"name\":\"nvme0n1\",\"model\":\"  Disk A 1TB \",\"fwrev\":\"F1\",\"size_bytes\":1000000,"        \
	"\"rotational\":false,\"target\":\"file\"}," model ",\"phases\":[{\"param\":\"rrandiops\",\"op\":\"read\","    \
	"\"pattern\":\"rand\",\"block_size\":4096,\"queue_depth\":64,\"saturation\":[[1,10],[64,100]],"                \
	"\"value\":99.5,\"steady\":true,\"duration_s\":2,\"series\":[[0.5,98],[1,101]],\"extra\":\"x\"}]"              \
	",\"warnings\":[{\"kind\":\"burst\",\"param\":\"rrandiops\",\"message\":\"burst then 99\","                    \
	"\"burst_value\":300,\"burst_s\":1.5,\"note\":\"dropped\"}]" extra "}"
#define MODEL                                                                                                          \
	"\"model\":{\"rbps\":1e9,\"rseqiops\":2e5,\"rrandiops\":99.5,\"wbps\":5e8,\"wseqiops\":1e5,\"wrandiops\":"     \
	"8e4}"

static int parse(const char *text, struct ssd_result *r, char *err)
{
	return ssd_result_parse(text, strlen(text), 1 << 20, r, err, 256);
}

static void test_minimal_document_fills_the_result(void **state)
{
	struct ssd_result *r = calloc(1, sizeof(*r)), *back = calloc(1, sizeof(*back));
	char err[256] = "";
	cJSON *doc;

	assert_int_equal(parse(DOC(MODEL, ""), r, err), 0);
	assert_int_equal(r->kind, SSD_KIND_QUICK);
	assert_string_equal(r->model, "Disk A 1TB");
	assert_string_equal(r->model_id, "Disk_A_1TB");
	assert_string_equal(r->fwrev, "F1");
	assert_string_equal(r->bench_version, "0.7.2");
	assert_true(r->bench_major == 0 && r->bench_minor == 7);
	assert_true(r->has_params && r->nsolutions == 0 && !r->merged);
	assert_true(r->params_model[SSD_RBPS] == 1e9 && r->params_model[SSD_RRANDIOPS] == 99.5 &&
		    r->params_model[SSD_WRANDIOPS] == 8e4);
	assert_true(r->params_qos[SSD_RLAT] == 0);
	assert_true(r->size_bytes == 1000000 && r->quick.duration_s == 143.2 && r->quick.started_ms == 1764800000000.0);
	assert_string_equal(r->quick.target, "file");
	assert_true(r->quick.nphases == 1 && r->quick.nwarnings == 1 && !r->quick.rotational);
	assert_int_equal(strlen(r->id), 32);
	doc = ssd_result_to_json(r);
	assert_int_equal(ssd_result_from_json(doc, back), 0);
	back->quick.started_ms = r->quick.started_ms; /* printed with 15 digits: exact here, but not the point */
	assert_memory_equal(back, r, sizeof(*r));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "params"), "qos")));
	cJSON_Delete(doc);
	free(r);
	free(back);
}

static void test_read_back_is_rebuilt_from_checked_fields(void **state)
{
	cJSON *doc = cJSON_Parse(DOC(MODEL, "")), *d = ssdbench_result_detail(doc), *ph, *w;

	assert_non_null(d);
	ph = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "phases"), 0);
	assert_string_equal(cJSON_GetObjectItem(ph, "param")->valuestring, "rrandiops");
	assert_true(cJSON_GetObjectItem(ph, "value")->valuedouble == 99.5);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(ph, "series")), 2);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(ph, "saturation")), 2);
	assert_null(cJSON_GetObjectItem(ph, "extra"));
	w = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "warnings"), 0);
	assert_true(cJSON_GetObjectItem(w, "burst_value")->valuedouble == 300);
	assert_true(cJSON_GetObjectItem(w, "burst_s")->valuedouble == 1.5);
	assert_null(cJSON_GetObjectItem(w, "note")); /* extra strings are not passed on */
	cJSON_Delete(d);
	cJSON_Delete(doc);
}

static void test_refusals_name_the_field(void **state)
{
	static const struct {
		const char *text, *words;
	} cases[] = {
		{ DOC("\"model\":{\"rbps\":1,\"rseqiops\":1,\"rrandiops\":1}", ""), "read-only run" },
		{ DOC("\"model\":{\"rbps\":1,\"rseqiops\":1,\"rrandiops\":1,\"wbps\":1,\"wseqiops\":1,\"wrandiops\":-"
		      "1}",
		      ""),
		  "model.wrandiops = -1 is outside" },
		{ DOC("\"model\":{\"rbps\":1,\"rseqiops\":1,\"rrandiops\":1,\"wbps\":0,\"wseqiops\":1,\"wrandiops\":1}",
		      ""),
		  "model.wbps must be greater than 0" },
		{ "{\"schema\":\"schedio.ssdbench.v2\"}", "schema is not \"schedio.ssdbench.v1\"" },
		{ "{\"schema\":\"schedio.ssdbench.v1\"}", "device is missing" },
		{ "{\"x\":1}", "wrong shape" },
	};
	struct ssd_result *r = calloc(1, sizeof(*r));
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].text, r, err), 422);
		if (!strstr(err, cases[i].words))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].words);
		assert_int_equal(r->kind, SSD_KIND_FULL); /* nothing half-read */
		assert_string_equal(r->model, "");
	}
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_document_fills_the_result),
		cmocka_unit_test(test_read_back_is_rebuilt_from_checked_fields),
		cmocka_unit_test(test_refusals_name_the_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
