/* test_cpu_list.c - common/cpu_list.c: kernel CPU lists into an ascending
 * array (the agent's L3 domains) and into a CPU set with a reason for each
 * error (the CLI's scx_llc domains); any order and overlaps give the set.
 * And the L3 cache's list and size read from a fake sysfs tree.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cpu_list.h"
#include "tests/unit/fake_sysfs.h"

/* Parses list into an array and compares it with want[0..nwant). */
static void expect_array(const char *list, const unsigned *want, size_t nwant)
{
	unsigned *c;
	size_t n;

	assert_int_equal(cpu_list_parse_array(list, &c, &n), 0);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c[i], want[i]);
	free(c);
}

static void test_cpu_list_parses_into_ascending_array(void **state)
{
	static const unsigned sysfs[] = { 0, 1, 2, 3, 8, 10, 11 }, five[] = { 5 }, set[] = { 2, 3, 4 };
	unsigned *c;
	size_t n;

	expect_array("0-3,8,10-11\n", sysfs, 7);
	expect_array("5", five, 1);
	assert_int_equal(cpu_list_parse_array("3-1", &c, &n), -EINVAL);
	assert_int_equal(cpu_list_parse_array("0,x", &c, &n), -EINVAL);
	assert_int_equal(cpu_list_parse_array("1-", &c, &n), -EINVAL);
	/* the one rule: any order and overlaps give the ascending set (the agent refused "4,2") */
	expect_array("4,2,3-4", set, 3);
	expect_array("", NULL, 0);
	assert_int_equal(cpu_list_parse_array("65536", &c, &n), -EINVAL);
}

/* The reasons; scx_topology's tests check the rest through its specs. */
static void test_cpu_list_sets_cpus_or_says_why(void **state)
{
	uint8_t cpus[8] = { 0 };
	char why[256] = "";

	assert_int_equal(cpu_list_parse("0-1,4", 6, cpus, why, sizeof(why)), 0);
	assert_int_equal(cpus[0] + cpus[1] + cpus[4], 3);
	assert_int_equal(cpus[2] + cpus[3] + cpus[5], 0);
	assert_int_equal(cpu_list_parse("0 1", 8, cpus, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "unexpected ' ' in CPU list");
	assert_int_equal(cpu_list_parse("2,x", 8, cpus, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected a CPU number at 'x'");
	assert_int_equal(cpu_list_parse("1,8", 8, cpus, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "CPU 8 is out of range (this machine has 8)");
}

static void test_cpu_list_reads_l3(void **state)
{
	char list[64];
	uint64_t kb;

	/* index0 is an L1; index1 is missing: indexes need not be contiguous */
	fake_sysfs_put("cpu0/cache/index0/level", "1\n");
	fake_sysfs_put("cpu0/cache/index0/shared_cpu_list", "0\n");
	fake_sysfs_put("cpu0/cache/index2/level", "3\n");
	fake_sysfs_put("cpu0/cache/index2/shared_cpu_list", "0-3\n");
	fake_sysfs_put("cpu0/cache/index2/size", "32M\n");
	fake_sysfs_put("cpu1/cache/index0/level", "3\n");
	fake_sysfs_put("cpu1/cache/index0/shared_cpu_list", "1,5\n");
	fake_sysfs_put("cpu1/cache/index0/size", "16384K\n");
	fake_sysfs_put("cpu2/cache/index0/level", "2\n");
	assert_int_equal(cpu_list_read_l3(fake_sysfs_root, 0, list, sizeof(list), &kb), 0);
	assert_string_equal(list, "0-3");
	assert_int_equal(kb, 32768);
	assert_int_equal(cpu_list_read_l3(fake_sysfs_root, 1, list, sizeof(list), &kb), 0);
	assert_string_equal(list, "1,5");
	assert_int_equal(kb, 16384);
	assert_int_equal(cpu_list_read_l3(fake_sysfs_root, 2, list, sizeof(list), &kb), -ENOENT);
	assert_string_equal(list, "");
	assert_int_equal(cpu_list_read_l3(fake_sysfs_root, 9, list, sizeof(list), &kb), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_list_parses_into_ascending_array),
		cmocka_unit_test(test_cpu_list_sets_cpus_or_says_why),
		cmocka_unit_test_setup_teardown(test_cpu_list_reads_l3, fake_sysfs_make, fake_sysfs_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
