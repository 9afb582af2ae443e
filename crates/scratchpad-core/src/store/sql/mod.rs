//! The storage rules, written once over a small backend trait: a connection that runs SQL, a
//! dialect that spells what differs, and the backend's own connection and retry handling. The
//! SQLite and PostgreSQL backends keep only what really differs (SQL spellings, types, full-text
//! search, connections, retries, disk figures); every rule about entries, blobs, names, versions,
//! expiry, listing, search and collection lives here.
//!
//! SQL is written with numbered placeholders (`?1`); a backend that spells them otherwise rewrites
//! them. In every statement that judges liveness, `?1` is the caller's clock (see [`live!`]).

use std::fmt;
use std::ops::RangeInclusive;

use super::{
    BlobWriter, ChunkPos, Cursor, Entry, EntryChange, EntryWrite, GcPolicy, GcReport, KindTotals,
    ListFilter, Locate, Page, PendingBlob, Reusable, SearchHit, SessionKindTotals, Store,
    UsageBucket, UsageEvent, UsageKind, Watch, Writer,
};
use crate::error::{ConflictKind, Error, Result};
use crate::history::{
    Change, History, HistoryPolicy, Purged, Removal, Removed, RemovedEntry, RemovedHistory,
    VersionInfo,
};
use crate::lease::{Lease, LeaseOp};
use crate::model::{EntryInfo, Kind, Source};

mod change;
mod check;
mod collect;
mod commit;
mod content;
mod history;
mod listing;
mod removed;
mod search;
mod totals;
use content::ContentWriter;
use history::{
    Dropped, change_lease, check_lease, drop_versions, find_lease, release_blobs, version_from_row,
};
use search::{escape_like, index_pending, quoted_words, search_pending, unindex_search};

/// The columns an [`Entry`] is read from, in the order [`entry_from_row`] expects, for
/// `FROM entries e JOIN blobs b ON b.id = e.blob`.
macro_rules! entry_columns {
    () => {
        "e.rowid, e.session, e.name, e.id, e.kind, e.blob, e.bytes, e.chars, e.lines, e.hash, \
         e.preview, e.source, e.meta, e.turn, e.created_at, e.updated_at, e.accessed_at, \
         e.expires_at, e.pinned, e.version, b.chunks, b.mime, e.profile, e.author"
    };
}
pub(crate) use entry_columns;

/// Entries joined with what a read needs of their blob.
macro_rules! select_entries {
    () => {
        concat!(
            "SELECT ",
            $crate::store::sql::entry_columns!(),
            " FROM entries e JOIN blobs b ON b.id = e.blob"
        )
    };
}
pub(crate) use select_entries;

/// Entries visible at `?1` (the caller's now): unexpired, or pinned.
macro_rules! live {
    () => {
        "(e.expires_at IS NULL OR e.expires_at > ?1 OR e.pinned)"
    };
}
pub(crate) use live;

/// A value bound to a placeholder.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(i64),
    OptInt(Option<i64>),
    Text(&'a str),
    OptText(Option<&'a str>),
    Bool(bool),
    Bytes(&'a [u8]),
}

impl Param<'_> {
    fn count(n: u64) -> Self {
        Self::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

/// One result row, read by column position.
pub trait Row {
    fn int(&self, column: usize) -> Result<i64, Fail>;
    fn opt_int(&self, column: usize) -> Result<Option<i64>, Fail>;
    fn text(&self, column: usize) -> Result<String, Fail>;
    fn opt_text(&self, column: usize) -> Result<Option<String>, Fail>;
    fn flag(&self, column: usize) -> Result<bool, Fail>;
    fn bytes(&self, column: usize) -> Result<Vec<u8>, Fail>;

    /// A count or size, which the schema keeps non-negative.
    fn count(&self, column: usize) -> Result<u64, Fail> {
        Ok(u64::try_from(self.int(column)?).unwrap_or(0))
    }
}

/// A connection (or the transaction open on it) that runs SQL.
pub trait Conn {
    /// Runs a statement; returns the rows it changed.
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail>;
    /// Runs a query, handing each row to `each`.
    fn query(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&dyn Row) -> Result<(), Fail>,
    ) -> Result<(), Fail>;
    /// Runs several statements without parameters (migrations).
    fn batch(&mut self, sql: &str) -> Result<(), Fail>;
}

impl dyn Conn + '_ {
    /// Every row, mapped.
    pub fn rows<T>(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        mut map: impl FnMut(&dyn Row) -> Result<T, Fail>,
    ) -> Result<Vec<T>, Fail> {
        let mut out = Vec::new();
        self.query(sql, params, &mut |row| {
            out.push(map(row)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The first row, mapped, if any.
    pub fn first<T>(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        map: impl FnOnce(&dyn Row) -> Result<T, Fail>,
    ) -> Result<Option<T>, Fail> {
        let mut map = Some(map);
        let mut out = None;
        self.query(sql, params, &mut |row| {
            if let Some(map) = map.take() {
                out = Some(map(row)?);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The one row a statement always returns (an aggregate, `RETURNING`).
    pub fn one<T>(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        map: impl FnOnce(&dyn Row) -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        self.first(sql, params, map)?
            .ok_or_else(|| Fail::App(Error::Storage(format!("no row from `{sql}`"))))
    }
}

/// Why a step failed: the database (a backend decides whether to run it again) or the engine.
#[derive(Debug)]
pub enum Fail {
    Db(DbError),
    App(Error),
}

impl From<Error> for Fail {
    fn from(err: Error) -> Self {
        Self::App(err)
    }
}

/// A database error, described and classified by the backend that met it.
#[derive(Debug)]
pub struct DbError {
    /// What failed, in the server's words, never with a password in it.
    pub message: String,
    /// The connection is gone; the server rolled back what had not committed.
    pub lost: bool,
    /// Another transaction got in the way (deadlock, serialization); running again is safe.
    pub transient: bool,
    /// The disk (or quota) is full.
    pub full: bool,
}

/// How a transaction failed.
#[derive(Debug)]
pub enum TxError {
    /// It did not happen.
    Failed(Error),
    /// The connection broke during `COMMIT`: it may have happened.
    Unsure(Error),
}

/// How a backend spells what differs between SQL dialects.
#[derive(Debug)]
pub struct Dialect {
    /// Appended to a `SELECT` of plain rows to lock them until the transaction ends.
    pub lock: &'static str,
    /// Appended to a `SELECT` from `entries e JOIN blobs b` to lock the entry rows.
    pub lock_entries: &'static str,
    /// Appended to a `SELECT` to lock its rows, skipping rows another transaction holds.
    pub lock_skip_locked: &'static str,
    /// The store's own clock in milliseconds, as an SQL expression.
    pub now_ms: &'static str,
    /// Case-insensitive `LIKE`.
    pub ilike: &'static str,
    /// Serialises writers of one name (`?1` session, `?2` name) until the transaction ends, where
    /// no row lock can (a name being created); `None` where every write holds the store's lock.
    pub lock_name: Option<&'static str>,
    /// Serialises writers of one content (`?1` its hash) until the transaction ends, so that the
    /// second finds the first's blob instead of storing it again; `None` where every write holds
    /// the store's lock.
    pub lock_content: Option<&'static str>,
    /// Serialises collection passes; `None` where every write holds the store's lock.
    pub lock_gc: Option<&'static str>,
    /// Serialises migrations of processes that start together.
    pub lock_migrations: Option<&'static str>,
    /// Append-only schema migrations, named by the UTC time they were written.
    pub migrations: &'static [(i64, &'static str)],
    pub search: SearchSql,
    /// Marks the staging blob `?1` as its writer's for as long as the writer's held connection
    /// lives (see [`Backend::hold`]); `None` where nothing is staged in the database.
    pub lock_staging: Option<&'static str>,
    /// True for a staging blob `b` whose writer is gone (its mark is free); `FALSE` where only
    /// age tells.
    pub staging_abandoned: &'static str,
}

/// The full-text index, which each backend builds its own way.
#[derive(Debug)]
pub struct SearchSql {
    /// Moves every row of `search_pending` into the index, in one transaction; run in order.
    pub index_pending: &'static [&'static str],
    /// The text a row of `search_pending p` stands for, with `e` its entry: its body, or, where
    /// that is NULL, the entry's only chunk as text.
    pub pending_body: &'static str,
    /// Re-indexes a renamed entry: `?1` key, `?2` name words.
    pub rename: &'static str,
    /// Drops an entry's index row: `?1` key.
    pub unindex: &'static str,
    /// Ranked hits with a snippet as the last column: `?1` now, `?2` the query, `?3` session (NULL: every session), `?4` limit.
    pub query: &'static str,
    /// Joins quoted words so that any of them matches (all of them: a space).
    pub any_word: &'static str,
}

/// What a backend provides: connections, transactions with its own retry rules, and disk figures.
pub trait Backend: Send + Sync + fmt::Debug + 'static {
    const DIALECT: Dialect;
    /// Runs `f` on a connection outside a transaction: a read, or a write harmless to repeat.
    fn read<T>(&self, f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>) -> Result<T>;
    /// Runs `f` as one transaction holding the write locks it takes. `idempotent`: running it twice
    /// is harmless, so a commit with an unknown outcome may simply run again.
    fn transaction<T>(
        &self,
        idempotent: bool,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T, TxError>;
    /// Lets go of the idle connections inherited by a child process (see [`Store::after_fork`]).
    fn after_fork(&self);
    /// Bytes the store takes on disk; 0 where the backend cannot tell.
    fn disk_bytes(&self) -> u64;
    /// Gives space back after a collection pass (best effort); `report` says what the pass freed,
    /// `compact` whether to give back even a little (see [`GcPolicy::compact`]).
    fn reclaim_space(&self, report: &GcReport, compact: bool);
    /// Content larger than this (bytes) goes where the backend keeps large content as it arrives;
    /// smaller content is committed with its entry in one transaction.
    const SPILL_BYTES: usize;
    /// Where this backend keeps large content outside its tables, if it does (SQLite: side files).
    fn side_files(&self) -> Option<&super::side::SideFiles> {
        None
    }
    /// A connection kept for one writer's staging, whose session marks the staging as alive.
    type Held: Send + fmt::Debug + 'static;
    fn hold(&self) -> Result<Self::Held>;
    /// Runs `f` as one idempotent transaction on the held connection. A connection that was lost
    /// is replaced, and the mark on `staged` (the writer's staging blob, once there is one) taken
    /// again before `f` runs again.
    fn with_held<T>(
        &self,
        held: &mut Self::Held,
        staged: Option<i64>,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T>;
    /// Makes room for a write that frees space, on a full disk: gives up the space the backend set
    /// aside for this, and whatever else it can. False when it could do nothing.
    fn make_room(&self) -> bool {
        false
    }
    /// Sets that space aside again, if it can (best effort).
    fn restore_reserve(&self) {}
    /// What the backend found in its own files that it did not make (a link in place of its
    /// reserve file, …), each with its path, left alone. Side files report theirs separately.
    fn unexpected_files(&self) -> Vec<String> {
        Vec::new()
    }
    /// Starts watching the store for committed changes (see [`Watch`]).
    fn watch(&self) -> Result<Box<dyn Watch>>;
}

/// A store: the storage rules over a backend.
#[derive(Debug)]
pub struct SqlStore<B> {
    pub backend: B,
}

impl<B: Backend> SqlStore<B> {
    /// Wraps a backend and brings its schema up to date.
    pub fn with_backend(backend: B) -> Result<Self> {
        let store = Self { backend };
        store.migrate()?;
        Ok(store)
    }

    fn dialect(&self) -> &'static Dialect {
        &B::DIALECT
    }

    fn write<T>(&self, mut f: impl FnMut(&mut dyn Conn) -> Result<T, Fail>) -> Result<T> {
        self.backend.transaction(false, &mut f).map_err(|err| match err {
            TxError::Failed(err) => err,
            TxError::Unsure(err) => Error::Storage(format!(
                "{err} (the connection broke while committing, so the change may or may not have been \
                 applied: look at the entry before repeating it)"
            )),
        })
    }

    fn read<T>(&self, mut f: impl FnMut(&mut dyn Conn) -> Result<T, Fail>) -> Result<T> {
        self.backend.read(&mut f)
    }

    fn migrate(&self) -> Result<()> {
        let migrations = self.dialect().migrations;
        let latest = migrations.last().map_or(0, |m| m.0);
        // Most opens find the schema current: look without taking any lock. A store without the
        // table yet fails this look, which is the same as "not current".
        let current = self
            .read(|c| {
                c.first("SELECT MAX(version) FROM schema_migrations", &[], |r| {
                    r.opt_int(0)
                })
            })
            .ok()
            .flatten()
            .flatten();
        if current == Some(latest) {
            return Ok(());
        }
        self.write(|c| {
            if let Some(lock) = self.dialect().lock_migrations {
                c.execute(lock, &[])?;
            }
            c.batch(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
            )?;
            // Another process may have migrated while we waited for the lock: look again.
            let current = c.one("SELECT MAX(version) FROM schema_migrations", &[], |r| {
                r.opt_int(0)
            })?;
            if let Some(current) = current.filter(|&c| c > latest) {
                return Err(Fail::App(Error::Config(format!(
                    "this store was written by a newer scratchpad (schema {current}, this binary knows up \
                     to {latest}); upgrade scratchpad to use it"
                ))));
            }
            for (version, sql) in migrations {
                if current.is_some_and(|c| c >= *version) {
                    continue;
                }
                c.batch(sql)?;
                c.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
                    &[Param::Int(*version), Param::Int(crate::model::now_ms())],
                )?;
            }
            Ok(())
        })
    }
}

/// Reads the columns of [`entry_columns!`]; a row the engine cannot make sense of is an error.
fn entry_from_row(row: &dyn Row) -> Result<(i64, Entry), Fail> {
    let corrupt = |what: &str, detail: String| {
        Fail::App(Error::Storage(format!(
            "entry row {} has {what} ({detail}); the store is damaged: run `scratchpad gc`, and remove \
             the entry if the message stays",
            row.int(0).unwrap_or(-1)
        )))
    };
    let kind = row.text(4)?;
    let kind = Kind::parse(&kind).map_err(|_| corrupt("an unknown kind", kind.clone()))?;
    let source: Source = serde_json::from_str(&row.text(11)?)
        .map_err(|e| corrupt("an unreadable source", e.to_string()))?;
    let meta = serde_json::from_str(&row.text(12)?)
        .map_err(|e| corrupt("unreadable metadata", e.to_string()))?;
    let info = EntryInfo {
        session: row.text(1)?,
        name: row.text(2)?,
        id: row.text(3)?,
        kind,
        bytes: row.count(6)?,
        chars: row.count(7)?,
        lines: row.count(8)?,
        hash: row.text(9)?,
        preview: row.text(10)?,
        source,
        meta,
        turn: row.opt_text(13)?,
        created_at: row.int(14)?,
        updated_at: row.int(15)?,
        accessed_at: row.int(16)?,
        expires_at: row.opt_int(17)?,
        pinned: row.flag(18)?,
        version: row.count(19)?,
        mime: row.opt_text(21)?,
        profile: match row.opt_text(22)? {
            Some(json) => Some(
                serde_json::from_str(&json)
                    .map_err(|e| corrupt("an unreadable profile", e.to_string()))?,
            ),
            None => None,
        },
        author: row.opt_text(23)?,
    };
    let chunks = u32::try_from(row.int(20)?).map_err(|_| {
        corrupt(
            "an impossible chunk count",
            row.int(20).unwrap_or(0).to_string(),
        )
    })?;
    Ok((
        row.int(0)?,
        Entry {
            info,
            blob: row.int(5)?,
            chunks,
        },
    ))
}

/// A live entry by id, then by name; `lock` holds its row until the transaction ends.
fn find_live(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    key: &str,
    now: i64,
    lock: bool,
) -> Result<Option<(i64, Entry)>, Fail> {
    let sql = format!(
        concat!(
            select_entries!(),
            " WHERE e.session = ?2 AND (e.name = ?3 OR e.id = ?3) AND ",
            live!(),
            // An id is random and nobody picks it: a name that happens to equal one never shadows
            // the entry it belongs to.
            " ORDER BY CASE WHEN e.id = ?3 THEN 0 ELSE 1 END LIMIT 1{}"
        ),
        if lock { dialect.lock_entries } else { "" }
    );
    c.first(
        &sql,
        &[Param::Int(now), Param::Text(session), Param::Text(key)],
        entry_from_row,
    )
}

/// An entry by exact name whether or not it expired (writes replace expired entries), locked.
fn find_named(
    c: &mut dyn Conn,
    dialect: &Dialect,
    session: &str,
    name: &str,
) -> Result<Option<(i64, Entry)>, Fail> {
    let sql = format!(
        concat!(select_entries!(), " WHERE e.session = ?1 AND e.name = ?2{}"),
        dialect.lock_entries
    );
    c.first(
        &sql,
        &[Param::Text(session), Param::Text(name)],
        entry_from_row,
    )
}

/// Refuses a name that is another entry's id in the session: reading by it would give that entry.
fn refuse_id_name(c: &mut dyn Conn, session: &str, name: &str) -> Result<(), Fail> {
    if !crate::model::looks_like_id(name) {
        return Ok(());
    }
    let taken = c.first(
        "SELECT e.name FROM entries e WHERE e.session = ?1 AND e.id = ?2 AND e.name <> ?2",
        &[Param::Text(session), Param::Text(name)],
        |r| r.text(0),
    )?;
    match taken {
        Some(owner) => Err(Fail::App(Error::invalid(format!(
            "`{name}` is the id of the entry `{owner}`, so it cannot name another entry (reading it \
             would give `{owner}`); choose another name"
        )))),
        None => Ok(()),
    }
}

/// Serialises writers of one name until the transaction ends, where the dialect needs it.
fn lock_name(c: &mut dyn Conn, dialect: &Dialect, session: &str, name: &str) -> Result<(), Fail> {
    if let Some(sql) = dialect.lock_name {
        c.execute(sql, &[Param::Text(session), Param::Text(name)])?;
    }
    Ok(())
}

fn check_version(entry: &Entry, if_version: Option<u64>) -> Result<(), Fail> {
    match if_version {
        Some(expected) if expected != entry.info.version => {
            Err(Fail::App(Error::Conflict(ConflictKind::Version {
                name: entry.info.name.clone(),
                expected,
                current: Some(entry.info.version),
            })))
        }
        _ => Ok(()),
    }
}

/// Deletes an entry with its kept versions and frees the content nothing else points at; returns
/// the bytes freed.
pub(super) fn delete_row(
    c: &mut dyn Conn,
    dialect: &Dialect,
    key: i64,
    blob: i64,
) -> Result<u64, Fail> {
    let mut dropped = Dropped::default();
    remove_row(c, dialect, key, blob, &mut dropped)?;
    dropped.release(c, dialect)
}

/// Deletes an entry with its kept versions; their content is released with `dropped`.
fn remove_row(
    c: &mut dyn Conn,
    dialect: &Dialect,
    key: i64,
    blob: i64,
    dropped: &mut Dropped,
) -> Result<(), Fail> {
    dropped.0.extend(drop_versions(c, key)?);
    unindex_search(c, dialect, key)?;
    c.execute("DELETE FROM entries WHERE rowid = ?1", &[Param::Int(key)])?;
    dropped.push(blob);
    Ok(())
}

/// Text the store can keep: text columns cannot hold NUL, which text entries never contain anyway.
fn storable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', ""))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

fn entry_by_key(c: &mut dyn Conn, key: i64) -> Result<Entry, Fail> {
    c.one(
        concat!(select_entries!(), " WHERE e.rowid = ?1"),
        &[Param::Int(key)],
        entry_from_row,
    )
    .map(|(_, entry)| entry)
}

/// Appends a line to the usage record.
fn record_usage(c: &mut dyn Conn, event: &UsageEvent) -> Result<(), Fail> {
    c.execute(
        "INSERT INTO usage (at, session, name, tool, kind, event, mode, content_bytes, shown_bytes) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        &[
            Param::Int(event.at),
            Param::Text(&event.session),
            Param::Text(&event.name),
            Param::OptText(event.tool.as_deref()),
            Param::Text(event.kind.as_str()),
            Param::Text(event.event.as_str()),
            Param::OptText(event.mode.as_deref()),
            Param::count(event.content_bytes),
            Param::count(event.shown_bytes),
        ],
    )?;
    Ok(())
}

/// A kind read back from a row; anything else means the store is damaged.
fn kind_column(row: &dyn Row, column: usize) -> Result<Kind, Fail> {
    let kind = row.text(column)?;
    Kind::parse(&kind).map_err(|_| {
        Fail::App(Error::Storage(format!(
            "entries of an unknown kind `{kind}`; the store is damaged"
        )))
    })
}

impl<B: Backend> Store for SqlStore<B> {
    fn begin_blob(&self) -> Result<Box<dyn BlobWriter + '_>> {
        Ok(Box::new(ContentWriter::new(self)))
    }

    fn commit(&self, write: &EntryWrite, blob: PendingBlob) -> Result<Entry> {
        self.commit_write(write, blob)
    }

    fn holds_size(&self, bytes: u64) -> Result<bool> {
        SqlStore::holds_size(self, bytes)
    }

    fn reusable(&self, hash: &str, preview_key: &str) -> Result<Option<Reusable>> {
        SqlStore::reusable(self, hash, preview_key)
    }

    fn entry(&self, session: &str, key: &str, now: i64) -> Result<Option<Entry>> {
        self.read(|c| {
            Ok(find_live(c, self.dialect(), session, key, now, false)?.map(|(_, entry)| entry))
        })
    }

    fn touch(&self, session: &str, name: &str, now: i64) -> Result<()> {
        // Never moves back in time, so running it twice (or late) is harmless.
        self.read(|c| {
            c.execute(
                "UPDATE entries SET accessed_at = ?3 WHERE session = ?1 AND name = ?2 AND accessed_at < ?3",
                &[Param::Text(session), Param::Text(name), Param::Int(now)],
            )?;
            Ok(())
        })
    }

    fn update(
        &self,
        session: &str,
        key: &str,
        if_version: Option<u64>,
        writer: &Writer,
        change: &EntryChange,
        now: i64,
    ) -> Result<Option<EntryInfo>> {
        self.update_entry(session, key, if_version, writer, change, now)
    }

    fn delete(
        &self,
        session: &str,
        key: &str,
        if_version: Option<u64>,
        writer: &Writer,
        removal: Removal,
        now: i64,
    ) -> Result<Option<Removed>> {
        self.remove(session, key, if_version, writer, removal, now)
    }

    fn removed(&self, session: &str, limit: usize) -> Result<Vec<RemovedEntry>> {
        self.list_removed(session, limit)
    }

    fn removed_history(&self, session: &str, key: &str) -> Result<Option<RemovedHistory>> {
        self.removed_history_of(session, key)
    }

    fn removed_version(
        &self,
        session: &str,
        key: &str,
        version: Option<u64>,
    ) -> Result<Option<(RemovedEntry, Entry)>> {
        self.removed_version_of(session, key, version)
    }

    fn purge_removed(&self, session: &str, key: &str) -> Result<Purged> {
        self.purge(session, key)
    }

    fn delete_turn(&self, session: &str, turn: &str) -> Result<u64> {
        let dialect = self.dialect();
        let sql = format!(
            "SELECT rowid, blob FROM entries WHERE session = ?1 AND turn = ?2{}",
            dialect.lock
        );
        let deleted = self.freeing(|c| {
            let rows = c.rows(&sql, &[Param::Text(session), Param::Text(turn)], |r| {
                Ok((r.int(0)?, r.int(1)?))
            })?;
            for (row, blob) in &rows {
                delete_row(c, dialect, *row, *blob)?;
            }
            Ok(rows.len() as u64)
        })?;
        self.after_freeing();
        Ok(deleted)
    }

    fn locate(&self, blob: i64, at: Locate) -> Result<Option<ChunkPos>> {
        self.locate_chunk(blob, at)
    }

    fn chunk(&self, blob: i64, seq: u32) -> Result<Vec<u8>> {
        self.read_chunk(blob, seq)
    }

    fn chunks(&self, blob: i64, seqs: RangeInclusive<u32>) -> Result<Vec<Vec<u8>>> {
        self.read_chunks(blob, seqs)
    }

    fn list(
        &self,
        session: &str,
        filter: &ListFilter,
        cursor: Option<&str>,
        limit: usize,
        now: i64,
    ) -> Result<Page> {
        self.list_entries(session, filter, cursor, limit, now)
    }

    fn recent_names(&self, session: &str, limit: usize, now: i64) -> Result<Vec<String>> {
        self.recent_entry_names(session, limit, now)
    }

    fn search(
        &self,
        session: Option<&str>,
        words: &[&str],
        limit: usize,
        now: i64,
    ) -> Result<Vec<SearchHit>> {
        let dialect = self.dialect();
        let search = &dialect.search;
        let waiting = self.read(|c| {
            c.first("SELECT entry FROM search_pending LIMIT 1", &[], |r| {
                r.int(0)
            })
        })?;
        // What waits for the index goes in first. Where it cannot (a store opened read-only, a
        // full disk), the waiting rows are matched word by word instead.
        let unindexed = waiting.is_some()
            && self
                .write(&mut |c: &mut dyn Conn| index_pending(c, dialect))
                .is_err();
        let limit = limit.clamp(1, 100);
        self.read(|c| {
            // Waiting entries that hold every word first (the newest), then the index's hits.
            let mut hits = if unindexed {
                search_pending(c, dialect, session, words, Param::count(limit as u64), now)?
            } else {
                Vec::new()
            };
            let limit = Param::count((limit - hits.len()) as u64);
            for joiner in [" ", search.any_word] {
                let query = quoted_words(words, joiner);
                let found = c.rows(
                    search.query,
                    &[
                        Param::Int(now),
                        Param::Text(&query),
                        Param::OptText(session),
                        limit,
                    ],
                    |r| {
                        let (_, entry) = entry_from_row(r)?;
                        Ok(SearchHit {
                            entry: entry.info,
                            snippet: r.text(24)?,
                        })
                    },
                )?;
                if !found.is_empty() {
                    hits.extend(found);
                    break;
                }
            }
            Ok(hits)
        })
    }

    fn totals(&self, session: &str, now: i64) -> Result<Vec<KindTotals>> {
        self.kind_totals_of(session, now)
    }

    fn session_totals(&self, now: i64) -> Result<Vec<SessionKindTotals>> {
        self.session_kind_totals(now)
    }

    fn record_usage(&self, event: &UsageEvent) -> Result<()> {
        // One statement, committed on its own: a read is not made to wait for the write lock of a
        // transaction, and running it twice after a lost connection only counts a read twice.
        self.read(|c| record_usage(c, event))
    }

    fn usage(&self, session: Option<&str>, bucket_ms: i64) -> Result<Vec<UsageBucket>> {
        self.usage_buckets(session, bucket_ms)
    }

    fn usage_span(&self, session: Option<&str>) -> Result<Option<(i64, i64)>> {
        self.usage_time_span(session)
    }

    fn watch(&self) -> Result<Box<dyn Watch>> {
        self.backend.watch()
    }

    fn stored_bytes(&self) -> Result<u64> {
        self.read(|c| {
            c.one(
                "SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM blobs",
                &[],
                |r| r.count(0),
            )
        })
    }

    fn last_gc_at(&self) -> Result<Option<i64>> {
        self.read(|c| {
            let value = c.first(
                "SELECT value FROM store_meta WHERE key = 'last_gc_at'",
                &[],
                |r| r.text(0),
            )?;
            Ok(value.and_then(|v| v.parse().ok()))
        })
    }

    fn gc(&self, policy: &GcPolicy) -> Result<GcReport> {
        self.collect(policy)
    }

    fn check(&self, progress: &mut dyn FnMut(u64)) -> Result<super::CheckReport> {
        self.check_all(progress)
    }

    fn after_fork(&self) {
        self.backend.after_fork();
    }

    fn lease(&self, session: &str, name: &str, op: LeaseOp<'_>) -> Result<Lease> {
        let dialect = self.dialect();
        self.write(|c| change_lease(c, dialect, session, name, op))
    }

    fn lease_info(&self, session: &str, name: &str) -> Result<Option<Lease>> {
        let dialect = self.dialect();
        self.read(|c| find_lease(c, dialect, session, name, false))
    }

    fn leases(&self, session: &str) -> Result<Vec<Lease>> {
        let sql = format!(
            "SELECT name, holder, token, acquired_at, expires_at, released_at, {} FROM leases \
             WHERE session = ?1 \
             ORDER BY name",
            self.dialect().now_ms
        );
        self.read(|c| c.rows(&sql, &[Param::Text(session)], history::lease_from_row))
    }

    fn history(&self, session: &str, key: &str, now: i64) -> Result<Option<History>> {
        let dialect = self.dialect();
        self.read(|c| {
            let Some((row, entry)) = find_live(c, dialect, session, key, now, false)? else {
                return Ok(None);
            };
            let (summary, keeps_history) = c.one(
                "SELECT summary, keeps_history FROM entries WHERE rowid = ?1",
                &[Param::Int(row)],
                |r| Ok((r.opt_text(0)?, r.flag(1)?)),
            )?;
            let info = &entry.info;
            let mut versions = vec![VersionInfo {
                version: info.version,
                kind: info.kind,
                bytes: info.bytes,
                chars: info.chars,
                lines: info.lines,
                hash: info.hash.clone(),
                author: info.author.clone(),
                written_at: info.updated_at,
                change: summary.and_then(|json| serde_json::from_str(&json).ok()),
            }];
            versions.extend(c.rows(
                "SELECT version, kind, bytes, chars, lines, hash, author, summary, written_at FROM versions \
                 WHERE entry = ?1 ORDER BY version DESC",
                &[Param::Int(row)],
                version_from_row,
            )?);
            Ok(Some(History {
                entry: entry.info,
                versions,
                keeps_history,
            }))
        })
    }

    fn version(&self, session: &str, key: &str, version: u64, now: i64) -> Result<Option<Entry>> {
        let dialect = self.dialect();
        self.read(|c| {
            let Some((row, entry)) = find_live(c, dialect, session, key, now, false)? else {
                return Ok(None);
            };
            if entry.info.version == version {
                return Ok(Some(entry));
            }
            c.first(
                "SELECT v.version, v.kind, v.bytes, v.chars, v.lines, v.hash, v.author, v.summary, \
                 v.written_at, v.blob, b.chunks, b.mime FROM versions v JOIN blobs b ON b.id = v.blob \
                 WHERE v.entry = ?1 AND v.version = ?2",
                &[Param::Int(row), Param::count(version)],
                |r| {
                    let kept = version_from_row(r)?;
                    Ok(Entry {
                        blob: r.int(9)?,
                        chunks: u32::try_from(r.int(10)?).unwrap_or(0),
                        info: EntryInfo {
                            kind: kept.kind,
                            bytes: kept.bytes,
                            chars: kept.chars,
                            lines: kept.lines,
                            hash: kept.hash,
                            // Previews describe the current content only.
                            preview: String::new(),
                            updated_at: kept.written_at,
                            version: kept.version,
                            mime: r.opt_text(11)?,
                            profile: None,
                            author: kept.author,
                            ..entry.info.clone()
                        },
                    })
                },
            )
        })
    }

    fn prune_history(&self, policy: &HistoryPolicy, now: i64) -> Result<(u64, u64)> {
        let dialect = self.dialect();
        let pruned = self.freeing(|c| {
            if let Some(lock) = dialect.lock_gc {
                c.execute(lock, &[])?;
            }
            let mut dropped = Vec::new();
            if let Some(age) = policy.max_age_ms {
                dropped.extend(c.rows(
                    "DELETE FROM versions WHERE replaced_at < ?1 RETURNING blob",
                    &[Param::Int(now.saturating_sub(age))],
                    |r| r.int(0),
                )?);
            }
            dropped.extend(c.rows(
                "DELETE FROM versions WHERE (entry, version) IN (SELECT entry, version FROM \
                 (SELECT entry, version, ROW_NUMBER() OVER (PARTITION BY entry ORDER BY version DESC) AS n \
                 FROM versions) ranked WHERE n > ?1) RETURNING blob",
                &[Param::Int(i64::from(policy.versions))],
                |r| r.int(0),
            )?);
            let count = dropped.len() as u64;
            Ok((count, release_blobs(c, dialect, dropped)?))
        })?;
        self.after_freeing();
        Ok(pruned)
    }
}
