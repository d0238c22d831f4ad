/* agent_cost.c - the agent's own cost, reported in "agent" every interval.
 *
 * cpu_ns is CLOCK_PROCESS_CPUTIME_ID (user + system, every thread) between two
 * collections; rss_bytes is /proc/self/statm's resident size at the end.
 *
 * The BPF programs are found without asking the collectors that loaded them:
 * every fd of this process whose fdinfo names a prog_id (a program's own fd or
 * a link holding one) is one of ours. Their run_cnt and run_time_ns only
 * advance while the kernel's run-time statistics are on, which costs two
 * clock reads per program run, so a sampler thread holds them on
 * (BPF_ENABLE_STATS, the fd held) for sample_ms of every period_ms only. The
 * report carries how long they were on in the interval (sampled_ns) and the
 * counts scaled to the whole interval. When kernel.bpf_stats_enabled is 1
 * (someone else turned them on for everybody) they run all the time and the
 * whole interval counts as sampled; the sysctl is never written here.
 */
#include "agent/report/agent_cost.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <cjson/cJSON.h>

#include "common/log.h"

#define AGENT_COST_STATS_SYSCTL "/proc/sys/kernel/bpf_stats_enabled"
/* Program ids looked at before the first AGENT_COST_MAX_PROGRAMS are kept. */
#define AGENT_COST_MAX_IDS 256

struct agent_cost_prog {
	uint32_t id;
	char name[AGENT_COST_NAME_MAX + 1];
	uint64_t run_cnt, run_time_ns;
};

struct agent_cost {
	uint64_t sample_ns, period_ns; /* statistics on for sample_ns of every period_ns */
	pthread_t sampler;
	bool sampler_started;
	pthread_mutex_t lock; /* wake, stop, on_since, on_ns, epoch_ns */
	pthread_cond_t wake;
	bool stop;
	/* CLOCK_MONOTONIC ns our statistics fd was taken, or the last collection since; 0: not held */
	uint64_t on_since;
	uint64_t on_ns;    /* time it was held in windows closed since the last collection */
	uint64_t epoch_ns; /* the first collection (the first interval's start): windows count from it */
	/* The last collection, where the next interval starts. */
	uint64_t last_ns, last_cpu_ns;
	bool last_others; /* kernel.bpf_stats_enabled was 1 */
	struct agent_cost_prog prev[AGENT_COST_MAX_PROGRAMS];
	size_t nprev;
};

int agent_cost_fdinfo_prog_id(const char *text, size_t len, uint32_t *id)
{
	static const char key[] = "prog_id:";
	size_t klen = sizeof(key) - 1;

	for (size_t pos = 0; pos < len;) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - line) : len - pos;

		if (llen > klen && memcmp(line, key, klen) == 0) {
			size_t i = klen;
			uint64_t v = 0;

			while (i < llen && (line[i] == ' ' || line[i] == '\t'))
				i++;
			if (i == llen)
				return 0;
			for (; i < llen && isdigit((unsigned char)line[i]); i++) {
				v = v * 10 + (uint64_t)(line[i] - '0');
				if (v > UINT32_MAX)
					return 0;
			}
			if (i != llen || v == 0) /* ids start at 1; anything after the digits is not an id */
				return 0;
			*id = (uint32_t)v;
			return 1;
		}
		pos += llen + 1;
	}
	return 0;
}

uint64_t agent_cost_scale(uint64_t count, uint64_t sampled_ns, uint64_t interval_ns)
{
	long double v;

	if (sampled_ns == 0 || sampled_ns >= interval_ns)
		return count;
	v = (long double)count * (long double)interval_ns / (long double)sampled_ns + 0.5L;
	return v >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)v;
}

uint64_t agent_cost_sampled_ns(uint64_t ours_ns, uint64_t interval_ns, bool others_at_start, bool others_at_end)
{
	if (others_at_start && others_at_end)
		return interval_ns;
	return ours_ns < interval_ns ? ours_ns : interval_ns;
}

void agent_cost_prog_name(const char *kernel_name, uint32_t id, char *out, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (; kernel_name[n] && n + 1 < size; n++) {
		char c = kernel_name[n];

		out[n] = isalnum((unsigned char)c) || c == '_' || c == '.' ? c : '_';
	}
	out[n] = '\0';
	if (n == 0)
		snprintf(out, size, "prog_%u", id);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Resident bytes from /proc/self/statm (pages); 0 if unreadable. */
static uint64_t rss_bytes(void)
{
	unsigned long long size, resident;
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	return n == 2 ? resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* True when kernel.bpf_stats_enabled reads 1: statistics on for everybody. The sysctl shows only
 * what was written to it, not who holds a BPF_ENABLE_STATS fd, so our own windows do not show. */
static bool others_hold_stats(void)
{
	char c = '0';
	int fd = open(AGENT_COST_STATS_SYSCTL, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Fills ids with the distinct program ids named by this process's fds, ascending; their count. */
static size_t own_prog_ids(uint32_t *ids, size_t cap)
{
	DIR *dir = opendir("/proc/self/fdinfo");
	struct dirent *de;
	size_t n = 0, k = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir)) && n < cap) {
		char buf[4096];
		ssize_t len;
		uint32_t id;
		int fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* closed meanwhile */
		len = read(fd, buf, sizeof(buf));
		close(fd);
		if (len > 0 && agent_cost_fdinfo_prog_id(buf, (size_t)len, &id))
			ids[n++] = id;
	}
	closedir(dir);
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	return k;
}

/* The kernel keeps 15 bytes of a program's name; its BTF has all of it (the name of its first
 * function). Fills out and returns true when found. */
static bool full_name(int fd, const struct bpf_prog_info *info, char *out, size_t size)
{
	struct bpf_func_info func = { 0 };
	struct bpf_prog_info more;
	uint32_t len = sizeof(more);
	const struct btf_type *t;
	struct btf *btf;
	bool ok = false;

	if (!info->btf_id || !info->nr_func_info)
		return false;
	memset(&more, 0, sizeof(more));
	more.nr_func_info = 1;
	more.func_info_rec_size = sizeof(func);
	more.func_info = (uint64_t)(uintptr_t)&func;
	if (bpf_obj_get_info_by_fd(fd, &more, &len) || more.func_info_rec_size != sizeof(func))
		return false;
	btf = btf__load_from_kernel_by_id(info->btf_id);
	if (!btf)
		return false;
	t = btf__type_by_id(btf, func.type_id);
	if (t && btf_is_func(t)) {
		const char *name = btf__name_by_offset(btf, t->name_off);

		/* only a longer spelling of the same name: never another function's */
		if (name && strncmp(name, info->name, strlen(info->name)) == 0) {
			agent_cost_prog_name(name, info->id, out, size);
			ok = true;
		}
	}
	btf__free(btf);
	return ok;
}

/* Reads name and counters of each of our programs into progs (names of programs already in
 * known, nknown, are not looked up again); their count. */
static size_t read_programs(struct agent_cost_prog *progs, const struct agent_cost_prog *known, size_t nknown)
{
	uint32_t ids[AGENT_COST_MAX_IDS];
	size_t nids = own_prog_ids(ids, AGENT_COST_MAX_IDS), n = 0;

	for (size_t i = 0; i < nids && n < AGENT_COST_MAX_PROGRAMS; i++) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);
		int err;

		if (fd < 0)
			continue; /* unloaded since */
		memset(&info, 0, sizeof(info));
		err = bpf_obj_get_info_by_fd(fd, &info, &len);
		if (err) {
			close(fd);
			continue;
		}
		/* At most 15 bytes and a NUL from the kernel; not trusted to be. */
		info.name[sizeof(info.name) - 1] = '\0';
		progs[n].id = ids[i];
		for (size_t k = 0; k < nknown && !progs[n].name[0]; k++)
			if (known[k].id == ids[i])
				memcpy(progs[n].name, known[k].name, sizeof(progs[n].name));
		if (!progs[n].name[0] && (strlen(info.name) + 1 < sizeof(info.name) ||
					  !full_name(fd, &info, progs[n].name, sizeof(progs[n].name))))
			agent_cost_prog_name(info.name, ids[i], progs[n].name, sizeof(progs[n].name));
		close(fd);
		progs[n].run_cnt = info.run_cnt;
		progs[n].run_time_ns = info.run_time_ns;
		n++;
	}
	return n;
}

/* Waits on the condition until CLOCK_MONOTONIC deadline_ns (UINT64_MAX: forever); true if told to stop.
 * Called with the lock held. */
static bool sampler_wait(struct agent_cost *ac, uint64_t deadline_ns)
{
	while (!ac->stop && (deadline_ns == UINT64_MAX || clock_ns(CLOCK_MONOTONIC) < deadline_ns)) {
		struct timespec ts = { .tv_sec = (time_t)(deadline_ns / 1000000000ULL),
				       .tv_nsec = (long)(deadline_ns % 1000000000ULL) };

		if (deadline_ns == UINT64_MAX)
			pthread_cond_wait(&ac->wake, &ac->lock);
		else
			pthread_cond_timedwait(&ac->wake, &ac->lock, &ts);
	}
	return ac->stop;
}

static uint64_t midpoint(uint64_t a, uint64_t b)
{
	return a + (b - a) / 2;
}

/* Holds the run-time statistics on for sample_ns of every period_ns. */
static void *sampler_main(void *arg)
{
	struct agent_cost *ac = arg;
	uint64_t next;

	pthread_mutex_lock(&ac->lock);
	/* Windows sit in the middle of each period counted from the first interval's start, so with a
	 * period that divides the interval no window straddles two reports. */
	while (!ac->epoch_ns && !ac->stop)
		pthread_cond_wait(&ac->wake, &ac->lock);
	next = ac->epoch_ns + (ac->sample_ns < ac->period_ns ? (ac->period_ns - ac->sample_ns) / 2 : 0);
	while (!sampler_wait(ac, next)) {
		uint64_t asked = clock_ns(CLOCK_MONOTONIC);
		int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		uint64_t now;

		if (fd < 0) {
			log_warn("agent_cost: cannot turn on BPF run-time statistics (%s); bpf.sampled_ns stays 0",
				 strerror(-fd));
			break;
		}
		/* Turning the statistics on or off patches the kernel's text (a static key): a few ms each
		 * way, more on a busy machine, with the switch somewhere inside. The window is timed from
		 * the middle of one call to the middle of the other. */
		ac->on_since = midpoint(asked, clock_ns(CLOCK_MONOTONIC));
		/* A window opened late (the thread waited for a CPU) still lasts sample_ns. */
		sampler_wait(ac, ac->sample_ns >= ac->period_ns ? UINT64_MAX : ac->on_since + ac->sample_ns);
		asked = clock_ns(CLOCK_MONOTONIC);
		close(fd);
		now = midpoint(asked, clock_ns(CLOCK_MONOTONIC));
		ac->on_ns += now - ac->on_since;
		ac->on_since = 0;
		next += ac->period_ns;
		if (next <= now) /* fell behind (suspend): the next window starts a period from now */
			next = now + ac->period_ns - ac->sample_ns;
	}
	pthread_mutex_unlock(&ac->lock);
	return NULL;
}

static void agent_cost_close(void *state)
{
	struct agent_cost *ac = state;

	if (!ac)
		return;
	if (ac->sampler_started) {
		pthread_mutex_lock(&ac->lock);
		ac->stop = true;
		pthread_cond_signal(&ac->wake);
		pthread_mutex_unlock(&ac->lock);
		pthread_join(ac->sampler, NULL);
	}
	pthread_cond_destroy(&ac->wake);
	pthread_mutex_destroy(&ac->lock);
	free(ac);
}

static int agent_cost_open(const struct agent_options *opt, void **state)
{
	struct agent_cost *ac = calloc(1, sizeof(*ac));
	pthread_condattr_t attr;
	int err;

	if (!ac)
		return -ENOMEM;
	ac->sample_ns = opt->bpf_stats_sample_ms * 1000000ULL;
	ac->period_ns = opt->bpf_stats_period_ms * 1000000ULL;
	pthread_mutex_init(&ac->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ac->wake, &attr);
	pthread_condattr_destroy(&attr);
	ac->last_ns = clock_ns(CLOCK_MONOTONIC);
	ac->last_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ac->last_others = others_hold_stats();
	if (ac->sample_ns > 0 && ac->period_ns > 0) {
		err = pthread_create(&ac->sampler, NULL, sampler_main, ac);
		if (err) {
			log_error("agent_cost: cannot start the BPF statistics sampler: %s", strerror(err));
			agent_cost_close(ac);
			return -err;
		}
		ac->sampler_started = true;
	}
	*state = ac;
	return 0;
}

static const struct agent_cost_prog *prev_prog(const struct agent_cost *ac, uint32_t id)
{
	for (size_t i = 0; i < ac->nprev; i++)
		if (ac->prev[i].id == id)
			return &ac->prev[i];
	return NULL;
}

/* Adds "bpf" for the interval: each program's counts since the last collection, scaled. */
static int add_bpf(cJSON *agent, const struct agent_cost *ac, const struct agent_cost_prog *progs, size_t n,
		   uint64_t sampled_ns, uint64_t interval_ns)
{
	cJSON *bpf = cJSON_AddObjectToObject(agent, "bpf"), *list;

	if (!bpf || !cJSON_AddNumberToObject(bpf, "sampled_ns", (double)sampled_ns))
		return -ENOMEM;
	list = cJSON_AddArrayToObject(bpf, "programs");
	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct agent_cost_prog *was = prev_prog(ac, progs[i].id);
		/* A program loaded during the interval counted from 0. */
		uint64_t cnt = progs[i].run_cnt - (was && was->run_cnt <= progs[i].run_cnt ? was->run_cnt : 0);
		uint64_t ns =
		    progs[i].run_time_ns - (was && was->run_time_ns <= progs[i].run_time_ns ? was->run_time_ns : 0);
		cJSON *p = cJSON_CreateObject();

		if (!p || !cJSON_AddItemToArray(list, p)) {
			cJSON_Delete(p);
			return -ENOMEM;
		}
		if (!cJSON_AddStringToObject(p, "name", progs[i].name) ||
		    !cJSON_AddNumberToObject(p, "run_cnt", (double)agent_cost_scale(cnt, sampled_ns, interval_ns)) ||
		    !cJSON_AddNumberToObject(p, "run_time_ns", (double)agent_cost_scale(ns, sampled_ns, interval_ns)))
			return -ENOMEM;
	}
	return 0;
}

/* The report's own interval length, which the counts are scaled to; fallback when it has none. */
static uint64_t report_interval_ns(const cJSON *report, uint64_t fallback)
{
	const cJSON *iv = cJSON_GetObjectItemCaseSensitive(report, "interval");
	double start = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(iv, "start_ms"));
	double end = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(iv, "end_ms"));

	return end > start ? (uint64_t)(end - start) * 1000000ULL : fallback;
}

static int agent_cost_collect(void *state, cJSON *report)
{
	struct agent_cost *ac = state;
	struct agent_cost_prog progs[AGENT_COST_MAX_PROGRAMS] = { 0 };
	uint64_t now, cpu, ours, interval;
	bool others = others_hold_stats();
	cJSON *agent = cJSON_GetObjectItemCaseSensitive(report, "agent");
	size_t n;
	int err = 0;

	/* The counters and the time they were on are read under one lock, so a window cannot close
	 * between the two and leave counts without their time. */
	pthread_mutex_lock(&ac->lock);
	now = clock_ns(CLOCK_MONOTONIC);
	ours = ac->on_ns + (ac->on_since ? now - ac->on_since : 0);
	ac->on_ns = 0;
	if (ac->on_since)
		ac->on_since = now;
	n = read_programs(progs, ac->prev, ac->nprev);
	if (!ac->epoch_ns) {
		ac->epoch_ns = now;
		pthread_cond_signal(&ac->wake);
	}
	pthread_mutex_unlock(&ac->lock);
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	interval = report_interval_ns(report, now - ac->last_ns);

	/* No "agent" object: the collection that starts the first interval; only the baseline moves. */
	if (cJSON_IsObject(agent)) {
		uint64_t sampled = agent_cost_sampled_ns(ours, interval, ac->last_others, others);

		if (!cJSON_AddNumberToObject(agent, "cpu_ns", (double)(cpu - ac->last_cpu_ns)) ||
		    !cJSON_AddNumberToObject(agent, "rss_bytes", (double)rss_bytes()))
			err = -ENOMEM;
		else
			err = add_bpf(agent, ac, progs, n, sampled, interval);
	}
	ac->last_ns = now;
	ac->last_cpu_ns = cpu;
	ac->last_others = others;
	memcpy(ac->prev, progs, n * sizeof(*progs));
	ac->nprev = n;
	return err;
}

const struct collector agent_cost_collector = {
	.name = "agent_cost",
	.open = agent_cost_open,
	.collect = agent_cost_collect,
	.close = agent_cost_close,
};
