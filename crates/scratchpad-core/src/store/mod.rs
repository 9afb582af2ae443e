//! The storage boundary: what the engine asks of a store, and nothing more. Business rules (names,
//! previews, readers, references) live above it. [`Scratchpad`](crate::Scratchpad) holds an
//! `Arc<dyn Store>`, so one engine serves either backend chosen by the store URL at run time.
//!
//! Both backends implement it with the same storage rules, written once in `sql` (`SqlStore<B>`);
//! what differs between SQLite and PostgreSQL (SQL spelling, connections, locking, large-content
//! staging) is `sql::Backend`. A new SQL backend implements that trait, not this one.

pub mod folder;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod side;
mod sql;
pub mod sqlite;
pub mod url;

use std::fmt;
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::history::{
    Change, History, HistoryPolicy, Purged, Removal, Removed, RemovedEntry, RemovedHistory,
};
use crate::lease::{Lease, LeaseOp};
use crate::model::{EntryInfo, Kind, Source};
use crate::preview::TextProfile;

/// Largest stored chunk (bytes). Chunks end where their content says (see ingestion's boundaries),
/// usually at a line end, and always on a character boundary of text.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// Inputs of at least this many bytes are hashed before they are stored when content of their exact
/// size is stored already, so that a second copy costs a hash instead of a write (the index
/// `blobs_large_by_size` holds blobs from this size on; the two must agree).
pub const REUSE_MIN_BYTES: u64 = 1024 * 1024;

/// One chunk of a blob, with where it starts in bytes, characters and lines (newlines before it).
#[derive(Clone, PartialEq, Eq)]
pub struct Chunk {
    pub pos: ChunkPos,
    pub data: Vec<u8>,
}

impl Chunk {
    /// A chunk of `data` at `pos`; its length and checksum are computed here.
    pub fn new(seq: u32, byte_start: u64, char_start: u64, line_start: u64, data: Vec<u8>) -> Self {
        Self {
            pos: ChunkPos {
                seq,
                byte_start,
                char_start,
                line_start,
                len: data.len() as u64,
                checksum: Some(checksum(&data)),
                piece: None,
            },
            data,
        }
    }
}

impl fmt::Debug for Chunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chunk").field("pos", &self.pos).finish()
    }
}

/// Where a chunk sits, without its data (the sparse index), and the checksum its data must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPos {
    pub seq: u32,
    pub byte_start: u64,
    pub char_start: u64,
    pub line_start: u64,
    pub len: u64,
    /// CRC-32 of the chunk's data; `None` for chunks written before checksums were kept.
    pub checksum: Option<u32>,
    /// The blake3 hash of the chunk's data, once a writer computed it: the chunks of content that
    /// spans several are stored as pieces, once per hash, shared by every content holding them.
    pub piece: Option<[u8; 32]>,
}

/// The checksum every chunk carries, verified whenever it is read.
pub fn checksum(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// A position to look a chunk up by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locate {
    /// The chunk holding this byte offset.
    Byte(u64),
    /// The chunk holding this character offset.
    Char(u64),
    /// The last chunk that starts after fewer than this many newlines: where the text after the
    /// n-th newline may begin (the start of line n + 1) or the chunk that holds that newline.
    AfterNewlines(u64),
}

/// Facts about a blob's content, gathered while it streamed in and stored with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobStats {
    /// blake3, hex.
    pub hash: String,
    pub bytes: u64,
    pub chars: u64,
    pub lines: u64,
    /// How many chunks hold it, so a read knows where the content ends without asking.
    pub chunks: u32,
    /// The sniffed type of binary content (`image/png`); `None` for text and JSON.
    pub mime: Option<String>,
}

/// Receives a new blob's content, chunk by chunk, before [`Store::commit`] makes it an entry's.
/// Small content stays in memory and is written with its entry in one transaction; large content
/// goes where the backend keeps it (a side file, staging rows) as it arrives. Dropping a writer
/// that was not finished removes what it wrote.
pub trait BlobWriter: Send + fmt::Debug {
    /// Takes the next chunk, in order.
    fn push(&mut self, chunk: Chunk) -> Result<()>;
    /// The content is complete.
    fn finish(self: Box<Self>) -> Result<PendingBlob>;
}

/// Content written but not yet committed: where it is, and the index of its chunks.
#[derive(Debug)]
pub struct PendingBlob {
    pub chunks: Vec<ChunkPos>,
    pub content: Pending,
}

/// Where pending content is.
#[derive(Debug)]
pub enum Pending {
    /// In memory: the data of every chunk, in order.
    Memory(Vec<Vec<u8>>),
    /// In a staging blob of the database; its chunk rows are written. `hold` keeps it marked as its
    /// writer's until the commit is done with it.
    Staged {
        id: i64,
        hold: Box<dyn std::any::Any + Send>,
    },
    /// In a side file, named by its hash when committed; removed if dropped before.
    File(side::TempFile),
    /// Stored already, under the hash of the write's [`BlobStats`] (found by [`Store::reusable`]).
    /// The commit fails if it was collected since; nothing was written to undo.
    Stored,
}

/// What a write of content that is stored already takes instead of reading it: the blob's facts, and
/// the kind, preview and profile of an entry that holds it, made under the same preview key.
#[derive(Debug, Clone, PartialEq)]
pub struct Reusable {
    pub stats: BlobStats,
    pub kind: Kind,
    pub preview: String,
    pub profile: Option<TextProfile>,
}

/// How a name is chosen for a new entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameChoice {
    Given(String),
    /// `<stem>_<n>` with `n` from the session's counter, never reused.
    Auto {
        stem: String,
    },
}

/// When a write may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCondition {
    /// Create, or replace whatever is there.
    Any,
    /// Only if no entry has that name.
    CreateOnly,
    /// Only if the entry exists at this version.
    IfVersion(u64),
}

/// Who makes a change and under which rules: recorded with the change, and checked before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    pub author: Option<String>,
    /// A lease token: the change is refused when a newer token was issued for the entry's name.
    pub lease: Option<u64>,
    /// How many replaced versions the entry keeps, and how long.
    pub history: HistoryPolicy,
}

/// Everything a store needs to commit an entry, except the content.
#[derive(Debug, Clone)]
pub struct EntryWrite {
    pub session: String,
    pub name: NameChoice,
    pub kind: Kind,
    pub preview: String,
    pub source: Source,
    pub meta: serde_json::Value,
    pub turn: Option<String>,
    pub expires_at: Option<i64>,
    pub pinned: bool,
    pub condition: WriteCondition,
    /// Text for full-text search (bounded by the caller).
    pub search_text: String,
    /// What the preview saw of text content.
    pub profile: Option<TextProfile>,
    /// The rules and settings the preview was made with ([`crate::preview::PreviewConfig::key`]):
    /// a later write of the same content under the same key takes this entry's preview.
    pub preview_key: Option<String>,
    pub stats: BlobStats,
    pub now: i64,
    pub writer: Writer,
    /// What this write does to an existing entry (a write that creates one records `Created`).
    pub change: Change,
    /// Whether the entry keeps the versions its changes replace (this one's included).
    pub keeps_history: bool,
    /// Whether the write is a tool's output standing in the context as its preview: the usage
    /// record counts it (see [`UsageEvent`]), in the write's own transaction.
    pub records_usage: bool,
    /// The id of a removed entry this write brings back (with `CreateOnly`): its kept versions
    /// become the new entry's history, its removal is gone, and its id is taken again when free.
    pub restores: Option<String>,
}

/// A stored entry: its metadata and the blob that holds its content.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub info: EntryInfo,
    pub blob: i64,
    /// Chunks of the blob, numbered from 0.
    pub chunks: u32,
}

/// A change to an entry's metadata.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryChange {
    Rename(String),
    Pin(bool),
    ExpiresAt(Option<i64>),
    /// Replaces the caller's metadata (`EntryInfo::meta`), e.g. a command's exit code, known only
    /// once its output is stored.
    Meta(serde_json::Value),
    /// Completes the caller's metadata of the version its writer has just created (a command's exit
    /// code, known only once its output is stored): the same version, nothing added to the history,
    /// so a new entry is at version 1 however its metadata arrived.
    CompleteMeta(serde_json::Value),
}

/// Filters for [`Store::list`]. Every filter narrows; the session always applies.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListFilter {
    pub kind: Option<Kind>,
    pub prefix: Option<String>,
    pub tool: Option<String>,
    pub pinned: Option<bool>,
    pub turn: Option<String>,
    /// Only entries whose current version this author wrote.
    pub author: Option<String>,
}

/// One page of a listing, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    pub entries: Vec<EntryInfo>,
    /// Pass back to get the next page; `None` on the last one.
    pub next_cursor: Option<String>,
    /// Pass back to get the page before this one; `None` on the first one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prev_cursor: Option<String>,
}

/// Where a listing starts: after a row (the next page), or just before one (the previous page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cursor {
    After(i64, i64),
    Before(i64, i64),
}

/// A cursor for the page before the one starting at this row.
const BEFORE: char = '<';

impl Cursor {
    pub(crate) fn parse(cursor: &str) -> Result<Self> {
        let (before, key) = match cursor.strip_prefix(BEFORE) {
            Some(key) => (true, key),
            None => (false, cursor),
        };
        let (updated, row) = key
            .split_once('.')
            .and_then(|(u, r)| Some((u.parse().ok()?, r.parse().ok()?)))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "invalid cursor `{cursor}`; pass a page's next_cursor or prev_cursor unchanged"
                ))
            })?;
        Ok(if before {
            Self::Before(updated, row)
        } else {
            Self::After(updated, row)
        })
    }
}

impl Page {
    /// A page from rows fetched newest first with one row more than `limit` (the `rowid`-like key of
    /// each row alongside): the extra row only says that another page follows. `after_a_page` says
    /// whether a page comes before this one.
    pub(crate) fn from_rows(mut rows: Vec<(i64, Entry)>, limit: usize, after_a_page: bool) -> Self {
        let next_cursor = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(|(key, entry)| key_of(key, entry))
        } else {
            None
        };
        let prev_cursor = match rows.first() {
            Some((key, entry)) if after_a_page => Some(format!("{BEFORE}{}", key_of(key, entry))),
            _ => None,
        };
        Self {
            entries: rows.into_iter().map(|(_, entry)| entry.info).collect(),
            next_cursor,
            prev_cursor,
        }
    }

    /// A page from rows fetched oldest first from just before a later page, with one row more than
    /// `limit`, which says that an earlier page comes before this one.
    pub(crate) fn from_rows_before(mut rows: Vec<(i64, Entry)>, limit: usize) -> Self {
        let earlier = rows.len() > limit;
        rows.truncate(limit);
        rows.reverse();
        // The later page this one was asked from follows it.
        let next_cursor = rows.last().map(|(key, entry)| key_of(key, entry));
        let prev_cursor = match rows.first() {
            Some((key, entry)) if earlier => Some(format!("{BEFORE}{}", key_of(key, entry))),
            _ => None,
        };
        Self {
            entries: rows.into_iter().map(|(_, entry)| entry.info).collect(),
            next_cursor,
            prev_cursor,
        }
    }
}

fn key_of(key: &i64, entry: &Entry) -> String {
    format!("{}.{}", entry.info.updated_at, key)
}

/// A full-text search hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub entry: EntryInfo,
    /// A short excerpt with the matched terms between `«` and `»`.
    pub snippet: String,
}

/// What a session holds of one kind of entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindTotals {
    pub kind: Kind,
    pub entries: u64,
    pub pinned: u64,
    pub bytes: u64,
    /// Bytes of the previews that stand in for these entries.
    pub preview_bytes: u64,
}

/// What a session holds of one kind of entry, and when the session last changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionKindTotals {
    pub session: String,
    pub totals: KindTotals,
    /// The latest change to one of these entries (unix ms).
    pub last_changed: i64,
}

/// What moved between the store and a model's context, as the usage record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageKind {
    /// A tool's output was stored and its preview shown in its place.
    Stored,
    /// Part of an entry was read back.
    Read,
}

impl UsageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stored => "stored",
            Self::Read => "read",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text {
            "stored" => Some(Self::Stored),
            "read" => Some(Self::Read),
            _ => None,
        }
    }
}

/// One line of the usage record: an output stored (its size and its preview's), or a read (the
/// entry's size and what the read returned). Measured when it happened, kept after the entry is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageEvent {
    pub at: i64,
    pub session: String,
    pub name: String,
    /// The tool whose output the entry holds, if any.
    pub tool: Option<String>,
    pub kind: Kind,
    pub event: UsageKind,
    /// The read mode (`grep`, `lines`, …) of a read.
    pub mode: Option<String>,
    /// The whole entry's bytes.
    pub content_bytes: u64,
    /// Bytes that went into the context instead: the preview of a stored output, the reply of a read.
    pub shown_bytes: u64,
}

/// The usage record summed per time bucket, tool, kind and event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageBucket {
    /// Start of the bucket (unix ms, a multiple of the bucket's length).
    pub start: i64,
    pub tool: Option<String>,
    pub kind: Kind,
    pub event: UsageKind,
    pub count: u64,
    pub content_bytes: u64,
    pub shown_bytes: u64,
}

/// Lines of the usage record a store keeps, newest first; a collection pass drops older ones.
pub const USAGE_KEEP_ROWS: i64 = 100_000;

/// Tells when a store changed, so that a view of it can follow what agents write as they write it.
/// A change is anything committed by anyone (entries, leases, the usage record), in any session.
pub trait Watch: Send + fmt::Debug {
    /// Waits up to `timeout` for a change since the last call (or since the watch began); true if
    /// there was one. A connection that was lost and found again counts as a change: what happened
    /// meanwhile is unknown.
    fn wait(&mut self, timeout: std::time::Duration) -> Result<bool>;
}

/// What a collection pass should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcPolicy {
    pub now: i64,
    /// Total stored bytes (after dedup) to get under by evicting unpinned entries, oldest access first.
    pub quota_bytes: Option<u64>,
    /// Staged writes without progress for this long are abandoned (ms).
    pub stale_after_ms: i64,
    /// Give free space back to the file system even when this pass freed little (an explicit
    /// collection). Passes amortized over writes leave small amounts for a later pass.
    pub compact: bool,
}

/// What a check of the whole store found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Contents (blobs) read whole and checked.
    pub blobs: u64,
    pub chunks: u64,
    pub bytes: u64,
    /// Chunks written before checksums were kept: read, but only their hash says they are intact.
    pub chunks_without_checksum: u64,
    /// What is damaged, and which entries it hits.
    pub problems: Vec<CheckProblem>,
    /// Side files no content refers to (a collection pass removes them), and their bytes.
    pub unreferenced_files: u64,
    pub unreferenced_bytes: u64,
    /// What the store did not make in its own folders (a symbolic link, a folder where a file
    /// belongs, a name it never gives), each with its path: never followed, written or removed.
    pub unexpected: Vec<String>,
}

/// One damaged content and the entries that show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckProblem {
    pub what: String,
    /// `(session, name)` of every entry (and kept version) whose content this is.
    pub entries: Vec<(String, String)>,
}

/// What a collection pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GcReport {
    pub expired: u64,
    pub evicted: u64,
    pub blobs_removed: u64,
    pub stale_writes_removed: u64,
    /// Replaced versions dropped for being past the history's count or age.
    pub versions_removed: u64,
    /// Removed entries dropped for being past their retention, or for the quota.
    pub removed_purged: u64,
    pub bytes_freed: u64,
    /// Bytes of the store on disk before and after (0 where the backend cannot tell).
    pub disk_bytes_before: u64,
    pub disk_bytes_after: u64,
    /// What the store did not make in its own folders, each with its path: left alone (see
    /// [`CheckReport::unexpected`]).
    pub unexpected: Vec<String>,
}

/// A storage backend. Small and storage-shaped: every method is one atomic step, and none of them
/// decides what a reader is told (suggestions, token estimates and messages live above it). Times
/// are the caller's clock, passed in; only staging and leases are timed by the store's own clock, so
/// that hosts whose clocks disagree agree on which abandoned writes to collect and who holds a lease.
pub trait Store: Send + Sync + fmt::Debug {
    /// Starts receiving a blob's content. What it writes is invisible until [`Store::commit`], and
    /// removed as soon as its writer is gone (dropped, or its process dead).
    fn begin_blob(&self) -> Result<Box<dyn BlobWriter + '_>>;
    /// Atomically stores the content (deduplicated by hash) and creates or replaces the entry.
    fn commit(&self, write: &EntryWrite, blob: PendingBlob) -> Result<Entry>;
    /// Whether content of exactly `bytes` bytes is stored (asked of large inputs only: the index
    /// behind it holds blobs of [`REUSE_MIN_BYTES`] or more). Only then is an input worth hashing
    /// before it is stored.
    fn holds_size(&self, bytes: u64) -> Result<bool>;
    /// The content with this hash, if stored, with an entry's preview made under `preview_key`.
    fn reusable(&self, hash: &str, preview_key: &str) -> Result<Option<Reusable>>;
    /// Looks an entry up by name, then by id, within the session. Expired entries are not found.
    fn entry(&self, session: &str, key: &str, now: i64) -> Result<Option<Entry>>;
    /// Records a read (for LRU eviction).
    fn touch(&self, session: &str, name: &str, now: i64) -> Result<()>;
    /// Applies a metadata change, bumping the version; `None` when no live entry has that key.
    fn update(
        &self,
        session: &str,
        key: &str,
        if_version: Option<u64>,
        writer: &Writer,
        change: &EntryChange,
        now: i64,
    ) -> Result<Option<EntryInfo>>;
    /// Removes an entry: its name is free at once. As `removal` says, its versions (the current one
    /// included) stay restorable, or it is deleted with them and their blobs are freed when nothing
    /// else points at them. `None` when there is no such entry.
    fn delete(
        &self,
        session: &str,
        key: &str,
        if_version: Option<u64>,
        writer: &Writer,
        removal: Removal,
        now: i64,
    ) -> Result<Option<Removed>>;
    /// The session's removed entries whose versions are kept, most recently removed first.
    fn removed(&self, session: &str, limit: usize) -> Result<Vec<RemovedEntry>>;
    /// The most recent removal of a name (or the removal of the entry with this id), with its
    /// versions; `None` when there is none.
    fn removed_history(&self, session: &str, key: &str) -> Result<Option<RemovedHistory>>;
    /// One version of a removed entry (its last one: `None`), as an entry whose info describes
    /// that version, with the removal it belongs to.
    fn removed_version(
        &self,
        session: &str,
        key: &str,
        version: Option<u64>,
    ) -> Result<Option<(RemovedEntry, Entry)>>;
    /// Deletes the kept versions of every removal of a name (or the one of this id) and frees
    /// their content.
    fn purge_removed(&self, session: &str, key: &str) -> Result<Purged>;
    /// Removes every entry tagged with this turn; returns how many.
    fn delete_turn(&self, session: &str, turn: &str) -> Result<u64>;
    /// The chunk that holds a position, `None` past the end.
    fn locate(&self, blob: i64, at: Locate) -> Result<Option<ChunkPos>>;
    /// One chunk's data, verified against its checksum.
    fn chunk(&self, blob: i64, seq: u32) -> Result<Vec<u8>>;
    /// Chunks `seqs` in order, each verified: one round trip where the store is remote.
    fn chunks(&self, blob: i64, seqs: RangeInclusive<u32>) -> Result<Vec<Vec<u8>>> {
        seqs.map(|seq| self.chunk(blob, seq)).collect()
    }
    /// Entries of a session, newest first.
    fn list(
        &self,
        session: &str,
        filter: &ListFilter,
        cursor: Option<&str>,
        limit: usize,
        now: i64,
    ) -> Result<Page>;
    /// Names of the session's live entries, most recently changed first.
    fn recent_names(&self, session: &str, limit: usize, now: i64) -> Result<Vec<String>>;
    /// Ranked full-text search within a session (every session: `None`): entries with all `words`
    /// first, else any of them.
    fn search(
        &self,
        session: Option<&str>,
        words: &[&str],
        limit: usize,
        now: i64,
    ) -> Result<Vec<SearchHit>>;
    /// What the session's live entries hold, per kind.
    fn totals(&self, session: &str, now: i64) -> Result<Vec<KindTotals>>;
    /// What every session's live entries hold, per session and kind.
    fn session_totals(&self, now: i64) -> Result<Vec<SessionKindTotals>>;
    /// Appends a line to the usage record (reads; stored outputs are recorded by their commit).
    fn record_usage(&self, event: &UsageEvent) -> Result<()>;
    /// The usage record of one session (every session: `None`), summed per bucket of `bucket_ms`,
    /// tool, kind and event, oldest first.
    fn usage(&self, session: Option<&str>, bucket_ms: i64) -> Result<Vec<UsageBucket>>;
    /// The times of the oldest and newest lines of the usage record, if any.
    fn usage_span(&self, session: Option<&str>) -> Result<Option<(i64, i64)>>;
    /// Starts watching the store for changes.
    fn watch(&self) -> Result<Box<dyn Watch>>;
    /// Total bytes of unique content stored (what the quota counts).
    fn stored_bytes(&self) -> Result<u64>;
    /// When the last collection pass finished (ms), if ever.
    fn last_gc_at(&self) -> Result<Option<i64>>;
    /// Expires, evicts and frees space.
    fn gc(&self, policy: &GcPolicy) -> Result<GcReport>;
    /// Reads every stored content whole and checks it against its checksums, index and hash.
    /// `progress` hears the bytes checked so far.
    fn check(&self, progress: &mut dyn FnMut(u64)) -> Result<CheckReport>;
    /// In a child process made by fork(2), lets go of the connections inherited from the parent,
    /// so that the next calls open the child's own. Only idle connections can be let go: no call
    /// may have been in progress, on any thread, when the process forked.
    fn after_fork(&self);

    // Teams of agents: leases and history. Lease times are the store's own clock.

    /// Acquires, renews or releases the lease on a name, atomically.
    fn lease(&self, session: &str, name: &str, op: LeaseOp<'_>) -> Result<Lease>;
    /// The lease on a name, if it was ever acquired.
    fn lease_info(&self, session: &str, name: &str) -> Result<Option<Lease>>;
    /// Every lease row of a session (held, lapsed or released), by name.
    fn leases(&self, session: &str) -> Result<Vec<Lease>>;
    /// A live entry's current and kept versions, newest first; `None` when there is no such entry.
    fn history(&self, session: &str, key: &str, now: i64) -> Result<Option<History>>;
    /// One version of a live entry, current or kept, as an entry whose info describes that
    /// version; `None` when the entry or the version is not there.
    fn version(&self, session: &str, key: &str, version: u64, now: i64) -> Result<Option<Entry>>;
    /// Drops kept versions past the policy's count or age, store-wide; returns how many, and the
    /// bytes of content that went with them.
    fn prune_history(&self, policy: &HistoryPolicy, now: i64) -> Result<(u64, u64)>;
}
