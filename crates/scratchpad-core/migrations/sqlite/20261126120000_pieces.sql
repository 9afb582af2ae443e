-- The chunks of content that spans several, stored once however many blobs hold them: a version of
-- a large note that changed one line shares every other chunk with the version before it. `hash` is
-- the blake3 hash of the piece's bytes, which are in `data`, or (`data` empty) at `file_offset` of
-- the side file named `file`; a side file stays while any piece is in it. A chunk whose `piece` is
-- NULL (content of one chunk, and everything written before this) holds its data as before.
CREATE TABLE pieces (
    id          INTEGER PRIMARY KEY,
    hash        BLOB NOT NULL UNIQUE,
    len         INTEGER NOT NULL,
    checksum    INTEGER NOT NULL,
    data        BLOB NOT NULL,
    file        TEXT,
    file_offset INTEGER
) STRICT;
CREATE INDEX pieces_by_file ON pieces(file) WHERE file IS NOT NULL;
ALTER TABLE chunks ADD COLUMN piece INTEGER REFERENCES pieces(id);
CREATE INDEX chunks_by_piece ON chunks(piece) WHERE piece IS NOT NULL;
