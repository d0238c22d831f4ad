-- 0019_blob_dicts.sql (PostgreSQL): zstd dictionaries for the blobs of raw
-- reports, as schema/sqlite/0019.
CREATE TABLE blob_dicts (
	id         BIGINT PRIMARY KEY,
	kind       BIGINT NOT NULL,
	dict       BYTEA NOT NULL,
	created_ms BIGINT NOT NULL
);
