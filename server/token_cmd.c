/* token_cmd.c - token management from the command line. `add` prints the
 * new token alone on its last line so scripts can take it with `tail -n1`;
 * it is shown only this once.
 */
#include "server/token_cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "server/http/auth.h"
#include "server/store/token_store.h"

static const char *prog = "schedio-server token";

static void usage(void)
{
	printf("Usage: schedio-server token add --db FILE|CONNINFO [--scope read|ingest|submit|admin] NAME\n"
	       "       schedio-server token list --db FILE|CONNINFO\n"
	       "       schedio-server token revoke --db FILE|CONNINFO NAME\n"
	       "\n"
	       "Manages API tokens. Agents need an ingest token, SSD submitters a submit token;\n"
	       "admin tokens pass every check. The token is printed once, on the last line.\n");
}

int token_cmd_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "scope", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dbpath = NULL, *scope = "ingest", *action;
	char err[1024], token[AUTH_TOKEN_HEX + 1];
	struct token_store *ts;
	int c, rc = 1;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage();
		return argc < 2 ? CLI_EXIT_USAGE : 0;
	}
	action = argv[1];
	if (strcmp(action, "add") && strcmp(action, "list") && strcmp(action, "revoke"))
		cli_usage_error(prog, "unknown action '%s' (want add, list or revoke)", action);
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'd')
			dbpath = optarg;
		else if (c == 's')
			scope = optarg;
		else if (c == 'h') {
			usage();
			return 0;
		} else
			cli_bad_option(prog, argc, argv);
	}
	if (!dbpath)
		cli_usage_error(prog, "--db FILE|CONNINFO is required");
	if (!strcmp(action, "list") ? optind != argc : optind != argc - 1)
		cli_usage_error(prog, "%s wants %s", action, strcmp(action, "list") ? "one NAME" : "no arguments");
	if (!auth_scope_valid(scope))
		cli_usage_error(prog, "unknown scope '%s' (want read, ingest, submit or admin)", scope);
	ts = token_store_open(dbpath, err, sizeof(err));
	if (!ts) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 1;
	}
	if (!strcmp(action, "add")) {
		if (ts->ops->add(ts, argv[optind], scope, token, err, sizeof(err)) == 0) {
			printf("token '%s' (scope %s) created; it is shown only now:\n%s\n", argv[optind], scope,
			       token);
			rc = 0;
		}
	} else if (!strcmp(action, "revoke")) {
		if (ts->ops->revoke(ts, argv[optind], err, sizeof(err)) == 0) {
			printf("token '%s' revoked\n", argv[optind]);
			rc = 0;
		}
	} else {
		rc = ts->ops->list(ts, stdout) == 0 ? 0 : 1;
		if (rc)
			snprintf(err, sizeof(err), "cannot list tokens: %s", ts->ops->errmsg(ts));
	}
	if (rc)
		fprintf(stderr, "%s: %s\n", prog, err);
	ts->ops->close(ts);
	return rc;
}
