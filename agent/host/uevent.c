/* uevent.c - kernel uevents over netlink.
 *
 * A kernel uevent is one datagram: "ACTION@DEVPATH\0" followed by
 * "KEY=VALUE\0" pairs (ACTION, DEVPATH, SUBSYSTEM, SEQNUM, and the kobject's
 * own, e.g. SCXOPS for sched_ext). sched_ext announces a loaded scheduler
 * with "add" on /kernel/sched_ext/root; the "remove" sent when that kobject
 * is finally released may have lost its parent path, so a message matches on
 * its SUBSYSTEM as well as on its DEVPATH. Only datagrams from the kernel
 * (netlink port 0) count; the buffer is never trusted to be terminated.
 */
#include "agent/host/uevent.h"

#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel sends each uevent to multicast group 1 (udev re-sends on 2). */
#define UEVENT_KERNEL_GROUP 1
/* A uevent is at most 2 KiB of keys plus the header (UEVENT_BUFFER_SIZE). */
#define UEVENT_MAX 8192

int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_KERNEL_GROUP };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	int err;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* True if the string s (n bytes, not terminated) starts with prefix and ends
 * there or at a '/' (so /kernel/sched_ext matches /kernel/sched_ext/root but
 * not /kernel/sched_extra). */
static bool path_under(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && memcmp(s, prefix, p) == 0 && (n == p || s[p] == '/');
}

bool uevent_matches(const char *buf, size_t len, const char *subsystem, const char *devpath_prefix)
{
	size_t sub_len = strlen(subsystem);
	size_t off = 0;
	bool first = true;

	while (off < len) {
		const char *s = buf + off;
		const char *nul = memchr(s, '\0', len - off);
		size_t n = nul ? (size_t)(nul - s) : len - off;

		if (first) {
			const char *at = memchr(s, '@', n);

			/* A kernel uevent starts with ACTION@DEVPATH; anything else is not one. */
			if (!at)
				return false;
			if (path_under(at + 1, n - (size_t)(at + 1 - s), devpath_prefix))
				return true;
			first = false;
		} else if (n > 8 && memcmp(s, "DEVPATH=", 8) == 0) {
			if (path_under(s + 8, n - 8, devpath_prefix))
				return true;
		} else if (n == 10 + sub_len && memcmp(s, "SUBSYSTEM=", 10) == 0 &&
			   memcmp(s + 10, subsystem, sub_len) == 0) {
			return true;
		}
		off += n + 1;
	}
	return false;
}

int uevent_drain(int fd, const char *subsystem, const char *devpath_prefix)
{
	char buf[UEVENT_MAX];
	int hit = 0;

	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return hit;
			if (errno == ENOBUFS) { /* messages were dropped: one of them may have been ours */
				hit = 1;
				continue;
			}
			return -errno;
		}
		if (from.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
			continue; /* not from the kernel, or not a uevent */
		if (uevent_matches(buf, (size_t)n, subsystem, devpath_prefix))
			hit = 1;
	}
}
