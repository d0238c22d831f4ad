/* cmd_config.c - `schedio config MODEL`: the recommended io.cost.model and
 * io.cost.qos lines for a model, ready to paste; which solution was used
 * (the asked one or a fallback) goes to stderr so stdout stays pasteable.
 */
#include <stdio.h>
#include <string.h>

#include "cli/command.h"
#include "cli/ssd_client.h"
#include "common/cli.h"

/* What stderr adds to the solution used: why there is one line, or that the asked one was missing. */
static const char *solution_note(const char *body, const char *asked, const char *used)
{
	const char *nl = strchr(body, '\n');

	/* one line: the model has quick benches only (schedio bench), which measure no QoS */
	if (nl && !strchr(nl + 1, '\n'))
		return " (quick benches only: the io.cost.model line alone, no QoS was measured)";
	return asked && strcmp(asked, used) ? " (the asked one is not in the database)" : "";
}

int cmd_config(int argc, char **argv)
{
	enum { O_SOLUTION = 2000, O_DEV };
	static const struct option opts[] = {
		SSD_CLIENT_OPTIONS,
		{ "solution", required_argument, NULL, O_SOLUTION },
		{ "dev", required_argument, NULL, O_DEV },
		{ 0 },
	};
	const char *solution = NULL, *dev = NULL;
	char path[2048], m[600], s[200], d[100], msg[600];
	struct ssd_client c;
	struct http_result res;
	int opt;

	ssd_client_init(&c);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(&c, opt, optarg))
			continue;
		if (opt == O_SOLUTION) {
			solution = optarg;
		} else if (opt == O_DEV) {
			dev = optarg;
		} else if (opt == 'h') {
			printf(
			    "Usage: schedio config [--server URL] [--token TOKEN] [--solution S] [--dev MAJ:MIN] "
			    "MODEL\n\n"
			    "Prints the recommended io.cost.model and io.cost.qos lines for MODEL (name or id).\n"
			    "Without --dev the lines start with MAJ:MIN to replace. Missing solutions fall back\n"
			    "to isolated-bandwidth, isolation, bandwidth, naive; the one used is named on stderr.\n");
			return 0;
		} else {
			cli_bad_option("schedio config", argc, argv);
		}
	}
	if (optind >= argc)
		cli_usage_error("schedio config", "no MODEL given");
	if (argc - optind > 1)
		cli_usage_error("schedio config", "unexpected argument '%s'", argv[optind + 1]);
	if (strlen(argv[optind]) > 128 || (solution && strlen(solution) > 48) || (dev && strlen(dev) > 24))
		cli_usage_error("schedio config", "MODEL, --solution or --dev is too long");
	snprintf(path, sizeof(path), "/api/v1/ssd/models/%s/config?x=1%s%s%s%s",
		 ssd_client_escape(argv[optind], m, sizeof(m)), solution ? "&solution=" : "",
		 solution ? ssd_client_escape(solution, s, sizeof(s)) : "", dev ? "&dev=" : "",
		 dev ? ssd_client_escape(dev, d, sizeof(d)) : "");
	if (http_client_request_header(c.server, "GET", path, c.token, NULL, 0, NULL, "X-Schedio-Solution", &res) < 0 ||
	    res.status != 200) {
		fprintf(stderr, "schedio config: %s: %s\n", argv[optind], ssd_client_error(&res, msg, sizeof(msg)));
		http_client_result_free(&res);
		return 1;
	}
	fputs(res.body, stdout);
	fprintf(stderr, "schedio config: solution %s%s\n", res.header_value,
		solution_note(res.body, solution, res.header_value));
	http_client_result_free(&res);
	return 0;
}
