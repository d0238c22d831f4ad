/* analysis.c - see analysis.h.
 *
 * A phase's series is its rate per step (0.5 s) from the first saturation
 * probe to the end. The sustained rate is the mean of the trailing window,
 * because a token bucket (cloud disks, qemu's throttling.*-max) or an SLC
 * cache serves a faster start that the disk cannot keep: the model must hold
 * what the disk does once that is used up. The start of the series is only
 * looked at to name such a burst, never to make the value.
 */
#include "cli/bench/analysis.h"

#include <math.h>
#include <stdlib.h>

void bench_analysis_defaults(struct bench_analysis_params *p, double step_s, double unit_per_io)
{
	p->step_s = step_s;
	p->window_s = 5.0;
	p->max_cv = 0.05;
	p->max_trend = 0.05;
	p->noisy_cv = 0.15;
	p->burst_ratio = 1.25;
	p->burst_min_s = 1.5;
	p->fall_min = 0.10;
	p->unit_per_io = unit_per_io > 0 ? unit_per_io : 1;
}

void bench_window_stats(const double *rate, size_t from, size_t to, struct bench_window *w)
{
	double sum = 0, sxx = 0, sxy = 0, ss = 0, xm, m;

	w->mean = w->cv = w->trend = 0;
	if (to <= from)
		return;
	m = (double)(to - from);
	for (size_t i = from; i < to; i++)
		sum += rate[i];
	w->mean = sum / m;
	xm = (m - 1) / 2;
	for (size_t i = from; i < to; i++) {
		double dx = (double)(i - from) - xm, dy = rate[i] - w->mean;

		ss += dy * dy;
		sxx += dx * dx;
		sxy += dx * dy;
	}
	if (w->mean <= 0)
		return;
	w->cv = sqrt(ss / m) / w->mean;
	if (sxx > 0)
		w->trend = sxy / sxx * m / w->mean;
}

double bench_steady_cv_limit(const struct bench_analysis_params *p, double mean)
{
	double ios = mean * p->step_s / p->unit_per_io; /* IOs completed in one step */
	double counting = ios > 0 ? 1.5 / ios : 1;

	/* 20 IOs of 1 MiB per step on a 40 MB/s disk vary by +-1 IO (5%) from where the
	 * step boundaries fall alone: that is not the disk being unsteady */
	return counting > p->max_cv ? counting : p->max_cv;
}

static size_t window_steps(const struct bench_analysis_params *p)
{
	size_t w = (size_t)(p->window_s / p->step_s + 0.5);

	return w < 2 ? 2 : w;
}

int bench_is_steady(const double *rate, size_t n, size_t measure_start, const struct bench_analysis_params *p,
		    struct bench_window *out)
{
	size_t w = window_steps(p);
	struct bench_window win;

	if (n < measure_start + w)
		return 0;
	bench_window_stats(rate, n - w, n, &win);
	if (out)
		*out = win;
	return win.mean > 0 && win.cv <= bench_steady_cv_limit(p, win.mean) && fabs(win.trend) <= p->max_trend;
}

/* A burst is a stretch before the trailing window running well above the
 * sustained rate, mostly unbroken, that ends in a step down: right after it
 * the rate is back near the sustained one (a slow slide is "falling", not a
 * burst). Its length is from its first to its last high step. Returns the
 * index after the burst, or 0 when there is none. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static size_t find_burst(const double *rate, size_t n, size_t tail_from, const struct bench_analysis_params *p,
			 struct bench_findings *f)
{
	double thr = f->value * p->burst_ratio, after = 0, *high;
	size_t first = n, last = 0, count = 0, na = 0, settle = (size_t)(2.0 / p->step_s);

	for (size_t i = 0; i < tail_from; i++) {
		if (rate[i] <= thr)
			continue;
		if (first == n)
			first = i;
		last = i;
		count++;
	}
	if (!count || (double)count * p->step_s < p->burst_min_s || count * 10 < (last - first + 1) * 6)
		return 0;
	for (size_t i = last + 1; i < n && na < settle; i++, na++)
		after += rate[i];
	if (!na || after / (double)na > f->value * (1 + (p->burst_ratio - 1) / 2))
		return 0;
	/* the burst's rate is the median of its high steps: the probes that led up to it at
	 * shallower depths, above the sustained rate but below the burst's, do not drag it down */
	high = malloc(count * sizeof(*high));
	if (!high)
		return 0;
	count = 0;
	for (size_t i = first; i <= last; i++)
		if (rate[i] > thr)
			high[count++] = rate[i];
	qsort(high, count, sizeof(*high), cmp_double);
	f->burst_value = count % 2 ? high[count / 2] : (high[count / 2 - 1] + high[count / 2]) / 2;
	free(high);
	f->burst = 1;
	f->burst_s = (double)(last - first + 1) * p->step_s;
	return last + 1;
}

void bench_analyse(const double *rate, size_t n, size_t measure_start, const struct bench_analysis_params *p,
		   struct bench_findings *f)
{
	size_t w = window_steps(p), tail_from, from, after_burst;
	struct bench_window all;
	double noisy;

	*f = (struct bench_findings){ 0 };
	if (measure_start >= n)
		measure_start = n ? n - 1 : 0;
	tail_from = n - measure_start >= w ? n - w : measure_start;
	bench_window_stats(rate, tail_from, n, &f->tail);
	f->value = f->tail.mean;
	if (f->value <= 0)
		return;
	noisy = bench_steady_cv_limit(p, f->value) * 1.5;
	if (noisy < p->noisy_cv)
		noisy = p->noisy_cv;
	f->noisy = f->tail.cv > noisy;
	after_burst = find_burst(rate, n, tail_from, p, f);
	if (f->noisy)
		after_burst = 0;

	/* falling: the measurement after any burst slides down and is still going down at its end */
	from = measure_start > after_burst ? measure_start : after_burst;
	if (n >= from + 2 * w) {
		double m = (double)(n - from), start, end;

		/* the fitted line's first and last points: how far it fell from where it began */
		bench_window_stats(rate, from, n, &all);
		start = all.mean * (1 - all.trend * (m - 1) / m / 2);
		end = all.mean * (1 + all.trend * (m - 1) / m / 2);
		if (start > 0 && (start - end) / start >= p->fall_min && f->tail.trend < 0) {
			f->falling = 1;
			f->fall = end > 0 ? (start - end) / start : 1;
		}
	}
	if (f->noisy && f->burst) {
		/* a stretch above a rate that jumps around is the noise, not a token bucket */
		f->burst = 0;
		f->burst_value = f->burst_s = 0;
	}
}
