/* ssd_ratelimit.c - token buckets keyed by client address in a fixed table.
 *
 * The table never grows: when it is full the bucket touched longest ago is
 * reused, so a flood of distinct addresses costs a fixed amount of memory
 * (and at worst forgets a quiet address's debt, which only makes the limit
 * more lenient, never wrong for an active sender). One mutex guards it; the
 * work under it is a scan of a few hundred short strings.
 */
#include "server/http/ssd_ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bucket {
	char addr[64];
	double tokens;
	long long last_ms;
};

struct ssd_ratelimit {
	pthread_mutex_t lock;
	double burst, per_ms;
	unsigned n;
	struct bucket b[];
};

struct ssd_ratelimit *ssd_ratelimit_new(unsigned slots, double burst, double per_min)
{
	struct ssd_ratelimit *rl = calloc(1, sizeof(*rl) + slots * sizeof(struct bucket));

	if (!rl)
		return NULL;
	pthread_mutex_init(&rl->lock, NULL);
	rl->burst = burst;
	rl->per_ms = per_min / 60000.0;
	rl->n = slots;
	return rl;
}

void ssd_ratelimit_free(struct ssd_ratelimit *rl)
{
	if (!rl)
		return;
	pthread_mutex_destroy(&rl->lock);
	free(rl);
}

bool ssd_ratelimit_take(struct ssd_ratelimit *rl, const char *addr, long long now_ms, unsigned *retry_s)
{
	struct bucket *b = NULL, *oldest = &rl->b[0];
	bool ok;

	pthread_mutex_lock(&rl->lock);
	for (unsigned i = 0; i < rl->n; i++) {
		if (rl->b[i].addr[0] && strncmp(rl->b[i].addr, addr, sizeof(rl->b[i].addr) - 1) == 0) {
			b = &rl->b[i];
			break;
		}
		if (rl->b[i].last_ms < oldest->last_ms || (!rl->b[i].addr[0] && oldest->addr[0]))
			oldest = &rl->b[i];
	}
	if (!b) {
		b = oldest;
		snprintf(b->addr, sizeof(b->addr), "%s", addr);
		b->tokens = rl->burst;
		b->last_ms = now_ms;
	}
	if (now_ms > b->last_ms) {
		b->tokens = fmin(rl->burst, b->tokens + (double)(now_ms - b->last_ms) * rl->per_ms);
		b->last_ms = now_ms;
	}
	ok = b->tokens >= 1.0;
	if (ok)
		b->tokens -= 1.0;
	else
		*retry_s = (unsigned)ceil((1.0 - b->tokens) / rl->per_ms / 1000.0);
	pthread_mutex_unlock(&rl->lock);
	return ok;
}
