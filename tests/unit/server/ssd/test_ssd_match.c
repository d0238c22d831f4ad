/* test_ssd_match.c - the fleet link: a disk's io.cost configuration against
 * its model's recommendation (in_use, differs, no_data), the kernel's
 * rounding tolerated, looked up through a real SQLite store with sysfs-padded
 * model strings and firmware narrowing.
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

#include "server/ssd/ssd_match.h"
#include "tests/unit/server/test_store_helpers.h"

static const double model[SSD_NPARAMS] = { 1000, 100, 200, 500, 50, 60 };
static const double qos[SSD_NPARAMS] = { 95, 1000, 90.5, 2000, 60, 100 };

static struct ssd_result result(const char *id, const char *fwrev, double rbps)
{
	struct ssd_result r;

	memset(&r, 0, sizeof(r));
	snprintf(r.id, sizeof(r.id), "%s", id);
	snprintf(r.model, sizeof(r.model), "Test SSD 1TB");
	ssd_model_id(r.model, r.model_id);
	snprintf(r.fwrev, sizeof(r.fwrev), "%s", fwrev);
	snprintf(r.bench_version, sizeof(r.bench_version), "2.2.3");
	r.bench_major = 2;
	r.bench_minor = 2;
	r.nsolutions = 1;
	snprintf(r.solutions[0].name, sizeof(r.solutions[0].name), "naive");
	memcpy(r.solutions[0].model, model, sizeof(model));
	memcpy(r.solutions[0].qos, qos, sizeof(qos));
	r.solutions[0].model[SSD_RBPS] = rbps;
	return r;
}

static struct ssd_iocost_current current(double rbps)
{
	struct ssd_iocost_current c = { .enabled = true, .has_model = true, .has_qos = true };

	memcpy(c.model, model, sizeof(model));
	memcpy(c.qos, qos, sizeof(qos));
	c.model[SSD_RBPS] = rbps;
	return c;
}

static void test_config_states(void **state)
{
	struct ssd_result r = result("a", "FW1", 1000);
	struct ssd_recommendation rec, empty = { 0 };
	struct ssd_iocost_current c = current(1000);
	const struct ssd_rec_solution *s;

	ssd_recommend(&r, 1, &rec);
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_IN_USE);
	assert_string_equal(s->name, "naive");
	/* the kernel reads percents back with two decimals, latencies as integers */
	c.qos[SSD_WPCT] = 90.504;
	c.qos[SSD_RLAT] = 1000.4;
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_IN_USE);
	c.qos[SSD_WPCT] = 90.52;
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_DIFFERS);
	assert_string_equal(s->name, "naive"); /* the advised one */
	c = current(1001);
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_DIFFERS);
	c = current(1000);
	c.enabled = false; /* the right numbers with iocost off are not in use */
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_DIFFERS);
	assert_int_equal(ssd_match_config(&rec, NULL, &s), SSD_MATCH_DIFFERS);
	assert_int_equal(ssd_match_config(&empty, &c, &s), SSD_MATCH_NO_DATA);
	assert_null(s);
	assert_string_equal(ssd_match_state_name(SSD_MATCH_IN_USE), "in_use");
	assert_string_equal(ssd_match_state_name(SSD_MATCH_DIFFERS), "differs");
	assert_string_equal(ssd_match_state_name(SSD_MATCH_NO_DATA), "no_data");
}

static void test_quick_only_model_matches_on_the_model_line(void **state)
{
	struct ssd_result r[2];
	struct ssd_recommendation rec;
	struct ssd_iocost_current c = current(1000);
	const struct ssd_rec_solution *s;

	for (int k = 0; k < 2; k++) {
		memset(&r[k], 0, sizeof(r[k]));
		r[k].kind = SSD_KIND_QUICK;
		r[k].has_params = true;
		memcpy(r[k].params_model, model, sizeof(model));
	}
	ssd_recommend(r, 2, &rec);
	/* no QoS was recommended, so whatever QoS is in force (or none) does not matter */
	c.qos[SSD_RLAT] = 777;
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_IN_USE);
	assert_string_equal(s->name, "quick");
	c.has_qos = false;
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_IN_USE);
	c.model[SSD_WBPS] += 1;
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_DIFFERS);
	c = current(1000);
	c.enabled = false;
	assert_int_equal(ssd_match_config(&rec, &c, &s), SSD_MATCH_DIFFERS);
}

static void test_current_from_agent_json(void **state)
{
	cJSON *disk = cJSON_Parse("{\"enabled\":true,\"model\":{\"ctrl\":\"user\",\"model\":\"linear\",\"rbps\":1000,"
				  "\"rseqiops\":100,\"rrandiops\":200,\"wbps\":500,\"wseqiops\":50,\"wrandiops\":60},"
				  "\"qos\":{\"enable\":1,\"ctrl\":\"user\",\"rpct\":95,\"rlat\":1000,\"wpct\":90.5,"
				  "\"wlat\":2000,\"min\":60,\"max\":100}}");
	struct ssd_iocost_current c, want = current(1000);

	ssd_match_current_from_json(disk, &c);
	assert_true(c.enabled && c.has_model && c.has_qos);
	assert_memory_equal(c.model, want.model, sizeof(c.model));
	assert_memory_equal(c.qos, want.qos, sizeof(c.qos));
	cJSON_Delete(disk);
	disk = cJSON_Parse("{\"enabled\":false,\"model\":null}");
	ssd_match_current_from_json(disk, &c);
	assert_false(c.enabled || c.has_model || c.has_qos);
	cJSON_Delete(disk);
}

static void test_disk_lookup_through_the_store(void **state)
{
	char err[256];
	struct ssd_result r1 = result("00000000000000000000000000000001", "FW1", 1000);
	struct ssd_result r2 = result("00000000000000000000000000000002", "FW2", 2000);
	struct ssd_iocost_current c = current(2000);
	struct ssd_match *m = malloc(sizeof(*m));
	struct ssd_store *st;
	struct test_db t;
	bool dup;

	test_db_create(&t, "/tmp/schedio-test-ssd-match-XXXXXX");
	st = ssd_store_sqlite_open(t.file, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(st->ops->put(st, &r1, "x", 1, &dup, err, sizeof(err)), 0);
	assert_int_equal(st->ops->put(st, &r2, "y", 1, &dup, err, sizeof(err)), 0);

	/* sysfs pads model strings; this firmware's result alone decides */
	assert_int_equal(ssd_match_disk(st, "Test SSD 1TB        ", "FW2 ", &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_IN_USE);
	assert_string_equal(m->solution, "naive");
	assert_int_equal(ssd_match_disk(st, "Test SSD 1TB", "FW1", &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_DIFFERS);
	/* an unknown firmware: the model-wide median, (1000 + 2000) / 2 */
	assert_int_equal(ssd_match_disk(st, "Test SSD 1TB", "FW9", &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_DIFFERS);
	assert_true(m->rec.solutions[0].model[SSD_RBPS] == 1500);
	c = current(1500);
	assert_int_equal(ssd_match_disk(st, "Test SSD 1TB", NULL, &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_IN_USE);
	assert_int_equal(ssd_match_disk(st, "Other SSD", "FW1", &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_NO_DATA);
	assert_int_equal(ssd_match_disk(st, "bad/name", "FW1", &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_NO_DATA);
	assert_int_equal(ssd_match_disk(st, NULL, NULL, &c, m), 0);
	assert_int_equal(m->state, SSD_MATCH_NO_DATA);

	/* the hosts API's disk objects, annotated in place */
	{
		cJSON *disks = cJSON_Parse(
		    "[{\"dev\":\"259:0\",\"model\":\"Test SSD 1TB  \",\"fwrev\":\"FW2\",\"iocost\":{\"enabled\":true,"
		    "\"model\":{\"ctrl\":\"user\",\"rbps\":2000,\"rseqiops\":100,\"rrandiops\":200,\"wbps\":500,"
		    "\"wseqiops\":50,\"wrandiops\":60},\"qos\":{\"enable\":1,\"rpct\":95,\"rlat\":1000,\"wpct\":90.5,"
		    "\"wlat\":2000,\"min\":60,\"max\":100}}},"
		    "{\"dev\":\"8:0\",\"model\":\"Test SSD 1TB\",\"fwrev\":\"FW1\",\"iocost_enabled\":false},"
		    "{\"dev\":\"8:16\",\"model\":\"QEMU HARDDISK\",\"recommendation\":\"stale\"},"
		    "{\"dev\":\"8:32\"}, 7]");

		struct ssd_match_cache cache = { 0 };

		/* without a cache, then twice through one (the second pass answered from it) */
		for (int pass = 0; pass < 3; pass++) {
			assert_int_equal(ssd_match_annotate_disks(st, disks, pass ? &cache : NULL), 0);
			assert_string_equal(
			    cJSON_GetObjectItem(cJSON_GetArrayItem(disks, 0), "recommendation")->valuestring, "in_use");
			assert_string_equal(
			    cJSON_GetObjectItem(cJSON_GetArrayItem(disks, 1), "recommendation")->valuestring,
			    "differs");
			assert_string_equal(
			    cJSON_GetObjectItem(cJSON_GetArrayItem(disks, 2), "recommendation")->valuestring,
			    "no_data");
			assert_string_equal(
			    cJSON_GetObjectItem(cJSON_GetArrayItem(disks, 3), "recommendation")->valuestring,
			    "no_data");
		}
		/* one entry per (trimmed model, firmware) looked up: the padded and plain names are one model */
		assert_int_equal(cache.n, 3);
		ssd_match_cache_free(&cache);
		assert_int_equal(cache.n, 0);
		cJSON_Delete(disks);
	}

	st->ops->close(st);
	test_db_remove(&t);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_states),
		cmocka_unit_test(test_quick_only_model_matches_on_the_model_line),
		cmocka_unit_test(test_current_from_agent_json),
		cmocka_unit_test(test_disk_lookup_through_the_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
