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
/* As gz_inflate, but into *buf of *cap bytes (NULL: none yet), grown with realloc when short;
 * *buf stays the caller's to free whatever the result. Both reuse the thread's decompressor. */
int gz_inflate_buf(const void *in, size_t in_len, size_t max_out, char **buf, size_t *cap, size_t *out_len);
/* Bytes likely to hold what in inflates to and its NUL (its last member's recorded
 * size, when deflate can reach it from in_len bytes), at most max_out + 1. */
size_t gz_inflated_hint(const void *in, size_t in_len, size_t max_out);
/* Compresses data as gzip into a malloc'd buffer; returns 0 or -ENOMEM/-EINVAL. */
int gz_deflate(const void *in, size_t in_len, char **out, size_t *out_len);

#endif /* SCHEDIO_COMMON_GZ_H */
