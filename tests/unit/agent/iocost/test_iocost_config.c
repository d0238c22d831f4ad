/* test_iocost_config.c - agent/iocost/iocost_config.c on real io.cost.model and
 * io.cost.qos contents (as 6.1 prints them after the writes of
 * tests/vm/guest/iocost_weights.sh, and an auto-configured NVMe line), every
 * key kept and typed for JSON, and malformed lines skipped and counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/iocost/iocost_config.h"

static const char model_text[] =
    "254:0 ctrl=user model=linear rbps=40000000 rseqiops=2000 rrandiops=1000 wbps=40000000 wseqiops=2000 "
    "wrandiops=1000\n"
    "259:0 ctrl=auto model=linear rbps=2706339840 rseqiops=89698 rrandiops=110036 wbps=1063126016 "
    "wseqiops=135560 wrandiops=130734\n";
static const char qos_text[] = "254:0 enable=1 ctrl=user rpct=95.00 rlat=25000 wpct=95.00 wlat=25000 min=100.00 "
			       "max=100.00\n"
			       "259:0 enable=0 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00 "
			       "max=10000.00\n";

static void test_model_keeps_every_key(void **state)
{
	struct iocost_conf *c = malloc(sizeof(*c));
	const struct iocost_config_dev *d;

	iocost_config_parse(model_text, c);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->bad_lines, 0);
	d = iocost_config_find(c, 259, 0);
	assert_non_null(d);
	assert_int_equal(d->n, 8);
	assert_string_equal(iocost_config_get(d, "ctrl"), "auto");
	assert_string_equal(iocost_config_get(d, "model"), "linear");
	assert_string_equal(iocost_config_get(d, "wrandiops"), "130734");
	assert_null(iocost_config_get(d, "nokey"));
	assert_null(iocost_config_find(c, 8, 0));
	free(c);
}

static void test_qos_enabled_and_json_types(void **state)
{
	struct iocost_conf *c = malloc(sizeof(*c));
	const struct iocost_config_dev *on, *off;
	cJSON *j;
	char *text;

	iocost_config_parse(qos_text, c);
	on = iocost_config_find(c, 254, 0);
	off = iocost_config_find(c, 259, 0);
	assert_true(iocost_config_enabled(on));
	assert_false(iocost_config_enabled(off));
	assert_false(iocost_config_enabled(NULL));
	j = iocost_config_to_json(on);
	assert_non_null(j);
	text = cJSON_PrintUnformatted(j);
	assert_string_equal(text, "{\"enable\":1,\"ctrl\":\"user\",\"rpct\":95,\"rlat\":25000,\"wpct\":95,"
				  "\"wlat\":25000,\"min\":100,\"max\":100}");
	free(text);
	cJSON_Delete(j);
	free(c);
}

static void test_conf_skips_malformed_lines(void **state)
{
	struct iocost_conf *c = malloc(sizeof(*c));
	const struct iocost_config_dev *d;
	cJSON *j;

	iocost_config_parse("254:0\n"                                   /* no keys */
			    "254:0 enable\n"                            /* no value */
			    "x:0 enable=1\n"                            /* bad device */
			    "254:1 Enable=1\n"                          /* keys are lowercase */
			    "254:2 a=b=c\n"                             /* two '=' */
			    "254:3 averyveryverylongkey=1\n"            /* key too long */
			    "254:4 k=0x1f n=inf e=1e9 m=-3.5 d=1.2.3\n" /* fine: only decimals become numbers */
			    "254:4 enable=1\n",                         /* duplicate device */
			    c);
	assert_int_equal(c->bad_lines, 7);
	assert_int_equal(c->n, 1);
	d = iocost_config_find(c, 254, 4);
	j = iocost_config_to_json(d);
	assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "k")));
	assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "n")));
	assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "e")));
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(j, "m")));
	assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "d")));
	cJSON_Delete(j);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_keeps_every_key),
		cmocka_unit_test(test_qos_enabled_and_json_types),
		cmocka_unit_test(test_conf_skips_malformed_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
