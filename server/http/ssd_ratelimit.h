/* ssd_ratelimit.h - a per-client-address token bucket for SSD submissions
 * when the server accepts them without a token (--open-submissions).
 */
#ifndef SCHEDIO_SERVER_HTTP_SSD_RATELIMIT_H
#define SCHEDIO_SERVER_HTTP_SSD_RATELIMIT_H

#include <stdbool.h>

#define SSD_RATELIMIT_BURST 30     /* submissions an address may send at once */
#define SSD_RATELIMIT_PER_MIN 30.0 /* and then, sustained, per minute */

struct ssd_ratelimit;

/* Creates a limiter remembering up to slots addresses; NULL on OOM. */
struct ssd_ratelimit *ssd_ratelimit_new(unsigned slots, double burst, double per_min);
/* Frees the limiter. */
void ssd_ratelimit_free(struct ssd_ratelimit *rl);
/* Takes one token for addr at time now_ms; true if allowed, else false with the
 * seconds until the next token in *retry_s. */
bool ssd_ratelimit_take(struct ssd_ratelimit *rl, const char *addr, long long now_ms, unsigned *retry_s);

#endif /* SCHEDIO_SERVER_HTTP_SSD_RATELIMIT_H */
