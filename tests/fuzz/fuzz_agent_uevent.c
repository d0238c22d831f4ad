/* fuzz_agent_uevent.c - libFuzzer target for the uevent matcher: any
 * datagram (no NULs, no '@', keys cut short, a prefix at the very end) is
 * read within its length only (libFuzzer's buffer is exactly that long, so
 * ASan sees one byte too far), and a match always rests on bytes that are
 * there: the subsystem's name occurs in the message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/host/uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (uevent_matches((const char *)data, size, "sched_ext", "/kernel/sched_ext") &&
	    !memmem(data, size, "sched_ext", 9))
		abort();
	return 0;
}
