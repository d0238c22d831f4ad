-- 0014_experiments.sql: saved experiments (issue 15), named comparisons that
-- POST /api/v1/experiments stores and GET /api/v1/experiments answers anew.
--
-- definition is the checked definition as canonical JSON (server/compare/
-- experiment.h: selectors, metric, threshold, cgroup, window), so a later
-- version can add fields without a migration; name is unique (a second POST
-- of a name is 409). AUTOINCREMENT: an id is never given again after its
-- experiment is deleted, so a shared /experiments/{id} link never shows
-- another experiment.
CREATE TABLE IF NOT EXISTS experiments (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL UNIQUE,
	definition TEXT NOT NULL,
	created_ms INTEGER NOT NULL
) STRICT;
