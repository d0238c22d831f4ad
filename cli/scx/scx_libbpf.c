/* scx_libbpf.c - the libbpf the CLI runs with: the pinned static one
 * (deploy/build-libbpf.sh), never Debian 12's 1.1. A build that picked up
 * older headers fails here rather than at a user's first --object. */
#include "cli/scx/scx_libbpf.h"

#include <stdio.h>

#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>

_Static_assert(LIBBPF_MAJOR_VERSION > SCX_LIBBPF_MIN_MAJOR ||
		   (LIBBPF_MAJOR_VERSION == SCX_LIBBPF_MIN_MAJOR && LIBBPF_MINOR_VERSION >= SCX_LIBBPF_MIN_MINOR),
	       "the CLI must be compiled against libbpf >= 1.4 (cmake/libbpf.cmake), not the system's");

bool scx_libbpf_at_least_min(unsigned int major, unsigned int minor)
{
	return major > SCX_LIBBPF_MIN_MAJOR || (major == SCX_LIBBPF_MIN_MAJOR && minor >= SCX_LIBBPF_MIN_MINOR);
}

void scx_libbpf_describe(char *buf, size_t len)
{
	unsigned int major = libbpf_major_version(), minor = libbpf_minor_version();

	snprintf(buf, len, "libbpf %u.%u (headers %d.%d, linked into schedio)%s", major, minor, LIBBPF_MAJOR_VERSION,
		 LIBBPF_MINOR_VERSION, scx_libbpf_at_least_min(major, minor) ? "" : ": too old for sched_ext objects");
}
