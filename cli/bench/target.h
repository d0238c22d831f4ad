/* target.h - what `schedio bench` runs on and the checks that keep it from
 * destroying data: a block device (writes only with --destructive, and not
 * on one that is mounted, a RAID/LVM member or partitioned unless --force),
 * an existing file (writes only with --destructive), or a directory, where
 * a test file is made, filled and removed afterwards.
 */
#ifndef SCHEDIO_CLI_BENCH_TARGET_H
#define SCHEDIO_CLI_BENCH_TARGET_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* The smallest target benched: random 4 KiB reads over less would run from the disk's cache. */
#define BENCH_MIN_SIZE (64ull << 20)
/* The test file made in a directory by default (the kernel tool's 16 GiB), at most half the free space. */
#define BENCH_DEFAULT_SIZE (16ull << 30)

/* The refusal of a target of another kind (a character device, a socket...), with its path. */
#define BENCH_TARGET_KIND_MSG "%s is neither a block device, a regular file nor a directory"

enum bench_target_kind { BENCH_TARGET_BLOCK, BENCH_TARGET_FILE, BENCH_TARGET_DIR };

/* Where the safety checks look; /sys, /proc/self/mountinfo and /proc/swaps outside tests. */
struct bench_safety_env {
	const char *sysfs_root;
	const char *mountinfo;
	const char *swaps;
};

struct bench_target {
	enum bench_target_kind kind;
	char test_file[PATH_MAX]; /* the file made in a directory target, "" otherwise */
	int fd;                   /* O_DIRECT; read-write only when writes were allowed */
	uint64_t size;            /* bytes IO goes to: [0, size), a multiple of 1 MiB */
	unsigned major, minor;    /* the block device benched, or the one holding the file */
	int need_fill;            /* the test file is new: it must be written before it is read */
};

/* Why writes to block device name (MAJ:MIN, a disk or a partition) would destroy something in
 * use: it or a partition of it is mounted or a swap, it has holders (RAID, LVM, dm), or it has
 * partitions. 1 with the reason in why, 0 when none of these holds. */
int bench_safety_block_busy(const struct bench_safety_env *env, const char *name, unsigned major, unsigned minor,
			    char *why, size_t cap);
/* The partition table the first len bytes of a device hold ("MBR" or "GPT"), or NULL. */
const char *bench_safety_signature(const unsigned char *buf, size_t len);
/* Opens path for a bench; writes says whether write phases will run, size is --size (0: the
 * default). 0; 1 when refused (the reason in why, nothing written); or -errno. */
int bench_target_open(struct bench_target *t, const char *path, int writes, int destructive, int force, uint64_t size,
		      const struct bench_safety_env *env, char *why, size_t cap);
/* Closes the target and removes the test file if one was made; async-signal-safe. */
void bench_target_close(struct bench_target *t);

#endif /* SCHEDIO_CLI_BENCH_TARGET_H */
