/* cmd_submit.c - `schedio submit FILE...`: sends resctl-bench result files
 * to the SSD database, one line per file (id, model, new or duplicate, or
 * the server's reason), so a batch shows exactly which files went in.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/ssd_client.h"
#include "common/cli.h"
#include "common/fsutil.h"

#define SUBMIT_MAX_FILE (64u << 20)

static int submit_one(const struct ssd_client *c, const char *path)
{
	struct http_result res;
	char *buf = NULL, msg[600];
	size_t len = 0;
	cJSON *doc;
	int rc;

	rc = fs_read_all(path, SUBMIT_MAX_FILE, &buf, &len);
	if (rc < 0) {
		printf("%s: error: %s\n", path, rc == -EFBIG ? "larger than 64 MiB" : strerror(-rc));
		return 1;
	}
	rc = 1;
	if (http_client_request(c->server, "POST", "/api/v1/ssd/results", c->token, buf, len,
				len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b
				    ? "application/gzip"
				    : "application/json",
				&res) < 0 ||
	    (res.status != 200 && res.status != 201)) {
		printf("%s: error: %s\n", path, ssd_client_error(&res, msg, sizeof(msg)));
		goto out;
	}
	doc = cJSON_Parse(res.body);
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "id");
		const cJSON *model = cJSON_GetObjectItemCaseSensitive(doc, "model");

		if (cJSON_IsString(id) && cJSON_IsString(model)) {
			printf("%s: %s %s %s\n", path, id->valuestring, res.status == 201 ? "new" : "duplicate",
			       model->valuestring);
			rc = 0;
		} else {
			printf("%s: error: unexpected answer from the server\n", path);
		}
	}
	cJSON_Delete(doc);
out:
	http_client_result_free(&res);
	free(buf);
	return rc;
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = { SSD_CLIENT_OPTIONS, { 0 } };
	struct ssd_client c;
	int opt, failed = 0;

	ssd_client_init(&c);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(&c, opt, optarg))
			continue;
		if (opt == 'h') {
			printf("Usage: schedio submit [--server URL] [--token TOKEN] FILE...\n\n"
			       "Submits resctl-bench result files (JSON or gzip) to the SSD database.\n"
			       "Prints per file: FILE: ID new|duplicate MODEL, or FILE: error: REASON.\n"
			       "The token (scope submit) may also come from $SCHEDIO_TOKEN.\n");
			return 0;
		}
		cli_bad_option("schedio submit", argc, argv);
	}
	if (optind >= argc)
		cli_usage_error("schedio submit", "no result file given");
	for (int i = optind; i < argc; i++)
		failed |= submit_one(&c, argv[i]);
	return failed;
}
