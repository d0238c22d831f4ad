/* test_sched_ext.c - agent/host/sched_ext.c on fake /sys/kernel/sched_ext trees:
 * no folder means "unsupported", a loaded scheduler is named in ops, and
 * ops is null when none is loaded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "agent/host/sched_ext.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sched_ext_absent_is_unsupported(void **state)
{
	struct sched_ext_state st;
	cJSON *rep = cJSON_CreateObject(), *o;

	assert_int_equal(sched_ext_read("/nonexistent/sched_ext", &st), 0);
	assert_string_equal(st.state, "unsupported");
	assert_int_equal(sched_ext_to_json(&st, rep), 0);
	o = cJSON_GetObjectItem(rep, "sched_ext");
	assert_string_equal(cJSON_GetObjectItem(o, "state")->valuestring, "unsupported");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "ops")));
	cJSON_Delete(rep);
}

static void test_sched_ext_enabled_names_the_scheduler(void **state)
{
	char root[] = "/tmp/schedio-scx-XXXXXX", path[256], cmd[300];
	struct sched_ext_state st;
	cJSON *rep = cJSON_CreateObject(), *o;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/state", root);
	write_file(path, "disabled\n");
	assert_int_equal(sched_ext_read(root, &st), 0);
	assert_string_equal(st.state, "disabled");
	assert_string_equal(st.ops, "");

	write_file(path, "enabled\n");
	snprintf(path, sizeof(path), "%s/root", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/root/ops", root);
	write_file(path, "fifo_global\n");
	assert_int_equal(sched_ext_read(root, &st), 0);
	assert_string_equal(st.state, "enabled");
	assert_string_equal(st.ops, "fifo_global");
	assert_int_equal(sched_ext_to_json(&st, rep), 0);
	o = cJSON_GetObjectItem(rep, "sched_ext");
	assert_string_equal(cJSON_GetObjectItem(o, "ops")->valuestring, "fifo_global");
	cJSON_Delete(rep);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_ext_absent_is_unsupported),
		cmocka_unit_test(test_sched_ext_enabled_names_the_scheduler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
