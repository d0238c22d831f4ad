/* ingest.c - see ingest.h.
 *
 * The writer takes everything
 * queued as one batch: while it commits batch N the next one gathers, so the
 * batch size grows with the load and fsyncs stay few. A job holds its
 * report until the writer is done with it; the request frees the job.
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
#define INGEST_MAX_QUEUE 32768

struct ingest {
	struct server *srv;
	struct store *st;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv, fence_cv;
	struct ingest_job *head, *tail;
	size_t queued;
	bool stopping;
	int64_t minute_mark;
	uint64_t batch_started, batch_done;
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

static void finish_batch(struct ingest *in, struct ingest_job **jobs, int *results, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct MHD_Connection *conn = jobs[i]->conn;

		jobs[i]->result = results[i];
		atomic_store(&jobs[i]->done, 1);
		MHD_resume_connection(conn);
	}
}

static void *writer_main(void *arg)
{
	struct ingest *in = arg;
	struct ingest_job **jobs = calloc(INGEST_MAX_BATCH, sizeof(*jobs));
	struct report **reps = calloc(INGEST_MAX_BATCH, sizeof(*reps));
	int *results = calloc(INGEST_MAX_BATCH, sizeof(*results));

	for (;;) {
		size_t n = 0;
		int64_t mark;
		uint64_t gen;

		pthread_mutex_lock(&in->mu);
		while (!in->head && !in->stopping)
			pthread_cond_wait(&in->cv, &in->mu);
		if (!in->head) {
			pthread_mutex_unlock(&in->mu);
			break;
		}
		while (in->head && n < INGEST_MAX_BATCH && jobs && reps && results) {
			jobs[n] = in->head;
			reps[n] = &in->head->rep;
			in->head = in->head->next;
			n++;
		}
		if (!in->head)
			in->tail = NULL;
		in->queued -= n;
		mark = in->minute_mark;
		gen = ++in->batch_started;
		pthread_mutex_unlock(&in->mu);

		if (n == 0) { /* out of memory for the batch arrays: fail what is queued */
			log_error("ingest: out of memory");
			break;
		}
		if (in->st->ops->put_reports(in->st, reps, n, results, ingest_now_ms(), mark) < 0)
			log_error("ingest: batch of %zu reports not stored: %s", n, in->st->ops->errmsg(in->st));
		atomic_fetch_add(&in->srv->stats.batches, 1);
		atomic_fetch_add(&in->srv->stats.batch_reports, n);
		finish_batch(in, jobs, results, n);
		in->st->ops->maintain(in->st, false); /* after the answers went out */

		pthread_mutex_lock(&in->mu);
		in->batch_done = gen;
		pthread_cond_broadcast(&in->fence_cv);
		pthread_mutex_unlock(&in->mu);
	}
	free(jobs);
	free(reps);
	free(results);
	return NULL;
}

struct ingest *ingest_start(struct server *srv, struct store *st)
{
	struct ingest *in = calloc(1, sizeof(*in));

	if (!in) {
		st->ops->close(st);
		return NULL;
	}
	in->srv = srv;
	in->st = st;
	in->minute_mark = INT64_MIN;
	pthread_mutex_init(&in->mu, NULL);
	pthread_cond_init(&in->cv, NULL);
	pthread_cond_init(&in->fence_cv, NULL);
	if (pthread_create(&in->thread, NULL, writer_main, in) != 0) {
		st->ops->close(st);
		free(in);
		return NULL;
	}
	return in;
}

void ingest_stop(struct ingest *in)
{
	if (!in)
		return;
	pthread_mutex_lock(&in->mu);
	in->stopping = true;
	pthread_cond_broadcast(&in->cv);
	pthread_cond_broadcast(&in->fence_cv);
	pthread_mutex_unlock(&in->mu);
	pthread_join(in->thread, NULL);
	/* Jobs left by a writer that gave up are answered as failures. */
	while (in->head) {
		struct ingest_job *job = in->head;
		int fail = STORE_FAILED;

		in->head = job->next;
		finish_batch(in, &job, &fail, 1);
	}
	in->st->ops->close(in->st);
	pthread_cond_destroy(&in->cv);
	pthread_cond_destroy(&in->fence_cv);
	pthread_mutex_destroy(&in->mu);
	free(in);
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

bool ingest_submit(struct ingest *in, struct ingest_job *job)
{
	bool ok;

	pthread_mutex_lock(&in->mu);
	ok = !in->stopping && in->queued < INGEST_MAX_QUEUE;
	if (ok) {
		if (in->tail)
			in->tail->next = job;
		else
			in->head = job;
		in->tail = job;
		in->queued++;
		pthread_cond_signal(&in->cv);
	}
	pthread_mutex_unlock(&in->mu);
	return ok;
}
