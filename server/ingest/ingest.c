/* ingest.c - see ingest.h.
 *
 * The HTTP thread does the CPU work (inflate, parse, encode blobs) and
 * suspends the connection before queueing the job, so the writer can never
 * resume a connection that is not suspended yet. The writer takes everything
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

#include "common/gz.h"
#include "common/log.h"
#include "server/http/auth.h"
#include "server/ingest/report_parse.h"
#include "server/ingest/stats.h"
#include "server/store/store.h"

#define INGEST_MAX_BATCH 4096
#define INGEST_MAX_QUEUE 32768

struct ingest_job {
	struct ingest_job *next;
	struct MHD_Connection *conn;
	struct report rep;
	int64_t t0_us;
	atomic_int done;           /* set by the writer before it resumes the connection */
	int result;                /* enum store_put_result, or -1 when refused */
};

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

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void job_free(void *p)
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

/* Queues a job; false when the server is stopping or the queue is full. */
static bool ingest_submit(struct ingest *in, struct ingest_job *job)
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

static enum MHD_Result reject(struct http_request *req, enum stats_reject why, unsigned status, const char *msg)
{
	atomic_fetch_add(&req->srv->stats.rejected[why], 1);
	return http_reply_error(req, status, "%s", msg);
}

static enum MHD_Result answer(struct http_request *req, struct ingest_job *job)
{
	struct stats *s = &req->srv->stats;
	enum MHD_Result ret;
	cJSON *doc;

	if (job->result == STORE_STORED || job->result == STORE_DUPLICATE) {
		atomic_fetch_add(job->result == STORE_STORED ? &s->accepted : &s->duplicates, 1);
		if (job->result == STORE_STORED && job->rep.dropped > 0)
			atomic_fetch_add(&s->agent_dropped, (uint_fast64_t)job->rep.dropped);
		doc = cJSON_CreateObject();
		if (doc) {
			cJSON_AddBoolToObject(doc, "duplicate", job->result == STORE_DUPLICATE);
			cJSON_AddNumberToObject(doc, "seq", (double)job->rep.seq);
		}
		ret = http_reply_json(req, MHD_HTTP_OK, doc);
	} else if (job->result < 0) {
		ret = reject(req, STATS_REJECT_UNAVAILABLE, MHD_HTTP_SERVICE_UNAVAILABLE,
			     "the server is busy or shutting down; retry later");
	} else {
		ret = reject(req, STATS_REJECT_STORE, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "the report could not be stored; retry later");
	}
	stats_latency(s, (uint64_t)(mono_us() - job->t0_us));
	return ret;
}

static enum stats_reject reason_of(int status)
{
	switch (status) {
	case 413:
		return STATS_REJECT_TOO_LARGE;
	case 415:
	case 422:
		return STATS_REJECT_UNSUPPORTED;
	case 400:
		return STATS_REJECT_INVALID;
	default:
		return STATS_REJECT_STORE;
	}
}

enum MHD_Result api_reports_post(struct http_request *req)
{
	struct server *srv = req->srv;
	struct ingest_job *job = req->state;
	const char *enc = http_header(req, MHD_HTTP_HEADER_CONTENT_ENCODING);
	char *inflated = NULL, err[512];
	const char *body = req->body;
	size_t len = req->body_len;
	enum MHD_Result reply;
	int status;

	if (job) /* resumed by the writer after the commit */
		return answer(req, job);
	if (!srv->opt.open_ingest && !auth_require(req, "ingest", &reply)) {
		atomic_fetch_add(&srv->stats.rejected[STATS_REJECT_UNAUTHORIZED], 1);
		return reply;
	}
	if (enc && strcasecmp(enc, "gzip") != 0 && strcasecmp(enc, "identity") != 0)
		return reject(req, STATS_REJECT_UNSUPPORTED, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
			      "Content-Encoding must be gzip or identity");
	if (enc && strcasecmp(enc, "gzip") == 0) {
		int rc = gz_inflate(req->body, req->body_len, srv->opt.max_inflated, &inflated, &len);

		if (rc == -E2BIG) {
			snprintf(err, sizeof(err), "decompressed body is larger than the limit of %zu bytes",
				 srv->opt.max_inflated);
			return reject(req, STATS_REJECT_TOO_LARGE, MHD_HTTP_CONTENT_TOO_LARGE, err);
		}
		if (rc < 0)
			return reject(req, rc == -ENOMEM ? STATS_REJECT_UNAVAILABLE : STATS_REJECT_INVALID,
				      rc == -ENOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_BAD_REQUEST,
				      rc == -ENOMEM ? "out of memory" : "body is not valid gzip data");
		body = inflated;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		free(inflated);
		return reject(req, STATS_REJECT_UNAVAILABLE, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
	}
	job->t0_us = mono_us();
	status = report_parse(body, len, &job->rep, err, sizeof(err));
	free(inflated);
	if (status) {
		job_free(job);
		return reject(req, reason_of(status), (unsigned)status, err);
	}
	job->conn = req->conn;
	req->state = job;
	req->state_free = job_free;
	MHD_suspend_connection(req->conn);
	if (!ingest_submit(srv->ingest, job)) {
		job->result = -1;
		atomic_store(&job->done, 1);
		MHD_resume_connection(req->conn);
	}
	return MHD_YES;
}
