/* test_scx_layout.c - the records the loader reads only when it understands
 * their layout: a `uei` exit record (with or without exit_code) is found by
 * member names wherever it lies and read with its strings cut and
 * terminated, and not before its kind is set; a uei of another shape, or
 * one the section cannot hold, is refused; counters are schedio's only as
 * u32 -> u64 beside struct schedio_scx_exit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "cli/scx/scx_layout.h"

struct types {
	struct btf *btf;
	int s32, s64, u32, u64, chr, reason, msg, ints;
};

static struct types types_new(void)
{
	struct types t = { .btf = btf__new_empty() };

	assert_non_null(t.btf);
	t.s32 = btf__add_int(t.btf, "int", 4, BTF_INT_SIGNED);
	t.s64 = btf__add_int(t.btf, "long long", 8, BTF_INT_SIGNED);
	t.u32 = btf__add_int(t.btf, "unsigned int", 4, 0);
	t.u64 = btf__add_int(t.btf, "unsigned long long", 8, 0);
	t.chr = btf__add_int(t.btf, "char", 1, BTF_INT_SIGNED);
	t.reason = btf__add_array(t.btf, t.u32, t.chr, 128);
	t.msg = btf__add_array(t.btf, t.u32, t.chr, 1024);
	t.ints = btf__add_array(t.btf, t.u32, t.s32, 32);
	return t;
}

/* struct user_exit_info { int kind; [s64 exit_code;] char reason[128]; char msg[1024]; }
 * as variable uei at offset off of a .data section of sec_size bytes;
 * kind_type and reason_type replace the usual ones to make it foreign. */
static int uei_section(struct types *t, bool with_code, int kind_type, int reason_type, unsigned off, unsigned sec_size)
{
	unsigned size = with_code ? 1168 : 1156, reason_at = with_code ? 16 : 4;
	int st = btf__add_struct(t->btf, "user_exit_info", size), var, sec;

	assert_true(st > 0);
	assert_int_equal(btf__add_field(t->btf, "kind", kind_type, 0, 0), 0);
	if (with_code)
		assert_int_equal(btf__add_field(t->btf, "exit_code", t->s64, 64, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "reason", reason_type, reason_at * 8, 0), 0);
	assert_int_equal(btf__add_field(t->btf, "msg", t->msg, (reason_at + 128) * 8, 0), 0);
	var = btf__add_var(t->btf, "uei", BTF_VAR_GLOBAL_ALLOCATED, st);
	sec = btf__add_datasec(t->btf, ".data", sec_size);
	assert_int_equal(btf__add_datasec_var_info(t->btf, var, off, size), 0);
	return sec;
}

static void test_scx_uei_found_and_read_by_names(void **state)
{
	struct types t = types_new();
	int sec = uei_section(&t, true, t.s32, t.reason, 8, 1176);
	struct schedio_scx_exit ex;
	struct scx_uei u;
	unsigned char *data = calloc(1, 1176);
	int32_t kind = 1026;
	int64_t code = -5;

	assert_non_null(data);
	assert_int_equal(scx_layout_uei(t.btf, sec, 1176, &u), 1);
	assert_true(u.has_code);
	assert_int_equal(u.kind_off, 8);
	assert_int_equal(u.code_off, 16);
	assert_int_equal(u.reason_off, 24);
	assert_int_equal(u.msg_off, 152);
	assert_int_equal(u.msg_len, 1024);
	/* nothing recorded yet: kind 0, whatever the strings say */
	memcpy(data + 24, "half written", 12);
	assert_int_equal(scx_layout_uei_read(&u, data, 1176, &ex), 0);
	assert_int_equal(ex.recorded, 0);
	memcpy(data + 8, &kind, 4);
	memcpy(data + 16, &code, 8);
	memcpy(data + 24, "runnable task stall", 20);
	memset(data + 152, 'x', 1024); /* a message with no terminator */
	assert_int_equal(scx_layout_uei_read(&u, data, 1176, &ex), 1);
	assert_int_equal(ex.recorded, 1);
	assert_int_equal(ex.kind, 1026);
	assert_true(ex.exit_code == -5);
	assert_string_equal(ex.reason, "runnable task stall");
	assert_int_equal(strlen(ex.msg), sizeof(ex.msg) - 1);
	/* an image smaller than the layout's: not read */
	assert_int_equal(scx_layout_uei_read(&u, data, 1000, &ex), 0);
	free(data);
	btf__free(t.btf);
}

static void test_scx_uei_without_exit_code(void **state)
{
	struct types t = types_new();
	int sec = uei_section(&t, false, t.s32, t.reason, 0, 1156);
	struct scx_uei u;

	assert_int_equal(scx_layout_uei(t.btf, sec, 1156, &u), 1);
	assert_false(u.has_code);
	assert_int_equal(u.reason_off, 4);
	btf__free(t.btf);
}

static void test_scx_uei_of_another_layout_is_refused(void **state)
{
	struct types t = types_new();
	struct scx_uei u;
	int sec, var;

	sec = uei_section(&t, true, t.s64, t.reason, 0, 1168); /* an 8-byte kind */
	assert_int_equal(scx_layout_uei(t.btf, sec, 1168, &u), -EINVAL);
	btf__free(t.btf);
	t = types_new();
	sec = uei_section(&t, true, t.s32, t.ints, 0, 1168); /* reason is no char array */
	assert_int_equal(scx_layout_uei(t.btf, sec, 1168, &u), -EINVAL);
	btf__free(t.btf);
	t = types_new();
	sec = uei_section(&t, true, t.s32, t.reason, 100, 1168); /* past the section's end */
	assert_int_equal(scx_layout_uei(t.btf, sec, 1168, &u), -EINVAL);
	/* a section without uei, and an id that is no section */
	btf__free(t.btf);
	t = types_new();
	var = btf__add_var(t.btf, "other", BTF_VAR_GLOBAL_ALLOCATED, t.s32);
	sec = btf__add_datasec(t.btf, ".data", 4);
	assert_int_equal(btf__add_datasec_var_info(t.btf, var, 0, 4), 0);
	assert_int_equal(scx_layout_uei(t.btf, sec, 4, &u), 0);
	assert_int_equal(scx_layout_uei(t.btf, t.s32, 4, &u), 0);
	btf__free(t.btf);
}

static void test_scx_counters_only_beside_schedio_exit_info(void **state)
{
	struct types t = types_new();
	int ex = btf__add_struct(t.btf, "schedio_scx_exit", sizeof(struct schedio_scx_exit));
	int other = btf__add_struct(t.btf, "user_exit_info", sizeof(struct schedio_scx_exit));

	assert_true(ex > 0 && other > 0);
	assert_true(scx_layout_schedio_exit(t.btf, ex));
	assert_true(scx_layout_counters(t.btf, t.u32, t.u64, ex));
	assert_false(scx_layout_counters(t.btf, 0, 0, ex));            /* key_size/value_size only, as scx_simple */
	assert_false(scx_layout_counters(t.btf, t.u32, t.u32, ex));    /* 4-byte counters */
	assert_false(scx_layout_counters(t.btf, t.u32, t.u64, other)); /* beside someone else's record */
	assert_false(scx_layout_counters(t.btf, t.u32, t.u64, 0));
	btf__free(t.btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scx_uei_found_and_read_by_names),
		cmocka_unit_test(test_scx_uei_without_exit_code),
		cmocka_unit_test(test_scx_uei_of_another_layout_is_refused),
		cmocka_unit_test(test_scx_counters_only_beside_schedio_exit_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
