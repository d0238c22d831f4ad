/* topology.h - the host's L3 cache domains (report host.l3_domains): which
 * CPUs share a last-level cache, so runqueue latency per CPU can be read
 * against the cache topology a scheduler has to respect.
 */
#ifndef SCHEDIO_AGENT_HOST_TOPOLOGY_H
#define SCHEDIO_AGENT_HOST_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "agent/report/collector.h"

struct topology_l3 {
	unsigned *cpus; /* ascending */
	size_t ncpus;
	uint64_t size_kb; /* 0 if the kernel does not say */
};

struct topology {
	struct topology_l3 *l3; /* ordered by first CPU */
	size_t nl3;
};

/* Where the agent reads CPU topology: /sys/devices/system/cpu, or the folder in the
 * environment's SCHEDIO_CPU_ROOT (tests give a topology on machines whose sysfs has no caches). */
const char *topology_cpu_root(void);
/* Reads the L3 domains under cpu_root (normally topology_cpu_root()); 0 or -errno. */
int topology_read(const char *cpu_root, struct topology *t);
/* Adds "l3_domains": [{cpus: [...], size_kb}] to host; 0 or -ENOMEM. */
int topology_to_json(const struct topology *t, cJSON *host);
/* Releases what topology_read allocated. */
void topology_free(struct topology *t);

/* Collector adding host.l3_domains. */
extern const struct collector topology_collector;

#endif /* SCHEDIO_AGENT_HOST_TOPOLOGY_H */
