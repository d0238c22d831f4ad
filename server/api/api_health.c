/* api_health.c - GET /healthz: liveness for load balancers and the quick
 * start. It answers from memory, never touching the database, so a busy
 * writer cannot make a healthy server look dead.
 */
#include "server/api/api.h"

#include "version.h"

enum MHD_Result api_healthz(struct http_request *req)
{
	cJSON *doc = cJSON_CreateObject();

	if (!doc)
		return MHD_NO;
	cJSON_AddStringToObject(doc, "status", "ok");
	cJSON_AddStringToObject(doc, "version", SCHEDIO_VERSION);
	return http_reply_json(req, MHD_HTTP_OK, doc);
}
