/* ssd_jobs.h - reading a resctl-bench result's job array without building
 * a tree of the parts the importer never reads.
 */
#ifndef SCHEDIO_SERVER_SSD_SSD_JOBS_H
#define SCHEDIO_SERVER_SSD_SSD_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

/* Parses text (all of it must be valid JSON) into a cJSON value. When it is an array,
 * each job object keeps only spec, sysinfo and, for iocost-params and iocost-tune
 * jobs, record and result; everything else is validated and skipped. Returns NULL
 * when text is not valid JSON, or with *oom set when memory ran out. */
cJSON *ssd_jobs_parse(const char *text, size_t len, bool *oom);

#endif /* SCHEDIO_SERVER_SSD_SSD_JOBS_H */
