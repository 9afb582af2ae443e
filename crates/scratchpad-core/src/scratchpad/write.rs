//! How content gets in: streamed puts, notes written, appended to and edited, all through one commit.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use serde::Serialize;

use super::Scratchpad;
use super::retry::retry_unversioned;
use crate::advice::{Advice, Arg, ArgName};
use crate::config::Ttl;
use crate::error::{ConflictKind, Error, Result};
use crate::figures::thousands;
use crate::history::{Change, DELTA_MAX_BYTES};
use crate::ingest::{
    Ingested, SEARCH_HEAD_BYTES, SEARCH_TAIL_BYTES, ingest, ingest_until, search_text_of_long,
};
use crate::model::{EntryInfo, Kind, Source, name_stem, now_ms, validate_name};
use crate::read::Stop;
use crate::read::source::{EntryContent, from_io};
use crate::store::{
    CHUNK_BYTES, Entry, EntryWrite, NameChoice, Pending, PendingBlob, REUSE_MIN_BYTES,
    WriteCondition,
};

/// Largest note an edit rewrites in memory (bytes).
pub const EDIT_MAX_BYTES: u64 = 64 * 1024 * 1024;

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
    /// Keep the versions that later changes replace, as notes do. Outputs of tools (a `source.tool`,
    /// or an automatic name) keep none unless this is set; other named entries always keep them.
    pub keep_history: bool,
    /// Called with the bytes read so far, about every chunk.
    pub progress: Option<&'a mut dyn FnMut(u64)>,
    /// Gives up as this says, checked before each read of the input: nothing is stored then.
    pub stop: Stop<'a>,
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
            .field("keep_history", &self.keep_history)
            .field("stop", &self.stop)
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

/// Everything a commit needs besides the content.
#[derive(Clone)]
pub(super) struct Commit {
    pub name: NameChoice,
    pub condition: WriteCondition,
    pub source: Source,
    pub meta: serde_json::Value,
    pub turn: Option<String>,
    pub ttl: Ttl,
    pub pinned: bool,
    /// What the write does to the entry it replaces.
    pub change: Change,
    pub keeps_history: bool,
    /// A tool's output (a put), counted in the usage record; notes are not.
    pub records_usage: bool,
    /// The id of the removed entry this write brings back.
    pub restores: Option<String>,
}

impl Scratchpad {
    /// Stores everything `input` yields, streaming, and returns the new entry.
    pub fn put(&self, input: &mut dyn Read, mut opts: PutOptions<'_>) -> Result<EntryInfo> {
        validate_put(&opts)?;
        let ingested = ingest_until(
            self.store.as_ref(),
            input,
            &self.config.preview,
            opts.progress.take(),
            opts.stop,
        )?;
        self.commit(ingested, put_commit(opts))
    }

    /// Stores a file's content, from where it is read next to its end, like [`Scratchpad::put`];
    /// content stored already costs one read to hash it, not a write.
    pub fn put_file(&self, file: &mut File, opts: PutOptions<'_>) -> Result<EntryInfo> {
        self.put_rereadable(Rereadable::File(file), opts)
    }

    /// Stores bytes held in memory, like [`Scratchpad::put`]; content stored already costs a hash.
    pub fn put_bytes(&self, bytes: &[u8], opts: PutOptions<'_>) -> Result<EntryInfo> {
        self.put_rereadable(Rereadable::Bytes(bytes), opts)
    }

    fn put_rereadable(
        &self,
        mut input: Rereadable<'_>,
        mut opts: PutOptions<'_>,
    ) -> Result<EntryInfo> {
        validate_put(&opts)?;
        let mut progress = opts.progress.take();
        let stop = opts.stop;
        let commit = put_commit(opts);
        if let Some((ingested, bytes)) = self.stored_already(&mut input, stop)? {
            let hash = ingested.stats.hash.clone();
            match self.commit(ingested, commit.clone()) {
                Ok(info) => {
                    if let Some(report) = progress.as_mut() {
                        report(bytes);
                    }
                    return Ok(info);
                }
                // Collected between the lookup and the commit: stored again below, from the input.
                Err(_)
                    if self
                        .store
                        .reusable(&hash, &self.config.preview.key())?
                        .is_none() => {}
                Err(err) => return Err(err),
            }
        }
        let ingested = ingest_until(
            self.store.as_ref(),
            &mut input,
            &self.config.preview,
            progress,
            stop,
        )?;
        self.commit(ingested, commit)
    }

    /// The input as a write of content stored already, with how many bytes it has, when it is large,
    /// content of its size is stored, and its hash finds an entry whose preview this store's
    /// settings made. Hashing reads the input through, then goes back to where it started.
    fn stored_already(
        &self,
        input: &mut Rereadable<'_>,
        stop: Stop<'_>,
    ) -> Result<Option<(Ingested, u64)>> {
        let Some(len) = input.len()? else {
            return Ok(None);
        };
        if len < REUSE_MIN_BYTES || !self.store.holds_size(len)? {
            return Ok(None);
        }
        let Some(read) = input.hash(len, stop)? else {
            return Ok(None);
        };
        // UTF-16 is stored transcoded, under the hash of its UTF-8 form.
        if read.head.starts_with(&[0xFF, 0xFE]) || read.head.starts_with(&[0xFE, 0xFF]) {
            return Ok(None);
        }
        let Some(reused) = self
            .store
            .reusable(&read.hash, &self.config.preview.key())?
        else {
            return Ok(None);
        };
        let search_text = match reused.kind {
            Kind::Binary => String::new(),
            Kind::Text | Kind::Json => search_text_of_long(&read.head, &read.tail),
        };
        let ingested = Ingested {
            stats: reused.stats,
            kind: reused.kind,
            preview: reused.preview,
            profile: reused.profile,
            search_text,
            blob: PendingBlob {
                chunks: Vec::new(),
                content: Pending::Stored,
            },
        };
        Ok(Some((ingested, len)))
    }

    /// The one funnel of every write: resolves the lifetime, commits, and keeps the store in bounds.
    pub(super) fn commit(&self, ingested: Ingested, commit: Commit) -> Result<EntryInfo> {
        let now = now_ms();
        let ttl = match (commit.ttl, &commit.name) {
            (Ttl::Default, NameChoice::Auto { .. }) => self.config.offload_ttl,
            (Ttl::Default, NameChoice::Given(_)) => self.config.note_ttl,
            (ttl, _) => ttl,
        };
        let write = EntryWrite {
            session: self.session.clone(),
            name: commit.name,
            kind: ingested.kind,
            preview: ingested.preview,
            source: commit.source,
            meta: commit.meta,
            turn: commit.turn,
            expires_at: ttl.expires_at(now),
            pinned: commit.pinned,
            condition: commit.condition,
            search_text: ingested.search_text,
            profile: ingested.profile,
            preview_key: Some(self.config.preview.key()),
            stats: ingested.stats,
            now,
            writer: self.writer(),
            change: commit.change,
            keeps_history: commit.keeps_history,
            records_usage: commit.records_usage,
            restores: commit.restores,
        };
        let entry = self.store.commit(&write, ingested.blob)?;
        self.after_write(entry.info.bytes);
        Ok(entry.info)
    }

    /// Creates or replaces a note. Notes never expire unless a TTL is given.
    /// `if_version: Some(0)` writes only when no note of that name exists: version 0 is the note
    /// before it was created, so two writers creating the same note cannot both succeed.
    pub fn write(&self, name: &str, text: &str, opts: WriteOptions) -> Result<EntryInfo> {
        let condition = match opts.if_version {
            Some(0) => WriteCondition::CreateOnly,
            Some(v) => WriteCondition::IfVersion(v),
            None => WriteCondition::Any,
        };
        self.write_if(name, text.as_bytes(), opts, condition, None)
    }

    /// Creates a note. An entry of that name is a conflict
    /// ([`ConflictKind::Exists`](crate::ConflictKind::Exists)) and stays as it is.
    pub fn create(&self, name: &str, text: &str, opts: WriteOptions) -> Result<EntryInfo> {
        self.write_if(
            name,
            text.as_bytes(),
            opts,
            WriteCondition::CreateOnly,
            Some(Change::Created),
        )
    }

    /// Writes a note; `change` says what the write does, `None` to count the lines it changes.
    fn write_if(
        &self,
        name: &str,
        content: &[u8],
        opts: WriteOptions,
        condition: WriteCondition,
        change: Option<Change>,
    ) -> Result<EntryInfo> {
        validate_name("name", name)?;
        // A failure to look is a failure, never "absent": that would drop what the caller kept.
        let existing = self.find(name)?;
        let now = now_ms();
        let change = match (change, &existing) {
            (Some(change), _) => change,
            (None, Some(old)) => Change::Written {
                lines: self.line_delta(old, content)?,
            },
            (None, None) => Change::Created,
        };
        // An overwrite keeps what the caller did not change.
        let (pinned, meta, turn, source, ttl) = match existing {
            Some(Entry { info, .. }) => (
                opts.pinned.unwrap_or(info.pinned),
                opts.meta.unwrap_or(info.meta),
                opts.turn.or(info.turn),
                info.source,
                match opts.ttl {
                    Ttl::Default => remaining(info.expires_at, now),
                    ttl => ttl,
                },
            ),
            None => (
                opts.pinned.unwrap_or(false),
                opts.meta.unwrap_or(serde_json::Value::Null),
                opts.turn,
                Source::default(),
                opts.ttl,
            ),
        };
        let ingested = ingest(
            self.store.as_ref(),
            &mut &content[..],
            &self.config.preview,
            None,
        )?;
        self.commit(
            ingested,
            Commit {
                name: NameChoice::Given(name.to_owned()),
                condition,
                source,
                meta,
                turn,
                ttl,
                pinned,
                change,
                keeps_history: true,
                records_usage: false,
                restores: None,
            },
        )
    }

    /// Lines added and removed by replacing `old`'s content with `new`, when both are small text.
    fn line_delta(&self, old: &Entry, new: &[u8]) -> Result<Option<crate::history::LineDelta>> {
        if old.info.kind == Kind::Binary
            || old.info.bytes > DELTA_MAX_BYTES
            || new.len() as u64 > DELTA_MAX_BYTES
        {
            return Ok(None);
        }
        let mut before = Vec::new();
        EntryContent::new(self.store.as_ref(), old)
            .reader_at_byte(0)?
            .read_to_end(&mut before)
            .map_err(from_io)?;
        Ok(Some(crate::diff::line_delta(&before, new)))
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
        let Some(existing) = self.find(name)? else {
            if opts.if_version.is_some() {
                return Err(self.not_found(name));
            }
            return self.write_if(
                name,
                text.as_bytes(),
                opts,
                WriteCondition::CreateOnly,
                Some(Change::Created),
            );
        };
        let version = check_expected(&existing.info, opts.if_version)?;
        if existing.info.kind == Kind::Binary {
            return Err(Error::WrongKind(Advice::text(format!(
                "`{name}` is binary; append adds text to text entries. Write a new entry instead"
            ))));
        }
        let content = EntryContent::new(self.store.as_ref(), &existing);
        let mut input = content.reader_at_byte(0)?.chain(text.as_bytes());
        let ingested = ingest(self.store.as_ref(), &mut input, &self.config.preview, None)?;
        let info = existing.info;
        self.commit(
            ingested,
            Commit {
                name: NameChoice::Given(info.name),
                condition: WriteCondition::IfVersion(version),
                source: info.source,
                meta: opts.meta.unwrap_or(info.meta),
                turn: opts.turn.or(info.turn),
                ttl: match opts.ttl {
                    Ttl::Default => remaining(info.expires_at, now_ms()),
                    ttl => ttl,
                },
                pinned: opts.pinned.unwrap_or(info.pinned),
                change: Change::Appended {
                    bytes: text.len() as u64,
                    lines: memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64,
                },
                keeps_history: true,
                records_usage: false,
                restores: None,
            },
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
        let text = self.editable_text(&existing, "edit", "changes text entries")?;
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
                return Err(Error::InvalidArgument(
                    Advice::text(format!(
                        "the text to replace occurs {n} times in `{}`; include more surrounding text to make \
                         it unique, or pass ",
                        info.name
                    ))
                    .arg(Arg::on(ArgName::ReplaceAll))
                    .and(" to replace every occurrence"),
                ));
            }
        };
        let replacements = if replace_all { count } else { 1 };
        let change = Change::Edited {
            replacements: replacements as u64,
            lines: if text.len() as u64 > DELTA_MAX_BYTES {
                // Too large to diff on every edit: count the lines each replacement touches.
                let touched = |s: &str| (s.matches('\n').count() as u64 + 1) * replacements as u64;
                crate::history::LineDelta {
                    added: touched(new),
                    removed: touched(old),
                }
            } else {
                crate::diff::line_delta(text.as_bytes(), replaced.as_bytes())
            },
        };
        let entry = self.write_if(
            &info.name,
            replaced.as_bytes(),
            WriteOptions::default(),
            WriteCondition::IfVersion(version),
            Some(change),
        )?;
        Ok(EditOutcome {
            entry,
            replacements,
        })
    }

    /// Inserts `text` as whole lines after line `after_line` of a note: 0 puts it before the
    /// first line, the note's line count after the last. A line break ends the inserted text when
    /// it has none, so the line that followed stays a line of its own. Without `if_version`, an
    /// insert that another writer beat to the note counts the lines again; with it, the insert is
    /// made only on the version it names (the one whose lines the caller counted).
    pub fn insert(
        &self,
        name: &str,
        after_line: u64,
        text: &str,
        if_version: Option<u64>,
    ) -> Result<EntryInfo> {
        retry_unversioned(if_version, || {
            self.insert_once(name, after_line, text, if_version)
        })
    }

    fn insert_once(
        &self,
        name: &str,
        after_line: u64,
        text: &str,
        if_version: Option<u64>,
    ) -> Result<EntryInfo> {
        let existing = self.lookup(name)?;
        let version = check_expected(&existing.info, if_version)?;
        let info = &existing.info;
        let current = self.editable_text(&existing, "insert", "adds lines to text entries")?;
        let lines = line_count(&current);
        if after_line > lines {
            return Err(Error::invalid(format!(
                "`{}` has {lines} lines, so there is no line {after_line} to insert after; give a line \
                 from 0 (before the first) to {lines} (after the last)",
                info.name
            )));
        }
        let inserted = with_lines_inserted(&current, after_line, text);
        let change = Change::Inserted {
            after_line,
            lines: line_count(text).max(1),
        };
        self.write_if(
            &info.name,
            inserted.as_bytes(),
            WriteOptions::default(),
            WriteCondition::IfVersion(version),
            Some(change),
        )
    }
}

/// Lines of `text` as an insertion counts them: a last line without its line break counts.
fn line_count(text: &str) -> u64 {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
    breaks + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// `text` with `inserted` put in after line `after_line` (checked to exist) as whole lines.
fn with_lines_inserted(text: &str, after_line: u64, inserted: &str) -> String {
    let at = if after_line == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text.as_bytes())
            .nth((after_line - 1) as usize)
            .map_or(text.len(), |newline| newline + 1)
    };
    let mut out = String::with_capacity(text.len() + inserted.len() + 2);
    out.push_str(&text[..at]);
    // After a last line that has no line break, the inserted lines start on a line of their own.
    if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(inserted);
    if !inserted.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&text[at..]);
    out
}

fn validate_put(opts: &PutOptions<'_>) -> Result<()> {
    if let Some(name) = &opts.name {
        validate_name("name", name)?;
    }
    if let Some(turn) = &opts.turn {
        validate_name("turn", turn)?;
    }
    Ok(())
}

/// What a put commits besides its content.
fn put_commit(opts: PutOptions<'_>) -> Commit {
    let keeps_history = opts.keep_history || (opts.name.is_some() && opts.source.tool.is_none());
    let name = match opts.name {
        Some(name) => NameChoice::Given(name),
        None => NameChoice::Auto {
            stem: name_stem(opts.source.tool.as_deref().unwrap_or("put")),
        },
    };
    Commit {
        name,
        condition: opts.condition.unwrap_or(WriteCondition::Any),
        source: opts.source,
        meta: opts.meta,
        turn: opts.turn,
        ttl: opts.ttl,
        pinned: opts.pinned,
        change: Change::Written { lines: None },
        keeps_history,
        records_usage: true,
        restores: None,
    }
}

/// An input that can be read twice, whose size is known before it is read.
enum Rereadable<'a> {
    File(&'a mut File),
    Bytes(&'a [u8]),
}

/// What hashing an input found.
struct Hashed {
    hash: String,
    /// Its first [`SEARCH_HEAD_BYTES`] (all of it when shorter) and last [`SEARCH_TAIL_BYTES`].
    head: Vec<u8>,
    tail: Vec<u8>,
}

/// Bytes read at a time to hash a file: measured fastest with blake3's single-threaded hasher.
const HASH_READ_BYTES: usize = 1024 * 1024;

// The search text of reused content is built as ingest builds it for content of several chunks.
const _: () = assert!(REUSE_MIN_BYTES > CHUNK_BYTES as u64);

impl Rereadable<'_> {
    /// Bytes left to read, if known: a file that is not a regular file (a pipe) has no size.
    fn len(&mut self) -> Result<Option<u64>> {
        match self {
            Self::Bytes(bytes) => Ok(Some(bytes.len() as u64)),
            Self::File(file) => {
                let meta = file.metadata().map_err(from_io)?;
                if !meta.is_file() {
                    return Ok(None);
                }
                let at = file.stream_position().map_err(from_io)?;
                Ok(Some(meta.len().saturating_sub(at)))
            }
        }
    }

    /// Hashes the next `len` bytes and goes back to where it started; `None` if the input did not
    /// have exactly that many (a file that changed meanwhile is stored as it is read next). A file
    /// is read a piece at a time, giving up between pieces as `stop` says.
    fn hash(&mut self, len: u64, stop: Stop<'_>) -> Result<Option<Hashed>> {
        let file = match self {
            Self::Bytes(bytes) => {
                let head = &bytes[..bytes.len().min(SEARCH_HEAD_BYTES)];
                let tail = &bytes[bytes.len().saturating_sub(SEARCH_TAIL_BYTES)..];
                return Ok(Some(Hashed {
                    hash: blake3::hash(bytes).to_hex().to_string(),
                    head: head.to_vec(),
                    tail: tail.to_vec(),
                }));
            }
            Self::File(file) => file,
        };
        let start = file.stream_position().map_err(from_io)?;
        let mut hasher = blake3::Hasher::new();
        let mut buf = vec![0; HASH_READ_BYTES];
        let mut head = Vec::new();
        let mut tail = Vec::new();
        let mut total = 0u64;
        loop {
            stop.check()?;
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(from_io(e)),
            };
            let data = &buf[..n];
            hasher.update(data);
            total += n as u64;
            if head.len() < SEARCH_HEAD_BYTES {
                let take = (SEARCH_HEAD_BYTES - head.len()).min(n);
                head.extend_from_slice(&data[..take]);
            }
            keep_last(&mut tail, data, SEARCH_TAIL_BYTES);
        }
        file.seek(SeekFrom::Start(start)).map_err(from_io)?;
        Ok((total == len).then(|| Hashed {
            hash: hasher.finalize().to_hex().to_string(),
            head,
            tail,
        }))
    }
}

/// Keeps in `tail` the last `keep` bytes of everything passed to it.
fn keep_last(tail: &mut Vec<u8>, data: &[u8], keep: usize) {
    let data = &data[data.len().saturating_sub(keep)..];
    let overflow = (tail.len() + data.len()).saturating_sub(keep);
    tail.drain(..overflow.min(tail.len()));
    tail.extend_from_slice(data);
}

impl Read for Rereadable<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Self::File(file) => file.read(buf),
            Self::Bytes(bytes) => bytes.read(buf),
        }
    }
}

pub(super) fn remaining(expires_at: Option<i64>, now: i64) -> Ttl {
    match expires_at {
        Some(at) => Ttl::After((at - now).max(1)),
        None => Ttl::Never,
    }
}

pub(super) fn check_expected(info: &EntryInfo, if_version: Option<u64>) -> Result<u64> {
    match if_version {
        Some(v) if v != info.version => Err(Error::Conflict(ConflictKind::Version {
            name: info.name.clone(),
            expected: v,
            current: Some(info.version),
        })),
        _ => Ok(info.version),
    }
}

impl Scratchpad {
    /// The whole text of an entry an in-place change (`verb`, which `does` what it does) rewrites:
    /// refused for binary entries and above [`EDIT_MAX_BYTES`].
    fn editable_text(&self, existing: &Entry, verb: &str, does: &str) -> Result<String> {
        let info = &existing.info;
        if info.kind == Kind::Binary {
            return Err(Error::WrongKind(Advice::text(format!(
                "`{}` is binary; {verb} {does}",
                info.name
            ))));
        }
        if info.bytes > EDIT_MAX_BYTES {
            return Err(Error::TooLarge(Advice::text(format!(
                "`{}` is {} bytes; {verb} rewrites entries up to {} bytes. Write a new entry instead",
                info.name,
                thousands(info.bytes),
                thousands(EDIT_MAX_BYTES)
            ))));
        }
        let mut text = String::new();
        EntryContent::new(self.store.as_ref(), existing)
            .reader_at_byte(0)?
            .read_to_string(&mut text)
            .map_err(from_io)?;
        Ok(text)
    }
}
