/* collectors.c - the table of collectors a report is built from, and the
 * check of the `disable` list that leaves some of them out. */
#include "agent/report/collector.h"

#include <stdio.h>
#include <string.h>

#include "agent/host/host_info.h"
#include "agent/report/agent_cost.h"
#include "agent/iocost/iocost.h"
#include "agent/runqlat/runqlat.h"
#include "agent/host/sched_ext.h"
#include "agent/host/topology.h"

/* agent_cost comes first: its counters are read closest to the interval's end, before the others'
 * collection time (which it counts in the next interval's cpu_ns). */
const struct collector *const collectors[] = {
	&agent_cost_collector,
	&host_info_collector,
	&topology_collector,
	&sched_ext_collector,
	&runqlat_collector,
	&iocost_collector,
	NULL,
};

bool collector_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

int collector_check_list(const char *list, char *err, size_t errlen)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		bool known = false;

		for (int i = 0; collectors[i]; i++)
			known |= strlen(collectors[i]->name) == len && strncmp(collectors[i]->name, p, len) == 0;
		if (!known || (len == 4 && strncmp(p, "host", 4) == 0)) {
			snprintf(err, errlen,
				 "'%.*s' is not a collector that can be left out (runqlat, iocost, "
				 "sched_ext, topology, agent_cost)",
				 (int)len, p);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}
