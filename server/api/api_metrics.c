/* api_metrics.c - GET /metrics in the Prometheus text format: the server's
 * own counters; runqueue latency as histograms that only grow (the fleet's,
 * and each host's under --metrics-per-host; runqlat_counters.c); and per host
 * iocost usage vs hweight per cgroup of its latest report (gauges).
 *
 * Cardinality is bounded on purpose: hosts not heard from for an hour are
 * left out, at most METRICS_MAX_HOSTS hosts and METRICS_MAX_CGROUPS cgroups
 * per disk are shown (the rest counted in schedio_metrics_series_dropped),
 * and the 528-bucket layout is folded into 20 fixed bounds.
 * The sched_ext health, per-L3 and agent cost counters (issue 17) come from
 * health_stats.c, each family only once some report carried it.
 * schedio_host_labels (issue 15) is an info metric, 1 for each shown host
 * with labels, each label K as label_K, to join on host_id in queries.
 */
#include "server/api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "server/api/prom_text.h"
#include "server/ingest/health_stats.h"
#include "server/ingest/ingest.h"
#include "server/ingest/runqlat_counters.h"
#include "server/series/iocost_set.h"
#include "server/store/store_pool.h"

#define METRICS_MAX_HOSTS 5000
#define METRICS_MAX_CGROUPS 64
#define METRICS_RECENT_MS 3600000LL

/* Appends raw bytes (blob_put_str would add a length prefix). */
static void append(struct blob *b, const void *p, size_t n)
{
	if (b->oom || n == 0)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		uint8_t *np;

		while (cap < b->len + n + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* health_stats_write's output callback. */
static void append_text(void *arg, const char *text, size_t len)
{
	append(arg, text, len);
}

/* A label value is cut to 200 bytes (prom_escape keeps 3 back for an escape and the NUL). */
#define LABEL_MAX 203

/* Appends one formatted line to blob b (prom_text.h). */
#define outf(b, ...) prom_printf(&(const struct prom_out){ append_text, (b) }, __VA_ARGS__)

/* A histogram of the server's own, in seconds. */
static void own_hist(struct blob *b, const char *name, const char *help, struct stats_hist *h)
{
	uint64_t cum = 0;

	outf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (int i = 0; i <= STATS_LATENCY_BUCKETS; i++) {
		cum += atomic_load(&h->bucket[i]);
		if (i < STATS_LATENCY_BUCKETS)
			outf(b, "%s_bucket{le=\"%g\"} %llu\n", name, stats_latency_le[i], (unsigned long long)cum);
		else
			outf(b, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
	}
	outf(b, "%s_sum %.6f\n%s_count %llu\n", name, (double)atomic_load(&h->sum_us) / 1e6, name,
	     (unsigned long long)atomic_load(&h->count));
}

static void own_metrics(struct blob *b, struct server *srv, struct store *st, size_t hosts)
{
	struct stats *s = &srv->stats;

	outf(b,
	     "# HELP schedio_reports_accepted_total Agent reports stored.\n"
	     "# TYPE schedio_reports_accepted_total counter\nschedio_reports_accepted_total %llu\n",
	     (unsigned long long)atomic_load(&s->accepted));
	outf(b,
	     "# HELP schedio_reports_duplicate_total Reports received again and not stored twice.\n"
	     "# TYPE schedio_reports_duplicate_total counter\nschedio_reports_duplicate_total %llu\n",
	     (unsigned long long)atomic_load(&s->duplicates));
	outf(b,
	     "# HELP schedio_agent_reports_dropped_total Reports agents dropped from full spools, as the "
	     "reports stored since the server started say (delivery.dropped).\n"
	     "# TYPE schedio_agent_reports_dropped_total counter\nschedio_agent_reports_dropped_total %llu\n",
	     (unsigned long long)atomic_load(&s->agent_dropped));
	outf(b,
	     "# HELP schedio_agent_restarts_total Agents that came back with a new incarnation and a lower seq "
	     "(state folder lost: reinstall, re-imaged disk), as the reports stored since the server started say.\n"
	     "# TYPE schedio_agent_restarts_total counter\nschedio_agent_restarts_total %llu\n",
	     (unsigned long long)atomic_load(&s->agent_restarts));
	outf(b, "# HELP schedio_reports_rejected_total Reports refused, by reason.\n"
		"# TYPE schedio_reports_rejected_total counter\n");
	for (int r = 0; r < STATS_REJECT_REASONS; r++)
		outf(b, "schedio_reports_rejected_total{reason=\"%s\"} %llu\n", stats_reject_name(r),
		     (unsigned long long)atomic_load(&s->rejected[r]));
	outf(b, "# HELP schedio_ingest_shed_total Reports refused with 503 and Retry-After because they could not be "
		"stored within --ingest-max-wait, by reason (also in "
		"schedio_reports_rejected_total{reason=\"unavailable\"}).\n"
		"# TYPE schedio_ingest_shed_total counter\n");
	for (int r = 0; r < STATS_SHED_REASONS; r++)
		outf(b, "schedio_ingest_shed_total{reason=\"%s\"} %llu\n", stats_shed_name(r),
		     (unsigned long long)atomic_load(&s->shed[r]));
	outf(b,
	     "# HELP schedio_ingest_queue_reports Reports parsed and waiting for the database writer.\n"
	     "# TYPE schedio_ingest_queue_reports gauge\nschedio_ingest_queue_reports %zu\n",
	     srv->ingest ? ingest_queued(srv->ingest) : 0);
	own_hist(b, "schedio_ingest_latency_seconds", "Time from a report's arrival to its answer (after commit).",
		 &s->latency);
	own_hist(
	    b, "schedio_ingest_commit_seconds",
	    "Time the ingest writer took to store and commit one batch of reports (a slow one holds up the batches "
	    "behind it).",
	    &s->commit);
	outf(b,
	     "# HELP schedio_ingest_batches_total Writer transactions committed.\n"
	     "# TYPE schedio_ingest_batches_total counter\nschedio_ingest_batches_total %llu\n",
	     (unsigned long long)atomic_load(&s->batches));
	outf(b,
	     "# HELP schedio_database_size_bytes Size of the SQLite database.\n"
	     "# TYPE schedio_database_size_bytes gauge\nschedio_database_size_bytes %lld\n",
	     (long long)st->ops->size_bytes(st));
	outf(b, "# HELP schedio_hosts Hosts known to the server.\n# TYPE schedio_hosts gauge\nschedio_hosts %zu\n",
	     hosts);
}

struct mctx {
	struct store *st;
	struct blob io, labels;
	int64_t now;
	size_t hosts, shown, dropped;
	char host[LABEL_MAX], id[LABEL_MAX];
};

static int latest_row(void *arg, const struct store_row *r)
{
	struct mctx *c = arg;
	struct iocost_set io = { 0 };
	size_t per_dev = 0;
	const char *dev = NULL;

	if (!r->iocost || iocost_set_add_blob(&io, r->iocost, r->iocost_len) < 0)
		goto out;
	for (size_t i = 0; i < io.n; i++) {
		const struct iocost_row *row = io.v[i];
		static const struct {
			const char *name;
			int f;
		} fields[] = {
			{ "usage_pct", IOCOST_USAGE },
			{ "hweight_active_pct", IOCOST_HWEIGHT_ACTIVE },
			{ "hweight_inuse_pct", IOCOST_HWEIGHT_INUSE },
			{ "weight", IOCOST_WEIGHT },
		};
		char edev[LABEL_MAX], path[LABEL_MAX];
		double v;

		prom_escape(edev, sizeof(edev), row->dev);
		if (row->kind == IOCOST_DISK) {
			if (iocost_row_value(row, IOCOST_VRATE, &v))
				outf(&c->io, "schedio_iocost_vrate_pct{host=\"%s\",id=\"%s\",dev=\"%s\"} %g\n", c->host,
				     c->id, edev, v);
			continue;
		}
		if (!dev || strcmp(dev, row->dev) != 0) {
			dev = row->dev;
			per_dev = 0;
		}
		if (++per_dev > METRICS_MAX_CGROUPS) {
			c->dropped++;
			continue;
		}
		prom_escape(path, sizeof(path), row->path);
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
			if (iocost_row_value(row, fields[f].f, &v))
				outf(&c->io, "schedio_iocost_%s{host=\"%s\",id=\"%s\",dev=\"%s\",cgroup=\"%s\"} %g\n",
				     fields[f].name, c->host, c->id, edev, path, v);
	}
out:
	iocost_set_free(&io);
	return 1; /* only the latest row */
}

/* schedio_host_labels{host_id="ID",label_K="V",...} 1: keys are already valid metric label
 * names after the label_ prefix, and values hold no '"', '\\' or newline (common/labels.h). */
static void label_info(struct blob *b, const char *id, const char *labels)
{
	outf(b, "schedio_host_labels{host_id=\"%s\"", id);
	for (const char *p = labels; *p;) {
		size_t n = strcspn(p, ","), k = strcspn(p, "=");

		if (k < n)
			outf(b, ",label_%.*s=\"%.*s\"", (int)k, p, (int)(n - k - 1), p + k + 1);
		p += n + (p[n] == ',');
	}
	outf(b, "} 1\n");
}

static int metrics_host(void *arg, const struct store_host *h)
{
	struct mctx *c = arg;

	c->hosts++;
	if (c->now - h->last_end_ms > METRICS_RECENT_MS)
		return 0;
	if (c->shown >= METRICS_MAX_HOSTS) {
		c->dropped++;
		return 0;
	}
	c->shown++;
	prom_escape(c->host, sizeof(c->host), h->hostname);
	prom_escape(c->id, sizeof(c->id), h->machine_id);
	if (h->labels && *h->labels)
		label_info(&c->labels, c->id, h->labels);
	return c->st->ops->latest(c->st, h->id, latest_row, c) < 0 ? -1 : 0;
}

enum MHD_Result api_metrics(struct http_request *req)
{
	struct mctx c = { .now = ingest_now_ms() };
	struct blob out = { 0 };
	enum MHD_Result ret;
	int rc;

	c.st = store_pool_get(req->srv->readers);
	rc = c.st->ops->hosts(c.st, NULL, metrics_host, &c);
	own_metrics(&out, req->srv, c.st, c.hosts);
	store_pool_put(req->srv->readers, c.st);
	if (rc == 0)
		rc = runqlat_counters_write(append_text, &out, req->srv->opt.metrics_per_host,
					    c.now - METRICS_RECENT_MS);
	outf(&out, "# HELP schedio_iocost_usage_pct IO usage of a cgroup (percent of the device, latest report).\n"
		   "# TYPE schedio_iocost_usage_pct gauge\n"
		   "# HELP schedio_iocost_hweight_inuse_pct Hierarchical weight in use (percent).\n"
		   "# TYPE schedio_iocost_hweight_inuse_pct gauge\n"
		   "# HELP schedio_iocost_hweight_active_pct Hierarchical weight when active (percent).\n"
		   "# TYPE schedio_iocost_hweight_active_pct gauge\n"
		   "# HELP schedio_iocost_weight Configured io.weight.\n# TYPE schedio_iocost_weight gauge\n"
		   "# HELP schedio_iocost_vrate_pct Device vrate (percent).\n# TYPE schedio_iocost_vrate_pct gauge\n");
	append(&out, c.io.p, c.io.len);
	if (c.labels.len) {
		outf(&out, "# HELP schedio_host_labels The labels of each host (its latest report's host.labels).\n"
			   "# TYPE schedio_host_labels gauge\n");
		append(&out, c.labels.p, c.labels.len);
	}
	health_stats_write(append_text, &out);
	outf(&out,
	     "# HELP schedio_metrics_series_dropped Hosts or cgroups left out to bound cardinality.\n"
	     "# TYPE schedio_metrics_series_dropped gauge\nschedio_metrics_series_dropped %zu\n",
	     c.dropped);
	blob_free(&c.io);
	blob_free(&c.labels);
	if (rc < 0 || out.oom) {
		blob_free(&out);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "metrics unavailable");
	}
	ret = http_reply(req, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", out.p, out.len);
	blob_free(&out);
	return ret;
}
