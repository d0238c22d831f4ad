/* iocost.c - IO cost vs weight: per cgroup and iocost-enabled disk, the share
 * of the device the cgroup's io.weight entitles it to among its active
 * siblings (hweight_active, hweight_inuse) next to the share it used
 * (usage_pct: the increase of io.stat's cost.usage, in µs of device time at
 * vrate 100%, over the interval's wall time) - the fields of the kernel's
 * tools/cgroup/iocost_monitor.py, taken continuously.
 *
 * Counters come from cgroupfs, sampled at open and at each collect, so every
 * figure is an increase over exactly the reported interval. hweights come
 * from the BPF programs (time-weighted mean over the time the cgroup was
 * active, source "tracepoints"); for a cgroup the programs have not seen, or
 * when they cannot load, hweight_active is computed from io.weight of the
 * siblings that did IO in the interval (source "weights"), as the kernel
 * would with those siblings active. Where the io controller is not in the
 * cgroup2 root or iocost is not enabled on a disk, the report says so
 * (io_controller, enabled) and carries no cost figures.
 */
#include "agent/iocost/iocost.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/iocost/iocost_bpf.h"
#include "agent/iocost/iocost_config.h"
#include "agent/iocost/iocost_tree.h"
#include "agent/iocost/iostat.h"
#include "bpf/iocost.h"
#include "common/cgroup2.h"
#include "common/disks.h"
#include "common/fsutil.h"
#include "common/log.h"

/* io.stat of a cgroup with many devices stays well under this. */
#define IOCOST_FILE_CAP (64 * 1024)

/* The counters of one (cgroup, disk) at the previous sample. */
struct iocost_sample {
	uint64_t cgid;
	unsigned major, minor;
	struct iostat_dev st;
	struct iocost_hw hw;
	bool have_hw;
};

struct iocost_state {
	char mount[PATH_MAX];
	bool have_mount, io_controller;
	unsigned depth;
	struct iocost_bpf *bpf;
	struct iocost_sample *prev;
	size_t nprev;
	uint64_t prev_ns;
	unsigned warned_bad; /* parse warnings already logged, so a bad file warns once per change */
	char *buf;
};

/* One (cgroup, disk) of the interval being reported. */
struct iocost_row {
	size_t cg; /* index in the tree */
	struct iostat_dev cur, delta;
	struct iocost_hw hw;
	bool have_hw, active;
	unsigned weight;
	double hwa_w; /* weight-based hweight_active, 0..1 */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int sample_cmp(const void *a, const void *b)
{
	const struct iocost_sample *x = a, *y = b;

	if (x->cgid != y->cgid)
		return x->cgid < y->cgid ? -1 : 1;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

static const struct iocost_sample *prev_find(const struct iocost_state *s, uint64_t cgid, unsigned ma, unsigned mi)
{
	struct iocost_sample key = { .cgid = cgid, .major = ma, .minor = mi };

	return s->nprev ? bsearch(&key, s->prev, s->nprev, sizeof(key), sample_cmp) : NULL;
}

/* Reads mount/rel/file into s->buf; returns length or -errno. */
static ssize_t read_cg_file(struct iocost_state *s, const char *rel, const char *file)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s%s/%s", s->mount, strcmp(rel, "/") ? rel : "", file) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return fs_read_small(path, s->buf, IOCOST_FILE_CAP);
}

static bool controllers_have_io(struct iocost_state *s)
{
	const char *p;

	if (read_cg_file(s, "/", "cgroup.controllers") < 0)
		return false;
	for (p = s->buf; (p = strstr(p, "io")); p += 2)
		if ((p == s->buf || p[-1] == ' ') && (p[2] == '\0' || p[2] == ' ' || p[2] == '\n'))
			return true;
	return false;
}

static void take_baseline(struct iocost_state *s);

static int iocost_open(const struct agent_options *opt, void **state)
{
	struct iocost_state *s = calloc(1, sizeof(*s));
	char why[256] = "";
	int err;

	if (!s)
		return -ENOMEM;
	s->buf = malloc(IOCOST_FILE_CAP);
	if (!s->buf) {
		free(s);
		return -ENOMEM;
	}
	s->depth = opt->cgroup_depth ? opt->cgroup_depth : 1;
	s->have_mount = cgroup2_find_mount(CGROUP2_MOUNTS, s->mount, sizeof(s->mount)) == 0;
	s->io_controller = s->have_mount && controllers_have_io(s);
	if (!s->io_controller)
		log_info("iocost: %s: IO cost per cgroup is not available on this host",
			 s->have_mount ? "the cgroup2 root has no io controller" : "cgroup2 is not mounted");
	err = iocost_bpf_open(&s->bpf, why, sizeof(why));
	if (err)
		log_info("iocost: hweights from io.weight, not tracepoints: %s", why);
	else
		log_debug("iocost: attached to %s", iocost_bpf_attached(s->bpf));
	if (s->io_controller)
		take_baseline(s);
	*state = s;
	return 0;
}

static void iocost_close(void *state)
{
	struct iocost_state *s = state;

	if (!s)
		return;
	iocost_bpf_close(s->bpf);
	free(s->prev);
	free(s->buf);
	free(s);
}

static void add_u64(cJSON *o, const char *name, uint64_t v)
{
	cJSON_AddNumberToObject(o, name, (double)v);
}

static void delta_stat(const struct iostat_dev *cur, const struct iostat_dev *old, struct iostat_dev *d)
{
	/* a counter that went backwards belongs to a recreated blkg: count from zero */
#define IOCOST_DELTA(f) d->f = old && cur->f >= old->f ? cur->f - old->f : cur->f
	*d = *cur;
	IOCOST_DELTA(rbytes);
	IOCOST_DELTA(wbytes);
	IOCOST_DELTA(rios);
	IOCOST_DELTA(wios);
	IOCOST_DELTA(dbytes);
	IOCOST_DELTA(dios);
	IOCOST_DELTA(cost_usage_us);
	IOCOST_DELTA(cost_wait_us);
	IOCOST_DELTA(cost_indebt_us);
	IOCOST_DELTA(cost_indelay_us);
#undef IOCOST_DELTA
}

static bool same_dev(const struct iocost_row *a, const struct iocost_row *b)
{
	return a->cur.major == b->cur.major && a->cur.minor == b->cur.minor;
}

/* Weight-based hweight_active of every active row: the product, up the tree,
 * of weight / sum of the weights of the active siblings on the same disk. A
 * parent is active when a child is, as io.stat counts are recursive. */
static void weights_hweight(const struct iocost_tree *t, struct iocost_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct iocost_row *self = &rows[i];
		double hw = 1.0;

		if (!self->active)
			continue;
		while (self && t->cg[self->cg].depth > 0) {
			int parent = t->cg[self->cg].parent;
			const struct iocost_row *up = NULL;
			double sum = 0;

			for (size_t k = 0; k < n; k++) {
				if (!same_dev(&rows[k], &rows[i]))
					continue;
				if (rows[k].active && t->cg[rows[k].cg].parent == parent)
					sum += rows[k].weight;
				if ((int)rows[k].cg == parent)
					up = &rows[k];
			}
			hw *= sum > 0 ? self->weight / sum : 0;
			self = up; /* NULL at the root, which has no row */
		}
		rows[i].hwa_w = hw;
	}
}

static cJSON *row_json(const struct iocost_tree *t, const struct iocost_row *r, double wall_us, uint64_t *from_bp)
{
	cJSON *o = cJSON_CreateObject();
	char dev[32];

	if (!o)
		return NULL;
	snprintf(dev, sizeof(dev), "%u:%u", r->cur.major, r->cur.minor);
	cJSON_AddStringToObject(o, "path", t->cg[r->cg].path);
	cJSON_AddStringToObject(o, "dev", dev);
	cJSON_AddNumberToObject(o, "weight", r->weight);
	if (r->cur.has & IOSTAT_HAS_USAGE)
		cJSON_AddNumberToObject(o, "usage_pct", (double)r->delta.cost_usage_us * 100.0 / wall_us);
	if (r->have_hw && r->hw.active_us > 0) {
		cJSON_AddNumberToObject(o, "hweight_active_pct",
					(double)r->hw.hwa_us / (double)r->hw.active_us * 100.0 / IOCOST_WEIGHT_ONE);
		cJSON_AddNumberToObject(o, "hweight_inuse_pct",
					(double)r->hw.hwi_us / (double)r->hw.active_us * 100.0 / IOCOST_WEIGHT_ONE);
		cJSON_AddNumberToObject(o, "active_pct", (double)r->hw.active_us * 100.0 / wall_us);
		cJSON_AddStringToObject(o, "hweight_source", "tracepoints");
		(*from_bp)++;
	} else if (r->active) {
		cJSON_AddNumberToObject(o, "hweight_active_pct", r->hwa_w * 100.0);
		cJSON_AddStringToObject(o, "hweight_source", "weights");
	}
	add_u64(o, "rbytes", r->delta.rbytes);
	add_u64(o, "wbytes", r->delta.wbytes);
	add_u64(o, "rios", r->delta.rios);
	add_u64(o, "wios", r->delta.wios);
	if (r->cur.has & IOSTAT_HAS_WAIT)
		add_u64(o, "wait_us", r->delta.cost_wait_us);
	if (r->cur.has & IOSTAT_HAS_INDEBT)
		add_u64(o, "indebt_us", r->delta.cost_indebt_us);
	if (r->cur.has & IOSTAT_HAS_INDELAY)
		add_u64(o, "indelay_us", r->delta.cost_indelay_us);
	return o;
}

struct iocost_pass {
	struct iocost_tree tree;
	struct iocost_sample *samples;
	size_t nsamples, cap;
	struct iocost_row *rows;
	size_t nrows;
	unsigned bad_lines;
};

static int pass_add_sample(struct iocost_pass *p, const struct iocost_sample *smp)
{
	if (p->nsamples == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct iocost_sample *n = realloc(p->samples, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->samples = n;
		p->cap = cap;
	}
	p->samples[p->nsamples++] = *smp;
	return 0;
}

/* Reads io.stat (and io.weight) of every non-root cgroup; rows only for enabled disks. */
static int pass_read(struct iocost_state *s, struct iocost_pass *p, const struct iocost_conf *qos, uint64_t now)
{
	struct ioweight w;
	struct iostat st;
	size_t rows_cap = 0;
	int err;

	err = iocost_tree_walk(s->mount, s->depth, &p->tree);
	if (err)
		return err;
	for (size_t i = 1; i < p->tree.n; i++) {
		const struct iocost_cgroup *cg = &p->tree.cg[i];

		if (read_cg_file(s, cg->path, "io.stat") < 0)
			continue; /* gone, or io not enabled for it: its IO counts in the parent */
		iostat_parse(s->buf, &st);
		p->bad_lines += st.bad_lines;
		if (read_cg_file(s, cg->path, "io.weight") >= 0)
			iostat_weight_parse(s->buf, &w);
		else
			iostat_weight_parse("", &w);
		p->bad_lines += w.bad_lines;
		for (size_t k = 0; k < st.n; k++) {
			struct iocost_sample smp = { .cgid = cg->id,
						     .major = st.dev[k].major,
						     .minor = st.dev[k].minor };
			const struct iocost_sample *old = prev_find(s, cg->id, smp.major, smp.minor);
			struct iocost_row *r;

			smp.st = st.dev[k];
			if (s->bpf)
				smp.have_hw = iocost_bpf_read(s->bpf, cg->id, smp.major, smp.minor, now, &smp.hw) == 0;
			err = pass_add_sample(p, &smp);
			if (err)
				return err;
			if (!iocost_config_enabled(iocost_config_find(qos, smp.major, smp.minor)))
				continue;
			if (p->nrows == rows_cap) {
				size_t cap = rows_cap ? rows_cap * 2 : 32;
				struct iocost_row *n = realloc(p->rows, cap * sizeof(*n));

				if (!n)
					return -ENOMEM;
				p->rows = n;
				rows_cap = cap;
			}
			r = &p->rows[p->nrows++];
			memset(r, 0, sizeof(*r));
			r->cg = i;
			r->cur = smp.st;
			delta_stat(&smp.st, old ? &old->st : NULL, &r->delta);
			r->active = r->delta.rios + r->delta.wios + r->delta.cost_usage_us > 0;
			r->weight = iostat_weight_effective(&w, smp.major, smp.minor);
			/* an entry without a previous read was created within the interval: all of it counts */
			if (smp.have_hw && (!old || !old->have_hw || smp.hw.active_us >= old->hw.active_us)) {
				r->hw = smp.hw;
				r->have_hw = true;
				if (old && old->have_hw) {
					r->hw.hwa_us -= old->hw.hwa_us;
					r->hw.hwi_us -= old->hw.hwi_us;
					r->hw.active_us -= old->hw.active_us;
				}
			}
		}
	}
	return 0;
}

static void pass_free(struct iocost_pass *p)
{
	iocost_tree_free(&p->tree);
	free(p->samples);
	free(p->rows);
}

/* Makes this pass's samples the next interval's baseline; drops BPF entries of cgroups gone idle and removed. */
static void adopt_samples(struct iocost_state *s, struct iocost_pass *pass, uint64_t now)
{
	uint64_t *live;

	if (pass->nsamples)
		qsort(pass->samples, pass->nsamples, sizeof(*pass->samples), sample_cmp);
	free(s->prev);
	s->prev = pass->samples;
	s->nprev = pass->nsamples;
	pass->samples = NULL;
	pass->nsamples = pass->cap = 0;
	s->prev_ns = now;
	if (!s->bpf || !pass->tree.n)
		return;
	live = malloc(pass->tree.n * sizeof(*live));
	if (!live)
		return;
	for (size_t i = 0; i < pass->tree.n; i++)
		live[i] = pass->tree.cg[i].id;
	qsort(live, pass->tree.n, sizeof(*live), cmp_u64);
	iocost_bpf_prune(s->bpf, live, pass->tree.n);
	free(live);
}

static void read_conf(struct iocost_state *s, const char *file, struct iocost_conf *conf, unsigned *bad)
{
	if (s->io_controller && read_cg_file(s, "/", file) >= 0)
		iocost_config_parse(s->buf, conf);
	else
		iocost_config_parse("", conf);
	*bad += conf->bad_lines;
}

/* The first sample, so the first report covers exactly its interval. */
static void take_baseline(struct iocost_state *s)
{
	struct iocost_conf *none = malloc(sizeof(*none));
	struct iocost_pass pass = { 0 };
	uint64_t now = mono_ns();

	if (!none)
		return;
	iocost_config_parse("", none);
	if (pass_read(s, &pass, none, now) == 0)
		adopt_samples(s, &pass, now);
	pass_free(&pass);
	free(none);
}

static cJSON *disk_json(struct iocost_state *s, const struct disk *d, const struct iocost_conf *model,
			const struct iocost_conf *qos, const struct iostat *root)
{
	const struct iocost_config_dev *m = iocost_config_find(model, d->major, d->minor);
	const struct iocost_config_dev *q = iocost_config_find(qos, d->major, d->minor);
	const struct iostat_dev *rs = iostat_find(root, d->major, d->minor);
	bool enabled = iocost_config_enabled(q);
	cJSON *o = cJSON_CreateObject();
	char dev[32];
	double vrate;

	if (!o)
		return NULL;
	snprintf(dev, sizeof(dev), "%u:%u", d->major, d->minor);
	cJSON_AddStringToObject(o, "dev", dev);
	cJSON_AddStringToObject(o, "name", d->name);
	cJSON_AddStringToObject(o, "model", d->model);
	cJSON_AddStringToObject(o, "fwrev", d->fwrev);
	add_u64(o, "size_bytes", d->size_bytes);
	if (d->rotational >= 0)
		cJSON_AddBoolToObject(o, "rotational", d->rotational == 1);
	cJSON_AddBoolToObject(o, "enabled", enabled);
	/* "cost_model", not "model": the disk's "model" is the drive's name */
	if (m)
		cJSON_AddItemToObject(o, "cost_model", iocost_config_to_json(m));
	if (q)
		cJSON_AddItemToObject(o, "qos", iocost_config_to_json(q));
	if (enabled) {
		if (rs && (rs->has & IOSTAT_HAS_VRATE))
			cJSON_AddNumberToObject(o, "vrate_pct", rs->cost_vrate_pct);
		else if (s->bpf && iocost_bpf_vrate(s->bpf, d->major, d->minor, &vrate) == 0)
			cJSON_AddNumberToObject(o, "vrate_pct", vrate);
	}
	return o;
}

static int iocost_collect(void *state, cJSON *report)
{
	struct iocost_state *s = state;
	struct iocost_conf *model = malloc(sizeof(*model)), *qos = malloc(sizeof(*qos));
	struct iostat *root = malloc(sizeof(*root));
	struct disk *disks = malloc(DISKS_MAX * sizeof(*disks));
	struct iocost_pass pass = { 0 };
	cJSON *sec, *jdisks, *jcg;
	uint64_t now = mono_ns(), from_bpf = 0;
	unsigned bad = 0;
	bool any_enabled = false;
	int ndisks, err = -ENOMEM;
	double wall_us;

	if (!model || !qos || !root || !disks)
		goto out;
	sec = cJSON_AddObjectToObject(report, "iocost");
	if (!sec)
		goto out;
	ndisks = disks_scan("/sys", disks, DISKS_MAX);
	if (ndisks < 0) {
		log_warn("iocost: cannot list the disks in sysfs: %s", strerror(-ndisks));
		ndisks = 0;
	}
	read_conf(s, "io.cost.model", model, &bad);
	read_conf(s, "io.cost.qos", qos, &bad);
	if (s->io_controller && read_cg_file(s, "/", "io.stat") >= 0)
		iostat_parse(s->buf, root);
	else
		iostat_parse("", root);
	bad += root->bad_lines;
	cJSON_AddStringToObject(sec, "source", s->bpf ? "tracepoints" : "weights");
	cJSON_AddBoolToObject(sec, "io_controller", s->io_controller);
	jdisks = cJSON_AddArrayToObject(sec, "disks");
	jcg = cJSON_AddArrayToObject(sec, "cgroups");
	if (!jdisks || !jcg)
		goto out;
	for (int i = 0; i < ndisks; i++) {
		cJSON *d = disk_json(s, &disks[i], model, qos, root);

		if (!d)
			goto out;
		cJSON_AddItemToArray(jdisks, d);
		any_enabled |= iocost_config_enabled(iocost_config_find(qos, disks[i].major, disks[i].minor));
	}
	if (s->io_controller) {
		err = pass_read(s, &pass, qos, now);
		if (err) {
			log_warn("iocost: reading cgroups under %s: %s", s->mount, strerror(-err));
			goto out;
		}
	}
	wall_us = s->prev_ns && now > s->prev_ns ? (double)(now - s->prev_ns) / 1000.0 : 0;
	if (any_enabled && wall_us > 0) {
		weights_hweight(&pass.tree, pass.rows, pass.nrows);
		for (size_t i = 0; i < pass.nrows; i++) {
			cJSON *r = row_json(&pass.tree, &pass.rows[i], wall_us, &from_bpf);

			if (!r)
				goto out;
			cJSON_AddItemToArray(jcg, r);
		}
	}
	bad += pass.bad_lines;
	if (bad) {
		cJSON_AddNumberToObject(sec, "parse_warnings", bad);
		if (bad != s->warned_bad)
			log_warn("iocost: skipped %u malformed line(s) in io.stat/io.weight/io.cost.*", bad);
	}
	s->warned_bad = bad;
	adopt_samples(s, &pass, now);
	err = 0;
out:
	pass_free(&pass);
	free(model);
	free(qos);
	free(root);
	free(disks);
	return err;
}

const struct collector iocost_collector = {
	.name = "iocost",
	.open = iocost_open,
	.collect = iocost_collect,
	.close = iocost_close,
};
