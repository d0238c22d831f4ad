/* saturation.h - the queue depth a phase is measured at: probes at 1, 2,
 * 4, ... IOs in flight until the rate stops growing, then a depth with
 * margin past the knee (a deeper queue costs a throughput figure nothing,
 * a too shallow one understates the disk).
 */
#ifndef SCHEDIO_CLI_BENCH_SATURATION_H
#define SCHEDIO_CLI_BENCH_SATURATION_H

#include <stddef.h>

/* Most probes a search makes (depths 1 .. 2^15). */
#define BENCH_PROBES_MAX 16

/* One probe: the rate seen with depth IOs in flight. */
struct bench_probe {
	unsigned depth;
	double rate;
};

/* The depth to probe after probes[0..n) (each twice the one before), or 0 when the search is
 * over: the last two probes each gained less than min_gain (a fraction) over the best before
 * them, or the next depth would pass cap. */
unsigned bench_saturation_next(const struct bench_probe *probes, size_t n, unsigned cap, double min_gain);
/* The depth to measure at once the search is over: twice the shallowest depth that came
 * within min_gain of the best rate (the knee), but no deeper than the deepest probe;
 * 1 when there were no probes. */
unsigned bench_saturation_choice(const struct bench_probe *probes, size_t n, double min_gain);

#endif /* SCHEDIO_CLI_BENCH_SATURATION_H */
