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
-- Chunk 0 of every blob starts at 0 in bytes, characters and lines: positions are looked up among
-- the later chunks, and content of one chunk (most of it) adds nothing to these indexes.
DROP INDEX chunks_by_char;
DROP INDEX chunks_by_line;
DROP INDEX chunks_by_byte;
CREATE INDEX chunks_by_char ON chunks(blob, char_start) WHERE seq > 0;
CREATE INDEX chunks_by_line ON chunks(blob, line_start, seq) WHERE seq > 0;
CREATE INDEX chunks_by_byte ON chunks(blob, byte_start) WHERE seq > 0;
