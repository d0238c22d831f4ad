/* target.c - see target.h.
 *
 * Every refusal happens before the first byte is written, and a block
 * device opened for writing is opened O_EXCL too (without --force): the
 * kernel then refuses it if anything (a filesystem, md, dm) claims it, even
 * what the checks here did not see.
 */
#include "cli/bench/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli/bench/device.h"
#include "common/fsutil.h"

#define MIB (1ull << 20)

const char *bench_safety_signature(const unsigned char *buf, size_t len)
{
	/* GPT's header is in LBA 1: byte 512, or 4096 on 4Kn disks */
	if (len >= 520 && !memcmp(buf + 512, "EFI PART", 8))
		return "GPT";
	if (len >= 4104 && !memcmp(buf + 4096, "EFI PART", 8))
		return "GPT";
	if (len >= 512 && buf[510] == 0x55 && buf[511] == 0xaa)
		return "MBR";
	return NULL;
}

/* Whether the mount table has a filesystem on MAJ:MIN or on /dev/NAME. */
static int mounted(const char *mountinfo, const char *name, unsigned major, unsigned minor, char *at, size_t cap)
{
	char line[4096], devno[32], src[64];
	FILE *f = fopen(mountinfo, "r");
	int hit = 0;

	if (!f)
		return 0;
	snprintf(devno, sizeof(devno), "%u:%u", major, minor);
	snprintf(src, sizeof(src), "/dev/%s", name);
	while (!hit && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *mnt = NULL, *dash;
		int i = 0;

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE SOURCE OPTIONS */
		dash = strstr(line, " - ");
		for (tok = strtok_r(line, " ", &save); tok && i < 5; tok = strtok_r(NULL, " ", &save), i++) {
			if (i == 2 && !strcmp(tok, devno))
				hit = 1;
			if (i == 4)
				mnt = tok;
		}
		if (!hit && dash) {
			char fstype[64], source[PATH_MAX];

			if (sscanf(dash, " - %63s %4095s", fstype, source) == 2 && !strcmp(source, src))
				hit = 1;
		}
		if (hit)
			snprintf(at, cap, "%s", mnt ? mnt : "?");
	}
	fclose(f);
	return hit;
}

static int swapped(const char *swaps, const char *name)
{
	char line[1024], dev[64];
	FILE *f = fopen(swaps, "r");
	int hit = 0;

	if (!f)
		return 0;
	snprintf(dev, sizeof(dev), "/dev/%s", name);
	while (!hit && fgets(line, sizeof(line), f))
		hit = !strncmp(line, dev, strlen(dev)) && (line[strlen(dev)] == ' ' || line[strlen(dev)] == '\t');
	fclose(f);
	return hit;
}

/* The first entry of DIR (holders/), or 0 when empty or missing. */
static int first_entry(const char *dirpath, char *out, size_t cap)
{
	struct dirent *de;
	DIR *d = opendir(dirpath);
	int hit = 0;

	if (!d)
		return 0;
	while (!hit && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(out, cap, "%s", de->d_name);
			hit = 1;
		}
	closedir(d);
	return hit;
}

/* One block device's own reasons (mounted, swap, holders). relpath is its folder under block/. */
static int busy_one(const struct bench_safety_env *env, const char *relpath, const char *name, unsigned major,
		    unsigned minor, char *why, size_t cap)
{
	char path[PATH_MAX], what[256];

	if (mounted(env->mountinfo, name, major, minor, what, sizeof(what))) {
		snprintf(why, cap, "/dev/%s is mounted on %s", name, what);
		return 1;
	}
	if (swapped(env->swaps, name)) {
		snprintf(why, cap, "/dev/%s is in use as swap", name);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/block/%s/holders", env->sysfs_root, relpath);
	if (first_entry(path, what, sizeof(what))) {
		snprintf(why, cap, "/dev/%s is held by %s (a RAID, LVM or device-mapper member)", name, what);
		return 1;
	}
	return 0;
}

int bench_safety_block_busy(const struct bench_safety_env *env, const char *name, unsigned major, unsigned minor,
			    char *why, size_t cap)
{
	char path[PATH_MAX], rel[PATH_MAX], own[NAME_MAX + 1], disk[NAME_MAX + 1], buf[64];
	struct dirent *de;
	DIR *d;
	int busy = 0, parts = 0;

	if (bench_device_names(env->sysfs_root, major, minor, own, sizeof(own), disk, sizeof(disk))) {
		snprintf(own, sizeof(own), "%s", name);
		snprintf(disk, sizeof(disk), "%s", name);
	}
	if (strcmp(own, disk))
		snprintf(rel, sizeof(rel), "%s/%s", disk, own); /* a partition */
	else
		snprintf(rel, sizeof(rel), "%s", own);
	if (busy_one(env, rel, own, major, minor, why, cap))
		return 1;
	if (strcmp(own, disk))
		return 0; /* a partition has no partitions of its own */
	snprintf(path, sizeof(path), "%s/block/%s", env->sysfs_root, own);
	d = opendir(path);
	while (d && !busy && (de = readdir(d))) {
		unsigned ma, mi;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/block/%s/%s/partition", env->sysfs_root, own, de->d_name);
		if (access(path, F_OK))
			continue;
		parts++;
		snprintf(path, sizeof(path), "%s/block/%s/%s/dev", env->sysfs_root, own, de->d_name);
		if (fs_read_trimmed(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", own, de->d_name);
		busy = busy_one(env, rel, de->d_name, ma, mi, why, cap);
	}
	if (d)
		closedir(d);
	if (!busy && parts) {
		snprintf(why, cap, "/dev/%s has %d partition%s", own, parts, parts > 1 ? "s" : "");
		busy = 1;
	}
	return busy;
}

/* Refuses writes to a block device unless the options and its state allow them. */
static int block_writes_ok(const struct bench_safety_env *env, int fd, unsigned major, unsigned minor, int destructive,
			   int force, const char *path, char *why, size_t cap)
{
	char name[NAME_MAX + 1], disk[NAME_MAX + 1], reason[512];
	unsigned char *head = NULL;
	const char *sig;
	ssize_t got;

	if (!destructive) {
		snprintf(why, cap,
			 "%s is a block device: write phases destroy its data; give --destructive, or --read-only",
			 path);
		return 1;
	}
	if (force)
		return 0;
	if (bench_device_names(env->sysfs_root, major, minor, name, sizeof(name), disk, sizeof(disk)))
		snprintf(name, sizeof(name), "%u:%u", major, minor);
	if (bench_safety_block_busy(env, name, major, minor, reason, sizeof(reason))) {
		snprintf(why, cap, "refusing to write to %s: %s (--force overrides)", path, reason);
		return 1;
	}
	/* fd is O_DIRECT: the buffer must be aligned. A device whose start cannot be read is refused too */
	if (posix_memalign((void **)&head, 4096, 8192))
		return -ENOMEM;
	got = pread(fd, head, 8192, 0);
	sig = got >= 512 ? bench_safety_signature(head, (size_t)got) : NULL;
	free(head);
	if (got < 512) {
		snprintf(why, cap,
			 "refusing to write to %s: cannot read its first sectors to look for a partition table", path);
		return 1;
	}
	if (sig) {
		snprintf(why, cap, "refusing to write to %s: it holds a partition table (%s) (--force overrides)", path,
			 sig);
		return 1;
	}
	return 0;
}

/* Makes the test file in directory dir: size (0: the default) within the free space. */
static int make_test_file(struct bench_target *t, const char *dir, uint64_t size, char *why, size_t cap)
{
	struct statvfs vfs;
	uint64_t avail;
	int fd, err;

	if (statvfs(dir, &vfs)) {
		snprintf(why, cap, "%s: %s", dir, strerror(errno));
		return 1;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (!size) {
		size = avail / 2 < BENCH_DEFAULT_SIZE ? avail / 2 : BENCH_DEFAULT_SIZE;
		size -= size % MIB;
		if (size < BENCH_MIN_SIZE) {
			snprintf(why, cap,
				 "%s has %llu MiB free: too small for a %llu MiB test file (half the free space)", dir,
				 (unsigned long long)(avail / MIB), (unsigned long long)(BENCH_MIN_SIZE / MIB));
			return 1;
		}
	} else if (size + 64 * MIB > avail) {
		snprintf(why, cap, "%s has %llu MiB free: not enough for a %llu MiB test file", dir,
			 (unsigned long long)(avail / MIB), (unsigned long long)(size / MIB));
		return 1;
	}
	snprintf(t->test_file, sizeof(t->test_file), "%s/.schedio-bench.XXXXXX", dir);
	fd = mkstemp(t->test_file);
	if (fd < 0) {
		snprintf(why, cap, "cannot create a test file in %s: %s", dir, strerror(errno));
		t->test_file[0] = '\0';
		return 1;
	}
	close(fd);
	t->fd = open(t->test_file, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (t->fd < 0) {
		err = errno;
		snprintf(why, cap, "%s: %s", dir,
			 err == EINVAL ? "its filesystem does not support direct IO (O_DIRECT)" : strerror(err));
		return 1;
	}
	err = posix_fallocate(t->fd, 0, (off_t)size);
	if (err) {
		snprintf(why, cap, "cannot reserve %llu MiB in %s: %s", (unsigned long long)(size / MIB), dir,
			 strerror(err));
		return 1;
	}
	t->size = size;
	t->need_fill = 1;
	return 0;
}

int bench_target_open(struct bench_target *t, const char *path, int writes, int destructive, int force, uint64_t size,
		      const struct bench_safety_env *env, char *why, size_t cap)
{
	struct stat st;
	uint64_t bytes = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (size && size % MIB) {
		snprintf(why, cap, "--size must be a whole number of MiB");
		return 1;
	}
	if (stat(path, &st)) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		t->kind = BENCH_TARGET_DIR;
		t->major = major(st.st_dev);
		t->minor = minor(st.st_dev);
		if (size && size < BENCH_MIN_SIZE) {
			snprintf(why, cap, "--size %llu MiB is below the minimum of %llu MiB",
				 (unsigned long long)(size / MIB), (unsigned long long)(BENCH_MIN_SIZE / MIB));
			return 1;
		}
		rc = make_test_file(t, path, size, why, cap);
		if (rc)
			bench_target_close(t);
		return rc;
	}
	if (S_ISREG(st.st_mode)) {
		t->kind = BENCH_TARGET_FILE;
		t->major = major(st.st_dev);
		t->minor = minor(st.st_dev);
		bytes = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		t->kind = BENCH_TARGET_BLOCK;
		t->major = major(st.st_rdev);
		t->minor = minor(st.st_rdev);
	} else {
		snprintf(why, cap, BENCH_TARGET_KIND_MSG, path);
		return 1;
	}
	if (writes && !destructive && t->kind == BENCH_TARGET_FILE) {
		snprintf(why, cap, "%s exists: write phases would overwrite it; give --destructive, or --read-only",
			 path);
		return 1;
	}
	t->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (t->fd < 0) {
		snprintf(why, cap, "%s: %s", path,
			 errno == EINVAL ? "its filesystem does not support direct IO (O_DIRECT)" : strerror(errno));
		return 1;
	}
	if (t->kind == BENCH_TARGET_BLOCK && ioctl(t->fd, BLKGETSIZE64, &bytes)) {
		snprintf(why, cap, "%s: cannot read its size: %s", path, strerror(errno));
		goto refuse;
	}
	if (size && size < bytes)
		bytes = size;
	bytes -= bytes % MIB;
	if (bytes < BENCH_MIN_SIZE) {
		snprintf(why, cap, "%s is too small: %llu MiB usable, the minimum is %llu MiB", path,
			 (unsigned long long)(bytes / MIB), (unsigned long long)(BENCH_MIN_SIZE / MIB));
		goto refuse;
	}
	t->size = bytes;
	if (!writes)
		return 0;
	if (t->kind == BENCH_TARGET_BLOCK) {
		rc = block_writes_ok(env, t->fd, t->major, t->minor, destructive, force, path, why, cap);
		if (rc)
			goto out;
	}
	close(t->fd);
	t->fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC | (t->kind == BENCH_TARGET_BLOCK && !force ? O_EXCL : 0));
	if (t->fd < 0) {
		snprintf(why, cap, "%s: %s", path,
			 errno == EBUSY
			     ? "the kernel says it is in use (mounted or claimed by md/dm); --force overrides"
			     : strerror(errno));
		return 1;
	}
	return 0;
refuse:
	rc = 1;
out:
	bench_target_close(t);
	return rc;
}

void bench_target_close(struct bench_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->test_file[0])
		unlink(t->test_file);
	t->test_file[0] = '\0';
}
