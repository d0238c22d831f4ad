/* ssd_match.c - see ssd_match.h. The comparison allows what the kernel's
 * own formatting loses: io.cost.qos reads back percents with two decimals
 * and latencies as integers, io.cost.model as integers. Anything further
 * off is a different configuration, reported as "differs" together with the
 * solution the database would advise.
 */
#include "server/ssd/ssd_match.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ssd_match_state_name(enum ssd_match_state s)
{
	switch (s) {
	case SSD_MATCH_IN_USE:
		return "in_use";
	case SSD_MATCH_DIFFERS:
		return "differs";
	default:
		return "no_data";
	}
}

static bool solution_matches(const struct ssd_rec_solution *s, const struct ssd_iocost_current *cur)
{
	for (int i = 0; i < SSD_NPARAMS; i++) {
		double tol = (i == SSD_RLAT || i == SSD_WLAT) ? 0.5 : 0.0051;

		if (fabs(cur->model[i] - s->model[i]) > 0.5 || (!s->model_only && fabs(cur->qos[i] - s->qos[i]) > tol))
			return false;
	}
	return true;
}

enum ssd_match_state ssd_match_config(const struct ssd_recommendation *rec, const struct ssd_iocost_current *cur,
				      const struct ssd_rec_solution **solution)
{
	*solution = NULL;
	if (rec->nsolutions == 0)
		return SSD_MATCH_NO_DATA;
	/* A model-only recommendation (quick benches) is in use when the model line is; any QoS goes. */
	if (cur && cur->enabled && cur->has_model && (cur->has_qos || rec->quick))
		for (int i = 0; i < rec->nsolutions; i++)
			if (solution_matches(&rec->solutions[i], cur)) {
				*solution = &rec->solutions[i];
				return SSD_MATCH_IN_USE;
			}
	*solution = ssd_recommend_pick(rec, NULL);
	return SSD_MATCH_DIFFERS;
}

/* Copies s without surrounding spaces into out[cap]; -1 when it does not fit. */
static int trim_copy(const char *s, char *out, size_t cap)
{
	size_t n;

	s += strspn(s, " \t\n");
	n = strlen(s);
	while (n > 0 && strchr(" \t\n", s[n - 1]))
		n--;
	if (n >= cap)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* One cached lookup: the trimmed model and firmware, and what they gave. */
struct ssd_match_cached {
	char name[SSD_MODEL_MAX + 1], fw[SSD_FWREV_MAX + 1];
	struct ssd_recommendation rec;
};

/* Enough for any fleet's distinct models; past it lookups go uncached. */
#define SSD_MATCH_CACHE_MAX 1024

/* The recommendation for name (trimmed, valid) at firmware fw ("" for any) into rec. */
static int lookup(struct ssd_store *st, const char *name, const char *fw, struct ssd_recommendation *rec)
{
	char id[SSD_MODEL_MAX + 1];
	struct ssd_result *res = NULL;
	size_t n = 0, k = 0;
	int rc;

	ssd_model_id(name, id);
	rc = st->ops->model_results(st, id, &res, &n);
	if (rc < 0)
		return rc;
	/* Quick benches of a model with full results decide nothing, not even for their firmware. */
	n = ssd_recommend_deciding(res, n);
	/* Prefer this firmware's results when there are any: firmware changes performance. */
	for (size_t i = 0; *fw && i < n; i++)
		if (strcmp(res[i].fwrev, fw) == 0)
			res[k++] = res[i];
	ssd_recommend(res, k ? k : n, rec);
	free(res);
	return 0;
}

/* lookup through cache (NULL: none). */
static int lookup_cached(struct ssd_store *st, struct ssd_match_cache *cache, const char *name, const char *fw,
			 struct ssd_recommendation *rec)
{
	struct ssd_match_cached *e;
	int rc;

	for (size_t i = 0; cache && i < cache->n; i++) {
		if (strcmp(cache->v[i].name, name) == 0 && strcmp(cache->v[i].fw, fw) == 0) {
			*rec = cache->v[i].rec;
			return 0;
		}
	}
	rc = lookup(st, name, fw, rec);
	if (rc < 0 || !cache || cache->n == SSD_MATCH_CACHE_MAX)
		return rc;
	if (cache->n == cache->cap) {
		size_t cap = cache->cap ? cache->cap * 2 : 8;

		e = realloc(cache->v, cap * sizeof(*e));
		if (!e)
			return 0; /* uncached is still right */
		cache->v = e;
		cache->cap = cap;
	}
	e = &cache->v[cache->n++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->fw, sizeof(e->fw), "%s", fw);
	e->rec = *rec;
	return 0;
}

int ssd_match_disk_cached(struct ssd_store *st, struct ssd_match_cache *cache, const char *model, const char *fwrev,
			  const struct ssd_iocost_current *cur, struct ssd_match *out)
{
	char name[SSD_MODEL_MAX + 1], fw[SSD_FWREV_MAX + 1] = "";
	const struct ssd_rec_solution *sol;
	int rc;

	memset(out, 0, sizeof(*out));
	out->state = SSD_MATCH_NO_DATA;
	/* sysfs pads ATA model strings with spaces; results store them trimmed */
	if (!model || trim_copy(model, name, sizeof(name)) < 0 || (fwrev && trim_copy(fwrev, fw, sizeof(fw)) < 0))
		return 0;
	if (!*name || !ssd_name_ok(name))
		return 0;
	rc = lookup_cached(st, cache, name, fw, &out->rec);
	if (rc < 0)
		return rc;
	out->state = ssd_match_config(&out->rec, cur, &sol);
	if (sol)
		snprintf(out->solution, sizeof(out->solution), "%s", sol->name);
	return 0;
}

int ssd_match_disk(struct ssd_store *st, const char *model, const char *fwrev, const struct ssd_iocost_current *cur,
		   struct ssd_match *out)
{
	return ssd_match_disk_cached(st, NULL, model, fwrev, cur, out);
}

void ssd_match_cache_free(struct ssd_match_cache *cache)
{
	free(cache->v);
	memset(cache, 0, sizeof(*cache));
}

static bool take_values(const cJSON *obj, const char *const keys[], double *out)
{
	if (!cJSON_IsObject(obj))
		return false;
	for (int i = 0; i < SSD_NPARAMS; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, keys[i]);

		if (!cJSON_IsNumber(v))
			return false;
		out[i] = v->valuedouble;
	}
	return true;
}

void ssd_match_current_from_json(const cJSON *disk, struct ssd_iocost_current *cur)
{
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(disk, "enabled");
	const cJSON *qos = cJSON_GetObjectItemCaseSensitive(disk, "qos");
	const cJSON *qen = cJSON_GetObjectItemCaseSensitive(qos, "enable");

	memset(cur, 0, sizeof(*cur));
	cur->enabled = cJSON_IsTrue(en) || (cJSON_IsNumber(qen) && qen->valuedouble == 1);
	cur->has_model = take_values(cJSON_GetObjectItemCaseSensitive(disk, "model"), ssd_model_keys, cur->model);
	cur->has_qos = take_values(qos, ssd_qos_keys, cur->qos);
}

int ssd_match_annotate_disks(struct ssd_store *st, cJSON *disks, struct ssd_match_cache *cache)
{
	struct ssd_match *m = malloc(sizeof(*m));
	cJSON *disk;
	int rc = 0;

	if (!m)
		return -ENOMEM;
	cJSON_ArrayForEach(disk, disks)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(disk, "model");
		const cJSON *fw = cJSON_GetObjectItemCaseSensitive(disk, "fwrev");
		const cJSON *io = cJSON_GetObjectItemCaseSensitive(disk, "iocost");
		struct ssd_iocost_current cur;

		if (!cJSON_IsObject(disk))
			continue;
		ssd_match_current_from_json(cJSON_IsObject(io) ? io : disk, &cur);
		rc = ssd_match_disk_cached(st, cache, cJSON_IsString(name) ? name->valuestring : NULL,
					   cJSON_IsString(fw) ? fw->valuestring : NULL, &cur, m);
		if (rc < 0)
			break;
		cJSON_DeleteItemFromObjectCaseSensitive(disk, "recommendation");
		if (!cJSON_AddStringToObject(disk, "recommendation", ssd_match_state_name(m->state))) {
			rc = -ENOMEM;
			break;
		}
	}
	free(m);
	return rc;
}
