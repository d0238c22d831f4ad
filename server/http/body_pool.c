/* body_pool.c - see body_pool.h. A thread's kept buffers live in a block
 * found through a pthread key, whose destructor frees them when the thread
 * ends. Under AddressSanitizer a kept buffer is poisoned until it is handed
 * out again, so a use after the request freed its body is still caught.
 */
#include "server/http/body_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The smallest buffer handed out: headers-only bodies and small JSON share it. */
#define BODY_POOL_MIN_CAP ((size_t)4096)

struct kept {
	char *p;
	size_t cap;
};

struct body_pool {
	int n;
	struct kept b[BODY_POOL_KEEP];
};

static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static bool pool_key_ok;

static void pool_destroy(void *arg)
{
	struct body_pool *bp = arg;

	for (int i = 0; i < bp->n; i++) {
		UNPOISON(bp->b[i].p, bp->b[i].cap);
		free(bp->b[i].p);
	}
	free(bp);
}

static void pool_key_make(void)
{
	pool_key_ok = pthread_key_create(&pool_key, pool_destroy) == 0;
}

/* This thread's pool, made on first use; NULL when it cannot be. */
static struct body_pool *pool(void)
{
	struct body_pool *bp;

	pthread_once(&pool_once, pool_key_make);
	if (!pool_key_ok)
		return NULL;
	bp = pthread_getspecific(pool_key);
	if (!bp) {
		bp = calloc(1, sizeof(*bp));
		if (bp && pthread_setspecific(pool_key, bp) != 0) {
			free(bp);
			bp = NULL;
		}
	}
	return bp;
}

char *body_pool_get(size_t need, size_t *cap)
{
	struct body_pool *bp = need <= BODY_POOL_MAX_CAP ? pool() : NULL;
	size_t c = BODY_POOL_MIN_CAP;
	char *p;

	/* the most recently kept first: the likeliest still in the cache */
	for (int i = bp ? bp->n - 1 : -1; i >= 0; i--) {
		if (bp->b[i].cap < need)
			continue;
		p = bp->b[i].p;
		*cap = bp->b[i].cap;
		bp->b[i] = bp->b[--bp->n];
		UNPOISON(p, *cap);
		return p;
	}
	while (c < need && c <= BODY_POOL_MAX_CAP / 2)
		c *= 2;
	if (c < need)
		c = need;
	p = malloc(c);
	*cap = p ? c : 0;
	return p;
}

void body_pool_put(char *p, size_t cap)
{
	struct body_pool *bp;

	if (!p)
		return;
	bp = cap >= BODY_POOL_MIN_CAP && cap <= BODY_POOL_MAX_CAP ? pool() : NULL;
	if (!bp || bp->n == BODY_POOL_KEEP) {
		free(p);
		return;
	}
	POISON(p, cap);
	bp->b[bp->n++] = (struct kept){ p, cap };
}
