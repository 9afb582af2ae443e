//! Blob content: how it arrives (in memory, then a side file or staging rows once it is large), how
//! it is stored once per hash, how a chunk is read back and verified, and how it is freed.

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::Mutex;

use super::{Backend, Conn, Dialect, Fail, Param, Row, SqlStore};
use crate::error::{Error, Result};
use crate::model::Kind;
use crate::store::side::TempFile;
use crate::store::{
    BlobStats, BlobWriter, Chunk, ChunkPos, Locate, Pending, PendingBlob, REUSE_MIN_BYTES,
    Reusable, checksum,
};

/// The columns [`StoredChunk::from_row`] reads, of [`stored_chunk_tables`]: a chunk with a piece
/// takes its data, length and checksum from the piece.
macro_rules! stored_chunk_columns {
    () => {
        "c.seq, COALESCE(p.data, c.data), c.byte_start, COALESCE(p.len, c.len), \
         COALESCE(p.checksum, c.checksum), b.external, b.hash, p.id IS NOT NULL, p.file, p.file_offset"
    };
}

/// The tables [`stored_chunk_columns`] reads.
macro_rules! stored_chunk_tables {
    () => {
        " FROM chunks c JOIN blobs b ON b.id = c.blob LEFT JOIN pieces p ON p.id = c.piece"
    };
}

/// Receives a blob's content: in memory until it passes [`Backend::SPILL_BYTES`], then into a side
/// file (where the backend keeps them) or staging rows marked with the writer's held connection.
#[derive(Debug)]
pub(super) struct ContentWriter<'a, B: Backend> {
    store: &'a SqlStore<B>,
    /// Chunks not written anywhere yet.
    memory: Vec<Chunk>,
    memory_bytes: usize,
    /// Where spilled chunks went, and their positions.
    spill: Spill<B::Held>,
    spilled: Vec<ChunkPos>,
}

#[derive(Debug)]
enum Spill<H> {
    None,
    File(TempFile),
    Staged { id: Option<i64>, held: H },
}

impl<'a, B: Backend> ContentWriter<'a, B> {
    pub(super) fn new(store: &'a SqlStore<B>) -> Self {
        Self {
            store,
            memory: Vec::new(),
            memory_bytes: 0,
            spill: Spill::None,
            spilled: Vec::new(),
        }
    }

    /// Moves the chunks held in memory to where large content goes.
    fn spill(&mut self) -> Result<()> {
        if matches!(self.spill, Spill::None) {
            self.spill = match self.store.backend.side_files() {
                Some(side) => Spill::File(side.create()?),
                None => Spill::Staged {
                    id: None,
                    held: self.store.backend.hold()?,
                },
            };
        }
        let mut chunks = std::mem::take(&mut self.memory);
        self.memory_bytes = 0;
        // Spilled content spans several chunks: each is stored as a piece, found by its hash.
        chunks.iter_mut().for_each(name_piece);
        match &mut self.spill {
            Spill::None => unreachable!("a spill target was chosen above"),
            Spill::File(file) => {
                for chunk in &chunks {
                    file.write(&chunk.data)?;
                }
            }
            Spill::Staged { id, held } => {
                let dialect = self.store.dialect();
                let current = *id;
                // Idempotent: chunks already written are kept, so a retry after a lost COMMIT is
                // harmless.
                let staged = self.store.backend.with_held(held, current, &mut |c| {
                    let staged = match current {
                        Some(staged) => {
                            keep_staged(c, dialect, staged)?;
                            staged
                        }
                        None => {
                            let staged = new_staged(c, dialect)?;
                            if let Some(lock) = dialect.lock_staging {
                                c.execute(lock, &[Param::Int(staged)])?;
                            }
                            staged
                        }
                    };
                    let pieces = upsert_pieces(
                        c,
                        chunks
                            .iter()
                            .map(|chunk| (&chunk.pos, &chunk.data[..], None))
                            .collect(),
                    )?;
                    insert_piece_chunks(c, staged, chunks.iter().map(|chunk| &chunk.pos), &pieces)?;
                    Ok(staged)
                })?;
                *id = Some(staged);
            }
        }
        self.spilled
            .extend(chunks.into_iter().map(|chunk| chunk.pos));
        Ok(())
    }
}

impl<B: Backend> BlobWriter for ContentWriter<'_, B> {
    fn push(&mut self, chunk: Chunk) -> Result<()> {
        if let Spill::File(file) = &mut self.spill {
            let mut chunk = chunk;
            name_piece(&mut chunk);
            file.write(&chunk.data)?;
            self.spilled.push(chunk.pos);
            return Ok(());
        }
        self.memory_bytes += chunk.data.len();
        self.memory.push(chunk);
        if self.memory_bytes >= B::SPILL_BYTES {
            self.spill()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<PendingBlob> {
        if !matches!(self.spill, Spill::None) && !self.memory.is_empty() {
            self.spill()?;
        }
        let spill = std::mem::replace(&mut self.spill, Spill::None);
        Ok(match spill {
            Spill::None => {
                let mut memory = std::mem::take(&mut self.memory);
                // Content of one chunk stays in its chunk row (most writes, kept as fast); content
                // of several is stored as pieces, shared with every content that holds them.
                if memory.len() > 1 {
                    memory.iter_mut().for_each(name_piece);
                }
                let (chunks, data) = memory
                    .into_iter()
                    .map(|chunk| (chunk.pos, chunk.data))
                    .unzip();
                PendingBlob {
                    chunks,
                    content: Pending::Memory(data),
                }
            }
            Spill::File(file) => PendingBlob {
                chunks: std::mem::take(&mut self.spilled),
                content: Pending::File(file),
            },
            Spill::Staged { id, held } => PendingBlob {
                chunks: std::mem::take(&mut self.spilled),
                content: Pending::Staged {
                    id: id.unwrap_or_default(),
                    hold: Box::new(held),
                },
            },
        })
    }
}

impl<B: Backend> Drop for ContentWriter<'_, B> {
    fn drop(&mut self) {
        // A writer dropped before it finished (an error, a cancelled put): its staging goes now. A
        // side file removes itself; if this fails, the writer's mark is gone with it, so the next
        // collection pass takes the rows.
        if let Spill::Staged { id: Some(id), .. } = self.spill {
            let _ = self.store.write(|c| {
                c.execute(
                    "DELETE FROM blobs WHERE id = ?1 AND state = 0",
                    &[Param::Int(id)],
                )?;
                Ok(())
            });
        }
    }
}

/// Computes the hash a chunk is stored under as a piece.
fn name_piece(chunk: &mut Chunk) {
    chunk.pos.piece = Some(*blake3::hash(&chunk.data).as_bytes());
}

/// The hash a chunk is shared under, if it is stored as a piece: one its writer named, with a
/// checksum (every chunk written since checksums are kept has one).
fn piece_hash(pos: &ChunkPos) -> Option<&[u8; 32]> {
    pos.piece.as_ref().filter(|_| pos.checksum.is_some())
}

/// Writes chunk rows: positions, length and checksum, with the data when it is kept in the table,
/// or the piece that holds it. A chunk already there (a retried write whose first try did commit)
/// is kept.
pub(super) fn insert_chunks<'d>(
    c: &mut dyn Conn,
    blob: i64,
    chunks: impl IntoIterator<Item = (&'d ChunkPos, Option<&'d [u8]>, Option<i64>)>,
) -> Result<(), Fail> {
    for (pos, data, piece) in chunks {
        c.execute(
            "INSERT INTO chunks (blob, seq, byte_start, char_start, line_start, len, checksum, data, piece) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (blob, seq) DO NOTHING",
            &[
                Param::Int(blob),
                Param::Int(i64::from(pos.seq)),
                Param::count(pos.byte_start),
                Param::count(pos.char_start),
                Param::count(pos.line_start),
                Param::count(pos.len),
                Param::OptInt(pos.checksum.map(i64::from)),
                Param::Bytes(data.unwrap_or_default()),
                Param::OptInt(piece),
            ],
        )?;
    }
    Ok(())
}

/// Writes the chunk rows of content stored as pieces (`pieces`: their ids by hash); a chunk with
/// no piece there holds nothing and is refused.
fn insert_piece_chunks<'d>(
    c: &mut dyn Conn,
    blob: i64,
    chunks: impl IntoIterator<Item = &'d ChunkPos>,
    pieces: &HashMap<[u8; 32], i64>,
) -> Result<(), Fail> {
    let rows = chunks
        .into_iter()
        .map(|pos| {
            let piece = piece_hash(pos).and_then(|hash| pieces.get(hash)).copied();
            piece.map(|piece| (pos, None, Some(piece))).ok_or_else(|| {
                Fail::App(Error::Storage(format!(
                    "chunk {} of this write has no stored piece; run it again",
                    pos.seq
                )))
            })
        })
        .collect::<Result<Vec<_>, Fail>>()?;
    insert_chunks(c, blob, rows)
}

/// Stores one piece unless one with its hash is there, and returns its id. The no-op update locks
/// the row of a piece stored already, so that a release running at the same time either waits for
/// this transaction (and sees the chunk that now refers to the piece) or has deleted the row first
/// (and this inserts it again). `file`: the side file holding the bytes at the chunk's position,
/// `data` then empty.
fn upsert_piece(
    c: &mut dyn Conn,
    hash: &[u8; 32],
    pos: &ChunkPos,
    data: &[u8],
    file: Option<&str>,
) -> Result<i64, Fail> {
    c.one(
        "INSERT INTO pieces (hash, len, checksum, data, file, file_offset) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (hash) DO UPDATE SET hash = excluded.hash RETURNING id",
        &[
            Param::Bytes(hash),
            Param::count(pos.len),
            Param::OptInt(pos.checksum.map(i64::from)),
            Param::Bytes(data),
            Param::OptText(file),
            Param::OptInt(file.map(|_| i64::try_from(pos.byte_start).unwrap_or(i64::MAX))),
        ],
        |r| r.int(0),
    )
}

/// Stores the pieces of these chunks (each with its data, or in the side file named), in the order
/// of their hashes: two writers storing the same pieces at once lock them in the same order, so
/// neither waits for the other while holding what the other waits for. Returns their ids by hash.
fn upsert_pieces(
    c: &mut dyn Conn,
    mut chunks: Vec<(&ChunkPos, &[u8], Option<&str>)>,
) -> Result<HashMap<[u8; 32], i64>, Fail> {
    chunks.retain(|(pos, _, _)| piece_hash(pos).is_some());
    chunks.sort_by_key(|(pos, _, _)| pos.piece);
    let mut ids = HashMap::with_capacity(chunks.len());
    for (pos, data, file) in chunks {
        let Some(hash) = piece_hash(pos) else {
            continue;
        };
        if !ids.contains_key(hash) {
            ids.insert(*hash, upsert_piece(c, hash, pos, data, file)?);
        }
    }
    Ok(ids)
}

/// The ids of the stored pieces among these chunks', by hash.
fn known_pieces(c: &mut dyn Conn, chunks: &[ChunkPos]) -> Result<HashMap<[u8; 32], i64>, Fail> {
    let mut known = HashMap::new();
    for hash in chunks.iter().filter_map(piece_hash) {
        if known.contains_key(hash) {
            continue;
        }
        if let Some(id) = c.first(
            "SELECT id FROM pieces WHERE hash = ?1",
            &[Param::Bytes(hash)],
            |r| r.int(0),
        )? {
            known.insert(*hash, id);
        }
    }
    Ok(known)
}

/// Whether most of the bytes of these chunks are stored as pieces already: their new chunks are
/// then stored on their own, instead of a side file of the whole content.
fn mostly_known(chunks: &[ChunkPos], known: &HashMap<[u8; 32], i64>) -> bool {
    let total: u64 = chunks.iter().map(|pos| pos.len).sum();
    let stored: u64 = chunks
        .iter()
        .filter(|pos| piece_hash(pos).is_some_and(|hash| known.contains_key(hash)))
        .map(|pos| pos.len)
        .sum();
    stored > 0 && stored.saturating_mul(2) >= total
}

fn abandoned() -> Fail {
    Fail::App(Error::Storage(
        "this write was idle so long that it was collected as abandoned; run it again".into(),
    ))
}

/// Why a write that reused stored content failed: a collection pass removed the content between
/// the lookup and the commit (its last entry was deleted meanwhile).
pub(crate) const VANISHED: &str =
    "the stored content this write reused was collected while it ran; run it again";

/// Refreshes a staging blob so no collection pass takes it; fails if one already did.
fn keep_staged(c: &mut dyn Conn, dialect: &Dialect, staged: i64) -> Result<(), Fail> {
    let sql = format!(
        "UPDATE blobs SET touched_at = {} WHERE id = ?1 AND state = 0",
        dialect.now_ms
    );
    if c.execute(&sql, &[Param::Int(staged)])? == 0 {
        return Err(abandoned());
    }
    Ok(())
}

fn new_staged(c: &mut dyn Conn, dialect: &Dialect) -> Result<i64, Fail> {
    let sql = format!(
        "INSERT INTO blobs (state, touched_at) VALUES (0, {}) RETURNING id",
        dialect.now_ms
    );
    c.one(&sql, &[], |r| r.int(0))
}

/// The id of the committed blob with this hash, if there is one; touching it locks it, so a
/// concurrent release waits for this transaction and then sees our entry.
fn touch_blob(c: &mut dyn Conn, dialect: &Dialect, hash: &str) -> Result<Option<i64>, Fail> {
    let sql = format!(
        "UPDATE blobs SET touched_at = {} WHERE hash = ?1 AND state = 1 RETURNING id",
        dialect.now_ms
    );
    c.first(&sql, &[Param::Text(hash)], |r| r.int(0))
}

/// A chunk's row as a read finds it, before its data is fetched from a side file and checked.
struct StoredChunk {
    seq: i64,
    data: Vec<u8>,
    byte_start: u64,
    len: Option<i64>,
    checksum: Option<i64>,
    external: bool,
    hash: Option<String>,
    /// Whether the data is a piece's, and where in a side file that piece is, if it is in one.
    in_piece: bool,
    piece_file: Option<String>,
    piece_offset: Option<i64>,
}

impl StoredChunk {
    fn from_row(r: &dyn Row) -> Result<Self, Fail> {
        Ok(Self {
            seq: r.int(0)?,
            data: r.bytes(1)?,
            byte_start: r.count(2)?,
            len: r.opt_int(3)?,
            checksum: r.opt_int(4)?,
            external: r.flag(5)?,
            hash: r.opt_text(6)?,
            in_piece: r.flag(7)?,
            piece_file: r.opt_text(8)?,
            piece_offset: r.opt_int(9)?,
        })
    }
}

/// Pending content as one transaction's commit sees it; a side file is taken out when adopted.
pub(super) struct Settling<'p> {
    pub chunks: &'p [ChunkPos],
    pub content: SettlingContent<'p>,
}

pub(super) enum SettlingContent<'p> {
    Memory(&'p [Vec<u8>]),
    Staged(i64),
    File(&'p Mutex<Option<TempFile>>),
    Stored,
}

/// Stores the content once: reuses a blob with the same hash, else makes the pending content a
/// blob (the staged rows completed, the side file named, or the chunks written with their data).
pub(super) fn settle_blob(
    c: &mut dyn Conn,
    dialect: &Dialect,
    stats: &BlobStats,
    pending: &Settling<'_>,
) -> Result<i64, Fail> {
    // Two writers of new content that is the same would both store it, and the second would fail
    // on the hash, which is unique: the second waits and takes the first's.
    if let Some(lock) = dialect.lock_content {
        c.execute(lock, &[Param::Text(&stats.hash)])?;
    }
    if let Some(id) = touch_blob(c, dialect, &stats.hash)? {
        if let SettlingContent::Staged(staged) = pending.content {
            let pieces = pieces_of(c, staged)?;
            c.execute(
                "DELETE FROM blobs WHERE id = ?1 AND state = 0",
                &[Param::Int(staged)],
            )?;
            release_pieces(c, dialect, pieces)?;
        }
        // A side file not adopted removes itself when the commit is done with it.
        return Ok(id);
    }
    let (id, external) = match &pending.content {
        SettlingContent::Stored => return Err(Fail::App(Error::Storage(VANISHED.into()))),
        SettlingContent::Staged(staged) => {
            keep_staged(c, dialect, *staged)?;
            (*staged, false)
        }
        SettlingContent::Memory(data) => {
            // Complete at once: the blob row with every fact, then its chunks.
            let sql = format!(
                "INSERT INTO blobs (hash, bytes, chars, lines, chunks, mime, external, state, touched_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, {}) RETURNING id",
                dialect.now_ms
            );
            let id = c.one(&sql, &blob_facts(stats, false), |r| r.int(0))?;
            let pieces = upsert_pieces(
                c,
                pending
                    .chunks
                    .iter()
                    .zip(data.iter())
                    .map(|(pos, d)| (pos, &d[..], None))
                    .collect(),
            )?;
            insert_chunks(
                c,
                id,
                pending.chunks.iter().zip(data.iter()).map(|(pos, d)| {
                    match piece_hash(pos).and_then(|hash| pieces.get(hash)) {
                        Some(piece) => (pos, None, Some(*piece)),
                        None => (pos, Some(&d[..]), None),
                    }
                }),
            )?;
            return Ok(id);
        }
        SettlingContent::File(file) => {
            let id = new_staged(c, dialect)?;
            let taken = file.lock().ok().and_then(|mut slot| slot.take());
            let file = taken.ok_or_else(|| {
                Fail::App(Error::Storage(
                    "the side file of this write was already used; run it again".into(),
                ))
            })?;
            if !pending.chunks.iter().all(|pos| piece_hash(pos).is_some()) {
                // Not named as pieces: the side file is the blob's own, as before pieces.
                insert_chunks(c, id, pending.chunks.iter().map(|pos| (pos, None, None)))?;
                file.adopt(&stats.hash)?;
                (id, true)
            } else {
                let mut pieces = known_pieces(c, pending.chunks)?;
                if mostly_known(pending.chunks, &pieces) {
                    // A new version of content stored before: only what changed is written, in
                    // the database, and the side file goes.
                    for pos in pending.chunks {
                        let Some(hash) = piece_hash(pos) else {
                            continue;
                        };
                        if pieces.contains_key(hash) {
                            continue;
                        }
                        let data = file.read_at(pos.byte_start, pos.len)?;
                        if pos.checksum != Some(checksum(&data)) {
                            return Err(Fail::App(Error::Storage(format!(
                                "the side file of this write changed while it was written \
                                 (chunk {}); run it again",
                                pos.seq
                            ))));
                        }
                        pieces.insert(*hash, upsert_piece(c, hash, pos, &data, None)?);
                    }
                } else {
                    // Named under the store's write lock, which a collection pass takes too. Its
                    // pieces stored already stay where they are; the new ones point into it.
                    file.adopt(&stats.hash)?;
                    pieces = upsert_pieces(
                        c,
                        pending
                            .chunks
                            .iter()
                            .map(|pos| (pos, &[][..], Some(stats.hash.as_str())))
                            .collect(),
                    )?;
                }
                insert_piece_chunks(c, id, pending.chunks, &pieces)?;
                (id, false)
            }
        }
    };
    let sql = format!(
        "UPDATE blobs SET hash = ?2, bytes = ?3, chars = ?4, lines = ?5, chunks = ?6, mime = ?7, \
         external = ?8, state = 1, touched_at = {} WHERE id = ?1",
        dialect.now_ms
    );
    let mut params = vec![Param::Int(id)];
    params.extend(blob_facts(stats, external));
    c.execute(&sql, &params)?;
    Ok(id)
}

/// A blob's facts, in the order its statements bind them: hash, bytes, chars, lines, chunks,
/// MIME type, whether it lives in a side file.
fn blob_facts(stats: &BlobStats, external: bool) -> [Param<'_>; 7] {
    [
        Param::Text(&stats.hash),
        Param::count(stats.bytes),
        Param::count(stats.chars),
        Param::count(stats.lines),
        Param::Int(i64::from(stats.chunks)),
        Param::OptText(stats.mime.as_deref()),
        Param::Bool(external),
    ]
}

/// Deletes a blob when no entry and no kept version points at it any more; returns the bytes
/// freed. The row lock comes first and the look for references after it, in a statement of its
/// own: a writer on another host that is reusing this blob either finished (its entry is seen) or
/// has not started (it will not find the blob and writes the content anew). A blob whose row is
/// locked is being taken by a writer right now (or released by another transaction) and is left
/// alone: waiting for it could deadlock with that writer, which may be waiting for a blob this
/// transaction holds; a blob left with nothing pointing at it is freed by the next collection
/// pass. A side file is marked doomed, to be removed once the transaction has committed. The
/// pieces of a deleted blob go too where no other chunk refers to them (see [`release_pieces`]).
pub(super) fn release_blob(c: &mut dyn Conn, dialect: &Dialect, blob: i64) -> Result<u64, Fail> {
    let sql = format!(
        "SELECT chunks FROM blobs WHERE id = ?1{}",
        dialect.lock_skip_locked
    );
    let Some(chunks) = c.first(&sql, &[Param::Int(blob)], |r| r.int(0))? else {
        return Ok(0);
    };
    // Content of one chunk is never stored as a piece.
    let pieces = if chunks > 1 {
        pieces_of(c, blob)?
    } else {
        Vec::new()
    };
    let freed = c.first(
        "DELETE FROM blobs WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM entries WHERE blob = ?1) \
         AND NOT EXISTS (SELECT 1 FROM versions WHERE blob = ?1) \
         AND NOT EXISTS (SELECT 1 FROM removed_versions WHERE blob = ?1) RETURNING bytes, external, hash",
        &[Param::Int(blob)],
        |r| Ok((r.count(0)?, r.flag(1)?, r.opt_text(2)?)),
    )?;
    let Some((bytes, external, hash)) = freed else {
        return Ok(0);
    };
    if let (true, Some(hash)) = (external, hash) {
        doom_file(c, &hash)?;
    }
    release_pieces(c, dialect, pieces)?;
    Ok(bytes)
}

/// Marks a side file to be removed once the transaction has committed, unless something refers to
/// it by then (see [`FILE_REFERRED`]).
fn doom_file(c: &mut dyn Conn, hash: &str) -> Result<(), Fail> {
    c.execute(
        "INSERT INTO doomed_files (hash) VALUES (?1) ON CONFLICT (hash) DO NOTHING",
        &[Param::Text(hash)],
    )?;
    Ok(())
}

/// A row when the side file named `?1` holds content something refers to: a blob of its own (as
/// stored before pieces), or a piece.
pub(super) const FILE_REFERRED: &str = "SELECT 1 FROM blobs WHERE hash = ?1 AND external \
     UNION ALL SELECT 1 FROM pieces WHERE file = ?1";

/// The pieces a blob's chunks refer to.
fn pieces_of(c: &mut dyn Conn, blob: i64) -> Result<Vec<i64>, Fail> {
    c.rows(
        "SELECT piece FROM chunks WHERE blob = ?1 AND piece IS NOT NULL",
        &[Param::Int(blob)],
        |r| r.int(0),
    )
}

/// Deletes the pieces no chunk refers to any more; returns how many. As with a blob, the row lock
/// comes first and the look for chunks after it, in a statement of its own: a writer storing the
/// same piece locks its row too (see [`upsert_piece`]), so it either committed its chunk (which is
/// seen) or inserts the piece again after this. A piece a writer holds is left, for a collection
/// pass if nothing refers to it once that writer is done. The side file of a piece deleted is
/// doomed, and removed once no piece is left in it.
pub(super) fn release_pieces(
    c: &mut dyn Conn,
    dialect: &Dialect,
    mut pieces: Vec<i64>,
) -> Result<u64, Fail> {
    pieces.sort_unstable();
    pieces.dedup();
    let lock = format!(
        "SELECT 1 FROM pieces WHERE id = ?1{}",
        dialect.lock_skip_locked
    );
    let mut released = 0;
    for piece in pieces {
        if c.first(&lock, &[Param::Int(piece)], |_| Ok(()))?.is_none() {
            continue;
        }
        let deleted = c.first(
            "DELETE FROM pieces WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM chunks WHERE piece = ?1) \
             RETURNING file",
            &[Param::Int(piece)],
            |r| r.opt_text(0),
        )?;
        if let Some(file) = deleted {
            released += 1;
            if let Some(file) = file {
                doom_file(c, &file)?;
            }
        }
    }
    Ok(released)
}

impl<B: Backend> SqlStore<B> {
    pub(super) fn holds_size(&self, bytes: u64) -> Result<bool> {
        // The bound repeats the partial index's own, so that the index serves the query.
        let sql = format!(
            "SELECT 1 FROM blobs WHERE bytes = ?1 AND bytes >= {REUSE_MIN_BYTES} AND state = 1 LIMIT 1"
        );
        self.read(|c| {
            c.first(&sql, &[Param::count(bytes)], |_| Ok(()))
                .map(|found| found.is_some())
        })
    }

    pub(super) fn reusable(&self, hash: &str, preview_key: &str) -> Result<Option<Reusable>> {
        self.read(|c| {
            c.first(
                "SELECT b.bytes, b.chars, b.lines, b.chunks, b.mime, e.kind, e.preview, e.profile \
                 FROM blobs b JOIN entries e ON e.blob = b.id \
                 WHERE b.hash = ?1 AND b.state = 1 AND e.preview_key = ?2 LIMIT 1",
                &[Param::Text(hash), Param::Text(preview_key)],
                |r| {
                    let chunks = u32::try_from(r.int(3)?).unwrap_or(u32::MAX);
                    Ok((
                        BlobStats {
                            hash: hash.to_owned(),
                            bytes: r.count(0)?,
                            chars: r.count(1)?,
                            lines: r.count(2)?,
                            chunks,
                            mime: r.opt_text(4)?,
                        },
                        r.text(5)?,
                        r.text(6)?,
                        r.opt_text(7)?,
                    ))
                },
            )
        })
        .map(|found| {
            // A row the engine cannot read is no reason to fail a write: it is read again instead.
            found.and_then(|(stats, kind, preview, profile)| {
                Some(Reusable {
                    stats,
                    kind: Kind::parse(&kind).ok()?,
                    preview,
                    profile: match profile {
                        Some(json) => Some(serde_json::from_str(&json).ok()?),
                        None => None,
                    },
                })
            })
        })
    }

    /// Whether a committed blob holds this content.
    pub(super) fn has_blob(&self, hash: &str) -> Result<bool> {
        self.read(|c| {
            c.first(
                "SELECT 1 FROM blobs WHERE hash = ?1 AND state = 1",
                &[Param::Text(hash)],
                |_| Ok(()),
            )
            .map(|found| found.is_some())
        })
    }

    /// Removes the side files of blobs deleted by committed transactions, unless the same content
    /// came back meanwhile. Runs under the write lock, as every naming of a side file does.
    pub(super) fn remove_doomed_files(&self) -> Result<u64> {
        let Some(side) = self.backend.side_files() else {
            return Ok(0);
        };
        let doomed = self.read(|c| {
            c.rows("SELECT hash FROM doomed_files LIMIT 1000", &[], |r| {
                r.text(0)
            })
        })?;
        if doomed.is_empty() {
            return Ok(0);
        }
        // Freeing space itself: on a full disk, this may use the room the backend keeps for that.
        self.freeing(|c| {
            let mut removed = 0;
            for hash in &doomed {
                let back = c
                    .first(FILE_REFERRED, &[Param::Text(hash)], |_| Ok(()))?
                    .is_some();
                if !back {
                    side.remove(hash)?;
                    removed += 1;
                }
                c.execute(
                    "DELETE FROM doomed_files WHERE hash = ?1",
                    &[Param::Text(hash)],
                )?;
            }
            Ok(removed)
        })
    }

    pub(super) fn locate_chunk(&self, blob: i64, at: Locate) -> Result<Option<ChunkPos>> {
        /// The last later chunk that starts at or before the position (the partial indexes hold
        /// only chunks after the first), else the first chunk, which starts at 0.
        macro_rules! locate {
            ($start:literal, $order:literal) => {
                concat!(
                    "SELECT seq, byte_start, char_start, line_start, len, checksum FROM (\
                     SELECT * FROM (SELECT seq, byte_start, char_start, line_start, len, checksum FROM chunks \
                     WHERE blob = ?1 AND seq > 0 AND ",
                    $start,
                    " ORDER BY ",
                    $order,
                    " LIMIT 1) AS later \
                     UNION ALL SELECT seq, byte_start, char_start, line_start, len, checksum FROM chunks \
                     WHERE blob = ?1 AND seq = 0) AS found ORDER BY seq DESC LIMIT 1"
                )
            };
        }
        let (sql, value) = match at {
            Locate::Byte(b) => (locate!("byte_start <= ?2", "byte_start DESC"), b),
            Locate::Char(c) => (locate!("char_start <= ?2", "char_start DESC"), c),
            // Where the text after `n` newlines may begin: the last chunk with fewer before it.
            Locate::AfterNewlines(n) => {
                (locate!("line_start < ?2", "line_start DESC, seq DESC"), n)
            }
        };
        self.read(|c| {
            c.first(sql, &[Param::Int(blob), Param::count(value)], |r| {
                Ok(ChunkPos {
                    seq: u32::try_from(r.int(0)?).unwrap_or(u32::MAX),
                    byte_start: r.count(1)?,
                    char_start: r.count(2)?,
                    line_start: r.count(3)?,
                    len: r.count(4)?,
                    checksum: r.opt_int(5)?.and_then(|sum| u32::try_from(sum).ok()),
                    piece: None,
                })
            })
        })
    }

    /// One chunk's data, from the table or the side file, checked against its checksum.
    pub(super) fn read_chunk(&self, blob: i64, seq: u32) -> Result<Vec<u8>> {
        let found = self.read(|c| {
            c.first(
                concat!(
                    "SELECT ",
                    stored_chunk_columns!(),
                    stored_chunk_tables!(),
                    " WHERE c.blob = ?1 AND c.seq = ?2"
                ),
                &[Param::Int(blob), Param::Int(i64::from(seq))],
                StoredChunk::from_row,
            )
        })?;
        let chunk = found.ok_or_else(|| Error::Raced(format!("blob {blob}")))?;
        self.verified(blob, chunk)
    }

    /// Chunks `seqs` of a blob in one query, each from the table or the side file and checked
    /// against its checksum.
    pub(super) fn read_chunks(&self, blob: i64, seqs: RangeInclusive<u32>) -> Result<Vec<Vec<u8>>> {
        if seqs.is_empty() {
            return Ok(Vec::new());
        }
        let wanted = (seqs.end() - seqs.start()) as usize + 1;
        let rows = self.read(|c| {
            c.rows(
                concat!(
                    "SELECT ",
                    stored_chunk_columns!(),
                    stored_chunk_tables!(),
                    " WHERE c.blob = ?1 AND c.seq BETWEEN ?2 AND ?3 ORDER BY c.seq"
                ),
                &[
                    Param::Int(blob),
                    Param::Int(i64::from(*seqs.start())),
                    Param::Int(i64::from(*seqs.end())),
                ],
                StoredChunk::from_row,
            )
        })?;
        // A blob deleted meanwhile has no rows, or fewer than asked for.
        if rows.len() != wanted {
            return Err(Error::Raced(format!("blob {blob}")));
        }
        rows.into_iter()
            .map(|chunk| self.verified(blob, chunk))
            .collect()
    }

    fn verified(&self, blob: i64, chunk: StoredChunk) -> Result<Vec<u8>> {
        let StoredChunk {
            seq,
            data,
            byte_start,
            len,
            checksum: sum,
            external,
            hash,
            in_piece,
            piece_file,
            piece_offset,
        } = chunk;
        let len = len.and_then(|l| u64::try_from(l).ok()).unwrap_or(0);
        // Where the bytes are: a piece's side file (at the piece's offset), the blob's own side
        // file (at the chunk's position), or the row read.
        let in_file = match (in_piece, piece_file, external, hash) {
            (true, Some(file), _, _) => Some((
                file,
                piece_offset
                    .and_then(|at| u64::try_from(at).ok())
                    .unwrap_or(0),
            )),
            (true, None, _, _) | (false, _, false, _) => None,
            (false, _, true, Some(hash)) => Some((hash, byte_start)),
            (false, _, true, None) => {
                return Err(Error::Corrupt(format!(
                    "blob {blob} is kept in a side file that has no name"
                )));
            }
        };
        let data = match (in_file, self.backend.side_files()) {
            (None, _) => data,
            (Some((file, offset)), Some(side)) => side.read(&file, offset, len)?,
            (Some(_), None) => {
                return Err(Error::Corrupt(format!(
                    "blob {blob} is kept in a side file, which this store has none of"
                )));
            }
        };
        if let Some(expected) = sum.and_then(|s| u32::try_from(s).ok())
            && checksum(&data) != expected
        {
            return Err(Error::Corrupt(format!(
                "chunk {seq} (bytes {}–{}) does not match its checksum",
                byte_start,
                byte_start + data.len() as u64
            )));
        }
        Ok(data)
    }

    /// Commits an entry with pending content: a side file is flushed first, outside the write
    /// lock, unless the content is there already (a duplicate is never made durable twice).
    pub(super) fn settling<'p>(
        &self,
        stats: &BlobStats,
        blob: &'p mut PendingBlob,
        file: &'p Mutex<Option<TempFile>>,
    ) -> Result<Settling<'p>> {
        if let Pending::File(_) = blob.content {
            let taken = std::mem::replace(&mut blob.content, Pending::Memory(Vec::new()));
            if let Pending::File(mut temp) = taken {
                // Flushed here, outside the lock, unless the commit will likely not keep it: the
                // content is stored, or most of its pieces are (a commit keeping it after all
                // flushes it when naming it).
                if !self.has_blob(&stats.hash)?
                    && !self
                        .read(|c| Ok(mostly_known(&blob.chunks, &known_pieces(c, &blob.chunks)?)))?
                {
                    temp.flush()?;
                }
                if let Ok(mut slot) = file.lock() {
                    *slot = Some(temp);
                }
            }
            return Ok(Settling {
                chunks: &blob.chunks,
                content: SettlingContent::File(file),
            });
        }
        let content = match &blob.content {
            Pending::Memory(data) => SettlingContent::Memory(data),
            Pending::Staged { id, .. } => SettlingContent::Staged(*id),
            Pending::Stored => SettlingContent::Stored,
            Pending::File(_) => unreachable!("taken out above"),
        };
        Ok(Settling {
            chunks: &blob.chunks,
            content,
        })
    }
}
