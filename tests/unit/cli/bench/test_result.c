/* test_result.c - cli/bench/result.c: the schedio.ssdbench.v1 document has
 * every field the format fixes, with the types the server checks; the
 * warnings name their phase (a burst with its rate and length); the model
 * line is the kernel's syntax with the parameters in the kernel's order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/bench/result.h"

static struct bench_phase_result ph[2];

static void fill(struct bench_result *r)
{
	struct bench_analysis_params a;

	memset(r, 0, sizeof(*r));
	memset(ph, 0, sizeof(ph));
	r->started_ms = 1764800000000ull;
	r->duration_s = 42.25;
	snprintf(r->kernel, sizeof(r->kernel), "6.1.0-28-amd64");
	snprintf(r->disk.name, sizeof(r->disk.name), "nvme0n1");
	snprintf(r->disk.model, sizeof(r->disk.model), "Samsung SSD 980 PRO 1TB");
	snprintf(r->disk.fwrev, sizeof(r->disk.fwrev), "5B2QGXA7");
	r->disk.major = 259;
	r->disk.size_bytes = 1000204886016ull;
	r->disk.rotational = 0;
	r->target = "file";
	/* wrandiops first, rbps second: the model line must put rbps first */
	ph[0].spec = &bench_phase_specs[5];
	ph[1].spec = &bench_phase_specs[0];
	for (int k = 0; k < 2; k++) {
		ph[k].probes[0] = (struct bench_probe){ 1, 1000 };
		ph[k].probes[1] = (struct bench_probe){ 2, 2000 };
		ph[k].nprobes = 2;
		ph[k].depth = 2;
		for (size_t i = 0; i < 30; i++)
			ph[k].rate[i] = i < 10 ? 4000 : 2000;
		ph[k].n = 30;
		ph[k].measure_start = 4;
		ph[k].duration_s = 15;
		ph[k].steady = 1;
		bench_analysis_defaults(&a, 0.5, 1);
		bench_analyse(ph[k].rate, ph[k].n, ph[k].measure_start, &a, &ph[k].findings);
	}
	ph[1].steady = 0;
	r->phases[0] = &ph[0];
	r->phases[1] = &ph[1];
	r->nphases = 2;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!v)
		fail_msg("no field %s", k);
	return v;
}

static void test_document_has_the_format_fields(void **state)
{
	struct bench_result r;
	const cJSON *dev, *model, *p, *sat, *series;
	cJSON *doc;

	fill(&r);
	doc = bench_result_json(&r);
	assert_string_equal(get(doc, "schema")->valuestring, "schedio.ssdbench.v1");
	assert_string_equal(get(get(doc, "tool"), "name")->valuestring, "schedio bench");
	assert_true(get(doc, "started_ms")->valuedouble == 1764800000000.0);
	assert_true(get(doc, "duration_s")->valuedouble == 42.3);
	assert_string_equal(get(doc, "kernel")->valuestring, "6.1.0-28-amd64");
	dev = get(doc, "device");
	assert_string_equal(get(dev, "name")->valuestring, "nvme0n1");
	assert_string_equal(get(dev, "model")->valuestring, "Samsung SSD 980 PRO 1TB");
	assert_string_equal(get(dev, "fwrev")->valuestring, "5B2QGXA7");
	assert_true(get(dev, "size_bytes")->valuedouble == 1000204886016.0);
	assert_true(cJSON_IsFalse(get(dev, "rotational")));
	assert_string_equal(get(dev, "target")->valuestring, "file");
	model = get(doc, "model");
	assert_int_equal(cJSON_GetArraySize(model), 2);
	assert_true(get(model, "rbps")->valuedouble == 2000);
	p = cJSON_GetArrayItem(get(doc, "phases"), 0);
	assert_string_equal(get(p, "param")->valuestring, "wrandiops");
	assert_string_equal(get(p, "op")->valuestring, "write");
	assert_string_equal(get(p, "pattern")->valuestring, "rand");
	assert_int_equal(get(p, "block_size")->valueint, 4096);
	assert_int_equal(get(p, "queue_depth")->valueint, 2);
	sat = get(p, "saturation");
	assert_int_equal(cJSON_GetArraySize(sat), 2);
	assert_int_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(sat, 1), 0)->valueint, 2);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(sat, 1), 1)->valuedouble == 2000);
	assert_true(get(p, "value")->valuedouble == 2000);
	assert_true(cJSON_IsTrue(get(p, "steady")));
	series = get(p, "series");
	assert_int_equal(cJSON_GetArraySize(series), 30);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(series, 0), 0)->valuedouble == 0.5);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(series, 29), 0)->valuedouble == 15);
	cJSON_Delete(doc);
}

static void test_warnings_name_the_phase_and_the_burst(void **state)
{
	struct bench_result r;
	const cJSON *w, *first;
	cJSON *doc;
	int kinds_burst = 0, kinds_not_steady = 0;

	fill(&r);
	doc = bench_result_json(&r);
	w = get(doc, "warnings");
	for (int i = 0; i < cJSON_GetArraySize(w); i++) {
		const cJSON *x = cJSON_GetArrayItem(w, i);
		const char *kind = get(x, "kind")->valuestring;

		assert_true(strlen(get(x, "message")->valuestring) <= 512);
		kinds_burst += !strcmp(kind, "burst");
		kinds_not_steady += !strcmp(kind, "not_steady") && !strcmp(get(x, "param")->valuestring, "rbps");
	}
	assert_int_equal(kinds_burst, 2);
	assert_int_equal(kinds_not_steady, 1);
	first = cJSON_GetArrayItem(w, 0);
	assert_string_equal(get(first, "kind")->valuestring, "burst");
	assert_string_equal(get(first, "param")->valuestring, "wrandiops");
	assert_true(get(first, "burst_value")->valuedouble == 4000);
	assert_true(get(first, "burst_s")->valuedouble == 5);
	assert_non_null(strstr(get(first, "message")->valuestring, "4000 IO/s for 5.0 s"));
	cJSON_Delete(doc);
}

static void test_model_line_is_the_kernel_syntax_in_its_order(void **state)
{
	struct bench_result r;
	char line[512];

	fill(&r);
	bench_result_model_line(&r, line, sizeof(line));
	assert_string_equal(line, "259:0 ctrl=user model=linear rbps=2000 wrandiops=2000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_has_the_format_fields),
		cmocka_unit_test(test_warnings_name_the_phase_and_the_burst),
		cmocka_unit_test(test_model_line_is_the_kernel_syntax_in_its_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
