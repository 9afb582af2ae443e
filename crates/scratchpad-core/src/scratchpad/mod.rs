//! The engine every face calls: a store, a configuration and the caller's session. Each file of
//! this module answers one question: where the store is (`open`), how content gets in (`write`),
//! how entries are changed and removed (`manage`), how they are found and read (`reading`), how the
//! store stays within bounds (`upkeep`), how a collision with another writer is retried (`retry`),
//! what a note was and how it changed (`history`), and who may change a name for a while (`leases`).

mod history;
mod leases;
mod manage;
mod open;
mod reading;
mod retry;
mod upkeep;
mod write;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

pub use history::DiffOptions;
pub use open::{check_store_url, sqlite_store_file};
pub use reading::{SessionStats, SessionSummary, Stats, USAGE_BUCKETS, Usage};
pub use write::{EDIT_MAX_BYTES, EditOutcome, PutOptions, WriteOptions};

use crate::config::Config;
use crate::error::Result;
use crate::model::{validate_author, validate_name};
use crate::store::{Store, Writer};

/// The session used when none is given.
pub const DEFAULT_SESSION: &str = "default";

/// A scratchpad: one store seen from one session.
#[derive(Debug, Clone)]
pub struct Scratchpad {
    store: Arc<dyn Store>,
    config: Arc<Config>,
    session: String,
    /// Who the changes made through this handle are recorded as.
    author: Option<String>,
    /// The lease token changes made through this handle carry.
    lease: Option<u64>,
    /// Reads through this handle leave no trace (see [`Scratchpad::as_observer`]).
    observer: bool,
    writes: Arc<AtomicU64>,
    written_since_check: Arc<AtomicU64>,
}

impl Scratchpad {
    /// Opens a store by URL (`sqlite:///path.db`, a plain path, or `postgres://…`) with default settings.
    pub fn open(url: &str) -> Result<Self> {
        Self::open_with(Some(url), Config::default())
    }

    /// Opens a store with settings. `url` overrides `config.store`; both absent means the default file.
    pub fn open_with(url: Option<&str>, config: Config) -> Result<Self> {
        let url = url
            .map(str::to_owned)
            .or_else(|| config.store.as_ref().map(|s| s.as_str().to_owned()));
        let store = open::open_store(url.as_deref())?;
        let session = config
            .session
            .clone()
            .unwrap_or_else(|| DEFAULT_SESSION.to_owned());
        validate_name("session", &session)?;
        let pad = Self {
            store,
            config: Arc::new(config),
            session,
            author: None,
            lease: None,
            observer: false,
            writes: Arc::new(AtomicU64::new(0)),
            written_since_check: Arc::new(AtomicU64::new(0)),
        };
        // Upkeep, not what the caller came for: a store that cannot be written right now (a full
        // disk, a read-only file) still opens, and serves reads.
        let _ = pad.gc_if_due();
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

    /// The same scratchpad with another offload threshold (bytes); per-tool overrides still win.
    pub fn with_threshold(&self, bytes: usize) -> Self {
        let mut config = (*self.config).clone();
        config.threshold_bytes = bytes;
        Self {
            config: Arc::new(config),
            ..self.clone()
        }
    }

    pub fn session(&self) -> &str {
        &self.session
    }

    /// The same scratchpad, recording `author` as the writer of every change made through it
    /// (`history` and `list` show it). An author is a free label of 1 to 128 characters.
    pub fn with_author(&self, author: &str) -> Result<Self> {
        validate_author(author)?;
        Ok(Self {
            author: Some(author.trim().to_owned()),
            ..self.clone()
        })
    }

    /// Who changes made through this handle are recorded as.
    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }

    /// The same scratchpad, with every change made through it carrying lease `token` (or none):
    /// the store refuses such a change when a newer token was issued for the name it changes, so a
    /// holder whose lease lapsed cannot overwrite its successor's work. A token is issued by
    /// [`acquire_lease`](Self::acquire_lease) on that name.
    pub fn with_lease(&self, token: Option<u64>) -> Self {
        Self {
            lease: token,
            ..self.clone()
        }
    }

    /// The same scratchpad for someone looking on (a person in the web view), whose reads leave no
    /// trace: they neither refresh access times, which decide what is evicted first, nor count in
    /// the usage record as tokens read back into a model's context.
    pub fn as_observer(&self) -> Self {
        Self {
            observer: true,
            ..self.clone()
        }
    }

    /// Whether reads through this handle leave no trace.
    pub fn is_observer(&self) -> bool {
        self.observer
    }

    /// Who is writing, with what lease, under which history policy.
    pub(crate) fn writer(&self) -> Writer {
        Writer {
            author: self.author.clone(),
            lease: self.lease,
            history: self.config.history_policy(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// In a child process made by fork(2), lets go of the store connections inherited from the
    /// parent, so that the next calls open the child's own; the handle goes on working. SQLite's
    /// are closed (which touches only this process's locks), PostgreSQL's forgotten without a word
    /// to the server (the session is the parent's). Every handle on the store shares them, so
    /// once per store is enough, and more is harmless. Only idle connections can be let go: no call
    /// may have been in progress, on any thread, when the process forked.
    pub fn after_fork(&self) {
        self.store.after_fork();
    }

    /// Whether `bytes` of a tool's output are too many to show whole: the offload policy's one
    /// threshold, which every face asks here.
    pub fn is_large(&self, tool: Option<&str>, bytes: u64) -> bool {
        bytes > self.config.threshold_for(tool) as u64
    }
}
