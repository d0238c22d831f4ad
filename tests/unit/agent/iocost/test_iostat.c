/* test_iostat.c - agent/iocost/iostat.c on real io.stat and io.weight contents
 * (Debian 12's 6.1 with iocost on, a host without iocost, the root's
 * cost.vrate line) and on malformed lines, which are skipped and counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/iocost/iostat.h"

/* A cgroup's io.stat on 6.1 with iocost enabled on vda and blkcg debug stats on. */
static const char stat_iocost[] =
    "254:16 rbytes=1048576 wbytes=0 rios=256 wios=0 dbytes=0 dios=0\n"
    "254:0 rbytes=27570176 wbytes=4096 rios=6731 wios=1 dbytes=0 dios=0 cost.usage=6629003 cost.wait=1200 "
    "cost.indebt=30 cost.indelay=7\n";

static void test_iostat_reads_cost_fields(void **state)
{
	struct iostat st;
	const struct iostat_dev *d;

	iostat_parse(stat_iocost, &st);
	assert_int_equal(st.n, 2);
	assert_int_equal(st.bad_lines, 0);
	d = iostat_find(&st, 254, 0);
	assert_non_null(d);
	assert_int_equal(d->rbytes, 27570176);
	assert_int_equal(d->wbytes, 4096);
	assert_int_equal(d->rios, 6731);
	assert_int_equal(d->wios, 1);
	assert_int_equal(d->cost_usage_us, 6629003);
	assert_int_equal(d->cost_wait_us, 1200);
	assert_int_equal(d->cost_indebt_us, 30);
	assert_int_equal(d->cost_indelay_us, 7);
	assert_int_equal(d->has, IOSTAT_HAS_USAGE | IOSTAT_HAS_WAIT | IOSTAT_HAS_INDEBT | IOSTAT_HAS_INDELAY);
	d = iostat_find(&st, 254, 16);
	assert_non_null(d);
	assert_int_equal(d->has, 0);
	assert_int_equal(d->rios, 256);
	assert_null(iostat_find(&st, 8, 0));
}

static void test_iostat_root_vrate_and_unknown_keys(void **state)
{
	struct iostat st;

	/* the root prints cost.vrate; a key from a newer kernel is ignored, not an error */
	iostat_parse("254:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0 cost.vrate=87.50 cost.usage=10 "
		     "future.key=abc\n",
		     &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.bad_lines, 0);
	assert_true(st.dev[0].has & IOSTAT_HAS_VRATE);
	assert_true(st.dev[0].cost_vrate_pct > 87.49 && st.dev[0].cost_vrate_pct < 87.51);
	assert_int_equal(st.dev[0].cost_usage_us, 10);
}

static void test_iostat_skips_malformed_lines(void **state)
{
	struct iostat st;

	iostat_parse("garbage\n"
		     "254:0 rbytes=12 rios=x\n"             /* bad number for a known key */
		     "254: rbytes=1\n"                      /* no minor */
		     "8:0rbytes=1\n"                        /* no separator */
		     "8:0 rbytes=99999999999999999999999\n" /* overflows u64 */
		     "8:0 cost.vrate=-1\n"                  /* not a percentage */
		     "8:16 =5 rios=1\n"                     /* empty key */
		     "\n\n   \n"                            /* blank lines are not malformed */
		     "8:32 rbytes=5 rios=1\n"
		     "8:32 rbytes=6\n" /* duplicate device */
		     "9:0 rbytes=7",   /* last line without newline */
		     &st);
	assert_int_equal(st.bad_lines, 8);
	assert_int_equal(st.n, 2);
	assert_int_equal(iostat_find(&st, 8, 32)->rbytes, 5);
	assert_int_equal(iostat_find(&st, 9, 0)->rbytes, 7);
}

static void test_iostat_empty_and_huge_device_numbers(void **state)
{
	struct iostat st;

	iostat_parse("", &st);
	assert_int_equal(st.n, 0);
	assert_int_equal(st.bad_lines, 0);
	iostat_parse("4096:0 rbytes=1\n1:1048576 rbytes=1\n4095:1048575 rbytes=1\n", &st);
	assert_int_equal(st.bad_lines, 2);
	assert_int_equal(st.n, 1);
}

static void test_ioweight_default_and_overrides(void **state)
{
	struct ioweight w;

	iostat_weight_parse("default 300\n254:0 50\n8:16 10000\n", &w);
	assert_int_equal(w.bad_lines, 0);
	assert_int_equal(iostat_weight_effective(&w, 254, 0), 50);
	assert_int_equal(iostat_weight_effective(&w, 8, 16), 10000);
	assert_int_equal(iostat_weight_effective(&w, 8, 0), 300);
	/* a file that is absent or empty means the kernel's default of 100 */
	iostat_weight_parse("", &w);
	assert_int_equal(iostat_weight_effective(&w, 254, 0), 100);
}

static void test_ioweight_skips_malformed_lines(void **state)
{
	struct ioweight w;

	iostat_weight_parse("default 0\n" /* below CGROUP_WEIGHT_MIN */
			    "default abc\n"
			    "254:0 10001\n" /* above CGROUP_WEIGHT_MAX */
			    "254:0\n"
			    "nonsense line\n"
			    "8:0 200\n",
			    &w);
	assert_int_equal(w.bad_lines, 5);
	assert_int_equal(w.dflt, 100);
	assert_int_equal(iostat_weight_effective(&w, 8, 0), 200);
	assert_int_equal(iostat_weight_effective(&w, 254, 0), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iostat_reads_cost_fields),
		cmocka_unit_test(test_iostat_root_vrate_and_unknown_keys),
		cmocka_unit_test(test_iostat_skips_malformed_lines),
		cmocka_unit_test(test_iostat_empty_and_huge_device_numbers),
		cmocka_unit_test(test_ioweight_default_and_overrides),
		cmocka_unit_test(test_ioweight_skips_malformed_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
