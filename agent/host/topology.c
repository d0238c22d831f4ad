/* topology.c - L3 domains from sysfs.
 *
 * Every CPU names the CPUs sharing its level-3 cache (common/cpu_list.c
 * reads it); the distinct lists are the L3 domains. The sysfs root is a parameter so tests can hand in a fake
 * tree. Hosts (and many VMs) without L3 information get an empty list.
 */
#include "agent/host/topology.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu_list.h"

static bool same_cpus(const struct topology_l3 *d, const unsigned *cpus, size_t n)
{
	return d->ncpus == n && !memcmp(d->cpus, cpus, n * sizeof(*cpus));
}

static int cmp_domain(const void *a, const void *b)
{
	const struct topology_l3 *x = a, *y = b;
	unsigned fx = x->ncpus ? x->cpus[0] : UINT_MAX, fy = y->ncpus ? y->cpus[0] : UINT_MAX;

	return fx < fy ? -1 : fx > fy;
}

/* Adds the L3 of CPU cpu if it has one and it is new. */
static int add_cpu(struct topology *t, const char *cpu_root, unsigned cpu)
{
	char buf[4096];
	uint64_t size_kb;
	unsigned *cpus;
	size_t n;
	int err;

	if (cpu_list_read_l3(cpu_root, cpu, buf, sizeof(buf), &size_kb))
		return 0;
	err = cpu_list_parse_array(buf, &cpus, &n);
	if (err)
		return err == -ENOMEM ? err : 0; /* an unreadable list is skipped, not fatal */
	for (size_t i = 0; i < t->nl3; i++) {
		if (same_cpus(&t->l3[i], cpus, n)) {
			free(cpus);
			return 0;
		}
	}
	struct topology_l3 *nl = realloc(t->l3, (t->nl3 + 1) * sizeof(*nl));

	if (!nl) {
		free(cpus);
		return -ENOMEM;
	}
	t->l3 = nl;
	t->l3[t->nl3].cpus = cpus;
	t->l3[t->nl3].ncpus = n;
	t->l3[t->nl3].size_kb = size_kb;
	t->nl3++;
	return 0;
}

const char *topology_cpu_root(void)
{
	const char *root = getenv("SCHEDIO_CPU_ROOT");

	return root && *root ? root : "/sys/devices/system/cpu";
}

int topology_read(const char *cpu_root, struct topology *t)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	memset(t, 0, sizeof(*t));
	d = opendir(cpu_root);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		err = add_cpu(t, cpu_root, (unsigned)strtoul(de->d_name + 3, NULL, 10));
	}
	closedir(d);
	if (err) {
		topology_free(t);
		return err;
	}
	if (t->nl3)
		qsort(t->l3, t->nl3, sizeof(t->l3[0]), cmp_domain);
	return 0;
}

int topology_to_json(const struct topology *t, cJSON *host)
{
	cJSON *arr = cJSON_AddArrayToObject(host, "l3_domains");

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < t->nl3; i++) {
		cJSON *o = cJSON_CreateObject(), *cpus;

		if (!o || !cJSON_AddItemToArray(arr, o))
			return -ENOMEM;
		cpus = cJSON_AddArrayToObject(o, "cpus");
		if (!cpus || !cJSON_AddNumberToObject(o, "size_kb", (double)t->l3[i].size_kb))
			return -ENOMEM;
		for (size_t k = 0; k < t->l3[i].ncpus; k++)
			if (!cJSON_AddItemToArray(cpus, cJSON_CreateNumber(t->l3[i].cpus[k])))
				return -ENOMEM;
	}
	return 0;
}

void topology_free(struct topology *t)
{
	for (size_t i = 0; i < t->nl3; i++)
		free(t->l3[i].cpus);
	free(t->l3);
	t->l3 = NULL;
	t->nl3 = 0;
}

static int topology_open(const struct agent_options *opt, void **state)
{
	*state = NULL;
	return 0;
}

static int topology_collect(void *state, cJSON *report)
{
	cJSON *host = cJSON_GetObjectItemCaseSensitive(report, "host");
	struct topology t;
	int err;

	if (!host)
		return -EINVAL;
	/* Re-read every interval: CPU hotplug changes the domains. */
	err = topology_read(topology_cpu_root(), &t);
	if (err)
		return err;
	err = topology_to_json(&t, host);
	topology_free(&t);
	return err;
}

static void topology_close(void *state)
{
}

const struct collector topology_collector = {
	.name = "topology",
	.open = topology_open,
	.collect = topology_collect,
	.close = topology_close,
};
