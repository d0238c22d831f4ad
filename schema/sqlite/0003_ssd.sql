-- 0003_ssd.sql: the SSD model database (issue 7). One row per submitted
-- resctl-bench result, keyed by the md5 of its uncompressed JSON (as upstream
-- deduplicates); the parsed fields as JSON (what GET .../results/{id}
-- answers), the original file gzip-compressed in its own table so listing
-- never reads blobs, and one row per model kept up to date on insert so the
-- model list is a plain scan even with many thousands of models.
CREATE TABLE ssd_results (
	id           TEXT PRIMARY KEY,       -- md5 hex of the uncompressed JSON
	model_id     TEXT NOT NULL,          -- model with spaces as '_'
	model        TEXT NOT NULL,
	fwrev        TEXT NOT NULL,
	bench_major  INTEGER NOT NULL,
	bench_minor  INTEGER NOT NULL,
	merged       INTEGER NOT NULL CHECK (merged IN (0, 1)),
	summary      TEXT NOT NULL,          -- the parsed result as JSON
	submitted_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX ssd_results_model ON ssd_results (model_id, fwrev);

CREATE TABLE ssd_files (
	id   TEXT PRIMARY KEY REFERENCES ssd_results (id) ON DELETE CASCADE,
	gz   BLOB NOT NULL                   -- the file as submitted, gzip-compressed
) STRICT;

CREATE TABLE ssd_models (
	id          TEXT PRIMARY KEY,        -- model_id
	model       TEXT NOT NULL,
	submissions INTEGER NOT NULL,
	fwrevs      TEXT NOT NULL,           -- distinct firmware revisions, '\n'-separated, sorted
	solutions   TEXT NOT NULL            -- distinct solution names, ' '-separated, sorted
) STRICT;
