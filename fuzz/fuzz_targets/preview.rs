//! Previews of any bytes: the text preview built from pieces split anywhere on character
//! boundaries, the JSON shape preview, and the summary read's templates. Nothing panics, every
//! preview is within its stated size, and a text preview under the threshold is the text itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scratchpad_core::preview::{
    PreviewConfig, TextPreviewBuilder, json_shape_preview, max_preview_chars, text_preview,
};

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
    if let Ok(Some(shape)) = json_shape_preview(rest, config.json_chars) {
        assert!(shape.chars().count() <= config.json_chars + 200, "{shape}");
    }
});
