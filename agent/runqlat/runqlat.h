/* runqlat.h - the agent's runqueue latency collector: loads and attaches
 * bpf/runqlat.bpf.c, and turns its histograms into the report's "runqlat".
 */
#ifndef SCHEDIO_AGENT_RUNQLAT_RUNQLAT_H
#define SCHEDIO_AGENT_RUNQLAT_RUNQLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "agent/report/collector.h"

struct sched_ext_watch;

struct runqlat_config {
	unsigned cgroup_depth;         /* cgroups deeper than this count in their ancestor */
	unsigned max_cgroups;          /* histogram slots; 0 = RUNQLAT_MAX_CGROUPS */
	bool force_raw_tp;             /* use the raw_tp fallback even where tp_btf works */
	bool pid_hash;                 /* per-task state in a pid hash instead of task storage */
	const char *btf_path;          /* NULL = /sys/kernel/btf/vmlinux */
	const char *mounts;            /* NULL = /proc/self/mounts (where to find cgroup2) */
	const char *sched_ext_root;    /* NULL = /sys/kernel/sched_ext */
	struct sched_ext_watch *watch; /* its watcher, to follow (borrowed); NULL = start one */
	const char *kallsyms;          /* NULL = /proc/kallsyms (where ext_sched_class is) */
	bool no_l3;                    /* no idle tracking per L3 domain (benchmark knob) */
};

struct runqlat_probe;

/* Says which of CAP_BPF, CAP_PERFMON this process lacks into msg; 0 if it has them (or CAP_SYS_ADMIN). */
int runqlat_check_privileges(char *msg, size_t cap);
/* Says into msg why BTF at path (NULL = the kernel's) is unusable; 0 if it is there. */
int runqlat_check_btf(const char *path, char *msg, size_t cap);
/* Loads and attaches the programs; 0 or -errno with the reason in msg. */
int runqlat_open(const struct runqlat_config *cfg, struct runqlat_probe **out, char *msg, size_t cap);
/* Adds "runqlat" for the interval that just ended to report and starts the next; 0 or -errno. */
int runqlat_collect(struct runqlat_probe *rq, cJSON *report);
/* Detaches and frees everything; rq may be NULL. */
void runqlat_close(struct runqlat_probe *rq);
/* True when samples are split by the scheduler that ran them (report runqlat.by_scheduler). */
bool runqlat_splits_by_scheduler(const struct runqlat_probe *rq);
/* "tp_btf" or "raw_tp": which programs are attached. */
const char *runqlat_attach_mode(const struct runqlat_probe *rq);
/* Fds of the attached programs (for bpf_stats cost measurements); returns how many. */
int runqlat_prog_fds(const struct runqlat_probe *rq, int *fds, int cap);
/* Bytes the kernel charges for this instance's maps (fdinfo memlock), task storage excluded. */
size_t runqlat_map_memlock(const struct runqlat_probe *rq);
/* Bytes of BPF map memory for ncpu CPUs and max_cgroups slots on a kernel with
 * sched_ext (the most the CPU histograms take; task storage excluded: per task). */
size_t runqlat_map_bytes(unsigned ncpu, unsigned max_cgroups);

/* Collector filling report.runqlat. */
extern const struct collector runqlat_collector;

#endif /* SCHEDIO_AGENT_RUNQLAT_RUNQLAT_H */
