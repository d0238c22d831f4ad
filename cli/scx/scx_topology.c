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

#include "common/cpu_list.h"

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
		if (cpu_list_parse(part, nr_cpus, cpus, why, why_len))
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

int scx_topology_from_sysfs(const char *sysfs_root, uint32_t nr_cpus, struct scx_topology *t, char *why, size_t why_len)
{
	int32_t first_to_domain[SCHEDIO_SCX_MAX_CPUS];
	uint8_t cpus[SCHEDIO_SCX_MAX_CPUS];
	char list[1024], cpu_root[512];
	uint64_t size_kb;

	memset(t, 0, sizeof(*t));
	if (nr_cpus == 0 || nr_cpus > SCHEDIO_SCX_MAX_CPUS) {
		snprintf(why, why_len, "%u CPUs: scx_llc handles 1 to %d", nr_cpus, SCHEDIO_SCX_MAX_CPUS);
		return -1;
	}
	t->nr_cpus = nr_cpus;
	snprintf(cpu_root, sizeof(cpu_root), "%s/devices/system/cpu", sysfs_root);
	for (uint32_t c = 0; c < nr_cpus; c++)
		first_to_domain[c] = -1;
	for (uint32_t c = 0; c < nr_cpus; c++) {
		uint32_t first = c;

		cpu_list_read_l3(cpu_root, c, list, sizeof(list), &size_kb); /* "" without an L3 */
		memset(cpus, 0, sizeof(cpus));
		if (list[0] && cpu_list_parse(list, nr_cpus, cpus, why, why_len) == 0) {
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
