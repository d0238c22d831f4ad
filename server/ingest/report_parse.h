/* report_parse.h - one agent report (schedio.report.v1) checked and turned into
 * what the store keeps: identity, interval, inventory, and the runqlat and
 * iocost sections encoded as compact blobs. Everything from outside is
 * validated here, before anything is stored, so a report is either taken
 * whole or refused with a status and a message naming the field. */
#ifndef SCHEDIO_SERVER_INGEST_REPORT_PARSE_H
#define SCHEDIO_SERVER_INGEST_REPORT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "server/series/blob.h"

#define REPORT_SCHEMA_V1 "schedio.report.v1"
#define REPORT_MAX_ID 128
#define REPORT_MAX_HOSTNAME 255
#define REPORT_MAX_NAME 256    /* kernel, arch, versions, scheduler ops, disk strings */
#define REPORT_MAX_PATH 4096   /* cgroup paths */
#define REPORT_MAX_SERIES 4096 /* runqlat cgroups + cpus */
#define REPORT_MAX_IOCOST_ROWS 8192
#define REPORT_MAX_DISKS 256
#define REPORT_MAX_SCHEDULERS 64 /* runqlat.by_scheduler entries */

/* Hex digits of agent.incarnation (the agent's 128-bit id of its seq's life). */
#define REPORT_INCARNATION_LEN 32

struct report {
	cJSON *doc;    /* the parsed body, only while report_parse runs */
	char *strings; /* owns the strings below */
	const char *machine_id, *hostname;
	const char *kernel, *arch, *agent_version, *sched_state, *sched_ops; /* NULL when absent */
	const char *sched_group; /* fleet grouping: the sched_ext ops name, or "eevdf"/"fair" */
	int64_t cpus;            /* 0 when absent */
	uint64_t seq;
	/* agent.incarnation, "" when absent (an older agent): with the host and seq, what names a report */
	char incarnation[REPORT_INCARNATION_LEN + 1];
	bool agent_restarted; /* set by the store: a new incarnation whose seq went back */
	int64_t start_ms, end_ms;
	int64_t dropped;  /* delivery.dropped: reports the agent dropped from its full spool; 0 when absent */
	char *l3_json;    /* canonical JSON text, NULL when absent */
	char *disks_json; /* API-shaped disk inventory, NULL when absent */
	bool has_runqlat, has_iocost;
	struct blob host_hist; /* runqlat_set blob: the RUNQLAT_HOST series, and RUNQLAT_SCHED series when split */
	struct blob series;    /* runqlat_set blob: cgroups and CPUs */
	struct blob iocost;    /* iocost_set blob */
};

/* Parses and checks a report body; returns 0, or the HTTP status (400, 422, 413, 500)
 * with the message in err. rep is cleared first and must be freed with report_free either way. */
int report_parse(const char *body, size_t len, struct report *rep, char *err, size_t errlen);
/* The fleet group of a host: the sched_ext ops name when one is enabled, else
 * "eevdf" (kernel 6.6 and later) or "fair". */
const char *report_sched_group(const char *state, const char *ops, const char *kernel);
/* Frees what report_parse allocated. */
void report_free(struct report *rep);

#endif /* SCHEDIO_SERVER_INGEST_REPORT_PARSE_H */
