-- Entries are keyed by `rowid` in every backend (SQLite's name), so the storage rules are written once.
ALTER TABLE entries RENAME COLUMN row_id TO rowid;

-- What a read needs of a blob, carried instead of derived: how many chunks hold it (so a read knows
-- where the content ends without asking) and the sniffed type of binary content.
ALTER TABLE blobs ADD COLUMN chunks BIGINT NOT NULL DEFAULT 0;
ALTER TABLE blobs ADD COLUMN mime TEXT;
UPDATE blobs b SET chunks = (SELECT COUNT(*) FROM chunks c WHERE c.blob = b.id);
-- Earlier binary previews said `[BINARY: …, type=image/png]`: that was the only record of the type.
UPDATE blobs b SET mime = substring(e.preview from 'type=([^\]]+)\]')
FROM entries e
WHERE e.blob = b.id AND e.kind = 'binary';

-- What the preview saw of a text entry (level counts, the search that finds its most severe lines,
-- a test run's result line), as JSON: hints are built from it, never from the preview's text.
ALTER TABLE entries ADD COLUMN profile TEXT;
