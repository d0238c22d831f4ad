/* fsutil.h - small file helpers for sysfs, procfs and cgroupfs reads and for
 * writing files so that a crash never leaves a half-written one.
 */
#ifndef SCHEDIO_COMMON_FSUTIL_H
#define SCHEDIO_COMMON_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Reads up to cap-1 bytes of path into buf, NUL-terminated; returns length or -errno. */
ssize_t fs_read_small(const char *path, char *buf, size_t cap);
/* Like fs_read_small, then trims whitespace at both ends; returns new length or -errno. */
ssize_t fs_read_trimmed(const char *path, char *buf, size_t cap);
/* Reads all of path (at most max bytes, else -EFBIG) into a new NUL-terminated buffer *out of *len bytes;
 * 0 or -errno. */
int fs_read_all(const char *path, size_t max, char **out, size_t *len);
/* Trims leading and trailing whitespace of s in place; returns s. */
char *fs_trim(char *s);
/* Writes data to path via a temp file, fsync and rename; returns 0 or -errno. */
int fs_write_atomic(const char *path, const void *data, size_t len);
/* Creates dir and its parents (mode 0755 masked by umask); returns 0 or -errno. */
int fs_mkdir_p(const char *dir);

#endif /* SCHEDIO_COMMON_FSUTIL_H */
