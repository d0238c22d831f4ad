/* api_compare.c - GET /api/v1/compare: is arm A's runqueue latency better,
 * worse or no different than arm B's, and how sure is that? Each arm is a
 * selector (compare_select.h) over a window; its hosts' samples are gathered
 * one histogram per host (compare_data.h) and the statistics
 * (compare_stats.h) give the ratio A/B, its 95% interval and the verdict.
 * Both arms on the same hosts in two different windows (before/after) are
 * compared as pairs. The answer's seed comes from the query, so the same
 * query on the same data always gives the same answer. api_compare_answer
 * answers a checked query (compare_query.h), so saved experiments
 * (api_experiments.c) answer exactly as this endpoint does.
 */
#include "server/api/api.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/compare/compare_data.h"
#include "server/compare/compare_query.h"
#include "server/compare/compare_select.h"
#include "server/compare/compare_stats.h"
#include "server/ingest/ingest.h"
#include "server/ingest/report_parse.h"
#include "server/series/query.h"
#include "server/store/store_pool.h"

#define COMPARE_RESAMPLES 2000

static const char *const arm_name[2] = { "A", "B" };

/* Queues a 400 with why, returns -1. */
__attribute__((format(printf, 3, 4))) static int bad(struct http_request *req, enum MHD_Result *reply, const char *fmt,
						     ...)
{
	char msg[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	*reply = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "%s", msg);
	return -1;
}

/* Arm i's window: a_from/a_to (b_...) where given, else from/to, else the last hour. */
static int parse_window(struct http_request *req, struct compare_query *q, int i, int64_t now, enum MHD_Result *reply)
{
	char kf[8], kt[8];
	const char *f, *t, *why;

	snprintf(kf, sizeof(kf), "%c_from", "ab"[i]);
	snprintf(kt, sizeof(kt), "%c_to", "ab"[i]);
	f = http_query(req, kf);
	t = http_query(req, kt);
	if (query_from_to_args(f && *f ? f : http_query(req, "from"), t && *t ? t : http_query(req, "to"), now,
			       &q->from[i], &q->to[i], &why))
		return bad(req, reply, "%s's window (%s/%s, else from/to): %s", arm_name[i], kf, kt, why);
	return 0;
}

static int parse_cgroup(struct http_request *req, struct compare_query *q, enum MHD_Result *reply)
{
	const char *cg = http_query(req, "cgroup");
	char err[160];

	if (cg && compare_query_cgroup(q, cg, err, sizeof(err)))
		return bad(req, reply, "%s", err);
	return 0;
}

static int parse_query(struct http_request *req, struct compare_query *q, enum MHD_Result *reply)
{
	const char *metric = http_query(req, "metric"), *thr = http_query(req, "threshold");
	int64_t now = ingest_now_ms();
	char err[400];

	for (int i = 0; i < 2; i++) {
		const char *text = http_query(req, i ? "b" : "a");

		if (!text)
			return bad(req, reply,
				   "%c is required: the selector of arm %s (sched=NAME, label.KEY=VALUE, "
				   "host=ID or kernel=PREFIX, joined by commas)",
				   "ab"[i], arm_name[i]);
		if (compare_select_parse(text, &q->sel[i], err, sizeof(err)))
			return bad(req, reply, "%c: %s", "ab"[i], err);
		compare_select_format(&q->sel[i], q->sel_text[i], sizeof(q->sel_text[i]));
		if (parse_window(req, q, i, now, reply))
			return -1;
	}
	q->metric = COMPARE_P99;
	if (metric && compare_metric_parse(metric, &q->metric))
		return bad(req, reply, "unknown metric '%.40s': metric is p50, p90, p99, p999 or mean",
			   *metric ? metric : "");
	q->threshold = COMPARE_DEFAULT_THRESHOLD;
	if (thr) {
		char *end;

		q->threshold = strtod(thr, &end);
		if (!*thr || *end || !compare_query_threshold_ok(q->threshold))
			return bad(req, reply, "threshold must be a number between 0 and 1 (exclusive), e.g. 0.05");
	}
	return parse_cgroup(req, q, reply);
}

static void add_num_or_null(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* The per-host values of an arm for the statistics (hosts without a value left out). */
static struct compare_host *arm_values(const struct compare_arm *arm, enum compare_metric m, size_t *n)
{
	struct compare_host *v = calloc(arm->nhosts ? arm->nhosts : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < arm->nhosts; i++) {
		double x = compare_metric_of(&arm->hosts[i].hist, m);

		if (!isfinite(x))
			continue;
		snprintf(v[*n].host_id, sizeof(v[*n].host_id), "%s", arm->hosts[i].host_id);
		v[*n].value_ns = x;
		v[*n].samples = hist_total(arm->hosts[i].hist.buckets);
		(*n)++;
	}
	return v;
}

static cJSON *arm_json(const struct compare_query *q, int i, const struct compare_arm *arm, size_t hosts,
		       uint64_t samples, double value)
{
	cJSON *o = cJSON_CreateObject(), *per;

	cJSON_AddStringToObject(o, "selector", q->sel_text[i]);
	cJSON_AddNumberToObject(o, "from", (double)arm->from);
	cJSON_AddNumberToObject(o, "to", (double)arm->to);
	cJSON_AddNumberToObject(o, "hosts", (double)hosts);
	cJSON_AddNumberToObject(o, "samples", (double)samples);
	add_num_or_null(o, "value_ns", value);
	per = cJSON_AddArrayToObject(o, "per_host");
	for (size_t k = 0; k < arm->nhosts; k++) {
		const struct compare_data_host *h = &arm->hosts[k];
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "host_id", h->host_id);
		cJSON_AddStringToObject(p, "hostname", h->hostname);
		add_num_or_null(p, "value_ns", compare_metric_of(&h->hist, q->metric));
		cJSON_AddNumberToObject(p, "samples", (double)hist_total(h->hist.buckets));
		cJSON_AddItemToArray(per, p);
	}
	return o;
}

static cJSON *answer(const struct compare_query *q, const struct compare_arm *arms, const struct compare_opts *o,
		     const struct compare_result *r)
{
	cJSON *doc = cJSON_CreateObject(), *ci;
	char seed[24];

	cJSON_AddStringToObject(doc, "verdict", compare_verdict_name(r->verdict));
	add_num_or_null(doc, "ratio", r->ratio);
	if (isfinite(r->ci_low) && isfinite(r->ci_high)) {
		ci = cJSON_AddArrayToObject(doc, "ci");
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r->ci_low));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r->ci_high));
	} else {
		cJSON_AddNullToObject(doc, "ci");
	}
	cJSON_AddNumberToObject(doc, "threshold", q->threshold);
	cJSON_AddStringToObject(doc, "metric", compare_metric_name(q->metric));
	cJSON_AddStringToObject(doc, "method", compare_method(o));
	cJSON_AddStringToObject(doc, "summary", r->summary);
	if (*r->reason)
		cJSON_AddStringToObject(doc, "reason", r->reason);
	else
		cJSON_AddNullToObject(doc, "reason");
	if (*q->cgroup)
		cJSON_AddStringToObject(doc, "cgroup", q->cgroup);
	else
		cJSON_AddNullToObject(doc, "cgroup");
	cJSON_AddItemToObject(doc, "a", arm_json(q, 0, &arms[0], r->a_hosts, r->a_samples, r->a_value_ns));
	cJSON_AddItemToObject(doc, "b", arm_json(q, 1, &arms[1], r->b_hosts, r->b_samples, r->b_value_ns));
	cJSON_AddBoolToObject(doc, "paired", o->paired);
	if (o->paired)
		cJSON_AddNumberToObject(doc, "pairs", (double)r->pairs);
	cJSON_AddNumberToObject(doc, "resamples", o->resamples);
	snprintf(seed, sizeof(seed), "%016llx", (unsigned long long)o->seed);
	cJSON_AddStringToObject(doc, "seed", seed);
	return doc;
}

/* The seed: the query as the server understood it, so equivalent spellings answer alike. */
static uint64_t query_seed(const struct compare_query *q)
{
	char *text = malloc(3 * COMPARE_SELECT_MAX_LEN + REPORT_MAX_PATH + 256);
	uint64_t seed;

	if (!text)
		return 1;
	snprintf(text, 3 * COMPARE_SELECT_MAX_LEN + REPORT_MAX_PATH + 256,
		 "a=%s&b=%s&metric=%s&a_from=%lld&a_to=%lld&b_from=%lld&b_to=%lld&cgroup=%s&threshold=%.17g",
		 q->sel_text[0], q->sel_text[1], compare_metric_name(q->metric), (long long)q->from[0],
		 (long long)q->to[0], (long long)q->from[1], (long long)q->to[1], q->cgroup, q->threshold);
	seed = compare_seed(text);
	free(text);
	return seed;
}

int api_compare_answer(struct server *srv, const struct compare_query *q, cJSON **doc, char *err, size_t errlen)
{
	struct compare_arm arms[2] = { 0 };
	struct compare_host *values[2] = { NULL, NULL };
	size_t nvalues[2] = { 0, 0 };
	struct compare_opts o = { .resamples = COMPARE_RESAMPLES };
	struct compare_result r;
	struct store *st;
	int rc, status = 0;

	*doc = NULL;
	for (int i = 0; i < 2; i++) {
		arms[i].sel = &q->sel[i];
		arms[i].from = q->from[i];
		arms[i].to = q->to[i];
	}
	st = store_pool_get(srv->readers);
	rc = compare_data_gather(srv, st, *q->cgroup ? q->cgroup : NULL, arms, 2, err, errlen);
	store_pool_put(srv->readers, st);
	if (rc) {
		status = rc == -EINVAL   ? MHD_HTTP_BAD_REQUEST
			 : rc == -ENOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE
					 : MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		values[i] = arm_values(&arms[i], q->metric, &nvalues[i]);
		if (!values[i]) {
			snprintf(err, errlen, "out of memory");
			status = MHD_HTTP_SERVICE_UNAVAILABLE;
			goto out;
		}
	}
	o.metric = q->metric;
	o.threshold = q->threshold;
	o.seed = query_seed(q);
	/* Before/after: the same hosts in two windows, each host its own control. */
	o.paired = (q->from[0] != q->from[1] || q->to[0] != q->to[1]) && arms[0].nhosts > 0 &&
		   compare_data_same_hosts(&arms[0], &arms[1]);
	rc = compare_run(values[0], nvalues[0], values[1], nvalues[1], &o, &r);
	if (rc) {
		snprintf(err, errlen, "the comparison failed (%s)", strerror(-rc));
		status = rc == -ENOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_INTERNAL_SERVER_ERROR;
		goto out;
	}
	/* An empty arm says more about the selector than "too few hosts". */
	for (int i = 0; i < 2; i++)
		if (nvalues[i] == 0) {
			snprintf(r.reason, sizeof(r.reason),
				 "%s (%s) selects no host with runqueue latency samples%s in [%lld, %lld)", arm_name[i],
				 q->sel_text[i], *q->cgroup ? " in that cgroup" : "", (long long)q->from[i],
				 (long long)q->to[i]);
			break;
		}
	*doc = answer(q, arms, &o, &r);
	if (!*doc) {
		snprintf(err, errlen, "out of memory");
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	}
out:
	for (int i = 0; i < 2; i++) {
		compare_arm_free(&arms[i]);
		free(values[i]);
	}
	return status;
}

enum MHD_Result api_compare(struct http_request *req)
{
	struct compare_query *q = calloc(1, sizeof(*q));
	enum MHD_Result reply;
	cJSON *doc;
	char err[256];
	int status;

	if (!q)
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	if (parse_query(req, q, &reply))
		goto out;
	status = api_compare_answer(req->srv, q, &doc, err, sizeof(err));
	reply = status ? http_reply_error(req, (unsigned)status, "%s", err) : http_reply_json(req, MHD_HTTP_OK, doc);
out:
	free(q);
	return reply;
}
