//! The embedded backend: one SQLite file in WAL mode, safe for several processes at once.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};

use super::{
    BlobStats, Chunk, ChunkPos, Entry, EntryChange, EntryWrite, GcPolicy, GcReport, ListFilter,
    Locate, NameChoice, Page, PendingBlob, SearchHit, SessionStats, Store, WriteCondition,
};
use crate::error::{ConflictKind, Error, Result};
use crate::model::{EntryInfo, Kind, Source, estimate_tokens, new_id};

/// Append-only migrations, named by the UTC time they were written.
const MIGRATIONS: &[(i64, &str)] = &[(
    20261121000000,
    include_str!("migrations/sqlite/20261121000000_initial.sql"),
)];

/// How long a writer waits for another process's write lock before giving up (ms).
const BUSY_TIMEOUT_MS: u64 = 30_000;
/// Page size for new databases (bytes). Every commit writes its dirty pages whole to the WAL, and a
/// small offload dirties a dozen pages (entry, indexes, full-text segments): 64 KiB pages made a
/// 5 KB offload write about a megabyte. 4 KiB pages cut 10,000 small offloads from 23 s to 7 s, while
/// a 100 MB offload and grep over it stayed within noise (BENCHMARKS.md).
pub const PAGE_SIZE: u32 = 4_096;
/// Idle connections kept for reuse.
const POOL_MAX_IDLE: usize = 8;

/// A SQLite store file.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

const ENTRY_COLUMNS: &str = "rowid, session, name, id, kind, blob, bytes, chars, lines, hash, preview, \
     source, meta, turn, created_at, updated_at, accessed_at, expires_at, pinned, version";

/// Entries that are visible at `?now`: unexpired, or pinned.
const LIVE: &str = "(expires_at IS NULL OR expires_at > :now OR pinned = 1)";

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::Config(format!(
                    "cannot create the store directory {}: {e}; pass --store sqlite:///a/writable/path.db",
                    dir.display()
                ))
            })?;
        }
        let store = Self {
            path: path.to_owned(),
            idle: Mutex::new(Vec::new()),
        };
        let mut conn = store.connect()?;
        migrate(&mut conn)?;
        store.give_back(conn);
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn connect(&self) -> Result<Connection> {
        let conn = Connection::open(&self.path).map_err(|e| {
            Error::Config(format!(
                "cannot open the store {}: {e}; check the path and its permissions",
                self.path.display()
            ))
        })?;
        conn.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS))?;
        // Room for every statement of the read and write paths (see `Cached`).
        conn.set_prepared_statement_cache_capacity(64);
        // Only takes effect on a new, empty database; harmless afterwards.
        conn.pragma_update(None, "page_size", PAGE_SIZE)?;
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(conn)
    }

    fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut conn = match pooled {
            Some(conn) => conn,
            None => self.connect()?,
        };
        let result = f(&mut conn);
        self.give_back(conn);
        result
    }

    fn give_back(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < POOL_MAX_IDLE
        {
            idle.push(conn);
        }
    }

    fn write_tx<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        self.with_conn(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = f(&tx)?;
            tx.commit()?;
            Ok(value)
        })
    }

    fn disk_bytes(&self) -> u64 {
        let mut total = 0;
        for suffix in ["", "-wal"] {
            let mut path = self.path.clone().into_os_string();
            path.push(suffix);
            total += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        }
        total
    }
}

fn migrate(conn: &mut Connection) -> Result<()> {
    let latest = MIGRATIONS.last().map_or(0, |m| m.0);
    // Most opens find the schema current: check without taking the write lock.
    let current: Option<i64> = conn
        .query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
            r.get(0)
        })
        .optional()
        .ok()
        .flatten()
        .flatten();
    if current == Some(latest) {
        return Ok(());
    }
    // Another process may be migrating too: the write lock serialises us, then we look again.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT;",
    )?;
    let current: Option<i64> =
        tx.query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
            r.get(0)
        })?;
    if let Some(current) = current.filter(|&c| c > latest) {
        return Err(Error::Config(format!(
            "this store was written by a newer scratchpad (schema {current}, this binary knows up to {latest}); \
             upgrade scratchpad to use it"
        )));
    }
    for (version, sql) in MIGRATIONS {
        if current.is_some_and(|c| c >= *version) {
            continue;
        }
        tx.execute_batch(sql)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
            params![version, crate::model::now_ms()],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Entry)> {
    let kind: String = row.get("kind")?;
    let source: String = row.get("source")?;
    let meta: String = row.get("meta")?;
    let info = EntryInfo {
        session: row.get("session")?,
        name: row.get("name")?,
        id: row.get("id")?,
        kind: Kind::parse(&kind).unwrap_or(Kind::Binary),
        bytes: row.get::<_, i64>("bytes")? as u64,
        chars: row.get::<_, i64>("chars")? as u64,
        lines: row.get::<_, i64>("lines")? as u64,
        hash: row.get("hash")?,
        preview: row.get("preview")?,
        source: serde_json::from_str::<Source>(&source).unwrap_or_default(),
        meta: serde_json::from_str(&meta).unwrap_or(serde_json::Value::Null),
        turn: row.get("turn")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
        accessed_at: row.get("accessed_at")?,
        expires_at: row.get("expires_at")?,
        pinned: row.get::<_, i64>("pinned")? != 0,
        version: row.get::<_, i64>("version")? as u64,
    };
    Ok((
        row.get("rowid")?,
        Entry {
            info,
            blob: row.get("blob")?,
        },
    ))
}

/// Finds a live entry by name, then by id, returning its rowid too.
fn find(tx: &Connection, session: &str, key: &str, now: i64) -> Result<Option<(i64, Entry)>> {
    let sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM entries WHERE session = :session AND name = :key AND {LIVE} \
         UNION ALL SELECT {ENTRY_COLUMNS} FROM entries WHERE session = :session AND id = :key AND {LIVE} LIMIT 1"
    );
    let mut stmt = tx.prepare_cached(&sql)?;
    Ok(stmt
        .query_row(
            rusqlite::named_params! {":session": session, ":key": key, ":now": now},
            entry_from_row,
        )
        .optional()?)
}

/// Finds an entry by exact name whether or not it expired (writes replace expired entries).
fn find_any(tx: &Connection, session: &str, name: &str) -> Result<Option<(i64, Entry)>> {
    let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE session = ?1 AND name = ?2");
    let mut stmt = tx.prepare_cached(&sql)?;
    Ok(stmt
        .query_row(params![session, name], entry_from_row)
        .optional()?)
}

fn not_found(tx: &Connection, session: &str, key: &str, now: i64) -> Error {
    let names = similar(tx, session, key, 5, now).unwrap_or_default();
    crate::error::not_found(session, key, &names)
}

fn similar(
    tx: &Connection,
    session: &str,
    key: &str,
    limit: usize,
    now: i64,
) -> Result<Vec<String>> {
    let sql = format!(
        "SELECT name FROM entries WHERE session = :session AND {LIVE} ORDER BY updated_at DESC LIMIT 2000"
    );
    let mut stmt = tx.prepare_cached(&sql)?;
    let names = stmt
        .query_map(
            rusqlite::named_params! {":session": session, ":now": now},
            |r| r.get::<_, String>(0),
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(crate::error::closest_names(key, names, limit))
}

fn check_version(entry: &Entry, if_version: Option<u64>) -> Result<()> {
    match if_version {
        Some(expected) if expected != entry.info.version => {
            Err(Error::Conflict(ConflictKind::Version {
                name: entry.info.name.clone(),
                expected,
                current: Some(entry.info.version),
            }))
        }
        _ => Ok(()),
    }
}

/// Deletes a blob when no entry points at it any more; returns the bytes freed.
fn release_blob(tx: &Connection, blob: i64) -> Result<u64> {
    let freed: Option<i64> = tx
        .query_row(
            "DELETE FROM blobs WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM entries WHERE blob = ?1) RETURNING bytes",
            [blob],
            |r| r.get(0),
        )
        .optional()?;
    Ok(freed.unwrap_or(0) as u64)
}

fn delete_row(tx: &Connection, rowid: i64, blob: i64) -> Result<u64> {
    tx.execute("DELETE FROM entries WHERE rowid = ?1", [rowid])?;
    tx.execute("DELETE FROM entries_fts WHERE rowid = ?1", [rowid])?;
    release_blob(tx, blob)
}

fn insert_chunks(tx: &Connection, blob: i64, chunks: &[Chunk]) -> Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO chunks (blob, seq, byte_start, char_start, line_start, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for c in chunks {
        stmt.execute(params![
            blob,
            c.seq,
            c.byte_start as i64,
            c.char_start as i64,
            c.line_start as i64,
            c.data
        ])?;
    }
    Ok(())
}

/// Stores the content once: reuses a blob with the same hash, else completes the staged one or writes a new one.
fn settle_blob(tx: &Connection, stats: &BlobStats, pending: PendingBlob, now: i64) -> Result<i64> {
    let existing: Option<i64> = tx
        .row(
            "UPDATE blobs SET touched_at = ?2 WHERE hash = ?1 AND state = 1 RETURNING id",
            params![stats.hash, now],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(id) = existing {
        if let Some(staged) = pending.staged {
            tx.exec("DELETE FROM blobs WHERE id = ?1", [staged])?;
        }
        return Ok(id);
    }
    let id = match pending.staged {
        Some(staged) => {
            let alive = tx.exec(
                "UPDATE blobs SET touched_at = ?2 WHERE id = ?1 AND state = 0",
                params![staged, now],
            )?;
            if alive == 0 {
                return Err(Error::Storage(
                    "this write was idle so long that it was collected as abandoned; run it again"
                        .into(),
                ));
            }
            staged
        }
        None => tx.row(
            "INSERT INTO blobs (state, touched_at) VALUES (0, ?1) RETURNING id",
            [now],
            |r| r.get(0),
        )?,
    };
    insert_chunks(tx, id, &pending.buffered)?;
    tx.exec(
        "UPDATE blobs SET hash = ?2, bytes = ?3, chars = ?4, lines = ?5, state = 1, touched_at = ?6 WHERE id = ?1",
        params![
            id,
            stats.hash,
            stats.bytes as i64,
            stats.chars as i64,
            stats.lines as i64,
            now
        ],
    )?;
    Ok(id)
}

fn next_auto_name(tx: &Connection, session: &str, stem: &str) -> Result<String> {
    loop {
        let seq: i64 = tx.row(
            "INSERT INTO sessions (name, next_seq) VALUES (?1, 2) \
             ON CONFLICT (name) DO UPDATE SET next_seq = next_seq + 1 RETURNING next_seq - 1",
            [session],
            |r| r.get(0),
        )?;
        let name = format!("{stem}_{seq}");
        if find_any(tx, session, &name)?.is_none() {
            return Ok(name);
        }
    }
}

/// `execute` and `query_row` through the connection's statement cache. The write path runs the same
/// few statements for every entry, and parsing them again each time was a tenth of a small offload.
trait Cached {
    fn exec(&self, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize>;
    fn row<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn exec(&self, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn row<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Turns free text into an FTS5 query of quoted terms, so user punctuation is never syntax.
fn fts_query(query: &str, joiner: &str) -> String {
    query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|t| !t.is_empty())
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(joiner)
}

impl Store for SqliteStore {
    fn stage_chunks(&self, staged: &mut Option<i64>, chunks: &[Chunk]) -> Result<()> {
        let now = crate::model::now_ms();
        self.write_tx(|tx| {
            let id = match *staged {
                Some(id) => {
                    let alive = tx.execute(
                        "UPDATE blobs SET touched_at = ?2 WHERE id = ?1 AND state = 0",
                        params![id, now],
                    )?;
                    if alive == 0 {
                        return Err(Error::Storage(
                            "this write was idle so long that it was collected as abandoned; run it again".into(),
                        ));
                    }
                    id
                }
                None => tx.query_row(
                    "INSERT INTO blobs (state, touched_at) VALUES (0, ?1) RETURNING id",
                    [now],
                    |r| r.get(0),
                )?,
            };
            insert_chunks(tx, id, chunks)?;
            *staged = Some(id);
            Ok(())
        })
    }

    fn discard_staged(&self, staged: i64) -> Result<()> {
        self.write_tx(|tx| {
            tx.execute("DELETE FROM blobs WHERE id = ?1 AND state = 0", [staged])?;
            Ok(())
        })
    }

    fn commit(&self, write: &EntryWrite, blob: PendingBlob) -> Result<Entry> {
        let now = write.now;
        let staged = blob.staged;
        let result = self.write_tx(|tx| {
            let (name, existing) = match &write.name {
                NameChoice::Auto { stem } => (next_auto_name(tx, &write.session, stem)?, None),
                NameChoice::Given(name) => {
                    let mut existing = find_any(tx, &write.session, name)?;
                    // An expired entry is gone for every purpose but disk space.
                    if let Some((rowid, entry)) = existing.take_if(|(_, e)| {
                        !e.info.pinned && e.info.expires_at.is_some_and(|t| t <= now)
                    }) {
                        delete_row(tx, rowid, entry.blob)?;
                    }
                    (name.clone(), existing)
                }
            };
            match (write.condition, &existing) {
                (WriteCondition::Any, _) => {}
                (WriteCondition::CreateOnly, None) => {}
                (WriteCondition::CreateOnly, Some((_, e))) => {
                    return Err(Error::Conflict(ConflictKind::Exists {
                        name: name.clone(),
                        version: e.info.version,
                    }));
                }
                (WriteCondition::IfVersion(v), Some((_, e))) => check_version(e, Some(v))?,
                (WriteCondition::IfVersion(v), None) => {
                    return Err(Error::Conflict(ConflictKind::Version {
                        name: name.clone(),
                        expected: v,
                        current: None,
                    }));
                }
            }
            let blob_id = settle_blob(tx, &write.stats, blob, now)?;
            let source = serde_json::to_string(&write.source).unwrap_or_else(|_| "{}".into());
            let meta = serde_json::to_string(&write.meta).unwrap_or_else(|_| "null".into());
            let rowid: i64 = match &existing {
                Some((rowid, old)) => {
                    tx.exec(
                        "UPDATE entries SET kind = ?2, blob = ?3, bytes = ?4, chars = ?5, lines = ?6, hash = ?7, \
                         preview = ?8, tool = ?9, source = ?10, meta = ?11, turn = ?12, updated_at = ?13, \
                         accessed_at = ?13, expires_at = ?14, pinned = ?15, version = version + 1 WHERE rowid = ?1",
                        params![
                            rowid,
                            write.kind.as_str(),
                            blob_id,
                            write.stats.bytes as i64,
                            write.stats.chars as i64,
                            write.stats.lines as i64,
                            write.stats.hash,
                            write.preview,
                            write.source.tool,
                            source,
                            meta,
                            write.turn,
                            now,
                            write.expires_at,
                            write.pinned
                        ],
                    )?;
                    if old.blob != blob_id {
                        release_blob(tx, old.blob)?;
                    }
                    tx.exec("DELETE FROM entries_fts WHERE rowid = ?1", [rowid])?;
                    *rowid
                }
                None => tx.row(
                    "INSERT INTO entries (session, name, id, kind, blob, bytes, chars, lines, hash, preview, tool, \
                     source, meta, turn, created_at, updated_at, accessed_at, expires_at, pinned, version) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15, ?15, ?16, ?17, 1) \
                     RETURNING rowid",
                    params![
                        write.session,
                        name,
                        new_id(),
                        write.kind.as_str(),
                        blob_id,
                        write.stats.bytes as i64,
                        write.stats.chars as i64,
                        write.stats.lines as i64,
                        write.stats.hash,
                        write.preview,
                        write.source.tool,
                        source,
                        meta,
                        write.turn,
                        now,
                        write.expires_at,
                        write.pinned
                    ],
                    |r| r.get(0),
                )?,
            };
            tx.exec(
                "INSERT INTO entries_fts (rowid, name, body) VALUES (?1, ?2, ?3)",
                params![rowid, name.replace(['_', '-', '.'], " "), write.search_text],
            )?;
            let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE rowid = ?1");
            let (_, entry) = tx.row(&sql, [rowid], entry_from_row)?;
            Ok(entry)
        });
        if let (Err(_), Some(staged)) = (&result, staged) {
            // Best effort: GC removes it later if this fails too.
            let _ = self.discard_staged(staged);
        }
        result
    }

    fn entry(&self, session: &str, key: &str, now: i64) -> Result<Option<Entry>> {
        self.with_conn(|conn| Ok(find(conn, session, key, now)?.map(|(_, e)| e)))
    }

    fn touch(&self, session: &str, name: &str, now: i64) -> Result<()> {
        self.with_conn(|conn| {
            conn.execute(
                "UPDATE entries SET accessed_at = ?3 WHERE session = ?1 AND name = ?2",
                params![session, name, now],
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
        self.write_tx(|tx| {
            let Some((rowid, entry)) = find(tx, session, name, now)? else {
                return Err(not_found(tx, session, name, now));
            };
            check_version(&entry, if_version)?;
            match change {
                EntryChange::Rename(new_name) => {
                    if let Some((other_rowid, other)) = find_any(tx, session, new_name)? {
                        let expired =
                            !other.info.pinned && other.info.expires_at.is_some_and(|t| t <= now);
                        if !expired {
                            return Err(Error::Conflict(ConflictKind::Exists {
                                name: new_name.clone(),
                                version: other.info.version,
                            }));
                        }
                        delete_row(tx, other_rowid, other.blob)?;
                    }
                    // A renamed offload becomes a note: it no longer expires.
                    tx.execute(
                        "UPDATE entries SET name = ?2, expires_at = NULL WHERE rowid = ?1",
                        params![rowid, new_name],
                    )?;
                    tx.execute(
                        "UPDATE entries_fts SET name = ?2 WHERE rowid = ?1",
                        params![rowid, new_name.replace(['_', '-', '.'], " ")],
                    )?;
                }
                EntryChange::Pin(pinned) => {
                    tx.execute(
                        "UPDATE entries SET pinned = ?2 WHERE rowid = ?1",
                        params![rowid, pinned],
                    )?;
                }
                EntryChange::ExpiresAt(at) => {
                    tx.execute(
                        "UPDATE entries SET expires_at = ?2 WHERE rowid = ?1",
                        params![rowid, at],
                    )?;
                }
            }
            tx.execute(
                "UPDATE entries SET version = version + 1, updated_at = ?2 WHERE rowid = ?1",
                params![rowid, now],
            )?;
            let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE rowid = ?1");
            let (_, entry) = tx.query_row(&sql, [rowid], entry_from_row)?;
            Ok(entry.info)
        })
    }

    fn delete(&self, session: &str, name: &str, if_version: Option<u64>) -> Result<EntryInfo> {
        let now = crate::model::now_ms();
        self.write_tx(|tx| {
            let Some((rowid, entry)) = find(tx, session, name, now)? else {
                return Err(not_found(tx, session, name, now));
            };
            check_version(&entry, if_version)?;
            delete_row(tx, rowid, entry.blob)?;
            Ok(entry.info)
        })
    }

    fn delete_turn(&self, session: &str, turn: &str) -> Result<u64> {
        self.write_tx(|tx| {
            let rows = {
                let mut stmt = tx.prepare_cached(
                    "SELECT rowid, blob FROM entries WHERE session = ?1 AND turn = ?2",
                )?;
                stmt.query_map(params![session, turn], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<(i64, i64)>>>()?
            };
            for (rowid, blob) in &rows {
                delete_row(tx, *rowid, *blob)?;
            }
            Ok(rows.len() as u64)
        })
    }

    fn locate(&self, blob: i64, at: Locate) -> Result<Option<ChunkPos>> {
        let (sql, value) = match at {
            Locate::Byte(b) => (
                "SELECT seq, byte_start, char_start, line_start, length(data) FROM chunks \
                 WHERE blob = ?1 AND byte_start <= ?2 ORDER BY byte_start DESC LIMIT 1",
                b,
            ),
            Locate::Char(c) => (
                "SELECT seq, byte_start, char_start, line_start, length(data) FROM chunks \
                 WHERE blob = ?1 AND char_start <= ?2 ORDER BY char_start DESC LIMIT 1",
                c,
            ),
            Locate::AfterNewlines(n) => (
                "SELECT seq, byte_start, char_start, line_start, length(data) FROM chunks \
                 WHERE blob = ?1 AND line_start < ?2 ORDER BY line_start DESC, seq DESC LIMIT 1",
                n,
            ),
        };
        self.with_conn(|conn| {
            let mut stmt = conn.prepare_cached(sql)?;
            Ok(stmt
                .query_row(
                    params![blob, i64::try_from(value).unwrap_or(i64::MAX)],
                    |r| {
                        Ok(ChunkPos {
                            seq: r.get(0)?,
                            byte_start: r.get::<_, i64>(1)? as u64,
                            char_start: r.get::<_, i64>(2)? as u64,
                            line_start: r.get::<_, i64>(3)? as u64,
                            len: r.get::<_, i64>(4)? as u64,
                        })
                    },
                )
                .optional()?)
        })
    }

    fn chunk(&self, blob: i64, seq: u32) -> Result<Vec<u8>> {
        self.with_conn(|conn| {
            let mut stmt =
                conn.prepare_cached("SELECT data FROM chunks WHERE blob = ?1 AND seq = ?2")?;
            let data: Option<Vec<u8>> = stmt
                .query_row(params![blob, seq], |r| r.get(0))
                .optional()?;
            data.ok_or_else(|| Error::Raced(format!("blob {blob}")))
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
        let mut sql =
            format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE session = :session AND {LIVE}");
        let (cursor_updated, cursor_rowid) = match cursor {
            Some(c) => parse_cursor(c)?,
            None => (i64::MAX, i64::MAX),
        };
        if cursor.is_some() {
            sql.push_str(" AND (updated_at, rowid) < (:cu, :cr)");
        }
        if filter.kind.is_some() {
            sql.push_str(" AND kind = :kind");
        }
        if filter.prefix.is_some() {
            sql.push_str(" AND name LIKE :prefix ESCAPE '\\'");
        }
        if filter.tool.is_some() {
            sql.push_str(" AND tool = :tool");
        }
        if filter.pinned.is_some() {
            sql.push_str(" AND pinned = :pinned");
        }
        if filter.turn.is_some() {
            sql.push_str(" AND turn = :turn");
        }
        sql.push_str(" ORDER BY updated_at DESC, rowid DESC LIMIT :limit");
        let kind = filter.kind.map(Kind::as_str);
        let prefix = filter
            .prefix
            .as_deref()
            .map(|p| format!("{}%", escape_like(p)));
        let limit = limit.clamp(1, 1000);
        self.with_conn(|conn| {
            let mut stmt = conn.prepare_cached(&sql)?;
            let mut params: Vec<(&str, &dyn rusqlite::ToSql)> =
                vec![(":session", &session), (":now", &now)];
            let fetch = (limit + 1) as i64;
            params.push((":limit", &fetch));
            if cursor.is_some() {
                params.push((":cu", &cursor_updated));
                params.push((":cr", &cursor_rowid));
            }
            if let Some(kind) = &kind {
                params.push((":kind", kind));
            }
            if let Some(prefix) = &prefix {
                params.push((":prefix", prefix));
            }
            if let Some(tool) = &filter.tool {
                params.push((":tool", tool));
            }
            if let Some(pinned) = &filter.pinned {
                params.push((":pinned", pinned));
            }
            if let Some(turn) = &filter.turn {
                params.push((":turn", turn));
            }
            let rows = stmt
                .query_map(params.as_slice(), entry_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
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
        self.with_conn(|conn| similar(conn, session, name, limit, now))
    }

    fn search(&self, session: &str, query: &str, limit: usize, now: i64) -> Result<Vec<SearchHit>> {
        let limit = limit.clamp(1, 100) as i64;
        let sql = format!(
            "SELECT {cols}, snippet(entries_fts, 1, '«', '»', '…', 16) AS snip FROM entries_fts \
             JOIN entries e ON e.rowid = entries_fts.rowid \
             WHERE entries_fts MATCH :q AND e.session = :session AND {LIVE} \
             ORDER BY bm25(entries_fts, 4.0, 1.0) LIMIT :limit",
            cols = ENTRY_COLUMNS
                .split(", ")
                .map(|c| format!("e.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.with_conn(|conn| {
            let mut stmt = conn.prepare_cached(&sql)?;
            for joiner in [" ", " OR "] {
                let q = fts_query(query, joiner);
                if q.is_empty() {
                    return Err(Error::invalid(
                        "the search query has no words; search for words or identifiers that appear in entries",
                    ));
                }
                let hits = stmt
                    .query_map(
                        rusqlite::named_params! {":q": q, ":session": session, ":now": now, ":limit": limit},
                        |r| {
                            let (_, entry) = entry_from_row(r)?;
                            Ok(SearchHit {
                                entry: entry.info,
                                snippet: r.get("snip")?,
                            })
                        },
                    )?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                if !hits.is_empty() {
                    return Ok(hits);
                }
            }
            Ok(Vec::new())
        })
    }

    fn stats(&self, session: &str, now: i64) -> Result<SessionStats> {
        let sql = format!(
            "SELECT kind, COUNT(*), SUM(pinned), SUM(bytes), SUM(length(preview)) FROM entries \
             WHERE session = :session AND {LIVE} GROUP BY kind"
        );
        self.with_conn(|conn| {
            let mut stmt = conn.prepare_cached(&sql)?;
            let mut stats = SessionStats::default();
            let rows = stmt.query_map(
                rusqlite::named_params! {":session": session, ":now": now},
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                },
            )?;
            for row in rows {
                let (kind, count, pinned, bytes, preview_bytes) = row?;
                let kind = Kind::parse(&kind).unwrap_or(Kind::Binary);
                let tokens = estimate_tokens(kind, bytes as u64);
                let shown = estimate_tokens(Kind::Text, preview_bytes as u64);
                stats.entries += count as u64;
                stats.pinned += pinned as u64;
                stats.bytes += bytes as u64;
                stats.tokens_est += tokens;
                stats.tokens_kept_out += tokens.saturating_sub(shown);
            }
            Ok(stats)
        })
    }

    fn stored_bytes(&self) -> Result<u64> {
        self.with_conn(|conn| {
            let total: i64 =
                conn.query_row("SELECT COALESCE(SUM(bytes), 0) FROM blobs", [], |r| {
                    r.get(0)
                })?;
            Ok(total as u64)
        })
    }

    fn last_gc_at(&self) -> Result<Option<i64>> {
        self.with_conn(|conn| {
            let value: Option<String> = conn
                .query_row(
                    "SELECT value FROM store_meta WHERE key = 'last_gc_at'",
                    [],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(value.and_then(|v| v.parse().ok()))
        })
    }

    fn gc(&self, policy: &GcPolicy) -> Result<GcReport> {
        let mut report = GcReport {
            disk_bytes_before: self.disk_bytes(),
            ..GcReport::default()
        };
        let now = policy.now;
        self.write_tx(|tx| {
            let expired = {
                let mut stmt = tx.prepare_cached(
                    "SELECT rowid, blob FROM entries WHERE expires_at <= ?1 AND pinned = 0",
                )?;
                stmt.query_map([now], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<(i64, i64)>>>()?
            };
            for (rowid, blob) in &expired {
                report.bytes_freed += delete_row(tx, *rowid, *blob)?;
            }
            report.expired = expired.len() as u64;
            report.stale_writes_removed = tx.execute(
                "DELETE FROM blobs WHERE state = 0 AND touched_at < ?1",
                [now - policy.stale_after_ms],
            )? as u64;
            let orphans: Vec<(i64, i64)> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT id, bytes FROM blobs b WHERE state = 1 AND NOT EXISTS (SELECT 1 FROM entries WHERE blob = b.id)",
                )?;
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?
            };
            for (id, bytes) in &orphans {
                tx.execute("DELETE FROM blobs WHERE id = ?1", [id])?;
                report.bytes_freed += *bytes as u64;
            }
            report.blobs_removed = orphans.len() as u64;
            if let Some(quota) = policy.quota_bytes {
                let mut stored: u64 = tx.query_row(
                    "SELECT COALESCE(SUM(bytes), 0) FROM blobs",
                    [],
                    |r| r.get::<_, i64>(0),
                )? as u64;
                while stored > quota {
                    let victims = {
                        let mut stmt = tx.prepare_cached(
                            "SELECT rowid, blob FROM entries WHERE pinned = 0 ORDER BY accessed_at ASC LIMIT 64",
                        )?;
                        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                            .collect::<rusqlite::Result<Vec<(i64, i64)>>>()?
                    };
                    if victims.is_empty() {
                        break;
                    }
                    for (rowid, blob) in victims {
                        let freed = delete_row(tx, rowid, blob)?;
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
                "INSERT INTO store_meta (key, value) VALUES ('last_gc_at', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [now.to_string()],
            )?;
            Ok(())
        })?;
        self.with_conn(|conn| {
            // Give the freed pages back to the file system, then shrink the log.
            // Each step of this pragma frees one page: step until it is done.
            let mut vacuum = conn.prepare("PRAGMA incremental_vacuum")?;
            let mut rows = vacuum.query([])?;
            while rows.next()?.is_some() {}
            drop(rows);
            drop(vacuum);
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            Ok(())
        })?;
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
