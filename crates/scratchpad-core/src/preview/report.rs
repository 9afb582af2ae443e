//! Lines of reports that carry their level in a column rather than in a log's usual places: the
//! rows of linters' default formatters and the plans of package managers.
//!
//! - **Linter rows.** eslint's `stylish`, stylelint's `string` formatter and their family print a
//!   file path on a line of its own, then one row per problem: `  27:11  error  message  rule`,
//!   `  3:12  ⚠  message  rule`. markdownlint-cli and others of its kind put the path first on
//!   each row: `docs/a.md:4:36 error MD009/no-trailing-spaces …`. A level word (or `✖`, `⚠`, `ℹ`)
//!   right after a `line:column` location is the row's level. The file a row belongs to is found
//!   by the profiler (`is_path_header`).
//! - **Package plans.** apt says what it is about to do without a level: `The following packages
//!   will be REMOVED:` is a warning (it takes software away) and `120 upgraded, 0 newly
//!   installed, 39 to remove and 0 not upgraded.` is the plan's summary.

use super::level::{How, Level, LineClass, LineKind};

/// Bytes of a row's location (`line:column`, or `path:line:column`) that are searched.
const LOCATION_BYTES: usize = 256;

/// A linter row: `  27:11  error  msg  rule` (indented `line:column`, then the level) or
/// `path:27[:11] error msg` (a located row). `indent` is the number of leading blanks.
pub(super) fn linter_row(line: &[u8], indent: usize) -> Option<LineClass> {
    let rest = &line[indent..];
    let location_end = if indent > 0 {
        // `27:11` alone: digits, a colon, digits.
        let digits = count_digits(rest);
        if digits == 0 || rest.get(digits) != Some(&b':') {
            return None;
        }
        let column = count_digits(&rest[digits + 1..]);
        if column == 0 {
            return None;
        }
        indent + digits + 1 + column
    } else {
        // `path:27` or `path:27:11`, the path without blanks.
        let window = &line[..line.len().min(LOCATION_BYTES)];
        let blank = window.iter().position(|&b| b == b' ' || b == b'\t')?;
        let location = &window[..blank];
        let mut end = location.len();
        let mut numbers = 0;
        while numbers < 2 {
            let digits = location[..end]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 || end - digits == 0 || location[end - digits - 1] != b':' {
                break;
            }
            end -= digits + 1;
            numbers += 1;
        }
        if numbers == 0 || end == 0 {
            return None;
        }
        blank
    };
    let gap = line[location_end..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    // Indented rows align their columns with at least one blank; located rows use exactly one.
    if gap == 0 || (indent == 0 && gap != 1) {
        return None;
    }
    let start = location_end + gap;
    let (level, end) = level_cell(line, start, indent > 0)?;
    // The message follows after a blank.
    let after = line.get(end)?;
    if *after != b' ' && *after != b'\t' {
        return None;
    }
    Some(LineClass::new(
        level,
        LineKind::Plain,
        How::LintRow,
        start,
        end,
    ))
}

/// The level in the cell at `start`: a lower-case level word, or (in indented rows) a mark.
fn level_cell(line: &[u8], start: usize, marks: bool) -> Option<(Level, usize)> {
    let cell = &line[start..];
    if marks {
        for (mark, level) in [
            ("✖", Level::Error),
            ("×", Level::Error),
            ("⚠", Level::Warning),
            ("‼", Level::Warning),
            ("ℹ", Level::Info),
        ] {
            if cell.starts_with(mark.as_bytes()) {
                return Some((level, start + mark.len()));
            }
        }
    }
    let word = cell.iter().take_while(|b| b.is_ascii_lowercase()).count();
    let level = match &cell[..word] {
        b"error" | b"fatal" => Level::Error,
        b"warning" | b"warn" => Level::Warning,
        b"info" | b"hint" | b"suggestion" => Level::Info,
        _ => return None,
    };
    Some((level, start + word))
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(10)
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// A line that names a file on its own, as linters print before its rows: no blanks, a `/` or a
/// `.` in it, and not a location (`a.rs:12`) nor a label (`Caused by:`).
pub(crate) fn is_path_header(line: &[u8]) -> bool {
    let Some(&first) = line.first() else {
        return false;
    };
    if line.len() > LOCATION_BYTES
        || first == b' '
        || first == b'\t'
        || line.last() == Some(&b':')
        || line.iter().any(|&b| b == b' ' || b == b'\t')
    {
        return false;
    }
    let name = line.rsplit(|&b| b == b'/').next().unwrap_or(line);
    // A file name with an extension of letters: `module23.js`, `style5.css`, `README.md`.
    match name.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 && dot + 1 < name.len() => {
            name[dot + 1].is_ascii_alphabetic()
                && name[dot + 1..]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        _ => false,
    }
}

/// apt's plan lines: what will be removed or downgraded, what is held back, and the count line.
pub(super) fn package_plan(line: &[u8]) -> Option<LineClass> {
    const FOLLOWING: &[u8] = b"The following ";
    if let Some(rest) = line.strip_prefix(FOLLOWING) {
        let rest = &rest[..rest.len().min(96)];
        for (phrase, level) in [
            (&b"will be REMOVED"[..], Level::Warning),
            (b"will be DOWNGRADED", Level::Warning),
            (b"have been kept back", Level::Notice),
            (b"held packages will be changed", Level::Warning),
            (b"have unmet dependencies", Level::Error),
        ] {
            if let Some(at) = memchr::memmem::find(rest, phrase) {
                let start = FOLLOWING.len() + at;
                return Some(LineClass::new(
                    level,
                    LineKind::Plain,
                    How::Phrase,
                    start,
                    start + phrase.len(),
                ));
            }
        }
        return None;
    }
    // `120 upgraded, 0 newly installed, 39 to remove and 0 not upgraded.`
    let digits = count_digits(line);
    if digits > 0 && line[digits..].starts_with(b" upgraded, ") {
        let removes = memchr::memmem::find(line, b" to remove").is_some_and(|at| {
            let count = line[..at]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .collect::<Vec<_>>();
            !count.is_empty() && count.iter().any(|&&d| d != b'0')
        });
        let level = if removes {
            Level::Warning
        } else {
            Level::Notice
        };
        return Some(LineClass::new(
            level,
            LineKind::Summary,
            How::Phrase,
            digits,
            digits + " upgraded,".len(),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::severity::classify;
    use super::*;

    fn level(line: &str) -> Option<Level> {
        classify(line.as_bytes()).level
    }

    #[test]
    fn linter_rows_take_the_level_of_their_column() {
        let cases: &[(&str, Option<Level>)] = &[
            (
                "  25:29  error    'fetchConfig' is not defined                        no-undef",
                Some(Level::Error),
            ),
            (
                "   1:5   warning  'value0' is assigned a value but never used         no-unused-vars",
                Some(Level::Warning),
            ),
            (
                "  102:3   ✖  Unknown property \"colr\"          property-no-unknown",
                Some(Level::Error),
            ),
            (
                "   3:12  ⚠  Disallowed unit                  length-zero-no-unit",
                Some(Level::Warning),
            ),
            (
                "docs/guide00.md:4:36 error MD009/no-trailing-spaces Trailing spaces [Expected: 0 or 2; Actual: 3]",
                Some(Level::Error),
            ),
            (
                "docs/guide00.md:3 warning MD022/blanks-around-headings Headings should be surrounded",
                Some(Level::Warning),
            ),
            // Not rows: a time, prose, code.
            ("  10:30  errors were seen by the night shift", None),
            ("  at 10:30 error handling was slow", None),
            ("build.rs:12 errors", None),
        ];
        for (line, want) in cases {
            assert_eq!(level(line), *want, "{line}");
        }
    }

    #[test]
    fn a_linter_row_is_found_by_its_search() {
        let line = "  25:29  error    'fetchConfig' is not defined   no-undef";
        let class = classify(line.as_bytes());
        assert_eq!(class.how, How::LintRow);
        let fragment = super::super::hint::fragment(&class, line.as_bytes()).unwrap();
        let regex = regex::Regex::new(&fragment.regex).unwrap();
        assert!(regex.is_match(line));
        assert!(!regex.is_match("  25:29  warning  'x' is defined but never used  no-unused-vars"));
    }

    #[test]
    fn path_headers() {
        for line in [
            "/home/dev/shop/src/module23.js",
            "css/style5.css",
            "README.md",
        ] {
            assert!(is_path_header(line.as_bytes()), "{line}");
        }
        for line in [
            "  1:5  warning  x",
            "Caused by:",
            "✖ 2881 problems (1 error, 2880 warnings)",
            "src/a.rs:12",
            "v1.2",
            "",
        ] {
            assert!(!is_path_header(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn apt_plans() {
        assert_eq!(
            level("The following packages will be REMOVED:"),
            Some(Level::Warning)
        );
        let summary =
            classify(b"120 upgraded, 0 newly installed, 39 to remove and 0 not upgraded.");
        assert_eq!(summary.level, Some(Level::Warning));
        assert_eq!(summary.kind, LineKind::Summary);
        let quiet = classify(b"3 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.");
        assert_eq!(quiet.level, Some(Level::Notice));
        assert_eq!(level("The following packages will be upgraded:"), None);
    }
}
