//! How sizes, times and entries read in a terminal.

use scratchpad_core::EntryInfo;
use scratchpad_core::figures::{counted, thousands};

/// `stored `NAME` (text, 1,234 bytes, 56 lines)`
pub fn stored_line(verb: &str, info: &EntryInfo) -> String {
    format!(
        "{verb} `{}` ({}, {} bytes, {})",
        info.name,
        info.kind,
        thousands(info.bytes),
        counted(info.lines, "line", "lines")
    )
}

/// An author or holder as a table shows it: `-` for none, and any character that would distort the
/// table (one stored before such names were refused, or by another program) written as an escape.
pub fn shown_name(name: Option<&str>) -> String {
    match name {
        Some(name) => {
            scratchpad_core::model::author_from_client(name).unwrap_or_else(|| "-".to_owned())
        }
        None => "-".to_owned(),
    }
}

/// `1.2 MB`: decimal units, one decimal below 10.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if value < 9.95 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// Below this a time reads "just now": the seconds carry no news, and tables stay steady (ms).
const JUST_NOW_MS: u64 = 10_000;

/// `3m ago`, `in 23h`: the largest whole unit, rounded down.
pub fn relative(at_ms: i64, now_ms: i64) -> String {
    let diff = at_ms - now_ms;
    let span = short_span(diff.unsigned_abs() / 1000);
    if diff.unsigned_abs() < JUST_NOW_MS {
        "just now".to_owned()
    } else if diff < 0 {
        format!("{span} ago")
    } else {
        format!("in {span}")
    }
}

fn short_span(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3_600 => format!("{}m", secs / 60),
        3_600..86_400 => format!("{}h", secs / 3_600),
        _ => format!("{}d", secs / 86_400),
    }
}

/// `in 23h` or `never`.
pub fn expires(expires_at: Option<i64>, now_ms: i64) -> String {
    match expires_at {
        Some(at) => relative(at, now_ms),
        None => "never".to_owned(),
    }
}

/// Columns padded to their widest cell; the last column is not padded.
pub fn table(header: &[&str], rows: &[Vec<String>], right_aligned: &[bool]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let width = widths[i];
            let last = i + 1 == row.len();
            if i > 0 {
                line.push_str("  ");
            }
            if right_aligned.get(i).copied().unwrap_or(false) {
                line.push_str(&format!("{cell:>width$}"));
            } else if last {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_ls() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1_234), "1.2 KB");
        assert_eq!(human_bytes(1_234_567), "1.2 MB");
        assert_eq!(human_bytes(45_000_000), "45 MB");
        assert_eq!(human_bytes(999_999), "1.0 MB");
    }

    #[test]
    fn times_are_relative() {
        let now = 1_000_000_000;
        assert_eq!(relative(now - 180_000, now), "3m ago");
        assert_eq!(relative(now + 86_399_000, now), "in 23h");
        assert_eq!(relative(now, now), "just now");
        assert_eq!(relative(now - 9_000, now), "just now");
        assert_eq!(relative(now - 12_000, now), "12s ago");
        assert_eq!(expires(None, now), "never");
    }
}
