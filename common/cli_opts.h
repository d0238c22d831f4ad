/* cli_opts.h - the options every long-running schedio program takes the same
 * way (--verbose, --help, --version) and what follows its option loop, so
 * the agent and the server read their command lines alike.
 */
#ifndef SCHEDIO_COMMON_CLI_OPTS_H
#define SCHEDIO_COMMON_CLI_OPTS_H

#include <getopt.h>

/* The shared rows and the terminator that end a struct option table (short options "vhV"). */
/* clang-format off */
#define CLI_OPTS_COMMON                                                                        \
	{ "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' },             \
	{ "version", no_argument, NULL, 'V' }, { 0 }
/* clang-format on */

/* Handles what a getopt_long loop has no case of: -v raises logging to debug
 * and returns; -h prints usage() and -V the version, each exiting 0; anything
 * else is a usage error (exit 2). */
void cli_opts_common(const char *prog, int c, int argc, char **argv, void (*usage)(void));
/* Exits with a usage error when an argument is left after the options. */
void cli_opts_no_operands(const char *prog, int argc, char **argv);

#endif /* SCHEDIO_COMMON_CLI_OPTS_H */
