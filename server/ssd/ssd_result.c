/* ssd_result.c - reading a resctl-bench result file as it comes from a user.
 *
 * The file is hostile until proven otherwise: gzip is inflated under a cap
 * (a bomb is 413, not an allocation), the JSON must be an array of jobs,
 * strings that end up in URLs, hwdb match lines and shell-pasted io.cost
 * lines are restricted to a safe printable set, and every number must be
 * finite and within the range the kernel accepts. A file either parses
 * completely into struct ssd_result or is refused with the reason; nothing
 * is half-read. The id is the md5 of the uncompressed JSON, as upstream
 * (iocost-benchmarks) deduplicates.
 */
#include "server/ssd/ssd_result.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nettle/md5.h>

#include "common/gz.h"
#include "server/ssd/ssd_jobs.h"
#include "server/ssd/ssdbench_result.h"

const char *const ssd_model_keys[SSD_NPARAMS] = { "rbps", "rseqiops", "rrandiops", "wbps", "wseqiops", "wrandiops" };
const char *const ssd_kind_names[2] = { "full", "quick" };
const char *const ssd_qos_keys[SSD_NPARAMS] = { "rpct", "rlat", "wpct", "wlat", "min", "max" };

/* Upper bounds well above any real device, far below where doubles lose integers. */
#define MODEL_PARAM_MAX 1e13
#define LAT_MAX_US 1e10
#define VRATE_MAX_PCT 10000.0

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return status;
}

bool ssd_name_ok(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c > 0x7e || strchr("/\\*?[]:\"'<>|`", c))
			return false;
	}
	return true;
}

void ssd_model_id(const char *model, char *out)
{
	size_t i;

	for (i = 0; model[i] && i < SSD_MODEL_MAX; i++)
		out[i] = model[i] == ' ' ? '_' : model[i];
	out[i] = '\0';
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* Copies a trimmed string field into out[cap]; 0, 1 when absent/null, or a 422 with the reason. */
static int take_string(const cJSON *v, const char *what, char *out, size_t cap, bool name_rules, char *err,
		       size_t errlen)
{
	const char *s, *e;
	size_t n;

	if (!v || cJSON_IsNull(v))
		return 1;
	if (!cJSON_IsString(v) || !v->valuestring)
		return fail(err, errlen, 422, "%s is not a string", what);
	s = v->valuestring;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);
	if (n >= cap)
		return fail(err, errlen, 422, "%s is longer than %zu characters", what, cap - 1);
	memcpy(out, s, n);
	out[n] = '\0';
	if (name_rules ? !ssd_name_ok(out) : false)
		return fail(err, errlen, 422,
			    "%s contains characters that are not allowed (control, non-ASCII or /\\*?[]:\"'<>|`)",
			    what);
	for (size_t i = 0; !name_rules && i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			return fail(err, errlen, 422, "%s contains non-printable characters", what);
	return 0;
}

static int take_number(const cJSON *obj, const char *key, const char *what, double lo, double hi, double *out,
		       char *err, size_t errlen)
{
	const cJSON *v = get(obj, key);

	if (!cJSON_IsNumber(v))
		return fail(err, errlen, 422, "%s.%s is missing or not a number", what, key);
	if (!isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
		return fail(err, errlen, 422, "%s.%s = %g is outside %g..%g", what, key, v->valuedouble, lo, hi);
	*out = v->valuedouble;
	return 0;
}

/* Reads {model{...}, qos{...}} of an iocost-params record or a tune solution. */
static int take_model_qos(const cJSON *obj, const char *what, double *model, double *qos, char *err, size_t errlen)
{
	static const double qos_hi[SSD_NPARAMS] = { 100, LAT_MAX_US, 100, LAT_MAX_US, VRATE_MAX_PCT, VRATE_MAX_PCT };
	const cJSON *m = get(obj, "model"), *q = get(obj, "qos");
	char sub[128];
	int rc;

	if (!cJSON_IsObject(m) || !cJSON_IsObject(q))
		return fail(err, errlen, 422, "%s has no model and qos objects", what);
	snprintf(sub, sizeof(sub), "%s.model", what);
	for (int i = 0; i < SSD_NPARAMS; i++)
		if ((rc = take_number(m, ssd_model_keys[i], sub, 0, MODEL_PARAM_MAX, &model[i], err, errlen)))
			return rc;
	snprintf(sub, sizeof(sub), "%s.qos", what);
	for (int i = 0; i < SSD_NPARAMS; i++)
		if ((rc = take_number(q, ssd_qos_keys[i], sub, 0, qos_hi[i], &qos[i], err, errlen)))
			return rc;
	return 0;
}

static double optional_number(const cJSON *obj, const char *key)
{
	const cJSON *v = get(obj, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static bool solution_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > SSD_SOLUTION_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

static int cmp_solution(const void *a, const void *b)
{
	return strcmp(((const struct ssd_solution *)a)->name, ((const struct ssd_solution *)b)->name);
}

static int take_solutions(const cJSON *sols, struct ssd_result *out, char *err, size_t errlen)
{
	const cJSON *s;
	int rc;

	if (!sols || cJSON_IsNull(sols))
		return 0;
	if (!cJSON_IsObject(sols))
		return fail(err, errlen, 422, "iocost-tune result.solutions is not an object");
	cJSON_ArrayForEach(s, sols)
	{
		struct ssd_solution *sol;
		char what[96];

		if (!s->string || !solution_name_ok(s->string))
			return fail(err, errlen, 422, "iocost-tune solution name is not [a-z0-9_-]{1,%d}",
				    SSD_SOLUTION_NAME_MAX);
		if (out->nsolutions == SSD_MAX_SOLUTIONS)
			return fail(err, errlen, 422, "more than %d iocost-tune solutions", SSD_MAX_SOLUTIONS);
		for (int i = 0; i < out->nsolutions; i++)
			if (strcmp(out->solutions[i].name, s->string) == 0)
				return fail(err, errlen, 422, "iocost-tune solution %s appears twice", s->string);
		sol = &out->solutions[out->nsolutions];
		snprintf(sol->name, sizeof(sol->name), "%s", s->string);
		snprintf(what, sizeof(what), "solutions.%s", sol->name);
		if ((rc = take_model_qos(s, what, sol->model, sol->qos, err, errlen)))
			return rc;
		sol->mof = optional_number(s, "mem_offload_factor");
		sol->amof = optional_number(s, "adjusted_mem_offload_factor");
		sol->isol = optional_number(s, "isol");
		out->nsolutions++;
	}
	qsort(out->solutions, (size_t)out->nsolutions, sizeof(out->solutions[0]), cmp_solution);
	return 0;
}

/* Strict MAJOR.MINOR prefix (digits only, no signs or spaces, at most 3 digits each). */
static bool parse_version(const char *s, int *maj, int *min)
{
	const char *p = s;
	size_t n = strspn(p, "0123456789");

	if (n == 0 || n > 3 || p[n] != '.')
		return false;
	*maj = atoi(p);
	p += n + 1;
	n = strspn(p, "0123456789");
	if (n == 0 || n > 3)
		return false;
	*min = atoi(p);
	return true;
}

/* Device facts from the first job whose sysreqs_report names a device. */
static int take_device(const cJSON *jobs, struct ssd_result *out, char *err, size_t errlen)
{
	const cJSON *job, *rep = NULL, *sysinfo = NULL, *v;
	bool any_report = false;
	char ver[SSD_VERSION_MAX + 1];
	int rc;

	cJSON_ArrayForEach(job, jobs)
	{
		const cJSON *si = get(job, "sysinfo"), *r = get(si, "sysreqs_report");

		if (!cJSON_IsObject(r))
			continue;
		any_report = true;
		if (cJSON_IsString(get(r, "scr_dev_model"))) {
			rep = r;
			sysinfo = si;
			break;
		}
	}
	if (!any_report)
		return fail(err, errlen, 422, "no job has sysinfo.sysreqs_report: not a resctl-bench result");
	if (!rep)
		return fail(err, errlen, 422, "no device model (sysinfo.sysreqs_report.scr_dev_model)");
	if ((rc = take_string(get(rep, "scr_dev_model"), "scr_dev_model", out->model, sizeof(out->model), true, err,
			      errlen)))
		return rc;
	if (!*out->model)
		return fail(err, errlen, 422, "no device model (scr_dev_model is empty)");
	ssd_model_id(out->model, out->model_id);
	if ((rc = take_string(get(rep, "scr_dev_fwrev"), "scr_dev_fwrev", out->fwrev, sizeof(out->fwrev), true, err,
			      errlen)) > 1)
		return rc;
	if ((rc = take_string(get(rep, "kernel_version"), "kernel_version", out->kernel, sizeof(out->kernel), false,
			      err, errlen)) > 1)
		return rc;
	v = get(rep, "scr_dev_size");
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 || v->valuedouble > 1e18)
			return fail(err, errlen, 422, "scr_dev_size is not a byte count");
		out->size_bytes = (uint64_t)v->valuedouble;
	}
	rc = take_string(get(sysinfo, "bench_version"), "bench_version", ver, sizeof(ver), false, err, errlen);
	if (rc > 1)
		return rc;
	if (rc == 1 || !parse_version(ver, &out->bench_major, &out->bench_minor))
		return fail(err, errlen, 422, "sysinfo.bench_version is missing or not MAJOR.MINOR[.PATCH]");
	ver[strcspn(ver, " \t")] = '\0';
	snprintf(out->bench_version, sizeof(out->bench_version), "%s", ver);
	return 0;
}

static int take_jobs(const cJSON *jobs, struct ssd_result *out, char *err, size_t errlen)
{
	const cJSON *job, *tune = NULL, *params = NULL;
	int rc;

	if (!cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) == 0)
		return fail(err, errlen, 422, "wrong shape: a result is a non-empty JSON array of jobs");
	cJSON_ArrayForEach(job, jobs)
	{
		const cJSON *kind = get(get(job, "spec"), "kind");

		if (!cJSON_IsObject(job) || !cJSON_IsString(kind))
			return fail(err, errlen, 422, "wrong shape: every job needs spec.kind");
		if (strcmp(kind->valuestring, "merge-info") == 0)
			out->merged = true;
		else if (strcmp(kind->valuestring, "iocost-params") == 0)
			params = job;
		else if (strcmp(kind->valuestring, "iocost-tune") == 0)
			tune = job; /* the last one wins, as a re-run supersedes */
	}
	if ((rc = take_device(jobs, out, err, errlen)))
		return rc;
	if (params) {
		const cJSON *rec = get(params, "record");

		if (cJSON_IsObject(rec)) {
			if ((rc = take_model_qos(rec, "iocost-params record", out->params_model, out->params_qos, err,
						 errlen)))
				return rc;
			out->has_params = true;
		}
	}
	if (tune) {
		const cJSON *res = get(tune, "result");

		if (res && !cJSON_IsNull(res) && !cJSON_IsObject(res))
			return fail(err, errlen, 422, "iocost-tune result is not an object");
		if ((rc = take_solutions(get(res, "solutions"), out, err, errlen)))
			return rc;
	}
	if (!out->has_params && out->nsolutions == 0)
		return fail(err, errlen, 422, "no iocost data: neither iocost-params nor iocost-tune solutions");
	return 0;
}

int ssd_result_parse(const void *body, size_t len, size_t max_inflated, struct ssd_result *out, char *err,
		     size_t errlen)
{
	char *inflated = NULL;
	const char *json = body;
	size_t json_len = len;
	cJSON *doc = NULL;
	struct md5_ctx md5;
	bool oom;
	uint8_t digest[MD5_DIGEST_SIZE];
	int rc;

	memset(out, 0, sizeof(*out));
	if (gz_is_gzip(body, len)) {
		rc = gz_inflate(body, len, max_inflated, &inflated, &json_len);
		if (rc == -E2BIG) {
			rc = fail(err, errlen, 413, "the file inflates to more than the limit of %zu bytes",
				  max_inflated);
			goto out;
		}
		if (rc < 0) {
			rc = fail(err, errlen, 400, "the gzip data is truncated or corrupt");
			goto out;
		}
		json = inflated;
	} else if (len > max_inflated) {
		rc = fail(err, errlen, 413, "the file is larger than the limit of %zu bytes", max_inflated);
		goto out;
	}
	/* cJSON ends strings at an escaped NUL, which would silently shorten a model name */
	if (memmem(json, json_len, "\\u0000", 6)) {
		rc = fail(err, errlen, 422, "the JSON contains a \\u0000 (NUL) escape");
		goto out;
	}
	doc = ssd_jobs_parse(json, json_len, &oom);
	if (!doc && oom) {
		rc = fail(err, errlen, 503, "out of memory reading the file");
		goto out;
	}
	if (!doc) {
		rc = fail(err, errlen, 400, "the file is neither gzip nor valid JSON");
		goto out;
	}
	/* resctl-bench writes an array of jobs, schedio bench one object naming its schema */
	if ((rc = cJSON_IsObject(doc) ? ssdbench_result_take(doc, out, err, errlen) : take_jobs(doc, out, err, errlen)))
		goto out;
	md5_init(&md5);
	md5_update(&md5, json_len, (const uint8_t *)json);
	md5_digest(&md5, sizeof(digest), digest);
	for (size_t i = 0; i < sizeof(digest); i++)
		snprintf(out->id + 2 * i, 3, "%02x", digest[i]);
out:
	if (rc)
		memset(out, 0, sizeof(*out));
	cJSON_Delete(doc);
	free(inflated);
	return rc;
}

const struct ssd_solution *ssd_result_solution(const struct ssd_result *r, const char *name)
{
	for (int i = 0; i < r->nsolutions; i++)
		if (strcmp(r->solutions[i].name, name) == 0)
			return &r->solutions[i];
	return NULL;
}

static cJSON *params_json(const char *const keys[], const double *v)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; o && i < SSD_NPARAMS; i++)
		if (!cJSON_AddNumberToObject(o, keys[i], v[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

static bool add_optional(cJSON *o, const char *key, double v)
{
	return isnan(v) || cJSON_AddNumberToObject(o, key, v);
}

cJSON *ssd_result_to_json(const struct ssd_result *r)
{
	cJSON *doc = cJSON_CreateObject(), *params, *sols;
	bool ok = doc != NULL;

	ok = ok && cJSON_AddStringToObject(doc, "id", r->id) && cJSON_AddStringToObject(doc, "model", r->model) &&
	     cJSON_AddStringToObject(doc, "model_id", r->model_id) && cJSON_AddStringToObject(doc, "fwrev", r->fwrev) &&
	     cJSON_AddNumberToObject(doc, "size_bytes", (double)r->size_bytes) &&
	     cJSON_AddStringToObject(doc, "kernel", r->kernel) &&
	     cJSON_AddStringToObject(doc, "bench_version", r->bench_version) &&
	     cJSON_AddBoolToObject(doc, "merged", r->merged);
	/* Only quick results say their kind, so a full result reads back as before. */
	if (ok && r->kind == SSD_KIND_QUICK) {
		cJSON *b;

		ok = cJSON_AddStringToObject(doc, "kind", ssd_kind_names[SSD_KIND_QUICK]) &&
		     (params = cJSON_AddObjectToObject(doc, "params")) &&
		     cJSON_AddItemToObject(params, "model", params_json(ssd_model_keys, r->params_model)) &&
		     cJSON_AddNullToObject(params, "qos") && (b = cJSON_AddObjectToObject(doc, "bench")) &&
		     cJSON_AddNumberToObject(b, "started_ms", r->quick.started_ms) &&
		     cJSON_AddNumberToObject(b, "duration_s", r->quick.duration_s) &&
		     cJSON_AddStringToObject(b, "target", r->quick.target) &&
		     cJSON_AddBoolToObject(b, "rotational", r->quick.rotational) &&
		     cJSON_AddNumberToObject(b, "nphases", r->quick.nphases) &&
		     cJSON_AddNumberToObject(b, "nwarnings", r->quick.nwarnings);
	} else if (ok && r->has_params) {
		params = cJSON_AddObjectToObject(doc, "params");
		ok = params && cJSON_AddItemToObject(params, "model", params_json(ssd_model_keys, r->params_model)) &&
		     cJSON_AddItemToObject(params, "qos", params_json(ssd_qos_keys, r->params_qos));
	} else if (ok) {
		ok = cJSON_AddNullToObject(doc, "params") != NULL;
	}
	sols = ok ? cJSON_AddObjectToObject(doc, "solutions") : NULL;
	ok = ok && sols;
	for (int i = 0; ok && i < r->nsolutions; i++) {
		const struct ssd_solution *s = &r->solutions[i];
		cJSON *o = cJSON_AddObjectToObject(sols, s->name);

		ok = o && cJSON_AddItemToObject(o, "model", params_json(ssd_model_keys, s->model)) &&
		     cJSON_AddItemToObject(o, "qos", params_json(ssd_qos_keys, s->qos)) &&
		     add_optional(o, "MOF", s->mof) && add_optional(o, "aMOF", s->amof) &&
		     add_optional(o, "isol", s->isol);
	}
	if (!ok) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static int copy_str(const cJSON *doc, const char *key, char *out, size_t cap)
{
	const cJSON *v = get(doc, key);

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= cap)
		return -1;
	memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
	return 0;
}

static int copy_params(const cJSON *obj, const char *const keys[], double *out)
{
	for (int i = 0; i < SSD_NPARAMS; i++) {
		const cJSON *v = get(obj, keys[i]);

		if (!cJSON_IsNumber(v))
			return -1;
		out[i] = v->valuedouble;
	}
	return 0;
}

static int quick_from_json(const cJSON *doc, struct ssd_result *out)
{
	const cJSON *size = get(doc, "size_bytes"), *b = get(doc, "bench"), *target = get(b, "target");
	double v;

	out->kind = SSD_KIND_QUICK;
	if (copy_str(doc, "id", out->id, sizeof(out->id)) || copy_str(doc, "model", out->model, sizeof(out->model)) ||
	    copy_str(doc, "fwrev", out->fwrev, sizeof(out->fwrev)) ||
	    copy_str(doc, "kernel", out->kernel, sizeof(out->kernel)) ||
	    copy_str(doc, "bench_version", out->bench_version, sizeof(out->bench_version)) || !cJSON_IsNumber(size) ||
	    !cJSON_IsObject(b) || !cJSON_IsString(target) || strlen(target->valuestring) >= sizeof(out->quick.target) ||
	    copy_params(get(get(doc, "params"), "model"), ssd_model_keys, out->params_model))
		return -1;
	ssd_model_id(out->model, out->model_id);
	out->size_bytes = (uint64_t)size->valuedouble;
	out->has_params = true;
	if (!parse_version(out->bench_version, &out->bench_major, &out->bench_minor))
		out->bench_major = out->bench_minor = 0;
	strcpy(out->quick.target, target->valuestring);
	out->quick.rotational = cJSON_IsTrue(get(b, "rotational"));
	out->quick.started_ms = isnan(v = optional_number(b, "started_ms")) ? 0 : v;
	out->quick.duration_s = isnan(v = optional_number(b, "duration_s")) ? 0 : v;
	out->quick.nphases = isnan(v = optional_number(b, "nphases")) ? 0 : (int)v;
	out->quick.nwarnings = isnan(v = optional_number(b, "nwarnings")) ? 0 : (int)v;
	return 0;
}

cJSON *ssd_result_file_json(const void *file, size_t len, size_t max_inflated)
{
	char *inflated = NULL;
	size_t n = len;
	cJSON *doc;

	if (gz_is_gzip(file, len)) {
		if (gz_inflate(file, len, max_inflated, &inflated, &n) < 0)
			return NULL;
		file = inflated;
	} else if (len > max_inflated) {
		return NULL;
	}
	doc = cJSON_ParseWithLength(file, n);
	free(inflated);
	return doc;
}

int ssd_result_from_json(const cJSON *doc, struct ssd_result *out)
{
	const cJSON *params = get(doc, "params"), *sols = get(doc, "solutions"), *s, *size = get(doc, "size_bytes");

	const cJSON *kind = get(doc, "kind");

	memset(out, 0, sizeof(*out));
	if (cJSON_IsString(kind) && strcmp(kind->valuestring, ssd_kind_names[SSD_KIND_QUICK]) == 0)
		return quick_from_json(doc, out);
	if (copy_str(doc, "id", out->id, sizeof(out->id)) || copy_str(doc, "model", out->model, sizeof(out->model)) ||
	    copy_str(doc, "fwrev", out->fwrev, sizeof(out->fwrev)) ||
	    copy_str(doc, "kernel", out->kernel, sizeof(out->kernel)) ||
	    copy_str(doc, "bench_version", out->bench_version, sizeof(out->bench_version)) || !cJSON_IsNumber(size) ||
	    !cJSON_IsBool(get(doc, "merged")) || !cJSON_IsObject(sols) ||
	    !parse_version(out->bench_version, &out->bench_major, &out->bench_minor))
		return -1;
	ssd_model_id(out->model, out->model_id);
	out->size_bytes = (uint64_t)size->valuedouble;
	out->merged = cJSON_IsTrue(get(doc, "merged"));
	if (cJSON_IsObject(params)) {
		if (copy_params(get(params, "model"), ssd_model_keys, out->params_model) ||
		    copy_params(get(params, "qos"), ssd_qos_keys, out->params_qos))
			return -1;
		out->has_params = true;
	}
	cJSON_ArrayForEach(s, sols)
	{
		struct ssd_solution *sol = &out->solutions[out->nsolutions];

		if (out->nsolutions == SSD_MAX_SOLUTIONS || strlen(s->string) > SSD_SOLUTION_NAME_MAX)
			return -1;
		snprintf(sol->name, sizeof(sol->name), "%s", s->string);
		if (copy_params(get(s, "model"), ssd_model_keys, sol->model) ||
		    copy_params(get(s, "qos"), ssd_qos_keys, sol->qos))
			return -1;
		sol->mof = optional_number(s, "MOF");
		sol->amof = optional_number(s, "aMOF");
		sol->isol = optional_number(s, "isol");
		out->nsolutions++;
	}
	return 0;
}
