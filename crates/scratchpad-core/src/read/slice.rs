//! Slices by position: characters (range, full), numbered lines (head, tail, lines), and bytes as
//! base64.

use std::collections::VecDeque;
use std::io::Read as _;

use base64::Engine as _;

use super::source::{self, EntryContent};
use super::{ReadMode, ReadReply, first_lines};
use crate::advice::{Advice, Call};
use crate::error::{Error, Result};
use crate::figures::thousands;
use crate::model::EntryInfo;

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

/// A reply with no lines: `n` was 0 or the entry is empty.
fn no_lines(info: &EntryInfo) -> ReadReply {
    ReadReply::new(
        info,
        String::new(),
        format!("no lines (the entry has {})", thousands(info.lines)),
    )
}

/// The first `n` lines (all of them when the entry has fewer), cut at the budget like `lines`.
pub(super) fn head(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    n: u64,
    budget: u64,
) -> Result<ReadReply> {
    if n == 0 || info.lines == 0 {
        return Ok(no_lines(info));
    }
    lines(info, content, 1, Some(n.min(info.lines)), budget)
}

/// The last `n` lines (all of them when the entry has fewer). When the budget holds fewer, the
/// reply is the last lines that fit (the end is what a tail is for) and the continuation reads the
/// lines before them; a last line alone over the budget shows its end.
pub(super) fn tail(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    n: u64,
    budget: u64,
) -> Result<ReadReply> {
    if n == 0 || info.lines == 0 {
        return Ok(no_lines(info));
    }
    let to = info.lines;
    let from = to - n.min(to) + 1;
    let Some(reader) = content.reader_at_line(from)? else {
        return Ok(no_lines(info));
    };
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    let gutter = ReadReply::gutter_width(to) as u64 + 2;
    let line_cap = usize::try_from(budget.saturating_mul(4)).unwrap_or(usize::MAX);
    // The lines that fit the budget, newest last: one pass, memory bounded by the budget.
    let mut kept: VecDeque<(String, u64)> = VecDeque::new();
    let mut kept_cost = 0u64;
    let mut line = Vec::new();
    let mut line_no = from;
    while line_no <= to && next_line(&mut reader, line_cap, &mut line)? {
        let text = String::from_utf8_lossy(&line);
        let text = text.strip_suffix('\r').unwrap_or(&text).to_owned();
        let cost = gutter + text.chars().count() as u64 + 1;
        kept_cost += cost;
        kept.push_back((text, cost));
        while kept_cost > budget && kept.len() > 1 {
            if let Some((_, dropped)) = kept.pop_front() {
                kept_cost -= dropped;
            }
        }
        line_no += 1;
    }
    let last = line_no - 1;
    let first_shown = line_no - kept.len() as u64;
    if kept.len() == 1 && kept_cost > budget {
        return last_line_end(info, content, last, kept_cost - gutter - 1, gutter, budget);
    }
    let mut out = String::new();
    for (text, _) in &kept {
        out.push_str(text);
        out.push('\n');
    }
    let mut notes = Vec::new();
    let continuation = (first_shown > from).then(|| {
        notes.push(format!(
            "the last {} lines are over the reply budget; these are the last {}",
            thousands(last + 1 - from),
            thousands(kept.len() as u64)
        ));
        ReadMode::Lines {
            from,
            to: Some(first_shown - 1),
        }
    });
    Ok(ReadReply {
        first_line: Some(first_shown),
        last_line: Some(last),
        notes,
        truncated: continuation.is_some(),
        continuation,
        ..ReadReply::new(
            info,
            out,
            format!(
                "lines {}–{} of {}",
                thousands(first_shown),
                thousands(last),
                thousands(info.lines)
            ),
        )
    })
}

/// The end of the entry's last line, which alone is over the budget (`line_chars` counts what was
/// kept of it, so it may be more); the continuation reads the characters before what is shown.
fn last_line_end(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    last: u64,
    line_chars: u64,
    gutter: u64,
    budget: u64,
) -> Result<ReadReply> {
    let room = budget.saturating_sub(gutter + 2);
    // Room for its line ending too, which is not shown.
    let raw_start = info.chars.saturating_sub(room + 2);
    let raw = content.chars(raw_start, info.chars)?;
    let body = raw.strip_suffix('\n').unwrap_or(&raw);
    let body = body.strip_suffix('\r').unwrap_or(body);
    let body_chars = body.chars().count() as u64;
    let skip = body_chars.saturating_sub(room);
    let shown: String = body
        .chars()
        .skip(usize::try_from(skip).unwrap_or(usize::MAX))
        .collect();
    let shown_start = raw_start + skip;
    let shown_chars = body_chars - skip;
    Ok(ReadReply {
        first_line: Some(last),
        last_line: Some(last),
        notes: vec![format!(
            "line {} has {} characters or more, over the reply budget; these are its last {} \
             (characters {}–{})",
            thousands(last),
            thousands(line_chars.max(shown_chars)),
            thousands(shown_chars),
            thousands(shown_start),
            thousands(shown_start + shown_chars)
        )],
        truncated: shown_start > 0,
        continuation: (shown_start > 0).then(|| ReadMode::Range {
            start: shown_start.saturating_sub(budget),
            end: Some(shown_start),
        }),
        ..ReadReply::new(
            info,
            format!("…{shown}\n"),
            format!(
                "the end of line {} of {}",
                thousands(last),
                thousands(info.lines)
            ),
        )
    })
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
                let shown = text.chars().take(room).count() as u64;
                if line_no == 1 {
                    // The first line starts at character 0: the rest of it reads on by range.
                    notes.push(format!(
                        "line 1 has {} characters or more, over the reply budget; these are its first \
                         {}, the continuation reads on by characters",
                        thousands(text_chars),
                        thousands(shown)
                    ));
                    continuation = Some(ReadMode::Range {
                        start: shown,
                        end: None,
                    });
                    line_no += 1;
                    break;
                }
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
