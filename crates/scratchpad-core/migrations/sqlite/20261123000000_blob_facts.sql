-- What a read needs of a blob, carried instead of derived: how many chunks hold it (so a read knows
-- where the content ends without asking) and the sniffed type of binary content.
ALTER TABLE blobs ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blobs ADD COLUMN mime TEXT;
UPDATE blobs SET chunks = (SELECT COUNT(*) FROM chunks WHERE chunks.blob = blobs.id);
-- Earlier binary previews said `[BINARY: …, type=image/png]`: that was the only record of the type.
UPDATE blobs SET mime = (
    SELECT substr(e.preview, instr(e.preview, 'type=') + 5, instr(e.preview, ']') - instr(e.preview, 'type=') - 5)
    FROM entries e
    WHERE e.blob = blobs.id AND e.kind = 'binary' AND instr(e.preview, 'type=') > 0
    LIMIT 1
);

-- What the preview saw of a text entry (level counts, the search that finds its most severe lines,
-- a test run's result line), as JSON: hints are built from it, never from the preview's text.
ALTER TABLE entries ADD COLUMN profile TEXT;
