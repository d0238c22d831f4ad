-- 0013_host_labels.sql (PostgreSQL): host labels per report as runs of
-- reports with the same labels, as schema/sqlite/0013 (issue 15): a span says
-- the host's reports starting from first_ms to last_ms carried these labels
-- (canonical text 'k1=v1,k2=v2' sorted by key, '' for none).
-- IF NOT EXISTS: a database taken back to an older version by hand migrates again.
CREATE TABLE IF NOT EXISTS label_spans (
	host_id  BIGINT NOT NULL,
	first_ms BIGINT NOT NULL,
	last_ms  BIGINT NOT NULL,
	labels   TEXT NOT NULL,
	PRIMARY KEY (host_id, first_ms)
);
