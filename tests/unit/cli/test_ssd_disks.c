/* test_ssd_disks.c - `schedio apply`'s view of the host: disks from a fake
 * sysfs tree (whole disks with a model only, sorted, trimmed; NVMe and SCSI
 * firmware names) and the cgroup2 root from a mounts file.
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

#include "cli/ssd_disks.h"
#include "common/fsutil.h"

static char root[] = "/tmp/schedio-test-disks-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(fs_mkdir_p(dir), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_lists_whole_disks_with_models(void **state)
{
	struct ssd_disk *d;
	size_t n;

	assert_non_null(mkdtemp(root));
	put("block/sda/dev", "8:0\n");
	put("block/sda/device/model", "Samsung SSD 860   \n");
	put("block/sda/device/rev", "RVT04B6Q\n");
	put("block/nvme0n1/dev", "259:0\n");
	put("block/nvme0n1/device/model", "INTEL SSDPEKKA256G7\n");
	put("block/nvme0n1/device/firmware_rev", " PSF119D \n");
	put("block/sda1/dev", "8:1\n");
	put("block/sda1/partition", "1\n");
	put("block/sda1/device/model", "x\n");
	put("block/loop3/dev", "7:3\n");
	put("block/loop3/device/model", "x\n");
	put("block/zram0/device/model", "x\n");
	put("block/dm-0/dev", "253:0\n");
	put("block/vdb/dev", "254:16\n");
	put("block/vdb/device/model", "\n");
	assert_int_equal(ssd_disks_list(root, &d, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "nvme0n1");
	assert_string_equal(d[0].dev, "259:0");
	assert_string_equal(d[0].fwrev, "PSF119D");
	assert_string_equal(d[1].name, "sda");
	assert_string_equal(d[1].model, "Samsung SSD 860");
	assert_string_equal(d[1].fwrev, "RVT04B6Q");
	free(d);
	assert_int_equal(ssd_disks_list("/nonexistent-schedio", &d, &n), -ENOENT);
}

static void test_cgroup2_root_from_mounts(void **state)
{
	char path[600], out[256], cmd[600];

	put("mounts1", "sysfs /sys sysfs rw 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
		       "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n");
	put("mounts2", "proc /proc proc rw 0 0\n");
	put("mounts3", "cgroup2 /odd\\040dir cgroup2 rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
	snprintf(path, sizeof(path), "%s/mounts1", root);
	assert_int_equal(ssd_disks_cgroup2_root(path, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	snprintf(path, sizeof(path), "%s/mounts2", root);
	assert_int_equal(ssd_disks_cgroup2_root(path, out, sizeof(out)), -ENOENT);
	snprintf(path, sizeof(path), "%s/mounts3", root);
	assert_int_equal(ssd_disks_cgroup2_root(path, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists_whole_disks_with_models),
		cmocka_unit_test(test_cgroup2_root_from_mounts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
