-- What the full-text index is still to take in: a commit adds its entry's row here, and the rows go
-- into the index together (every 128 rows or 2 MiB, and before every search), which costs a fraction
-- of indexing each commit on its own. `body` is NULL where it is the whole content, which is then
-- taken from the entry's only chunk. `name` holds the name's words.
CREATE TABLE search_pending (
    entry BIGINT PRIMARY KEY REFERENCES entries(rowid) ON DELETE CASCADE,
    name  TEXT NOT NULL,
    body  TEXT,
    bytes BIGINT NOT NULL
);
