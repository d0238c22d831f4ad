/* cgroup2.h - where the cgroup2 hierarchy is mounted on this host. */
#ifndef SCHEDIO_COMMON_CGROUP2_H
#define SCHEDIO_COMMON_CGROUP2_H

#include <stddef.h>

/* The mounts table outside tests. */
#define CGROUP2_MOUNTS "/proc/self/mounts"

/* Copies the first cgroup2 mount point of a mounts table (CGROUP2_MOUNTS) into
 * out; returns 0, -ENOENT when there is none, -ENAMETOOLONG when it does not
 * fit in cap, or -errno. */
int cgroup2_find_mount(const char *mounts_file, char *out, size_t cap);

#endif /* SCHEDIO_COMMON_CGROUP2_H */
