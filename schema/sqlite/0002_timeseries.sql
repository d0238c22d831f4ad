-- 0002_timeseries.sql: agent reports as time series (issue 5).
-- hosts holds each host's latest inventory; reports the raw intervals, which
-- also remember (host, seq) for exactly-once ingest; rollups the 1-minute
-- (level 1) and 1-hour (level 2) merges per host; fleet_rollups the same
-- merged across hosts per grouping (dim 'none', 'sched_ext', 'kernel').
-- Histograms and iocost rows are compact varint blobs (server/series/runqlat_set.c,
-- server/series/iocost_set.c); the host-wide histogram is its own column so fleet
-- and host-list queries never read the per-cgroup blob.
CREATE TABLE hosts (
	id            INTEGER PRIMARY KEY,
	machine_id    TEXT NOT NULL UNIQUE,
	hostname      TEXT NOT NULL,
	kernel        TEXT,
	arch          TEXT,
	cpus          INTEGER,
	l3_json       TEXT,
	disks_json    TEXT,
	sched_state   TEXT,
	sched_ops     TEXT,
	agent_version TEXT,
	first_seen_ms INTEGER NOT NULL,
	last_start_ms INTEGER NOT NULL,
	last_end_ms   INTEGER NOT NULL
) STRICT;

CREATE TABLE reports (
	host_id     INTEGER NOT NULL,      -- hosts.id
	seq         INTEGER NOT NULL,
	start_ms    INTEGER NOT NULL,
	end_ms      INTEGER NOT NULL,
	received_ms INTEGER NOT NULL,
	sched_group TEXT NOT NULL,         -- sched_ext ops name, or 'eevdf'/'fair'
	kernel      TEXT NOT NULL,         -- '' when not reported
	host_hist   BLOB,
	series      BLOB,
	iocost      BLOB,
	PRIMARY KEY (host_id, seq)
) STRICT;
CREATE INDEX reports_host_time ON reports (host_id, start_ms);
CREATE INDEX reports_time ON reports (start_ms);

CREATE TABLE rollups (
	level       INTEGER NOT NULL,      -- 1: one minute, 2: one hour
	host_id     INTEGER NOT NULL,
	t           INTEGER NOT NULL,      -- start of the bucket, unix ms
	sched_group TEXT NOT NULL,
	kernel      TEXT NOT NULL,
	host_hist   BLOB,
	series      BLOB,
	iocost      BLOB,
	PRIMARY KEY (level, host_id, t)
) STRICT;
CREATE INDEX rollups_time ON rollups (level, t);

CREATE TABLE fleet_rollups (
	level INTEGER NOT NULL,
	t     INTEGER NOT NULL,
	dim   TEXT NOT NULL,
	key   TEXT NOT NULL,
	hosts INTEGER NOT NULL,
	hist  BLOB NOT NULL,
	PRIMARY KEY (level, t, dim, key)
) STRICT, WITHOUT ROWID;

-- (host, minute) buckets that got a report after their minute was rolled up.
CREATE TABLE rollup_dirty (
	host_id INTEGER NOT NULL,
	t       INTEGER NOT NULL,
	PRIMARY KEY (host_id, t)
) STRICT, WITHOUT ROWID;
