//! Writing HTML: every value that did not come from this file is escaped where it is written, so
//! stored content (a `<script>`, an `<img onerror>`) is always text.

use std::fmt::Write as _;

use scratchpad_core::{thousands, utc_time};

/// `text` safe inside an element or a double-quoted attribute.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than tab and newline would only confuse a reader (and NUL is invalid).
            c if c.is_control() && c != '\n' && c != '\t' && c != '\r' => {
                let _ = write!(out, "\u{FFFD}");
            }
            c => out.push(c),
        }
    }
    out
}

/// A size as a person reads it: `812 B`, `4.2 KB`, `1.1 GB` (powers of 1,000).
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    if n < 1_000 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1_000.0 && unit < UNITS.len() - 1 {
        value /= 1_000.0;
        unit += 1;
    }
    if value < 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// A count with separators: `1,234,567`.
pub(crate) fn count(n: u64) -> String {
    thousands(n)
}

/// A number of lines, `1 line` or `300,000 lines`.
pub(crate) fn line_count(n: u64) -> String {
    match n {
        1 => "1 line".to_owned(),
        _ => format!("{} lines", count(n)),
    }
}

/// `<time>` with the exact moment as its title and "3m ago" as its text (relative to `now`, ms);
/// the script keeps the relative text current.
pub(crate) fn time(at: i64, now: i64) -> String {
    format!(
        "<time datetime=\"{at}\" title=\"{}\" data-ago>{}</time>",
        esc(&utc_time(at)),
        esc(&ago(at, now))
    )
}

/// How long ago `at` was, or how long until it comes.
pub(crate) fn ago(at: i64, now: i64) -> String {
    let delta = now - at;
    let (span, future) = if delta >= 0 {
        (delta, false)
    } else {
        (-delta, true)
    };
    let secs = span / 1_000;
    let text = match secs {
        0..=4 => return "just now".to_owned(),
        5..=59 => format!("{secs}s"),
        60..=3_599 => format!("{}m", secs / 60),
        3_600..=86_399 => format!("{}h", secs / 3_600),
        _ => format!("{}d", secs / 86_400),
    };
    if future {
        format!("in {text}")
    } else {
        format!("{text} ago")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_stored_content_is_text() {
        assert_eq!(
            esc("<script>alert(1)</script><img src=x onerror=\"a('b')\">&"),
            "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;"
        );
        assert_eq!(esc("a\u{0}b\u{1b}[31m"), "a\u{FFFD}b\u{FFFD}[31m");
    }

    #[test]
    fn sizes_and_times_read_naturally() {
        assert_eq!(bytes(812), "812 B");
        assert_eq!(bytes(4_200), "4.2 KB");
        assert_eq!(bytes(1_073_741_824), "1.1 GB");
        assert_eq!(ago(0, 3_000), "just now");
        assert_eq!(ago(0, 125_000), "2m ago");
        assert_eq!(ago(7_200_000, 0), "in 2h");
    }
}
