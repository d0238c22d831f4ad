/* cmd_models.c - `schedio models [QUERY]`: the SSD models the database
 * knows, with how many results each has, its firmwares and solutions.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "cli/ssd_client.h"
#include "common/cli.h"

static void print_list(const cJSON *arr)
{
	const cJSON *v;
	int first = 1;

	cJSON_ArrayForEach(v, arr)
	{
		if (cJSON_IsString(v))
			printf("%s%s", first ? "" : ",", v->valuestring);
		first = 0;
	}
}

int cmd_models(int argc, char **argv)
{
	static const struct option opts[] = { SSD_CLIENT_OPTIONS, { 0 } };
	struct ssd_client c;
	struct http_result res;
	char path[1024], q[700], msg[600];
	const cJSON *m, *models;
	cJSON *doc;
	int opt, rc = 1;

	ssd_client_init(&c);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(&c, opt, optarg))
			continue;
		if (opt == 'h') {
			printf("Usage: schedio models [--server URL] [QUERY]\n\n"
			       "Lists the SSD models in the database whose name contains QUERY (all without it):\n"
			       "id, submissions, firmware revisions, solutions.\n");
			return 0;
		}
		cli_bad_option("schedio models", argc, argv);
	}
	if (argc - optind > 1)
		cli_usage_error("schedio models", "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc && strlen(argv[optind]) > 200)
		cli_usage_error("schedio models", "QUERY is longer than 200 characters");
	snprintf(path, sizeof(path), "/api/v1/ssd/models%s%s", optind < argc ? "?q=" : "",
		 optind < argc ? ssd_client_escape(argv[optind], q, sizeof(q)) : "");
	if (http_client_request(c.server, "GET", path, c.token, NULL, 0, NULL, &res) < 0 || res.status != 200) {
		fprintf(stderr, "schedio models: %s\n", ssd_client_error(&res, msg, sizeof(msg)));
		http_result_free(&res);
		return 1;
	}
	doc = cJSON_Parse(res.body);
	models = cJSON_GetObjectItemCaseSensitive(doc, "models");
	if (cJSON_IsArray(models)) {
		printf("%-40s %5s  %-20s %s\n", "MODEL", "SUBS", "FIRMWARE", "SOLUTIONS");
		cJSON_ArrayForEach(m, models)
		{
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
			const cJSON *subs = cJSON_GetObjectItemCaseSensitive(m, "submissions");

			printf("%-40s %5d  ", cJSON_IsString(id) ? id->valuestring : "?",
			       cJSON_IsNumber(subs) ? subs->valueint : 0);
			print_list(cJSON_GetObjectItemCaseSensitive(m, "fwrevs"));
			printf("  ");
			print_list(cJSON_GetObjectItemCaseSensitive(m, "solutions"));
			printf("\n");
		}
		rc = 0;
	} else {
		fprintf(stderr, "schedio models: unexpected answer from the server\n");
	}
	cJSON_Delete(doc);
	http_result_free(&res);
	return rc;
}
