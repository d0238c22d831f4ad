/* compare_data.c - see compare_data.h.
 *
 * A window is read in one pass over all hosts' rows (or one host's, when a
 * single host is selected), at the coarsest stored level whose buckets fit
 * inside it: whole hours from the hour rollups, the minutes at its ends from
 * the minute rollups, the seconds before its first and after its last whole
 * minute from the raw reports (query_scan fills in past the rollup marks).
 * A row counts when it starts in [from, to), as everywhere in the API.
 *
 * Terms are matched where they are known: host and label per host (a label
 * counts when the host carried it in a report inside the window), kernel per
 * row (a host upgraded in the middle of a window counts with its rows of the
 * selected kernel only), sched per sample through the per-scheduler split of
 * each row (runqlat_set.h), so a host that switched scheduler inside a
 * report gives each scheduler exactly its samples. Cgroup histograms are not
 * split by scheduler: with cgroup and sched, a report counts only when the
 * selected scheduler ran all of its samples.
 *
 * A cgroup comparison decodes every row's per-cgroup blob; with several hosts
 * that is shared with decoder threads (compare_decode.h), one per core but
 * the caller's, the caller reading the rows and decoding its share of them.
 */
#include "server/compare/compare_data.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/compare/compare_decode.h"
#include "server/series/query.h"
#include "server/series/runqlat_set.h"

struct host_entry {
	int64_t id; /* the store's */
	char *machine_id, *hostname;
};

struct host_table {
	struct host_entry *v;
	size_t n, cap;
};

/* An arm while it is gathered: which hosts it selects and their merged samples, by host table index. */
struct arm_state {
	struct compare_arm *arm;
	bool *selected;
	struct runqlat_hist **acc;
};

/* The arms of one window, fed by one scan. */
struct scan_ctx {
	const struct host_table *tab;
	struct arm_state **arms;
	size_t n;
	const char *cgroup;
	size_t cglen;
	struct runqlat_hist *row_cgroup; /* the current row's cgroup samples, decoded once for all arms */
	bool row_decoded;
	struct compare_decode *decode; /* decoders for the other threads' hosts (NULL: all here) */
};

#define DECODERS_MAX 3 /* threads besides the caller's decoding a cgroup comparison's rows */

__attribute__((format(printf, 4, 5))) static int fail(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static int collect_host(void *arg, const struct store_host *h)
{
	struct host_table *t = arg;
	struct host_entry *e;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct host_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	e = &t->v[t->n];
	e->id = h->id;
	e->machine_id = strdup(h->machine_id ? h->machine_id : "");
	e->hostname = strdup(h->hostname ? h->hostname : "");
	if (!e->machine_id || !e->hostname) {
		free(e->machine_id);
		free(e->hostname);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

static int cmp_entry_id(const void *a, const void *b)
{
	const struct host_entry *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Index of store host id in the table (sorted by id), or -1 for a host listed after the table was read. */
static long host_index(const struct host_table *t, int64_t id)
{
	struct host_entry key = { .id = id }, *e = bsearch(&key, t->v, t->n, sizeof(*t->v), cmp_entry_id);

	return e ? (long)(e - t->v) : -1;
}

static void host_table_free(struct host_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].machine_id);
		free(t->v[i].hostname);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Keeps selected only the hosts that carried label key=value in a report inside the arm's window. */
static int select_label(struct store *st, const struct host_table *tab, struct arm_state *a,
			const struct compare_select_label *l, char *err, size_t errlen)
{
	char **ids = NULL;
	size_t n = 0;
	int rc;

	rc = store_labels_hosts(st, l->key, l->value, a->arm->from, a->arm->to, &ids, &n);
	if (rc == -EINVAL)
		return fail(rc, err, errlen, "label.%s=%s is not a label a host can carry", l->key, l->value);
	if (rc)
		return fail(rc == -ENOMEM ? rc : -EIO, err, errlen, "database error reading the hosts of label.%s",
			    l->key);
	/* sorted by the store already; sorted again so the lookup does not depend on its collation */
	qsort(ids, n, sizeof(*ids), cmp_str);
	for (size_t i = 0; i < tab->n; i++)
		if (a->selected[i] && !bsearch(&tab->v[i].machine_id, ids, n, sizeof(*ids), cmp_str))
			a->selected[i] = false;
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return 0;
}

static int select_hosts(struct store *st, const struct host_table *tab, struct arm_state *a, char *err, size_t errlen)
{
	const struct compare_select *sel = a->arm->sel;
	int rc = 0;

	for (size_t i = 0; i < tab->n; i++)
		a->selected[i] = compare_select_host_matches(sel, tab->v[i].machine_id);
	for (size_t k = 0; rc == 0 && k < sel->nlabels; k++)
		rc = select_label(st, tab, a, &sel->labels[k], err, errlen);
	return rc;
}

struct sched_filter {
	const struct compare_select *sel;
	bool split; /* the blob has per-scheduler series */
};

static bool want_sched(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	struct sched_filter *f = arg;
	char name[COMPARE_SELECT_MAX_NAME + 1];

	if (kind != RUNQLAT_SCHED)
		return false;
	f->split = true;
	if (keylen > COMPARE_SELECT_MAX_NAME)
		return false;
	memcpy(name, key, keylen);
	name[keylen] = '\0';
	return compare_select_sched_matches(f->sel, name);
}

/* The whole host's samples of row r that sel's scheduler ran (all of them without a sched term). */
static int add_host(const struct compare_select *sel, struct runqlat_hist *acc, const struct store_row *r)
{
	struct sched_filter f = { .sel = sel };
	int rc;

	if (!*sel->sched)
		return runqlat_hist_add_blob(acc, r->host_hist, r->host_hist_len, runqlat_set_want_host, NULL);
	rc = runqlat_hist_add_blob(acc, r->host_hist, r->host_hist_len, want_sched, &f);
	/* Without a split, every sample ran under the row's own group. */
	if (rc == 0 && !f.split && compare_select_sched_matches(sel, r->sched_group ? r->sched_group : ""))
		rc = runqlat_hist_add_blob(acc, r->host_hist, r->host_hist_len, runqlat_set_want_host, NULL);
	return rc;
}

/* The cgroup itself and every cgroup below it (the agent keys each task by one cgroup, so they are disjoint). */
static bool want_cgroup(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	const struct scan_ctx *c = arg;

	if (kind != RUNQLAT_CGROUP || keylen < c->cglen || memcmp(key, c->cgroup, c->cglen) != 0)
		return false;
	return keylen == c->cglen || c->cgroup[c->cglen - 1] == '/' || key[c->cglen] == '/';
}

/* True if sel's scheduler ran every sample of row r (and it has some). */
static int ran_all(const struct compare_select *sel, const struct store_row *r, bool *all)
{
	struct runqlat_set split = { 0 };
	uint64_t total = 0, matched = 0;
	int rc = runqlat_set_add_sched(&split, r->host_hist, r->host_hist_len, r->sched_group ? r->sched_group : "");

	for (size_t i = 0; rc == 0 && i < split.n; i++) {
		uint64_t t = hist_total(split.v[i]->hist.buckets);

		total += t;
		if (compare_select_sched_matches(sel, split.v[i]->key))
			matched += t;
	}
	runqlat_set_free(&split);
	*all = total > 0 && matched == total;
	return rc;
}

/* The row's cgroup samples into each arm that takes them: decoded here once for them all, or handed to
 * the decoder of the row's host. */
static int add_cgroup_row(struct scan_ctx *c, long i, const struct store_row *r)
{
	struct runqlat_hist *dst[COMPARE_DECODE_MAX_DST];
	bool decoder = compare_decode_takes(c->decode, (size_t)i);
	size_t nd = 0;
	int rc;

	for (size_t k = 0; k < c->n; k++) {
		struct arm_state *a = c->arms[k];
		const struct compare_select *sel = a->arm->sel;
		bool all = true;

		if (!a->selected[i] || !compare_select_kernel_matches(sel, r->kernel))
			continue;
		if (!a->acc[i] && !(a->acc[i] = calloc(1, sizeof(**a->acc))))
			return -ENOMEM;
		if (!r->series)
			continue;
		/* a corrupt host_hist counts for no arm, as every other reader leaves it out */
		if (*sel->sched && ((rc = ran_all(sel, r, &all)) || !all)) {
			if (rc == -ENOMEM)
				return rc;
			continue;
		}
		if (decoder) { /* c->n <= COMPARE_DECODE_MAX_DST when there are decoders */
			dst[nd++] = a->acc[i];
			continue;
		}
		/* The series blob holds every cgroup and CPU of the report: decoding it is most of a cgroup
		 * comparison's time, so arms sharing the window share the decode. */
		if (!c->row_decoded) {
			memset(&c->row_cgroup->hist, 0, sizeof(c->row_cgroup->hist));
			c->row_decoded = true;
			rc = runqlat_hist_add_blob(c->row_cgroup, r->series, r->series_len, want_cgroup, c);
			if (rc) { /* a corrupt blob counts for no arm */
				memset(&c->row_cgroup->hist, 0, sizeof(c->row_cgroup->hist));
				if (rc == -ENOMEM)
					return rc;
			}
		}
		runqlat_hist_add(a->acc[i], c->row_cgroup);
	}
	return nd ? compare_decode_push(c->decode, (size_t)i, r->series, r->series_len, dst, nd) : 0;
}

static int on_row(void *arg, const struct store_row *r)
{
	struct scan_ctx *c = arg;
	long i = host_index(c->tab, r->host_id);

	if (i < 0 || !r->host_hist)
		return 0;
	c->row_decoded = false;
	if (c->cgroup)
		return add_cgroup_row(c, i, r);
	for (size_t k = 0; k < c->n; k++) {
		struct arm_state *a = c->arms[k];
		const struct compare_select *sel = a->arm->sel;
		int rc;

		if (!a->selected[i] || !compare_select_kernel_matches(sel, r->kernel))
			continue;
		if (!a->acc[i] && !(a->acc[i] = calloc(1, sizeof(**a->acc))))
			return -ENOMEM;
		rc = add_host(sel, a->acc[i], r);
		/* A corrupt blob is left out, as every other reader leaves it out. */
		if (rc == -ENOMEM)
			return rc;
	}
	return 0;
}

static int64_t floor_to(int64_t t, int64_t w)
{
	return t - t % w;
}

static int64_t ceil_to(int64_t t, int64_t w)
{
	return floor_to(t + w - 1, w);
}

struct part {
	enum store_level lv;
	int64_t lo, hi;
};

/* Rows of host (all when < 0) starting in [from, to), each part of the window from the coarsest level that fits. */
static int scan_window(struct server *srv, struct store *st, int64_t host, int64_t from, int64_t to, bool hist_only,
		       store_row_fn fn, void *arg)
{
	struct part part[5];
	int64_t m0 = ceil_to(from, STORE_MINUTE_MS), m1 = floor_to(to, STORE_MINUTE_MS), h0, h1;
	size_t n = 0;
	int rc = 0;

	if (m0 >= m1) {
		part[n++] = (struct part){ STORE_RAW, from, to };
	} else {
		h0 = ceil_to(m0, STORE_HOUR_MS);
		h1 = floor_to(m1, STORE_HOUR_MS);
		part[n++] = (struct part){ STORE_RAW, from, m0 };
		if (h0 >= h1) {
			part[n++] = (struct part){ STORE_MINUTE, m0, m1 };
		} else {
			part[n++] = (struct part){ STORE_MINUTE, m0, h0 };
			part[n++] = (struct part){ STORE_HOUR, h0, h1 };
			part[n++] = (struct part){ STORE_MINUTE, h1, m1 };
		}
		part[n++] = (struct part){ STORE_RAW, m1, to };
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (part[i].lo < part[i].hi)
			rc = query_scan(srv, st, part[i].lv, host, part[i].lo, part[i].hi, hist_only, fn, arg);
	return rc;
}

/* Scans one window for the arms that share it (group[n]). */
static int scan_group(struct server *srv, struct store *st, const struct host_table *tab, const char *cgroup,
		      struct arm_state **group, size_t n)
{
	struct scan_ctx c = {
		.tab = tab, .arms = group, .n = n, .cgroup = cgroup, .cglen = cgroup ? strlen(cgroup) : 0
	};
	int64_t only = -1;
	size_t hosts = 0;
	int rc, drc;

	for (size_t i = 0; i < tab->n; i++)
		for (size_t k = 0; k < n; k++)
			if (group[k]->selected[i]) {
				hosts++;
				only = tab->v[i].id;
				break;
			}
	if (hosts == 0)
		return 0;
	if (cgroup && !(c.row_cgroup = calloc(1, sizeof(*c.row_cgroup))))
		return -ENOMEM;
	if (cgroup && hosts > 1 && n <= COMPARE_DECODE_MAX_DST) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		c.decode = compare_decode_start(
		    cpus > 1 ? (unsigned)(cpus - 1 < DECODERS_MAX ? cpus - 1 : DECODERS_MAX) : 0, want_cgroup, &c);
	}
	rc = scan_window(srv, st, hosts == 1 ? only : -1, group[0]->arm->from, group[0]->arm->to, !cgroup, on_row, &c);
	/* every row handed to a decoder is added before the arms are read */
	drc = compare_decode_finish(c.decode);
	free(c.row_cgroup);
	return rc ? rc : drc;
}

static int cmp_host_id(const void *a, const void *b)
{
	return strcmp(((const struct compare_data_host *)a)->host_id, ((const struct compare_data_host *)b)->host_id);
}

/* Moves the hosts with samples into arm->hosts, by host id. */
static int arm_finish(const struct host_table *tab, struct arm_state *a)
{
	struct compare_arm *arm = a->arm;
	size_t n = 0;

	for (size_t i = 0; i < tab->n; i++)
		if (a->acc[i] && hist_total(a->acc[i]->hist.buckets) > 0)
			n++;
	arm->hosts = calloc(n ? n : 1, sizeof(*arm->hosts));
	if (!arm->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < tab->n; i++) {
		struct compare_data_host *h;

		if (!a->acc[i] || hist_total(a->acc[i]->hist.buckets) == 0)
			continue;
		h = &arm->hosts[arm->nhosts++];
		snprintf(h->host_id, sizeof(h->host_id), "%s", tab->v[i].machine_id);
		h->hist = a->acc[i]->hist;
		h->hostname = strdup(tab->v[i].hostname);
		if (!h->hostname)
			return -ENOMEM;
	}
	qsort(arm->hosts, arm->nhosts, sizeof(*arm->hosts), cmp_host_id);
	return 0;
}

int compare_data_gather(struct server *srv, struct store *st, const char *cgroup, struct compare_arm *arms, size_t n,
			char *err, size_t errlen)
{
	struct host_table tab = { 0 };
	struct arm_state *states = calloc(n ? n : 1, sizeof(*states));
	struct arm_state **group = calloc(n ? n : 1, sizeof(*group));
	bool *done = calloc(n ? n : 1, sizeof(*done));
	int rc;

	for (size_t k = 0; k < n; k++) {
		arms[k].hosts = NULL;
		arms[k].nhosts = 0;
	}
	if (!states || !group || !done) {
		rc = fail(-ENOMEM, err, errlen, "out of memory");
		goto out;
	}
	rc = st->ops->hosts(st, NULL, collect_host, &tab);
	if (rc) {
		rc = fail(rc == -ENOMEM ? rc : -EIO, err, errlen, "database error listing the hosts");
		goto out;
	}
	qsort(tab.v, tab.n, sizeof(*tab.v), cmp_entry_id);
	for (size_t k = 0; k < n; k++) {
		states[k].arm = &arms[k];
		states[k].selected = calloc(tab.n + 1, sizeof(*states[k].selected));
		states[k].acc = calloc(tab.n + 1, sizeof(*states[k].acc));
		if (!states[k].selected || !states[k].acc) {
			rc = fail(-ENOMEM, err, errlen, "out of memory");
			goto out;
		}
		rc = select_hosts(st, &tab, &states[k], err, errlen);
		if (rc)
			goto out;
	}
	for (size_t k = 0; k < n; k++) {
		size_t ng = 0;

		if (done[k])
			continue;
		for (size_t j = k; j < n; j++)
			if (!done[j] && arms[j].from == arms[k].from && arms[j].to == arms[k].to) {
				done[j] = true;
				group[ng++] = &states[j];
			}
		rc = scan_group(srv, st, &tab, cgroup, group, ng);
		if (rc) {
			rc = fail(rc == -ENOMEM ? rc : -EIO, err, errlen, "database error reading runqueue latency");
			goto out;
		}
	}
	for (size_t k = 0; k < n && rc == 0; k++)
		if (arm_finish(&tab, &states[k]))
			rc = fail(-ENOMEM, err, errlen, "out of memory");
out:
	for (size_t k = 0; states && k < n; k++) {
		for (size_t i = 0; states[k].acc && i < tab.n; i++)
			free(states[k].acc[i]);
		free(states[k].acc);
		free(states[k].selected);
		if (rc)
			compare_arm_free(&arms[k]);
	}
	free(states);
	free(group);
	free(done);
	host_table_free(&tab);
	return rc;
}

bool compare_data_same_hosts(const struct compare_arm *a, const struct compare_arm *b)
{
	if (a->nhosts != b->nhosts)
		return false;
	for (size_t i = 0; i < a->nhosts; i++)
		if (strcmp(a->hosts[i].host_id, b->hosts[i].host_id) != 0)
			return false;
	return true;
}

void compare_arm_free(struct compare_arm *arm)
{
	for (size_t i = 0; i < arm->nhosts; i++)
		free(arm->hosts[i].hostname);
	free(arm->hosts);
	arm->hosts = NULL;
	arm->nhosts = 0;
}
