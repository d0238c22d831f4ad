-- 0019_blob_dicts.sql - issue 18: zstd dictionaries for the blobs of raw
-- reports (server/series/blob_dict.h). The server trains one per kind of blob
-- on its first reports and stores it here before any row is packed with it;
-- a packed blob names its dictionary by id. Rows name them as long as they
-- live, so dictionaries are never deleted: a few KiB each, one per kind.
CREATE TABLE blob_dicts (
	id         INTEGER PRIMARY KEY,   -- blob_dict_id of the bytes (a CRC-32, never 0)
	kind       INTEGER NOT NULL,      -- enum blob_dict_kind: 1 series, 2 iocost
	dict       BLOB NOT NULL,         -- the dictionary, as zstd loads it
	created_ms INTEGER NOT NULL
) STRICT;
