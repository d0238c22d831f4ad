/* daemon.c - the agent's long-running loop: every interval the collectors'
 * report is numbered, written to the spool, and then the spool is delivered
 * oldest first. Collection never waits for delivery: a server that is down
 * only makes the spool grow (up to its cap) while retries back off
 * exponentially with jitter, so a fleet does not reconnect in lockstep when
 * the server comes back.
 *
 * seq is persisted before the report is spooled, and a report leaves the
 * spool only after a 2xx; with the server's idempotent (host, incarnation,
 * seq) ingest
 * that is exactly-once storage across outages, crashes and restarts.
 *
 * A reload never moves the end of the interval in progress; a new interval
 * length applies from that end on, so every report is one whole interval.
 */
#include "agent/daemon.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/delivery/push.h"
#include "agent/report/report_build.h"
#include "agent/delivery/seq.h"
#include "agent/delivery/spool.h"
#include "common/gz.h"
#include "common/log.h"

struct daemon {
	struct agent_config cfg;
	struct spool *spool;
	struct push *push;
	void **states;
	volatile sig_atomic_t *stop;
	uint64_t seq_mem;
	char incarnation[SEQ_INCARNATION_LEN + 1];
	unsigned failures; /* consecutive failed deliveries */
	uint64_t retry_at; /* no delivery attempt before this (ms) */
};

/* Backoff after n consecutive failures: 1 s doubling up to the cap, then a uniform draw from its
 * upper half, so delays stay long when the server is down but agents spread out. */
static uint64_t backoff_ms(const struct daemon *d)
{
	uint64_t cap = d->cfg.backoff_max_s * 1000, delay = 1000;

	for (unsigned i = 1; i < d->failures && delay < cap; i++)
		delay *= 2;
	if (delay > cap)
		delay = cap;
	return delay / 2 + (uint64_t)random() % (delay / 2 + 1);
}

/* The wait before the next try: the backoff, or the server's Retry-After when longer, honoured up to
 * backoff_max and spread over a quarter more so that agents refused together do not come back together. */
static uint64_t retry_delay_ms(const struct daemon *d)
{
	uint64_t delay = backoff_ms(d), cap = d->cfg.backoff_max_s * 1000;
	uint64_t asked = (uint64_t)push_retry_after_s(d->push) * 1000;

	if (asked > cap)
		asked = cap;
	if (asked > delay)
		delay = asked + (uint64_t)random() % (asked / 4 + 1);
	return delay;
}

/* Encodes rep (with its delivery.dropped) as gzip'd JSON. */
static int encode(cJSON *rep, uint64_t dropped, char **gz, size_t *gzlen)
{
	cJSON *delivery = cJSON_GetObjectItemCaseSensitive(rep, "delivery");
	char *text;
	int err;

	if (!delivery)
		delivery = cJSON_AddObjectToObject(rep, "delivery");
	if (!delivery)
		return -ENOMEM;
	cJSON_DeleteItemFromObjectCaseSensitive(delivery, "dropped");
	if (!cJSON_AddNumberToObject(delivery, "dropped", (double)dropped))
		return -ENOMEM;
	text = cJSON_PrintUnformatted(rep);
	if (!text)
		return -ENOMEM;
	err = gz_deflate(text, strlen(text), gz, gzlen);
	free(text);
	return err;
}

/* Collects [start_ms, end_ms) into a report and spools it; 0, or -errno when nothing could be kept. */
static int collect_and_spool(struct daemon *d, uint64_t start_ms, uint64_t end_ms)
{
	char *gz = NULL;
	size_t gzlen = 0;
	uint64_t seq, dropped;
	cJSON *rep = NULL;
	int err;

	err = seq_next(d->cfg.state_dir, &d->seq_mem, &seq);
	if (err) {
		log_error("cannot persist seq in %s: %s", d->cfg.state_dir, strerror(-err));
		return err;
	}
	rep = report_build(d->states, d->incarnation, seq, start_ms, end_ms);
	/* The labels of the configuration in force when the interval ended (a reload changes them). */
	if (!rep || config_labels_to_json(&d->cfg, rep) < 0) {
		err = -ENOMEM;
		goto out;
	}
	err = encode(rep, 0, &gz, &gzlen);
	if (err)
		goto out;
	/* The count depends on the size and the size on the count; a digit or two of drift is caught
	 * by spool_append and carried by the next report. */
	dropped = spool_drop_count(d->spool, gzlen);
	if (dropped) {
		free(gz);
		gz = NULL;
		err = encode(rep, dropped, &gz, &gzlen);
		if (err)
			goto out;
		log_warn("spool full (%llu bytes cap): %llu oldest report(s) dropped, reported in seq %llu",
			 (unsigned long long)d->cfg.spool_max_bytes, (unsigned long long)dropped,
			 (unsigned long long)seq);
	}
	err = spool_append(d->spool, seq, dropped, gz, gzlen);
	if (err)
		log_error("cannot spool report %llu in %s: %s", (unsigned long long)seq, d->cfg.spool_dir,
			  strerror(-err));
	else
		log_debug("report %llu spooled (%zu bytes, %zu waiting)", (unsigned long long)seq, gzlen,
			  spool_count(d->spool));
out:
	if (err == -ENOMEM)
		log_error("out of memory building report %llu", (unsigned long long)seq);
	cJSON_Delete(rep);
	free(gz);
	return err;
}

/* Sends spooled reports oldest first until the spool is empty, a delivery fails, or deadline_ms. */
static void deliver(struct daemon *d, uint64_t deadline_ms)
{
	while (spool_count(d->spool) > 0 && !*d->stop && report_now_ms() < deadline_ms) {
		char err[1024];
		void *buf = NULL;
		size_t len = 0;
		uint64_t seq;
		long status;
		enum push_result res;
		int rc;

		rc = spool_peek(d->spool, &seq, &buf, &len);
		if (rc == -ENOENT)
			break;
		if (rc < 0) {
			log_error("cannot read the spool in %s: %s", d->cfg.spool_dir, strerror(-rc));
			d->failures++;
			d->retry_at = report_now_ms() + backoff_ms(d);
			return;
		}
		res = push_send_gz(d->push, buf, len, &status, err, sizeof(err));
		free(buf);
		if (res == PUSH_RETRY) {
			if (*d->stop)
				return;
			d->failures++;
			d->retry_at = report_now_ms() + retry_delay_ms(d);
			log_warn("report %llu not delivered (%zu waiting in the spool), retry in %.1f s: %s",
				 (unsigned long long)seq, spool_count(d->spool),
				 (double)(d->retry_at - report_now_ms()) / 1000, err);
			return;
		}
		if (res == PUSH_REJECTED)
			log_error("report %llu removed from the spool: %s", (unsigned long long)seq, err);
		else if (d->failures)
			log_info("delivering again after %u failed attempt(s)", d->failures);
		d->failures = 0;
		rc = spool_ack(d->spool, seq);
		if (rc < 0) {
			log_error("cannot remove report %llu from the spool: %s", (unsigned long long)seq,
				  strerror(-rc));
			d->failures++;
			d->retry_at = report_now_ms() + backoff_ms(d);
			return;
		}
	}
}

/* Starts using cfg: new sender, new spool cap or folder. 0, or -1 with the old state kept. */
static int apply_config(struct daemon *d, const struct agent_config *cfg)
{
	struct push *push;
	struct spool *spool = NULL;
	char err[1024];

	push = push_new(cfg->server, cfg->token, cfg->ca_file[0] ? cfg->ca_file : NULL, d->stop);
	if (!push) {
		log_error("cannot set up HTTP delivery to %s", cfg->server);
		return -1;
	}
	if (!d->spool || strcmp(cfg->spool_dir, d->cfg.spool_dir) != 0) {
		if (spool_open(&spool, cfg->spool_dir, cfg->spool_max_bytes, err, sizeof(err)) < 0) {
			log_error("%s", err);
			push_free(push);
			return -1;
		}
		spool_close(d->spool);
		d->spool = spool;
	}
	spool_set_max_bytes(d->spool, cfg->spool_max_bytes);
	push_free(d->push);
	d->push = push;
	if (d->cfg.cgroup_depth != cfg->cgroup_depth && d->cfg.server[0])
		log_warn("cgroup_depth %u takes effect at the next restart", cfg->cgroup_depth);
	d->cfg = *cfg;
	d->retry_at = 0; /* a new server or token deserves an immediate try */
	d->failures = 0;
	return 0;
}

static void sleep_until(volatile sig_atomic_t *stop, volatile sig_atomic_t *hup, uint64_t deadline_ms)
{
	uint64_t now;

	while (!*stop && !*hup && (now = report_now_ms()) < deadline_ms)
		poll(NULL, 0, (int)(deadline_ms - now > 1000 ? 1000 : deadline_ms - now));
}

int daemon_run(struct agent_config *cfg, daemon_reload_fn reload, void **states, volatile sig_atomic_t *stop,
	       volatile sig_atomic_t *hup)
{
	struct daemon d = { .states = states, .stop = stop };
	uint64_t start_ms, next_ms;
	int rc = 1, err;

	srandom((unsigned)getpid() ^ (unsigned)report_now_ms());
	if (apply_config(&d, cfg) < 0)
		goto out;
	/* A lost seq file must never make seq go back under reports still in the spool. */
	d.seq_mem = spool_last_seq(d.spool);
	err = seq_load(d.cfg.state_dir, &d.seq_mem);
	if (err) {
		log_error("cannot read seq in %s: %s", d.cfg.state_dir, strerror(-err));
		goto out;
	}
	err = seq_incarnation_new(d.incarnation);
	if (err) {
		log_error("cannot make an incarnation id: %s", strerror(-err));
		goto out;
	}
	log_info("reporting to %s every %llu s; %zu report(s) waiting in %s", d.cfg.server,
		 (unsigned long long)d.cfg.interval_s, spool_count(d.spool), d.cfg.spool_dir);
	/* The first report holds exactly the samples of its interval, none from before it. */
	report_begin_collectors(d.states);
	start_ms = report_now_ms();
	log_info("first interval started at %llu ms: samples count from here", (unsigned long long)start_ms);
	next_ms = start_ms + d.cfg.interval_s * 1000;
	while (!*stop) {
		uint64_t now, wake;

		if (*hup) {
			struct agent_config fresh;
			char msg[1024];

			*hup = 0;
			if (reload(&fresh, msg, sizeof(msg)) < 0)
				log_error("reload failed, keeping the running configuration: %s", msg);
			else if (apply_config(&d, &fresh) == 0)
				/* The interval in progress keeps its planned end (next_ms) and the new length
				 * starts there: cutting it short or stretching it would make one report cover
				 * neither length (a reload 1.1 s in gave a 1.1 s report). */
				log_info("configuration reloaded: reporting to %s every %llu s, from the end of the "
					 "interval in progress (in %.1f s)",
					 d.cfg.server, (unsigned long long)d.cfg.interval_s,
					 (double)(int64_t)(next_ms - report_now_ms()) / 1000);
		}
		now = report_now_ms();
		if (now >= next_ms) {
			collect_and_spool(&d, start_ms, now);
			start_ms = now;
			next_ms += d.cfg.interval_s * 1000;
			if (next_ms <= now) /* fell behind (suspend, clock step): restart the cadence */
				next_ms = now + d.cfg.interval_s * 1000;
		}
		if (spool_count(d.spool) > 0 && now >= d.retry_at) {
			deliver(&d, next_ms);
			push_rest(d.push);
		}
		wake = next_ms;
		if (spool_count(d.spool) > 0 && d.retry_at < wake)
			wake = d.retry_at;
		sleep_until(stop, hup, wake);
	}
	/* The interval in progress is data too: spool it so the next start sends it. */
	if (report_now_ms() > start_ms)
		collect_and_spool(&d, start_ms, report_now_ms());
	log_info("stopping on signal %d; %zu report(s) left in the spool", (int)*stop, spool_count(d.spool));
	rc = 0;
out:
	push_free(d.push);
	spool_close(d.spool);
	return rc;
}
