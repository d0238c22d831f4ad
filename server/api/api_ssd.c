/* api_ssd.c - the SSD model database over HTTP: resctl-bench results (full
 * runs) and schedio bench results (quick benches) in, per-model io.cost
 * recommendations out (GET/POST /api/v1/ssd/...).
 *
 * Handlers only translate: parsing is ssd_result.c, aggregation
 * ssd_recommend.c, text formats ssd_config.c, storage ssd_store.h. A
 * submission is parsed completely before anything is stored, so a refused
 * file leaves no trace.
 */
#include <ctype.h>
#include <stdint.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/gz.h"
#include "server/api/api.h"
#include "server/http/auth.h"
#include "server/ssd/ssd_config.h"
#include "server/ssd/ssd_list_query.h"
#include "server/http/ssd_ratelimit.h"
#include "server/ssd/ssd_recommend.h"
#include "server/ssd/ssd_result.h"
#include "server/ssd/ssdbench_result.h"
#include "server/store/ssd_store.h"

#define QUERY_MAX 256
#define LIST_DEFAULT 200
#define LIST_MAX 1000
#define OFFSET_MAX 1000000000
/* The rows of one model-list page stop short of this many bytes of JSON, so the answer
 * (the envelope adds < 100 bytes) stays under 1 MiB (issue 8) whatever long names and
 * firmware lists the rows hold: limit is a most, next_offset says where to go on. */
#define LIST_BUDGET 1000000

static struct ssd_store *store(struct http_request *req)
{
	return req->srv->ssd_store;
}

/* Queues a reply with extra headers (name, value pairs up to a NULL name); body copied. */
static enum MHD_Result reply_with_headers(struct http_request *req, unsigned status, const char *ctype,
					  const void *body, size_t len, const char *const *headers)
{
	struct MHD_Response *res = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);

	if (!res)
		return MHD_NO;
	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	http_add_security_headers(res, ctype);
	for (; headers && headers[0]; headers += 2)
		MHD_add_response_header(res, headers[0], headers[1]);
	return http_send(req, status, res);
}

/* Queues a reply with an extra header (name may be NULL); body copied. */
static enum MHD_Result reply_with(struct http_request *req, unsigned status, const char *ctype, const void *body,
				  size_t len, const char *name, const char *value)
{
	const char *const headers[] = { name, value, NULL };

	return reply_with_headers(req, status, ctype, body, len, headers);
}

static void client_address(struct http_request *req, char *out, size_t cap)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	snprintf(out, cap, "unknown");
	if (ci && ci->client_addr)
		getnameinfo(ci->client_addr,
			    ci->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								   : sizeof(struct sockaddr_in),
			    out, (socklen_t)cap, NULL, 0, NI_NUMERICHOST);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Checks the submit token, or the per-address budget with --open-submissions. */
static bool may_submit(struct http_request *req, enum MHD_Result *reply)
{
	char addr[128], msg[256], retry[16];
	unsigned retry_s = 1;

	if (!req->srv->opt.open_submissions)
		return auth_require(req, "submit", reply);
	client_address(req, addr, sizeof(addr));
	if (ssd_ratelimit_take(req->srv->ssd_ratelimit, addr, now_ms(), &retry_s))
		return true;
	snprintf(retry, sizeof(retry), "%u", retry_s);
	snprintf(msg, sizeof(msg), "{\"error\":\"too many submissions from %s; retry in %u s\"}", addr, retry_s);
	*reply =
	    reply_with(req, MHD_HTTP_TOO_MANY_REQUESTS, "application/json", msg, strlen(msg), "Retry-After", retry);
	return false;
}

static cJSON *string_array(const char *list, char sep)
{
	cJSON *arr = cJSON_CreateArray();
	const char *p = list;

	while (arr && p && *p) {
		const char *e = strchr(p, sep);
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char buf[SSD_MODEL_MAX + 1];

		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), p);
		cJSON_AddItemToArray(arr, cJSON_CreateString(buf));
		p = e ? e + 1 : p + n;
	}
	return arr;
}

enum MHD_Result api_ssd_submit(struct http_request *req)
{
	struct ssd_result *r = calloc(1, sizeof(*r));
	char err[512], *gz = NULL;
	size_t gz_len = 0;
	bool dup = false;
	cJSON *doc = NULL, *names;
	enum MHD_Result ret;
	int status;

	if (!r)
		return MHD_NO;
	if (!may_submit(req, &ret))
		goto out;
	if (req->body_len == 0) {
		ret = http_reply_error(req, MHD_HTTP_BAD_REQUEST,
				       "empty body: send a resctl-bench or schedio bench result file (JSON or gzip)");
		goto out;
	}
	status = ssd_result_parse(req->body, req->body_len, req->srv->opt.max_inflated, r, err, sizeof(err));
	if (status) {
		ret = http_reply_error(req, (unsigned)status, "%s", err);
		goto out;
	}
	/* The original is kept as sent when it is gzip; plain JSON is compressed first. */
	if (!gz_is_gzip(req->body, req->body_len) && gz_deflate(req->body, req->body_len, &gz, &gz_len) < 0) {
		ret = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot compress the file");
		goto out;
	}
	if (store(req)->ops->put(store(req), r, gz ? gz : req->body, gz ? gz_len : req->body_len, &dup, err,
				 sizeof(err)) < 0) {
		ret = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", err);
		goto out;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "id", r->id);
	cJSON_AddStringToObject(doc, "model", r->model);
	cJSON_AddStringToObject(doc, "model_id", r->model_id);
	cJSON_AddStringToObject(doc, "fwrev", r->fwrev);
	cJSON_AddStringToObject(doc, "bench_version", r->bench_version);
	cJSON_AddStringToObject(doc, "kind", ssd_kind_names[r->kind]);
	names = cJSON_AddArrayToObject(doc, "solutions");
	for (int i = 0; i < r->nsolutions; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(r->solutions[i].name));
	cJSON_AddBoolToObject(doc, "duplicate", dup);
	ret = http_reply_json(req, dup ? MHD_HTTP_OK : MHD_HTTP_CREATED, doc);
out:
	free(gz);
	free(r);
	return ret;
}

static bool id_ok(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return n == 32 && id[n] == '\0';
}

/* Adds a quick result's phases and warnings, read from its stored file, to its "bench"
 * object in doc (ssd_result_to_json's output); the summary alone does not keep them. */
static void add_bench_detail(struct http_request *req, const char *id, cJSON *doc)
{
	cJSON *bench = cJSON_GetObjectItemCaseSensitive(doc, "bench"), *file = NULL, *detail = NULL, *part;
	void *gz = NULL;
	size_t len = 0;

	if (!cJSON_IsObject(bench) || store(req)->ops->get_file(store(req), id, &gz, &len) < 0)
		goto out;
	file = ssd_result_file_json(gz, len, req->srv->opt.max_inflated);
	detail = file ? ssdbench_result_detail(file) : NULL;
	while (detail && (part = detail->child)) {
		cJSON_DetachItemViaPointer(detail, part);
		cJSON_AddItemToObject(bench, part->string, part);
	}
out:
	cJSON_Delete(detail);
	cJSON_Delete(file);
	free(gz);
}

enum MHD_Result api_ssd_result_get(struct http_request *req)
{
	struct ssd_result *r = calloc(1, sizeof(*r));
	enum MHD_Result ret;
	int rc = -ENOENT;

	if (!r)
		return MHD_NO;
	if (id_ok(req->args[0]))
		rc = store(req)->ops->get(store(req), req->args[0], r);
	if (rc == -ENOENT)
		ret = http_reply_error(req, MHD_HTTP_NOT_FOUND, "no SSD result with that id");
	else if (rc < 0)
		ret = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the result");
	else {
		cJSON *doc = ssd_result_to_json(r);

		if (doc && r->kind == SSD_KIND_QUICK)
			add_bench_detail(req, r->id, doc);
		ret = http_reply_json(req, MHD_HTTP_OK, doc);
	}
	free(r);
	return ret;
}

enum MHD_Result api_ssd_result_file(struct http_request *req)
{
	char disp[128];
	void *gz = NULL;
	size_t len = 0;
	int rc = -ENOENT;
	enum MHD_Result ret;

	if (id_ok(req->args[0]))
		rc = store(req)->ops->get_file(store(req), req->args[0], &gz, &len);
	if (rc == -ENOENT)
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no SSD result with that id");
	if (rc < 0)
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the file");
	snprintf(disp, sizeof(disp), "attachment; filename=\"result-%s.json.gz\"", req->args[0]);
	ret = reply_with(req, MHD_HTTP_OK, "application/gzip", gz, len, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
	free(gz);
	return ret;
}

/* "kinds": {"full": n, "quick": n}: how many results of each kind. */
static void add_kinds(cJSON *o, int full, int quick)
{
	cJSON *k = cJSON_AddObjectToObject(o, "kinds");

	cJSON_AddNumberToObject(k, ssd_kind_names[SSD_KIND_FULL], full);
	cJSON_AddNumberToObject(k, ssd_kind_names[SSD_KIND_QUICK], quick);
}

static cJSON *model_json(const struct ssd_model_summary *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", m->id);
	cJSON_AddStringToObject(o, "model", m->model);
	cJSON_AddNumberToObject(o, "submissions", m->submissions);
	cJSON_AddItemToObject(o, "fwrevs", string_array(m->fwrevs, '\n'));
	cJSON_AddItemToObject(o, "solutions", string_array(m->solutions, ' '));
	if (m->quick > 0) /* only then, so lists without quick benches read as before */
		add_kinds(o, m->submissions - m->quick, m->quick);
	return o;
}

/* The JSON size of o printed compactly, plus its comma; SIZE_MAX without memory. */
static size_t json_size(const cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);
	size_t n = text ? strlen(text) + 1 : SIZE_MAX;

	free(text);
	return n;
}

enum MHD_Result api_ssd_models(struct http_request *req)
{
	struct ssd_model_query mq = { .q = http_query(req, "q"), .limit = LIST_DEFAULT };
	struct ssd_model_summary *m = NULL;
	size_t n = 0, total = 0, sent = 0, used = 0;
	cJSON *doc, *arr;

	if (mq.q && strlen(mq.q) > QUERY_MAX)
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "q is longer than %d characters", QUERY_MAX);
	if (mq.q && !ssd_list_query_search_ok(mq.q))
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "q must be UTF-8 text without control characters");
	if (!ssd_list_query_count(http_query(req, "limit"), 1, LIST_MAX, &mq.limit))
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "limit must be a whole number from 1 to %d",
					LIST_MAX);
	if (!ssd_list_query_count(http_query(req, "offset"), 0, OFFSET_MAX, &mq.offset))
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "offset must be a whole number from 0 to %d",
					OFFSET_MAX);
	if (store(req)->ops->list_models(store(req), &mq, &m, &n, &total) < 0)
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot list models");
	doc = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(doc, "models");
	for (; arr && sent < n; sent++) {
		cJSON *o = model_json(&m[sent]);
		size_t size = json_size(o);

		/* At least one row, so a client following next_offset always moves on. */
		if (size == SIZE_MAX || (sent > 0 && used + size > LIST_BUDGET)) {
			cJSON_Delete(o);
			break;
		}
		used += size;
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddNumberToObject(doc, "total", (double)total);
	if (mq.offset + sent < total)
		cJSON_AddNumberToObject(doc, "next_offset", (double)(mq.offset + sent));
	else
		cJSON_AddNullToObject(doc, "next_offset");
	ssd_store_free_models(m, n);
	return http_reply_json(req, MHD_HTTP_OK, doc);
}

#define QUICK_NOTE                                                                                                     \
	"only quick benches (schedio bench): the io.cost model is the median of their measured parameters; no QoS "    \
	"was measured, so none is recommended (run resctl-bench for a tuned QoS)"
#define FULL_NOTE "recommended from the full resctl-bench results only; quick benches are listed but not used"
/* The quick benches' phases on a model page stop after this many bytes of JSON (a bench
 * is 200 KB at most), so a model with many quick benches still answers under 1 MiB. */
#define QUICK_DETAIL_BUDGET 500000

/* {"model": the six measured io.cost.model values, "qos": null} of a quick result. */
static cJSON *params_only(const struct ssd_result *r)
{
	cJSON *o = cJSON_CreateObject(), *m = cJSON_AddObjectToObject(o, "model");

	for (int i = 0; i < SSD_NPARAMS; i++)
		cJSON_AddNumberToObject(m, ssd_model_keys[i], r->params_model[i]);
	cJSON_AddNullToObject(o, "qos");
	return o;
}

/* Loads the results of the model named by the path (id or name) narrowed to fwrev
 * (may be NULL); on failure queues the reply and returns -1. */
static int load_model(struct http_request *req, const char *fwrev, struct ssd_result **res, size_t *n, size_t *total,
		      enum MHD_Result *ret)
{
	char id[SSD_MODEL_MAX + 1];
	size_t k = 0;

	*res = NULL;
	*n = *total = 0;
	if (strlen(req->args[0]) > SSD_MODEL_MAX || !ssd_name_ok(req->args[0])) {
		*ret = http_reply_error(req, MHD_HTTP_NOT_FOUND, "no SSD model with that id");
		return -1;
	}
	ssd_model_id(req->args[0], id);
	if (store(req)->ops->model_results(store(req), id, res, n) < 0) {
		*ret = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the model's results");
		return -1;
	}
	*total = *n;
	if (*n == 0) {
		*ret = http_reply_error(req, MHD_HTTP_NOT_FOUND, "no SSD model with that id");
		return -1;
	}
	for (size_t i = 0; fwrev && i < *n; i++)
		if (strcmp((*res)[i].fwrev, fwrev) == 0)
			(*res)[k++] = (*res)[i];
	if (fwrev && k == 0) {
		free(*res);
		*res = NULL;
		*ret = http_reply_error(req, MHD_HTTP_NOT_FOUND, "no results for this model with firmware '%s'", fwrev);
		return -1;
	}
	if (fwrev)
		*n = k;
	return 0;
}

enum MHD_Result api_ssd_model_get(struct http_request *req)
{
	const char *fwrev = http_query(req, "fwrev");
	struct ssd_recommendation *rec = calloc(1, sizeof(*rec));
	struct ssd_result *res = NULL;
	size_t n, total, detail_used = 0;
	int nquick = 0;
	char ver[32];
	cJSON *doc, *fw, *list;
	enum MHD_Result ret;

	if (!rec)
		return MHD_NO;
	if (fwrev && strlen(fwrev) > SSD_FWREV_MAX) {
		ret = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "fwrev is longer than %d characters", SSD_FWREV_MAX);
		goto out;
	}
	if (load_model(req, fwrev, &res, &n, &total, &ret) < 0)
		goto out;
	ssd_recommend(res, n, rec);
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "id", res[0].model_id);
	cJSON_AddStringToObject(doc, "model", res[0].model);
	cJSON_AddNumberToObject(doc, "submissions", (double)n);
	fw = cJSON_AddArrayToObject(doc, "fwrevs");
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= strcmp(res[i].fwrev, res[j].fwrev) == 0;
		if (!seen)
			cJSON_AddItemToArray(fw, cJSON_CreateString(res[i].fwrev));
	}
	for (size_t i = 0; i < n; i++)
		nquick += res[i].kind == SSD_KIND_QUICK;
	/* Each submission, for download links and per-submission charts. Kinds are named only
	 * where a quick bench is among them, so answers without one read as before. */
	list = cJSON_AddArrayToObject(doc, "results");
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "id", res[i].id);
		if (nquick)
			cJSON_AddStringToObject(o, "kind", ssd_kind_names[res[i].kind]);
		cJSON_AddStringToObject(o, "fwrev", res[i].fwrev);
		cJSON_AddStringToObject(o, "bench_version", res[i].bench_version);
		cJSON_AddBoolToObject(o, "merged", res[i].merged);
		cJSON_AddStringToObject(o, "kernel", res[i].kernel);
		cJSON_AddNumberToObject(o, "size_bytes", (double)res[i].size_bytes);
		if (res[i].kind == SSD_KIND_QUICK) {
			cJSON *full = ssd_result_to_json(&res[i]), *bench;

			/* phases and series while the answer stays small; GET the result for the rest */
			if (detail_used < QUICK_DETAIL_BUDGET)
				add_bench_detail(req, res[i].id, full);
			bench = cJSON_DetachItemFromObjectCaseSensitive(full, "bench");
			if (bench) {
				cJSON_AddItemToObject(o, "bench", bench);
				size_t size = json_size(bench);

				detail_used = size == SIZE_MAX ? QUICK_DETAIL_BUDGET : detail_used + size;
			}
			cJSON_AddItemToObject(o, "params", params_only(&res[i]));
			cJSON_Delete(full);
		}
		cJSON_AddItemToArray(list, o);
	}
	snprintf(ver, sizeof(ver), "%d.%d", rec->bench_major, rec->bench_minor);
	cJSON_AddStringToObject(doc, "bench_version", ver);
	cJSON_AddStringToObject(doc, "source", rec->from_merged ? "merged" : "raw");
	cJSON_AddItemToObject(doc, "recommended", ssd_recommend_to_json(rec));
	if (nquick) {
		add_kinds(doc, (int)n - nquick, nquick);
		cJSON_AddStringToObject(doc, "basis", ssd_kind_names[rec->quick ? SSD_KIND_QUICK : SSD_KIND_FULL]);
		cJSON_AddStringToObject(doc, "note", rec->quick ? QUICK_NOTE : FULL_NOTE);
	}
	ret = http_reply_json(req, MHD_HTTP_OK, doc);
out:
	free(res);
	free(rec);
	return ret;
}

enum MHD_Result api_ssd_model_config(struct http_request *req)
{
	const char *asked = http_query(req, "solution"), *dev = http_query(req, "dev");
	struct ssd_recommendation *rec = calloc(1, sizeof(*rec));
	const struct ssd_rec_solution *sol;
	struct ssd_result *res = NULL;
	size_t n, total;
	char text[1024];
	enum MHD_Result ret;
	int len;

	if (!rec)
		return MHD_NO;
	if (dev && !ssd_config_dev_ok(dev)) {
		ret = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "dev must be MAJ:MIN (e.g. 259:0)");
		goto out;
	}
	if (load_model(req, NULL, &res, &n, &total, &ret) < 0)
		goto out;
	ssd_recommend(res, n, rec);
	sol = ssd_recommend_pick(rec, asked);
	if (!sol) {
		ret = http_reply_error(req, MHD_HTTP_NOT_FOUND, "this model's results have no iocost-tune solution");
		goto out;
	}
	/* Without dev the lines carry a placeholder to replace with the disk's MAJ:MIN. */
	len = ssd_config_lines(sol, dev ? dev : "MAJ:MIN", text, sizeof(text));
	if (len < 0) {
		ret = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "configuration does not fit");
		goto out;
	}
	{
		/* A quick-only model gets its model line alone; X-Schedio-Basis says why there is no QoS. */
		const char *const headers[] = { "X-Schedio-Solution", sol->name, rec->quick ? "X-Schedio-Basis" : NULL,
						ssd_kind_names[SSD_KIND_QUICK], NULL };

		ret = reply_with_headers(req, MHD_HTTP_OK, "text/plain; charset=utf-8", text, (size_t)len, headers);
	}
out:
	free(res);
	free(rec);
	return ret;
}

enum MHD_Result api_ssd_hwdb(struct http_request *req)
{
	static const char head[] =
	    "# schedio: io.cost recommendations per SSD model and firmware, from submitted resctl-bench results.\n"
	    "# Install as /etc/udev/hwdb.d/90-schedio-iocost.hwdb, then run: systemd-hwdb update\n\n";
	struct ssd_recommendation *rec = calloc(1, sizeof(*rec));
	const char *only = http_query(req, "model");
	struct ssd_model_query all = { 0 };
	struct ssd_model_summary *m = NULL;
	struct ssd_result *res = NULL;
	size_t nm = 0, len = 0, cap = 0, total;
	char *buf = NULL;
	enum MHD_Result ret;
	int rc = rec ? 0 : -ENOMEM;

	/* ?model= narrows the file to one model (id or name), so a model page need not fetch
	 * every model's entries; an unknown model gets the head alone. */
	if (only && (strlen(only) > SSD_MODEL_MAX || !ssd_name_ok(only))) {
		free(rec);
		return http_reply_error(req, MHD_HTTP_BAD_REQUEST, "model is not a valid SSD model name or id");
	}
	if (!rc && only) {
		m = calloc(1, sizeof(*m));
		rc = m ? 0 : -ENOMEM;
		if (m) {
			ssd_model_id(only, m->id);
			nm = 1;
		}
	} else if (!rc) {
		rc = store(req)->ops->list_models(store(req), &all, &m, &nm, &total);
	}
	rc = rc ?: ((buf = strdup(head)) ? 0 : -ENOMEM);
	len = cap = buf ? strlen(buf) : 0;
	for (size_t i = 0; !rc && i < nm; i++) {
		size_t n = 0;

		rc = store(req)->ops->model_results(store(req), m[i].id, &res, &n);
		/* Where full results exist, a firmware with quick benches only gets no entry of its own. */
		n = rc ? 0 : ssd_recommend_deciding(res, n);
		/* One entry per firmware: the same model can perform differently after an update. */
		for (size_t a = 0; !rc && a < n; a++) {
			struct ssd_result *sub = NULL;
			size_t k = 0;
			bool seen = false;

			for (size_t b = 0; b < a; b++)
				seen |= strcmp(res[a].fwrev, res[b].fwrev) == 0;
			if (seen)
				continue;
			sub = malloc(n * sizeof(*sub));
			if (!sub) {
				rc = -ENOMEM;
				break;
			}
			for (size_t b = 0; b < n; b++)
				if (strcmp(res[a].fwrev, res[b].fwrev) == 0)
					sub[k++] = res[b];
			ssd_recommend(sub, k, rec);
			rc = ssd_config_hwdb_entry(res[a].model, res[a].fwrev, rec, &buf, &len, &cap);
			free(sub);
		}
		free(res);
		res = NULL;
	}
	if (rc)
		ret = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot build the hwdb file");
	else
		ret = reply_with(req, MHD_HTTP_OK, "text/plain; charset=utf-8", buf, len, NULL, NULL);
	ssd_store_free_models(m, nm);
	free(buf);
	free(rec);
	return ret;
}
