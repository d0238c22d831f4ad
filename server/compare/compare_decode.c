/* compare_decode.c - see compare_decode.h.
 *
 * Each decoder has its own bounded queue of rows (a ring of copies of their
 * blobs: the store's blob dies with the row), fed by the caller's scan. Host
 * h goes to decoder h % (decoders + 1) - 1, the hosts of share 0 staying
 * with the caller, which also reads the rows: on two cores the caller and
 * one decoder split the work. A blob that does not decode adds nothing, as
 * when the caller decodes it.
 */
#include "server/compare/compare_decode.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_ROWS 128
#define WAKE_ROWS 32

struct decode_job {
	void *blob;
	size_t len, n;
	struct runqlat_hist *dst[COMPARE_DECODE_MAX_DST];
};

struct decoder {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	struct decode_job ring[QUEUE_ROWS];
	size_t head, n;
	bool closing;
	int rc; /* -ENOMEM once a row could not be decoded for want of memory */
	runqlat_filter_fn want;
	void *arg;
	struct runqlat_hist row; /* one row's wanted series, merged */
};

struct compare_decode {
	struct decoder *v;
	unsigned n;
};

static void decode_one(struct decoder *d, struct decode_job *j)
{
	int rc;

	memset(&d->row.hist, 0, sizeof(d->row.hist));
	rc = runqlat_hist_add_blob(&d->row, j->blob, j->len, d->want, d->arg);
	if (rc == -ENOMEM)
		d->rc = rc;
	if (rc == 0)
		for (size_t k = 0; k < j->n; k++)
			runqlat_hist_add(j->dst[k], &d->row);
	free(j->blob);
}

static void *decoder_main(void *arg)
{
	struct decoder *d = arg;

	pthread_setname_np(pthread_self(), "compare-decode");
	for (;;) {
		struct decode_job job;

		pthread_mutex_lock(&d->mu);
		while (d->n == 0 && !d->closing)
			pthread_cond_wait(&d->not_empty, &d->mu);
		if (d->n == 0) {
			pthread_mutex_unlock(&d->mu);
			break;
		}
		job = d->ring[d->head];
		d->head = (d->head + 1) % QUEUE_ROWS;
		d->n--;
		pthread_cond_signal(&d->not_full);
		pthread_mutex_unlock(&d->mu);
		/* d->rc and d->row are this thread's until it is joined */
		decode_one(d, &job);
	}
	return NULL;
}

struct compare_decode *compare_decode_start(unsigned threads, runqlat_filter_fn want, void *arg)
{
	struct compare_decode *cd;

	if (threads == 0)
		return NULL;
	cd = calloc(1, sizeof(*cd));
	if (!cd || !(cd->v = calloc(threads, sizeof(*cd->v)))) {
		free(cd);
		return NULL;
	}
	for (unsigned i = 0; i < threads; i++) {
		struct decoder *d = &cd->v[i];

		d->want = want;
		d->arg = arg;
		pthread_mutex_init(&d->mu, NULL);
		pthread_cond_init(&d->not_empty, NULL);
		pthread_cond_init(&d->not_full, NULL);
		if (pthread_create(&d->thread, NULL, decoder_main, d) != 0) {
			pthread_cond_destroy(&d->not_full);
			pthread_cond_destroy(&d->not_empty);
			pthread_mutex_destroy(&d->mu);
			break;
		}
		cd->n++;
	}
	if (cd->n == 0) {
		free(cd->v);
		free(cd);
		return NULL;
	}
	return cd;
}

bool compare_decode_takes(const struct compare_decode *d, size_t host)
{
	return d && host % (d->n + 1) != 0;
}

int compare_decode_push(struct compare_decode *cd, size_t host, const void *blob, size_t len,
			struct runqlat_hist *const *dst, size_t n)
{
	struct decoder *d;
	struct decode_job job = { .len = len, .n = n };

	if (!compare_decode_takes(cd, host) || n == 0 || n > COMPARE_DECODE_MAX_DST)
		return -EINVAL;
	d = &cd->v[host % (cd->n + 1) - 1];
	job.blob = malloc(len ? len : 1);
	if (!job.blob)
		return -ENOMEM;
	memcpy(job.blob, blob, len);
	memcpy(job.dst, dst, n * sizeof(*dst));
	pthread_mutex_lock(&d->mu);
	while (d->n == QUEUE_ROWS)
		pthread_cond_wait(&d->not_full, &d->mu);
	d->ring[(d->head + d->n) % QUEUE_ROWS] = job;
	d->n++;
	/* a sleeping decoder is woken for a batch, not for each row: a wake-up costs more than a row */
	if (d->n >= WAKE_ROWS)
		pthread_cond_signal(&d->not_empty);
	pthread_mutex_unlock(&d->mu);
	return 0;
}

int compare_decode_finish(struct compare_decode *cd)
{
	int rc = 0;

	if (!cd)
		return 0;
	for (unsigned i = 0; i < cd->n; i++) {
		struct decoder *d = &cd->v[i];

		pthread_mutex_lock(&d->mu);
		d->closing = true;
		pthread_cond_signal(&d->not_empty);
		pthread_mutex_unlock(&d->mu);
	}
	for (unsigned i = 0; i < cd->n; i++) {
		struct decoder *d = &cd->v[i];

		pthread_join(d->thread, NULL);
		if (d->rc)
			rc = d->rc;
		pthread_cond_destroy(&d->not_full);
		pthread_cond_destroy(&d->not_empty);
		pthread_mutex_destroy(&d->mu);
	}
	free(cd->v);
	free(cd);
	return rc;
}
