-- 0016_read_scope.sql - issue 19: tokens of scope read (reads behind tokens,
-- --require-read-token). SQLite cannot change a CHECK constraint in place:
-- the table is rebuilt with the same rows, ids and constraints.
CREATE TABLE tokens_0016 (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	scope      TEXT NOT NULL CHECK (scope IN ('read', 'ingest', 'submit', 'admin')),
	hash       TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the token
	created_ms INTEGER NOT NULL,
	revoked_ms INTEGER                 -- NULL while the token is valid
) STRICT;
INSERT INTO tokens_0016 (id, name, scope, hash, created_ms, revoked_ms)
	SELECT id, name, scope, hash, created_ms, revoked_ms FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_0016 RENAME TO tokens;
