/* ssd_disks.h - this host's disks as sysfs describes them, and where the
 * cgroup2 root is, for `schedio apply`. Both roots are parameters so tests
 * can point them at a fake tree.
 */
#ifndef SCHEDIO_CLI_SSD_DISKS_H
#define SCHEDIO_CLI_SSD_DISKS_H

#include <stddef.h>

struct ssd_disk {
	char name[64];   /* nvme0n1, sda */
	char dev[32];    /* MAJ:MIN */
	char model[256]; /* trimmed */
	char fwrev[128]; /* trimmed; may be empty */
};

/* Lists whole disks under sysfs_root/block that have a device model (skipping loop,
 * ram, zram and partitions), sorted by name; *out malloc'd. Returns 0 or -errno. */
int ssd_disks_list(const char *sysfs_root, struct ssd_disk **out, size_t *n);
/* Finds the first cgroup2 mount point in a mounts file (e.g. /proc/self/mounts);
 * returns 0, -ENOENT when there is none, or -errno. */
int ssd_disks_cgroup2_root(const char *mounts_path, char *out, size_t cap);

#endif /* SCHEDIO_CLI_SSD_DISKS_H */
