/* store.h - the one interface between the server and its time-series
 * storage. A backend implements these operations on one connection; each
 * thread (the ingest writer, the rollup worker, every query reader) opens its
 * own handle. Everything above it (merging, percentiles, rollup scheduling,
 * JSON) is backend-independent and works on opaque blobs, so a PostgreSQL
 * backend is a second implementation of struct store_ops, nothing more.
 */
#ifndef SCHEDIO_SERVER_STORE_STORE_H
#define SCHEDIO_SERVER_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/series/blob.h"
#include "server/ingest/report_parse.h"

enum store_level { STORE_RAW = 0, STORE_MINUTE = 1, STORE_HOUR = 2, STORE_LEVELS };

/* Bucket width of each level (raw rows keep their own interval). */
#define STORE_MINUTE_MS 60000LL
#define STORE_HOUR_MS 3600000LL

/* Background jobs that exactly one of several servers sharing a database runs. */
enum store_job { STORE_JOB_ROLLUP = 0, STORE_JOB_RETAIN = 1 };

enum store_put_result { STORE_STORED = 0, STORE_DUPLICATE = 1, STORE_FAILED = 2 };

struct store_host {
	int64_t id;
	const char *machine_id, *hostname, *kernel, *arch, *l3_json, *disks_json;
	const char *sched_state, *sched_ops, *agent_version; /* each NULL when never reported */
	int64_t cpus;                                        /* 0 when never reported */
	int64_t first_seen_ms, last_start_ms, last_end_ms;
	int64_t agent_restarted_ms; /* last time its agent restarted with a new incarnation; 0 when never seen */
	const char *labels;         /* its latest labels as canonical text (common/labels.h); NULL or "" when none */
};

/* One stored row of a level: a raw report or a rollup bucket. */
struct store_row {
	int64_t host_id, t, end; /* [t, end) */
	const char *sched_group, *kernel;
	const void *host_hist, *series, *iocost;
	size_t host_hist_len, series_len, iocost_len;
};

struct store_fleet_row {
	int64_t t, hosts;
	const char *key;
	const void *hist;
	size_t hist_len;
};

typedef int (*store_host_fn)(void *arg, const struct store_host *h);
typedef int (*store_row_fn)(void *arg, const struct store_row *r);
typedef int (*store_fleet_fn)(void *arg, const struct store_fleet_row *r);
/* One raw report as the reports listing shows it. */
struct store_report {
	uint64_t seq;
	int64_t start_ms, end_ms;
	int64_t dropped; /* the agent's delivery.dropped carried by this report */
};

/* One raw report's issue-17 fields (report.health_json), NULL when it had none. */
struct store_health {
	int64_t host_id, start_ms, end_ms;
	const char *health;
};

/* One sched_ext exit a report carried. */
struct store_exit {
	int64_t host_id, t_ms;
	const char *ops, *kind, *reason, *message;
};

/* One saved experiment (issue 15, schema/<backend>/0014): its definition is canonical JSON (experiment.h). */
struct store_experiment {
	int64_t id, created_ms;
	const char *name, *definition;
};

/* Callbacks return 0 to continue, non-zero to stop the scan with that value. */
typedef int (*store_report_fn)(void *arg, const struct store_report *r);
typedef int (*store_health_fn)(void *arg, const struct store_health *h);
typedef int (*store_exit_fn)(void *arg, const struct store_exit *e);
typedef int (*store_id_fn)(void *arg, int64_t a, int64_t b);
typedef int (*store_name_fn)(void *arg, const char *name);
typedef int (*store_experiment_fn)(void *arg, const struct store_experiment *e);
/* A stored zstd dictionary (blob_dicts): its id, kind (enum blob_dict_kind), bytes and when it was stored. */
typedef int (*store_dict_fn)(void *arg, uint32_t id, int kind, const void *p, size_t len, int64_t created_ms);

struct store;

/* Whether stored report r (a new incarnation whose seq went back under the host's last, old_incarnation
 * and old_seq; NULL: none known) is an agent restart; if so logs it and sets r->agent_restarted. */
bool store_agent_restart(struct report *r, const char *old_incarnation, int64_t old_seq);

struct store_ops {
	/* Stores reports in one transaction; results[i] is enum store_put_result.
	 * minute_mark: reports starting before it are late and queue their
	 * (host, minute) for a rollup redo. Returns 0, or -1 when nothing was committed. */
	int (*put_reports)(struct store *st, struct report *const *reps, size_t n, int *results, int64_t now_ms,
			   int64_t minute_mark);
	/* Every host, or just the one with machine_id when not NULL. */
	int (*hosts)(struct store *st, const char *machine_id, store_host_fn fn, void *arg);
	/* seq, interval and drop count of the host's reports starting in [from, to), by seq. */
	int (*reports)(struct store *st, int64_t host_id, int64_t from, int64_t to, store_report_fn fn, void *arg);
	/* Rows of a level starting in [from, to) for one host (by time) or all (host_id < 0). */
	int (*scan)(struct store *st, enum store_level lv, int64_t host_id, int64_t from, int64_t to, store_row_fn fn,
		    void *arg);
	/* Like scan, but the rows carry only host_hist (series and iocost NULL):
	 * whole-host and fleet readers never move the per-cgroup blobs, which
	 * are most of a row's bytes (and, on PostgreSQL, of what crosses libpq). */
	int (*scan_hist)(struct store *st, enum store_level lv, int64_t host_id, int64_t from, int64_t to,
			 store_row_fn fn, void *arg);
	/* The host's latest raw row. */
	int (*latest)(struct store *st, int64_t host_id, store_row_fn fn, void *arg);
	/* Hosts with rows of level lv starting in [from, to): fn(arg, host_id, 0). */
	int (*hosts_in)(struct store *st, enum store_level lv, int64_t from, int64_t to, store_id_fn fn, void *arg);
	/* Fleet rollup rows of (lv, dim) starting in [from, to), by time. */
	int (*fleet_scan)(struct store *st, enum store_level lv, const char *dim, int64_t from, int64_t to,
			  store_fleet_fn fn, void *arg);
	/* Every raw report of host (all hosts when < 0, then by host) starting in [from, to), by time,
	 * with its health JSON (NULL when it had none). */
	int (*health_scan)(struct store *st, int64_t host_id, int64_t from, int64_t to, store_health_fn fn, void *arg);
	/* sched_ext exits of host (all hosts when < 0, then by host) at t_ms in [from, to), by time. */
	int (*exits_scan)(struct store *st, int64_t host_id, int64_t from, int64_t to, store_exit_fn fn, void *arg);
	/* Machine ids, sorted, of the hosts whose reports starting in [from, to) carried the label
	 * pair ("key=value", checked); fn(arg, machine_id) once per host. */
	int (*label_hosts)(struct store *st, const char *pair, int64_t from, int64_t to, store_name_fn fn, void *arg);
	/* Saved experiments (issue 15), by id: all of them, or the one with id when id > 0. */
	int (*experiments)(struct store *st, int64_t id, store_experiment_fn fn, void *arg);
	/* Stores experiment name (its id is new, *id): 0, 1 when name is taken (nothing stored), -1 on error. */
	int (*experiment_put)(struct store *st, const char *name, const char *definition, int64_t created_ms,
			      int64_t *id);
	/* Deletes experiment id: 0, 1 when there is none, -1 on error. */
	int (*experiment_delete)(struct store *st, int64_t id);

	/* The rollup worker's writes, inside begin/commit. */
	int (*begin)(struct store *st);
	int (*commit)(struct store *st);
	void (*rollback)(struct store *st);
	/* Replaces one host's bucket at a rollup level. */
	int (*rollup_put)(struct store *st, enum store_level lv, const struct store_row *r);
	/* Replaces one fleet bucket; an empty hist deletes it. */
	int (*fleet_put)(struct store *st, enum store_level lv, int64_t t, const char *dim, const char *key,
			 int64_t hosts, const struct blob *hist);
	/* Takes (and removes) up to max queued late buckets: fn(arg, host_id, minute). */
	int (*dirty_take)(struct store *st, int max, store_id_fn fn, void *arg);
	/* Deletes up to max rows of level lv starting before before_ms; returns rows deleted or -1.
	 * The raw level takes the reports' health with them; the 1-minute level also
	 * deletes the sched_ext exits and the label spans (but each host's latest) before before_ms. */
	int (*expire)(struct store *st, enum store_level lv, int64_t before_ms, int max);
	/* Optional (NULL: raw reports stay one a row): outside begin/commit (it commits its own short
	 * transactions), moves a share of the raw rows older than the store's bound and mark_ms (the minute
	 * rollups' mark) into denser storage that every raw read still reads; 1 when more remains, 0, -1. */
	int (*compact)(struct store *st, int64_t now_ms, int64_t mark_ms);
	/* Stores zstd dictionary id of kind (nothing when id is stored already); 0 or -1. Outside begin/commit:
	 * it is committed when this returns, before any blob is packed with it. */
	int (*dict_put)(struct store *st, uint32_t id, int kind, const void *p, size_t len, int64_t now_ms);
	/* Every stored dictionary, oldest first. */
	int (*dicts)(struct store *st, store_dict_fn fn, void *arg);
	/* A persisted integer setting (rollup progress); returns 0 and *v, 1 when unset, -1 on error. */
	int (*meta_get)(struct store *st, const char *key, int64_t *v);
	int (*meta_put)(struct store *st, const char *key, int64_t v);
	/* Optional (NULL: always 1): 1 if this handle leads job (and keeps leading while it lives),
	 * 0 if another server's handle does, -1 on error. */
	int (*try_lead)(struct store *st, enum store_job job);
	/* Housekeeping kept out of commits (SQLite: WAL checkpoints; handles never
	 * checkpoint on commit). background: from a thread that only does this,
	 * every 100 ms; otherwise from a writer between transactions, which does
	 * it only when the background one has fallen far behind. */
	int (*maintain)(struct store *st, bool background);
	/* Optional (NULL: nothing to do): work a writer defers to when no report waits (SQLite: moving
	 * staged reports into place); 1 if more remains, 0 if none, -1 on error. */
	int (*idle)(struct store *st, int64_t now_ms);
	/* Bytes the database takes on disk. */
	int64_t (*size_bytes)(struct store *st);
	/* Last error message of this handle. */
	const char *(*errmsg)(struct store *st);
	void (*close)(struct store *st);
};

struct store {
	const struct store_ops *ops;
};

/* Declares a backend's read operations prefix_hosts ... prefix_fleet_scan, the
 * struct store_ops members of those names, for a backend whose reads live in
 * their own file. */
#define STORE_DECLARE_READ_OPS(prefix)                                                                                 \
	int prefix##_hosts(struct store *base, const char *machine_id, store_host_fn fn, void *arg);                   \
	int prefix##_reports(struct store *base, int64_t host_id, int64_t from, int64_t to, store_report_fn fn,        \
			     void *arg);                                                                               \
	int prefix##_scan(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,          \
			  store_row_fn fn, void *arg);                                                                 \
	int prefix##_scan_hist(struct store *base, enum store_level lv, int64_t host_id, int64_t from, int64_t to,     \
			       store_row_fn fn, void *arg);                                                            \
	int prefix##_latest(struct store *base, int64_t host_id, store_row_fn fn, void *arg);                          \
	int prefix##_hosts_in(struct store *base, enum store_level lv, int64_t from, int64_t to, store_id_fn fn,       \
			      void *arg);                                                                              \
	int prefix##_fleet_scan(struct store *base, enum store_level lv, const char *dim, int64_t from, int64_t to,    \
				store_fleet_fn fn, void *arg);                                                         \
	int prefix##_health_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_health_fn fn,    \
				 void *arg);                                                                           \
	int prefix##_exits_scan(struct store *base, int64_t host_id, int64_t from, int64_t to, store_exit_fn fn,       \
				void *arg);                                                                            \
	int prefix##_label_hosts(struct store *base, const char *pair, int64_t from, int64_t to, store_name_fn fn,     \
				 void *arg);                                                                           \
	int prefix##_experiments(struct store *base, int64_t id, store_experiment_fn fn, void *arg);                   \
	int prefix##_experiment_put(struct store *base, const char *name, const char *definition, int64_t created_ms,  \
				    int64_t *id);                                                                      \
	int prefix##_experiment_delete(struct store *base, int64_t id)

/* The hosts (machine ids) that sent at least one report starting in [from_ms, to_ms) carrying the
 * label key=value (issue 15), sorted; the caller frees each id and the array with free().
 * 0, or -EINVAL for a key or value no label can have, -ENOMEM, -EIO on a database error. */
int store_labels_hosts(struct store *s, const char *key, const char *value, int64_t from_ms, int64_t to_ms,
		       char ***host_ids, size_t *n);

/* Opens a SQLite store handle on an already migrated database file; NULL with err on failure. */
struct store *store_sqlite_open(const char *path, char *err, size_t errlen);
/* Opens a PostgreSQL store handle (its own connection) on a migrated database; NULL with err. */
struct store *store_pg_open(const char *conninfo, char *err, size_t errlen);
/* Opens a store handle of the backend db names (store_pg_open for a conninfo, else SQLite). */
struct store *store_open(const char *db, char *err, size_t errlen);

#endif /* SCHEDIO_SERVER_STORE_STORE_H */
