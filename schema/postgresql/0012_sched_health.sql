-- 0012_sched_health.sql (PostgreSQL): as schema/sqlite/0012 (issue 17): the
-- report's sched_ext health, per-L3 work conservation and agent cost as one
-- canonical JSON text in its row (expiring with the raw level), and the
-- scheduler exits in a table of their own, kept as long as the 1-minute level.
-- IF NOT EXISTS: a database taken back to an older version by hand (tests
-- re-run 0010 and 0011) migrates again.
ALTER TABLE reports ADD COLUMN IF NOT EXISTS health TEXT;

CREATE TABLE IF NOT EXISTS scx_exits (
	host_id     BIGINT NOT NULL,
	t_ms        BIGINT NOT NULL,
	incarnation TEXT NOT NULL,
	seq         BIGINT NOT NULL,
	idx         BIGINT NOT NULL,
	ops         TEXT NOT NULL,
	kind        TEXT NOT NULL,
	reason      TEXT NOT NULL,
	message     TEXT NOT NULL,
	PRIMARY KEY (host_id, t_ms, incarnation, seq, idx)
);
CREATE INDEX IF NOT EXISTS scx_exits_time ON scx_exits (t_ms);
