/* ssd_store_pg.c - the SSD database in PostgreSQL (schema/postgresql/0003, 0017).
 *
 * One connection behind a mutex, as the SQLite store. A put is one
 * transaction: the result row goes in with ON CONFLICT (id) DO NOTHING, so
 * of two identical submissions racing through different servers one stores
 * and the other sees a duplicate; the model row is merged in SQL (ON
 * CONFLICT DO UPDATE), so concurrent results of one model never lose a count.
 * The merged sets are sorted bytewise (COLLATE "C") and de-duplicated
 * exactly as the SQLite store's set_union does.
 */
#include "server/store/ssd_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/store/pg/pg_conn.h"
#include "server/store/store_sql.h"

struct pg_ssd {
	struct ssd_store base;
	PGconn *c;
	pthread_mutex_t lock;
};

enum { S_INSERT, S_FILE, S_MODEL, S_GET, S_GET_FILE, S_LIST, S_RESULTS, S_COUNT };

/* The sorted distinct union of a sep-separated set, as text ('' when empty). */
#define SET_UNION(arr, sep)                                                                                            \
	"(SELECT coalesce(string_agg(DISTINCT x COLLATE \"C\", " sep                                                   \
	" ORDER BY x COLLATE \"C\"), '') FROM unnest(" arr ") x)"

/* A search matches the name, the id or any firmware; $1 NULL matches every model. */
#define PG_MATCH                                                                                                       \
	"($1::text IS NULL OR lower(model) LIKE $1::text ESCAPE '\\' OR lower(id) LIKE $1::text ESCAPE '\\' "          \
	"OR lower(fwrevs) LIKE $1::text ESCAPE '\\')"

static const char *const sql[S_COUNT] = {
	[S_INSERT] =
	    "INSERT INTO ssd_results (id, model_id, model, fwrev, bench_major, bench_minor, merged, summary, "
	    "submitted_ms, kind) VALUES ($1::text, $2::text, $3::text, $4::text, $5::bigint, $6::bigint, $7::bigint, "
	    "$8::text, $9::bigint, $10::text) ON CONFLICT (id) DO NOTHING RETURNING 1::bigint",
	[S_FILE] = STORE_SQL_SSD_FILE_INSERT,
	[S_MODEL] =
	    "INSERT INTO ssd_models (id, model, submissions, fwrevs, solutions, quick) VALUES ($1::text, $2::text, 1, "
	    "$3::text, " SET_UNION(
		"string_to_array($4::text, ' ')",
		"' '") ", $5::bigint) "
		       "ON CONFLICT (id) DO UPDATE SET model = EXCLUDED.model, submissions = ssd_models.submissions + "
		       "1, quick = ssd_models.quick + EXCLUDED.quick, "
		       "fwrevs = " SET_UNION(
			   "string_to_array(ssd_models.fwrevs, E'\\n') || string_to_array($3::text, E'\\n')",
			   "E'\\n'") ", "
				     "solutions = " SET_UNION(
					 "string_to_array(ssd_models.solutions, ' ') || string_to_array($4::text, ' ')",
					 "' '"),
	[S_GET] = STORE_SQL_SSD_SUMMARY,
	[S_GET_FILE] = STORE_SQL_SSD_FILE,
	/* As the SQLite store: count and page in one statement (one snapshot), the page LEFT
	 * JOINed so an empty page still brings the count; $1 from ssd_store_like_pattern. */
	[S_LIST] = "SELECT t.n, r.id, r.model, r.submissions, r.fwrevs, r.solutions, r.quick "
		   "FROM (SELECT count(*)::bigint AS n FROM ssd_models WHERE " PG_MATCH ") t LEFT JOIN "
		   "(SELECT id, model, submissions, fwrevs, solutions, quick FROM ssd_models WHERE " PG_MATCH
		   " ORDER BY id COLLATE \"C\" LIMIT NULLIF($2::bigint, 0) OFFSET $3::bigint) r ON true "
		   "ORDER BY r.id COLLATE \"C\"",
	[S_RESULTS] =
	    "SELECT summary FROM ssd_results WHERE model_id = $1::text ORDER BY submitted_ms, id COLLATE \"C\"",
};
static const char *const names[S_COUNT] = { "s_insert",   "s_file", "s_model",  "s_get",
					    "s_get_file", "s_list", "s_results" };

static struct pg_ssd *from(struct ssd_store *st)
{
	return (struct pg_ssd *)st;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Inserts r's rows inside the open transaction; 0 stored, 1 duplicate, -1 error. */
static int insert(struct pg_ssd *s, const struct ssd_result *r, const char *summary, const void *gz, size_t gz_len)
{
	struct pg_params p = { 0 }, f = { 0 }, m = { 0 };
	char sols[SSD_MAX_SOLUTIONS * (SSD_SOLUTION_NAME_MAX + 1) + 1] = "";
	PGresult *res;
	bool dup;

	pg_p_text(&p, r->id);
	pg_p_text(&p, r->model_id);
	pg_p_text(&p, r->model);
	pg_p_text(&p, r->fwrev);
	pg_p_int(&p, r->bench_major);
	pg_p_int(&p, r->bench_minor);
	pg_p_int(&p, r->merged);
	pg_p_text(&p, summary);
	pg_p_int(&p, now_ms());
	pg_p_text(&p, ssd_kind_names[r->kind]);
	res = pg_run(s->c, names[S_INSERT], &p);
	if (!res)
		return -1;
	dup = PQntuples(res) == 0;
	PQclear(res);
	if (dup)
		return 1;
	pg_p_text(&f, r->id);
	pg_p_blob(&f, gz, gz_len, true);
	res = pg_run(s->c, names[S_FILE], &f);
	if (!res)
		return -1;
	PQclear(res);
	for (int i = 0; i < r->nsolutions; i++) {
		if (i)
			strcat(sols, " ");
		strcat(sols, r->solutions[i].name);
	}
	pg_p_text(&m, r->model_id);
	pg_p_text(&m, r->model);
	pg_p_text(&m, r->fwrev);
	pg_p_text(&m, sols);
	pg_p_int(&m, r->kind == SSD_KIND_QUICK);
	res = pg_run(s->c, names[S_MODEL], &m);
	if (!res)
		return -1;
	PQclear(res);
	return 0;
}

static int pg_put(struct ssd_store *base, const struct ssd_result *r, const void *gz, size_t gz_len, bool *duplicate,
		  char *err, size_t errlen)
{
	struct pg_ssd *s = from(base);
	cJSON *doc = ssd_result_to_json(r);
	char *summary = doc ? cJSON_PrintUnformatted(doc) : NULL;
	int rc = -1, ins;

	*duplicate = false;
	pthread_mutex_lock(&s->lock);
	if (!summary) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (pg_revive(s->c, names, sql, S_COUNT) < 0 || pg_exec(s->c, "BEGIN") < 0)
		goto dberr;
	ins = insert(s, r, summary, gz, gz_len);
	if (ins < 0)
		goto rollback;
	if (ins == 1) {
		*duplicate = true;
		pg_exec(s->c, "ROLLBACK");
		rc = 0;
		goto out;
	}
	if (pg_exec(s->c, "COMMIT") < 0)
		goto rollback;
	rc = 0;
	goto out;
rollback:
	snprintf(err, errlen, "database error: %s", PQerrorMessage(s->c));
	pg_exec(s->c, "ROLLBACK");
	goto out;
dberr:
	snprintf(err, errlen, "database error: %s", PQerrorMessage(s->c));
out:
	pthread_mutex_unlock(&s->lock);
	free(summary);
	cJSON_Delete(doc);
	return rc;
}

/* Runs query which with p under the lock; NULL on error. */
static PGresult *query(struct pg_ssd *s, int which, const struct pg_params *p)
{
	PGresult *r;

	pthread_mutex_lock(&s->lock);
	r = pg_revive(s->c, names, sql, S_COUNT) < 0 ? NULL : pg_run(s->c, names[which], p);
	/* Reads are idempotent: one more try on a connection dropped while idle. */
	if (!r && PQstatus(s->c) != CONNECTION_OK && pg_revive(s->c, names, sql, S_COUNT) >= 0)
		r = pg_run(s->c, names[which], p);
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* Runs a one-text-parameter query under the lock; NULL on error. */
static PGresult *query1(struct pg_ssd *s, int which, const char *arg)
{
	struct pg_params p = { 0 };

	pg_p_text(&p, arg);
	return query(s, which, &p);
}

static int summary_to_result(const char *text, int len, struct ssd_result *out)
{
	cJSON *doc = cJSON_ParseWithLength(text, (size_t)len);
	int rc = doc && ssd_result_from_json(doc, out) == 0 ? 0 : -EIO;

	cJSON_Delete(doc);
	return rc;
}

static int pg_get(struct ssd_store *base, const char *id, struct ssd_result *out)
{
	PGresult *r = query1(from(base), S_GET, id);
	int rc;

	if (!r)
		return -EIO;
	rc = PQntuples(r) ? summary_to_result(PQgetvalue(r, 0, 0), PQgetlength(r, 0, 0), out) : -ENOENT;
	PQclear(r);
	return rc;
}

static int pg_get_file(struct ssd_store *base, const char *id, void **gz, size_t *len)
{
	PGresult *r = query1(from(base), S_GET_FILE, id);
	int rc = -ENOENT;

	*gz = NULL;
	*len = 0;
	if (!r)
		return -EIO;
	if (PQntuples(r)) {
		*len = (size_t)PQgetlength(r, 0, 0);
		*gz = malloc(*len ? *len : 1);
		rc = *gz ? 0 : -ENOMEM;
		if (*gz)
			memcpy(*gz, PQgetvalue(r, 0, 0), *len);
		else
			*len = 0;
	}
	PQclear(r);
	return rc;
}

static int pg_list_models(struct ssd_store *base, const struct ssd_model_query *q, struct ssd_model_summary **out,
			  size_t *n, size_t *total)
{
	char *pattern = ssd_store_like_pattern(q->q);
	struct ssd_model_summary *list = NULL;
	struct pg_params p = { 0 };
	size_t count = 0;
	PGresult *r;
	int rc = 0;

	*out = NULL;
	*n = *total = 0;
	if (q->q && *q->q && !pattern)
		return -ENOMEM;
	pg_p_text(&p, pattern);
	pg_p_int(&p, (int64_t)q->limit);
	pg_p_int(&p, (int64_t)q->offset);
	r = query(from(base), S_LIST, &p);
	free(pattern);
	if (!r)
		return -EIO;
	if (PQntuples(r)) {
		list = calloc((size_t)PQntuples(r), sizeof(*list));
		if (!list)
			rc = -ENOMEM;
	}
	for (int i = 0; rc == 0 && i < PQntuples(r); i++) {
		struct ssd_model_summary *m;

		*total = (size_t)pg_int(r, i, 0);
		if (PQgetisnull(r, i, 1))
			continue;
		m = &list[count++];
		snprintf(m->id, sizeof(m->id), "%s", pg_text(r, i, 1));
		snprintf(m->model, sizeof(m->model), "%s", pg_text(r, i, 2));
		m->submissions = (int)pg_int(r, i, 3);
		m->fwrevs = strdup(pg_text(r, i, 4));
		m->solutions = strdup(pg_text(r, i, 5));
		m->quick = (int)pg_int(r, i, 6);
		if (!m->fwrevs || !m->solutions)
			rc = -ENOMEM;
	}
	PQclear(r);
	if (rc) {
		ssd_store_free_models(list, count);
		*total = 0;
		return rc;
	}
	*out = list;
	*n = count;
	return 0;
}

static int pg_model_results(struct ssd_store *base, const char *model_id, struct ssd_result **out, size_t *n)
{
	PGresult *r = query1(from(base), S_RESULTS, model_id);
	struct ssd_result *list = NULL;
	int rc = 0, rows;

	*out = NULL;
	*n = 0;
	if (!r)
		return -EIO;
	rows = PQntuples(r);
	if (rows) {
		list = calloc((size_t)rows, sizeof(*list));
		if (!list)
			rc = -ENOMEM;
	}
	for (int i = 0; rc == 0 && i < rows; i++)
		rc = summary_to_result(PQgetvalue(r, i, 0), PQgetlength(r, i, 0), &list[i]);
	PQclear(r);
	if (rc) {
		free(list);
		return rc;
	}
	*out = list;
	*n = (size_t)rows;
	return 0;
}

static void pg_close(struct ssd_store *base)
{
	struct pg_ssd *s = from(base);

	if (!s)
		return;
	PQfinish(s->c);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct ssd_store_ops pg_ops = {
	.put = pg_put,
	.get = pg_get,
	.get_file = pg_get_file,
	.list_models = pg_list_models,
	.model_results = pg_model_results,
	.close = pg_close,
};

struct ssd_store *ssd_store_pg_open(const char *conninfo, char *err, size_t errlen)
{
	struct pg_ssd *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &pg_ops;
	pthread_mutex_init(&s->lock, NULL);
	s->c = pg_connect(conninfo, err, errlen);
	if (!s->c || pg_prepare_all(s->c, names, sql, S_COUNT, err, errlen) < 0) {
		pg_close(&s->base);
		return NULL;
	}
	return &s->base;
}
