/* sched_ext_health.c - the sched_ext health fields of a report: which
 * schedulers were loaded during the interval, the kernel's counters as deltas
 * over it, and each exit with the kernel's reason.
 *
 * sysfs gives the counters and the scheduler in force: enable_seq (numbers
 * every enable), nr_rejected (tasks whose SCHED_EXT policy was refused,
 * zeroed by every enable), switch_all (0 while a scheduler runs in partial
 * mode) and root/events (counters of the scheduler instance: a new one starts
 * from zero, and they go with it when it is unloaded). They are read on every
 * poll of the watcher (at once on each load and unload uevent, every second
 * while a scheduler runs; every 100 ms without uevents) and at the end of the
 * interval. A counter's delta is summed per scheduler instance (ops and
 * enable_seq): within one instance the increase, across a new one its whole
 * value. What an instance counted between the last poll and its unload is
 * lost: its root/events is gone by the time anyone can read it.
 *
 * sysfs keeps nothing of why a scheduler went away, and the uevent of the
 * removal carries no reason; the kernel log does: "sched_ext: BPF scheduler
 * "OPS" disabled (REASON)" then, for errors, "sched_ext: OPS: MESSAGE"
 * (kmsg_parse.c). /dev/kmsg is read without blocking, from its end when the
 * agent starts. Where it cannot be opened (no CAP_SYSLOG under
 * dmesg_restrict), each scheduler seen gone is an exit of kind "unknown"
 * with no reason.
 */
#include "agent/host/sched_ext_health.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/host/kmsg_parse.h"
#include "agent/host/sched_ext_events.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/sched_ext_state.h"

#define HEALTH_MAX_SCHEDULERS 64
#define HEALTH_MAX_EXITS 64

/* A kernel counter turned into a delta over the interval. */
struct counter {
	uint64_t last;      /* the value last read */
	uint64_t acc;       /* the increase counted this interval */
	uint64_t gen;       /* the scheduler instance of the last read */
	bool have;          /* read at least once */
	bool reset_counted; /* a drop was seen (the zeroing of a new enable) before its instance showed */
};

struct event_counter {
	char name[SCHED_EXT_EVENT_NAME_MAX + 1];
	struct counter c;
};

struct sched_entry {
	char ops[KMSG_SCX_OPS_MAX];
	int64_t enable_seq; /* -1: no enable_seq file */
	int64_t first_ms, last_ms;
	bool partial;
};

struct exit_entry {
	char ops[KMSG_SCX_OPS_MAX];
	int64_t t_ms;
	const char *kind;
	char reason[KMSG_SCX_REASON_MAX];
	char message[KMSG_SCX_MESSAGE_MAX];
	uint64_t kmsg_seq; /* of its "disabled" record; the message must be the next one */
};

struct sched_ext_health {
	pthread_mutex_t lock; /* everything below: the watch thread polls, the collector takes */
	char root[PATH_MAX];
	int kmsg_fd;   /* -1: none to read */
	bool from_log; /* exits come from kernel log records (read from kmsg_fd, or handed in) */
	bool polled;   /* the baseline is taken */
	/* the scheduler in force at the last poll */
	bool loaded;
	struct sched_entry cur;
	bool cur_unlogged;  /* seen in sysfs before its "enabled" record was read */
	uint64_t gen;       /* bumped for every new scheduler instance seen */
	int64_t enable_seq; /* at the last poll; -1 without the file */
	int64_t seq_base;   /* the enable_seq of the newest enable accounted for; -1: none yet */
	struct counter nr_rejected;
	struct event_counter events[SCHED_EXT_EVENTS_MAX];
	size_t nevents;
	bool ran; /* some scheduler was loaded during the interval */
	struct sched_entry scheds[HEALTH_MAX_SCHEDULERS];
	size_t nscheds;
	struct exit_entry exits[HEALTH_MAX_EXITS];
	size_t nexits;
	char buf[8192]; /* one kmsg record */
};

static int64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads a decimal file under root; false if absent or not a number. */
static bool read_u64(const char *root, const char *name, uint64_t *out)
{
	char path[PATH_MAX], buf[64], *end;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, name) >= sizeof(path) ||
	    fs_read_trimmed(path, buf, sizeof(buf)) <= 0)
		return false;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0' && buf[0] >= '0' && buf[0] <= '9';
}

/* Adds to c the increase up to v, read while instance gen was (or had last been) in force. */
static void counter_update(struct counter *c, uint64_t v, uint64_t gen, bool baseline)
{
	if (baseline || !c->have)
		; /* what was counted before the agent looked belongs to no interval */
	else if (gen == c->gen && v >= c->last)
		c->acc += v - c->last;
	else if (gen == c->gen) {
		c->acc += v; /* zeroed by an enable whose scheduler is not up yet */
		c->reset_counted = true;
	} else if (c->reset_counted && v >= c->last)
		c->acc += v - c->last; /* its zeroing was seen already */
	else
		c->acc += v; /* a new instance counts from zero */
	if (gen != c->gen)
		c->reset_counted = false;
	c->last = v;
	c->gen = gen;
	c->have = true;
}

/* Appends an exit, dropping the oldest past the limit (the newest says how the interval ends). */
static struct exit_entry *add_exit(struct sched_ext_health *h, const char *ops, int64_t t_ms, const char *kind)
{
	struct exit_entry *e;

	if (h->nexits == HEALTH_MAX_EXITS) {
		memmove(&h->exits[0], &h->exits[1], sizeof(h->exits[0]) * (HEALTH_MAX_EXITS - 1));
		h->nexits--;
	}
	e = &h->exits[h->nexits++];
	memset(e, 0, sizeof(*e));
	snprintf(e->ops, sizeof(e->ops), "%s", ops);
	e->t_ms = t_ms;
	e->kind = kind;
	return e;
}

/* Appends a scheduler to the interval's list (the oldest is dropped past the limit). */
static void add_scheduler(struct sched_ext_health *h, const struct sched_entry *s)
{
	if (h->nscheds == HEALTH_MAX_SCHEDULERS) {
		memmove(&h->scheds[0], &h->scheds[1], sizeof(h->scheds[0]) * (HEALTH_MAX_SCHEDULERS - 1));
		h->nscheds--;
	}
	h->scheds[h->nscheds++] = *s;
}

/* The interval's entry of the scheduler in force (the newest of its ops and enable_seq), or NULL. */
static struct sched_entry *cur_entry(struct sched_ext_health *h)
{
	for (size_t i = h->nscheds; i-- > 0;)
		if (!strcmp(h->scheds[i].ops, h->cur.ops) && h->scheds[i].enable_seq == h->cur.enable_seq)
			return &h->scheds[i];
	return NULL;
}

/* Without the kernel log, a scheduler seen gone is an exit with no reason. */
static void scheduler_gone(struct sched_ext_health *h, int64_t now_ms)
{
	if (!h->from_log)
		add_exit(h, h->cur.ops, now_ms, "unknown");
}

/* A scheduler instance new to the agent, loaded since t_ms: the one in force. */
static void new_instance(struct sched_ext_health *h, const char *ops, int64_t seq, int64_t t_ms, bool partial)
{
	if (h->loaded)
		scheduler_gone(h, t_ms);
	memset(&h->cur, 0, sizeof(h->cur));
	h->cur_unlogged = false;
	snprintf(h->cur.ops, sizeof(h->cur.ops), "%s", ops);
	h->cur.enable_seq = seq;
	h->cur.first_ms = t_ms;
	h->cur.last_ms = t_ms;
	h->cur.partial = partial;
	if (seq >= 0)
		h->seq_base = seq;
	h->gen++;
	h->loaded = true;
	h->ran = true;
	add_scheduler(h, &h->cur);
}

static void update_events(struct sched_ext_health *h, const struct sched_ext_events *evs, bool baseline)
{
	for (size_t i = 0; i < evs->n; i++) {
		struct event_counter *ec = NULL;

		for (size_t j = 0; j < h->nevents && !ec; j++)
			if (!strcmp(h->events[j].name, evs->ev[i].name))
				ec = &h->events[j];
		if (!ec) {
			if (h->nevents == SCHED_EXT_EVENTS_MAX)
				continue;
			ec = &h->events[h->nevents++];
			memset(ec, 0, sizeof(*ec));
			snprintf(ec->name, sizeof(ec->name), "%s", evs->ev[i].name);
			/* a counter new to the agent, of an instance that is not its
			 * baseline, counted from the instance's start */
			ec->c.have = !baseline;
			ec->c.gen = h->gen - 1;
		}
		counter_update(&ec->c, evs->ev[i].value, h->gen, baseline);
	}
}

static void on_kmsg(struct sched_ext_health *h, const char *rec, size_t len, int64_t mono_to_wall_ms);

/* Takes every record waiting in the kernel log (under h->lock). */
static void drain_kmsg(struct sched_ext_health *h)
{
	int64_t offset = clock_ms(CLOCK_REALTIME) - clock_ms(CLOCK_MONOTONIC);

	while (h->kmsg_fd >= 0) {
		ssize_t n = read(h->kmsg_fd, h->buf, sizeof(h->buf) - 1);

		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten before we read them: go on from the oldest left */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			log_warn(
			    "sched_ext: reading the kernel log failed (%s): exits from the state changes from now on",
			    strerror(errno));
			close(h->kmsg_fd);
			h->kmsg_fd = -1;
			h->from_log = false;
		}
		if (n <= 0)
			break;
		on_kmsg(h, h->buf, (size_t)n, offset);
	}
}

/* A kernel log record, taken under h->lock. The kernel prints "enabled"
 * before it counts the enable in enable_seq, and "disabled" once the
 * scheduler is out: a scheduler starved of CPU time (the agent's own threads
 * with it) may come and go between two polls and still be listed. */
static void on_kmsg(struct sched_ext_health *h, const char *rec, size_t len, int64_t mono_to_wall_ms)
{
	struct kmsg_record r;
	struct kmsg_scx_line line;
	struct exit_entry *e;
	struct sched_entry *s;
	int64_t t_ms;

	/* only the kernel's own records: root may write anything to /dev/kmsg */
	if (kmsg_parse_record(rec, len, &r) < 0 || r.facility != 0)
		return;
	t_ms = (int64_t)(r.ts_us / 1000) + mono_to_wall_ms;
	switch (kmsg_parse_scx_line(r.text, r.text_len, &line)) {
	case KMSG_SCX_ENABLED:
		/* a poll between the kernel's switch to "enabled" and this record
		 * already saw the scheduler: the record is its start, not another one */
		if (h->loaded && h->cur_unlogged && !strcmp(h->cur.ops, line.ops)) {
			h->cur_unlogged = false;
			break;
		}
		new_instance(h, line.ops, h->seq_base >= 0 ? h->seq_base + 1 : -1, t_ms, line.partial);
		break;
	case KMSG_SCX_DISABLED:
		e = add_exit(h, line.ops, t_ms, kmsg_scx_exit_kind(line.reason));
		snprintf(e->reason, sizeof(e->reason), "%s", line.reason);
		e->kmsg_seq = r.seq;
		/* it was loaded up to then */
		for (size_t i = h->nscheds; i-- > 0;) {
			s = &h->scheds[i];
			if (!strcmp(s->ops, line.ops)) {
				if (s->last_ms < t_ms)
					s->last_ms = t_ms;
				break;
			}
		}
		break;
	case KMSG_SCX_MESSAGE:
		/* the message is the record right after its "disabled" one */
		e = h->nexits ? &h->exits[h->nexits - 1] : NULL;
		if (e && e->kmsg_seq && e->kmsg_seq + 1 == r.seq && !strcmp(e->ops, line.ops) && !e->message[0])
			snprintf(e->message, sizeof(e->message), "%s", line.message);
		break;
	case KMSG_SCX_NONE:
		break;
	}
}

void sched_ext_health_kmsg_record(struct sched_ext_health *h, const char *rec, size_t len, int64_t mono_to_wall_ms)
{
	pthread_mutex_lock(&h->lock);
	on_kmsg(h, rec, len, mono_to_wall_ms);
	pthread_mutex_unlock(&h->lock);
}

/* sched_ext_health_poll under h->lock. */
static void poll_locked(struct sched_ext_health *h, int64_t now_ms)
{
	struct sched_ext_state st;
	struct sched_ext_events evs;
	uint64_t v;
	bool baseline = !h->polled, loaded;
	int64_t seq;

	/* the log first: a scheduler it names came before the state we read */
	drain_kmsg(h);
	sched_ext_state_read(h->root, &st);
	seq = read_u64(h->root, "enable_seq", &v) ? (int64_t)v : -1;
	h->enable_seq = seq;
	if (!strcmp(st.state, "prepping") || !strcmp(st.state, "enabling"))
		goto counters; /* root/ops may show before it is up, and before enable_seq counts it */
	loaded = st.ops[0] != '\0';
	/* A new instance: another name, or enable_seq past the one in force.
	 * Read right after the kernel's "enabled", enable_seq may not count it
	 * yet: the instance's own is then the next one. */
	if (loaded && (!h->loaded || strcmp(st.ops, h->cur.ops) || seq > h->cur.enable_seq)) {
		int64_t own = seq;

		if (seq >= 0 && !baseline && seq <= h->seq_base)
			own = h->seq_base + 1;
		new_instance(h, st.ops, own, now_ms, false);
		h->cur_unlogged = !baseline;
	} else if (!loaded && h->loaded)
		scheduler_gone(h, now_ms);
	h->loaded = loaded;
	if (seq > h->seq_base)
		h->seq_base = seq;
	if (loaded) {
		struct sched_entry *e;

		h->cur.last_ms = now_ms;
		/* switch_all reads 0 from the start of disabling on: it says
		 * partial only while the scheduler is enabled, so it counts only
		 * when the state reads "enabled" both before and after it (an
		 * ejection between the two reads would otherwise look partial) */
		if (!strcmp(st.state, "enabled") && read_u64(h->root, "switch_all", &v)) {
			struct sched_ext_state again;

			sched_ext_state_read(h->root, &again);
			if (!strcmp(again.state, "enabled") && !strcmp(again.ops, st.ops))
				h->cur.partial = v == 0;
		}
		e = cur_entry(h);
		if (e) {
			e->last_ms = now_ms;
			e->partial = h->cur.partial;
		} else {
			add_scheduler(h, &h->cur);
		}
		h->ran = true;
		if (sched_ext_events_read(h->root, &evs) > 0)
			update_events(h, &evs, baseline);
	}
counters:
	if (read_u64(h->root, "nr_rejected", &v))
		counter_update(&h->nr_rejected, v, h->gen, baseline);
	h->polled = true;
}

void sched_ext_health_poll(struct sched_ext_health *h, int64_t now_ms)
{
	pthread_mutex_lock(&h->lock);
	poll_locked(h, now_ms);
	pthread_mutex_unlock(&h->lock);
}

int sched_ext_health_open(struct sched_ext_health **out, const char *root, const char *kmsg_path)
{
	struct sched_ext_health *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return -ENOMEM;
	snprintf(h->root, sizeof(h->root), "%s", root);
	h->kmsg_fd = -1;
	h->enable_seq = -1;
	h->seq_base = -1;
	pthread_mutex_init(&h->lock, NULL);
	h->from_log = true;
	if (kmsg_path) {
		h->kmsg_fd = open(kmsg_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (h->kmsg_fd < 0)
			log_warn("sched_ext: the kernel log is unreadable (%s: %s): scheduler exits are reported "
				 "without the kernel's reason (kind unknown)",
				 kmsg_path, strerror(errno));
		h->from_log = h->kmsg_fd >= 0;
		if (h->kmsg_fd >= 0 && lseek(h->kmsg_fd, 0, SEEK_END) < 0)
			log_debug("sched_ext: %s: cannot seek to its end (%s)", kmsg_path, strerror(errno));
	}
	poll_locked(h, clock_ms(CLOCK_REALTIME));
	*out = h;
	return 0;
}

bool sched_ext_health_has_kmsg(struct sched_ext_health *h)
{
	bool on;

	pthread_mutex_lock(&h->lock);
	on = h->from_log;
	pthread_mutex_unlock(&h->lock);
	return on;
}

static int add_json(struct sched_ext_health *h, cJSON *o)
{
	cJSON *arr, *item;

	if (h->enable_seq >= 0 && !cJSON_AddNumberToObject(o, "enable_seq", (double)h->enable_seq))
		return -ENOMEM;
	if (h->nr_rejected.have && !cJSON_AddNumberToObject(o, "nr_rejected", (double)h->nr_rejected.acc))
		return -ENOMEM;
	if (h->ran && h->nevents) {
		if (!(item = cJSON_AddObjectToObject(o, "events")))
			return -ENOMEM;
		for (size_t i = 0; i < h->nevents; i++)
			if (!cJSON_AddNumberToObject(item, h->events[i].name, (double)h->events[i].c.acc))
				return -ENOMEM;
	}
	if (h->nscheds) {
		if (!(arr = cJSON_AddArrayToObject(o, "schedulers")))
			return -ENOMEM;
		for (size_t i = 0; i < h->nscheds; i++) {
			const struct sched_entry *s = &h->scheds[i];

			if (!(item = cJSON_CreateObject()) || !cJSON_AddItemToArray(arr, item)) {
				cJSON_Delete(item);
				return -ENOMEM;
			}
			if (!cJSON_AddStringToObject(item, "ops", s->ops) ||
			    (s->enable_seq >= 0 &&
			     !cJSON_AddNumberToObject(item, "enable_seq", (double)s->enable_seq)) ||
			    !cJSON_AddNumberToObject(item, "first_ms", (double)s->first_ms) ||
			    !cJSON_AddNumberToObject(item, "last_ms", (double)s->last_ms) ||
			    !cJSON_AddBoolToObject(item, "partial", s->partial))
				return -ENOMEM;
		}
	}
	if (h->nexits) {
		if (!(arr = cJSON_AddArrayToObject(o, "exits")))
			return -ENOMEM;
		for (size_t i = 0; i < h->nexits; i++) {
			const struct exit_entry *e = &h->exits[i];

			if (!(item = cJSON_CreateObject()) || !cJSON_AddItemToArray(arr, item)) {
				cJSON_Delete(item);
				return -ENOMEM;
			}
			if (!cJSON_AddStringToObject(item, "ops", e->ops) ||
			    !cJSON_AddNumberToObject(item, "t_ms", (double)e->t_ms) ||
			    !cJSON_AddStringToObject(item, "kind", e->kind) ||
			    !cJSON_AddStringToObject(item, "reason", e->reason) ||
			    !cJSON_AddStringToObject(item, "message", e->message))
				return -ENOMEM;
		}
	}
	return 0;
}

int sched_ext_health_take(struct sched_ext_health *h, int64_t now_ms, cJSON *sched_ext)
{
	int err;

	pthread_mutex_lock(&h->lock);
	poll_locked(h, now_ms);
	err = add_json(h, sched_ext);
	/* the next interval starts with the scheduler in force, if any */
	h->nr_rejected.acc = 0;
	for (size_t i = 0; i < h->nevents; i++)
		h->events[i].c.acc = 0;
	h->nscheds = 0;
	h->nexits = 0;
	h->ran = h->loaded;
	if (h->loaded) {
		h->cur.first_ms = now_ms;
		h->cur.last_ms = now_ms;
		add_scheduler(h, &h->cur);
	}
	pthread_mutex_unlock(&h->lock);
	return err;
}

void sched_ext_health_close(struct sched_ext_health *h)
{
	if (!h)
		return;
	if (h->kmsg_fd >= 0)
		close(h->kmsg_fd);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
