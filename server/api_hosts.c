/* api_hosts.c - the host inventory API: the fleet list with each host's
 * recent runqueue latency, one host's latest inventory, and the list of its
 * stored reports (for checking delivery). Shapes follow the API contract
 * (notes: hosts list, host detail, reports list). */
#include "server/api.h"

#include "common/log.h"

#include <stdlib.h>
#include <string.h>

#include "server/ingest.h"
#include "server/query.h"
#include "server/runqlat_set.h"
#include "server/ssd_match.h"
#include "server/store_pool.h"

#define RECENT_MS (5 * 60000LL)
#define CGROUPS_WINDOW_MS (24 * 3600000LL)

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *sched_json(const struct store_host *h)
{
	cJSON *o;

	if (!h->sched_state)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	add_str_or_null(o, "state", h->sched_state);
	add_str_or_null(o, "ops", h->sched_ops);
	return o;
}

static bool host_stale(const struct store_host *h, int64_t now)
{
	int64_t interval = h->last_end_ms - h->last_start_ms, limit = 60000;

	if (3 * interval > limit)
		limit = 3 * interval;
	return now - h->last_end_ms > limit;
}

static int add_host_hist(void *arg, const struct store_row *r)
{
	if (r->host_hist)
		rq_hist_add_blob(arg, r->host_hist, r->host_hist_len, rq_want_host, NULL);
	return 0;
}

struct list_ctx {
	struct server *srv;
	struct store *st;
	const char *q;
	int64_t now;
	cJSON *hosts;
	struct rq_hist *acc;
};

/* The stored disks with the SSD database's verdict on each one's io.cost
 * configuration ("recommendation", issue 7) when that database is there. */
static cJSON *disks_annotated(struct server *srv, const char *disks_json)
{
	cJSON *all = disks_json ? cJSON_Parse(disks_json) : NULL;

	if (!all)
		return cJSON_CreateArray();
	if (srv->ssd_store && ssd_match_annotate_disks(srv->ssd_store, all) < 0)
		log_warn("hosts: SSD recommendations unavailable");
	return all;
}

static cJSON *disks_summary(struct server *srv, const char *disks_json)
{
	cJSON *all = disks_annotated(srv, disks_json), *out = cJSON_CreateArray(), *d;

	cJSON_ArrayForEach(d, all) {
		cJSON *s = cJSON_CreateObject(), *ioc = cJSON_GetObjectItemCaseSensitive(d, "iocost");
		static const char *const keys[] = { "dev", "name", "model", "fwrev" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			cJSON *v = cJSON_GetObjectItemCaseSensitive(d, keys[i]);

			add_str_or_null(s, keys[i], cJSON_IsString(v) ? v->valuestring : NULL);
		}
		cJSON_AddBoolToObject(s, "iocost_enabled", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ioc, "enabled")));
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(d, "recommendation")))
			cJSON_AddStringToObject(s, "recommendation",
						cJSON_GetObjectItemCaseSensitive(d, "recommendation")->valuestring);
		cJSON_AddItemToArray(out, s);
	}
	cJSON_Delete(all);
	return out;
}

static int list_host(void *arg, const struct store_host *h)
{
	struct list_ctx *c = arg;
	cJSON *o;

	if (c->q && !strcasestr(h->hostname, c->q))
		return 0;
	o = cJSON_CreateObject();
	if (!o)
		return -1;
	cJSON_AddItemToArray(c->hosts, o);
	cJSON_AddStringToObject(o, "id", h->machine_id);
	cJSON_AddStringToObject(o, "hostname", h->hostname);
	add_str_or_null(o, "kernel", h->kernel);
	if (h->cpus)
		cJSON_AddNumberToObject(o, "cpus", (double)h->cpus);
	else
		cJSON_AddNullToObject(o, "cpus");
	cJSON_AddItemToObject(o, "sched_ext", sched_json(h));
	cJSON_AddNumberToObject(o, "last_seen_ms", (double)h->last_end_ms);
	cJSON_AddBoolToObject(o, "stale", host_stale(h, c->now));
	memset(c->acc, 0, sizeof(*c->acc));
	if (c->st->ops->scan(c->st, STORE_RAW, h->id, c->now - RECENT_MS, INT64_MAX / 4, add_host_hist, c->acc) < 0)
		return -1;
	if (hist_total(c->acc->buckets) > 0) {
		cJSON *rq = cJSON_AddObjectToObject(o, "runqlat");

		cJSON_AddNumberToObject(rq, "p50_ns", (double)hist_quantile(c->acc->buckets, 0.5));
		cJSON_AddNumberToObject(rq, "p99_ns", (double)hist_quantile(c->acc->buckets, 0.99));
		cJSON_AddNumberToObject(rq, "count", (double)hist_total(c->acc->buckets));
	} else {
		cJSON_AddNullToObject(o, "runqlat");
	}
	cJSON_AddItemToObject(o, "disks", disks_summary(c->srv, h->disks_json));
	return 0;
}

enum MHD_Result api_hosts_list(struct http_request *req)
{
	struct list_ctx c = { .srv = req->srv, .q = http_query(req, "q"), .now = ingest_now_ms() };
	cJSON *doc = cJSON_CreateObject();
	int rc;

	c.hosts = cJSON_AddArrayToObject(doc, "hosts");
	c.acc = calloc(1, sizeof(*c.acc));
	if (!doc || !c.hosts || !c.acc) {
		free(c.acc);
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	}
	if (c.q && !*c.q)
		c.q = NULL;
	c.st = store_pool_get(req->srv->readers);
	rc = c.st->ops->hosts(c.st, NULL, list_host, &c);
	store_pool_put(req->srv->readers, c.st);
	free(c.acc);
	if (rc) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	return http_reply_json(req, MHD_HTTP_OK, doc);
}

static bool want_cgroups(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	return kind == RQ_CGROUP;
}

static int collect_cgroups(void *arg, const struct store_row *r)
{
	if (r->series)
		rq_set_add_blob(arg, r->series, r->series_len, want_cgroups, NULL);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One disk of the detail view: the stored object with iocost.{enabled, model, qos} always present. */
static void disk_normalise(cJSON *d)
{
	cJSON *ioc = cJSON_GetObjectItemCaseSensitive(d, "iocost");
	static const char *const keys[] = { "name", "model", "fwrev", "size_bytes", "rotational" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!cJSON_GetObjectItemCaseSensitive(d, keys[i]))
			cJSON_AddNullToObject(d, keys[i]);
	if (!ioc)
		ioc = cJSON_AddObjectToObject(d, "iocost");
	if (!cJSON_GetObjectItemCaseSensitive(ioc, "enabled"))
		cJSON_AddBoolToObject(ioc, "enabled", false);
	if (!cJSON_GetObjectItemCaseSensitive(ioc, "model"))
		cJSON_AddNullToObject(ioc, "model");
	if (!cJSON_GetObjectItemCaseSensitive(ioc, "qos"))
		cJSON_AddNullToObject(ioc, "qos");
}

enum MHD_Result api_host_get(struct http_request *req)
{
	struct store *st = store_pool_get(req->srv->readers);
	struct store_host h;
	struct rq_set cgroups = { 0 };
	enum MHD_Result reply;
	int64_t now = ingest_now_ms();
	cJSON *doc, *v, *arr;
	char **paths = NULL;

	if (query_host(req, st, &h, &reply)) {
		store_pool_put(req->srv->readers, st);
		return reply;
	}
	query_scan(req->srv, st, STORE_HOUR, h.id, now - CGROUPS_WINDOW_MS - now % STORE_HOUR_MS, INT64_MAX / 4,
		   collect_cgroups, &cgroups);
	store_pool_put(req->srv->readers, st);

	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "id", h.machine_id);
	cJSON_AddStringToObject(doc, "hostname", h.hostname);
	add_str_or_null(doc, "kernel", h.kernel);
	add_str_or_null(doc, "arch", h.arch);
	if (h.cpus)
		cJSON_AddNumberToObject(doc, "cpus", (double)h.cpus);
	else
		cJSON_AddNullToObject(doc, "cpus");
	v = h.l3_json ? cJSON_Parse(h.l3_json) : NULL;
	cJSON_AddItemToObject(doc, "l3_domains", v ? v : cJSON_CreateArray());
	cJSON_AddItemToObject(doc, "sched_ext", sched_json(&h));
	cJSON_AddNumberToObject(doc, "last_seen_ms", (double)h.last_end_ms);
	cJSON_AddBoolToObject(doc, "stale", host_stale(&h, now));
	add_str_or_null(doc, "agent_version", h.agent_version);
	arr = disks_annotated(req->srv, h.disks_json);
	cJSON_ArrayForEach(v, arr)
		disk_normalise(v);
	cJSON_AddItemToObject(doc, "disks", arr);
	arr = cJSON_AddArrayToObject(doc, "cgroups");
	paths = calloc(cgroups.n + 1, sizeof(*paths));
	for (size_t i = 0; paths && i < cgroups.n; i++)
		paths[i] = cgroups.v[i]->key;
	if (paths) {
		qsort(paths, cgroups.n, sizeof(*paths), cmp_str);
		for (size_t i = 0; i < cgroups.n; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(paths[i]));
	}
	free(paths);
	rq_set_free(&cgroups);
	query_host_free(&h);
	return http_reply_json(req, MHD_HTTP_OK, doc);
}

static int add_report(void *arg, const struct store_report *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return -1;
	cJSON_AddNumberToObject(o, "seq", (double)r->seq);
	cJSON_AddNumberToObject(o, "start_ms", (double)r->start_ms);
	cJSON_AddNumberToObject(o, "end_ms", (double)r->end_ms);
	cJSON_AddNumberToObject(o, "dropped", (double)r->dropped);
	cJSON_AddItemToArray(arg, o);
	return 0;
}

enum MHD_Result api_host_reports(struct http_request *req)
{
	struct store *st;
	struct store_host h;
	enum MHD_Result reply;
	int64_t from, to;
	cJSON *doc, *arr;
	int rc;

	if (query_from_to(req, &from, &to, &reply))
		return reply;
	st = store_pool_get(req->srv->readers);
	if (query_host(req, st, &h, &reply)) {
		store_pool_put(req->srv->readers, st);
		return reply;
	}
	doc = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(doc, "reports");
	rc = st->ops->reports(st, h.id, from, to, add_report, arr);
	store_pool_put(req->srv->readers, st);
	query_host_free(&h);
	if (rc) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	return http_reply_json(req, MHD_HTTP_OK, doc);
}
