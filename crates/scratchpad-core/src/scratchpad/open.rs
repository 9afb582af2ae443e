//! Where the store is: a store URL taken apart and the backend it names opened.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::default_store_path;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::sqlite::SqliteStore;

/// Opens the backend a URL names; none means the default SQLite file.
pub(super) fn open_store(url: Option<&str>) -> Result<Arc<dyn Store>> {
    let Some(url) = url else {
        return Ok(Arc::new(SqliteStore::open(&default_store_path())?));
    };
    let path = match parse_store_url(url)? {
        StoreUrl::Sqlite(path) => path,
        StoreUrl::Postgres(url) => return open_postgres(url),
    };
    check_sqlite_dir(&path)?;
    Ok(Arc::new(SqliteStore::open(&path)?))
}

/// Checks a store URL as opening it would, without opening, creating or connecting to anything:
/// the scheme, that a SQLite file's directory exists, that a PostgreSQL URL parses (and that this
/// build has PostgreSQL). For a command that writes a URL where a server will open it later.
pub fn check_store_url(url: &str) -> Result<()> {
    match parse_store_url(url)? {
        StoreUrl::Sqlite(path) => check_sqlite_dir(&path),
        StoreUrl::Postgres(url) => check_postgres(url),
    }
}

/// The file of the SQLite store `url` names (the default store's for `None`), or `None` for a
/// PostgreSQL one; nothing is opened or created. For a command that must let another program write
/// the store's directory.
pub fn sqlite_store_file(url: Option<&str>) -> Result<Option<std::path::PathBuf>> {
    let Some(url) = url else {
        return Ok(Some(default_store_path()));
    };
    Ok(match parse_store_url(url)? {
        StoreUrl::Sqlite(path) => Some(path),
        StoreUrl::Postgres(_) => None,
    })
}

/// A mistyped explicit path should fail, not quietly start an empty store somewhere new.
fn check_sqlite_dir(path: &std::path::Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(Error::Config(format!(
            "the store directory {} does not exist; create it first or fix the --store path",
            dir.display()
        )));
    }
    Ok(())
}

#[cfg(feature = "postgres")]
fn check_postgres(url: &str) -> Result<()> {
    crate::store::postgres::check_url(url)
}

#[cfg(not(feature = "postgres"))]
fn check_postgres(_url: &str) -> Result<()> {
    Err(postgres_disabled())
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str) -> Result<Arc<dyn Store>> {
    Ok(Arc::new(crate::store::postgres::PostgresStore::open(url)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(_url: &str) -> Result<Arc<dyn Store>> {
    Err(postgres_disabled())
}

/// What a build without the `postgres` feature says to a `postgres://` URL (never echoing it).
#[cfg(not(feature = "postgres"))]
fn postgres_disabled() -> Error {
    Error::Config(
        "postgres support is not enabled in this build; use a sqlite:///path.db store, or a scratchpad \
         built with the `postgres` feature (the scratchpad CLI has it by default)"
            .into(),
    )
}

/// A store URL, taken apart.
enum StoreUrl<'a> {
    Sqlite(PathBuf),
    /// The whole URL: the backend parses it (it may hold a password, so it is never shown).
    Postgres(&'a str),
}

fn parse_store_url(url: &str) -> Result<StoreUrl<'_>> {
    if url.trim().is_empty() {
        return Err(Error::Config(
            "the store URL is empty; pass sqlite:///path/to/file.db, or unset SCRATCHPAD_STORE to use the \
             default store"
                .into(),
        ));
    }
    if let Some(rest) = url.strip_prefix("sqlite://") {
        if rest.is_empty() {
            return Err(Error::Config(
                "empty SQLite path; use sqlite:///absolute/path.db or sqlite://relative/path.db"
                    .into(),
            ));
        }
        return Ok(StoreUrl::Sqlite(PathBuf::from(rest)));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(StoreUrl::Postgres(url));
    }
    if let Some((scheme, _)) = url.split_once("://") {
        return Err(Error::Config(format!(
            "unknown store scheme `{scheme}://`; use sqlite:///path.db, postgres://user:password@host/db \
             (or a plain file path)"
        )));
    }
    Ok(StoreUrl::Sqlite(PathBuf::from(url)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checking_a_store_url_refuses_what_opening_refuses_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pad.db");
        check_store_url(&format!("sqlite://{}", file.display())).unwrap();
        check_store_url(&file.display().to_string()).unwrap();
        assert!(!file.exists(), "a check must not create the store");
        for bad in [
            "",
            "sqlite://",
            "mysql://h/db",
            &format!("sqlite://{}/no/such/pad.db", dir.path().display()),
        ] {
            assert!(check_store_url(bad).is_err(), "{bad:?}");
        }
        #[cfg(feature = "postgres")]
        assert!(check_store_url("postgres://u@h:notaport/db").is_err());
    }

    /// Runs where the engine is built without PostgreSQL (`cargo test -p scratchpad-core`); the
    /// house rules check the same on the CLI built without it.
    #[test]
    #[cfg(not(feature = "postgres"))]
    fn a_build_without_postgres_refuses_a_postgres_store_plainly() {
        let Err(err) = crate::Scratchpad::open("postgres://agent:s3cret@db.internal/pad") else {
            panic!("a build without PostgreSQL opened a postgres:// store");
        };
        let msg = err.to_string();
        assert!(
            msg.contains("postgres support is not enabled in this build"),
            "{msg}"
        );
        assert!(
            !msg.contains("s3cret") && !msg.contains("db.internal"),
            "{msg}"
        );
    }
}
