/* ingest.c - see ingest.h.
 *
 * The writer takes everything queued as one batch: while it commits batch N
 * the next one gathers, so the batch size grows with the load and fsyncs
 * stay few. A job holds its report until the writer is done with it; the
 * request frees the job.
 *
 * The time bound rests on a cost model of the writer's commits (a fixed cost
 * per transaction plus a cost per report, both moving averages of what the
 * commits took), from which the wait of a report queued now is expected:
 * - a report is admitted only while that wait fits in half the bound, so
 *   what is stored is answered well inside it;
 * - a batch is cut to what commits in a quarter of the bound, so one commit
 *   never holds the queue for long;
 * - a report still queued when even a batch of its own could not commit in
 *   time (a commit or a checkpoint stalled) is refused by the shedder thread
 *   at that moment, not when the stall ends.
 * Group commit: when the writer finds fewer than INGEST_LINGER_BATCH reports
 * waiting, it waits up to the linger time (--ingest-linger) for more before
 * it commits, so a commit's fixed cost (its WAL append and fsync, the
 * writer waking) is shared by more reports at low rates; under load the
 * queue refills during each commit and the writer never lingers. It stops
 * lingering once a quarter of the linger time passes with no report
 * arriving: a lone sender, or one that waits for each answer, gains nothing
 * from the wait.
 * Refusing and taking a job both happen under the queue's lock, so a job is
 * either committed or refused, never both. The writer's own WAL checkpoint
 * waits for an empty queue (a second at most), so it does not hold up
 * waiting reports either.
 */
#include "server/ingest/ingest.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/log.h"
#include "server/ingest/report_parse.h"
#include "server/ingest/stats.h"
#include "server/store/store.h"

#define INGEST_MAX_BATCH 4096
/* The writer lingers only while fewer than this many reports wait: past ~50 a
 * commit's fixed cost is a small share of a report's (BENCHMARKS.md, session 30). */
#define INGEST_LINGER_BATCH 48
/* The writer stops lingering after linger time / this with no report arriving. */
#define INGEST_LINGER_GAP_DIV 4
/* The writer checkpoints when the queue is empty, or after this long without one. */
#define INGEST_MAINTAIN_DEFER_US 1000000
/* How long the writer waits without a report before the store's idle work (store_ops.idle). */
#define INGEST_IDLE_US 1000000
/* Retry-After stays within these seconds. */
#define INGEST_RETRY_MIN_S 1
#define INGEST_RETRY_MAX_S 60

struct ingest {
	struct server *srv;
	struct store *st;
	struct ingest_limits lim;
	pthread_t writer, shedder;
	pthread_mutex_t mu;
	pthread_cond_t cv, fence_cv, shed_cv; /* shed_cv runs on the monotonic clock */
	struct ingest_job *head, *tail;
	size_t queued;
	bool stopping;
	int64_t minute_mark;
	uint64_t batch_started, batch_done;
	/* The writer's cost model (µs) and the commit in progress, under mu. */
	int64_t fixed_us, per_report_us;
	bool lingering;       /* the writer waits for a fuller batch */
	int64_t arrived_us;   /* when the last report was queued */
	int64_t commit_t0_us; /* 0 when the writer is not committing */
	size_t commit_n;
	/* The writer's batch, its own. */
	struct ingest_job **jobs;
	struct report **reps;
	int *results;
};

int64_t ingest_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t ingest_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void ingest_job_free(void *p)
{
	struct ingest_job *job = p;

	if (!job)
		return;
	report_free(&job->rep);
	free(job);
}

/* Expected µs to commit a batch of n reports, never above half the bound: an
 * estimate gone wild (one stalled commit) must not refuse everything. */
static int64_t commit_cost(const struct ingest *in, size_t n)
{
	int64_t c = in->fixed_us + in->per_report_us * (int64_t)n;

	return c < in->lim.max_wait_us / 2 ? c : in->lim.max_wait_us / 2;
}

/* Expected µs until a report queued now is committed (under mu): the rest of
 * the commit in progress (as long again as it ran, once past its estimate),
 * then the queue ahead of it and itself in one batch. */
static int64_t expected_wait(const struct ingest *in, int64_t now)
{
	int64_t w = commit_cost(in, in->queued + 1);

	if (in->commit_t0_us) {
		int64_t ran = now - in->commit_t0_us, left = commit_cost(in, in->commit_n) - ran;

		w += left > 0 ? left : ran;
	}
	return w;
}

static unsigned retry_after_s(int64_t wait_us)
{
	int64_t s = (wait_us + 999999) / 1000000;

	return s < INGEST_RETRY_MIN_S ? INGEST_RETRY_MIN_S : s > INGEST_RETRY_MAX_S ? INGEST_RETRY_MAX_S : (unsigned)s;
}

/* Why a report that arrived at t0_us cannot be queued now, or -1 (under mu):
 * it already waited half the bound (unread in its socket while the HTTP
 * threads were busy), or would with the writer's backlog. An idle writer
 * takes any report still on time: the model only learns from commits. */
static int refusal(const struct ingest *in, int64_t t0_us, int64_t now, int64_t *wait)
{
	*wait = expected_wait(in, now);
	if (in->queued >= in->lim.max_queue)
		return STATS_SHED_QUEUE_FULL;
	if (now - t0_us > in->lim.max_wait_us / 2)
		return STATS_SHED_EXPECTED_WAIT;
	if (!in->queued && !in->commit_t0_us)
		return -1;
	if (now - t0_us + *wait > in->lim.max_wait_us / 2)
		return STATS_SHED_EXPECTED_WAIT;
	return -1;
}

/* Whether a queued job can no longer be committed within the bound, even in a batch of its own. */
static bool too_late(const struct ingest *in, const struct ingest_job *job, int64_t now)
{
	return now - job->t0_us + commit_cost(in, 1) > in->lim.max_wait_us;
}

static struct ingest_job *pop(struct ingest *in)
{
	struct ingest_job *job = in->head;

	in->head = job->next;
	if (!in->head)
		in->tail = NULL;
	in->queued--;
	job->next = NULL;
	return job;
}

/* Answers 503 + Retry-After to a list of jobs taken off the queue (never stored). */
static void refuse(struct ingest *in, struct ingest_job *list, enum stats_shed why, int64_t wait_us)
{
	while (list) {
		struct ingest_job *next = list->next;
		struct MHD_Connection *conn = list->conn;

		list->result = INGEST_REFUSED;
		list->retry_after_s = retry_after_s(wait_us);
		atomic_fetch_add(&in->srv->stats.shed[why], 1);
		atomic_store(&list->done, 1);
		MHD_resume_connection(conn); /* the request may free the job from here on */
		list = next;
	}
}

static void finish_batch(struct ingest_job **jobs, int *results, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct MHD_Connection *conn = jobs[i]->conn;

		jobs[i]->result = results[i];
		atomic_store(&jobs[i]->done, 1);
		MHD_resume_connection(conn);
	}
}

/* Reports per batch that commit within a quarter of the bound. */
static size_t batch_cap(const struct ingest *in)
{
	int64_t room = in->lim.max_wait_us / 4 - in->fixed_us, n;

	if (in->per_report_us <= 0)
		return INGEST_MAX_BATCH;
	n = room / in->per_report_us;
	return n < 1 ? 1 : n > INGEST_MAX_BATCH ? INGEST_MAX_BATCH : (size_t)n;
}

/* Takes the next batch, oldest first (under mu); what can no longer be
 * stored in time goes to *late instead. Returns the batch's size. */
static size_t take_batch(struct ingest *in, struct ingest_job **late, int64_t now)
{
	size_t cap = batch_cap(in), n = 0;
	int64_t cost = commit_cost(in, in->queued < cap ? in->queued : cap);

	while (in->head && n < cap) {
		struct ingest_job *job = pop(in);

		if (now - job->t0_us + cost > in->lim.max_wait_us) {
			job->next = *late;
			*late = job;
			continue;
		}
		in->jobs[n] = job;
		in->reps[n] = &job->rep;
		n++;
	}
	return n;
}

static int64_t ewma(int64_t avg, int64_t x)
{
	return avg ? avg + (x - avg) / 8 : x;
}

/* Updates the cost model with a commit of n reports that took us µs (under
 * mu). A small batch shows the fixed cost, and also caps the cost per report:
 * without that cap, one slow large batch would make admission keep batches
 * small, and small batches alone would never bring the estimate down. */
static void learn(struct ingest *in, size_t n, int64_t us)
{
	if (n <= 2) {
		in->fixed_us = ewma(in->fixed_us, us);
		if (in->per_report_us > us / (int64_t)n)
			in->per_report_us = ewma(in->per_report_us, us / (int64_t)n);
	} else {
		int64_t per = (us - in->fixed_us) / (int64_t)n;

		in->per_report_us = ewma(in->per_report_us, per > 1 ? per : 1);
	}
}

/* Group commit (see the top of the file), under in->mu; ingest_submit wakes
 * the writer when the batch is full. */
static void linger(struct ingest *in)
{
	int64_t now, until;

	if (in->lim.linger_us <= 0)
		return;
	now = ingest_mono_us();
	until = now + in->lim.linger_us;
	in->lingering = true;
	while (!in->stopping && in->queued < INGEST_LINGER_BATCH) {
		/* the sooner of the linger's end and a quiet gap since the last arrival */
		int64_t wake = in->arrived_us + in->lim.linger_us / INGEST_LINGER_GAP_DIV;
		struct timespec ts;

		if (wake > until)
			wake = until;
		if (now >= wake)
			break;
		ts.tv_sec = (time_t)(wake / 1000000);
		ts.tv_nsec = (long)(wake % 1000000) * 1000;
		pthread_cond_timedwait(&in->cv, &in->mu, &ts);
		now = ingest_mono_us();
	}
	in->lingering = false;
}

/* Waits, under in->mu, up to INGEST_IDLE_US for a report or the stop; 0 on the timeout. */
static int idle_wait(struct ingest *in)
{
	int64_t until = ingest_mono_us() + INGEST_IDLE_US;
	struct timespec ts = { .tv_sec = (time_t)(until / 1000000), .tv_nsec = (long)(until % 1000000) * 1000 };

	while (!in->head && !in->stopping && ingest_mono_us() < until)
		pthread_cond_timedwait(&in->cv, &in->mu, &ts);
	return in->head || in->stopping;
}

static void *writer_main(void *arg)
{
	struct ingest *in = arg;
	int64_t last_maintain = ingest_mono_us();
	bool idle_work = in->st->ops->idle != NULL;

	pthread_setname_np(pthread_self(), "ingest-writer"); /* for top -H and /proc/PID/task */

	for (;;) {
		struct ingest_job *late = NULL;
		int64_t mark, t0, took = 0, wait;
		uint64_t gen;
		size_t n, left;

		pthread_mutex_lock(&in->mu);
		while (!in->head && !in->stopping) {
			if (!idle_work) {
				pthread_cond_wait(&in->cv, &in->mu);
				continue;
			}
			/* The store's deferred work, once nothing has arrived for a while. */
			if (idle_wait(in) || in->head || in->stopping)
				continue;
			pthread_mutex_unlock(&in->mu);
			idle_work = in->st->ops->idle(in->st, ingest_now_ms()) > 0;
			pthread_mutex_lock(&in->mu);
		}
		linger(in);
		if (!in->head) {
			pthread_mutex_unlock(&in->mu);
			break;
		}
		t0 = ingest_mono_us();
		n = take_batch(in, &late, t0);
		mark = in->minute_mark;
		gen = ++in->batch_started;
		in->commit_t0_us = n ? t0 : 0;
		in->commit_n = n;
		wait = expected_wait(in, t0);
		pthread_mutex_unlock(&in->mu);

		refuse(in, late, STATS_SHED_DEADLINE, wait);
		if (n) {
			if (in->st->ops->put_reports(in->st, in->reps, n, in->results, ingest_now_ms(), mark) < 0)
				log_error("ingest: batch of %zu reports not stored: %s", n,
					  in->st->ops->errmsg(in->st));
			took = ingest_mono_us() - t0;
			stats_hist_add(&in->srv->stats.commit, (uint64_t)took);
			atomic_fetch_add(&in->srv->stats.batches, 1);
			atomic_fetch_add(&in->srv->stats.batch_reports, n);
			finish_batch(in->jobs, in->results, n);
		}

		pthread_mutex_lock(&in->mu);
		if (n)
			learn(in, n, took);
		idle_work = in->st->ops->idle != NULL;
		in->commit_t0_us = 0;
		in->batch_done = gen;
		left = in->queued;
		pthread_cond_broadcast(&in->fence_cv);
		pthread_mutex_unlock(&in->mu);
		/* After the answers went out, and only while no report waits for it. */
		if (!left || ingest_mono_us() - last_maintain > INGEST_MAINTAIN_DEFER_US) {
			in->st->ops->maintain(in->st, false);
			last_maintain = ingest_mono_us();
		}
	}
	return NULL;
}

/* Refuses queued reports the moment they can no longer be stored in time,
 * which matters while the writer is stuck in a long commit. */
static void *shedder_main(void *arg)
{
	struct ingest *in = arg;

	pthread_setname_np(pthread_self(), "ingest-shedder");
	pthread_mutex_lock(&in->mu);
	while (!in->stopping) {
		struct ingest_job *late = NULL, **end = &late;
		int64_t now = ingest_mono_us(), wait, next;
		struct timespec until;

		while (in->head && too_late(in, in->head, now)) {
			*end = pop(in);
			end = &(*end)->next;
		}
		wait = expected_wait(in, now);
		/* the head's deadline; a changing cost model is looked at again within an eighth of the bound */
		next = now + in->lim.max_wait_us / 8;
		if (in->head && in->head->t0_us + in->lim.max_wait_us - commit_cost(in, 1) < next)
			next = in->head->t0_us + in->lim.max_wait_us - commit_cost(in, 1);
		pthread_mutex_unlock(&in->mu);
		refuse(in, late, STATS_SHED_DEADLINE, wait);
		pthread_mutex_lock(&in->mu);
		if (in->stopping)
			break;
		if (!in->head) {
			pthread_cond_wait(&in->shed_cv, &in->mu); /* ingest_submit wakes it */
			continue;
		}
		until.tv_sec = (time_t)(next / 1000000);
		until.tv_nsec = (long)(next % 1000000) * 1000;
		pthread_cond_timedwait(&in->shed_cv, &in->mu, &until);
	}
	pthread_mutex_unlock(&in->mu);
	return NULL;
}

static void ingest_free(struct ingest *in)
{
	pthread_cond_destroy(&in->cv);
	pthread_cond_destroy(&in->fence_cv);
	pthread_cond_destroy(&in->shed_cv);
	pthread_mutex_destroy(&in->mu);
	free(in->jobs);
	free(in->reps);
	free(in->results);
	free(in);
}

struct ingest *ingest_start(struct server *srv, struct store *st, struct ingest_limits lim)
{
	struct ingest *in = calloc(1, sizeof(*in));
	pthread_condattr_t mono;

	if (!in) {
		st->ops->close(st);
		return NULL;
	}
	in->srv = srv;
	in->st = st;
	in->lim = lim;
	in->minute_mark = INT64_MIN;
	pthread_mutex_init(&in->mu, NULL);
	pthread_cond_init(&in->fence_cv, NULL);
	/* linger() and the shedder wait on the monotonic clock */
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pthread_cond_init(&in->cv, &mono);
	pthread_cond_init(&in->shed_cv, &mono);
	pthread_condattr_destroy(&mono);
	in->jobs = calloc(INGEST_MAX_BATCH, sizeof(*in->jobs));
	in->reps = calloc(INGEST_MAX_BATCH, sizeof(*in->reps));
	in->results = calloc(INGEST_MAX_BATCH, sizeof(*in->results));
	if (!in->jobs || !in->reps || !in->results || pthread_create(&in->writer, NULL, writer_main, in) != 0)
		goto fail;
	if (pthread_create(&in->shedder, NULL, shedder_main, in) != 0) {
		pthread_mutex_lock(&in->mu);
		in->stopping = true;
		pthread_cond_broadcast(&in->cv);
		pthread_mutex_unlock(&in->mu);
		pthread_join(in->writer, NULL);
		goto fail;
	}
	return in;
fail:
	st->ops->close(st);
	ingest_free(in);
	return NULL;
}

void ingest_stop(struct ingest *in)
{
	if (!in)
		return;
	pthread_mutex_lock(&in->mu);
	in->stopping = true;
	pthread_cond_broadcast(&in->cv);
	pthread_cond_broadcast(&in->fence_cv);
	pthread_cond_broadcast(&in->shed_cv);
	pthread_mutex_unlock(&in->mu);
	pthread_join(in->shedder, NULL);
	pthread_join(in->writer, NULL);
	/* The writer stored or refused everything queued before it stopped. */
	in->st->ops->close(in->st);
	ingest_free(in);
}

void ingest_fence(struct ingest *in, int64_t minute_mark)
{
	uint64_t gen;

	pthread_mutex_lock(&in->mu);
	if (minute_mark > in->minute_mark)
		in->minute_mark = minute_mark;
	gen = in->batch_started;
	while (in->batch_done < gen && !in->stopping)
		pthread_cond_wait(&in->fence_cv, &in->mu);
	pthread_mutex_unlock(&in->mu);
}

bool ingest_admit(struct ingest *in, int64_t t0_us, unsigned *retry_after)
{
	int64_t wait;
	bool stopping;
	int why;

	pthread_mutex_lock(&in->mu);
	stopping = in->stopping;
	why = refusal(in, t0_us, ingest_mono_us(), &wait);
	pthread_mutex_unlock(&in->mu);
	*retry_after = retry_after_s(wait);
	if (why >= 0 && !stopping)
		atomic_fetch_add(&in->srv->stats.shed[why], 1);
	return !stopping && why < 0;
}

bool ingest_submit(struct ingest *in, struct ingest_job *job)
{
	int64_t wait, now;
	bool stopping;
	int why;

	pthread_mutex_lock(&in->mu);
	stopping = in->stopping;
	now = ingest_mono_us();
	why = refusal(in, job->t0_us, now, &wait);
	if (!stopping && why < 0) {
		if (in->tail)
			in->tail->next = job;
		else
			in->head = job;
		in->tail = job;
		in->arrived_us = now;
		if (in->queued++ == 0)
			pthread_cond_signal(&in->shed_cv);
		/* a lingering writer wakes only for a full batch */
		if (!in->lingering || in->queued >= INGEST_LINGER_BATCH)
			pthread_cond_signal(&in->cv);
	}
	pthread_mutex_unlock(&in->mu);
	if (stopping || why >= 0) {
		job->retry_after_s = retry_after_s(wait);
		if (!stopping)
			atomic_fetch_add(&in->srv->stats.shed[why], 1);
		return false;
	}
	return true;
}

size_t ingest_queued(struct ingest *in)
{
	size_t n;

	pthread_mutex_lock(&in->mu);
	n = in->queued;
	pthread_mutex_unlock(&in->mu);
	return n;
}
