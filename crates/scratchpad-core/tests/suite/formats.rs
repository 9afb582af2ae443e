//! Previews of outputs in real formats: the most severe group is shown with its line number and
//! count, and the suggested search, run as the engine's grep would run it, finds the planted lines
//! and not the noise around them.

use regex::RegexBuilder;
use scratchpad_core::preview::{
    Level, PreviewConfig, TextPreview, max_preview_chars, text_preview, thousands,
};

use super::corpus::{self, Planted, Sample};

/// The planted line a preview must show first: the most severe level, then the rarest form, then
/// the earliest line (in the omitted middle).
fn expected_top(sample: &Sample, middle: (u64, u64)) -> (&Planted, u64) {
    let count = |p: &Planted| sample.planted.iter().filter(|q| q.group == p.group).count() as u64;
    let top = sample
        .planted
        .iter()
        .filter(|p| p.line >= middle.0 && p.line <= middle.1)
        .min_by_key(|p| (std::cmp::Reverse(p.level), count(p), p.line))
        .unwrap_or_else(|| panic!("{}: nothing planted in the middle", sample.name));
    (top, count(top))
}

/// The omitted line span the preview states: `lines A–B of N`.
fn omitted_span(preview: &str) -> (u64, u64) {
    let marker = preview
        .lines()
        .find(|l| l.starts_with("[... ") && l.contains(" characters omitted: lines "))
        .unwrap();
    let span = marker.split("lines ").nth(1).unwrap();
    let (a, rest) = span.split_once('–').unwrap();
    let b = rest.split(' ').next().unwrap();
    let parse = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    (parse(a), parse(b))
}

/// The preview line for line `number` (gutter `     1234: `).
fn shown_line(preview: &str, number: u64) -> Option<&str> {
    let gutter = format!("{number:>9}: ");
    preview.lines().find(|l| l.starts_with(&gutter))
}

/// Runs every check on one sample and returns the text its snapshot records.
fn check(sample: &Sample) -> (TextPreview, String) {
    let preview = text_preview(&sample.text, &PreviewConfig::default());
    let text = &preview.text;
    assert!(!preview.complete, "{}", sample.name);
    let middle = omitted_span(text);
    let (top, count) = expected_top(sample, middle);
    let shown = shown_line(text, top.line).unwrap_or_else(|| {
        panic!(
            "{}: line {} ({}) not shown:\n{text}",
            sample.name, top.line, top.snippet
        )
    });
    assert!(shown.contains(&top.snippet), "{}: {shown}", sample.name);
    if count > 1 {
        assert!(
            shown.contains(&format!("×{}, lines ", thousands(count))),
            "{}: no count ×{count} on {shown}",
            sample.name
        );
    }
    let levels = text.lines().find(|l| l.starts_with("[levels: ")).unwrap();
    assert!(
        levels.contains(top.level.name()),
        "{}: {levels}",
        sample.name
    );

    // The hint, run: it finds every planted line at the levels it covers, and not the noise.
    let grep = preview
        .profile
        .grep
        .as_ref()
        .unwrap_or_else(|| panic!("{}: no grep suggestion", sample.name));
    let regex = RegexBuilder::new(&grep.pattern)
        .case_insensitive(grep.ignore_case)
        .build()
        .unwrap();
    let lines: Vec<&str> = sample.text.lines().collect();
    let floor = if sample.planted.iter().any(|p| p.level >= Level::Error) {
        Level::Error
    } else {
        Level::Warning
    };
    for planted in sample.planted.iter().filter(|p| p.level >= floor) {
        let line = lines[planted.line as usize - 1];
        assert!(
            regex.is_match(line),
            "{}: /{}/ misses line {}: {line}",
            sample.name,
            grep.pattern,
            planted.line
        );
    }
    let noise = lines.iter().find(|l| l.contains(&sample.noise)).unwrap();
    assert!(
        !regex.is_match(noise),
        "{}: /{}/ matches the noise {noise}",
        sample.name,
        grep.pattern
    );
    let matched = lines.iter().filter(|l| regex.is_match(l)).count() as u64;
    let planted = sample.planted.iter().filter(|p| p.level >= floor).count() as u64;
    assert!(
        matched <= planted * 4 + 10,
        "{}: /{}/ matches {matched} lines for {planted} planted",
        sample.name,
        grep.pattern
    );
    let profile = serde_json::to_string_pretty(&preview.profile).unwrap();
    let snapshot = format!("{text}---- profile\n{profile}\n");
    (preview, snapshot)
}

macro_rules! format_tests {
    ($($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                let sample = corpus::$name();
                let (_, snapshot) = check(&sample);
                insta::assert_snapshot!(concat!("format_", stringify!($name)), snapshot);
            }
        )+
    };
}

format_tests!(
    log4j,
    logback,
    python_logging,
    logfmt,
    json_level,
    json_pino,
    json_severity,
    nginx_error,
    apache_error,
    access_log,
    syslog_rfc3164,
    syslog_rfc5424,
    syslog_plain,
    journald_short,
    journald_json,
    logcat_brief,
    logcat_threadtime,
    kubernetes_events,
    klog,
    postgres,
    go_panic,
    python_traceback,
    jvm_exception,
    cargo_nextest,
    pytest,
    go_test,
    jest,
    maven_surefire,
    rustc,
    gcc,
    tsc,
    javac,
);

#[test]
fn cargo_test() {
    let sample = corpus::cargo_test(5_000);
    let (preview, snapshot) = check(&sample);
    // The failing test's assertion message, not its backtrace frames.
    assert!(
        preview.text.contains(
            "assertion `left == right` failed: balance after settlement of order ord_7F3K"
        ),
        "{}",
        preview.text
    );
    assert!(!preview.text.contains("core::panicking::frame_3"));
    insta::assert_snapshot!("format_cargo_test", snapshot);
}

/// A failing test among 190,000 passing ones: its name, panic message and the run's result line.
#[test]
fn cargo_test_with_190000_passing_tests() {
    let sample = corpus::cargo_test(190_000);
    let (preview, _) = check(&sample);
    let failed = shown_line(&preview.text, sample.planted[0].line).unwrap();
    assert!(failed.contains("balance_after_settlement ... FAILED"));
    let summary = preview.profile.summary.as_ref().unwrap();
    assert!(
        summary
            .text
            .starts_with("test result: FAILED. 190000 passed; 1 failed")
    );
    assert_eq!(summary.line, sample.planted[2].line);
}

/// The brief's Java service: two FATAL lines among hundreds of one repeated ERROR.
#[test]
fn a_repeated_error_does_not_crowd_out_a_rare_fatal() {
    let sample = corpus::log4j();
    let (preview, _) = check(&sample);
    let errors = sample
        .planted
        .iter()
        .filter(|p| p.level == Level::Error)
        .count();
    assert!(errors > 300);
    let rows: Vec<&str> = preview
        .text
        .lines()
        .filter(|l| l.contains("Failed to deserialize event"))
        .collect();
    assert!(rows.len() <= 2, "{rows:?}");
    assert!(rows[0].contains(&format!("[×{}, lines ", thousands(errors as u64))));
    let grep = preview.profile.grep.unwrap();
    assert!(grep.finds.starts_with("fatal at lines "), "{}", grep.finds);
}

/// Tracebacks count once, at the exception line, with where they began.
#[test]
fn a_python_traceback_is_one_event_at_its_exception() {
    let sample = corpus::python_traceback();
    let (preview, _) = check(&sample);
    let planted = &sample.planted[0];
    let shown = shown_line(&preview.text, planted.line).unwrap();
    assert!(
        shown.contains(&format!(
            "traceback from line {}",
            thousands(planted.line - 6)
        )),
        "{shown}"
    );
    assert_eq!(preview.profile.levels.error, 1);
}

/// A JVM exception shows its root cause with the first line.
#[test]
fn a_jvm_exception_shows_its_root_cause() {
    let sample = corpus::jvm_exception();
    let (preview, _) = check(&sample);
    assert!(
        preview
            .text
            .contains("Caused by: java.sql.SQLException: connection is closed"),
        "{}",
        preview.text
    );
    assert_eq!(preview.profile.levels.error, 1);
}

/// Go's test message follows its `--- FAIL:` line.
#[test]
fn a_go_test_failure_shows_its_message() {
    let sample = corpus::go_test();
    let (preview, _) = check(&sample);
    assert!(
        preview
            .text
            .contains("refund_test.go:42: refund = 19.99, want 20.00"),
        "{}",
        preview.text
    );
}

/// The lower-case nginx levels are searched ignoring case, which finds `[error]` and `[crit]`.
#[test]
fn lower_case_levels_give_a_case_insensitive_search() {
    let (preview, _) = check(&corpus::nginx_error());
    let grep = preview.profile.grep.unwrap();
    assert!(grep.ignore_case, "{grep:?}");
    assert!(grep.pattern.contains(r"\[error\]"), "{grep:?}");
}

/// Every sample's preview stays within the bound a preview can take, and its profile counts every
/// line.
#[test]
fn every_sample_previews_within_its_bound() {
    let config = PreviewConfig::default();
    let samples = corpus::all();
    assert!(samples.len() >= 30);
    for sample in samples {
        let preview = text_preview(&sample.text, &config);
        assert!(
            preview.text.chars().count() <= max_preview_chars(&config),
            "{}",
            sample.name
        );
        let lines = sample.text.lines().count() as u64;
        assert_eq!(preview.profile.levels.total(), lines, "{}", sample.name);
    }
}

/// `text` between enough passing lines that the preview omits it and lists its notable lines.
fn amid_passing_tests(text: &str) -> String {
    let passing = |from: u32| -> String {
        (from..from + 400)
            .map(|i| format!("test ledger::tests::case_{i} ... ok\n"))
            .collect()
    };
    format!("{}{text}{}", passing(0), passing(400))
}

/// Regression: an `assert_eq!` failure showed `assertion `left == right` failed` without the
/// values that differ. The text is `cargo test`'s own (Rust 1.9x) output.
#[test]
fn an_assert_eq_failure_shows_left_and_right() {
    let output = "\
---- tests::adds stdout ----

thread 'tests::adds' (3076) panicked at src/lib.rs:3:33:
assertion `left == right` failed
  left: 4
 right: 3
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
";
    let preview = text_preview(&amid_passing_tests(output), &PreviewConfig::default());
    let panicked = preview
        .text
        .lines()
        .position(|l| l.contains("panicked at src/lib.rs:3:33:"))
        .unwrap_or_else(|| panic!("{}", preview.text));
    let detail = preview.text.lines().nth(panicked + 1).unwrap();
    assert!(
        detail.ends_with("assertion `left == right` failed; left: 4; right: 3"),
        "{}",
        preview.text
    );
}

/// Regression: a Go panic showed its message line only; where it happened in the program's own
/// code (past the runtime's and the testing package's frames) is what a reader needs next.
#[test]
fn a_go_panic_shows_its_first_frame_in_the_programs_code() {
    let output = "\
--- FAIL: TestDivide (0.00s)
panic: runtime error: integer divide by zero [recovered]
\tpanic: runtime error: integer divide by zero

goroutine 7 [running]:
testing.tRunner.func1.2({0x5a1f60, 0x6a9b30})
\t/usr/local/go/src/testing/testing.go:1632 +0x230
testing.tRunner.func1()
\t/usr/local/go/src/testing/testing.go:1635 +0x35e
panic({0x5a1f60?, 0x6a9b30?})
\t/usr/local/go/src/runtime/panic.go:785 +0x132
example.com/calc.Divide(...)
\t/home/dev/calc/calc.go:5
example.com/calc.TestDivide(0xc000106820?)
\t/home/dev/calc/calc_test.go:8 +0x1d
testing.tRunner(0xc000106820, 0x5d0a48)
\t/usr/local/go/src/testing/testing.go:1690 +0xf4
created by testing.(*T).Run in goroutine 1
\t/usr/local/go/src/testing/testing.go:1743 +0x390
exit status 2
FAIL\texample.com/calc\t0.003s
";
    let preview = text_preview(&amid_passing_tests(output), &PreviewConfig::default());
    let text = &preview.text;
    let panic = text
        .lines()
        .position(|l| l.contains(": panic: runtime error: integer divide by zero [recovered]"))
        .unwrap_or_else(|| panic!("{text}"));
    let frame = text.lines().nth(panic + 1).unwrap();
    assert!(
        frame.ends_with("example.com/calc.Divide(...)  /home/dev/calc/calc.go:5"),
        "{text}"
    );
    assert!(!text.contains("goroutine 7 [running]:"), "{text}");
}

/// Regression: pytest's `E       AssertionError` (a bare exception, no message) and its location
/// line `tests/test_calc.py:9: AssertionError` counted as errors the suggested search did not
/// find, so the count the hint gave and the lines its search found disagreed.
#[test]
fn pytest_hint_counts_what_its_search_finds() {
    let output = "\
=================================== FAILURES ===================================
_________________________________ test_divide __________________________________

    def test_divide():
>       assert divide(4, 2) == 3
E       assert 2.0 == 3
E        +  where 2.0 = divide(4, 2)

tests/test_calc.py:5: AssertionError
__________________________________ test_raise __________________________________

    def test_raise():
>       raise AssertionError
E       AssertionError

tests/test_calc.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_divide - assert 2.0 == 3
FAILED tests/test_calc.py::test_raise - AssertionError
========================= 2 failed, 1 passed in 0.03s ==========================
";
    let padding: String = (0..400)
        .map(|i| format!("tests/test_many.py::test_case_{i} PASSED\n"))
        .collect();
    let text = format!("{padding}{output}{padding}");
    let preview = text_preview(&text, &PreviewConfig::default());
    let grep = preview.profile.grep.as_ref().unwrap();
    let regex = RegexBuilder::new(&grep.pattern)
        .case_insensitive(grep.ignore_case)
        .build()
        .unwrap();
    let found = text.lines().filter(|l| regex.is_match(l)).count() as u64;
    let levels = &preview.profile.levels;
    assert_eq!(
        grep.finds,
        format!("{} lines at level error", levels.error),
        "{text}"
    );
    assert_eq!(found, levels.error, "/{}/ on\n{output}", grep.pattern);
}
