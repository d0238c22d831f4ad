/* test_scx_ops_value.c - the object's own sched_ext_ops data reaches the
 * kernel: set members are copied by name into the kernel's layout (another
 * order), callbacks are left for the program fds, unset members the kernel
 * lacks are fine, set ones it lacks or that differ in size are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "cli/scx/scx_ops_value.h"

struct types {
	struct btf *btf;
	int u32, u64, name, cb;
};

static struct types types_new(void)
{
	struct types t = { .btf = btf__new_empty() };
	int chr, proto;

	assert_non_null(t.btf);
	t.u32 = btf__add_int(t.btf, "unsigned int", 4, 0);
	t.u64 = btf__add_int(t.btf, "unsigned long long", 8, 0);
	chr = btf__add_int(t.btf, "char", 1, BTF_INT_SIGNED);
	t.name = btf__add_array(t.btf, t.u32, chr, 16);
	proto = btf__add_func_proto(t.btf, t.u32);
	t.cb = btf__add_ptr(t.btf, proto);
	assert_true(t.u32 > 0 && t.u64 > 0 && t.name > 0 && t.cb > 0);
	return t;
}

/* The object's layout: init, name, flags, timeout_ms, dispatch_max_batch,
 * exit_dump_len; wide makes timeout_ms 8 bytes. */
struct obj_ops {
	uint64_t init;
	char name[16];
	uint64_t flags;
	uint32_t timeout_ms;
	uint32_t dispatch_max_batch;
	uint32_t exit_dump_len;
	uint32_t pad;
};

static int obj_type(struct types *t, const char *name, int timeout_type)
{
	int id = btf__add_struct(t->btf, name, sizeof(struct obj_ops));

	assert_true(id > 0);
	assert_int_equal(btf__add_field(t->btf, "init", t->cb, 0, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "name", t->name, 64, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "flags", t->u64, 192, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "timeout_ms", timeout_type, 256, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "dispatch_max_batch", t->u32, 288, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "exit_dump_len", t->u32, 320, 0), 0);
	return id;
}

/* The kernel's layout: flags, name, dispatch_max_batch, timeout_ms, init, hotplug_seq. */
struct kern_ops {
	uint64_t flags;
	char name[16];
	uint32_t dispatch_max_batch;
	uint32_t timeout_ms;
	uint64_t init;
	uint64_t hotplug_seq;
};

static const struct btf_type *kern_type(struct types *t)
{
	int id = btf__add_struct(t->btf, "sched_ext_ops", sizeof(struct kern_ops));

	assert_true(id > 0);
	assert_int_equal(btf__add_field(t->btf, "flags", t->u64, 0, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "name", t->name, 64, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "dispatch_max_batch", t->u32, 192, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "timeout_ms", t->u32, 224, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "init", t->cb, 256, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "hotplug_seq", t->u64, 320, 0), 0);
	return btf__type_by_id(t->btf, id);
}

static void test_scx_ops_value_copies_set_members_by_name(void **state)
{
	struct types o = types_new(), k = types_new();
	int oid = obj_type(&o, "sched_ext_ops", o.u32);
	const struct btf_type *kt = kern_type(&k);
	struct obj_ops data = {
		.init = 0xdeadbeef, .name = "mine", .flags = 5, .timeout_ms = 5000, .dispatch_max_batch = 7
	};
	struct kern_ops out;
	char err[128] = "";

	(void)state;
	memset(&out, 0, sizeof(out));
	assert_int_equal(scx_ops_value_copy_data(o.btf, oid, &data, sizeof(data), k.btf, kt, &out, err, sizeof(err)),
			 0);
	assert_int_equal(out.flags, 5);
	assert_string_equal(out.name, "mine");
	assert_int_equal(out.timeout_ms, 5000);
	assert_int_equal(out.dispatch_max_batch, 7);
	assert_int_equal(out.init, 0); /* a callback: not data */
	assert_int_equal(out.hotplug_seq, 0);
	assert_string_equal(err, "");
	btf__free(o.btf);
	btf__free(k.btf);
}

static void test_scx_ops_value_refuses_what_the_kernel_cannot_take(void **state)
{
	struct types o = types_new(), k = types_new();
	int oid = obj_type(&o, "sched_ext_ops", o.u32), wide = obj_type(&o, "wide_ops", o.u64);
	const struct btf_type *kt = kern_type(&k);
	struct obj_ops data = { .name = "mine" };
	struct kern_ops out;
	char err[128];

	(void)state;
	/* Set, and this kernel has no such member. */
	data.exit_dump_len = 1;
	assert_int_equal(scx_ops_value_copy_data(o.btf, oid, &data, sizeof(data), k.btf, kt, &out, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "exit_dump_len"));
	/* 8 bytes of timeout_ms where the kernel has 4. */
	data.exit_dump_len = 0;
	data.timeout_ms = 1;
	assert_int_equal(scx_ops_value_copy_data(o.btf, wide, &data, sizeof(data), k.btf, kt, &out, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "timeout_ms"));
	/* Data shorter than the type says, or a type that is not a struct. */
	assert_int_equal(scx_ops_value_copy_data(o.btf, oid, &data, 8, k.btf, kt, &out, err, sizeof(err)), -EINVAL);
	assert_int_equal(scx_ops_value_copy_data(o.btf, o.u32, &data, sizeof(data), k.btf, kt, &out, err, sizeof(err)),
			 -EINVAL);
	btf__free(o.btf);
	btf__free(k.btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scx_ops_value_copies_set_members_by_name),
		cmocka_unit_test(test_scx_ops_value_refuses_what_the_kernel_cannot_take),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
