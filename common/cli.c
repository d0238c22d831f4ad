/* cli.c - shared command-line conventions: usage errors exit 2 with one line
 * that names the problem; numbers are parsed whole or rejected.
 */
#include "common/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "version.h"

void cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try %s --help)\n", prog);
	exit(CLI_EXIT_USAGE);
}

void cli_print_version(const char *prog)
{
	printf("%s %s\n", prog, SCHEDIO_VERSION);
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

void cli_bad_option(const char *prog, int argc, char **argv)
{
	/* getopt_long has already printed why; keep our own line for the exit. */
	(void)argc;
	(void)argv;
	fprintf(stderr, "%s: bad command line (try %s --help)\n", prog, prog);
	exit(CLI_EXIT_USAGE);
}
