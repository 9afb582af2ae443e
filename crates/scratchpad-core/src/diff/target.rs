//! What a diff compares, as data: the two sides and where to start. A noun that errors, advice and
//! every face name, so it imports nothing of the engine.

use std::fmt;

use serde::Serialize;

/// Where a diff starts: the first line of each side to compare (1-based). A cut reply's
/// continuation is one, spelled `A:B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffCursor {
    pub a_line: u64,
    pub b_line: u64,
}

impl DiffCursor {
    pub const START: Self = Self {
        a_line: 1,
        b_line: 1,
    };
}

impl fmt::Display for DiffCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.a_line, self.b_line)
    }
}

/// One side of a diff: an entry, at a version or at its current one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    /// `None`: the current version.
    pub version: Option<u64>,
}

impl Target {
    pub fn current(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            version: None,
        }
    }

    pub fn at(name: &str, version: u64) -> Self {
        Self {
            name: name.to_owned(),
            version: Some(version),
        }
    }
}

/// What a diff compares: two targets, from where, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffCall {
    pub a: Target,
    pub b: Target,
    /// Where to start; `None` from the first lines.
    pub cursor: Option<DiffCursor>,
    /// Compare lines as they are, even when both sides are JSON.
    pub plain: bool,
}
