/* test_scx_sched.c - what the loader does before the kernel is involved:
 * built-in and file objects open with their ops name, init marked sleepable
 * and the map marked for a link, an object in the community's conventions
 * (.struct_ops.link, struct_ops.s, its own ops data) and its rodata filled
 * (scx enum globals, CPU count, --set, --map-size); a missing file or a kernel
 * without sched_ext gives a message, not a crash (this host's kernel has
 * none), an object whose only absent kfuncs are optional keeps the load's
 * own error, and one with a user-space half of its own is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cli/scx/scx_ops_value.h"
#include "cli/scx/scx_sched.h"

#ifdef SCHEDIO_HAVE_SCX
#include "scx_fifo.skel.h"
#include "scx_llc.skel.h"

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static void expect_prepared(struct scx_sched *s, const char *name)
{
	struct bpf_program *prog;
	int sleepable = 0, progs = 0;

	assert_string_equal(s->name, name);
	assert_non_null(s->ops);
	assert_true(bpf_map__map_flags(s->ops) & (1U << 13)); /* BPF_F_LINK */
	bpf_object__for_each_program(prog, s->obj)
	{
		progs++;
		if (bpf_program__flags(prog) & BPF_F_SLEEPABLE) {
			sleepable++;
			assert_true(scx_ops_value_is_member(s->obj, prog, "init"));
		}
	}
	assert_true(progs >= 4);
	assert_int_equal(sleepable, 1); /* init, and only init */
}

static void test_scx_builtin_objects_open_prepared(void **state)
{
	struct scx_sched s;
	const void *elf;
	size_t len;

	elf = scx_fifo__elf_bytes(&len);
	assert_int_equal(scx_sched_open(&s, elf, len, NULL), 0);
	expect_prepared(&s, "scx_fifo");
	assert_true(s.has_counters && s.has_exit_info);
	assert_null(s.uei_map);
	scx_sched_close(&s);
	elf = scx_llc__elf_bytes(&len);
	assert_int_equal(scx_sched_open(&s, elf, len, NULL), 0);
	expect_prepared(&s, "scx_llc");
	assert_non_null(bpf_object__find_map_by_name(s.obj, "cpu_domain"));
	scx_sched_close(&s);
}

static void test_scx_object_file_opens_and_missing_file_says_so(void **state)
{
	const char *build = getenv("SCHEDIO_BUILD");
	char path[1024];
	struct scx_sched s;

	if (!build)
		skip();
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_broken.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	expect_prepared(&s, "scx_broken");
	scx_sched_close(&s);
	assert_true(scx_sched_open(&s, NULL, 0, "/nonexistent/x.bpf.o") < 0);
	assert_non_null(strstr(s.err, "/nonexistent/x.bpf.o"));
	scx_sched_close(&s);
}

/* The community's conventions: SEC(".struct_ops.link") is found and stays a
 * link map, struct_ops.s callbacks (not only init) are sleepable, and the
 * object's own name, timeout and flags are what it will register with. */
static void test_scx_struct_ops_link_object_opens_with_its_own_ops_data(void **state)
{
	const char *build = getenv("SCHEDIO_BUILD");
	struct bpf_program *prog;
	const void *flags;
	char path[1024];
	struct scx_sched s;
	int sleepable = 0;
	size_t n = 0;

	if (!build)
		skip();
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_link_ops.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	assert_string_equal(s.name, "linked"); /* .name, not the variable link_ops */
	assert_string_equal(bpf_map__name(s.ops), "link_ops");
	assert_int_equal(s.timeout_ms, 4000);
	assert_true(bpf_map__map_flags(s.ops) & (1U << 13)); /* BPF_F_LINK */
	flags = scx_ops_value_obj_member(s.obj, s.ops, "flags", &n);
	assert_non_null(flags);
	assert_int_equal(n, sizeof(uint64_t));
	assert_int_equal(*(const uint64_t *)flags, 2); /* SCX_OPS_ENQ_LAST */
	/* libbpf (>= 1.2) knows struct_ops.s as struct_ops, made sleepable at
	 * load; the loader's own mark on init is there from open. */
	bpf_object__for_each_program(prog, s.obj)
	{
		assert_int_equal(bpf_program__type(prog), BPF_PROG_TYPE_STRUCT_OPS);
		if (strncmp(bpf_program__section_name(prog), "struct_ops.s/", 13) == 0) {
			sleepable++;
			assert_true(scx_ops_value_is_member(s.obj, prog, "init") ||
				    scx_ops_value_is_member(s.obj, prog, "init_task"));
		}
		if (scx_ops_value_is_member(s.obj, prog, "init"))
			assert_true(bpf_program__flags(prog) & BPF_F_SLEEPABLE);
	}
	assert_int_equal(sleepable, 2);
	/* its records: schedio's maps from scx_common.bpf.h, and a community uei */
	assert_true(s.has_counters && s.has_exit_info);
	assert_non_null(s.uei_map);
	assert_true(s.uei.has_code);
	scx_sched_close(&s);
}

/* The bytes of read-only variable name in the object's .rodata (before load). */
static const void *rodata_var(struct scx_sched *s, const char *name, size_t *size)
{
	const struct btf *btf = bpf_object__btf(s->obj);
	struct bpf_map *map;

	bpf_object__for_each_map(map, s->obj)
	{
		const struct btf_type *sec = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
		const struct btf_var_secinfo *vi;
		const char *data;
		size_t dsize = 0;

		if (!bpf_map__is_internal(map) || !sec || !btf_is_datasec(sec))
			continue;
		data = bpf_map__initial_value(map, &dsize);
		vi = btf_var_secinfos(sec);
		for (unsigned i = 0; data && i < btf_vlen(sec); i++, vi++) {
			if (strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, vi->type)->name_off), name) == 0) {
				*size = vi->size;
				return data + vi->offset;
			}
		}
	}
	return NULL;
}

static uint64_t rodata_u64(struct scx_sched *s, const char *name)
{
	size_t size = 0;
	const void *p = rodata_var(s, name, &size);
	uint64_t v = 0;

	assert_non_null(p);
	assert_true(size <= sizeof(v));
	memcpy(&v, p, size); /* little-endian host: a smaller integer reads as itself */
	return v;
}

/* The community's loader conventions on a real object: __SCX_* globals get
 * the kernel's values (those it lacks keep theirs), nr_cpu_ids the CPU
 * count, --set and --map-size reach the object or say why not. */
static void test_scx_link_object_gets_enums_cpus_settings_and_map_sizes(void **state)
{
	const char *build = getenv("SCHEDIO_BUILD");
	struct btf *kern = btf__new_empty();
	char path[1024];
	struct scx_sched s;
	int enums = -1, cpus = -1;
	const void *elf;
	size_t len;

	if (!build)
		skip();
	assert_true(btf__add_enum64(kern, "scx_dsq_id_flags", 8, true) > 0);
	assert_int_equal(btf__add_enum64_value(kern, "SCX_DSQ_GLOBAL", 0x8000000000000001ULL), 0);
	assert_true(btf__add_enum(kern, "scx_public_consts", 4) > 0);
	assert_int_equal(btf__add_enum_value(kern, "SCX_SLICE_DFL", 20000000), 0);
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_link_ops.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	assert_true(rodata_u64(&s, "__SCX_DSQ_GLOBAL") == 0);
	assert_int_equal(scx_sched_fill_rodata(&s, kern, 6, &enums, &cpus), 0);
	assert_int_equal(enums, 2);
	assert_int_equal(cpus, 1);
	assert_true(rodata_u64(&s, "__SCX_DSQ_GLOBAL") == 0x8000000000000001ULL);
	assert_true(rodata_u64(&s, "__SCX_SLICE_DFL") == 20000000);
	assert_true(rodata_u64(&s, "__SCX_ENQ_LINK_TEST") == 42); /* no kernel has it */
	assert_true(rodata_u64(&s, "nr_cpu_ids") == 6);

	assert_int_equal(scx_sched_set_rodata(&s, "link_nice", "-7"), 0);
	assert_int_equal((int32_t)rodata_u64(&s, "link_nice"), -7);
	assert_int_equal(scx_sched_set_rodata(&s, "link_quiet", "true"), 0);
	assert_true(rodata_u64(&s, "link_quiet") == 1);
	assert_int_equal(scx_sched_set_rodata(&s, "nr_cpu_ids", "4"), 0); /* --set goes over the filled ones */
	assert_true(rodata_u64(&s, "nr_cpu_ids") == 4);
	assert_int_equal(scx_sched_set_rodata(&s, "link_nice", "3000000000"), -ERANGE);
	assert_non_null(strstr(s.err, "out of range for link_nice"));
	assert_int_equal(scx_sched_set_rodata(&s, "nosuch", "1"), -ENOENT);
	assert_string_equal(s.err, "linked has no read-only variable nosuch (const volatile)");

	/* its one-element .data.link_dispatched_at gets one u64 per CPU; the uei in .data stays */
	{
		struct bpf_map *m = bpf_object__find_map_by_name(s.obj, ".data.link_dispatched_at");
		int resized = -1;

		assert_non_null(m);
		assert_int_equal(bpf_map__value_size(m), 8);
		assert_int_equal(scx_sched_resize_arrays(&s, 6, &resized), 0);
		assert_int_equal(resized, 1);
		assert_int_equal(bpf_map__value_size(m), 48);
	}

	assert_int_equal(bpf_map__max_entries(bpf_object__find_map_by_name(s.obj, "link_tasks")), 16);
	assert_int_equal(scx_sched_set_map_size(&s, "link_tasks", 64), 0);
	assert_int_equal(bpf_map__max_entries(bpf_object__find_map_by_name(s.obj, "link_tasks")), 64);
	assert_int_equal(scx_sched_set_map_size(&s, "nosuch", 64), -ENOENT);
	assert_string_equal(s.err, "linked has no map nosuch");
	assert_int_equal(scx_sched_set_map_size(&s, "link_ops", 2), -ENOENT); /* the ops are no sized map */
	assert_int_equal(scx_sched_set_map_size(&s, "link_tasks", 0), -EINVAL);
	scx_sched_close(&s);

	/* The built-in schedulers have no such globals. */
	elf = scx_fifo__elf_bytes(&len);
	assert_int_equal(scx_sched_open(&s, elf, len, NULL), 0);
	assert_int_equal(scx_sched_fill_rodata(&s, kern, 6, &enums, &cpus), 0);
	assert_int_equal(enums + cpus, 0);
	scx_sched_close(&s);
	btf__free(kern);
}

/* The build's sched_ext compiler keeps BTF type tags: without its "kptr"
 * tag, the object's kptr reaches the verifier as a plain pointer. */
static void test_scx_objects_keep_kptr_type_tags(void **state)
{
	const char *build = getenv("SCHEDIO_BUILD");
	const struct btf *btf;
	char path[1024];
	struct scx_sched s;
	int tags = 0;

	(void)state;
	if (!build)
		skip();
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_link_ops.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	btf = bpf_object__btf(s.obj);
	assert_non_null(btf);
	for (unsigned id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		tags += btf_is_type_tag(t) && strcmp(btf__name_by_offset(btf, t->name_off), "kptr") == 0;
	}
	assert_int_equal(tags, 1);
	scx_sched_close(&s);
}

/* Objects that need a user-space half of their own are refused before load;
 * the built-in ones, and one whose PID the user gives, are not. */
static void test_scx_user_space_half_is_refused(void **state)
{
	static const char *const plain[] = { "scx_broken", "scx_link_ops", "scx_weak_kfuncs" };
	const char *build = getenv("SCHEDIO_BUILD");
	char path[1024];
	struct scx_sched s;
	const void *elf;
	size_t len;

	(void)state;
	if (!build)
		skip();
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_user_half.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	assert_int_equal(scx_sched_user_half(&s), 1);
	assert_non_null(strstr(s.err, "user_half needs its own user-space half, which schedio does not run"));
	assert_non_null(strstr(s.err, "usersched_pid (0 here"));
	assert_non_null(strstr(s.err, "through to_user"));
	assert_int_equal(scx_sched_set_rodata(&s, "usersched_pid", "42"), 0);
	assert_int_equal(scx_sched_user_half(&s), 0);
	scx_sched_close(&s);

	snprintf(path, sizeof(path), "%s/bpf/scx/scx_rodata_arrays.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	assert_int_equal(scx_sched_user_half(&s), 1);
	assert_non_null(strstr(s.err, "rodata_arrays needs its own loader: it sizes the read-only arrays pair_of"));
	scx_sched_close(&s);

	snprintf(path, sizeof(path), "%s/bpf/scx/scx_user_ringbuf.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	assert_int_equal(scx_sched_user_half(&s), 1);
	assert_non_null(strstr(s.err, "user space feeds its user ring buffer decisions"));
	scx_sched_close(&s);

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		snprintf(path, sizeof(path), "%s/bpf/scx/%s.bpf.o", build, plain[i]);
		assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
		assert_int_equal(scx_sched_user_half(&s), 0);
		scx_sched_close(&s);
	}
	elf = scx_llc__elf_bytes(&len);
	assert_int_equal(scx_sched_open(&s, elf, len, NULL), 0);
	assert_int_equal(scx_sched_user_half(&s), 0);
	scx_sched_close(&s);
}

static void test_scx_load_without_sched_ext_fails_cleanly(void **state)
{
	struct scx_sched s;
	const void *elf;
	size_t len;

	if (access("/sys/kernel/sched_ext/state", F_OK) == 0)
		skip(); /* this kernel could load it */
	elf = scx_fifo__elf_bytes(&len);
	assert_int_equal(scx_sched_open(&s, elf, len, NULL), 0);
	libbpf_set_print(silent);
	assert_true(scx_sched_load(&s) < 0);
	libbpf_set_print(NULL);
	/* explained after the failed load: this kernel has none of sched_ext's kfuncs */
	assert_non_null(strstr(s.err, "this kernel has no kfunc scx_bpf_"));
	assert_non_null(strstr(s.err, "which scx_fifo calls"));
	scx_sched_close(&s);
}

/* A load that fails for another reason keeps that reason when the object's
 * only kfuncs the kernel lacks are optional (weak, ___compat). */
static void test_scx_optional_kfuncs_never_replace_the_load_error(void **state)
{
	const char *build = getenv("SCHEDIO_BUILD");
	char path[1024];
	struct scx_sched s;

	if (!build)
		skip();
	if (access("/sys/kernel/sched_ext/state", F_OK) == 0)
		skip(); /* this kernel could load it */
	snprintf(path, sizeof(path), "%s/bpf/scx/scx_weak_kfuncs.bpf.o", build);
	assert_int_equal(scx_sched_open(&s, NULL, 0, path), 0);
	libbpf_set_print(silent);
	assert_true(scx_sched_load(&s) < 0);
	libbpf_set_print(NULL);
	assert_non_null(strstr(s.err, "loading weak_kfuncs failed"));
	assert_null(strstr(s.err, "no kfunc"));
	scx_sched_close(&s);
}
#endif

static void test_scx_exit_kinds_have_names(void **state)
{
	assert_string_equal(scx_sched_exit_kind_name(64), "unregistered");
	assert_string_equal(scx_sched_exit_kind_name(1026), "stall (watchdog)");
	assert_string_equal(scx_sched_exit_kind_name(2000), "error");
	assert_string_equal(scx_sched_exit_kind_name(7), "other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef SCHEDIO_HAVE_SCX
		cmocka_unit_test(test_scx_builtin_objects_open_prepared),
		cmocka_unit_test(test_scx_object_file_opens_and_missing_file_says_so),
		cmocka_unit_test(test_scx_struct_ops_link_object_opens_with_its_own_ops_data),
		cmocka_unit_test(test_scx_link_object_gets_enums_cpus_settings_and_map_sizes),
		cmocka_unit_test(test_scx_load_without_sched_ext_fails_cleanly),
		cmocka_unit_test(test_scx_optional_kfuncs_never_replace_the_load_error),
		cmocka_unit_test(test_scx_user_space_half_is_refused),
		cmocka_unit_test(test_scx_objects_keep_kptr_type_tags),
#endif
		cmocka_unit_test(test_scx_exit_kinds_have_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
