-- 0016_read_scope.sql - issue 19: tokens of scope read (reads behind tokens,
-- --require-read-token).
ALTER TABLE tokens DROP CONSTRAINT tokens_scope_check;
ALTER TABLE tokens ADD CONSTRAINT tokens_scope_check CHECK (scope IN ('read', 'ingest', 'submit', 'admin'));
