/* test_topology.c - agent/host/topology.c: L3 domains read
 * from a fake sysfs tree (two L3s of four CPUs, L1/L2 per core, files that
 * are not CPUs), encoded as host.l3_domains.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/host/topology.h"

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_topology_reads_l3_domains_from_fake_sysfs(void **state)
{
	char root[] = "/tmp/schedio-sysfs-XXXXXX", rel[128], cmd[600];
	struct topology t;
	cJSON *host = cJSON_CreateObject(), *doms, *d;

	assert_non_null(mkdtemp(root));
	for (int cpu = 7; cpu >= 0; cpu--) {
		snprintf(rel, sizeof(rel), "cpu%d/cache/index0/level", cpu);
		put(root, rel, "1\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index0/shared_cpu_list", cpu);
		put(root, rel, cpu % 2 ? "1\n" : "0\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index1/level", cpu);
		put(root, rel, "2\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index1/shared_cpu_list", cpu);
		put(root, rel, "0-1\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index2/level", cpu);
		put(root, rel, "3\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index2/shared_cpu_list", cpu);
		put(root, rel, cpu < 4 ? "0-3\n" : "4-7\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index2/size", cpu);
		put(root, rel, "16384K\n");
	}
	put(root, "online", "0-7\n");
	put(root, "cpufreq/boost", "1\n");
	put(root, "cpuidle/current_driver", "none\n");

	assert_int_equal(topology_read(root, &t), 0);
	assert_int_equal(t.nl3, 2);
	assert_int_equal(t.l3[0].ncpus, 4);
	assert_int_equal(t.l3[0].cpus[0], 0);
	assert_int_equal(t.l3[0].cpus[3], 3);
	assert_int_equal(t.l3[1].cpus[0], 4);
	assert_int_equal(t.l3[1].size_kb, 16384);
	assert_int_equal(topology_to_json(&t, host), 0);
	doms = cJSON_GetObjectItem(host, "l3_domains");
	assert_int_equal(cJSON_GetArraySize(doms), 2);
	d = cJSON_GetArrayItem(doms, 1);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "cpus")), 4);
	assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "cpus"), 0)->valueint, 4);
	assert_int_equal(cJSON_GetObjectItem(d, "size_kb")->valueint, 16384);
	topology_free(&t);
	cJSON_Delete(host);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_topology_without_cache_info_is_empty(void **state)
{
	char root[] = "/tmp/schedio-sysfs-XXXXXX", cmd[600];
	struct topology t;
	cJSON *host = cJSON_CreateObject();

	assert_non_null(mkdtemp(root));
	put(root, "cpu0/online", "1\n");
	assert_int_equal(topology_read(root, &t), 0);
	assert_int_equal(t.nl3, 0);
	assert_int_equal(topology_to_json(&t, host), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(host, "l3_domains")), 0);
	topology_free(&t);
	cJSON_Delete(host);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_reads_l3_domains_from_fake_sysfs),
		cmocka_unit_test(test_topology_without_cache_info_is_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
