/* route.c - the server's route table and its matcher. Every API path is
 * listed here, so this file is the index of the HTTP API; schema/openapi.yaml
 * documents the same list. A path that matches a pattern under another
 * method answers 405 with Allow, so clients can tell a typo from a misuse.
 */
#include "server/http/route.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/api.h"
#include "server/http/auth.h"
#include "server/http/offload.h"
#include "server/server.h"

/* Every read that queries a store runs on a read worker (true); /healthz, writes and static files do not. */
static const struct route routes[] = {
	{ "GET", "/healthz", api_healthz, false },
	{ "POST", "/api/v1/ssd/results", api_ssd_submit, false },
	{ "GET", "/api/v1/ssd/results/{id}", api_ssd_result_get, true },
	{ "GET", "/api/v1/ssd/results/{id}/file", api_ssd_result_file, true },
	{ "GET", "/api/v1/ssd/models", api_ssd_models, true },
	{ "GET", "/api/v1/ssd/models/{id}", api_ssd_model_get, true },
	{ "GET", "/api/v1/ssd/models/{id}/config", api_ssd_model_config, true },
	{ "GET", "/api/v1/ssd/hwdb", api_ssd_hwdb, true },
	{ "GET", "/metrics", api_metrics, true },
	{ "POST", "/api/v1/reports", api_reports_post, false },
	{ "GET", "/api/v1/hosts", api_hosts_list, true },
	{ "GET", "/api/v1/hosts/{id}", api_host_get, true },
	{ "GET", "/api/v1/hosts/{id}/reports", api_host_reports, true },
	{ "GET", "/api/v1/hosts/{id}/runqlat", api_host_runqlat, true },
	{ "GET", "/api/v1/hosts/{id}/iocost", api_host_iocost, true },
	{ "GET", "/api/v1/hosts/{id}/health", api_host_health, true },
	{ "GET", "/api/v1/fleet/runqlat", api_fleet_runqlat, true },
	{ "GET", "/api/v1/fleet/health", api_fleet_health, true },
	{ "GET", "/api/v1/compare", api_compare, true },
	{ "POST", "/api/v1/experiments", api_experiments_create, false },
	{ "GET", "/api/v1/experiments", api_experiments_list, true },
	{ "GET", "/api/v1/experiments/{id}", api_experiment_get, true },
	{ "DELETE", "/api/v1/experiments/{id}", api_experiment_delete, false },
};

int route_match(const char *pattern, const char *path, char **args, int max)
{
	int n = 0;

	while (*pattern && *path) {
		const char *pe, *se;
		size_t plen, slen;

		if (*pattern != '/' || *path != '/')
			goto nomatch;
		pattern++;
		path++;
		pe = strchr(pattern, '/');
		se = strchr(path, '/');
		plen = pe ? (size_t)(pe - pattern) : strlen(pattern);
		slen = se ? (size_t)(se - path) : strlen(path);
		if (plen >= 2 && pattern[0] == '{' && pattern[plen - 1] == '}') {
			if (slen == 0 || n >= max)
				goto nomatch;
			args[n] = strndup(path, slen); /* libmicrohttpd has percent-decoded the path already */
			if (!args[n])
				goto nomatch;
			n++;
		} else if (plen != slen || memcmp(pattern, path, plen) != 0) {
			goto nomatch;
		}
		pattern += plen;
		path += slen;
	}
	if (*pattern || *path)
		goto nomatch;
	return n;
nomatch:
	for (int i = 0; i < n; i++) {
		free(args[i]);
		args[i] = NULL;
	}
	return -1;
}

static bool is_api_path(const char *path)
{
	return strncmp(path, "/api/", 5) == 0 || strcmp(path, "/healthz") == 0 || strcmp(path, "/metrics") == 0;
}

/* Under --require-read-token, a read needs a token of scope read (or admin); /healthz stays open for
 * load balancers and probes. False with the error reply in *reply. */
static bool read_allowed(struct http_request *req, const struct route *r, enum MHD_Result *reply)
{
	if (!req->srv->require_read || strcmp(r->method, "GET") || r->handler == api_healthz)
		return true;
	return auth_require_strict(req, "read", reply);
}

enum MHD_Result route_dispatch(struct http_request *req)
{
	char allow[64] = "";
	size_t nroutes = sizeof(routes) / sizeof(routes[0]);

	if (!is_api_path(req->path)) {
		if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD"))
			return http_reply_error(req, MHD_HTTP_METHOD_NOT_ALLOWED,
						"only GET is allowed on dashboard paths");
		return static_files_serve(req);
	}
	for (size_t i = 0; i < nroutes; i++) {
		char *args[HTTP_MAX_PATH_ARGS] = { 0 };
		int n = route_match(routes[i].pattern, req->path, args, HTTP_MAX_PATH_ARGS);

		if (n < 0)
			continue;
		if (strcmp(routes[i].method, req->method) == 0 ||
		    (strcmp(req->method, "HEAD") == 0 && strcmp(routes[i].method, "GET") == 0)) {
			enum MHD_Result reply;

			memcpy(req->args, args, sizeof(args));
			req->nargs = n;
			/* the arguments are the request's now: http.c frees them with it */
			if (!read_allowed(req, &routes[i], &reply))
				return reply;
			if (routes[i].offload && req->srv->offload)
				return offload_run(req->srv->offload, req, routes[i].handler);
			return routes[i].handler(req);
		}
		for (int k = 0; k < n; k++)
			free(args[k]);
		if (!strstr(allow, routes[i].method)) {
			if (*allow)
				strncat(allow, ", ", sizeof(allow) - strlen(allow) - 1);
			strncat(allow, routes[i].method, sizeof(allow) - strlen(allow) - 1);
		}
	}
	if (*allow)
		return http_reply_error_allow(req, allow);
	return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no such API path");
}
