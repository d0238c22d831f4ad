/* test_ssd_recommend.c - the per-model aggregation rules with hand-computed
 * expectations: medians (odd, even), rounding per parameter kind, raw over
 * merged, newest bench major.minor only, per-solution counts, spread, and
 * the solution fallback order; quick benches (model only) used only when a
 * model has no full result.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "server/ssd/ssd_recommend.h"

/* A result of bench maj.min with one solution whose every model param is m and qos param q. */
static void add_solution(struct ssd_result *r, const char *name, double m, double q)
{
	struct ssd_solution *s = &r->solutions[r->nsolutions++];

	snprintf(s->name, sizeof(s->name), "%s", name);
	for (int i = 0; i < SSD_NPARAMS; i++) {
		s->model[i] = m;
		s->qos[i] = q;
	}
}

static struct ssd_result result(int maj, int min, bool merged)
{
	struct ssd_result r;

	memset(&r, 0, sizeof(r));
	strcpy(r.model, "M");
	r.bench_major = maj;
	r.bench_minor = min;
	r.merged = merged;
	return r;
}

static const struct ssd_rec_solution *sol(const struct ssd_recommendation *rec, const char *name)
{
	for (int i = 0; i < rec->nsolutions; i++)
		if (strcmp(rec->solutions[i].name, name) == 0)
			return &rec->solutions[i];
	return NULL;
}

static void test_median_odd_even_empty(void **state)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 5 };

	assert_true(ssd_recommend_median(odd, 3) == 2);
	assert_true(ssd_recommend_median(even, 4) == 2.5); /* mean of the two middle values 2 and 3 */
	assert_true(ssd_recommend_median(one, 1) == 5);
	assert_true(isnan(ssd_recommend_median(NULL, 0)));
}

static void test_rounding_per_parameter_kind(void **state)
{
	struct ssd_result r[3] = { result(2, 2, false), result(2, 2, false), result(2, 2, false) };
	struct ssd_recommendation rec;
	const struct ssd_rec_solution *s;

	add_solution(&r[0], "naive", 1000, 0);
	add_solution(&r[1], "naive", 2001, 0);
	/* r[2] has another solution only, so naive is over two results */
	r[0].solutions[0].qos[SSD_RPCT] = 90.0;
	r[1].solutions[0].qos[SSD_RPCT] = 95.126;
	r[0].solutions[0].qos[SSD_RLAT] = 1000.4;
	r[1].solutions[0].qos[SSD_RLAT] = 2000.6;
	add_solution(&r[2], "other", 7, 7);
	ssd_recommend(r, 3, &rec);
	s = sol(&rec, "naive");
	assert_non_null(s);
	assert_int_equal(s->submissions, 2);
	/* (1000 + 2001) / 2 = 1500.5 -> 1501: model parameters are integers, halves away from zero */
	assert_true(s->model[SSD_RBPS] == 1501);
	/* (90 + 95.126) / 2 = 92.563 -> 92.56: percents keep two decimals */
	assert_true(fabs(s->qos[SSD_RPCT] - 92.56) < 1e-9);
	/* (1000.4 + 2000.6) / 2 = 1500.5 -> 1501 µs */
	assert_true(s->qos[SSD_RLAT] == 1501);
	/* spread is [min, max], rounded alike */
	assert_true(s->model_min[SSD_RBPS] == 1000 && s->model_max[SSD_RBPS] == 2001);
	assert_true(s->qos_min[SSD_RLAT] == 1000 && s->qos_max[SSD_RLAT] == 2001);
	assert_true(fabs(s->qos_max[SSD_RPCT] - 95.13) < 1e-9);
	assert_true(ssd_recommend_round_qos(SSD_MIN, 74.996) == 75.0);
	assert_true(ssd_recommend_round_qos(SSD_WLAT, 10.5) == 11);
}

static void test_odd_count_takes_the_middle(void **state)
{
	struct ssd_result r[3] = { result(2, 2, false), result(2, 2, false), result(2, 2, false) };
	struct ssd_recommendation rec;

	add_solution(&r[0], "naive", 300, 99);
	add_solution(&r[1], "naive", 100, 95);
	add_solution(&r[2], "naive", 1e9, 1); /* one wild run does not move a median */
	ssd_recommend(r, 3, &rec);
	assert_int_equal(rec.nsolutions, 1);
	assert_true(rec.solutions[0].model[SSD_WBPS] == 300);
	assert_true(rec.solutions[0].qos[SSD_MAX] == 95);
	assert_int_equal(rec.solutions[0].submissions, 3);
}

static void test_raw_results_win_over_merged(void **state)
{
	struct ssd_result r[2] = { result(2, 2, true), result(2, 1, false) };
	struct ssd_recommendation rec;

	add_solution(&r[0], "naive", 999, 1);
	add_solution(&r[0], "bandwidth", 999, 1);
	add_solution(&r[1], "naive", 100, 1);
	ssd_recommend(r, 2, &rec);
	assert_false(rec.from_merged);
	assert_int_equal(rec.nsolutions, 1); /* the merged file's bandwidth does not count */
	assert_true(rec.solutions[0].model[SSD_RBPS] == 100);
	assert_int_equal(rec.bench_major * 100 + rec.bench_minor, 201); /* even an older raw result */

	/* a model with merged files only uses them */
	ssd_recommend(r, 1, &rec);
	assert_true(rec.from_merged);
	assert_int_equal(rec.nsolutions, 2);
	assert_true(sol(&rec, "bandwidth")->model[SSD_RBPS] == 999);
}

static void test_only_the_newest_bench_major_minor(void **state)
{
	struct ssd_result r[4] = { result(2, 9, false), result(2, 10, false), result(2, 10, false),
				   result(1, 99, false) };
	struct ssd_recommendation rec;

	add_solution(&r[0], "naive", 1, 1);
	add_solution(&r[1], "naive", 10, 1);
	add_solution(&r[2], "naive", 20, 1);
	add_solution(&r[3], "naive", 5000, 1);
	ssd_recommend(r, 4, &rec);
	/* 2.10 is newer than 2.9: versions compare as numbers, not strings */
	assert_int_equal(rec.bench_major, 2);
	assert_int_equal(rec.bench_minor, 10);
	assert_true(rec.solutions[0].model[SSD_RBPS] == 15);
	assert_int_equal(rec.solutions[0].submissions, 2);
}

static void test_each_solution_counts_the_results_that_have_it(void **state)
{
	struct ssd_result r[2] = { result(2, 2, false), result(2, 2, false) };
	struct ssd_recommendation rec;

	add_solution(&r[0], "naive", 10, 1);
	add_solution(&r[0], "isolation", 40, 1);
	add_solution(&r[1], "naive", 20, 1);
	ssd_recommend(r, 2, &rec);
	assert_int_equal(rec.nsolutions, 2);
	assert_string_equal(rec.solutions[0].name, "isolation"); /* sorted by name */
	assert_int_equal(sol(&rec, "isolation")->submissions, 1);
	assert_true(sol(&rec, "isolation")->model[SSD_RBPS] == 40);
	assert_int_equal(sol(&rec, "naive")->submissions, 2);
	assert_true(sol(&rec, "naive")->model[SSD_RBPS] == 15);
}

static void test_no_results_no_solutions(void **state)
{
	struct ssd_recommendation rec;

	ssd_recommend(NULL, 0, &rec);
	assert_int_equal(rec.nsolutions, 0);
	assert_null(ssd_recommend_pick(&rec, "naive"));
}

static void test_pick_falls_back_in_order(void **state)
{
	struct ssd_result r = result(2, 2, false);
	struct ssd_recommendation rec;

	add_solution(&r, "naive", 1, 1);
	add_solution(&r, "bandwidth", 1, 1);
	add_solution(&r, "isolation", 1, 1);
	add_solution(&r, "rlat-99-q1", 1, 1);
	ssd_recommend(&r, 1, &rec);
	assert_string_equal(ssd_recommend_pick(&rec, "rlat-99-q1")->name, "rlat-99-q1");
	assert_string_equal(ssd_recommend_pick(&rec, "isolated-bandwidth")->name, "isolation");
	assert_string_equal(ssd_recommend_pick(&rec, NULL)->name, "isolation");
	assert_string_equal(ssd_recommend_pick(&rec, "no-such")->name, "isolation");

	r = result(2, 2, false);
	add_solution(&r, "naive", 1, 1);
	add_solution(&r, "bandwidth", 1, 1);
	ssd_recommend(&r, 1, &rec);
	assert_string_equal(ssd_recommend_pick(&rec, "isolation")->name, "bandwidth");

	r = result(2, 2, false);
	add_solution(&r, "rlat-99-q2", 1, 1);
	add_solution(&r, "rlat-99-q1", 1, 1);
	ssd_recommend(&r, 1, &rec);
	/* none of the four: the first by name */
	assert_string_equal(ssd_recommend_pick(&rec, "naive")->name, "rlat-99-q1");
}

static void test_json_has_plain_numbers_and_spread_pairs(void **state)
{
	struct ssd_result r[2] = { result(2, 2, false), result(2, 2, false) };
	struct ssd_recommendation rec;
	cJSON *doc, *naive, *pair;

	add_solution(&r[0], "naive", 10, 95);
	add_solution(&r[1], "naive", 20, 99);
	ssd_recommend(r, 2, &rec);
	doc = ssd_recommend_to_json(&rec);
	naive = cJSON_GetObjectItem(doc, "naive");
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(naive, "model"), "rbps")->valuedouble == 15);
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(naive, "qos"), "rpct")->valuedouble == 97);
	assert_int_equal(cJSON_GetObjectItem(naive, "submissions")->valueint, 2);
	pair = cJSON_GetObjectItem(cJSON_GetObjectItem(naive, "spread"), "wlat");
	assert_int_equal(cJSON_GetArraySize(pair), 2);
	assert_true(cJSON_GetArrayItem(pair, 0)->valuedouble == 95 && cJSON_GetArrayItem(pair, 1)->valuedouble == 99);
	cJSON_Delete(doc);
}

static struct ssd_result quick_result(double rbps, int maj, int min)
{
	struct ssd_result r = result(maj, min, false);

	r.kind = SSD_KIND_QUICK;
	r.has_params = true;
	for (int i = 0; i < SSD_NPARAMS; i++)
		r.params_model[i] = rbps * (i + 1);
	return r;
}

static void test_quick_benches_never_change_a_full_recommendation(void **state)
{
	struct ssd_result rs[3] = { result(2, 2, false), quick_result(999, 0, 7), quick_result(5, 0, 7) };
	struct ssd_recommendation rec;

	add_solution(&rs[0], "naive", 10, 90);
	ssd_recommend(rs, 3, &rec);
	assert_false(rec.quick);
	assert_int_equal(rec.nsolutions, 1);
	assert_string_equal(rec.solutions[0].name, "naive");
	assert_int_equal(rec.solutions[0].submissions, 1);
	assert_true(rec.solutions[0].model[SSD_RBPS] == 10 && !rec.solutions[0].model_only);
	assert_int_equal(rec.bench_major, 2);
	/* a quick bench only beside merged files: the merged files still decide */
	rs[0].merged = true;
	ssd_recommend(rs, 3, &rec);
	assert_true(rec.from_merged && !rec.quick && rec.solutions[0].model[SSD_RBPS] == 10);
}

static void test_quick_only_gives_model_medians_without_qos(void **state)
{
	/* rbps 100, 300, 200, 1000 (even count): median (200 + 300) / 2 = 250; param i is (i + 1) x rbps */
	struct ssd_result rs[4] = { quick_result(100, 0, 6), quick_result(300, 0, 7), quick_result(200, 1, 0),
				    quick_result(1000.5, 0, 7) };
	struct ssd_recommendation rec;
	cJSON *doc, *q;

	ssd_recommend(rs, 4, &rec);
	assert_true(rec.quick);
	assert_int_equal(rec.nsolutions, 1);
	assert_string_equal(rec.solutions[0].name, SSD_RECOMMEND_QUICK);
	assert_true(rec.solutions[0].model_only);
	assert_int_equal(rec.solutions[0].submissions, 4);
	assert_int_equal(rec.bench_major, 1); /* the newest tool version */
	assert_int_equal(rec.bench_minor, 0);
	for (int i = 0; i < SSD_NPARAMS; i++) {
		assert_true(rec.solutions[0].model[i] == round(250.0 * (i + 1)));
		assert_true(rec.solutions[0].model_min[i] == 100.0 * (i + 1));
		assert_true(rec.solutions[0].model_max[i] == round(1000.5 * (i + 1)));
		assert_true(rec.solutions[0].qos[i] == 0);
	}
	assert_ptr_equal(ssd_recommend_pick(&rec, "naive"), &rec.solutions[0]);
	doc = ssd_recommend_to_json(&rec);
	q = cJSON_GetObjectItem(doc, "quick");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(q, "qos")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(q, "spread")), SSD_NPARAMS); /* model keys only */
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(q, "spread"), "rpct"));
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_odd_even_empty),
		cmocka_unit_test(test_rounding_per_parameter_kind),
		cmocka_unit_test(test_odd_count_takes_the_middle),
		cmocka_unit_test(test_raw_results_win_over_merged),
		cmocka_unit_test(test_only_the_newest_bench_major_minor),
		cmocka_unit_test(test_each_solution_counts_the_results_that_have_it),
		cmocka_unit_test(test_no_results_no_solutions),
		cmocka_unit_test(test_pick_falls_back_in_order),
		cmocka_unit_test(test_json_has_plain_numbers_and_spread_pairs),
		cmocka_unit_test(test_quick_benches_never_change_a_full_recommendation),
		cmocka_unit_test(test_quick_only_gives_model_medians_without_qos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
