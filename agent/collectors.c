/* collectors.c - the table of collectors a report is built from. */
#include "agent/collector.h"
#include "agent/host_info.h"
#include "agent/iocost.h"
#include "agent/runqlat.h"
#include "agent/sched_ext.h"
#include "agent/topology.h"

const struct collector *const collectors[] = {
	&host_info_collector,
	&topology_collector,
	&sched_ext_collector,
	&runqlat_collector,
	&iocost_collector,
	NULL,
};
