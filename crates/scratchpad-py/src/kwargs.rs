//! Read modes as a Python caller writes them: keyword arguments of `Scratchpad.read`, e.g.
//! `lines=(100, 120)` or `grep="ERROR", context=2`. One table, [`mode_kwargs`], turns a mode into
//! those arguments; continuations (a dict to pass back as `**kwargs`) and messages (a call to
//! copy) are both made from it, and [`crate::modes::ReadArgs::mode`] is its inverse.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use scratchpad_core::ReadMode;

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
