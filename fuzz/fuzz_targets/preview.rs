//! Previews of any bytes: the text preview built from pieces split anywhere on character
//! boundaries, the JSON shape preview, and the summary read's templates. Nothing panics, every
//! preview is within its stated size, and a text preview under the threshold is the text itself.
//! The JSON shape preview is the same whether its input comes whole or in pieces, and accepts
//! what lies between serde_json's `Value` (every string and number read) and `IgnoredAny`
//! (syntax only): it reads strings and numbers where it summarises them.
#![no_main]

use std::io::{self, Read};

use libfuzzer_sys::fuzz_target;
use scratchpad_core::preview::{
    PreviewConfig, TextPreviewBuilder, json_shape, max_preview_chars, text_preview,
};

/// Hands out `bytes` `size` at a time, as a pipe does.
struct Pieces<'a> {
    bytes: &'a [u8],
    size: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let config = PreviewConfig {
        head_chars: 40,
        tail_chars: 40,
        notable_lines: 3,
        notable_line_chars: 60,
        json_chars: 300,
    };
    let text = String::from_utf8_lossy(rest);
    let whole = text_preview(&text, &config);
    assert!(whole.text.chars().count() <= max_preview_chars(&config) + 200);
    if whole.complete {
        assert_eq!(whole.text, text);
    }
    // The same text pushed in two pieces previews the same.
    let mut cut = usize::from(split) * text.len() / 256;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut builder = TextPreviewBuilder::new(&config);
    builder.push(&text[..cut]);
    builder.push(&text[cut..]);
    assert_eq!(builder.finish().text, whole.text);
    let shape = json_shape(rest, config.json_chars).unwrap();
    let pieces = Pieces {
        bytes: rest,
        size: 1 + usize::from(split % 16),
    };
    assert_eq!(json_shape(pieces, config.json_chars).unwrap(), shape);
    if let Some(shape) = &shape {
        let preview = &shape.preview;
        assert!(
            preview.chars().count() <= config.json_chars + 200,
            "{preview}"
        );
        assert!(serde_json::from_slice::<serde::de::IgnoredAny>(rest).is_ok());
    }
    if serde_json::from_slice::<serde_json::Value>(rest).is_ok() {
        assert!(shape.is_some());
    }
});
