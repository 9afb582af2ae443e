//! Read modes as a Python caller writes them: keyword arguments of `Scratchpad.read`, e.g.
//! `lines=(100, 120)` or `grep="ERROR", context=2`. One table, [`mode_kwargs`], turns a mode into
//! those arguments; continuations (a dict to pass back as `**kwargs`) and messages (a call to
//! copy) are both made from it, and [`ReadArgs::mode`] is its inverse.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use scratchpad_core::ReadMode;

use crate::errors::invalid;

/// One keyword argument's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kw {
    Int(u64),
    Str(String),
    True,
    /// `(start, end)` with an open end as `None`.
    Pair(u64, Option<u64>),
}

/// The keyword arguments of the `read` call that performs `mode`.
pub fn mode_kwargs(mode: &ReadMode) -> Vec<(&'static str, Kw)> {
    let count = |n: &Option<u64>| n.map_or(Kw::True, Kw::Int);
    match mode {
        ReadMode::Head { n } => vec![("head", count(n))],
        ReadMode::Tail { n } => vec![("tail", count(n))],
        ReadMode::Range { start, end } => vec![("range", Kw::Pair(*start, *end))],
        ReadMode::Lines { from, to } => vec![("lines", Kw::Pair(*from, *to))],
        ReadMode::Grep {
            pattern,
            context,
            max_matches,
            ignore_case,
            from,
        } => {
            let mut kwargs = vec![("grep", Kw::Str(pattern.clone()))];
            if *context > 0 {
                kwargs.push(("context", Kw::Int(*context)));
            }
            if *ignore_case {
                kwargs.push(("ignore_case", Kw::True));
            }
            if let Some(max) = max_matches {
                kwargs.push(("max_matches", Kw::Int(*max)));
            }
            if let Some(from) = from {
                kwargs.push(("from_line", Kw::Int(*from)));
            }
            kwargs
        }
        ReadMode::Json { query } => vec![("json", Kw::Str(query.clone()))],
        ReadMode::Bytes { offset, length } => vec![("bytes", Kw::Pair(*offset, *length))],
        ReadMode::Full { force } => {
            let mut kwargs = vec![("full", Kw::True)];
            if *force {
                kwargs.push(("force", Kw::True));
            }
            kwargs
        }
        ReadMode::Summary { from } => vec![("summary", count(from))],
    }
}

/// A value as Python source: what a reader copies into a call.
pub fn python_literal(value: &Kw) -> String {
    match value {
        Kw::Int(n) => n.to_string(),
        // A JSON string is a valid Python string literal.
        Kw::Str(text) => serde_json::Value::from(text.as_str()).to_string(),
        Kw::True => "True".to_owned(),
        Kw::Pair(start, Some(end)) => format!("({start}, {end})"),
        Kw::Pair(start, None) => format!("({start}, None)"),
    }
}

/// The keyword arguments as a dict, to pass back as `pad.read(name, **continuation)`.
pub fn kwargs_dict<'py>(py: Python<'py>, mode: &ReadMode) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in mode_kwargs(mode) {
        match value {
            Kw::Int(n) => dict.set_item(key, n)?,
            Kw::Str(text) => dict.set_item(key, text)?,
            Kw::True => dict.set_item(key, true)?,
            Kw::Pair(start, end) => dict.set_item(key, (start, end))?,
        }
    }
    Ok(dict)
}

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
