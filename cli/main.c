/* main.c - `schedio`, the command line for people: submit SSD results, look
 * up models and their io.cost configuration, apply it, run sched_ext
 * experiments. This file only dispatches to the subcommands.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "common/cli.h"

static const struct command commands[] = {
	{ "health", "check that a schedio server answers", cmd_health },
	{ "submit", "submit resctl-bench result files to the SSD database", cmd_submit },
	{ "models", "list the SSD models in the database", cmd_models },
	{ "config", "print the recommended io.cost lines for an SSD model", cmd_config },
	{ "apply", "write the recommended io.cost configuration for this host's disks", cmd_apply },
	{ "bench", "measure a disk's io.cost.model in minutes (and submit it)", cmd_bench },
	{ "scx", "load a sched_ext scheduler (fifo, llc) and watch it", cmd_scx },
	{ "compare", "is arm A's runqueue latency better or worse than arm B's? (a verdict)", cmd_compare },
};

static void usage(void)
{
	printf("Usage: schedio [--help] [--version] COMMAND [ARG]...\n"
	       "\n"
	       "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	printf("\nEvery command takes --server URL (default $SCHEDIO_SERVER or http://127.0.0.1:8080)\n"
	       "and --help. Run `schedio COMMAND --help` for its options.\n");
}

const char *command_default_server(void)
{
	const char *s = getenv("SCHEDIO_SERVER");

	return s && *s ? s : "http://127.0.0.1:8080";
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 2)
		cli_usage_error("schedio", "missing command");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage();
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		cli_print_version("schedio");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		curl_global_init(CURL_GLOBAL_DEFAULT);
		rc = commands[i].run(argc - 1, argv + 1);
		curl_global_cleanup();
		return rc;
	}
	if (argv[1][0] == '-')
		cli_usage_error("schedio", "unknown option '%s'", argv[1]);
	cli_usage_error("schedio", "unknown command '%s'", argv[1]);
}
