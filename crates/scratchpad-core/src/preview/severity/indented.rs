//! Levels of indented lines: stack frames, pytest's `E` lines, Jest and mocha marks and counts.

use super::summaries::{summary, tap_not_ok};
use super::vocabulary::{SPACE, is};
use crate::preview::level::{How, Level, LineClass, LineKind};

/// Lines that start with white space: stack frames, test runners' marks and summaries.
pub(super) fn indented(line: &[u8]) -> Option<LineClass> {
    let indent = line.iter().take_while(|&&b| is(b, SPACE)).count();
    let rest = &line[indent..];
    if rest.starts_with(b"at ") && (line[0] == b'\t' || indent >= 2) {
        return Some(LineClass::kind_only(LineKind::Frame));
    }
    if rest.starts_with(b"... ") && rest.ends_with(b" more") {
        return Some(LineClass::kind_only(LineKind::Frame));
    }
    if rest.starts_with(b"Caused by: ") {
        return Some(LineClass::kind_only(LineKind::Frame));
    }
    if rest.first().is_some_and(u8::is_ascii_digit)
        && let Some(class) = crate::preview::report::linter_row(line, indent)
    {
        return Some(class);
    }
    if rest.starts_with(b"not ok ") {
        // A TAP subtest.
        return Some(tap_not_ok(line, indent));
    }
    let mark = |len: usize| {
        Some(LineClass::new(
            Level::Error,
            LineKind::TestFailure,
            How::Mark,
            indent,
            indent + len,
        ))
    };
    // Jest / vitest failure marks and headers (`✕ adds (3 ms)`, `● Calc › adds`, `× adds`).
    for glyph in ["✕ ", "× ", "✗ ", "✘ ", "✖ "] {
        if rest.starts_with(glyph.as_bytes()) {
            return mark(glyph.len() - 1);
        }
    }
    if rest.starts_with("● ".as_bytes()) && memchr::memmem::find(rest, "›".as_bytes()).is_some()
    {
        return mark(3);
    }
    if rest.starts_with(b"FAIL [")
        || rest.starts_with(b"SIGSEGV [")
        || rest.starts_with(b"SIGABRT [")
    {
        // cargo nextest.
        return Some(LineClass::new(
            Level::Error,
            LineKind::TestFailure,
            How::Upper,
            indent,
            indent + 4,
        ));
    }
    if let Some(class) = mocha(line, indent) {
        return Some(class);
    }
    if rest.starts_with(b"Summary [") {
        return Some(summary(line, b" failed"));
    }
    if rest.starts_with(b"Tests ") || rest.starts_with(b"Test Files ") {
        // vitest: `      Tests  1 failed | 41 passed (42)`.
        if memchr::memmem::find(rest, b" passed").is_some()
            || memchr::memmem::find(rest, b" failed").is_some()
        {
            return Some(summary(line, b" failed"));
        }
    }
    None
}

/// mocha's spec reporter: its failures are numbered (`  1) adds numbers`, listed again under
/// `  1 failing`), and its counts close the run (`  3 passing (12ms)`, `  1 failing`).
fn mocha(line: &[u8], indent: usize) -> Option<LineClass> {
    let rest = &line[indent..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 5 {
        return None;
    }
    let after = &rest[digits..];
    if after.starts_with(b") ") && after.len() > 2 {
        return Some(LineClass::new(
            Level::Error,
            LineKind::TestFailure,
            How::Mark,
            indent,
            indent + digits + 1,
        ));
    }
    let zero = rest[..digits].iter().all(|&b| b == b'0');
    if after == b" failing" && !zero {
        return Some(LineClass::new(
            Level::Error,
            LineKind::Summary,
            How::FailureCount,
            indent,
            line.len(),
        ));
    }
    if after.starts_with(b" passing") {
        return Some(LineClass::kind_only(LineKind::Summary).with_level(Level::Info));
    }
    None
}
