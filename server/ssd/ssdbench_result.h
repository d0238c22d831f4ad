/* ssdbench_result.h - a schedio bench result (schema schedio.ssdbench.v1,
 * the "quick" kind of SSD result): the device, the six io.cost.model
 * parameters measured, and per phase the rates seen over time and the
 * saturation search, with warnings. The format is fixed by the CLI that
 * writes it; see schema/ssdbench.schema.json.
 */
#ifndef SCHEDIO_SERVER_SSD_SSDBENCH_RESULT_H
#define SCHEDIO_SERVER_SSD_SSDBENCH_RESULT_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "server/ssd/ssd_result.h"

#define SSDBENCH_SCHEMA "schedio.ssdbench.v1"
#define SSDBENCH_MAX_PHASES 16
#define SSDBENCH_MAX_SERIES 600
#define SSDBENCH_MAX_SATURATION 32
#define SSDBENCH_MAX_WARNINGS 32
#define SSDBENCH_MESSAGE_MAX 512

/* Validates a parsed schedio.ssdbench.v1 object and fills out (kind quick, params_model the
 * six measured values, no QoS); returns 0, or 422 with the field at fault named in err. */
int ssdbench_result_take(const cJSON *doc, struct ssd_result *out, char *err, size_t errlen);
/* {"phases": [...], "warnings": [...]} of a schedio.ssdbench.v1 object, rebuilt from the
 * validated fields only (nothing unknown is passed on); NULL when doc does not validate or on OOM. */
cJSON *ssdbench_result_detail(const cJSON *doc);

#endif /* SCHEDIO_SERVER_SSD_SSDBENCH_RESULT_H */
