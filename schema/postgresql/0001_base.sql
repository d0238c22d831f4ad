-- 0001_base.sql (PostgreSQL): the same logical schema as schema/sqlite/0001:
-- facts about this database and the API tokens (SHA-256 hashes only).
-- Integers are BIGINT throughout so the server reads every one the same way.
CREATE TABLE server_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

INSERT INTO server_meta (key, value) VALUES ('created_ms', (floor(extract(epoch FROM now()) * 1000))::bigint::text);

CREATE TABLE tokens (
	id         BIGSERIAL PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	scope      TEXT NOT NULL CHECK (scope IN ('ingest', 'submit', 'admin')),
	hash       TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the token
	created_ms BIGINT NOT NULL,
	revoked_ms BIGINT                  -- NULL while the token is valid
);
