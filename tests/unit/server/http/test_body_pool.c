/* test_body_pool.c - the HTTP threads' body buffers: one freed is handed out
 * again to a request it fits, one too small is not, a thread keeps at most
 * BODY_POOL_KEEP and nothing past BODY_POOL_MAX_CAP, and each thread has its
 * own (a buffer kept by one is never handed out by another).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/http/body_pool.h"

static void test_a_kept_buffer_is_handed_out_again(void **state)
{
	size_t cap = 0, cap2 = 0;
	char *p = body_pool_get(17163, &cap), *q;

	(void)state;
	assert_non_null(p);
	assert_true(cap >= 17163);
	assert_int_equal(cap & (cap - 1), 0); /* a power of two, so the next report's body fits too */
	memset(p, 'x', cap);                  /* all of it is usable */
	body_pool_put(p, cap);
	q = body_pool_get(17000, &cap2);
	assert_ptr_equal(q, p);
	assert_int_equal(cap2, cap);
	body_pool_put(q, cap2);
}

static void test_a_larger_need_gets_a_new_buffer(void **state)
{
	size_t cap = 0, big = 0;
	char *p = body_pool_get(5000, &cap), *q;

	(void)state;
	body_pool_put(p, cap);
	q = body_pool_get(cap + 1, &big);
	assert_non_null(q);
	assert_ptr_not_equal(q, p);
	assert_true(big >= cap + 1);
	body_pool_put(q, big);
}

static void test_growing_by_realloc_and_huge_bodies(void **state)
{
	size_t cap = 0, cap2 = 0;
	char *p = body_pool_get(100, &cap), *q;

	(void)state;
	q = realloc(p, 3 * cap); /* body_append grows a pooled buffer with realloc */
	assert_non_null(q);
	memset(q, 'y', 3 * cap);
	body_pool_put(q, 3 * cap);
	p = body_pool_get(BODY_POOL_MAX_CAP + 1, &cap2); /* past the kept size: exactly what was asked */
	assert_non_null(p);
	assert_int_equal(cap2, BODY_POOL_MAX_CAP + 1);
	body_pool_put(p, cap2); /* freed, not kept: ASan's leak check would see it otherwise */
}

static void test_a_thread_keeps_a_bounded_number(void **state)
{
	char *p[BODY_POOL_KEEP + 4];
	size_t cap[BODY_POOL_KEEP + 4];
	int again = 0;

	(void)state;
	for (int i = 0; i < BODY_POOL_KEEP + 4; i++) {
		p[i] = body_pool_get(4096, &cap[i]);
		assert_non_null(p[i]);
	}
	for (int i = 0; i < BODY_POOL_KEEP + 4; i++)
		body_pool_put(p[i], cap[i]);
	/* the pool holds BODY_POOL_KEEP; taking more than that needs new buffers */
	for (int i = 0; i < BODY_POOL_KEEP + 4; i++) {
		size_t c;
		char *q = body_pool_get(4096, &c);

		for (int j = 0; j < BODY_POOL_KEEP + 4; j++)
			again += q == p[j];
		p[i] = q;
		cap[i] = c;
	}
	assert_true(again <= BODY_POOL_KEEP);
	assert_true(again >= 1);
	for (int i = 0; i < BODY_POOL_KEEP + 4; i++)
		body_pool_put(p[i], cap[i]);
}

static void *other_thread(void *arg)
{
	size_t cap;
	char *q = body_pool_get(4096, &cap);

	*(char **)arg = q;
	body_pool_put(q, cap); /* kept by this thread and freed when it ends */
	return NULL;
}

static void test_threads_keep_their_own(void **state)
{
	size_t cap;
	char *mine = body_pool_get(4096, &cap), *theirs = NULL;
	pthread_t t;

	(void)state;
	body_pool_put(mine, cap);
	assert_int_equal(pthread_create(&t, NULL, other_thread, &theirs), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_non_null(theirs);
	assert_ptr_not_equal(theirs, mine);
	assert_ptr_equal(body_pool_get(4096, &cap), mine); /* still this thread's */
	free(mine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_kept_buffer_is_handed_out_again),
		cmocka_unit_test(test_a_larger_need_gets_a_new_buffer),
		cmocka_unit_test(test_growing_by_realloc_and_huge_bodies),
		cmocka_unit_test(test_a_thread_keeps_a_bounded_number),
		cmocka_unit_test(test_threads_keep_their_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
