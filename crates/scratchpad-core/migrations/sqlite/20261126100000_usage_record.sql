-- What moved between the store and a model's context: each tool output stored (its size, and the
-- size of the preview shown in its place) and each read (the entry's size, and what the read
-- returned). Appended to, never updated; a collection pass keeps the newest lines only. Kept apart
-- from the entries, so that what was saved stays measured after an entry expires.
CREATE TABLE usage (
    id            INTEGER PRIMARY KEY,
    at            INTEGER NOT NULL,
    session       TEXT NOT NULL,
    name          TEXT NOT NULL,
    tool          TEXT,
    kind          TEXT NOT NULL,
    event         TEXT NOT NULL,
    mode          TEXT,
    content_bytes INTEGER NOT NULL,
    shown_bytes   INTEGER NOT NULL
) STRICT;
CREATE INDEX usage_by_session ON usage(session, at);
