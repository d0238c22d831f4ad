/* host_info.h - the host's identity and basic inventory (report "host"). */
#ifndef SCHEDIO_AGENT_HOST_HOST_INFO_H
#define SCHEDIO_AGENT_HOST_HOST_INFO_H

#include "agent/report/collector.h"

struct host_info {
	char id[64]; /* /etc/machine-id */
	char hostname[256];
	char kernel[65]; /* uname release */
	char arch[65];
	unsigned cpus; /* online CPUs */
};

/* Reads the host's identity; returns 0 or -errno when no machine id can be found. */
int host_info_read(struct host_info *hi);
/* Adds the fields of hi to the JSON object host. */
void host_info_to_json(const struct host_info *hi, cJSON *host);

/* Collector filling report.host with the identity and CPU count. */
extern const struct collector host_info_collector;

#endif /* SCHEDIO_AGENT_HOST_HOST_INFO_H */
