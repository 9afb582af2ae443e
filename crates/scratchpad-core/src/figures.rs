//! Figures as every face writes them: `1,234,567`, `1 line`, `2,500 lines`.

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `n` with the noun that fits it: `1 line`, `2,500 lines`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// A moment as `2026-11-25 10:00:05 UTC` (unix milliseconds in, whole seconds out).
pub fn utc_time(ms: i64) -> String {
    let (year, month, day, hour, minute, second) = utc_fields(ms);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} UTC")
}

/// A moment as `20261125T100005Z` (ISO 8601's basic form: fits in a file name and sorts as it
/// reads; unix milliseconds in, whole seconds out).
pub fn utc_stamp(ms: i64) -> String {
    let (year, month, day, hour, minute, second) = utc_fields(ms);
    format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}Z")
}

/// Year, month, day, hour, minute and second of a moment in UTC (unix milliseconds).
fn utc_fields(ms: i64) -> (i64, u32, u32, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let (days, in_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    (
        year,
        month,
        day,
        in_day / 3_600,
        in_day % 3_600 / 60,
        in_day % 60,
    )
}

/// A length of time as its two largest units: `45s`, `3m 20s`, `2h 5m`, `3d 4h` (milliseconds in).
pub fn span(ms: i64) -> String {
    let secs = ms.max(0).saturating_add(999) / 1000;
    let (d, h, m, s) = (
        secs / 86_400,
        secs % 86_400 / 3_600,
        secs % 3_600 / 60,
        secs % 60,
    );
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, _) if s == 0 => format!("{m}m"),
        (0, 0, _) => format!("{m}m {s}s"),
        (0, _, _) if m == 0 => format!("{h}h"),
        (0, _, _) => format!("{h}h {m}m"),
        _ if h == 0 => format!("{d}d"),
        _ => format!("{d}d {h}h"),
    }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::{counted, span, utc_stamp, utc_time};

    #[test]
    fn stamps_are_written_in_utc_basic_form() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(1_795_570_566_999), "20261125T013606Z");
        assert_eq!(utc_stamp(951_782_400_000), "20000229T000000Z");
    }

    #[test]
    fn times_are_written_in_utc() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(1_795_570_566_000), "2026-11-25 01:36:06 UTC");
        assert_eq!(utc_time(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_time(-1_000), "1969-12-31 23:59:59 UTC");
    }

    #[test]
    fn spans_keep_two_units() {
        assert_eq!(span(0), "0s");
        assert_eq!(span(44_001), "45s");
        assert_eq!(span(200_000), "3m 20s");
        assert_eq!(span(120_000), "2m");
        assert_eq!(span(7_500_000), "2h 5m");
        assert_eq!(span(3 * 86_400_000 + 4 * 3_600_000 + 1), "3d 4h");
        assert_eq!(span(-5), "0s");
    }

    #[test]
    fn nouns_agree_with_their_numbers() {
        assert_eq!(counted(0, "line", "lines"), "0 lines");
        assert_eq!(counted(1, "entry", "entries"), "1 entry");
        assert_eq!(counted(2_500, "match", "matches"), "2,500 matches");
    }
}
