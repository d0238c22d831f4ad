-- 0011_agent_incarnation.sql (PostgreSQL): reports are named by (host,
-- incarnation, seq), as schema/sqlite/0011 (issue 21): an agent that lost its
-- state folder restarts seq at 1 with a new incarnation id, and those reports
-- are new, not duplicates. The primary key still decides, so a resend of the
-- same report to any of several servers is stored once. '' is an older agent.
ALTER TABLE reports ADD COLUMN incarnation TEXT NOT NULL DEFAULT '';
ALTER TABLE reports DROP CONSTRAINT reports_pkey, ADD PRIMARY KEY (host_id, incarnation, seq);

-- The agent's last incarnation and its highest seq, to tell a restart.
ALTER TABLE hosts ADD COLUMN agent_incarnation TEXT;
ALTER TABLE hosts ADD COLUMN agent_seq BIGINT;
ALTER TABLE hosts ADD COLUMN agent_restarted_ms BIGINT;
