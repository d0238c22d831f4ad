/* runqlat_set.h - runqueue latency histograms as the server stores them: a
 * set of named histograms (the whole host, each cgroup, each CPU, each
 * scheduler) encoded sparse with varint deltas in one blob per report or
 * rollup row. Sets merge by adding buckets, which is all a rollup or a fleet
 * query does.
 *
 * A host_hist blob holds the RUNQLAT_HOST series (the whole host) and, when the
 * host's samples were run by more than one scheduler or by another one than
 * the row's sched_group, one RUNQLAT_SCHED series per scheduler group (keyed by
 * the group name) that together add up to the RUNQLAT_HOST series. */
#ifndef SCHEDIO_SERVER_SERIES_RUNQLAT_SET_H
#define SCHEDIO_SERVER_SERIES_RUNQLAT_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "common/hist.h"
#include "server/series/blob.h"

enum runqlat_kind { RUNQLAT_HOST = 0, RUNQLAT_CGROUP = 1, RUNQLAT_CPU = 2, RUNQLAT_SCHED = 3 };

struct runqlat_hist {
	uint8_t kind;
	char *key;        /* cgroup path, CPU number as text or scheduler group; "" for the host */
	struct hist hist; /* buckets dense while in memory */
};

struct runqlat_set {
	struct runqlat_hist **v;
	size_t n, cap;
};

/* Selects series while decoding: true to take (kind, key[keylen]). */
typedef bool (*runqlat_filter_fn)(uint8_t kind, const char *key, size_t keylen, void *arg);

/* The series (kind, key) of s, added zeroed if absent; NULL when out of memory. */
struct runqlat_hist *runqlat_set_get(struct runqlat_set *s, uint8_t kind, const char *key, size_t keylen);
/* Adds src into dst (counts, sums and buckets; max of maxima). */
void runqlat_hist_add(struct runqlat_hist *dst, const struct runqlat_hist *src);
/* Starts a blob of nseries series (each then added with runqlat_set_encode_series); the blob
 * decodes as written, and blob_pack lays it out for packing first. */
void runqlat_set_encode_begin(struct blob *out, size_t nseries);
/* Appends one series with its non-zero buckets idx[i] (ascending) holding cnt[i]. */
void runqlat_set_encode_series(struct blob *out, uint8_t kind, const char *key, size_t keylen, uint64_t count,
			       uint64_t sum_ns, uint64_t max_ns, const uint16_t *idx, const uint64_t *cnt, size_t nb);
/* Encodes the set's non-empty series into out. */
void runqlat_set_encode(const struct runqlat_set *s, struct blob *out);
/* Decodes a blob and adds each series that want accepts (all when NULL) into s under
 * its own key; returns 0, -EINVAL for a corrupt blob, -ENOMEM. */
int runqlat_set_add_blob(struct runqlat_set *s, const void *p, size_t len, runqlat_filter_fn want, void *arg);
/* Decodes a blob and adds every series that want accepts into the one histogram into. */
int runqlat_hist_add_blob(struct runqlat_hist *into, const void *p, size_t len, runqlat_filter_fn want, void *arg);
/* Filter for the whole host: takes only the RUNQLAT_HOST series (not the per-scheduler split of the same samples). */
bool runqlat_set_want_host(uint8_t kind, const char *key, size_t keylen, void *arg);
/* Adds the per-scheduler histograms of a host_hist blob into s as RUNQLAT_SCHED series keyed by group:
 * its RUNQLAT_SCHED series when it has any, else its RUNQLAT_HOST series under group (the row's sched_group).
 * Returns 0, -EINVAL for a corrupt blob (s unchanged), -ENOMEM. */
int runqlat_set_add_sched(struct runqlat_set *s, const void *p, size_t len, const char *group);
/* Encodes a host_hist blob: host as the RUNQLAT_HOST series, then the non-empty RUNQLAT_SCHED series of
 * sched unless they are only the one group named group (then the split says nothing new). */
void runqlat_set_encode_host_hist(struct blob *out, const struct runqlat_hist *host, const struct runqlat_set *sched,
				  const char *group);
/* Frees the series of s and empties it. */
void runqlat_set_free(struct runqlat_set *s);
/* Adds count, sum_ns, p50/p90/p99/p999_ns, max_ns (and with buckets, [[index, count]...]) to obj. */
void runqlat_hist_to_json(const struct runqlat_hist *h, cJSON *obj, bool buckets);

#endif /* SCHEDIO_SERVER_SERIES_RUNQLAT_SET_H */
