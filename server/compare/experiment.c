/* experiment.c - checking a saved experiment's definition and writing it
 * back as canonical JSON (experiment.h). Every field is checked before the
 * next is read, and the first problem is the answer: a 400 names one field.
 */
#include "server/compare/experiment.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "server/json/json_parse.h"

#define HOUR_MS 3600000LL

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* key as an error may quote it: at most 40 bytes, anything but printable ASCII as '?'. */
static const char *quotable(const char *key, char out[41])
{
	size_t i = 0;

	for (; key[i] && i < 40; i++)
		out[i] = key[i] >= 0x20 && key[i] < 0x7f ? key[i] : '?';
	out[i] = '\0';
	return out;
}

/* Refuses a key of obj not in known (NULL-terminated), and a key given twice. */
static int check_keys(const cJSON *obj, const char *what, const char *const *known, char *err, size_t errlen)
{
	for (const cJSON *it = obj->child; it; it = it->next) {
		bool ok = false;
		char q[41];

		for (const char *const *k = known; *k && !ok; k++)
			ok = strcmp(it->string, *k) == 0;
		if (!ok)
			return fail(err, errlen, "%sunknown field '%s'", what, quotable(it->string, q));
		for (const cJSON *o = obj->child; o != it; o = o->next)
			if (strcmp(o->string, it->string) == 0)
				return fail(err, errlen, "%s%s is given twice", what, quotable(it->string, q));
	}
	return 0;
}

static int parse_name(const cJSON *v, struct experiment *e, char *err, size_t errlen)
{
	size_t n;
	bool blank = true;

	if (!v)
		return fail(err, errlen, "name is required: a string of 1 to %d bytes", EXPERIMENT_NAME_MAX);
	if (!cJSON_IsString(v))
		return fail(err, errlen, "name must be a string");
	n = strlen(v->valuestring);
	if (n == 0 || n > EXPERIMENT_NAME_MAX)
		return fail(err, errlen, "name must have 1 to %d bytes (it has %zu)", EXPERIMENT_NAME_MAX, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v->valuestring[i];

		if (c < 0x20 || c == 0x7f)
			return fail(err, errlen, "name has a control character at byte %zu", i);
		if (c != ' ')
			blank = false;
	}
	if (blank)
		return fail(err, errlen, "name must not be blank");
	memcpy(e->name, v->valuestring, n + 1);
	return 0;
}

static int parse_arm(const cJSON *v, int i, struct experiment *e, char *err, size_t errlen)
{
	char why[400];
	const char *key = i ? "b" : "a";

	if (!v)
		return fail(err, errlen,
			    "%s is required: the selector of arm %c (sched=NAME, label.KEY=VALUE, host=ID or "
			    "kernel=PREFIX, joined by commas)",
			    key, "AB"[i]);
	if (!cJSON_IsString(v))
		return fail(err, errlen, "%s must be a string (a selector such as sched=scx_fifo)", key);
	if (strlen(v->valuestring) > COMPARE_SELECT_MAX_LEN)
		return fail(err, errlen, "%s is longer than the limit of %d bytes", key, COMPARE_SELECT_MAX_LEN);
	if (compare_select_parse(v->valuestring, &e->q.sel[i], why, sizeof(why)))
		return fail(err, errlen, "%s: %s", key, why);
	compare_select_format(&e->q.sel[i], e->q.sel_text[i], sizeof(e->q.sel_text[i]));
	return 0;
}

/* A window bound: an integer of ms in [0, 2^53]. */
static int parse_ms(const cJSON *w, const char *key, int64_t *out, char *err, size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, key);

	if (!v)
		return fail(err, errlen, "window.%s is required", key);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= (double)EXPERIMENT_MS_MAX) ||
	    v->valuedouble != floor(v->valuedouble))
		return fail(err, errlen, "window.%s must be a non-negative integer (ms)", key);
	*out = (int64_t)v->valuedouble;
	return 0;
}

static int parse_window(const cJSON *w, struct experiment *e, char *err, size_t errlen)
{
	static const char *const keys[] = { "last_hours", "from", "to", "a_from", "a_to", "b_from", "b_to", NULL };
	const char *form = "{\"last_hours\": N}, {\"from\": MS, \"to\": MS} or "
			   "{\"a_from\": MS, \"a_to\": MS, \"b_from\": MS, \"b_to\": MS}";
	const cJSON *h = NULL;
	int forms = 0, fixed = 0, per_arm = 0;

	if (!w)
		return fail(err, errlen, "window is required: %s", form);
	if (!cJSON_IsObject(w))
		return fail(err, errlen, "window must be an object: %s", form);
	if (check_keys(w, "window: ", keys, err, errlen))
		return -1;
	for (const cJSON *it = w->child; it; it = it->next) {
		if (!strcmp(it->string, "last_hours"))
			h = it;
		else if (!strcmp(it->string, "from") || !strcmp(it->string, "to"))
			fixed = 1;
		else
			per_arm = 1;
	}
	forms = (h != NULL) + fixed + per_arm;
	if (forms != 1)
		return fail(err, errlen, "window must be one of %s%s", form, forms ? ", not a mix" : "");
	if (h) {
		if (!cJSON_IsNumber(h) || !(h->valuedouble >= 1 && h->valuedouble <= EXPERIMENT_LAST_HOURS_MAX) ||
		    h->valuedouble != floor(h->valuedouble))
			return fail(err, errlen, "window.last_hours must be a whole number of hours from 1 to %d",
				    EXPERIMENT_LAST_HOURS_MAX);
		e->window = EXPERIMENT_LAST_HOURS;
		e->last_hours = (int64_t)h->valuedouble;
		return 0;
	}
	if (fixed) {
		if (parse_ms(w, "from", &e->q.from[0], err, errlen) || parse_ms(w, "to", &e->q.to[0], err, errlen))
			return -1;
		if (e->q.to[0] <= e->q.from[0])
			return fail(err, errlen, "window: to must be after from");
		e->window = EXPERIMENT_FIXED;
		e->q.from[1] = e->q.from[0];
		e->q.to[1] = e->q.to[0];
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		char kf[8], kt[8];

		snprintf(kf, sizeof(kf), "%c_from", "ab"[i]);
		snprintf(kt, sizeof(kt), "%c_to", "ab"[i]);
		if (parse_ms(w, kf, &e->q.from[i], err, errlen) || parse_ms(w, kt, &e->q.to[i], err, errlen))
			return -1;
		if (e->q.to[i] <= e->q.from[i])
			return fail(err, errlen, "window: %s must be after %s", kt, kf);
	}
	e->window = EXPERIMENT_BEFORE_AFTER;
	return 0;
}

static int parse_doc(const cJSON *doc, struct experiment *e, char *err, size_t errlen)
{
	static const char *const keys[] = { "name", "a", "b", "metric", "threshold", "cgroup", "window", NULL };
	const cJSON *v;

	if (!cJSON_IsObject(doc))
		return fail(err, errlen, "the body must be a JSON object: {\"name\", \"a\", \"b\", \"window\", ...}");
	if (check_keys(doc, "", keys, err, errlen))
		return -1;
	if (parse_name(cJSON_GetObjectItemCaseSensitive(doc, "name"), e, err, errlen))
		return -1;
	for (int i = 0; i < 2; i++)
		if (parse_arm(cJSON_GetObjectItemCaseSensitive(doc, i ? "b" : "a"), i, e, err, errlen))
			return -1;
	e->q.metric = COMPARE_P99;
	v = cJSON_GetObjectItemCaseSensitive(doc, "metric");
	if (v && !cJSON_IsNull(v) && (!cJSON_IsString(v) || compare_metric_parse(v->valuestring, &e->q.metric)))
		return fail(err, errlen, "metric must be p50, p90, p99, p999 or mean");
	e->q.threshold = COMPARE_DEFAULT_THRESHOLD;
	v = cJSON_GetObjectItemCaseSensitive(doc, "threshold");
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v) || !compare_query_threshold_ok(v->valuedouble))
			return fail(err, errlen, "threshold must be a number between 0 and 1 (exclusive), e.g. 0.05");
		e->q.threshold = v->valuedouble;
	}
	v = cJSON_GetObjectItemCaseSensitive(doc, "cgroup");
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsString(v))
			return fail(err, errlen, "cgroup must be a string (a cgroup path) or null");
		if (compare_query_cgroup(&e->q, v->valuestring, err, errlen))
			return -1;
	}
	return parse_window(cJSON_GetObjectItemCaseSensitive(doc, "window"), e, err, errlen);
}

int experiment_parse(const char *text, size_t len, struct experiment *e, char *err, size_t errlen)
{
	cJSON *doc;
	int rc;

	memset(e, 0, sizeof(*e));
	if (len > EXPERIMENT_BODY_MAX)
		return fail(err, errlen, "the definition is larger than the limit of %d bytes", EXPERIMENT_BODY_MAX);
	doc = json_parse(text, len);
	if (!doc)
		return fail(err, errlen, "the body is not valid JSON (UTF-8, nested at most %d deep)", JSON_MAX_DEPTH);
	rc = parse_doc(doc, e, err, errlen);
	cJSON_Delete(doc);
	return rc;
}

/* An integer as its digits: cJSON prints numbers with 15 significant digits, which would round
 * bounds near 2^53. */
static void add_int(cJSON *o, const char *key, int64_t v)
{
	char digits[24];

	snprintf(digits, sizeof(digits), "%lld", (long long)v);
	cJSON_AddRawToObject(o, key, digits);
}

cJSON *experiment_to_json(const struct experiment *e)
{
	cJSON *doc = cJSON_CreateObject(), *w;

	if (!doc)
		return NULL;
	cJSON_AddStringToObject(doc, "name", e->name);
	cJSON_AddStringToObject(doc, "a", e->q.sel_text[0]);
	cJSON_AddStringToObject(doc, "b", e->q.sel_text[1]);
	cJSON_AddStringToObject(doc, "metric", compare_metric_name(e->q.metric));
	cJSON_AddNumberToObject(doc, "threshold", e->q.threshold);
	if (*e->q.cgroup)
		cJSON_AddStringToObject(doc, "cgroup", e->q.cgroup);
	else
		cJSON_AddNullToObject(doc, "cgroup");
	w = cJSON_AddObjectToObject(doc, "window");
	if (!w) {
		cJSON_Delete(doc);
		return NULL;
	}
	switch (e->window) {
	case EXPERIMENT_LAST_HOURS:
		add_int(w, "last_hours", e->last_hours);
		break;
	case EXPERIMENT_FIXED:
		add_int(w, "from", e->q.from[0]);
		add_int(w, "to", e->q.to[0]);
		break;
	case EXPERIMENT_BEFORE_AFTER:
		add_int(w, "a_from", e->q.from[0]);
		add_int(w, "a_to", e->q.to[0]);
		add_int(w, "b_from", e->q.from[1]);
		add_int(w, "b_to", e->q.to[1]);
		break;
	}
	return doc;
}

void experiment_at(struct experiment *e, int64_t now)
{
	if (e->window != EXPERIMENT_LAST_HOURS)
		return;
	for (int i = 0; i < 2; i++) {
		e->q.to[i] = now;
		e->q.from[i] = now - e->last_hours * HOUR_MS;
		if (e->q.from[i] < 0)
			e->q.from[i] = 0;
	}
}
