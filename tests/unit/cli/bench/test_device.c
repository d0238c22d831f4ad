/* test_device.c - cli/bench/device.c on a fake sysfs tree: a partition
 * walks up to its disk, read by common/disks.c (model, firmware, size,
 * rotational); device-mapper on one member walks down to that member's disk;
 * md over two disks stays itself; a loop device gets its name and size.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/bench/device.h"
#include "tests/unit/fake_sysfs.h"

static int setup(void **state)
{
	if (fake_sysfs_make(state))
		return -1;
	fake_sysfs_put("block/nvme0n1/dev", "259:0\n");
	fake_sysfs_put("block/nvme0n1/size", "1953525168\n");
	fake_sysfs_put("block/nvme0n1/device/model", "Samsung SSD 980 PRO 1TB  \n");
	fake_sysfs_put("block/nvme0n1/device/firmware_rev", "5B2QGXA7\n");
	fake_sysfs_put("block/nvme0n1/queue/rotational", "0\n");
	fake_sysfs_put("block/nvme0n1/nvme0n1p2/partition", "2\n");
	fake_sysfs_put("block/nvme0n1/nvme0n1p2/dev", "259:2\n");
	fake_sysfs_put("block/dm-0/dev", "253:0\n");
	fake_sysfs_put("block/dm-0/size", "1000000\n");
	fake_sysfs_put("block/dm-0/slaves/nvme0n1p2", "");
	fake_sysfs_put("block/dm-1/dev", "253:1\n"); /* crypt on LVM on the partition */
	fake_sysfs_put("block/dm-1/size", "1000000\n");
	fake_sysfs_put("block/dm-1/slaves/dm-0", "");
	fake_sysfs_put("block/sda/dev", "8:0\n");
	fake_sysfs_put("block/sda/size", "100\n");
	fake_sysfs_put("block/sdb/dev", "8:16\n");
	fake_sysfs_put("block/sdb/size", "100\n");
	fake_sysfs_put("block/md0/dev", "9:0\n");
	fake_sysfs_put("block/md0/size", "200\n");
	fake_sysfs_put("block/md0/slaves/sda", "");
	fake_sysfs_put("block/md0/slaves/sdb", "");
	fake_sysfs_put("block/loop3/dev", "7:3\n");
	fake_sysfs_put("block/loop3/size", "262144\n");
	fake_sysfs_put("block/loop3/queue/rotational", "0\n");
	return 0;
}

static void test_partition_is_its_whole_disk(void **state)
{
	char name[64], disk[64];
	struct disk d;

	assert_int_equal(bench_device_names(fake_sysfs_root, 259, 2, name, sizeof(name), disk, sizeof(disk)), 0);
	assert_string_equal(name, "nvme0n1p2");
	assert_string_equal(disk, "nvme0n1");
	assert_int_equal(bench_device_identify(fake_sysfs_root, 259, 2, &d), 0);
	assert_string_equal(d.name, "nvme0n1");
	assert_int_equal(d.major, 259);
	assert_int_equal(d.minor, 0);
	assert_string_equal(d.model, "Samsung SSD 980 PRO 1TB");
	assert_string_equal(d.fwrev, "5B2QGXA7");
	assert_int_equal(d.size_bytes, 1953525168ull * 512);
	assert_int_equal(d.rotational, 0);
}

static void test_device_mapper_on_one_member_is_that_disk(void **state)
{
	struct disk d;

	assert_int_equal(bench_device_identify(fake_sysfs_root, 253, 0, &d), 0);
	assert_string_equal(d.name, "nvme0n1");
	assert_int_equal(bench_device_identify(fake_sysfs_root, 253, 1, &d), 0);
	assert_string_equal(d.name, "nvme0n1");
	assert_string_equal(d.model, "Samsung SSD 980 PRO 1TB");
}

static void test_md_over_two_disks_stays_itself(void **state)
{
	struct disk d;

	assert_int_equal(bench_device_identify(fake_sysfs_root, 9, 0, &d), 0);
	assert_string_equal(d.name, "md0");
	assert_string_equal(d.model, "");
	assert_int_equal(d.size_bytes, 200 * 512);
}

static void test_loop_device_gets_name_and_size(void **state)
{
	struct disk d;

	assert_int_equal(bench_device_identify(fake_sysfs_root, 7, 3, &d), 0);
	assert_string_equal(d.name, "loop3");
	assert_int_equal(d.major, 7);
	assert_int_equal(d.minor, 3);
	assert_int_equal(d.size_bytes, 262144ull * 512);
	assert_int_equal(d.rotational, 0);
	assert_string_equal(d.model, "");
}

static void test_unknown_devno_is_not_found(void **state)
{
	struct disk d;

	assert_int_equal(bench_device_identify(fake_sysfs_root, 0, 45, &d), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition_is_its_whole_disk),
		cmocka_unit_test(test_device_mapper_on_one_member_is_that_disk),
		cmocka_unit_test(test_md_over_two_disks_stays_itself),
		cmocka_unit_test(test_loop_device_gets_name_and_size),
		cmocka_unit_test(test_unknown_devno_is_not_found),
	};

	return cmocka_run_group_tests(tests, setup, fake_sysfs_remove);
}
