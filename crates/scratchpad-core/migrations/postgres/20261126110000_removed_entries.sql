-- Entries removed without a purge: their name is free at once, their versions stay restorable until
-- `keep_until` (NULL: until purged), when a collection pass drops them. One row per removal, so a
-- name removed twice has two; `id` is the removed entry's id, which picks one of them.
CREATE TABLE removed (
    rowid      BIGSERIAL PRIMARY KEY,
    session    TEXT NOT NULL,
    name       TEXT NOT NULL,
    id         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    tool       TEXT,
    source     TEXT NOT NULL,
    meta       TEXT NOT NULL,
    turn       TEXT,
    pinned     BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    version    BIGINT NOT NULL,
    removed_at BIGINT NOT NULL,
    removed_by TEXT,
    keep_until BIGINT
);
CREATE INDEX removed_by_name ON removed(session, name, removed_at);
CREATE INDEX removed_by_age ON removed(keep_until) WHERE keep_until IS NOT NULL;

-- Every version a removed entry had, the current one included. Its content is a blob, shared like
-- an entry's or a kept version's, so a blob is only freed when none of the three points at it.
CREATE TABLE removed_versions (
    removal    BIGINT NOT NULL REFERENCES removed(rowid) ON DELETE CASCADE,
    version    BIGINT NOT NULL,
    blob       BIGINT NOT NULL REFERENCES blobs(id),
    kind       TEXT NOT NULL,
    bytes      BIGINT NOT NULL,
    chars      BIGINT NOT NULL,
    lines      BIGINT NOT NULL,
    hash       TEXT NOT NULL,
    author     TEXT,
    summary    TEXT,
    written_at BIGINT NOT NULL,
    PRIMARY KEY (removal, version)
);
CREATE INDEX removed_versions_by_blob ON removed_versions(blob);

-- A watcher hears of removals, restores and purges as it hears of entries changing.
CREATE TRIGGER removed_changed AFTER INSERT OR DELETE ON removed
    FOR EACH STATEMENT EXECUTE FUNCTION scratchpad_notify_change();
