//! Whether a test runner's result, count or summary line (or a build's) reports failures.

use super::vocabulary::{DIGIT, PREFIX_BYTES, WORD, is};
use crate::preview::level::{How, Level, LineClass, LineKind};

/// TAP's `not ok 3 - name` at `at`: a failed test, unless its directive says the failure is
/// expected (`# TODO`) or the test did not run (`# SKIP`).
pub(super) fn tap_not_ok(line: &[u8], at: usize) -> LineClass {
    let prefix = &line[..line.len().min(PREFIX_BYTES)];
    let directive = memchr::memmem::rfind(prefix, b" # ").is_some_and(|hash| {
        let word = &prefix[hash + 3..];
        word.len() >= 4
            && (word[..4].eq_ignore_ascii_case(b"todo") || word[..4].eq_ignore_ascii_case(b"skip"))
    });
    if directive {
        return LineClass::kind_only(LineKind::Plain).with_level(Level::Info);
    }
    LineClass::new(Level::Error, LineKind::TestFailure, How::Phrase, at, at + 6)
}

/// TAP's and node:test's closing counts (`# fail 2`, `ℹ fail 2`): an error summary when the
/// failures are not zero. `word` is where `fail`/`pass` starts.
pub(super) fn tap_count(line: &[u8], word: usize) -> LineClass {
    let failed = line[word..].starts_with(b"fail ")
        && line[word + 5..]
            .iter()
            .any(|&b| b.is_ascii_digit() && b != b'0');
    let level = if failed { Level::Error } else { Level::Info };
    // The search finds every count of failures: `# fail 0` too, which a reader can tell apart.
    LineClass::new(level, LineKind::Summary, How::Phrase, 0, word + 5)
}

/// A summary line: error when it counts failures (`1 failed`, `Failures: 2`) or contains
/// `failed_word` (`BUILD FAILED`, `test result: FAILED.`), else info.
pub(super) fn summary(line: &[u8], failed_word: &[u8]) -> LineClass {
    let prefix = &line[..line.len().min(PREFIX_BYTES)];
    if let Some((start, end)) = failure_count(prefix) {
        return LineClass::new(
            Level::Error,
            LineKind::Summary,
            How::FailureCount,
            start,
            end,
        );
    }
    let failed = memchr::memmem::find(prefix, failed_word)
        .is_some_and(|at| !zero_before(prefix, at) && !line.starts_with(b"BUILD SUCCESS"));
    let level = if failed { Level::Error } else { Level::Info };
    LineClass {
        level: Some(level),
        kind: LineKind::Summary,
        how: How::Phrase,
        start: 0,
        end: phrase_end(prefix, prefix.len()) as u32,
        grade: 0,
    }
}

/// A count of failures that is not zero: `3 failed`, `1 error`, `2 failures`, `Failures: 1`.
fn failure_count(line: &[u8]) -> Option<(usize, usize)> {
    for word in [&b" failed"[..], b" failure", b" error"] {
        let mut from = 0;
        while let Some(found) = memchr::memmem::find(&line[from..], word) {
            let at = from + found;
            let digits = line[..at]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let start = at - digits;
            let nonzero = line[start..at].iter().any(|&d| d != b'0');
            let bounded = start == 0 || !is(line[start - 1], WORD);
            let mut end = at + word.len();
            if line.get(end) == Some(&b's') {
                end += 1;
            }
            let whole = line.get(end).is_none_or(|&b| !is(b, WORD));
            if digits > 0 && nonzero && bounded && whole {
                return Some((start, end));
            }
            from = at + word.len();
        }
    }
    for word in [&b"Failures: "[..], b"Errors: "] {
        if let Some(at) = memchr::memmem::find(line, word) {
            let digits = line[at + word.len()..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let count = &line[at + word.len()..at + word.len() + digits];
            if count.iter().any(|&d| d != b'0') {
                return Some((at, at + word.len() + digits));
            }
        }
    }
    None
}

/// True when the count just before `at` is 0 (`0 failed`).
fn zero_before(line: &[u8], at: usize) -> bool {
    at >= 2 && line[at - 1] == b'0' && !is(line[at - 2], DIGIT)
}

/// Where a summary's fixed phrase ends: the first digit, so a search for it finds every run.
fn phrase_end(line: &[u8], end: usize) -> usize {
    line[..end]
        .iter()
        .position(u8::is_ascii_digit)
        .unwrap_or(end)
        .max(1)
}

/// pytest's closing line: `==== 1 failed, 99 passed in 3.21s ====`.
pub(super) fn pytest_summary(line: &[u8]) -> bool {
    [
        &b" passed"[..],
        b" failed",
        b" error",
        b"no tests ran",
        b" skipped",
    ]
    .iter()
    .any(|word| memchr::memmem::find(line, word).is_some())
}

/// Maven Surefire: `Tests run: 12, Failures: 1, Errors: 0, Skipped: 0`.
pub(super) fn surefire_summary(line: &[u8], from: usize) -> LineClass {
    let rest = &line[from..line.len().min(from + PREFIX_BYTES)];
    match failure_count(rest) {
        Some((start, end)) => LineClass::new(
            Level::Error,
            LineKind::Summary,
            How::FailureCount,
            from + start,
            from + end,
        ),
        None => LineClass::new(
            Level::Info,
            LineKind::Summary,
            How::Phrase,
            from,
            from + "Tests run:".len(),
        ),
    }
}

/// `1 error generated.`, `2 errors`, `12 tests completed, 1 failed` (lines that start with a count).
pub(super) fn count_summary(line: &[u8]) -> Option<LineClass> {
    let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &line[digits..];
    let word_end = |word: &[u8]| {
        rest.starts_with(word)
            && rest
                .get(word.len())
                .is_none_or(|&b| !is(b, WORD) || b == b's')
    };
    let zero = &line[..digits] == b"0";
    if word_end(b" error") || word_end(b" warning") {
        let level = if rest.starts_with(b" error") && !zero {
            Level::Error
        } else if rest.starts_with(b" warning") && !zero {
            Level::Warning
        } else {
            Level::Info
        };
        // Only the bare counts that compilers print: `1 error`, `3 errors generated.`.
        let tail = &rest[if rest.starts_with(b" error") { 6 } else { 8 }..];
        let tail = tail.strip_prefix(b"s").unwrap_or(tail);
        if tail.is_empty() || tail.starts_with(b" generated") || tail.starts_with(b" and ") {
            if let Some((start, end)) = failure_count(line) {
                return Some(LineClass::new(
                    level,
                    LineKind::Summary,
                    How::FailureCount,
                    start,
                    end,
                ));
            }
            return Some(LineClass {
                level: Some(level),
                kind: LineKind::Summary,
                how: How::Phrase,
                start: 0,
                end: line.len().min(digits + 8) as u32,
                grade: 0,
            });
        }
    }
    if rest.starts_with(b" tests completed") {
        return Some(summary(line, b" failed"));
    }
    None
}
