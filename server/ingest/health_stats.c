/* health_stats.c - see health_stats.h. One mutex guards the table: adding
 * a report is a few dozen additions, and /metrics holds it only while it
 * prints. Hosts are kept sorted by id (binary search), so the output order
 * is stable. Per host, names (events, BPF programs) are few (the report
 * allows 64 of each), so they are searched linearly; at most
 * NAMES_PER_HOST distinct ones are kept per host, so a host that renames
 * its programs forever cannot grow the table without bound.
 */
#include "server/api/prom_text.h"
#include "server/ingest/health_stats.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "server/ingest/report_parse.h"

#define NAMES_PER_HOST 256
#define NKINDS REPORT_EXIT_KINDS

struct named {
	char name[REPORT_MAX_EVENT_NAME + 1];
	uint64_t a, b; /* events: a = count; BPF programs: a = run_time_ns, b = run_cnt */
};

struct names {
	struct named *v;
	size_t n, cap;
};

struct l3_sum {
	uint64_t wait_ns, idle_wait_ns;
};

struct host {
	char *id;
	bool has_rejected, has_exits, has_cpu, has_rss;
	uint64_t rejected, cpu_ns, exits[NKINDS];
	int64_t rss, rss_t; /* rss_t: start_ms of the report rss is from */
	struct names events, progs;
	struct l3_sum *l3;
	size_t nl3;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct host **hosts;
static size_t nhosts, caphosts;

/* The host's entry, created in sorted place; NULL when the table is full or out of memory. */
static struct host *host_get(const char *id)
{
	size_t lo = 0, hi = nhosts;
	struct host *h;

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
	if (nhosts >= HEALTH_STATS_MAX_HOSTS)
		return NULL;
	if (nhosts == caphosts) {
		size_t cap = caphosts ? caphosts * 2 : 64;
		struct host **nv = realloc(hosts, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		hosts = nv;
		caphosts = cap;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->id = strdup(id))) {
		free(h);
		return NULL;
	}
	memmove(&hosts[lo + 1], &hosts[lo], (nhosts - lo) * sizeof(*hosts));
	hosts[lo] = h;
	nhosts++;
	return h;
}

static struct named *name_get(struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i].name, name) == 0)
			return &ns->v[i];
	if (ns->n >= NAMES_PER_HOST || strlen(name) > REPORT_MAX_EVENT_NAME)
		return NULL;
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 16;
		struct named *nv = realloc(ns->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		ns->v = nv;
		ns->cap = cap;
	}
	memset(&ns->v[ns->n], 0, sizeof(ns->v[ns->n]));
	snprintf(ns->v[ns->n].name, sizeof(ns->v[ns->n].name), "%s", name);
	return &ns->v[ns->n++];
}

/* A count report_parse has checked (an integer 0..2^53); 0 when absent. */
static uint64_t count_of(const cJSON *o, const char *name)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(it) && it->valuedouble > 0 ? (uint64_t)it->valuedouble : 0;
}

static void add_health(struct host *h, int64_t start_ms, const cJSON *doc)
{
	const cJSON *it, *agent = cJSON_GetObjectItemCaseSensitive(doc, "agent");
	const cJSON *progs =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(agent, "bpf"), "programs");
	const cJSON *l3 = cJSON_GetObjectItemCaseSensitive(doc, "l3");
	size_t i = 0;

	if (cJSON_GetObjectItemCaseSensitive(doc, "nr_rejected")) {
		h->has_rejected = true;
		h->rejected += count_of(doc, "nr_rejected");
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "events"))
	{
		struct named *n = name_get(&h->events, it->string);

		if (n && cJSON_IsNumber(it))
			n->a += (uint64_t)it->valuedouble;
	}
	if (cJSON_GetObjectItemCaseSensitive(agent, "cpu_ns")) {
		h->has_cpu = true;
		h->cpu_ns += count_of(agent, "cpu_ns");
	}
	if (cJSON_GetObjectItemCaseSensitive(agent, "rss_bytes") && (!h->has_rss || start_ms >= h->rss_t)) {
		h->has_rss = true;
		h->rss = (int64_t)count_of(agent, "rss_bytes");
		h->rss_t = start_ms;
	}
	cJSON_ArrayForEach(it, progs)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
		struct named *n = cJSON_IsString(name) ? name_get(&h->progs, name->valuestring) : NULL;

		if (n) {
			n->a += count_of(it, "run_time_ns");
			n->b += count_of(it, "run_cnt");
		}
	}
	if ((size_t)cJSON_GetArraySize(l3) > h->nl3) {
		struct l3_sum *nv = realloc(h->l3, (size_t)cJSON_GetArraySize(l3) * sizeof(*nv));

		if (!nv)
			return;
		memset(&nv[h->nl3], 0, ((size_t)cJSON_GetArraySize(l3) - h->nl3) * sizeof(*nv));
		h->l3 = nv;
		h->nl3 = (size_t)cJSON_GetArraySize(l3);
	}
	cJSON_ArrayForEach(it, l3)
	{
		h->l3[i].wait_ns += count_of(it, "wait_ns");
		h->l3[i].idle_wait_ns += count_of(it, "idle_sibling_wait_ns");
		i++;
	}
}

void health_stats_add(const char *machine_id, int64_t start_ms, const char *health_json, const char *exits_json)
{
	cJSON *doc = health_json ? cJSON_Parse(health_json) : NULL;
	cJSON *exits = exits_json ? cJSON_Parse(exits_json) : NULL, *it;
	struct host *h;

	if (!doc && !exits)
		return;
	pthread_mutex_lock(&mu);
	h = host_get(machine_id);
	if (!h) {
		cJSON_Delete(exits);
		exits = NULL;
	}
	if (h && doc)
		add_health(h, start_ms, doc);
	cJSON_ArrayForEach(it, exits)
	{
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(it, "kind");
		int k = cJSON_IsString(kind) ? report_exit_kind_index(kind->valuestring) : -1;

		if (k >= 0) {
			h->exits[k]++;
			h->has_exits = true;
		}
	}
	pthread_mutex_unlock(&mu);
	cJSON_Delete(doc);
	cJSON_Delete(exits);
}

enum family {
	FAM_EVENTS,
	FAM_REJECTED,
	FAM_EXITS,
	FAM_CPU,
	FAM_RSS,
	FAM_BPF_TIME,
	FAM_BPF_RUNS,
	FAM_L3_WAIT,
	FAM_L3_IDLE,
	FAM_COUNT
};

static const struct {
	const char *name, *type, *help;
} families[FAM_COUNT] = {
	[FAM_EVENTS] = { "schedio_scx_events_total", "counter",
			 "sched_ext event counters (/sys/kernel/sched_ext/root/events) summed over stored reports." },
	[FAM_REJECTED] = { "schedio_scx_rejected_total", "counter",
			   "Tasks sched_ext rejected (nr_rejected deltas) summed over stored reports." },
	[FAM_EXITS] = { "schedio_scx_exits_total", "counter",
			"sched_ext scheduler exits (ejections and unloads) by exit kind." },
	[FAM_CPU] = { "schedio_agent_cpu_seconds_total", "counter", "CPU time (user + system) the agent used." },
	[FAM_RSS] = { "schedio_agent_rss_bytes", "gauge", "The agent's resident set at the end of its latest report." },
	[FAM_BPF_TIME] = { "schedio_agent_bpf_run_seconds_total", "counter",
			   "Run time of the agent's BPF programs (scaled from the sampled share of each interval)." },
	[FAM_BPF_RUNS] = { "schedio_agent_bpf_runs_total", "counter",
			   "Runs of the agent's BPF programs (scaled from the sampled share of each interval)." },
	[FAM_L3_WAIT] = { "schedio_l3_wait_seconds_total", "counter",
			  "Runqueue wait of tasks on the CPUs of an L3 domain (domain: its index in "
			  "host.l3_domains)." },
	[FAM_L3_IDLE] = { "schedio_l3_idle_sibling_wait_seconds_total", "counter",
			  "The part of that wait during which another CPU of the same L3 domain was idle." },
};

static bool host_has(const struct host *h, enum family f)
{
	switch (f) {
	case FAM_EVENTS:
		return h->events.n > 0;
	case FAM_REJECTED:
		return h->has_rejected;
	case FAM_EXITS:
		return h->has_exits;
	case FAM_CPU:
		return h->has_cpu;
	case FAM_RSS:
		return h->has_rss;
	case FAM_BPF_TIME:
	case FAM_BPF_RUNS:
		return h->progs.n > 0;
	case FAM_L3_WAIT:
	case FAM_L3_IDLE:
		return h->nl3 > 0;
	default:
		return false;
	}
}

static void write_host(struct prom_out *w, const struct host *h, enum family f)
{
	const char *name = families[f].name;
	char id[300], label[2 * REPORT_MAX_EVENT_NAME + 2];

	prom_escape(id, sizeof(id), h->id);
	switch (f) {
	case FAM_EVENTS:
		for (size_t i = 0; i < h->events.n; i++) {
			prom_escape(label, sizeof(label), h->events.v[i].name);
			prom_printf(w, "%s{host_id=\"%s\",event=\"%s\"} %" PRIu64 "\n", name, id, label,
				    h->events.v[i].a);
		}
		break;
	case FAM_REJECTED:
		prom_printf(w, "%s{host_id=\"%s\"} %" PRIu64 "\n", name, id, h->rejected);
		break;
	case FAM_EXITS:
		for (int k = 0; k < NKINDS; k++)
			if (h->exits[k])
				prom_printf(w, "%s{host_id=\"%s\",kind=\"%s\"} %" PRIu64 "\n", name, id,
					    report_exit_kinds[k], h->exits[k]);
		break;
	case FAM_CPU:
		prom_printf(w, "%s{host_id=\"%s\"} %.9f\n", name, id, (double)h->cpu_ns / 1e9);
		break;
	case FAM_RSS:
		prom_printf(w, "%s{host_id=\"%s\"} %" PRId64 "\n", name, id, h->rss);
		break;
	case FAM_BPF_TIME:
	case FAM_BPF_RUNS:
		for (size_t i = 0; i < h->progs.n; i++) {
			prom_escape(label, sizeof(label), h->progs.v[i].name);
			if (f == FAM_BPF_TIME)
				prom_printf(w, "%s{host_id=\"%s\",program=\"%s\"} %.9f\n", name, id, label,
					    (double)h->progs.v[i].a / 1e9);
			else
				prom_printf(w, "%s{host_id=\"%s\",program=\"%s\"} %" PRIu64 "\n", name, id, label,
					    h->progs.v[i].b);
		}
		break;
	case FAM_L3_WAIT:
	case FAM_L3_IDLE:
		for (size_t i = 0; i < h->nl3; i++)
			prom_printf(w, "%s{host_id=\"%s\",domain=\"%zu\"} %.9f\n", name, id, i,
				    (double)(f == FAM_L3_WAIT ? h->l3[i].wait_ns : h->l3[i].idle_wait_ns) / 1e9);
		break;
	default:
		break;
	}
}

void health_stats_write(void (*out)(void *arg, const char *text, size_t len), void *arg)
{
	struct prom_out w = { out, arg };

	pthread_mutex_lock(&mu);
	for (int f = 0; f < FAM_COUNT; f++) {
		bool header = false;

		for (size_t i = 0; i < nhosts; i++) {
			if (!host_has(hosts[i], (enum family)f))
				continue;
			if (!header) {
				prom_printf(&w, "# HELP %s %s\n# TYPE %s %s\n", families[f].name, families[f].help,
					    families[f].name, families[f].type);
				header = true;
			}
			write_host(&w, hosts[i], (enum family)f);
		}
	}
	pthread_mutex_unlock(&mu);
}

void health_stats_reset(void)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nhosts; i++) {
		free(hosts[i]->id);
		free(hosts[i]->events.v);
		free(hosts[i]->progs.v);
		free(hosts[i]->l3);
		free(hosts[i]);
	}
	free(hosts);
	hosts = NULL;
	nhosts = caphosts = 0;
	pthread_mutex_unlock(&mu);
}
