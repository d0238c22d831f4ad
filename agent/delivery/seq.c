/* seq.c - seq is written (atomically, fsync'd) before the report that uses
 * it exists, so a crash between the two skips a seq rather than reusing one:
 * the server's (host, incarnation, seq) idempotency then never confuses two
 * reports.
 * The incarnation id is made anew by every agent process (see seq.h).
 */
#include "agent/delivery/seq.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>

#include "common/fsutil.h"

int seq_load(const char *state_dir, uint64_t *mem)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	uint64_t v;

	snprintf(path, sizeof(path), "%s/seq", state_dir);
	n = fs_read_trimmed(path, buf, sizeof(buf));
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return (int)n;
	v = strtoull(buf, NULL, 10);
	if (v > *mem)
		*mem = v;
	return 0;
}

int seq_next(const char *state_dir, uint64_t *mem, uint64_t *out)
{
	char path[PATH_MAX], buf[32];
	uint64_t cur = *mem;
	int len, err;

	if (!state_dir) {
		*out = ++*mem;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/seq", state_dir);
	if (cur == 0 && fs_read_trimmed(path, buf, sizeof(buf)) > 0)
		cur = strtoull(buf, NULL, 10);
	len = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", cur + 1);
	err = fs_write_atomic(path, buf, (size_t)len);
	if (err)
		return err;
	*mem = cur + 1;
	*out = cur + 1;
	return 0;
}

int seq_incarnation_new(char out[SEQ_INCARNATION_LEN + 1])
{
	unsigned char raw[SEQ_INCARNATION_LEN / 2];
	size_t got = 0;

	/* No randomness means no id, rather than a guessable one. */
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}
