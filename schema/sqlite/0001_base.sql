-- 0001_base.sql: what every later migration builds on: facts about this
-- database and the API tokens (stored as SHA-256 hashes, never in clear).
CREATE TABLE server_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

INSERT INTO server_meta (key, value) VALUES ('created_ms', CAST(CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS TEXT));

CREATE TABLE tokens (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	scope      TEXT NOT NULL CHECK (scope IN ('ingest', 'submit', 'admin')),
	hash       TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the token
	created_ms INTEGER NOT NULL,
	revoked_ms INTEGER                 -- NULL while the token is valid
) STRICT;
