-- Entries removed without a purge: their name is free at once, their versions stay restorable until
-- `keep_until` (NULL: until purged), when a collection pass drops them. One row per removal, so a
-- name removed twice has two; `id` is the removed entry's id, which picks one of them.
CREATE TABLE removed (
    rowid      INTEGER PRIMARY KEY,
    session    TEXT NOT NULL,
    name       TEXT NOT NULL,
    id         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    tool       TEXT,
    source     TEXT NOT NULL,
    meta       TEXT NOT NULL,
    turn       TEXT,
    pinned     INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    removed_at INTEGER NOT NULL,
    removed_by TEXT,
    keep_until INTEGER
) STRICT;
CREATE INDEX removed_by_name ON removed(session, name, removed_at);
CREATE INDEX removed_by_age ON removed(keep_until) WHERE keep_until IS NOT NULL;

-- Every version a removed entry had, the current one included. Its content is a blob, shared like
-- an entry's or a kept version's, so a blob is only freed when none of the three points at it.
CREATE TABLE removed_versions (
    removal    INTEGER NOT NULL REFERENCES removed(rowid) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    blob       INTEGER NOT NULL REFERENCES blobs(id),
    kind       TEXT NOT NULL,
    bytes      INTEGER NOT NULL,
    chars      INTEGER NOT NULL,
    lines      INTEGER NOT NULL,
    hash       TEXT NOT NULL,
    author     TEXT,
    summary    TEXT,
    written_at INTEGER NOT NULL,
    PRIMARY KEY (removal, version)
) STRICT;
CREATE INDEX removed_versions_by_blob ON removed_versions(blob);
