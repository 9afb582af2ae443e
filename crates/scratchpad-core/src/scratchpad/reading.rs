//! How entries are found and read: by name or id, in slices, as a stream, listed, searched, counted.

use std::io::Read;

use serde::Serialize;

use super::Scratchpad;
use super::retry::{READ_RETRIES, retry_while};
use crate::error::{Error, Result, closest_names};
use crate::model::{EntryInfo, Kind, estimate_tokens, now_ms, validate_name};
use crate::read::source::EntryContent;
use crate::read::{self, ReadLimits, ReadMode, ReadReply, Stop};
use crate::store::{Entry, ListFilter, Page, SearchHit};

/// Reads refresh an entry's access time at most this often (ms), so reads rarely write.
const TOUCH_INTERVAL_MS: i64 = 60 * 1000;
/// Recent names a "did you mean" looks through.
const SUGGESTION_POOL: usize = 2_000;
/// Names a "did you mean" offers.
const SUGGESTIONS: usize = 5;

/// Figures for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SessionStats {
    pub entries: u64,
    pub pinned: u64,
    pub bytes: u64,
    pub tokens_est: u64,
    /// Estimated tokens of the stored content minus what its previews show.
    pub tokens_kept_out: u64,
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
    /// An entry's metadata by name or id.
    pub fn get(&self, name: &str) -> Result<EntryInfo> {
        Ok(self.lookup(name)?.info)
    }

    /// The live entry a name or id points at, if any: no suggestions are looked for.
    pub(super) fn find(&self, key: &str) -> Result<Option<Entry>> {
        validate_name("name", key)?;
        self.store.entry(&self.session, key, now_ms())
    }

    /// The live entry a name or id points at; not finding it is an error that names close names.
    pub(crate) fn lookup(&self, key: &str) -> Result<Entry> {
        self.find(key)?.ok_or_else(|| self.not_found(key))
    }

    /// "No entry named …", with the closest names that do exist.
    pub(super) fn not_found(&self, key: &str) -> Error {
        let names = self
            .store
            .recent_names(&self.session, SUGGESTION_POOL, now_ms())
            .unwrap_or_default();
        Error::NotFound {
            name: key.to_owned(),
            session: self.session.clone(),
            similar: closest_names(key, names, SUGGESTIONS),
        }
    }

    /// Reads part of an entry. `budget_chars` overrides the configured reply budget. The read gives
    /// up after [`READ_TIMEOUT`](crate::read::READ_TIMEOUT).
    pub fn read(
        &self,
        name: &str,
        mode: &ReadMode,
        budget_chars: Option<usize>,
    ) -> Result<ReadReply> {
        self.read_until(name, mode, budget_chars, Stop::after(read::READ_TIMEOUT))
    }

    /// [`read`](Self::read), giving up as `stop` says (e.g. when the caller's request is cancelled).
    pub fn read_until(
        &self,
        name: &str,
        mode: &ReadMode,
        budget_chars: Option<usize>,
        stop: Stop<'_>,
    ) -> Result<ReadReply> {
        self.with_entry(name, |entry| {
            self.read_entry_until(entry, mode, budget_chars, stop)
        })
    }

    /// Looks an entry up and runs `f` on it; a concurrent overwrite can free the content between
    /// the lookup and the read, and then both run again.
    pub(crate) fn with_entry<T>(
        &self,
        key: &str,
        mut f: impl FnMut(&Entry) -> Result<T>,
    ) -> Result<T> {
        retry_while(
            READ_RETRIES,
            |err| matches!(err, Error::Raced(_)),
            || f(&self.lookup(key)?),
        )
        .map_err(|err| match err {
            Error::Raced(_) => Error::Raced(key.to_owned()),
            other => other,
        })
    }

    /// Reads part of an entry already looked up.
    pub(crate) fn read_entry(
        &self,
        entry: &Entry,
        mode: &ReadMode,
        budget_chars: Option<usize>,
    ) -> Result<ReadReply> {
        self.read_entry_until(entry, mode, budget_chars, Stop::after(read::READ_TIMEOUT))
    }

    pub(super) fn read_entry_until(
        &self,
        entry: &Entry,
        mode: &ReadMode,
        budget_chars: Option<usize>,
        stop: Stop<'_>,
    ) -> Result<ReadReply> {
        let now = now_ms();
        // Access times feed eviction, nothing a read needs: a store that cannot be written (a full
        // disk, a read-only file) still serves reads.
        if now - entry.info.accessed_at > TOUCH_INTERVAL_MS {
            let _ = self.store.touch(&self.session, &entry.info.name, now);
        }
        let limits = ReadLimits {
            budget_chars: budget_chars.unwrap_or(self.config.read_budget_chars) as u64,
            budget_given: budget_chars.is_some(),
            full_max_chars: self.config.full_max_chars as u64,
            stop,
        };
        read::read(self.store.as_ref(), entry, mode, limits)
            .map_err(|e| e.in_entry(&entry.info.name))
    }

    /// The whole content of an entry as a stream (for exports and pass-by-reference).
    pub fn open_content(&self, name: &str) -> Result<(EntryInfo, Box<dyn Read + '_>)> {
        let entry = self.lookup(name)?;
        let reader = EntryContent::new(self.store.as_ref(), &entry).reader_at_byte(0)?;
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

    /// Ranked full-text search over this session's entries: entries with every word of `query`
    /// first, else any of them.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        // Words only: the user's punctuation is never query syntax.
        let words: Vec<&str> = query
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|word| !word.is_empty())
            .collect();
        if words.is_empty() {
            return Err(Error::invalid(
                "the search query has no words; search for words or identifiers that appear in entries",
            ));
        }
        self.store.search(&self.session, &words, limit, now_ms())
    }

    pub fn stats(&self) -> Result<Stats> {
        let mut figures = SessionStats::default();
        for totals in self.store.totals(&self.session, now_ms())? {
            let tokens = estimate_tokens(totals.kind, totals.bytes);
            let shown = estimate_tokens(Kind::Text, totals.preview_bytes);
            figures.entries += totals.entries;
            figures.pinned += totals.pinned;
            figures.bytes += totals.bytes;
            figures.tokens_est += tokens;
            figures.tokens_kept_out += tokens.saturating_sub(shown);
        }
        Ok(Stats {
            session: self.session.clone(),
            figures,
            store_bytes: self.store.stored_bytes()?,
            quota_bytes: self.config.quota_bytes,
        })
    }
}
