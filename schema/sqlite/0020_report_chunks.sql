-- 0020_report_chunks.sql - issue 18: several raw reports of one host in one
-- row. A report's row, its page fill and its keys cost ~180 B beside its
-- blobs, and each report's blobs are packed alone; a chunk of a host's
-- reports packs their columns as deltas and each kind of blob in one section
-- (server/series/report_chunk.h). The rollup worker moves a host's raw rows
-- into chunks once they are old enough (server/store/sqlite/report_chunks.c);
-- every reader of raw reports reads both. Rows written before this migration
-- stay rows until that pass takes them.
--
-- A chunk holds reports of one agent incarnation, by start time. Its start
-- times span at most an hour and its seqs at most 1024, so the indexes below
-- find the chunks a time range or a seq can fall in by a bounded range.
CREATE TABLE report_chunks (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	host_id     INTEGER NOT NULL,      -- hosts.id
	incarnation TEXT NOT NULL,         -- the agent incarnation of every report in it
	first_seq   INTEGER NOT NULL,      -- the least and greatest seq in it
	last_seq    INTEGER NOT NULL,
	first_ms    INTEGER NOT NULL,      -- the least and greatest start_ms in it
	last_ms     INTEGER NOT NULL,
	n           INTEGER NOT NULL,      -- reports in it
	-- the sections (enum report_chunk_section), the small ones first: a read that
	-- needs no series stops before their bytes
	meta        BLOB NOT NULL,
	host_hist   BLOB NOT NULL,
	iocost      BLOB NOT NULL,
	head        BLOB NOT NULL,
	counts      BLOB NOT NULL
) STRICT;
CREATE INDEX report_chunks_host ON report_chunks (host_id, last_ms);
CREATE INDEX report_chunks_time ON report_chunks (last_ms);
CREATE INDEX report_chunks_seq ON report_chunks (host_id, incarnation, first_seq, last_seq);
