/* agent_cost.h - what the agent itself costs the host, in the report's "agent"
 * object: its CPU time and resident memory over each interval, and the run
 * count and run time of each BPF program it has loaded, measured while the
 * kernel's run-time statistics are on for a bounded share of the time and
 * scaled to the whole interval.
 */
#ifndef SCHEDIO_AGENT_REPORT_AGENT_COST_H
#define SCHEDIO_AGENT_REPORT_AGENT_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/report/collector.h"

/* At most this many programs are reported, with names of at most this many bytes (the contract's caps). */
#define AGENT_COST_MAX_PROGRAMS 64
#define AGENT_COST_NAME_MAX 64

/* The collector that adds cpu_ns, rss_bytes and bpf to the report's "agent". */
extern const struct collector agent_cost_collector;

/* Finds the "prog_id:" line in one /proc/PID/fdinfo text of len bytes (not NUL-terminated);
 * 1 with *id set, 0 when the text names no BPF program (or the value is not a valid id). */
int agent_cost_fdinfo_prog_id(const char *text, size_t len, uint32_t *id);
/* count measured over sampled_ns, scaled to interval_ns (rounded); count itself when sampled_ns is 0
 * or not shorter than the interval. */
uint64_t agent_cost_scale(uint64_t count, uint64_t sampled_ns, uint64_t interval_ns);
/* How long statistics were on in an interval: all of it when kernel.bpf_stats_enabled was 1 at both
 * its ends (someone else holds them on), else our own sampling windows (at most the interval). */
uint64_t agent_cost_sampled_ns(uint64_t ours_ns, uint64_t interval_ns, bool others_at_start, bool others_at_end);
/* Copies a kernel program name into out[size] keeping [A-Za-z0-9_.] only (others become '_');
 * "prog_<id>" when nothing is left. */
void agent_cost_prog_name(const char *kernel_name, uint32_t id, char *out, size_t size);

#endif /* SCHEDIO_AGENT_REPORT_AGENT_COST_H */
