//! What an entry was and how it changed: its versions, reading an old one, making it current
//! again, and comparing two versions or two entries.

use std::io::Read;

use super::Scratchpad;
use super::retry::{READ_RETRIES, retry_unversioned, retry_while};
use super::write::{Commit, check_expected, remaining};
use crate::advice::{Advice, Call};
use crate::diff::{
    self, DEFAULT_CONTEXT, DiffCall, DiffCursor, DiffLimits, DiffReply, DiffSide,
    JSON_DIFF_MAX_BYTES, Target,
};
use crate::error::{Error, Result};
use crate::figures::thousands;
use crate::history::{Change, History};
use crate::ingest::ingest;
use crate::model::{EntryInfo, Kind, now_ms, validate_name};
use crate::read::source::{EntryContent, from_io};
use crate::read::{self, ReadMode, ReadReply, Stop};
use crate::store::{Entry, NameChoice, WriteCondition};

/// Most context lines a diff shows around a change.
const MAX_CONTEXT: usize = 100;

/// How to compare.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// Where to start (a cut diff's continuation); `None` from the first lines.
    pub cursor: Option<DiffCursor>,
    /// Lines of context around each change (default 3).
    pub context: Option<usize>,
    /// Characters the reply may hold, instead of the configured read budget.
    pub budget_chars: Option<usize>,
    /// Compare lines as stored even when both sides are JSON (otherwise JSON documents are
    /// compared with their keys sorted, one value per line).
    pub plain: bool,
}

impl Scratchpad {
    /// An older version's content, read back and ingested as new content (its preview made with
    /// today's rules); the store keeps the bytes once, so this costs a read, not a copy.
    pub(super) fn ingest_again(&self, old: &Entry) -> Result<crate::ingest::Ingested> {
        let mut content = EntryContent::new(self.store.as_ref(), old).reader_at_byte(0)?;
        ingest(
            self.store.as_ref(),
            &mut content,
            &self.config.preview,
            None,
        )
    }

    /// An entry's versions, newest first: the current one, then those it keeps.
    pub fn history(&self, name: &str) -> Result<History> {
        validate_name("name", name)?;
        self.store
            .history(&self.session, name, now_ms())?
            .ok_or_else(|| self.not_found(name))
    }

    /// One version of an entry, current or kept; an error says which versions there are.
    fn version_entry(&self, name: &str, version: u64) -> Result<Entry> {
        validate_name("name", name)?;
        if let Some(entry) = self.store.version(&self.session, name, version, now_ms())? {
            return Ok(entry);
        }
        let history = self.history(name)?;
        let (name, current) = (history.entry.name.clone(), history.entry.version);
        let why = if version > current {
            format!("`{name}` is at version {current}; there is no version {version}; ")
        } else {
            let kept = match history.kept_range() {
                Some((oldest, newest)) if oldest == newest => format!("it keeps version {oldest}"),
                Some((oldest, newest)) => format!(
                    "it keeps {} of versions {oldest}–{newest}",
                    history.versions.len() - 1
                ),
                None if history.keeps_history => "it keeps no older version yet".to_owned(),
                None => {
                    "it keeps no older versions: outputs of tools keep none unless asked".to_owned()
                }
            };
            format!("version {version} of `{name}` is not kept (current: {current}; {kept}); ")
        };
        Err(Error::InvalidArgument(
            Advice::text(why)
                .call(Call::History { name })
                .and(" lists the versions"),
        ))
    }

    /// Reads part of one version of an entry, with any read mode; the reply and its continuation
    /// name the version.
    pub fn read_version(
        &self,
        name: &str,
        version: u64,
        mode: &ReadMode,
        budget_chars: Option<usize>,
    ) -> Result<ReadReply> {
        self.read_version_until(
            name,
            version,
            mode,
            budget_chars,
            Stop::after(read::READ_TIMEOUT),
        )
    }

    /// [`read_version`](Self::read_version), giving up as `stop` says.
    pub fn read_version_until(
        &self,
        name: &str,
        version: u64,
        mode: &ReadMode,
        budget_chars: Option<usize>,
        stop: Stop<'_>,
    ) -> Result<ReadReply> {
        let mut reply = retry_while(
            READ_RETRIES,
            |err| matches!(err, Error::Raced(_)),
            || {
                let entry = self.version_entry(name, version)?;
                let reply = self.read_entry_until(&entry, mode, budget_chars, stop)?;
                self.record_read(&entry, mode, &reply);
                Ok(reply)
            },
        )
        .map_err(|err| err.at_version(version))?;
        reply.version = Some(version);
        Ok(reply)
    }

    /// One version of an entry as stored, to stream: an export of any size and any kind, as
    /// [`open_content`](Self::open_content) is for the current one.
    pub fn open_version_content(
        &self,
        name: &str,
        version: u64,
    ) -> Result<(EntryInfo, Box<dyn Read + '_>)> {
        let entry = self.version_entry(name, version)?;
        let reader = EntryContent::new(self.store.as_ref(), &entry).reader_at_byte(0)?;
        Ok((entry.info, Box::new(reader)))
    }

    /// Makes an older version current again, as a new version (the versions in between are kept).
    /// `if_version` is the version the caller expects the entry to be at now.
    pub fn restore(&self, name: &str, version: u64, if_version: Option<u64>) -> Result<EntryInfo> {
        validate_name("name", name)?;
        retry_unversioned(if_version, || self.restore_once(name, version, if_version))
    }

    fn restore_once(&self, name: &str, version: u64, if_version: Option<u64>) -> Result<EntryInfo> {
        let current = self.lookup(name)?;
        let expected = check_expected(&current.info, if_version)?;
        if version == current.info.version {
            return Err(Error::invalid(format!(
                "version {version} is already the current version of `{}`; nothing to restore",
                current.info.name
            )));
        }
        let old = self.version_entry(name, version)?;
        let ingested = self.ingest_again(&old)?;
        let info = current.info;
        self.commit(
            ingested,
            Commit {
                name: NameChoice::Given(info.name),
                condition: WriteCondition::IfVersion(expected),
                source: info.source,
                meta: info.meta,
                turn: info.turn,
                ttl: remaining(info.expires_at, now_ms()),
                pinned: info.pinned,
                change: Change::Restored { from: version },
                keeps_history: true,
                records_usage: false,
                restores: None,
            },
        )
    }

    /// Compares two entries, or two versions of one, as a unified line diff within the reply
    /// budget. A cut reply's continuation compares the same versions from where it stopped.
    pub fn diff(&self, a: &Target, b: &Target, opts: &DiffOptions) -> Result<DiffReply> {
        self.diff_until(a, b, opts, Stop::after(read::READ_TIMEOUT))
    }

    /// [`diff`](Self::diff), giving up as `stop` says.
    pub fn diff_until(
        &self,
        a: &Target,
        b: &Target,
        opts: &DiffOptions,
        stop: Stop<'_>,
    ) -> Result<DiffReply> {
        retry_while(
            READ_RETRIES,
            |err| matches!(err, Error::Raced(_)),
            || self.diff_once(a, b, opts, stop),
        )
    }

    fn target_entry(&self, target: &Target) -> Result<Entry> {
        match target.version {
            Some(version) => self.version_entry(&target.name, version),
            None => self.lookup(&target.name),
        }
    }

    fn diff_once(
        &self,
        a: &Target,
        b: &Target,
        opts: &DiffOptions,
        stop: Stop<'_>,
    ) -> Result<DiffReply> {
        let entry_a = self.target_entry(a)?;
        let entry_b = self.target_entry(b)?;
        let side = |entry: &Entry, target: &Target| DiffSide {
            name: entry.info.name.clone(),
            version: entry.info.version,
            current: target.version.is_none(),
            kind: entry.info.kind,
            bytes: entry.info.bytes,
            lines: entry.info.lines,
            author: entry.info.author.clone(),
            written_at: entry.info.updated_at,
        };
        let cursor = opts.cursor.unwrap_or(DiffCursor::START);
        let limits = DiffLimits {
            budget_chars: opts
                .budget_chars
                .unwrap_or(self.config.read_budget_chars)
                .max(1),
            context: opts.context.unwrap_or(DEFAULT_CONTEXT).min(MAX_CONTEXT),
        };
        let identical = entry_a.info.hash == entry_b.info.hash;
        let json = !opts.plain
            && entry_a.info.kind == Kind::Json
            && entry_b.info.kind == Kind::Json
            && entry_a.info.bytes.max(entry_b.info.bytes) <= JSON_DIFF_MAX_BYTES;
        let mut notes = Vec::new();
        let body = if identical {
            diff::Body::default()
        } else if entry_a.info.kind == Kind::Binary || entry_b.info.kind == Kind::Binary {
            notes.push(format!(
                "binary content is compared whole, not by lines: the two differ ({} and {} bytes)",
                thousands(entry_a.info.bytes),
                thousands(entry_b.info.bytes)
            ));
            diff::Body::default()
        } else if json {
            let text_a = self.normalized(&entry_a, stop)?;
            let text_b = self.normalized(&entry_b, stop)?;
            diff::unified(
                skip_lines(text_a.as_bytes(), cursor.a_line),
                skip_lines(text_b.as_bytes(), cursor.b_line),
                cursor,
                limits,
            )
            .map_err(from_io)?
        } else {
            let content_a = EntryContent {
                stop,
                ..EntryContent::new(self.store.as_ref(), &entry_a)
            };
            let content_b = EntryContent {
                stop,
                ..EntryContent::new(self.store.as_ref(), &entry_b)
            };
            diff::unified(
                from_line(&content_a, cursor.a_line)?,
                from_line(&content_b, cursor.b_line)?,
                cursor,
                limits,
            )
            .map_err(from_io)?
        };
        if json && !identical {
            // Numbered as the normalized text: say so where it could mislead.
            notes.push(
                "line numbers are those of the normalized JSON, not of the stored text".to_owned(),
            );
        }
        let pinned = |entry: &Entry| Target::at(&entry.info.name, entry.info.version);
        Ok(DiffReply {
            a: side(&entry_a, a),
            b: side(&entry_b, b),
            text: body.text,
            identical,
            normalized_json: json && !identical,
            added: body.added,
            removed: body.removed,
            hunks: body.hunks,
            from: cursor,
            truncated: body.next.is_some(),
            continuation: body.next,
            notes,
            // A continuation compares the very versions this reply compared.
            call: Some(DiffCall {
                a: pinned(&entry_a),
                b: pinned(&entry_b),
                cursor: None,
                plain: opts.plain,
            }),
        })
    }

    /// A JSON entry's content with keys sorted, one value per line.
    fn normalized(&self, entry: &Entry, stop: Stop<'_>) -> Result<String> {
        let mut bytes = Vec::new();
        EntryContent {
            stop,
            ..EntryContent::new(self.store.as_ref(), entry)
        }
        .reader_at_byte(0)?
        .read_to_end(&mut bytes)
        .map_err(from_io)?;
        diff::normalized_json(&bytes)
            .ok_or_else(|| Error::Storage(format!("`{}` is no longer valid JSON", entry.info.name)))
    }
}

/// An entry's content from its `line`-th line (1-based) on; nothing past its end.
fn from_line<'a>(content: &EntryContent<'a>, line: u64) -> Result<Box<dyn Read + 'a>> {
    Ok(match content.reader_at_line(line)? {
        Some(reader) => Box::new(reader),
        None => Box::new(std::io::empty()),
    })
}

/// `text` from its `line`-th line (1-based) on.
fn skip_lines(text: &[u8], line: u64) -> &[u8] {
    if line <= 1 {
        return text;
    }
    let skip = usize::try_from(line - 1).unwrap_or(usize::MAX);
    match memchr::memchr_iter(b'\n', text).nth(skip - 1) {
        Some(at) => &text[at + 1..],
        None => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::skip_lines;

    #[test]
    fn skipping_lines_lands_on_the_line_asked_for() {
        assert_eq!(skip_lines(b"a\nb\nc\n", 1), b"a\nb\nc\n");
        assert_eq!(skip_lines(b"a\nb\nc\n", 2), b"b\nc\n");
        assert_eq!(skip_lines(b"a\nb\nc\n", 4), b"");
        assert_eq!(skip_lines(b"a\nb\nc\n", 9), b"");
    }
}
