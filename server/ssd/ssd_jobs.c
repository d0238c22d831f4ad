/* ssd_jobs.c - see ssd_jobs.h.
 *
 * A full result is ~11 MB of JSON, 40% of it the iocost-qos job's measured
 * curves, and almost none of it is what the importer reads. Building a cJSON
 * tree of all of it was most of an import's time, so the top-level array
 * and each job's top-level keys are walked here with the server's JSON lexer
 * (server/json/json_lex.c: the grammar, UTF-8 check and nesting limit report
 * bodies get), and cJSON builds trees only of the few values that are read.
 * The file is still refused unless it is valid JSON as a whole, so skipping
 * changes what is built, never what is accepted.
 */
#include "server/ssd/ssd_jobs.h"

#include "server/json/json_lex.h"

#include <stdlib.h>
#include <string.h>

struct span {
	const char *p;
	size_t len;
};

static const char *ws(const char *p, const char *end)
{
	return json_lex_ws(p, end);
}

static const char *skip_string(const char *p, const char *end)
{
	bool escapes;

	return json_lex_string(p, end, &escapes);
}

static bool key_is(const char *p, const char *q, const char *name)
{
	size_t n = strlen(name);

	/* keys of interest have no escapes, so the raw token is "name" exactly */
	return (size_t)(q - p) == n + 2 && memcmp(p + 1, name, n) == 0;
}

/* Builds the tree of a span the lexer validated (cJSON accepts all such); NULL
 * means memory ran out. */
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
		if (!(ve = json_lex_value(vs, end, 2))) /* inside the array (0) and the job (1) */
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
	if (*p != '[') { /* not a job array: a full parse, and the shape check says what it is */
		const char *e = json_lex_value(p, end, 0);

		if (!e || json_lex_ws(e, end) != end)
			return NULL;
		return parse_span((struct span){ p, (size_t)(e - p) });
	}
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

			e = json_lex_value(p, end, 1);
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
