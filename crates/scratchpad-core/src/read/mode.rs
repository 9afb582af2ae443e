//! How to read an entry, as data: what a read asks for, and what a message suggests reading next.
//! A noun every layer names (errors, advice, faces), so it imports nothing of the engine.

use serde::{Deserialize, Serialize};

/// How to read an entry. Offsets are characters (end exclusive); lines are 1-based and inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum ReadMode {
    /// The first `n` lines, as `head -n` counts them.
    Head {
        n: Option<u64>,
    },
    /// The last `n` lines, as `tail -n` counts them (a last line without its newline is one).
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
    /// The entry's line templates with counts, level, first and last line and an example, most
    /// severe first; `from` is the first template to list (1-based; continuations use it).
    Summary {
        from: Option<u64>,
    },
}

impl ReadMode {
    /// A grep with default context, count and start.
    pub fn grep(pattern: &str, context: u64) -> Self {
        Self::Grep {
            pattern: pattern.to_owned(),
            context,
            max_matches: None,
            ignore_case: false,
            from: None,
        }
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
            Self::Summary { .. } => "summary",
        }
    }
}
