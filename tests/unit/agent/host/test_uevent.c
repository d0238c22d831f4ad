/* test_uevent.c - which kernel uevents wake the sched_ext watcher: the
 * scheduler's kobject added under /kernel/sched_ext, its removal announced
 * with only the subsystem left, and nothing else (other devices, a path that
 * merely starts alike, udev's re-broadcasts, a datagram cut short); and the
 * socket opens on this kernel and drains to "nothing" when idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/host/uevent.h"

#define MATCH(lit) uevent_matches(lit, sizeof(lit) - 1, "sched_ext", "/kernel/sched_ext")

static void test_uevent_sched_ext_add_and_remove_match(void **state)
{
	assert_true(MATCH("add@/kernel/sched_ext/root\0ACTION=add\0DEVPATH=/kernel/sched_ext/root\0"
			  "SUBSYSTEM=sched_ext\0SCXOPS=scx_fifo\0SEQNUM=2301\0"));
	/* the header alone, and a DEVPATH key alone, are enough */
	assert_true(MATCH("add@/kernel/sched_ext/root"));
	assert_true(MATCH("x@/y\0DEVPATH=/kernel/sched_ext\0"));
	/* a removal whose kobject lost its parent still names the subsystem */
	assert_true(MATCH("remove@/root\0ACTION=remove\0DEVPATH=/root\0SUBSYSTEM=sched_ext\0SEQNUM=9\0"));
}

static void test_uevent_others_do_not_match(void **state)
{
	assert_false(MATCH("change@/devices/virtual/net/lo\0ACTION=change\0DEVPATH=/devices/virtual/net/lo\0"
			   "SUBSYSTEM=net\0SEQNUM=7\0"));
	assert_false(MATCH("add@/kernel/sched_extra\0SUBSYSTEM=sched_extra\0"));
	assert_false(MATCH("add@/module/sched_ext_helper\0SUBSYSTEM=module\0"));
	/* udev's re-broadcast has a binary header, not ACTION@DEVPATH */
	assert_false(MATCH("libudev\0\xfe\xed\xca\xfe\0SUBSYSTEM=sched_ext\0"));
	/* keys without the header are not a kernel uevent */
	assert_false(MATCH("SUBSYSTEM=sched_ext\0"));
	/* a key cut short by the datagram's end */
	assert_false(MATCH("add@/x\0SUBSYSTEM=sched_ex"));
	assert_false(uevent_matches("", 0, "sched_ext", "/kernel/sched_ext"));
}

static void test_uevent_socket_opens_and_drains(void **state)
{
	int fd = uevent_open();

	assert_true(fd >= 0); /* any process may listen to kernel uevents */
	assert_true(uevent_drain(fd, "sched_ext", "/kernel/sched_ext") >= 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uevent_sched_ext_add_and_remove_match),
		cmocka_unit_test(test_uevent_others_do_not_match),
		cmocka_unit_test(test_uevent_socket_opens_and_drains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
