/* server.h - the state one schedio-server process shares between its HTTP
 * threads: options, the database, where the dashboard lives.
 */
#ifndef SCHEDIO_SERVER_SERVER_H
#define SCHEDIO_SERVER_SERVER_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/ingest/stats.h"

struct ssd_store;
struct token_store;
struct ssd_ratelimit;

struct server_options {
	const char *listen;       /* ADDR:PORT, [ADDR6]:PORT */
	const char *db_path;      /* SQLite file, or a PostgreSQL conninfo (pg_conn.h) */
	const char *web_dir;      /* dashboard assets; found next to the binary when NULL */
	bool open_ingest;         /* accept reports without a token (loopback only) */
	bool open_submissions;    /* accept SSD results without a token */
	size_t max_body;          /* request body cap as sent (compressed) */
	size_t max_inflated;      /* request body cap after gzip decompression */
	unsigned threads;         /* HTTP worker threads; 0 = number of cores */
	unsigned max_connections; /* concurrent connections held */
	unsigned conn_timeout_s;  /* idle connection timeout */
	int64_t retain_ms[3];     /* retention of raw, 1-minute and 1-hour data */
	const char *tls_cert;     /* PEM certificate (chain) file: serve HTTPS; NULL: plain HTTP */
	const char *tls_key;      /* PEM private key file for tls_cert */
	int read_token;        /* reads need a read token: 1 --require-read-token, 0 --open-reads, -1 unless loopback */
	bool metrics_per_host; /* /metrics: each host's runqueue latency histogram, not only the fleet's */
	unsigned ingest_queue; /* reports waiting for the ingest writer at most (--ingest-queue) */
	unsigned ingest_max_wait_ms; /* a report is stored or refused within about this long (--ingest-max-wait) */
	unsigned blob_dict_samples;  /* reports a blob dictionary is trained on, 0: none (--blob-dict-samples) */
	unsigned blob_dict_grace_s;  /* a stored dictionary is used this long after (--blob-dict-grace) */
	unsigned ingest_linger_ms;   /* the ingest writer gathers a batch this long at most (--ingest-linger) */
};

struct ingest;
struct rollup;
struct store_pool;
struct checkpointer;
struct offload;

struct server {
	struct server_options opt;
	struct token_store *tokens; /* the tokens, in the same backend (token_store.h) */
	char web_dir[PATH_MAX];     /* empty when no dashboard was found */
	struct MHD_Daemon *mhd;
	struct offload *offload;           /* the workers of slow reads (server/http/offload.c) */
	int listen_fd;                     /* owned by mhd once it started (closed with it) */
	atomic_bool draining;              /* shutting down: new requests get 503 (http_drain) */
	atomic_int in_handler;             /* requests inside a route handler right now */
	atomic_int held;                   /* suspended requests whose answer is not sent yet */
	unsigned short port;               /* the port actually bound (for :0) */
	bool require_read;                 /* every API GET but /healthz, and /metrics, needs scope read */
	struct stats stats;                /* ingest counters for /metrics */
	struct ingest *ingest;             /* the report writer (server/ingest/ingest.c) */
	struct rollup *rollup;             /* rollups and retention (server/series/rollup.c) */
	struct store_pool *readers;        /* query connections (server/store/store_pool.c) */
	struct checkpointer *checkpointer; /* WAL upkeep off the ingest path */
	char *tls_cert_pem;                /* contents of opt.tls_cert/tls_key, alive while serving */
	char *tls_key_pem;
	struct ssd_store *ssd_store;         /* the SSD model database (ssd_store.h) */
	struct ssd_ratelimit *ssd_ratelimit; /* per-address budget under --open-submissions */
};

#endif /* SCHEDIO_SERVER_SERVER_H */
