//! Scripted agent policies: what each one puts in the context to answer a question about a tool
//! output. No model runs; a policy is honest when it decides only from the question's [`Ask`] and the
//! text it has already seen, never from the planted answer.

use anyhow::Result;
use regex::{Regex, RegexBuilder};
use scratchpad_core::{Call, Kind, OffloadedObservation, ReadMode, Scratchpad, Speak as _};
use scratchpad_mcp_speak::Mcp;

use super::corpus::{Ask, Document, Fact};
use super::tokens::count_tokens;

/// Characters policy (b) keeps.
pub const CUT_CHARS: usize = 1_500;
/// Characters policy (c) keeps.
pub const HEAD_CHARS: usize = 200;
/// Reads policy (d) may issue for one question before it gives up.
pub const MAX_READS: usize = 4;
/// Lines before a notable line that policy (d) reads to see what led up to it.
const LINES_BEFORE: u64 = 5;
/// Lines of context policy (d) asks grep for.
const GREP_CONTEXT: u64 = 2;
/// Matching lines policy (d) asks grep for.
const GREP_MAX_MATCHES: u64 = 20;

/// A way to put one tool output into an agent's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Policy {
    /// (a) The whole output.
    Inline,
    /// (b) The first 1,500 characters.
    Cut,
    /// (c) The first 200 characters.
    Head,
    /// (d) The engine's reference with a preview, then the reads an agent would issue.
    Scratchpad,
}

impl Policy {
    pub const ALL: [Self; 4] = [Self::Inline, Self::Cut, Self::Head, Self::Scratchpad];

    pub fn label(self) -> &'static str {
        match self {
            Self::Inline => "(a) everything inline",
            Self::Cut => "(b) first 1,500 chars",
            Self::Head => "(c) 200-char head preview",
            Self::Scratchpad => "(d) scratchpad ref + reads",
        }
    }
}

/// What one policy put in the context for one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Episode {
    /// o200k tokens of everything that entered the context for this question.
    pub tokens: usize,
    /// The planted answer string appears in that context.
    pub found: bool,
    /// Reads issued after the first view.
    pub reads: usize,
    /// The read calls issued, in the face's syntax (for `--trace`).
    pub calls: Vec<String>,
    /// The planted answer is in the first view alone (the reference, the cut, or the inline
    /// output), before any read.
    pub found_in_first_view: bool,
    /// o200k tokens of that first view.
    pub first_view_tokens: usize,
}

/// (a): the whole document enters the context; its token count is computed once per document.
pub fn inline(doc: &Document, fact: &Fact, doc_tokens: usize) -> Episode {
    let found = doc.text.contains(&fact.answer);
    Episode {
        tokens: doc_tokens,
        found,
        reads: 0,
        calls: Vec::new(),
        found_in_first_view: found,
        first_view_tokens: doc_tokens,
    }
}

/// (b) and (c): the first `chars` characters and a marker saying how much was cut.
pub fn blind_cut(doc: &Document, fact: &Fact, chars: usize) -> Episode {
    let end = doc
        .text
        .char_indices()
        .nth(chars)
        .map_or(doc.text.len(), |(i, _)| i);
    let mut context = doc.text[..end].to_owned();
    if end < doc.text.len() {
        let total = doc.text.chars().count();
        context.push_str(&format!(
            "\n[output truncated: first {chars} of {total} characters shown]"
        ));
    }
    let tokens = count_tokens(&context);
    let found = context.contains(&fact.answer);
    Episode {
        tokens,
        found,
        reads: 0,
        calls: Vec::new(),
        found_in_first_view: found,
        first_view_tokens: tokens,
    }
}

/// (d): the engine's view of the output (inline under the threshold, else the reference), then reads.
pub fn scratchpad(
    pad: &Scratchpad,
    doc: &Document,
    offload: &Option<OffloadedObservation>,
    doc_tokens: usize,
    fact: &Fact,
) -> Result<Episode> {
    let Some(reference) = offload else {
        return Ok(inline(doc, fact, doc_tokens));
    };
    let spell = |mode: &ReadMode| Mcp.call(&Call::read(&reference.scratchpad, mode.clone()));
    // What the model sees: the observation that replaced the tool output, as JSON.
    let mut context = serde_json::to_string(reference)?;
    let found_in_first_view = context.contains(&fact.answer);
    let first_view_tokens = count_tokens(&context);
    let mut seen = vec![reference.preview.clone()];
    let mut history: Vec<Read> = Vec::new();
    while history.len() < MAX_READS {
        let Some(mode) = next_read(&fact.ask, reference, &seen, &history)? else {
            break;
        };
        let call = spell(&mode);
        let (rendered, content, matches, continuation) =
            match pad.read(&reference.scratchpad, &mode, None) {
                Ok(reply) => (
                    reply.render(&Mcp),
                    reply.text.clone(),
                    reply.total_matches,
                    reply.continuation.clone(),
                ),
                Err(error) => (format!("error: {error}"), String::new(), None, None),
            };
        // The whole rendered reply enters the context; the policy judges by its content lines, not by
        // the header and continuation the engine wraps around them.
        context.push('\n');
        context.push_str(&call);
        context.push('\n');
        context.push_str(&rendered);
        seen.push(content);
        history.push(Read {
            mode,
            matches,
            continuation,
        });
    }
    Ok(Episode {
        tokens: count_tokens(&context),
        found: context.contains(&fact.answer),
        reads: history.len(),
        calls: history.iter().map(|r| spell(&r.mode)).collect(),
        found_in_first_view,
        first_view_tokens,
    })
}

/// A read already issued and what it found.
#[derive(Debug)]
struct Read {
    mode: ReadMode,
    matches: Option<u64>,
    /// The call the reply said continues it, when it was cut.
    continuation: Option<ReadMode>,
}

/// The next read an agent would issue, or `None` when what it has seen answers the question (or it
/// has run out of sensible reads). Decides from the ask, the preview and earlier replies only.
fn next_read(
    ask: &Ask,
    reference: &OffloadedObservation,
    seen: &[String],
    history: &[Read],
) -> Result<Option<ReadMode>> {
    let is_text = reference.kind == Kind::Text;
    Ok(match ask {
        // A text preview always shows the first and last lines; other kinds need a read.
        Ask::Start if is_text || !history.is_empty() => None,
        Ask::Start => Some(ReadMode::Head { n: Some(2_000) }),
        Ask::End if is_text || !history.is_empty() => None,
        Ask::End => Some(ReadMode::Tail { n: Some(2_000) }),
        Ask::Grep {
            pattern,
            ignore_case,
            answered_by,
        } => {
            let answer_like = match answered_by {
                Some(answered_by) => Regex::new(answered_by)?,
                None => RegexBuilder::new(pattern)
                    .case_insensitive(*ignore_case)
                    .build()?,
            };
            if any_line_matches(seen, &answer_like) {
                None
            } else {
                match history.last() {
                    None => Some(grep(pattern, GREP_CONTEXT, *ignore_case)),
                    // Nothing matched as typed: try again ignoring case, once.
                    Some(Read {
                        matches: Some(0), ..
                    }) if !ignore_case && history.len() == 1 => {
                        Some(grep(pattern, GREP_CONTEXT, true))
                    }
                    // Hits, but none of them answers: page on with the call the reply printed.
                    Some(Read {
                        continuation: Some(next),
                        ..
                    }) => Some(next.clone()),
                    Some(_) => None,
                }
            }
        }
        Ask::Before { pattern } => {
            if !history.is_empty() {
                None
            } else {
                // The preview lists notable lines with their numbers: read the lines before one.
                let regex = Regex::new(pattern)?;
                match notable_line_number(&reference.preview, &regex) {
                    Some(line) => Some(ReadMode::Lines {
                        from: line.saturating_sub(LINES_BEFORE).max(1),
                        to: Some(line),
                    }),
                    None => Some(grep(pattern, LINES_BEFORE, false)),
                }
            }
        }
        Ask::JsonById { id, field } => {
            // A shape preview may list sample ids and key names side by side; only a reply that
            // holds the object itself answers.
            if seen
                .iter()
                .skip(1)
                .any(|text| text.contains(id.as_str()) && text.to_lowercase().contains(field))
            {
                None
            } else {
                match history.len() {
                    0 => Some(ReadMode::Json {
                        query: json_by_id_query(&reference.preview, id),
                    }),
                    1 => Some(grep(&regex::escape(id), 0, false)),
                    _ => None,
                }
            }
        }
        Ask::JsonKey { word } => {
            let key = key_named_like(&reference.preview, word);
            let satisfied = seen
                .iter()
                .skip(1)
                .any(|text| text.contains(key.as_deref().unwrap_or(word)))
                || shows_string_value(&reference.preview, key.as_deref().unwrap_or(word));
            if satisfied {
                None
            } else {
                match (history.len(), &key) {
                    (0, Some(key)) => Some(ReadMode::Json {
                        query: json_key_query(&reference.preview, key),
                    }),
                    (0, None) | (1, Some(_)) => Some(grep(&regex::escape(word), 0, true)),
                    _ => None,
                }
            }
        }
    })
}

fn grep(pattern: &str, context: u64, ignore_case: bool) -> ReadMode {
    ReadMode::Grep {
        pattern: pattern.to_owned(),
        context,
        max_matches: Some(GREP_MAX_MATCHES),
        ignore_case,
        from: None,
    }
}

fn any_line_matches(seen: &[String], regex: &Regex) -> bool {
    seen.iter()
        .any(|text| text.lines().any(|l| regex.is_match(l)))
}

/// The number of a notable line matching `regex` in a text preview (`     2345: text`).
fn notable_line_number(preview: &str, regex: &Regex) -> Option<u64> {
    preview.lines().find_map(|line| {
        let (number, text) = line.trim_start().split_once(": ")?;
        if !regex.is_match(text) {
            return None;
        }
        number.parse().ok()
    })
}

/// A key in a JSON shape preview whose name contains `word` (`"next_cursor": string …`).
fn key_named_like(preview: &str, word: &str) -> Option<String> {
    preview.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix('"')?;
        let (key, _) = rest.split_once("\":")?;
        key.contains(word).then(|| key.to_owned())
    })
}

/// The preview shows a string value for `key` (a sample such as `"request_id": string = "req_…"`).
fn shows_string_value(preview: &str, key: &str) -> bool {
    preview.lines().any(|line| {
        line.trim_start()
            .strip_prefix(&format!("\"{key}\":"))
            .is_some_and(|rest| rest.contains("= \""))
    })
}

/// The jq path of `key` from the preview's indentation (two spaces a level), else a search for it.
fn json_key_query(preview: &str, key: &str) -> String {
    match outline_path(preview, key) {
        Some(path) => path,
        None => format!("[.. | objects | select(has({key:?})) | .[{key:?}]]"),
    }
}

/// The query for the object with this `id`: over the array of objects the preview shows, else a
/// search of the whole document.
fn json_by_id_query(preview: &str, id: &str) -> String {
    match array_of_objects_with_id(preview) {
        Some(path) => format!("{path}[] | select(.id == {id:?})"),
        None => format!(".. | objects | select(.id? == {id:?})"),
    }
}

/// Lines of a shape preview as (depth, key, description).
fn outline(preview: &str) -> Vec<(usize, String, String)> {
    preview
        .lines()
        .filter_map(|line| {
            let trimmed = line.trim_start();
            let depth = (line.len() - trimmed.len()) / 2;
            let rest = trimmed.strip_prefix('"')?;
            let (key, description) = rest.split_once("\":")?;
            Some((depth, key.to_owned(), description.trim().to_owned()))
        })
        .collect()
}

/// The jq path to `key` in the outline, following indentation (arrays descend with `[]`).
fn outline_path(preview: &str, key: &str) -> Option<String> {
    let mut stack: Vec<(usize, String, bool)> = Vec::new();
    for (depth, name, description) in outline(preview) {
        while stack.last().is_some_and(|(d, _, _)| *d >= depth) {
            stack.pop();
        }
        if name == key {
            let mut path = String::new();
            for (_, parent, is_array) in &stack {
                path.push_str(&format!(".{parent}"));
                if *is_array {
                    path.push_str("[]");
                }
            }
            path.push_str(&format!(".{name}"));
            return Some(path);
        }
        stack.push((depth, name, description.starts_with("array")));
    }
    None
}

/// The top-level key holding an array of objects that have an `id`, per the outline.
fn array_of_objects_with_id(preview: &str) -> Option<String> {
    let lines = outline(preview);
    lines
        .iter()
        .enumerate()
        .find_map(|(i, (depth, name, description))| {
            if !description.starts_with("array") {
                return None;
            }
            let has_id = lines[i + 1..]
                .iter()
                .take_while(|(d, _, _)| d > depth)
                .any(|(_, key, _)| key == "id");
            has_id.then(|| format!(".{name}"))
        })
}
