-- Who wrote each entry's current version, what that change did (JSON, `history::Change`), and
-- whether the entry keeps the versions its changes replace (notes do; outputs of tools only when
-- asked). Entries from before: named ones without a tool are notes.
ALTER TABLE entries ADD COLUMN author TEXT;
ALTER TABLE entries ADD COLUMN summary TEXT;
ALTER TABLE entries ADD COLUMN keeps_history INTEGER NOT NULL DEFAULT 0;
UPDATE entries SET keeps_history = 1 WHERE tool IS NULL AND expires_at IS NULL;
CREATE INDEX entries_by_author ON entries(session, author) WHERE author IS NOT NULL;

-- The versions an entry's changes replaced, newest kept. Content is a blob, shared like an entry's,
-- so a blob is only freed when no entry and no version points at it.
CREATE TABLE versions (
    entry       INTEGER NOT NULL REFERENCES entries(rowid) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    blob        INTEGER NOT NULL REFERENCES blobs(id),
    kind        TEXT NOT NULL,
    bytes       INTEGER NOT NULL,
    chars       INTEGER NOT NULL,
    lines       INTEGER NOT NULL,
    hash        TEXT NOT NULL,
    author      TEXT,
    summary     TEXT,
    written_at  INTEGER NOT NULL,
    replaced_at INTEGER NOT NULL,
    PRIMARY KEY (entry, version)
) STRICT;
CREATE INDEX versions_by_blob ON versions(blob);
CREATE INDEX versions_by_age ON versions(replaced_at);

-- Leases on names, timed by the store's clock. The row outlives a release so that `token` only
-- ever grows for a name: a change carrying an older token is refused.
CREATE TABLE leases (
    session     TEXT NOT NULL,
    name        TEXT NOT NULL,
    holder      TEXT,
    token       INTEGER NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (session, name)
) STRICT;
