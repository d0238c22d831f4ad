-- 0010_delivery_dropped.sql (PostgreSQL): the agent's delivery.dropped per
-- report (issue 6), as schema/sqlite/0010: how many of its oldest reports the
-- agent dropped from a full spool, kept on the report that said so.
ALTER TABLE reports ADD COLUMN dropped BIGINT NOT NULL DEFAULT 0;
