/* stats.h - the server's own counters for /metrics: reports accepted,
 * duplicates, rejections by reason, load shed by reason, and the histograms
 * of the ingest latency and of the writer's commits. Plain atomics, so the
 * hot path never takes a lock to count. */
#ifndef SCHEDIO_SERVER_INGEST_STATS_H
#define SCHEDIO_SERVER_INGEST_STATS_H

#include <stdatomic.h>
#include <stdint.h>

enum stats_reject {
	STATS_REJECT_UNAUTHORIZED, /* 401 */
	STATS_REJECT_INVALID,      /* 400: malformed JSON, wrong types, missing fields */
	STATS_REJECT_UNSUPPORTED,  /* 422/415: unknown layout, schema or encoding */
	STATS_REJECT_TOO_LARGE,    /* 413 */
	STATS_REJECT_UNAVAILABLE,  /* 503: queue full or shutting down */
	STATS_REJECT_STORE,        /* 500: the database refused the batch */
	STATS_REJECT_REASONS
};

/* Why ingest refused a report it could not store in time (503 + Retry-After). */
enum stats_shed {
	STATS_SHED_QUEUE_FULL,    /* the queue already held --ingest-queue reports */
	STATS_SHED_EXPECTED_WAIT, /* its wait so far (in its socket too) and the writer's backlog pass half the bound */
	STATS_SHED_DEADLINE,      /* it waited in the queue until it could no longer be stored in time */
	STATS_SHED_REASONS
};

/* Upper bounds (seconds) of the histograms' buckets; +Inf follows. */
#define STATS_LATENCY_BUCKETS 12
extern const double stats_latency_le[STATS_LATENCY_BUCKETS];

/* A histogram of durations in the buckets above. */
struct stats_hist {
	atomic_uint_fast64_t bucket[STATS_LATENCY_BUCKETS + 1];
	atomic_uint_fast64_t count, sum_us;
};

struct stats {
	atomic_uint_fast64_t accepted, duplicates;
	atomic_uint_fast64_t agent_dropped;  /* sum of delivery.dropped over stored (not duplicate) reports */
	atomic_uint_fast64_t agent_restarts; /* stored reports that showed an agent restart (store_agent_restart) */
	atomic_uint_fast64_t rejected[STATS_REJECT_REASONS];
	atomic_uint_fast64_t shed[STATS_SHED_REASONS]; /* also counted in rejected[STATS_REJECT_UNAVAILABLE] */
	struct stats_hist latency;                     /* a report's arrival to its answer */
	struct stats_hist commit;                      /* the writer storing and committing one batch */
	atomic_uint_fast64_t batches, batch_reports;
};

/* Name of a rejection reason as the metrics label shows it. */
const char *stats_reject_name(enum stats_reject r);
/* Name of a shedding reason as the metrics label shows it. */
const char *stats_shed_name(enum stats_shed r);
/* Records one duration of us microseconds in h. */
void stats_hist_add(struct stats_hist *h, uint64_t us);

#endif /* SCHEDIO_SERVER_INGEST_STATS_H */
