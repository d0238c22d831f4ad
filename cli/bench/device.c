/* device.c - see device.h.
 *
 * A block device's MAJ:MIN is looked up by reading the dev files under
 * block/ (whole disks) and block/DISK/PART/ (their partitions) rather than
 * by following /sys/dev/block links, so a fake tree of plain files tests it.
 * Device-mapper and md devices are walked down through slaves/ while they
 * have exactly one: the io.cost model belongs to the disk that does the IO.
 * With several members (RAID, striped LVM) there is no one disk; the dm or
 * md device itself is reported, with no model.
 */
#include "cli/bench/device.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"

static int read_devno(const char *path, unsigned *major, unsigned *minor)
{
	char buf[64];

	if (fs_read_trimmed(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%u:%u", major, minor) != 2)
		return -1;
	return 0;
}

int bench_device_names(const char *sysfs_root, unsigned major, unsigned minor, char *name, size_t name_cap, char *disk,
		       size_t disk_cap)
{
	char path[PATH_MAX];
	struct dirent *de, *pe;
	DIR *dir, *sub;
	unsigned ma, mi;
	int found = -ENOENT;

	snprintf(path, sizeof(path), "%s/block", sysfs_root);
	dir = opendir(path);
	if (!dir)
		return -ENOENT;
	while (found && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/block/%s/dev", sysfs_root, de->d_name);
		if (read_devno(path, &ma, &mi) == 0 && ma == major && mi == minor) {
			snprintf(name, name_cap, "%s", de->d_name);
			snprintf(disk, disk_cap, "%s", de->d_name);
			found = 0;
			break;
		}
		snprintf(path, sizeof(path), "%s/block/%s", sysfs_root, de->d_name);
		sub = opendir(path);
		if (!sub)
			continue;
		while ((pe = readdir(sub))) {
			if (pe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/block/%s/%s/partition", sysfs_root, de->d_name, pe->d_name);
			if (access(path, F_OK) != 0)
				continue;
			snprintf(path, sizeof(path), "%s/block/%s/%s/dev", sysfs_root, de->d_name, pe->d_name);
			if (read_devno(path, &ma, &mi) == 0 && ma == major && mi == minor) {
				snprintf(name, name_cap, "%s", pe->d_name);
				snprintf(disk, disk_cap, "%s", de->d_name);
				found = 0;
				break;
			}
		}
		closedir(sub);
	}
	closedir(dir);
	return found;
}

/* The one entry of block/NAME/slaves, or -1 when there are none or several. */
static int only_slave(const char *sysfs_root, const char *name, char *out, size_t cap)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/block/%s/slaves", sysfs_root, name);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.' && n++ == 0)
			snprintf(out, cap, "%s", de->d_name);
	closedir(dir);
	return n == 1 ? 0 : -1;
}

/* MAJ:MIN of a block device known by its sysfs name (a disk or a partition). */
static int devno_of(const char *sysfs_root, const char *name, unsigned *major, unsigned *minor)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "%s/block/%s/dev", sysfs_root, name);
	if (read_devno(path, major, minor) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/block", sysfs_root);
	dir = opendir(path);
	if (!dir)
		return -ENOENT;
	while (err && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/block/%s/%s/dev", sysfs_root, de->d_name, name);
		if (read_devno(path, major, minor) == 0)
			err = 0;
	}
	closedir(dir);
	return err;
}

int bench_device_identify(const char *sysfs_root, unsigned major, unsigned minor, struct disk *out)
{
	struct disk *all = NULL;
	char name[NAME_MAX + 1], disk[NAME_MAX + 1], slave[NAME_MAX + 1], path[PATH_MAX], buf[64];
	int n, err;

	memset(out, 0, sizeof(*out));
	err = bench_device_names(sysfs_root, major, minor, name, sizeof(name), disk, sizeof(disk));
	/* dm/md on one member: follow it down (a few levels at most: crypt on LVM on a partition) */
	for (int depth = 0; !err && depth < 8 && only_slave(sysfs_root, disk, slave, sizeof(slave)) == 0; depth++) {
		if (devno_of(sysfs_root, slave, &major, &minor))
			break;
		err = bench_device_names(sysfs_root, major, minor, name, sizeof(name), disk, sizeof(disk));
	}
	if (err)
		return err;
	all = calloc(DISKS_MAX, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n = disks_scan(sysfs_root, all, DISKS_MAX);
	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].name, disk)) {
			*out = all[i];
			free(all);
			return 0;
		}
	free(all);
	/* a disk the inventory leaves out (loop): what a model line needs */
	snprintf(out->name, sizeof(out->name), "%.*s", (int)sizeof(out->name) - 1, disk);
	devno_of(sysfs_root, disk, &out->major, &out->minor);
	out->rotational = -1;
	snprintf(path, sizeof(path), "%s/block/%s/size", sysfs_root, disk);
	if (fs_read_trimmed(path, buf, sizeof(buf)) > 0)
		out->size_bytes = strtoull(buf, NULL, 10) * 512;
	snprintf(path, sizeof(path), "%s/block/%s/queue/rotational", sysfs_root, disk);
	if (fs_read_trimmed(path, buf, sizeof(buf)) > 0)
		out->rotational = buf[0] == '1';
	return 0;
}
