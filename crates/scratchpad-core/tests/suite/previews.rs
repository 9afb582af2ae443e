//! Preview invariants and snapshots.

use proptest::prelude::*;
use scratchpad_core::preview::{Level, PreviewConfig, max_preview_chars, text_preview};
use scratchpad_core::read::summary::{SummaryOptions, summarize};

use crate::common::log_with_errors;

/// Lines in the shapes the classifier knows, with numbers, ids and words that vary.
fn format_line() -> impl Strategy<Value = String> {
    let shapes = prop_oneof![
        (0u32..99_999).prop_map(|n| format!("2026-11-21T10:00:01Z INFO worker {n}: done")),
        (0u32..999)
            .prop_map(|n| format!("2026-11-21T10:00:01Z ERROR upstream timeout after {n} ms")),
        "[a-z]{1,8}".prop_map(|w| format!("2026-11-21T10:00:01Z WARN cache {w} cold")),
        "[a-z]{1,8}".prop_map(|w| format!("FATAL pool {w} exhausted")),
        (0u32..99).prop_map(|n| format!("time=\"x\" level=error msg=\"failed\" n={n}")),
        (0u32..99).prop_map(|n| format!("{{\"level\":\"warn\",\"n\":{n}}}")),
        (0u32..99).prop_map(|n| format!("<3>Nov 21 10:00:0{} host app: boom", n % 10)),
        Just("E/AndroidRuntime( 4211): FATAL EXCEPTION: main".to_owned()),
        Just("Traceback (most recent call last):".to_owned()),
        Just("  File \"x.py\", line 1, in <module>".to_owned()),
        Just("ValueError: bad".to_owned()),
        Just("java.lang.IllegalStateException: boom".to_owned()),
        Just("\tat com.example.Foo.bar(Foo.java:12)".to_owned()),
        Just("Caused by: java.io.IOException: disk".to_owned()),
        Just("thread 'main' panicked at src/main.rs:2:5:".to_owned()),
        Just("assertion failed".to_owned()),
        Just("error[E0308]: mismatched types".to_owned()),
        Just("  --> src/a.rs:1:2".to_owned()),
        Just("test a::b ... FAILED".to_owned()),
        Just("test result: FAILED. 1 passed; 1 failed".to_owned()),
        Just(String::new()),
        "[a-zé€😀 ]{0,60}",
    ];
    shapes
}

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
            let tail = match tail.find("[... end of notable lines ...]\n") {
                Some(end) => &tail[end + 31..],
                None => tail.strip_prefix(tail.lines().next().filter(|l| l.starts_with("[levels: ")).map_or("", |l| &tail[..l.len() + 1])).unwrap_or(tail),
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every line lands in exactly one level (or none), in the preview's counts and in the
    /// summary's templates; the preview stays within its budget.
    #[test]
    fn grouping_never_loses_a_line(
        lines in proptest::collection::vec(format_line(), 1..400),
        trailing_newline in any::<bool>(),
    ) {
        let mut text = lines.join("\n");
        if trailing_newline {
            text.push('\n');
        }
        let newlines = text.matches('\n').count() as u64;
        let line_count = if text.is_empty() { 0 } else { newlines + u64::from(!text.ends_with('\n')) };
        let config = PreviewConfig { head_chars: 200, tail_chars: 200, ..PreviewConfig::default() };
        let preview = text_preview(&text, &config);
        prop_assert!(preview.text.chars().count() <= max_preview_chars(&config));
        prop_assert_eq!(preview.text.contains('\u{FFFD}'), text.contains('\u{FFFD}'));
        if !preview.complete {
            prop_assert_eq!(preview.profile.levels.total(), line_count);
        }
        let summary = summarize(text.as_bytes(), &SummaryOptions { skip: 0, budget_chars: usize::MAX }).unwrap();
        prop_assert_eq!(summary.lines, line_count);
        prop_assert_eq!(summary.levels.total(), line_count);
        prop_assert_eq!(summary.rows.len(), summary.templates);
        let listed: u64 = summary.rows.iter().map(|r| r.count).sum();
        prop_assert_eq!(listed + summary.unlisted_lines, line_count);
        for level in Level::ALL {
            let in_rows: u64 = summary.rows.iter().filter(|r| r.level == Some(level)).map(|r| r.count).sum();
            prop_assert_eq!(in_rows, summary.levels.get(level), "{:?}", level);
        }
        if !preview.complete {
            prop_assert_eq!(preview.profile.levels, summary.levels);
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
    // Lines of one form are one group: its first line, its count and span, listed once (a second
    // row of the same template would say nothing the count does not).
    assert!(
        preview
            .text
            .contains("connection reset by peer  [×3, lines 5,000–10,000]"),
        "{}",
        preview.text
    );
    assert!(!preview.text.contains("7321: "), "{}", preview.text);
    assert!(
        preview.text.contains("[levels: 3 error, 9,997 info]"),
        "{}",
        preview.text
    );
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

/// Past its cap of forms per level the preview still counts every line, and says that it stopped
/// grouping.
#[test]
fn the_template_cap_is_stated() {
    let mut rng = super::corpus::Rng::new(9);
    let mut text = String::new();
    for i in 0..20_000u64 {
        if i % 40 == 7 {
            // A new form of error line each time: letters only, so nothing is masked.
            text.push_str(&format!(
                "2026-11-21T10:00:01Z ERROR {} {} refused\n",
                rng.word(8),
                rng.word(6)
            ));
        } else {
            text.push_str(&format!("2026-11-21T10:00:01Z INFO worker {i}: done\n"));
        }
    }
    let preview = text_preview(&text, &PreviewConfig::default());
    assert!(
        preview.text.contains(
            "[more than 200 forms of line at one level: 300 lines counted but not grouped]"
        ),
        "{}",
        preview.text
    );
    assert!(preview.text.contains("[levels: 500 error, 19,500 info]"));
    assert!(preview.profile.capped);
    assert_eq!(preview.profile.levels.error, 500);
}

/// Regression: the fatal levels were listed by rarity alone, so a repeated syslog emerg could come
/// after a single crit, and PostgreSQL's FATAL before its PANIC.
#[test]
fn fatal_lines_are_listed_emerg_alert_crit_and_panic_before_fatal() {
    let mut text = String::new();
    for i in 0..2_000 {
        text.push_str(&format!(
            "<6>Nov 24 23:00:50 vm app[7]: request {i} served\n"
        ));
        match i {
            600 => text.push_str("<2>Nov 24 23:00:50 vm app[7]: disk controller degraded\n"),
            700 | 710 => text.push_str("<1>Nov 24 23:00:50 vm app[7]: raid array lost a mirror\n"),
            800 | 810 | 820 => {
                text.push_str("<0>Nov 24 23:00:50 vm kernel: system is unusable\n")
            }
            900 => text.push_str(
                "2026-11-21 10:00:01.123 UTC [42] FATAL:  terminating connection due to administrator command\n",
            ),
            910 | 920 => text.push_str(
                "2026-11-21 10:00:01.123 UTC [42] PANIC:  could not write to file \"pg_wal/xlogtemp.42\"\n",
            ),
            _ => {}
        }
    }
    let preview = text_preview(&text, &PreviewConfig::default());
    let position = |needle: &str| {
        preview
            .text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} not in\n{}", preview.text))
    };
    let emerg = position("system is unusable");
    let alert = position("raid array lost a mirror");
    let crit = position("disk controller degraded");
    assert!(emerg < alert && alert < crit, "{}", preview.text);
    assert!(position("PANIC:") < position("FATAL:"), "{}", preview.text);
}

/// Every `A–B` range a text says, read as numbers: A < B (a single line or template is named
/// alone, never as `N–N`, and no range reads backwards).
fn ranges_read_forwards(text: &str) -> Result<(), TestCaseError> {
    let number = |s: &str| s.replace(',', "").parse::<u64>();
    for (at, _) in text.match_indices('–') {
        let before = text[..at]
            .rsplit(|c: char| !(c.is_ascii_digit() || c == ','))
            .next()
            .unwrap_or("");
        let after = text[at + '–'.len_utf8()..]
            .split(|c: char| !(c.is_ascii_digit() || c == ','))
            .next()
            .unwrap_or("");
        if let (Ok(a), Ok(b)) = (number(before), number(after)) {
            prop_assert!(a < b, "{}–{} in\n{}", a, b, text);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Regression: a summary page past the last template said "templates 31–30".
    #[test]
    fn stated_ranges_never_read_backwards(
        lines in proptest::collection::vec(
            prop_oneof![
                Just(String::new()),
                "[a-z ]{0,30}",
                "ERROR [a-z]{1,3}",
                "WARN [a-z]{1,3}",
                "INFO [a-z ]{0,90}",
            ],
            1..120,
        ),
        skip in 0usize..12,
    ) {
        let text = lines.join("\n");
        ranges_read_forwards(&text_preview(&text, &small_config()).text)?;
        let options = SummaryOptions { skip, budget_chars: 400 };
        ranges_read_forwards(&summarize(text.as_bytes(), &options).unwrap().render())?;
    }
}

/// A stored input of many chunks (previewed on a thread of its own from the second chunk on) has
/// the preview, characters and lines of its whole text previewed at once, with characters of
/// several bytes across every chunk boundary and bytes that are not UTF-8.
#[test]
fn a_large_input_is_previewed_as_its_whole_text() {
    let (_store, pad) = crate::common::pad();
    let mut content = Vec::new();
    for i in 0..60_000u32 {
        let line = match i % 9_973 {
            17 => format!("2026-11-21T10:00:01Z ERROR upstream {i} failed: naïve café — 😀\n"),
            42 => format!("2026-11-21T10:00:01Z WARN slow request {i} ⏱\n"),
            _ => format!("2026-11-21T10:00:01Z INFO worker {i}: ünïcödé ok ✓\n"),
        };
        content.extend_from_slice(line.as_bytes());
        if i == 31_000 {
            content.extend_from_slice(b"latin-1 \xe9t\xe9\n");
        }
    }
    assert!(content.len() > 3 << 20, "many chunks");
    let stored = crate::common::put(&pad, "big", &content);
    let text = String::from_utf8_lossy(&content);
    let whole = text_preview(&text, &PreviewConfig::default());
    assert_eq!(stored.chars, text.chars().count() as u64);
    assert_eq!(stored.lines, 60_001);
    // The stored preview starts with a note on the bytes that are not UTF-8.
    let note_end = stored.preview.find('\n').unwrap() + 1;
    assert!(
        stored.preview.starts_with("[2 bytes are not valid UTF-8"),
        "{}",
        stored.preview
    );
    assert_eq!(&stored.preview[note_end..], whole.text);
}
