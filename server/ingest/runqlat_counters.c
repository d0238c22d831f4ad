/* runqlat_counters.c - see runqlat_counters.h.
 *
 * What a report costs at ingest: decoding its host_hist blob into one dense
 * histogram and folding that into 21 counts happen before the lock; under
 * the lock are a binary search for the host and 23 additions to the fleet's
 * and the host's counts. /metrics copies what it shows under the lock and
 * formats it after, so a scrape of thousands of hosts never holds ingest up
 * for longer than a copy. Hosts are kept sorted by id, so the output order
 * is stable.
 */
#include "server/api/prom_text.h"
#include "server/ingest/runqlat_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ingest/report_parse.h"
#include "server/series/runqlat_set.h"

#define NB (RUNQLAT_COUNTERS_BOUNDS + 1) /* the bounds and +Inf */

const double runqlat_counters_le[RUNQLAT_COUNTERS_BOUNDS] = {
	1e-6,   2.5e-6, 5e-6, 1e-5,   2.5e-5, 5e-5, 1e-4,   2.5e-4, 5e-4, 1e-3,
	2.5e-3, 5e-3,   1e-2, 2.5e-2, 5e-2,   1e-1, 2.5e-1, 5e-1,   1,    2.5,
};

struct counts {
	uint64_t n[NB]; /* per exported bucket, not cumulative */
	uint64_t sum_ns;
};

struct host_counts {
	char id[REPORT_MAX_ID + 1];
	char hostname[REPORT_MAX_HOSTNAME + 1];
	int64_t end_ms; /* the latest end_ms of its reports */
	struct counts c;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct counts fleet;
static struct host_counts **hosts;
static size_t nhosts, caphosts;

static pthread_once_t fold_once = PTHREAD_ONCE_INIT;
static uint8_t fold_to[HIST_BUCKETS]; /* the exported bucket of each layout bucket */

static void fold_init(void)
{
	uint32_t idx = 0;

	for (size_t i = 0; i < RUNQLAT_COUNTERS_BOUNDS; i++)
		for (; idx < HIST_BUCKETS && (double)hist_bucket_value(idx) <= runqlat_counters_le[i] * 1e9; idx++)
			fold_to[idx] = (uint8_t)i;
	for (; idx < HIST_BUCKETS; idx++)
		fold_to[idx] = RUNQLAT_COUNTERS_BOUNDS;
}

void runqlat_counters_fold(const uint64_t *buckets, uint64_t out[RUNQLAT_COUNTERS_BOUNDS + 1])
{
	pthread_once(&fold_once, fold_init);
	memset(out, 0, NB * sizeof(*out));
	for (uint32_t idx = 0; idx < HIST_BUCKETS; idx++)
		out[fold_to[idx]] += buckets[idx];
}

/* The host's entry, created in sorted place; NULL when the table is full or out of memory. */
static struct host_counts *host_get(const char *id)
{
	size_t lo = 0, hi = nhosts;
	struct host_counts *h;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(hosts[mid]->id, id);

		if (c == 0)
			return hosts[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (nhosts >= RUNQLAT_COUNTERS_MAX_HOSTS || strlen(id) > REPORT_MAX_ID)
		return NULL;
	if (nhosts == caphosts) {
		size_t cap = caphosts ? caphosts * 2 : 64;
		struct host_counts **nv = realloc(hosts, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		hosts = nv;
		caphosts = cap;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	snprintf(h->id, sizeof(h->id), "%s", id);
	h->end_ms = INT64_MIN;
	memmove(&hosts[lo + 1], &hosts[lo], (nhosts - lo) * sizeof(*hosts));
	hosts[lo] = h;
	nhosts++;
	return h;
}

static void counts_add(struct counts *dst, const struct counts *src)
{
	for (size_t i = 0; i < NB; i++)
		dst->n[i] += src->n[i];
	dst->sum_ns += src->sum_ns;
}

int runqlat_counters_add(const char *machine_id, const char *hostname, int64_t end_ms, const void *host_hist,
			 size_t len)
{
	struct runqlat_hist *h = calloc(1, sizeof(*h));
	struct host_counts *hc;
	struct counts add = { 0 };
	int rc;

	if (!h)
		return -ENOMEM;
	rc = runqlat_hist_add_blob(h, host_hist, len, runqlat_set_want_host, NULL);
	if (rc)
		goto out;
	runqlat_counters_fold(h->hist.buckets, add.n);
	add.sum_ns = h->hist.sum_ns;

	pthread_mutex_lock(&mu);
	counts_add(&fleet, &add);
	hc = host_get(machine_id);
	if (hc) {
		counts_add(&hc->c, &add);
		/* A replayed older report counts, but does not make the host look current. */
		if (end_ms >= hc->end_ms) {
			hc->end_ms = end_ms;
			snprintf(hc->hostname, sizeof(hc->hostname), "%s", hostname ? hostname : "");
		}
	}
	pthread_mutex_unlock(&mu);
out:
	free(h);
	return rc;
}

/* One histogram's samples; labels is "" or `name="value",` pairs each ending in a comma. */
static void write_hist(struct prom_out *w, const char *name, const char *labels, const struct counts *c)
{
	uint64_t cum = 0;
	size_t ll = strlen(labels);

	for (size_t i = 0; i < RUNQLAT_COUNTERS_BOUNDS; i++) {
		cum += c->n[i];
		prom_printf(w, "%s_bucket{%sle=\"%g\"} %" PRIu64 "\n", name, labels, runqlat_counters_le[i], cum);
	}
	cum += c->n[RUNQLAT_COUNTERS_BOUNDS];
	prom_printf(w, "%s_bucket{%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, cum);
	/* The sum printed exactly from nanoseconds, so it never steps back through rounding. */
	prom_printf(w, "%s_sum%s%.*s%s %" PRIu64 ".%09" PRIu64 "\n", name, ll ? "{" : "", (int)(ll ? ll - 1 : 0),
		    labels, ll ? "}" : "", c->sum_ns / 1000000000u, c->sum_ns % 1000000000u);
	prom_printf(w, "%s_count%s%.*s%s %" PRIu64 "\n", name, ll ? "{" : "", (int)(ll ? ll - 1 : 0), labels,
		    ll ? "}" : "", cum);
}

int runqlat_counters_write(void (*out)(void *arg, const char *text, size_t len), void *arg, bool per_host,
			   int64_t since_ms)
{
	struct prom_out w = { out, arg };
	struct host_counts *snap = NULL;
	struct counts f;
	size_t n = 0;
	int rc = 0;

	pthread_mutex_lock(&mu);
	f = fleet;
	if (per_host && nhosts) {
		snap = malloc(nhosts * sizeof(*snap));
		if (!snap)
			rc = -ENOMEM;
		for (size_t i = 0; snap && i < nhosts; i++)
			if (hosts[i]->end_ms >= since_ms)
				snap[n++] = *hosts[i];
	}
	pthread_mutex_unlock(&mu);

	prom_printf(
	    &w, "# HELP schedio_fleet_runqlat_seconds Runqueue latency of every host, summed over the reports stored "
		"since the server started.\n# TYPE schedio_fleet_runqlat_seconds histogram\n");
	write_hist(&w, "schedio_fleet_runqlat_seconds", "", &f);
	if (per_host) {
		prom_printf(
		    &w,
		    "# HELP schedio_runqlat_seconds Runqueue latency of each host heard from in the last hour, summed "
		    "over its reports stored since the server started.\n"
		    "# TYPE schedio_runqlat_seconds histogram\n");
		for (size_t i = 0; i < n; i++) {
			char host[2 * REPORT_MAX_HOSTNAME + 1], id[2 * REPORT_MAX_ID + 1];
			char labels[sizeof(host) + sizeof(id) + 32];

			prom_escape(host, sizeof(host), snap[i].hostname);
			prom_escape(id, sizeof(id), snap[i].id);
			snprintf(labels, sizeof(labels), "host=\"%s\",id=\"%s\",", host, id);
			write_hist(&w, "schedio_runqlat_seconds", labels, &snap[i].c);
		}
	}
	free(snap);
	return rc;
}

void runqlat_counters_reset(void)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
	hosts = NULL;
	nhosts = caphosts = 0;
	memset(&fleet, 0, sizeof(fleet));
	pthread_mutex_unlock(&mu);
}
