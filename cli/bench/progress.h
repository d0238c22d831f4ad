/* progress.h - the live line `schedio bench` keeps on a terminal's stderr
 * (phase, rate so far, time left) and the line each phase leaves behind;
 * nothing at all when stderr is not a terminal.
 */
#ifndef SCHEDIO_CLI_BENCH_PROGRESS_H
#define SCHEDIO_CLI_BENCH_PROGRESS_H

#include <stdint.h>

#include "cli/bench/phase.h"

struct bench_progress {
	int tty;        /* stderr is a terminal: draw, else stay quiet */
	unsigned index; /* 1-based number of the phase running */
	unsigned count; /* phases in the run */
};

/* Looks at stderr. */
void bench_progress_init(struct bench_progress *pg, unsigned count);
/* A phase_params progress callback (ctx is the bench_progress): redraws the line. */
void bench_progress_step(void *ctx, const struct bench_phase_result *r, const struct bench_phase_params *p);
/* Redraws the line for the test file fill. */
void bench_progress_fill(struct bench_progress *pg, uint64_t done, uint64_t total);
/* Replaces the line with the phase's outcome. */
void bench_progress_phase_done(struct bench_progress *pg, const struct bench_phase_result *r);
/* Formats rate in the phase's unit (MB/s or IO/s) into buf; returns buf. */
const char *bench_progress_rate(const struct bench_phase_spec *s, double rate, char *buf, unsigned cap);

#endif /* SCHEDIO_CLI_BENCH_PROGRESS_H */
