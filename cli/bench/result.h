/* result.h - the result of `schedio bench` as the schedio.ssdbench.v1 JSON
 * document (the contract with the server) and as the io.cost.model line.
 */
#ifndef SCHEDIO_CLI_BENCH_RESULT_H
#define SCHEDIO_CLI_BENCH_RESULT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/bench/phase.h"
#include "common/disks.h"

#define BENCH_SCHEMA "schedio.ssdbench.v1"

struct bench_result {
	uint64_t started_ms; /* wall clock at the start */
	double duration_s;   /* the whole run */
	char kernel[65];     /* uname -r */
	struct disk disk;
	const char *target; /* "block" or "file" */
	const struct bench_phase_result *phases[6];
	size_t nphases;
};

/* The warnings a phase's findings call for, appended to the array warnings. */
void bench_result_warnings(const struct bench_phase_result *ph, cJSON *warnings);
/* The whole result document; NULL when out of memory. */
cJSON *bench_result_json(const struct bench_result *r);
/* "MAJ:MIN ctrl=user model=linear rbps=.. ..." with the parameters measured; returns its length
 * (as snprintf). */
int bench_result_model_line(const struct bench_result *r, char *buf, size_t cap);

#endif /* SCHEDIO_CLI_BENCH_RESULT_H */
