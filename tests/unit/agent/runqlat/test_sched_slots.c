/* test_sched_slots.c - naming the sched_ext runqueue latency histograms:
 * a scheduler seen late still owns the samples of its unnamed slot, one that
 * goes away keeps its slot, a direct replacement gets a fresh slot, and the
 * slots are reused round-robin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "agent/runqlat/sched_slots.h"

static void test_sched_slots_first_scheduler_names_the_empty_slot(void **state)
{
	struct sched_slots s;

	sched_slots_init(&s, "");
	assert_string_equal(sched_slots_name(&s, 0), "");
	/* samples the class ran before the poll saw scx_fifo are scx_fifo's */
	assert_int_equal(sched_slots_observe(&s, "scx_fifo"), 0);
	assert_string_equal(sched_slots_name(&s, 0), "scx_fifo");
	assert_int_equal(sched_slots_observe(&s, "scx_fifo"), 0); /* no change, no move */
}

static void test_sched_slots_unload_then_load_gets_a_fresh_slot(void **state)
{
	struct sched_slots s;

	sched_slots_init(&s, "scx_fifo");
	assert_int_equal(sched_slots_observe(&s, ""), 1); /* fifo's samples stay in slot 0 */
	assert_string_equal(sched_slots_name(&s, 0), "scx_fifo");
	assert_string_equal(sched_slots_name(&s, 1), "");
	assert_int_equal(sched_slots_observe(&s, ""), 1);
	assert_int_equal(sched_slots_observe(&s, "scx_llc"), 1); /* named when seen */
	assert_string_equal(sched_slots_name(&s, 1), "scx_llc");
	assert_string_equal(sched_slots_name(&s, 0), "scx_fifo");
}

static void test_sched_slots_direct_replacement_moves_on(void **state)
{
	struct sched_slots s;

	sched_slots_init(&s, "scx_fifo");
	assert_int_equal(sched_slots_observe(&s, "scx_llc"), 1);
	assert_string_equal(sched_slots_name(&s, 0), "scx_fifo");
	assert_string_equal(sched_slots_name(&s, 1), "scx_llc");
}

static void test_sched_slots_reused_round_robin(void **state)
{
	struct sched_slots s;
	unsigned slot = 0;

	sched_slots_init(&s, "a");
	slot = sched_slots_observe(&s, "b");
	slot = sched_slots_observe(&s, "c");
	assert_int_equal(slot, 2 % RUNQLAT_EXT_SLOTS);
	slot = sched_slots_observe(&s, "d");
	assert_int_equal(slot, 3 % RUNQLAT_EXT_SLOTS);
	assert_string_equal(sched_slots_name(&s, slot), "d");
	assert_string_equal(sched_slots_name(&s, RUNQLAT_EXT_SLOTS), ""); /* out of range */
}

static void test_sched_slots_long_names_compare_as_stored(void **state)
{
	char long_name[300];
	struct sched_slots s;

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	sched_slots_init(&s, long_name);
	assert_int_equal(strlen(sched_slots_name(&s, 0)), SCHED_SLOTS_NAME_MAX - 1);
	assert_int_equal(sched_slots_observe(&s, long_name), 0); /* the same scheduler, not a change */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_slots_first_scheduler_names_the_empty_slot),
		cmocka_unit_test(test_sched_slots_unload_then_load_gets_a_fresh_slot),
		cmocka_unit_test(test_sched_slots_direct_replacement_moves_on),
		cmocka_unit_test(test_sched_slots_reused_round_robin),
		cmocka_unit_test(test_sched_slots_long_names_compare_as_stored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
