/* cmd_apply.c - `schedio apply [--dry-run]`: for every disk of this host
 * the SSD database has a recommendation for, write io.cost.model and then
 * io.cost.qos in the cgroup2 root (the model first, so iocost is never
 * enabled with a stale model). --dry-run prints what would be written.
 * Disks the database does not know are listed and left alone. A model with
 * quick benches only (schedio bench) has a model line and no QoS: the model
 * is written and io.cost.qos left as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/ssd_client.h"
#include "common/cgroup2.h"
#include "common/cli.h"
#include "common/disks.h"

/* More than any host has; the scan stops there. */
#define APPLY_DISKS_MAX 1024

static int write_line(const char *dir, const char *file, const char *line, size_t len)
{
	char path[4096];
	ssize_t n;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* cgroup files take one configuration per write; the kernel parses it whole */
	n = write(fd, line, len);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* Applies (or prints) one disk's configuration; returns 0, 1 on failure, 2 when unknown. */
static int apply_disk(const struct ssd_client *c, const struct disk *d, const char *solution, const char *cgroot,
		      int dry_run)
{
	char path[2048], m[800], s[200], msg[600], dev[32], *nl;
	struct http_result res;
	int rc = 1, err;
	bool model_only;

	snprintf(dev, sizeof(dev), "%u:%u", d->major, d->minor);

	snprintf(path, sizeof(path), "/api/v1/ssd/models/%s/config?dev=%s%s%s",
		 ssd_client_escape(d->model, m, sizeof(m)), dev, solution ? "&solution=" : "",
		 solution ? ssd_client_escape(solution, s, sizeof(s)) : "");
	if (http_client_request_header(c->server, "GET", path, c->token, NULL, 0, NULL, "X-Schedio-Solution", &res) <
	    0) {
		fprintf(stderr, "schedio apply: %s\n", res.error);
		goto out;
	}
	if (res.status == 404) {
		printf("%s %s (%s, firmware %s): no recommendation in the database\n", d->name, dev, d->model,
		       *d->fwrev ? d->fwrev : "?");
		rc = 2;
		goto out;
	}
	nl = res.status == 200 ? strchr(res.body, '\n') : NULL;
	if (!nl) {
		fprintf(stderr, "schedio apply: %s: %s\n", d->name, ssd_client_error(&res, msg, sizeof(msg)));
		goto out;
	}
	model_only = !strchr(nl + 1, '\n'); /* quick benches only: the model line alone */
	printf("%s %s (%s, firmware %s): solution %s\n", d->name, dev, d->model, *d->fwrev ? d->fwrev : "?",
	       res.header_value);
	printf("  %s %s/io.cost.model: %.*s\n", dry_run ? "would write" : "writing", cgroot, (int)(nl - res.body),
	       res.body);
	if (model_only)
		printf("  leaving %s/io.cost.qos as it is: this model has quick benches only, which measure no QoS\n",
		       cgroot);
	else
		printf("  %s %s/io.cost.qos: %.*s\n", dry_run ? "would write" : "writing", cgroot,
		       (int)(strchr(nl + 1, '\n') - nl - 1), nl + 1);
	if (dry_run) {
		rc = 0;
		goto out;
	}
	err = write_line(cgroot, "io.cost.model", res.body, (size_t)(nl + 1 - res.body));
	if (!err && !model_only)
		err = write_line(cgroot, "io.cost.qos", nl + 1, strlen(nl + 1));
	if (err) {
		fprintf(stderr, "schedio apply: %s: cannot write io.cost in %s: %s\n", d->name, cgroot, strerror(-err));
		goto out;
	}
	rc = 0;
out:
	http_client_result_free(&res);
	return rc;
}

int cmd_apply(int argc, char **argv)
{
	enum { O_DRY = 2000, O_SOLUTION, O_SYSFS, O_CGROUP };
	static const struct option opts[] = {
		SSD_CLIENT_OPTIONS,
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "solution", required_argument, NULL, O_SOLUTION },
		{ "sysfs-root", required_argument, NULL, O_SYSFS },
		{ "cgroup-root", required_argument, NULL, O_CGROUP },
		{ 0 },
	};
	const char *solution = NULL, *sysfs = "/sys", *cgroot = NULL;
	char found[4096];
	struct disk *disks = NULL;
	struct ssd_client c;
	size_t shown = 0;
	int opt, dry_run = 0, failed = 0, rc, n;

	ssd_client_init(&c);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(&c, opt, optarg))
			continue;
		switch (opt) {
		case O_DRY:
			dry_run = 1;
			break;
		case O_SOLUTION:
			solution = optarg;
			break;
		case O_SYSFS:
			sysfs = optarg;
			break;
		case O_CGROUP:
			cgroot = optarg;
			break;
		case 'h':
			printf("Usage: schedio apply [--dry-run] [--server URL] [--token TOKEN] [--solution S]\n"
			       "                     [--sysfs-root DIR] [--cgroup-root DIR]\n\n"
			       "Writes the recommended io.cost.model and io.cost.qos for every disk of this host\n"
			       "the SSD database knows, in the cgroup2 root (from /proc/self/mounts unless\n"
			       "--cgroup-root). --dry-run prints what it would write. --sysfs-root replaces /sys.\n");
			return 0;
		default:
			cli_bad_option("schedio apply", argc, argv);
		}
	}
	if (optind < argc)
		cli_usage_error("schedio apply", "unexpected argument '%s'", argv[optind]);
	if (!cgroot) {
		rc = cgroup2_find_mount(CGROUP2_MOUNTS, found, sizeof(found));
		if (rc < 0 && !dry_run) {
			fprintf(stderr, "schedio apply: no cgroup2 mount found in /proc/self/mounts\n");
			return 1;
		}
		cgroot = rc < 0 ? "(no cgroup2 mount)" : found;
	}
	disks = malloc(APPLY_DISKS_MAX * sizeof(*disks));
	n = disks ? disks_scan(sysfs, disks, APPLY_DISKS_MAX) : -ENOMEM;
	if (n < 0) {
		fprintf(stderr, "schedio apply: cannot list disks in %s/block: %s\n", sysfs, strerror(-n));
		free(disks);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		/* a disk without a model (dm, md, virtio) is nothing the SSD database can know */
		if (!disks[i].model[0])
			continue;
		failed |= apply_disk(&c, &disks[i], solution, cgroot, dry_run) == 1;
		shown++;
	}
	if (shown == 0)
		printf("no disks with a model name found in %s/block\n", sysfs);
	free(disks);
	return failed;
}
