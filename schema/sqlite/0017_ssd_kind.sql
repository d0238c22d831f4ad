-- 0017_ssd_kind.sql - issue 16: an SSD result is of a kind, 'full' (a
-- resctl-bench run, as every row stored before) or 'quick' (a schedio bench,
-- schedio.ssdbench.v1: the io.cost model only), and each model counts its
-- quick results (submissions still counts all of them).
ALTER TABLE ssd_results ADD COLUMN kind TEXT NOT NULL DEFAULT 'full' CHECK (kind IN ('full', 'quick'));
ALTER TABLE ssd_models ADD COLUMN quick INTEGER NOT NULL DEFAULT 0;
