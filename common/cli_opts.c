/* cli_opts.c - see cli_opts.h. */
#include "common/cli_opts.h"

#include <stdlib.h>

#include "common/cli.h"
#include "common/log.h"

void cli_opts_common(const char *prog, int c, int argc, char **argv, void (*usage)(void))
{
	switch (c) {
	case 'v':
		log_init(prog, LOG_DEBUG);
		return;
	case 'h':
		usage();
		exit(0);
	case 'V':
		cli_print_version(prog);
		exit(0);
	default:
		cli_bad_option(prog, argc, argv);
	}
}

void cli_opts_no_operands(const char *prog, int argc, char **argv)
{
	if (optind < argc)
		cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
}
