/* ssd_recommend.c - from many submissions of one SSD model to one io.cost
 * configuration per solution.
 *
 * The median, not the mean: one broken run (a throttled laptop, a disk in
 * the middle of garbage collection) must not drag the recommendation.
 * Only the newest bench major.minor counts because resctl-bench changed how
 * it measures between versions, so mixing them would blend two scales.
 * Merged files (upstream's own per-model summaries) are used only when a
 * model has no raw result, so a model is never counted twice. Each
 * parameter is aggregated on its own, as upstream does; the spread
 * [min, max] shows how much the submissions agreed.
 *
 * Quick benches (schedio bench) measure the model only, with a method of
 * their own: a model with any full resctl-bench result is recommended from
 * those alone, so a quick bench can never move a tuned recommendation; only
 * a model without one gets the quick benches' model medians, and no QoS.
 */
#include "server/ssd/ssd_recommend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ssd_recommend_fallback_order[4] = { "isolated-bandwidth", "isolation", "bandwidth", "naive" };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double ssd_recommend_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ssd_recommend_round_qos(enum ssd_qos_param p, double v)
{
	if (p == SSD_RLAT || p == SSD_WLAT)
		return round(v);
	return round(v * 100) / 100;
}

static bool version_newer(int amaj, int amin, int bmaj, int bmin)
{
	return amaj > bmaj || (amaj == bmaj && amin > bmin);
}

static int find_or_add(struct ssd_recommendation *out, const char *name)
{
	int i;

	for (i = 0; i < out->nsolutions; i++)
		if (strcmp(out->solutions[i].name, name) == 0)
			return i;
	if (out->nsolutions == SSD_MAX_SOLUTIONS)
		return -1;
	memset(&out->solutions[i], 0, sizeof(out->solutions[i]));
	strcpy(out->solutions[i].name, name);
	out->nsolutions++;
	return i;
}

static int cmp_rec_solution(const void *a, const void *b)
{
	return strcmp(((const struct ssd_rec_solution *)a)->name, ((const struct ssd_rec_solution *)b)->name);
}

/* Fills one solution's medians and spread from the chosen results that have it. */
static void aggregate(const struct ssd_result *results, const bool *use, size_t n, struct ssd_rec_solution *rs,
		      double *scratch)
{
	for (int kind = 0; kind < 2; kind++) {
		for (int p = 0; p < SSD_NPARAMS; p++) {
			size_t k = 0;
			double med;

			for (size_t i = 0; i < n; i++) {
				const struct ssd_solution *s =
				    use[i] ? ssd_result_solution(&results[i], rs->name) : NULL;

				if (s)
					scratch[k++] = kind == 0 ? s->model[p] : s->qos[p];
			}
			med = ssd_recommend_median(scratch,
						   k); /* sorted now: scratch[0] and scratch[k-1] are the spread */
			if (kind == 0) {
				rs->model[p] = round(med);
				rs->model_min[p] = round(scratch[0]);
				rs->model_max[p] = round(scratch[k - 1]);
			} else {
				rs->qos[p] = ssd_recommend_round_qos(p, med);
				rs->qos_min[p] = ssd_recommend_round_qos(p, scratch[0]);
				rs->qos_max[p] = ssd_recommend_round_qos(p, scratch[k - 1]);
			}
			rs->submissions = (int)k;
		}
	}
}

/* The model medians and spread of the quick results as one model-only solution. */
static void aggregate_quick(const struct ssd_result *results, size_t n, struct ssd_recommendation *out, double *scratch)
{
	struct ssd_rec_solution *rs = &out->solutions[0];
	size_t k = 0;

	memset(rs, 0, sizeof(*rs));
	strcpy(rs->name, SSD_RECOMMEND_QUICK);
	rs->model_only = true;
	out->quick = true;
	out->nsolutions = 1;
	out->bench_major = out->bench_minor = 0;
	for (size_t i = 0; i < n; i++)
		if (version_newer(results[i].bench_major, results[i].bench_minor, out->bench_major, out->bench_minor)) {
			out->bench_major = results[i].bench_major;
			out->bench_minor = results[i].bench_minor;
		}
	for (int p = 0; p < SSD_NPARAMS; p++) {
		double med;

		k = 0;
		for (size_t i = 0; i < n; i++)
			scratch[k++] = results[i].params_model[p];
		med = ssd_recommend_median(scratch, k); /* sorted now: the ends are the spread */
		rs->model[p] = round(med);
		rs->model_min[p] = round(scratch[0]);
		rs->model_max[p] = round(scratch[k - 1]);
	}
	rs->submissions = (int)k;
}

size_t ssd_recommend_deciding(struct ssd_result *results, size_t n)
{
	bool any_full = false;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		any_full |= results[i].kind == SSD_KIND_FULL;
	if (!any_full)
		return n;
	for (size_t i = 0; i < n; i++)
		if (results[i].kind == SSD_KIND_FULL)
			results[k++] = results[i];
	return k;
}

void ssd_recommend(const struct ssd_result *results, size_t n, struct ssd_recommendation *out)
{
	bool any_raw = false, any_full = false, *use = calloc(n ? n : 1, sizeof(bool));
	double *scratch = calloc(n ? n : 1, sizeof(double));

	memset(out, 0, sizeof(*out));
	if (!use || !scratch)
		goto out;
	for (size_t i = 0; i < n; i++) {
		any_full |= results[i].kind == SSD_KIND_FULL;
		any_raw |= results[i].kind == SSD_KIND_FULL && !results[i].merged;
	}
	if (n > 0 && !any_full) {
		aggregate_quick(results, n, out, scratch);
		goto out;
	}
	out->from_merged = n > 0 && !any_raw;
	out->bench_major = out->bench_minor = -1;
	for (size_t i = 0; i < n; i++)
		if (results[i].kind == SSD_KIND_FULL && results[i].merged == out->from_merged &&
		    version_newer(results[i].bench_major, results[i].bench_minor, out->bench_major, out->bench_minor)) {
			out->bench_major = results[i].bench_major;
			out->bench_minor = results[i].bench_minor;
		}
	for (size_t i = 0; i < n; i++) {
		use[i] = results[i].kind == SSD_KIND_FULL && results[i].merged == out->from_merged &&
			 results[i].bench_major == out->bench_major && results[i].bench_minor == out->bench_minor;
		for (int s = 0; use[i] && s < results[i].nsolutions; s++)
			find_or_add(out, results[i].solutions[s].name);
	}
	for (int s = 0; s < out->nsolutions; s++)
		aggregate(results, use, n, &out->solutions[s], scratch);
	qsort(out->solutions, (size_t)out->nsolutions, sizeof(out->solutions[0]), cmp_rec_solution);
out:
	free(use);
	free(scratch);
}

const struct ssd_rec_solution *ssd_recommend_pick(const struct ssd_recommendation *rec, const char *asked)
{
	const char *order[5] = { asked, ssd_recommend_fallback_order[0], ssd_recommend_fallback_order[1],
				 ssd_recommend_fallback_order[2], ssd_recommend_fallback_order[3] };

	for (int k = 0; k < 5; k++)
		for (int i = 0; order[k] && i < rec->nsolutions; i++)
			if (strcmp(rec->solutions[i].name, order[k]) == 0)
				return &rec->solutions[i];
	return rec->nsolutions ? &rec->solutions[0] : NULL;
}

static cJSON *values(const char *const keys[], const double *v)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; o && i < SSD_NPARAMS; i++)
		cJSON_AddNumberToObject(o, keys[i], v[i]);
	return o;
}

static void add_spread(cJSON *spread, const char *const keys[], const double *lo, const double *hi)
{
	for (int i = 0; i < SSD_NPARAMS; i++) {
		cJSON *pair = cJSON_AddArrayToObject(spread, keys[i]);

		cJSON_AddItemToArray(pair, cJSON_CreateNumber(lo[i]));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(hi[i]));
	}
}

cJSON *ssd_recommend_to_json(const struct ssd_recommendation *rec)
{
	cJSON *doc = cJSON_CreateObject();

	for (int i = 0; doc && i < rec->nsolutions; i++) {
		const struct ssd_rec_solution *s = &rec->solutions[i];
		cJSON *o = cJSON_AddObjectToObject(doc, s->name), *spread;

		cJSON_AddItemToObject(o, "model", values(ssd_model_keys, s->model));
		if (s->model_only)
			cJSON_AddNullToObject(o, "qos");
		else
			cJSON_AddItemToObject(o, "qos", values(ssd_qos_keys, s->qos));
		cJSON_AddNumberToObject(o, "submissions", s->submissions);
		spread = cJSON_AddObjectToObject(o, "spread");
		add_spread(spread, ssd_model_keys, s->model_min, s->model_max);
		if (!s->model_only)
			add_spread(spread, ssd_qos_keys, s->qos_min, s->qos_max);
	}
	/* cJSON's add functions tolerate NULL parents, so one check at the end suffices for OOM. */
	if (doc && cJSON_GetArraySize(doc) != rec->nsolutions) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}
