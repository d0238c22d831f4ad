/* cmd_models.c - `schedio models [--limit N] [QUERY]`: the SSD models the
 * database knows, with how many results each has, its firmwares and
 * solutions.
 *
 * The server answers in pages (GET /api/v1/ssd/models?q=&limit=&offset=,
 * each under 1 MiB); this follows next_offset until the last page or until
 * --limit models are printed. Pages are in model id order, so a row at or
 * before the last one printed is a repeat (a model added meanwhile shifts the
 * offsets by one) and is skipped: each model is printed once.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/ssd_client.h"
#include "common/cli.h"

#define PAGE 1000
#define ID_MAX 256 /* the server's ids are at most 128 characters */

enum { OPT_LIMIT = 2000 };

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

/* Prints the rows of one page after last[ID_MAX] (updated), at most *left of them (all when
 * negative); the number printed. */
static long print_page(const cJSON *models, char *last, long *left)
{
	const cJSON *m;
	long n = 0;

	cJSON_ArrayForEach(m, models)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
		const cJSON *subs = cJSON_GetObjectItemCaseSensitive(m, "submissions");

		if (*left == 0)
			break;
		if (!cJSON_IsString(id) || strcmp(id->valuestring, last) <= 0)
			continue;
		snprintf(last, ID_MAX, "%s", id->valuestring);
		printf("%-40s %5d  ", id->valuestring, cJSON_IsNumber(subs) ? subs->valueint : 0);
		print_list(cJSON_GetObjectItemCaseSensitive(m, "fwrevs"));
		printf("  ");
		print_list(cJSON_GetObjectItemCaseSensitive(m, "solutions"));
		printf("\n");
		if (*left > 0)
			(*left)--;
		n++;
	}
	return n;
}

int cmd_models(int argc, char **argv)
{
	static const struct option opts[] = { SSD_CLIENT_OPTIONS,
					      { "limit", required_argument, NULL, OPT_LIMIT },
					      { 0 } };
	struct ssd_client c;
	struct http_result res = { 0 };
	char path[1024], q[700] = "", msg[600], last[ID_MAX] = "", *end;
	long left = -1, offset = 0, pages = 0;
	cJSON *doc = NULL;
	int opt, rc = 1;

	ssd_client_init(&c);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(&c, opt, optarg))
			continue;
		if (opt == 'h') {
			printf("Usage: schedio models [--server URL] [--token TOKEN] [--limit N] [QUERY]\n\n"
			       "Lists the SSD models in the database whose name, id or firmware contains QUERY\n"
			       "(all without it), in id order: id, submissions, firmware revisions, solutions.\n"
			       "  --limit N   print at most N models (default: all of them, fetched page by page)\n");
			return 0;
		}
		if (opt == OPT_LIMIT) {
			left = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || left < 1 || left > 100000000)
				cli_usage_error("schedio models", "--limit must be a whole number from 1 to 100000000");
			continue;
		}
		cli_bad_option("schedio models", argc, argv);
	}
	if (argc - optind > 1)
		cli_usage_error("schedio models", "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc && strlen(argv[optind]) > 200)
		cli_usage_error("schedio models", "QUERY is longer than 200 characters");
	if (optind < argc)
		ssd_client_escape(argv[optind], q, sizeof(q));
	printf("%-40s %5s  %-20s %s\n", "MODEL", "SUBS", "FIRMWARE", "SOLUTIONS");
	while (offset >= 0 && left != 0) {
		const cJSON *models, *next;

		snprintf(path, sizeof(path), "/api/v1/ssd/models?limit=%d&offset=%ld%s%s", PAGE, offset,
			 *q ? "&q=" : "", q);
		if (http_client_request(c.server, "GET", path, c.token, NULL, 0, NULL, &res) < 0 || res.status != 200) {
			fprintf(stderr, "schedio models: %s\n", ssd_client_error(&res, msg, sizeof(msg)));
			goto out;
		}
		doc = cJSON_Parse(res.body);
		models = cJSON_GetObjectItemCaseSensitive(doc, "models");
		next = cJSON_GetObjectItemCaseSensitive(doc, "next_offset");
		if (!cJSON_IsArray(models) || !(cJSON_IsNull(next) || cJSON_IsNumber(next))) {
			fprintf(stderr, "schedio models: unexpected answer from the server\n");
			goto out;
		}
		print_page(models, last, &left);
		/* next_offset only grows; a server that says otherwise would loop forever. */
		if (cJSON_IsNumber(next) && (next->valuedouble <= (double)offset || ++pages > 1000000)) {
			fprintf(stderr, "schedio models: the server's next_offset does not advance\n");
			goto out;
		}
		offset = cJSON_IsNumber(next) ? (long)next->valuedouble : -1;
		cJSON_Delete(doc);
		doc = NULL;
		http_client_result_free(&res);
	}
	rc = 0;
out:
	cJSON_Delete(doc);
	http_client_result_free(&res);
	return rc;
}
