/* gz.h - gzip in and out with a hard cap on what decompression may produce,
 * so a small hostile body can never become a huge allocation (gzip bombs).
 */
#ifndef SCHEDIO_COMMON_GZ_H
#define SCHEDIO_COMMON_GZ_H

#include <stdbool.h>
#include <stddef.h>

/* True if buf starts with the gzip magic bytes 1f 8b. */
bool gz_is_gzip(const void *buf, size_t len);
/* Inflates gzip data into a malloc'd buffer (NUL-terminated, not counted in *out_len);
 * returns 0, -E2BIG past max_out bytes, -EINVAL for corrupt or truncated data, -ENOMEM. */
int gz_inflate(const void *in, size_t in_len, size_t max_out, char **out, size_t *out_len);
/* Compresses data as gzip into a malloc'd buffer; returns 0 or -ENOMEM/-EINVAL. */
int gz_deflate(const void *in, size_t in_len, char **out, size_t *out_len);

#endif /* SCHEDIO_COMMON_GZ_H */
