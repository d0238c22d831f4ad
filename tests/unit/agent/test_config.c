/* test_config.c - agent/config.c: the file and the flags share one parser,
 * unknown keys and bad values are errors that name the file, line and key,
 * defaults fill in what is not said, and the token never gets printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/config.h"

static char dir[] = "/tmp/schedio-test-config-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_config_defaults(void **state)
{
	struct agent_config c;

	config_defaults(&c);
	assert_int_equal(c.interval_s, 10);
	assert_int_equal(c.cgroup_depth, 2);
	assert_true(c.spool_max_bytes > 0);
	assert_string_equal(c.server, "");
	/* BPF run-time statistics 1 s of every 10 s (README) */
	assert_int_equal(c.bpf_stats_sample_ms, 1000);
	assert_int_equal(c.bpf_stats_period_s, 10);
}

static void test_config_reads_every_key(void **state)
{
	struct agent_config c;
	char err[512] = "";
	const char *tok = write_file("token", "  s3cret-token\n");
	char text[2048];

	snprintf(text, sizeof(text),
		 "; comment\n"
		 "[agent]\n"
		 "server = https://schedio.example:8443/\n"
		 "token_file = %s\n"
		 "interval = 5\n"
		 "state_dir = /var/lib/x\n"
		 "spool_dir = /var/spool/x\n"
		 "spool_max_bytes = 2M\n"
		 "cgroup_depth = 3\n"
		 "ca_file = %s\n"
		 "backoff_max = 7\n"
		 "bpf_stats_sample_ms = 500\n"
		 "bpf_stats_period = 30\n",
		 tok, tok);
	config_defaults(&c);
	assert_int_equal(config_load_file(&c, write_file("a.conf", text), true, err, sizeof(err)), 0);
	assert_int_equal(config_finish(&c, err, sizeof(err)), 0);
	assert_string_equal(c.server, "https://schedio.example:8443/");
	assert_string_equal(c.token, "s3cret-token");
	assert_int_equal(c.interval_s, 5);
	assert_string_equal(c.spool_dir, "/var/spool/x");
	assert_int_equal(c.spool_max_bytes, 2u << 20);
	assert_int_equal(c.cgroup_depth, 3);
	assert_int_equal(c.backoff_max_s, 7);
	assert_int_equal(c.bpf_stats_sample_ms, 500);
	assert_int_equal(c.bpf_stats_period_s, 30);
}

static void test_config_unknown_key_names_file_and_line(void **state)
{
	struct agent_config c;
	char err[512] = "";
	const char *p = write_file("b.conf", "server = http://a\n\nsevrer = http://b\n");

	config_defaults(&c);
	assert_int_equal(config_load_file(&c, p, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "b.conf:3:"));
	assert_non_null(strstr(err, "unknown key 'sevrer'"));
}

static void test_config_unknown_section_is_an_error(void **state)
{
	struct agent_config c;
	char err[512] = "";

	config_defaults(&c);
	assert_int_equal(
	    config_load_file(&c, write_file("c.conf", "[server]\nserver = http://a\n"), true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown section [server]"));
}

static void test_config_bad_values(void **state)
{
	static const char *const bad[][2] = {
		{ "interval", "0" },
		{ "interval", "ten" },
		{ "interval", "-1" },
		{ "interval", "3601" },
		{ "interval", "" },
		{ "spool_max_bytes", "12Q" },
		{ "spool_max_bytes", "100" },
		{ "spool_max_bytes", "99999999G" },
		{ "cgroup_depth", "17" },
		{ "server", "ftp://x" },
		{ "server", "schedio:8080" },
		{ "spool_dir", "relative/path" },
		{ "ca_file", "ca.pem" },
		{ "backoff_max", "0" },
		{ "bpf_stats_sample_ms", "1s" },
		{ "bpf_stats_sample_ms", "3600001" },
		{ "bpf_stats_period", "0" },
	};
	struct agent_config c;
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_defaults(&c);
		err[0] = '\0';
		assert_int_equal(config_set(&c, bad[i][0], bad[i][1], err, sizeof(err)), -1);
		/* The reason names the key, so a user knows which line to fix. */
		assert_non_null(strstr(err, bad[i][0]));
	}
	config_defaults(&c);
	assert_int_equal(config_set(&c, "interval", "0", err, sizeof(err)), -1);
	assert_int_equal(c.interval_s, 10); /* a rejected value changes nothing */
}

static void test_config_bad_value_in_file_names_line(void **state)
{
	struct agent_config c;
	char err[512] = "";

	config_defaults(&c);
	assert_int_equal(
	    config_load_file(&c, write_file("d.conf", "server = http://a\ninterval = soon\n"), true, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "d.conf:2: interval wants whole seconds"));
}

static void test_config_missing_file(void **state)
{
	struct agent_config c;
	char err[512] = "";
	char path[512];

	snprintf(path, sizeof(path), "%s/absent.conf", dir);
	config_defaults(&c);
	assert_int_equal(config_load_file(&c, path, false, err, sizeof(err)), 1); /* default path: fine */
	assert_int_equal(config_load_file(&c, path, true, err, sizeof(err)), -1); /* named on purpose: an error */
	assert_non_null(strstr(err, "absent.conf"));
}

static void test_config_finish_checks(void **state)
{
	struct agent_config c;
	char err[512] = "", missing[512];

	config_defaults(&c);
	assert_int_equal(config_finish(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no server"));

	config_defaults(&c);
	config_set(&c, "server", "http://a", err, sizeof(err));
	snprintf(missing, sizeof(missing), "%s/no-token", dir);
	config_set(&c, "token_file", missing, err, sizeof(err));
	assert_int_equal(config_finish(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "token_file"));

	config_defaults(&c);
	config_set(&c, "server", "http://a", err, sizeof(err));
	config_set(&c, "ca_file", write_file("ca.pem", "x"), err, sizeof(err));
	assert_int_equal(config_finish(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not https"));

	config_defaults(&c);
	config_set(&c, "server", "http://a", err, sizeof(err));
	config_set(&c, "state_dir", "/srv/agent", err, sizeof(err));
	assert_int_equal(config_finish(&c, err, sizeof(err)), 0);
	assert_string_equal(c.spool_dir, "/srv/agent/spool"); /* derived from state_dir */
}

static void test_config_print_hides_token(void **state)
{
	struct agent_config c;
	char err[512], buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	config_defaults(&c);
	config_set(&c, "server", "http://a", err, sizeof(err));
	config_set(&c, "token", "very-secret", err, sizeof(err));
	config_finish(&c, err, sizeof(err));
	config_print(&c, f);
	fclose(f);
	assert_null(strstr(buf, "very-secret"));
	assert_non_null(strstr(buf, "server = http://a"));
	assert_non_null(strstr(buf, "interval = 10"));
}

/* label.K = V (issue 15): read from the file in order, a second setting replaces the value,
 * printed back, and reported as host.labels. */
static void test_config_labels_from_file_and_report(void **state)
{
	struct agent_config c;
	char err[512] = "", *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	cJSON *rep = cJSON_CreateObject(), *labels;

	config_defaults(&c);
	assert_int_equal(config_load_file(&c,
					  write_file("l.conf", "label.role = web\nlabel.canary = 1\n"
							       "label.zone = eu west-1:a\nlabel.role = db\n"),
					  true, err, sizeof(err)),
			 0);
	assert_int_equal(c.nlabels, 3);
	assert_string_equal(c.labels[0].key, "role");
	assert_string_equal(c.labels[0].value, "db");
	assert_string_equal(c.labels[2].value, "eu west-1:a");
	config_print(&c, out);
	fclose(out);
	assert_non_null(strstr(text, "label.role = db\nlabel.canary = 1\nlabel.zone = eu west-1:a\n"));
	free(text);
	assert_int_equal(config_labels_to_json(&c, rep), 0);
	labels = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "host"), "labels");
	assert_int_equal(cJSON_GetArraySize(labels), 3);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(labels, "role")->valuestring, "db");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(labels, "canary")->valuestring, "1");
	cJSON_Delete(rep);
}

/* Without labels a report has no host.labels at all (older servers and the golden answers). */
static void test_config_no_labels_no_field(void **state)
{
	struct agent_config c;
	cJSON *rep = cJSON_CreateObject();

	config_defaults(&c);
	cJSON_AddObjectToObject(rep, "host");
	assert_int_equal(config_labels_to_json(&c, rep), 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "host"), "labels"));
	cJSON_Delete(rep);
}

/* Each limit of the contract, at the edge and past it, with the label named in the error. */
static void test_config_label_limits(void **state)
{
	struct agent_config c;
	char err[512], key[80], val[200];
	static const struct {
		const char *key, *value, *msg;
	} bad[] = {
		{ "label.Role", "web", "label key 'Role'" },
		{ "label.1role", "web", "label key '1role'" },
		{ "label.", "web", "label key ''" },
		{ "label.ro-le", "web", "label key 'ro-le'" },
		{ "label.role", "", "label role: the value must be 1..128 bytes, not 0" },
		{ "label.role", "a,b", "label role: the value may hold printable ASCII" },
		{ "label.role", "a=b", "byte 1 is 0x3d" },
		{ "label.role", "a\"b", "byte 1 is 0x22" },
		{ "label.role", "a\\b", "byte 1 is 0x5c" },
		{ "label.role", "tab\there", "byte 3 is 0x09" },
		{ "label.role", "caf\xc3\xa9", "byte 3 is 0xc3" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_defaults(&c);
		err[0] = '\0';
		assert_int_equal(config_set(&c, bad[i].key, bad[i].value, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].msg))
			fail_msg("%s = '%s': got '%s', want '%s'", bad[i].key, bad[i].value, err, bad[i].msg);
		assert_int_equal(c.nlabels, 0);
	}
	/* 63-byte key and 128-byte value are the largest taken. */
	config_defaults(&c);
	memset(val, 'v', 128);
	val[128] = '\0';
	snprintf(key, sizeof(key), "label.k%062d", 0);
	assert_int_equal(config_set(&c, key, val, err, sizeof(err)), 0);
	assert_int_equal(strlen(c.labels[0].key), 63);
	assert_int_equal(strlen(c.labels[0].value), 128);
	snprintf(key, sizeof(key), "label.k%063d", 0);
	assert_int_equal(config_set(&c, key, "x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "63 bytes at most"));
	strcat(val, "v");
	assert_int_equal(config_set(&c, "label.big", val, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not 129"));
	/* 32 labels, not 33; setting one of the 32 again is still fine. */
	config_defaults(&c);
	for (int i = 0; i < 32; i++) {
		snprintf(key, sizeof(key), "label.k%d", i);
		assert_int_equal(config_set(&c, key, "x", err, sizeof(err)), 0);
	}
	assert_int_equal(config_set(&c, "label.k7", "y", err, sizeof(err)), 0);
	assert_int_equal(c.nlabels, 32);
	assert_int_equal(config_set(&c, "label.k32", "x", err, sizeof(err)), -1);
	assert_string_equal(err, "label k32: more than 32 labels");
}

/* A bad label in the file stops the load with the file, line and label. */
static void test_config_bad_label_in_file_names_line(void **state)
{
	struct agent_config c;
	char err[512] = "";
	const char *p = write_file("bl.conf", "label.role = web\n\nlabel.Zone = eu\n");

	config_defaults(&c);
	assert_int_equal(config_load_file(&c, p, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bl.conf:3: label key 'Zone' must be a lowercase letter"));
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_reads_every_key),
		cmocka_unit_test(test_config_unknown_key_names_file_and_line),
		cmocka_unit_test(test_config_unknown_section_is_an_error),
		cmocka_unit_test(test_config_bad_values),
		cmocka_unit_test(test_config_bad_value_in_file_names_line),
		cmocka_unit_test(test_config_missing_file),
		cmocka_unit_test(test_config_finish_checks),
		cmocka_unit_test(test_config_print_hides_token),
		cmocka_unit_test(test_config_labels_from_file_and_report),
		cmocka_unit_test(test_config_no_labels_no_field),
		cmocka_unit_test(test_config_label_limits),
		cmocka_unit_test(test_config_bad_label_in_file_names_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
