-- 0010_delivery_dropped.sql: the agent's delivery.dropped per report (issue 6).
-- An agent whose spool filled while the server was away drops its oldest
-- reports and says how many in the next report it sends; keeping that count
-- on the report that carried it lets the API and /metrics show that seqs
-- are missing because the agent dropped them, not because ingest lost them.
-- Numbered 10 to stay clear of migrations other branches may be adding.
ALTER TABLE reports ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
