/* fuzz_agent_spool.c - spool files come back from disk after crashes, power
 * cuts and hand edits: whatever bytes a spool file holds, opening the spool
 * and reading it must skip or deliver it, never crash or read out of bounds.
 * The input becomes report 1 in an otherwise valid spool (reports 2 and 3).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/delivery/spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/schedio-fuzz-spool-XXXXXX", path[128], err[512];
	struct spool *sp = NULL;
	void *buf;
	size_t len;
	uint64_t seq;
	int fd;

	if (!mkdtemp(dir))
		return 0;
	if (spool_open(&sp, dir, 1 << 20, err, sizeof(err)) == 0) {
		spool_append(sp, 2, 0, "{\"seq\":2}", 9);
		spool_append(sp, 3, 0, "{\"seq\":3}", 9);
		spool_close(sp);
		sp = NULL;
	}
	snprintf(path, sizeof(path), "%s/%020d.rep", dir, 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		if (write(fd, data, size) != (ssize_t)size)
			size = 0;
		close(fd);
	}
	if (spool_open(&sp, dir, 1 << 20, err, sizeof(err)) == 0) {
		while (spool_peek(sp, &seq, &buf, &len) == 0) {
			free(buf);
			if (spool_ack(sp, seq) < 0)
				break;
		}
		spool_close(sp);
	}
	/* Leave nothing behind: the spool files, then the folder. */
	for (int s = 1; s <= 3; s++) {
		snprintf(path, sizeof(path), "%s/%020d.rep", dir, s);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}
