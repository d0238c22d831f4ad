/* kmsg_parse.h - records of the kernel log as /dev/kmsg hands them out, and
 * the sched_ext lines among them that say why a scheduler was disabled
 * (report "sched_ext.exits"). Pure functions: no I/O.
 */
#ifndef SCHEDIO_AGENT_HOST_KMSG_PARSE_H
#define SCHEDIO_AGENT_HOST_KMSG_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's limits: ops.name is 128 bytes, the exit message 1024. */
#define KMSG_SCX_OPS_MAX 128
#define KMSG_SCX_REASON_MAX 256
#define KMSG_SCX_MESSAGE_MAX 1024

struct kmsg_record {
	unsigned level;    /* syslog level (prefix & 7) */
	unsigned facility; /* syslog facility (prefix >> 3): 0 for the kernel's own records */
	uint64_t seq;      /* the record's sequence number */
	uint64_t ts_us;    /* when it was logged, µs of the kernel's monotonic clock */
	const char *text;  /* the message, still escaped (\xNN), not NUL-terminated */
	size_t text_len;
};

enum kmsg_scx_type {
	KMSG_SCX_NONE,     /* not a sched_ext line of these */
	KMSG_SCX_ENABLED,  /* sched_ext: BPF scheduler "OPS" enabled[ (partial)] */
	KMSG_SCX_DISABLED, /* sched_ext: BPF scheduler "OPS" disabled (REASON) */
	KMSG_SCX_MESSAGE,  /* sched_ext: OPS: MESSAGE (follows DISABLED for errors) */
};

struct kmsg_scx_line {
	enum kmsg_scx_type type;
	char ops[KMSG_SCX_OPS_MAX];
	bool partial;                       /* ENABLED only: " (partial)" */
	char reason[KMSG_SCX_REASON_MAX];   /* DISABLED only; cut to fit */
	char message[KMSG_SCX_MESSAGE_MAX]; /* MESSAGE only; cut to fit */
};

/* Parses one record as read(2) from /dev/kmsg returns it ("PRI,SEQ,TS,FLAGS[,..];TEXT\n"
 * then " KEY=VALUE\n" lines); 0, or -EINVAL if buf is not such a record. */
int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *rec);
/* Recognizes a sched_ext enable or exit line in a record's text (escapes undone); fills out, returns its type. */
enum kmsg_scx_type kmsg_parse_scx_line(const char *text, size_t len, struct kmsg_scx_line *out);
/* The report's exit kind for the kernel's reason text (scx_exit_reason()); "unknown" when unrecognized. */
const char *kmsg_scx_exit_kind(const char *reason);

#endif /* SCHEDIO_AGENT_HOST_KMSG_PARSE_H */
