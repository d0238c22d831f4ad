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
/* Issue 17: sched_ext health, work conservation per L3 domain, the agent's own cost. */
#define REPORT_MAX_SCX_LIST 64       /* sched_ext.events names, .schedulers, .exits; agent.bpf.programs */
#define REPORT_MAX_L3_DOMAINS 4096   /* runqlat.l3_domains */
#define REPORT_MAX_EVENT_NAME 64     /* sched_ext.events names, agent.bpf.programs[].name */
#define REPORT_MAX_EXIT_REASON 256   /* sched_ext.exits[].reason */
#define REPORT_MAX_EXIT_MESSAGE 1024 /* sched_ext.exits[].message */

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
	/* The issue-17 fields as one canonical JSON object (see report_parse.c, parse_health),
	 * NULL when the report has none of them (an older agent). */
	char *health_json;
	char *exits_json; /* sched_ext.exits as a canonical JSON array, NULL when absent or empty */
	/* host.labels in canonical text (common/labels.h: "k=v,..." sorted by key), NULL when the
	 * report has none (absent or {}) */
	char *labels;
	bool has_runqlat, has_iocost;
	struct blob host_hist; /* runqlat_set blob: the RUNQLAT_HOST series, and RUNQLAT_SCHED series when split */
	struct blob series;    /* runqlat_set blob: cgroups and CPUs */
	struct blob iocost;    /* iocost_set blob */
};

/* Parses and checks a report body; returns 0, or the HTTP status (400, 422, 413, 500)
 * with the message in err. rep is cleared first and must be freed with report_free either way. */
int report_parse(const char *body, size_t len, struct report *rep, char *err, size_t errlen);
/* True (the default): histograms' "buckets" are scanned from their checked text, not
 * built as trees first; tests and the fuzzer set it false to compare the two paths. */
extern bool report_parse_raw_buckets;
/* The fleet group of a host: the sched_ext ops name when one is enabled, else
 * "eevdf" (kernel 6.6 and later) or "fair". */
const char *report_sched_group(const char *state, const char *ops, const char *kernel);
/* The sched_ext exit kinds a report may send (sched_ext.exits[].kind), NULL-terminated. */
#define REPORT_EXIT_KINDS 9
extern const char *const report_exit_kinds[REPORT_EXIT_KINDS + 1];
/* Index of kind in report_exit_kinds, or -1 when it is not one. */
int report_exit_kind_index(const char *kind);
/* Whether an exit of this kind is an ejection: the kernel (an error, the
 * watchdog, sysrq-S, a kernel-side unregistration) removed the scheduler,
 * rather than its own loader unloading it. */
bool report_exit_is_ejection(const char *kind);
/* Frees what report_parse allocated. */
void report_free(struct report *rep);

#endif /* SCHEDIO_SERVER_INGEST_REPORT_PARSE_H */
