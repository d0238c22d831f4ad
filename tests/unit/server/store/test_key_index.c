/* test_key_index.c - the staged keys' index (server/store/sqlite/key_index.c):
 * every entry found exactly once before, while and after the index grows,
 * entries of one hash all found, a lookup stopped by its callback, and the
 * growth's work spread: no add moves more than KEY_INDEX_MOVE_STEP old slots,
 * and the old table is gone before the next growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/store/sqlite/key_index.h"

#define N 100000

/* The hash of entry i: a mixed value, with every 50th sharing its hash with the one before. */
static uint64_t hash_of(int64_t i)
{
	uint64_t h = (uint64_t)(i - (i % 50 == 49)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

struct seen {
	unsigned char *times; /* per rowid: how often the lookup saw it */
	int calls;
	int stop_after;
};

static int note(void *arg, int64_t rowid)
{
	struct seen *s = arg;

	s->times[rowid]++;
	s->calls++;
	return s->stop_after && s->calls == s->stop_after ? 7 : 0;
}

/* Looks entry i up: it is found once, and so is the entry sharing its hash. */
static void found_once(const struct key_index *ix, struct seen *s, int64_t i)
{
	int64_t twin = i % 50 == 49 ? i - 1 : i % 50 == 48 ? i + 1 : -1;

	s->calls = 0;
	assert_int_equal(key_index_find(ix, hash_of(i), note, s), 0);
	assert_int_equal(s->times[i], 1);
	s->times[i] = 0;
	if (twin >= 0 && s->times[twin]) {
		assert_int_equal(s->times[twin], 1);
		s->times[twin] = 0;
		assert_int_equal(s->calls, 2);
	} else {
		assert_int_equal(s->calls, 1);
	}
}

static void test_found_exactly_once_while_growing(void **state)
{
	struct key_index ix = { 0 };
	struct seen s = { .times = calloc(N + 1, 1) };
	int growths = 0, checked_mid = 0;

	(void)state;
	assert_non_null(s.times);
	for (int64_t i = 0; i < N; i++) {
		size_t cap = ix.cap, next = ix.old_next, old_cap = ix.old_cap;
		bool was_old = ix.old != NULL;

		assert_int_equal(key_index_add(&ix, hash_of(i), i), 0);
		if (ix.cap != cap) {
			growths++;
			assert_false(was_old); /* the last growth's old table was moved already */
		} else if (was_old) {
			assert_true((ix.old ? ix.old_next : old_cap) - next <= KEY_INDEX_MOVE_STEP);
		}
		if (ix.old && i % 97 == 0) { /* half moved: the new, the moved and the unmoved */
			found_once(&ix, &s, i);
			found_once(&ix, &s, i / 2);
			found_once(&ix, &s, i / 3);
			checked_mid++;
		}
	}
	assert_int_equal(key_index_count(&ix), N);
	assert_true(growths >= 8);
	assert_true(checked_mid > 10);
	for (int64_t i = 0; i < N; i++)
		found_once(&ix, &s, i);
	s.calls = 0;
	assert_int_equal(key_index_find(&ix, hash_of(N + 5), note, &s), 0); /* never added */
	assert_int_equal(s.calls, 0);
	key_index_clear(&ix);
	assert_int_equal(key_index_count(&ix), 0);
	assert_int_equal(key_index_find(&ix, hash_of(3), note, &s), 0);
	free(s.times);
}

static void test_a_lookup_stops_when_told(void **state)
{
	struct key_index ix = { 0 };
	unsigned char times[8] = { 0 };
	struct seen s = { .times = times, .stop_after = 2 };

	(void)state;
	for (int64_t r = 1; r <= 4; r++)
		assert_int_equal(key_index_add(&ix, 42, r), 0);
	assert_int_equal(key_index_add(&ix, 0, 5), 0); /* hash 0 is taken as 1 */
	assert_int_equal(key_index_find(&ix, 42, note, &s), 7);
	assert_int_equal(s.calls, 2);
	s.calls = 0;
	s.stop_after = 0;
	assert_int_equal(key_index_find(&ix, 1, note, &s), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(times[5], 1);
	key_index_clear(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found_exactly_once_while_growing),
		cmocka_unit_test(test_a_lookup_stops_when_told),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
