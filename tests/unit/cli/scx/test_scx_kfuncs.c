/* test_scx_kfuncs.c - the kfuncs a scheduler calls that a kernel lacks:
 * found by name among the object's extern functions (its own global and
 * static functions do not count); on a 6.12-like kernel, which has the old
 * names, the renamed kfunc is named with its old name; the built-in
 * schedulers declare their kfuncs so that the check sees them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cli/scx/scx_kfuncs.h"

#ifdef SCHEDIO_HAVE_SCX
#include "scx_fifo.skel.h"
#include "scx_llc.skel.h"
#endif

/* A BTF with one function per name, all of the given linkage. */
static struct btf *btf_with(const char *const *names, enum btf_func_linkage linkage)
{
	struct btf *btf = btf__new_empty();
	int int_id, proto;

	assert_non_null(btf);
	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	proto = btf__add_func_proto(btf, int_id);
	assert_true(int_id > 0 && proto > 0);
	for (; *names; names++)
		assert_true(btf__add_func(btf, *names, linkage, proto) > 0);
	return btf;
}

static const char *const kernel_6_12[] = { "scx_bpf_dispatch",       "scx_bpf_consume",
					   "scx_bpf_create_dsq",     "scx_bpf_kick_cpu",
					   "scx_bpf_select_cpu_dfl", "scx_bpf_dsq_nr_queued",
					   "scx_bpf_task_cpu",       NULL };
static const char *const kernel_7[] = { "scx_bpf_dsq_insert",     "scx_bpf_dsq_move_to_local",
					"scx_bpf_create_dsq",     "scx_bpf_kick_cpu",
					"scx_bpf_select_cpu_dfl", "scx_bpf_dsq_nr_queued",
					"scx_bpf_task_cpu",       NULL };

static void test_scx_kfuncs_missing_by_name(void **state)
{
	static const char *const calls[] = { "scx_bpf_create_dsq", "scx_bpf_dsq_insert", NULL };
	static const char *const own[] = { "enqueue", "dispatch", NULL };
	struct btf *obj = btf_with(calls, BTF_FUNC_EXTERN);
	struct btf *own_funcs = btf_with(own, BTF_FUNC_GLOBAL);
	struct btf *old = btf_with(kernel_6_12, BTF_FUNC_GLOBAL), *new = btf_with(kernel_7, BTF_FUNC_GLOBAL);
	char name[64] = "";

	assert_int_equal(scx_kfunc_missing(obj, old, name, sizeof(name)), 1);
	assert_string_equal(name, "scx_bpf_dsq_insert");
	assert_string_equal(scx_kfunc_old_name(name), "scx_bpf_dispatch");
	assert_int_equal(scx_kfunc_missing(obj, new, name, sizeof(name)), 0);
	/* the object's own functions are not kfuncs */
	assert_int_equal(scx_kfunc_missing(own_funcs, old, name, sizeof(name)), 0);
	assert_null(scx_kfunc_old_name("scx_bpf_create_dsq"));
	assert_string_equal(scx_kfunc_old_name("scx_bpf_dsq_move_to_local"), "scx_bpf_consume");
	btf__free(obj);
	btf__free(own_funcs);
	btf__free(old);
	btf__free(new);
}

#ifdef SCHEDIO_HAVE_SCX
/* The built-in scheduler in elf against a kernel with the given kfuncs. */
static int builtin_missing(const void *elf, size_t len, const char *const *kernel, char *name, size_t cap)
{
	struct btf *obj = scx_object_btf(elf, len, NULL);
	struct btf *kern = btf_with(kernel, BTF_FUNC_GLOBAL);
	int r;

	assert_non_null(obj);
	r = scx_kfunc_missing(obj, kern, name, cap);
	btf__free(kern);
	btf__free(obj);
	return r;
}

static void test_scx_builtin_schedulers_need_the_6_13_names(void **state)
{
	const void *elf[2];
	size_t len[2];
	char name[64];

	elf[0] = scx_fifo__elf_bytes(&len[0]);
	elf[1] = scx_llc__elf_bytes(&len[1]);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(builtin_missing(elf[i], len[i], kernel_7, name, sizeof(name)), 0);
		assert_int_equal(builtin_missing(elf[i], len[i], kernel_6_12, name, sizeof(name)), 1);
		assert_non_null(scx_kfunc_old_name(name)); /* dsq_insert or move_to_local */
	}
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scx_kfuncs_missing_by_name),
#ifdef SCHEDIO_HAVE_SCX
		cmocka_unit_test(test_scx_builtin_schedulers_need_the_6_13_names),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
