-- 0011_agent_incarnation.sql: reports are named by (host, incarnation, seq)
-- (issue 21). An agent whose state folder was lost (package purge, re-imaged
-- disk, fresh container volume) starts again at seq 1 on the same machine id;
-- keyed by (host, seq) alone every such report was a "duplicate" and dropped.
-- The agent's incarnation id names one life of its seq, so only a resend of
-- the same report is a duplicate. Older agents send none: '' keeps their
-- exactly-once as before.
--
-- SQLite cannot change a primary key in place: the table is rebuilt with
-- every column and index it had.
CREATE TABLE reports_new (
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
	PRIMARY KEY (host_id, incarnation, seq)
) STRICT;
INSERT INTO reports_new (host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series,
			 iocost, dropped)
	SELECT host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost, dropped
	FROM reports;
DROP TABLE reports;
ALTER TABLE reports_new RENAME TO reports;
CREATE INDEX reports_host_time ON reports (host_id, start_ms);
CREATE INDEX reports_time ON reports (start_ms);

-- What the server last saw of each host's agent: its incarnation and the
-- highest seq of it, so a new incarnation whose seq went back shows as an
-- agent restart (agent_restarted_ms) rather than as silence.
ALTER TABLE hosts ADD COLUMN agent_incarnation TEXT;
ALTER TABLE hosts ADD COLUMN agent_seq INTEGER;
ALTER TABLE hosts ADD COLUMN agent_restarted_ms INTEGER;
