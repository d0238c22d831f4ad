/* api_sched_health.c - the issue-17 views: one host's sched_ext health, work
 * conservation per L3 domain and agent cost over time
 * (GET /api/v1/hosts/{id}/health), and the fleet's ejections and agent cost
 * against the budgets (GET /api/v1/fleet/health). Shapes follow the API
 * contract (notes: contract17).
 *
 * Both read the raw reports' health (store health_scan) and the exits table
 * (exits_scan) over [from, to): a report belongs to the range by its start,
 * an exit by its t_ms. The host view takes ?step like the runqlat routes
 * (query_range_parse: default ~200 points, from aligned down to the step)
 * and answers one point per step holding a report: its start_ms/end_ms the
 * earliest start and latest end of those reports, `reports` their number,
 * the counts (events, nr_rejected, L3 waits, agent cpu_ns and BPF runs)
 * summed, rss_bytes the latest report's (by start). A host's agent CPU share is its
 * cpu_ns summed over the reports that carried it, divided by the wall time
 * of those same reports' intervals (so a host that reported half the range
 * is not shown at half its cost); the BPF share likewise with the programs'
 * run_time_ns.
 */
#include "server/api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ingest/report_parse.h"
#include "server/series/query.h"
#include "server/store/store_pool.h"

/* BENCHMARKS.md's bounds on the agent (issue 6): under 0.1% of one core and 20 MiB resident. */
#define AGENT_BUDGET_CPU_SHARE 0.001
#define AGENT_BUDGET_RSS_BYTES (20LL * 1024 * 1024)

/* One scheduler of the range: reports name it in every interval it was loaded in, merged by (ops, enable_seq). */
struct sched_seen {
	char ops[REPORT_MAX_NAME + 1];
	int64_t enable_seq; /* -1: not reported */
	int64_t first_ms, last_ms;
	int partial; /* -1: not reported */
};

struct prog_sum {
	char name[REPORT_MAX_EVENT_NAME + 1];
	int64_t run_cnt, run_time_ns;
};

/* One point of the host view: the reports starting in one step of the range. */
struct bucket {
	int64_t start_ms, end_ms, reports;
	cJSON *events, *l3; /* summed per name / per CPU list; NULL: no report had them */
	bool has_rejected, has_cpu, has_bpf;
	int64_t nr_rejected, cpu_ns, bpf_run_cnt, bpf_run_time_ns;
	int64_t rss_bytes, rss_t; /* rss_t: start of the report rss_bytes is from, -1: none */
};

struct host_ctx {
	struct query_range qr;
	struct bucket *buckets; /* qr.points of them */
	struct sched_seen *sched;
	size_t nsched, capsched;
	struct prog_sum *progs;
	size_t nprogs, capprogs;
	bool oom;
};

static int64_t int_of(const cJSON *o, const char *name, int64_t dflt)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(it) ? (int64_t)it->valuedouble : dflt;
}

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	void *nv;

	if (n < *cap)
		return v;
	nv = realloc(v, (*cap ? *cap * 2 : 16) * size);
	if (nv)
		*cap = *cap ? *cap * 2 : 16;
	return nv;
}

static void merge_sched(struct host_ctx *c, const cJSON *s)
{
	const cJSON *ops = cJSON_GetObjectItemCaseSensitive(s, "ops"), *partial;
	int64_t seq = int_of(s, "enable_seq", -1), first = int_of(s, "first_ms", 0), last = int_of(s, "last_ms", 0);
	struct sched_seen *e = NULL, *nv;

	if (!cJSON_IsString(ops))
		return;
	for (size_t i = 0; i < c->nsched && !e; i++)
		if (c->sched[i].enable_seq == seq && strcmp(c->sched[i].ops, ops->valuestring) == 0)
			e = &c->sched[i];
	if (!e) {
		nv = grow(c->sched, &c->capsched, c->nsched, sizeof(*nv));
		if (!nv) {
			c->oom = true;
			return;
		}
		c->sched = nv;
		e = &c->sched[c->nsched++];
		snprintf(e->ops, sizeof(e->ops), "%s", ops->valuestring);
		e->enable_seq = seq;
		e->first_ms = first;
		e->last_ms = last;
		e->partial = -1;
	}
	if (first < e->first_ms)
		e->first_ms = first;
	if (last > e->last_ms)
		e->last_ms = last;
	partial = cJSON_GetObjectItemCaseSensitive(s, "partial");
	if (cJSON_IsBool(partial) && (e->partial < 1))
		e->partial = cJSON_IsTrue(partial);
}

static void add_prog(struct host_ctx *c, const cJSON *p, int64_t *cnt, int64_t *time)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
	int64_t n = int_of(p, "run_cnt", 0), t = int_of(p, "run_time_ns", 0);
	struct prog_sum *e = NULL, *nv;

	*cnt += n;
	*time += t;
	if (!cJSON_IsString(name))
		return;
	for (size_t i = 0; i < c->nprogs && !e; i++)
		if (strcmp(c->progs[i].name, name->valuestring) == 0)
			e = &c->progs[i];
	if (!e) {
		nv = grow(c->progs, &c->capprogs, c->nprogs, sizeof(*nv));
		if (!nv) {
			c->oom = true;
			return;
		}
		c->progs = nv;
		e = &c->progs[c->nprogs++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", name->valuestring);
	}
	e->run_cnt += n;
	e->run_time_ns += t;
}

/* Adds every number of src into the same-named number of dst (created when
 * absent); other members of src (an L3 domain's cpus) are left to the caller. */
static int sum_numbers(cJSON *dst, const cJSON *src)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, src)
	{
		cJSON *d;

		if (!cJSON_IsNumber(it) || !it->string)
			continue;
		d = cJSON_GetObjectItemCaseSensitive(dst, it->string);
		if (cJSON_IsNumber(d))
			cJSON_SetNumberValue(d, d->valuedouble + it->valuedouble);
		else if (!d && !cJSON_AddNumberToObject(dst, it->string, it->valuedouble))
			return -1;
	}
	return 0;
}

/* Adds a report's L3 domains into the bucket's, matched by their CPU list. */
static int sum_l3(struct bucket *b, const cJSON *l3)
{
	const cJSON *d;

	if (!b->l3 && !(b->l3 = cJSON_CreateArray()))
		return -1;
	cJSON_ArrayForEach(d, l3)
	{
		const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(d, "cpus");
		cJSON *e = NULL, *it;

		cJSON_ArrayForEach(it, b->l3)
		{
			if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(it, "cpus"), cpus, true) ||
			    (!cpus && !cJSON_GetObjectItemCaseSensitive(it, "cpus"))) {
				e = it;
				break;
			}
		}
		if (!e) {
			if (!(e = cJSON_CreateObject()))
				return -1;
			cJSON_AddItemToArray(b->l3, e);
			if (cpus && !cJSON_AddItemToObject(e, "cpus", cJSON_Duplicate(cpus, true)))
				return -1;
		}
		if (sum_numbers(e, d))
			return -1;
	}
	return 0;
}

/* One report into the step bucket its start falls in: its interval widens
 * the bucket's, its counts add up, its RSS replaces an older report's. */
static int add_report(void *arg, const struct store_health *h)
{
	struct host_ctx *c = arg;
	long i = query_point(&c->qr, h->start_ms);
	struct bucket *b;
	cJSON *doc;
	const cJSON *it, *agent;

	if (i < 0)
		return 0;
	b = &c->buckets[i];
	if (!b->reports++ || h->start_ms < b->start_ms)
		b->start_ms = h->start_ms;
	if (b->reports == 1 || h->end_ms > b->end_ms)
		b->end_ms = h->end_ms;
	doc = h->health ? cJSON_Parse(h->health) : NULL;
	if (!doc)
		return 0;
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "events")) &&
	    ((!b->events && !(b->events = cJSON_CreateObject())) || sum_numbers(b->events, it)))
		c->oom = true;
	if (cJSON_IsNumber(it = cJSON_GetObjectItemCaseSensitive(doc, "nr_rejected"))) {
		b->has_rejected = true;
		b->nr_rejected += (int64_t)it->valuedouble;
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(doc, "l3")) && sum_l3(b, it))
		c->oom = true;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "schedulers"))
	{
		merge_sched(c, it);
	}
	agent = cJSON_GetObjectItemCaseSensitive(doc, "agent");
	if (cJSON_IsNumber(it = cJSON_GetObjectItemCaseSensitive(agent, "cpu_ns"))) {
		b->has_cpu = true;
		b->cpu_ns += (int64_t)it->valuedouble;
	}
	if (cJSON_IsNumber(it = cJSON_GetObjectItemCaseSensitive(agent, "rss_bytes")) && h->start_ms >= b->rss_t) {
		b->rss_bytes = (int64_t)it->valuedouble;
		b->rss_t = h->start_ms;
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(agent, "bpf"))) {
		const cJSON *p;

		b->has_bpf = true;
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(it, "programs"))
		{
			add_prog(c, p, &b->bpf_run_cnt, &b->bpf_run_time_ns);
		}
	}
	cJSON_Delete(doc);
	return c->oom ? -1 : 0;
}

/* The buckets that hold a report, oldest first, as the answer's points
 * (takes the buckets' events and l3). */
static int put_points(struct host_ctx *c, cJSON *points)
{
	for (size_t i = 0; i < c->qr.points; i++) {
		struct bucket *b = &c->buckets[i];
		cJSON *pt, *a;

		if (!b->reports)
			continue;
		if (!(pt = cJSON_CreateObject()))
			return -1;
		cJSON_AddItemToArray(points, pt);
		cJSON_AddNumberToObject(pt, "start_ms", (double)b->start_ms);
		cJSON_AddNumberToObject(pt, "end_ms", (double)b->end_ms);
		cJSON_AddNumberToObject(pt, "reports", (double)b->reports);
		if (b->events)
			cJSON_AddItemToObject(pt, "events", b->events);
		b->events = NULL;
		if (b->has_rejected)
			cJSON_AddNumberToObject(pt, "nr_rejected", (double)b->nr_rejected);
		if (b->l3)
			cJSON_AddItemToObject(pt, "l3", b->l3);
		b->l3 = NULL;
		if (!b->has_cpu && b->rss_t < 0 && !b->has_bpf)
			continue;
		if (!(a = cJSON_AddObjectToObject(pt, "agent")))
			return -1;
		if (b->has_cpu)
			cJSON_AddNumberToObject(a, "cpu_ns", (double)b->cpu_ns);
		if (b->rss_t >= 0)
			cJSON_AddNumberToObject(a, "rss_bytes", (double)b->rss_bytes);
		if (b->has_bpf) {
			cJSON_AddNumberToObject(a, "bpf_run_time_ns", (double)b->bpf_run_time_ns);
			cJSON_AddNumberToObject(a, "bpf_run_cnt", (double)b->bpf_run_cnt);
		}
	}
	return 0;
}

static int add_exit(void *arg, const struct store_exit *e)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return -1;
	cJSON_AddStringToObject(o, "ops", e->ops ? e->ops : "");
	cJSON_AddNumberToObject(o, "t_ms", (double)e->t_ms);
	cJSON_AddStringToObject(o, "kind", e->kind ? e->kind : "");
	cJSON_AddStringToObject(o, "reason", e->reason ? e->reason : "");
	cJSON_AddStringToObject(o, "message", e->message ? e->message : "");
	cJSON_AddItemToArray(arg, o);
	return 0;
}

static int sched_cmp(const void *a, const void *b)
{
	const struct sched_seen *x = a, *y = b;

	if (x->first_ms != y->first_ms)
		return x->first_ms < y->first_ms ? -1 : 1;
	return x->enable_seq < y->enable_seq ? -1 : x->enable_seq > y->enable_seq;
}

static int prog_cmp(const void *a, const void *b)
{
	return strcmp(((const struct prog_sum *)a)->name, ((const struct prog_sum *)b)->name);
}

static void host_ctx_free(struct host_ctx *c)
{
	for (size_t i = 0; c->buckets && i < c->qr.points; i++) {
		cJSON_Delete(c->buckets[i].events);
		cJSON_Delete(c->buckets[i].l3);
	}
	free(c->buckets);
	free(c->sched);
	free(c->progs);
}

enum MHD_Result api_host_health(struct http_request *req)
{
	struct host_ctx c = { 0 };
	struct store *st;
	struct store_host h;
	enum MHD_Result reply;
	cJSON *doc, *sched, *exits, *points, *progs;
	int rc = -1;

	if (query_range_parse(req, &c.qr, &reply))
		return reply;
	c.buckets = calloc(c.qr.points, sizeof(*c.buckets));
	if (!c.buckets)
		return http_reply_error(req, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	for (size_t i = 0; i < c.qr.points; i++)
		c.buckets[i].rss_t = -1;
	st = store_pool_get(req->srv->readers);
	if (query_host(req, st, &h, &reply)) {
		store_pool_put(req->srv->readers, st);
		host_ctx_free(&c);
		return reply;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "host_id", h.machine_id);
	cJSON_AddNumberToObject(doc, "from", (double)c.qr.from);
	cJSON_AddNumberToObject(doc, "to", (double)c.qr.to);
	cJSON_AddNumberToObject(doc, "step_ms", (double)c.qr.step);
	sched = cJSON_AddArrayToObject(doc, "schedulers");
	exits = cJSON_AddArrayToObject(doc, "exits");
	points = cJSON_AddArrayToObject(doc, "points");
	progs = cJSON_AddArrayToObject(doc, "bpf_programs");
	if (points && sched && progs && exits)
		rc = st->ops->health_scan(st, h.id, c.qr.from, c.qr.to, add_report, &c);
	if (rc == 0)
		rc = st->ops->exits_scan(st, h.id, c.qr.from, c.qr.to, add_exit, exits);
	store_pool_put(req->srv->readers, st);
	query_host_free(&h);
	if (rc == 0)
		rc = put_points(&c, points);
	if (rc) {
		host_ctx_free(&c);
		cJSON_Delete(doc);
		return http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					c.oom ? "out of memory" : "database error");
	}
	if (c.nsched)
		qsort(c.sched, c.nsched, sizeof(*c.sched), sched_cmp);
	for (size_t i = 0; i < c.nsched; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToArray(sched, o);
		cJSON_AddStringToObject(o, "ops", c.sched[i].ops);
		if (c.sched[i].enable_seq >= 0)
			cJSON_AddNumberToObject(o, "enable_seq", (double)c.sched[i].enable_seq);
		cJSON_AddNumberToObject(o, "first_ms", (double)c.sched[i].first_ms);
		cJSON_AddNumberToObject(o, "last_ms", (double)c.sched[i].last_ms);
		if (c.sched[i].partial >= 0)
			cJSON_AddBoolToObject(o, "partial", c.sched[i].partial);
	}
	if (c.nprogs)
		qsort(c.progs, c.nprogs, sizeof(*c.progs), prog_cmp);
	for (size_t i = 0; i < c.nprogs; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToArray(progs, o);
		cJSON_AddStringToObject(o, "name", c.progs[i].name);
		cJSON_AddNumberToObject(o, "run_cnt", (double)c.progs[i].run_cnt);
		cJSON_AddNumberToObject(o, "run_time_ns", (double)c.progs[i].run_time_ns);
	}
	host_ctx_free(&c);
	return http_reply_json(req, MHD_HTTP_OK, doc);
}

/* One host of the fleet view. */
struct fleet_host {
	int64_t id;
	char *machine_id, *hostname;
	bool seen;
	int64_t cpu_ns, cpu_wall_ms, bpf_ns, bpf_wall_ms, rss,
	    rss_t; /* rss_t: start of the report rss is from, -1: none */
	bool has_cpu, has_bpf;
	int64_t ejections;
	cJSON *last_exit;
};

struct fleet_ctx {
	struct fleet_host *v;
	size_t n, cap;
	struct fleet_host **by_id; /* v sorted by id */
};

static int take_fleet_host(void *arg, const struct store_host *h)
{
	struct fleet_ctx *c = arg;
	struct fleet_host *nv = grow(c->v, &c->cap, c->n, sizeof(*nv)), *f;

	if (!nv)
		return -1;
	c->v = nv;
	f = &c->v[c->n++];
	memset(f, 0, sizeof(*f));
	f->id = h->id;
	f->rss_t = -1;
	f->machine_id = strdup(h->machine_id ? h->machine_id : "");
	f->hostname = strdup(h->hostname ? h->hostname : "");
	return f->machine_id && f->hostname ? 0 : -1;
}

static int id_cmp(const void *a, const void *b)
{
	const struct fleet_host *x = *(struct fleet_host *const *)a, *y = *(struct fleet_host *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct fleet_host *fleet_find(struct fleet_ctx *c, int64_t id)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->by_id[mid]->id == id)
			return c->by_id[mid];
		if (c->by_id[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int fleet_report(void *arg, const struct store_health *h)
{
	struct fleet_host *f = fleet_find(arg, h->host_id);
	const cJSON *agent, *it;
	cJSON *doc;

	if (!f)
		return 0; /* a host created after the host list was read */
	f->seen = true;
	doc = h->health ? cJSON_Parse(h->health) : NULL;
	agent = cJSON_GetObjectItemCaseSensitive(doc, "agent");
	if (!agent) {
		cJSON_Delete(doc);
		return 0;
	}
	if (cJSON_GetObjectItemCaseSensitive(agent, "cpu_ns")) {
		f->has_cpu = true;
		f->cpu_ns += int_of(agent, "cpu_ns", 0);
		f->cpu_wall_ms += h->end_ms - h->start_ms;
	}
	if (cJSON_GetObjectItemCaseSensitive(agent, "rss_bytes") && h->start_ms >= f->rss_t) {
		f->rss = int_of(agent, "rss_bytes", 0);
		f->rss_t = h->start_ms;
	}
	it = cJSON_GetObjectItemCaseSensitive(agent, "bpf");
	if (it) {
		const cJSON *p;

		f->has_bpf = true;
		f->bpf_wall_ms += h->end_ms - h->start_ms;
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(it, "programs"))
		{
			f->bpf_ns += int_of(p, "run_time_ns", 0);
		}
	}
	cJSON_Delete(doc);
	return 0;
}

static int fleet_exit(void *arg, const struct store_exit *e)
{
	struct fleet_host *f = fleet_find(arg, e->host_id);

	if (!f)
		return 0;
	f->seen = true;
	if (report_exit_is_ejection(e->kind))
		f->ejections++;
	/* By time within a host: the last one wins. */
	cJSON_Delete(f->last_exit);
	f->last_exit = cJSON_CreateObject();
	if (!f->last_exit)
		return -1;
	cJSON_AddStringToObject(f->last_exit, "ops", e->ops ? e->ops : "");
	cJSON_AddNumberToObject(f->last_exit, "t_ms", (double)e->t_ms);
	cJSON_AddStringToObject(f->last_exit, "kind", e->kind ? e->kind : "");
	cJSON_AddStringToObject(f->last_exit, "reason", e->reason ? e->reason : "");
	return 0;
}

static void add_share(cJSON *o, const char *key, bool has, int64_t ns, int64_t wall_ms, double *total)
{
	if (!has || wall_ms <= 0) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	cJSON_AddNumberToObject(o, key, (double)ns / ((double)wall_ms * 1e6));
	*total += (double)ns / ((double)wall_ms * 1e6);
}

enum MHD_Result api_fleet_health(struct http_request *req)
{
	struct fleet_ctx c = { 0 };
	struct store *st;
	enum MHD_Result reply;
	int64_t from, to, rss_total = 0, listed = 0;
	double cpu_total = 0, bpf_total = 0;
	cJSON *doc = NULL, *hosts, *o;
	int rc;

	if (query_from_to(req, &from, &to, &reply))
		return reply;
	st = store_pool_get(req->srv->readers);
	rc = st->ops->hosts(st, NULL, take_fleet_host, &c);
	c.by_id = rc == 0 && c.n ? calloc(c.n, sizeof(*c.by_id)) : NULL;
	if (c.by_id) {
		for (size_t i = 0; i < c.n; i++)
			c.by_id[i] = &c.v[i];
		qsort(c.by_id, c.n, sizeof(*c.by_id), id_cmp);
		rc = st->ops->health_scan(st, -1, from, to, fleet_report, &c);
		if (rc == 0)
			rc = st->ops->exits_scan(st, -1, from, to, fleet_exit, &c);
	} else if (c.n) {
		rc = -1;
	}
	store_pool_put(req->srv->readers, st);
	if (rc) {
		reply = http_reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
		goto out;
	}
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "from", (double)from);
	cJSON_AddNumberToObject(doc, "to", (double)to);
	hosts = cJSON_AddArrayToObject(doc, "hosts");
	for (size_t i = 0; i < c.n; i++) {
		struct fleet_host *f = &c.v[i];

		if (!f->seen)
			continue;
		listed++;
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(hosts, o);
		cJSON_AddStringToObject(o, "host_id", f->machine_id);
		cJSON_AddStringToObject(o, "hostname", f->hostname);
		cJSON_AddNumberToObject(o, "ejections", (double)f->ejections);
		cJSON_AddItemToObject(o, "last_exit", f->last_exit ? f->last_exit : cJSON_CreateNull());
		f->last_exit = NULL;
		add_share(o, "agent_cpu_share", f->has_cpu, f->cpu_ns, f->cpu_wall_ms, &cpu_total);
		if (f->rss_t >= 0) {
			cJSON_AddNumberToObject(o, "agent_rss_bytes", (double)f->rss);
			rss_total += f->rss;
		} else {
			cJSON_AddNullToObject(o, "agent_rss_bytes");
		}
		add_share(o, "bpf_cpu_share", f->has_bpf, f->bpf_ns, f->bpf_wall_ms, &bpf_total);
	}
	o = cJSON_AddObjectToObject(doc, "totals");
	cJSON_AddNumberToObject(o, "agent_cpu_cores", cpu_total);
	cJSON_AddNumberToObject(o, "agent_rss_bytes", (double)rss_total);
	cJSON_AddNumberToObject(o, "bpf_cpu_cores", bpf_total);
	cJSON_AddNumberToObject(o, "hosts", (double)listed);
	o = cJSON_AddObjectToObject(doc, "budgets");
	cJSON_AddNumberToObject(o, "agent_cpu_share", AGENT_BUDGET_CPU_SHARE);
	cJSON_AddNumberToObject(o, "agent_rss_bytes", (double)AGENT_BUDGET_RSS_BYTES);
	reply = http_reply_json(req, MHD_HTTP_OK, doc);
out:
	for (size_t i = 0; i < c.n; i++) {
		free(c.v[i].machine_id);
		free(c.v[i].hostname);
		cJSON_Delete(c.v[i].last_exit);
	}
	free(c.v);
	free(c.by_id);
	return reply;
}
