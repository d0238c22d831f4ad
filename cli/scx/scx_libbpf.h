/* scx_libbpf.h - the libbpf the CLI runs with and whether it can load modern
 * sched_ext objects. */
#ifndef SCHEDIO_CLI_SCX_SCX_LIBBPF_H
#define SCHEDIO_CLI_SCX_SCX_LIBBPF_H

#include <stdbool.h>
#include <stddef.h>

/* The oldest libbpf that opens `.struct_ops.link`, `struct_ops.s` and arena maps. */
#define SCX_LIBBPF_MIN_MAJOR 1
#define SCX_LIBBPF_MIN_MINOR 4

/* True when libbpf MAJOR.MINOR is at least SCX_LIBBPF_MIN_MAJOR.MINOR. */
bool scx_libbpf_at_least_min(unsigned int major, unsigned int minor);

/* Writes "libbpf MAJOR.MINOR (...)" for the libbpf in this process to buf. */
void scx_libbpf_describe(char *buf, size_t len);

#endif /* SCHEDIO_CLI_SCX_SCX_LIBBPF_H */
