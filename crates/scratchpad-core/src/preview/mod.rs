//! What the model sees instead of the content: text head and tail with exact omitted counts and
//! notable lines, JSON shape, binary fingerprint.

pub mod binary;
pub mod json;
pub mod text;

use serde::{Deserialize, Serialize};

pub use binary::{binary_preview, sniff_mime, thousands};
pub use json::json_shape_preview;
pub use text::{TextPreview, TextPreviewBuilder, text_preview};

/// How much of an entry a preview shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PreviewConfig {
    /// Characters kept from the start, cut back to a line boundary.
    pub head_chars: usize,
    /// Characters kept from the end, cut forward to a line boundary.
    pub tail_chars: usize,
    /// Notable lines from the omitted middle listed at most from its start, and as many from its end.
    pub notable_lines: usize,
    /// Characters shown of each notable line.
    pub notable_line_chars: usize,
    /// Characters a JSON shape preview may take.
    pub json_chars: usize,
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
