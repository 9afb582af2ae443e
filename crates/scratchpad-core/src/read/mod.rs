//! Readers: every way to look at part of an entry. Each reply is budgeted, says which part of the
//! entry it covers, and when cut ends with the exact call that continues it.

pub mod grep;
pub mod jq;
pub(crate) mod source;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{EntryInfo, Kind};
use crate::preview::thousands;
use crate::store::{Entry, Store};
use source::EntryContent;

/// Characters `head` and `tail` return when no count is given.
pub const DEFAULT_EDGE_CHARS: u64 = 2_000;
/// Matching lines `grep` lists when no maximum is given.
pub const DEFAULT_MAX_MATCHES: u64 = 100;
/// Largest JSON entry a jq query loads into memory (bytes).
pub const JQ_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// How to read an entry. Offsets are characters (end exclusive); lines are 1-based and inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum ReadMode {
    Head {
        n: Option<u64>,
    },
    Tail {
        n: Option<u64>,
    },
    Range {
        start: u64,
        end: Option<u64>,
    },
    Lines {
        from: u64,
        to: Option<u64>,
    },
    Grep {
        pattern: String,
        #[serde(default)]
        context: u64,
        max_matches: Option<u64>,
        #[serde(default)]
        ignore_case: bool,
        /// Line to start searching at (continuations use it).
        from: Option<u64>,
    },
    Json {
        query: String,
    },
    Bytes {
        offset: u64,
        length: Option<u64>,
    },
    Full {
        #[serde(default)]
        force: bool,
    },
}

/// How a face spells a read call, so continuations and hints are exact for the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Syntax {
    /// `scratchpad read NAME --lines 10-20`; `command` is the program with the global options that
    /// select the store and session (e.g. `scratchpad --session cfg`), so continuations run as printed.
    Cli { command: String },
    /// `scratchpad_read(ref="NAME", mode="lines", from=10, to=20)` with the face's tool name.
    Mcp { read_tool: String },
}

impl Default for Syntax {
    fn default() -> Self {
        Self::Mcp {
            read_tool: "scratchpad_read".into(),
        }
    }
}

impl Syntax {
    /// The command line as typed by a shell user with default store and session.
    pub fn cli() -> Self {
        Self::Cli {
            command: "scratchpad".into(),
        }
    }

    /// How to pass one argument: `force=true` for tools, `--force` on the command line.
    pub fn flag(&self, name: &str, value: &str) -> String {
        match self {
            Self::Mcp { .. } => format!("{name}={value}"),
            Self::Cli { .. } if value == "true" => format!("--{}", name.replace('_', "-")),
            Self::Cli { .. } => format!("--{} {value}", cli_flag(name)),
        }
    }
}

impl ReadMode {
    /// The call that performs this read of `name`, in the face's syntax.
    pub fn render_call(&self, name: &str, syntax: &Syntax) -> String {
        match syntax {
            Syntax::Cli { command } => {
                format!("{command} read {} {}", shell_word(name), self.cli_args())
            }
            Syntax::Mcp { read_tool } => {
                format!("{read_tool}(ref={}, {})", json_str(name), self.mcp_args())
            }
        }
    }

    fn cli_args(&self) -> String {
        match self {
            Self::Head { n } => opt_arg("--head", *n),
            Self::Tail { n } => opt_arg("--tail", *n),
            Self::Range { start, end } => match end {
                Some(end) => format!("--range {start}-{end}"),
                None => format!("--range {start}-"),
            },
            Self::Lines { from, to } => match to {
                Some(to) => format!("--lines {from}-{to}"),
                None => format!("--lines {from}-"),
            },
            Self::Grep {
                pattern,
                context,
                max_matches,
                ignore_case,
                from,
            } => {
                let mut s = format!("--grep {}", shell_word(pattern));
                if *context > 0 {
                    s.push_str(&format!(" -C {context}"));
                }
                if *ignore_case {
                    s.push_str(" -i");
                }
                if let Some(max) = max_matches {
                    s.push_str(&format!(" --max {max}"));
                }
                if let Some(from) = from {
                    s.push_str(&format!(" --from-line {from}"));
                }
                s
            }
            Self::Json { query } => format!("--jq {}", shell_word(query)),
            Self::Bytes { offset, length } => match length {
                Some(len) => format!("--bytes {offset}-{}", offset + len),
                None => format!("--bytes {offset}-"),
            },
            Self::Full { force } => {
                if *force {
                    "--full --force".into()
                } else {
                    "--full".into()
                }
            }
        }
    }

    fn mcp_args(&self) -> String {
        let mut args = vec![format!("mode=\"{}\"", self.name())];
        match self {
            Self::Head { n } | Self::Tail { n } => args.extend(n.map(|n| format!("n={n}"))),
            Self::Range { start, end } => {
                args.push(format!("start={start}"));
                args.extend(end.map(|e| format!("end={e}")));
            }
            Self::Lines { from, to } => {
                args.push(format!("from={from}"));
                args.extend(to.map(|t| format!("to={t}")));
            }
            Self::Grep {
                pattern,
                context,
                max_matches,
                ignore_case,
                from,
            } => {
                args.push(format!("pattern={}", json_str(pattern)));
                if *context > 0 {
                    args.push(format!("context={context}"));
                }
                if *ignore_case {
                    args.push("ignore_case=true".into());
                }
                args.extend(max_matches.map(|m| format!("max_matches={m}")));
                args.extend(from.map(|f| format!("from={f}")));
            }
            Self::Json { query } => args.push(format!("query={}", json_str(query))),
            Self::Bytes { offset, length } => {
                args.push(format!("offset={offset}"));
                args.extend(length.map(|l| format!("length={l}")));
            }
            Self::Full { force } => {
                if *force {
                    args.push("force=true".into());
                }
            }
        }
        args.join(", ")
    }

    /// The mode's name as faces spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Head { .. } => "head",
            Self::Tail { .. } => "tail",
            Self::Range { .. } => "range",
            Self::Lines { .. } => "lines",
            Self::Grep { .. } => "grep",
            Self::Json { .. } => "json",
            Self::Bytes { .. } => "bytes",
            Self::Full { .. } => "full",
        }
    }
}

/// The command-line flag for an argument name (`max_matches` → `max`, `from` in grep → `from-line`).
fn cli_flag(name: &str) -> String {
    match name {
        "max_matches" => "max".into(),
        "from" => "from-line".into(),
        other => other.replace('_', "-"),
    }
}

fn opt_arg(flag: &str, n: Option<u64>) -> String {
    match n {
        Some(n) => format!("{flag} {n}"),
        None => flag.to_owned(),
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/:=@%+,".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// What a read returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadReply {
    pub name: String,
    pub kind: Kind,
    /// The content read: a slice, numbered lines, grep output, jq results or base64.
    pub text: String,
    /// Which part of the entry this covers, e.g. "chars 40,000–42,000 of 88,042".
    pub location: String,
    /// True when the budget cut the reply short of what was asked.
    pub truncated: bool,
    /// The exact next call when cut.
    pub continuation: Option<ReadMode>,
    /// Clamping and other remarks the reader should know.
    pub notes: Vec<String>,
    /// For grep: how many lines match in all (also beyond the lines shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
}

impl ReadReply {
    /// The lines of a `lines` reply without the `N: ` numbers the reader adds for models, one per
    /// line (what a program wants, e.g. a `#lines=` reference or `--raw`).
    pub fn unnumbered_lines(&self) -> impl Iterator<Item = &str> {
        self.text
            .lines()
            .map(|line| line.split_once(": ").map_or(line, |(_, text)| text))
    }

    /// Header, content and continuation as one text for a model or a terminal.
    pub fn render(&self, syntax: &Syntax) -> String {
        let mut out = format!("[{}: {}]\n", self.name, self.location);
        for note in &self.notes {
            out.push_str(&format!("[note: {note}]\n"));
        }
        out.push_str(&self.text);
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            out.push('\n');
        }
        if let Some(next) = &self.continuation {
            let why = match (self.total_matches, next) {
                (Some(total), ReadMode::Grep { .. }) => {
                    let shown = self.text.lines().filter(|l| is_match_line(l)).count() as u64;
                    match total.saturating_sub(shown) {
                        1 => "1 more matching line".to_owned(),
                        n => format!("{} more matching lines", thousands(n)),
                    }
                }
                _ => "cut at the reply budget".to_owned(),
            };
            out.push_str(&format!(
                "[{why}; continue with: {}]\n",
                next.render_call(&self.name, syntax)
            ));
        }
        out
    }
}

/// A grep output line for a match (`12:text`), not context (`12-text`) or a group break.
fn is_match_line(line: &str) -> bool {
    let digits = line
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b',')
        .count();
    digits > 0 && line.as_bytes().get(digits) == Some(&b':')
}

/// Limits a read must respect, and how the caller's face spells calls in messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits<'a> {
    pub budget_chars: u64,
    pub full_max_chars: u64,
    pub syntax: &'a Syntax,
}

pub(crate) fn read(
    store: &dyn Store,
    entry: &Entry,
    mode: &ReadMode,
    limits: ReadLimits<'_>,
) -> Result<ReadReply> {
    let info = &entry.info;
    let content = EntryContent::new(store, entry)?;
    let text_only = |what: &str| -> Result<()> {
        if info.kind == Kind::Binary {
            return Err(Error::WrongKind(format!(
                "`{}` is binary ({} bytes); {what} reads text. Read its bytes as base64 with {}",
                info.name,
                thousands(info.bytes),
                ReadMode::Bytes {
                    offset: 0,
                    length: Some(3_000)
                }
                .render_call(&info.name, limits.syntax)
            )));
        }
        Ok(())
    };
    let budget = limits.budget_chars.max(1);
    match mode {
        ReadMode::Head { n } => {
            text_only("head")?;
            let n = n.unwrap_or(DEFAULT_EDGE_CHARS);
            char_range(info, &content, 0, n, budget, Vec::new())
        }
        ReadMode::Tail { n } => {
            text_only("tail")?;
            let n = n.unwrap_or(DEFAULT_EDGE_CHARS);
            char_range(
                info,
                &content,
                info.chars.saturating_sub(n),
                info.chars,
                budget,
                Vec::new(),
            )
        }
        ReadMode::Range { start, end } => {
            text_only("range")?;
            let end_value = end.unwrap_or(info.chars);
            if *start > end_value {
                return Err(Error::invalid(format!(
                    "range start {start} is after its end {end_value}; give start ≤ end (characters, end exclusive; `{}` has {} characters)",
                    info.name,
                    thousands(info.chars)
                )));
            }
            let mut notes = Vec::new();
            if end_value > info.chars {
                notes.push(format!(
                    "end {} is past the end; clamped to {} (the entry's length in characters)",
                    thousands(end_value),
                    thousands(info.chars)
                ));
            }
            if *start > info.chars {
                notes.push(format!(
                    "start {} is past the end ({} characters): nothing to return",
                    thousands(*start),
                    thousands(info.chars)
                ));
            }
            char_range(info, &content, *start, end_value, budget, notes)
        }
        ReadMode::Lines { from, to } => {
            text_only("lines")?;
            read_lines(info, &content, *from, *to, budget, limits.syntax)
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
                &content,
                &grep::GrepArgs {
                    pattern,
                    context: *context,
                    max_matches: max_matches.unwrap_or(DEFAULT_MAX_MATCHES),
                    ignore_case: *ignore_case,
                    from: from.unwrap_or(1),
                },
                budget,
                limits.syntax,
            )
        }
        ReadMode::Json { query } => read_json(info, &content, query, budget, limits.syntax),
        ReadMode::Bytes { offset, length } => read_bytes(info, &content, *offset, *length, budget),
        ReadMode::Full { force } => {
            text_only("full")?;
            if info.chars > limits.full_max_chars && !force {
                return Err(Error::TooLarge(format!(
                    "`{}` has {} characters ({} lines), over the {} a full read returns; read a part \
                     such as {} or {}, or pass {} to get all of it",
                    info.name,
                    thousands(info.chars),
                    thousands(info.lines),
                    thousands(limits.full_max_chars),
                    ReadMode::Lines {
                        from: 1,
                        to: Some(100)
                    }
                    .render_call(&info.name, limits.syntax),
                    ReadMode::Grep {
                        pattern: "ERROR".into(),
                        context: 2,
                        max_matches: None,
                        ignore_case: false,
                        from: None
                    }
                    .render_call(&info.name, limits.syntax),
                    limits.syntax.flag("force", "true")
                )));
            }
            let budget = if *force {
                u64::MAX
            } else {
                budget.max(limits.full_max_chars)
            };
            char_range(info, &content, 0, info.chars, budget, Vec::new())
        }
    }
}

fn char_range(
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
        name: info.name.clone(),
        kind: info.kind,
        text,
        location: format!(
            "chars {}–{} of {}",
            thousands(start),
            thousands(cut_end),
            thousands(info.chars)
        ),
        truncated,
        continuation: truncated.then_some(ReadMode::Range {
            start: cut_end,
            end: Some(end),
        }),
        notes,
        total_matches: None,
    })
}

fn read_lines(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    from: u64,
    to: Option<u64>,
    budget: u64,
    syntax: &Syntax,
) -> Result<ReadReply> {
    if from == 0 {
        return Err(Error::invalid(format!(
            "lines are numbered from 1; ask for line 1 or later (e.g. {})",
            ReadMode::Lines {
                from: 1,
                to: Some(100)
            }
            .render_call(&info.name, syntax)
        )));
    }
    let open_ended = to.is_none();
    let asked_to = to.unwrap_or(info.lines.max(from));
    if asked_to < from {
        return Err(Error::invalid(format!(
            "line range {from}-{asked_to} ends before it starts; give from ≤ to (1-based, inclusive; `{}` has {} lines)",
            info.name,
            thousands(info.lines)
        )));
    }
    let mut notes = Vec::new();
    let to = asked_to.min(info.lines);
    if !open_ended && asked_to > info.lines {
        notes.push(format!(
            "line {} is past the last line; clamped to {}",
            thousands(asked_to),
            thousands(info.lines)
        ));
    }
    let empty = |notes: Vec<String>| ReadReply {
        name: info.name.clone(),
        kind: info.kind,
        text: String::new(),
        location: format!("no lines (the entry has {} lines)", thousands(info.lines)),
        truncated: false,
        continuation: None,
        notes,
        total_matches: None,
    };
    if from > info.lines {
        notes.push(format!(
            "line {} is past the last line ({}): nothing to return",
            thousands(from),
            thousands(info.lines)
        ));
        return Ok(empty(notes));
    }
    let Some(reader) = content.reader_at_line(from)? else {
        return Ok(empty(notes));
    };
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    let width = to.to_string().len();
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
        // Plain digits, as in grep -n: a number copied from here works as an argument.
        let prefix = format!("{line_no:>width$}: ");
        let cost = (prefix.chars().count() + text.chars().count() + 1) as u64;
        if out_chars + cost > budget {
            if line_no == from {
                // Even the first line does not fit: show its start and move past it.
                let room = usize::try_from(budget)
                    .unwrap_or(usize::MAX)
                    .saturating_sub(prefix.len() + 2);
                out.push_str(&prefix);
                out.extend(text.chars().take(room));
                out.push_str("…\n");
                notes.push(format!(
                    "line {} has {} characters or more, over the reply budget; it was cut. Read it with range or grep",
                    thousands(line_no),
                    thousands(text.chars().count() as u64)
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
        out.push_str(&prefix);
        out.push_str(text);
        out.push('\n');
        out_chars += cost;
        line_no += 1;
    }
    Ok(ReadReply {
        name: info.name.clone(),
        kind: info.kind,
        text: out,
        location: format!(
            "lines {}–{} of {}",
            thousands(from),
            thousands(line_no - 1),
            thousands(info.lines)
        ),
        truncated: continuation.is_some(),
        continuation,
        notes,
        total_matches: None,
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

fn read_json(
    info: &EntryInfo,
    content: &EntryContent<'_>,
    query: &str,
    budget: u64,
    syntax: &Syntax,
) -> Result<ReadReply> {
    if info.kind != Kind::Json {
        let instead = match info.kind {
            Kind::Binary => ReadMode::Bytes {
                offset: 0,
                length: Some(3_000),
            }
            .render_call(&info.name, syntax),
            Kind::Text | Kind::Json => format!(
                "{} or {}",
                ReadMode::Grep {
                    pattern: "PATTERN".into(),
                    context: 2,
                    max_matches: None,
                    ignore_case: false,
                    from: None
                }
                .render_call(&info.name, syntax),
                ReadMode::Lines {
                    from: 1,
                    to: Some(100)
                }
                .render_call(&info.name, syntax)
            ),
        };
        return Err(Error::WrongKind(format!(
            "`{}` is {}, not one JSON document, so jq queries do not apply; read it with {instead}",
            info.name, info.kind
        )));
    }
    if info.bytes > JQ_MAX_BYTES {
        return Err(Error::TooLarge(format!(
            "`{}` is {} bytes; jq loads the whole document and this build stops at {} bytes. \
             Use grep to find the part you need, then lines to read it",
            info.name,
            thousands(info.bytes),
            thousands(JQ_MAX_BYTES)
        )));
    }
    let mut document = Vec::with_capacity(usize::try_from(info.bytes).unwrap_or(0));
    std::io::copy(&mut content.reader_at_byte(0)?, &mut document).map_err(source::from_io)?;
    let values = jq::run_jq(&document, query).map_err(|e| Error::invalid(e.to_string()))?;
    let count = values.len();
    let mut notes = Vec::new();
    if count >= jq::MAX_OUTPUTS {
        notes.push(format!(
            "the query produced more than {} results and was stopped there; narrow it or count with `[...] | length`",
            thousands(jq::MAX_OUTPUTS as u64)
        ));
    }
    let mut text = String::new();
    for value in &values {
        let rendered = if count == 1 {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
        .unwrap_or_default();
        text.push_str(&rendered);
        text.push('\n');
    }
    let total_chars = text.chars().count() as u64;
    if total_chars > budget {
        // The result is large itself: show its shape and a budgeted start.
        let shape = crate::preview::json_shape_preview(text.as_bytes(), 1_000)
            .ok()
            .flatten()
            .or_else(|| {
                let array = serde_json::to_vec(&values).ok()?;
                crate::preview::json_shape_preview(array.as_slice(), 1_000)
                    .ok()
                    .flatten()
            })
            .unwrap_or_default();
        notes.push(format!(
            "the result has {} characters, over the reply budget; narrow the query (e.g. `{query} | length`, \
             `.[0:10]`, `keys`). Its shape:\n{shape}",
            thousands(total_chars)
        ));
        let cut: String = text
            .chars()
            .take(usize::try_from(budget).unwrap_or(usize::MAX))
            .collect();
        text = cut;
        text.push_str("\n…");
    }
    Ok(ReadReply {
        name: info.name.clone(),
        kind: info.kind,
        text,
        location: format!(
            "jq `{query}` over {} bytes: {} result{}",
            thousands(info.bytes),
            count,
            if count == 1 { "" } else { "s" }
        ),
        truncated: total_chars > budget,
        continuation: None,
        notes,
        total_matches: None,
    })
}

fn read_bytes(
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
    if offset > info.bytes {
        notes.push(format!(
            "offset {} is past the end ({} bytes): nothing to return",
            thousands(offset),
            thousands(info.bytes)
        ));
    }
    let end = offset.saturating_add(asked).min(info.bytes);
    let start = offset.min(end);
    if offset.saturating_add(asked) > info.bytes && length.is_some() && offset <= info.bytes {
        notes.push(format!(
            "length clamped to the end of the entry ({} bytes)",
            thousands(info.bytes)
        ));
    }
    let cut_end = end.min(start + max_len);
    let mut data = Vec::with_capacity(usize::try_from(cut_end - start).unwrap_or(0));
    std::io::Read::take(content.reader_at_byte(start)?, cut_end - start)
        .read_to_end(&mut data)
        .map_err(source::from_io)?;
    let truncated = cut_end < end;
    Ok(ReadReply {
        name: info.name.clone(),
        kind: info.kind,
        text: base64::engine::general_purpose::STANDARD.encode(&data),
        location: format!(
            "bytes {}–{} of {} (base64)",
            thousands(start),
            thousands(cut_end),
            thousands(info.bytes)
        ),
        truncated,
        continuation: truncated.then_some(ReadMode::Bytes {
            offset: cut_end,
            length: Some(end - cut_end),
        }),
        notes,
        total_matches: None,
    })
}

use std::io::Read as _;
