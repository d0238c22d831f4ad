/* test_target.c - cli/bench/target.c: the safety predicates on a fake sysfs
 * tree with a fake mount table and swap list (mounted disk or partition,
 * mounted by source name only, swap, RAID/dm holders, partitions, a bare
 * disk), partition table signatures, and refusals of real files and
 * directories that leave them as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/bench/target.h"
#include "tests/unit/fake_sysfs.h"

static char mountinfo[600], swaps[600];
static struct bench_safety_env env;

static int setup(void **state)
{
	if (fake_sysfs_make(state))
		return -1;
	fake_sysfs_put("block/sda/dev", "8:0\n");
	fake_sysfs_put("block/sda/sda1/partition", "1\n");
	fake_sysfs_put("block/sda/sda1/dev", "8:1\n");
	fake_sysfs_put("block/sdb/dev", "8:16\n");
	fake_sysfs_put("block/sdc/dev", "8:32\n");
	fake_sysfs_put("block/sdc/holders/md0", "");
	fake_sysfs_put("block/sdd/dev", "8:48\n");
	fake_sysfs_put("block/sdd/sdd1/partition", "1\n");
	fake_sysfs_put("block/sdd/sdd1/dev", "8:49\n");
	fake_sysfs_put("block/sdd/sdd1/holders/dm-0", "");
	fake_sysfs_put("block/sde/dev", "8:64\n");
	fake_sysfs_put("block/sdf/dev", "8:80\n");
	fake_sysfs_put("block/sdf/sdf1/partition", "1\n");
	fake_sysfs_put("block/sdf/sdf1/dev", "8:81\n");
	fake_sysfs_put("block/sdf/sdf2/partition", "2\n");
	fake_sysfs_put("block/sdf/sdf2/dev", "8:82\n");
	fake_sysfs_put("block/sdg/dev", "8:96\n");
	fake_sysfs_put("proc/mountinfo", "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
					 "36 22 8:1 / /mnt/data rw,relatime shared:9 - ext4 /dev/sda1 rw\n"
					 "40 22 0:45 / /srv rw,relatime shared:12 - btrfs /dev/sdg rw,space_cache\n");
	fake_sysfs_put("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
				     "/dev/sde                                partition\t1048572\t\t0\t\t-2\n");
	snprintf(mountinfo, sizeof(mountinfo), "%s/proc/mountinfo", fake_sysfs_root);
	snprintf(swaps, sizeof(swaps), "%s/proc/swaps", fake_sysfs_root);
	env = (struct bench_safety_env){ fake_sysfs_root, mountinfo, swaps };
	return 0;
}

static void busy(const char *name, unsigned ma, unsigned mi, const char *want)
{
	char why[512] = "";

	assert_int_equal(bench_safety_block_busy(&env, name, ma, mi, why, sizeof(why)), 1);
	if (!strstr(why, want))
		fail_msg("%s: '%s' does not say '%s'", name, why, want);
}

static void test_mounted_partition_makes_its_disk_busy(void **state)
{
	busy("sda", 8, 0, "/dev/sda1 is mounted on /mnt/data");
	busy("sda1", 8, 1, "/dev/sda1 is mounted on /mnt/data");
}

static void test_mounted_by_source_name_only(void **state)
{
	/* btrfs shows an anonymous 0:N, only the source names the disk */
	busy("sdg", 8, 96, "mounted on /srv");
}

static void test_swap_holders_and_partitions(void **state)
{
	busy("sde", 8, 64, "swap");
	busy("sdc", 8, 32, "held by md0");
	busy("sdd", 8, 48, "held by dm-0");
	busy("sdf", 8, 80, "has 2 partitions");
}

static void test_bare_disk_and_free_partition_are_not_busy(void **state)
{
	char why[512] = "";

	assert_int_equal(bench_safety_block_busy(&env, "sdb", 8, 16, why, sizeof(why)), 0);
	assert_int_equal(bench_safety_block_busy(&env, "sdf1", 8, 81, why, sizeof(why)), 0);
}

static void test_partition_table_signatures(void **state)
{
	unsigned char buf[8192];

	memset(buf, 0, sizeof(buf));
	assert_null(bench_safety_signature(buf, sizeof(buf)));
	buf[510] = 0x55;
	buf[511] = 0xaa;
	assert_string_equal(bench_safety_signature(buf, sizeof(buf)), "MBR");
	memcpy(buf + 512, "EFI PART", 8); /* a protective MBR and GPT: GPT is named */
	assert_string_equal(bench_safety_signature(buf, sizeof(buf)), "GPT");
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 4096, "EFI PART", 8); /* 4Kn */
	assert_string_equal(bench_safety_signature(buf, sizeof(buf)), "GPT");
	assert_null(bench_safety_signature(buf, 600));
}

/* A real file of size bytes of one pattern under the fake root. */
static void make_file(const char *path, size_t size)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc((int)(i * 7 % 251), f);
	fclose(f);
}

static int same_content(const char *path, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t i = 0;
	int c, ok = 1;

	assert_non_null(f);
	while ((c = fgetc(f)) != EOF)
		ok &= i < size && c == (int)(i++ * 7 % 251);
	fclose(f);
	return ok && i == size;
}

static void refused(const char *path, int writes, int destructive, uint64_t size, const char *want)
{
	struct bench_target t;
	char why[1024] = "";

	assert_int_equal(bench_target_open(&t, path, writes, destructive, 0, size, &env, why, sizeof(why)), 1);
	if (!strstr(why, want))
		fail_msg("%s: '%s' does not say '%s'", path, why, want);
	assert_int_equal(t.fd, -1);
	assert_string_equal(t.test_file, "");
}

static void test_refusals_leave_files_as_they_were(void **state)
{
	char small[600], big[600], missing[600];

	snprintf(small, sizeof(small), "%s/small", fake_sysfs_root);
	snprintf(big, sizeof(big), "%s/big", fake_sysfs_root);
	snprintf(missing, sizeof(missing), "%s/nothing-here", fake_sysfs_root);
	make_file(small, 1 << 20);
	make_file(big, BENCH_MIN_SIZE);
	refused(missing, 0, 0, 0, "No such file");
	refused(small, 0, 0, 0, "too small");
	refused(big, 1, 0, 0, "--destructive");
	refused(big, 0, 0, 32ull << 20, "too small");              /* --size below the minimum */
	refused(big, 0, 0, (100ull << 20) + 4096, "whole number"); /* not whole MiB */
	refused("/dev/null", 0, 0, 0, "neither");
	refused(fake_sysfs_root, 1, 0, 1ull << 20, "minimum");
	refused(fake_sysfs_root, 1, 0, 1ull << 50, "not enough");
	assert_true(same_content(small, 1 << 20));
	assert_true(same_content(big, BENCH_MIN_SIZE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mounted_partition_makes_its_disk_busy),
		cmocka_unit_test(test_mounted_by_source_name_only),
		cmocka_unit_test(test_swap_holders_and_partitions),
		cmocka_unit_test(test_bare_disk_and_free_partition_are_not_busy),
		cmocka_unit_test(test_partition_table_signatures),
		cmocka_unit_test(test_refusals_leave_files_as_they_were),
	};

	return cmocka_run_group_tests(tests, setup, fake_sysfs_remove);
}
