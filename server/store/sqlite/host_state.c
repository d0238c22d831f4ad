/* host_state.c - the SQLite ingest writer's memory of hosts' rows (host_state.h).
 *
 * Every report moves its host's last times and agent seq on. Written to the
 * row at once, a report from a fleet of tens of thousands of hosts dirties an
 * 8 KiB page of `hosts` that no other report of its commit shares, and the WAL
 * takes the page whole. So under load (the store decides when) a report that
 * changes nothing else of its host's row only updates memory, and a sweep
 * walks the host ids, a share each commit so that it covers them all once a
 * sweep period, writing the rows memory holds newer: neighbouring rows share
 * their pages, so a page is written once a sweep however many of its hosts
 * reported. A row lags memory by at most one sweep while the writer is busy;
 * an idle writer writes them all (store_ops.idle).
 *
 * To know that a report changes nothing else, memory keeps a hash of each
 * descriptive column as the writer last wrote it (0: not known, so written).
 */
#include "server/store/sqlite/host_state.h"

#include <stdlib.h>
#include <string.h>

/* Host ids past this are not held: their rows are written a report at a time. */
#define HOST_STATE_MAX_ID (1 << 22)

/* The descriptive columns HOST_UPDATE writes, in this order. */
enum { D_HOSTNAME, D_KERNEL, D_ARCH, D_CPUS, D_L3, D_DISKS, D_SCHED_STATE, D_SCHED_OPS, D_AGENT_VERSION, D_COUNT };

struct entry {
	bool held;  /* the rest is known */
	bool dirty; /* last times or agent seq newer than the row */
	int64_t last_start_ms, last_end_ms, seq;
	char incarnation[REPORT_INCARNATION_LEN + 1];
	uint64_t desc[D_COUNT];
};

struct host_state {
	sqlite3_stmt *flush;
	struct entry *e; /* by host id */
	int64_t cap, max_id;
	size_t n_dirty;
	int64_t cursor;   /* the sweep's next host id */
	int64_t swept_ms; /* the time the sweep has covered up to (0: none yet) */
	int64_t sweep_ms;
};

/* Last times only ever move forward (as HOST_UPDATE's guard keeps them); the agent is memory's. */
static const char flush_sql[] =
    "UPDATE hosts SET last_start_ms = CASE WHEN last_start_ms <= ?2 THEN ?2 ELSE last_start_ms END, "
    "last_end_ms = CASE WHEN last_start_ms <= ?2 THEN ?3 ELSE last_end_ms END, "
    "agent_incarnation = ?4, agent_seq = ?5 WHERE id = ?1";

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h | 1;
}

/* r's value of each descriptive column, hashed; 0 where r leaves the column as it is. */
static void desc_of(const struct report *r, uint64_t d[D_COUNT])
{
	memset(d, 0, sizeof(uint64_t) * D_COUNT);
	d[D_HOSTNAME] = str_hash(r->hostname ? r->hostname : "");
	d[D_KERNEL] = r->kernel ? str_hash(r->kernel) : 0;
	d[D_ARCH] = r->arch ? str_hash(r->arch) : 0;
	d[D_CPUS] = r->cpus ? ((uint64_t)r->cpus * 0x9e3779b97f4a7c15ull) | 1 : 0;
	d[D_L3] = r->l3_json ? str_hash(r->l3_json) : 0;
	d[D_DISKS] = r->disks_json ? str_hash(r->disks_json) : 0;
	d[D_SCHED_STATE] = r->sched_state ? str_hash(r->sched_state) : 0;
	/* sched_ops follows sched_state: written (NULL too) whenever sched_state is */
	if (r->sched_state)
		d[D_SCHED_OPS] = r->sched_ops ? str_hash(r->sched_ops) : 3;
	d[D_AGENT_VERSION] = r->agent_version ? str_hash(r->agent_version) : 0;
}

struct host_state *host_state_new(sqlite3 *db)
{
	struct host_state *hs = calloc(1, sizeof(*hs));

	if (!hs)
		return NULL;
	hs->sweep_ms = HOST_STATE_SWEEP_MS;
	hs->cursor = 1;
	if (sqlite3_prepare_v3(db, flush_sql, -1, SQLITE_PREPARE_PERSISTENT, &hs->flush, NULL) != SQLITE_OK) {
		host_state_free(hs);
		return NULL;
	}
	return hs;
}

void host_state_free(struct host_state *hs)
{
	if (!hs)
		return;
	sqlite3_finalize(hs->flush);
	free(hs->e);
	free(hs);
}

void host_state_set_sweep(struct host_state *hs, int64_t ms)
{
	hs->sweep_ms = ms > 0 ? ms : 1;
}

/* Host id's entry, made (not held) when missing; NULL past HOST_STATE_MAX_ID or out of memory. */
static struct entry *entry(struct host_state *hs, int64_t id)
{
	if (id < 1 || id > HOST_STATE_MAX_ID)
		return NULL;
	if (id >= hs->cap) {
		int64_t cap = hs->cap ? hs->cap : 1024;
		struct entry *e;

		while (cap <= id)
			cap *= 2;
		e = realloc(hs->e, (size_t)cap * sizeof(*e));
		if (!e)
			return NULL;
		memset(e + hs->cap, 0, (size_t)(cap - hs->cap) * sizeof(*e));
		hs->e = e;
		hs->cap = cap;
	}
	if (id > hs->max_id)
		hs->max_id = id;
	return &hs->e[id];
}

bool host_state_agent(const struct host_state *hs, int64_t id, const char **incarnation, int64_t *seq)
{
	const struct entry *e = id >= 1 && id < hs->cap ? &hs->e[id] : NULL;

	if (!e || !e->dirty)
		return false;
	*incarnation = e->incarnation;
	*seq = e->seq;
	return true;
}

bool host_state_defer(struct host_state *hs, int64_t id, const struct report *r, int64_t seq)
{
	struct entry *e = id >= 1 && id < hs->cap ? &hs->e[id] : NULL;
	uint64_t d[D_COUNT];

	if (!e || !e->held || strlen(r->incarnation) >= sizeof(e->incarnation))
		return false;
	if (r->start_ms >= e->last_start_ms) { /* an older report writes neither descriptive columns nor times */
		desc_of(r, d);
		for (int i = 0; i < D_COUNT; i++)
			if (d[i] && d[i] != e->desc[i])
				return false;
		e->last_start_ms = r->start_ms;
		e->last_end_ms = r->end_ms;
	}
	strcpy(e->incarnation, r->incarnation);
	e->seq = seq;
	if (!e->dirty)
		hs->n_dirty++;
	e->dirty = true;
	return true;
}

/* Writes entry id's last times and agent seq to its row; 0 or -1. */
static int flush(struct host_state *hs, int64_t id)
{
	struct entry *e = &hs->e[id];
	int rc;

	sqlite3_bind_int64(hs->flush, 1, id);
	sqlite3_bind_int64(hs->flush, 2, e->last_start_ms);
	sqlite3_bind_int64(hs->flush, 3, e->last_end_ms);
	sqlite3_bind_text(hs->flush, 4, e->incarnation, -1, SQLITE_STATIC);
	sqlite3_bind_int64(hs->flush, 5, e->seq);
	rc = sqlite3_step(hs->flush);
	sqlite3_reset(hs->flush);
	if (rc != SQLITE_DONE)
		return -1;
	e->dirty = false;
	hs->n_dirty--;
	return 0;
}

int host_state_write_held(struct host_state *hs, int64_t id)
{
	return id >= 1 && id < hs->cap && hs->e[id].held && hs->e[id].dirty ? flush(hs, id) : 0;
}

void host_state_written(struct host_state *hs, int64_t id, const struct report *r, int64_t seq, bool applied)
{
	struct entry *e = entry(hs, id);
	uint64_t d[D_COUNT];

	if (!e || strlen(r->incarnation) >= sizeof(e->incarnation))
		return; /* not held: its row is written a report at a time */
	if (!applied && !e->held)
		return; /* the row holds later times than r's, which memory does not know */
	if (applied) {  /* HOST_UPDATE took r's values */
		desc_of(r, d);
		for (int i = 0; i < D_COUNT; i++)
			if (d[i])
				e->desc[i] = d[i];
		e->last_start_ms = r->start_ms;
		e->last_end_ms = r->end_ms;
	}
	/* AGENT_PUT wrote r's agent and the seq memory knew as the newest */
	strcpy(e->incarnation, r->incarnation);
	e->seq = seq;
	e->held = true;
	if (e->dirty)
		hs->n_dirty--;
	e->dirty = false;
}

int host_state_sweep(struct host_state *hs, int64_t now_ms, bool all)
{
	int64_t ids;

	if (all) {
		for (int64_t id = 1; id <= hs->max_id && hs->n_dirty; id++)
			if (hs->e[id].dirty && flush(hs, id))
				return -1;
		return 0;
	}
	if (!hs->swept_ms || now_ms < hs->swept_ms) {
		hs->swept_ms = now_ms;
		return 0;
	}
	ids = (now_ms - hs->swept_ms) * hs->max_id / hs->sweep_ms;
	if (ids < 1)
		return 0; /* the time adds up until a host is due */
	if (ids > hs->max_id)
		ids = hs->max_id;
	hs->swept_ms = now_ms;
	for (int64_t i = 0; i < ids && hs->n_dirty; i++) {
		if (hs->cursor > hs->max_id)
			hs->cursor = 1;
		if (hs->e[hs->cursor].dirty && flush(hs, hs->cursor))
			return -1;
		hs->cursor++;
	}
	return 0;
}

bool host_state_pending(const struct host_state *hs)
{
	return hs->n_dirty > 0;
}

void host_state_forget(struct host_state *hs)
{
	if (hs->e)
		memset(hs->e, 0, (size_t)hs->cap * sizeof(*hs->e));
	hs->n_dirty = 0;
}
