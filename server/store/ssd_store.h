/* ssd_store.h - where the SSD database lives, behind a narrow interface: a
 * struct of operations, so the SQLite backend (ssd_store_sqlite.c) can be
 * joined by another (PostgreSQL) without touching the handlers. Every
 * operation is safe to call from several HTTP threads at once.
 */
#ifndef SCHEDIO_SERVER_STORE_SSD_STORE_H
#define SCHEDIO_SERVER_STORE_SSD_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "server/ssd/ssd_result.h"

/* One row of the model list. */
struct ssd_model_summary {
	char id[SSD_MODEL_MAX + 1];
	char model[SSD_MODEL_MAX + 1];
	int submissions; /* all results, of either kind */
	int quick;       /* of which quick benches (schedio.ssdbench.v1) */
	char *fwrevs;    /* '\n'-separated (malloc'd) */
	char *solutions; /* ' '-separated (malloc'd) */
};

/* Which models list_models answers: a search and one page of the matches. */
struct ssd_model_query {
	const char *q; /* substring to match; NULL or "" for every model */
	size_t limit;  /* rows at most; 0 for all (internal callers only) */
	size_t offset; /* matches to skip first */
};

struct ssd_store;

struct ssd_store_ops {
	/* Stores r and its original file (gzip); sets *duplicate when r->id exists (nothing
	 * written then). Returns 0 or -1 with the reason in err; all or nothing. */
	int (*put)(struct ssd_store *st, const struct ssd_result *r, const void *gz, size_t gz_len, bool *duplicate,
		   char *err, size_t errlen);
	/* Reads result id into out; 0, -ENOENT, or -EIO. */
	int (*get)(struct ssd_store *st, const char *id, struct ssd_result *out);
	/* Reads the original file of id (gzip, malloc'd); 0, -ENOENT, or -EIO. */
	int (*get_file)(struct ssd_store *st, const char *id, void **gz, size_t *len);
	/* One page of the models whose name, id or a firmware contains q->q (case-insensitive;
	 * all when NULL or empty), sorted by id (unique); *total counts every match. *out
	 * malloc'd, free with ssd_store_free_models. 0 or -EIO/-ENOMEM. */
	int (*list_models)(struct ssd_store *st, const struct ssd_model_query *q, struct ssd_model_summary **out,
			   size_t *n, size_t *total);
	/* All results of model_id (*out malloc'd, *n may be 0); 0 or -EIO/-ENOMEM. */
	int (*model_results)(struct ssd_store *st, const char *model_id, struct ssd_result **out, size_t *n);
	/* Releases the store. */
	void (*close)(struct ssd_store *st);
};

struct ssd_store {
	const struct ssd_store_ops *ops;
};

/* Opens the SQLite store on the (already migrated) database file path; NULL with err. */
struct ssd_store *ssd_store_sqlite_open(const char *path, char *err, size_t errlen);
/* Opens the PostgreSQL store on a (migrated) database; NULL with err. */
struct ssd_store *ssd_store_pg_open(const char *conninfo, char *err, size_t errlen);
/* Opens the SSD store of the backend db names (PostgreSQL for a conninfo, else SQLite); NULL with err. */
struct ssd_store *ssd_store_open(const char *db, char *err, size_t errlen);
/* The LIKE pattern (escape character backslash) matching q as a lower-cased literal substring;
 * NULL for an empty q, or without memory when q is not empty (malloc'd). */
char *ssd_store_like_pattern(const char *q);
/* Frees a model list from list_models. */
void ssd_store_free_models(struct ssd_model_summary *m, size_t n);

#endif /* SCHEDIO_SERVER_STORE_SSD_STORE_H */
