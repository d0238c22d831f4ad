/* test_scx_kfuncs.c - the kfuncs a scheduler calls that a kernel lacks:
 * found by name among the object's extern functions (its own global and
 * static functions do not count); on a 6.12-like kernel, which has the old
 * names, the renamed kfunc is named with its old name; the built-in
 * schedulers declare their kfuncs so that the check sees them; weak and
 * ___compat kfuncs are optional and never named, whether the names come from
 * a list or from an object's ELF symbols. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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

	assert_int_equal(scx_kfunc_missing(obj, old, NULL, name, sizeof(name)), 1);
	assert_string_equal(name, "scx_bpf_dsq_insert");
	assert_string_equal(scx_kfunc_old_name(name), "scx_bpf_dispatch");
	assert_int_equal(scx_kfunc_missing(obj, new, NULL, name, sizeof(name)), 0);
	/* the object's own functions are not kfuncs */
	assert_int_equal(scx_kfunc_missing(own_funcs, old, NULL, name, sizeof(name)), 0);
	assert_null(scx_kfunc_old_name("scx_bpf_create_dsq"));
	assert_string_equal(scx_kfunc_old_name("scx_bpf_dsq_move_to_local"), "scx_bpf_consume");
	btf__free(obj);
	btf__free(own_funcs);
	btf__free(old);
	btf__free(new);
}

static void test_scx_weak_and_compat_kfuncs_are_optional(void **state)
{
	static const char *const calls[] = { "scx_bpf_dispatch___compat", "scx_bpf_dsq_insert_vtime",
					     "scx_bpf_dsq_insert", NULL };
	static const char weak[] = "scx_bpf_dsq_insert_vtime\0other\0";
	struct btf *obj = btf_with(calls, BTF_FUNC_EXTERN);
	struct btf *new = btf_with(kernel_7, BTF_FUNC_GLOBAL), *old = btf_with(kernel_6_12, BTF_FUNC_GLOBAL);
	char name[64] = "";

	assert_true(scx_kfunc_optional("scx_bpf_dispatch___compat", NULL));
	assert_true(scx_kfunc_optional("scx_bpf_dsq_insert_vtime", weak));
	assert_true(scx_kfunc_optional("other", weak));
	assert_false(scx_kfunc_optional("scx_bpf_dsq_insert", weak));
	assert_false(scx_kfunc_optional("___compat", NULL));    /* no name before the suffix */
	assert_false(scx_kfunc_optional("scx_bpf_x___", NULL)); /* no suffix */
	/* kernel_7 lacks scx_bpf_dispatch (the ___compat one) and the vtime one: both optional */
	assert_int_equal(scx_kfunc_missing(obj, new, weak, name, sizeof(name)), 0);
	/* without the weak list the vtime one is required */
	assert_int_equal(scx_kfunc_missing(obj, new, NULL, name, sizeof(name)), 1);
	assert_string_equal(name, "scx_bpf_dsq_insert_vtime");
	/* 6.12 lacks the strong scx_bpf_dsq_insert: that one is named, never the optional ones */
	assert_int_equal(scx_kfunc_missing(obj, old, weak, name, sizeof(name)), 1);
	assert_string_equal(name, "scx_bpf_dsq_insert");
	btf__free(obj);
	btf__free(new);
	btf__free(old);
}

#ifdef SCHEDIO_HAVE_SCX
/* An object whose only kfuncs are weak: its ELF says so, and no kernel
 * makes them a reason for a failed load. */
static void test_scx_weak_kfuncs_object_needs_none(void **state)
{
	static const char *const none[] = { NULL };
	const char *build = getenv("SCHEDIO_BUILD");
	struct btf *obj, *kern;
	char path[1024], name[64] = "", *weak;
	int n = 0;

	if (!build)
		skip();
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_weak_kfuncs.bpf.o", build);
	weak = scx_object_weak_syms(NULL, 0, path);
	assert_non_null(weak);
	for (const char *w = weak; *w; w += strlen(w) + 1) {
		assert_true(strcmp(w, "scx_bpf_dispatch___compat") == 0 ||
			    strcmp(w, "scx_bpf_no_kernel_has_this") == 0);
		n++;
	}
	assert_int_equal(n, 2);
	obj = scx_object_btf(NULL, 0, path);
	kern = btf_with(none, BTF_FUNC_GLOBAL);
	assert_non_null(obj);
	assert_int_equal(scx_kfunc_missing(obj, kern, weak, name, sizeof(name)), 0);
	/* without knowing they are weak, the one without a suffix would be named */
	assert_int_equal(scx_kfunc_missing(obj, kern, NULL, name, sizeof(name)), 1);
	assert_string_equal(name, "scx_bpf_no_kernel_has_this");
	assert_null(scx_object_weak_syms(NULL, 0, "/nonexistent.bpf.o"));
	assert_null(scx_object_weak_syms("not elf", 7, NULL));
	btf__free(obj);
	btf__free(kern);
	free(weak);
}

/* The built-in scheduler in elf against a kernel with the given kfuncs. */
static int builtin_missing(const void *elf, size_t len, const char *const *kernel, char *name, size_t cap)
{
	struct btf *obj = scx_object_btf(elf, len, NULL);
	struct btf *kern = btf_with(kernel, BTF_FUNC_GLOBAL);
	int r;

	assert_non_null(obj);
	r = scx_kfunc_missing(obj, kern, NULL, name, cap);
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
		cmocka_unit_test(test_scx_weak_and_compat_kfuncs_are_optional),
#ifdef SCHEDIO_HAVE_SCX
		cmocka_unit_test(test_scx_weak_kfuncs_object_needs_none),
		cmocka_unit_test(test_scx_builtin_schedulers_need_the_6_13_names),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
