//! The shared backend: one PostgreSQL database that agents on several machines use at once.
//!
//! The storage rules are the SQLite store's (they are written once, in `sql.rs`); what this backend
//! adds is the concurrency that one file lock gave SQLite for free:
//! - rows a write changes are locked (`FOR UPDATE`), and a name being created is guarded by a
//!   transaction-scoped advisory lock on (session, name), so two writers with `if_version`
//!   serialise and the second sees the first's version;
//! - a blob is only freed after locking its row and looking again for entries that point at it, so
//!   a writer that is reusing it on another host keeps it;
//! - a large write stages its chunks from a connection of its own whose session holds an advisory
//!   lock on the staging blob, so a collection pass on any host removes the staging of a writer that
//!   is gone (its connection closed, the lock free) at once, and never that of a live one;
//! - migrations and collection passes run under advisory locks, so processes take turns.
//!
//! A lost connection is retried where that is safe: reads, chunk staging (idempotent), and any
//! transaction that failed before its `COMMIT` was sent (the server rolled it back). A connection
//! lost during `COMMIT` leaves the outcome unknown, which the rules resolve by looking for the entry.

mod conninfo;
mod pool;
mod tls;

use std::fmt;
use std::path::PathBuf;

use bytes::BytesMut;
use postgres::GenericClient;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use self::pool::{Pool, is_connection_lost, is_transient_conflict};
use super::GcReport;
use super::sql::{
    Backend, Conn, DbError, Dialect, Fail, Param, Row, SearchSql, SqlStore, TxError, live,
};
use crate::error::{Error, Result};

/// How many times a transaction runs when it keeps losing its connection.
const MAX_ATTEMPTS: usize = 6;
/// How many times a transaction runs when it keeps losing a deadlock or a serialization conflict
/// to other writers: each try after a growing, random pause (about 0.6 s in all), so that the
/// writers that collided do not collide again in step. Sixteen writers at once lost 1 write in
/// 100 with six immediate tries.
const MAX_CONFLICT_ATTEMPTS: u32 = 16;
/// Content larger than this is staged as it streams in (bytes); smaller content is written with its
/// entry in one transaction.
const STAGE_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// The advisory lock that marks staging blob `$1` as its writer's, keyed by the schema too.
/// See [`SearchSql::pending_body`](super::sql::SearchSql::pending_body), for the rows of `$p`.
macro_rules! pg_pending_body {
    ($p:literal) => {
        concat!(
            "COALESCE(",
            $p,
            ".body, (SELECT convert_from(data, 'UTF8') FROM chunks WHERE blob = e.blob AND seq = 0))"
        )
    };
}

macro_rules! staging_key {
    ($blob:expr) => {
        concat!(
            "hashtextextended('scratchpad.stage:' || COALESCE(current_schema(), '') || ':' || ",
            $blob,
            ", 0)"
        )
    };
}

/// The connection a large write stages its chunks from: its session holds the staging's advisory
/// lock, which the server lets go when the connection closes (the process ended, or this dropped).
pub struct StagingConnection(postgres::Client);

impl fmt::Debug for StagingConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StagingConnection")
    }
}

/// Tables of one store, for its size on disk.
const TABLES: &str = "'sessions', 'blobs', 'chunks', 'entries', 'entry_search', 'store_meta', 'versions', 'leases', 'usage', 'removed', 'removed_versions', 'pieces'";

/// A PostgreSQL store.
pub type PostgresStore = SqlStore<Postgres>;

/// Connections to one PostgreSQL database. `Debug` shows where it points, never the password.
pub struct Postgres {
    pool: Pool,
}

impl fmt::Debug for Postgres {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Postgres")
            .field("target", &self.pool.target())
            .finish()
    }
}

impl SqlStore<Postgres> {
    /// Connects to the database a `postgres://` URL names and brings its schema up to date.
    /// `sslmode` and `sslrootcert` in the URL mean what they mean to libpq (`prefer` by default).
    pub fn open(url: &str) -> Result<Self> {
        let settings = conninfo::settings(url, default_root_cert())?;
        let backend = Postgres {
            pool: Pool::new(settings),
        };
        // Connecting is the first thing that can fail, and that is a configuration problem.
        drop(backend.pool.get().map_err(|e| match e {
            Error::Storage(msg) => Error::Config(msg),
            other => other,
        })?);
        let target = backend.pool.target().to_owned();
        SqlStore::with_backend(backend).map_err(|e| match e {
            Error::Storage(msg) => Error::Config(format!(
                "cannot prepare the PostgreSQL store at {target}: {msg}; the user needs the right to create \
                 tables in the database (or in the schema its search_path names)"
            )),
            other => other,
        })
    }

    /// Where the store points (`user@host:port/database`), safe to show.
    pub fn target(&self) -> &str {
        self.backend.pool.target()
    }
}

/// Whether a `postgres://` URL would be accepted by [`SqlStore::open`], without connecting: the
/// same parse, so a command that writes a URL for a server to use later refuses what it would refuse.
pub(crate) fn check_url(url: &str) -> Result<()> {
    conninfo::settings(url, default_root_cert()).map(drop)
}

/// libpq's default CA file: `~/.postgresql/root.crt` (`%APPDATA%\\postgresql\\root.crt` on Windows).
fn default_root_cert() -> Option<PathBuf> {
    if cfg!(windows) {
        dirs::data_dir().map(|dir| dir.join("postgresql").join("root.crt"))
    } else {
        dirs::home_dir().map(|dir| dir.join(".postgresql").join("root.crt"))
    }
}

/// The server's clock in milliseconds: the one clock every host agrees on.
macro_rules! server_now_ms {
    () => {
        "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    };
}

impl Postgres {
    fn finish(&self, fail: Fail) -> Error {
        match fail {
            Fail::Db(db) if db.lost => Error::Storage(format!(
                "lost the connection to PostgreSQL at {}: {}; nothing was half-written, run the command again \
                 once the server is reachable",
                self.pool.target(),
                db.message
            )),
            Fail::Db(db) => Error::Storage(db.message),
            Fail::App(err) => err,
        }
    }
}

impl Backend for Postgres {
    const DIALECT: Dialect = Dialect {
        lock: " FOR UPDATE",
        lock_entries: " FOR UPDATE OF e",
        lock_skip_locked: " FOR UPDATE SKIP LOCKED",
        now_ms: server_now_ms!(),
        ilike: "ILIKE",
        lock_name: Some("SELECT pg_advisory_xact_lock(hashtextextended(?1 || '/' || ?2, 0))"),
        lock_content: Some(
            "SELECT pg_advisory_xact_lock(hashtextextended('scratchpad.content:' || COALESCE(current_schema(), '') || ':' || ?1, 0))",
        ),
        lock_gc: Some(
            "SELECT pg_advisory_xact_lock(hashtextextended('scratchpad.gc:' || COALESCE(current_schema(), ''), 0))",
        ),
        lock_migrations: Some(
            "SELECT pg_advisory_xact_lock(hashtextextended('scratchpad.migrate:' || COALESCE(current_schema(), ''), 0))",
        ),
        lock_staging: Some(concat!(
            "SELECT pg_advisory_lock(",
            staging_key!("(?1::bigint)::text"),
            ")"
        )),
        // Taking the writer's lock succeeds only when its session is gone; taken in the collection
        // pass's transaction, it is let go when that commits.
        staging_abandoned: concat!(
            "pg_try_advisory_xact_lock(",
            staging_key!("b.id::text"),
            ")"
        ),
        migrations: &[
            (
                20261122000000,
                include_str!("../../migrations/postgres/20261122000000_initial.sql"),
            ),
            (
                20261123000000,
                include_str!("../../migrations/postgres/20261123000000_blob_facts.sql"),
            ),
            (
                20261125013000,
                include_str!("../../migrations/postgres/20261125013000_history_and_leases.sql"),
            ),
            (
                20261125120000,
                include_str!(
                    "../../migrations/postgres/20261125120000_checksums_and_side_files.sql"
                ),
            ),
            (
                20261125140000,
                include_str!("../../migrations/postgres/20261125140000_search_in_batches.sql"),
            ),
            (
                20261125160000,
                include_str!("../../migrations/postgres/20261125160000_previews_reused.sql"),
            ),
            (
                20261126090000,
                include_str!("../../migrations/postgres/20261126090000_lease_release.sql"),
            ),
            (
                20261126100000,
                include_str!("../../migrations/postgres/20261126100000_usage_record.sql"),
            ),
            (
                20261126110000,
                include_str!("../../migrations/postgres/20261126110000_removed_entries.sql"),
            ),
            (
                20261126120000,
                include_str!("../../migrations/postgres/20261126120000_pieces.sql"),
            ),
        ],
        search: SearchSql {
            // The 'simple' configuration neither stems nor drops stop words, like SQLite's unicode61.
            // Taking the rows with DELETE … RETURNING: two writers moving them at once cannot both
            // take one (the second waits for the first's row locks, then finds the rows gone).
            index_pending: &[concat!(
                "WITH moved AS (DELETE FROM search_pending RETURNING entry, name, body), \
                 texts AS (SELECT moved.entry AS entry, moved.name AS name, ",
                pg_pending_body!("moved"),
                " AS body FROM moved JOIN entries e ON e.rowid = moved.entry) \
                 INSERT INTO entry_search (entry, body, doc) SELECT entry, body, \
                 setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', body), 'B') \
                 FROM texts"
            )],
            pending_body: pg_pending_body!("p"),
            rename: "UPDATE entry_search SET doc = setweight(to_tsvector('simple', ?2), 'A') \
                     || setweight(to_tsvector('simple', body), 'B') WHERE entry = ?1",
            unindex: "DELETE FROM entry_search WHERE entry = ?1",
            // Rank first, then cut snippets for the hits only: ts_headline reads the whole excerpt.
            // Names weigh four times the content, as in the SQLite store.
            query: concat!(
                "SELECT hits.rowid, hits.session, hits.name, hits.id, hits.kind, hits.blob, hits.bytes, \
                 hits.chars, hits.lines, hits.hash, hits.preview, hits.source, hits.meta, hits.turn, \
                 hits.created_at, hits.updated_at, hits.accessed_at, hits.expires_at, hits.pinned, \
                 hits.version, hits.chunks, hits.mime, hits.profile, hits.author, \
                 ts_headline('simple', hits.body, websearch_to_tsquery('simple', ?2), \
                 'StartSel=\"«\", StopSel=\"»\", MaxWords=16, MinWords=6, ShortWord=0, MaxFragments=1, FragmentDelimiter=\"…\"') \
                 FROM (SELECT ",
                super::sql::entry_columns!(),
                ", s.body, ts_rank('{0.1, 0.2, 0.25, 1.0}', s.doc, q) AS rank \
                 FROM entry_search s JOIN entries e ON e.rowid = s.entry JOIN blobs b ON b.id = e.blob, \
                 websearch_to_tsquery('simple', ?2) q \
                 WHERE s.doc @@ q AND (CAST(?3 AS TEXT) IS NULL OR e.session = ?3) AND ",
                live!(),
                " ORDER BY rank DESC, e.rowid DESC LIMIT ?4) hits \
                 ORDER BY hits.rank DESC, hits.rowid DESC"
            ),
            any_word: " or ",
        },
    };

    fn read<T>(&self, f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>) -> Result<T> {
        let mut attempt = 1;
        loop {
            let mut conn = self.pool.get()?;
            let outcome = f(&mut PgConn {
                client: &mut *conn,
                pool: &self.pool,
            });
            match outcome {
                Ok(value) => return Ok(value),
                Err(Fail::Db(db)) if db.lost && attempt < MAX_ATTEMPTS => {
                    conn.mark_broken();
                    drop(conn);
                    self.pool.drain_idle();
                    attempt += 1;
                }
                Err(fail) => {
                    if matches!(&fail, Fail::Db(db) if db.lost) {
                        conn.mark_broken();
                    }
                    return Err(self.finish(fail));
                }
            }
        }
    }

    /// Runs again when the connection was lost before `COMMIT` was sent or the server broke a
    /// deadlock; a connection lost during `COMMIT` is `Unsure`, unless running it twice is harmless.
    fn transaction<T>(
        &self,
        idempotent: bool,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T, TxError> {
        let mut attempt = 1;
        let mut conflicts = 0;
        loop {
            if conflicts > 0 {
                // With no connection held, so the writers it lost to can finish.
                std::thread::sleep(crate::pause::retry_pause(conflicts));
            }
            let mut conn = self.pool.get().map_err(TxError::Failed)?;
            let outcome = (|| {
                let mut tx = conn
                    .transaction()
                    .map_err(|e| (false, db_error(&self.pool, &e)))?;
                let value = f(&mut PgConn {
                    client: &mut tx,
                    pool: &self.pool,
                })
                .map_err(|e| (false, e))?;
                tx.commit().map_err(|e| (true, db_error(&self.pool, &e)))?;
                Ok(value)
            })();
            let (at_commit, db) = match outcome {
                Ok(value) => return Ok(value),
                Err((_, Fail::App(err))) => return Err(TxError::Failed(err)),
                Err((at_commit, Fail::Db(db))) => (at_commit, db),
            };
            if db.lost {
                conn.mark_broken();
                drop(conn);
                self.pool.drain_idle();
            }
            let lost = db.lost;
            let transient = db.transient;
            if lost && at_commit && !idempotent {
                return Err(TxError::Unsure(self.finish(Fail::Db(db))));
            }
            if lost && attempt < MAX_ATTEMPTS {
                attempt += 1;
                continue;
            }
            if transient && !lost && conflicts + 1 < MAX_CONFLICT_ATTEMPTS {
                conflicts += 1;
                continue;
            }
            return Err(TxError::Failed(self.finish(Fail::Db(db))));
        }
    }

    const SPILL_BYTES: usize = STAGE_BATCH_BYTES;

    type Held = StagingConnection;

    fn hold(&self) -> Result<StagingConnection> {
        Ok(StagingConnection(self.pool.dedicated()?))
    }

    fn with_held<T>(
        &self,
        held: &mut StagingConnection,
        staged: Option<i64>,
        f: &mut dyn FnMut(&mut dyn Conn) -> Result<T, Fail>,
    ) -> Result<T> {
        let mut attempt = 1;
        loop {
            let outcome = (|| {
                let mut tx = held.0.transaction().map_err(|e| db_error(&self.pool, &e))?;
                let value = f(&mut PgConn {
                    client: &mut tx,
                    pool: &self.pool,
                })?;
                tx.commit().map_err(|e| db_error(&self.pool, &e))?;
                Ok(value)
            })();
            match outcome {
                Ok(value) => return Ok(value),
                // The session and its mark are gone: a new connection marks the staging again (if
                // a collection pass took it meanwhile, `f` says so) and runs `f` again, which is
                // idempotent.
                Err(Fail::Db(db)) if db.lost && attempt < MAX_ATTEMPTS => {
                    attempt += 1;
                    let mut client = self.pool.dedicated()?;
                    if let (Some(staged), Some(lock)) = (staged, Self::DIALECT.lock_staging) {
                        client
                            .execute(placeholders(lock).as_str(), &[&staged])
                            .map_err(|e| self.finish(db_error(&self.pool, &e)))?;
                    }
                    held.0 = client;
                }
                Err(fail) => return Err(self.finish(fail)),
            }
        }
    }

    fn after_fork(&self) {
        self.pool.forget_inherited();
    }

    fn disk_bytes(&self) -> u64 {
        let sql = format!(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN ({TABLES})"
        );
        let total = self.read(&mut |c| c.one(&sql, &[], |r| r.count(0)));
        total.unwrap_or(0)
    }

    fn watch(&self) -> Result<Box<dyn super::Watch>> {
        let mut client = self.pool.dedicated()?;
        let failed = |e: postgres::Error| self.finish(db_error(&self.pool, &e));
        client
            .batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))
            .map_err(failed)?;
        let schema: String = client
            .query_one("SELECT COALESCE(current_schema(), '')", &[])
            .and_then(|row| row.try_get(0))
            .map_err(failed)?;
        Ok(Box::new(PostgresWatch {
            client,
            schema,
            target: self.pool.target().to_owned(),
        }))
    }

    fn reclaim_space(&self, report: &GcReport, compact: bool) {
        if report.bytes_freed == 0 && !compact {
            return;
        }
        // Makes freed pages reusable and gives trailing ones back to the file system. Best effort:
        // autovacuum gets there too, and a user who does not own the tables only gets a warning.
        let _ = self.read(&mut |c| {
            c.batch("VACUUM (SKIP_LOCKED) chunks, blobs, entries, entry_search, versions, removed_versions")
        });
    }
}

/// The channel every store's changes are announced on (see the `usage_record` migration); the
/// payload names the schema.
const CHANGES_CHANNEL: &str = "scratchpad_changes";

/// Watches a PostgreSQL store: a connection of its own that `LISTEN`s to what the store's triggers
/// `NOTIFY`, keeping only its own schema's announcements.
struct PostgresWatch {
    client: postgres::Client,
    schema: String,
    target: String,
}

impl fmt::Debug for PostgresWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresWatch")
            .field("target", &self.target)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl super::Watch for PostgresWatch {
    fn wait(&mut self, timeout: std::time::Duration) -> Result<bool> {
        use postgres::fallible_iterator::FallibleIterator as _;
        let deadline = std::time::Instant::now() + timeout;
        let mut changed = false;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            // Whatever is buffered first, then wait for more while nothing of ours came.
            let next = {
                let mut notifications = self.client.notifications();
                if changed || left.is_zero() {
                    notifications.iter().next()
                } else {
                    notifications.timeout_iter(left).next()
                }
                .map(|note| note.map(|note| note.payload() == self.schema))
            };
            match next {
                Ok(Some(ours)) => changed |= ours,
                Ok(None) if self.client.is_closed() => {
                    return Err(Error::Storage(format!(
                        "lost the connection to PostgreSQL at {} that watched the store for changes",
                        self.target
                    )));
                }
                Ok(None) if changed || left.is_zero() => return Ok(changed),
                Ok(None) => {}
                Err(err) => {
                    return Err(Error::Storage(format!(
                        "watching PostgreSQL at {} for changes failed: {err}",
                        self.target
                    )));
                }
            }
        }
    }
}

fn db_error(pool: &Pool, err: &postgres::Error) -> Fail {
    Fail::Db(DbError {
        message: pool.describe(err),
        lost: is_connection_lost(err),
        transient: is_transient_conflict(err),
        full: err
            .code()
            .is_some_and(|code| *code == postgres::error::SqlState::DISK_FULL),
    })
}

/// A connection or transaction running the rules' SQL, with `?N` placeholders spelled `$N`.
struct PgConn<'a, C> {
    client: &'a mut C,
    pool: &'a Pool,
}

/// `?1` → `$1`: the rules write SQLite's numbered placeholders, PostgreSQL spells them with `$`.
fn placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    for (i, c) in sql.char_indices() {
        if c == '?' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

impl<C: GenericClient> PgConn<'_, C> {
    fn run(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<postgres::Row>, Fail> {
        let refs: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        self.client
            .query(&placeholders(sql), &refs)
            .map_err(|e| db_error(self.pool, &e))
    }
}

impl<C: GenericClient> Conn for PgConn<'_, C> {
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail> {
        let refs: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        self.client
            .execute(&placeholders(sql), &refs)
            .map_err(|e| db_error(self.pool, &e))
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        each: &mut dyn FnMut(&dyn Row) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        for row in self.run(sql, params)? {
            each(&PgRow {
                row: &row,
                pool: self.pool,
            })?;
        }
        Ok(())
    }

    fn batch(&mut self, sql: &str) -> Result<(), Fail> {
        self.client
            .batch_execute(sql)
            .map_err(|e| db_error(self.pool, &e))
    }
}

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            Param::Int(v) | Param::OptInt(Some(v)) => match *ty {
                Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(v)?.to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Param::OptInt(None) | Param::OptText(None) => Ok(IsNull::Yes),
            Param::Text(s) | Param::OptText(Some(s)) => s.to_sql(ty, out),
            Param::Bool(b) => b.to_sql(ty, out),
            Param::Bytes(b) => b.to_sql(ty, out),
        }
    }

    /// Each value is converted to the type the statement expects, as the variants allow.
    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

struct PgRow<'a> {
    row: &'a postgres::Row,
    pool: &'a Pool,
}

impl PgRow<'_> {
    fn get<'r, T: postgres::types::FromSql<'r>>(&'r self, column: usize) -> Result<T, Fail> {
        self.row
            .try_get(column)
            .map_err(|e| db_error(self.pool, &e))
    }
}

impl Row for PgRow<'_> {
    fn int(&self, column: usize) -> Result<i64, Fail> {
        self.get(column)
    }

    fn opt_int(&self, column: usize) -> Result<Option<i64>, Fail> {
        self.get(column)
    }

    fn text(&self, column: usize) -> Result<String, Fail> {
        self.get(column)
    }

    fn opt_text(&self, column: usize) -> Result<Option<String>, Fail> {
        self.get(column)
    }

    fn flag(&self, column: usize) -> Result<bool, Fail> {
        self.get(column)
    }

    fn bytes(&self, column: usize) -> Result<Vec<u8>, Fail> {
        self.get(column)
    }
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
        let backend = Postgres {
            pool: Pool::new(conninfo::settings(url, None).unwrap()),
        };
        let shown = format!("{backend:?}");
        assert!(!shown.contains("hunter2secret"), "{shown}");
        assert!(shown.contains("127.0.0.1"), "{shown}");
    }

    #[test]
    fn a_refused_connection_blames_the_server_not_the_password() {
        // Regression: the URL was split at its first `@`, so `ss@127.0.0.1` was looked up as a
        // host and printed; and every `p` of the message was masked as the password.
        let err = PostgresStore::open("postgres://u:p@ss@127.0.0.1:1/pad")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cannot connect to PostgreSQL at u@127.0.0.1:1/pad"),
            "{err}"
        );
        assert!(!err.contains("ss@") && !err.contains("***"), "{err}");
        assert!(err.contains("check that the server is running"), "{err}");
        assert!(!err.contains("password"), "{err}");
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
    fn placeholders_are_spelled_with_dollars() {
        assert_eq!(
            placeholders("SELECT ?1, '?' , ?12 FROM t WHERE a = ?2"),
            "SELECT $1, '?' , $12 FROM t WHERE a = $2"
        );
    }
}
