/* iocost_tree.h - the cgroup2 hierarchy as the iocost collector walks it. */
#ifndef SCHEDIO_AGENT_IOCOST_IOCOST_TREE_H
#define SCHEDIO_AGENT_IOCOST_IOCOST_TREE_H

#include <stddef.h>
#include <stdint.h>

struct iocost_cgroup {
	char *path;     /* relative to the cgroup2 mount, "/" for the root */
	uint64_t id;    /* cgroup id: the directory's inode number */
	int parent;     /* index of the parent in the list, -1 for the root */
	unsigned depth; /* 0 for the root */
};

struct iocost_tree {
	size_t n;
	struct iocost_cgroup *cg;
};

/* Lists the root and its descendants down to max_depth, parents before children; 0 or -errno. */
int iocost_tree_walk(const char *mount, unsigned max_depth, struct iocost_tree *tree);
/* Frees what iocost_tree_walk allocated. */
void iocost_tree_free(struct iocost_tree *tree);

#endif /* SCHEDIO_AGENT_IOCOST_IOCOST_TREE_H */
