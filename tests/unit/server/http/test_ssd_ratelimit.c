/* test_ssd_ratelimit.c - the per-address token bucket: burst, refill,
 * retry hint, independent addresses, and a full table reusing the oldest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/http/ssd_ratelimit.h"

static void test_burst_then_refill(void **state)
{
	struct ssd_ratelimit *rl = ssd_ratelimit_new(8, 3, 60); /* one token per second */
	unsigned retry = 0;

	for (int i = 0; i < 3; i++)
		assert_true(ssd_ratelimit_take(rl, "10.0.0.1", 1000, &retry));
	assert_false(ssd_ratelimit_take(rl, "10.0.0.1", 1000, &retry));
	assert_int_equal(retry, 1);
	assert_true(ssd_ratelimit_take(rl, "10.0.0.2", 1000, &retry)); /* another address has its own */
	assert_false(ssd_ratelimit_take(rl, "10.0.0.1", 1500, &retry));
	assert_true(ssd_ratelimit_take(rl, "10.0.0.1", 2000, &retry));
	/* refill never exceeds the burst */
	for (int i = 0; i < 3; i++)
		assert_true(ssd_ratelimit_take(rl, "10.0.0.1", 1000000, &retry));
	assert_false(ssd_ratelimit_take(rl, "10.0.0.1", 1000000, &retry));
	ssd_ratelimit_free(rl);
}

static void test_full_table_reuses_the_oldest(void **state)
{
	struct ssd_ratelimit *rl = ssd_ratelimit_new(2, 1, 1);
	unsigned retry;

	assert_true(ssd_ratelimit_take(rl, "a", 1, &retry));
	assert_true(ssd_ratelimit_take(rl, "b", 2, &retry));
	assert_false(ssd_ratelimit_take(rl, "b", 3, &retry));
	assert_true(retry >= 59);
	assert_true(ssd_ratelimit_take(rl, "c", 4, &retry));  /* takes a's slot */
	assert_false(ssd_ratelimit_take(rl, "b", 5, &retry)); /* b is still remembered */
	ssd_ratelimit_free(rl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_refill),
		cmocka_unit_test(test_full_table_reuses_the_oldest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
