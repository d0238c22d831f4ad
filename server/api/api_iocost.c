/* api_iocost.c - GET /api/v1/hosts/{id}/iocost: per disk the vrate and per
 * cgroup on it weight, hweights, usage (averaged over each step) and wait,
 * debt and delay (summed over each step), as series. */
#include "server/api/api.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/series/iocost_set.h"
#include "server/series/query.h"
#include "server/store/store_pool.h"

struct io_ctx {
	const struct query_range *qr;
	struct iocost_set *points;
};

static int iocost_row(void *arg, const struct store_row *r)
{
	struct io_ctx *c = arg;
	long p = query_point(c->qr, r->t);

	if (p >= 0 && r->iocost)
		iocost_set_add_blob(&c->points[p], r->iocost, r->iocost_len);
	return 0;
}

static void add_value(cJSON *o, const char *name, const struct iocost_row *r, int f)
{
	double v;

	if (iocost_row_value(r, f, &v))
		cJSON_AddNumberToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

static cJSON *find_by(cJSON *arr, const char *field, const char *value)
{
	cJSON *it;

	cJSON_ArrayForEach(it, arr)
	{
		cJSON *v = cJSON_GetObjectItemCaseSensitive(it, field);

		if (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0)
			return it;
	}
	return NULL;
}

static cJSON *disk_get(cJSON *disks, const char *dev)
{
	cJSON *d = find_by(disks, "dev", dev);

	if (!d) {
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "dev", dev);
		cJSON_AddArrayToObject(d, "vrate_pct");
		cJSON_AddArrayToObject(d, "cgroups");
		cJSON_AddItemToArray(disks, d);
	}
	return d;
}

static void point_to_json(cJSON *disks, int64_t t, const struct iocost_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct iocost_row *r = s->v[i];
		cJSON *d = disk_get(disks, r->dev), *o = cJSON_CreateObject(), *cg;

		cJSON_AddNumberToObject(o, "t", (double)t);
		if (r->kind == IOCOST_DISK) {
			add_value(o, "v", r, IOCOST_VRATE);
			cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(d, "vrate_pct"), o);
			continue;
		}
		cg = find_by(cJSON_GetObjectItemCaseSensitive(d, "cgroups"), "path", r->path);
		if (!cg) {
			cg = cJSON_CreateObject();
			cJSON_AddStringToObject(cg, "path", r->path);
			cJSON_AddArrayToObject(cg, "series");
			cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(d, "cgroups"), cg);
		}
		add_value(o, "weight", r, IOCOST_WEIGHT);
		add_value(o, "hweight_active_pct", r, IOCOST_HWEIGHT_ACTIVE);
		add_value(o, "hweight_inuse_pct", r, IOCOST_HWEIGHT_INUSE);
		add_value(o, "usage_pct", r, IOCOST_USAGE);
		add_value(o, "wait_us", r, IOCOST_WAIT_US);
		add_value(o, "indebt_us", r, IOCOST_INDEBT_US);
		add_value(o, "indelay_us", r, IOCOST_INDELAY_US);
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(cg, "series"), o);
	}
}

enum MHD_Result api_host_iocost(struct http_request *req)
{
	struct query_range qr;
	struct store_host h;
	struct io_ctx c = { .qr = &qr };
	enum MHD_Result reply;
	struct store *st;
	cJSON *doc, *disks;
	int rc;

	if (query_range_parse(req, &qr, &reply))
		return reply;
	c.points = calloc(qr.points, sizeof(*c.points));
	if (!c.points)
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	st = store_pool_get(req->srv->readers);
	if (query_host(req, st, &h, &reply)) {
		store_pool_put(req->srv->readers, st);
		free(c.points);
		return reply;
	}
	rc = query_scan(req->srv, st, qr.lv, h.id, qr.from, qr.to, false, iocost_row, &c);
	store_pool_put(req->srv->readers, st);
	query_host_free(&h);
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "from", (double)qr.from);
	cJSON_AddNumberToObject(doc, "to", (double)qr.to);
	cJSON_AddNumberToObject(doc, "step_ms", (double)qr.step);
	disks = cJSON_AddArrayToObject(doc, "disks");
	for (size_t i = 0; i < qr.points; i++) {
		point_to_json(disks, qr.from + (int64_t)i * qr.step, &c.points[i]);
		iocost_set_free(&c.points[i]);
	}
	free(c.points);
	if (rc) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	return http_reply_json(req, MHD_HTTP_OK, doc);
}
