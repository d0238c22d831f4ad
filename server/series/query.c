/* query.c - see query.h. */
#include "server/series/query.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/ingest/ingest.h"
#include "server/series/rollup.h"

static const int64_t nice_steps[] = {
	1000,   2000,    5000,    10000,   15000,    30000,    60000,    120000,   300000,    600000,
	900000, 1800000, 3600000, 7200000, 10800000, 21600000, 43200000, 86400000, 172800000, 604800000,
};

#define QUERY_STR_(x) #x
#define QUERY_STR(x) QUERY_STR_(x)

/* 1 when s is absent (the caller's default stays), 0 parsed, -1 malformed. */
static int parse_ms(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return 1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0 || v > INT64_MAX / 4)
		return -1;
	*out = v;
	return 0;
}

int query_from_to_args(const char *from_s, const char *to_s, int64_t now, int64_t *from, int64_t *to, const char **why)
{
	int rf, rt;

	*to = now;
	rt = parse_ms(to_s, to);
	*from = *to - STORE_HOUR_MS;
	rf = parse_ms(from_s, from);
	if (rf < 0 || rt < 0) {
		*why = "from and to must be non-negative integers (ms)";
		return -1;
	}
	if (*from < 0)
		*from = 0;
	if (*to <= *from) {
		*why = "to must be after from";
		return -1;
	}
	return 0;
}

int query_from_to(struct http_request *req, int64_t *from, int64_t *to, enum MHD_Result *reply)
{
	const char *why;

	if (query_from_to_args(http_query(req, "from"), http_query(req, "to"), ingest_now_ms(), from, to, &why)) {
		*reply = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "%s", why);
		return -1;
	}
	return 0;
}

int query_range_args(const struct query_args *a, struct query_range *qr, const char **why)
{
	int64_t min_step = 1, w;

	qr->step = 0;
	if (query_from_to_args(a->from, a->to, a->now, &qr->from, &qr->to, why))
		return -1;
	if (parse_ms(a->step, &qr->step) < 0) {
		*why = "step must be a non-negative integer (ms)";
		return -1;
	}
	/* Older data exists only at coarser levels. */
	if (qr->from < a->now - a->retain_ms[STORE_MINUTE])
		min_step = STORE_HOUR_MS;
	else if (qr->from < a->now - a->retain_ms[STORE_RAW])
		min_step = STORE_MINUTE_MS;
	if (qr->step == 0) {
		int64_t want = (qr->to - qr->from) / 200;
		size_t i = 0;

		while (i + 1 < sizeof(nice_steps) / sizeof(nice_steps[0]) && nice_steps[i] < want)
			i++;
		qr->step = nice_steps[i];
	}
	if (qr->step < min_step)
		qr->step = min_step;
	qr->lv = qr->step >= STORE_HOUR_MS ? STORE_HOUR : qr->step >= STORE_MINUTE_MS ? STORE_MINUTE : STORE_RAW;
	/* Buckets of a level must not straddle two points. */
	w = qr->lv == STORE_HOUR ? STORE_HOUR_MS : qr->lv == STORE_MINUTE ? STORE_MINUTE_MS : 1;
	qr->step = (qr->step + w - 1) / w * w;
	qr->from -= qr->from % qr->step;
	if ((qr->to - qr->from) / qr->step >= QUERY_MAX_POINTS) {
		*why = "more than " QUERY_STR(QUERY_MAX_POINTS) " points: use a larger step";
		return -1;
	}
	qr->points = (size_t)((qr->to - qr->from + qr->step - 1) / qr->step);
	return 0;
}

int query_range_parse(struct http_request *req, struct query_range *qr, enum MHD_Result *reply)
{
	struct query_args a = {
		.from = http_query(req, "from"),
		.to = http_query(req, "to"),
		.step = http_query(req, "step"),
		.now = ingest_now_ms(),
		.retain_ms = req->srv->opt.retain_ms,
	};
	const char *why;

	if (query_range_args(&a, qr, &why)) {
		*reply = http_reply_error(req, MHD_HTTP_BAD_REQUEST, "%s", why);
		return -1;
	}
	return 0;
}

long query_point(const struct query_range *qr, int64_t t)
{
	if (t < qr->from || t >= qr->to)
		return -1;
	return (long)((t - qr->from) / qr->step);
}

int query_scan(struct server *srv, struct store *st, enum store_level lv, int64_t host, int64_t from, int64_t to,
	       bool hist_only, store_row_fn fn, void *arg)
{
	int64_t lo = from;

	for (int l = lv; l >= STORE_RAW; l--) {
		int64_t hi = to;
		int rc;

		if (l > STORE_RAW && srv->rollup) {
			int64_t mark = atomic_load(&srv->rollup->mark[l]);

			if (mark < hi)
				hi = mark;
		}
		if (hi > lo) {
			rc = (hist_only ? st->ops->scan_hist : st->ops->scan)(st, l, host, lo, hi, fn, arg);
			if (rc)
				return rc;
			lo = hi;
		}
		if (lo >= to)
			break;
	}
	return 0;
}

#define HOST_STRINGS(h)                                                                                                \
	&(h)->machine_id, &(h)->hostname, &(h)->kernel, &(h)->arch, &(h)->l3_json, &(h)->disks_json,                   \
	    &(h)->sched_state, &(h)->sched_ops, &(h)->agent_version, &(h)->labels

/* The row's strings die with the statement, so the copy owns its own. */
static int take_host(void *arg, const struct store_host *src)
{
	struct store_host *h = arg;
	const char **fields[] = { HOST_STRINGS(h) };

	*h = *src;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (*fields[i])
			*fields[i] = strdup(*fields[i]);
	return 1;
}

void query_host_free(struct store_host *h)
{
	const char **fields[] = { HOST_STRINGS(h) };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		free((char *)*fields[i]);
	memset(h, 0, sizeof(*h));
}

int query_host(struct http_request *req, struct store *st, struct store_host *h, enum MHD_Result *reply)
{
	memset(h, 0, sizeof(*h));
	if (req->nargs < 1 || st->ops->hosts(st, req->args[0], take_host, h) != 1) {
		query_host_free(h);
		*reply = http_reply_error(req, MHD_HTTP_NOT_FOUND, "no such host");
		return -1;
	}
	if (!h->machine_id || !h->hostname) {
		query_host_free(h);
		*reply = http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		return -1;
	}
	return 0;
}
