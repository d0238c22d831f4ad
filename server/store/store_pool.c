/* store_pool.c - see store_pool.h. */
#include "server/store/store_pool.h"

#include <pthread.h>
#include <stdlib.h>

struct store_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n, free_n;
	struct store **all, **free_list;
};

struct store_pool *store_pool_open(const char *path, unsigned n, char *err, size_t errlen)
{
	struct store_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->all = calloc(n, sizeof(*p->all));
	p->free_list = calloc(n, sizeof(*p->free_list));
	if (!p->all || !p->free_list)
		goto fail;
	for (; p->n < n; p->n++) {
		p->all[p->n] = store_open(path, err, errlen);
		if (!p->all[p->n])
			goto fail;
		p->free_list[p->free_n++] = p->all[p->n];
	}
	return p;
fail:
	store_pool_close(p);
	return NULL;
}

struct store *store_pool_get(struct store_pool *p)
{
	struct store *st;

	pthread_mutex_lock(&p->mu);
	while (p->free_n == 0)
		pthread_cond_wait(&p->cv, &p->mu);
	st = p->free_list[--p->free_n];
	pthread_mutex_unlock(&p->mu);
	return st;
}

void store_pool_put(struct store_pool *p, struct store *st)
{
	pthread_mutex_lock(&p->mu);
	p->free_list[p->free_n++] = st;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void store_pool_close(struct store_pool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		p->all[i]->ops->close(p->all[i]);
	free(p->all);
	free(p->free_list);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
