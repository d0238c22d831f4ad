/* phase.h - one phase of `schedio bench`: the saturation search, then the
 * measurement at the chosen depth until the rate is steady or the cap, and
 * the judgement of the whole timeline (analysis.h).
 */
#ifndef SCHEDIO_CLI_BENCH_PHASE_H
#define SCHEDIO_CLI_BENCH_PHASE_H

#include <signal.h>
#include <stddef.h>

#include "cli/bench/analysis.h"
#include "cli/bench/engine.h"
#include "cli/bench/saturation.h"

/* Most series points a phase keeps (the result format's limit). */
#define BENCH_SERIES_MAX 600
/* Block size of the bandwidth phases (see phase.c for why not the kernel tool's 128 MiB). */
#define BENCH_BPS_BLOCK (1u << 20)
/* Most bytes a bandwidth phase keeps in flight: the kernel tool's one 128 MiB IO. */
#define BENCH_BPS_INFLIGHT (128u << 20)

/* What a phase measures: one io.cost.model parameter. */
struct bench_phase_spec {
	const char *param; /* rbps, rseqiops, ... */
	int write, rand;
	unsigned bs;
	int bps; /* the rate is bytes/s (else IO/s) */
};

/* The six phases in the order the kernel's tool runs them (reads, then writes). */
extern const struct bench_phase_spec bench_phase_specs[6];

struct bench_phase_result;

/* How a phase runs. */
struct bench_phase_params {
	double step_s;        /* series resolution */
	unsigned probe_steps; /* steps per saturation probe; its rate is the last step's */
	double min_s;         /* measurement at the chosen depth lasts at least this */
	double max_s;         /* the whole phase (probes included) at most this */
	unsigned depth_cap;
	unsigned fixed_depth; /* nonzero: one probe at this depth stands for the search */
	double min_gain;      /* a deeper probe must add this fraction to go on */
	volatile sig_atomic_t *stop;
	/* called after every step, may be NULL */
	void (*progress)(void *ctx, const struct bench_phase_result *r, const struct bench_phase_params *p);
	void *ctx;
};

/* A phase's outcome. */
struct bench_phase_result {
	const struct bench_phase_spec *spec;
	struct bench_probe probes[BENCH_PROBES_MAX];
	size_t nprobes;
	unsigned depth; /* while probing: the depth now; after: the chosen one */
	double rate[BENCH_SERIES_MAX];
	size_t n, measure_start; /* points; the first at the chosen depth */
	double duration_s;
	int steady;
	struct bench_findings findings;
};

/* Fills p with the defaults for min_s and max_s seconds (max_s at most 300). */
void bench_phase_defaults(struct bench_phase_params *p, double min_s, double max_s, unsigned depth_cap);
/* The analysis thresholds for spec's series. */
void bench_phase_analysis(const struct bench_phase_spec *spec, const struct bench_phase_params *p,
			  struct bench_analysis_params *a);
/* Runs spec on e; fills r. 0, -EINTR when *stop was set (r holds what ran), or an IO's -errno. */
int bench_phase_run(struct bench_engine *e, const struct bench_phase_spec *spec, const struct bench_phase_params *p,
		    struct bench_phase_result *r);

#endif /* SCHEDIO_CLI_BENCH_PHASE_H */
