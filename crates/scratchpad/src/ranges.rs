//! `FROM-TO` arguments of `read`, checked here so a typo gets a message about the flag the user typed.

use anyhow::bail;

/// A parsed `FROM-TO`: `to` is `None` for `FROM-` (to the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub from: u64,
    pub to: Option<u64>,
}

/// `--range` (characters) and `--bytes`: 0-based, end exclusive.
pub fn offsets(flag: &str, what: &str, text: &str) -> anyhow::Result<Span> {
    let usage = || {
        format!(
            "invalid {what} range `{text}` for {flag}: use FROM-TO with 0-based offsets, end exclusive, \
             e.g. 0-2000, or FROM- for the rest"
        )
    };
    let Some(span) = split(text) else {
        bail!(usage())
    };
    if let Some(to) = span.to
        && span.from > to
    {
        bail!("{}; the start {} is after the end {to}", usage(), span.from);
    }
    Ok(span)
}

/// `--lines`: 1-based, inclusive; `N` alone is one line.
pub fn lines(text: &str) -> anyhow::Result<Span> {
    let usage = || {
        format!(
            "invalid line range `{text}`: use FROM-TO with 1-based numbers, e.g. 10-20, or FROM- for the rest"
        )
    };
    let span = match number(text.trim()) {
        Some(n) => Span {
            from: n,
            to: Some(n),
        },
        None => split(text).ok_or_else(|| anyhow::anyhow!(usage()))?,
    };
    if span.from == 0 || span.to == Some(0) {
        bail!("{}; lines are numbered from 1", usage());
    }
    if let Some(to) = span.to
        && span.from > to
    {
        bail!("{}; the start {} is after the end {to}", usage(), span.from);
    }
    Ok(span)
}

/// `FROM-TO` or `FROM-`; the en dash of the replies' own headers (`lines 12,344–12,347`) works too.
fn split(text: &str) -> Option<Span> {
    let (from, to) = text.trim().split_once(['-', '–'])?;
    let from = number(from.trim())?;
    let to = to.trim();
    let to = if to.is_empty() {
        None
    } else {
        Some(number(to)?)
    };
    Some(Span { from, to })
}

/// Digits only (`+5` and `-3` parse as numbers in Rust but are not what anyone meant), optionally
/// grouped in threes by commas as the replies print counts: `12,344`.
fn number(s: &str) -> Option<u64> {
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    let mut groups = s.split(',');
    let first = groups.next()?;
    let rest: Vec<&str> = groups.collect();
    let grouped = rest.is_empty() || (first.len() <= 3 && rest.iter().all(|g| g.len() == 3));
    if !grouped || !digits(first) || !rest.iter().all(|g| digits(g)) {
        return None;
    }
    s.replace(',', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_forms() {
        assert_eq!(
            lines("10-20").unwrap(),
            Span {
                from: 10,
                to: Some(20)
            }
        );
        assert_eq!(
            lines("7").unwrap(),
            Span {
                from: 7,
                to: Some(7)
            }
        );
        assert_eq!(lines("7-").unwrap(), Span { from: 7, to: None });
        // Copied from a reply's header, as printed.
        assert_eq!(
            lines("12,344–12,347").unwrap(),
            Span {
                from: 12_344,
                to: Some(12_347)
            }
        );
        assert_eq!(
            lines("1,000,001").unwrap(),
            Span {
                from: 1_000_001,
                to: Some(1_000_001)
            }
        );
        assert_eq!(
            offsets("--range", "character", "0-0").unwrap(),
            Span {
                from: 0,
                to: Some(0)
            }
        );
        assert_eq!(
            offsets("--range", "character", "5-").unwrap(),
            Span { from: 5, to: None }
        );
    }

    #[test]
    fn bad_forms_say_why() {
        for bad in [
            "abc", "", "-3", "5-2", "0-3", "1-2-3", "+1-2", "3-x", "5,10", "1234,567", ",123",
            "1,", "1,2345",
        ] {
            let err = lines(bad).unwrap_err().to_string();
            assert!(err.contains("invalid line range"), "{bad}: {err}");
        }
        assert!(
            lines("5-2")
                .unwrap_err()
                .to_string()
                .contains("after the end")
        );
        assert!(
            lines("0-3")
                .unwrap_err()
                .to_string()
                .contains("numbered from 1")
        );
        for bad in ["abc", "", "-3", "5-2", "99999999999999999999999-1"] {
            let err = offsets("--range", "character", bad)
                .unwrap_err()
                .to_string();
            assert!(err.contains("invalid character range"), "{bad}: {err}");
        }
    }
}
