/* test_disks.c - agent/host/disks.c on a fake sysfs tree: whole disks with their
 * model, firmware (NVMe firmware_rev, SCSI rev), size and rotational flag;
 * partitions, loop, ram and zram left out; a virtio disk without model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/host/disks.h"
#include "common/fsutil.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];

	snprintf(path, sizeof(path), "%s/block/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(fs_mkdir_p(dir), 0);
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/schedio-test-disks.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("nvme0n1/dev", "259:0\n");
	put("nvme0n1/size", "1953525168\n");
	put("nvme0n1/device/model", "Samsung SSD 980 PRO 1TB                 \n");
	put("nvme0n1/device/firmware_rev", "5B2QGXA7\n");
	put("nvme0n1/queue/rotational", "0\n");
	put("nvme0n1/nvme0n1p1/partition", "1\n");
	put("sda/dev", "8:0\n");
	put("sda/size", "100\n");
	put("sda/device/model", "ST4000DM004-2CV1\n");
	put("sda/device/rev", "0001\n");
	put("sda/queue/rotational", "1\n");
	put("vda/dev", "254:0\n");
	put("vda/size", "2097152\n");
	put("vda/queue/rotational", "1\n");
	put("sda1/dev", "8:1\n"); /* a partition listed at top level, as some trees do */
	put("sda1/partition", "1\n");
	put("loop0/dev", "7:0\n");
	put("ram0/dev", "1:0\n");
	put("zram0/dev", "252:0\n");
	put("broken/size", "1\n"); /* no dev file: not a usable disk */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_disks_inventory(void **state)
{
	struct disk d[DISKS_MAX];
	int n = disks_scan(root, d, DISKS_MAX);

	assert_int_equal(n, 3);
	assert_string_equal(d[0].name, "nvme0n1");
	assert_int_equal(d[0].major, 259);
	assert_int_equal(d[0].minor, 0);
	assert_string_equal(d[0].model, "Samsung SSD 980 PRO 1TB");
	assert_string_equal(d[0].fwrev, "5B2QGXA7");
	assert_int_equal(d[0].size_bytes, 1953525168ULL * 512);
	assert_int_equal(d[0].rotational, 0);
	assert_string_equal(d[1].name, "sda");
	assert_string_equal(d[1].fwrev, "0001");
	assert_int_equal(d[1].rotational, 1);
	assert_string_equal(d[2].name, "vda");
	assert_string_equal(d[2].model, "");
	assert_string_equal(d[2].fwrev, "");
	assert_int_equal(d[2].size_bytes, 1073741824);
}

static void test_disks_cap_and_missing_root(void **state)
{
	struct disk d[2];

	assert_int_equal(disks_scan(root, d, 1), 1);
	assert_true(disks_scan("/nonexistent-schedio", d, 2) < 0);
	assert_true(disks_skip_name("zram1"));
	assert_true(disks_skip_name("loop12"));
	assert_false(disks_skip_name("nvme1n1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disks_inventory),
		cmocka_unit_test(test_disks_cap_and_missing_root),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
