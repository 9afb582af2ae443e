-- The rules and settings an entry's preview was made with (a digest of the engine's version and its
-- preview settings). Storing content a second time under the same rules takes the preview of an entry
-- that holds it instead of reading the content again; entries written before this have none and are
-- never taken from.
ALTER TABLE entries ADD COLUMN preview_key TEXT;
-- A write of a large input first asks whether any content of its exact size is stored: only then is
-- the input hashed ahead of storing it.
CREATE INDEX blobs_large_by_size ON blobs(bytes) WHERE bytes >= 1048576;
