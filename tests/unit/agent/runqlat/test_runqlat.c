/* test_runqlat.c - agent/runqlat/runqlat.c without loading BPF: the missing-BTF
 * message, and the map memory bound for 256 CPUs and 4,096 cgroups.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/runqlat/runqlat.h"
#include "bpf/runqlat.h"

static void test_runqlat_says_when_btf_is_missing(void **state)
{
	char msg[512] = "";

	assert_int_not_equal(runqlat_check_btf("/nonexistent/btf/vmlinux", msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "no BTF"));
	assert_non_null(strstr(msg, "CONFIG_DEBUG_INFO_BTF"));
	assert_non_null(strstr(msg, "/nonexistent/btf/vmlinux"));
}

static void test_runqlat_map_memory_is_bounded(void **state)
{
	size_t bytes = runqlat_map_bytes(256, RUNQLAT_MAX_CGROUPS);

	/* two halves of 4,096 cgroup histograms dominate */
	assert_true(bytes >= 2 * 4096 * sizeof(struct runqlat_hist));
	assert_true(bytes < 64u << 20);
	assert_int_equal(sizeof(struct runqlat_hist), 24 + 4 * HIST_BUCKETS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runqlat_says_when_btf_is_missing),
		cmocka_unit_test(test_runqlat_map_memory_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
