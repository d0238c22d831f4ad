/* uevent.h - the kernel's uevents (NETLINK_KOBJECT_UEVENT), used to wake the
 * sched_ext watcher at once when a scheduler is loaded or removed instead of
 * waiting for its next poll.
 */
#ifndef SCHEDIO_AGENT_HOST_UEVENT_H
#define SCHEDIO_AGENT_HOST_UEVENT_H

#include <stdbool.h>
#include <stddef.h>

/* Opens a non-blocking socket on the kernel's uevent group; the fd or -errno. */
int uevent_open(void);
/* True if the uevent message in buf (len bytes, as received) is about subsystem
 * (its SUBSYSTEM= key) or a kobject under devpath_prefix (its DEVPATH). */
bool uevent_matches(const char *buf, size_t len, const char *subsystem, const char *devpath_prefix);
/* Reads every message waiting on fd; 1 if one matched (or some were lost to
 * an overrun, so one may have), 0 if none did, -errno on a socket error. */
int uevent_drain(int fd, const char *subsystem, const char *devpath_prefix);

#endif /* SCHEDIO_AGENT_HOST_UEVENT_H */
