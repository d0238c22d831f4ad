/* test_cgroup.c - agent/host/cgroup.c on a fake cgroup tree (a temp folder: a
 * cgroup id is its directory's inode number, as on cgroup2): paths by id,
 * the depth limit, first-sight names surviving removal, the ancestor
 * fallback for ids never seen.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/host/cgroup.h"

struct fake {
	char root[64];
	char path[4][128];
	uint64_t id[4]; /* root, /a, /a/b, /a/b/c */
};

static uint64_t ino(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	snprintf(f->root, sizeof(f->root), "/tmp/schedio-cgtest-XXXXXX");
	assert_non_null(mkdtemp(f->root));
	snprintf(f->path[0], sizeof(f->path[0]), "%s", f->root);
	snprintf(f->path[1], sizeof(f->path[1]), "%s/a", f->root);
	snprintf(f->path[2], sizeof(f->path[2]), "%s/a/b", f->root);
	snprintf(f->path[3], sizeof(f->path[3]), "%s/a/b/c", f->root);
	for (int i = 1; i < 4; i++)
		assert_int_equal(mkdir(f->path[i], 0755), 0);
	for (int i = 0; i < 4; i++)
		f->id[i] = ino(f->path[i]);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	for (int i = 3; i >= 0; i--)
		rmdir(f->path[i]);
	free(f);
	return 0;
}

static void test_cgroup_paths_by_id_to_depth(void **state)
{
	struct fake *f = *state;
	struct cgroup_paths cp;

	cgroup_paths_init(&cp, f->root, 2);
	assert_int_equal(cgroup_paths_scan(&cp), 0);
	assert_string_equal(cgroup_paths_get(&cp, f->id[0]), "/");
	assert_string_equal(cgroup_paths_get(&cp, f->id[1]), "/a");
	assert_string_equal(cgroup_paths_get(&cp, f->id[2]), "/a/b");
	assert_null(cgroup_paths_get(&cp, f->id[3])); /* deeper than the depth: never named */
	assert_true(cgroup_paths_alive(&cp, f->id[0]));
	assert_true(cgroup_paths_alive(&cp, f->id[2]));
	cgroup_paths_free(&cp);
}

static void test_cgroup_removed_keeps_first_sight_name(void **state)
{
	struct fake *f = *state;
	struct cgroup_paths cp;

	cgroup_paths_init(&cp, f->root, 3);
	assert_int_equal(cgroup_paths_scan(&cp), 0);
	assert_int_equal(rmdir(f->path[3]), 0);
	assert_int_equal(rmdir(f->path[2]), 0);
	assert_int_equal(cgroup_paths_scan(&cp), 0);
	assert_false(cgroup_paths_alive(&cp, f->id[2]));
	assert_string_equal(cgroup_paths_get(&cp, f->id[2]), "/a/b");
	assert_string_equal(cgroup_paths_get(&cp, f->id[3]), "/a/b/c");
	cgroup_paths_forget(&cp, f->id[2]);
	assert_null(cgroup_paths_get(&cp, f->id[2]));
	assert_string_equal(cgroup_paths_get(&cp, f->id[1]), "/a");
	cgroup_paths_free(&cp);
}

static void test_cgroup_never_seen_resolves_to_ancestor(void **state)
{
	struct fake *f = *state;
	struct cgroup_paths cp;
	uint64_t chain[4] = { f->id[0], f->id[1], 987654321ull, 987654322ull };
	uint64_t unknown[2] = { 11111111111ull, 22222222222ull };

	cgroup_paths_init(&cp, f->root, 1);
	assert_int_equal(cgroup_paths_scan(&cp), 0);
	/* a cgroup made and removed between two reads: named by its nearest known ancestor */
	assert_string_equal(cgroup_paths_resolve(&cp, chain, 3), "/a");
	assert_string_equal(cgroup_paths_resolve(&cp, chain, 1), "/a");
	assert_string_equal(cgroup_paths_resolve(&cp, chain, 0), "/");
	assert_string_equal(cgroup_paths_resolve(&cp, unknown, 1), "/");
	cgroup_paths_free(&cp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cgroup_paths_by_id_to_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_removed_keeps_first_sight_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_never_seen_resolves_to_ancestor, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
