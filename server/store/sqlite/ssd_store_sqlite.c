/* ssd_store_sqlite.c - the SSD database in SQLite (schema/sqlite/0003_ssd.sql,
 * 0017_ssd_kind.sql).
 *
 * The store has its own connection (NOMUTEX) with its statements prepared
 * once, all used under its own mutex: a statement is never stepped by two
 * threads, and its transactions never interleave with another thread's
 * statements. Every statement is reset after use, so no read snapshot
 * outlives a call. A put is one IMMEDIATE transaction: the
 * result, its file and the model row change together or not at all, and the
 * duplicate check happens inside it, so two identical submissions racing
 * each other store one row and report the other as a duplicate.
 */
#include "server/store/ssd_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

#include "server/store/sqlite/sqlite_db.h"
#include "server/store/store_sql.h"

/* A search matches the name, the id (spaces as '_') or any firmware; ?1 is the
 * pattern from ssd_store_like_pattern (lower case), NULL for every model. SQLite's
 * LIKE ignores ASCII case by itself, so the columns need no lower(). */
#define SSD_SQLITE_MATCH                                                                                               \
	"(?1 IS NULL OR model LIKE ?1 ESCAPE '\\' OR id LIKE ?1 ESCAPE '\\' OR fwrevs LIKE ?1 ESCAPE '\\')"

enum ssd_sqlite_stmt {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_EXISTS,
	S_RESULT_INSERT,
	S_FILE_INSERT,
	S_MODEL_GET,
	S_MODEL_PUT,
	S_SUMMARY,
	S_FILE,
	S_LIST_MODELS,
	S_MODEL_RESULTS,
	S_COUNT
};

static const char *const sql[S_COUNT] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_EXISTS] = "SELECT 1 FROM ssd_results WHERE id = ?",
	[S_RESULT_INSERT] = "INSERT INTO ssd_results (id, model_id, model, fwrev, bench_major, bench_minor, merged, "
			    "summary, submitted_ms, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[S_FILE_INSERT] = STORE_SQL_SSD_FILE_INSERT,
	[S_MODEL_GET] = "SELECT submissions, fwrevs, solutions, quick FROM ssd_models WHERE id = ?",
	[S_MODEL_PUT] = "INSERT OR REPLACE INTO ssd_models (id, model, submissions, fwrevs, solutions, quick) "
			"VALUES (?, ?, ?, ?, ?, ?)",
	[S_SUMMARY] = STORE_SQL_SSD_SUMMARY,
	[S_FILE] = STORE_SQL_SSD_FILE,
	/* One statement, so the count and the page come from the same snapshot; the page is
	 * LEFT JOINed so an empty page still brings the count (one row with NULL columns). */
	[S_LIST_MODELS] =
	    "SELECT t.n, r.id, r.model, r.submissions, r.fwrevs, r.solutions, r.quick "
	    "FROM (SELECT count(*) AS n FROM ssd_models WHERE " SSD_SQLITE_MATCH ") t LEFT JOIN "
	    "(SELECT id, model, submissions, fwrevs, solutions, quick FROM ssd_models WHERE " SSD_SQLITE_MATCH
	    " ORDER BY id LIMIT ?2 OFFSET ?3) r ON 1 = 1 ORDER BY r.id",
	[S_MODEL_RESULTS] = "SELECT summary FROM ssd_results WHERE model_id = ? ORDER BY submitted_ms, id",
};

/* The statements are prepared once per connection and used only under lock. */
struct sqlite_store {
	struct ssd_store base; /* first, so a struct ssd_store * converts back */
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	pthread_mutex_t lock;
};

/* Statement which, its last use reset and unbound; call with the lock held. */
static sqlite3_stmt *stmt(struct sqlite_store *s, enum ssd_sqlite_stmt which)
{
	return sqlite_db_stmt(s->st[which]);
}

/* Steps statement which (bound already) to its end and resets it, so no
 * transaction or read snapshot stays open; 0 or -1. */
static int run(struct sqlite_store *s, enum ssd_sqlite_stmt which)
{
	sqlite3_stmt *st = s->st[which];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static struct sqlite_store *from(struct ssd_store *st)
{
	return (struct sqlite_store *)st;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted, de-duplicated union of the sep-separated set old and add[0..nadd), joined by sep. */
static char *set_union(const char *old, char sep, const char *const *add, int nadd)
{
	char *copy = strdup(old ? old : ""), **items = NULL, *out = NULL, *p;
	size_t n = 0, cap = (size_t)nadd + 1, total = 1;

	for (p = copy; p && *p; p++)
		cap += *p == sep;
	items = calloc(cap + 1, sizeof(*items));
	if (!copy || !items)
		goto out;
	for (p = copy; *p;) {
		char *e = strchr(p, sep);

		if (e)
			*e = '\0';
		items[n++] = p;
		if (!e)
			break;
		p = e + 1;
	}
	for (int i = 0; i < nadd; i++)
		items[n++] = (char *)add[i];
	qsort(items, n, sizeof(*items), cmp_str);
	for (size_t i = 0; i < n; i++)
		total += strlen(items[i]) + 1;
	out = malloc(total);
	if (!out)
		goto out;
	*out = '\0';
	p = out;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && strcmp(items[i], items[i - 1]) == 0)
			continue;
		if (p != out)
			*p++ = sep;
		p = stpcpy(p, items[i]);
	}
out:
	free(items);
	free(copy);
	return out;
}

static int update_model(struct sqlite_store *s, const struct ssd_result *r)
{
	const char *names[SSD_MAX_SOLUTIONS], *fw[1] = { r->fwrev };
	char *fwrevs = NULL, *sols = NULL;
	sqlite3_stmt *st = stmt(s, S_MODEL_GET);
	int subs = 0, quick = 0, rc = -1;

	for (int i = 0; i < r->nsolutions; i++)
		names[i] = r->solutions[i].name;
	sqlite3_bind_text(st, 1, r->model_id, -1, SQLITE_STATIC);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		subs = sqlite3_column_int(st, 0);
		quick = sqlite3_column_int(st, 3);
		fwrevs = set_union((const char *)sqlite3_column_text(st, 1), '\n', fw, 1);
		sols = set_union((const char *)sqlite3_column_text(st, 2), ' ', names, r->nsolutions);
		break;
	case SQLITE_DONE:
		fwrevs = set_union(NULL, '\n', fw, 1);
		sols = set_union(NULL, ' ', names, r->nsolutions);
		break;
	default:
		goto out;
	}
	sqlite3_reset(st);
	if (!fwrevs || !sols)
		goto out;
	st = stmt(s, S_MODEL_PUT);
	sqlite3_bind_text(st, 1, r->model_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->model, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, subs + 1);
	sqlite3_bind_text(st, 4, fwrevs, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, sols, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, quick + (r->kind == SSD_KIND_QUICK));
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
out:
	sqlite3_reset(st);
	free(fwrevs);
	free(sols);
	return rc;
}

static int insert_result(struct sqlite_store *s, const struct ssd_result *r, const char *summary, const void *gz,
			 size_t gz_len)
{
	sqlite3_stmt *st = stmt(s, S_RESULT_INSERT);

	sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->model_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->model, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->fwrev, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, r->bench_major);
	sqlite3_bind_int(st, 6, r->bench_minor);
	sqlite3_bind_int(st, 7, r->merged);
	sqlite3_bind_text(st, 8, summary, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, now_ms());
	sqlite3_bind_text(st, 10, ssd_kind_names[r->kind], -1, SQLITE_STATIC);
	if (run(s, S_RESULT_INSERT) < 0)
		return -1;
	st = stmt(s, S_FILE_INSERT);
	sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
	sqlite3_bind_blob64(st, 2, gz, gz_len, SQLITE_STATIC);
	return run(s, S_FILE_INSERT);
}

static int exists(struct sqlite_store *s, const char *id, bool *found)
{
	sqlite3_stmt *st = stmt(s, S_EXISTS);
	int rc;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*found = rc == SQLITE_ROW;
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int ssd_sqlite_put(struct ssd_store *base, const struct ssd_result *r, const void *gz, size_t gz_len,
			  bool *duplicate, char *err, size_t errlen)
{
	struct sqlite_store *s = from(base);
	cJSON *doc = ssd_result_to_json(r);
	char *summary = doc ? cJSON_PrintUnformatted(doc) : NULL;
	int rc = -1;

	*duplicate = false;
	pthread_mutex_lock(&s->lock);
	if (!summary) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (run(s, S_BEGIN) < 0) {
		snprintf(err, errlen, "database busy: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	if (exists(s, r->id, duplicate) < 0)
		goto rollback;
	if (*duplicate) {
		run(s, S_ROLLBACK);
		rc = 0;
		goto out;
	}
	if (insert_result(s, r, summary, gz, gz_len) < 0 || update_model(s, r) < 0 || run(s, S_COMMIT) < 0)
		goto rollback;
	rc = 0;
	goto out;
rollback:
	snprintf(err, errlen, "database error: %s", sqlite3_errmsg(s->db));
	run(s, S_ROLLBACK);
out:
	pthread_mutex_unlock(&s->lock);
	free(summary);
	cJSON_Delete(doc);
	return rc;
}

static int summary_to_result(const unsigned char *text, int len, struct ssd_result *out)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)text, (size_t)len);
	int rc = doc && ssd_result_from_json(doc, out) == 0 ? 0 : -EIO;

	cJSON_Delete(doc);
	return rc;
}

/* Looks id up with statement which (one row at most) under the lock; take reads the row.
 * take's return, -ENOENT, or -EIO. */
static int lookup(struct ssd_store *base, enum ssd_sqlite_stmt which, const char *id,
		  int (*take)(sqlite3_stmt *st, void *arg), void *arg)
{
	struct sqlite_store *s = from(base);
	sqlite3_stmt *st;
	int rc = -EIO;

	pthread_mutex_lock(&s->lock);
	st = stmt(s, which);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		rc = take(st, arg);
		break;
	case SQLITE_DONE:
		rc = -ENOENT;
		break;
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int take_summary(sqlite3_stmt *st, void *out)
{
	return summary_to_result(sqlite3_column_text(st, 0), sqlite3_column_bytes(st, 0), out);
}

struct file_out {
	void **gz;
	size_t *len;
};

static int take_file(sqlite3_stmt *st, void *arg)
{
	struct file_out *f = arg;

	*f->len = (size_t)sqlite3_column_bytes(st, 0);
	*f->gz = malloc(*f->len ? *f->len : 1);
	if (!*f->gz)
		return -ENOMEM;
	memcpy(*f->gz, sqlite3_column_blob(st, 0), *f->len);
	return 0;
}

static int ssd_sqlite_get(struct ssd_store *base, const char *id, struct ssd_result *out)
{
	return lookup(base, S_SUMMARY, id, take_summary, out);
}

static int ssd_sqlite_get_file(struct ssd_store *base, const char *id, void **gz, size_t *len)
{
	struct file_out f = { gz, len };

	*gz = NULL;
	*len = 0;
	return lookup(base, S_FILE, id, take_file, &f);
}

void ssd_store_free_models(struct ssd_model_summary *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++) {
		free(m[i].fwrevs);
		free(m[i].solutions);
	}
	free(m);
}

/* Copies the row's columns from col on into m; 0 or -ENOMEM. */
static int summary_from_row(sqlite3_stmt *st, int col, struct ssd_model_summary *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->id, sizeof(m->id), "%s", (const char *)sqlite3_column_text(st, col));
	snprintf(m->model, sizeof(m->model), "%s", (const char *)sqlite3_column_text(st, col + 1));
	m->submissions = sqlite3_column_int(st, col + 2);
	m->fwrevs = strdup((const char *)sqlite3_column_text(st, col + 3));
	m->solutions = strdup((const char *)sqlite3_column_text(st, col + 4));
	m->quick = sqlite3_column_int(st, col + 5);
	return m->fwrevs && m->solutions ? 0 : -ENOMEM;
}

static int ssd_sqlite_list_models(struct ssd_store *base, const struct ssd_model_query *q,
				  struct ssd_model_summary **out, size_t *n, size_t *total)
{
	struct sqlite_store *s = from(base);
	struct ssd_model_summary *list = NULL;
	char *pattern = ssd_store_like_pattern(q->q);
	size_t cap = q->limit ? q->limit : 64, count = 0;
	sqlite3_stmt *st = NULL;
	int rc = -ENOMEM, step;

	*total = 0;
	pthread_mutex_lock(&s->lock);
	if (q->q && *q->q && !pattern)
		goto out;
	rc = -EIO;
	st = stmt(s, S_LIST_MODELS);
	if (pattern)
		sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, q->limit ? (sqlite3_int64)q->limit : -1);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)q->offset);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		*total = (size_t)sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		if (!list || count == cap) {
			struct ssd_model_summary *nl = realloc(list, (list ? cap * 2 : cap) * sizeof(*list));

			if (!nl) {
				rc = -ENOMEM;
				goto out;
			}
			cap = list ? cap * 2 : cap;
			list = nl;
		}
		if (summary_from_row(st, 1, &list[count++]) < 0) {
			rc = -ENOMEM;
			goto out;
		}
	}
	if (step == SQLITE_DONE)
		rc = 0;
out:
	sqlite3_reset(st); /* no read snapshot stays open; NULL when never taken */
	pthread_mutex_unlock(&s->lock);
	free(pattern);
	if (rc) {
		ssd_store_free_models(list, count);
		list = NULL;
		count = 0;
		*total = 0;
	}
	*out = list;
	*n = count;
	return rc;
}

static int ssd_sqlite_model_results(struct ssd_store *base, const char *model_id, struct ssd_result **out, size_t *n)
{
	struct sqlite_store *s = from(base);
	struct ssd_result *list = NULL;
	size_t cap = 0, count = 0;
	sqlite3_stmt *st = NULL;
	int rc = -EIO, step;

	pthread_mutex_lock(&s->lock);
	st = stmt(s, S_MODEL_RESULTS);
	sqlite3_bind_text(st, 1, model_id, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			struct ssd_result *nl = realloc(list, (cap ? cap * 2 : 4) * sizeof(*list));

			if (!nl) {
				rc = -ENOMEM;
				goto out;
			}
			list = nl;
			cap = cap ? cap * 2 : 4;
		}
		if (summary_to_result(sqlite3_column_text(st, 0), sqlite3_column_bytes(st, 0), &list[count]) < 0)
			goto out;
		count++;
	}
	if (step == SQLITE_DONE)
		rc = 0;
out:
	sqlite3_reset(st); /* no read snapshot stays open; NULL when never taken */
	pthread_mutex_unlock(&s->lock);
	if (rc) {
		free(list);
		list = NULL;
		count = 0;
	}
	*out = list;
	*n = count;
	return rc;
}

static void ssd_sqlite_close(struct ssd_store *base)
{
	struct sqlite_store *s = from(base);

	if (!s)
		return;
	sqlite_db_close(s->db, s->st, S_COUNT);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static const struct ssd_store_ops sqlite_ops = {
	.put = ssd_sqlite_put,
	.get = ssd_sqlite_get,
	.get_file = ssd_sqlite_get_file,
	.list_models = ssd_sqlite_list_models,
	.model_results = ssd_sqlite_model_results,
	.close = ssd_sqlite_close,
};

struct ssd_store *ssd_store_sqlite_open(const char *path, char *err, size_t errlen)
{
	struct sqlite_store *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &sqlite_ops;
	pthread_mutex_init(&s->lock, NULL);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "SSD store: cannot open %s: %s", path,
			 s->db ? sqlite3_errmsg(s->db) : "no memory");
		ssd_sqlite_close(&s->base);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, 5000);
	if (sqlite3_exec(s->db, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; SELECT 1 FROM ssd_models LIMIT 0",
			 NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (sqlite_db_prepare_all(s->db, sql, S_COUNT, s->st) < 0)
		goto fail;
	return &s->base;
fail:
	snprintf(err, errlen, "SSD store: %s: %s", path, sqlite3_errmsg(s->db));
	ssd_sqlite_close(&s->base);
	return NULL;
}
