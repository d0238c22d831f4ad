/* runqlat_counters.h - the runqueue latency /metrics exports as Prometheus
 * histograms that only grow: for the whole fleet and for each host, the
 * buckets, sum and count of every report stored since the server started,
 * folded from the 528-bucket layout into RUNQLAT_COUNTERS_BOUNDS fixed
 * bounds. Kept in memory and added to as reports are stored, so a restart
 * starts them again from zero (Prometheus's rate() takes that as a counter
 * reset). */
#ifndef SCHEDIO_SERVER_INGEST_RUNQLAT_COUNTERS_H
#define SCHEDIO_SERVER_INGEST_RUNQLAT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Upper bounds (seconds) of the exported buckets, 1 us to 2.5 s in 1-2.5-5 steps; +Inf follows. */
#define RUNQLAT_COUNTERS_BOUNDS 20
extern const double runqlat_counters_le[RUNQLAT_COUNTERS_BOUNDS];
/* Hosts counted one by one at most; reports of later hosts count in the fleet histogram only. */
#define RUNQLAT_COUNTERS_MAX_HOSTS 5000

/* Folds dense buckets[HIST_BUCKETS] into out[i], the count of exported bucket i (not cumulative;
 * i = RUNQLAT_COUNTERS_BOUNDS is above the last bound): a layout bucket goes to the first bound at or
 * above the value it stands for (hist_bucket_value), as the API's percentiles read it. */
void runqlat_counters_fold(const uint64_t *buckets, uint64_t out[RUNQLAT_COUNTERS_BOUNDS + 1]);
/* Adds the RUNQLAT_HOST series of a stored report's host_hist blob to the fleet's and its host's
 * counters (the host is named by machine_id; hostname and end_ms are its latest); returns 0, or
 * -EINVAL for a corrupt blob or -ENOMEM, with nothing added. */
int runqlat_counters_add(const char *machine_id, const char *hostname, int64_t end_ms, const void *host_hist,
			 size_t len);
/* Writes schedio_fleet_runqlat_seconds (always, zero before any report) and, when per_host,
 * schedio_runqlat_seconds{host,id} of each host whose latest report ended at or after since_ms,
 * as Prometheus text through out(arg, text, len); returns 0 or -ENOMEM (out may have had a part). */
int runqlat_counters_write(void (*out)(void *arg, const char *text, size_t len), void *arg, bool per_host,
			   int64_t since_ms);
/* Forgets every counter (tests). */
void runqlat_counters_reset(void);

#endif /* SCHEDIO_SERVER_INGEST_RUNQLAT_COUNTERS_H */
