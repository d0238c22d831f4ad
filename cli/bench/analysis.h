/* analysis.h - what a phase's rate-over-time says: is it steady yet, what is
 * the sustained rate, and what would make that rate a bad model (a burst
 * then throttle, a rate that keeps falling, too much noise). Pure functions
 * on arrays, so synthetic series test them.
 */
#ifndef SCHEDIO_CLI_BENCH_ANALYSIS_H
#define SCHEDIO_CLI_BENCH_ANALYSIS_H

#include <stddef.h>

/* The thresholds; bench_analysis_defaults fills them. */
struct bench_analysis_params {
	double step_s;      /* seconds per series point */
	double window_s;    /* the trailing window judged for steadiness */
	double max_cv;      /* steady: relative spread of the window's points at most this... */
	double max_trend;   /* ...and the window's fitted line moves at most this fraction of its mean */
	double noisy_cv;    /* a spread above this is reported as noisy */
	double burst_ratio; /* a burst runs at least this many times the sustained rate */
	double burst_min_s; /* and lasts at least this long */
	double fall_min;    /* a fall of at least this fraction over the measurement is reported */
	double unit_per_io; /* rate units one IO brings (its bytes for bps, 1 for IOPS): sets the counting noise */
};

/* Mean, relative spread and trend of a stretch of the series. */
struct bench_window {
	double mean;
	double cv;    /* standard deviation / mean */
	double trend; /* fitted slope * stretch length / mean: the relative change across it */
};

/* What a finished phase's series says. */
struct bench_findings {
	double value; /* the sustained rate: the mean of the trailing window */
	struct bench_window tail;
	int burst;          /* a stretch well above the sustained rate before it */
	double burst_value; /* its mean rate */
	double burst_s;     /* its length in seconds */
	int falling;        /* the rate kept falling through the measurement */
	double fall;        /* the fraction it fell by */
	int noisy;          /* the trailing window's spread is above noisy_cv */
};

/* The defaults for a series of step_s steps of IOs worth unit_per_io each. */
void bench_analysis_defaults(struct bench_analysis_params *p, double step_s, double unit_per_io);
/* Mean, spread and fitted trend of rate[from..to); zeros when empty. */
void bench_window_stats(const double *rate, size_t from, size_t to, struct bench_window *w);
/* The spread a window of this mean rate may show and still be steady: max_cv, raised to the
 * counting noise of the few IOs a step holds when the rate is low. */
double bench_steady_cv_limit(const struct bench_analysis_params *p, double mean);
/* True when the last window_s of rate[measure_start..n) is steady (flat and quiet); fills *w if not NULL. */
int bench_is_steady(const double *rate, size_t n, size_t measure_start, const struct bench_analysis_params *p,
		    struct bench_window *w);
/* Judges the whole phase: rate[0..n) is the timeline (saturation probes first), the chosen
 * depth's measurement starts at measure_start. */
void bench_analyse(const double *rate, size_t n, size_t measure_start, const struct bench_analysis_params *p,
		   struct bench_findings *f);

#endif /* SCHEDIO_CLI_BENCH_ANALYSIS_H */
