/* runqlat.c - runqueue latency per cgroup and per CPU (bpf/runqlat.bpf.c).
 *
 * Open picks the programs at run time: tp_btf where the kernel's BTF knows
 * the scheduler tracepoints, raw_tp otherwise (or when tp_btf fails to
 * load). Each interval ends with a flip of the histogram half the programs
 * write, an RCU grace period (membarrier(MEMBARRIER_CMD_GLOBAL) runs
 * synchronize_rcu, and every BPF tracing program runs inside an RCU
 * read-side section), then a read and reset of the half no program writes
 * any more: double buffering rather than per-CPU deltas, because deltas
 * would need a user-space copy of every histogram (megabytes of RSS) while
 * the flip needs nothing. Cgroup slots are handed out by BPF from a queue;
 * when a cgroup is gone the agent reports its last counts, then deletes its
 * slot mapping, bumps the slot generation (invalidating slots cached in task
 * storage) and returns the slot to the queue.
 *
 * On kernels with sched_ext the CPU histograms are also split by the class
 * that ran the task (the BPF side compares the task's sched_class with
 * ext_sched_class, whose address comes from kallsyms), and a follower of
 * the sysfs state names the sched_ext histograms (agent/runqlat/sched_slots.c): the
 * report's runqlat.by_scheduler gives each scheduler the samples it ran,
 * however the interval was cut by loads and unloads.
 *
 * Work conservation (runqlat.l3_domains): the L3 domains read at open give
 * each CPU its domain in the BPF map cpu_state; the idle-sibling time of
 * each CPU's waits is double-buffered like its histograms, and each report
 * sums CPUs per domain of the topology read at the report (host.l3_domains).
 * Right after attach the agent visits every CPU it may run on, so each one
 * switches to and from its idle task and its idle state is known from the
 * start (a CPU left unvisited is known from its next idle switch).
 */
#include "agent/runqlat/runqlat.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/membarrier.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/host/cgroup.h"
#include "agent/host/topology.h"
#include "common/cgroup2.h"
#include "agent/runqlat/kallsyms.h"
#include "agent/runqlat/runqlat_report.h"
#include "agent/host/sched_ext.h"
#include "agent/host/sched_ext_watch.h"
#include "agent/runqlat/sched_slots.h"
#include "common/log.h"
#include "bpf/runqlat.h"
#include "runqlat.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define DEFAULT_BTF "/sys/kernel/btf/vmlinux"
#define PID_STATE_ENTRIES 65536
#define MAX_L3_DOMAINS 4096 /* runqlat.l3_domains holds at most this many */

struct slot_ref {
	uint64_t id;
	uint32_t slot;
	const char *path;
};

struct runqlat_probe {
	struct runqlat *skel;
	bool raw_tp, pid_hash;
	unsigned ncpu, max_cgroups, depth;
	struct runqlat_hist hist, zero; /* read buffer, and what a read half is reset to */
	struct cgroup_paths paths;
	struct slot_ref *refs, *recycled; /* scratch, max_cgroups + 1 each */
	uint8_t *seen;                    /* scratch, one flag per slot */
	struct hist sum;
	uint64_t overflow_reported;
	uint64_t desyncs_reported, misses_reported; /* idle clock desyncs, switch program misses */
	/* The split by scheduler: sched_slots histograms per CPU (1 without sched_ext). */
	unsigned sched_slots;
	uint64_t ext_class;
	const char *sched_ext_root;
	struct sched_ext_watch *watch; /* names the ext slots; NULL without the split */
	bool own_watch;                /* started here (no shared watcher given) */
	pthread_mutex_t slots_lock;
	struct sched_slots slots; /* under slots_lock: the watch thread changes it */
	struct hist by_sched[1 + RUNQLAT_EXT_SLOTS];
	/* Work conservation: the domains BPF tracks (read at open), per-CPU totals. */
	struct topology topo;
	bool l3;
	struct runqlat_cpu_totals *totals; /* ncpu */
	uint64_t *idle_clock;              /* ncpu: each CPU's idle integral at the last report (debug log) */
};

int runqlat_check_privileges(char *msg, size_t cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
	bool bpf, perfmon, admin;

	if (syscall(SYS_capget, &hdr, data) < 0) {
		snprintf(msg, cap, "cannot read this process's capabilities: %s", strerror(errno));
		return -errno;
	}
#define HAS(c) ((data[(c) / 32].effective >> ((c) % 32)) & 1)
	bpf = HAS(CAP_BPF);
	perfmon = HAS(CAP_PERFMON);
	admin = HAS(CAP_SYS_ADMIN);
#undef HAS
	if (admin || (bpf && perfmon))
		return 0;
	snprintf(msg, cap,
		 "missing capability %s%s%s: loading and attaching the scheduler tracepoint programs needs "
		 "CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); run as root or grant them",
		 bpf ? "" : "CAP_BPF", !bpf && !perfmon ? " and " : "", perfmon ? "" : "CAP_PERFMON");
	return -EPERM;
}

int runqlat_check_btf(const char *path, char *msg, size_t cap)
{
	if (!path)
		path = DEFAULT_BTF;
	if (access(path, R_OK) == 0)
		return 0;
	snprintf(msg, cap,
		 "this kernel has no BTF (%s: %s): runqueue latency needs a kernel built with "
		 "CONFIG_DEBUG_INFO_BTF=y",
		 path, strerror(errno));
	return -ENOENT;
}

size_t runqlat_map_bytes(unsigned ncpu, unsigned max_cgroups)
{
	size_t hist = sizeof(struct runqlat_hist);

	return 2 * (size_t)max_cgroups * hist + 2 * (size_t)ncpu * (1 + RUNQLAT_EXT_SLOTS) * hist +
	       (size_t)max_cgroups * sizeof(struct runqlat_slot_info) +
	       (size_t)max_cgroups * (sizeof(uint64_t) + sizeof(uint32_t) + 64) /* hash element + overhead */ +
	       (size_t)max_cgroups * sizeof(uint32_t) +
	       /* idle tracking: per CPU its word, at most one domain each, two halves of sums */
	       (size_t)ncpu *
		   (sizeof(struct runqlat_cpu) + sizeof(struct runqlat_l3) + 2 * sizeof(struct runqlat_idle_sum));
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static char text[1 << 18]; /* a verifier log can be long; libbpf logs from one thread */
	char *line, *save = NULL;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(text, sizeof(text), fmt, ap);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_debug("%s", line);
	return 0;
}

/* Gives every CPU its L3 domain (index in rq->topo) or RUNQLAT_NO_DOMAIN. */
static int l3_fill(struct runqlat_probe *rq, struct runqlat *skel)
{
	int fd = bpf_map__fd(skel->maps.cpu_state);

	for (uint32_t cpu = 0; cpu < rq->ncpu; cpu++) {
		struct runqlat_cpu c = { .domain = RUNQLAT_NO_DOMAIN };

		for (size_t i = 0; rq->l3 && i < rq->topo.nl3; i++)
			for (size_t k = 0; k < rq->topo.l3[i].ncpus; k++)
				if (rq->topo.l3[i].cpus[k] == cpu)
					c.domain = (uint32_t)i;
		if (bpf_map_update_elem(fd, &cpu, &c, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* Reads the L3 domains to track; without any (or one too large) nothing is tracked. */
static void l3_setup(struct runqlat_probe *rq)
{
	int err = topology_read(topology_cpu_root(), &rq->topo);

	if (err) {
		log_warn("runqlat: cannot read the L3 domains under %s (%s): no idle-sibling time", topology_cpu_root(),
			 strerror(-err));
		memset(&rq->topo, 0, sizeof(rq->topo));
		return;
	}
	rq->l3 = rq->topo.nl3 > 0 && rq->topo.nl3 <= MAX_L3_DOMAINS;
	if (rq->topo.nl3 > MAX_L3_DOMAINS)
		log_warn("runqlat: %zu L3 domains, more than the %d a report carries: no idle-sibling time",
			 rq->topo.nl3, MAX_L3_DOMAINS);
	for (size_t i = 0; i < rq->topo.nl3; i++) {
		if (rq->topo.l3[i].ncpus > RUNQLAT_IDLE_NR_MASK) {
			log_warn("runqlat: an L3 domain of %zu CPUs is more than the idle clocks count: "
				 "no idle-sibling time",
				 rq->topo.l3[i].ncpus);
			rq->l3 = false;
		}
	}
}

/* Runs this thread once on every CPU it may use, so that each CPU switches
 * from and back to its idle task and BPF knows which CPUs are idle. */
static void l3_visit_cpus(void)
{
	cpu_set_t old, one;
	struct timespec ts = { 0, 50 * 1000 };

	if (sched_getaffinity(0, sizeof(old), &old))
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			nanosleep(&ts, NULL); /* sleep there: the CPU goes idle again behind us */
	}
	sched_setaffinity(0, sizeof(old), &old);
}

/* Opens, sizes, loads and attaches one flavour of the programs. */
static int load(struct runqlat_probe *rq, const struct runqlat_config *cfg, bool raw_tp, char *msg, size_t cap)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = cfg->btf_path);
	struct runqlat *skel;
	bool hash = raw_tp || cfg->pid_hash;
	int err;

	skel = runqlat__open_opts(&oo);
	if (!skel) {
		err = -errno;
		snprintf(msg, cap, "cannot open the runqlat BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->cfg_depth = rq->depth;
	skel->rodata->cfg_ncpu = rq->ncpu;
	skel->rodata->cfg_max_cgroups = rq->max_cgroups;
	skel->rodata->cfg_pid_hash = hash;
	skel->rodata->cfg_sched_slots = rq->sched_slots;
	skel->rodata->cfg_ext_class = rq->ext_class;
	skel->rodata->cfg_l3 = rq->l3;
	bpf_map__set_max_entries(skel->maps.cpu_state, rq->ncpu);
	bpf_map__set_max_entries(skel->maps.l3_state, rq->topo.nl3 ? (uint32_t)rq->topo.nl3 : 1);
	bpf_map__set_max_entries(skel->maps.idle_sums, 2 * rq->ncpu);
	bpf_map__set_max_entries(skel->maps.cgroup_slots, rq->max_cgroups);
	bpf_map__set_max_entries(skel->maps.free_slots, rq->max_cgroups);
	bpf_map__set_max_entries(skel->maps.slot_info, rq->max_cgroups);
	bpf_map__set_max_entries(skel->maps.cgroup_hists, 2 * rq->max_cgroups);
	bpf_map__set_max_entries(skel->maps.cpu_hists, 2 * rq->ncpu * rq->sched_slots);
	bpf_map__set_max_entries(skel->maps.pid_state, hash ? PID_STATE_ENTRIES : 1);
	bpf_program__set_autoload(skel->progs.schedio_rq_wake, !raw_tp);
	bpf_program__set_autoload(skel->progs.schedio_rq_wnew, !raw_tp);
	bpf_program__set_autoload(skel->progs.schedio_rq_swtch, !raw_tp);
	bpf_program__set_autoload(skel->progs.schedio_rq_wake_r, raw_tp);
	bpf_program__set_autoload(skel->progs.schedio_rq_wnew_r, raw_tp);
	bpf_program__set_autoload(skel->progs.schedio_rq_swtch_r, raw_tp);
	err = runqlat__load(skel);
	if (err) {
		snprintf(msg, cap,
			 "cannot load the runqlat BPF programs (%s): %s (run with -v for the verifier's reasons)",
			 raw_tp ? "raw_tp" : "tp_btf", strerror(-err));
		goto fail;
	}
	/* Slot 0 is the overflow slot; every other slot starts free. */
	for (uint32_t s = 1; s < rq->max_cgroups; s++) {
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.free_slots), NULL, &s, BPF_ANY)) {
			err = -errno;
			snprintf(msg, cap, "cannot fill the free cgroup slots: %s", strerror(-err));
			goto fail;
		}
	}
	err = l3_fill(rq, skel);
	if (err) {
		snprintf(msg, cap, "cannot set the CPUs' L3 domains: %s", strerror(-err));
		goto fail;
	}
	err = runqlat__attach(skel);
	if (err) {
		snprintf(msg, cap, "cannot attach the runqlat programs (%s): %s", raw_tp ? "raw_tp" : "tp_btf",
			 strerror(-err));
		goto fail;
	}
	rq->skel = skel;
	rq->raw_tp = raw_tp;
	rq->pid_hash = hash;
	return 0;
fail:
	runqlat__destroy(skel);
	return err;
}

/* Splits samples by scheduler where the kernel has sched_ext and kallsyms
 * shows where its class lives; otherwise every sample is the kernel's own
 * classes (no sched_ext) or the report's scheduler (address unknown). */
static void split_setup(struct runqlat_probe *rq, const struct runqlat_config *cfg)
{
	const char *syms = cfg->kallsyms ? cfg->kallsyms : "/proc/kallsyms";
	int err;

	rq->sched_slots = 1;
	rq->sched_ext_root = cfg->sched_ext_root ? cfg->sched_ext_root : SCHED_EXT_STATE_ROOT;
	if (!sched_ext_state_supported(rq->sched_ext_root))
		return;
	err = kallsyms_lookup(syms, "ext_sched_class", &rq->ext_class);
	if (err) {
		log_warn("runqlat: cannot find ext_sched_class in %s (%s): runqueue latency is split by scheduler "
			 "per report, not per sample",
			 syms, err == -EPERM ? kallsyms_hidden_cause() : strerror(-err));
		return;
	}
	rq->sched_slots = 1 + RUNQLAT_EXT_SLOTS;
}

/* A change of the loaded sched_ext scheduler: sched_ext samples go to the slot for it. */
static void sched_changed(void *arg, const char *state, const char *ops)
{
	struct runqlat_probe *rq = arg;

	(void)state;
	pthread_mutex_lock(&rq->slots_lock);
	__atomic_store_n(&rq->skel->bss->ext_slot, sched_slots_observe(&rq->slots, ops), __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&rq->slots_lock);
}

/* Names the first ext slot after what is loaded now and follows the changes. */
static int split_start(struct runqlat_probe *rq, struct sched_ext_watch *shared, char *msg, size_t cap)
{
	struct sched_ext_state st;
	int err = 0;

	sched_ext_state_read(rq->sched_ext_root, &st);
	sched_slots_init(&rq->slots, st.ops);
	rq->skel->bss->ext_slot = 0;
	rq->watch = shared;
	if (!shared) {
		err = sched_ext_watch_sysfs(&rq->watch, rq->sched_ext_root);
		rq->own_watch = !err;
	}
	if (!err)
		err = sched_ext_watch_follow(rq->watch, sched_changed, rq);
	if (err) {
		snprintf(msg, cap, "cannot start following the sched_ext state: %s", strerror(-err));
		if (rq->own_watch)
			sched_ext_watch_stop(rq->watch);
		rq->watch = NULL;
		rq->own_watch = false;
	}
	return err;
}

/* Takes each CPU's idle integral now (the switch program's idle clock); with log, logs at debug level
 * how much each CPU was idle since the last take and its state now, to hold against /proc/stat when
 * idle-sibling time looks short. */
static void idle_clocks(struct runqlat_probe *rq, bool log)
{
	static const char *const state[] = { "unknown", "busy", "idle", "?" };
	const uint64_t mask = (1ULL << 62) - 1;
	int fd = bpf_map__fd(rq->skel->maps.cpu_state);
	char line[1024];
	struct timespec ts;
	size_t at = 0;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	line[0] = '\0';
	for (uint32_t cpu = 0; cpu < rq->ncpu; cpu++) {
		struct runqlat_cpu cs;
		uint64_t idle, st;

		if (bpf_map_lookup_elem(fd, &cpu, &cs))
			continue;
		st = cs.idle_word & 3;
		idle = ((cs.idle_word >> 2) + (st == RUNQLAT_CPU_IDLE ? now : 0)) & mask;
		if (log && at < sizeof(line) - 64)
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%scpu%u %llu ms %s", cpu ? ", " : "", cpu,
					       (unsigned long long)(((idle - rq->idle_clock[cpu]) & mask) / 1000000),
					       state[st]);
		rq->idle_clock[cpu] = idle;
	}
	if (log)
		log_debug("runqlat: idle since the last report by the switch program: %s", line);
}

int runqlat_open(const struct runqlat_config *cfg, struct runqlat_probe **out, char *msg, size_t cap)
{
	struct runqlat_probe *rq = NULL;
	char root[PATH_MAX];
	int err, ncpu;

	*out = NULL;
	err = runqlat_check_privileges(msg, cap);
	if (err)
		return err;
	err = runqlat_check_btf(cfg->btf_path, msg, cap);
	if (err)
		return err;
	err = cgroup2_find_mount(cfg->mounts ? cfg->mounts : CGROUP2_MOUNTS, root, sizeof(root));
	if (err) {
		snprintf(msg, cap, "no cgroup2 hierarchy is mounted (%s): cgroups cannot be named", strerror(-err));
		return err;
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		snprintf(msg, cap, "cannot count possible CPUs: %s", strerror(-ncpu));
		return ncpu ? ncpu : -EINVAL;
	}
	libbpf_set_print(libbpf_log);
	rq = calloc(1, sizeof(*rq));
	if (!rq) {
		err = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&rq->slots_lock, NULL);
	rq->ncpu = (unsigned)ncpu;
	split_setup(rq, cfg);
	if (!cfg->no_l3)
		l3_setup(rq);
	rq->depth = cfg->cgroup_depth > RUNQLAT_MAX_DEPTH ? RUNQLAT_MAX_DEPTH : cfg->cgroup_depth;
	rq->max_cgroups = cfg->max_cgroups ? cfg->max_cgroups : RUNQLAT_MAX_CGROUPS;
	cgroup_paths_init(&rq->paths, root, rq->depth);
	rq->refs = calloc(rq->max_cgroups + 1, sizeof(*rq->refs));
	rq->recycled = calloc(rq->max_cgroups + 1, sizeof(*rq->recycled));
	rq->seen = calloc(rq->max_cgroups, 1);
	rq->totals = calloc(rq->ncpu, sizeof(*rq->totals));
	rq->idle_clock = calloc(rq->ncpu, sizeof(*rq->idle_clock));
	if (!rq->refs || !rq->recycled || !rq->seen || !rq->totals || !rq->idle_clock) {
		err = -ENOMEM;
		goto fail;
	}
	err = cgroup_paths_scan(&rq->paths);
	if (err) {
		snprintf(msg, cap, "cannot read the cgroup2 tree at %s: %s", root, strerror(-err));
		goto fail;
	}
	/* tp_btf where the kernel has it, raw_tp where its load fails: trying is
	 * cheaper than parsing the kernel's BTF a second time to predict it.
	 */
	if (cfg->force_raw_tp) {
		err = load(rq, cfg, true, msg, cap);
	} else {
		err = load(rq, cfg, false, msg, cap);
		if (err) {
			log_info("runqlat: %s; trying raw_tp", msg);
			err = load(rq, cfg, true, msg, cap);
		}
	}
	if (err)
		goto fail;
	if (rq->l3) {
		l3_visit_cpus();
		idle_clocks(rq, false);
	}
	if (rq->sched_slots > 1) {
		err = split_start(rq, cfg->watch, msg, cap);
		if (err)
			goto fail;
	}
	/* libbpf parsed the kernel's BTF (megabytes) for CO-RE and freed it: give it back. */
	malloc_trim(0);
	*out = rq;
	return 0;
fail:
	if (err == -ENOMEM)
		snprintf(msg, cap, "out of memory");
	runqlat_close(rq);
	return err;
}

bool runqlat_splits_by_scheduler(const struct runqlat_probe *rq)
{
	return rq->sched_slots > 1;
}

const char *runqlat_attach_mode(const struct runqlat_probe *rq)
{
	return rq->raw_tp ? "raw_tp" : "tp_btf";
}

int runqlat_prog_fds(const struct runqlat_probe *rq, int *fds, int cap)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, rq->skel->obj)
	{
		if (bpf_program__autoload(p) && n < cap)
			fds[n++] = bpf_program__fd(p);
	}
	return n;
}

size_t runqlat_map_memlock(const struct runqlat_probe *rq)
{
	struct bpf_map *m;
	size_t total = 0;

	bpf_object__for_each_map(m, rq->skel->obj)
	{
		char path[64], line[256];
		unsigned long long v;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(m));
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "memlock: %llu", &v) == 1)
				total += v;
		fclose(f);
	}
	return total;
}

/* Waits until every program that may have seen the old half has returned. */
static void grace_period(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	/* nohz_full kernels refuse it: programs run for microseconds, 20 ms is ample. */
	nanosleep(&ts, NULL);
}

/* Lists (cgroup id, slot) pairs BPF handed out; returns how many. */
static size_t list_slots(struct runqlat_probe *rq, struct slot_ref *refs)
{
	int fd = bpf_map__fd(rq->skel->maps.cgroup_slots);
	uint64_t key, next;
	uint32_t slot;
	size_t n = 0;
	void *prev = NULL;

	memset(rq->seen, 0, rq->max_cgroups);
	while (n < rq->max_cgroups && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &slot) || slot >= rq->max_cgroups || rq->seen[slot])
			continue;
		rq->seen[slot] = 1;
		refs[n++] = (struct slot_ref){ .id = key, .slot = slot };
	}
	return n;
}

/* Path for a slot: its cached name, else its nearest cached ancestor. */
static const char *slot_path(struct runqlat_probe *rq, const struct slot_ref *r)
{
	const char *path = cgroup_paths_get(&rq->paths, r->id);
	struct runqlat_slot_info info;

	if (path)
		return path;
	if (bpf_map_lookup_elem(bpf_map__fd(rq->skel->maps.slot_info), &r->slot, &info) || info.id != r->id ||
	    info.level > RUNQLAT_MAX_DEPTH)
		return "/";
	/* __u64 and uint64_t have the same size */
	return cgroup_paths_resolve(&rq->paths, (const uint64_t *)info.ids, info.level);
}

/* Reads the histogram at key of a map into rq->hist and resets it; false if it is empty. */
static bool take_hist(struct runqlat_probe *rq, struct bpf_map *map, uint32_t key)
{
	int fd = bpf_map__fd(map);

	if (bpf_map_lookup_elem(fd, &key, &rq->hist) || !rq->hist.count)
		return false;
	bpf_map_update_elem(fd, &key, &rq->zero, BPF_ANY);
	return true;
}

/* Before the flip: frees the slots of cgroups that no longer exist. */
static size_t retire_dead_slots(struct runqlat_probe *rq)
{
	int fd = bpf_map__fd(rq->skel->maps.cgroup_slots);
	size_t n = list_slots(rq, rq->refs), dead = 0;
	bool rescanned = false;

	for (size_t i = 0; i < n; i++) {
		struct slot_ref *r = &rq->refs[i];

		if (!cgroup_paths_get(&rq->paths, r->id) && !rescanned) {
			cgroup_paths_scan(&rq->paths); /* first sight of cgroups made since the last scan */
			rescanned = true;
		}
		if (cgroup_paths_alive(&rq->paths, r->id))
			continue;
		r->path = slot_path(rq, r);
		if (bpf_map_delete_elem(fd, &r->id) == 0)
			rq->recycled[dead++] = *r;
	}
	if (dead)
		__atomic_add_fetch(&rq->skel->bss->slot_gen, 1, __ATOMIC_SEQ_CST);
	return dead;
}

static int cmp_ref_path(const void *a, const void *b)
{
	const struct slot_ref *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int add_cgroups(struct runqlat_probe *rq, cJSON *arr, unsigned half, struct slot_ref *refs, size_t n)
{
	size_t i = 0;
	int err = 0;

	for (size_t k = 0; k < n; k++)
		if (!refs[k].path)
			refs[k].path = slot_path(rq, &refs[k]);
	qsort(refs, n, sizeof(refs[0]), cmp_ref_path);
	while (i < n) {
		size_t j = i;
		cJSON *o;

		memset(&rq->sum, 0, sizeof(rq->sum));
		for (; j < n && !strcmp(refs[j].path, refs[i].path); j++) {
			if (take_hist(rq, rq->skel->maps.cgroup_hists, half * rq->max_cgroups + refs[j].slot))
				runqlat_summary_add(&rq->sum, &rq->hist);
		}
		if (rq->sum.count && arr && !err) {
			/* on failure keep going: every slot's half must still be zeroed */
			o = cJSON_CreateObject();
			if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "path", refs[i].path) ||
			    runqlat_summary_to_json(&rq->sum, o))
				err = -ENOMEM;
		}
		i = j;
	}
	return err;
}

/* Per CPU (its classes merged), and per class across CPUs into rq->by_sched. */
static int add_cpus(struct runqlat_probe *rq, cJSON *arr, unsigned half)
{
	int err = 0;

	memset(rq->by_sched, 0, sizeof(rq->by_sched));
	for (unsigned cpu = 0; cpu < rq->ncpu; cpu++) {
		bool any = false;
		cJSON *o;

		memset(&rq->sum, 0, sizeof(rq->sum));
		for (unsigned k = 0; k < rq->sched_slots; k++) {
			if (!take_hist(rq, rq->skel->maps.cpu_hists, (half * rq->ncpu + cpu) * rq->sched_slots + k))
				continue;
			runqlat_summary_add(&rq->sum, &rq->hist);
			runqlat_summary_add(&rq->by_sched[k], &rq->hist);
			any = true;
		}
		rq->totals[cpu].wait_ns = rq->sum.sum_ns;
		rq->totals[cpu].waits = rq->sum.count;
		if (!any || err || !arr)
			continue;
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddNumberToObject(o, "cpu", cpu) ||
		    runqlat_summary_to_json(&rq->sum, o))
			err = -ENOMEM;
	}
	return err;
}

/* Reads and zeroes half of the idle-sibling sums into rq->totals. */
static void take_idle(struct runqlat_probe *rq, unsigned half)
{
	int fd = bpf_map__fd(rq->skel->maps.idle_sums);
	struct runqlat_idle_sum zero = { 0 };

	for (unsigned cpu = 0; cpu < rq->ncpu; cpu++) {
		uint32_t key = half * rq->ncpu + cpu;
		struct runqlat_idle_sum v;

		rq->totals[cpu].idle_ns = rq->totals[cpu].idle_waits = 0;
		if (bpf_map_lookup_elem(fd, &key, &v) || (!v.idle_ns && !v.idle_waits))
			continue;
		bpf_map_update_elem(fd, &key, &zero, BPF_ANY);
		rq->totals[cpu].idle_ns = v.idle_ns;
		rq->totals[cpu].idle_waits = v.idle_waits;
	}
}

/* Logs what would make idle-sibling time undercount: idle clocks out of step, or
 * sched_switch runs the kernel skipped (recursion misses of the switch program). */
static void log_idle_trouble(struct runqlat_probe *rq)
{
	struct bpf_program *swtch = rq->raw_tp ? rq->skel->progs.schedio_rq_swtch_r : rq->skel->progs.schedio_rq_swtch;
	uint64_t desyncs = rq->skel->bss->idle_desyncs;
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	if (desyncs != rq->desyncs_reported) {
		log_warn("runqlat: %llu idle clock desync(s): idle-sibling time may be undercounted",
			 (unsigned long long)(desyncs - rq->desyncs_reported));
		rq->desyncs_reported = desyncs;
	}
	if (bpf_obj_get_info_by_fd(bpf_program__fd(swtch), &info, &len) == 0 &&
	    info.recursion_misses != rq->misses_reported) {
		log_warn("runqlat: the kernel skipped %llu sched_switch run(s) of the program (recursion): "
			 "idle-sibling time may be undercounted",
			 (unsigned long long)(info.recursion_misses - rq->misses_reported));
		rq->misses_reported = info.recursion_misses;
	}
}

/* "l3_domains" per domain of the topology read now (the report's host.l3_domains). */
static int add_l3(struct runqlat_probe *rq, cJSON *sec)
{
	struct topology t;
	int err;

	if (!rq->l3)
		return 0;
	err = topology_read(topology_cpu_root(), &t);
	if (err)
		return 0; /* host.l3_domains fails alike: no domains to report against */
	if (t.nl3 > MAX_L3_DOMAINS) {
		topology_free(&t);
		return 0;
	}
	err = runqlat_l3_to_json(&t, rq->totals, rq->ncpu, sec);
	topology_free(&t);
	return err;
}

/* Name of histogram class k: "" for the kernel's own classes, else its sched_ext scheduler. */
static const char *class_name(const struct sched_slots *names, unsigned k)
{
	const char *n;

	if (k == 0)
		return "";
	n = sched_slots_name(names, k - 1);
	/* loaded and gone between two polls: known only as a sched_ext scheduler */
	return *n ? n : "sched_ext";
}

/* "by_scheduler": [{"ops": null | name, ...histogram}], classes of one name merged. */
static int add_by_scheduler(struct runqlat_probe *rq, cJSON *sec, const struct sched_slots *names)
{
	cJSON *arr = cJSON_AddArrayToObject(sec, "by_scheduler");

	if (!arr)
		return -ENOMEM;
	for (unsigned k = 1; k < rq->sched_slots; k++)
		for (unsigned j = k + 1; j < rq->sched_slots; j++)
			if (rq->by_sched[j].count && !strcmp(class_name(names, k), class_name(names, j))) {
				hist_merge(&rq->by_sched[k], &rq->by_sched[j]);
				memset(&rq->by_sched[j], 0, sizeof(rq->by_sched[j]));
			}
	for (unsigned k = 0; k < rq->sched_slots; k++) {
		cJSON *o;

		if (!rq->by_sched[k].count)
			continue;
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			return -ENOMEM;
		}
		if (!(k ? cJSON_AddStringToObject(o, "ops", class_name(names, k)) : cJSON_AddNullToObject(o, "ops")) ||
		    runqlat_summary_to_json(&rq->by_sched[k], o))
			return -ENOMEM;
	}
	return 0;
}

int runqlat_collect(struct runqlat_probe *rq, cJSON *report)
{
	cJSON *sec, *cgroups, *cpus, *layout;
	size_t dead, n;
	unsigned half;
	uint64_t overflow;
	int fd = bpf_map__fd(rq->skel->maps.free_slots), err = 0;
	struct sched_slots names = { 0 };

	dead = retire_dead_slots(rq);
	if (rq->watch) {
		/* A scheduler loaded since the last poll gets its name before the cut. */
		struct sched_ext_state st;

		sched_ext_state_read(rq->sched_ext_root, &st);
		sched_changed(rq, st.state, st.ops);
	}
	half = __atomic_fetch_add(&rq->skel->bss->interval, 1, __ATOMIC_SEQ_CST) & 1;
	grace_period();
	if (rq->watch) {
		pthread_mutex_lock(&rq->slots_lock);
		names = rq->slots;
		pthread_mutex_unlock(&rq->slots_lock);
	}

	n = list_slots(rq, rq->refs);
	for (size_t i = 0; i < dead; i++)
		rq->refs[n++] = rq->recycled[i];
	rq->refs[n++] = (struct slot_ref){ .id = 0, .slot = RUNQLAT_OVERFLOW_SLOT, .path = "/" };

	sec = cJSON_AddObjectToObject(report, "runqlat");
	layout = runqlat_layout_json();
	cgroups = cJSON_CreateArray();
	cpus = cJSON_CreateArray();
	if (!sec || !layout || !cgroups || !cpus) {
		cJSON_Delete(layout);
		cJSON_Delete(cgroups);
		cJSON_Delete(cpus);
		sec = NULL;
		err = -ENOMEM;
	} else {
		cJSON_AddItemToObject(sec, "layout", layout);
		cJSON_AddItemToObject(sec, "cgroups", cgroups);
		cJSON_AddItemToObject(sec, "cpus", cpus);
		cJSON_AddStringToObject(sec, "attach", runqlat_attach_mode(rq));
	}
	/* Halves are zeroed even when JSON fails, so the next interval starts clean. */
	if (add_cgroups(rq, sec ? cgroups : NULL, half, rq->refs, n) && !err)
		err = -ENOMEM;
	if (add_cpus(rq, sec ? cpus : NULL, half) && !err)
		err = -ENOMEM;
	take_idle(rq, half);
	if (sec && !err)
		err = add_l3(rq, sec);
	if (rq->sched_slots > 1 && sec && !err)
		err = add_by_scheduler(rq, sec, &names);

	for (size_t i = 0; i < dead; i++) {
		bpf_map_update_elem(fd, NULL, &rq->recycled[i].slot, BPF_ANY);
		cgroup_paths_forget(&rq->paths, rq->recycled[i].id);
	}
	overflow = rq->skel->bss->overflow_events;
	if (overflow != rq->overflow_reported) {
		log_warn("runqlat: all %u cgroup slots in use: %llu events counted under \"/\"", rq->max_cgroups,
			 (unsigned long long)(overflow - rq->overflow_reported));
		rq->overflow_reported = overflow;
	}
	if (rq->l3) {
		log_idle_trouble(rq);
		idle_clocks(rq, true);
	}
	return err;
}

void runqlat_close(struct runqlat_probe *rq)
{
	if (!rq)
		return;
	if (rq->watch) /* before the skeleton: the follower writes ext_slot */
		sched_ext_watch_unfollow(rq->watch, sched_changed, rq);
	if (rq->own_watch)
		sched_ext_watch_stop(rq->watch);
	runqlat__destroy(rq->skel); /* closes the link fds: nothing stays attached */
	cgroup_paths_free(&rq->paths);
	free(rq->refs);
	free(rq->recycled);
	free(rq->seen);
	free(rq->totals);
	free(rq->idle_clock);
	topology_free(&rq->topo);
	pthread_mutex_destroy(&rq->slots_lock);
	free(rq);
}

static int collector_open(const struct agent_options *opt, void **state)
{
	const char *attach = getenv("SCHEDIO_RUNQLAT_ATTACH"), *st = getenv("SCHEDIO_RUNQLAT_STATE");
	struct runqlat_config cfg = {
		.cgroup_depth = opt->cgroup_depth,
		/* test and benchmark knobs: exercise the fallback and the pid-hash variant */
		.force_raw_tp = attach && !strcmp(attach, "raw_tp"),
		.pid_hash = st && !strcmp(st, "pid_hash"),
		.watch = opt->sched_watch,
	};
	struct runqlat_probe *rq;
	char msg[512];
	int err;

	err = runqlat_open(&cfg, &rq, msg, sizeof(msg));
	if (err) {
		log_error("runqlat: %s", msg);
		return err;
	}
	log_info("runqlat: collecting (%s, per-task state in %s, cgroup depth %u%s)", runqlat_attach_mode(rq),
		 rq->pid_hash ? "a pid hash" : "task storage", rq->depth,
		 runqlat_splits_by_scheduler(rq) ? ", split by scheduler" : "");
	*state = rq;
	return 0;
}

static int collector_collect(void *state, cJSON *report)
{
	return runqlat_collect(state, report);
}

static void collector_close(void *state)
{
	runqlat_close(state);
}

const struct collector runqlat_collector = {
	.name = "runqlat",
	.open = collector_open,
	.collect = collector_collect,
	.close = collector_close,
};
