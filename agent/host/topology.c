/* topology.c - L3 domains from sysfs.
 *
 * Every CPU lists its caches under cpuN/cache/indexK with a level and the
 * CPUs sharing it; the distinct shared lists of the level-3 caches are the
 * L3 domains. The sysfs root is a parameter so tests can hand in a fake
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

#include "common/fsutil.h"

#define TOPOLOGY_MAX_CPU 65536

int topology_parse_cpulist(const char *s, unsigned **cpus, size_t *n)
{
	unsigned *v = NULL, *nv;
	size_t len = 0, cap = 0;
	char *end;

	*cpus = NULL;
	*n = 0;
	while (*s && !isspace((unsigned char)*s)) {
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*s))
			goto bad;
		lo = hi = strtoul(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				goto bad;
			hi = strtoul(s + 1, &end, 10);
			s = end;
		}
		if (hi < lo || hi >= TOPOLOGY_MAX_CPU || (len && lo <= v[len - 1]))
			goto bad;
		for (unsigned long c = lo; c <= hi; c++) {
			if (len == cap) {
				cap = cap ? cap * 2 : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[len++] = (unsigned)c;
		}
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			goto bad;
	}
	*cpus = v;
	*n = len;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

static uint64_t parse_size_kb(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*end == 'K')
		return v;
	if (*end == 'M')
		return v * 1024;
	return v / 1024; /* plain bytes */
}

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

/* Adds the L3 of one CPU directory (cpu_root/cpuN) if it has one and it is new. */
static int add_cpu(struct topology *t, const char *cpu_root, const char *cpu_dir)
{
	char path[PATH_MAX], buf[4096];
	unsigned *cpus;
	size_t n;
	int err;

	for (int idx = 0; idx < 16; idx++) {
		snprintf(path, sizeof(path), "%s/%s/cache/index%d/level", cpu_root, cpu_dir, idx);
		if (fs_read_trimmed(path, buf, sizeof(buf)) < 0)
			break;
		if (strcmp(buf, "3"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/cache/index%d/shared_cpu_list", cpu_root, cpu_dir, idx);
		if (fs_read_trimmed(path, buf, sizeof(buf)) < 0)
			continue;
		err = topology_parse_cpulist(buf, &cpus, &n);
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
		snprintf(path, sizeof(path), "%s/%s/cache/index%d/size", cpu_root, cpu_dir, idx);
		t->l3[t->nl3].size_kb = fs_read_trimmed(path, buf, sizeof(buf)) > 0 ? parse_size_kb(buf) : 0;
		t->nl3++;
		return 0;
	}
	return 0;
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
		err = add_cpu(t, cpu_root, de->d_name);
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
	err = topology_read("/sys/devices/system/cpu", &t);
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
