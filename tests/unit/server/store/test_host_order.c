/* test_host_order.c - a frozen staging table's pairs put in host order
 * (server/store/sqlite/host_order.c): the radix sort against qsort on pairs in
 * arrival order, for host ids of one, two and five bytes; stability (rowids
 * keep their order within a host); pairs out of arrival order and negative
 * ids still come out in host then rowid order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/store/sqlite/host_order.h"

#define N 50000

static int cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* n pairs in arrival order: rowids 1, 2, ..., hosts drawn from [1, hosts]. */
static int64_t (*arrivals(size_t n, int64_t hosts, unsigned seed))[2]
{
	int64_t(*p)[2] = malloc(n * sizeof(*p));

	assert_non_null(p);
	srand(seed);
	for (size_t i = 0; i < n; i++) {
		p[i][0] = 1 + (int64_t)(((uint64_t)rand() << 16 ^ (uint64_t)rand()) % (uint64_t)hosts);
		p[i][1] = (int64_t)i + 1;
	}
	return p;
}

static void test_radix_matches_qsort(void **state)
{
	const int64_t hosts[] = { 200, 20000, 1000000000000LL };

	(void)state;
	for (size_t k = 0; k < sizeof(hosts) / sizeof(*hosts); k++) {
		int64_t(*a)[2] = arrivals(N, hosts[k], (unsigned)k + 1);
		int64_t(*b)[2] = malloc(N * sizeof(*b));

		assert_non_null(b);
		memcpy(b, a, N * sizeof(*a));
		assert_true(host_order_radix(a, N)); /* by host alone; stable, so rowids stay in order */
		qsort(b, N, sizeof(*b), cmp);
		assert_memory_equal(a, b, N * sizeof(*a));
		free(a);
		free(b);
	}
}

static void test_out_of_arrival_order(void **state)
{
	int64_t(*a)[2] = arrivals(N, 300, 9);
	int64_t(*b)[2] = malloc(N * sizeof(*b));

	(void)state;
	assert_non_null(b);
	a[10][1] = 3 * N; /* a later rowid among earlier ones (not seen in practice; sorted all the same) */
	a[20][0] = -4;    /* and a negative id, which the radix sort does not take */
	memcpy(b, a, N * sizeof(*a));
	assert_false(host_order_radix(a, N));
	assert_memory_equal(a, b, N * sizeof(*a)); /* unchanged */
	host_order_sort(a, N);
	qsort(b, N, sizeof(*b), cmp);
	assert_memory_equal(a, b, N * sizeof(*a));
	free(a);
	free(b);
}

static void test_small_inputs(void **state)
{
	int64_t one[1][2] = { { 7, 1 } }, same[3][2] = { { 0, 1 }, { 0, 2 }, { 0, 3 } };
	int64_t late[3][2] = { { 2, 5 }, { 1, 1 }, { 2, 3 } }, want[3][2] = { { 1, 1 }, { 2, 3 }, { 2, 5 } };

	(void)state;
	host_order_sort(late, 3); /* the radix sort's result is (1,1) (2,5) (2,3): checked, and sorted again */
	assert_memory_equal(late, want, sizeof(want));
	host_order_sort(one, 0);
	host_order_sort(one, 1);
	assert_int_equal(one[0][0], 7);
	host_order_sort(same, 3); /* host 0: no byte to sort by */
	for (int i = 0; i < 3; i++)
		assert_int_equal(same[i][1], i + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_radix_matches_qsort),
		cmocka_unit_test(test_out_of_arrival_order),
		cmocka_unit_test(test_small_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
