-- 0002_timeseries.sql (PostgreSQL): agent reports as time series, as
-- schema/sqlite/0002. The primary key (host_id, seq) is what makes a report
-- retried against another server land once. Blobs are BYTEA.
CREATE TABLE hosts (
	id            BIGSERIAL PRIMARY KEY,
	machine_id    TEXT NOT NULL UNIQUE,
	hostname      TEXT NOT NULL,
	kernel        TEXT,
	arch          TEXT,
	cpus          BIGINT,
	l3_json       TEXT,
	disks_json    TEXT,
	sched_state   TEXT,
	sched_ops     TEXT,
	agent_version TEXT,
	first_seen_ms BIGINT NOT NULL,
	last_start_ms BIGINT NOT NULL,
	last_end_ms   BIGINT NOT NULL
);

CREATE TABLE reports (
	host_id     BIGINT NOT NULL,       -- hosts.id
	seq         BIGINT NOT NULL,
	start_ms    BIGINT NOT NULL,
	end_ms      BIGINT NOT NULL,
	received_ms BIGINT NOT NULL,
	sched_group TEXT NOT NULL,
	kernel      TEXT NOT NULL,
	host_hist   BYTEA,
	series      BYTEA,
	iocost      BYTEA,
	PRIMARY KEY (host_id, seq)
);
CREATE INDEX reports_host_time ON reports (host_id, start_ms);
CREATE INDEX reports_time ON reports (start_ms);

CREATE TABLE rollups (
	level       BIGINT NOT NULL,       -- 1: one minute, 2: one hour
	host_id     BIGINT NOT NULL,
	t           BIGINT NOT NULL,
	sched_group TEXT NOT NULL,
	kernel      TEXT NOT NULL,
	host_hist   BYTEA,
	series      BYTEA,
	iocost      BYTEA,
	PRIMARY KEY (level, host_id, t)
);
CREATE INDEX rollups_time ON rollups (level, t);

CREATE TABLE fleet_rollups (
	level BIGINT NOT NULL,
	t     BIGINT NOT NULL,
	dim   TEXT NOT NULL,
	key   TEXT NOT NULL,
	hosts BIGINT NOT NULL,
	hist  BYTEA NOT NULL,
	PRIMARY KEY (level, t, dim, key)
);

CREATE TABLE rollup_dirty (
	host_id BIGINT NOT NULL,
	t       BIGINT NOT NULL,
	PRIMARY KEY (host_id, t)
);
