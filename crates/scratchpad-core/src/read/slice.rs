//! Slices by position: characters (head, tail, range, full), numbered lines, and bytes as base64.

use std::io::Read as _;

use base64::Engine as _;

use super::source::{self, EntryContent};
use super::{ReadMode, ReadReply, first_lines};
use crate::advice::{Advice, Call};
use crate::error::{Error, Result};
use crate::model::EntryInfo;
use crate::preview::thousands;

/// Characters `start..end` (clamped to the entry), cut at the budget; the continuation reads on.
pub(super) fn chars(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    start: u64,
    end: u64,
    budget: u64,
    notes: Vec<String>,
) -> Result<ReadReply> {
    let end = end.min(info.chars);
    let start = start.min(end);
    let cut_end = end.min(start.saturating_add(budget));
    let text = content.chars(start, cut_end)?;
    let truncated = cut_end < end;
    Ok(ReadReply {
        notes,
        truncated,
        continuation: truncated.then_some(ReadMode::Range {
            start: cut_end,
            end: Some(end),
        }),
        ..ReadReply::new(
            info,
            text,
            format!(
                "chars {}–{} of {}",
                thousands(start),
                thousands(cut_end),
                thousands(info.chars)
            ),
        )
    })
}

/// The last `n` characters. When the budget holds fewer, the reply is the last `budget` of them
/// (the end is what a tail is for) and the continuation reads the part before.
pub(super) fn tail(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    n: u64,
    budget: u64,
) -> Result<ReadReply> {
    let wanted_start = info.chars.saturating_sub(n);
    let start = info.chars.saturating_sub(n.min(budget));
    let mut reply = chars(info, content, start, info.chars, budget, Vec::new())?;
    if start > wanted_start {
        reply.notes.push(format!(
            "the last {} characters are over the reply budget; these are the last {}",
            thousands(n.min(info.chars)),
            thousands(info.chars - start)
        ));
        reply.truncated = true;
        reply.continuation = Some(ReadMode::Range {
            start: wanted_start,
            end: Some(start),
        });
    }
    Ok(reply)
}

pub(super) fn range(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    start: u64,
    end: Option<u64>,
    budget: u64,
) -> Result<ReadReply> {
    let end_value = end.unwrap_or(info.chars);
    if start > end_value {
        return Err(Error::invalid(format!(
            "range start {start} is after its end {end_value}; give start ≤ end (characters, end exclusive; \
             `{}` has {} characters)",
            info.name,
            thousands(info.chars)
        )));
    }
    let mut notes = Vec::new();
    if start >= info.chars && start > 0 {
        notes.push(format!(
            "start {} is at or past the end ({} characters): nothing to return",
            thousands(start),
            thousands(info.chars)
        ));
    } else if end_value > info.chars {
        notes.push(format!(
            "end {} is past the end; clamped to {} (the entry's length in characters)",
            thousands(end_value),
            thousands(info.chars)
        ));
    }
    chars(info, content, start, end_value, budget, notes)
}

/// The whole entry: refused above the full-read guard unless forced; an explicit budget cuts it.
pub(super) fn full(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    force: bool,
    budget: Option<u64>,
    full_max_chars: u64,
) -> Result<ReadReply> {
    if info.chars > full_max_chars && !force {
        return Err(Error::TooLarge(
            Advice::text(format!(
                "`{}` has {} characters ({} lines), over the {} a full read returns; read a part such as ",
                info.name,
                thousands(info.chars),
                thousands(info.lines),
                thousands(full_max_chars),
            ))
            .call(first_lines(&info.name))
            .and(" or ")
            .call(Call::read(&info.name, ReadMode::grep("ERROR", 2)))
            .and(", or all of it with ")
            .call(Call::read(&info.name, ReadMode::Full { force: true })),
        ));
    }
    let budget = budget.unwrap_or(u64::MAX);
    chars(info, content, 0, info.chars, budget, Vec::new())
}

pub(super) fn lines(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    from: u64,
    to: Option<u64>,
    budget: u64,
) -> Result<ReadReply> {
    if from == 0 {
        return Err(Error::InvalidArgument(
            Advice::text("lines are numbered from 1; ask for line 1 or later (e.g. ")
                .call(first_lines(&info.name))
                .and(")"),
        ));
    }
    let open_ended = to.is_none();
    let asked_to = to.unwrap_or(info.lines.max(from));
    if asked_to < from {
        return Err(Error::invalid(format!(
            "line range {from}-{asked_to} ends before it starts; give from ≤ to (1-based, inclusive; `{}` has \
             {} lines)",
            info.name,
            thousands(info.lines)
        )));
    }
    let mut notes = Vec::new();
    let to = asked_to.min(info.lines);
    let empty = |notes: Vec<String>| ReadReply {
        notes,
        ..ReadReply::new(
            info,
            String::new(),
            format!("no lines (the entry has {} lines)", thousands(info.lines)),
        )
    };
    if from > info.lines {
        notes.push(format!(
            "line {} is past the last line ({}): nothing to return",
            thousands(from),
            thousands(info.lines)
        ));
        return Ok(empty(notes));
    }
    if !open_ended && asked_to > info.lines {
        notes.push(format!(
            "line {} is past the last line; clamped to {}",
            thousands(asked_to),
            thousands(info.lines)
        ));
    }
    let Some(reader) = content.reader_at_line(from)? else {
        return Ok(empty(notes));
    };
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    // The gutter a renderer adds (`  123: `) counts against the budget too.
    let gutter = ReadReply::gutter_width(to) as u64 + 2;
    let line_cap = usize::try_from(budget.saturating_mul(4)).unwrap_or(usize::MAX);
    let mut out = String::new();
    let mut out_chars = 0u64;
    let mut line = Vec::new();
    let mut line_no = from;
    let mut continuation = None;
    while line_no <= to {
        if !next_line(&mut reader, line_cap, &mut line)? {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let text_chars = text.chars().count() as u64;
        let cost = gutter + text_chars + 1;
        if out_chars + cost > budget {
            if line_no == from {
                // Even the first line does not fit: show its start and move past it.
                let room = usize::try_from(budget.saturating_sub(gutter + 2)).unwrap_or(0);
                out.extend(text.chars().take(room));
                out.push_str("…\n");
                notes.push(format!(
                    "line {} has {} characters or more, over the reply budget; it was cut. Read it with \
                     range or grep",
                    thousands(line_no),
                    thousands(text_chars)
                ));
                line_no += 1;
                continuation = (line_no <= to).then_some(ReadMode::Lines {
                    from: line_no,
                    to: Some(to),
                });
            } else {
                continuation = Some(ReadMode::Lines {
                    from: line_no,
                    to: Some(to),
                });
            }
            break;
        }
        out.push_str(text);
        out.push('\n');
        out_chars += cost;
        line_no += 1;
    }
    Ok(ReadReply {
        first_line: Some(from),
        last_line: Some(to),
        notes,
        truncated: continuation.is_some(),
        continuation,
        ..ReadReply::new(
            info,
            out,
            format!(
                "lines {}–{} of {}",
                thousands(from),
                thousands(line_no - 1),
                thousands(info.lines)
            ),
        )
    })
}

/// Reads the next line without its newline, keeping at most `cap` bytes of it; false at the end.
fn next_line(reader: &mut impl std::io::BufRead, cap: usize, line: &mut Vec<u8>) -> Result<bool> {
    line.clear();
    let mut any = false;
    loop {
        let buf = reader.fill_buf().map_err(source::from_io)?;
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        let (take, found) = match memchr::memchr(b'\n', buf) {
            Some(nl) => (nl, true),
            None => (buf.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        line.extend_from_slice(&buf[..take.min(room)]);
        reader.consume(if found { take + 1 } else { take });
        if found {
            return Ok(true);
        }
    }
}

pub(super) fn bytes(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    offset: u64,
    length: Option<u64>,
    budget: u64,
) -> Result<ReadReply> {
    // Base64 takes 4 characters per 3 bytes.
    let max_len = (budget / 4 * 3).max(3);
    let asked = length.unwrap_or(max_len);
    let mut notes = Vec::new();
    if offset >= info.bytes && offset > 0 {
        notes.push(format!(
            "offset {} is at or past the end ({} bytes): nothing to return",
            thousands(offset),
            thousands(info.bytes)
        ));
    } else if length.is_some() && offset.saturating_add(asked) > info.bytes {
        notes.push(format!(
            "length clamped to the end of the entry ({} bytes)",
            thousands(info.bytes)
        ));
    }
    let end = offset.saturating_add(asked).min(info.bytes);
    let start = offset.min(end);
    let cut_end = end.min(start + max_len);
    let mut data = Vec::with_capacity(usize::try_from(cut_end - start).unwrap_or(0));
    content
        .reader_at_byte(start)?
        .take(cut_end - start)
        .read_to_end(&mut data)
        .map_err(source::from_io)?;
    let truncated = cut_end < end;
    Ok(ReadReply {
        notes,
        truncated,
        continuation: truncated.then_some(ReadMode::Bytes {
            offset: cut_end,
            length: Some(end - cut_end),
        }),
        ..ReadReply::new(
            info,
            base64::engine::general_purpose::STANDARD.encode(&data),
            format!(
                "bytes {}–{} of {} (base64)",
                thousands(start),
                thousands(cut_end),
                thousands(info.bytes)
            ),
        )
    })
}
