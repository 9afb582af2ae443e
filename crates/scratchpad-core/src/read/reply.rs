//! What a read returns, kept structured until a face renders it.

use serde::Serialize;

use super::ReadMode;
use crate::advice::{Call, Speak};
use crate::figures::thousands;
use crate::model::{EntryInfo, Kind};

/// What a read returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadReply {
    pub name: String,
    pub kind: Kind,
    /// The content read: a slice, lines (without numbers: see `first_line`), grep output (numbered
    /// `N:` for matches and `N-` for context, `--` between groups), jq results or base64.
    pub text: String,
    /// Which part of the entry this covers, e.g. "chars 40,000–42,000 of 88,042".
    pub location: String,
    /// True when the budget cut the reply short of what was asked.
    pub truncated: bool,
    /// The next read when cut.
    pub continuation: Option<ReadMode>,
    /// The version read, when an older one was asked for (continuations read the same one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Clamping and other remarks the reader should know.
    pub notes: Vec<String>,
    /// Lines replies: the number of the first line in `text` (each line of `text` is the next).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u64>,
    /// Lines replies: the last line asked for, which sets the width of the numbers.
    #[serde(skip)]
    pub last_line: Option<u64>,
    /// For grep: how many lines match in all (also beyond the lines shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    /// For grep: how many matching lines `text` shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown_matches: Option<u64>,
    /// For grep: the lines `text` shows, as data, for faces that hand matches on one by one.
    #[serde(skip)]
    pub grep_lines: Vec<GrepLine>,
}

/// One line of grep output: a matching line, or a line of context around one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepLine {
    /// 1-based line number in the entry.
    pub number: u64,
    /// The line without its ending, cut like `text` cuts it (long lines end with `…`).
    pub text: String,
    /// False for context lines.
    pub matched: bool,
}

impl ReadReply {
    /// A complete reply of `text` covering `location`.
    pub(crate) fn new(info: &EntryInfo, text: String, location: String) -> Self {
        Self {
            name: info.name.clone(),
            kind: info.kind,
            text,
            location,
            truncated: false,
            continuation: None,
            version: None,
            notes: Vec::new(),
            first_line: None,
            last_line: None,
            total_matches: None,
            shown_matches: None,
            grep_lines: Vec::new(),
        }
    }

    /// Digits of the widest number in a lines reply that ends at `last`.
    pub(crate) fn gutter_width(last: u64) -> usize {
        last.to_string().len()
    }

    /// The content as a model reads it: lines replies numbered like `grep -n` (plain digits, so a
    /// number copied from here works as an argument), everything else as it is.
    pub fn numbered_text(&self) -> std::borrow::Cow<'_, str> {
        let Some(first) = self.first_line else {
            return std::borrow::Cow::Borrowed(&self.text);
        };
        let width = Self::gutter_width(self.last_line.unwrap_or(first).max(first));
        let mut out = String::with_capacity(self.text.len() + (width + 2) * 64);
        for (i, line) in self.text.split_terminator('\n').enumerate() {
            out.push_str(&format!("{:>width$}: {line}\n", first + i as u64));
        }
        std::borrow::Cow::Owned(out)
    }

    /// The continuation as a call on this entry.
    pub fn next_call(&self) -> Option<Call> {
        let mode = self.continuation.clone()?;
        Some(match self.version {
            Some(version) => Call::ReadVersion {
                name: self.name.clone(),
                version,
                mode,
            },
            None => Call::read(&self.name, mode),
        })
    }

    /// Header, content and continuation as one text for a model or a terminal, with the
    /// continuation spelled by the face.
    pub fn render(&self, speak: &dyn Speak) -> String {
        let mut out = match self.version {
            Some(version) => format!("[{} version {version}: {}]\n", self.name, self.location),
            None => format!("[{}: {}]\n", self.name, self.location),
        };
        for note in &self.notes {
            out.push_str(&format!("[note: {note}]\n"));
        }
        let text = self.numbered_text();
        out.push_str(&text);
        if !text.is_empty() && !text.ends_with('\n') {
            out.push('\n');
        }
        if let Some(next) = self.next_call() {
            let why = match (self.total_matches, self.shown_matches) {
                (Some(total), Some(shown)) => match total.saturating_sub(shown) {
                    1 => "1 more matching line".to_owned(),
                    n => format!("{} more matching lines", thousands(n)),
                },
                _ => "cut at the reply budget".to_owned(),
            };
            out.push_str(&format!(
                "[{why}; continue with: {}]\n",
                crate::advice::code_span(&speak.call(&next))
            ));
        }
        out
    }
}
