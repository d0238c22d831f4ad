/* result.c - see result.h. The format is a contract with the server (the
 * schedio.ssdbench.v1 note it is built from): fields are only ever added.
 * Added here beyond it: a burst warning's sustained_value.
 */
#include "cli/bench/result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "version.h"

static const char *unit_of(const struct bench_phase_spec *s)
{
	return s->bps ? "B/s" : "IO/s";
}

static void add_warning(cJSON *warnings, const char *kind, const char *param, const char *msg)
{
	cJSON *w = cJSON_CreateObject();

	cJSON_AddStringToObject(w, "kind", kind);
	cJSON_AddStringToObject(w, "param", param);
	cJSON_AddStringToObject(w, "message", msg);
	cJSON_AddItemToArray(warnings, w);
}

void bench_result_warnings(const struct bench_phase_result *ph, cJSON *warnings)
{
	const struct bench_findings *f = &ph->findings;
	const char *p = ph->spec->param, *u = unit_of(ph->spec);
	char msg[512];

	if (f->burst) {
		cJSON *w;

		snprintf(msg, sizeof(msg),
			 "%s: the disk ran at %.0f %s for %.1f s, then fell to a sustained %.0f %s (a token bucket or "
			 "cache); the model uses the sustained rate",
			 p, f->burst_value, u, f->burst_s, f->value, u);
		add_warning(warnings, "burst", p, msg);
		w = cJSON_GetArrayItem(warnings, cJSON_GetArraySize(warnings) - 1);
		cJSON_AddNumberToObject(w, "burst_value", round(f->burst_value));
		cJSON_AddNumberToObject(w, "burst_s", round(f->burst_s * 10) / 10);
		cJSON_AddNumberToObject(w, "sustained_value", round(f->value));
	}
	if (f->falling) {
		snprintf(
		    msg, sizeof(msg),
		    "%s: the rate kept falling (by %.0f%% over the measurement; thermal throttling or an SLC cache "
		    "filling?); the value is the last %.0f s",
		    p, f->fall * 100, 5.0);
		add_warning(warnings, "falling", p, msg);
	}
	if (f->noisy) {
		snprintf(msg, sizeof(msg),
			 "%s: the rate varies by %.0f%% (standard deviation over the mean) from one "
			 "half second to the next: too noisy to trust",
			 p, f->tail.cv * 100);
		add_warning(warnings, "noisy", p, msg);
	}
	if (!ph->steady) {
		snprintf(msg, sizeof(msg),
			 "%s: not steady after %.1f s (the last 5 s moved by %.0f%% with a spread of %.0f%%); "
			 "the value is their mean",
			 p, ph->duration_s, ph->findings.tail.trend * 100, ph->findings.tail.cv * 100);
		add_warning(warnings, "not_steady", p, msg);
	}
}

static cJSON *pair(double a, double b)
{
	cJSON *p = cJSON_CreateArray();

	cJSON_AddItemToArray(p, cJSON_CreateNumber(a));
	cJSON_AddItemToArray(p, cJSON_CreateNumber(b));
	return p;
}

static cJSON *phase_json(const struct bench_phase_result *ph)
{
	const struct bench_phase_spec *s = ph->spec;
	cJSON *o = cJSON_CreateObject(), *sat, *series;

	cJSON_AddStringToObject(o, "param", s->param);
	cJSON_AddStringToObject(o, "op", s->write ? "write" : "read");
	cJSON_AddStringToObject(o, "pattern", s->rand ? "rand" : "seq");
	cJSON_AddNumberToObject(o, "block_size", s->bs);
	cJSON_AddNumberToObject(o, "queue_depth", ph->depth);
	sat = cJSON_AddArrayToObject(o, "saturation");
	for (size_t i = 0; i < ph->nprobes; i++)
		cJSON_AddItemToArray(sat, pair(ph->probes[i].depth, round(ph->probes[i].rate)));
	cJSON_AddNumberToObject(o, "value", round(ph->findings.value));
	cJSON_AddBoolToObject(o, "steady", ph->steady);
	cJSON_AddNumberToObject(o, "duration_s", round(ph->duration_s * 10) / 10);
	series = cJSON_AddArrayToObject(o, "series");
	for (size_t i = 0; i < ph->n; i++)
		cJSON_AddItemToArray(series, pair((double)(i + 1) * 0.5, round(ph->rate[i])));
	return o;
}

cJSON *bench_result_json(const struct bench_result *r)
{
	cJSON *doc = cJSON_CreateObject(), *tool, *dev, *model, *phases, *warnings;

	if (!doc)
		return NULL;
	cJSON_AddStringToObject(doc, "schema", BENCH_SCHEMA);
	tool = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddStringToObject(tool, "name", "schedio bench");
	cJSON_AddStringToObject(tool, "version", SCHEDIO_VERSION);
	cJSON_AddNumberToObject(doc, "started_ms", (double)r->started_ms);
	cJSON_AddNumberToObject(doc, "duration_s", round(r->duration_s * 10) / 10);
	cJSON_AddStringToObject(doc, "kernel", r->kernel);
	dev = cJSON_AddObjectToObject(doc, "device");
	cJSON_AddStringToObject(dev, "name", r->disk.name);
	cJSON_AddStringToObject(dev, "model", r->disk.model);
	cJSON_AddStringToObject(dev, "fwrev", r->disk.fwrev);
	cJSON_AddNumberToObject(dev, "size_bytes", (double)r->disk.size_bytes);
	cJSON_AddBoolToObject(dev, "rotational", r->disk.rotational == 1);
	cJSON_AddStringToObject(dev, "target", r->target);
	model = cJSON_AddObjectToObject(doc, "model");
	for (size_t i = 0; i < r->nphases; i++)
		cJSON_AddNumberToObject(model, r->phases[i]->spec->param, round(r->phases[i]->findings.value));
	phases = cJSON_AddArrayToObject(doc, "phases");
	for (size_t i = 0; i < r->nphases; i++)
		cJSON_AddItemToArray(phases, phase_json(r->phases[i]));
	warnings = cJSON_AddArrayToObject(doc, "warnings");
	for (size_t i = 0; i < r->nphases; i++)
		bench_result_warnings(r->phases[i], warnings);
	return doc;
}

int bench_result_model_line(const struct bench_result *r, char *buf, size_t cap)
{
	size_t len;

	len = (size_t)snprintf(buf, cap, "%u:%u ctrl=user model=linear", r->disk.major, r->disk.minor);
	/* in the kernel's order whatever order the phases ran in */
	for (size_t k = 0; k < 6; k++)
		for (size_t i = 0; i < r->nphases; i++)
			if (r->phases[i]->spec == &bench_phase_specs[k] && len < cap)
				len += (size_t)snprintf(buf + len, cap - len, " %s=%.0f", bench_phase_specs[k].param,
							round(r->phases[i]->findings.value));
	return (int)len;
}
