/* report_build.h - assembling one schedio.report.v1 document from the collectors. */
#ifndef SCHEDIO_AGENT_REPORT_REPORT_BUILD_H
#define SCHEDIO_AGENT_REPORT_REPORT_BUILD_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "agent/report/collector.h"

#define REPORT_SCHEMA "schedio.report.v1"

/* Opens every collector; returns 0 or the first error (all opened ones closed again). */
int report_open_collectors(const struct agent_options *opt, void **states);
/* Closes every collector opened by report_open_collectors. */
void report_close_collectors(void **states);
/* Starts the first interval now: drops what the collectors counted since they were opened. */
void report_begin_collectors(void **states);
/* Builds the report for [start_ms, end_ms) with the given incarnation and seq; NULL on failure. */
cJSON *report_build(void **states, const char *incarnation, uint64_t seq, uint64_t start_ms, uint64_t end_ms);
/* Wall-clock time in unix milliseconds. */
uint64_t report_now_ms(void);

#endif /* SCHEDIO_AGENT_REPORT_REPORT_BUILD_H */
