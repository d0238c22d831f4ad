-- 0018_reports_stage.sql: a report's row is appended to `reports` and stays
-- there; its keys by host are staged and moved into place about once a minute
-- (server/store/sqlite/reports_stage.c). With its two per-host indexes inside
-- reports, every report of a fleet that has run a while dirtied an 8 KiB leaf
-- of each, which SQLite's WAL writes whole, and again at the checkpoint
-- (BENCHMARKS.md, issue 18). Now a commit appends: the row, its time index
-- entry and a staging entry all go at their tables' ends; the move writes each
-- host's key pages once a period.
--
-- The keys by host live in two small tables without rowids, filled in host
-- order by the move: report_keys (host, incarnation, seq), which names a
-- report and is the duplicate check, and report_times (host, start), which a
-- host's reads walk. report_ids_by_host is what those reads use: the moved keys,
-- and the staged ones not yet moved. A staging table's entries of hosts below
-- its merged_below have been moved (the move goes up the host ids); the view
-- leaves them out, and leaves a staging table out whole once its merged_below
-- is past every host (it is then being emptied).
CREATE TABLE reports_new (
	id          INTEGER PRIMARY KEY AUTOINCREMENT, -- what the keys point at; never reused
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
	dropped     INTEGER NOT NULL DEFAULT 0,
	incarnation TEXT NOT NULL DEFAULT '', -- the agent's incarnation id, '' from older agents
	health      TEXT
) STRICT;
INSERT INTO reports_new (host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series,
			 iocost, dropped, incarnation, health)
	SELECT host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost,
	       dropped, incarnation, health
	FROM reports ORDER BY rowid;
DROP TABLE reports;
ALTER TABLE reports_new RENAME TO reports;
CREATE INDEX reports_time ON reports (start_ms);

CREATE TABLE report_keys (
	host_id     INTEGER NOT NULL,
	incarnation TEXT NOT NULL,
	seq         INTEGER NOT NULL,
	id          INTEGER NOT NULL,      -- reports.id
	PRIMARY KEY (host_id, incarnation, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO report_keys SELECT host_id, incarnation, seq, id FROM reports ORDER BY host_id, incarnation, seq;

CREATE TABLE report_times (
	host_id  INTEGER NOT NULL,
	start_ms INTEGER NOT NULL,
	id       INTEGER NOT NULL,         -- reports.id
	PRIMARY KEY (host_id, start_ms, id)
) STRICT, WITHOUT ROWID;
INSERT INTO report_times SELECT host_id, start_ms, id FROM reports ORDER BY host_id, start_ms, id;

-- Retention deletes rows; their moved keys go with them.
CREATE TRIGGER reports_keys_expire AFTER DELETE ON reports BEGIN
	DELETE FROM report_keys WHERE host_id = old.host_id AND incarnation = old.incarnation AND seq = old.seq
		AND id = old.id;
	DELETE FROM report_times WHERE host_id = old.host_id AND start_ms = old.start_ms AND id = old.id;
END;

-- The keys of reports not yet moved, in arrival order. Both indexes grow at
-- their ends. A host's entries are found by one seek per arrival second (a
-- skip-scan; see sqlite_stat1 below).
CREATE TABLE reports_stage0 (
	host_id     INTEGER NOT NULL,
	incarnation TEXT NOT NULL,
	seq         INTEGER NOT NULL,
	start_ms    INTEGER NOT NULL,
	id          INTEGER NOT NULL,      -- reports.id
	arrival_s   INTEGER NOT NULL       -- when it was stored, in seconds: what the host index is ordered by
) STRICT;
CREATE INDEX reports_stage0_host ON reports_stage0 (arrival_s, host_id);

CREATE TABLE reports_stage1 (
	host_id     INTEGER NOT NULL,
	incarnation TEXT NOT NULL,
	seq         INTEGER NOT NULL,
	start_ms    INTEGER NOT NULL,
	id          INTEGER NOT NULL,
	arrival_s   INTEGER NOT NULL
) STRICT;
CREATE INDEX reports_stage1_host ON reports_stage1 (arrival_s, host_id);

CREATE TABLE reports_stage_state (
	id            INTEGER PRIMARY KEY CHECK (id = 1),
	active        INTEGER NOT NULL CHECK (active IN (0, 1)), -- the staging table arrivals go to
	merged_below0 INTEGER NOT NULL,
	merged_below1 INTEGER NOT NULL,
	epoch         INTEGER NOT NULL     -- staging writes so far; a writer that did not make the last reloads
) STRICT;
INSERT INTO reports_stage_state VALUES (1, 0, 0, 0, 0);

-- Where a host's reports are, by start time, wherever their keys are. Reads by
-- host join it to reports; reads by time alone read reports, which holds every
-- row.
CREATE VIEW report_ids_by_host AS
	SELECT host_id, start_ms, id FROM report_times
	UNION ALL
	SELECT host_id, start_ms, id FROM reports_stage0
	WHERE host_id >= (SELECT merged_below0 FROM reports_stage_state)
	UNION ALL
	SELECT host_id, start_ms, id FROM reports_stage1
	WHERE host_id >= (SELECT merged_below1 FROM reports_stage_state);

-- The planner's picture of a staging table: many entries an arrival second,
-- one a host within it, so a host's entries are read by a seek per second
-- rather than a walk of every staged entry. ANALYZE of a small or idle staging
-- table would lose that picture; the server never runs ANALYZE.
ANALYZE sqlite_schema;
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
	('reports_stage0', 'reports_stage0_host', '300000 2500 1'),
	('reports_stage1', 'reports_stage1_host', '300000 2500 1');
