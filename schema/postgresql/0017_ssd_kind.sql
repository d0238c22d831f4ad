-- 0017_ssd_kind.sql (PostgreSQL): SSD results of a kind, as schema/sqlite/0017.
ALTER TABLE ssd_results ADD COLUMN kind TEXT NOT NULL DEFAULT 'full' CHECK (kind IN ('full', 'quick'));
ALTER TABLE ssd_models ADD COLUMN quick BIGINT NOT NULL DEFAULT 0;
