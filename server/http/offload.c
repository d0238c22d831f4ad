/* offload.c - see offload.h. A request goes through three steps: its HTTP
 * thread suspends it and queues it here; a worker runs its handler, whose
 * reply http_send keeps in the request instead of queueing it (the request is
 * marked on_worker); the worker resumes it, and its HTTP thread, called again
 * by libmicrohttpd, queues the kept reply (http.c). A worker runs the handler
 * through http_run_handler, as an HTTP thread does: http_drain waits for it,
 * and once the server drains what is left in the queue is answered 503
 * without running.
 */
#include "server/http/offload.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

/* Requests waiting for a worker beyond this many are answered 503 at once. */
#define OFFLOAD_QUEUE_MAX 256

/* What a read refused for a full queue is told to wait before it asks again. */
#define OFFLOAD_RETRY_AFTER_S 1

struct offload_job {
	struct offload_job *next;
	struct http_request *req;
	route_handler handler;
};

struct offload {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct offload_job *head, **tail;
	unsigned queued;
	bool stopping;
	unsigned nthreads;
	pthread_t threads[];
};

static void run_job(struct offload_job *job)
{
	struct http_request *req = job->req;

	req->on_worker = true;
	req->worker_ret = http_run_handler(req, job->handler);
	req->on_worker = false;
	req->worker_done = true;
	free(job);
	MHD_resume_connection(req->conn); /* the request may be freed from here on */
}

static void *worker_main(void *arg)
{
	struct offload *o = arg;

	pthread_setname_np(pthread_self(), "http-reader"); /* for top -H and /proc/PID/task */
	pthread_mutex_lock(&o->mu);
	for (;;) {
		struct offload_job *job;

		while (!o->head && !o->stopping)
			pthread_cond_wait(&o->cv, &o->mu);
		job = o->head;
		if (!job)
			break;
		o->head = job->next;
		if (!o->head)
			o->tail = &o->head;
		o->queued--;
		pthread_mutex_unlock(&o->mu);
		run_job(job);
		pthread_mutex_lock(&o->mu);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

struct offload *offload_start(unsigned threads)
{
	struct offload *o = calloc(1, sizeof(*o) + threads * sizeof(pthread_t));
	int err;

	if (!o)
		return NULL;
	o->tail = &o->head;
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	for (; o->nthreads < threads; o->nthreads++) {
		err = pthread_create(&o->threads[o->nthreads], NULL, worker_main, o);
		if (err) {
			offload_stop(o);
			errno = err;
			return NULL;
		}
	}
	return o;
}

void offload_stop(struct offload *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->mu);
	o->stopping = true;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	for (unsigned i = 0; i < o->nthreads; i++)
		pthread_join(o->threads[i], NULL);
	pthread_cond_destroy(&o->cv);
	pthread_mutex_destroy(&o->mu);
	free(o);
}

enum MHD_Result offload_run(struct offload *o, struct http_request *req, route_handler handler)
{
	struct offload_job *job = calloc(1, sizeof(*job));

	if (!job)
		return MHD_NO;
	job->req = req;
	job->handler = handler;
	pthread_mutex_lock(&o->mu);
	if (o->queued >= OFFLOAD_QUEUE_MAX || o->stopping) {
		pthread_mutex_unlock(&o->mu);
		free(job);
		return http_reply_unavailable(req, OFFLOAD_RETRY_AFTER_S, "too many reads are waiting; retry in %d s",
					      OFFLOAD_RETRY_AFTER_S);
	}
	/* suspended before a worker can see it: a worker resumes only a suspended request */
	http_suspend(req);
	*o->tail = job;
	o->tail = &job->next;
	o->queued++;
	pthread_cond_signal(&o->cv);
	pthread_mutex_unlock(&o->mu);
	return MHD_YES;
}
