/* api_runqlat.c - runqueue latency series: one host (the whole host, one
 * cgroup, a set of CPUs, or one scheduler) and the fleet merged per group. Every point is a
 * merge of stored histograms by adding buckets, so its percentiles are exact
 * to bucket resolution whatever the range, step or set of hosts. Points
 * without data are left out. */
#include "server/api/api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ingest/ingest.h"
#include "server/series/query.h"
#include "server/ingest/report_parse.h"
#include "server/series/rollup.h"
#include "server/series/runqlat_set.h"
#include "server/store/store_pool.h"

#define MAX_CPU_FILTER 1024

struct want {
	const char *cgroup;
	char cpus[MAX_CPU_FILTER][12];
	int ncpus;
};

static bool want_series(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	struct want *w = arg;

	if (w->cgroup)
		return kind == RUNQLAT_CGROUP && strlen(w->cgroup) == keylen && memcmp(w->cgroup, key, keylen) == 0;
	if (kind != RUNQLAT_CPU)
		return false;
	for (int i = 0; i < w->ncpus; i++)
		if (strlen(w->cpus[i]) == keylen && memcmp(w->cpus[i], key, keylen) == 0)
			return true;
	return false;
}

struct host_ctx {
	const struct query_range *qr;
	struct runqlat_hist **points;
	struct want *want; /* NULL: the whole-host column */
	const char *sched; /* non-NULL: only the samples this scheduler group ran */
};

/* Adds the part of a host_hist blob that scheduler group sched ran into h. */
static int add_sched_part(struct runqlat_hist *h, const struct store_row *r, const char *sched)
{
	struct runqlat_set split = { 0 };
	int rc = runqlat_set_add_sched(&split, r->host_hist, r->host_hist_len, r->sched_group);

	for (size_t i = 0; rc == 0 && i < split.n; i++)
		if (strcmp(split.v[i]->key, sched) == 0)
			runqlat_hist_add(h, split.v[i]);
	runqlat_set_free(&split);
	return rc == -ENOMEM ? rc : 0;
}

static int host_row(void *arg, const struct store_row *r)
{
	struct host_ctx *c = arg;
	long p = query_point(c->qr, r->t);

	if (p < 0)
		return 0;
	if (!c->points[p] && !(c->points[p] = calloc(1, sizeof(**c->points))))
		return -ENOMEM;
	if (c->want && r->series)
		runqlat_hist_add_blob(c->points[p], r->series, r->series_len, want_series, c->want);
	else if (c->sched && r->host_hist)
		return add_sched_part(c->points[p], r, c->sched);
	else if (!c->want && r->host_hist)
		runqlat_hist_add_blob(c->points[p], r->host_hist, r->host_hist_len, runqlat_set_want_host, NULL);
	return 0;
}

static cJSON *range_doc(const struct query_range *qr)
{
	cJSON *doc = cJSON_CreateObject(), *layout;

	cJSON_AddNumberToObject(doc, "from", (double)qr->from);
	cJSON_AddNumberToObject(doc, "to", (double)qr->to);
	cJSON_AddNumberToObject(doc, "step_ms", (double)qr->step);
	layout = cJSON_AddObjectToObject(doc, "layout");
	cJSON_AddNumberToObject(layout, "grouping_power", HIST_GROUPING_POWER);
	cJSON_AddNumberToObject(layout, "max_value_power", HIST_MAX_VALUE_POWER);
	return doc;
}

/* Appends the non-empty points as series entries and frees them. */
static void points_to_json(const struct query_range *qr, struct runqlat_hist **points, cJSON *series, bool buckets)
{
	for (size_t i = 0; i < qr->points; i++) {
		cJSON *o;

		if (!points[i])
			continue;
		if (hist_total(points[i]->hist.buckets) > 0 || points[i]->hist.count > 0) {
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "t", (double)(qr->from + (int64_t)i * qr->step));
			runqlat_hist_to_json(points[i], o, buckets);
			if (!buckets)
				cJSON_DeleteItemFromObjectCaseSensitive(o, "sum_ns");
			cJSON_AddItemToArray(series, o);
		}
		free(points[i]);
		points[i] = NULL;
	}
}

static int parse_cpus(const char *s, struct want *w)
{
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || v > 1 << 20 || (*end && *end != ',') || w->ncpus >= MAX_CPU_FILTER)
			return -1;
		snprintf(w->cpus[w->ncpus++], sizeof(w->cpus[0]), "%ld", v);
		s = *end ? end + 1 : end;
	}
	return w->ncpus ? 0 : -1;
}

enum MHD_Result api_host_runqlat(struct http_request *req)
{
	struct query_range qr;
	struct store_host h;
	struct want *want = NULL;
	struct host_ctx c = { .qr = &qr };
	const char *cgroup = http_query(req, "cgroup"), *cpus = http_query(req, "cpu"),
		   *sched = http_query(req, "sched");
	enum MHD_Result reply;
	struct store *st;
	cJSON *doc;
	int rc;

	if (query_range_parse(req, &qr, &reply))
		return reply;
	/* Only the whole host is split by scheduler; cgroup and CPU series are not. */
	if (sched && (cgroup || cpus))
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "give sched without cgroup or cpu");
	if (sched && !*sched)
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "sched must name a scheduler group");
	c.sched = sched;
	if (cgroup || cpus) {
		want = calloc(1, sizeof(*want));
		if (!want)
			return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		want->cgroup = cgroup;
		if (cgroup && cpus) {
			free(want);
			return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "give cgroup or cpu, not both");
		}
		if (cpus && parse_cpus(cpus, want)) {
			free(want);
			return http_reply_error(req, MHD_HTTP_BAD_REQUEST,
						"cpu must be a list of CPU numbers (0,1,...)");
		}
	}
	c.want = want;
	c.points = calloc(qr.points, sizeof(*c.points));
	if (!c.points) {
		free(want);
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	}
	st = store_pool_get(req->srv->readers);
	if (query_host(req, st, &h, &reply)) {
		store_pool_put(req->srv->readers, st);
		free(c.points);
		free(want);
		return reply;
	}
	/* the whole host (or one scheduler's part) is in host_hist: leave the per-cgroup blobs unread */
	rc = query_scan(req->srv, st, qr.lv, h.id, qr.from, qr.to, !c.want, host_row, &c);
	store_pool_put(req->srv->readers, st);
	query_host_free(&h);
	doc = range_doc(&qr);
	points_to_json(&qr, c.points, cJSON_AddArrayToObject(doc, "series"), true);
	free(c.points);
	free(want);
	if (rc) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	return http_reply_json(req, MHD_HTTP_OK, doc);
}

/* Fleet: per group key, a row of points. */
struct group {
	char *key;
	int64_t bucket_hosts;  /* most hosts one fleet rollup bucket merged */
	int64_t current_hosts; /* hosts seen in the range whose latest report is in this group */
	struct runqlat_hist **points;
};

struct fleet_ctx {
	const struct query_range *qr;
	int dim; /* 0 none, 1 sched_ext, 2 kernel */
	struct group *g;
	size_t n, cap;
	int err;
};

static struct group *group_get(struct fleet_ctx *c, const char *key)
{
	struct group *g;

	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->g[i].key, key) == 0)
			return &c->g[i];
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct group *ng = realloc(c->g, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		c->g = ng;
		c->cap = cap;
	}
	g = &c->g[c->n];
	g->key = strdup(key);
	g->bucket_hosts = 0;
	g->current_hosts = 0;
	g->points = calloc(c->qr->points, sizeof(*g->points));
	if (!g->key || !g->points) {
		free(g->key);
		free(g->points);
		return NULL;
	}
	c->n++;
	return g;
}

/* Adds the whole host of a blob (blob non-NULL) or h into group key's point at t. */
static int fleet_add_point(struct fleet_ctx *c, const char *key, int64_t t, const void *blob, size_t len,
			   const struct runqlat_hist *h, int64_t hosts)
{
	long p = query_point(c->qr, t);
	struct group *g;

	if (p < 0)
		return 0;
	g = group_get(c, key);
	if (!g || (!g->points[p] && !(g->points[p] = calloc(1, sizeof(**g->points)))))
		return -ENOMEM;
	if (blob)
		runqlat_hist_add_blob(g->points[p], blob, len, runqlat_set_want_host, NULL);
	else
		runqlat_hist_add(g->points[p], h);
	if (hosts > g->bucket_hosts)
		g->bucket_hosts = hosts;
	return 0;
}

static int fleet_rollup_row(void *arg, const struct store_fleet_row *r)
{
	if (!r->hist)
		return 0;
	return fleet_add_point(arg, r->key, r->t, r->hist, r->hist_len, NULL, r->hosts);
}

/* Host rows past the fleet rollups (the newest minutes). By scheduler, each
 * scheduler's samples go to its own group, so a host that switched counts
 * in each group it had samples in. */
static int fleet_host_row(void *arg, const struct store_row *r)
{
	struct fleet_ctx *c = arg;
	struct runqlat_set split = { 0 };
	int rc;

	if (!r->host_hist)
		return 0;
	if (c->dim != 1)
		return fleet_add_point(c, c->dim == 0 ? "all" : (*r->kernel ? r->kernel : "unknown"), r->t,
				       r->host_hist, r->host_hist_len, NULL, 1);
	/* A corrupt blob is left out, as the other dimensions leave it empty. */
	rc = runqlat_set_add_sched(&split, r->host_hist, r->host_hist_len, r->sched_group);
	for (size_t i = 0; rc == 0 && i < split.n; i++)
		rc = fleet_add_point(c, split.v[i]->key, r->t, NULL, 0, split.v[i], 1);
	runqlat_set_free(&split);
	return rc == -ENOMEM ? rc : 0;
}

static int count_hosts(void *arg, const struct store_host *h)
{
	struct fleet_ctx *c = arg;
	const char *key;

	if (h->last_end_ms < c->qr->from)
		return 0;
	key = c->dim == 0   ? "all"
	      : c->dim == 1 ? report_sched_group(h->sched_state, h->sched_ops, h->kernel)
			    : (h->kernel && *h->kernel ? h->kernel : "unknown");
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->g[i].key, key) == 0)
			c->g[i].current_hosts++;
	return 0;
}

enum MHD_Result api_fleet_runqlat(struct http_request *req)
{
	static const char *const dims[] = { "none", "sched_ext", "kernel" };
	struct query_range qr;
	struct fleet_ctx c = { .qr = &qr };
	const char *group_by = http_query(req, "group_by");
	enum MHD_Result reply;
	struct store *st;
	int64_t lo = 0, mark;
	cJSON *doc, *groups;
	int rc = 0;

	if (query_range_parse(req, &qr, &reply))
		return reply;
	if (!group_by || !*group_by)
		group_by = "none";
	for (c.dim = 0; c.dim < 3 && strcmp(group_by, dims[c.dim]); c.dim++)
		;
	if (c.dim == 3)
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "group_by must be sched_ext, kernel or none");
	st = store_pool_get(req->srv->readers);
	lo = qr.from;
	/* Fleet rollups where they exist, then the hosts' own rows for the newest part. */
	if (qr.lv > STORE_RAW) {
		mark = atomic_load(&req->srv->rollup->mark[qr.lv]);
		if (mark > lo) {
			rc = st->ops->fleet_scan(st, qr.lv, dims[c.dim], lo, mark < qr.to ? mark : qr.to,
						 fleet_rollup_row, &c);
			lo = mark;
		}
		if (qr.lv == STORE_HOUR && rc == 0 && lo < qr.to) {
			mark = atomic_load(&req->srv->rollup->mark[STORE_MINUTE]);
			if (mark > lo) {
				rc = st->ops->fleet_scan(st, STORE_MINUTE, dims[c.dim], lo, mark < qr.to ? mark : qr.to,
							 fleet_rollup_row, &c);
				lo = mark;
			}
		}
	}
	if (rc == 0 && lo < qr.to)
		rc = st->ops->scan_hist(st, STORE_RAW, -1, lo, qr.to, fleet_host_row, &c);
	if (rc == 0)
		rc = st->ops->hosts(st, NULL, count_hosts, &c);
	store_pool_put(req->srv->readers, st);

	doc = range_doc(&qr);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "layout");
	cJSON_AddStringToObject(doc, "group_by", dims[c.dim]);
	groups = cJSON_AddArrayToObject(doc, "groups");
	for (size_t i = 0; i < c.n; i++) {
		cJSON *g = cJSON_CreateObject();

		cJSON_AddStringToObject(g, "key", c.g[i].key);
		/* A host that changed group counts where it is now, but never
		 * fewer hosts than one bucket of the group actually merged. */
		cJSON_AddNumberToObject(
		    g, "hosts",
		    (double)(c.g[i].current_hosts > c.g[i].bucket_hosts ? c.g[i].current_hosts : c.g[i].bucket_hosts));
		points_to_json(&qr, c.g[i].points, cJSON_AddArrayToObject(g, "series"), false);
		cJSON_AddItemToArray(groups, g);
		free(c.g[i].key);
		free(c.g[i].points);
	}
	free(c.g);
	if (rc) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	return http_reply_json(req, MHD_HTTP_OK, doc);
}
