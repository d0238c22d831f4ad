/* ssd_disks.c - see ssd_disks.h. Only /sys/block entries are read: it
 * lists whole disks (partitions live below them), and a disk without
 * device/model is not something the SSD database can know (device mapper,
 * md, virtual disks without a model string).
 */
#include "cli/ssd_disks.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"

static int cmp_disk(const void *a, const void *b)
{
	return strcmp(((const struct ssd_disk *)a)->name, ((const struct ssd_disk *)b)->name);
}

static int read_attr(const char *root, const char *disk, const char *attr, char *out, size_t cap)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/block/%s/%s", root, disk, attr);
	return fs_read_trimmed(path, out, cap) < 0 ? -1 : 0;
}

int ssd_disks_list(const char *sysfs_root, struct ssd_disk **out, size_t *n)
{
	char path[4096];
	struct ssd_disk *list = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/block", sysfs_root);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct ssd_disk disk = { 0 };
		char probe[4096];

		if (e->d_name[0] == '.' || strncmp(e->d_name, "loop", 4) == 0 || strncmp(e->d_name, "ram", 3) == 0 ||
		    strncmp(e->d_name, "zram", 4) == 0 || strlen(e->d_name) >= sizeof(disk.name))
			continue;
		snprintf(probe, sizeof(probe), "%s/block/%s/partition", sysfs_root, e->d_name);
		if (access(probe, F_OK) == 0)
			continue;
		snprintf(disk.name, sizeof(disk.name), "%s", e->d_name);
		if (read_attr(sysfs_root, disk.name, "dev", disk.dev, sizeof(disk.dev)) < 0 ||
		    read_attr(sysfs_root, disk.name, "device/model", disk.model, sizeof(disk.model)) < 0 ||
		    !*disk.model)
			continue;
		/* NVMe calls it firmware_rev, SCSI/ATA rev */
		if (read_attr(sysfs_root, disk.name, "device/firmware_rev", disk.fwrev, sizeof(disk.fwrev)) < 0)
			read_attr(sysfs_root, disk.name, "device/rev", disk.fwrev, sizeof(disk.fwrev));
		if (count == cap) {
			struct ssd_disk *nl = realloc(list, (cap ? cap * 2 : 8) * sizeof(*list));

			if (!nl) {
				rc = -ENOMEM;
				break;
			}
			list = nl;
			cap = cap ? cap * 2 : 8;
		}
		list[count++] = disk;
	}
	closedir(d);
	if (rc) {
		free(list);
		return rc;
	}
	if (count)
		qsort(list, count, sizeof(*list), cmp_disk);
	*out = list;
	*n = count;
	return 0;
}

int ssd_disks_cgroup2_root(const char *mounts_path, char *out, size_t cap)
{
	FILE *f = fopen(mounts_path, "re");
	char line[4096], dev[256], dir[4096], type[64];
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3 || strcmp(type, "cgroup2") != 0)
			continue;
		/* mounts escapes spaces as \040; a cgroup root with one is not worth supporting */
		if (strchr(dir, '\\') || strlen(dir) >= cap)
			continue;
		snprintf(out, cap, "%s", dir);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}
