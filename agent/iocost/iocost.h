/* iocost.h - the IO cost vs weight collector (report section "iocost"). */
#ifndef SCHEDIO_AGENT_IOCOST_IOCOST_H
#define SCHEDIO_AGENT_IOCOST_IOCOST_H

#include "agent/report/collector.h"

extern const struct collector iocost_collector;

#endif /* SCHEDIO_AGENT_IOCOST_IOCOST_H */
