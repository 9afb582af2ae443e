-- Sessions hold the counter behind automatic names, so `<tool>_<n>` is never reused.
CREATE TABLE sessions (
    name     TEXT PRIMARY KEY,
    next_seq INTEGER NOT NULL
) STRICT;

-- Content, stored once per blake3 hash. `hash` is NULL while a large write is staged (state 0).
CREATE TABLE blobs (
    id         INTEGER PRIMARY KEY,
    hash       TEXT UNIQUE,
    bytes      INTEGER NOT NULL DEFAULT 0,
    chars      INTEGER NOT NULL DEFAULT 0,
    lines      INTEGER NOT NULL DEFAULT 0,
    state      INTEGER NOT NULL,
    touched_at INTEGER NOT NULL
) STRICT;

-- Fixed-size pieces of a blob with a sparse index of where each starts.
CREATE TABLE chunks (
    blob       INTEGER NOT NULL REFERENCES blobs(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    byte_start INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    data       BLOB NOT NULL,
    PRIMARY KEY (blob, seq)
) STRICT;
CREATE INDEX chunks_by_char ON chunks(blob, char_start);
CREATE INDEX chunks_by_line ON chunks(blob, line_start, seq);
CREATE INDEX chunks_by_byte ON chunks(blob, byte_start);

CREATE TABLE entries (
    rowid       INTEGER PRIMARY KEY,
    session     TEXT NOT NULL,
    name        TEXT NOT NULL,
    id          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    blob        INTEGER NOT NULL REFERENCES blobs(id),
    bytes       INTEGER NOT NULL,
    chars       INTEGER NOT NULL,
    lines       INTEGER NOT NULL,
    hash        TEXT NOT NULL,
    preview     TEXT NOT NULL,
    tool        TEXT,
    source      TEXT NOT NULL,
    meta        TEXT NOT NULL,
    turn        TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    accessed_at INTEGER NOT NULL,
    expires_at  INTEGER,
    pinned      INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    UNIQUE (session, name),
    UNIQUE (session, id)
) STRICT;
CREATE INDEX entries_newest ON entries(session, updated_at DESC, rowid DESC);
CREATE INDEX entries_by_blob ON entries(blob);
CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX entries_by_access ON entries(accessed_at);
CREATE INDEX entries_by_turn ON entries(session, turn) WHERE turn IS NOT NULL;

-- Full-text search over names and a bounded excerpt of each text entry; rowid = entries.rowid.
CREATE VIRTUAL TABLE entries_fts USING fts5(name, body, tokenize = 'unicode61');

CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
