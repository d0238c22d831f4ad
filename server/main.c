/* main.c - schedio-server's command line: `serve` (the default) runs the
 * HTTP server; other subcommands manage the database offline. Startup checks
 * everything it can (flags, listen socket, database) before serving, so a
 * misconfiguration is one clear line and a non-zero exit.
 */
#include <getopt.h>
#include <pthread.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "server/db.h"
#include "server/http.h"
#include "server/listen.h"
#include "server/server.h"
#include "server/token_cmd.h"

static const char *prog = "schedio-server";

static void usage(void)
{
	printf("Usage: %s [serve] [OPTION]...\n"
	       "       %s COMMAND [OPTION]...\n"
	       "\n"
	       "Collects schedio agents' reports and SSD benchmark results, serves the API and the dashboard.\n"
	       "\n"
	       "Commands:\n"
	       "  serve                 run the HTTP server (default)\n"
	       "  token                 add, list or revoke API tokens (see token --help)\n"
	       "\n"
	       "Options of serve:\n"
	       "  --listen ADDR:PORT    address to listen on (default 127.0.0.1:8080)\n"
	       "  --db FILE             SQLite database (default schedio.db); created and migrated\n"
	       "  --web-dir DIR         dashboard files (default: share/schedio/web next to the binary)\n"
	       "  --open-ingest         accept agent reports without a token (loopback listeners only)\n"
	       "  --open-submissions    accept SSD results without a token\n"
	       "  --max-body BYTES      request body limit as sent (default 4 MiB)\n"
	       "  --max-inflated BYTES  body limit after gzip decompression (default 32 MiB)\n"
	       "  --threads N           HTTP worker threads (default: number of cores)\n"
	       "  --max-connections N   connections held at once (default 4096)\n"
	       "  --timeout SECONDS     idle connection timeout (default 30)\n"
	       "  --tls-cert FILE       serve HTTPS with this PEM certificate (chain); needs --tls-key\n"
	       "  --tls-key FILE        the PEM private key of --tls-cert\n"
	       "  -v, --verbose         log debug lines\n"
	       "  -h, --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n",
	       prog, prog);
}

static void find_web_dir(struct server *srv)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t n;

	if (srv->opt.web_dir) {
		snprintf(srv->web_dir, sizeof(srv->web_dir), "%s", srv->opt.web_dir);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	/* bin/schedio-server -> share/schedio/web, in the build tree and installed alike. */
	snprintf(probe, sizeof(probe), "%s/../share/schedio/web/index.html", dirname(exe));
	if (access(probe, R_OK) == 0 && realpath(probe, srv->web_dir))
		*strrchr(srv->web_dir, '/') = '\0';
}

static int parse_serve(struct server_options *o, int argc, char **argv)
{
	enum { O_LISTEN = 256, O_DB, O_WEB, O_OPEN_INGEST, O_OPEN_SUB, O_MAX_BODY, O_MAX_INFL, O_THREADS, O_MAXCONN,
	       O_TIMEOUT, O_TLS_CERT, O_TLS_KEY };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "db", required_argument, NULL, O_DB },
		{ "web-dir", required_argument, NULL, O_WEB },
		{ "open-ingest", no_argument, NULL, O_OPEN_INGEST },
		{ "open-submissions", no_argument, NULL, O_OPEN_SUB },
		{ "max-body", required_argument, NULL, O_MAX_BODY },
		{ "max-inflated", required_argument, NULL, O_MAX_INFL },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "max-connections", required_argument, NULL, O_MAXCONN },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "tls-cert", required_argument, NULL, O_TLS_CERT },
		{ "tls-key", required_argument, NULL, O_TLS_KEY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "vhV", opts, NULL)) != -1) {
		switch (c) {
		case O_LISTEN:
			o->listen = optarg;
			break;
		case O_DB:
			o->db_path = optarg;
			break;
		case O_WEB:
			o->web_dir = optarg;
			break;
		case O_OPEN_INGEST:
			o->open_ingest = true;
			break;
		case O_OPEN_SUB:
			o->open_submissions = true;
			break;
		case O_MAX_BODY:
			if (cli_parse_u64(optarg, 1024, 1ULL << 32, &v))
				cli_usage_error(prog, "--max-body wants bytes between 1024 and 4 GiB, not '%s'", optarg);
			o->max_body = v;
			break;
		case O_MAX_INFL:
			if (cli_parse_u64(optarg, 1024, 1ULL << 32, &v))
				cli_usage_error(prog, "--max-inflated wants bytes between 1024 and 4 GiB, not '%s'", optarg);
			o->max_inflated = v;
			break;
		case O_THREADS:
			if (cli_parse_u64(optarg, 1, 256, &v))
				cli_usage_error(prog, "--threads wants 1..256, not '%s'", optarg);
			o->threads = (unsigned)v;
			break;
		case O_MAXCONN:
			if (cli_parse_u64(optarg, 1, 1000000, &v))
				cli_usage_error(prog, "--max-connections wants 1..1000000, not '%s'", optarg);
			o->max_connections = (unsigned)v;
			break;
		case O_TIMEOUT:
			if (cli_parse_u64(optarg, 1, 86400, &v))
				cli_usage_error(prog, "--timeout wants seconds 1..86400, not '%s'", optarg);
			o->conn_timeout_s = (unsigned)v;
			break;
		case O_TLS_CERT:
			o->tls_cert = optarg;
			break;
		case O_TLS_KEY:
			o->tls_key = optarg;
			break;
		case 'v':
			log_init(prog, LOG_DEBUG);
			break;
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
	if (optind < argc)
		cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!o->tls_cert != !o->tls_key)
		cli_usage_error(prog, "--tls-cert and --tls-key go together");
	return 0;
}

/* Reads a PEM file whole (MHD wants the text in memory); NULL with the reason printed. */
static char *read_pem(const char *what, const char *path)
{
	char *buf = malloc(1 << 20);
	ssize_t n;

	if (!buf)
		return NULL;
	n = fs_read_small(path, buf, 1 << 20);
	if (n < 0)
		fprintf(stderr, "%s: cannot read %s %s: %s\n", prog, what, path, strerror((int)-n));
	else if (!strstr(buf, "-----BEGIN "))
		fprintf(stderr, "%s: %s %s is not a PEM file\n", prog, what, path);
	else
		return buf;
	free(buf);
	return NULL;
}

static int serve(int argc, char **argv)
{
	struct server srv = {
		.opt = {
			.listen = "127.0.0.1:8080",
			.db_path = "schedio.db",
			.max_body = 4u << 20,
			.max_inflated = 32u << 20,
			.max_connections = 4096,
			.conn_timeout_s = 30,
		},
		.listen_fd = -1,
	};
	char err[1024];
	bool loopback = false;
	sigset_t sigs;
	int sig, rc = 1;

	parse_serve(&srv.opt, argc, argv);
	if (srv.opt.tls_cert) {
		srv.tls_cert_pem = read_pem("--tls-cert", srv.opt.tls_cert);
		srv.tls_key_pem = srv.tls_cert_pem ? read_pem("--tls-key", srv.opt.tls_key) : NULL;
		if (!srv.tls_key_pem) {
			free(srv.tls_cert_pem);
			return 1;
		}
	}
	srv.listen_fd = listen_open(srv.opt.listen, &srv.port, &loopback, err, sizeof(err));
	if (srv.listen_fd < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	if (srv.opt.open_ingest && !loopback) {
		fprintf(stderr, "%s: --open-ingest is allowed only on a loopback address, not %s\n", prog,
			srv.opt.listen);
		goto out;
	}
	srv.db = db_open(srv.opt.db_path, err, sizeof(err));
	if (!srv.db) {
		fprintf(stderr, "%s: %s\n", prog, err);
		goto out;
	}
	find_web_dir(&srv);
	if (!*srv.web_dir)
		log_warn("no dashboard files found; serving the API only (use --web-dir)");

	/* Signals are taken synchronously by this thread; HTTP threads inherit the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (http_start(&srv) < 0)
		goto out;
	/* Tests and the quick start read the bound port (for :0) from this line. */
	printf("schedio-server listening on %s://%.*s:%u/\n", srv.tls_cert_pem ? "https" : "http",
	       (int)(strrchr(srv.opt.listen, ':') - srv.opt.listen), srv.opt.listen, srv.port);
	fflush(stdout);
	sigwait(&sigs, &sig);
	log_info("signal %d: shutting down", sig);
	http_stop(&srv);
	rc = 0;
out:
	if (srv.db)
		sqlite3_close(srv.db);
	if (srv.listen_fd >= 0)
		close(srv.listen_fd);
	free(srv.tls_cert_pem);
	free(srv.tls_key_pem);
	return rc;
}

int main(int argc, char **argv)
{
	log_init(prog, LOG_INFO);
	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return serve(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "token") == 0)
		return token_cmd_main(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] != '-')
		cli_usage_error(prog, "unknown command '%s'", argv[1]);
	return serve(argc, argv);
}
