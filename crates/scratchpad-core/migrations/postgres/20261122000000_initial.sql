-- The shared backend's first schema. Same shape as the SQLite one; times are milliseconds since the epoch.
-- Applied inside one transaction under pg_advisory_xact_lock, so two processes starting at once are safe.

-- Sessions hold the counter behind automatic names, so `<tool>_<n>` is never reused.
CREATE TABLE sessions (
    name     TEXT PRIMARY KEY,
    next_seq BIGINT NOT NULL
);

-- Content, stored once per blake3 hash. `hash` is NULL while a large write is staged (state 0).
-- `touched_at` comes from the database server's clock, so hosts with skewed clocks agree on
-- which staged writes are stale.
CREATE TABLE blobs (
    id         BIGSERIAL PRIMARY KEY,
    hash       TEXT UNIQUE,
    bytes      BIGINT NOT NULL DEFAULT 0,
    chars      BIGINT NOT NULL DEFAULT 0,
    lines      BIGINT NOT NULL DEFAULT 0,
    state      SMALLINT NOT NULL,
    touched_at BIGINT NOT NULL
);
CREATE INDEX blobs_staged ON blobs(touched_at) WHERE state = 0;

-- Fixed-size pieces of a blob with a sparse index of where each starts.
CREATE TABLE chunks (
    blob       BIGINT NOT NULL REFERENCES blobs(id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    byte_start BIGINT NOT NULL,
    char_start BIGINT NOT NULL,
    line_start BIGINT NOT NULL,
    data       BYTEA NOT NULL,
    PRIMARY KEY (blob, seq)
);
-- Chunks are 256 KiB: keep them out of line and uncompressed, so writes are not CPU-bound and a
-- read fetches exactly one chunk.
ALTER TABLE chunks ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX chunks_by_char ON chunks(blob, char_start);
CREATE INDEX chunks_by_line ON chunks(blob, line_start, seq);
CREATE INDEX chunks_by_byte ON chunks(blob, byte_start);

CREATE TABLE entries (
    row_id      BIGSERIAL PRIMARY KEY,
    session     TEXT NOT NULL,
    name        TEXT NOT NULL,
    id          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    blob        BIGINT NOT NULL REFERENCES blobs(id),
    bytes       BIGINT NOT NULL,
    chars       BIGINT NOT NULL,
    lines       BIGINT NOT NULL,
    hash        TEXT NOT NULL,
    preview     TEXT NOT NULL,
    tool        TEXT,
    source      TEXT NOT NULL,
    meta        TEXT NOT NULL,
    turn        TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    accessed_at BIGINT NOT NULL,
    expires_at  BIGINT,
    pinned      BOOLEAN NOT NULL,
    version     BIGINT NOT NULL,
    UNIQUE (session, name),
    UNIQUE (session, id)
);
CREATE INDEX entries_newest ON entries(session, updated_at DESC, row_id DESC);
CREATE INDEX entries_by_blob ON entries(blob);
CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX entries_by_access ON entries(accessed_at);
CREATE INDEX entries_by_turn ON entries(session, turn) WHERE turn IS NOT NULL;

-- Full-text search (PostgreSQL's own): the entry's name words weigh A, a bounded excerpt of its
-- content weighs B. The 'simple' configuration neither stems nor drops stop words, like SQLite's
-- unicode61 tokenizer.
CREATE TABLE entry_search (
    entry BIGINT PRIMARY KEY REFERENCES entries(row_id) ON DELETE CASCADE,
    body  TEXT NOT NULL,
    doc   TSVECTOR NOT NULL
);
CREATE INDEX entry_search_doc ON entry_search USING GIN (doc);

CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
