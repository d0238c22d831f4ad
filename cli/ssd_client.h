/* ssd_client.h - what the SSD subcommands of the CLI share: the --server,
 * --token and --help options, and the server's error message.
 */
#ifndef SCHEDIO_CLI_SSD_CLIENT_H
#define SCHEDIO_CLI_SSD_CLIENT_H

#include <getopt.h>

#include "cli/http_client.h"

enum { SSD_OPT_SERVER = 1000, SSD_OPT_TOKEN };

/* The long options every SSD subcommand takes, to splice into its own table. */
/* clang-format off */
#define SSD_CLIENT_OPTIONS                                                                                            \
	{ "server", required_argument, NULL, SSD_OPT_SERVER }, { "token", required_argument, NULL, SSD_OPT_TOKEN },   \
	{ "help", no_argument, NULL, 'h' }
/* clang-format on */

struct ssd_client {
	const char *server; /* --server, else $SCHEDIO_SERVER, else the default */
	const char *token;  /* --token, else $SCHEDIO_TOKEN, else NULL */
};

/* Fills c with the defaults. */
void ssd_client_init(struct ssd_client *c);
/* Handles a getopt result of SSD_CLIENT_OPTIONS; returns 1 if it was one, else 0. */
int ssd_client_option(struct ssd_client *c, int opt, const char *arg);
/* The server's {"error": ...} message of res, or a short description of the status. */
const char *ssd_client_error(const struct http_result *res, char *buf, size_t cap);
/* Percent-encodes s into out[cap] (unreserved characters kept); returns out. */
char *ssd_client_escape(const char *s, char *out, size_t cap);

#endif /* SCHEDIO_CLI_SSD_CLIENT_H */
