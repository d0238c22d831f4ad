-- 0012_sched_health.sql: sched_ext health, work conservation per L3 domain
-- and the agent's own cost, per report (issue 17).
--
-- What a report says of them is one canonical JSON object in its own row
-- (reports.health, NULL for older agents), so it is written in the same
-- statement as the report and expires with the raw level's retention.
-- Exits (ejections and unloads of a sched_ext scheduler) are rare and worth
-- keeping longer: their own table, expired with the 1-minute level's
-- retention. Only a newly stored report adds its exits, so a resend adds
-- none; the key is the report's (host, incarnation, seq) and the exit's place in it.
-- IF NOT EXISTS: a database taken back to an older version by hand (tests
-- re-run 0010 and 0011, whose rebuild of reports drops health) migrates again.
ALTER TABLE reports ADD COLUMN health TEXT;

CREATE TABLE IF NOT EXISTS scx_exits (
	host_id     INTEGER NOT NULL,  -- hosts.id
	t_ms        INTEGER NOT NULL,  -- when the kernel reported the exit (unix ms)
	incarnation TEXT NOT NULL,     -- of the report that carried it
	seq         INTEGER NOT NULL,
	idx         INTEGER NOT NULL,  -- its place in the report's sched_ext.exits
	ops         TEXT NOT NULL,     -- the scheduler's name
	kind        TEXT NOT NULL,     -- done, unreg, ..., error_stall, unknown
	reason      TEXT NOT NULL,
	message     TEXT NOT NULL,
	PRIMARY KEY (host_id, t_ms, incarnation, seq, idx)
) STRICT, WITHOUT ROWID;
