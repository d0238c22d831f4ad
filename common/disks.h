/* disks.h - this host's whole block devices as sysfs describes them: the
 * agent's disk inventory and the disks `schedio apply` configures, read by
 * one scan so both name a disk by the same model string.
 */
#ifndef SCHEDIO_COMMON_DISKS_H
#define SCHEDIO_COMMON_DISKS_H

#include <stddef.h>
#include <stdint.h>

/* Longest model or firmware string kept, in bytes (the server takes 256). */
#define DISKS_TEXT_MAX 255

struct disk {
	unsigned major, minor;
	char name[32];                  /* nvme0n1, sda (the kernel's limit is 32 with the NUL) */
	char model[DISKS_TEXT_MAX + 1]; /* disks_text_clean'd; "" when sysfs has none (virtio, dm) */
	char fwrev[DISKS_TEXT_MAX + 1]; /* disks_text_clean'd; "" when sysfs has none */
	uint64_t size_bytes;
	int rotational; /* 1, 0, or -1 when unknown */
};

/* How many disks the agent reports at most. */
#define DISKS_MAX 64

/* Lists whole disks under sysfs_root/block (sysfs_root is "/sys" outside tests), sorted by
 * name; skips partitions, loop, ram and zram devices. Returns the count (at most cap) or -errno. */
int disks_scan(const char *sysfs_root, struct disk *out, size_t cap);
/* True for device names the inventory leaves out (loop, ram, zram). */
int disks_skip_name(const char *name);
/* The one rule for model and firmware strings, in place: leading and trailing
 * whitespace trimmed, at most DISKS_TEXT_MAX bytes kept, then every byte that
 * is not printable ASCII (0x20-0x7e) replaced by '?'. The result is valid
 * UTF-8 and within the server's REPORT_MAX_NAME. Returns s. */
char *disks_text_clean(char *s);

#endif /* SCHEDIO_COMMON_DISKS_H */
