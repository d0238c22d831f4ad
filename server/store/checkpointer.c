/* checkpointer.c - see checkpointer.h. */
#include "server/store/checkpointer.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

struct checkpointer {
	struct store *st;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stopping;
};

static void *checkpointer_main(void *arg)
{
	struct checkpointer *c = arg;

	pthread_setname_np(pthread_self(), "checkpointer");
	pthread_mutex_lock(&c->mu);
	while (!c->stopping) {
		struct timespec until;

		pthread_mutex_unlock(&c->mu);
		c->st->ops->maintain(c->st, true);
		pthread_mutex_lock(&c->mu);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		if (!c->stopping)
			pthread_cond_timedwait(&c->cv, &c->mu, &until);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

struct checkpointer *checkpointer_start(struct store *st)
{
	struct checkpointer *c = calloc(1, sizeof(*c));

	if (!c) {
		st->ops->close(st);
		return NULL;
	}
	c->st = st;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	if (pthread_create(&c->thread, NULL, checkpointer_main, c) != 0) {
		st->ops->close(st);
		free(c);
		return NULL;
	}
	return c;
}

void checkpointer_stop(struct checkpointer *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stopping = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	c->st->ops->close(c->st);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}
