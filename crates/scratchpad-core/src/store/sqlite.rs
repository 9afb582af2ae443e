//! The embedded backend: one SQLite file in WAL mode, safe for several processes at once. Every
//! write transaction takes the database's write lock (`BEGIN IMMEDIATE`), so writers queue behind
//! it and no rule needs row locks; waits are bounded by the busy timeout.
//!
//! Content over [`SIDE_FILE_BYTES`] is kept in side files next to the database (see
//! [`super::side`]); a small reserve file next to it is given up when the disk is full, so that
//! deleting entries (which appends to the write-ahead log first) still works and frees space. A
//! database that cannot be written (a read-only file or mount) still serves reads.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags};

use super::GcReport;
use super::folder::{Folder, Found, Oddity, Unexpected};
use super::side::SideFiles;
use super::sql::{
    Backend, Conn, DbError, Dialect, Fail, Param, Row, SearchSql, SqlStore, TxError, entry_columns,
    live,
};
use crate::error::{Error, Result};

/// How long a writer waits for another process's write lock before giving up (ms).
const BUSY_TIMEOUT_MS: u64 = 30_000;
/// Page size for new databases (bytes). Every commit writes its dirty pages whole to the WAL, and a
/// small offload dirties a dozen pages (entry, indexes, full-text segments): 64 KiB pages made a
/// 5 KB offload write about a megabyte. 4 KiB pages cut 10,000 small offloads from 23 s to 7 s, while
/// a 100 MB offload and grep over it stayed within noise (BENCHMARKS.md).
pub const PAGE_SIZE: u32 = 4_096;
/// Idle connections kept for reuse.
const POOL_MAX_IDLE: usize = 8;
/// Statements each connection keeps prepared: every statement of the read and write paths.
const STATEMENT_CACHE: usize = 64;
/// Free pages a pass amortized over writes leaves in the file (8 MiB): later writes reuse them.
const RECLAIM_MIN_PAGES: i64 = 2_048;
/// Pages the write-ahead log takes before it is copied into the database (a checkpoint, which also
/// syncs both files). Small writes change the same few pages again and again; copying them once
/// per 8,000 log pages (32 MiB) instead of once per 1,000 cut 10,000 small offloads from 3.2 s to
/// 2.8 s. Durability is what `synchronous=NORMAL` in WAL mode defines either way: the log is synced
/// at checkpoints. On a full disk, [`Backend::make_room`] checkpoints early.
const WAL_AUTOCHECKPOINT_PAGES: u32 = 8_000;
/// Content larger than this goes to a side file as it streams in (bytes); smaller content is
/// written into the database with its entry, in one transaction.
pub const SIDE_FILE_BYTES: usize = 1024 * 1024;
/// Space set aside next to the database, given up when the disk is full so that deletes can
/// append to the write-ahead log (bytes): a delete writes a few pages (its content, past
/// [`SIDE_FILE_BYTES`], is a side file, removed without writing anything).
const RESERVE_BYTES: u64 = 2 * 1024 * 1024;

/// Free space under which a failure to write is taken for a full disk (bytes): less than the
/// log's shared-memory file and a few pages need.
const FULL_BELOW_BYTES: u64 = 256 * 1024;

/// How a connection was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    ReadWrite,
    /// The store cannot be written (a read-only file or mount), for as long as this process runs.
    ReadOnly,
    /// The disk is full: it reads, and is not kept, so that the next use tries writing again.
    DiskFull,
}

/// A SQLite store file.
pub type SqliteStore = SqlStore<Sqlite>;

/// Connections to one SQLite file.
#[derive(Debug)]
pub struct Sqlite {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    side: SideFiles,
    /// The database cannot be written (a read-only file or mount): connections open read-only.
    read_only: std::sync::atomic::AtomicBool,
}

impl SqlStore<Sqlite> {
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
        let backend = Sqlite {
            path: path.to_owned(),
            idle: Mutex::new(Vec::new()),
            side: SideFiles::for_database(path),
            read_only: std::sync::atomic::AtomicBool::new(false),
        };
        backend.restore_reserve();
        SqlStore::with_backend(backend)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.backend.path
    }
}

impl Sqlite {
    /// The folder of the database, as the user named it (links on the way are the user's).
    fn folder(&self) -> std::io::Result<Folder> {
        Folder::open_path(
            self.path
                .parent()
                .filter(|dir| !dir.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        )
    }

    /// `<database file name>-reserve`, next to the database.
    fn reserve_name(&self) -> OsString {
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push("-reserve");
        name
    }

    /// Gives up the reserve file; false when there was none. Anything else under its name (a
    /// link, a folder) stays, and is reported by a collection pass.
    fn release_reserve(&self) -> bool {
        self.folder()
            .is_ok_and(|dir| dir.remove_file(&self.reserve_name()).is_ok_and(|gone| gone))
    }

    fn connect(&self) -> Result<(Connection, Access)> {
        if self.read_only.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok((self.connect_read_only()?, Access::ReadOnly));
        }
        let conn = match Connection::open(&self.path) {
            Ok(conn) => conn,
            Err(e) => {
                // A store on a read-only mount or a file we may not write still reads.
                if let Ok(conn) = self.connect_read_only() {
                    return Ok((conn, Access::ReadOnly));
                }
                return Err(Error::Config(format!(
                    "cannot open the store {}: {e}; check the path and its permissions",
                    self.path.display()
                )));
            }
        };
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            drop(conn);
            return Ok((self.connect_read_only()?, Access::ReadOnly));
        }
        let setup = || -> rusqlite::Result<()> {
            prepare_connection(&conn)?;
            // Only takes effect on a new, empty database; harmless afterwards.
            conn.pragma_update(None, "page_size", PAGE_SIZE)?;
            conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
            conn.pragma_update(None, "foreign_keys", "ON")
        };
        match setup() {
            Ok(()) => Ok((conn, Access::ReadWrite)),
            // Switching to WAL writes the file: a store that cannot be written opens read-only.
            Err(e) if is_read_only(&e) => {
                drop(conn);
                Ok((self.connect_read_only()?, Access::ReadOnly))
            }
            // Opening makes the log's shared-memory file, which takes a little space. On a full
            // disk (whoever filled it) the store still reads, without it; the reserve is kept for
            // the deletes that free space, and the next connection tries writing again.
            Err(e) if self.out_of_space(&e) => {
                drop(conn);
                let conn = self
                    .open_read_only()
                    .map_err(|_| Error::DiskFull(self.path.display().to_string()))?;
                Ok((conn, Access::DiskFull))
            }
            Err(e) => Err(self.error(&e)),
        }
    }

    /// A read-only connection for a store whose file or folder cannot be written; every later
    /// connection is read-only too.
    fn connect_read_only(&self) -> Result<Connection> {
        self.read_only
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.open_read_only().map_err(|e| {
            Error::Config(format!(
                "cannot open the store {} even for reading: {e}; check the path and its permissions",
                self.path.display()
            ))
        })
    }

    /// A connection that never writes. Without the write-ahead log's shared-memory file (which it
    /// may not create, or which a full disk has no room for) it reads the file as it is.
    fn open_read_only(&self) -> rusqlite::Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let uri = |immutable: bool| {
            format!(
                "file:{}?mode=ro{}",
                uri_path(&self.path),
                if immutable { "&immutable=1" } else { "" }
            )
        };
        let open = |immutable: bool| -> rusqlite::Result<Connection> {
            let conn = Connection::open_with_flags(uri(immutable), flags)?;
            prepare_connection(&conn)?;
            // Reading needs the shared-memory file of the log; where it cannot be made, read the
            // database as a file nobody writes.
            conn.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |_| Ok(()))?;
            Ok(conn)
        };
        open(false).or_else(|_| open(true))
    }

    /// Runs `f` on a pooled or new connection. A change (`write`) on a disk too full to open the
    /// store for writing fails as [`Error::DiskFull`] at once, before it starts.
    fn with_conn<T>(
        &self,
        write: bool,
        f: impl FnOnce(&mut Connection, Access) -> Result<T>,
    ) -> Result<T> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let (mut conn, access) = match pooled {
            Some(conn) => (conn, Access::ReadWrite),
            None => self.connect()?,
        };
        if write && access == Access::DiskFull {
            return Err(Error::DiskFull(self.path.display().to_string()));
        }
        let result = f(&mut conn, access);
        // Not kept: once space returns, the next connection writes again.
        if access != Access::DiskFull
            && let Ok(mut idle) = self.idle.lock()
            && idle.len() < POOL_MAX_IDLE
        {
            idle.push(conn);
        }
        result
    }

    /// Whether an error means the disk has no room: SQLite's own "full", or a failure to size the
    /// log's shared-memory file or to write, on a file system with almost nothing left.
    fn out_of_space(&self, err: &rusqlite::Error) -> bool {
        is_full(err)
            || (err.sqlite_error_code() == Some(rusqlite::ErrorCode::SystemIoFailure)
                && self
                    .folder()
                    .ok()
                    .and_then(|dir| dir.free_bytes())
                    .is_some_and(|free| free < FULL_BELOW_BYTES))
    }

    /// The database's words, with the file they are about.
    fn error(&self, err: &rusqlite::Error) -> Error {
        if is_full(err) {
            return Error::DiskFull(self.path.display().to_string());
        }
        if is_read_only(err) {
            return self.read_only_error();
        }
        Error::Storage(format!("{err} (store {})", self.path.display()))
    }

    fn read_only_error(&self) -> Error {
        Error::Storage(format!(
            "the store {} is read-only (its file, folder or disk cannot be written): it serves reads, \
             not changes",
            self.path.display()
        ))
    }

    fn finish(&self, fail: Fail, access: Access) -> Error {
        match fail {
            Fail::Db(db) if db.full => Error::DiskFull(self.path.display().to_string()),
            // A write harmless to repeat, on a connection a full disk left read-only.
            Fail::Db(db) if db.message.contains("readonly") && access == Access::DiskFull => {
                Error::DiskFull(self.path.display().to_string())
            }
            Fail::Db(db) if db.message.contains("readonly") => self.read_only_error(),
            Fail::Db(db) => {
                Error::Storage(format!("{} (store {})", db.message, self.path.display()))
            }
            Fail::App(err) => err,
        }
    }
}

impl Backend for Sqlite {
    const DIALECT: Dialect = Dialect {
        lock: "",
        lock_entries: "",
        lock_skip_locked: "",
        now_ms: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
        // ASCII letters match regardless of case, like PostgreSQL's ILIKE.
        ilike: "LIKE",
        lock_name: None,
        lock_content: None,
        lock_gc: None,
        lock_migrations: None,
        // Content large enough to stage goes to side files; no staging rows are ever written.
        lock_staging: None,
        staging_abandoned: "0",
        migrations: &[
            (
                20261121000000,
                include_str!("../../migrations/sqlite/20261121000000_initial.sql"),
            ),
            (
                20261123000000,
                include_str!("../../migrations/sqlite/20261123000000_blob_facts.sql"),
            ),
            (
                20261125013000,
                include_str!("../../migrations/sqlite/20261125013000_history_and_leases.sql"),
            ),
            (
                20261125120000,
                include_str!("../../migrations/sqlite/20261125120000_checksums_and_side_files.sql"),
            ),
            (
                20261125140000,
                include_str!("../../migrations/sqlite/20261125140000_search_in_batches.sql"),
            ),
            (
                20261125160000,
                include_str!("../../migrations/sqlite/20261125160000_previews_reused.sql"),
            ),
            (
                20261126090000,
                include_str!("../../migrations/sqlite/20261126090000_lease_release.sql"),
            ),
            (
                20261126100000,
                include_str!("../../migrations/sqlite/20261126100000_usage_record.sql"),
            ),
            (
                20261126110000,
                include_str!("../../migrations/sqlite/20261126110000_removed_entries.sql"),
            ),
            (
                20261126120000,
                include_str!("../../migrations/sqlite/20261126120000_pieces.sql"),
            ),
        ],
        search: SearchSql {
            index_pending: &[
                concat!(
                    "INSERT INTO entries_fts (rowid, name, body) SELECT p.entry, p.name, ",
                    sqlite_pending_body!(),
                    " FROM search_pending p JOIN entries e ON e.rowid = p.entry"
                ),
                "DELETE FROM search_pending",
            ],
            pending_body: sqlite_pending_body!(),
            rename: "UPDATE entries_fts SET name = ?2 WHERE rowid = ?1",
            unindex: "DELETE FROM entries_fts WHERE rowid = ?1",
            // Names weigh four times the content.
            query: concat!(
                "SELECT ",
                entry_columns!(),
                ", snippet(entries_fts, 1, '«', '»', '…', 16) FROM entries_fts \
                 JOIN entries e ON e.rowid = entries_fts.rowid JOIN blobs b ON b.id = e.blob \
                 WHERE entries_fts MATCH ?2 AND (CAST(?3 AS TEXT) IS NULL OR e.session = ?3) AND ",
                live!(),
                " ORDER BY bm25(entries_fts, 4.0, 1.0) LIMIT ?4"
            ),
            any_word: " OR ",
        },
    };

    fn read<T>(&self, f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>) -> Result<T> {
        self.with_conn(false, |conn, access| {
            f(&mut SqliteConn(conn)).map_err(|fail| self.finish(fail, access))
        })
    }

    fn transaction<T>(
        &self,
        _idempotent: bool,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T, TxError> {
        // BEGIN and COMMIT through the statement cache: parsed once per connection, not per write.
        let run = |conn: &Connection, sql: &str| {
            conn.prepare_cached(sql)
                .and_then(|mut stmt| stmt.execute([]))
                .map(|_| ())
        };
        self.with_conn(true, |conn, access| {
            run(conn, "BEGIN IMMEDIATE").map_err(|e| self.error(&e))?;
            let outcome = f(&mut SqliteConn(conn))
                .map_err(|fail| self.finish(fail, access))
                .and_then(|value| {
                    run(conn, "COMMIT").map_err(|e| self.error(&e))?;
                    Ok(value)
                });
            if outcome.is_err() && !conn.is_autocommit() {
                let _ = run(conn, "ROLLBACK");
            }
            outcome
        })
        .map_err(TxError::Failed)
    }

    const SPILL_BYTES: usize = SIDE_FILE_BYTES;

    type Held = ();

    fn hold(&self) -> Result<()> {
        Ok(())
    }

    fn with_held<T>(
        &self,
        _held: &mut (),
        _staged: Option<i64>,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T> {
        self.transaction(true, f).map_err(|e| match e {
            TxError::Failed(err) | TxError::Unsure(err) => err,
        })
    }

    fn side_files(&self) -> Option<&SideFiles> {
        Some(&self.side)
    }

    /// The reserve file goes, and the log is checkpointed so that the next write starts it over
    /// instead of growing it (it grows up to [`WAL_AUTOCHECKPOINT_PAGES`] between checkpoints).
    fn make_room(&self) -> bool {
        let released = self.release_reserve();
        let restarted = self.with_conn(true, |conn, _| {
            conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|e| self.error(&e))
        });
        released || restarted.is_ok_and(|busy| busy == 0)
    }

    fn restore_reserve(&self) {
        let Ok(dir) = self.folder() else {
            return;
        };
        let name = self.reserve_name();
        // Opened without following a link and checked to be a plain file: a link put in its place
        // must not make the store write zeros over whatever it points at.
        let Ok(mut file) = dir.open_file(&name, true, true) else {
            return;
        };
        let Ok(held) = file.metadata().map(|m| m.len()) else {
            return;
        };
        if held >= RESERVE_BYTES {
            return;
        }
        // Written, not just sized: a sparse file would set nothing aside. The file system takes
        // the blocks when the data is written (with delayed allocation, when it is accepted).
        let written = {
            use std::io::{Seek as _, Write as _};
            let missing = usize::try_from(RESERVE_BYTES - held).unwrap_or(0);
            file.seek(std::io::SeekFrom::Start(held))
                .and_then(|_| file.write_all(&vec![0u8; missing]))
        };
        if written.is_err() {
            drop(file);
            let _ = dir.remove_file(&name);
        }
    }

    fn watch(&self) -> Result<Box<dyn super::Watch>> {
        // Its own connection, never pooled: the version it reports is relative to its own reads.
        // A watch only reads, so a read-only or full store is watched as well.
        let (conn, _) = self.connect()?;
        let version = SqliteWatch::data_version(&conn).map_err(|e| self.error(&e))?;
        Ok(Box::new(SqliteWatch { conn, version }))
    }

    fn after_fork(&self) {
        // SQLite keeps account of a file's locks per process, not per connection: left open, the
        // inherited connections would lend their locks to the child's new ones, which would then
        // take none of their own (and another process could, say, remove the write-ahead log they
        // rely on). Closing touches only this process's locks and accounts; the parent's are its
        // own. A pool locked by a thread that does not exist here (a fork no call waited for) is
        // left alone rather than waited on for ever.
        if let Ok(mut idle) = self.idle.try_lock() {
            idle.clear();
        }
    }

    fn unexpected_files(&self) -> Vec<String> {
        let Ok(dir) = self.folder() else {
            return Vec::new();
        };
        let name = self.reserve_name();
        let what = match dir.expect_file(&name) {
            Ok(Found::Missing | Found::File { .. }) | Err(_) => return Vec::new(),
            Ok(Found::Folder) => Oddity::Folder,
            Ok(Found::Other(what)) => what,
        };
        vec![
            Unexpected {
                path: dir.join(&name),
                what,
            }
            .to_string(),
        ]
    }

    fn disk_bytes(&self) -> u64 {
        let files: u64 = ["", "-wal"]
            .iter()
            .map(|suffix| {
                let mut path = self.path.clone().into_os_string();
                path.push(suffix);
                std::fs::metadata(&path).map_or(0, |m| m.len())
            })
            .sum();
        let side: u64 = self
            .side
            .survey()
            .map(|survey| survey.committed.iter().map(|(_, bytes)| bytes).sum())
            .unwrap_or(0);
        files + side
    }

    /// Gives free pages back to the file system and shrinks the log. A pass amortized over writes
    /// leaves a few free pages alone: writes reuse them, and moving pages changes the schema's root
    /// pages, which makes every prepared statement of every connection prepare itself again.
    fn reclaim_space(&self, _report: &GcReport, compact: bool) {
        let _ = self.with_conn(true, |conn, _| {
            let vacuum = || -> rusqlite::Result<()> {
                let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
                if free < RECLAIM_MIN_PAGES && !compact {
                    return Ok(());
                }
                // Each step of this pragma frees one page: step until it is done.
                let mut stmt = conn.prepare("PRAGMA incremental_vacuum")?;
                let mut rows = stmt.query([])?;
                while rows.next()?.is_some() {}
                drop(rows);
                drop(stmt);
                conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            };
            vacuum().map_err(|e| self.error(&e))
        });
    }
}

/// How often a watch asks SQLite whether another connection committed (ms): the question reads
/// shared memory, not the file, so asking often costs nothing a reader notices.
const WATCH_POLL_MS: u64 = 100;

/// Watches a SQLite store through `PRAGMA data_version` on a connection of its own, which changes
/// whenever any other connection (of this process or another) commits.
struct SqliteWatch {
    conn: Connection,
    version: i64,
}

impl std::fmt::Debug for SqliteWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteWatch")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl SqliteWatch {
    fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
        conn.query_row("PRAGMA data_version", [], |row| row.get(0))
    }
}

impl super::Watch for SqliteWatch {
    fn wait(&mut self, timeout: Duration) -> Result<bool> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let version = Self::data_version(&self.conn)
                .map_err(|e| Error::Storage(format!("cannot watch the store for changes: {e}")))?;
            if version != self.version {
                self.version = version;
                return Ok(true);
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return Ok(false);
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(WATCH_POLL_MS)));
        }
    }
}

/// See [`SearchSql::pending_body`](super::sql::SearchSql::pending_body).
macro_rules! sqlite_pending_body {
    () => {
        "COALESCE(p.body, (SELECT CAST(data AS TEXT) FROM chunks WHERE blob = e.blob AND seq = 0))"
    };
}
use sqlite_pending_body;

/// What every connection, writing or read-only, is set up with.
fn prepare_connection(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS))?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // A statement's plan does not depend on the values bound to it. Without this, a statement
    // whose parameter might decide whether a partial index applies is compiled again on every
    // use, which was a tenth of what a small offload cost. Queries that want a partial index
    // spell its condition out (`seq > 0`).
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    Ok(())
}

/// A connection (or a transaction, which derefs to one) running the rules' SQL.
struct SqliteConn<'a>(&'a Connection);

fn db_error(err: rusqlite::Error) -> Fail {
    Fail::Db(DbError {
        full: is_full(&err),
        message: err.to_string(),
        lost: false,
        transient: false,
    })
}

/// SQLite's "full", and its failure to grow the log's shared-memory file (which it makes by
/// writing, so a full disk is what stops it).
fn is_full(err: &rusqlite::Error) -> bool {
    err.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
        || err
            .sqlite_error()
            .is_some_and(|e| e.extended_code == rusqlite::ffi::SQLITE_IOERR_SHMSIZE)
}

fn is_read_only(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    )
}

/// A path as an SQLite URI spells it: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23")
}

impl Conn for SqliteConn<'_> {
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail> {
        // Through the statement cache: the write path runs the same few statements for every entry,
        // and parsing them again each time was a tenth of a small offload.
        let mut stmt = self.0.prepare_cached(sql).map_err(db_error)?;
        let changed = stmt
            .execute(rusqlite::params_from_iter(params))
            .map_err(db_error)?;
        Ok(changed as u64)
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&dyn Row) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        let mut stmt = self.0.prepare_cached(sql).map_err(db_error)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(db_error)?;
        while let Some(row) = rows.next().map_err(db_error)? {
            each(&SqliteRow(row))?;
        }
        Ok(())
    }

    fn batch(&mut self, sql: &str) -> Result<(), Fail> {
        self.0.execute_batch(sql).map_err(db_error)
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Param::Int(v) | Param::OptInt(Some(v)) => ToSqlOutput::from(v),
            Param::OptInt(None) | Param::OptText(None) => ToSqlOutput::Borrowed(ValueRef::Null),
            Param::Text(s) | Param::OptText(Some(s)) => {
                ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes()))
            }
            Param::Bool(b) => ToSqlOutput::from(i64::from(b)),
            Param::Bytes(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

struct SqliteRow<'a, 'b>(&'a rusqlite::Row<'b>);

impl Row for SqliteRow<'_, '_> {
    fn int(&self, column: usize) -> Result<i64, Fail> {
        self.0.get(column).map_err(db_error)
    }

    fn opt_int(&self, column: usize) -> Result<Option<i64>, Fail> {
        self.0.get(column).map_err(db_error)
    }

    fn text(&self, column: usize) -> Result<String, Fail> {
        self.0.get(column).map_err(db_error)
    }

    fn opt_text(&self, column: usize) -> Result<Option<String>, Fail> {
        self.0.get(column).map_err(db_error)
    }

    fn flag(&self, column: usize) -> Result<bool, Fail> {
        Ok(self.0.get::<_, i64>(column).map_err(db_error)? != 0)
    }

    fn bytes(&self, column: usize) -> Result<Vec<u8>, Fail> {
        self.0.get(column).map_err(db_error)
    }
}
