/* runqlat_bench.c - loads schedio's runqlat programs (agent/runqlat/runqlat.c) and
 * the minimal runqlat yardstick (bpf/runqlat_min.bpf.c) side by side, lets
 * them see the same context switches for a while, and prints the BPF time
 * each spent per context switch (kernel.bpf_stats_enabled must be 1; the
 * driving script sets it) and the map memory. One line of key=value pairs.
 *
 *   runqlat_bench [--seconds N] [--pid-hash] [--raw-tp] [--no-l3]   (--no-l3: no idle tracking per L3 domain)
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/runqlat/runqlat.h"
#include "bpf/runqlat.h"
#include "runqlat_min.skel.h"

struct prog_stats {
	unsigned long long run_ns, run_cnt;
};

static int stats_of(int fd, struct prog_stats *s)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	s->run_ns = info.run_time_ns;
	s->run_cnt = info.run_cnt;
	return 0;
}

static unsigned long long sum_ns(const int *fds, int n)
{
	unsigned long long t = 0;
	struct prog_stats s;

	for (int i = 0; i < n; i++)
		if (stats_of(fds[i], &s) == 0)
			t += s.run_ns;
	return t;
}

int main(int argc, char **argv)
{
	struct runqlat_config cfg = { .cgroup_depth = 2 };
	struct runqlat_probe *rq = NULL;
	struct runqlat_min *base = NULL;
	struct prog_stats sw0, sw1;
	unsigned long long ours0, ours1, base0, base1, switches;
	int ours_fds[8], base_fds[3], n_ours, seconds = 10, rc = 1;
	char msg[512];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pid-hash"))
			cfg.pid_hash = true;
		else if (!strcmp(argv[i], "--raw-tp"))
			cfg.force_raw_tp = true;
		else if (!strcmp(argv[i], "--no-l3"))
			cfg.no_l3 = true;
		else {
			fprintf(stderr, "usage: %s [--seconds N] [--pid-hash] [--raw-tp] [--no-l3]\n", argv[0]);
			return 2;
		}
	}
	if (runqlat_open(&cfg, &rq, msg, sizeof(msg))) {
		fprintf(stderr, "runqlat_bench: %s\n", msg);
		goto cleanup;
	}
	base = runqlat_min__open_and_load();
	if (!base || runqlat_min__attach(base)) {
		fprintf(stderr, "runqlat_bench: cannot load the minimal runqlat: %s\n", strerror(errno));
		goto cleanup;
	}
	n_ours = runqlat_prog_fds(rq, ours_fds, 8);
	base_fds[0] = bpf_program__fd(base->progs.rqmin_wake);
	base_fds[1] = bpf_program__fd(base->progs.rqmin_wnew);
	base_fds[2] = bpf_program__fd(base->progs.rqmin_switch);

	ours0 = sum_ns(ours_fds, n_ours);
	base0 = sum_ns(base_fds, 3);
	stats_of(base_fds[2], &sw0);
	sleep((unsigned)seconds);
	ours1 = sum_ns(ours_fds, n_ours);
	base1 = sum_ns(base_fds, 3);
	stats_of(base_fds[2], &sw1);

	switches = sw1.run_cnt - sw0.run_cnt;
	if (!switches || base1 == base0) {
		fprintf(stderr, "runqlat_bench: no BPF run time recorded: is kernel.bpf_stats_enabled 1?\n");
		goto cleanup;
	}
	printf("state=%s attach=%s seconds=%d switches=%llu ours_ns_per_switch=%.1f baseline_ns_per_switch=%.1f "
	       "ratio=%.3f map_bytes_here=%zu map_bytes_256cpu_4096cg=%zu\n",
	       cfg.pid_hash || cfg.force_raw_tp ? "pid_hash" : "task_storage", runqlat_attach_mode(rq), seconds,
	       switches, (double)(ours1 - ours0) / (double)switches, (double)(base1 - base0) / (double)switches,
	       (double)(ours1 - ours0) / (double)(base1 - base0), runqlat_map_memlock(rq),
	       runqlat_map_bytes(256, RUNQLAT_MAX_CGROUPS));
	rc = 0;
cleanup:
	runqlat_min__destroy(base);
	runqlat_close(rq);
	return rc;
}
