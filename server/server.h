/* server.h - the state one schedio-server process shares between its HTTP
 * threads: options, the database, where the dashboard lives.
 */
#ifndef SCHEDIO_SERVER_H
#define SCHEDIO_SERVER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>

struct server_options {
	const char *listen;         /* ADDR:PORT, [ADDR6]:PORT */
	const char *db_path;        /* SQLite file */
	const char *web_dir;        /* dashboard assets; found next to the binary when NULL */
	bool open_ingest;           /* accept reports without a token (loopback only) */
	bool open_submissions;      /* accept SSD results without a token */
	size_t max_body;            /* request body cap as sent (compressed) */
	size_t max_inflated;        /* request body cap after gzip decompression */
	unsigned threads;           /* HTTP worker threads; 0 = number of cores */
	unsigned max_connections;   /* concurrent connections held */
	unsigned conn_timeout_s;    /* idle connection timeout */
	const char *tls_cert;       /* PEM certificate (chain) file: serve HTTPS; NULL: plain HTTP */
	const char *tls_key;        /* PEM private key file for tls_cert */
};

struct server {
	struct server_options opt;
	sqlite3 *db;
	char web_dir[PATH_MAX];     /* empty when no dashboard was found */
	struct MHD_Daemon *mhd;
	int listen_fd;
	unsigned short port;        /* the port actually bound (for :0) */
	char *tls_cert_pem;         /* contents of opt.tls_cert/tls_key, alive while serving */
	char *tls_key_pem;
};

#endif /* SCHEDIO_SERVER_H */
