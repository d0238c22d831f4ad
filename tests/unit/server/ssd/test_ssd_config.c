/* test_ssd_config.c - io.cost lines in the kernel's format, MAJ:MIN
 * validation, and hwdb entries with the preferred solution first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/ssd/ssd_config.h"

static struct ssd_rec_solution solution(const char *name)
{
	struct ssd_rec_solution s = { .submissions = 2 };
	const double model[SSD_NPARAMS] = { 1215197792, 124555, 138950, 759026515, 169949, 40891 };
	const double qos[SSD_NPARAMS] = { 99, 5210, 95.5, 43888, 75.25, 100 };

	snprintf(s.name, sizeof(s.name), "%s", name);
	memcpy(s.model, model, sizeof(model));
	memcpy(s.qos, qos, sizeof(qos));
	return s;
}

static void test_config_lines_in_kernel_format(void **state)
{
	struct ssd_rec_solution s = solution("naive");
	char out[512];
	int n = ssd_config_lines(&s, "259:0", out, sizeof(out));

	assert_string_equal(out, "259:0 ctrl=user model=linear rbps=1215197792 rseqiops=124555 rrandiops=138950 "
				 "wbps=759026515 wseqiops=169949 wrandiops=40891\n"
				 "259:0 enable=1 ctrl=user rpct=99.00 rlat=5210 wpct=95.50 wlat=43888 min=75.25 "
				 "max=100.00\n");
	assert_int_equal(n, (int)strlen(out));
	assert_int_equal(ssd_config_lines(&s, "259:0", out, 20), -1);
}

static void test_dev_must_be_maj_min(void **state)
{
	assert_true(ssd_config_dev_ok("259:0"));
	assert_true(ssd_config_dev_ok("8:16"));
	assert_true(ssd_config_dev_ok("4095:1048575"));
	assert_false(ssd_config_dev_ok("4096:0"));
	assert_false(ssd_config_dev_ok("8:1048576"));
	assert_false(ssd_config_dev_ok(NULL));
	assert_false(ssd_config_dev_ok(""));
	assert_false(ssd_config_dev_ok("8"));
	assert_false(ssd_config_dev_ok("8:"));
	assert_false(ssd_config_dev_ok(":0"));
	assert_false(ssd_config_dev_ok("-1:0"));
	assert_false(ssd_config_dev_ok("8:0 "));
	assert_false(ssd_config_dev_ok("8:0\n9:0"));
}

static void test_hwdb_entry_lists_preferred_first(void **state)
{
	struct ssd_recommendation rec = { .bench_major = 2, .bench_minor = 2, .nsolutions = 3 };
	char *buf = NULL;
	size_t len = 0, cap = 0;

	/* sorted by name, as ssd_recommend leaves them */
	rec.solutions[0] = solution("isolation");
	rec.solutions[1] = solution("naive");
	rec.solutions[2] = solution("rlat-99-q1");
	assert_int_equal(ssd_config_hwdb_entry("Samsung SSD 970 EVO 500GB", "2B2QEXE7", &rec, &buf, &len, &cap), 0);
	assert_int_equal(len, strlen(buf));
	assert_non_null(
	    strstr(buf, "\nblock:*:name:Samsung SSD 970 EVO 500GB:fwrev:2B2QEXE7:\n"
			" IOCOST_SOLUTIONS=isolation naive rlat-99-q1\n"
			" IOCOST_MODEL_ISOLATION=rbps=1215197792 rseqiops=124555 rrandiops=138950 "
			"wbps=759026515 wseqiops=169949 wrandiops=40891\n"
			" IOCOST_QOS_ISOLATION=rpct=99.00 rlat=5210 wpct=95.50 wlat=43888 min=75.25 max=100.00\n"));
	assert_non_null(strstr(buf, " IOCOST_QOS_RLAT-99-Q1=rpct=99.00"));
	assert_int_equal(buf[0], '#');
	assert_string_equal(buf + len - 2, "\n\n");
	free(buf);
}

static void test_hwdb_entry_skips_models_without_solutions(void **state)
{
	struct ssd_recommendation rec = { 0 };
	char *buf = NULL;
	size_t len = 0, cap = 0;

	assert_int_equal(ssd_config_hwdb_entry("X", "Y", &rec, &buf, &len, &cap), 0);
	assert_int_equal(len, 0);
	free(buf);
}

static void test_model_only_has_no_qos_line_or_property(void **state)
{
	struct ssd_recommendation rec = { .quick = true, .nsolutions = 1 };
	char out[512], *buf = NULL;
	size_t len = 0, cap = 0;
	int n;

	rec.solutions[0] = solution("quick");
	rec.solutions[0].model_only = true;
	n = ssd_config_lines(&rec.solutions[0], "8:0", out, sizeof(out));
	assert_int_equal(n, (int)strlen(out));
	assert_string_equal(out, "8:0 ctrl=user model=linear rbps=1215197792 rseqiops=124555 rrandiops=138950 "
				 "wbps=759026515 wseqiops=169949 wrandiops=40891\n");
	assert_int_equal(ssd_config_hwdb_entry("Disk Q", "F1", &rec, &buf, &len, &cap), 0);
	assert_non_null(strstr(buf,
			       "# Disk Q, firmware F1: quick benches (schedio bench) only, 2 submission(s): "
			       "io.cost model without QoS\nblock:*:name:Disk Q:fwrev:F1:\n IOCOST_SOLUTIONS=quick\n"
			       " IOCOST_MODEL_QUICK=rbps=1215197792 rseqiops=124555 rrandiops=138950 wbps=759026515 "
			       "wseqiops=169949 wrandiops=40891\n\n"));
	assert_null(strstr(buf, "IOCOST_QOS"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_lines_in_kernel_format),
		cmocka_unit_test(test_dev_must_be_maj_min),
		cmocka_unit_test(test_hwdb_entry_lists_preferred_first),
		cmocka_unit_test(test_hwdb_entry_skips_models_without_solutions),
		cmocka_unit_test(test_model_only_has_no_qos_line_or_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
