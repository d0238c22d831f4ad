/* cmd_health.c - `schedio health`: is the server up, and which version. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/command.h"
#include "cli/http_client.h"
#include "common/cli.h"

int cmd_health(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *server = command_default_server();
	struct http_result res;
	cJSON *doc, *ver;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 's') {
			server = optarg;
		} else if (c == 'h') {
			printf("Usage: schedio health [--server URL]\n\nChecks that the server answers /healthz.\n");
			return 0;
		} else {
			cli_bad_option("schedio health", argc, argv);
		}
	}
	if (optind < argc)
		cli_usage_error("schedio health", "unexpected argument '%s'", argv[optind]);
	if (http_client_request(server, "GET", "/healthz", NULL, NULL, 0, NULL, &res) < 0) {
		fprintf(stderr, "schedio health: %s\n", res.error);
		http_client_result_free(&res);
		return 1;
	}
	doc = cJSON_Parse(res.body);
	ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (res.status == 200 && cJSON_IsString(ver)) {
		printf("ok: %s answers, version %s\n", server, ver->valuestring);
		rc = 0;
	} else {
		fprintf(stderr, "schedio health: %s answered %ld\n", server, res.status);
	}
	cJSON_Delete(doc);
	http_client_result_free(&res);
	return rc;
}
