/* fuzz_agent_kmsg.c - libFuzzer target for the kernel log parser
 * (agent/host/kmsg_parse.c): any bytes read as a /dev/kmsg record never read
 * past its length, a record's text lies within it, and a sched_ext line's
 * fields are NUL-terminated within their limits, printable ASCII (tab and
 * newline aside) and mapped to one of the report's exit kinds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/host/kmsg_parse.h"

static void check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		abort();
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n') || (unsigned char)s[i] >= 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = { "done",  "unreg",     "unreg_bpf",   "unreg_kern", "sysrq",
					     "error", "error_bpf", "error_stall", "unknown" };
	const char *buf = (const char *)data;
	struct kmsg_record rec;
	struct kmsg_scx_line line;
	const char *text = buf;
	size_t len = size, i;
	const char *kind;

	if (kmsg_parse_record(buf, size, &rec) == 0) {
		if (rec.text < buf || rec.text + rec.text_len > buf + size)
			abort();
		text = rec.text;
		len = rec.text_len;
	}
	switch (kmsg_parse_scx_line(text, len, &line)) {
	case KMSG_SCX_ENABLED:
		check_text(line.ops, sizeof(line.ops));
		if (!line.ops[0])
			abort();
		break;
	case KMSG_SCX_DISABLED:
		check_text(line.ops, sizeof(line.ops));
		check_text(line.reason, sizeof(line.reason));
		if (!line.ops[0])
			abort();
		kind = kmsg_scx_exit_kind(line.reason);
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kind, kinds[i]); i++)
			;
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			abort();
		break;
	case KMSG_SCX_MESSAGE:
		check_text(line.ops, sizeof(line.ops));
		check_text(line.message, sizeof(line.message));
		break;
	case KMSG_SCX_NONE:
		break;
	}
	return 0;
}
