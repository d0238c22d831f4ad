/* saturation.h - the queue depth a phase is measured at: probes at 1, 2,
 * 4, ... IOs in flight until the rate stops growing, then the first depth
 * that did not add to it (a deeper queue costs a throughput figure nothing,
 * a too shallow one understates the disk).
 */
#ifndef SCHEDIO_CLI_BENCH_SATURATION_H
#define SCHEDIO_CLI_BENCH_SATURATION_H

#include <stddef.h>

/* Most probes a search makes (1 .. 2^15). */
#define BENCH_PROBES_MAX 16

/* One probe: the rate seen with depth IOs in flight. */
struct bench_probe {
	unsigned depth;
	double rate;
};

/* The depth to probe after probes[0..n), or 0 when the search is over: the last probe gained
 * less than min_gain (a fraction) over the best before it, or the next depth would pass cap. */
unsigned bench_saturation_next(const struct bench_probe *probes, size_t n, unsigned cap, double min_gain);
/* The depth to measure at once the search is over: the depth of the probe that stopped it (the
 * last), or 1 when there were no probes. */
unsigned bench_saturation_choice(const struct bench_probe *probes, size_t n);

#endif /* SCHEDIO_CLI_BENCH_SATURATION_H */
