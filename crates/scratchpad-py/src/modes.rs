//! Read modes from the keyword arguments of `Scratchpad.read` (`lines=(100, 120)`,
//! `grep="ERROR", context=2`): [`ReadArgs::mode`], the inverse of [`crate::kwargs::mode_kwargs`].

use pyo3::prelude::*;
use scratchpad_core::ReadMode;

use crate::errors::invalid;

/// A count given as `True` (the default) or a number.
#[derive(Debug, Clone, Copy, FromPyObject)]
pub enum Count {
    // Tried first: a Python bool is also an int.
    Flag(bool),
    Number(u64),
}

/// `lines=`, `range=` and `bytes=`: a `(start, end)` pair (`end` may be `None`) or a start alone.
#[derive(Debug, Clone, Copy, FromPyObject)]
pub enum Span {
    Pair(u64, Option<u64>),
    From(u64),
}

impl Span {
    fn parts(self) -> (u64, Option<u64>) {
        match self {
            Self::Pair(start, end) => (start, end),
            Self::From(start) => (start, None),
        }
    }
}

/// The keyword arguments of `read`, before they are checked.
#[derive(Debug, Default)]
pub struct ReadArgs {
    pub head: Option<Count>,
    pub tail: Option<Count>,
    pub range: Option<Span>,
    pub lines: Option<Span>,
    pub grep: Option<String>,
    pub context: Option<u64>,
    pub max_matches: Option<u64>,
    pub ignore_case: bool,
    pub from_line: Option<u64>,
    pub json: Option<String>,
    pub bytes: Option<Span>,
    pub full: bool,
    pub force: bool,
    pub summary: Option<Count>,
}

impl ReadArgs {
    /// The one mode the arguments ask for; none at all is `head`.
    pub fn mode(self) -> PyResult<ReadMode> {
        let enabled = |count: Option<Count>| !matches!(count, None | Some(Count::Flag(false)));
        let asked: Vec<&str> = [
            ("head", enabled(self.head)),
            ("tail", enabled(self.tail)),
            ("range", self.range.is_some()),
            ("lines", self.lines.is_some()),
            ("grep", self.grep.is_some()),
            ("json", self.json.is_some()),
            ("bytes", self.bytes.is_some()),
            ("full", self.full),
            ("summary", enabled(self.summary)),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        if asked.len() > 1 {
            return Err(invalid(format!(
                "read one way at a time; got {}: pass only one of head, tail, range, lines, grep, json, \
                 bytes, full, summary",
                asked.join(", ")
            )));
        }
        let grep_only = [
            ("context", self.context.is_some()),
            ("max_matches", self.max_matches.is_some()),
            ("ignore_case", self.ignore_case),
            ("from_line", self.from_line.is_some()),
        ];
        if self.grep.is_none()
            && let Some((name, _)) = grep_only.iter().find(|(_, given)| *given)
        {
            return Err(invalid(format!(
                "{name} refines a grep; pass grep=\"PATTERN\" with it"
            )));
        }
        if self.force && !self.full {
            return Err(invalid(
                "force applies to full reads; pass full=True, force=True",
            ));
        }
        let count = |count: Option<Count>| match count {
            Some(Count::Number(n)) => Some(n),
            Some(Count::Flag(_)) | None => None,
        };
        let mode = match asked.first().copied() {
            None | Some("head") => ReadMode::Head {
                n: count(self.head),
            },
            Some("tail") => ReadMode::Tail {
                n: count(self.tail),
            },
            Some("range") => {
                let (start, end) = self.range.map_or((0, None), Span::parts);
                ReadMode::Range { start, end }
            }
            Some("lines") => {
                let (from, to) = self.lines.map_or((1, None), Span::parts);
                ReadMode::Lines { from, to }
            }
            Some("grep") => ReadMode::Grep {
                pattern: self.grep.unwrap_or_default(),
                context: self.context.unwrap_or(0),
                max_matches: self.max_matches,
                ignore_case: self.ignore_case,
                from: self.from_line,
            },
            Some("json") => ReadMode::Json {
                query: self.json.unwrap_or_default(),
            },
            Some("bytes") => {
                let (offset, length) = self.bytes.map_or((0, None), Span::parts);
                ReadMode::Bytes { offset, length }
            }
            Some("full") => ReadMode::Full { force: self.force },
            Some(_) => ReadMode::Summary {
                from: count(self.summary),
            },
        };
        Ok(mode)
    }
}
