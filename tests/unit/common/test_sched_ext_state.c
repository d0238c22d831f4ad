/* test_sched_ext_state.c - common/sched_ext_state.c on fake sched_ext
 * trees: no folder means "unsupported", an unreadable state "unknown", a
 * loaded scheduler is named in ops, and ops is "" when none is loaded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/sched_ext_state.h"
#include "tests/unit/fake_sysfs.h"

static void test_sched_ext_state_absent_is_unsupported(void **state)
{
	struct sched_ext_state st;

	assert_false(sched_ext_state_supported("/nonexistent/sched_ext"));
	assert_int_equal(sched_ext_state_read("/nonexistent/sched_ext", &st), 0);
	assert_string_equal(st.state, "unsupported");
	assert_string_equal(st.ops, "");
}

static void test_sched_ext_state_names_the_scheduler(void **state)
{
	char root[128];
	struct sched_ext_state st;

	snprintf(root, sizeof(root), "%s/kernel/sched_ext", fake_sysfs_root);
	fake_sysfs_put("kernel/sched_ext/state", "disabled\n");
	assert_true(sched_ext_state_supported(root));
	assert_int_equal(sched_ext_state_read(root, &st), 0);
	assert_string_equal(st.state, "disabled");
	assert_string_equal(st.ops, "");

	fake_sysfs_put("kernel/sched_ext/state", "enabled\n");
	fake_sysfs_put("kernel/sched_ext/root/ops", "fifo_global\n");
	assert_int_equal(sched_ext_state_read(root, &st), 0);
	assert_string_equal(st.state, "enabled");
	assert_string_equal(st.ops, "fifo_global");
	/* the same tree by its sysfs root, as `schedio scx` names it */
	assert_int_equal(sched_ext_state_read_sysfs(fake_sysfs_root, &st), 0);
	assert_string_equal(st.state, "enabled");
	assert_string_equal(st.ops, "fifo_global");

	fake_sysfs_put("kernel/sched_ext/state", "\n");
	assert_int_equal(sched_ext_state_read(root, &st), 0);
	assert_string_equal(st.state, "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_ext_state_absent_is_unsupported),
		cmocka_unit_test_setup_teardown(test_sched_ext_state_names_the_scheduler, fake_sysfs_make,
						fake_sysfs_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
