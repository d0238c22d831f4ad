/* api_experiments.c - saved experiments (issue 15): a named comparison
 * stored once (POST, admin), then answered anew whenever it is read: the
 * list carries each one's verdict now, GET /api/v1/experiments/{id} the
 * whole answer of GET /api/v1/compare for its definition (api_compare_answer,
 * so the two can never disagree) plus the definition. A definition is
 * checked completely (experiment.h) before anything is stored, so a refused
 * body leaves no trace; the store keeps it as canonical JSON.
 */
#include "server/api/api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/compare/experiment.h"
#include "server/http/auth.h"
#include "server/ingest/ingest.h"
#include "server/store/store_pool.h"

/* One stored experiment as read, owned. */
struct experiment_row {
	int64_t id, created_ms;
	char *name, *definition;
};

struct experiment_rows {
	struct experiment_row *v;
	size_t n, cap;
};

static void rows_free(struct experiment_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].definition);
	}
	free(r->v);
}

static int row_add(void *arg, const struct store_experiment *e)
{
	struct experiment_rows *r = arg;
	struct experiment_row *row;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct experiment_row *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	row = &r->v[r->n];
	row->id = e->id;
	row->created_ms = e->created_ms;
	row->name = strdup(e->name ? e->name : "");
	row->definition = strdup(e->definition ? e->definition : "");
	r->n++;
	return row->name && row->definition ? 0 : -ENOMEM;
}

/* Reads every experiment (id 0) or one into rows; 0, or -1 with the error reply queued. */
static int read_rows(struct http_request *req, int64_t id, struct experiment_rows *rows, enum MHD_Result *reply)
{
	struct store *st = store_pool_get(req->srv->readers);
	int rc = st->ops->experiments(st, id, row_add, rows);

	store_pool_put(req->srv->readers, st);
	if (rc == 0)
		return 0;
	*reply = rc == -ENOMEM ? http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory")
			       : http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the experiments");
	return -1;
}

/* {"id", name, a, b, metric, threshold, cgroup, window, "created_ms"}; NULL without memory. */
static cJSON *definition_json(const struct experiment_row *row, const struct experiment *e)
{
	cJSON *out = cJSON_CreateObject(), *def = experiment_to_json(e);

	if (!out || !def) {
		cJSON_Delete(out);
		cJSON_Delete(def);
		return NULL;
	}
	cJSON_AddNumberToObject(out, "id", (double)row->id);
	while (def->child) {
		cJSON *item = cJSON_DetachItemViaPointer(def, def->child);

		cJSON_AddItemToObject(out, item->string, item);
	}
	cJSON_AddNumberToObject(out, "created_ms", (double)row->created_ms);
	cJSON_Delete(def);
	return out;
}

/* {id} of the path: a positive integer, else 0 with a 400 queued. */
static int64_t path_id(struct http_request *req, enum MHD_Result *reply)
{
	const char *s = req->nargs > 0 ? req->args[0] : "";
	char *end;
	long long id;

	errno = 0;
	id = strtoll(s, &end, 10);
	if (*s < '1' || *s > '9' || *end || errno || id <= 0) {
		*reply = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "the experiment id must be a positive integer");
		return 0;
	}
	return id;
}

enum MHD_Result api_experiments_create(struct http_request *req)
{
	struct experiment *e = calloc(1, sizeof(*e));
	struct experiment_row row = { 0 };
	enum MHD_Result reply;
	cJSON *doc = NULL;
	char *text = NULL, err[480];
	struct store *st;
	int rc;

	if (!e)
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	if (!auth_require_strict(req, "admin", &reply))
		goto out;
	if (req->body_len > EXPERIMENT_BODY_MAX) {
		reply = http_reply_error(req, MHD_HTTP_CONTENT_TOO_LARGE,
					 "an experiment's definition is larger than the limit of %d bytes",
					 EXPERIMENT_BODY_MAX);
		goto out;
	}
	if (experiment_parse(req->body, req->body_len, e, err, sizeof(err))) {
		reply = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "%s", err);
		goto out;
	}
	doc = experiment_to_json(e);
	text = doc ? cJSON_PrintUnformatted(doc) : NULL;
	if (!text) {
		reply = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		goto out;
	}
	row.created_ms = ingest_now_ms();
	st = store_pool_get(req->srv->readers);
	rc = st->ops->experiment_put(st, e->name, text, row.created_ms, &row.id);
	store_pool_put(req->srv->readers, st);
	if (rc == 1) {
		reply = http_reply_error(req, MHD_HTTP_CONFLICT, "an experiment named '%s' exists already", e->name);
		goto out;
	}
	if (rc) {
		reply = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot store the experiment");
		goto out;
	}
	reply = http_reply_json(req, MHD_HTTP_CREATED, definition_json(&row, e));
out:
	free(text);
	cJSON_Delete(doc);
	free(e);
	return reply;
}

/* The stored definition of row, read back through the parser (windows at now); 0, or -1 with why. */
static int row_experiment(const struct experiment_row *row, struct experiment *e, int64_t now, char *err, size_t errlen)
{
	char why[400];

	if (experiment_parse(row->definition, strlen(row->definition), e, why, sizeof(why))) {
		snprintf(err, errlen, "experiment %lld's stored definition is not readable: %s", (long long)row->id,
			 why);
		return -1;
	}
	experiment_at(e, now);
	return 0;
}

/* One entry of the list: the definition, and the verdict, ratio, ci and summary of its answer now
 * (all null and "error" why when it has none). */
static cJSON *list_entry(struct server *srv, const struct experiment_row *row, struct experiment *e, int64_t now)
{
	static const char *const keep[] = { "verdict", "ratio", "ci", "summary" };
	cJSON *out, *answer = NULL;
	char err[480];
	int status = row_experiment(row, e, now, err, sizeof(err));

	out = status ? cJSON_CreateObject() : definition_json(row, e);
	if (!out)
		return NULL;
	if (status) {
		cJSON_AddNumberToObject(out, "id", (double)row->id);
		cJSON_AddStringToObject(out, "name", row->name);
		cJSON_AddNumberToObject(out, "created_ms", (double)row->created_ms);
	} else {
		status = api_compare_answer(srv, &e->q, &answer, err, sizeof(err));
	}
	for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++) {
		cJSON *v = answer ? cJSON_DetachItemFromObjectCaseSensitive(answer, keep[k]) : NULL;

		cJSON_AddItemToObject(out, keep[k], v ? v : cJSON_CreateNull());
	}
	if (status)
		cJSON_AddStringToObject(out, "error", err);
	cJSON_Delete(answer);
	return out;
}

enum MHD_Result api_experiments_list(struct http_request *req)
{
	struct experiment_rows rows = { 0 };
	struct experiment *e = calloc(1, sizeof(*e));
	cJSON *doc = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(doc, "experiments");
	int64_t now = ingest_now_ms();
	enum MHD_Result reply;

	if (!e || !list) {
		reply = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		goto out;
	}
	if (read_rows(req, 0, &rows, &reply))
		goto out;
	for (size_t i = 0; i < rows.n; i++) {
		cJSON *entry = list_entry(req->srv, &rows.v[i], e, now);

		if (!entry) {
			reply = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
			goto out;
		}
		cJSON_AddItemToArray(list, entry);
	}
	reply = http_reply_json(req, MHD_HTTP_OK, doc);
	doc = NULL;
out:
	cJSON_Delete(doc);
	rows_free(&rows);
	free(e);
	return reply;
}

enum MHD_Result api_experiment_get(struct http_request *req)
{
	struct experiment_rows rows = { 0 };
	struct experiment *e = NULL;
	enum MHD_Result reply;
	cJSON *doc = NULL, *def;
	char err[480];
	int64_t id = path_id(req, &reply);
	int status;

	if (!id)
		return reply;
	if (read_rows(req, id, &rows, &reply))
		goto out;
	if (rows.n == 0) {
		reply = http_reply_error(req, MHD_HTTP_NOT_FOUND, "no experiment %lld", (long long)id);
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		reply = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		goto out;
	}
	if (row_experiment(&rows.v[0], e, ingest_now_ms(), err, sizeof(err))) {
		reply = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err);
		goto out;
	}
	status = api_compare_answer(req->srv, &e->q, &doc, err, sizeof(err));
	if (status) {
		reply = http_reply_error(req, (unsigned)status, "%s", err);
		goto out;
	}
	def = definition_json(&rows.v[0], e);
	if (!def) {
		reply = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		goto out;
	}
	cJSON_AddItemToObject(doc, "experiment", def);
	reply = http_reply_json(req, MHD_HTTP_OK, doc);
	doc = NULL;
out:
	cJSON_Delete(doc);
	rows_free(&rows);
	free(e);
	return reply;
}

enum MHD_Result api_experiment_delete(struct http_request *req)
{
	enum MHD_Result reply;
	struct store *st;
	int64_t id;
	int rc;

	if (!auth_require_strict(req, "admin", &reply))
		return reply;
	id = path_id(req, &reply);
	if (!id)
		return reply;
	st = store_pool_get(req->srv->readers);
	rc = st->ops->experiment_delete(st, id);
	store_pool_put(req->srv->readers, st);
	if (rc == 1)
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no experiment %lld", (long long)id);
	if (rc)
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot delete the experiment");
	return http_reply(req, MHD_HTTP_NO_CONTENT, NULL, "", 0);
}
