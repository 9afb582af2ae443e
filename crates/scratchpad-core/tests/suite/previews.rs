//! Preview invariants and snapshots.

use proptest::prelude::*;
use scratchpad_core::preview::{PreviewConfig, text_preview};

use crate::common::log_with_errors;

fn small_config() -> PreviewConfig {
    PreviewConfig {
        head_chars: 60,
        tail_chars: 60,
        ..PreviewConfig::default()
    }
}

proptest! {
    #[test]
    fn preview_is_identity_under_the_threshold(text in "\\PC{0,120}") {
        let config = small_config();
        let preview = text_preview(&text, &config);
        prop_assert!(preview.complete);
        prop_assert_eq!(preview.text, text);
    }

    #[test]
    fn preview_keeps_head_and_tail_within_budget(
        lines in proptest::collection::vec("[a-zé€😀 ]{0,40}", 1..200),
        trailing_newline in any::<bool>(),
    ) {
        let config = small_config();
        let mut text = lines.join("\n");
        if trailing_newline {
            text.push('\n');
        }
        let chars = text.chars().count();
        let preview = text_preview(&text, &config);
        if chars <= config.head_chars + config.tail_chars {
            prop_assert_eq!(&preview.text, &text);
        } else {
            prop_assert!(!preview.complete);
            let marker = preview.text.find("[... ").expect("a marker");
            let head = &preview.text[..marker];
            // The head is a prefix of the content and within budget (plus the newline we add).
            prop_assert!(text.starts_with(head.trim_end_matches('\n')) || text.starts_with(head));
            prop_assert!(head.chars().count() <= config.head_chars + 1);
            let after_marker = &preview.text[marker..];
            let tail_start = after_marker.find("...]\n").unwrap() + 5;
            let tail = &after_marker[tail_start..];
            let tail = if tail.starts_with("[notable") {
                &tail[tail.find("[... end of notable lines ...]\n").unwrap() + 31..]
            } else {
                tail
            };
            prop_assert!(text.ends_with(tail), "tail {:?} not a suffix", tail);
            prop_assert!(tail.chars().count() <= config.tail_chars);
            // The omitted count is exact.
            let omitted = chars - head.trim_end_matches('\n').chars().count() - tail.chars().count();
            let shown_head = if text.starts_with(head) { head.chars().count() } else { head.chars().count() - 1 };
            let exact = chars - shown_head - tail.chars().count();
            let stated = format!("[... {} characters omitted", scratchpad_core::preview::thousands(exact as u64));
            prop_assert!(preview.text.contains(&stated), "{} not in {}", stated, preview.text);
            let _ = omitted;
        }
    }
}

#[test]
fn notable_lines_from_the_middle_carry_their_numbers() {
    let log = log_with_errors(10_000, &[5_000, 7_321, 10_000]);
    let preview = text_preview(&log, &PreviewConfig::default());
    assert!(
        preview
            .text
            .contains("5000: 2026-11-21T10:00:20Z ERROR worker 5000"),
        "{}",
        preview.text
    );
    assert!(preview.text.contains("7321: "), "{}", preview.text);
    // The last line is in the tail itself, shown verbatim.
    assert!(
        preview
            .text
            .ends_with("ERROR worker 10000: connection reset by peer\n")
    );
    assert!(preview.text.contains("of 10,000 ...]"));
}

#[test]
fn snapshot_text_preview() {
    let log = log_with_errors(2_000, &[1_000, 1_500]);
    insta::assert_snapshot!(text_preview(&log, &PreviewConfig::default()).text);
}

#[test]
fn snapshot_single_long_line() {
    let line = "word ".repeat(1_000);
    insta::assert_snapshot!(text_preview(&line, &small_config()).text);
}
