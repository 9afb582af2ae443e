//! Helpers shared by the engine's integration tests.

use scratchpad_core::{Config, EntryInfo, PutOptions, Scratchpad};
use tempfile::TempDir;

/// Where a conformance test stores its entries. Every behaviour test runs once per backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    #[cfg_attr(
        not(feature = "postgres"),
        expect(dead_code, reason = "PostgreSQL tests are compiled out")
    )]
    Postgres,
}

/// Runs each named `fn(Backend)` as one test per backend: `sqlite::NAME` and `postgres::NAME`.
macro_rules! backend_tests {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(crate::common::Backend::Sqlite)
                }
            )+
        }
        #[cfg(feature = "postgres")]
        mod postgres {
            $(
                #[test]
                fn $name() {
                    super::$name(crate::common::Backend::Postgres)
                }
            )+
        }
    };
}

/// A fresh, empty store that lives as long as this value: a SQLite file in a temporary directory,
/// or a PostgreSQL schema of its own (dropped at the end), so tests run in parallel without meeting.
#[derive(Debug)]
pub struct TestStore {
    pub url: String,
    pub dir: Option<TempDir>,
    /// The PostgreSQL schema that holds this store's tables.
    #[cfg_attr(
        not(feature = "postgres"),
        expect(dead_code, reason = "PostgreSQL tests are compiled out")
    )]
    pub schema: Option<String>,
}

impl Drop for TestStore {
    fn drop(&mut self) {
        #[cfg(feature = "postgres")]
        if let Some(schema) = &self.schema
            && let Ok(mut admin) = postgres::Client::connect(&pg_base_url(), postgres::NoTls)
        {
            let _ = admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
        }
    }
}

impl TestStore {
    /// The SQLite file (SQLite stores only).
    pub fn sqlite_path(&self) -> std::path::PathBuf {
        self.dir.as_ref().unwrap().path().join("pad.db")
    }

    /// A superuser connection whose search_path is this store's schema (PostgreSQL stores only).
    #[cfg(feature = "postgres")]
    pub fn admin(&self) -> postgres::Client {
        let mut client = pg_admin();
        client
            .batch_execute(&format!(
                "SET search_path TO {}",
                self.schema.as_deref().unwrap()
            ))
            .unwrap();
        client
    }
}

impl Backend {
    pub fn store(self) -> TestStore {
        match self {
            Self::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                TestStore {
                    url: store_url(&dir),
                    dir: Some(dir),
                    schema: None,
                }
            }
            Self::Postgres => pg_store(),
        }
    }

    pub fn pad(self) -> (TestStore, Scratchpad) {
        self.pad_with(Config::default())
    }

    pub fn pad_with(self, config: Config) -> (TestStore, Scratchpad) {
        let store = self.store();
        let pad = Scratchpad::open_with(Some(&store.url), config).unwrap();
        (store, pad)
    }
}

/// What to do when the PostgreSQL half of the suite has no server: fail, and say how to get one.
pub const NO_PG: &str = "the PostgreSQL conformance tests need a server: run ./scripts/test, which starts a \
     throwaway PostgreSQL, or set SCRATCHPAD_TEST_PG_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE";

#[cfg(feature = "postgres")]
/// The database the PostgreSQL tests use (`SCRATCHPAD_TEST_PG_URL`); fails the test when unset.
pub fn pg_base_url() -> String {
    match std::env::var("SCRATCHPAD_TEST_PG_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!("SCRATCHPAD_TEST_PG_URL is not set; {NO_PG}"),
    }
}

#[cfg(feature = "postgres")]
pub fn pg_admin() -> postgres::Client {
    postgres::Client::connect(&pg_base_url(), postgres::NoTls).unwrap_or_else(|e| {
        panic!("cannot reach the PostgreSQL server of SCRATCHPAD_TEST_PG_URL ({e}); {NO_PG}")
    })
}

#[cfg(feature = "postgres")]
/// `url` with its search_path set to `schema` (a libpq `options` parameter).
pub fn with_schema(url: &str, schema: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}options=-c%20search_path%3D{schema}")
}

#[cfg(feature = "postgres")]
fn pg_store() -> TestStore {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let schema = format!(
        "sp_test_{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    pg_admin()
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .unwrap();
    TestStore {
        url: with_schema(&pg_base_url(), &schema),
        dir: None,
        schema: Some(schema),
    }
}

#[cfg(not(feature = "postgres"))]
fn pg_store() -> TestStore {
    panic!("this build has no PostgreSQL backend (feature `postgres`); {NO_PG}")
}

/// A scratchpad on a fresh SQLite file that lives as long as the returned directory.
pub fn pad() -> (TestStore, Scratchpad) {
    Backend::Sqlite.pad()
}

pub fn store_url(dir: &TempDir) -> String {
    format!("sqlite://{}/pad.db", dir.path().display())
}

pub fn put(pad: &Scratchpad, name: &str, content: &[u8]) -> EntryInfo {
    let mut input = content;
    pad.put(
        &mut input,
        PutOptions {
            name: Some(name.to_owned()),
            ..PutOptions::default()
        },
    )
    .unwrap()
}

/// A log of `lines` lines whose only ERROR lines are at the given 1-based numbers.
pub fn log_with_errors(lines: u64, errors: &[u64]) -> String {
    let mut out = String::new();
    for i in 1..=lines {
        if errors.contains(&i) {
            out.push_str(&format!(
                "2026-11-21T10:00:{:02}Z ERROR worker {i}: connection reset by peer\n",
                i % 60
            ));
        } else {
            out.push_str(&format!(
                "2026-11-21T10:00:{:02}Z INFO worker {i}: processed batch ok\n",
                i % 60
            ));
        }
    }
    out
}

/// A child process that is killed when the test ends, whether it passed or not.
pub struct ChildGuard(pub std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs this test binary again as a child that executes only `test` (an ignored test) with `env`.
pub fn spawn_child(test: &str, env: &[(&str, String)]) -> ChildGuard {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        test,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(std::process::Stdio::null());
    ChildGuard(cmd.spawn().unwrap())
}
