/* disks.h - the block devices of this host that IO control applies to. */
#ifndef SCHEDIO_AGENT_HOST_DISKS_H
#define SCHEDIO_AGENT_HOST_DISKS_H

#include <stddef.h>
#include <stdint.h>

struct disk {
	unsigned major, minor;
	char name[32];
	char model[64]; /* "" when sysfs has none (virtio, dm) */
	char fwrev[32];
	uint64_t size_bytes;
	int rotational; /* 1, 0, or -1 when unknown */
};

#define DISKS_MAX 64

/* Lists whole disks under sysfs_root/block (sysfs_root is "/sys" outside tests), sorted by
 * name; skips partitions, loop, ram and zram devices. Returns the count (at most cap) or -errno. */
int disks_scan(const char *sysfs_root, struct disk *out, size_t cap);
/* True for device names the inventory leaves out (loop, ram, zram). */
int disks_skip_name(const char *name);

#endif /* SCHEDIO_AGENT_HOST_DISKS_H */
