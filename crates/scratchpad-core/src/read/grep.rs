//! Regex search over an entry with line numbers and context, in ripgrep's push model: the searcher
//! streams chunks through a sink that formats what fits the budget and keeps counting the rest.

use grep_matcher::LineTerminator;
use grep_matcher::Matcher as _;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};
use regex_syntax::hir::{Hir, HirKind};

use super::source::EntryContent;
use super::{GrepLine, ReadMode, ReadReply};
use crate::advice::{Advice, Arg, ArgName};
use crate::error::{Error, Result};
use crate::figures::{counted, thousands};
use crate::model::EntryInfo;

/// Longest line shown in grep output (characters): a longer matching line is shown as this much of
/// it around its first match, a longer context line as its start.
const SHOWN_LINE_CHARS: usize = 1_000;
/// Longest line a grep holds in memory (bytes); an entry with a longer one is read in ranges.
const MAX_LINE_BYTES: usize = 64 << 20;
/// Longest context a grep may ask for (lines either side).
pub const MAX_CONTEXT: u64 = 50;

pub(crate) struct GrepArgs<'a> {
    pub pattern: &'a str,
    pub context: u64,
    pub max_matches: u64,
    pub ignore_case: bool,
    pub from: u64,
}

/// Largest compiled form of a pattern (bytes). Unicode classes are large (`\w{100}` needs a few
/// MiB); counted repetitions are bounded separately, by [`MAX_REPETITION`].
const REGEX_SIZE_LIMIT: usize = 8 << 20;
/// Most copies of a sub-pattern a counted repetition may ask for, nested repetitions multiplied
/// (`a{100000}` is 100,000; `(a{100}){100}` 10,000): each copy is matched at every byte, so a few
/// characters of pattern could otherwise hold a core for minutes.
const MAX_REPETITION: u64 = 2_000;
/// Cache of the lazy DFA that does most matching (bytes).
const REGEX_DFA_LIMIT: usize = 8 << 20;

pub(crate) fn grep(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    args: &GrepArgs<'_>,
    budget: u64,
) -> Result<ReadReply> {
    if args.context > MAX_CONTEXT {
        return Err(Error::invalid(format!(
            "context {} is too wide; ask for at most {MAX_CONTEXT} lines either side",
            args.context
        )));
    }
    if args.max_matches == 0 {
        return Err(Error::InvalidArgument(
            Advice::text("")
                .arg(Arg::number(ArgName::MaxMatches, 0))
                .and(" asks for no matches; pass 1 or more"),
        ));
    }
    if args.from == 0 {
        return Err(Error::InvalidArgument(
            Advice::text("lines are numbered from 1; pass ")
                .arg(Arg::number(ArgName::FromLine, 1))
                .and(" or later"),
        ));
    }
    check_repetition(args.pattern)?;
    let matcher = RegexMatcherBuilder::new()
        // `^` and `$` match at every line's start and end (as in ripgrep), and `$` before a `\r\n`
        // as before a `\n`: logs written on Windows read the same.
        .multi_line(true)
        .crlf(true)
        .case_insensitive(args.ignore_case)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_LIMIT)
        .build(args.pattern)
        .map_err(|e| {
            let why = last_line(&e.to_string());
            if why.contains("size limit") {
                Error::invalid(format!(
                    "the regex `{}` compiles to more than {} MiB, the limit for one pattern; use \
                     fewer or smaller classes and repetitions, or a literal part of the line",
                    args.pattern,
                    REGEX_SIZE_LIMIT >> 20
                ))
            } else {
                Error::invalid(format!(
                    "invalid regex `{}`: {why}. Patterns use Rust regex syntax (like ripgrep); escape \
                     special characters such as ( [ . * + ? with a backslash to match them literally",
                    args.pattern,
                ))
            }
        })?;
    let context = usize::try_from(args.context).unwrap_or(0);
    let mut searcher = SearcherBuilder::new()
        // Lines end at `\n`; a `\r` before it belongs to the terminator, as the matcher expects.
        .line_terminator(LineTerminator::crlf())
        .line_number(true)
        .heap_limit(Some(MAX_LINE_BYTES))
        .before_context(context)
        .after_context(context)
        .build();
    let mut sink = GrepSink {
        matcher: &matcher,
        offset: args.from - 1,
        budget,
        max_matches: args.max_matches,
        out: String::new(),
        out_chars: 0,
        shown: 0,
        total: 0,
        last_shown_line: 0,
        resume_at: None,
        stopped: false,
        pending_break: false,
        lines: Vec::new(),
    };
    if let Some(reader) = content.reader_at_line(args.from)? {
        reader
            .with_read_ahead(|reader| searcher.search_reader(&matcher, reader, &mut sink))
            .map_err(|err| {
                if err.to_string().contains("heap limit") {
                    Error::TooLarge(
                        format!(
                            "`{}` has a line longer than {} MiB, more than a grep holds at once; \
                             read it in parts with mode=range (characters) or mode=bytes",
                            info.name,
                            MAX_LINE_BYTES >> 20
                        )
                        .into(),
                    )
                } else {
                    super::source::from_io(err)
                }
            })?;
    }
    let continuation = sink.resume_at.map(|from| ReadMode::Grep {
        pattern: args.pattern.to_owned(),
        context: args.context,
        max_matches: Some(args.max_matches),
        ignore_case: args.ignore_case,
        from: Some(from),
    });
    let mut notes = Vec::new();
    if args.from > info.lines.max(1) {
        notes.push(format!(
            "the search starts at line {}, past the last line ({}): nothing to search",
            thousands(args.from),
            thousands(info.lines)
        ));
    }
    let scope = if args.from > 1 {
        format!("lines {}–{}", thousands(args.from), thousands(info.lines))
    } else {
        format!("all {} lines", thousands(info.lines))
    };
    let location = if sink.total == 0 {
        format!("no line matches `{}` in {scope}", args.pattern)
    } else if sink.shown == sink.total {
        format!(
            "{} in {scope}",
            counted(sink.total, "matching line", "matching lines")
        )
    } else {
        format!(
            "{} in {scope}; showing the first {}",
            counted(sink.total, "matching line", "matching lines"),
            thousands(sink.shown)
        )
    };
    Ok(ReadReply {
        notes,
        truncated: continuation.is_some(),
        continuation,
        total_matches: Some(sink.total),
        shown_matches: Some(sink.shown),
        grep_lines: sink.lines,
        ..ReadReply::new(info, sink.out, location)
    })
}

/// Refuses counted repetitions that multiply to more than [`MAX_REPETITION`] copies. A pattern
/// that does not parse passes: the matcher's own error says what is wrong with it.
fn check_repetition(pattern: &str) -> Result<()> {
    fn copies(hir: &Hir) -> u64 {
        match hir.kind() {
            HirKind::Repetition(rep) => {
                let times = u64::from(rep.max.unwrap_or(rep.min).max(1));
                times.saturating_mul(copies(&rep.sub))
            }
            HirKind::Capture(capture) => copies(&capture.sub),
            HirKind::Concat(parts) | HirKind::Alternation(parts) => {
                parts.iter().map(copies).max().unwrap_or(1)
            }
            _ => 1,
        }
    }
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return Ok(());
    };
    let total = copies(&hir);
    if total > MAX_REPETITION {
        return Err(Error::invalid(format!(
            "the regex `{pattern}` repeats a part {} times, over the limit of {}; match a shorter \
             run (e.g. `a{{20,}}` for \"at least 20\") or a literal part of the line",
            thousands(total),
            thousands(MAX_REPETITION)
        )));
    }
    Ok(())
}

/// [`SHOWN_LINE_CHARS`] characters of a long line around byte `at`, a third of them before it, with
/// `…` where the line goes on, and the line's length.
fn window(text: &str, at: usize) -> String {
    let before = SHOWN_LINE_CHARS / 3;
    let at_char = text[..at.min(text.len())].chars().count();
    let first = at_char.saturating_sub(before);
    let shown: String = text.chars().skip(first).take(SHOWN_LINE_CHARS).collect();
    let total = text.chars().count();
    let mut out = String::with_capacity(shown.len() + 64);
    if first > 0 {
        out.push('…');
    }
    out.push_str(&shown);
    if first + SHOWN_LINE_CHARS < total {
        out.push('…');
    }
    out.push_str(&format!(
        " [characters {}–{} of this line's {}]",
        thousands(first as u64 + 1),
        thousands((first + SHOWN_LINE_CHARS).min(total) as u64),
        thousands(total as u64)
    ));
    out
}

/// The last non-empty line of a regex error: the one that says what is wrong.
fn last_line(s: &str) -> String {
    s.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .to_owned()
}

struct GrepSink<'m> {
    /// Finds where a long matching line matches, to show the part around it.
    matcher: &'m RegexMatcher,
    /// Lines before the searched part (added to the searcher's numbers).
    offset: u64,
    budget: u64,
    max_matches: u64,
    out: String,
    out_chars: u64,
    shown: u64,
    total: u64,
    last_shown_line: u64,
    /// Where a continuation should start searching.
    resume_at: Option<u64>,
    /// Output is full: keep counting, stop formatting.
    stopped: bool,
    pending_break: bool,
    /// What `out` shows, line by line.
    lines: Vec<GrepLine>,
}

impl GrepSink<'_> {
    /// Adds one formatted line if it fits; false (and stops output) when it does not.
    fn push_line(&mut self, number: u64, sep: char, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let shown = if text.char_indices().nth(SHOWN_LINE_CHARS).is_none() {
            text.to_owned()
        } else {
            // A long line: the part around its first match (a context line: its start).
            let at = match sep {
                ':' => self
                    .matcher
                    .find(text.as_bytes())
                    .ok()
                    .flatten()
                    .map_or(0, |found| found.start()),
                _ => 0,
            };
            window(text, at)
        };
        let line = format!("{number}{sep}{shown}\n");
        let extra = if self.pending_break { 3 } else { 0 };
        let cost = line.chars().count() as u64 + extra;
        if self.out_chars + cost > self.budget {
            return false;
        }
        if self.pending_break {
            self.out.push_str("--\n");
            self.pending_break = false;
        }
        self.out.push_str(&line);
        self.out_chars += cost;
        self.lines.push(GrepLine {
            number,
            text: shown,
            matched: sep == ':',
        });
        self.last_shown_line = number;
        true
    }

    fn stop(&mut self, resume_at: u64) {
        self.stopped = true;
        self.resume_at = Some(resume_at);
    }
}

impl Sink for GrepSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let first = mat.line_number().unwrap_or(0) + self.offset;
        let lines: Vec<&[u8]> = mat.lines().collect();
        self.total += lines.len() as u64;
        if self.stopped {
            return Ok(true);
        }
        for (i, line) in lines.iter().enumerate() {
            let number = first + i as u64;
            if self.shown == self.max_matches {
                self.stop(number);
                return Ok(true);
            }
            if !self.push_line(number, ':', line) {
                self.stop(number);
                return Ok(true);
            }
            self.shown += 1;
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if self.stopped {
            return Ok(true);
        }
        let number = ctx.line_number().unwrap_or(0) + self.offset;
        if matches!(ctx.kind(), SinkContextKind::After) && self.shown == self.max_matches {
            // Trailing context of the last shown match still belongs with it.
            if !self.push_line(number, '-', ctx.bytes()) {
                self.stopped = true;
            }
            return Ok(true);
        }
        if self.shown == self.max_matches {
            return Ok(true);
        }
        if !self.push_line(number, '-', ctx.bytes()) {
            self.stop(number);
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        if !self.out.is_empty() {
            self.pending_break = true;
        }
        Ok(true)
    }
}
