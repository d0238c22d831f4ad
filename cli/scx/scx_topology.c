/* scx_topology.c - which CPUs share an L3 cache, as scx_llc's domains.
 *
 * Domains are numbered in the order of their lowest CPU, so the numbering is
 * stable across runs on one machine. A spec given by hand ("0-1/2-3") lets an
 * experiment split a machine whose CPUs all share one L3 (a small VM) and
 * still exercise stealing.
 */
#include "cli/scx/scx_topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"

static int parse_cpu(const char **p, uint32_t nr_cpus, uint32_t *out, char *why, size_t why_len)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9') {
		snprintf(why, why_len, "expected a CPU number at '%.20s'", *p);
		return -1;
	}
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= nr_cpus) {
		snprintf(why, why_len, "CPU %.20s is out of range (this machine has %u)", *p, nr_cpus);
		return -1;
	}
	*out = (uint32_t)v;
	*p = end;
	return 0;
}

int scx_cpulist_parse(const char *list, uint32_t nr_cpus, uint8_t *cpus, char *why, size_t why_len)
{
	const char *p = list;
	uint32_t lo, hi;

	while (*p) {
		if (parse_cpu(&p, nr_cpus, &lo, why, why_len))
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, nr_cpus, &hi, why, why_len))
				return -1;
			if (hi < lo) {
				snprintf(why, why_len, "CPU range %u-%u runs backwards", lo, hi);
				return -1;
			}
		}
		for (uint32_t c = lo; c <= hi; c++)
			cpus[c] = 1;
		if (*p == ',')
			p++;
		else if (*p) {
			snprintf(why, why_len, "unexpected '%c' in CPU list", *p);
			return -1;
		}
	}
	return 0;
}

int scx_topology_parse(const char *spec, uint32_t nr_cpus, struct scx_topology *t, char *why, size_t why_len)
{
	uint8_t seen[SCHEDIO_SCX_MAX_CPUS] = { 0 }, cpus[SCHEDIO_SCX_MAX_CPUS];
	char *copy = NULL, *save = NULL, *part;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (nr_cpus == 0 || nr_cpus > SCHEDIO_SCX_MAX_CPUS) {
		snprintf(why, why_len, "%u CPUs: scx_llc handles 1 to %d", nr_cpus, SCHEDIO_SCX_MAX_CPUS);
		return -1;
	}
	t->nr_cpus = nr_cpus;
	copy = strdup(spec);
	if (!copy) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	for (part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (t->nr_domains == SCHEDIO_SCX_MAX_DOMAINS) {
			snprintf(why, why_len, "more than %d domains", SCHEDIO_SCX_MAX_DOMAINS);
			goto out;
		}
		memset(cpus, 0, sizeof(cpus));
		if (scx_cpulist_parse(part, nr_cpus, cpus, why, why_len))
			goto out;
		for (uint32_t c = 0; c < nr_cpus; c++) {
			if (!cpus[c])
				continue;
			if (seen[c]) {
				snprintf(why, why_len, "CPU %u is in two domains", c);
				goto out;
			}
			seen[c] = 1;
			t->domain[c] = t->nr_domains;
		}
		t->nr_domains++;
	}
	for (uint32_t c = 0; c < nr_cpus; c++) {
		if (!seen[c]) {
			snprintf(why, why_len, "CPU %u is in no domain", c);
			goto out;
		}
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

/* The shared_cpu_list of cpu's level-3 cache, or "" when it has none. */
static void l3_shared_list(const char *sysfs_root, uint32_t cpu, char *buf, size_t len)
{
	char path[512], level[16];

	buf[0] = '\0';
	for (int idx = 0; idx < 16; idx++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/cache/index%d/level", sysfs_root, cpu, idx);
		if (fs_read_trimmed(path, level, sizeof(level)) < 0 || strcmp(level, "3") != 0)
			continue; /* indexes need not be contiguous */
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/cache/index%d/shared_cpu_list", sysfs_root,
			 cpu, idx);
		if (fs_read_trimmed(path, buf, len) < 0)
			buf[0] = '\0';
		return;
	}
}

int scx_topology_from_sysfs(const char *sysfs_root, uint32_t nr_cpus, struct scx_topology *t, char *why, size_t why_len)
{
	int32_t first_to_domain[SCHEDIO_SCX_MAX_CPUS];
	uint8_t cpus[SCHEDIO_SCX_MAX_CPUS];
	char list[1024];

	memset(t, 0, sizeof(*t));
	if (nr_cpus == 0 || nr_cpus > SCHEDIO_SCX_MAX_CPUS) {
		snprintf(why, why_len, "%u CPUs: scx_llc handles 1 to %d", nr_cpus, SCHEDIO_SCX_MAX_CPUS);
		return -1;
	}
	t->nr_cpus = nr_cpus;
	for (uint32_t c = 0; c < nr_cpus; c++)
		first_to_domain[c] = -1;
	for (uint32_t c = 0; c < nr_cpus; c++) {
		uint32_t first = c;

		l3_shared_list(sysfs_root, c, list, sizeof(list));
		memset(cpus, 0, sizeof(cpus));
		if (list[0] && scx_cpulist_parse(list, nr_cpus, cpus, why, why_len) == 0) {
			for (first = 0; first < nr_cpus && !cpus[first]; first++)
				;
			if (first == nr_cpus)
				first = c;
		} else {
			first = 0; /* no L3 known: one domain for all such CPUs */
		}
		if (first_to_domain[first] < 0) {
			if (t->nr_domains == SCHEDIO_SCX_MAX_DOMAINS) {
				snprintf(why, why_len, "more than %d L3 domains", SCHEDIO_SCX_MAX_DOMAINS);
				return -1;
			}
			first_to_domain[first] = (int32_t)t->nr_domains++;
		}
		t->domain[c] = (uint32_t)first_to_domain[first];
	}
	return 0;
}
