//! The shared backend: one PostgreSQL database that agents on several machines use at once.
//!
//! Same behaviour as the SQLite store, with the concurrency made explicit, because writers no
//! longer queue behind one file lock:
//! - every write is one transaction; rows it changes are locked (`FOR UPDATE`), a name being
//!   created is guarded by a transaction-scoped advisory lock on (session, name), so two writers
//!   with `if_version` serialise and the second sees the first's version;
//! - content is deduplicated by hash; a blob is only freed after locking its row and looking again
//!   for entries that point at it, so a writer that is reusing it on another host keeps it;
//! - a large write stages chunks in their own transactions; the staging blob's `touched_at` comes
//!   from the server's clock, and a collection pass removes only staging untouched for an hour by
//!   that one clock, so GC on one host never removes a write in progress on another;
//! - migrations run under `pg_advisory_xact_lock`, so processes that start together take turns.
//!
//! A lost connection is retried where that is safe: reads, chunk staging (idempotent), and any
//! transaction that failed before its `COMMIT` was sent (the server rolled it back). A connection
//! lost during `COMMIT` leaves the outcome unknown: the entry is looked up by its fingerprint
//! (session, content hash, write time) and the write is run again only if it is not there.

mod pool;

use std::fmt;
use std::str::FromStr;

use postgres::types::ToSql;
use postgres::{GenericClient, Row, Transaction};

use self::pool::{Conn, Fail, Pool, is_connection_lost, is_transient_conflict};
use super::{
    BlobStats, Chunk, ChunkPos, Entry, EntryChange, EntryWrite, GcPolicy, GcReport, ListFilter,
    Locate, NameChoice, Page, PendingBlob, SearchHit, SessionStats, Store, WriteCondition,
};
use crate::error::{ConflictKind, Error, Result};
use crate::model::{EntryInfo, Kind, Source, estimate_tokens, new_id};

/// Append-only migrations, named by the UTC time they were written.
const MIGRATIONS: &[(i64, &str)] = &[(
    20261122000000,
    include_str!("../../migrations/postgres/20261122000000_initial.sql"),
)];

/// How many times a transaction runs when it keeps losing its connection or a deadlock.
const MAX_ATTEMPTS: usize = 6;

/// The server's clock in milliseconds: the one clock every host agrees on.
const SERVER_NOW_MS: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

const ENTRY_COLUMNS: &str = "row_id, session, name, id, kind, blob, bytes, chars, lines, hash, preview, \
     source, meta, turn, created_at, updated_at, accessed_at, expires_at, pinned, version";

/// Tables of one store, for its size on disk.
const TABLES: &str = "'sessions', 'blobs', 'chunks', 'entries', 'entry_search', 'store_meta'";

/// A PostgreSQL store. `Debug` shows where it points, never the password.
pub struct PostgresStore {
    pool: Pool,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("target", &self.pool.target())
            .finish()
    }
}

/// Entries that are visible at `$n` (the caller's now): unexpired, or pinned.
fn live(n: usize) -> String {
    format!("(expires_at IS NULL OR expires_at > ${n} OR pinned)")
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn to_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// PostgreSQL text cannot hold NUL; text entries never contain one, but be sure.
fn pg_text(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('\0') {
        std::borrow::Cow::Owned(s.replace('\0', ""))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

impl PostgresStore {
    /// Connects to the database a `postgres://` URL names and brings its schema up to date.
    pub fn open(url: &str) -> Result<Self> {
        let config = postgres::Config::from_str(url).map_err(|e| {
            // The parser names the bad option, never its value; say so without echoing the URL.
            Error::Config(format!(
                "invalid PostgreSQL URL: {e}{}; use postgres://USER:PASSWORD@HOST:PORT/DATABASE",
                std::error::Error::source(&e)
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default()
            ))
        })?;
        let store = Self {
            pool: Pool::new(config, url),
        };
        let mut conn = store.pool.get().map_err(|e| match e {
            Error::Storage(msg) => Error::Config(msg),
            other => other,
        })?;
        store.migrate(&mut conn)?;
        drop(conn);
        Ok(store)
    }

    /// Where the store points (`user@host:port/database`), safe to show.
    pub fn target(&self) -> &str {
        self.pool.target()
    }

    fn storage_error(&self, err: &postgres::Error) -> Error {
        if is_connection_lost(err) {
            Error::Storage(format!(
                "lost the connection to PostgreSQL at {}: {}; nothing was half-written, run the command again \
                 once the server is reachable",
                self.pool.target(),
                self.pool.describe(err)
            ))
        } else {
            Error::Storage(self.pool.describe(err))
        }
    }

    fn finish(&self, fail: Fail) -> Error {
        match fail {
            Fail::Db(err) => self.storage_error(&err),
            Fail::App(err) => err,
        }
    }

    fn migrate(&self, conn: &mut Conn<'_>) -> Result<()> {
        let latest = MIGRATIONS.last().map_or(0, |m| m.0);
        // Most opens find the schema current: look without taking the lock.
        let current: Option<i64> = conn
            .query_opt("SELECT MAX(version) FROM schema_migrations", &[])
            .ok()
            .flatten()
            .and_then(|row| row.try_get(0).ok());
        if current == Some(latest) {
            return Ok(());
        }
        let result = (|| -> std::result::Result<(), Fail> {
            let mut tx = conn.transaction()?;
            // Two processes starting at once: the second waits here, then finds the work done.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('scratchpad.migrate:' || COALESCE(current_schema(), ''), 0))",
                &[],
            )?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
            )?;
            let current: Option<i64> = tx
                .query_one("SELECT MAX(version) FROM schema_migrations", &[])?
                .try_get(0)?;
            if let Some(current) = current.filter(|&c| c > latest) {
                return Err(Fail::App(Error::Config(format!(
                    "this store was written by a newer scratchpad (schema {current}, this binary knows up to {latest}); \
                     upgrade scratchpad to use it"
                ))));
            }
            for (version, sql) in MIGRATIONS {
                if current.is_some_and(|c| c >= *version) {
                    continue;
                }
                tx.batch_execute(sql)?;
                tx.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                    &[version, &crate::model::now_ms()],
                )?;
            }
            tx.commit()?;
            Ok(())
        })();
        result.map_err(|fail| match fail {
            Fail::Db(err) => Error::Config(format!(
                "cannot prepare the PostgreSQL store at {}: {}; the user needs the right to create tables \
                 in the database (or in the schema its search_path names)",
                self.pool.target(),
                self.pool.describe(&err)
            )),
            Fail::App(err) => err,
        })
    }

    /// Runs a read (or an idempotent write) on a pooled connection, again on a fresh one if the
    /// connection was lost.
    fn read<T>(
        &self,
        mut f: impl FnMut(&mut Conn<'_>) -> std::result::Result<T, Fail>,
    ) -> Result<T> {
        let mut attempt = 1;
        loop {
            let mut conn = self.pool.get()?;
            match f(&mut conn) {
                Ok(value) => return Ok(value),
                Err(Fail::Db(err)) if is_connection_lost(&err) && attempt < MAX_ATTEMPTS => {
                    conn.mark_broken();
                    drop(conn);
                    self.pool.drain_idle();
                    attempt += 1;
                }
                Err(fail) => {
                    if let Fail::Db(err) = &fail
                        && is_connection_lost(err)
                    {
                        conn.mark_broken();
                    }
                    return Err(self.finish(fail));
                }
            }
        }
    }

    /// Runs `f` in a transaction. It runs again when the connection was lost before `COMMIT` was
    /// sent or the server broke a deadlock; a connection lost during `COMMIT` is `Unsure`, unless
    /// `idempotent` says running it twice is harmless.
    fn write_tx<T>(
        &self,
        idempotent: bool,
        mut f: impl FnMut(&mut Transaction<'_>) -> std::result::Result<T, Fail>,
    ) -> std::result::Result<T, TxError> {
        let mut attempt = 1;
        loop {
            let mut conn = self.pool.get().map_err(TxError::Failed)?;
            let outcome = (|| {
                let mut tx = conn.transaction().map_err(|e| (false, Fail::Db(e)))?;
                let value = f(&mut tx).map_err(|e| (false, e))?;
                tx.commit().map_err(|e| (true, Fail::Db(e)))?;
                Ok(value)
            })();
            let (at_commit, fail) = match outcome {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            let Fail::Db(err) = fail else {
                return Err(TxError::Failed(self.finish(fail)));
            };
            let lost = is_connection_lost(&err);
            if lost {
                conn.mark_broken();
                drop(conn);
                self.pool.drain_idle();
            }
            let again = attempt < MAX_ATTEMPTS;
            if lost && at_commit && !idempotent {
                return Err(TxError::Unsure(self.storage_error(&err)));
            }
            if again && (lost || is_transient_conflict(&err)) {
                attempt += 1;
                continue;
            }
            return Err(TxError::Failed(self.storage_error(&err)));
        }
    }

    fn write<T>(
        &self,
        f: impl FnMut(&mut Transaction<'_>) -> std::result::Result<T, Fail>,
    ) -> Result<T> {
        self.write_tx(false, f).map_err(|e| match e {
            TxError::Failed(err) => err,
            TxError::Unsure(err) => Error::Storage(format!(
                "{err} (the connection broke while committing, so the change may or may not have been applied: \
                 look at the entry before repeating it)"
            )),
        })
    }

    /// After a commit whose outcome is unknown: the entry this write would have produced, if it
    /// is there. Its fingerprint is the session, the content hash and the write's own timestamp.
    fn find_committed(&self, write: &EntryWrite) -> Result<Option<Entry>> {
        let name = match &write.name {
            NameChoice::Given(name) => Some(name.clone()),
            NameChoice::Auto { .. } => None,
        };
        self.read(|c| {
            let sql = format!(
                "SELECT {ENTRY_COLUMNS} FROM entries WHERE session = $1 AND hash = $2 AND updated_at = $3 \
                 AND ($4::text IS NULL OR name = $4) ORDER BY row_id DESC LIMIT 1"
            );
            let row = c.query_opt(
                &sql,
                &[&write.session, &write.stats.hash, &write.now, &name],
            )?;
            Ok(row.map(|r| entry_from_row(&r)).transpose()?.map(|(_, e)| e))
        })
    }

    fn disk_bytes(&self) -> u64 {
        let sql = format!(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN ({TABLES})"
        );
        self.read(|c| Ok(c.query_one(&sql, &[])?.try_get::<_, i64>(0)?))
            .map_or(0, to_u64)
    }
}

/// How a transaction failed.
enum TxError {
    /// It did not happen.
    Failed(Error),
    /// The connection broke during `COMMIT`: it may have happened.
    Unsure(Error),
}

fn entry_from_row(row: &Row) -> std::result::Result<(i64, Entry), postgres::Error> {
    let kind: String = row.try_get("kind")?;
    let source: String = row.try_get("source")?;
    let meta: String = row.try_get("meta")?;
    let info = EntryInfo {
        session: row.try_get("session")?,
        name: row.try_get("name")?,
        id: row.try_get("id")?,
        kind: Kind::parse(&kind).unwrap_or(Kind::Binary),
        bytes: to_u64(row.try_get("bytes")?),
        chars: to_u64(row.try_get("chars")?),
        lines: to_u64(row.try_get("lines")?),
        hash: row.try_get("hash")?,
        preview: row.try_get("preview")?,
        source: serde_json::from_str::<Source>(&source).unwrap_or_default(),
        meta: serde_json::from_str(&meta).unwrap_or(serde_json::Value::Null),
        turn: row.try_get("turn")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        accessed_at: row.try_get("accessed_at")?,
        expires_at: row.try_get("expires_at")?,
        pinned: row.try_get("pinned")?,
        version: to_u64(row.try_get("version")?),
    };
    Ok((
        row.try_get("row_id")?,
        Entry {
            info,
            blob: row.try_get("blob")?,
        },
    ))
}

/// Finds a live entry by name, then by id; `lock` holds its row until the transaction ends.
fn find(
    c: &mut impl GenericClient,
    session: &str,
    key: &str,
    now: i64,
    lock: bool,
) -> std::result::Result<Option<(i64, Entry)>, Fail> {
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM entries WHERE session = $1 AND (name = $2 OR id = $2) AND {} \
         ORDER BY (name = $2) DESC LIMIT 1{}",
        live(3),
        if lock { " FOR UPDATE" } else { "" }
    );
    let row = c.query_opt(&sql, &[&session, &key, &now])?;
    Ok(row.map(|r| entry_from_row(&r)).transpose()?)
}

/// Finds an entry by exact name whether or not it expired (writes replace expired entries), locked.
fn find_any(
    c: &mut impl GenericClient,
    session: &str,
    name: &str,
) -> std::result::Result<Option<(i64, Entry)>, Fail> {
    let sql =
        format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE session = $1 AND name = $2 FOR UPDATE");
    let row = c.query_opt(&sql, &[&session, &name])?;
    Ok(row.map(|r| entry_from_row(&r)).transpose()?)
}

/// Serialises writers of one name across hosts until the transaction ends (also for names that do
/// not exist yet, which no row lock can cover).
fn lock_name(
    c: &mut impl GenericClient,
    session: &str,
    name: &str,
) -> std::result::Result<(), Fail> {
    c.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))",
        &[&session, &name],
    )?;
    Ok(())
}

fn not_found(c: &mut impl GenericClient, session: &str, key: &str, now: i64) -> Fail {
    let names = similar(c, session, key, 5, now).unwrap_or_default();
    Fail::App(crate::error::not_found(session, key, &names))
}

fn similar(
    c: &mut impl GenericClient,
    session: &str,
    key: &str,
    limit: usize,
    now: i64,
) -> std::result::Result<Vec<String>, Fail> {
    let sql = format!(
        "SELECT name FROM entries WHERE session = $1 AND {} ORDER BY updated_at DESC LIMIT 2000",
        live(2)
    );
    let names = c
        .query(&sql, &[&session, &now])?
        .iter()
        .map(|r| r.try_get::<_, String>(0))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(crate::error::closest_names(key, names, limit))
}

fn check_version(entry: &Entry, if_version: Option<u64>) -> std::result::Result<(), Fail> {
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

/// Deletes a blob when no entry points at it any more; returns the bytes freed. The row lock comes
/// first and the look for entries after it, in a statement of its own: a writer on another host
/// that is reusing this blob either finished (its entry is seen) or has not started (it will not
/// find the blob and writes the content anew).
fn release_blob(tx: &mut Transaction<'_>, blob: i64) -> std::result::Result<u64, Fail> {
    if tx
        .query_opt("SELECT 1 FROM blobs WHERE id = $1 FOR UPDATE", &[&blob])?
        .is_none()
    {
        return Ok(0);
    }
    let freed = tx.query_opt(
        "DELETE FROM blobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM entries WHERE blob = $1) RETURNING bytes",
        &[&blob],
    )?;
    Ok(match freed {
        Some(row) => to_u64(row.try_get(0)?),
        None => 0,
    })
}

fn delete_row(tx: &mut Transaction<'_>, row_id: i64, blob: i64) -> std::result::Result<u64, Fail> {
    // entry_search goes with it (ON DELETE CASCADE).
    tx.execute("DELETE FROM entries WHERE row_id = $1", &[&row_id])?;
    release_blob(tx, blob)
}

/// Writes chunks; a chunk already there (a retried write whose first try did commit) is kept.
fn insert_chunks(
    tx: &mut Transaction<'_>,
    blob: i64,
    chunks: &[Chunk],
) -> std::result::Result<(), Fail> {
    if chunks.is_empty() {
        return Ok(());
    }
    let stmt = tx.prepare(
        "INSERT INTO chunks (blob, seq, byte_start, char_start, line_start, data) VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (blob, seq) DO NOTHING",
    )?;
    for c in chunks {
        tx.execute(
            &stmt,
            &[
                &blob,
                &i64::from(c.seq),
                &to_i64(c.byte_start),
                &to_i64(c.char_start),
                &to_i64(c.line_start),
                &c.data,
            ],
        )?;
    }
    Ok(())
}

fn abandoned() -> Fail {
    Fail::App(Error::Storage(
        "this write was idle so long that it was collected as abandoned; run it again".into(),
    ))
}

/// Refreshes a staging blob so no collection pass takes it; fails if one already did.
fn keep_staged(tx: &mut Transaction<'_>, staged: i64) -> std::result::Result<(), Fail> {
    let alive = tx.execute(
        &format!("UPDATE blobs SET touched_at = {SERVER_NOW_MS} WHERE id = $1 AND state = 0"),
        &[&staged],
    )?;
    if alive == 0 {
        return Err(abandoned());
    }
    Ok(())
}

fn new_staged(tx: &mut Transaction<'_>) -> std::result::Result<i64, Fail> {
    let row = tx.query_one(
        &format!("INSERT INTO blobs (state, touched_at) VALUES (0, {SERVER_NOW_MS}) RETURNING id"),
        &[],
    )?;
    Ok(row.try_get(0)?)
}

/// Stores the content once: reuses a blob with the same hash, else completes the staged one or writes a new one.
fn settle_blob(
    tx: &mut Transaction<'_>,
    stats: &BlobStats,
    pending: &PendingBlob,
) -> std::result::Result<i64, Fail> {
    // Locks the blob: a concurrent release waits for this transaction and then sees our entry.
    let existing = tx.query_opt(
        &format!(
            "UPDATE blobs SET touched_at = {SERVER_NOW_MS} WHERE hash = $1 AND state = 1 RETURNING id"
        ),
        &[&stats.hash],
    )?;
    if let Some(row) = existing {
        if let Some(staged) = pending.staged {
            tx.execute("DELETE FROM blobs WHERE id = $1 AND state = 0", &[&staged])?;
        }
        return Ok(row.try_get(0)?);
    }
    let id = match pending.staged {
        Some(staged) => {
            keep_staged(tx, staged)?;
            staged
        }
        None => new_staged(tx)?,
    };
    insert_chunks(tx, id, &pending.buffered)?;
    tx.execute(
        &format!(
            "UPDATE blobs SET hash = $2, bytes = $3, chars = $4, lines = $5, state = 1, touched_at = {SERVER_NOW_MS} \
             WHERE id = $1"
        ),
        &[
            &id,
            &stats.hash,
            &to_i64(stats.bytes),
            &to_i64(stats.chars),
            &to_i64(stats.lines),
        ],
    )?;
    Ok(id)
}

fn next_auto_name(
    tx: &mut Transaction<'_>,
    session: &str,
    stem: &str,
) -> std::result::Result<String, Fail> {
    loop {
        // The upsert locks the session's counter row until commit: automatic names never repeat.
        let seq: i64 = tx
            .query_one(
                "INSERT INTO sessions (name, next_seq) VALUES ($1, 2) \
                 ON CONFLICT (name) DO UPDATE SET next_seq = sessions.next_seq + 1 RETURNING next_seq - 1",
                &[&session],
            )?
            .try_get(0)?;
        let name = format!("{stem}_{seq}");
        lock_name(tx, session, &name)?;
        if find_any(tx, session, &name)?.is_none() {
            return Ok(name);
        }
    }
}

/// Words of a name, for search: `read_file_7` is found by "read" and "file".
fn name_words(name: &str) -> String {
    name.replace(['_', '-', '.'], " ")
}

/// The search document: name words weigh A, content B.
const SEARCH_DOC: &str =
    "setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', $3), 'B')";

fn index_search(
    tx: &mut Transaction<'_>,
    row_id: i64,
    name: &str,
    body: &str,
) -> std::result::Result<(), Fail> {
    tx.execute(
        &format!(
            "INSERT INTO entry_search (entry, body, doc) VALUES ($1, $3, {SEARCH_DOC}) \
             ON CONFLICT (entry) DO UPDATE SET body = excluded.body, doc = excluded.doc"
        ),
        &[&row_id, &name_words(name), &pg_text(body).as_ref()],
    )?;
    Ok(())
}

fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Free text as the words of a `websearch_to_tsquery`, so user punctuation is never syntax.
fn search_terms(query: &str) -> Vec<&str> {
    query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|t| !t.is_empty())
        .collect()
}

fn commit_entry(
    tx: &mut Transaction<'_>,
    write: &EntryWrite,
    blob: &PendingBlob,
) -> std::result::Result<Entry, Fail> {
    let now = write.now;
    let (name, existing) = match &write.name {
        NameChoice::Auto { stem } => (next_auto_name(tx, &write.session, stem)?, None),
        NameChoice::Given(name) => {
            lock_name(tx, &write.session, name)?;
            let mut existing = find_any(tx, &write.session, name)?;
            // An expired entry is gone for every purpose but disk space.
            if let Some((row_id, entry)) = existing
                .take_if(|(_, e)| !e.info.pinned && e.info.expires_at.is_some_and(|t| t <= now))
            {
                delete_row(tx, row_id, entry.blob)?;
            }
            (name.clone(), existing)
        }
    };
    match (write.condition, &existing) {
        (WriteCondition::Any, _) | (WriteCondition::CreateOnly, None) => {}
        (WriteCondition::CreateOnly, Some((_, e))) => {
            return Err(Fail::App(Error::Conflict(ConflictKind::Exists {
                name: name.clone(),
                version: e.info.version,
            })));
        }
        (WriteCondition::IfVersion(v), Some((_, e))) => check_version(e, Some(v))?,
        (WriteCondition::IfVersion(v), None) => {
            return Err(Fail::App(Error::Conflict(ConflictKind::Version {
                name: name.clone(),
                expected: v,
                current: None,
            })));
        }
    }
    let blob_id = settle_blob(tx, &write.stats, blob)?;
    let source = serde_json::to_string(&write.source).unwrap_or_else(|_| "{}".into());
    let meta = serde_json::to_string(&write.meta).unwrap_or_else(|_| "null".into());
    let preview = pg_text(&write.preview);
    let bytes = to_i64(write.stats.bytes);
    let chars = to_i64(write.stats.chars);
    let lines = to_i64(write.stats.lines);
    let row = match &existing {
        Some((row_id, old)) => {
            let row = tx.query_one(
                &format!(
                    "UPDATE entries SET kind = $2, blob = $3, bytes = $4, chars = $5, lines = $6, hash = $7, \
                     preview = $8, tool = $9, source = $10, meta = $11, turn = $12, updated_at = $13, \
                     accessed_at = $13, expires_at = $14, pinned = $15, version = version + 1 WHERE row_id = $1 \
                     RETURNING {ENTRY_COLUMNS}"
                ),
                &[
                    row_id,
                    &write.kind.as_str(),
                    &blob_id,
                    &bytes,
                    &chars,
                    &lines,
                    &write.stats.hash,
                    &preview.as_ref(),
                    &write.source.tool,
                    &source,
                    &meta,
                    &write.turn,
                    &now,
                    &write.expires_at,
                    &write.pinned,
                ],
            )?;
            if old.blob != blob_id {
                release_blob(tx, old.blob)?;
            }
            row
        }
        None => tx.query_one(
            &format!(
                "INSERT INTO entries (session, name, id, kind, blob, bytes, chars, lines, hash, preview, tool, \
                 source, meta, turn, created_at, updated_at, accessed_at, expires_at, pinned, version) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $15, $16, $17, 1) \
                 RETURNING {ENTRY_COLUMNS}"
            ),
            &[
                &write.session,
                &name,
                &new_id(),
                &write.kind.as_str(),
                &blob_id,
                &bytes,
                &chars,
                &lines,
                &write.stats.hash,
                &preview.as_ref(),
                &write.source.tool,
                &source,
                &meta,
                &write.turn,
                &now,
                &write.expires_at,
                &write.pinned,
            ],
        )?,
    };
    let (row_id, entry) = entry_from_row(&row)?;
    index_search(tx, row_id, &name, &write.search_text)?;
    Ok(entry)
}

impl Store for PostgresStore {
    fn stage_chunks(&self, staged: &mut Option<i64>, chunks: &[Chunk]) -> Result<()> {
        let current = *staged;
        // Idempotent: chunks already written are kept, so a retry after a lost COMMIT is harmless.
        let id = self
            .write_tx(true, |tx| {
                let id = match current {
                    Some(id) => {
                        keep_staged(tx, id)?;
                        id
                    }
                    None => new_staged(tx)?,
                };
                insert_chunks(tx, id, chunks)?;
                Ok(id)
            })
            .map_err(|e| match e {
                TxError::Failed(err) | TxError::Unsure(err) => err,
            })?;
        *staged = Some(id);
        Ok(())
    }

    fn discard_staged(&self, staged: i64) -> Result<()> {
        self.write(|tx| {
            tx.execute("DELETE FROM blobs WHERE id = $1 AND state = 0", &[&staged])?;
            Ok(())
        })
    }

    fn commit(&self, write: &EntryWrite, blob: PendingBlob) -> Result<Entry> {
        let mut result = self.write_tx(false, |tx| commit_entry(tx, write, &blob));
        if let Err(TxError::Unsure(err)) = &result {
            // Was it applied? The fingerprint says; if it was not, running it again is safe,
            // because the transaction checks its condition again.
            result = match self.find_committed(write) {
                Ok(Some(entry)) => Ok(entry),
                Ok(None) => self.write_tx(false, |tx| commit_entry(tx, write, &blob)),
                Err(_) => Err(TxError::Failed(Error::Storage(format!(
                    "{err} (the connection broke while committing and the server could not be asked \
                     whether the write was applied: look for the entry before writing it again)"
                )))),
            };
        }
        let result = result.map_err(|e| match e {
            TxError::Failed(err) => err,
            TxError::Unsure(err) => Error::Storage(format!(
                "{err} (the connection broke while committing, so the entry may or may not have been saved: \
                 look for it before writing it again)"
            )),
        });
        if let (Err(_), Some(staged)) = (&result, blob.staged) {
            // Best effort (a no-op if the write did land): GC removes it later if this fails too.
            let _ = self.discard_staged(staged);
        }
        result
    }

    fn entry(&self, session: &str, key: &str, now: i64) -> Result<Option<Entry>> {
        self.read(|c| Ok(find(&mut **c, session, key, now, false)?.map(|(_, e)| e)))
    }

    fn touch(&self, session: &str, name: &str, now: i64) -> Result<()> {
        // Idempotent, so a lost connection is simply retried.
        self.read(|c| {
            c.execute(
                "UPDATE entries SET accessed_at = GREATEST(accessed_at, $3) WHERE session = $1 AND name = $2",
                &[&session, &name, &now],
            )?;
            Ok(())
        })
    }

    fn update(
        &self,
        session: &str,
        name: &str,
        if_version: Option<u64>,
        change: &EntryChange,
        now: i64,
    ) -> Result<EntryInfo> {
        self.write(|tx| {
            let Some((row_id, entry)) = find(tx, session, name, now, true)? else {
                return Err(not_found(tx, session, name, now));
            };
            check_version(&entry, if_version)?;
            match change {
                EntryChange::Rename(new_name) => {
                    lock_name(tx, session, new_name)?;
                    // Renaming onto itself is refused too, as an existing name.
                    if let Some((other_row, other)) = find_any(tx, session, new_name)? {
                        let expired =
                            !other.info.pinned && other.info.expires_at.is_some_and(|t| t <= now);
                        if !expired {
                            return Err(Fail::App(Error::Conflict(ConflictKind::Exists {
                                name: new_name.clone(),
                                version: other.info.version,
                            })));
                        }
                        delete_row(tx, other_row, other.blob)?;
                    }
                    // A renamed offload becomes a note: it no longer expires.
                    tx.execute(
                        "UPDATE entries SET name = $2, expires_at = NULL WHERE row_id = $1",
                        &[&row_id, new_name],
                    )?;
                    tx.execute(
                        "UPDATE entry_search SET doc = setweight(to_tsvector('simple', $2), 'A') \
                         || setweight(to_tsvector('simple', body), 'B') WHERE entry = $1",
                        &[&row_id, &name_words(new_name)],
                    )?;
                }
                EntryChange::Pin(pinned) => {
                    tx.execute(
                        "UPDATE entries SET pinned = $2 WHERE row_id = $1",
                        &[&row_id, pinned],
                    )?;
                }
                EntryChange::ExpiresAt(at) => {
                    tx.execute(
                        "UPDATE entries SET expires_at = $2 WHERE row_id = $1",
                        &[&row_id, at],
                    )?;
                }
            }
            let row = tx.query_one(
                &format!(
                    "UPDATE entries SET version = version + 1, updated_at = $2 WHERE row_id = $1 \
                     RETURNING {ENTRY_COLUMNS}"
                ),
                &[&row_id, &now],
            )?;
            Ok(entry_from_row(&row)?.1.info)
        })
    }

    fn delete(&self, session: &str, name: &str, if_version: Option<u64>) -> Result<EntryInfo> {
        let now = crate::model::now_ms();
        self.write(|tx| {
            let Some((row_id, entry)) = find(tx, session, name, now, true)? else {
                return Err(not_found(tx, session, name, now));
            };
            check_version(&entry, if_version)?;
            delete_row(tx, row_id, entry.blob)?;
            Ok(entry.info)
        })
    }

    fn delete_turn(&self, session: &str, turn: &str) -> Result<u64> {
        self.write(|tx| {
            let rows = tx.query(
                "SELECT row_id, blob FROM entries WHERE session = $1 AND turn = $2 FOR UPDATE",
                &[&session, &turn],
            )?;
            for row in &rows {
                delete_row(tx, row.try_get(0)?, row.try_get(1)?)?;
            }
            Ok(rows.len() as u64)
        })
    }

    fn locate(&self, blob: i64, at: Locate) -> Result<Option<ChunkPos>> {
        let (sql, value) = match at {
            Locate::Byte(b) => (
                "SELECT seq, byte_start, char_start, line_start, octet_length(data)::bigint FROM chunks \
                 WHERE blob = $1 AND byte_start <= $2 ORDER BY byte_start DESC LIMIT 1",
                b,
            ),
            Locate::Char(c) => (
                "SELECT seq, byte_start, char_start, line_start, octet_length(data)::bigint FROM chunks \
                 WHERE blob = $1 AND char_start <= $2 ORDER BY char_start DESC LIMIT 1",
                c,
            ),
            Locate::AfterNewlines(n) => (
                "SELECT seq, byte_start, char_start, line_start, octet_length(data)::bigint FROM chunks \
                 WHERE blob = $1 AND line_start < $2 ORDER BY line_start DESC, seq DESC LIMIT 1",
                n,
            ),
        };
        let value = to_i64(value);
        self.read(|c| {
            let Some(row) = c.query_opt(sql, &[&blob, &value])? else {
                return Ok(None);
            };
            Ok(Some(ChunkPos {
                seq: u32::try_from(row.try_get::<_, i64>(0)?).unwrap_or(u32::MAX),
                byte_start: to_u64(row.try_get(1)?),
                char_start: to_u64(row.try_get(2)?),
                line_start: to_u64(row.try_get(3)?),
                len: to_u64(row.try_get(4)?),
            }))
        })
    }

    fn chunk(&self, blob: i64, seq: u32) -> Result<Vec<u8>> {
        let seq = i64::from(seq);
        self.read(|c| {
            let row = c.query_opt(
                "SELECT data FROM chunks WHERE blob = $1 AND seq = $2",
                &[&blob, &seq],
            )?;
            match row {
                Some(row) => Ok(row.try_get(0)?),
                None => Err(Fail::App(Error::Raced(format!("blob {blob}")))),
            }
        })
    }

    fn list(
        &self,
        session: &str,
        filter: &ListFilter,
        cursor: Option<&str>,
        limit: usize,
        now: i64,
    ) -> Result<Page> {
        let limit = limit.clamp(1, 1000);
        let mut params: Vec<Box<dyn ToSql + Sync>> =
            vec![Box::new(session.to_owned()), Box::new(now)];
        let mut sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM entries WHERE session = $1 AND {}",
            live(2)
        );
        if let Some(c) = cursor {
            let (updated, row_id) = parse_cursor(c)?;
            params.push(Box::new(updated));
            params.push(Box::new(row_id));
            let n = params.len();
            sql.push_str(&format!(" AND (updated_at, row_id) < (${}, ${n})", n - 1));
        }
        let mut add = |sql: &mut String, clause: &str, value: Box<dyn ToSql + Sync>| {
            params.push(value);
            sql.push_str(&clause.replace("$?", &format!("${}", params.len())));
        };
        if let Some(kind) = filter.kind {
            add(
                &mut sql,
                " AND kind = $?",
                Box::new(kind.as_str().to_owned()),
            );
        }
        if let Some(prefix) = &filter.prefix {
            // ILIKE: prefixes match regardless of case, as SQLite's LIKE does.
            add(
                &mut sql,
                " AND name ILIKE $? ESCAPE '\\'",
                Box::new(format!("{}%", escape_like(prefix))),
            );
        }
        if let Some(tool) = &filter.tool {
            add(&mut sql, " AND tool = $?", Box::new(tool.clone()));
        }
        if let Some(pinned) = filter.pinned {
            add(&mut sql, " AND pinned = $?", Box::new(pinned));
        }
        if let Some(turn) = &filter.turn {
            add(&mut sql, " AND turn = $?", Box::new(turn.clone()));
        }
        add(
            &mut sql,
            " ORDER BY updated_at DESC, row_id DESC LIMIT $?",
            Box::new((limit + 1) as i64),
        );
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
        self.read(|c| {
            let rows = c
                .query(&sql, &refs)?
                .iter()
                .map(entry_from_row)
                .collect::<std::result::Result<Vec<_>, _>>()?;
            Ok(Page::from_rows(rows, limit))
        })
    }

    fn similar_names(
        &self,
        session: &str,
        name: &str,
        limit: usize,
        now: i64,
    ) -> Result<Vec<String>> {
        self.read(|c| similar(&mut **c, session, name, limit, now))
    }

    fn search(&self, session: &str, query: &str, limit: usize, now: i64) -> Result<Vec<SearchHit>> {
        let terms = search_terms(query);
        if terms.is_empty() {
            return Err(Error::invalid(
                "the search query has no words; search for words or identifiers that appear in entries",
            ));
        }
        let limit = limit.clamp(1, 100) as i64;
        let cols = ENTRY_COLUMNS
            .split(", ")
            .map(|c| format!("e.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        // Rank first, then cut snippets for the hits only: ts_headline reads the whole excerpt.
        // Names weigh four times the content, as in the SQLite store.
        let sql = format!(
            "SELECT hits.*, ts_headline('simple', hits.body, websearch_to_tsquery('simple', $1), \
               'StartSel=\"«\", StopSel=\"»\", MaxWords=16, MinWords=6, ShortWord=0, MaxFragments=1, FragmentDelimiter=\"…\"') AS snip \
             FROM (SELECT {cols}, s.body, ts_rank('{{0.1, 0.2, 0.25, 1.0}}', s.doc, q) AS rank \
                   FROM entry_search s JOIN entries e ON e.row_id = s.entry, websearch_to_tsquery('simple', $1) q \
                   WHERE s.doc @@ q AND e.session = $2 AND {} \
                   ORDER BY rank DESC, e.row_id DESC LIMIT $4) hits \
             ORDER BY hits.rank DESC, hits.row_id DESC",
            live(3)
                .replace("expires_at", "e.expires_at")
                .replace("pinned", "e.pinned")
        );
        self.read(|c| {
            // All words first; if nothing has them all, any of them.
            // Each word quoted, so a word like `or` is a word, not an operator.
            let quoted: Vec<String> = terms.iter().map(|t| format!("\"{t}\"")).collect();
            for joiner in [" ", " or "] {
                let q = quoted.join(joiner);
                let rows = c.query(&sql, &[&q, &session, &now, &limit])?;
                if rows.is_empty() {
                    continue;
                }
                return rows
                    .iter()
                    .map(|r| {
                        let (_, entry) = entry_from_row(r)?;
                        Ok(SearchHit {
                            entry: entry.info,
                            snippet: r.try_get("snip")?,
                        })
                    })
                    .collect::<std::result::Result<Vec<_>, postgres::Error>>()
                    .map_err(Fail::Db);
            }
            Ok(Vec::new())
        })
    }

    fn stats(&self, session: &str, now: i64) -> Result<SessionStats> {
        let sql = format!(
            "SELECT kind, COUNT(*), COUNT(*) FILTER (WHERE pinned), COALESCE(SUM(bytes), 0)::bigint, \
             COALESCE(SUM(length(preview)), 0)::bigint FROM entries WHERE session = $1 AND {} GROUP BY kind",
            live(2)
        );
        self.read(|c| {
            let mut stats = SessionStats::default();
            for row in c.query(&sql, &[&session, &now])? {
                let kind: String = row.try_get(0)?;
                let kind = Kind::parse(&kind).unwrap_or(Kind::Binary);
                let count = to_u64(row.try_get(1)?);
                let pinned = to_u64(row.try_get(2)?);
                let bytes = to_u64(row.try_get(3)?);
                let preview_bytes = to_u64(row.try_get(4)?);
                let tokens = estimate_tokens(kind, bytes);
                let shown = estimate_tokens(Kind::Text, preview_bytes);
                stats.entries += count;
                stats.pinned += pinned;
                stats.bytes += bytes;
                stats.tokens_est += tokens;
                stats.tokens_kept_out += tokens.saturating_sub(shown);
            }
            Ok(stats)
        })
    }

    fn stored_bytes(&self) -> Result<u64> {
        self.read(|c| {
            let total: i64 = c
                .query_one("SELECT COALESCE(SUM(bytes), 0)::bigint FROM blobs", &[])?
                .try_get(0)?;
            Ok(to_u64(total))
        })
    }

    fn last_gc_at(&self) -> Result<Option<i64>> {
        self.read(|c| {
            let row = c.query_opt("SELECT value FROM store_meta WHERE key = 'last_gc_at'", &[])?;
            Ok(match row {
                Some(row) => row.try_get::<_, String>(0)?.parse().ok(),
                None => None,
            })
        })
    }

    fn gc(&self, policy: &GcPolicy) -> Result<GcReport> {
        let before = self.disk_bytes();
        let now = policy.now;
        let mut report = self.write(|tx| {
            let mut report = GcReport::default();
            // One pass at a time per store; a second host's pass waits, then finds little to do.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('scratchpad.gc:' || COALESCE(current_schema(), ''), 0))",
                &[],
            )?;
            // Rows another transaction is writing are skipped: they are not expired for long.
            let expired = tx.query(
                "SELECT row_id, blob FROM entries WHERE expires_at <= $1 AND NOT pinned FOR UPDATE SKIP LOCKED",
                &[&now],
            )?;
            for row in &expired {
                report.bytes_freed += delete_row(tx, row.try_get(0)?, row.try_get(1)?)?;
            }
            report.expired = expired.len() as u64;
            // Staging untouched for `stale_after_ms` by the server's clock; a writer that is still
            // going refreshes it with every batch, and a locked row is one being written right now.
            report.stale_writes_removed = tx.execute(
                &format!(
                    "DELETE FROM blobs WHERE id IN (SELECT id FROM blobs WHERE state = 0 \
                     AND touched_at < {SERVER_NOW_MS} - $1 FOR UPDATE SKIP LOCKED)"
                ),
                &[&policy.stale_after_ms],
            )?;
            let orphans = tx.query(
                "SELECT id FROM blobs b WHERE state = 1 AND NOT EXISTS (SELECT 1 FROM entries WHERE blob = b.id)",
                &[],
            )?;
            for row in &orphans {
                let freed = release_blob(tx, row.try_get(0)?)?;
                if freed > 0 {
                    report.blobs_removed += 1;
                    report.bytes_freed += freed;
                }
            }
            if let Some(quota) = policy.quota_bytes {
                let mut stored = to_u64(
                    tx.query_one("SELECT COALESCE(SUM(bytes), 0)::bigint FROM blobs", &[])?
                        .try_get(0)?,
                );
                while stored > quota {
                    let victims = tx.query(
                        "SELECT row_id, blob FROM entries WHERE NOT pinned ORDER BY accessed_at ASC \
                         LIMIT 64 FOR UPDATE SKIP LOCKED",
                        &[],
                    )?;
                    if victims.is_empty() {
                        break;
                    }
                    for row in &victims {
                        let freed = delete_row(tx, row.try_get(0)?, row.try_get(1)?)?;
                        report.evicted += 1;
                        report.bytes_freed += freed;
                        stored = stored.saturating_sub(freed);
                        if stored <= quota {
                            break;
                        }
                    }
                }
            }
            tx.execute(
                "INSERT INTO store_meta (key, value) VALUES ('last_gc_at', $1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&now.to_string()],
            )?;
            Ok(report)
        })?;
        if report.bytes_freed > 0 {
            // Makes the freed pages reusable and gives trailing ones back to the file system.
            // Best effort: autovacuum gets there too, and a user who does not own the tables
            // only gets a warning.
            let _ = self.read(|c| {
                c.batch_execute("VACUUM (SKIP_LOCKED) chunks, blobs, entries, entry_search")?;
                Ok(())
            });
        }
        report.disk_bytes_before = before;
        report.disk_bytes_after = self.disk_bytes();
        Ok(report)
    }
}

fn parse_cursor(cursor: &str) -> Result<(i64, i64)> {
    cursor
        .split_once('.')
        .and_then(|(u, r)| Some((u.parse().ok()?, r.parse().ok()?)))
        .ok_or_else(|| {
            Error::invalid(format!(
                "invalid cursor `{cursor}`; pass the next_cursor value of the previous page unchanged"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_errors_never_show_the_password() {
        let url = "postgres://agent:hunter2secret@127.0.0.1:1/pad?connect_timeout=2";
        let err = PostgresStore::open(url).unwrap_err().to_string();
        assert!(err.contains("cannot connect to PostgreSQL"), "{err}");
        assert!(err.contains("agent@127.0.0.1:1/pad"), "{err}");
        assert!(!err.contains("hunter2secret"), "{err}");
        let config = postgres::Config::from_str(url).unwrap();
        let pool = Pool::new(config, url);
        let store = PostgresStore { pool };
        let shown = format!("{store:?}");
        assert!(!shown.contains("hunter2secret"), "{shown}");
        assert!(shown.contains("127.0.0.1"), "{shown}");
        assert_eq!(store.pool.scrub("echo hunter2secret".into()), "echo ***");
    }

    #[test]
    fn bad_urls_name_the_problem_not_the_value() {
        let err = PostgresStore::open("postgres://u:topsecret@h:notaport/db")
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid PostgreSQL URL"), "{err}");
        assert!(!err.contains("topsecret"), "{err}");
    }

    #[test]
    fn search_terms_drop_punctuation() {
        assert_eq!(
            search_terms("-foo \"bar\" OR baz_1"),
            ["foo", "bar", "OR", "baz_1"]
        );
        assert!(search_terms("!!! ---").is_empty());
    }
}
