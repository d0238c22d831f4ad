/* test_cgroup2.c - common/cgroup2.c: the cgroup2 mount point from a mounts
 * table (the first one; one written with \ooo escapes is skipped).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/cgroup2.h"

static char mounts[] = "/tmp/schedio-mounts-XXXXXX";

static void put(const char *text)
{
	FILE *f = fopen(mounts, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_cgroup2_finds_first_mount(void **state)
{
	char out[256];
	int fd = mkstemp(mounts);

	assert_true(fd >= 0);
	close(fd);
	put("sysfs /sys sysfs rw 0 0\n"
	    "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
	    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n");
	assert_int_equal(cgroup2_find_mount(mounts, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	put("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n");
	assert_int_equal(cgroup2_find_mount(mounts, out, sizeof(out)), -ENOENT);
	put("proc /proc proc rw 0 0\n");
	assert_int_equal(cgroup2_find_mount(mounts, out, sizeof(out)), -ENOENT);
	put("cgroup2 /odd\\040dir cgroup2 rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
	assert_int_equal(cgroup2_find_mount(mounts, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	assert_int_equal(cgroup2_find_mount(mounts, out, 8), -ENAMETOOLONG);
	unlink(mounts);
	assert_int_equal(cgroup2_find_mount("/nonexistent-schedio/mounts", out, sizeof(out)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup2_finds_first_mount),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
