/* cgroup.h - naming cgroups by id: a cache from
 * cgroup id (the inode number of its cgroupfs directory) to its path.
 */
#ifndef SCHEDIO_AGENT_HOST_CGROUP_H
#define SCHEDIO_AGENT_HOST_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgroup_entry {
	uint64_t id;
	char *path; /* relative to the cgroup2 root, "/" for the root itself */
};

struct cgroup_paths {
	char root[PATH_MAX];
	unsigned max_depth;
	struct cgroup_entry *v; /* sorted by id */
	size_t n, cap;
};

/* Starts an empty cache for the tree at root, scanning no deeper than max_depth. */
void cgroup_paths_init(struct cgroup_paths *cp, const char *root, unsigned max_depth);
/* Walks the tree and caches every directory not yet known; 0 or -errno. */
int cgroup_paths_scan(struct cgroup_paths *cp);
/* Cached path of id, or NULL if it was never seen. */
const char *cgroup_paths_get(const struct cgroup_paths *cp, uint64_t id);
/* True if the cached path of id still exists and is still the cgroup id. */
bool cgroup_paths_alive(const struct cgroup_paths *cp, uint64_t id);
/* Path of the deepest cached cgroup in chain[0..level] (root first), "/" if none. */
const char *cgroup_paths_resolve(const struct cgroup_paths *cp, const uint64_t *chain, unsigned level);
/* Drops id from the cache (after its cgroup is gone and reported). */
void cgroup_paths_forget(struct cgroup_paths *cp, uint64_t id);
/* Releases the cache. */
void cgroup_paths_free(struct cgroup_paths *cp);

#endif /* SCHEDIO_AGENT_HOST_CGROUP_H */
