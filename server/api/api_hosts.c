/* api_hosts.c - the host inventory API: the fleet list with each host's
 * recent runqueue latency, one host's latest inventory, and the list of its
 * stored reports (for checking delivery). The detail lists what the host
 * page offers to pick from: the cgroups and the scheduler groups (issue 9)
 * with runqueue latency in the last 24 h. Shapes follow the API contract
 * (notes: hosts list, host detail, reports list). Host labels (issue 15) are
 * shown only for hosts that have some, and ?label.K=V (repeatable) keeps the
 * hosts whose latest labels have every one of them. */
#include "server/api/api.h"

#include "common/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "server/ingest/ingest.h"
#include "server/series/query.h"
#include "server/series/runqlat_set.h"
#include "server/ssd/ssd_match.h"
#include "server/store/store_pool.h"

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

/* agent_restarted_ms: when the host's agent last came back with a new incarnation and a lower seq
 * (its state folder was lost), so a seam in its reports reads as a restart; null when never. */
static void add_restarted(cJSON *o, const struct store_host *h)
{
	if (h->agent_restarted_ms > 0)
		cJSON_AddNumberToObject(o, "agent_restarted_ms", (double)h->agent_restarted_ms);
	else
		cJSON_AddNullToObject(o, "agent_restarted_ms");
}

/* "labels": {...}, only for a host that has labels (older answers stay as they were). */
static void add_labels(cJSON *o, const struct store_host *h)
{
	cJSON *labels;

	if (!h->labels || !*h->labels)
		return;
	labels = cJSON_AddObjectToObject(o, "labels");
	if (labels)
		labels_to_json(h->labels, labels);
}

#define HOSTS_MAX_LABEL_FILTERS LABELS_MAX

/* The ?label.K=V terms of a hosts list, all of which a host must have. */
struct label_filter {
	const char *key[HOSTS_MAX_LABEL_FILTERS], *value[HOSTS_MAX_LABEL_FILTERS];
	size_t n;
	char err[400]; /* the first bad term */
};

static enum MHD_Result take_label_term(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct label_filter *f = cls;
	char why[256];

	if (strncmp(key, "label.", 6) != 0)
		return MHD_YES;
	key += 6;
	if (!value)
		value = "";
	if (!label_key_ok(key, strlen(key), why, sizeof(why)) ||
	    !label_value_ok(key, value, strlen(value), why, sizeof(why))) {
		snprintf(f->err, sizeof(f->err), "bad filter label.%.80s: %s", key, why);
		return MHD_NO;
	}
	if (f->n == HOSTS_MAX_LABEL_FILTERS) {
		snprintf(f->err, sizeof(f->err), "more than %d label filters", HOSTS_MAX_LABEL_FILTERS);
		return MHD_NO;
	}
	f->key[f->n] = key;
	f->value[f->n++] = value;
	return MHD_YES;
}

static bool labels_match(const struct label_filter *f, const char *labels)
{
	for (size_t i = 0; i < f->n; i++) {
		size_t len;
		const char *v = labels_find(labels, f->key[i], &len);

		if (!v || len != strlen(f->value[i]) || memcmp(v, f->value[i], len) != 0)
			return false;
	}
	return true;
}

/* Each host's recent whole-host histogram, by host id (open addressing):
 * filled by one scan over every host's recent raw rows, so the list costs
 * one store round trip, not one per host. */
struct recent {
	int64_t *ids; /* 0: free slot (host ids start at 1) */
	struct runqlat_hist **hist;
	size_t cap, n; /* cap a power of two, kept over twice n */
};

static size_t recent_slot(const struct recent *m, int64_t id)
{
	size_t i = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ULL) & (m->cap - 1);

	while (m->ids[i] && m->ids[i] != id)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int recent_grow(struct recent *m)
{
	struct recent bigger = { .cap = m->cap ? m->cap * 2 : 256, .n = m->n };

	bigger.ids = calloc(bigger.cap, sizeof(*bigger.ids));
	bigger.hist = calloc(bigger.cap, sizeof(*bigger.hist));
	if (!bigger.ids || !bigger.hist) {
		free(bigger.ids);
		free(bigger.hist);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->ids[i]) {
			size_t k = recent_slot(&bigger, m->ids[i]);

			bigger.ids[k] = m->ids[i];
			bigger.hist[k] = m->hist[i];
		}
	free(m->ids);
	free(m->hist);
	*m = bigger;
	return 0;
}

/* The host's histogram; NULL when it has no recent rows. */
static const struct runqlat_hist *recent_get(const struct recent *m, int64_t id)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = recent_slot(m, id);
	return m->ids[i] ? m->hist[i] : NULL;
}

static int add_recent(void *arg, const struct store_row *r)
{
	struct recent *m = arg;
	size_t i;

	if (!r->host_hist || r->host_id <= 0)
		return 0;
	if (2 * (m->n + 1) > m->cap && recent_grow(m))
		return -ENOMEM;
	i = recent_slot(m, r->host_id);
	if (!m->ids[i]) {
		m->hist[i] = calloc(1, sizeof(**m->hist));
		if (!m->hist[i])
			return -ENOMEM;
		m->ids[i] = r->host_id;
		m->n++;
	}
	runqlat_hist_add_blob(m->hist[i], r->host_hist, r->host_hist_len, runqlat_set_want_host, NULL);
	return 0;
}

static void recent_free(struct recent *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->hist[i]);
	free(m->ids);
	free(m->hist);
	memset(m, 0, sizeof(*m));
}

struct list_ctx {
	struct server *srv;
	const char *q;
	struct label_filter labels;
	int64_t now;
	cJSON *hosts;
	struct recent recent;
	struct ssd_match_cache models; /* each SSD model looked up once per request */
};

/* The stored disks with the SSD database's verdict on each one's io.cost
 * configuration ("recommendation", issue 7) when that database is there. */
static cJSON *disks_annotated(struct server *srv, const char *disks_json, struct ssd_match_cache *cache)
{
	cJSON *all = disks_json ? cJSON_Parse(disks_json) : NULL;

	if (!all)
		return cJSON_CreateArray();
	if (srv->ssd_store && ssd_match_annotate_disks(srv->ssd_store, all, cache) < 0)
		log_warn("hosts: SSD recommendations unavailable");
	return all;
}

static cJSON *disks_summary(struct server *srv, const char *disks_json, struct ssd_match_cache *cache)
{
	cJSON *all = disks_annotated(srv, disks_json, cache), *out = cJSON_CreateArray(), *d;

	cJSON_ArrayForEach(d, all)
	{
		cJSON *s = cJSON_CreateObject(), *ioc = cJSON_GetObjectItemCaseSensitive(d, "iocost");
		static const char *const keys[] = { "dev", "name", "model", "fwrev" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			cJSON *v = cJSON_GetObjectItemCaseSensitive(d, keys[i]);

			add_str_or_null(s, keys[i], cJSON_IsString(v) ? v->valuestring : NULL);
		}
		cJSON_AddBoolToObject(s, "iocost_enabled",
				      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ioc, "enabled")));
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
	const struct runqlat_hist *acc;
	cJSON *o;

	if (c->q && !strcasestr(h->hostname, c->q))
		return 0;
	if (c->labels.n && !labels_match(&c->labels, h->labels))
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
	add_restarted(o, h);
	acc = recent_get(&c->recent, h->id);
	if (acc && hist_total(acc->hist.buckets) > 0) {
		cJSON *rq = cJSON_AddObjectToObject(o, "runqlat");

		cJSON_AddNumberToObject(rq, "p50_ns", (double)hist_quantile(acc->hist.buckets, 0.5));
		cJSON_AddNumberToObject(rq, "p99_ns", (double)hist_quantile(acc->hist.buckets, 0.99));
		cJSON_AddNumberToObject(rq, "count", (double)hist_total(acc->hist.buckets));
	} else {
		cJSON_AddNullToObject(o, "runqlat");
	}
	cJSON_AddItemToObject(o, "disks", disks_summary(c->srv, h->disks_json, &c->models));
	add_labels(o, h);
	return 0;
}

enum MHD_Result api_hosts_list(struct http_request *req)
{
	struct list_ctx c = { .srv = req->srv, .q = http_query(req, "q"), .now = ingest_now_ms() };
	cJSON *doc = cJSON_CreateObject();
	struct store *st;
	int rc;

	c.hosts = cJSON_AddArrayToObject(doc, "hosts");
	if (!doc || !c.hosts) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	}
	if (c.q && !*c.q)
		c.q = NULL;
	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, take_label_term, &c.labels);
	if (c.labels.err[0]) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "%s", c.labels.err);
	}
	st = store_pool_get(req->srv->readers);
	rc = st->ops->scan_hist(st, STORE_RAW, -1, c.now - RECENT_MS, INT64_MAX / 4, add_recent, &c.recent);
	if (rc == 0)
		rc = st->ops->hosts(st, NULL, list_host, &c);
	store_pool_put(req->srv->readers, st);
	recent_free(&c.recent);
	ssd_match_cache_free(&c.models);
	if (rc) {
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	return http_reply_json(req, MHD_HTTP_OK, doc);
}

static bool want_cgroups(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	return kind == RUNQLAT_CGROUP;
}

/* What the host detail lists from its last 24 h, gathered in one scan: the
 * cgroups (from the series blobs) and the scheduler groups (from host_hist
 * alone, so the per-scheduler split never costs a series decode). */
struct detail_ctx {
	struct runqlat_set cgroups, sched;
};

static int collect_detail(void *arg, const struct store_row *r)
{
	struct detail_ctx *c = arg;

	if (r->series)
		runqlat_set_add_blob(&c->cgroups, r->series, r->series_len, want_cgroups, NULL);
	if (r->host_hist)
		runqlat_set_add_sched(&c->sched, r->host_hist, r->host_hist_len, r->sched_group ? r->sched_group : "");
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the keys of the series of set to arr, sorted; with_samples: only series that have samples. */
static void add_sorted_keys(cJSON *arr, const struct runqlat_set *set, bool with_samples)
{
	char **keys = calloc(set->n + 1, sizeof(*keys));
	size_t n = 0;

	if (!keys)
		return;
	for (size_t i = 0; i < set->n; i++)
		if (!with_samples || hist_total(set->v[i]->hist.buckets) > 0)
			keys[n++] = set->v[i]->key;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(keys[i]));
	free(keys);
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
	struct detail_ctx d = { 0 };
	enum MHD_Result reply;
	int64_t now = ingest_now_ms();
	cJSON *doc, *v, *arr;

	if (query_host(req, st, &h, &reply)) {
		store_pool_put(req->srv->readers, st);
		return reply;
	}
	query_scan(req->srv, st, STORE_HOUR, h.id, now - CGROUPS_WINDOW_MS - now % STORE_HOUR_MS, INT64_MAX / 4, false,
		   collect_detail, &d);
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
	add_restarted(doc, &h);
	add_str_or_null(doc, "agent_version", h.agent_version);
	add_labels(doc, &h);
	arr = disks_annotated(req->srv, h.disks_json, NULL);
	cJSON_ArrayForEach(v, arr) disk_normalise(v);
	cJSON_AddItemToObject(doc, "disks", arr);
	add_sorted_keys(cJSON_AddArrayToObject(doc, "cgroups"), &d.cgroups, false);
	/* A group is listed only when it ran samples: a row may carry an empty histogram. */
	add_sorted_keys(cJSON_AddArrayToObject(doc, "schedulers"), &d.sched, true);
	runqlat_set_free(&d.cgroups);
	runqlat_set_free(&d.sched);
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
