//! Severity of a line across the conventions real programs use, decided by a byte-level classifier.
//!
//! Every offload runs this over every line, so it is a hand-written scan, not a regex per line: a
//! dispatch on the line's first bytes for the conventions that live there (syslog `<3>`, logcat
//! `E/Tag:`, klog `E1121`, `Traceback (most recent call last):`, `thread '…' panicked at`, test
//! runners' result lines), then one pass over the words of the line's first [`PREFIX_BYTES`] bytes
//! that stops at the first level it can vouch for. A word counts as a level only in a position where
//! programs put levels:
//!
//! - an upper-case level word on its own (`ERROR`, `WARN`, `FATAL`, `INF`, `ERRO[0000]`), anywhere;
//! - any case in brackets (`[error]`, `[core:error]`, `<warn>`, `[E]`), but not right after a word,
//!   where brackets hold a type argument or an index (`Box<Error>`, `arr[E]`); a single letter in
//!   angle brackets (`<E>`) only where a line starts or right after its timestamp (not `Vec<E>`);
//! - any case as the value of a level key (`level=error`, `lvl=eror`, `"level":"error"`,
//!   `"severity":"ERROR"`, `"level":50`, `"PRIORITY":"3"`);
//! - any case as a label (`error: …`, `error[E0308]: …`, `error TS2322: …`) at the start of the
//!   line or after a location or prefix that ends in `:` or `]` (`src/x.rs:12:5: error: …`,
//!   `sshd[12]: error: …`);
//! - capitalised in a column (`Warning   BackOff`, as `kubectl get events` prints it);
//! - a logcat letter (`E/Tag(`, `… 1234  1245 E Tag:`), a klog letter (`E1121 10:00:01.1`),
//!   a syslog priority (`<3>`, `kern.err`), a pytest explanation line (`E   assert …`).
//!
//! So `error_count=0`, `ErrorHandler`, `no errors` and `errors: 0` are not levels, and neither is
//! a struct field `error: String` indented in source code.
//!
//! Levels, most severe first: fatal (also panic, critical, alert, emergency: the program or a part
//! of it stopped; graded within: emergency above alert above critical, a panic above FATAL), error (also severe, a failed test or build), warning, notice, info, debug, trace
//! (also verbose, finer, finest). Syslog priorities 0–2 are fatal, 3 error, 4 warning, 5 notice,
//! 6 info, 7 debug; bunyan/pino numbers 60 fatal, 50 error, 40 warning, 30 info, 20 debug, 10 trace.

mod indented;
mod json;
mod line_start;
mod messages;
mod stamp;
mod summaries;
mod vocabulary;
mod words;

pub(crate) use super::level::How;
pub use super::level::{Level, LineClass, LineKind};
pub use vocabulary::PREFIX_BYTES;

use json::json_level;
use line_start::line_start;
use words::{after_timestamp, refine, scan_words};

// ---------------------------------------------------------------------------------------------------
// The classifier

/// Classifies one line (without its newline).
pub fn classify(line: &[u8]) -> LineClass {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut class = classify_level(line);
    if class.level == Some(Level::Fatal) {
        class.grade = fatal_grade(line, &class);
    }
    class
}

fn classify_level(line: &[u8]) -> LineClass {
    let Some(&first) = line.first() else {
        return LineClass::NONE;
    };
    if let Some(class) = line_start(line, first) {
        return class;
    }
    let class = if first == b'{' {
        json_level(line)
    } else if let Some(class) = after_timestamp(line) {
        class
    } else if let Some(class) = crate::preview::report::linter_row(line, 0) {
        class
    } else {
        scan_words(line)
    };
    refine(line, class)
}

/// Orders the fatal levels: syslog's emerg (0) above alert (1) above crit (2), and a panic above
/// FATAL (PostgreSQL's PANIC stops the whole server, its FATAL one session).
fn fatal_grade(line: &[u8], class: &LineClass) -> u8 {
    const EMERG: u8 = 4;
    const ALERT: u8 = 3;
    const PANIC: u8 = 2;
    let span = line
        .get(class.start as usize..class.end as usize)
        .unwrap_or_default();
    // A syslog priority, as `<0>` or the value of a `PRIORITY` key: the level is its low bits.
    let digits: Vec<u8> = span
        .iter()
        .rev()
        .skip_while(|b| !b.is_ascii_digit())
        .take_while(|b| b.is_ascii_digit())
        .copied()
        .collect();
    let syslog = matches!(class.how, How::SyslogPriority)
        || (matches!(class.how, How::JsonKey | How::KeyValue) && digits.len() == 1);
    if syslog && !digits.is_empty() {
        let value = digits
            .iter()
            .rev()
            .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
        return match value & 7 {
            0 => EMERG,
            1 => ALERT,
            _ => 0,
        };
    }
    let has = |word: &[u8]| {
        span.windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word))
    };
    if has(b"emerg") {
        EMERG
    } else if has(b"alert") {
        ALERT
    } else if has(b"pani") || has(b"pnc") || class.kind == LineKind::Panic {
        PANIC
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(line: &str) -> Option<Level> {
        classify(line.as_bytes()).level
    }

    fn kind(line: &str) -> LineKind {
        classify(line.as_bytes()).kind
    }

    #[test]
    fn failure_phrases_in_lines_without_a_level() {
        use Level::*;
        let cases: &[(&str, Option<Level>)] = &[
            (
                "2026-11-24T23:00:50.1+00:00 vm kernel: Out of memory: Killed process 4242 (java)",
                Some(Fatal),
            ),
            (
                "2026-11-24T23:00:50.1+00:00 vm nginx: upstream timed out (110: Connection timed out)",
                Some(Error),
            ),
            (
                "Nov 24 23:00:50 vm sshd[812]: Failed password for invalid user admin from 10.0.0.7",
                Some(Error),
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: Failed to start nginx.service - A high performance web server.",
                Some(Error),
            ),
            // A declared level wins over the words of the message.
            (
                "2026-11-24 INFO retry 2 after the call timed out",
                Some(Info),
            ),
            // Whole words only, and no failure said.
            ("Nov 24 23:00:50 vm app: timed_out_requests=0", None),
            ("Nov 24 23:00:50 vm app: request 12 served in 4 ms", None),
        ];
        for (line, want) in cases {
            assert_eq!(level(line), *want, "{line}");
        }
    }

    /// Regression: progress lines of training and data tools (`step 3 processed, error: 0`,
    /// `loss: 0.3 - error: 0.1`, `FAILED: 0`) were counted as errors and warnings.
    #[test]
    fn zero_counts_and_metrics_are_not_events() {
        use Level::*;
        let quiet = [
            "step 3 processed",
            "epoch 2 processed",
            "processed 120 errors_total=0",
            "errors: 0",
            "no errors found",
            "error_rate=0.00",
            "error: 0",
            "Error: 0",
            "ERROR: 0",
            "ERROR 0",
            "warning: 0",
            "FAILED: 0",
            "FAILED 0",
            "FAIL: 0",
            "Error: none",
            "ERROR: None",
            "step 3 processed, error: 0",
            "step 3 processed: error: 0.12",
            "step 3 processed | ERRORS 0 | WARN 0",
            "loss: 0.3 - error: 0.1 - val_error: 0.2",
            "Epoch 3/10 - loss: 0.2913 - error: 0.0841 - val_loss: 0.3120",
            "eval: error: 23.4% top5: 6.1%",
            "step 200: ERROR=0.031 loss=0.2",
            "[train] step 3 processed, error: 0.000, lr: 0.001",
            "INFO step 3 processed, FAILED: 0",
        ];
        for line in quiet {
            assert!(
                level(line).is_none_or(|l| l < Warning),
                "{line}: {:?}",
                level(line)
            );
        }
        // A count says nothing when it is zero; a failure that happens to start with a number, a
        // declared level after a stamp and a version or an address after the word stay events.
        let events: &[(&str, Level)] = &[
            (
                "ERROR 1045 (28000): Access denied for user 'root'@'localhost'",
                Error,
            ),
            ("Error: 0 of 3 replicas are ready", Error),
            ("Error: None of the hosts answered", Error),
            ("error: 1.2.3 is not a valid version", Error),
            ("ERROR: 0x80004005 unspecified failure", Error),
            ("2026-11-26T10:00:01Z ERROR 0", Error),
            ("error: 2 errors in 1 file", Error),
            ("FAILED tests/test_io.py::test_read - assert 0 == 1", Error),
            ("--- FAIL: TestParse (0.00s)", Error),
            ("warning: unused variable `x`", Warning),
        ];
        for (line, want) in events {
            assert_eq!(level(line), Some(*want), "{line}");
        }
    }

    #[test]
    fn level_words_in_level_positions() {
        use Level::*;
        let cases: &[(&str, Option<Level>)] = &[
            (
                "2026-11-21T10:00:01Z INFO worker 1: processed batch ok",
                Some(Info),
            ),
            (
                "2026-11-21T10:00:01Z ERROR worker 1: connection reset",
                Some(Error),
            ),
            (
                "2026-11-21 10:00:01,123 - app.db - WARNING - slow",
                Some(Warning),
            ),
            ("WARNING:root:disk almost full", Some(Warning)),
            ("CRITICAL:root:out of memory", Some(Fatal)),
            ("10:00:01.123 [main] ERROR c.e.Foo - boom", Some(Error)),
            (
                "2026/11/21 10:00:01 [error] 1234#1234: *5 open() failed",
                Some(Error),
            ),
            (
                "2026/11/21 10:00:01 [warn] 1234#1234: conflicting server name",
                Some(Warning),
            ),
            (
                "[Sat Nov 21 10:00:01.1 2026] [core:error] [pid 1:tid 2] AH00126: Invalid URI",
                Some(Error),
            ),
            (
                "[Sat Nov 21 10:00:01 2026] [notice] Apache configured",
                Some(Notice),
            ),
            (
                "ts=2026-11-21T10:00:01Z level=error msg=\"ERROR-free\"",
                Some(Error),
            ),
            (
                "t=2026-11-21T10:00:01+0000 lvl=eror msg=\"db down\"",
                Some(Error),
            ),
            ("time=\"2026\" level=warning msg=x", Some(Warning)),
            ("{\"level\":\"error\",\"msg\":\"INFO only\"}", Some(Error)),
            (
                "{\"ts\":1,\"severity\":\"WARNING\",\"message\":\"ERROR\"}",
                Some(Warning),
            ),
            ("{\"name\":\"api\",\"level\":50,\"msg\":\"x\"}", Some(Error)),
            ("{\"PRIORITY\":\"2\",\"MESSAGE\":\"x\"}", Some(Fatal)),
            (
                "{\"log.level\": \"info\", \"message\": \"error happened\"}",
                Some(Info),
            ),
            ("{\"msg\":\"ERROR everywhere\"}", None),
            ("<3>Nov 21 10:00:01 host app: x", Some(Error)),
            (
                "<165>1 2026-11-21T10:00:01Z host app - ID47 - msg",
                Some(Notice),
            ),
            ("Nov 21 10:00:01 host kern.err kernel: x", Some(Error)),
            (
                "Nov 21 10:00:01 host sshd[123]: error: kex_exchange_identification",
                Some(Error),
            ),
            (
                "E/AndroidRuntime( 1234): FATAL EXCEPTION: main",
                Some(Error),
            ),
            ("W/ActivityManager(  500): Exception thrown", Some(Warning)),
            (
                "11-21 10:00:01.123  1234  1245 E AndroidRuntime: Process crashed",
                Some(Error),
            ),
            (
                "11-21 10:00:01.123  1234  1245 W System.err: java.lang.Exception",
                Some(Warning),
            ),
            ("11-21 10:00:01.123 E/Tag( 1234): boom", Some(Error)),
            (
                "E1121 10:00:01.123456       1 controller.go:123] sync failed",
                Some(Error),
            ),
            (
                "I1121 10:00:01.123456       1 controller.go:123] synced",
                Some(Info),
            ),
            (
                "5m          Warning   BackOff   pod/api-1   Back-off restarting",
                Some(Warning),
            ),
            (
                "5m          Normal    Pulled    pod/api-1   Container image pulled",
                Some(Info),
            ),
            ("error[E0308]: mismatched types", Some(Error)),
            (
                "error: could not compile `foo` (bin \"foo\") due to 2 previous errors",
                Some(Error),
            ),
            ("warning: unused variable: `x`", Some(Warning)),
            ("src/x.rs:12:5: error: boom", Some(Error)),
            (
                "foo.c:3:1: error: expected ';' before '}' token",
                Some(Error),
            ),
            ("foo.c:3:1: warning: unused variable 'x'", Some(Warning)),
            (
                "foo.c:1:10: fatal error: bar.h: No such file or directory",
                Some(Fatal),
            ),
            (
                "src/a.ts(3,5): error TS2322: Type 'string' is not assignable",
                Some(Error),
            ),
            (
                "src/a.ts:3:5 - error TS2322: Type 'string' is not assignable",
                Some(Error),
            ),
            ("Foo.java:12: error: cannot find symbol", Some(Error)),
            ("thread 'main' panicked at src/main.rs:2:5:", Some(Fatal)),
            (
                "panic: runtime error: index out of range [5] with length 3",
                Some(Fatal),
            ),
            (
                "fatal error: all goroutines are asleep - deadlock!",
                Some(Fatal),
            ),
            ("PHP Fatal error:  Uncaught Exception: boom", Some(Fatal)),
            (
                "ValueError: invalid literal for int() with base 10: 'x'",
                Some(Error),
            ),
            ("java.lang.IllegalStateException: boom", Some(Error)),
            (
                "Exception in thread \"main\" java.lang.RuntimeException: x",
                Some(Error),
            ),
            ("/app/x.py:3: DeprecationWarning: use y", Some(Warning)),
            ("npm ERR! code E404", Some(Error)),
            ("10:00AM WRN slow request", Some(Warning)),
            ("ERRO[0000] cannot connect", Some(Error)),
            ("\x1b[31mERROR\x1b[0m boom", Some(Error)),
            (
                "2026-11-21T10:00:01Z INFO step 200 FAILED: assertion failed",
                Some(Error),
            ),
            ("[INFO] BUILD FAILURE", Some(Error)),
            (
                "1.2.3.4 - - [21/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 503 12 \"-\" \"curl\"",
                Some(Error),
            ),
            (
                "1.2.3.4 - - [21/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"curl\"",
                Some(Info),
            ),
            ("E       assert 1 == 2", Some(Error)),
            ("SEVERE: Servlet.service() threw exception", Some(Error)),
            ("E: Unable to locate package libfoo-dev", Some(Error)),
            ("W: Some index files failed to download.", Some(Warning)),
        ];
        for (line, want) in cases {
            assert_eq!(level(line), *want, "{line}");
        }
    }

    #[test]
    fn words_that_are_not_levels() {
        for line in [
            "metrics: error_count=0 warn_count=2",
            "registered ErrorHandler for /api",
            "build finished with no errors",
            "errors: 0, warnings: 0",
            "    error: Option<String>,",
            "    Err(LedgerError::Declined { code })",
            "impl From<io::Error> for Error {",
            "use crate::error::Error::NotFound;",
            "let level = tracing::Level::ERROR;",
            "DEBUG=1 cargo run",
            "the error was handled",
            "I think a B is fine",
            "test ledger::error_paths ... ok",
            "    let x = Warning::new();",
            "export const info = 1;",
        ] {
            assert_eq!(level(line), None, "{line}");
        }
    }

    /// Regression: `<E>` was read as the error level wherever it stood, so compiler output and code
    /// full of `Vec<E>` and `Result<T, E>` turned into errors.
    #[test]
    fn type_parameters_are_not_bracketed_levels() {
        for line in [
            "pub fn map_err<F, E>(self, op: O) -> Result<T, E>",
            "impl<E> From<E> for Report where E: std::error::Error {",
            "fn f<E>(e: E) {}",
            "    let v: Vec<E> = Vec::new();",
            "   = note: expected enum `Result<T, E>`",
            "  --> src/lib.rs:3:5: HashMap<K, V> and Option<D>",
            "fn boxed() -> Box<Error> {",
            "type Events = Vec<Info>;",
            "let x = arr[E];",
            "iter::<E>()",
        ] {
            assert_eq!(level(line), None, "{line}");
        }
        use Level::*;
        for (line, want) in [
            ("<E> disk full", Error),
            ("<W> cache miss rate high", Warning),
            ("2026-11-21 10:00:01.123 <E> request failed", Error),
            ("[2026-11-21T10:00:01Z] <W> slow", Warning),
            ("2026-11-21 10:00:01 [E] boom", Error),
            ("<error> disk full", Error),
        ] {
            assert_eq!(level(line), Some(want), "{line}");
        }
    }

    /// Regression: systemd's and the kernel's ways of saying a unit or a process failed were
    /// lines without a level, so a journal's failures were not notable.
    #[test]
    fn journal_failure_phrases() {
        use Level::*;
        for (line, want) in [
            (
                "Nov 24 23:00:50 vm systemd[1]: nginx.service: Main process exited, code=exited, status=1/FAILURE",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: nginx.service: Failed with result 'exit-code'.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: Failed to start nginx.service - A high performance web server.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: Dependency failed for Remote File Systems.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: app.service: Start request repeated too quickly.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: app.service: Main process exited, code=killed, status=9/KILL",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: app.service: Main process exited, code=dumped, status=11/SEGV",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: app[4242]: segfault at 0 ip 000055d0 sp 00007ffd error 4 in app[55d0+1000]",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: Out of memory: Killed process 4242 (java) total-vm:8GB",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: java invoked oom-killer: gfp_mask=0x140cca",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: blk_update_request: I/O error, dev sda, sector 2048",
                Error,
            ),
            ("Nov 24 23:00:50 vm kernel: Call Trace:", Error),
            ("[12345.678901] kernel BUG at mm/slub.c:379!", Fatal),
        ] {
            assert_eq!(level(line), Some(want), "{line}");
        }
        for line in [
            "Nov 24 23:00:50 vm systemd[1]: nginx.service: Main process exited, code=exited, status=0/SUCCESS",
            "Nov 24 23:00:50 vm systemd[1]: Started nginx.service - A high performance web server.",
        ] {
            assert_eq!(level(line), None, "{line}");
        }
    }

    /// Regression: these formats' failures were missed or read at a lower level.
    #[test]
    fn failures_of_build_and_test_tools() {
        use Level::*;
        let cases: &[(&str, Level, LineKind)] = &[
            // ASP.NET Core's console logger.
            (
                "fail: Microsoft.AspNetCore.Server.Kestrel[13]",
                Error,
                LineKind::Plain,
            ),
            (
                "crit: Microsoft.AspNetCore.Hosting.Diagnostics[6]",
                Fatal,
                LineKind::Diagnostic,
            ),
            (
                "warn: Microsoft.AspNetCore.HttpsPolicy[3]",
                Warning,
                LineKind::Diagnostic,
            ),
            // Terraform, plain and in its box.
            ("Error: Invalid reference", Error, LineKind::Diagnostic),
            ("│ Error: Unsupported argument", Error, LineKind::Diagnostic),
            (
                "│ Warning: Deprecated attribute",
                Warning,
                LineKind::Diagnostic,
            ),
            // npm, before and since npm 10.
            ("npm ERR! code ELIFECYCLE", Error, LineKind::Plain),
            ("npm error code E404", Error, LineKind::Plain),
            (
                "npm warn deprecated inflight@1.0.6",
                Warning,
                LineKind::Plain,
            ),
            // TAP.
            (
                "not ok 3 - rejects a bad date",
                Error,
                LineKind::TestFailure,
            ),
            ("    not ok 1 - subtest", Error, LineKind::TestFailure),
            ("# fail 2", Error, LineKind::Summary),
            // node:test's spec reporter.
            ("✖ rejects a bad date (1.2ms)", Error, LineKind::TestFailure),
            ("  ✖ nested case (0.3ms)", Error, LineKind::TestFailure),
            ("ℹ fail 2", Error, LineKind::Summary),
            // mocha.
            ("  1) rejects a bad date", Error, LineKind::TestFailure),
            ("  2 failing", Error, LineKind::Summary),
        ];
        for &(line, want, want_kind) in cases {
            assert_eq!((level(line), kind(line)), (Some(want), want_kind), "{line}");
        }
        for line in [
            "# fail 0",
            "ℹ fail 0",
            "  3 passing (12ms)",
            "ok 1 - parses",
            "fail: 0",
            "not ok 4 - leap seconds # TODO not implemented",
            "not ok 5 - on windows # SKIP not windows",
        ] {
            assert!(level(line).is_none_or(|l| l < Warning), "{line}");
        }
    }

    /// Regression: syslog's emerg, alert and crit, and PostgreSQL's PANIC and FATAL, were all one
    /// fatal level, so a preview could list a crit before an emerg.
    #[test]
    fn fatal_levels_are_graded() {
        let grade = |line: &str| {
            let class = classify(line.as_bytes());
            assert_eq!(class.level, Some(Level::Fatal), "{line}");
            class.grade
        };
        let emerg = [
            "<0>Nov 24 23:00:50 vm kernel: x",
            "2026/11/21 10:00:01 [emerg] 1#1: bind() to 0.0.0.0:80 failed",
            "Nov 24 23:00:50 vm kern.emerg kernel: x",
            "{\"PRIORITY\":\"0\",\"MESSAGE\":\"x\"}",
        ];
        let alert = [
            "<1>Nov 24 23:00:50 vm kernel: x",
            "2026/11/21 10:00:01 [alert] 1#1: x",
        ];
        let crit = [
            "<2>Nov 24 23:00:50 vm kernel: x",
            "2026/11/21 10:00:01 [crit] 1#1: x",
            "CRITICAL:root:out of memory",
        ];
        let panic =
            ["2026-11-21 10:00:01.123 UTC [42] PANIC:  could not write to file \"pg_wal/x\""];
        let fatal = [
            "2026-11-21 10:00:01.123 UTC [42] FATAL:  password authentication failed for user \"app\"",
        ];
        let grades = |lines: &[&str]| lines.iter().map(|l| grade(l)).collect::<Vec<_>>();
        let (emerg, alert, crit) = (grades(&emerg), grades(&alert), grades(&crit));
        assert!(
            emerg.iter().min() > alert.iter().max(),
            "{emerg:?} {alert:?}"
        );
        assert!(alert.iter().min() > crit.iter().max(), "{alert:?} {crit:?}");
        assert!(grades(&panic)[0] > grades(&fatal)[0]);
    }

    /// rustc's own output (1.9x) about generic code: only its diagnostics carry a level.
    #[test]
    fn rustc_output_about_generics() {
        let output = "error[E0308]: mismatched types
 --> src/lib.rs:1:82
  |
1 | pub fn conv<E: std::fmt::Debug>(r: Result<u8, E>) -> Vec<E> { match r { Ok(v) => v, Err(e) => vec![e] } }
  |                                                      ------                      ^ expected `Vec<E>`, found `u8`
  |                                                      |
  |                                                      expected `Vec<E>` because of return type
  |
  = note: expected struct `Vec<E>`
               found type `u8`

error[E0308]: mismatched types
 --> src/lib.rs:2:22
  |
2 | pub fn w<W>(x: W) -> Option<W> { Some(x); }
  |        -             ^^^^^^^^^          - help: remove this semicolon to return this value
  |        |             |
  |        |             expected `Option<W>`, found `()`
  |        implicitly returns `()` as its body has no tail or `return` expression
  |
  = note:   expected enum `Option<W>`
          found unit type `()`

For more information about this error, try `rustc --explain E0308`.
error: could not compile `tinygen` (lib) due to 2 previous errors";
        let leveled: Vec<&str> = output
            .lines()
            .filter(|line| level(line).is_some())
            .collect();
        assert_eq!(
            leveled,
            [
                "error[E0308]: mismatched types",
                "error[E0308]: mismatched types",
                "error: could not compile `tinygen` (lib) due to 2 previous errors",
            ]
        );
    }

    #[test]
    fn kinds() {
        assert_eq!(
            kind("test ledger::settles ... FAILED"),
            LineKind::TestFailure
        );
        assert_eq!(kind("--- FAIL: TestAdd (0.00s)"), LineKind::TestFailure);
        assert_eq!(
            kind("FAILED tests/test_x.py::test_y - assert 1 == 2"),
            LineKind::TestFailure
        );
        assert_eq!(kind("  ● Calculator › adds numbers"), LineKind::TestFailure);
        assert_eq!(kind("    ✕ adds numbers (5 ms)"), LineKind::TestFailure);
        assert_eq!(
            kind("        FAIL [   0.004s] crate::tests::name"),
            LineKind::TestFailure
        );
        assert_eq!(
            kind("test result: FAILED. 180 passed; 1 failed; 0 ignored"),
            LineKind::Summary
        );
        assert_eq!(
            level("test result: ok. 180 passed; 0 failed"),
            Some(Level::Info)
        );
        assert_eq!(
            level("test result: FAILED. 1 passed; 1 failed"),
            Some(Level::Error)
        );
        assert_eq!(
            level("=========== 1 failed, 99 passed in 3.21s ==========="),
            Some(Level::Error)
        );
        assert_eq!(
            level("=========== 99 passed in 3.21s ==========="),
            Some(Level::Info)
        );
        assert_eq!(level("FAIL\texample.com/calc\t0.002s"), Some(Level::Error));
        assert_eq!(level("ok  \texample.com/calc\t0.002s"), Some(Level::Info));
        assert_eq!(
            level("Tests:       1 failed, 41 passed, 42 total"),
            Some(Level::Error)
        );
        assert_eq!(level("Tests:       42 passed, 42 total"), Some(Level::Info));
        assert_eq!(
            level("[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0"),
            Some(Level::Error)
        );
        assert_eq!(
            level("[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0"),
            Some(Level::Info)
        );
        assert_eq!(kind("Found 3 errors in 2 files."), LineKind::Summary);
        assert_eq!(level("Found 3 errors in 2 files."), Some(Level::Error));
        assert_eq!(level("2 errors generated."), Some(Level::Error));
        assert_eq!(level("1 error"), Some(Level::Error));
        assert_eq!(
            kind("Traceback (most recent call last):"),
            LineKind::TracebackStart
        );
        assert_eq!(
            kind("\tat com.example.Foo.bar(Foo.java:12)"),
            LineKind::Frame
        );
        assert_eq!(
            kind("    at Object.<anonymous> (x.test.js:3:5)"),
            LineKind::Frame
        );
        assert_eq!(
            kind("Caused by: java.io.IOException: disk full"),
            LineKind::Frame
        );
        assert_eq!(
            kind("thread 'a::b' panicked at src/a.rs:1:2:"),
            LineKind::Panic
        );
        assert_eq!(kind("error[E0308]: mismatched types"), LineKind::Diagnostic);
        assert_eq!(
            kind("java.lang.IllegalStateException: boom"),
            LineKind::Exception
        );
        assert_eq!(
            kind("     Summary [   0.1s] 42 tests run: 41 passed, 1 failed"),
            LineKind::Summary
        );
    }

    #[test]
    fn bounded_work_on_long_lines() {
        let mut line = "x".repeat(1_000_000);
        line.push_str(" ERROR late");
        assert_eq!(level(&line), None);
        let json = format!("{{\"msg\":\"{}\",\"level\":\"warn\"}}", "y".repeat(10_000));
        assert_eq!(level(&json), Some(Level::Warning));
    }
}
