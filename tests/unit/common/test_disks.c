/* test_disks.c - common/disks.c on fake sysfs trees: whole disks with their
 * model, firmware (NVMe firmware_rev, SCSI rev), size and rotational flag;
 * partitions, loop, ram and zram left out; disks without a model kept with
 * "" (the agent reports them, `schedio apply` skips them); and the one rule
 * for model and firmware strings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/disks.h"
#include "tests/unit/fake_sysfs.h"

static int setup(void **state)
{
	if (fake_sysfs_make(state))
		return -1;
	fake_sysfs_put("block/nvme0n1/dev", "259:0\n");
	fake_sysfs_put("block/nvme0n1/size", "1953525168\n");
	fake_sysfs_put("block/nvme0n1/device/model", "Samsung SSD 980 PRO 1TB                 \n");
	fake_sysfs_put("block/nvme0n1/device/firmware_rev", "5B2QGXA7\n");
	fake_sysfs_put("block/nvme0n1/queue/rotational", "0\n");
	fake_sysfs_put("block/nvme0n1/nvme0n1p1/partition", "1\n");
	fake_sysfs_put("block/sda/dev", "8:0\n");
	fake_sysfs_put("block/sda/size", "100\n");
	fake_sysfs_put("block/sda/device/model", "ST4000DM004-2CV1\n");
	fake_sysfs_put("block/sda/device/rev", "0001\n");
	fake_sysfs_put("block/sda/queue/rotational", "1\n");
	fake_sysfs_put("block/vda/dev", "254:0\n");
	fake_sysfs_put("block/vda/size", "2097152\n");
	fake_sysfs_put("block/vda/queue/rotational", "1\n");
	fake_sysfs_put("block/sda1/dev", "8:1\n"); /* a partition listed at top level, as some trees do */
	fake_sysfs_put("block/sda1/partition", "1\n");
	fake_sysfs_put("block/loop0/dev", "7:0\n");
	fake_sysfs_put("block/ram0/dev", "1:0\n");
	fake_sysfs_put("block/zram0/dev", "252:0\n");
	fake_sysfs_put("block/broken/size", "1\n"); /* no dev file: not a usable disk */
	return 0;
}

static void test_disks_inventory(void **state)
{
	struct disk d[DISKS_MAX];
	int n = disks_scan(fake_sysfs_root, d, DISKS_MAX);

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

	assert_int_equal(disks_scan(fake_sysfs_root, d, 1), 1);
	assert_true(disks_scan("/nonexistent-schedio", d, 2) < 0);
	assert_true(disks_skip_name("zram1"));
	assert_true(disks_skip_name("loop12"));
	assert_false(disks_skip_name("nvme1n1"));
}

/* What `schedio apply` saw (formerly cli/ssd_disks.c): trimmed strings, dev, order. */
static void test_disks_with_models_for_apply(void **state)
{
	struct disk d[DISKS_MAX];
	int n;

	fake_sysfs_put("block/sda/dev", "8:0\n");
	fake_sysfs_put("block/sda/device/model", "Samsung SSD 860   \n");
	fake_sysfs_put("block/sda/device/rev", "RVT04B6Q\n");
	fake_sysfs_put("block/nvme0n1/dev", "259:0\n");
	fake_sysfs_put("block/nvme0n1/device/model", "INTEL SSDPEKKA256G7\n");
	fake_sysfs_put("block/nvme0n1/device/firmware_rev", " PSF119D \n");
	fake_sysfs_put("block/sda1/dev", "8:1\n");
	fake_sysfs_put("block/sda1/partition", "1\n");
	fake_sysfs_put("block/sda1/device/model", "x\n");
	fake_sysfs_put("block/loop3/dev", "7:3\n");
	fake_sysfs_put("block/loop3/device/model", "x\n");
	fake_sysfs_put("block/zram0/device/model", "x\n");
	fake_sysfs_put("block/dm-0/dev", "253:0\n");
	fake_sysfs_put("block/vdb/dev", "254:16\n");
	fake_sysfs_put("block/vdb/device/model", "\n");
	n = disks_scan(fake_sysfs_root, d, DISKS_MAX);
	/* dm-0, vda (from setup) and vdb are listed with "" as model: apply skips them */
	assert_int_equal(n, 5);
	assert_string_equal(d[0].name, "dm-0");
	assert_string_equal(d[0].model, "");
	assert_string_equal(d[1].name, "nvme0n1");
	assert_int_equal(d[1].major, 259);
	assert_int_equal(d[1].minor, 0);
	assert_string_equal(d[1].fwrev, "PSF119D");
	assert_string_equal(d[2].name, "sda");
	assert_string_equal(d[2].model, "Samsung SSD 860");
	assert_string_equal(d[2].fwrev, "RVT04B6Q");
	assert_string_equal(d[4].name, "vdb");
	assert_string_equal(d[4].model, "");
	assert_int_equal(disks_scan("/nonexistent-schedio", d, DISKS_MAX), -ENOENT);
}

/* The one rule: the agent used to cut at 63 bytes and the CLI kept odd bytes. */
static void test_disks_text_rule(void **state)
{
	char long_model[400], buf[600];
	struct disk d[DISKS_MAX];
	int n;

	memset(long_model, 'M', sizeof(long_model) - 2);
	long_model[sizeof(long_model) - 2] = '\n';
	long_model[sizeof(long_model) - 1] = '\0';
	fake_sysfs_put("block/nvme0n1/device/model", long_model);
	fake_sysfs_put("block/sda/device/model", "\tWDC\x01 WD40\xc3\xa9 \n");
	n = disks_scan(fake_sysfs_root, d, DISKS_MAX);
	assert_int_equal(n, 5);
	assert_string_equal(d[1].name, "nvme0n1");
	assert_int_equal(strlen(d[1].model), DISKS_TEXT_MAX);
	assert_true(d[1].model[0] == 'M' && d[1].model[DISKS_TEXT_MAX - 1] == 'M');
	assert_string_equal(d[2].model, "WDC? WD40??");
	snprintf(buf, sizeof(buf), "  %s", long_model);
	buf[2 + DISKS_TEXT_MAX - 1] = ' '; /* a blank where the cut falls is trimmed too */
	assert_int_equal(strlen(disks_text_clean(buf)), DISKS_TEXT_MAX - 1);
	snprintf(buf, sizeof(buf), " \r\n");
	assert_string_equal(disks_text_clean(buf), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disks_inventory),
		cmocka_unit_test(test_disks_cap_and_missing_root),
		cmocka_unit_test(test_disks_with_models_for_apply),
		cmocka_unit_test(test_disks_text_rule),
	};

	/* one tree for all: each test adds to what the ones before left */
	return cmocka_run_group_tests_name("disks", tests, setup, fake_sysfs_remove);
}
