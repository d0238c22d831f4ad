/* kmsg_parse.c - the kernel log records of /dev/kmsg, and the lines
 * kernel/sched/ext.c prints when it disables a BPF scheduler.
 *
 * A record is "PRI,SEQ,TS_USEC,FLAGS[,...];TEXT\n" followed by dictionary
 * lines that start with a space; the kernel escapes bytes outside printable
 * ASCII in TEXT as \xNN. Once a scheduler is up the kernel prints
 *   sched_ext: BPF scheduler "OPS" enabled[ (partial)]
 * and when it is disabled
 *   sched_ext: BPF scheduler "OPS" disabled (REASON)
 * and, for an error exit with a message, the next record is
 *   sched_ext: OPS: MESSAGE
 * where REASON is scx_exit_reason() of the exit kind. Anything else,
 * truncated or malformed, is "not ours", never an error the caller must handle.
 */
#include "agent/host/kmsg_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define SCX_PREFIX "sched_ext: "
#define SCX_DISABLED_HEAD "BPF scheduler \""
#define SCX_DISABLED_MID "\" disabled ("
#define SCX_ENABLED_TAIL "\" enabled"
#define SCX_PARTIAL " (partial)"

/* Parses a decimal number of at most 20 digits at *p (< end), advancing *p; false if none or too big. */
static bool parse_u64(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return true;
}

int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *rec)
{
	const char *p = buf, *end = buf + len, *semi, *nl;
	uint64_t pri;

	memset(rec, 0, sizeof(*rec));
	if (!parse_u64(&p, end, &pri) || p >= end || *p++ != ',' || !parse_u64(&p, end, &rec->seq) || p >= end ||
	    *p++ != ',' || !parse_u64(&p, end, &rec->ts_us) || p >= end || *p != ',')
		return -EINVAL;
	semi = memchr(p, ';', (size_t)(end - p));
	if (!semi)
		return -EINVAL;
	rec->level = (unsigned)(pri & 7);
	rec->facility = (unsigned)((pri >> 3) & 0xffff);
	rec->text = semi + 1;
	nl = memchr(rec->text, '\n', (size_t)(end - rec->text));
	rec->text_len = (size_t)((nl ? nl : end) - rec->text);
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Copies src (len bytes) into dst (NUL-terminated, cut to cap - 1 bytes),
 * undoing the kernel's \xNN escapes; control bytes other than tab and
 * newline, and bytes past ASCII, become '?', so the result is valid UTF-8. */
static void unescape(char *dst, size_t cap, const char *src, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < cap; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '\\' && i + 3 < len && src[i + 1] == 'x' && hex_digit(src[i + 2]) >= 0 &&
		    hex_digit(src[i + 3]) >= 0) {
			c = (unsigned char)(hex_digit(src[i + 2]) * 16 + hex_digit(src[i + 3]));
			i += 3;
		}
		if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
			c = '?'; /* ASCII only: a cut could not leave half a UTF-8 sequence in the report */
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
}

/* Where needle first occurs in [s, s + len), or NULL. */
static const char *find(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle));
}

enum kmsg_scx_type kmsg_parse_scx_line(const char *text, size_t len, struct kmsg_scx_line *out)
{
	const size_t plen = strlen(SCX_PREFIX), hlen = strlen(SCX_DISABLED_HEAD);
	const char *p, *end = text + len, *mid, *colon;

	memset(out, 0, sizeof(*out));
	if (len < plen || memcmp(text, SCX_PREFIX, plen))
		return KMSG_SCX_NONE;
	p = text + plen;
	if ((size_t)(end - p) >= hlen && !memcmp(p, SCX_DISABLED_HEAD, hlen)) {
		p += hlen;
		mid = find(p, (size_t)(end - p), SCX_ENABLED_TAIL);
		if (mid && mid > p && (size_t)(mid - p) < KMSG_SCX_OPS_MAX) {
			const char *tail = mid + strlen(SCX_ENABLED_TAIL);
			size_t rest = (size_t)(end - tail);

			if (rest == 0 || (rest == strlen(SCX_PARTIAL) && !memcmp(tail, SCX_PARTIAL, rest))) {
				unescape(out->ops, sizeof(out->ops), p, (size_t)(mid - p));
				out->partial = rest != 0;
				out->type = KMSG_SCX_ENABLED;
				return out->type;
			}
		}
		mid = find(p, (size_t)(end - p), SCX_DISABLED_MID);
		/* the line ends in ')' right after the reason */
		if (!mid || mid == p || (size_t)(mid - p) >= KMSG_SCX_OPS_MAX || end[-1] != ')' ||
		    end - 1 < mid + strlen(SCX_DISABLED_MID))
			return KMSG_SCX_NONE;
		unescape(out->ops, sizeof(out->ops), p, (size_t)(mid - p));
		p = mid + strlen(SCX_DISABLED_MID);
		unescape(out->reason, sizeof(out->reason), p, (size_t)(end - 1 - p));
		out->type = KMSG_SCX_DISABLED;
		return out->type;
	}
	/* "OPS: MESSAGE": the kernel's own lines do not look like that, but the
	 * caller still takes it only right after a DISABLED line of the same ops */
	colon = find(p, (size_t)(end - p), ": ");
	if (!colon || colon == p || (size_t)(colon - p) >= KMSG_SCX_OPS_MAX || memchr(p, ' ', (size_t)(colon - p)))
		return KMSG_SCX_NONE;
	unescape(out->ops, sizeof(out->ops), p, (size_t)(colon - p));
	p = colon + 2;
	unescape(out->message, sizeof(out->message), p, (size_t)(end - p));
	out->type = KMSG_SCX_MESSAGE;
	return out->type;
}

const char *kmsg_scx_exit_kind(const char *reason)
{
	static const struct {
		const char *reason, *kind;
	} kinds[] = {
		{ "unregistered from user space", "unreg" },
		{ "unregistered from BPF", "unreg_bpf" },
		{ "unregistered from the main kernel", "unreg_kern" },
		{ "disabled by sysrq-S", "sysrq" },
		{ "runtime error", "error" },
		{ "scx_bpf_error", "error_bpf" },
		{ "runnable task stall", "error_stall" },
		{ "done", "done" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(reason, kinds[i].reason))
			return kinds[i].kind;
	return "unknown";
}
