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

/// A Python log in the format `logging.basicConfig` is given: `lines` INFO records, with a
/// traceback logged under a DEBUG record (`exc_info=True`) every `every` lines (none for 0).
fn log_with_debug_tracebacks(lines: u32, every: u32) -> String {
    let mut out = String::new();
    for i in 0..lines {
        out.push_str(&format!(
            "2026-11-26 02:08:17,{:03} INFO sync: synced batch {i} ({} rows)\n",
            i % 1000,
            i * 7
        ));
        if every > 0 && i % every == 5 {
            out.push_str(&format!(
                "2026-11-26 02:08:17,{:03} DEBUG sync: retrying fetch of page {i}\n\
                 Traceback (most recent call last):\n  File \"/srv/sync/fetch.py\", line 88, in fetch\n    \
                 body = conn.read(timeout=5)\nTimeoutError: read timed out after 5s (attempt {i})\n",
                i % 1000
            ));
        }
    }
    out
}

/// A tool's own debug traceback (a retry it logged at DEBUG with its traceback) is as severe as
/// its record, so it ranks below the failure it explains instead of crowding it out.
#[test]
fn a_traceback_logged_at_debug_ranks_below_the_failure() {
    let mut text = log_with_debug_tracebacks(3_000, 97);
    text.push_str(
        "2026-11-26 02:08:18,000 ERROR sync: sync failed: 3 tables missing primary keys\n",
    );
    text.push_str(&log_with_debug_tracebacks(400, 0));
    let preview = text_preview(&text, &PreviewConfig::default());
    assert_eq!(preview.profile.levels.error, 1, "{}", preview.text);
    assert_eq!(preview.profile.levels.debug, 2 * 31, "{}", preview.text);
    let notable = preview
        .text
        .split("[notable lines from the omitted part")
        .nth(1)
        .unwrap_or_else(|| panic!("nothing notable in\n{}", preview.text));
    assert!(notable.contains("sync failed"), "{}", preview.text);
    assert!(!notable.contains("TimeoutError"), "{}", preview.text);
    let grep = preview.profile.grep.unwrap();
    assert!(grep.finds.starts_with("error at line "), "{}", grep.finds);
    let regex = RegexBuilder::new(&grep.pattern)
        .case_insensitive(grep.ignore_case)
        .build()
        .unwrap();
    assert_eq!(text.lines().filter(|l| regex.is_match(l)).count(), 1);
}

/// A traceback that ends the output is the crash that stopped the program, even when the last
/// record above it was at DEBUG; one logged at ERROR stays an error.
#[test]
fn a_traceback_that_ends_the_output_is_an_error_whatever_came_before() {
    let mut text = log_with_debug_tracebacks(2_000, 0);
    text.push_str(
        "2026-11-26 02:08:18,000 DEBUG sync: about to flush\n\
         Traceback (most recent call last):\n  File \"/srv/sync/main.py\", line 12, in <module>\n    \
         flush()\nRuntimeError: flush failed: disk quota exceeded\n",
    );
    let preview = text_preview(&text, &PreviewConfig::default());
    assert_eq!(preview.profile.levels.error, 1, "{}", preview.text);
    assert_eq!(preview.profile.levels.debug, 1, "{}", preview.text);
    assert!(preview.text.contains("RuntimeError: flush failed"));
    let logged = format!(
        "{}2026-11-26 02:08:18,000 ERROR sync: giving up\nTraceback (most recent call last):\n  \
         File \"/srv/sync/main.py\", line 12, in <module>\n    flush()\nOSError: disk full\n{}",
        log_with_debug_tracebacks(2_000, 0),
        log_with_debug_tracebacks(300, 0)
    );
    let preview = text_preview(&logged, &PreviewConfig::default());
    assert_eq!(preview.profile.levels.error, 2, "{}", preview.text);
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
    // As Rust before 1.73 said it.
    let output = "\
thread 'tests::adds' panicked at 'assertion failed: `(left == right)`
  left: `4`,
 right: `3`', src/lib.rs:3:33
";
    let preview = text_preview(&amid_passing_tests(output), &PreviewConfig::default());
    let panicked = preview
        .text
        .lines()
        .position(|l| l.contains("panicked at 'assertion failed: `(left == right)`"))
        .unwrap_or_else(|| panic!("{}", preview.text));
    let detail = preview.text.lines().nth(panicked + 1).unwrap();
    assert!(
        detail.ends_with("left: `4`,; right: `3`', src/lib.rs:3:33"),
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

/// `output` between `pad` lines (numbered), previewed: each of `failures` is listed among the
/// notable lines, and the suggested search finds it.
fn failures_are_notable(pad: &str, output: &str, failures: &[&str]) {
    let padding = |from: u32| -> String {
        (from..from + 400)
            .map(|i| format!("{}\n", pad.replace("{i}", &i.to_string())))
            .collect()
    };
    let text = format!("{}{output}{}", padding(0), padding(400));
    let preview = text_preview(&text, &PreviewConfig::default());
    let notable = preview
        .text
        .split("[notable lines from the omitted part")
        .nth(1)
        .unwrap_or_else(|| panic!("nothing notable in\n{}", preview.text));
    let grep = preview
        .profile
        .grep
        .as_ref()
        .unwrap_or_else(|| panic!("no search for\n{}", preview.text));
    let regex = RegexBuilder::new(&grep.pattern)
        .case_insensitive(grep.ignore_case)
        .build()
        .unwrap();
    for failure in failures {
        assert!(
            notable.contains(failure),
            "{failure} not in\n{}",
            preview.text
        );
        let line = text.lines().find(|l| l.contains(failure)).unwrap();
        assert!(regex.is_match(line), "/{}/ misses {line}", grep.pattern);
    }
    assert!(
        !regex.is_match(&pad.replace("{i}", "7")),
        "/{}/ matches the padding",
        grep.pattern
    );
}

/// Regression: these tools' failures were lines without a level (or at a lower one), so their
/// previews did not list them.
#[test]
fn failures_of_dotnet_terraform_npm_and_js_test_runners_are_notable() {
    failures_are_notable(
        "info: Microsoft.AspNetCore.Hosting.Diagnostics[1]\n      Request starting HTTP/1.1 GET http://localhost:5000/api/items/{i} - - -",
        "\
fail: Microsoft.AspNetCore.Server.Kestrel[13]
      Connection id \"0HN7\", Request id \"0HN7:00000001\": An unhandled exception was thrown by the application.
      System.InvalidOperationException: Sequence contains no elements
         at System.Linq.ThrowHelper.ThrowNoElementsException()
crit: Microsoft.AspNetCore.Hosting.Diagnostics[6]
      Application startup exception
",
        &["fail: Microsoft.AspNetCore.Server.Kestrel[13]", "crit: Microsoft.AspNetCore.Hosting.Diagnostics[6]"],
    );
    failures_are_notable(
        "aws_instance.web[{i}]: Refreshing state... [id=i-0abc{i}]",
        "\
╷
│ Error: Unsupported argument
│ 
│   on main.tf line 12, in resource \"aws_instance\" \"web\":
│   12:   amis = \"ami-123\"
│ 
│ An argument named \"amis\" is not expected here. Did you mean \"ami\"?
╵
",
        &["│ Error: Unsupported argument"],
    );
    failures_are_notable(
        "npm http fetch GET 200 https://registry.npmjs.org/pkg-{i} 12ms (cache hit)",
        "\
npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/left-pad-x - Not found
",
        &["npm error code E404"],
    );
    failures_are_notable(
        "ok {i} - parses case {i}",
        "\
not ok 801 - rejects a bad date
  ---
  operator: equal
  ...
# tests 802
# pass 801
# fail 1
",
        &["not ok 801 - rejects a bad date", "# fail 1"],
    );
    failures_are_notable(
        "✔ parses case {i} (0.1ms)",
        "\
✖ rejects a bad date (1.2ms)
ℹ tests 802
ℹ pass 801
ℹ fail 1
",
        &["✖ rejects a bad date", "ℹ fail 1"],
    );
    failures_are_notable(
        "    ✓ parses case {i}",
        "    1) rejects a bad date

  801 passing (40ms)
  1 failing

  1) dates
       rejects a bad date:
     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
",
        &["1) rejects a bad date", "1 failing"],
    );
}

/// Regression: systemd's and the kernel's failures in a journal (`journalctl` prints no level)
/// were not notable.
#[test]
fn journal_failures_are_notable() {
    failures_are_notable(
        "Nov 24 23:00:{i} vm systemd[1]: Started session-{i}.scope - Session {i} of User dev.",
        "\
Nov 24 23:00:50 vm systemd[1]: nginx.service: Main process exited, code=exited, status=1/FAILURE
Nov 24 23:00:50 vm systemd[1]: nginx.service: Failed with result 'exit-code'.
Nov 24 23:00:50 vm systemd[1]: Failed to start nginx.service - A high performance web server.
Nov 24 23:00:51 vm kernel: app[4242]: segfault at 0 ip 000055d0c0de0000 sp 00007ffd00000000 error 4 in app[55d0c0de0000+1000]
Nov 24 23:00:52 vm kernel: Out of memory: Killed process 4242 (java) total-vm:8388608kB
Nov 24 23:00:53 vm kernel: blk_update_request: I/O error, dev sda, sector 2048 op 0x0:(READ)
Nov 24 23:00:53 vm kernel: Call Trace:
",
        &[
            "status=1/FAILURE",
            "Failed with result 'exit-code'",
            "Failed to start nginx.service",
            "segfault at 0",
            "Out of memory: Killed process 4242",
            "I/O error, dev sda",
            "Call Trace:",
        ],
    );
}
