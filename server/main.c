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
#include "common/cli_opts.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "server/store/checkpointer.h"
#include "server/http/http.h"
#include "server/http/listen.h"
#include "server/ingest/ingest.h"
#include "server/series/blob_dict.h"
#include "server/series/rollup.h"
#include "server/server.h"
#include "server/http/ssd_ratelimit.h"
#include "server/store/ssd_store.h"
#include "server/store/store.h"
#include "server/store/pg/pg_conn.h"
#include "server/store/sqlite/sqlite_db.h"
#include "server/store/store_pool.h"
#include "server/token_cmd.h"
#include "server/store/token_store.h"

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
	       "  --db FILE|CONNINFO    SQLite database file (default schedio.db), or PostgreSQL\n"
	       "                        (postgresql://... or 'host=... dbname=...'); created/migrated\n"
	       "  --web-dir DIR         dashboard files (default: share/schedio/web next to the binary)\n"
	       "  --open-ingest         accept agent reports without a token (loopback listeners only)\n"
	       "  --open-submissions    accept SSD results without a token\n"
	       "  --require-read-token  every API read and /metrics need a token of scope read or admin\n"
	       "                        (the default on any address but loopback; /healthz stays open)\n"
	       "  --open-reads          answer reads without a token, even off loopback (logs a warning)\n"
	       "  --max-body BYTES      request body limit as sent (default 4 MiB)\n"
	       "  --max-inflated BYTES  body limit after gzip decompression (default 32 MiB)\n"
	       "  --threads N           HTTP worker threads (default: number of cores); as many\n"
	       "                        read workers, at most 4, run the reads that query a store\n"
	       "  --max-connections N   connections held at once (default 4096)\n"
	       "  --timeout SECONDS     idle connection timeout (default 30)\n"
	       "  --ingest-max-wait MS  answer a report within about this long: one that cannot be\n"
	       "                        stored in time is refused with 503 and Retry-After, and its\n"
	       "                        agent sends it again later (default 500, 10..60000)\n"
	       "  --ingest-queue N      reports parsed and waiting for the database at most; more are\n"
	       "                        refused the same way (default 4096, 1..1000000)\n"
	       "  --ingest-linger MS    while few reports wait, gather more for up to this long before\n"
	       "                        committing them together, as long as they keep arriving\n"
	       "                        (default 40, 0..100; 0: never)\n"
	       "  --blob-dict-samples N train a zstd dictionary for the reports' blobs on the first N\n"
	       "                        reports (default 1000, 0..100000; 0: none, new blobs packed\n"
	       "                        without one)\n"
	       "  --blob-dict-grace S   use a new dictionary S seconds after it is stored, once every\n"
	       "                        server on the database has loaded it (default 15, 0..3600)\n"
	       "  --retain-raw DUR      keep raw report data this long (default 48h; s, m, h, d suffixes)\n"
	       "  --retain-minute DUR   keep 1-minute rollups this long (default 14d)\n"
	       "  --retain-hour DUR     keep 1-hour rollups this long (default 365d)\n"
	       "  --tls-cert FILE       serve HTTPS with this PEM certificate (chain); needs --tls-key\n"
	       "  --tls-key FILE        the PEM private key of --tls-cert\n"
	       "  --metrics-per-host    /metrics: each host's runqueue latency histogram (23 series a\n"
	       "                        host), not only the fleet's\n"
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

/* A duration with an s, m, h or d suffix (seconds when bare), at least a minute. */
static int parse_duration_ms(const char *s, int64_t *out)
{
	char *end;
	unsigned long long v;
	int64_t unit = 1000;

	if (!*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	if (*end && end[1])
		return -1;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		unit = 60000;
		break;
	case 'h':
		unit = 3600000;
		break;
	case 'd':
		unit = 86400000;
		break;
	default:
		return -1;
	}
	if (v > 100ULL * 365 * 86400000 / (unsigned long long)unit || (int64_t)v * unit < 60000)
		return -1;
	*out = (int64_t)v * unit;
	return 0;
}

static int parse_serve(struct server_options *o, int argc, char **argv)
{
	enum {
		O_LISTEN = 256,
		O_DB,
		O_WEB,
		O_OPEN_INGEST,
		O_OPEN_SUB,
		O_MAX_BODY,
		O_MAX_INFL,
		O_THREADS,
		O_MAXCONN,
		O_TIMEOUT,
		O_RET_RAW,
		O_RET_MIN,
		O_RET_HOUR,
		O_TLS_CERT,
		O_TLS_KEY,
		O_READ_TOKEN,
		O_OPEN_READS,
		O_METRICS_PER_HOST,
		O_INGEST_MAX_WAIT,
		O_INGEST_QUEUE,
		O_INGEST_LINGER,
		O_BLOB_DICT_SAMPLES,
		O_BLOB_DICT_GRACE
	};
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
		{ "retain-raw", required_argument, NULL, O_RET_RAW },
		{ "retain-minute", required_argument, NULL, O_RET_MIN },
		{ "retain-hour", required_argument, NULL, O_RET_HOUR },
		{ "tls-cert", required_argument, NULL, O_TLS_CERT },
		{ "tls-key", required_argument, NULL, O_TLS_KEY },
		{ "require-read-token", no_argument, NULL, O_READ_TOKEN },
		{ "open-reads", no_argument, NULL, O_OPEN_READS },
		{ "metrics-per-host", no_argument, NULL, O_METRICS_PER_HOST },
		{ "ingest-max-wait", required_argument, NULL, O_INGEST_MAX_WAIT },
		{ "ingest-linger", required_argument, NULL, O_INGEST_LINGER },
		{ "ingest-queue", required_argument, NULL, O_INGEST_QUEUE },
		{ "blob-dict-samples", required_argument, NULL, O_BLOB_DICT_SAMPLES },
		{ "blob-dict-grace", required_argument, NULL, O_BLOB_DICT_GRACE },
		CLI_OPTS_COMMON,
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
				cli_usage_error(prog, "--max-body wants bytes between 1024 and 4 GiB, not '%s'",
						optarg);
			o->max_body = v;
			break;
		case O_MAX_INFL:
			if (cli_parse_u64(optarg, 1024, 1ULL << 32, &v))
				cli_usage_error(prog, "--max-inflated wants bytes between 1024 and 4 GiB, not '%s'",
						optarg);
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
		case O_RET_RAW:
		case O_RET_MIN:
		case O_RET_HOUR:
			if (parse_duration_ms(optarg, &o->retain_ms[c - O_RET_RAW]))
				cli_usage_error(prog,
						"--%s wants a duration like 48h, 14d or 3600s (at least 1m), not '%s'",
						opts[c - O_LISTEN].name, optarg);
			break;
		case O_TLS_CERT:
			o->tls_cert = optarg;
			break;
		case O_TLS_KEY:
			o->tls_key = optarg;
			break;
		case O_READ_TOKEN:
		case O_OPEN_READS:
			if (o->read_token == (c == O_READ_TOKEN ? 0 : 1))
				cli_usage_error(prog, "--require-read-token and --open-reads contradict each other");
			o->read_token = c == O_READ_TOKEN;
			break;
		case O_METRICS_PER_HOST:
			o->metrics_per_host = true;
			break;
		case O_INGEST_MAX_WAIT:
			if (cli_parse_u64(optarg, 10, 60000, &v))
				cli_usage_error(prog, "--ingest-max-wait wants milliseconds 10..60000, not '%s'",
						optarg);
			o->ingest_max_wait_ms = (unsigned)v;
			break;
		case O_INGEST_QUEUE:
			if (cli_parse_u64(optarg, 1, 1000000, &v))
				cli_usage_error(prog, "--ingest-queue wants 1..1000000, not '%s'", optarg);
			o->ingest_queue = (unsigned)v;
			break;
		case O_INGEST_LINGER:
			if (cli_parse_u64(optarg, 0, 100, &v))
				cli_usage_error(prog, "--ingest-linger wants milliseconds 0..100, not '%s'", optarg);
			o->ingest_linger_ms = (unsigned)v;
			break;
		case O_BLOB_DICT_SAMPLES:
			if (cli_parse_u64(optarg, 0, 100000, &v))
				cli_usage_error(prog, "--blob-dict-samples wants 0..100000, not '%s'", optarg);
			o->blob_dict_samples = (unsigned)v;
			break;
		case O_BLOB_DICT_GRACE:
			if (cli_parse_u64(optarg, 0, 3600, &v))
				cli_usage_error(prog, "--blob-dict-grace wants seconds 0..3600, not '%s'", optarg);
			o->blob_dict_grace_s = (unsigned)v;
			break;
		default:
			cli_opts_common(prog, c, argc, argv, usage);
		}
	}
	cli_opts_no_operands(prog, argc, argv);
	if (!o->tls_cert != !o->tls_key)
		cli_usage_error(prog, "--tls-cert and --tls-key go together");
	return 0;
}

static unsigned http_threads(const struct server_options *o)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return o->threads ? o->threads : n > 0 ? (unsigned)n : 1;
}

/* The writer, the rollup worker and the query readers each get their own connections. */
static int start_storage(struct server *srv, char *err, size_t errlen)
{
	struct store *w, *r, *c;

	/* the HTTP threads, the read workers (http.c) and one more */
	srv->readers = store_pool_open(
	    srv->opt.db_path, http_threads(&srv->opt) + http_read_workers(http_threads(&srv->opt)) + 1, err, errlen);
	if (!srv->readers)
		return -1;
	w = store_open(srv->opt.db_path, err, errlen);
	if (!w)
		return -1;
	srv->ingest = ingest_start(srv, w,
				   (struct ingest_limits){ .max_queue = srv->opt.ingest_queue,
							   .max_wait_us = (int64_t)srv->opt.ingest_max_wait_ms * 1000,
							   .linger_us = (int64_t)srv->opt.ingest_linger_ms * 1000 });
	if (!srv->ingest) {
		snprintf(err, errlen, "cannot start the ingest writer");
		return -1;
	}
	/* WAL checkpoints are SQLite's; PostgreSQL does its own housekeeping. */
	if (!pg_is_conninfo(srv->opt.db_path)) {
		c = store_sqlite_open(srv->opt.db_path, err, errlen);
		if (!c)
			return -1;
		srv->checkpointer = checkpointer_start(c);
		if (!srv->checkpointer) {
			snprintf(err, errlen, "cannot start the checkpointer");
			return -1;
		}
	}
	r = store_open(srv->opt.db_path, err, errlen);
	if (!r)
		return -1;
	srv->rollup = rollup_new(r, srv->ingest, srv->opt.retain_ms);
	if (!srv->rollup || rollup_start_thread(srv->rollup) < 0) {
		snprintf(err, errlen, "cannot start the rollup worker");
		return -1;
	}
	return 0;
}

/* Opens (creating and migrating) the database, its tokens and the SSD store, in
 * the backend --db names: a PostgreSQL conninfo, or else a SQLite file. The
 * token store opens first: it is the one that creates and migrates. */
static int open_database(struct server *srv, char *err, size_t errlen)
{
	srv->tokens = token_store_open(srv->opt.db_path, err, errlen);
	if (!srv->tokens)
		return -1;
	srv->ssd_store = ssd_store_open(srv->opt.db_path, err, errlen);
	return srv->ssd_store ? 0 : -1;
}

/* Reads a PEM file whole (MHD wants the text in memory); NULL with the reason logged. */
static char *read_pem(const char *what, const char *path)
{
	char *buf = malloc(1 << 20);
	ssize_t n;

	if (!buf)
		return NULL;
	n = fs_read_small(path, buf, 1 << 20);
	if (n < 0)
		log_error("cannot read %s %s: %s", what, path, strerror((int)-n));
	else if (!strstr(buf, "-----BEGIN "))
		log_error("%s %s is not a PEM file", what, path);
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
			.read_token = -1,
			.ingest_queue = 4096,
			.ingest_max_wait_ms = 500,
			.ingest_linger_ms = 40,
			.blob_dict_samples = BLOB_DICT_SAMPLES_DEFAULT,
			.blob_dict_grace_s = BLOB_DICT_GRACE_MS_DEFAULT / 1000,
			.retain_ms = { rollup_default_retain_ms[0], rollup_default_retain_ms[1],
				       rollup_default_retain_ms[2] },
		},
		.listen_fd = -1,
	};
	char err[1024];
	bool loopback = false;
	sigset_t sigs;
	int sig, rc = 1;

	parse_serve(&srv.opt, argc, argv);
	sqlite_db_configure(); /* before any SQLite store opens */
	blob_dict_configure(srv.opt.blob_dict_samples, (int64_t)srv.opt.blob_dict_grace_s * 1000);
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
		log_error("%s", err);
		goto out;
	}
	if (srv.opt.open_ingest && !loopback) {
		log_error("--open-ingest is allowed only on a loopback address, not %s", srv.opt.listen);
		goto out;
	}
	srv.require_read = srv.opt.read_token == 1 || (srv.opt.read_token < 0 && !loopback);
	if (srv.opt.read_token == 0 && !loopback)
		log_warn("--open-reads: anyone who can reach %s reads every host, cgroup, disk and kernel it knows",
			 srv.opt.listen);
	else if (srv.require_read)
		log_info("reads need a token of scope read or admin%s",
			 srv.opt.read_token < 0 ? " (not a loopback address; --open-reads opens them)" : "");
	if (open_database(&srv, err, sizeof(err)) < 0) {
		log_error("%s", err);
		goto out;
	}
	srv.ssd_ratelimit = ssd_ratelimit_new(1024, SSD_RATELIMIT_BURST, SSD_RATELIMIT_PER_MIN);
	if (!srv.ssd_ratelimit) {
		log_error("out of memory");
		goto out;
	}
	/* Signals are taken synchronously by this thread; every thread started from here on inherits the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (start_storage(&srv, err, sizeof(err)) < 0) {
		log_error("%s", err);
		goto out;
	}
	find_web_dir(&srv);
	if (!*srv.web_dir)
		log_warn("no dashboard files found; serving the API only (use --web-dir)");

	if (http_start(&srv) < 0)
		goto out;
	/* Tests and the quick start read the bound port (for :0) from this line. */
	printf("schedio-server listening on %s://%.*s:%u/\n", srv.tls_cert_pem ? "https" : "http",
	       (int)(strrchr(srv.opt.listen, ':') - srv.opt.listen), srv.opt.listen, srv.port);
	fflush(stdout);
	sigwait(&sigs, &sig);
	log_info("signal %d: shutting down", sig);
	/* New requests are answered 503 and no handler runs past this point;
	 * reports in flight are committed and answered before the HTTP threads
	 * stop (suspended connections must be resumed first). */
	http_drain(&srv);
	/* The rollup worker fences the ingest writer: it stops first. */
	rollup_free(srv.rollup);
	srv.rollup = NULL;
	ingest_stop(srv.ingest);
	srv.ingest = NULL;
	http_stop(&srv);
	rc = 0;
out:
	if (srv.ssd_store)
		srv.ssd_store->ops->close(srv.ssd_store);
	ssd_ratelimit_free(srv.ssd_ratelimit);
	rollup_free(srv.rollup);
	ingest_stop(srv.ingest);
	checkpointer_stop(srv.checkpointer);
	store_pool_close(srv.readers);
	if (srv.tokens)
		srv.tokens->ops->close(srv.tokens);
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
