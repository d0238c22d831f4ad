/* test_scx_topology.c - scx_llc's domains: hand-written specs (every CPU in
 * exactly one domain, clear errors), L3 domains read from a fake sysfs, and
 * the loader's preflight lines read from a fake sched_ext state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/scx/scx_state.h"
#include "cli/scx/scx_topology.h"
#include "tests/unit/fake_sysfs.h"

static void test_scx_domains_spec_assigns_each_cpu_once(void **state)
{
	struct scx_topology t;
	char why[256];

	assert_int_equal(scx_topology_parse("0-1,4/2-3,5", 6, &t, why, sizeof(why)), 0);
	assert_int_equal(t.nr_domains, 2);
	assert_int_equal(t.nr_cpus, 6);
	uint32_t want[] = { 0, 0, 1, 1, 0, 1 };
	for (int c = 0; c < 6; c++)
		assert_int_equal(t.domain[c], want[c]);
	assert_int_equal(scx_topology_parse("0-7", 8, &t, why, sizeof(why)), 0);
	assert_int_equal(t.nr_domains, 1);
}

static void expect_spec_error(const char *spec, uint32_t nr_cpus, const char *needle)
{
	struct scx_topology t;
	char why[256] = "";

	assert_int_equal(scx_topology_parse(spec, nr_cpus, &t, why, sizeof(why)), -1);
	if (!strstr(why, needle))
		fail_msg("spec '%s': error '%s' lacks '%s'", spec, why, needle);
}

static void test_scx_domains_spec_errors_say_what(void **state)
{
	expect_spec_error("0/0-1", 2, "CPU 0 is in two domains");
	expect_spec_error("0", 2, "CPU 1 is in no domain");
	expect_spec_error("0-2", 2, "out of range");
	expect_spec_error("1-0", 2, "runs backwards");
	expect_spec_error("0;1", 2, "unexpected ';'");
	expect_spec_error("x", 2, "expected a CPU number");
	expect_spec_error("0-", 2, "expected a CPU number");
	expect_spec_error("99999999999999999999999", 2, "out of range");
	expect_spec_error("0", 0, "scx_llc handles");
	expect_spec_error("0", SCHEDIO_SCX_MAX_CPUS + 1, "scx_llc handles");
}

static void test_scx_domains_from_sysfs_l3(void **state)
{
	struct scx_topology t;
	char why[256];

	/* Two L3s of two CPUs, interleaved; index0 is an L1 that must be skipped. */
	for (int c = 0; c < 4; c++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index0/level", c);
		fake_sysfs_put(rel, "1\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index0/shared_cpu_list", c);
		fake_sysfs_put(rel, c % 2 ? "1\n" : "0\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/level", c);
		fake_sysfs_put(rel, "3\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", c);
		fake_sysfs_put(rel, c % 2 ? "1,3\n" : "0,2\n");
	}
	assert_int_equal(scx_topology_from_sysfs(fake_sysfs_root, 4, &t, why, sizeof(why)), 0);
	assert_int_equal(t.nr_domains, 2);
	assert_int_equal(t.domain[0], 0);
	assert_int_equal(t.domain[1], 1);
	assert_int_equal(t.domain[2], 0);
	assert_int_equal(t.domain[3], 1);
	/* A fifth CPU without cache information joins domain 0. */
	assert_int_equal(scx_topology_from_sysfs(fake_sysfs_root, 5, &t, why, sizeof(why)), 0);
	assert_int_equal(t.nr_domains, 2);
	assert_int_equal(t.domain[4], 0);
}

static void test_scx_preflight_names_the_obstacle(void **state)
{
	char why[256];

	assert_int_equal(scx_state_preflight(fake_sysfs_root, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "this kernel has no sched_ext"));
	fake_sysfs_put("kernel/sched_ext/state", "enabled\n");
	fake_sysfs_put("kernel/sched_ext/root/ops", "scx_other\n");
	assert_int_equal(scx_state_preflight(fake_sysfs_root, why, sizeof(why)), -1);
	assert_string_equal(why, "another sched_ext scheduler is active: scx_other (state enabled)");
	fake_sysfs_put("kernel/sched_ext/state", "disabled\n");
	/* Only privileges are left to check: pass as root, one line otherwise. */
	int rc = scx_state_preflight(fake_sysfs_root, why, sizeof(why));
	if (rc != 0)
		assert_non_null(strstr(why, "needs root"));
	else
		assert_int_equal(geteuid(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scx_domains_spec_assigns_each_cpu_once),
		cmocka_unit_test(test_scx_domains_spec_errors_say_what),
		cmocka_unit_test_setup_teardown(test_scx_domains_from_sysfs_l3, fake_sysfs_make, fake_sysfs_remove),
		cmocka_unit_test_setup_teardown(test_scx_preflight_names_the_obstacle, fake_sysfs_make,
						fake_sysfs_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
