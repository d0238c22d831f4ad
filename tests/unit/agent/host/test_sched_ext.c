/* test_sched_ext.c - agent/host/sched_ext.c: the report's "sched_ext" from
 * a state (common/sched_ext_state.c reads it): "unsupported" with ops null
 * when the kernel has no sched_ext, a loaded scheduler named in ops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/host/sched_ext.h"

static void test_sched_ext_absent_is_unsupported(void **state)
{
	struct sched_ext_state st;
	cJSON *rep = cJSON_CreateObject(), *o;

	assert_int_equal(sched_ext_state_read("/nonexistent/sched_ext", &st), 0);
	assert_int_equal(sched_ext_to_json(&st, rep), 0);
	o = cJSON_GetObjectItem(rep, "sched_ext");
	assert_string_equal(cJSON_GetObjectItem(o, "state")->valuestring, "unsupported");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "ops")));
	cJSON_Delete(rep);
}

static void test_sched_ext_enabled_names_the_scheduler(void **state)
{
	const struct sched_ext_state st = { .state = "enabled", .ops = "fifo_global" };
	cJSON *rep = cJSON_CreateObject(), *o;

	assert_int_equal(sched_ext_to_json(&st, rep), 0);
	o = cJSON_GetObjectItem(rep, "sched_ext");
	assert_string_equal(cJSON_GetObjectItem(o, "state")->valuestring, "enabled");
	assert_string_equal(cJSON_GetObjectItem(o, "ops")->valuestring, "fifo_global");
	cJSON_Delete(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_ext_absent_is_unsupported),
		cmocka_unit_test(test_sched_ext_enabled_names_the_scheduler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
