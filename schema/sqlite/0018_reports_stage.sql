-- 0018_reports_stage.sql: reports are first appended, in arrival order, to
-- one of two small staging tables, and moved into reports_main host by host
-- about once a minute (server/store/sqlite/reports_stage.c). Written straight
-- into reports_main, every report of a fleet that has run a while dirtied an
-- 8 KiB page in each of its per-host indexes; appended, a commit dirties the
-- few pages at the staging tables' ends, and the move dirties each host's
-- index pages once per minute (BENCHMARKS.md, issue 18).
--
-- `reports` stays the name every reader uses: a view of reports_main and the
-- staging rows not yet moved. A staging table's rows of hosts below its
-- merged_below are in reports_main already (the move goes up the host ids);
-- the view leaves them out, and leaves a staging table out whole once its
-- merged_below is past every host (it is then being emptied).
ALTER TABLE reports RENAME TO reports_main;

CREATE TABLE reports_stage0 (
	host_id     INTEGER NOT NULL,
	seq         INTEGER NOT NULL,
	start_ms    INTEGER NOT NULL,
	end_ms      INTEGER NOT NULL,
	received_ms INTEGER NOT NULL,
	sched_group TEXT NOT NULL,
	kernel      TEXT NOT NULL,
	host_hist   BLOB,
	series      BLOB,
	iocost      BLOB,
	dropped     INTEGER NOT NULL,
	incarnation TEXT NOT NULL,
	health      TEXT,
	arrival_s   INTEGER NOT NULL       -- received_ms / 1000: what the host index is ordered by
) STRICT;
-- Both indexes grow at their ends as reports arrive. A host's rows are
-- found by one seek per arrival second (a skip-scan; see sqlite_stat1 below).
CREATE INDEX reports_stage0_host ON reports_stage0 (arrival_s, host_id);
CREATE INDEX reports_stage0_time ON reports_stage0 (start_ms);

CREATE TABLE reports_stage1 (
	host_id     INTEGER NOT NULL,
	seq         INTEGER NOT NULL,
	start_ms    INTEGER NOT NULL,
	end_ms      INTEGER NOT NULL,
	received_ms INTEGER NOT NULL,
	sched_group TEXT NOT NULL,
	kernel      TEXT NOT NULL,
	host_hist   BLOB,
	series      BLOB,
	iocost      BLOB,
	dropped     INTEGER NOT NULL,
	incarnation TEXT NOT NULL,
	health      TEXT,
	arrival_s   INTEGER NOT NULL
) STRICT;
CREATE INDEX reports_stage1_host ON reports_stage1 (arrival_s, host_id);
CREATE INDEX reports_stage1_time ON reports_stage1 (start_ms);

CREATE TABLE reports_stage_state (
	id            INTEGER PRIMARY KEY CHECK (id = 1),
	active        INTEGER NOT NULL CHECK (active IN (0, 1)), -- the staging table arrivals go to
	merged_below0 INTEGER NOT NULL,
	merged_below1 INTEGER NOT NULL,
	epoch         INTEGER NOT NULL     -- staging writes so far; a writer that did not make the last reloads
) STRICT;
INSERT INTO reports_stage_state VALUES (1, 0, 0, 0, 0);

CREATE VIEW reports AS
	SELECT host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost, dropped,
	       incarnation, health FROM reports_main
	UNION ALL
	SELECT host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost, dropped,
	       incarnation, health FROM reports_stage0
	WHERE host_id >= (SELECT merged_below0 FROM reports_stage_state)
	UNION ALL
	SELECT host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost, dropped,
	       incarnation, health FROM reports_stage1
	WHERE host_id >= (SELECT merged_below1 FROM reports_stage_state);

-- The planner's picture of a staging table: many rows an arrival second, one
-- a host within it, so a host's rows are read by a seek per second rather than
-- a walk of every staged row. ANALYZE of a small or idle staging table would
-- lose that picture; the server never runs ANALYZE.
ANALYZE sqlite_schema;
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
	('reports_stage0', 'reports_stage0_host', '300000 2500 1'),
	('reports_stage0', 'reports_stage0_time', '300000 2'),
	('reports_stage1', 'reports_stage1_host', '300000 2500 1'),
	('reports_stage1', 'reports_stage1_time', '300000 2');
