/* compare_decode.h - decoding the per-cgroup blobs of a comparison's rows on
 * more than one core. Inflating and walking a row's series blob (every
 * cgroup and CPU of the report) is most of a cgroup comparison's time, and
 * rows are independent: decoder threads take the rows of their share of the
 * hosts, so each host's histograms are only ever added to by one thread and
 * need no lock. Adding histograms is exact and does not depend on order, so
 * the answer is the same as decoding every row in the caller's thread.
 */
#ifndef SCHEDIO_SERVER_COMPARE_COMPARE_DECODE_H
#define SCHEDIO_SERVER_COMPARE_COMPARE_DECODE_H

#include <stddef.h>

#include "server/series/runqlat_set.h"

#define COMPARE_DECODE_MAX_DST 8 /* histograms one row can be added into */

struct compare_decode;

/* Starts up to threads decoders that decode with want(kind, key, arg) (arg read-only while they run);
 * NULL when none started (the caller decodes every row itself). */
struct compare_decode *compare_decode_start(unsigned threads, runqlat_filter_fn want, void *arg);
/* True when host's rows go to a decoder (compare_decode_push), false when the caller decodes them; d may be NULL. */
bool compare_decode_takes(const struct compare_decode *d, size_t host);
/* Queues a copy of blob[len] to be decoded and added into dst[0..n) by host's decoder (waits while its queue
 * is full); 0, -EINVAL for n out of range, or -ENOMEM. */
int compare_decode_push(struct compare_decode *d, size_t host, const void *blob, size_t len,
			struct runqlat_hist *const *dst, size_t n);
/* Waits until every queued row is added, stops the decoders and frees d (NULL: nothing); 0, or -ENOMEM when
 * a decoder could not decode a row for want of memory. */
int compare_decode_finish(struct compare_decode *d);

#endif /* SCHEDIO_SERVER_COMPARE_COMPARE_DECODE_H */
