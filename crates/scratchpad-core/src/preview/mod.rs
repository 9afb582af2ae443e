//! What the model sees instead of the content: text head and tail with exact omitted counts and
//! notable lines, JSON shape, binary fingerprint.
//!
//! Text previews know what a line is: [`severity`] classifies each line by the conventions real
//! programs use, [`template`] masks its variable parts, and [`profile`] groups lines by template and
//! follows tracebacks, stack traces and panics, so that a preview lists the most severe and rarest
//! lines once each with their counts, and carries a [`TextProfile`] (level counts, a
//! [`GrepSuggestion`] that finds those lines, the result line of a test run or build) to store with
//! the entry. The summary read ([`crate::read::summary`]) lists every template of an entry.

pub mod binary;
mod clip;
mod forms;
pub mod hint;
pub mod json;
mod json_line;
pub mod level;
pub mod paths;
pub mod profile;
pub mod report;
pub mod severity;
pub mod shown;
pub mod template;
pub mod text;

use serde::{Deserialize, Serialize};

pub use crate::figures::thousands;
pub use binary::{binary_preview, sniff_mime};
pub use hint::GrepSuggestion;
pub use json::{JsonShape, json_shape, json_shape_preview};
pub use profile::{LevelCounts, NumberedLine, TextProfile};
pub use severity::{Level, LineKind};
pub use shown::shown_lines;
pub use text::{TextPreview, TextPreviewBuilder, max_preview_chars, text_preview};

/// How much of an entry a preview shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PreviewConfig {
    /// Characters kept from the start, cut back to a line boundary.
    pub head_chars: usize,
    /// Characters kept from the end, cut forward to a line boundary.
    pub tail_chars: usize,
    /// Half the lines a preview lists from the omitted middle (groups of notable lines, most severe
    /// first, with their details): at most twice this many.
    pub notable_lines: usize,
    /// Characters shown of each notable line.
    pub notable_line_chars: usize,
    /// Characters a JSON shape preview may take.
    pub json_chars: usize,
}

impl PreviewConfig {
    /// Names the previews these settings make with this release's rules: content previewed under
    /// equal keys has equal previews, so a second copy of stored content takes the stored preview
    /// (the release is part of the key because the rules change between releases).
    pub fn key(&self) -> String {
        let made_by = format!("scratchpad {} {self:?}", env!("CARGO_PKG_VERSION"));
        blake3::hash(made_by.as_bytes()).to_hex()[..16].to_owned()
    }
}

impl Default for PreviewConfig {
    fn default() -> Self {
        Self {
            head_chars: 500,
            tail_chars: 500,
            notable_lines: 5,
            notable_line_chars: 200,
            json_chars: 1_500,
        }
    }
}
