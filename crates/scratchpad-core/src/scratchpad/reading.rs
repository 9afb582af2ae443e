//! How entries are found and read: by name or id, in slices, as a stream, listed, searched, counted.

use std::io::Read;

use serde::Serialize;

use super::Scratchpad;
use super::retry::{READ_RETRIES, retry_while};
use crate::error::{Error, Result, closest_names};
use crate::model::{EntryInfo, Kind, estimate_tokens, now_ms, validate_name};
use crate::read::source::EntryContent;
use crate::read::{self, ReadLimits, ReadMode, ReadReply, Stop};
use crate::store::{
    Entry, KindTotals, ListFilter, Page, SearchHit, UsageBucket, UsageEvent, UsageKind, Watch,
};

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
            let reply = self.read_entry_until(entry, mode, budget_chars, stop)?;
            self.record_read(entry, mode, &reply);
            Ok(reply)
        })
    }

    /// Adds a read to the usage record: what it returned went into a model's context. Best effort,
    /// like access times: a store that cannot be written still serves reads.
    pub(super) fn record_read(&self, entry: &Entry, mode: &ReadMode, reply: &ReadReply) {
        if self.observer {
            return;
        }
        let _ = self.store.record_usage(&UsageEvent {
            at: now_ms(),
            session: self.session.clone(),
            name: entry.info.name.clone(),
            tool: entry.info.source.tool.clone(),
            kind: entry.info.kind,
            event: UsageKind::Read,
            mode: Some(mode.name().to_owned()),
            content_bytes: entry.info.bytes,
            shown_bytes: reply.text.len() as u64,
        });
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
        if !self.observer && now - entry.info.accessed_at > TOUCH_INTERVAL_MS {
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
        self.store
            .search(Some(&self.session), &search_words(query)?, limit, now_ms())
    }

    /// [`search`](Self::search) over every session of the store. For the store's owner (the web
    /// view), never for a model: everything else a handle does is confined to its session.
    pub fn search_all_sessions(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        self.store
            .search(None, &search_words(query)?, limit, now_ms())
    }

    pub fn stats(&self) -> Result<Stats> {
        let figures = SessionStats::from_totals(&self.store.totals(&self.session, now_ms())?);
        Ok(Stats {
            session: self.session.clone(),
            figures,
            store_bytes: self.store.stored_bytes()?,
            quota_bytes: self.config.quota_bytes,
        })
    }

    /// Every session of the store that holds live entries, with its figures, most recently changed
    /// first. For the store's owner (the web view): it crosses sessions.
    pub fn sessions(&self) -> Result<Vec<SessionSummary>> {
        let mut sessions: Vec<SessionSummary> = Vec::new();
        for row in self.store.session_totals(now_ms())? {
            match sessions.last_mut() {
                Some(last) if last.session == row.session => {
                    last.kinds.push(row.totals);
                    last.last_changed = last.last_changed.max(row.last_changed);
                }
                _ => sessions.push(SessionSummary {
                    session: row.session,
                    figures: SessionStats::default(),
                    last_changed: row.last_changed,
                    kinds: vec![row.totals],
                }),
            }
        }
        for summary in &mut sessions {
            summary.figures = SessionStats::from_totals(&summary.kinds);
        }
        sessions.sort_by(|a, b| {
            b.last_changed
                .cmp(&a.last_changed)
                .then_with(|| a.session.cmp(&b.session))
        });
        Ok(sessions)
    }

    /// The usage record of one session (every session: `None`): what tool outputs were stored, what
    /// previews were shown instead and what reads returned, summed per `bucket_ms` (`None`: a
    /// length that splits the record's span into at most [`USAGE_BUCKETS`] buckets).
    pub fn usage(&self, session: Option<&str>, bucket_ms: Option<i64>) -> Result<Usage> {
        if let Some(session) = session {
            validate_name("session", session)?;
        }
        let span = self.store.usage_span(session)?;
        let bucket_ms = bucket_ms
            .filter(|ms| *ms > 0)
            .unwrap_or_else(|| bucket_for(span.map_or(0, |(from, to)| to - from)));
        let buckets = match span {
            Some(_) => self.store.usage(session, bucket_ms)?,
            None => Vec::new(),
        };
        Ok(Usage {
            session: session.map(str::to_owned),
            span,
            bucket_ms,
            buckets,
        })
    }

    /// Starts watching the whole store for changes: anything any agent commits, in any session.
    pub fn watch(&self) -> Result<Box<dyn Watch>> {
        self.store.watch()
    }
}

/// The words of a search query: the user's punctuation is never query syntax.
fn search_words(query: &str) -> Result<Vec<&str>> {
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|word| !word.is_empty())
        .collect();
    if words.is_empty() {
        return Err(Error::invalid(
            "the search query has no words; search for words or identifiers that appear in entries",
        ));
    }
    Ok(words)
}

/// Buckets a usage chart is split into at most, when no bucket length is given.
pub const USAGE_BUCKETS: i64 = 48;

/// The shortest of a few round lengths (a minute to a week, in ms) that splits `span_ms` into at
/// most [`USAGE_BUCKETS`] buckets.
fn bucket_for(span_ms: i64) -> i64 {
    const MINUTE: i64 = 60 * 1000;
    const HOUR: i64 = 60 * MINUTE;
    const DAY: i64 = 24 * HOUR;
    [
        MINUTE,
        5 * MINUTE,
        15 * MINUTE,
        HOUR,
        3 * HOUR,
        6 * HOUR,
        DAY,
        7 * DAY,
        30 * DAY,
    ]
    .into_iter()
    .find(|bucket| span_ms / bucket < USAGE_BUCKETS)
    .unwrap_or(30 * DAY)
}

impl SessionStats {
    /// Figures from what a session holds per kind: tokens estimated from bytes by kind, and those
    /// kept out as the content's less what its previews show.
    fn from_totals(totals: &[KindTotals]) -> Self {
        let mut figures = Self::default();
        for totals in totals {
            let tokens = estimate_tokens(totals.kind, totals.bytes);
            let shown = estimate_tokens(Kind::Text, totals.preview_bytes);
            figures.entries += totals.entries;
            figures.pinned += totals.pinned;
            figures.bytes += totals.bytes;
            figures.tokens_est += tokens;
            figures.tokens_kept_out += tokens.saturating_sub(shown);
        }
        figures
    }
}

/// One session of the store and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    pub session: String,
    #[serde(flatten)]
    pub figures: SessionStats,
    /// The latest change to one of its live entries (unix ms).
    pub last_changed: i64,
    #[serde(skip)]
    kinds: Vec<KindTotals>,
}

/// The usage record, summed per time bucket, tool, kind and event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    /// The session it covers; `None`: every session.
    pub session: Option<String>,
    /// The times of its oldest and newest lines (unix ms); `None` when it is empty.
    pub span: Option<(i64, i64)>,
    pub bucket_ms: i64,
    #[serde(skip)]
    pub buckets: Vec<UsageBucket>,
}

impl UsageBucket {
    /// Tokens a stored output kept out of the context: its content's, less its preview's (0 for
    /// reads).
    pub fn tokens_kept_out(&self) -> u64 {
        match self.event {
            UsageKind::Stored => estimate_tokens(self.kind, self.content_bytes)
                .saturating_sub(estimate_tokens(Kind::Text, self.shown_bytes)),
            UsageKind::Read => 0,
        }
    }

    /// Tokens a read brought back into the context (0 for stored outputs).
    pub fn tokens_read_back(&self) -> u64 {
        match self.event {
            UsageKind::Stored => 0,
            UsageKind::Read => estimate_tokens(Kind::Text, self.shown_bytes),
        }
    }
}
