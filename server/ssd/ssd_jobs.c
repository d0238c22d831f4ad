/* ssd_jobs.c - see ssd_jobs.h.
 *
 * A full result is ~11 MB of JSON, 40% of it the iocost-qos job's measured
 * curves, and almost none of it is what the importer reads. Building a cJSON
 * tree of all of it was most of an import's time, so the top-level array
 * and each job's top-level keys are walked here with a validating scanner
 * (strict JSON grammar, cJSON's nesting limit), and cJSON builds trees only
 * of the few values that are read. The file is still refused unless it is
 * valid JSON as a whole, so skipping changes what is built, never what is
 * accepted.
 */
#include "server/ssd/ssd_jobs.h"

#include <stdlib.h>
#include <string.h>

#define NESTING_MAX 1000 /* CJSON_NESTING_LIMIT: what a full parse would refuse */

struct span {
	const char *p;
	size_t len;
};

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *skip_string(const char *p, const char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"')
			return p + 1;
		if (c < 0x20)
			return NULL;
		if (c != '\\')
			continue;
		if (++p >= end)
			return NULL;
		if (*p == 'u') {
			unsigned u;

			if (end - p < 5 || !hex(p[1]) || !hex(p[2]) || !hex(p[3]) || !hex(p[4]))
				return NULL;
			u = (unsigned)strtoul((char[]){ p[1], p[2], p[3], p[4], 0 }, NULL, 16);
			p += 4;
			/* UTF-16 surrogates must pair up, as cJSON requires */
			if (u >= 0xdc00 && u <= 0xdfff)
				return NULL;
			if (u >= 0xd800 && u <= 0xdbff) {
				if (end - p < 7 || p[1] != '\\' || p[2] != 'u' || !hex(p[3]) || !hex(p[4]) ||
				    !hex(p[5]) || !hex(p[6]))
					return NULL;
				u = (unsigned)strtoul((char[]){ p[3], p[4], p[5], p[6], 0 }, NULL, 16);
				if (u < 0xdc00 || u > 0xdfff)
					return NULL;
				p += 6;
			}
		} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
			return NULL;
		}
	}
	return NULL;
}

static const char *digits(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

static const char *skip_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p = digits(p, end)))
			return NULL;
	}
	return p;
}

static const char *skip_value(const char *p, const char *end, int depth)
{
	p = ws(p, end);
	if (p >= end)
		return NULL;
	switch (*p) {
	case '"':
		return skip_string(p, end);
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';

		if (depth >= NESTING_MAX)
			return NULL;
		p = ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = skip_string(ws(p, end), end);
				if (!p || (p = ws(p, end)) >= end || *p != ':')
					return NULL;
				p++;
			}
			if (!(p = skip_value(p, end, depth + 1)) || (p = ws(p, end)) >= end)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	case 't':
		return end - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f':
		return end - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n':
		return end - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default:
		return skip_number(p, end);
	}
}

static bool key_is(const char *p, const char *q, const char *name)
{
	size_t n = strlen(name);

	/* keys of interest have no escapes, so the raw token is "name" exactly */
	return (size_t)(q - p) == n + 2 && memcmp(p + 1, name, n) == 0;
}

/* Builds the tree of a validated span; NULL means cJSON refused it (invalid \u
 * surrogates, which the scanner lets through) or ran out of memory. */
static cJSON *parse_span(struct span s)
{
	return cJSON_ParseWithLength(s.p, s.len);
}

static bool add_span(cJSON *job, const char *key, struct span s)
{
	cJSON *v;

	if (!s.p)
		return true;
	v = parse_span(s);
	return v && cJSON_AddItemToObject(job, key, v);
}

/* Scans the job object at p, appending it, pruned, to jobs; returns the end of
 * the object, or NULL when it is not valid JSON (or memory ran out). */
static const char *add_job(const char *p, const char *end, cJSON *jobs)
{
	struct span spec = { 0 }, sysinfo = { 0 }, record = { 0 }, result = { 0 };
	const cJSON *kind;
	cJSON *job = cJSON_CreateObject();
	bool keep;

	if (!job || !cJSON_AddItemToArray(jobs, job)) {
		cJSON_Delete(job);
		return NULL;
	}
	p = ws(p + 1, end);
	if (p < end && *p == '}') {
		p++;
		goto done;
	}
	for (;;) {
		const char *k = p, *ke = skip_string(p, end), *vs, *ve;
		struct span *slot;

		if (!ke || (p = ws(ke, end)) >= end || *p != ':')
			return NULL;
		vs = ws(p + 1, end);
		if (!(ve = skip_value(vs, end, 2))) /* inside the array (0) and the job (1) */
			return NULL;
		slot = key_is(k, ke, "spec")      ? &spec
		       : key_is(k, ke, "sysinfo") ? &sysinfo
		       : key_is(k, ke, "record")  ? &record
		       : key_is(k, ke, "result")  ? &result
						  : NULL;
		if (slot && !slot->p) /* the first of duplicate keys, as cJSON's lookup finds */
			*slot = (struct span){ vs, (size_t)(ve - vs) };
		if ((p = ws(ve, end)) >= end)
			return NULL;
		if (*p == '}') {
			p++;
			break;
		}
		if (*p != ',')
			return NULL;
		p = ws(p + 1, end);
	}
done:
	if (!add_span(job, "spec", spec) || !add_span(job, "sysinfo", sysinfo))
		return NULL;
	kind = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "spec"), "kind");
	keep = cJSON_IsString(kind) &&
	       (strcmp(kind->valuestring, "iocost-params") == 0 || strcmp(kind->valuestring, "iocost-tune") == 0);
	if (keep && (!add_span(job, "record", record) || !add_span(job, "result", result)))
		return NULL;
	return p;
}

cJSON *ssd_jobs_parse(const char *text, size_t len, bool *oom)
{
	const char *end = text + len, *p = ws(text, end);
	cJSON *jobs;

	*oom = false;
	if (p >= end)
		return NULL;
	if (*p != '[') /* not a job array: a full parse, and the shape check says what it is */
		return parse_span((struct span){ p, (size_t)(end - p) });
	jobs = cJSON_CreateArray();
	if (!jobs) {
		*oom = true;
		return NULL;
	}
	p = ws(p + 1, end);
	if (p < end && *p == ']') {
		p++;
		goto done;
	}
	for (;;) {
		const char *e;

		if (p < end && *p == '{') {
			e = add_job(p, end, jobs);
		} else {
			cJSON *v;

			e = skip_value(p, end, 1);
			v = e ? parse_span((struct span){ p, (size_t)(e - p) }) : NULL;
			if (v)
				cJSON_AddItemToArray(jobs, v);
			else
				e = NULL;
		}
		if (!e || (p = ws(e, end)) >= end)
			goto fail;
		if (*p == ']') {
			p++;
			break;
		}
		if (*p != ',')
			goto fail;
		p = ws(p + 1, end);
	}
done:
	if (ws(p, end) != end)
		goto fail;
	return jobs;
fail:
	cJSON_Delete(jobs);
	return NULL;
}
