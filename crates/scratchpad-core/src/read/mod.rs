//! Readers: every way to look at part of an entry. Each reply is budgeted, says which part of the
//! entry it covers, and when cut carries the read that continues it (as data: each face spells it).

pub mod grep;
pub mod jq;
mod json;
pub mod mode;
mod reply;
mod slice;
pub(crate) mod source;
pub mod summary;

pub use mode::ReadMode;
pub use reply::{GrepLine, ReadReply};
pub use source::{Cancel, Stop};

use crate::advice::{Advice, Call};
use crate::error::{Error, Result};
use crate::figures::thousands;
use crate::model::Kind;
use crate::store::{Entry, Store};
use source::EntryContent;

/// How long one read may run before it gives up with [`Error::Stopped`] (a grep over a few hundred
/// MB takes well under a second; this bounds a pathological pattern).
pub const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Lines `head` and `tail` return when no count is given (the reply budget still applies).
pub const DEFAULT_EDGE_LINES: u64 = 100;
/// Matching lines `grep` lists when no maximum is given.
pub const DEFAULT_MAX_MATCHES: u64 = 100;
/// Largest JSON entry a jq query loads into memory (bytes).
pub const JQ_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Limits a read must respect.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits<'a> {
    pub budget_chars: u64,
    /// The caller chose the budget (a full read honours it; otherwise the full-read guard rules).
    pub budget_given: bool,
    pub full_max_chars: u64,
    /// When the read gives up.
    pub stop: Stop<'a>,
}

/// The first hundred lines: the read suggested when an entry is too large for what was asked.
fn first_lines(name: &str) -> Call {
    Call::read(
        name,
        ReadMode::Lines {
            from: 1,
            to: Some(100),
        },
    )
}

pub(crate) fn read(
    store: &dyn Store,
    entry: &Entry,
    mode: &ReadMode,
    limits: ReadLimits<'_>,
) -> Result<ReadReply> {
    let info = &entry.info;
    let content = EntryContent {
        stop: limits.stop,
        ..EntryContent::new(store, entry)
    };
    let text_only = |what: &str| -> Result<()> {
        if info.kind == Kind::Binary {
            return Err(Error::WrongKind(
                Advice::text(format!(
                    "`{}` is binary ({} bytes); {what} reads text. Read its bytes as base64 with ",
                    info.name,
                    thousands(info.bytes),
                ))
                .call(Call::read(
                    &info.name,
                    ReadMode::Bytes {
                        offset: 0,
                        length: Some(3_000),
                    },
                )),
            ));
        }
        Ok(())
    };
    let budget = limits.budget_chars.max(1);
    let mut reply = read_mode(info, &content, mode, limits, budget, text_only)?;
    // Text that came in another encoding, or with bytes that are not UTF-8, says so wherever it
    // is read as text.
    if !matches!(mode, ReadMode::Bytes { .. } | ReadMode::Json { .. })
        && let Some(note) = info.profile.as_ref().and_then(|p| p.decoding_note())
    {
        reply.notes.push(note);
    }
    Ok(reply)
}

fn read_mode(
    info: &crate::model::EntryInfo,
    content: &EntryContent<'_>,
    mode: &ReadMode,
    limits: ReadLimits<'_>,
    budget: u64,
    text_only: impl Fn(&str) -> Result<()>,
) -> Result<ReadReply> {
    match mode {
        ReadMode::Head { n } => {
            text_only("head")?;
            slice::head(info, content, n.unwrap_or(DEFAULT_EDGE_LINES), budget)
        }
        ReadMode::Tail { n } => {
            text_only("tail")?;
            slice::tail(info, content, n.unwrap_or(DEFAULT_EDGE_LINES), budget)
        }
        ReadMode::Range { start, end } => {
            text_only("range")?;
            slice::range(info, content, *start, *end, budget)
        }
        ReadMode::Lines { from, to } => {
            text_only("lines")?;
            slice::lines(info, content, *from, *to, budget)
        }
        ReadMode::Grep {
            pattern,
            context,
            max_matches,
            ignore_case,
            from,
        } => {
            text_only("grep")?;
            grep::grep(
                info,
                content,
                &grep::GrepArgs {
                    pattern,
                    context: *context,
                    max_matches: max_matches.unwrap_or(DEFAULT_MAX_MATCHES),
                    ignore_case: *ignore_case,
                    from: from.unwrap_or(1),
                },
                budget,
            )
        }
        ReadMode::Json { query } => json::query(info, content, query, budget),
        ReadMode::Bytes { offset, length } => slice::bytes(info, content, *offset, *length, budget),
        ReadMode::Full { force } => {
            text_only("full")?;
            let budget = limits.budget_given.then_some(budget);
            slice::full(info, content, *force, budget, limits.full_max_chars)
        }
        ReadMode::Summary { from } => {
            text_only("summary")?;
            read_summary(info, content, from.unwrap_or(1), budget)
        }
    }
}

/// A page of the entry's templates, one streaming pass over it.
fn read_summary(
    info: &crate::model::EntryInfo,
    content: &EntryContent<'_>,
    from: u64,
    budget: u64,
) -> Result<ReadReply> {
    if from == 0 {
        return Err(Error::invalid(
            "templates are numbered from 1; start the summary at template 1 or later",
        ));
    }
    let options = summary::SummaryOptions {
        skip: usize::try_from(from - 1).unwrap_or(usize::MAX),
        budget_chars: usize::try_from(budget).unwrap_or(usize::MAX),
    };
    let page = content
        .reader_at_byte(0)?
        .with_read_ahead(|reader| summary::summarize(reader, &options))
        .map_err(source::from_io)?;
    let location = if page.rows.is_empty() {
        format!(
            "summary of {} lines: no templates from {} on (there are {})",
            thousands(page.lines),
            thousands(from),
            thousands(page.templates as u64)
        )
    } else if page.rows.len() == 1 {
        format!(
            "summary of {} lines: template {} of {}",
            thousands(page.lines),
            thousands(page.skipped as u64 + 1),
            thousands(page.templates as u64)
        )
    } else {
        format!(
            "summary of {} lines: templates {}–{} of {}",
            thousands(page.lines),
            thousands(page.skipped as u64 + 1),
            thousands((page.skipped + page.rows.len()) as u64),
            thousands(page.templates as u64)
        )
    };
    let continuation = page.next_skip().map(|skip| ReadMode::Summary {
        from: Some(skip as u64 + 1),
    });
    Ok(ReadReply {
        truncated: continuation.is_some(),
        continuation,
        ..ReadReply::new(info, page.render(), location)
    })
}
