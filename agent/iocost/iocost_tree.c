/* iocost_tree.c - where cgroup2 is mounted and which cgroups exist under it,
 * with each cgroup's id (the inode number of its directory, which is the
 * kernfs id the iocost BPF programs key by on 64-bit kernels).
 *
 * Kept apart from the runqueue-latency collector's cgroup code on purpose:
 * iocost needs the tree shape (parents, for the weight-based hweight
 * fallback), not id-to-path lookups. The mount itself is found by
 * cgroup2_find_mount (common/cgroup2.c), shared with that collector.
 */
#include "agent/iocost/iocost_tree.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* No host has this many cgroups under the walked depth; a bound keeps a runaway tree cheap. */
#define IOCOST_TREE_MAX 8192

static int tree_add(struct iocost_tree *t, const char *path, uint64_t id, int parent, unsigned depth)
{
	struct iocost_cgroup *cg;

	if (t->n == IOCOST_TREE_MAX)
		return -E2BIG;
	if ((t->n & (t->n - 1)) == 0) { /* grow at powers of two */
		cg = realloc(t->cg, (t->n ? t->n * 2 : 16) * sizeof(*cg));
		if (!cg)
			return -ENOMEM;
		t->cg = cg;
	}
	cg = &t->cg[t->n];
	cg->path = strdup(path);
	if (!cg->path)
		return -ENOMEM;
	cg->id = id;
	cg->parent = parent;
	cg->depth = depth;
	t->n++;
	return 0;
}

static int walk(const char *mount, struct iocost_tree *t, int self, unsigned max_depth)
{
	char dir[PATH_MAX], child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	unsigned depth = t->cg[self].depth;
	DIR *d;
	int err = 0;

	if (depth >= max_depth)
		return 0;
	snprintf(dir, sizeof(dir), "%s%s", mount, t->cg[self].path);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno; /* removed while we walked */
	while ((de = readdir(d))) {
		const char *base = t->cg[self].path;
		int idx;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", strcmp(base, "/") ? base : "", de->d_name) >=
		    sizeof(child))
			continue;
		snprintf(dir, sizeof(dir), "%s%s", mount, child);
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		err = tree_add(t, child, (uint64_t)st.st_ino, self, depth + 1);
		if (err)
			break;
		idx = (int)t->n - 1;
		err = walk(mount, t, idx, max_depth);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int iocost_tree_walk(const char *mount, unsigned max_depth, struct iocost_tree *tree)
{
	struct stat st;
	int err;

	tree->n = 0;
	tree->cg = NULL;
	if (stat(mount, &st) < 0)
		return -errno;
	err = tree_add(tree, "/", (uint64_t)st.st_ino, -1, 0);
	if (!err)
		err = walk(mount, tree, 0, max_depth);
	if (err)
		iocost_tree_free(tree);
	return err;
}

void iocost_tree_free(struct iocost_tree *tree)
{
	for (size_t i = 0; i < tree->n; i++)
		free(tree->cg[i].path);
	free(tree->cg);
	tree->cg = NULL;
	tree->n = 0;
}
