/* test_scx_rodata.c - a scheduler's read-only globals as its loader fills
 * them: __SCX_NAME gets the kernel's SCX_NAME (enum or enum64, 64-bit values
 * intact), what the kernel lacks or what does not fit keeps its own value;
 * CPU counts go to the conventional names only; --set parses by the
 * variable's size and signedness and refuses unknown names, non-integers and
 * out-of-range values; a PID left 0 for a user-space half is found; a section whose BTF lies about its size is refused
 * before a byte is written. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "cli/scx/scx_rodata.h"

/* The object's .rodata: one variable per row, at the given offset. */
struct var {
	const char *name;
	int type; /* an index into types below */
	unsigned off, size;
};

enum { U64, U32, U8, S32, S64, BOOL, ARR, ARR1 };

struct objsec {
	struct btf *btf;
	int sec;
	unsigned char data[64];
};

static struct objsec objsec_new(const struct var *vars, size_t n, unsigned sec_size)
{
	struct objsec o = { .btf = btf__new_empty() };
	int types[8], var_ids[16];

	assert_non_null(o.btf);
	types[U64] = btf__add_int(o.btf, "unsigned long long", 8, 0);
	types[U32] = btf__add_int(o.btf, "unsigned int", 4, 0);
	types[U8] = btf__add_int(o.btf, "unsigned char", 1, 0);
	types[S32] = btf__add_int(o.btf, "int", 4, BTF_INT_SIGNED);
	types[S64] = btf__add_int(o.btf, "long long", 8, BTF_INT_SIGNED);
	types[BOOL] = btf__add_int(o.btf, "_Bool", 1, BTF_INT_BOOL);
	types[ARR] = btf__add_array(o.btf, types[U32], types[U8], 8);
	types[ARR1] = btf__add_array(o.btf, types[U32], types[U64], 1); /* RESIZABLE_ARRAY: u64 x[1] */
	/* const volatile u64, as the community declares them */
	types[U64] = btf__add_const(o.btf, btf__add_volatile(o.btf, btf__add_typedef(o.btf, "u64", types[U64])));
	for (size_t i = 0; i < n; i++) {
		var_ids[i] = btf__add_var(o.btf, vars[i].name, BTF_VAR_GLOBAL_ALLOCATED, types[vars[i].type]);
		assert_true(var_ids[i] > 0);
	}
	o.sec = btf__add_datasec(o.btf, ".rodata", sec_size);
	assert_true(o.sec > 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(btf__add_datasec_var_info(o.btf, var_ids[i], vars[i].off, vars[i].size), 0);
	memset(o.data, 0, sizeof(o.data));
	return o;
}

/* A kernel BTF with sched_ext's constants as 7.x encodes them. */
static struct btf *kernel_btf(void)
{
	struct btf *k = btf__new_empty();

	assert_non_null(k);
	assert_true(btf__add_enum64(k, "scx_dsq_id_flags", 8, true) > 0);
	assert_int_equal(btf__add_enum64_value(k, "SCX_DSQ_GLOBAL", 0x8000000000000001ULL), 0);
	assert_int_equal(btf__add_enum64_value(k, "SCX_DSQ_LOCAL", 0x8000000000000002ULL), 0);
	assert_true(btf__add_enum(k, "scx_public_consts", 4) > 0);
	assert_int_equal(btf__add_enum_value(k, "SCX_OPS_NAME_LEN", 128), 0);
	assert_int_equal(btf__add_enum_value(k, "SCX_SLICE_DFL", 20000000), 0);
	assert_int_equal(btf__add_enum_value(k, "SCX_TOO_BIG", 300), 0);
	assert_true(btf__add_enum(k, "scx_signed_test", 4) > 0);
	assert_int_equal(btf__add_enum_value(k, "SCX_NEG", -2), 0); /* a negative value makes it signed */
	return k;
}

static uint64_t u64_at(const struct objsec *o, unsigned off)
{
	uint64_t v;

	memcpy(&v, o->data + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const struct objsec *o, unsigned off)
{
	uint32_t v;

	memcpy(&v, o->data + off, sizeof(v));
	return v;
}

static void test_scx_enum_globals_get_the_kernels_values(void **state)
{
	static const struct var vars[] = {
		{ "__SCX_DSQ_LOCAL", U64, 0, 8 },   { "__SCX_SLICE_DFL", U64, 8, 8 },
		{ "__SCX_KICK_IDLE", U64, 16, 8 },  { "__SCX_OPS_NAME_LEN", U32, 24, 4 },
		{ "__SCX_TOO_BIG", U8, 28, 1 },     { "SCX_DSQ_LOCAL", U64, 32, 8 },
		{ "__SCX_NEG", S64, 40, 8 },        { "__SCX_SLICE_DFL_B", BOOL, 48, 1 },
		{ "__SCX_DSQ_GLOBAL", S32, 52, 4 },
	};
	struct objsec o = objsec_new(vars, sizeof(vars) / sizeof(vars[0]), 56);
	struct btf *k = kernel_btf();

	o.data[16] = 77; /* the object's own __SCX_KICK_IDLE */
	o.data[28] = 5;
	assert_int_equal(scx_rodata_fill_enums(o.btf, o.sec, o.data, 56, k), 4);
	assert_true(u64_at(&o, 0) == 0x8000000000000002ULL); /* enum64, top bit intact */
	assert_true(u64_at(&o, 8) == 20000000);
	assert_true(u64_at(&o, 16) == 77);          /* the kernel lacks it: its own value stands */
	assert_int_equal(u32_at(&o, 24), 128);      /* a u32 global takes a 32-bit enum */
	assert_int_equal(o.data[28], 5);            /* 300 does not fit a u8: untouched */
	assert_true(u64_at(&o, 32) == 0);           /* no "__" prefix: not the convention */
	assert_true((int64_t)u64_at(&o, 40) == -2); /* signed enum into s64 */
	assert_int_equal(o.data[48], 0);            /* a bool is no enum global */
	assert_int_equal(u32_at(&o, 52), 0);        /* SCX_DSQ_GLOBAL does not fit an s32 */
	btf__free(k);
	btf__free(o.btf);
}

static void test_scx_kernel_enum_lookup(void **state)
{
	struct btf *k = kernel_btf(), *host;
	uint64_t v = 0;

	assert_int_equal(scx_rodata_kernel_enum(k, "SCX_DSQ_GLOBAL", &v), 1);
	assert_true(v == 0x8000000000000001ULL);
	assert_int_equal(scx_rodata_kernel_enum(k, "SCX_NEG", &v), 1);
	assert_true(v == (uint64_t)-2);
	assert_int_equal(scx_rodata_kernel_enum(k, "SCX_NOT_THERE", &v), 0);
	btf__free(k);
	/* The host's own kernel BTF, when it has one: any kernel has BPF_MAP_TYPE_HASH = 1. */
	host = btf__load_vmlinux_btf();
	if (host) {
		assert_int_equal(scx_rodata_kernel_enum(host, "BPF_MAP_TYPE_HASH", &v), 1);
		assert_true(v == 1);
		btf__free(host);
	}
}

static void test_scx_cpu_counts_fill_the_conventional_names(void **state)
{
	static const struct var vars[] = {
		{ "nr_cpu_ids", U32, 0, 4 },        { "nr_cpus", U64, 8, 8 },        { "nr_possible_cpus", U8, 16, 1 },
		{ "nr_cpus_possible", S32, 20, 4 }, { "nr_cpus_other", U32, 24, 4 }, { "nr_cpus", BOOL, 28, 1 },
	};
	struct objsec o = objsec_new(vars, sizeof(vars) / sizeof(vars[0]), 32);

	o.data[16] = 9;
	assert_int_equal(scx_rodata_fill_cpus(o.btf, o.sec, o.data, 32, 300), 3);
	assert_int_equal(u32_at(&o, 0), 300);
	assert_true(u64_at(&o, 8) == 300);
	assert_int_equal(o.data[16], 9); /* 300 does not fit a u8 */
	assert_int_equal(u32_at(&o, 20), 300);
	assert_int_equal(u32_at(&o, 24), 0); /* not a conventional name */
	assert_int_equal(o.data[28], 0);     /* a bool is no count */
	btf__free(o.btf);
}

/* The PID of a user-space half: pid or NAME_pid, an integer still 0. */
static void test_scx_unset_pid_is_found(void **state)
{
	static const struct var vars[] = {
		{ "disallow_tgid", S32, 0, 4 }, { "usersched_pid", S32, 4, 4 }, { "pid_max", U32, 8, 4 },
		{ "quiet_pid", BOOL, 12, 1 },   { "_pid", S32, 16, 4 },         { "pid", S64, 24, 8 },
	};
	struct objsec o = objsec_new(vars, sizeof(vars) / sizeof(vars[0]), 32);
	char name[64];

	(void)state;
	assert_int_equal(scx_rodata_unset_pid(o.btf, o.sec, o.data, 32, name, sizeof(name)), 1);
	assert_string_equal(name, "usersched_pid");
	o.data[4] = 7; /* given with --set */
	assert_int_equal(scx_rodata_unset_pid(o.btf, o.sec, o.data, 32, name, sizeof(name)), 1);
	assert_string_equal(name, "pid");
	o.data[31] = 1;
	assert_int_equal(scx_rodata_unset_pid(o.btf, o.sec, o.data, 32, name, sizeof(name)), 0);
	assert_int_equal(scx_rodata_unset_pid(o.btf, o.sec, o.data, 16, name, sizeof(name)), -EINVAL);
	btf__free(o.btf);
}

/* The community's RESIZABLE_ARRAY: a section holding one one-element array. */
static void test_scx_resizable_array_is_recognised(void **state)
{
	static const struct var one[] = { { "started_at", ARR1, 0, 8 } };
	static const struct var eight[] = { { "bytes", ARR, 0, 8 } };
	static const struct var two[] = { { "started_at", ARR1, 0, 8 }, { "n", U32, 8, 4 } };
	struct objsec o = objsec_new(one, 1, 8);
	size_t elem = 0;

	(void)state;
	assert_int_equal(scx_rodata_resizable_array(o.btf, o.sec, &elem), 1);
	assert_int_equal(elem, 8);
	btf__free(o.btf);
	o = objsec_new(eight, 1, 8);
	assert_int_equal(scx_rodata_resizable_array(o.btf, o.sec, &elem), 0);
	btf__free(o.btf);
	o = objsec_new(two, 2, 16);
	assert_int_equal(scx_rodata_resizable_array(o.btf, o.sec, &elem), 0);
	assert_int_equal(scx_rodata_resizable_array(o.btf, 1, &elem), 0); /* no DATASEC */
	btf__free(o.btf);
	o = objsec_new(one, 1, 12); /* the section is bigger than its array */
	assert_int_equal(scx_rodata_resizable_array(o.btf, o.sec, &elem), 0);
	btf__free(o.btf);
}

static void test_scx_set_parses_by_the_variables_type(void **state)
{
	static const struct var vars[] = {
		{ "slice_us", U32, 0, 4 }, { "nice", S32, 4, 4 },   { "big", U64, 8, 8 },
		{ "quiet", BOOL, 16, 1 },  { "table", ARR, 20, 8 }, { "small", U8, 28, 1 },
	};
	struct objsec o = objsec_new(vars, sizeof(vars) / sizeof(vars[0]), 32);
	char err[256];

#define SET(name, value) scx_rodata_set(o.btf, o.sec, o.data, 32, name, value, err, sizeof(err))
	assert_int_equal(SET("slice_us", "20000"), 0);
	assert_int_equal(u32_at(&o, 0), 20000);
	assert_int_equal(SET("slice_us", "0x10"), 0);
	assert_int_equal(u32_at(&o, 0), 16);
	assert_int_equal(SET("slice_us", "4294967295"), 0);
	assert_int_equal(SET("slice_us", "4294967296"), -ERANGE);
	assert_non_null(strstr(err, "out of range for slice_us (a unsigned 4-byte integer)"));
	assert_int_equal(SET("slice_us", "-1"), -ERANGE);
	assert_int_equal(u32_at(&o, 0), 4294967295U); /* refused values write nothing */
	assert_int_equal(SET("nice", "-20"), 0);
	assert_int_equal((int32_t)u32_at(&o, 4), -20);
	assert_int_equal(SET("nice", "-2147483649"), -ERANGE);
	assert_int_equal(SET("nice", "2147483648"), -ERANGE);
	assert_int_equal(SET("big", "18446744073709551615"), 0);
	assert_true(u64_at(&o, 8) == UINT64_MAX);
	assert_int_equal(SET("big", "18446744073709551616"), -ERANGE);
	assert_int_equal(SET("small", "255"), 0);
	assert_int_equal(SET("small", "256"), -ERANGE);
	assert_int_equal(SET("quiet", "true"), 0);
	assert_int_equal(o.data[16], 1);
	assert_int_equal(SET("quiet", "0"), 0);
	assert_int_equal(o.data[16], 0);
	assert_int_equal(SET("quiet", "yes"), -EINVAL);
	assert_non_null(strstr(err, "quiet is a bool"));
	assert_int_equal(SET("slice_us", "12abc"), -EINVAL);
	assert_int_equal(SET("slice_us", ""), -EINVAL);
	assert_int_equal(SET("table", "1"), -EINVAL);
	assert_non_null(strstr(err, "table is not an integer or bool"));
	assert_int_equal(SET("nosuch", "1"), -ENOENT);
	assert_non_null(strstr(err, "no read-only variable nosuch"));
#undef SET
	btf__free(o.btf);
}

static void test_scx_rodata_refuses_a_section_that_lies(void **state)
{
	static const struct var past_end[] = { { "__SCX_SLICE_DFL", U64, 28, 8 } };
	static const struct var ok[] = { { "nr_cpus", U32, 0, 4 } };
	struct objsec o = objsec_new(past_end, 1, 32);
	struct btf *k = kernel_btf();
	char err[256];

	assert_int_equal(scx_rodata_fill_enums(o.btf, o.sec, o.data, 32, k), -EINVAL);
	assert_int_equal(scx_rodata_fill_cpus(o.btf, o.sec, o.data, 32, 2), -EINVAL);
	assert_int_equal(scx_rodata_set(o.btf, o.sec, o.data, 32, "x", "1", err, sizeof(err)), -EINVAL);
	for (unsigned i = 0; i < 32; i++)
		assert_int_equal(o.data[i], 0);
	btf__free(o.btf);
	o = objsec_new(ok, 1, 4);
	/* an id that is no DATASEC, and a section bigger than its image */
	assert_int_equal(scx_rodata_fill_cpus(o.btf, 1, o.data, 4, 2), -EINVAL);
	assert_int_equal(scx_rodata_fill_cpus(o.btf, o.sec, o.data, 2, 2), -EINVAL);
	assert_int_equal(scx_rodata_fill_cpus(o.btf, o.sec, o.data, 4, 2), 1);
	btf__free(o.btf);
	btf__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scx_enum_globals_get_the_kernels_values),
		cmocka_unit_test(test_scx_kernel_enum_lookup),
		cmocka_unit_test(test_scx_cpu_counts_fill_the_conventional_names),
		cmocka_unit_test(test_scx_unset_pid_is_found),
		cmocka_unit_test(test_scx_resizable_array_is_recognised),
		cmocka_unit_test(test_scx_set_parses_by_the_variables_type),
		cmocka_unit_test(test_scx_rodata_refuses_a_section_that_lies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
