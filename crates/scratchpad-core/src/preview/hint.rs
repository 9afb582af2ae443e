//! Searches that find what a preview found: each level line the classifier recognised becomes a
//! regex fragment for its convention (`\bERROR\b`, `\[error\]`, `"level"\s*:\s*"error"`, `^E/`,
//! `panicked at`, …), and the fragments of the most severe levels present form one pattern.
//!
//! Patterns use the syntax of the engine's grep (Rust `regex`), and are meant to be run with the
//! suggested case flag: case-insensitive when the data's level words are lower-case, exact when a
//! fragment depends on case (a logcat letter, a Kubernetes column).

use serde::{Deserialize, Serialize};

use super::severity::{How, Level, LineClass};
use crate::figures::thousands;

/// A search that finds the lines that matter in an entry, built from what its preview saw.
/// Faces render it as their own read call; core only says what to search and what it finds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepSuggestion {
    /// A regular expression in the engine's grep syntax (Rust `regex`).
    pub pattern: String,
    /// Run it ignoring case.
    pub ignore_case: bool,
    /// What it finds, for the model: `595 lines at level error; fatal at lines 1,020 and 1,053`.
    pub finds: String,
    /// Lines of context to show around each line found: enough for the blocks the preview saw
    /// under its headlines (a compiler's location and label, a test's expected values).
    #[serde(default = "default_context")]
    pub context: u32,
}

/// The context of suggestions stored before they carried their own.
fn default_context() -> u32 {
    2
}

/// One convention's search for one level word, as seen on a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fragment {
    pub regex: String,
    /// The level word was lower-case in the data.
    pub lower: bool,
    /// The fragment would match noise if case were ignored (single letters, columns).
    pub exact_case: bool,
}

impl Fragment {
    fn new(regex: String) -> Fragment {
        Fragment {
            regex,
            lower: false,
            exact_case: false,
        }
    }

    fn lower(mut self, text: &[u8]) -> Fragment {
        self.lower =
            text.iter().any(u8::is_ascii_lowercase) && !text.iter().any(u8::is_ascii_uppercase);
        self
    }

    fn exact(mut self) -> Fragment {
        self.exact_case = true;
        self
    }
}

fn escape(bytes: &[u8]) -> String {
    regex::escape(&String::from_utf8_lossy(bytes))
}

/// The search for the convention that gave `class` its level on `line`.
pub(crate) fn fragment(class: &LineClass, line: &[u8]) -> Option<Fragment> {
    let (start, end) = (class.start as usize, class.end as usize);
    let span = line.get(start..end)?;
    let prev = start.checked_sub(1).map(|p| line[p]);
    Some(match class.how {
        How::None => return None,
        How::Upper => {
            // After an ANSI colour code (`\x1b[31mERROR`) there is no word boundary.
            let boundary = if prev == Some(b'm') { "" } else { r"\b" };
            Fragment::new(format!(r"{boundary}{}\b", escape(span)))
        }
        How::Bracket => {
            let inner = &span[1..span.len() - 1];
            let regex = match inner.iter().position(|&b| b == b':') {
                // Apache's `[core:error]`: any module.
                Some(colon) => format!(
                    r"\[\w+:{}{}",
                    escape(&inner[colon + 1..]),
                    escape(&span[span.len() - 1..])
                ),
                // `<E>` is a level only where a line starts (after its timestamp), never after a
                // word, where it is a type parameter (`Vec<E>`).
                None if span[0] == b'<' => format!(r"(?:^|[^\w:]){}", escape(span)),
                None => escape(span),
            };
            let fragment = Fragment::new(regex).lower(inner);
            if inner.len() == 1 {
                fragment.exact()
            } else {
                fragment
            }
        }
        How::KeyValue => {
            let value_at = span.iter().position(|&b| b == b'=').unwrap_or(0);
            Fragment::new(format!(r"\b{}\b", escape(span)))
                .lower(&span[value_at..])
                .trim_quote_boundary()
        }
        How::JsonKey => {
            let key_end = 1 + span[1..].iter().position(|&b| b == b'"')?;
            let key = &span[1..key_end];
            let value_at = key_end
                + 1
                + span[key_end + 1..]
                    .iter()
                    .position(|&b| b != b':' && b != b' ' && b != b'\t')?;
            let value = &span[value_at..];
            let boundary = if value.last().is_some_and(u8::is_ascii_digit) {
                r"\b"
            } else {
                ""
            };
            Fragment::new(format!(
                r#""{}"\s*:\s*{}{boundary}"#,
                escape(key),
                escape(value)
            ))
            .lower(value)
        }
        How::Label => {
            let word = escape(span);
            // Where the label stands, when that is a compiler's: at the start of the line
            // (`error: could not compile`) or right after a location (`main.c:12:5: error:`).
            // Elsewhere `error:` also names metrics and quotes (`loss: 0.6 - error: 0.2`), which
            // a bare `\berror:` would find by the hundred, pushing the events out of the reply.
            let before = &line[..start];
            let anchor = if start == 0 {
                "^"
            } else if before.ends_with(b": ")
                && before.len() >= 3
                && before[before.len() - 3].is_ascii_digit()
            {
                r"\d: "
            } else {
                r"\b"
            };
            let regex = match line.get(end) {
                Some(b'[') => format!(r"{anchor}{word}\["),
                Some(b' ') => format!(r"{anchor}{word} [A-Z]+\d+:"),
                _ => format!(r"{anchor}{word}:"),
            };
            Fragment::new(regex).lower(span)
        }
        How::FatalError => Fragment::new(format!(r"\b{}", escape(span))).lower(span),
        How::Column => Fragment::new(format!(r"\s{}\s", escape(span))).exact(),
        How::LogcatBrief if start == 0 => Fragment::new(format!("^{}/", escape(span))).exact(),
        How::LogcatBrief => Fragment::new(format!(r"\s{}/", escape(span))).exact(),
        How::LogcatThreadtime => Fragment::new(format!(r"\d {} ", escape(span))).exact(),
        How::Klog => Fragment::new(format!(r"^{}\d{{4}} ", escape(span))).exact(),
        How::SyslogPriority => Fragment::new(format!("^{}", escape(span))),
        How::Facility => Fragment::new(format!(r"\b{}\b", escape(span))).lower(span),
        How::Exception if start == 0 => Fragment::new(format!(r"^{}\b", escape(span))),
        // A bare exception ends its line: pytest's `tests/test_x.py:9: AssertionError`.
        // After a location or prefix, as the classifier took it: not `raise AssertionError`.
        How::Exception if end == line.len() => Fragment::new(format!(r"[:\]] {}$", escape(span))),
        How::Exception => Fragment::new(format!(r"\b{}:", escape(span))),
        How::Phrase => {
            let trimmed = span.trim_ascii_end();
            let anchor = if start == 0 { "^" } else { "" };
            Fragment::new(format!("{anchor}{}", escape(trimmed)))
        }
        // The same phrase comes in several cases (`Failed to start`, `failed to connect`).
        How::FailurePhrase => {
            Fragment::new(format!(r"(?i:\b{}\b)", escape(&span.to_ascii_lowercase())))
        }
        How::PytestE => Fragment::new("^E {3}".to_owned()).exact(),
        How::FailureCount => Fragment::new(
            r"\b[1-9]\d* (?:failed|failures?|errors?|failing)\b|\b(?:Failures|Errors): [1-9]"
                .to_owned(),
        ),
        How::HttpStatus => Fragment::new(format!(r#"HTTP/[\d.]+" {}\d\d\b"#, span[0] as char)),
        // mocha numbers its failures: `  1) adds numbers`.
        How::Mark if span.last() == Some(&b')') => Fragment::new(r"^\s+\d+\) ".to_owned()),
        How::Mark => Fragment::new(escape(span.trim_ascii())),
        // An indented row's cell after `line:column`; a located row's after `path:line[:column]`.
        How::LintRow if line.first().is_some_and(|&b| b == b' ' || b == b'\t') => {
            Fragment::new(format!(r"^\s+\d+:\d+\s+{}\s", escape(span)))
        }
        How::LintRow => Fragment::new(format!(r":\d+(?::\d+)? {} ", escape(span))),
    })
}

impl Fragment {
    /// `level="error"` ends in a quote, where `\b` would not match.
    fn trim_quote_boundary(mut self) -> Fragment {
        if let Some(stripped) = self.regex.strip_suffix("\"\\b") {
            self.regex = format!("{stripped}\"");
        }
        self
    }
}

/// The fragments seen for one level, most useful first, with how many lines each matched.
#[derive(Debug, Default, Clone)]
pub(crate) struct LevelMarks {
    pub fragments: Vec<(Fragment, u64)>,
    /// Fragment keys already seen (hash of convention and span), to skip rebuilding them.
    pub keys: Vec<(u64, usize)>,
    /// Up to [`FIRST_LINES`] line numbers at this level.
    pub first_lines: Vec<u64>,
}

/// Distinct fragments kept per level.
pub(crate) const FRAGMENTS_PER_LEVEL: usize = 8;
/// Line numbers kept per level to name rare levels' lines.
pub(crate) const FIRST_LINES: usize = 3;

impl LevelMarks {
    pub fn note(&mut self, number: u64, class: &LineClass, line: &[u8]) {
        if self.first_lines.len() < FIRST_LINES {
            self.first_lines.push(number);
        }
        let span = line
            .get(class.start as usize..class.end as usize)
            .unwrap_or_default();
        // Same convention, same span text: the same fragment (Label also depends on what follows).
        let next = line.get(class.end as usize).copied().unwrap_or(0);
        let key = super::template::hash(span)
            ^ ((class.how as u64) << 56)
            ^ u64::from(next) << 48
            ^ u64::from(class.start == 0);
        if let Some(&(_, index)) = self.keys.iter().find(|(k, _)| *k == key) {
            self.fragments[index].1 += 1;
            return;
        }
        if self.keys.len() >= FRAGMENTS_PER_LEVEL * 4 {
            return;
        }
        let Some(fragment) = fragment(class, line) else {
            return;
        };
        match self
            .fragments
            .iter()
            .position(|(f, _)| f.regex == fragment.regex)
        {
            Some(index) => {
                self.fragments[index].1 += 1;
                self.keys.push((key, index));
            }
            None if self.fragments.len() < FRAGMENTS_PER_LEVEL => {
                self.fragments.push((fragment, 1));
                self.keys.push((key, self.fragments.len() - 1));
            }
            None => {}
        }
    }
}

/// The suggestion for an entry whose lines at each level (most severe first) were `counts`.
pub(crate) fn suggest(counts: &[(Level, u64)], marks: &[LevelMarks; 7]) -> Option<GrepSuggestion> {
    let present = |level: Level| {
        counts
            .iter()
            .find(|(l, _)| *l == level)
            .map_or(0, |(_, n)| *n)
    };
    let mut levels: Vec<Level> = [Level::Fatal, Level::Error]
        .into_iter()
        .filter(|&l| present(l) > 0 && !marks[l.rank()].fragments.is_empty())
        .collect();
    if levels.is_empty()
        && present(Level::Warning) > 0
        && !marks[Level::Warning.rank()].fragments.is_empty()
    {
        levels.push(Level::Warning);
    }
    if levels.is_empty() {
        return None;
    }
    let mut fragments: Vec<&Fragment> = Vec::new();
    for &level in &levels {
        for (fragment, _) in &marks[level.rank()].fragments {
            if !fragments.iter().any(|f| f.regex == fragment.regex) {
                fragments.push(fragment);
            }
        }
    }
    // One flag covers the whole pattern: ignoring case only when every level word seen was
    // lower-case keeps `\bFAILED\b` from matching `0 failed` in a passing summary.
    let ignore_case = fragments.iter().all(|f| f.lower && !f.exact_case);
    let pattern = fragments
        .iter()
        .map(|f| f.regex.as_str())
        .collect::<Vec<_>>()
        .join("|");
    let finds = levels
        .iter()
        .map(|&level| {
            let n = present(level);
            let lines = &marks[level.rank()].first_lines;
            if n as usize <= lines.len() {
                let numbers: Vec<String> = lines.iter().map(|&l| thousands(l)).collect();
                format!(
                    "{} at {} {}",
                    level.name(),
                    if n == 1 { "line" } else { "lines" },
                    join_and(&numbers)
                )
            } else {
                format!("{} lines at level {}", thousands(n), level.name())
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    Some(GrepSuggestion {
        pattern,
        ignore_case,
        finds,
        context: default_context(),
    })
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::severity::classify;

    fn frag(line: &str) -> Fragment {
        let class = classify(line.as_bytes());
        fragment(&class, line.as_bytes()).unwrap()
    }

    /// Every fragment, compiled as the engine's grep would, finds the line it came from.
    #[test]
    fn fragments_find_their_own_lines() {
        for line in [
            "2026-11-21T10:00:01Z ERROR worker 1: connection reset",
            "2026/11/21 10:00:01 [error] 1234#1234: *5 open() failed",
            "[Sat Nov 21 10:00:01.1 2026] [core:error] [pid 1] AH00126: Invalid URI",
            "ts=1 level=error msg=x",
            "ts=1 level=\"error\" msg=x",
            "{\"level\": \"error\", \"msg\": \"x\"}",
            "{\"level\":50,\"msg\":\"x\"}",
            "{\"PRIORITY\":\"3\",\"MESSAGE\":\"x\"}",
            "error[E0308]: mismatched types",
            "src/a.ts(3,5): error TS2322: Type",
            "main.c:12:5: error: expected ';' before '}' token",
            "mypy.py:3: error: Incompatible types in assignment",
            "cargo: error: no such command",
            "foo.c:1:10: fatal error: bar.h: No such file",
            "5m          Warning   BackOff   pod/api-1   Back-off",
            "E/AndroidRuntime( 1234): FATAL EXCEPTION: main",
            "11-21 10:00:01.123  1234  1245 E AndroidRuntime: crash",
            "E1121 10:00:01.123456       1 controller.go:123] sync failed",
            "<3>Nov 21 10:00:01 host app: x",
            "2026-11-21 10:00:01 <E> request failed",
            "Nov 21 10:00:01 host kern.err kernel: x",
            "java.lang.IllegalStateException: boom",
            "tests/test_calc.py:9: AssertionError",
            "thread 'main' panicked at src/main.rs:2:5:",
            "panic: runtime error: index out of range",
            "--- FAIL: TestAdd (0.00s)",
            "E       assert 1 == 2",
            "1.2.3.4 - - [21/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 503 1 \"-\" \"c\"",
            "    ✕ adds numbers (5 ms)",
            "\x1b[31mERROR\x1b[0m boom",
            "test result: FAILED. 1 passed; 1 failed",
            "E: Unable to locate package libfoo-dev",
            "======================== 1 failed, 601 passed in 1.47s ==========",
            "[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0",
            "Found 3 errors in 2 files.",
            "fail: Microsoft.AspNetCore.Server.Kestrel[13]",
            "crit: Microsoft.AspNetCore.Hosting.Diagnostics[6]",
            "│ Error: Unsupported argument",
            "npm error code E404",
            "not ok 3 - rejects a bad date",
            "    not ok 1 - subtest",
            "# fail 2",
            "✖ rejects a bad date (1.2ms)",
            "ℹ fail 2",
            "  1) rejects a bad date",
            "  2 failing",
            "Nov 24 23:00:50 vm kernel: Call Trace:",
            "[12345.678901] kernel BUG at mm/slub.c:379!",
            "Nov 24 23:00:50 vm systemd[1]: x.service: Failed with result 'exit-code'.",
        ] {
            let f = frag(line);
            let re = regex::RegexBuilder::new(&f.regex)
                .case_insensitive(f.lower && !f.exact_case)
                .build()
                .unwrap();
            assert!(re.is_match(line), "{} does not find {line}", f.regex);
        }
    }

    #[test]
    fn fragments_skip_the_noise_of_their_convention() {
        let cases = [
            (
                "11-21 10:00:01.123  1234  1245 E Tag: x",
                "11-21 10:00:01.123  1234  1245 W Tag: x",
            ),
            ("2026/11/21 [error] x", "2026/11/21 [warn] error count is 0"),
            (
                "{\"level\":\"error\",\"msg\":\"x\"}",
                "{\"level\":\"info\",\"msg\":\"error\"}",
            ),
            (
                "E1121 10:00:01.1 1 a.go:1] x",
                "I1121 10:00:01.1 1 a.go:1] E1121",
            ),
            (
                "2026-11-21 10:00:01 <E> request failed",
                "   = note: expected enum `Result<T, E>` and `Vec<E>`",
            ),
            (
                "=== 1 failed, 9 passed in 1s ===",
                "=== 0 failed, 10 passed in 1s ===",
            ),
        ];
        for (planted, noise) in cases {
            let f = frag(planted);
            let re = regex::RegexBuilder::new(&f.regex)
                .case_insensitive(f.lower && !f.exact_case)
                .build()
                .unwrap();
            assert!(re.is_match(planted), "{}", f.regex);
            assert!(!re.is_match(noise), "{} matches {noise}", f.regex);
        }
    }
}
