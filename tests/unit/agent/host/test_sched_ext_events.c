/* test_sched_ext_events.c - agent/host/sched_ext_events.c: the events file of
 * sid's 7.2 kernel (as read in the VM) gives every counter, lower-cased
 * without SCX_EV_; lines of another form, duplicates, names past 64 bytes,
 * values past 64 bits and counters past the 64th are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "agent/host/sched_ext_events.h"

static const char sid_events[] = "SCX_EV_SELECT_CPU_FALLBACK 0\n"
				 "SCX_EV_DISPATCH_LOCAL_DSQ_OFFLINE 0\n"
				 "SCX_EV_DISPATCH_KEEP_LAST 0\n"
				 "SCX_EV_ENQ_SKIP_EXITING 1\n"
				 "SCX_EV_ENQ_SKIP_MIGRATION_DISABLED 0\n"
				 "SCX_EV_REENQ_IMMED 0\n"
				 "SCX_EV_REENQ_LOCAL_REPEAT 0\n"
				 "SCX_EV_REFILL_SLICE_DFL 1\n"
				 "SCX_EV_BYPASS_DURATION 33561192\n"
				 "SCX_EV_BYPASS_DISPATCH 0\n"
				 "SCX_EV_BYPASS_ACTIVATE 1\n"
				 "SCX_EV_INSERT_NOT_OWNED 0\n"
				 "SCX_EV_SUB_BYPASS_DISPATCH 0\n";

static struct sched_ext_events evs;

static void test_events_sid_file(void **state)
{
	(void)state;
	assert_int_equal(sched_ext_events_parse(sid_events, strlen(sid_events), &evs), 13);
	assert_string_equal(evs.ev[0].name, "select_cpu_fallback");
	assert_int_equal(sched_ext_events_find(&evs, "bypass_duration")->value, 33561192);
	assert_int_equal(sched_ext_events_find(&evs, "enq_skip_exiting")->value, 1);
	assert_string_equal(evs.ev[12].name, "sub_bypass_dispatch");
	assert_null(sched_ext_events_find(&evs, "SCX_EV_BYPASS_DURATION"));
}

static void test_events_bad_lines_skipped(void **state)
{
	char name65[128], text[512];

	(void)state;
	memset(name65, 'A', 65);
	name65[65] = '\0';
	snprintf(text, sizeof(text),
		 "SCX_EV_OK 5\n"
		 "SCX_EV_OK 6\n"                     /* duplicate: the first stays */
		 "SCX_EV_ 1\n"                       /* no name */
		 "SCX_EV_BAD-NAME 1\n"               /* '-' */
		 "OTHER_THING 1\n"                   /* no prefix */
		 "SCX_EV_NOVALUE\n"                  /* no value */
		 "SCX_EV_NEG -1\n"                   /* not a count */
		 "SCX_EV_BIG 18446744073709551616\n" /* 2^64 */
		 "SCX_EV_MAX 18446744073709551615\n" /* 2^64 - 1 */
		 "SCX_EV_%s 1\n"                     /* 65-byte name */
		 "SCX_EV_TRAIL 7 \r\n"               /* trailing blanks */
		 "SCX_EV_JUNK 7x\n"
		 "SCX_EV_LAST 9", /* no newline at the end */
		 name65);
	assert_int_equal(sched_ext_events_parse(text, strlen(text), &evs), 4);
	assert_int_equal(sched_ext_events_find(&evs, "ok")->value, 5);
	assert_true(sched_ext_events_find(&evs, "max")->value == UINT64_MAX);
	assert_int_equal(sched_ext_events_find(&evs, "trail")->value, 7);
	assert_int_equal(sched_ext_events_find(&evs, "last")->value, 9);
}

static void test_events_at_most_64(void **state)
{
	char text[8192];
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "SCX_EV_E%d %d\n", i, i);
	assert_int_equal(sched_ext_events_parse(text, n, &evs), SCHED_EXT_EVENTS_MAX);
	assert_string_equal(evs.ev[63].name, "e63");
}

static void test_events_read_absent_file(void **state)
{
	(void)state;
	assert_true(sched_ext_events_read("/nonexistent/sched_ext", &evs) < 0);
	assert_int_equal(evs.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_sid_file),
		cmocka_unit_test(test_events_bad_lines_skipped),
		cmocka_unit_test(test_events_at_most_64),
		cmocka_unit_test(test_events_read_absent_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
