/* query.h - what the query handlers share: the from/to/step contract of the
 * API, the choice of storage level for a step, reading a range across levels
 * (rolled-up buckets where they exist, finer rows after the rollup marks),
 * and finding a host by its id. */
#ifndef SCHEDIO_SERVER_SERIES_QUERY_H
#define SCHEDIO_SERVER_SERIES_QUERY_H

#include <stdint.h>

#include "server/http/http.h"
#include "server/store/store.h"

#define QUERY_MAX_POINTS 2000

struct query_range {
	int64_t from, to, step; /* from is aligned down to step */
	enum store_level lv;    /* the coarsest level whose buckets fit the step */
	size_t points;
};

/* The query parameters of a range (NULL when absent) and what they default against. */
struct query_args {
	const char *from, *to, *step;
	int64_t now;              /* ms since the epoch */
	const int64_t *retain_ms; /* per store_level: older data exists only at coarser levels */
};

/* The pure part of query_range_parse; returns 0, or -1 with the reason in *why. */
int query_range_args(const struct query_args *a, struct query_range *qr, const char **why);
/* The pure part of query_from_to; returns 0, or -1 with the reason in *why. */
int query_from_to_args(const char *from, const char *to, int64_t now, int64_t *from_ms, int64_t *to_ms,
		       const char **why);
/* Parses ?from&to&step (defaults: the last hour, ~200 points, never finer than
 * what is stored for that age); returns 0, or -1 with a 400 queued in *reply. */
int query_range_parse(struct http_request *req, struct query_range *qr, enum MHD_Result *reply);
/* Parses ?from&to alone (default: the last hour); returns 0, or -1 with a 400 queued. */
int query_from_to(struct http_request *req, int64_t *from, int64_t *to, enum MHD_Result *reply);
/* Rows of host (all hosts when < 0) starting in [from, to) at level lv, with
 * finer levels filling in after the rollup marks; with hist_only the rows
 * carry only host_hist (store scan_hist). */
int query_scan(struct server *srv, struct store *st, enum store_level lv, int64_t host, int64_t from, int64_t to,
	       bool hist_only, store_row_fn fn, void *arg);
/* Looks up host req->args[0] into *h (own copies of its strings; free with
 * query_host_free); returns 0, or -1 with 404 queued. */
int query_host(struct http_request *req, struct store *st, struct store_host *h, enum MHD_Result *reply);
/* Frees the strings query_host copied. */
void query_host_free(struct store_host *h);
/* Index of the point a row starting at t falls in, or -1 outside the range. */
long query_point(const struct query_range *qr, int64_t t);

#endif /* SCHEDIO_SERVER_SERIES_QUERY_H */
