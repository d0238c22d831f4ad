-- 0014_experiments.sql (PostgreSQL): saved experiments (issue 15), as
-- schema/sqlite/0014: a unique name, the checked definition as canonical
-- JSON text, and an id never given again after a delete (a sequence).
-- IF NOT EXISTS: a database taken back to an older version by hand migrates again.
CREATE TABLE IF NOT EXISTS experiments (
	id         BIGSERIAL PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	definition TEXT NOT NULL,
	created_ms BIGINT NOT NULL
);
