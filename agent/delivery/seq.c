/* seq.c - seq is written (atomically, fsync'd) before the report that uses
 * it exists, so a crash between the two skips a seq rather than reusing one:
 * the server's (host, incarnation, seq) idempotency then never confuses two
 * reports.
 *
 * The incarnation id names one life of the seq file. A state folder that is
 * lost (package purge, re-imaged disk, fresh container volume) restarts seq
 * at 1 on the same machine id; a new incarnation is what tells the server
 * that those are new reports, not resends of ones it already has. It is
 * written (and its directory fsync'd) before the first seq of its life, so a
 * seq on disk is never paired with an id made after it.
 */
#include "agent/delivery/seq.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
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

/* True if text is a seq as seq_next writes it: decimal digits only. */
static bool seq_text_ok(const char *text)
{
	if (!*text)
		return false;
	for (; *text; text++)
		if (*text < '0' || *text > '9')
			return false;
	return true;
}

/* True if text is an incarnation id: SEQ_INCARNATION_LEN lowercase hex digits. */
static bool incarnation_text_ok(const char *text)
{
	size_t n = strlen(text);

	return n == SEQ_INCARNATION_LEN && strspn(text, "0123456789abcdef") == n;
}

/* A new random id in out; 0 or -errno (no randomness: no id, rather than a guessable one). */
static int incarnation_new(char out[SEQ_INCARNATION_LEN + 1])
{
	unsigned char raw[SEQ_INCARNATION_LEN / 2];
	size_t got = 0;

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

/* fsyncs dir, so the rename that put the id in place is durable before any seq rename after it. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

int seq_incarnation(const char *state_dir, char out[SEQ_INCARNATION_LEN + 1])
{
	char path[PATH_MAX], buf[64], fresh[SEQ_INCARNATION_LEN + 2];
	int err;

	if (state_dir) {
		snprintf(path, sizeof(path), "%s/seq", state_dir);
		/* Only a valid seq keeps its id: a missing or corrupt one may restart at 1. */
		if (fs_read_trimmed(path, buf, sizeof(buf)) > 0 && seq_text_ok(buf)) {
			snprintf(path, sizeof(path), "%s/incarnation", state_dir);
			if (fs_read_trimmed(path, buf, sizeof(buf)) > 0 && incarnation_text_ok(buf)) {
				memcpy(out, buf, SEQ_INCARNATION_LEN + 1);
				return 0;
			}
		}
	}
	err = incarnation_new(fresh);
	if (err)
		return err;
	if (state_dir) {
		snprintf(path, sizeof(path), "%s/incarnation", state_dir);
		fresh[SEQ_INCARNATION_LEN] = '\n';
		err = fs_write_atomic(path, fresh, SEQ_INCARNATION_LEN + 1);
		fresh[SEQ_INCARNATION_LEN] = '\0';
		if (!err)
			err = sync_dir(state_dir);
		if (err)
			return err;
	}
	memcpy(out, fresh, SEQ_INCARNATION_LEN + 1);
	return 0;
}
