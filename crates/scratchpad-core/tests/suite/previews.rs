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

/// A piece of a generated output: its lines, and for a failure block the offset of its headline
/// (the line the preview lists it by) within them.
#[derive(Debug, Clone)]
struct Piece {
    lines: Vec<String>,
    headline: Option<usize>,
}

fn quiet(lines: Vec<String>) -> Piece {
    Piece {
        lines,
        headline: None,
    }
}

fn block(lines: Vec<String>, headline: usize) -> Piece {
    Piece {
        lines,
        headline: Some(headline),
    }
}

/// Lines that name a level without reporting anything: progress and metric lines of training and
/// data tools, indented prose, source code whose identifiers hold level words, commit messages.
fn quiet_piece() -> impl Strategy<Value = Piece> {
    let word = "[a-z]{3,8}";
    prop_oneof![
        (0u32..99_999).prop_map(|n| quiet(vec![format!(
            "2026-11-21T10:00:01Z INFO worker {n}: processed batch ok"
        )])),
        (0u32..9_999).prop_map(|n| quiet(vec![format!("step {n} processed")])),
        (0u32..99).prop_map(|n| quiet(vec![format!("epoch {n} processed")])),
        (0u32..99_999).prop_map(|n| quiet(vec![format!("processed {n} errors_total=0")])),
        prop_oneof![
            Just("0 errors"),
            Just("errors: 0"),
            Just("no errors found"),
            Just("error_rate=0.00"),
            Just("FAILED: 0"),
            Just("ERROR: 0"),
            Just("warning: 0"),
            Just("Error: none"),
        ]
        .prop_map(|l| quiet(vec![l.to_owned()])),
        (1u32..99, 0u32..9_999, 0u32..9_999).prop_map(|(e, a, b)| quiet(vec![format!(
            "Epoch {e}/99 - loss: 0.{a:04} - error: 0.{b:04} - val_error: 0.{a:04}"
        )])),
        (0u32..9_999, 0u32..99).prop_map(|(a, p)| quiet(vec![format!(
            "validation: error: 0.{a:04} | top-1 error {p}.5% | errors: 0"
        )])),
        (0u32..9_999, 0u32..100).prop_map(|(s, p)| quiet(vec![format!(
            "2026-11-26 04:31:15,712 INFO train: step {s} processed, error: 0.{p:02}, FAILED: 0"
        )])),
        (word, word).prop_map(|(a, b)| quiet(vec![format!(
            "    the {a} run logged ERROR twice and a FATAL {b} once"
        )])),
        (word, word).prop_map(|(a, b)| quiet(vec![format!(
            "  which {a} means a panic above FATAL: {b} is WARN"
        )])),
        (word, word).prop_map(|(a, b)| quiet(vec![
            format!("    let {a} = compute(err)?;"),
            "#[derive(Debug, Error)]".to_owned(),
            format!("fn {b}() -> Result<(), Box<Error>> {{"),
            format!("    levels[warn] += {a}.len();"),
        ])),
        ("[0-9a-f]{40}", word, word).prop_map(|(hash, a, b)| quiet(vec![
            format!("commit {hash}"),
            format!("Author: {a} <{a}@example.com>"),
            "Date:   Tue Nov 25 18:47:11 2026 +0000".to_owned(),
            String::new(),
            format!("    previews: a panic above FATAL, and ERROR: {b} is not an event"),
            String::new(),
            format!("    error: {a} was quoted; WARNING stays prose"),
            String::new(),
        ])),
    ]
}

/// A failure block as a tool prints it, with the line that heads it.
fn failure_piece() -> impl Strategy<Value = Piece> {
    let word = "[a-z]{3,8}";
    prop_oneof![
        (word, 1u32..999, 1u32..80).prop_map(|(w, n, c)| block(
            vec![
                "error[E0308]: mismatched types".to_owned(),
                format!("  --> src/{w}.rs:{n}:{c}"),
                "   |".to_owned(),
                format!("{n} |     let cents: u64 = {w} * 100.0;"),
                "   |                ---   ^^^^^^^^^^^^^^ expected `u64`, found `f64`".to_owned(),
                "   |                |".to_owned(),
                "   |                expected due to this".to_owned(),
                "   |".to_owned(),
                "   = note: expected type `u64`".to_owned(),
                "              found type `f64`".to_owned(),
                "help: you can convert a `f64` to a `u64`".to_owned(),
                "   |".to_owned(),
                format!("{n} |     let cents: u64 = ({w} * 100.0) as u64;"),
                "   |                      +              ++++++".to_owned(),
                String::new(),
            ],
            0
        )),
        (word, 1u32..999).prop_map(|(w, n)| block(
            vec![
                format!("{w}.c:{n}:20: error: ‘struct point’ has no member named ‘{w}’"),
                format!("   {n} |     return p->x * p->{w};"),
                "      |                    ^~".to_owned(),
            ],
            0
        )),
        (word, word, 1u32..999).prop_map(|(a, b, n)| block(
            // A crash: a traceback under a record below error is that record's (a logged trace).
            vec![
                String::new(),
                "Traceback (most recent call last):".to_owned(),
                format!("  File \"/home/dev/app/{a}.py\", line {n}, in main"),
                format!("    {b}(record)"),
                format!("  File \"/home/dev/app/{b}.py\", line 6, in {b}"),
                "    return int(record[\"amount\"]) / record[\"scale\"]".to_owned(),
                "ZeroDivisionError: division by zero".to_owned(),
            ],
            6
        )),
        (word, 1u32..999, 1u32..80).prop_map(|(w, r, c)| block(
            vec![
                format!("/home/dev/shop/src/{w}.js"),
                format!("  {r}:{c}  error  '{w}' is not defined  no-undef"),
                String::new(),
            ],
            1
        )),
    ]
}

/// The line numbers a suggested search says it finds: those after "at line(s)".
fn promised_lines(finds: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for part in finds.split(';') {
        let Some(at) = part.find(" at line") else {
            continue;
        };
        let numbers = &part[at..];
        let mut current = String::new();
        for c in numbers.chars().chain([' ']) {
            if c.is_ascii_digit() {
                current.push(c);
            } else if c != ',' || current.is_empty() {
                if let Ok(n) = current.parse() {
                    out.push(n);
                }
                current.clear();
            }
        }
    }
    out
}

/// The notable rows of a preview as (line number, text after the gutter).
fn notable_rows(preview: &str) -> Vec<(u64, &str)> {
    preview
        .lines()
        .skip_while(|l| !l.starts_with("[notable lines"))
        .skip(1)
        .take_while(|l| !l.starts_with("[... end of notable lines"))
        .filter_map(|row| {
            let (number, text) = row.split_once(": ")?;
            Some((number.trim().parse().ok()?, text))
        })
        .collect()
}

/// Tokens a preview may take: the design's ~2,000, at the crate's own estimate for text.
const PREVIEW_TOKENS: u64 = 2_000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Outputs built from realistic lines keep the preview's promises: a level word inside
    /// indented prose, a commit message, an identifier's parentheses, or a zero count or metric
    /// counts no severity; a failure block listed from the omitted part keeps its headline and at
    /// most `MAX_DETAILS` lines of its block; the suggested search, run on the stored output,
    /// finds the lines it names; the preview stays within its budget.
    #[test]
    fn realistic_outputs_keep_the_preview_s_promises(
        pieces in proptest::collection::vec(
            prop_oneof![6 => quiet_piece(), 1 => failure_piece()],
            40..220,
        ),
        with_failures in any::<bool>(),
    ) {
        let pieces: Vec<&Piece> = pieces.iter().filter(|p| with_failures || p.headline.is_none()).collect();
        let mut text = String::new();
        // Each block's first line, headline and last line, 1-based.
        let mut blocks: Vec<(u64, u64, u64)> = Vec::new();
        let mut failures = 0;
        let mut line = 0u64;
        for piece in &pieces {
            if let Some(headline) = piece.headline {
                failures += 1;
                let first = line + 1;
                blocks.push((first, first + headline as u64, line + piece.lines.len() as u64));
            }
            for l in &piece.lines {
                text.push_str(l);
                text.push('\n');
                line += 1;
            }
        }
        let config = PreviewConfig::default();
        let preview = text_preview(&text, &config);

        // (d) Within budget, by the bound the crate states and by its token estimate.
        prop_assert!(preview.text.chars().count() <= max_preview_chars(&config));
        let tokens = scratchpad_core::estimate_tokens(scratchpad_core::Kind::Text, preview.text.len() as u64);
        prop_assert!(tokens <= PREVIEW_TOKENS, "{} tokens:\n{}", tokens, preview.text);
        if preview.complete {
            return Ok(());
        }

        // (a) Nothing quiet is an event: with no failure block, no severity at all.
        let levels = &preview.profile.levels;
        let severe = levels.get(Level::Warning) + levels.get(Level::Error) + levels.get(Level::Fatal);
        if failures == 0 {
            prop_assert_eq!(severe, 0, "{}", preview.text);
            prop_assert!(preview.profile.grep.is_none(), "{:?}", preview.profile.grep);
        }

        // ... and with failure blocks, the quiet lines add nothing to what the blocks count.
        let blocks_only: String = pieces
            .iter()
            .filter(|p| p.headline.is_some())
            .flat_map(|p| p.lines.iter().map(|l| format!("{l}\n")))
            .collect();
        let alone = scratchpad_core::read::summary::summarize(
            blocks_only.as_bytes(),
            &SummaryOptions { skip: 0, budget_chars: usize::MAX },
        )
        .unwrap()
        .levels;
        for level in [Level::Fatal, Level::Error, Level::Warning] {
            prop_assert_eq!(levels.get(level), alone.get(level), "{:?}:\n{}", level, preview.text);
        }

        // (b) A block listed from the omitted part: its headline, and at most MAX_DETAILS more.
        let rows = notable_rows(&preview.text);
        for &(first, headline, last) in &blocks {
            let in_block: Vec<u64> = rows.iter().map(|r| r.0).filter(|n| (first..=last).contains(n)).collect();
            if in_block.is_empty() {
                continue;
            }
            prop_assert!(in_block.contains(&headline), "block {}–{} without its headline {}:\n{}", first, last, headline, preview.text);
            prop_assert!(in_block.len() <= 1 + scratchpad_core::preview::profile::MAX_DETAILS, "block {}–{} shows {:?}:\n{}", first, last, in_block, preview.text);
        }

        // (c) The suggested search, run as suggested on the stored output, finds what it names.
        if let Some(grep) = &preview.profile.grep {
            let (_store, pad) = crate::common::pad();
            let stored = crate::common::put(&pad, "out", text.as_bytes());
            prop_assert_eq!(stored.profile.as_ref().and_then(|p| p.grep.as_ref()), Some(grep));
            let mode = scratchpad_core::ReadMode::Grep {
                pattern: grep.pattern.clone(),
                context: u64::from(grep.context),
                max_matches: None,
                ignore_case: grep.ignore_case,
                from: None,
            };
            let reply = pad.read("out", &mode, Some(usize::MAX)).unwrap();
            let matched: Vec<u64> = reply.grep_lines.iter().filter(|l| l.matched).map(|l| l.number).collect();
            prop_assert!(!matched.is_empty(), "/{}/ finds nothing", grep.pattern);
            for promised in promised_lines(&grep.finds) {
                prop_assert!(matched.contains(&promised), "/{}/ ({}) misses line {}", grep.pattern, grep.finds, promised);
            }
            // Every failure block's headline is among the lines it finds.
            for &(_, headline, _) in &blocks {
                prop_assert!(matched.contains(&headline), "/{}/ ({}) misses the headline at {}: {:?}\n{}", grep.pattern, grep.finds, headline, text.lines().nth(headline as usize - 1), preview.text);
            }
        } else {
            prop_assert_eq!(failures, 0, "no search suggested for:\n{}", preview.text);
        }
    }
}
