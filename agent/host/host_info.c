/* host_info.c - who this host is. The id is the machine id (stable across
 * reboots and renames, unlike the hostname), so the server keys hosts by it.
 */
#include "agent/host/host_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"

int host_info_read(struct host_info *hi)
{
	struct utsname u;
	long n;

	memset(hi, 0, sizeof(*hi));
	if (fs_read_trimmed("/etc/machine-id", hi->id, sizeof(hi->id)) <= 0 &&
	    fs_read_trimmed("/var/lib/dbus/machine-id", hi->id, sizeof(hi->id)) <= 0)
		return -ENOENT;
	if (gethostname(hi->hostname, sizeof(hi->hostname) - 1) < 0)
		snprintf(hi->hostname, sizeof(hi->hostname), "unknown");
	if (uname(&u) == 0) {
		snprintf(hi->kernel, sizeof(hi->kernel), "%s", u.release);
		snprintf(hi->arch, sizeof(hi->arch), "%s", u.machine);
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	hi->cpus = n > 0 ? (unsigned)n : 1;
	return 0;
}

void host_info_to_json(const struct host_info *hi, cJSON *host)
{
	cJSON_AddStringToObject(host, "id", hi->id);
	cJSON_AddStringToObject(host, "hostname", hi->hostname);
	cJSON_AddStringToObject(host, "kernel", hi->kernel);
	cJSON_AddStringToObject(host, "arch", hi->arch);
	cJSON_AddNumberToObject(host, "cpus", hi->cpus);
}

static int host_open(const struct agent_options *opt, void **state)
{
	struct host_info hi;

	if (host_info_read(&hi) < 0) {
		log_error("no machine id in /etc/machine-id: cannot identify this host");
		return -ENOENT;
	}
	*state = NULL;
	return 0;
}

static int host_collect(void *state, cJSON *report)
{
	struct host_info hi;
	cJSON *host = cJSON_GetObjectItemCaseSensitive(report, "host");

	if (!host)
		host = cJSON_AddObjectToObject(report, "host");
	if (!host)
		return -ENOMEM;
	/* Re-read each interval: hostname and online CPUs can change while we run. */
	if (host_info_read(&hi) < 0)
		return -ENOENT;
	host_info_to_json(&hi, host);
	return 0;
}

static void host_close(void *state)
{
}

const struct collector host_info_collector = {
	.name = "host",
	.open = host_open,
	.collect = host_collect,
	.close = host_close,
};
