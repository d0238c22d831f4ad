/* options.h - the command line of `schedio bench`, parsed without exiting
 * so tests can feed it bad input.
 */
#ifndef SCHEDIO_CLI_BENCH_OPTIONS_H
#define SCHEDIO_CLI_BENCH_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/ssd_client.h"

#define BENCH_DEFAULT_MIN_PHASE 10.0
#define BENCH_DEFAULT_MAX_PHASE 30.0
#define BENCH_DEFAULT_MAX_DEPTH 256

struct bench_options {
	const char *target;
	int destructive, force, read_only;
	unsigned phases;  /* bit i: bench_phase_specs[i] runs */
	uint64_t size;    /* --size in bytes, 0 for the default */
	double min_phase; /* seconds */
	double max_phase; /* seconds */
	unsigned max_depth;
	unsigned depth;         /* --depth: measure at this depth, no saturation search (0: search) */
	const char *output;     /* --output FILE or NULL */
	const char *sysfs_root; /* --sysfs-root, default /sys: where the disk is identified and checked */
	int json;               /* --json: the result on stdout instead of the model line */
	int submit;
	int help;
	struct ssd_client client;
};

/* Parses argv (argv[0] is "bench"); 0, or -1 with the reason in err. */
int bench_options_parse(int argc, char **argv, struct bench_options *o, char *err, size_t cap);
/* Parses "rbps,wrandiops" into a phase mask; 0 or -1 naming the unknown one in err. */
int bench_options_phases(const char *list, unsigned *mask, char *err, size_t cap);
/* Parses a size with an optional K, M, G or T (binary) suffix; 0 or -1. */
int bench_options_size(const char *s, uint64_t *out);
/* Whether phase mask m has a write phase. */
int bench_options_writes(unsigned mask);
/* Prints the usage text on stdout. */
void bench_options_usage(void);

#endif /* SCHEDIO_CLI_BENCH_OPTIONS_H */
