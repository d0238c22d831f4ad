/* rollup.c - see rollup.h.
 *
 * Invariants: every minute bucket before mark[MINUTE] has a rollup row per
 * host that reported in it, computed from all raw reports committed before
 * the bucket was read; a report committed later for such a minute was queued
 * in rollup_dirty by the writer (ingest_fence makes "before the read" and
 * "after the mark moved" cover every report), and is redone from raw. Hours
 * are built from minutes the same way. A rollup row is always recomputed
 * from the level below, never patched, so redoing a bucket is idempotent and
 * a crash only repeats work. Computing happens outside any transaction;
 * writes go in chunks, so the ingest writer waits at most one chunk.
 *
 * Runqueue latency by scheduler stays exact through every level: a rollup
 * row keeps the merged per-scheduler split of its rows (RUNQLAT_SCHED series, see
 * runqlat_set.h), and the fleet's sched_ext groups are built from that split
 * rather than from the row's one sched_group.
 */
#include "server/series/rollup.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "server/ingest/ingest.h"
#include "server/series/iocost_set.h"
#include "server/series/runqlat_set.h"
#include "server/store/store_dicts.h"

#define DAY_MS (24 * STORE_HOUR_MS)
/* The rollup worker's nice value (see rollup_main). */
#define ROLLUP_NICE 10
#define CHUNK_HOSTS 256
#define MAX_BUCKETS_PER_RUN 30
#define EXPIRE_CHUNK 5000
#define DIRTY_CHUNK 512
#define BEHIND_PAUSE_NS (5 * 1000000L) /* between the worker's transactions while it is behind */

const int64_t rollup_default_retain_ms[STORE_LEVELS] = { 2 * DAY_MS, 14 * DAY_MS, 365 * DAY_MS };

static const char *const mark_key[STORE_LEVELS] = { NULL, "rollup_minute_mark_ms", "rollup_hour_mark_ms" };

static int64_t width(enum store_level lv)
{
	return lv == STORE_HOUR ? STORE_HOUR_MS : STORE_MINUTE_MS;
}

static int64_t floor_to(int64_t t, int64_t w)
{
	return t - ((t % w) + w) % w;
}

struct ids {
	int64_t (*v)[2];
	size_t n, cap;
};

static int ids_add(void *arg, int64_t a, int64_t b)
{
	struct ids *ids = arg;

	for (size_t i = 0; b && i < ids->n; i++)
		if (ids->v[i][0] == a && ids->v[i][1] == b)
			return 0;
	if (ids->n == ids->cap) {
		size_t cap = ids->cap ? ids->cap * 2 : 64;
		void *nv = realloc(ids->v, cap * sizeof(*ids->v));

		if (!nv)
			return -ENOMEM;
		ids->v = nv;
		ids->cap = cap;
	}
	ids->v[ids->n][0] = a;
	ids->v[ids->n][1] = b;
	ids->n++;
	return 0;
}

/* One host's bucket being merged from the rows of the level below. */
struct acc {
	int64_t host_id, t, last_t;
	struct runqlat_set whole, series, sched; /* sched: RUNQLAT_SCHED series per scheduler group */
	struct iocost_set io;
	bool has_rq, has_io;
	char *group, *kernel;
	struct blob out[3];
};

static void acc_free(struct acc *a)
{
	runqlat_set_free(&a->whole);
	runqlat_set_free(&a->series);
	runqlat_set_free(&a->sched);
	iocost_set_free(&a->io);
	free(a->group);
	free(a->kernel);
	for (int i = 0; i < 3; i++)
		blob_free(&a->out[i]);
	memset(a, 0, sizeof(*a));
}

static int acc_row(void *arg, const struct store_row *r)
{
	struct acc *a = arg;

	/* A corrupt blob is skipped, not fatal: one bad row must not stop every rollup. */
	if (r->host_hist &&
	    runqlat_set_add_blob(&a->whole, r->host_hist, r->host_hist_len, runqlat_set_want_host, NULL) == 0 &&
	    runqlat_set_add_sched(&a->sched, r->host_hist, r->host_hist_len, r->sched_group ? r->sched_group : "") == 0)
		a->has_rq = true;
	if (r->series)
		runqlat_set_add_blob(&a->series, r->series, r->series_len, NULL, NULL);
	if (r->iocost && iocost_set_add_blob(&a->io, r->iocost, r->iocost_len) == 0)
		a->has_io = true;
	if (!a->group || r->t >= a->last_t) {
		free(a->group);
		free(a->kernel);
		a->group = strdup(r->sched_group ? r->sched_group : "");
		a->kernel = strdup(r->kernel ? r->kernel : "");
		a->last_t = r->t;
		if (!a->group || !a->kernel)
			return -ENOMEM;
	}
	return 0;
}

/* Merges host's rows of the level below lv in [t, t + width) into a. */
static int acc_build(struct rollup *ru, enum store_level lv, int64_t host, int64_t t, struct acc *a)
{
	a->host_id = host;
	a->t = t;
	if (ru->st->ops->scan(ru->st, lv - 1, host, t, t + width(lv), acc_row, a) != 0)
		return -1;
	if (a->has_rq) {
		struct runqlat_hist *host = runqlat_set_get(&a->whole, RUNQLAT_HOST, "", 0);

		if (!host)
			return -1;
		runqlat_set_encode_host_hist(&a->out[0], host, &a->sched, a->group ? a->group : "");
		runqlat_set_encode(&a->series, &a->out[1]);
	}
	if (a->has_io)
		iocost_set_encode(&a->io, &a->out[2]);
	if (blob_pack(&a->out[0]) || blob_pack(&a->out[1]) || blob_pack(&a->out[2]))
		return -1;
	return a->out[0].oom || a->out[1].oom || a->out[2].oom ? -1 : 0;
}

static int acc_put(struct rollup *ru, enum store_level lv, const struct acc *a)
{
	struct store_row row = {
		.host_id = a->host_id,
		.t = a->t,
		.sched_group = a->group ? a->group : "",
		.kernel = a->kernel ? a->kernel : "",
		.host_hist = a->has_rq ? a->out[0].p : NULL,
		.host_hist_len = a->out[0].len,
		.series = a->has_rq ? a->out[1].p : NULL,
		.series_len = a->out[1].len,
		.iocost = a->has_io ? a->out[2].p : NULL,
		.iocost_len = a->out[2].len,
	};
	return ru->st->ops->rollup_put(ru->st, lv, &row);
}

/* The fleet merge of one bucket, one histogram per (dim, key). */
struct fleet {
	struct runqlat_set groups; /* kind = dim index, key = group key */
	int64_t *hosts;
	size_t hosts_cap;
};

static const char *const fleet_dims[] = { "none", "sched_ext", "kernel" };

/* Adds one host's h into group key of dimension d, counting the host there. */
static int fleet_add_one(struct fleet *f, int d, const char *key, const struct runqlat_hist *h)
{
	struct runqlat_hist *g = runqlat_set_get(&f->groups, (uint8_t)d, key, strlen(key));
	size_t idx = 0;

	if (!g)
		return -ENOMEM;
	while (f->groups.v[idx] != g)
		idx++;
	if (idx >= f->hosts_cap) {
		size_t cap = f->hosts_cap ? f->hosts_cap * 2 : 16;
		int64_t *nh = realloc(f->hosts, cap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		memset(nh + f->hosts_cap, 0, (cap - f->hosts_cap) * sizeof(*nh));
		f->hosts = nh;
		f->hosts_cap = cap;
	}
	f->hosts[idx]++;
	runqlat_hist_add(g, h);
	return 0;
}

/* Adds one host's bucket: the whole host to "all" and its kernel, each
 * scheduler's part (sched, RUNQLAT_SCHED series) to that scheduler's group, so a
 * host that switched counts in each group it had samples in. */
static int fleet_add(struct fleet *f, const char *kernel, const struct runqlat_hist *whole,
		     const struct runqlat_set *sched)
{
	int rc = fleet_add_one(f, 0, "all", whole);

	if (rc == 0)
		rc = fleet_add_one(f, 2, kernel && *kernel ? kernel : "unknown", whole);
	for (size_t i = 0; rc == 0 && i < sched->n; i++)
		rc = fleet_add_one(f, 1, sched->v[i]->key, sched->v[i]);
	return rc;
}

static int fleet_write(struct rollup *ru, enum store_level lv, int64_t t, struct fleet *f)
{
	for (size_t i = 0; i < f->groups.n; i++) {
		struct runqlat_set one = { .v = &f->groups.v[i], .n = 1, .cap = 1 };
		struct runqlat_hist *g = f->groups.v[i];
		uint8_t dim = g->kind;
		struct blob b = { 0 };
		int rc;

		g->kind = RUNQLAT_HOST;
		runqlat_set_encode(&one, &b);
		g->kind = dim;
		rc = b.oom || blob_pack(&b)
			 ? -1
			 : ru->st->ops->fleet_put(ru->st, lv, t, fleet_dims[dim], g->key, f->hosts[i], &b);
		blob_free(&b);
		if (rc)
			return -1;
	}
	return 0;
}

static void fleet_free(struct fleet *f)
{
	runqlat_set_free(&f->groups);
	free(f->hosts);
	memset(f, 0, sizeof(*f));
}

static int fleet_row(void *arg, const struct store_row *r)
{
	struct runqlat_hist *whole;
	struct runqlat_set sched = { 0 };
	int rc = 0;

	if (!r->host_hist)
		return 0;
	whole = calloc(1, sizeof(*whole));
	if (!whole)
		return -ENOMEM;
	/* A corrupt blob is left out rather than stopping the bucket. */
	if (runqlat_hist_add_blob(whole, r->host_hist, r->host_hist_len, runqlat_set_want_host, NULL) == 0 &&
	    runqlat_set_add_sched(&sched, r->host_hist, r->host_hist_len, r->sched_group ? r->sched_group : "") == 0)
		rc = fleet_add(arg, r->kernel, whole, &sched);
	runqlat_set_free(&sched);
	free(whole);
	return rc;
}

/* Rebuilds the fleet rows of bucket t of level lv from its host rows; inside a transaction. */
static int fleet_recompute(struct rollup *ru, enum store_level lv, int64_t t)
{
	struct fleet f = { 0 };
	int rc = ru->st->ops->scan_hist(ru->st, lv, -1, t, t + width(lv), fleet_row, &f);

	if (rc == 0)
		rc = fleet_write(ru, lv, t, &f);
	fleet_free(&f);
	return rc;
}

static int persist_mark(struct rollup *ru, enum store_level lv, int64_t mark)
{
	if (ru->st->ops->meta_put(ru->st, mark_key[lv], mark))
		return -1;
	atomic_store(&ru->mark[lv], mark);
	return 0;
}

/* Rolls up bucket t of level lv for every host that has rows below it, then the fleet. */
static int roll_bucket(struct rollup *ru, enum store_level lv, int64_t t)
{
	struct ids hosts = { 0 };
	struct fleet f = { 0 };
	struct acc *accs = calloc(CHUNK_HOSTS, sizeof(*accs));
	int rc = -1;

	if (!accs || ru->st->ops->hosts_in(ru->st, lv - 1, t, t + width(lv), ids_add, &hosts) != 0)
		goto out;
	for (size_t i = 0; i < hosts.n; i += CHUNK_HOSTS) {
		size_t n = hosts.n - i < CHUNK_HOSTS ? hosts.n - i : CHUNK_HOSTS;

		for (size_t k = 0; k < n; k++) {
			if (acc_build(ru, lv, hosts.v[i + k][0], t, &accs[k]))
				goto out;
			if (accs[k].has_rq && fleet_add(&f, accs[k].kernel, accs[k].whole.v[0], &accs[k].sched))
				goto out;
		}
		if (ru->st->ops->begin(ru->st))
			goto out;
		for (size_t k = 0; k < n; k++)
			if (acc_put(ru, lv, &accs[k])) {
				ru->st->ops->rollback(ru->st);
				goto out;
			}
		if (ru->st->ops->commit(ru->st)) {
			ru->st->ops->rollback(ru->st);
			goto out;
		}
		for (size_t k = 0; k < n; k++)
			acc_free(&accs[k]);
	}
	if (ru->st->ops->begin(ru->st))
		goto out;
	if (fleet_write(ru, lv, t, &f) || persist_mark(ru, lv, t + width(lv)) || ru->st->ops->commit(ru->st)) {
		ru->st->ops->rollback(ru->st);
		goto out;
	}
	rc = 0;
out:
	for (size_t k = 0; accs && k < CHUNK_HOSTS; k++)
		acc_free(&accs[k]);
	free(accs);
	free(hosts.v);
	fleet_free(&f);
	return rc;
}

/* Redoes one host's bucket at lv from the level below; inside a transaction. */
static int roll_host(struct rollup *ru, enum store_level lv, int64_t host, int64_t t)
{
	struct acc a = { 0 };
	int rc = acc_build(ru, lv, host, t, &a);

	if (rc == 0)
		rc = acc_put(ru, lv, &a);
	acc_free(&a);
	return rc;
}

/* Redoes buckets that got reports after they were rolled up; returns 1 if more are queued. */
static int redo_dirty(struct rollup *ru)
{
	struct ids dirty = { 0 }, minutes = { 0 }, hours = { 0 };
	int64_t hmark = atomic_load(&ru->mark[STORE_HOUR]);
	int n, rc = -1;

	if (ru->st->ops->begin(ru->st))
		return -1;
	n = ru->st->ops->dirty_take(ru->st, DIRTY_CHUNK, ids_add, &dirty);
	if (n < 0 || ru->st->ops->commit(ru->st)) {
		ru->st->ops->rollback(ru->st);
		goto out;
	}
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (ru->st->ops->begin(ru->st))
		goto out;
	for (size_t i = 0; i < dirty.n; i++) {
		int64_t host = dirty.v[i][0], t = dirty.v[i][1], h = floor_to(t, STORE_HOUR_MS);

		if (roll_host(ru, STORE_MINUTE, host, t) || ids_add(&minutes, t, 1))
			goto fail;
		if (h < hmark && (roll_host(ru, STORE_HOUR, host, h) || ids_add(&hours, h, 1)))
			goto fail;
	}
	for (size_t i = 0; i < minutes.n; i++)
		if (fleet_recompute(ru, STORE_MINUTE, minutes.v[i][0]))
			goto fail;
	for (size_t i = 0; i < hours.n; i++)
		if (fleet_recompute(ru, STORE_HOUR, hours.v[i][0]))
			goto fail;
	if (ru->st->ops->commit(ru->st))
		goto fail;
	rc = n == DIRTY_CHUNK;
	goto out;
fail:
	ru->st->ops->rollback(ru->st);
out:
	free(dirty.v);
	free(minutes.v);
	free(hours.v);
	return rc;
}

/* Rolls up the buckets of lv from its mark up to (not including) target. */
static int roll_level(struct rollup *ru, enum store_level lv, int64_t target, int *budget)
{
	int64_t t = atomic_load(&ru->mark[lv]);
	struct ids any = { 0 };
	int rc = 0;

	while (t<target && * budget> 0) {
		any.n = 0;
		/* Empty buckets only move the mark (persisted with the next real one). */
		if (ru->st->ops->hosts_in(ru->st, lv - 1, t, t + width(lv), ids_add, &any) != 0) {
			rc = -1;
			break;
		}
		if (any.n == 0) {
			atomic_store(&ru->mark[lv], t + width(lv));
		} else {
			if (roll_bucket(ru, lv, t)) {
				rc = -1;
				break;
			}
			(*budget)--;
		}
		t += width(lv);
	}
	free(any.v);
	if (rc == 0 && t >= target) {
		if (ru->st->ops->begin(ru->st) || persist_mark(ru, lv, t) || ru->st->ops->commit(ru->st)) {
			ru->st->ops->rollback(ru->st);
			return -1;
		}
	}
	return rc < 0 ? -1 : t < target;
}

static int expire_level(struct rollup *ru, enum store_level lv, int64_t now_ms)
{
	int64_t before = now_ms - ru->retain_ms[lv];
	int n;

	/* Raw rows not yet rolled up are kept whatever their age. */
	if (lv < STORE_HOUR && before > atomic_load(&ru->mark[lv + 1]))
		before = atomic_load(&ru->mark[lv + 1]);
	if (ru->st->ops->begin(ru->st))
		return -1;
	n = ru->st->ops->expire(ru->st, lv, before, EXPIRE_CHUNK);
	if (n < 0 || ru->st->ops->commit(ru->st)) {
		ru->st->ops->rollback(ru->st);
		return -1;
	}
	return n == EXPIRE_CHUNK;
}

/* A share of the store's move of old raw rows into denser storage (store compact): 1 if more remains, 0, -1. */
static int compact_raw(struct rollup *ru, int64_t now_ms)
{
	int n;

	if (!ru->st->ops->compact)
		return 0;
	n = ru->st->ops->compact(ru->st, now_ms, atomic_load(&ru->mark[STORE_MINUTE]));
	return n < 0 ? -1 : n;
}

/* 1 if this server runs job; with several servers on one database exactly one does (store try_lead). */
static int leads(struct rollup *ru, enum store_job job)
{
	return ru->st->ops->try_lead ? ru->st->ops->try_lead(ru->st, job) : 1;
}

/* A server that does not roll up follows the leader's persisted marks, so
 * its retention horizon and late-report fence move with the leader's. */
static int follow_marks(struct rollup *ru)
{
	for (int lv = STORE_MINUTE; lv < STORE_LEVELS; lv++) {
		int64_t v;
		int rc = ru->st->ops->meta_get(ru->st, mark_key[lv], &v);

		if (rc < 0)
			return -1;
		if (rc == 0 && v > atomic_load(&ru->mark[lv]))
			atomic_store(&ru->mark[lv], v);
	}
	if (ru->ingest)
		ingest_fence(ru->ingest, atomic_load(&ru->mark[STORE_MINUTE]));
	return 0;
}

/* Rolls up what is due and redoes late buckets; returns 1 if work remains, 0, or -1. */
static int roll_all(struct rollup *ru, int64_t now_ms)
{
	int64_t mtarget = floor_to(now_ms - ROLLUP_GRACE_MS, STORE_MINUTE_MS);
	int budget = MAX_BUCKETS_PER_RUN, more = 0, rc;

	if (ru->ingest && mtarget > atomic_load(&ru->mark[STORE_MINUTE]))
		ingest_fence(ru->ingest, mtarget);
	rc = roll_level(ru, STORE_MINUTE, mtarget, &budget);
	if (rc < 0)
		return -1;
	more |= rc;
	rc = roll_level(ru, STORE_HOUR, floor_to(atomic_load(&ru->mark[STORE_MINUTE]), STORE_HOUR_MS), &budget);
	if (rc < 0)
		return -1;
	more |= rc;
	rc = redo_dirty(ru);
	if (rc < 0)
		return -1;
	return more | rc;
}

int rollup_run(struct rollup *ru, int64_t now_ms)
{
	int more = 0, rc;

	/* Each job is done by the server leading it; the others follow its marks. */
	rc = leads(ru, STORE_JOB_ROLLUP);
	if (rc < 0)
		goto fail;
	more = rc ? roll_all(ru, now_ms) : follow_marks(ru);
	if (more < 0)
		goto fail;
	if (rc > 0) {
		int n = compact_raw(ru, now_ms);

		if (n < 0)
			goto fail;
		more |= n;
	}
	/* The leader trains the blob dictionaries; every server loads them (a failure is retried next round). */
	if (store_dicts_tend(ru->st, now_ms, rc > 0))
		log_warn("rollup: blob dictionaries: %s (will retry)", ru->st->ops->errmsg(ru->st));
	rc = leads(ru, STORE_JOB_RETAIN);
	if (rc < 0)
		goto fail;
	for (int lv = 0; rc > 0 && lv < STORE_LEVELS; lv++) {
		int n = expire_level(ru, lv, now_ms);

		if (n < 0)
			goto fail;
		more |= n;
	}
	return more;
fail:
	log_warn("rollup: %s (will retry)", ru->st->ops->errmsg(ru->st));
	return -1;
}

struct rollup *rollup_new(struct store *st, struct ingest *in, const int64_t retain_ms[STORE_LEVELS])
{
	struct rollup *ru = calloc(1, sizeof(*ru));
	int64_t now = ingest_now_ms(), v;

	if (!ru) {
		st->ops->close(st);
		return NULL;
	}
	ru->st = st;
	ru->ingest = in;
	memcpy(ru->retain_ms, retain_ms, sizeof(ru->retain_ms));
	pthread_mutex_init(&ru->mu, NULL);
	pthread_cond_init(&ru->cv, NULL);
	/* A new database starts rolling from where raw retention begins. */
	for (int lv = STORE_MINUTE; lv < STORE_LEVELS; lv++) {
		int rc = st->ops->meta_get(st, mark_key[lv], &v);

		if (rc < 0) {
			rollup_free(ru);
			return NULL;
		}
		atomic_store(&ru->mark[lv], rc == 0 ? v : floor_to(now - retain_ms[STORE_RAW], width(lv)));
	}
	if (in)
		ingest_fence(in, atomic_load(&ru->mark[STORE_MINUTE]));
	return ru;
}

static void *rollup_main(void *arg)
{
	struct rollup *ru = arg;
	int64_t last = 0;
	int rc = 0;

	pthread_setname_np(pthread_self(), "rollup");
	/* Rolling up a busy minute takes seconds of CPU; at a lower priority it
	 * yields the cores to the HTTP threads and the ingest writer, whose
	 * answers agents wait for, and catches up when they are idle. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), ROLLUP_NICE) != 0)
		log_warn("rollup: cannot lower the worker's priority: %s", strerror(errno));

	pthread_mutex_lock(&ru->mu);
	while (!ru->stopping) {
		struct timespec until;
		int64_t now = ingest_now_ms();

		pthread_mutex_unlock(&ru->mu);
		/* Rollups every 5 s (at once while behind, 10 s after an error). */
		if (rc > 0 || now - last >= (rc < 0 ? 10000 : 5000)) {
			rc = rollup_run(ru, now);
			last = now;
		}
		ru->st->ops->maintain(ru->st, false);
		pthread_mutex_lock(&ru->mu);
		if (ru->stopping)
			continue;
		/* While behind, a pause of a few ms between transactions lets the ingest writer, which waits for
		 * the database lock polling each millisecond, take it before this thread does again. */
		clock_gettime(CLOCK_REALTIME, &until);
		if (rc > 0)
			until.tv_nsec += BEHIND_PAUSE_NS;
		else
			until.tv_sec += 1;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&ru->cv, &ru->mu, &until);
	}
	pthread_mutex_unlock(&ru->mu);
	return NULL;
}

int rollup_start_thread(struct rollup *ru)
{
	if (pthread_create(&ru->thread, NULL, rollup_main, ru) != 0)
		return -1;
	ru->running = true;
	return 0;
}

void rollup_free(struct rollup *ru)
{
	if (!ru)
		return;
	if (ru->running) {
		pthread_mutex_lock(&ru->mu);
		ru->stopping = true;
		pthread_cond_signal(&ru->cv);
		pthread_mutex_unlock(&ru->mu);
		pthread_join(ru->thread, NULL);
	}
	ru->st->ops->close(ru->st);
	pthread_cond_destroy(&ru->cv);
	pthread_mutex_destroy(&ru->mu);
	free(ru);
}
