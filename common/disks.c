/* disks.c - the disk inventory: every whole block device in sysfs with its
 * MAJ:MIN, model, firmware revision, size and rotational flag, so the server
 * can match a host's SSDs to the model database and `schedio apply` can ask
 * it for the same disk under the same name.
 *
 * Left out: partitions (iocost is configured per whole device), loop and ram
 * disks, and zram (compressed RAM: no model, no firmware, never an iocost
 * target worth a benchmark). Device-mapper, md and nbd stay: they are real
 * queues a cgroup's IO goes through. The sysfs root is a parameter so tests
 * build a fake tree.
 */
#include "common/disks.h"

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"

int disks_skip_name(const char *name)
{
	return !strncmp(name, "loop", 4) || !strncmp(name, "ram", 3) || !strncmp(name, "zram", 4);
}

char *disks_text_clean(char *s)
{
	size_t len;

	fs_trim(s);
	len = strlen(s);
	if (len > DISKS_TEXT_MAX) {
		s[DISKS_TEXT_MAX] = '\0';
		fs_trim(s); /* the cut may leave trailing blanks */
	}
	/* printable ASCII only: the strings go into JSON, onto dashboards and into URLs */
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return s;
}

static ssize_t read_attr(const char *root, const char *name, const char *attr, char *buf, size_t cap)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/block/%s/%s", root, name, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	return fs_read_trimmed(path, buf, cap);
}

/* Reads a text attribute into out (DISKS_TEXT_MAX + 1 bytes) by the one rule; "" when absent. */
static int read_text(const char *root, const char *name, const char *attr, char *out)
{
	char buf[1024]; /* more than DISKS_TEXT_MAX, so a long value is cut by the rule, not by the read */

	if (read_attr(root, name, attr, buf, sizeof(buf)) < 0) {
		out[0] = '\0';
		return -1;
	}
	snprintf(out, DISKS_TEXT_MAX + 1, "%s", disks_text_clean(buf));
	return 0;
}

/* "MAJ:MIN" and nothing else. */
static int parse_devno(const char *s, unsigned *major, unsigned *minor)
{
	unsigned long v[2];
	char *end;

	for (int i = 0; i < 2; i++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		errno = 0;
		v[i] = strtoul(s, &end, 10);
		if (errno || v[i] > UINT_MAX || *end != (i ? '\0' : ':'))
			return -1;
		s = end + 1;
	}
	*major = (unsigned)v[0];
	*minor = (unsigned)v[1];
	return 0;
}

static int disk_read(const char *root, const char *name, struct disk *d)
{
	char buf[128];
	char *end;
	unsigned long long sectors;

	memset(d, 0, sizeof(*d));
	if (read_attr(root, name, "partition", buf, sizeof(buf)) >= 0)
		return -1;
	if (read_attr(root, name, "dev", buf, sizeof(buf)) <= 0 || parse_devno(buf, &d->major, &d->minor))
		return -1;
	snprintf(d->name, sizeof(d->name), "%s", name);
	read_text(root, name, "device/model", d->model);
	/* NVMe calls it firmware_rev, SCSI/ATA rev */
	if (read_text(root, name, "device/firmware_rev", d->fwrev) < 0)
		read_text(root, name, "device/rev", d->fwrev);
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
