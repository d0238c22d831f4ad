/* compare_stats.h - the statistics of a scheduler comparison (issue 15):
 * one value per host from its merged histogram, an arm's value as the median
 * over its hosts, the ratio A/B with a 95% bootstrap interval over hosts, and
 * a verdict against a threshold band around 1. Pure computation: no I/O, no
 * store, so the API, the CLI's tests and the calibration tests share it.
 *
 * Method (also in README.md, "Comparing schedulers"):
 * - The unit of replication is the host: one host's intervals are not
 *   independent samples, so each host contributes one value (its metric over
 *   all its samples in the arm's window, merged into one histogram).
 * - Unpaired arms: value = median over the arm's hosts, ratio = median(A) /
 *   median(B); the interval resamples the hosts of each arm independently,
 *   with replacement, and takes the 2.5% and 97.5% points of the resampled
 *   ratios of medians.
 * - Paired arms (opts->paired: the same hosts in two windows, matched by
 *   host_id, hosts in only one arm dropped): ratio = median over the pairs of
 *   each pair's ratio A/B, the interval resamples pairs. The per-pair ratio
 *   cancels each host's own level (the host-to-host spread that dominates a
 *   fleet), which is what pairing is for; a ratio of medians would carry that
 *   spread back into both medians. a_value_ns and b_value_ns stay the arms'
 *   medians over the paired hosts, so in paired mode ratio need not equal
 *   a_value_ns / b_value_ns.
 * - Verdict (A's point of view, lower latency is better): better when the
 *   whole interval is below 1 - threshold, worse when above 1 + threshold,
 *   no_difference when inside [1 - threshold, 1 + threshold], otherwise
 *   inconclusive; fewer than COMPARE_MIN_HOSTS hosts in an arm (pairs when
 *   paired) is inconclusive with the reason, and no interval (ratio and
 *   interval NAN).
 * - Host values below 1 ns (a quantile in bucket 0) count as 1 ns, so a
 *   ratio is always finite.
 */
#ifndef SCHEDIO_SERVER_COMPARE_STATS_H
#define SCHEDIO_SERVER_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

/* Hosts (or pairs) an arm needs before a comparison gives a verdict. */
#define COMPARE_MIN_HOSTS 5
/* Bootstrap resamples at least; opts->resamples below this is raised to it. */
#define COMPARE_MIN_RESAMPLES 2000
/* The threshold when the query names none. */
#define COMPARE_DEFAULT_THRESHOLD 0.05

enum compare_metric { COMPARE_P50, COMPARE_P90, COMPARE_P99, COMPARE_P999, COMPARE_MEAN };
enum compare_verdict { COMPARE_BETTER, COMPARE_WORSE, COMPARE_NO_DIFFERENCE, COMPARE_INCONCLUSIVE };

/* One host of one arm: its samples in the arm's window merged into one
 * histogram, and the metric of it. Hosts with no samples or a NAN value are
 * left out of the arm. */
struct compare_host {
	char host_id[129];
	double value_ns;
	uint64_t samples;
};

struct compare_opts {
	enum compare_metric metric; /* only for the summary's wording */
	double threshold;           /* half-width of the no-difference band, in [0, 1): 0.05 */
	unsigned resamples;         /* >= COMPARE_MIN_RESAMPLES (raised to it) */
	uint64_t seed;              /* compare_seed() of the query: same query, same data, same answer */
	bool paired;                /* same hosts in both arms: resample pairs */
};

struct compare_result {
	enum compare_verdict verdict;
	double ratio, ci_low, ci_high; /* NAN when an arm is too small */
	double a_value_ns, b_value_ns; /* medians over the arms' hosts; NAN for an empty arm */
	size_t a_hosts, b_hosts;       /* hosts with a value in each arm */
	size_t pairs;                  /* hosts in both arms (paired only, else 0) */
	uint64_t a_samples, b_samples; /* samples over the arms' hosts (the paired hosts when paired) */
	char reason[256];              /* why inconclusive; "" otherwise */
	char summary[512];             /* one plain sentence */
};

/* The metric of a histogram in ns (quantiles as hist_quantile reads them, the mean as sum/count); NAN when empty. */
double compare_metric_of(const struct hist *h, enum compare_metric m);
/* Parses "p50|p90|p99|p999|mean"; 0 or -EINVAL. */
int compare_metric_parse(const char *s, enum compare_metric *m);
/* "p50" | "p90" | "p99" | "p999" | "mean". */
const char *compare_metric_name(enum compare_metric m);
/* Arm values = median over hosts, ratio = a/b, 95% bootstrap CI over hosts (pairs when opts->paired), verdict; 0 or
 * -errno. */
int compare_run(const struct compare_host *a, size_t na, const struct compare_host *b, size_t nb,
		const struct compare_opts *o, struct compare_result *out);
/* "better" | "worse" | "no_difference" | "inconclusive". */
const char *compare_verdict_name(enum compare_verdict v);
/* One sentence naming the method for opts (the API's "method"), static storage. */
const char *compare_method(const struct compare_opts *o);
/* Seed from the query text (FNV-1a 64), so the same query on the same data answers the same. */
uint64_t compare_seed(const char *text);

#endif /* SCHEDIO_SERVER_COMPARE_STATS_H */
