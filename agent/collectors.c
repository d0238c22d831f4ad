/* collectors.c - the table of collectors a report is built from. */
#include "agent/collector.h"
#include "agent/host_info.h"
#include "agent/iocost.h"

const struct collector *const collectors[] = {
	&host_info_collector,
	&iocost_collector,
	NULL,
};
