/* fuzz_server_ssdbench_result.c - libFuzzer target for the schedio bench
 * result parser (schedio.ssdbench.v1, the quick kind of SSD result), which
 * reads whatever anyone submits: any bytes must parse or be refused with a
 * 4xx, never crash, leak or overrun; an accepted result must be a quick one
 * with six finite positive parameters and safe names, survive the
 * stored-summary round trip unchanged, and its read-back (phases, warnings)
 * must be built and stay within the format's bounds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/ssd/ssd_result.h"
#include "server/ssd/ssdbench_result.h"

static void check_accepted(const struct ssd_result *r, const uint8_t *data, size_t size)
{
	struct ssd_result *back = malloc(sizeof(*back));
	cJSON *doc = ssd_result_to_json(r), *file = NULL, *detail = NULL;

	if (!back || !doc)
		goto out;
	if (r->kind != SSD_KIND_QUICK || !r->has_params || !*r->model || !ssd_name_ok(r->model) ||
	    !ssd_name_ok(r->fwrev))
		abort();
	for (int i = 0; i < SSD_NPARAMS; i++)
		if (!isfinite(r->params_model[i]) || r->params_model[i] <= 0)
			abort();
	if (ssd_result_from_json(doc, back) != 0 || back->kind != SSD_KIND_QUICK ||
	    strcmp(back->model, r->model) != 0 || strcmp(back->fwrev, r->fwrev) != 0 ||
	    memcmp(back->params_model, r->params_model, sizeof(r->params_model)) != 0 ||
	    back->bench_major != r->bench_major || back->bench_minor != r->bench_minor ||
	    back->quick.nphases != r->quick.nphases || back->quick.nwarnings != r->quick.nwarnings ||
	    strcmp(back->quick.target, r->quick.target) != 0)
		abort();
	file = ssd_result_file_json(data, size, 1 << 20);
	detail = file ? ssdbench_result_detail(file) : NULL;
	if (!file)
		abort(); /* what parsed once parses again */
	if (detail && (cJSON_GetArraySize(cJSON_GetObjectItem(detail, "phases")) != r->quick.nphases ||
		       cJSON_GetArraySize(cJSON_GetObjectItem(detail, "warnings")) != r->quick.nwarnings ||
		       r->quick.nphases > SSDBENCH_MAX_PHASES || r->quick.nwarnings > SSDBENCH_MAX_WARNINGS))
		abort();
out:
	cJSON_Delete(detail);
	cJSON_Delete(file);
	cJSON_Delete(doc);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ssd_result *r = malloc(sizeof(*r));
	char err[512];
	int rc;

	if (!r)
		return 0;
	rc = ssd_result_parse(data, size, 1 << 20, r, err, sizeof(err));
	if (rc != 0 && rc != 400 && rc != 413 && rc != 422 && rc != 503)
		abort();
	if (rc == 0 && r->kind == SSD_KIND_QUICK)
		check_accepted(r, data, size);
	free(r);
	return 0;
}
