/* fake_sysfs.h - a throwaway sysfs-like tree for unit tests of code that
 * takes a sysfs root: made under /tmp, filled file by file, removed whole.
 * Include after <cmocka.h>.
 */
#ifndef SCHEDIO_TESTS_UNIT_FAKE_SYSFS_H
#define SCHEDIO_TESTS_UNIT_FAKE_SYSFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"

/* The tree's root, set by fake_sysfs_make. */
static char fake_sysfs_root[64];

/* Writes text to root/rel, making the folders on the way. */
static inline void fake_sysfs_put(const char *rel, const char *text)
{
	char path[512], dir[512];

	snprintf(path, sizeof(path), "%s/%s", fake_sysfs_root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(fs_mkdir_p(dir), 0);
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
}

/* Makes an empty tree (a cmocka setup). */
static inline int fake_sysfs_make(void **state)
{
	(void)state;
	snprintf(fake_sysfs_root, sizeof(fake_sysfs_root), "/tmp/schedio-fake-sysfs.XXXXXX");
	return mkdtemp(fake_sysfs_root) ? 0 : -1;
}

/* Removes the tree (a cmocka teardown). */
static inline int fake_sysfs_remove(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_sysfs_root);
	return system(cmd) == 0 ? 0 : -1;
}

#endif /* SCHEDIO_TESTS_UNIT_FAKE_SYSFS_H */
