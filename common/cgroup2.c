/* cgroup2.c - the cgroup2 mount point from the mounts table, for the
 * agent's cgroup names and io.cost, and the CLI's `schedio apply`.
 *
 * The table escapes spaces and other odd bytes as \ooo; a mount point
 * written that way is skipped rather than unescaped, since a cgroup root
 * with a space in it is not worth supporting and a later plain one may
 * follow.
 */
#include "common/cgroup2.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int cgroup2_find_mount(const char *mounts_file, char *out, size_t cap)
{
	char line[4096], dev[256], dir[4096], type[64];
	FILE *f = fopen(mounts_file, "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3 || strcmp(type, "cgroup2") ||
		    strchr(dir, '\\'))
			continue;
		if (strlen(dir) >= cap) {
			err = -ENAMETOOLONG;
			break;
		}
		snprintf(out, cap, "%s", dir);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}
