/* cgroup.c - cgroup ids to paths.
 *
 * BPF sees a cgroup by id; on cgroup2 the id is the inode number of the
 * cgroup's directory, so walking the tree and stat-ing directories names
 * them without extra privileges. A path is cached the first time its id is
 * seen and kept until the agent has reported the cgroup's last counts, so a
 * cgroup removed during an interval is still reported under its own name.
 * The walk stops at the configured depth: deeper cgroups never get a slot.
 */
#include "agent/host/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cgroup_paths_init(struct cgroup_paths *cp, const char *root, unsigned max_depth)
{
	memset(cp, 0, sizeof(*cp));
	snprintf(cp->root, sizeof(cp->root), "%s", root);
	cp->max_depth = max_depth;
}

static size_t find_pos(const struct cgroup_paths *cp, uint64_t id)
{
	size_t lo = 0, hi = cp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add(struct cgroup_paths *cp, uint64_t id, const char *path)
{
	size_t pos = find_pos(cp, id);
	char *copy;

	if (pos < cp->n && cp->v[pos].id == id)
		return 0; /* first sight wins: a known id keeps its name */
	if (cp->n == cp->cap) {
		size_t cap = cp->cap ? cp->cap * 2 : 64;
		struct cgroup_entry *v = realloc(cp->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cp->v = v;
		cp->cap = cap;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	memmove(&cp->v[pos + 1], &cp->v[pos], (cp->n - pos) * sizeof(cp->v[0]));
	cp->v[pos].id = id;
	cp->v[pos].path = copy;
	cp->n++;
	return 0;
}

/* rel is "" for the root, else "/a/b"; dirfd is open on that directory. */
static int walk(struct cgroup_paths *cp, int dir_fd, const char *rel, unsigned depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int err;

	if (fstat(dir_fd, &st) < 0) {
		close(dir_fd);
		return -errno;
	}
	err = add(cp, (uint64_t)st.st_ino, rel[0] ? rel : "/");
	if (err || depth >= cp->max_depth) {
		close(dir_fd);
		return err;
	}
	d = fdopendir(dir_fd);
	if (!d) {
		err = -errno;
		close(dir_fd);
		return err;
	}
	while (!err && (de = readdir(d))) {
		char child[PATH_MAX];
		int fd;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", rel, de->d_name) >= sizeof(child))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* removed while we walk: it is someone else's race */
		err = walk(cp, fd, child, depth + 1);
	}
	closedir(d);
	return err;
}

int cgroup_paths_scan(struct cgroup_paths *cp)
{
	int fd = open(cp->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return walk(cp, fd, "", 0);
}

const char *cgroup_paths_get(const struct cgroup_paths *cp, uint64_t id)
{
	size_t pos = find_pos(cp, id);

	return pos < cp->n && cp->v[pos].id == id ? cp->v[pos].path : NULL;
}

bool cgroup_paths_alive(const struct cgroup_paths *cp, uint64_t id)
{
	const char *path = cgroup_paths_get(cp, id);
	char full[PATH_MAX * 2];
	struct stat st;

	if (!path)
		return false;
	snprintf(full, sizeof(full), "%s%s", cp->root, strcmp(path, "/") ? path : "");
	return stat(full, &st) == 0 && (uint64_t)st.st_ino == id;
}

const char *cgroup_paths_resolve(const struct cgroup_paths *cp, const uint64_t *chain, unsigned level)
{
	for (unsigned l = level + 1; l-- > 0;) {
		const char *path = cgroup_paths_get(cp, chain[l]);

		if (path)
			return path;
	}
	return "/";
}

void cgroup_paths_forget(struct cgroup_paths *cp, uint64_t id)
{
	size_t pos = find_pos(cp, id);

	if (pos >= cp->n || cp->v[pos].id != id)
		return;
	free(cp->v[pos].path);
	memmove(&cp->v[pos], &cp->v[pos + 1], (cp->n - pos - 1) * sizeof(cp->v[0]));
	cp->n--;
}

void cgroup_paths_free(struct cgroup_paths *cp)
{
	for (size_t i = 0; i < cp->n; i++)
		free(cp->v[i].path);
	free(cp->v);
	cp->v = NULL;
	cp->n = cp->cap = 0;
}
