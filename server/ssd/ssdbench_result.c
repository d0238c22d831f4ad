/* ssdbench_result.c - reading a schedio bench result as it comes from a user.
 *
 * Hostile until proven otherwise, as resctl-bench files are: every field the
 * server keeps or passes on is checked for type and range, names that end up
 * in URLs, hwdb match lines and io.cost lines follow the same character rules
 * as resctl-bench results (ssd_name_ok), the arrays are bounded so a result
 * is a few hundred KiB at most, and a refusal names the field at fault.
 * The read-back (ssdbench_result_detail) is rebuilt from the checked fields
 * by the same code, so nothing unknown or unchecked reaches a client.
 */
#include "server/ssd/ssdbench_result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAM_MAX 1e13      /* as for resctl-bench results: far above any device */
#define SIZE_BYTES_MAX 1e18 /* an exabyte */
#define SECONDS_MAX 1e7     /* almost four months */
#define BLOCK_SIZE_MAX 67108864.0
#define QUEUE_DEPTH_MAX 65536.0
#define EPOCH_MS_MAX 1e14 /* the year 5138 */
#define SHORT_MAX 32      /* warning kinds, target, op, pattern, device name */

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 422;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* A number field in lo..hi (whole when integral); absent is fine unless required. */
static int take_num(const cJSON *obj, const char *key, const char *what, double lo, double hi, bool integral,
		    bool required, double *out, char *err, size_t errlen)
{
	const cJSON *v = get(obj, key);

	if (!v && !required)
		return 0;
	if (!cJSON_IsNumber(v))
		return fail(err, errlen, "%s%s is %s", what, key, v ? "not a number" : "missing");
	if (!isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
		return fail(err, errlen, "%s%s = %g is outside %g..%g", what, key, v->valuedouble, lo, hi);
	if (integral && v->valuedouble != floor(v->valuedouble))
		return fail(err, errlen, "%s%s = %g is not a whole number", what, key, v->valuedouble);
	*out = v->valuedouble;
	return 0;
}

enum text_rule {
	TEXT_NAME,  /* ssd_name_ok: model, fwrev, device name */
	TEXT_ASCII, /* printable ASCII: kernel, version, enums */
	TEXT_PLAIN, /* any UTF-8 text without control characters: messages */
};

static bool text_ok(const char *s, enum text_rule rule)
{
	if (rule == TEXT_NAME)
		return ssd_name_ok(s);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || (rule == TEXT_ASCII && c > 0x7e))
			return false;
	}
	return true;
}

/* A string field shorter than cap obeying rule, copied into out (may be NULL) without
 * surrounding blanks; absent is fine unless required. */
static int take_str(const cJSON *obj, const char *key, const char *what, size_t cap, enum text_rule rule, bool required,
		    char *out, char *err, size_t errlen)
{
	const cJSON *v = get(obj, key);
	const char *s, *e;
	size_t n;

	if (!v && !required)
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring)
		return fail(err, errlen, "%s%s is %s", what, key, v ? "not a string" : "missing");
	s = v->valuestring;
	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);
	if (n >= cap)
		return fail(err, errlen, "%s%s is longer than %zu characters", what, key, cap - 1);
	if (!text_ok(v->valuestring, rule))
		return fail(err, errlen, "%s%s contains characters that are not allowed (%s)", what, key,
			    rule == TEXT_NAME    ? "control, non-ASCII or /\\*?[]:\"'<>|`"
			    : rule == TEXT_ASCII ? "control or non-ASCII"
						 : "control");
	if (out) {
		memcpy(out, s, n);
		out[n] = '\0';
	}
	return 0;
}

static int param_index(const char *s)
{
	for (int i = 0; i < SSD_NPARAMS; i++)
		if (strcmp(s, ssd_model_keys[i]) == 0)
			return i;
	return -1;
}

static int take_device(const cJSON *dev, struct ssd_result *out, char *err, size_t errlen)
{
	const cJSON *rot = get(dev, "rotational");
	char target[SHORT_MAX];
	double size = 0;
	int rc;

	if (!cJSON_IsObject(dev))
		return fail(err, errlen, "device is %s", dev ? "not an object" : "missing");
	if ((rc = take_str(dev, "name", "device.", SHORT_MAX, TEXT_NAME, false, NULL, err, errlen)) ||
	    (rc = take_str(dev, "model", "device.", sizeof(out->model), TEXT_NAME, true, out->model, err, errlen)) ||
	    (rc = take_str(dev, "fwrev", "device.", sizeof(out->fwrev), TEXT_NAME, true, out->fwrev, err, errlen)) ||
	    (rc = take_num(dev, "size_bytes", "device.", 1, SIZE_BYTES_MAX, true, true, &size, err, errlen)) ||
	    (rc = take_str(dev, "target", "device.", SHORT_MAX, TEXT_ASCII, true, target, err, errlen)))
		return rc;
	if (!*out->model)
		return fail(err, errlen, "device.model is empty");
	if (!cJSON_IsBool(rot))
		return fail(err, errlen, "device.rotational is %s", rot ? "not true or false" : "missing");
	if (strcmp(target, "block") != 0 && strcmp(target, "file") != 0)
		return fail(err, errlen, "device.target is neither \"block\" nor \"file\"");
	ssd_model_id(out->model, out->model_id);
	out->size_bytes = (uint64_t)size;
	out->quick.rotational = cJSON_IsTrue(rot);
	strcpy(out->quick.target, target); /* "block" or "file", checked above */
	return 0;
}

static int take_model(const cJSON *m, struct ssd_result *out, char *err, size_t errlen)
{
	bool any_write = false;
	int rc;

	if (!cJSON_IsObject(m))
		return fail(err, errlen, "model is %s", m ? "not an object" : "missing");
	for (int i = SSD_WBPS; i <= SSD_WRANDIOPS; i++)
		any_write |= get(m, ssd_model_keys[i]) != NULL;
	if (!any_write)
		return fail(err, errlen,
			    "model has no write parameters (wbps, wseqiops, wrandiops): a read-only run is not "
			    "submittable, io.cost needs all six");
	for (int i = 0; i < SSD_NPARAMS; i++) {
		if ((rc = take_num(m, ssd_model_keys[i], "model.", 0, PARAM_MAX, false, true, &out->params_model[i],
				   err, errlen)))
			return rc;
		if (out->params_model[i] <= 0)
			return fail(err, errlen, "model.%s must be greater than 0", ssd_model_keys[i]);
	}
	out->has_params = true;
	return 0;
}

/* An array of [x, y] points (at most max), x in xlo..xhi (whole when xint), y in 0..PARAM_MAX;
 * appended to copy (may be NULL). */
static int take_points(const cJSON *ph, const char *key, const char *what, int max, double xlo, double xhi, bool xint,
		       bool required, cJSON *copy, char *err, size_t errlen)
{
	const cJSON *arr = get(ph, key), *pt;
	int i = 0;

	if (!arr && !required)
		return 0;
	if (!cJSON_IsArray(arr))
		return fail(err, errlen, "%s%s is %s", what, key, arr ? "not an array" : "missing");
	if (cJSON_GetArraySize(arr) > max)
		return fail(err, errlen, "%s%s has more than %d points", what, key, max);
	cJSON_ArrayForEach(pt, arr)
	{
		const cJSON *x = cJSON_GetArrayItem(pt, 0), *y = cJSON_GetArrayItem(pt, 1);
		cJSON *out;

		if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 || !cJSON_IsNumber(x) || !cJSON_IsNumber(y))
			return fail(err, errlen, "%s%s[%d] is not a pair of numbers", what, key, i);
		if (!isfinite(x->valuedouble) || x->valuedouble < xlo || x->valuedouble > xhi ||
		    (xint && x->valuedouble != floor(x->valuedouble)))
			return fail(err, errlen, "%s%s[%d][0] = %g is outside %g..%g%s", what, key, i, x->valuedouble,
				    xlo, xhi, xint ? " (whole numbers)" : "");
		if (!isfinite(y->valuedouble) || y->valuedouble < 0 || y->valuedouble > PARAM_MAX)
			return fail(err, errlen, "%s%s[%d][1] = %g is outside 0..%g", what, key, i, y->valuedouble,
				    PARAM_MAX);
		if (copy) {
			out = cJSON_CreateArray();
			if (!out || !cJSON_AddItemToArray(copy, out) ||
			    !cJSON_AddItemToArray(out, cJSON_CreateNumber(x->valuedouble)) ||
			    !cJSON_AddItemToArray(out, cJSON_CreateNumber(y->valuedouble)))
				return fail(err, errlen, "out of memory");
		}
		i++;
	}
	return 0;
}

/* One phase; appended, rebuilt, to copy (may be NULL). */
static int take_phase(const cJSON *ph, int i, cJSON *copy, char *err, size_t errlen)
{
	const cJSON *steady = get(ph, "steady");
	char what[32], param[SHORT_MAX], op[SHORT_MAX], pattern[SHORT_MAX];
	double bs = 0, qd = 0, value = 0, dur = 0;
	cJSON *o = NULL, *sat = NULL, *series = NULL;
	int rc, p;

	snprintf(what, sizeof(what), "phases[%d].", i);
	if (!cJSON_IsObject(ph))
		return fail(err, errlen, "phases[%d] is not an object", i);
	if ((rc = take_str(ph, "param", what, SHORT_MAX, TEXT_ASCII, true, param, err, errlen)))
		return rc;
	if ((p = param_index(param)) < 0)
		return fail(err, errlen, "%sparam is not one of rbps rseqiops rrandiops wbps wseqiops wrandiops", what);
	if ((rc = take_str(ph, "op", what, SHORT_MAX, TEXT_ASCII, true, op, err, errlen)) ||
	    (rc = take_str(ph, "pattern", what, SHORT_MAX, TEXT_ASCII, true, pattern, err, errlen)))
		return rc;
	if (strcmp(op, p < SSD_WBPS ? "read" : "write") != 0)
		return fail(err, errlen, "%sop must be \"%s\" for %s", what, p < SSD_WBPS ? "read" : "write", param);
	if (strcmp(pattern, "seq") != 0 && strcmp(pattern, "rand") != 0)
		return fail(err, errlen, "%spattern is neither \"seq\" nor \"rand\"", what);
	if ((rc = take_num(ph, "block_size", what, 512, BLOCK_SIZE_MAX, true, true, &bs, err, errlen)) ||
	    (rc = take_num(ph, "queue_depth", what, 1, QUEUE_DEPTH_MAX, true, true, &qd, err, errlen)) ||
	    (rc = take_num(ph, "value", what, 0, PARAM_MAX, false, true, &value, err, errlen)) ||
	    (rc = take_num(ph, "duration_s", what, 0, SECONDS_MAX, false, true, &dur, err, errlen)))
		return rc;
	if (!cJSON_IsBool(steady))
		return fail(err, errlen, "%ssteady is %s", what, steady ? "not true or false" : "missing");
	if (copy) {
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(copy, o) || !cJSON_AddStringToObject(o, "param", param) ||
		    !cJSON_AddStringToObject(o, "op", op) || !cJSON_AddStringToObject(o, "pattern", pattern) ||
		    !cJSON_AddNumberToObject(o, "block_size", bs) || !cJSON_AddNumberToObject(o, "queue_depth", qd) ||
		    !cJSON_AddNumberToObject(o, "value", value) ||
		    !cJSON_AddBoolToObject(o, "steady", cJSON_IsTrue(steady)) ||
		    !cJSON_AddNumberToObject(o, "duration_s", dur) ||
		    !(sat = cJSON_AddArrayToObject(o, "saturation")) || !(series = cJSON_AddArrayToObject(o, "series")))
			return fail(err, errlen, "out of memory");
	}
	if ((rc = take_points(ph, "saturation", what, SSDBENCH_MAX_SATURATION, 1, QUEUE_DEPTH_MAX, true, false, sat,
			      err, errlen)))
		return rc;
	return take_points(ph, "series", what, SSDBENCH_MAX_SERIES, 0, SECONDS_MAX, false, true, series, err, errlen);
}

/* One warning: kind, message and param checked; other fields kept only when they are
 * finite numbers (burst_value, burst_s, ...), under names of the safe kind. */
static int take_warning(const cJSON *w, int i, cJSON *copy, char *err, size_t errlen)
{
	char what[32], kind[SHORT_MAX], param[SHORT_MAX] = "", message[SSDBENCH_MESSAGE_MAX + 1];
	const cJSON *f;
	cJSON *o = NULL;
	int rc;

	snprintf(what, sizeof(what), "warnings[%d].", i);
	if (!cJSON_IsObject(w))
		return fail(err, errlen, "warnings[%d] is not an object", i);
	if ((rc = take_str(w, "kind", what, SHORT_MAX, TEXT_NAME, true, kind, err, errlen)) ||
	    (rc = take_str(w, "message", what, sizeof(message), TEXT_PLAIN, true, message, err, errlen)) ||
	    (rc = take_str(w, "param", what, SHORT_MAX, TEXT_ASCII, false, param, err, errlen)))
		return rc;
	if (!*kind)
		return fail(err, errlen, "%skind is empty", what);
	if (*param && param_index(param) < 0)
		return fail(err, errlen, "%sparam is not one of rbps rseqiops rrandiops wbps wseqiops wrandiops", what);
	if (!copy)
		return 0;
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(copy, o) || !cJSON_AddStringToObject(o, "kind", kind) ||
	    (*param && !cJSON_AddStringToObject(o, "param", param)) || !cJSON_AddStringToObject(o, "message", message))
		return fail(err, errlen, "out of memory");
	cJSON_ArrayForEach(f, w)
	{
		size_t n = strlen(f->string);

		if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || n == 0 || n > SHORT_MAX ||
		    strspn(f->string, "abcdefghijklmnopqrstuvwxyz0123456789_") != n || get(o, f->string))
			continue;
		if (!cJSON_AddNumberToObject(o, f->string, f->valuedouble))
			return fail(err, errlen, "out of memory");
	}
	return 0;
}

/* Checks phases and warnings, rebuilding them into detail when it is not NULL. */
static int take_phases_warnings(const cJSON *doc, struct ssd_result *out, cJSON *detail, char *err, size_t errlen)
{
	const cJSON *phases = get(doc, "phases"), *warnings = get(doc, "warnings"), *x;
	cJSON *pc = NULL, *wc = NULL;
	int i = 0, rc;

	if (!cJSON_IsArray(phases))
		return fail(err, errlen, "phases is %s", phases ? "not an array" : "missing");
	if (cJSON_GetArraySize(phases) > SSDBENCH_MAX_PHASES)
		return fail(err, errlen, "phases has more than %d entries", SSDBENCH_MAX_PHASES);
	if (warnings && !cJSON_IsArray(warnings))
		return fail(err, errlen, "warnings is not an array");
	if (cJSON_GetArraySize(warnings) > SSDBENCH_MAX_WARNINGS)
		return fail(err, errlen, "warnings has more than %d entries", SSDBENCH_MAX_WARNINGS);
	if (detail &&
	    (!(pc = cJSON_AddArrayToObject(detail, "phases")) || !(wc = cJSON_AddArrayToObject(detail, "warnings"))))
		return fail(err, errlen, "out of memory");
	cJSON_ArrayForEach(x, phases)
	{
		if ((rc = take_phase(x, i++, pc, err, errlen)))
			return rc;
	}
	i = 0;
	cJSON_ArrayForEach(x, warnings)
	{
		if ((rc = take_warning(x, i++, wc, err, errlen)))
			return rc;
	}
	out->quick.nphases = cJSON_GetArraySize(phases);
	out->quick.nwarnings = warnings ? cJSON_GetArraySize(warnings) : 0;
	return 0;
}

/* "MAJOR.MINOR[...]" (1 to 3 digits each) into *maj, *min; 0.0 when it is not that. */
static void version_numbers(const char *v, int *maj, int *min)
{
	size_t a = strspn(v, "0123456789"), b = a && v[a] == '.' ? strspn(v + a + 1, "0123456789") : 0;

	*maj = *min = 0;
	if (a >= 1 && a <= 3 && b >= 1 && b <= 3) {
		*maj = atoi(v);
		*min = atoi(v + a + 1);
	}
}

static int take(const cJSON *doc, struct ssd_result *out, cJSON *detail, char *err, size_t errlen)
{
	const cJSON *schema = get(doc, "schema"), *tool = get(doc, "tool");
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc))
		return fail(err, errlen, "wrong shape: a schedio bench result is a JSON object");
	if (!schema)
		return fail(err, errlen,
			    "wrong shape: a result is a JSON array of resctl-bench jobs or a \"" SSDBENCH_SCHEMA
			    "\" object (this object has no schema)");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, SSDBENCH_SCHEMA) != 0)
		return fail(err, errlen, "schema is not \"" SSDBENCH_SCHEMA "\"");
	out->kind = SSD_KIND_QUICK;
	if (tool && !cJSON_IsObject(tool))
		return fail(err, errlen, "tool is not an object");
	if ((rc = take_str(tool, "version", "tool.", sizeof(out->bench_version), TEXT_ASCII, false, out->bench_version,
			   err, errlen)) ||
	    (rc = take_str(tool, "name", "tool.", SSD_VERSION_MAX, TEXT_ASCII, false, NULL, err, errlen)) ||
	    (rc = take_str(doc, "kernel", "", sizeof(out->kernel), TEXT_ASCII, false, out->kernel, err, errlen)) ||
	    (rc =
		 take_num(doc, "started_ms", "", 0, EPOCH_MS_MAX, false, false, &out->quick.started_ms, err, errlen)) ||
	    (rc = take_num(doc, "duration_s", "", 0, SECONDS_MAX, false, false, &out->quick.duration_s, err, errlen)))
		return rc;
	n = strcspn(out->bench_version, " \t"); /* "0.7.0 dev" is version 0.7.0 */
	memset(out->bench_version + n, 0, sizeof(out->bench_version) - n);
	version_numbers(out->bench_version, &out->bench_major, &out->bench_minor);
	if ((rc = take_device(get(doc, "device"), out, err, errlen)) ||
	    (rc = take_model(get(doc, "model"), out, err, errlen)))
		return rc;
	return take_phases_warnings(doc, out, detail, err, errlen);
}

int ssdbench_result_take(const cJSON *doc, struct ssd_result *out, char *err, size_t errlen)
{
	int rc = take(doc, out, NULL, err, errlen);

	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

cJSON *ssdbench_result_detail(const cJSON *doc)
{
	struct ssd_result *r = calloc(1, sizeof(*r));
	cJSON *detail = cJSON_CreateObject();
	char err[256];

	if (!r || !detail || take(doc, r, detail, err, sizeof(err))) {
		cJSON_Delete(detail);
		detail = NULL;
	}
	free(r);
	return detail;
}
