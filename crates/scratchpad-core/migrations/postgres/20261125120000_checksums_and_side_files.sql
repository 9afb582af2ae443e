-- Every chunk carries its length and a CRC-32 of its data, verified whenever it is read; chunks
-- written before this migration have no checksum (NULL) and are read unverified.
ALTER TABLE chunks ADD COLUMN len BIGINT;
UPDATE chunks SET len = length(data);
ALTER TABLE chunks ADD COLUMN checksum BIGINT;
-- Large content may live outside the tables (side files, SQLite only); never on this backend.
ALTER TABLE blobs ADD COLUMN external BOOLEAN NOT NULL DEFAULT FALSE;
-- Side files of blobs deleted in a transaction (unused on this backend, which has none).
CREATE TABLE doomed_files (
    hash TEXT PRIMARY KEY
);
