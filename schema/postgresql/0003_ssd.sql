-- 0003_ssd.sql (PostgreSQL): the SSD model database, as schema/sqlite/0003.
CREATE TABLE ssd_results (
	id           TEXT PRIMARY KEY,
	model_id     TEXT NOT NULL,
	model        TEXT NOT NULL,
	fwrev        TEXT NOT NULL,
	bench_major  BIGINT NOT NULL,
	bench_minor  BIGINT NOT NULL,
	merged       BIGINT NOT NULL CHECK (merged IN (0, 1)),
	summary      TEXT NOT NULL,
	submitted_ms BIGINT NOT NULL
);
CREATE INDEX ssd_results_model ON ssd_results (model_id, fwrev);

CREATE TABLE ssd_files (
	id   TEXT PRIMARY KEY REFERENCES ssd_results (id) ON DELETE CASCADE,
	gz   BYTEA NOT NULL
);

CREATE TABLE ssd_models (
	id          TEXT PRIMARY KEY,
	model       TEXT NOT NULL,
	submissions BIGINT NOT NULL,
	fwrevs      TEXT NOT NULL,
	solutions   TEXT NOT NULL
);
