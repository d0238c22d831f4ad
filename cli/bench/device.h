/* device.h - which disk a `schedio bench` target is: the whole disk behind a
 * block device, a partition or a file's filesystem, found in sysfs, and
 * described by common/disks.c as the agent describes it.
 */
#ifndef SCHEDIO_CLI_BENCH_DEVICE_H
#define SCHEDIO_CLI_BENCH_DEVICE_H

#include <stddef.h>

#include "common/disks.h"

/* The sysfs name (nvme0n1, nvme0n1p2, dm-0) of block device MAJ:MIN and the name of its
 * whole disk (the same, or the partition's parent) under sysfs_root/block; 0 or -ENOENT. */
int bench_device_names(const char *sysfs_root, unsigned major, unsigned minor, char *name, size_t name_cap, char *disk,
		       size_t disk_cap);
/* The disk MAJ:MIN sits on: its whole disk, and through device-mapper or md with exactly
 * one member (LVM or dm-crypt on one disk) that member's disk, as common/disks.c reads it
 * (loop devices, which disks.c leaves out, with their name, MAJ:MIN and size only).
 * 0, or -ENOENT when sysfs has no such block device. */
int bench_device_identify(const char *sysfs_root, unsigned major, unsigned minor, struct disk *out);

#endif /* SCHEDIO_CLI_BENCH_DEVICE_H */
