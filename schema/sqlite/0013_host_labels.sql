-- 0013_host_labels.sql: host labels per report (issue 15).
--
-- A report's host.labels is kept as canonical text, 'k1=v1,k2=v2' sorted by
-- key ('' for a report without labels; values hold neither ',' nor '=').
-- Consecutive reports of a host usually carry the same labels, so what is
-- stored is runs of them: a span says that the host's reports starting from
-- first_ms to last_ms (both inclusive, unix ms) carried these labels. A report
-- with the labels of the span it falls after extends that span; other labels
-- start a new span from that report on, so a change is seen exactly from the
-- report that made it, and older reports keep their labels. A host's latest
-- labels are those of its latest span. Hosts that never sent labels have no
-- spans. Spans expire with the 1-minute level's retention, except each host's
-- latest. host_id is hosts.id.
--
-- A table of its own (IF NOT EXISTS, no ALTER): a database taken back to an
-- older version by hand migrates again. No index but the key: a host has a
-- span per label change, so the table stays small enough to scan, and each
-- page of schema costs every database (the golden API answers pin the size).
CREATE TABLE IF NOT EXISTS label_spans (
	host_id  INTEGER NOT NULL,
	first_ms INTEGER NOT NULL,
	last_ms  INTEGER NOT NULL,
	labels   TEXT NOT NULL,
	PRIMARY KEY (host_id, first_ms)
) STRICT, WITHOUT ROWID;
