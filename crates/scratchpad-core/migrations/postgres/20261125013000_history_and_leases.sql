-- Who wrote each entry's current version, what that change did (JSON, `history::Change`), and
-- whether the entry keeps the versions its changes replace (notes do; outputs of tools only when
-- asked). Entries from before: named ones without a tool are notes.
ALTER TABLE entries ADD COLUMN author TEXT;
ALTER TABLE entries ADD COLUMN summary TEXT;
ALTER TABLE entries ADD COLUMN keeps_history BOOLEAN NOT NULL DEFAULT false;
UPDATE entries SET keeps_history = true WHERE tool IS NULL AND expires_at IS NULL;
CREATE INDEX entries_by_author ON entries(session, author) WHERE author IS NOT NULL;

-- The versions an entry's changes replaced, newest kept. Content is a blob, shared like an entry's,
-- so a blob is only freed when no entry and no version points at it.
CREATE TABLE versions (
    entry       BIGINT NOT NULL REFERENCES entries(rowid) ON DELETE CASCADE,
    version     BIGINT NOT NULL,
    blob        BIGINT NOT NULL REFERENCES blobs(id),
    kind        TEXT NOT NULL,
    bytes       BIGINT NOT NULL,
    chars       BIGINT NOT NULL,
    lines       BIGINT NOT NULL,
    hash        TEXT NOT NULL,
    author      TEXT,
    summary     TEXT,
    written_at  BIGINT NOT NULL,
    replaced_at BIGINT NOT NULL,
    PRIMARY KEY (entry, version)
);
CREATE INDEX versions_by_blob ON versions(blob);
CREATE INDEX versions_by_age ON versions(replaced_at);

-- Leases on names, timed by the server's clock (every host agrees on it). The row outlives a
-- release so that `token` only ever grows for a name: a change carrying an older token is refused.
CREATE TABLE leases (
    session     TEXT NOT NULL,
    name        TEXT NOT NULL,
    holder      TEXT,
    token       BIGINT NOT NULL,
    acquired_at BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    PRIMARY KEY (session, name)
);
