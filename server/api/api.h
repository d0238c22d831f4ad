/* api.h - the HTTP handlers, one group per file (api_<group>.c). */
#ifndef SCHEDIO_SERVER_API_API_H
#define SCHEDIO_SERVER_API_API_H

#include "server/http/http.h"

struct compare_query;

/* GET /healthz: {"status": "ok", "version": "..."}. */
enum MHD_Result api_healthz(struct http_request *req);
/* GET of any non-API path: the dashboard's files. */
enum MHD_Result static_files_serve(struct http_request *req);

/* POST /api/v1/ssd/results: a resctl-bench result file in (201 new, 200 duplicate). */
enum MHD_Result api_ssd_submit(struct http_request *req);
/* GET /api/v1/ssd/results/{id}: the parsed fields of one result. */
enum MHD_Result api_ssd_result_get(struct http_request *req);
/* GET /api/v1/ssd/results/{id}/file: the original file (gzip). */
enum MHD_Result api_ssd_result_file(struct http_request *req);
/* GET /api/v1/ssd/models?q=&limit=&offset=: one page of models with submission counts, firmwares,
 * solutions, the total of matches and next_offset. */
enum MHD_Result api_ssd_models(struct http_request *req);
/* GET /api/v1/ssd/models/{id}[?fwrev=]: one model and its recommended configuration. */
enum MHD_Result api_ssd_model_get(struct http_request *req);
/* GET /api/v1/ssd/models/{id}/config?solution=&dev=: io.cost.model and io.cost.qos lines. */
enum MHD_Result api_ssd_model_config(struct http_request *req);
/* GET /api/v1/ssd/hwdb[?model=]: a systemd hwdb file with every model (or the one) and firmware. */
enum MHD_Result api_ssd_hwdb(struct http_request *req);
/* GET /metrics: Prometheus text (api_metrics.c). */
enum MHD_Result api_metrics(struct http_request *req);
/* POST /api/v1/reports: ingest one agent report (api_reports.c). */
enum MHD_Result api_reports_post(struct http_request *req);
/* GET /api/v1/hosts: every host with its last-5-minute runqueue latency (api_hosts.c). */
enum MHD_Result api_hosts_list(struct http_request *req);
/* GET /api/v1/hosts/{id}: one host's latest inventory. */
enum MHD_Result api_host_get(struct http_request *req);
/* GET /api/v1/hosts/{id}/reports: seq and interval of stored reports. */
enum MHD_Result api_host_reports(struct http_request *req);
/* GET /api/v1/hosts/{id}/runqlat: runqueue latency series of a host (api_runqlat.c). */
enum MHD_Result api_host_runqlat(struct http_request *req);
/* GET /api/v1/fleet/runqlat: runqueue latency merged across hosts per group. */
enum MHD_Result api_fleet_runqlat(struct http_request *req);
/* GET /api/v1/hosts/{id}/iocost: iocost series per disk and cgroup (api_iocost.c). */
enum MHD_Result api_host_iocost(struct http_request *req);
/* GET /api/v1/hosts/{id}/health: schedulers, exits and health points summed per ?step (api_sched_health.c). */
enum MHD_Result api_host_health(struct http_request *req);
/* GET /api/v1/fleet/health: per host ejections and agent cost against the budgets. */
enum MHD_Result api_fleet_health(struct http_request *req);
/* GET /api/v1/compare?a=SEL&b=SEL&metric=: arm A against arm B with a verdict (api_compare.c). */
enum MHD_Result api_compare(struct http_request *req);
/* The answer GET /api/v1/compare gives to checked query q, shared with saved experiments: 0 and *doc,
 * or the HTTP status of the failure with why in err[errlen]. */
int api_compare_answer(struct server *srv, const struct compare_query *q, cJSON **doc, char *err, size_t errlen);
/* POST /api/v1/experiments (admin): stores a named comparison, 201 with it (api_experiments.c). */
enum MHD_Result api_experiments_create(struct http_request *req);
/* GET /api/v1/experiments: every saved experiment with its verdict now. */
enum MHD_Result api_experiments_list(struct http_request *req);
/* GET /api/v1/experiments/{id}: the compare answer of one experiment, plus its definition. */
enum MHD_Result api_experiment_get(struct http_request *req);
/* DELETE /api/v1/experiments/{id} (admin): 204. */
enum MHD_Result api_experiment_delete(struct http_request *req);

#endif /* SCHEDIO_SERVER_API_API_H */
