//! Conventions decided by a line's first bytes: syslog, logcat, klog, tracebacks, Terraform boxes and node:test marks.

use super::indented::indented;
use super::messages::names_a_value;
use super::summaries::{
    count_summary, pytest_summary, summary, surefire_summary, tap_count, tap_not_ok,
};
use super::vocabulary::{WORD, is, letter_level};
use super::words::{refine, scan_words};
use crate::preview::level::{How, Level, LineClass, LineKind};

/// Conventions decided by how the line starts.
pub(super) fn line_start(line: &[u8], first: u8) -> Option<LineClass> {
    let len = line.len();
    match first {
        // Its category is a type name; `fail: 0` is some test runner's count.
        b'f' if line.starts_with(b"fail: ") && line.get(6).is_some_and(u8::is_ascii_alphabetic) => {
            // ASP.NET Core's console logger: `fail: Namespace[0]` (its other levels are words it
            // shares with everyone: `crit:`, `warn:`, `info:`).
            Some(LineClass::new(
                Level::Error,
                LineKind::Plain,
                How::Label,
                0,
                4,
            ))
        }
        b'n' if line.starts_with(b"npm error ") || line.starts_with(b"npm warn ") => {
            // npm 10: `npm error code E404` (older npm says `npm ERR!`, an upper-case word).
            let level = if line[4] == b'e' {
                Level::Error
            } else {
                Level::Warning
            };
            let end = 4 + if level == Level::Error { 5 } else { 4 };
            Some(LineClass::new(level, LineKind::Plain, How::Phrase, 0, end))
        }
        // TAP: `not ok 3 - name`.
        b'n' if line.starts_with(b"not ok ") => Some(tap_not_ok(line, 0)),
        b'#' if line.starts_with(b"# fail ") || line.starts_with(b"# pass ") => {
            // TAP's closing counts: `# fail 2`.
            Some(tap_count(line, 2))
        }
        0xE2 => boxed(line),
        b'<' => {
            // Syslog priority: `<3>`, `<165>1 2026-…` (RFC 5424), `<34>Oct 11 …` (RFC 3164).
            let digits = line[1..].iter().take(4).take_while(|b| b.is_ascii_digit());
            let n = digits.clone().count();
            if (1..=3).contains(&n) && line.get(n + 1) == Some(&b'>') {
                let value: u32 = line[1..=n]
                    .iter()
                    .fold(0, |acc, d| acc * 10 + u32::from(d - b'0'));
                if value <= 191 {
                    return Some(LineClass::new(
                        Level::from_syslog(value as u8),
                        LineKind::Plain,
                        How::SyslogPriority,
                        0,
                        n + 2,
                    ));
                }
            }
            None
        }
        b' ' | b'\t' => indented(line),
        b'T' if line.starts_with(b"Traceback (most recent call last)") => {
            Some(LineClass::kind_only(LineKind::TracebackStart))
        }
        b't' if line.starts_with(b"thread '") => {
            // `thread 'main' panicked at …`, and since Rust 1.88 `thread 'main' (1234) panicked at …`.
            let at = 8 + memchr::memmem::find(&line[8..], b" panicked at")? + 1;
            Some(LineClass::new(
                Level::Fatal,
                LineKind::Panic,
                How::Phrase,
                at,
                at + "panicked at".len(),
            ))
        }
        b't' if line.starts_with(b"test result: ") => Some(summary(line, b"FAILED")),
        b't' if line.starts_with(b"test ") && line.ends_with(b" ... FAILED") => {
            Some(LineClass::new(
                Level::Error,
                LineKind::TestFailure,
                How::Upper,
                len - 6,
                len,
            ))
        }
        b'p' if line.starts_with(b"panic: ") => Some(LineClass::new(
            Level::Fatal,
            LineKind::Panic,
            How::Phrase,
            0,
            7,
        )),
        b'-' if line.starts_with(b"--- FAIL: ") => Some(LineClass::new(
            Level::Error,
            LineKind::TestFailure,
            How::Phrase,
            0,
            10,
        )),
        b'F' if (line == b"FAIL" || line.starts_with(b"FAIL\t") || line.starts_with(b"FAIL "))
            && !names_a_value(line, 4) =>
        {
            // `go test`: the package result.
            Some(LineClass::new(
                Level::Error,
                LineKind::Summary,
                How::Upper,
                0,
                4,
            ))
        }
        b'F' if line.starts_with(b"FAILED ") && !names_a_value(line, 6) => Some(LineClass::new(
            // pytest's short test summary.
            Level::Error,
            LineKind::TestFailure,
            How::Upper,
            0,
            6,
        )),
        b'F' if line.starts_with(b"Found ") && line.get(6).is_some_and(u8::is_ascii_digit) => {
            // tsc: `Found 3 errors in 2 files.`
            Some(summary(line, b" error"))
        }
        b'o' if line.starts_with(b"ok  \t") || line.starts_with(b"ok      ") => {
            Some(LineClass::kind_only(LineKind::Summary).with_level(Level::Info))
        }
        b'=' if line.ends_with(b"=") && pytest_summary(line) => Some(summary(line, b" failed")),
        b'E' if line.starts_with(b"Exception in thread ") => Some(LineClass::new(
            Level::Error,
            LineKind::Exception,
            How::Phrase,
            0,
            19,
        )),
        b'E' | b'W' | b'N' if line.get(1..3) == Some(&b": "[..]) => {
            // apt's `E: Unable to locate package x`, `W: …`, `N: …`.
            let level = match first {
                b'E' => Level::Error,
                b'W' => Level::Warning,
                _ => Level::Notice,
            };
            Some(LineClass::new(level, LineKind::Plain, How::Label, 0, 1))
        }
        b'E' if line.starts_with(b"E   ") => Some(LineClass::new(
            Level::Error,
            LineKind::Plain,
            How::PytestE,
            0,
            1,
        )),
        b'C' if line.starts_with(b"Caused by: ") => Some(LineClass::kind_only(LineKind::Frame)),
        b'B' if line.starts_with(b"BUILD FAIL") => Some(summary(line, b"FAIL")),
        b'B' if line.starts_with(b"BUILD SUCCESS") => {
            Some(LineClass::kind_only(LineKind::Summary).with_level(Level::Info))
        }
        b'T' if line.starts_with(b"Tests:") || line.starts_with(b"Test Suites:") => {
            Some(summary(line, b" failed"))
        }
        b'T' if line.starts_with(b"Tests run: ") => Some(surefire_summary(line, 0)),
        b'm' if line.starts_with(b"make: *** ") || line.starts_with(b"make[") => {
            let at = memchr::memmem::find(line, b"*** ")?;
            Some(LineClass::new(
                Level::Error,
                LineKind::Summary,
                How::Phrase,
                at,
                at + 4,
            ))
        }
        // Timestamps start most lines; only `3 errors …` has a space right after the count.
        b'0'..=b'9'
            if line
                .get(1..)
                .is_some_and(|rest| rest.iter().find(|b| !b.is_ascii_digit()) == Some(&b' ')) =>
        {
            count_summary(line).or_else(|| crate::preview::report::package_plan(line))
        }
        b'T' if line.starts_with(b"The following ") => crate::preview::report::package_plan(line),
        b'V' | b'D' | b'I' | b'W' | b'E' | b'F' | b'A' if line.get(1) == Some(&b'/') => {
            // Logcat brief / process / tag formats: `E/AndroidRuntime( 1234): …`.
            let level = letter_level(first)?;
            line.get(2)
                .is_some_and(|&b| is(b, WORD) || b == b'.')
                .then(|| LineClass::new(level, LineKind::Plain, How::LogcatBrief, 0, 1))
        }
        b'I' | b'W' | b'E' | b'F'
            if len > 6 && line[1..5].iter().all(u8::is_ascii_digit) && line[5] == b' ' =>
        {
            // klog / glog: `E1121 10:00:01.123456   1 file.go:12] …`.
            let level = letter_level(first)?;
            Some(LineClass::new(level, LineKind::Plain, How::Klog, 0, 1))
        }
        _ => None,
    }
}

/// Lines that start with a box-drawing or mark character (multi-byte UTF-8, all `0xE2 …`):
/// Terraform's diagnostic boxes (`│ Error: …`) and node:test's marks (`✖ name`, `ℹ fail 2`).
pub(super) fn boxed(line: &[u8]) -> Option<LineClass> {
    const BOX: &[u8] = "│ ".as_bytes();
    if let Some(inner) = line.strip_prefix(BOX) {
        // The line inside the box is classified as if the box were not there.
        let class = line_start(inner, *inner.first()?).unwrap_or_else(|| scan_words(inner));
        let class = refine(inner, class);
        return class.level.is_some().then(|| LineClass {
            start: class.start + BOX.len() as u32,
            end: class.end + BOX.len() as u32,
            ..class
        });
    }
    for glyph in ["✖ ", "✕ ", "✗ ", "✘ "] {
        if line.starts_with(glyph.as_bytes()) {
            // eslint's and stylelint's closing count: `✖ 2881 problems (1 error, 2880 warnings)`.
            let rest = &line[glyph.len()..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && rest[digits..].starts_with(b" problem") {
                return Some(summary(line, b" error"));
            }
            return Some(LineClass::new(
                Level::Error,
                LineKind::TestFailure,
                How::Mark,
                0,
                glyph.len() - 1,
            ));
        }
    }
    let info = "ℹ ".as_bytes();
    if line.starts_with(info) && (line[info.len()..].starts_with(b"fail ")) {
        return Some(tap_count(line, info.len()));
    }
    None
}
