/* cli.h - what every schedio program does the same way on its command line:
 * one-line usage errors with exit status 2, --version, number parsing.
 */
#ifndef SCHEDIO_COMMON_CLI_H
#define SCHEDIO_COMMON_CLI_H

#include <stdint.h>

/* Exit status for bad command-line usage. */
#define CLI_EXIT_USAGE 2

/* Prints "PROG: MESSAGE (try PROG --help)" on stderr and exits with status 2. */
__attribute__((noreturn, format(printf, 2, 3))) void cli_usage_error(const char *prog, const char *fmt, ...);
/* Prints "PROG VERSION" on stdout. */
void cli_print_version(const char *prog);
/* Parses a whole decimal string into *out within [min, max]; returns 0 or -1. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Reports a getopt_long failure at optind-1 as a usage error and exits 2. */
__attribute__((noreturn)) void cli_bad_option(const char *prog, int argc, char **argv);

#endif /* SCHEDIO_COMMON_CLI_H */
