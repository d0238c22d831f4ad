/* ssd_result.h - one submitted SSD result, parsed: a resctl-bench result
 * file (a "full" run: the io.cost parameters of iocost-params and the
 * iocost-tune solutions) or a schedio bench result (a "quick" run,
 * schedio.ssdbench.v1: the six io.cost.model parameters only), with the
 * device it ran on and the bench version. Everything the SSD database stores
 * and aggregates is in struct ssd_result; the measured curves are not kept
 * parsed (the original file is).
 */
#ifndef SCHEDIO_SERVER_SSD_SSD_RESULT_H
#define SCHEDIO_SERVER_SSD_SSD_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define SSD_MODEL_MAX 128 /* longest device model name accepted (ATA/NVMe say 40) */
#define SSD_FWREV_MAX 64
#define SSD_KERNEL_MAX 256
#define SSD_VERSION_MAX 64
#define SSD_SOLUTION_NAME_MAX 48
#define SSD_MAX_SOLUTIONS 16 /* resctl-bench produces 8 */
#define SSD_NPARAMS 6        /* six io.cost.model and six io.cost.qos parameters */

enum ssd_model_param { SSD_RBPS, SSD_RSEQIOPS, SSD_RRANDIOPS, SSD_WBPS, SSD_WSEQIOPS, SSD_WRANDIOPS };
enum ssd_qos_param { SSD_RPCT, SSD_RLAT, SSD_WPCT, SSD_WLAT, SSD_MIN, SSD_MAX };

/* The kernel's key names, in the order of the enums above. */
extern const char *const ssd_model_keys[SSD_NPARAMS];
extern const char *const ssd_qos_keys[SSD_NPARAMS];

enum ssd_result_kind { SSD_KIND_FULL, SSD_KIND_QUICK };

/* "full" and "quick", in the order of enum ssd_result_kind. */
extern const char *const ssd_kind_names[2];

/* What a quick bench says about its run besides the model (kept in the stored summary). */
struct ssd_quick_info {
	double started_ms, duration_s; /* 0 where the file does not say */
	char target[8];                /* "block" or "file" */
	bool rotational;
	int nphases, nwarnings;
};

struct ssd_solution {
	char name[SSD_SOLUTION_NAME_MAX + 1];
	double model[SSD_NPARAMS];
	double qos[SSD_NPARAMS];
	double mof, amof, isol; /* NAN where the file does not say */
};

struct ssd_result {
	char id[33]; /* md5 hex of the uncompressed JSON */
	enum ssd_result_kind kind;
	char model[SSD_MODEL_MAX + 1];
	char model_id[SSD_MODEL_MAX + 1]; /* model with spaces as '_' (upstream folder name) */
	char fwrev[SSD_FWREV_MAX + 1];    /* trimmed; may be empty */
	uint64_t size_bytes;
	char kernel[SSD_KERNEL_MAX + 1];
	char bench_version[SSD_VERSION_MAX + 1]; /* e.g. "2.2.3"; a quick bench's tool version, may be "" */
	int bench_major, bench_minor;            /* 0.0 for a quick bench without a readable version */
	bool merged;                             /* a merged-results file (has a merge-info job) */
	bool has_params; /* iocost-params produced a model and qos; a quick bench: the model only */
	double params_model[SSD_NPARAMS];
	double params_qos[SSD_NPARAMS]; /* zero for a quick bench */
	struct ssd_quick_info quick;    /* quick benches only */
	int nsolutions;
	struct ssd_solution solutions[SSD_MAX_SOLUTIONS]; /* sorted by name */
};

/* Parses a submitted file (gzip by magic bytes, else JSON; a JSON array is a resctl-bench
 * result, an object a schedio.ssdbench.v1 one) into out, inflating at most max_inflated bytes. Returns 0, or the HTTP
 * status of the failure (400 unreadable, 413 too large when inflated, 422 unusable, 503 out of memory) with the reason
 * in err. */
int ssd_result_parse(const void *body, size_t len, size_t max_inflated, struct ssd_result *out, char *err,
		     size_t errlen);
/* Builds the read-back JSON of a result (id, model, fwrev, ..., solutions); NULL on OOM. */
cJSON *ssd_result_to_json(const struct ssd_result *r);
/* Rebuilds a result from ssd_result_to_json's output; returns 0 or -1 (bad shape). */
int ssd_result_from_json(const cJSON *doc, struct ssd_result *out);
/* Inflates (if gzip) and parses a stored file as JSON under max_inflated bytes; NULL when it is not. */
cJSON *ssd_result_file_json(const void *file, size_t len, size_t max_inflated);
/* Finds a solution by name in r, or NULL. */
const struct ssd_solution *ssd_result_solution(const struct ssd_result *r, const char *name);
/* True if s is an acceptable model or fwrev string: printable ASCII, none of / \ * ? [ ] : " ' < > | ` */
bool ssd_name_ok(const char *s);
/* Writes the model id (spaces as '_') of model into out[SSD_MODEL_MAX + 1]. */
void ssd_model_id(const char *model, char *out);

#endif /* SCHEDIO_SERVER_SSD_SSD_RESULT_H */
