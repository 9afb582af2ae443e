-- Every chunk carries its length and a CRC-32 of its data, verified whenever it is read; chunks
-- written before this migration have no checksum (NULL) and are read unverified.
ALTER TABLE chunks ADD COLUMN len INTEGER;
UPDATE chunks SET len = length(data);
ALTER TABLE chunks ADD COLUMN checksum INTEGER;
-- Large content lives in a side file next to the database, named by its hash; its chunk rows hold
-- the index (positions, lengths, checksums) and empty data.
ALTER TABLE blobs ADD COLUMN external INTEGER NOT NULL DEFAULT 0;
-- Side files of blobs deleted in a transaction, removed once it has committed (and, after a crash,
-- by the next collection pass).
CREATE TABLE doomed_files (
    hash TEXT PRIMARY KEY
) STRICT;
