/* scx_topology.h - CPUs grouped into L3 cache domains, for scx_llc. */
#ifndef SCHEDIO_CLI_SCX_SCX_TOPOLOGY_H
#define SCHEDIO_CLI_SCX_SCX_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "scx_shared.h"

struct scx_topology {
	uint32_t nr_cpus; /* possible CPUs: 0..nr_cpus-1 */
	uint32_t nr_domains;
	uint32_t domain[SCHEDIO_SCX_MAX_CPUS]; /* cpu -> domain index < nr_domains */
};

/* Domains from a spec like "0-1/2-3" (CPU lists as common/cpu_list.h reads them, separated by '/'); every CPU
 * below nr_cpus must be in exactly one. Returns 0, or -1 with why. */
int scx_topology_parse(const char *spec, uint32_t nr_cpus, struct scx_topology *t, char *why, size_t why_len);

/* Domains from <sysfs_root>/devices/system/cpu/cpuN/cache (the cache of
 * level 3, its shared_cpu_list); CPUs without one share domain 0. */
int scx_topology_from_sysfs(const char *sysfs_root, uint32_t nr_cpus, struct scx_topology *t, char *why,
			    size_t why_len);

#endif /* SCHEDIO_CLI_SCX_SCX_TOPOLOGY_H */
