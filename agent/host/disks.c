/* disks.c - the disk inventory: every whole block device in sysfs with its
 * MAJ:MIN, model, firmware revision, size and rotational flag, so the server
 * can match a host's SSDs to the model database.
 *
 * Left out: partitions (iocost is configured per whole device), loop and ram
 * disks, and zram (compressed RAM: no model, no firmware, never an iocost
 * target worth a benchmark). Device-mapper, md and nbd stay: they are real
 * queues a cgroup's IO goes through. The sysfs root is a parameter so tests
 * build a fake tree.
 */
#include "agent/host/disks.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/iocost/iostat.h"
#include "common/fsutil.h"

int disks_skip_name(const char *name)
{
	return !strncmp(name, "loop", 4) || !strncmp(name, "ram", 3) || !strncmp(name, "zram", 4);
}

static ssize_t read_attr(const char *root, const char *name, const char *attr, char *buf, size_t cap)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/block/%s/%s", root, name, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	return fs_read_trimmed(path, buf, cap);
}

/* Keeps printable ASCII only: model strings go into JSON and onto dashboards. */
static void clean_text(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static int disk_read(const char *root, const char *name, struct disk *d)
{
	char buf[128];
	const char *p = buf;
	char *end;
	unsigned long long sectors;

	memset(d, 0, sizeof(*d));
	if (read_attr(root, name, "partition", buf, sizeof(buf)) >= 0)
		return -1;
	if (read_attr(root, name, "dev", buf, sizeof(buf)) <= 0 || iostat_parse_devno(&p, &d->major, &d->minor) || *p)
		return -1;
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (read_attr(root, name, "device/model", d->model, sizeof(d->model)) < 0)
		d->model[0] = '\0';
	if (read_attr(root, name, "device/firmware_rev", d->fwrev, sizeof(d->fwrev)) < 0 &&
	    read_attr(root, name, "device/rev", d->fwrev, sizeof(d->fwrev)) < 0)
		d->fwrev[0] = '\0';
	clean_text(d->model);
	clean_text(d->fwrev);
	if (read_attr(root, name, "size", buf, sizeof(buf)) > 0) {
		errno = 0;
		sectors = strtoull(buf, &end, 10);
		if (!errno && !*end && sectors <= UINT64_MAX / 512)
			d->size_bytes = (uint64_t)sectors * 512; /* sysfs size is in 512-byte units whatever the LBA */
	}
	d->rotational = -1;
	if (read_attr(root, name, "queue/rotational", buf, sizeof(buf)) > 0 && (buf[0] == '0' || buf[0] == '1') &&
	    !buf[1])
		d->rotational = buf[0] - '0';
	return 0;
}

static int disk_cmp(const void *a, const void *b)
{
	return strcmp(((const struct disk *)a)->name, ((const struct disk *)b)->name);
}

int disks_scan(const char *sysfs_root, struct disk *out, size_t cap)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *dir;

	if ((size_t)snprintf(path, sizeof(path), "%s/block", sysfs_root) >= sizeof(path))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < cap) {
		if (de->d_name[0] == '.' || disks_skip_name(de->d_name) || strlen(de->d_name) >= sizeof(out->name))
			continue;
		if (disk_read(sysfs_root, de->d_name, &out[n]) == 0)
			n++;
	}
	closedir(dir);
	qsort(out, n, sizeof(*out), disk_cmp);
	return (int)n;
}
