//! The engine every face calls: a store, a configuration and the caller's session.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use crate::config::{Config, default_store_path};
use crate::error::{Error, Result};
use crate::ingest::{Ingested, ingest};
use crate::model::{EntryInfo, Source, name_stem, now_ms, validate_name};
use crate::read::{self, ReadLimits, ReadMode, ReadReply, Syntax};
use crate::store::sqlite::SqliteStore;
use crate::store::{
    EntryChange, EntryWrite, GcPolicy, GcReport, ListFilter, NameChoice, Page, SearchHit,
    SessionStats, Store, WriteCondition,
};

/// Writes between two amortized collection passes.
const GC_EVERY_WRITES: u64 = 256;
/// A pass on open runs at most this often (ms).
const GC_ON_OPEN_INTERVAL_MS: i64 = 10 * 60 * 1000;
/// Staged writes with no progress for this long are abandoned (ms).
const STALE_WRITE_MS: i64 = 60 * 60 * 1000;
/// Reads refresh an entry's access time at most this often (ms), so reads rarely write.
const TOUCH_INTERVAL_MS: i64 = 60 * 1000;
/// Times a read starts again after a concurrent overwrite freed what it was reading.
const READ_RETRIES: u32 = 12;
/// Times an append or edit that gave no version starts again after another writer got in first.
const UPDATE_RETRIES: u32 = 24;
/// Largest note an edit rewrites in memory (bytes).
pub const EDIT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The session used when none is given.
pub const DEFAULT_SESSION: &str = "default";

/// A scratchpad: one store seen from one session.
#[derive(Debug, Clone)]
pub struct Scratchpad {
    store: Arc<dyn Store>,
    config: Arc<Config>,
    session: String,
    syntax: Syntax,
    writes: Arc<AtomicU64>,
    written_since_check: Arc<AtomicU64>,
}

/// How long an entry lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Ttl {
    /// Offloads (automatic names) get the offload TTL, named entries the note TTL.
    #[default]
    Default,
    Never,
    /// Milliseconds from now.
    After(i64),
}

/// Options of [`Scratchpad::put`].
#[derive(Default)]
pub struct PutOptions<'a> {
    /// The name; `None` picks `<tool>_<n>` (or `put_<n>`).
    pub name: Option<String>,
    pub source: Source,
    pub meta: serde_json::Value,
    pub turn: Option<String>,
    pub ttl: Ttl,
    pub pinned: bool,
    pub condition: Option<WriteCondition>,
    /// Called with the bytes read so far, about every chunk.
    pub progress: Option<&'a mut dyn FnMut(u64)>,
}

impl std::fmt::Debug for PutOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PutOptions")
            .field("name", &self.name)
            .field("source", &self.source)
            .field("turn", &self.turn)
            .field("ttl", &self.ttl)
            .field("pinned", &self.pinned)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

/// Options of [`Scratchpad::write`] for notes.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    pub if_version: Option<u64>,
    pub ttl: Ttl,
    pub pinned: Option<bool>,
    pub turn: Option<String>,
    pub meta: Option<serde_json::Value>,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditOutcome {
    pub entry: EntryInfo,
    pub replacements: usize,
}

/// Session figures plus store-wide ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub session: String,
    #[serde(flatten)]
    pub figures: SessionStats,
    /// Unique content bytes in the whole store (after dedup).
    pub store_bytes: u64,
    pub quota_bytes: Option<u64>,
}

impl Scratchpad {
    /// Opens a store by URL (`sqlite:///path.db`, a plain path, or `postgres://…`) with default settings.
    pub fn open(url: &str) -> Result<Self> {
        Self::open_with(Some(url), Config::default())
    }

    /// Opens a store with settings. `url` overrides `config.store`; both absent means the default file.
    pub fn open_with(url: Option<&str>, config: Config) -> Result<Self> {
        let url = url.map(str::to_owned).or_else(|| config.store.clone());
        let store = open_store(url.as_deref())?;
        let session = config
            .session
            .clone()
            .unwrap_or_else(|| DEFAULT_SESSION.to_owned());
        validate_name("session", &session)?;
        let pad = Self {
            store,
            config: Arc::new(config),
            session,
            syntax: Syntax::default(),
            writes: Arc::new(AtomicU64::new(0)),
            written_since_check: Arc::new(AtomicU64::new(0)),
        };
        pad.gc_if_due()?;
        Ok(pad)
    }

    /// The same store seen from another session.
    pub fn with_session(&self, session: &str) -> Result<Self> {
        validate_name("session", session)?;
        Ok(Self {
            session: session.to_owned(),
            ..self.clone()
        })
    }

    /// The same scratchpad, spelling continuations and hints for another face.
    pub fn with_syntax(&self, syntax: Syntax) -> Self {
        Self {
            syntax,
            ..self.clone()
        }
    }

    pub fn session(&self) -> &str {
        &self.session
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn syntax(&self) -> &Syntax {
        &self.syntax
    }

    /// Stores everything `input` yields, streaming, and returns the new entry.
    pub fn put(&self, input: &mut dyn Read, opts: PutOptions<'_>) -> Result<EntryInfo> {
        if let Some(name) = &opts.name {
            validate_name("name", name)?;
        }
        if let Some(turn) = &opts.turn {
            validate_name("turn", turn)?;
        }
        let ingested = ingest(
            self.store.as_ref(),
            input,
            &self.config.preview,
            opts.progress,
        )?;
        let auto = opts.name.is_none();
        let name = match opts.name {
            Some(name) => NameChoice::Given(name),
            None => NameChoice::Auto {
                stem: name_stem(opts.source.tool.as_deref().unwrap_or("put")),
            },
        };
        let condition = opts.condition.unwrap_or(WriteCondition::Any);
        self.commit(
            ingested,
            name,
            condition,
            opts.source,
            opts.meta,
            opts.turn,
            opts.ttl,
            auto,
            opts.pinned,
        )
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one private funnel for every write"
    )]
    fn commit(
        &self,
        ingested: Ingested,
        name: NameChoice,
        condition: WriteCondition,
        source: Source,
        meta: serde_json::Value,
        turn: Option<String>,
        ttl: Ttl,
        auto: bool,
        pinned: bool,
    ) -> Result<EntryInfo> {
        let now = now_ms();
        let ttl_ms = match ttl {
            Ttl::Default if auto => self.config.offload_ttl_ms(),
            Ttl::Default => self.config.note_ttl_ms(),
            Ttl::Never => None,
            Ttl::After(ms) => Some(ms),
        };
        let write = EntryWrite {
            session: self.session.clone(),
            name,
            kind: ingested.kind,
            preview: ingested.preview,
            source,
            meta,
            turn,
            expires_at: ttl_ms.map(|ms| now.saturating_add(ms)),
            pinned,
            condition,
            search_text: ingested.search_text,
            stats: ingested.stats,
            now,
        };
        let entry = self.store.commit(&write, ingested.blob)?;
        self.after_write(entry.info.bytes)?;
        Ok(entry.info)
    }

    /// Creates or replaces a note. Notes never expire unless a TTL is given.
    pub fn write(&self, name: &str, text: &str, opts: WriteOptions) -> Result<EntryInfo> {
        self.write_bytes(name, text.as_bytes(), opts)
    }

    fn write_bytes(&self, name: &str, content: &[u8], opts: WriteOptions) -> Result<EntryInfo> {
        let condition = match opts.if_version {
            Some(v) => WriteCondition::IfVersion(v),
            None => WriteCondition::Any,
        };
        self.write_if(name, content, opts, condition)
    }

    fn write_if(
        &self,
        name: &str,
        content: &[u8],
        opts: WriteOptions,
        condition: WriteCondition,
    ) -> Result<EntryInfo> {
        validate_name("name", name)?;
        let existing = self.lookup(name).ok();
        // An overwrite keeps what the caller did not change.
        let (pinned, meta, turn, source) = match &existing {
            Some(e) => (
                opts.pinned.unwrap_or(e.info.pinned),
                opts.meta.unwrap_or_else(|| e.info.meta.clone()),
                opts.turn.or_else(|| e.info.turn.clone()),
                e.info.source.clone(),
            ),
            None => (
                opts.pinned.unwrap_or(false),
                opts.meta.unwrap_or(serde_json::Value::Null),
                opts.turn,
                Source::default(),
            ),
        };
        let ttl = match (&existing, opts.ttl) {
            (Some(e), Ttl::Default) => match e.info.expires_at {
                Some(at) => Ttl::After((at - now_ms()).max(1)),
                None => Ttl::Never,
            },
            (_, ttl) => ttl,
        };
        let mut input = content;
        let ingested = ingest(self.store.as_ref(), &mut input, &self.config.preview, None)?;
        self.commit(
            ingested,
            NameChoice::Given(name.to_owned()),
            condition,
            source,
            meta,
            turn,
            ttl,
            false,
            pinned,
        )
    }

    /// Appends text to a note (creating it when absent), atomically. Without `if_version`, another
    /// writer getting in first is no conflict: the text goes after whatever is newest.
    pub fn append(&self, name: &str, text: &str, opts: WriteOptions) -> Result<EntryInfo> {
        validate_name("name", name)?;
        retry_unversioned(opts.if_version, || {
            self.append_once(name, text, opts.clone())
        })
    }

    fn append_once(&self, name: &str, text: &str, opts: WriteOptions) -> Result<EntryInfo> {
        let existing = match self.lookup(name) {
            Ok(entry) => entry,
            Err(Error::NotFound { .. }) if opts.if_version.is_none() => {
                return self.write_if(name, text.as_bytes(), opts, WriteCondition::CreateOnly);
            }
            Err(e) => return Err(e),
        };
        let version = check_expected(&existing.info, opts.if_version)?;
        if existing.info.kind == crate::model::Kind::Binary {
            return Err(Error::WrongKind(format!(
                "`{name}` is binary; append adds text to text entries. Write a new entry instead"
            )));
        }
        let content = read::source::EntryContent::new(self.store.as_ref(), &existing)?;
        let mut input = content.reader_at_byte(0)?.chain(text.as_bytes());
        let ingested = ingest(self.store.as_ref(), &mut input, &self.config.preview, None)?;
        let info = existing.info;
        let ttl = match info.expires_at {
            Some(at) => Ttl::After((at - now_ms()).max(1)),
            None => Ttl::Never,
        };
        self.commit(
            ingested,
            NameChoice::Given(info.name.clone()),
            WriteCondition::IfVersion(version),
            info.source,
            opts.meta.unwrap_or(info.meta),
            opts.turn.or(info.turn),
            if opts.ttl == Ttl::Default {
                ttl
            } else {
                opts.ttl
            },
            false,
            opts.pinned.unwrap_or(info.pinned),
        )
    }

    /// Replaces `old` by `new` in a note: `old` must occur exactly once unless `replace_all`.
    /// Without `if_version`, an edit that another writer beat to the note looks at it again.
    pub fn edit(
        &self,
        name: &str,
        old: &str,
        new: &str,
        replace_all: bool,
        if_version: Option<u64>,
    ) -> Result<EditOutcome> {
        if old.is_empty() {
            return Err(Error::invalid(
                "the text to replace is empty; give the exact text to change (use append to add text)",
            ));
        }
        retry_unversioned(if_version, || {
            self.edit_once(name, old, new, replace_all, if_version)
        })
    }

    fn edit_once(
        &self,
        name: &str,
        old: &str,
        new: &str,
        replace_all: bool,
        if_version: Option<u64>,
    ) -> Result<EditOutcome> {
        let existing = self.lookup(name)?;
        let version = check_expected(&existing.info, if_version)?;
        let info = &existing.info;
        if info.kind == crate::model::Kind::Binary {
            return Err(Error::WrongKind(format!(
                "`{}` is binary; edit changes text entries",
                info.name
            )));
        }
        if info.bytes > EDIT_MAX_BYTES {
            return Err(Error::TooLarge(format!(
                "`{}` is {} bytes; edit rewrites entries up to {} bytes. Write a new entry instead",
                info.name,
                crate::preview::thousands(info.bytes),
                crate::preview::thousands(EDIT_MAX_BYTES)
            )));
        }
        let content = read::source::EntryContent::new(self.store.as_ref(), &existing)?;
        let mut text = String::new();
        content
            .reader_at_byte(0)?
            .read_to_string(&mut text)
            .map_err(read::source::from_io)?;
        let count = text.matches(old).count();
        let replaced = match (count, replace_all) {
            (0, _) => {
                return Err(Error::invalid(format!(
                    "the text to replace does not occur in `{}`; read the note again and copy the exact text \
                     (whitespace and line breaks count)",
                    info.name
                )));
            }
            (1, _) | (_, true) => text.replace(old, new),
            (n, false) => {
                return Err(Error::invalid(format!(
                    "the text to replace occurs {n} times in `{}`; include more surrounding text to make it \
                     unique, or pass {} to replace every occurrence",
                    info.name,
                    self.syntax.flag("replace_all", "true")
                )));
            }
        };
        let entry = self.write_bytes(
            &info.name,
            replaced.as_bytes(),
            WriteOptions {
                if_version: Some(version),
                ..WriteOptions::default()
            },
        )?;
        Ok(EditOutcome {
            entry,
            replacements: if replace_all { count } else { 1 },
        })
    }

    pub fn rename(&self, name: &str, new_name: &str, if_version: Option<u64>) -> Result<EntryInfo> {
        validate_name("name", new_name)?;
        self.change(name, if_version, &EntryChange::Rename(new_name.to_owned()))
    }

    pub fn pin(&self, name: &str, pinned: bool, if_version: Option<u64>) -> Result<EntryInfo> {
        self.change(name, if_version, &EntryChange::Pin(pinned))
    }

    /// Sets the lifetime from now (`None`: never expires).
    pub fn set_ttl(
        &self,
        name: &str,
        ttl_ms: Option<i64>,
        if_version: Option<u64>,
    ) -> Result<EntryInfo> {
        let at = ttl_ms.map(|ms| now_ms().saturating_add(ms));
        self.change(name, if_version, &EntryChange::ExpiresAt(at))
    }

    fn change(
        &self,
        name: &str,
        if_version: Option<u64>,
        change: &EntryChange,
    ) -> Result<EntryInfo> {
        check_key(name)?;
        self.store
            .update(&self.session, name, if_version, change, now_ms())
    }

    pub fn delete(&self, name: &str, if_version: Option<u64>) -> Result<EntryInfo> {
        check_key(name)?;
        self.store.delete(&self.session, name, if_version)
    }

    /// Removes every entry tagged with `turn`.
    pub fn expire_turn(&self, turn: &str) -> Result<u64> {
        validate_name("turn", turn)?;
        self.store.delete_turn(&self.session, turn)
    }

    /// An entry's metadata by name or id.
    pub fn get(&self, name: &str) -> Result<EntryInfo> {
        Ok(self.lookup(name)?.info)
    }

    fn lookup(&self, key: &str) -> Result<crate::store::Entry> {
        check_key(key)?;
        let now = now_ms();
        match self.store.entry(&self.session, key, now)? {
            Some(entry) => Ok(entry),
            None => {
                let names = self.store.similar_names(&self.session, key, 5, now)?;
                Err(crate::error::not_found(&self.session, key, &names))
            }
        }
    }

    /// Reads part of an entry. `budget_chars` overrides the configured reply budget.
    pub fn read(
        &self,
        name: &str,
        mode: &ReadMode,
        budget_chars: Option<usize>,
    ) -> Result<ReadReply> {
        // A concurrent overwrite can free the content between lookup and read: look again.
        retry_while(
            READ_RETRIES,
            |err| matches!(err, Error::Raced(_)),
            || self.read_once(name, mode, budget_chars),
        )
        .map_err(|err| match err {
            Error::Raced(_) => Error::Raced(name.to_owned()),
            other => other,
        })
    }

    fn read_once(
        &self,
        name: &str,
        mode: &ReadMode,
        budget_chars: Option<usize>,
    ) -> Result<ReadReply> {
        let entry = self.lookup(name)?;
        let now = now_ms();
        if now - entry.info.accessed_at > TOUCH_INTERVAL_MS {
            self.store.touch(&self.session, &entry.info.name, now)?;
        }
        let limits = ReadLimits {
            budget_chars: budget_chars.unwrap_or(self.config.read_budget_chars) as u64,
            full_max_chars: self.config.full_max_chars as u64,
            syntax: &self.syntax,
        };
        read::read(self.store.as_ref(), &entry, mode, limits)
    }

    /// The whole content of an entry as a stream (for exports and pass-by-reference).
    pub fn open_content(&self, name: &str) -> Result<(EntryInfo, Box<dyn Read + '_>)> {
        let entry = self.lookup(name)?;
        let content = read::source::EntryContent::new(self.store.as_ref(), &entry)?;
        let reader = content.reader_at_byte(0)?;
        Ok((entry.info, Box::new(reader)))
    }

    /// Entries of this session, newest first.
    pub fn list(&self, filter: &ListFilter, cursor: Option<&str>, limit: usize) -> Result<Page> {
        if let Some(turn) = &filter.turn {
            validate_name("turn", turn)?;
        }
        self.store
            .list(&self.session, filter, cursor, limit, now_ms())
    }

    /// Ranked full-text search over this session's entries.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        self.store.search(&self.session, query, limit, now_ms())
    }

    pub fn stats(&self) -> Result<Stats> {
        Ok(Stats {
            session: self.session.clone(),
            figures: self.store.stats(&self.session, now_ms())?,
            store_bytes: self.store.stored_bytes()?,
            quota_bytes: self.config.quota_bytes,
        })
    }

    /// Expires, evicts over quota, drops abandoned writes and returns disk space, store-wide.
    pub fn gc(&self) -> Result<GcReport> {
        self.store.gc(&GcPolicy {
            now: now_ms(),
            quota_bytes: self.config.quota_bytes,
            stale_after_ms: STALE_WRITE_MS,
        })
    }

    fn gc_if_due(&self) -> Result<()> {
        let due = self
            .store
            .last_gc_at()?
            .is_none_or(|at| now_ms() - at > GC_ON_OPEN_INTERVAL_MS);
        if due {
            self.gc()?;
        }
        Ok(())
    }

    fn after_write(&self, bytes: u64) -> Result<()> {
        let writes = self.writes.fetch_add(1, Ordering::Relaxed) + 1;
        // Summing the store is not free: check the quota once a hundredth of it has been written.
        let over_quota = match self.config.quota_bytes {
            Some(quota) => {
                let written = self.written_since_check.fetch_add(bytes, Ordering::Relaxed) + bytes;
                if written >= quota / 100 {
                    self.written_since_check.store(0, Ordering::Relaxed);
                    self.store.stored_bytes()? > quota
                } else {
                    false
                }
            }
            None => false,
        };
        if over_quota || writes.is_multiple_of(GC_EVERY_WRITES) {
            self.gc()?;
        }
        Ok(())
    }
}

/// Runs an update of a note again, after a pause, when another writer changed the note first,
/// unless the caller named the version it meant to change: then that is their conflict to see.
fn retry_unversioned<T>(
    if_version: Option<u64>,
    mut update: impl FnMut() -> Result<T>,
) -> Result<T> {
    if if_version.is_some() {
        return update();
    }
    retry_while(
        UPDATE_RETRIES,
        |err| matches!(err, Error::Conflict(_) | Error::Raced(_)),
        update,
    )
}

/// Runs `attempt` again, up to `retries` times with a growing pause, while it fails with an error
/// `retryable` accepts. Writers in a tight loop could win every immediate retry.
fn retry_while<T>(
    retries: u32,
    retryable: impl Fn(&Error) -> bool,
    mut attempt: impl FnMut() -> Result<T>,
) -> Result<T> {
    let mut retry = 0;
    loop {
        match attempt() {
            Err(err) if retry < retries && retryable(&err) => {
                std::thread::sleep(retry_pause(retry));
                retry += 1;
            }
            other => return other,
        }
    }
}

/// How long the `retry`-th retry after a collision with another writer waits: nothing at first,
/// then a doubling pause (capped at 50 ms: 313 ms over a read's retries) cut by a random part of
/// up to half, so that processes that collided once do not collide again in step.
fn retry_pause(retry: u32) -> std::time::Duration {
    if retry == 0 {
        return std::time::Duration::ZERO;
    }
    let full_us = (1000u64 << (retry - 1).min(6)).min(50_000);
    let cut = getrandom::u64().map_or(0, |r| r % (full_us / 2));
    std::time::Duration::from_micros(full_us - cut)
}

fn check_key(key: &str) -> Result<()> {
    validate_name("name", key)
}

fn check_expected(info: &EntryInfo, if_version: Option<u64>) -> Result<u64> {
    match if_version {
        Some(v) if v != info.version => Err(Error::Conflict(crate::error::ConflictKind::Version {
            name: info.name.clone(),
            expected: v,
            current: Some(info.version),
        })),
        _ => Ok(info.version),
    }
}

/// Opens the backend a URL names.
fn open_store(url: Option<&str>) -> Result<Arc<dyn Store>> {
    let Some(url) = url else {
        return Ok(Arc::new(SqliteStore::open(&default_store_path())?));
    };
    let path = match parse_store_url(url)? {
        StoreUrl::Sqlite(path) => path,
        StoreUrl::Postgres(url) => return open_postgres(url),
    };
    // A mistyped explicit path should fail, not quietly start an empty store somewhere new.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(Error::Config(format!(
            "the store directory {} does not exist; create it first or fix the --store path",
            dir.display()
        )));
    }
    Ok(Arc::new(SqliteStore::open(&path)?))
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
#[cfg_attr(feature = "postgres", allow(dead_code))]
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
            "the store URL is empty; pass sqlite:///path/to/file.db, or unset SCRATCHPAD_STORE to use the default store"
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
mod store_url_tests {
    use super::*;

    #[test]
    fn a_build_without_postgres_says_so_plainly() {
        let msg = postgres_disabled().to_string();
        assert!(
            msg.contains("postgres support is not enabled in this build"),
            "{msg}"
        );
        assert!(matches!(
            parse_store_url("postgresql://u:pw@h/db"),
            Ok(StoreUrl::Postgres(_))
        ));
    }
}

#[cfg(test)]
mod raced_read_tests {
    use super::*;

    #[test]
    fn raced_reads_back_off_within_a_third_of_a_second() {
        use std::time::Duration;
        assert_eq!(retry_pause(0), Duration::ZERO);
        let pauses: Vec<Duration> = (1..READ_RETRIES).map(retry_pause).collect();
        assert!(pauses[0] >= Duration::from_micros(500) && pauses[0] <= Duration::from_millis(1));
        assert!(pauses.iter().all(|p| *p <= Duration::from_millis(50)));
        let total: Duration = pauses.iter().sum();
        assert!(total <= Duration::from_millis(313), "{total:?}");
        assert!(total >= Duration::from_millis(156), "{total:?}");
    }
}
