//! What a line's message says when no level word decides it: failure phrases, outcome words, HTTP statuses, values and prose.

use super::stamp::{STAMP, find_byte};
use super::vocabulary::{ALPHA, PREFIX_BYTES, SPACE, WORD, is};
use crate::preview::level::{How, Level, LineClass, LineKind};

/// What a program says when something went wrong, in the messages of logs whose lines carry no
/// level (a syslog file as rsyslog writes it, `dmesg`): `Out of memory: Killed process`,
/// `upstream timed out`, `Failed password for`. Matched in any case, as whole words.
const FAILURE_PHRASES: &[(&str, Level)] = &[
    ("out of memory", Level::Fatal),
    ("killed process", Level::Fatal),
    ("oom-kill", Level::Fatal),
    ("oom-killer", Level::Fatal),
    ("kernel panic", Level::Fatal),
    ("segfault at", Level::Fatal),
    ("general protection fault", Level::Fatal),
    ("core dumped", Level::Fatal),
    ("code=dumped", Level::Fatal),
    ("call trace", Level::Error),
    ("kernel bug at", Level::Fatal),
    ("failed with result", Level::Error),
    ("entered failed state", Level::Error),
    ("dependency failed", Level::Error),
    ("code=killed", Level::Error),
    ("start request repeated too quickly", Level::Error),
    ("failed to", Level::Error),
    ("failed password", Level::Error),
    ("authentication failure", Level::Error),
    ("timed out", Level::Error),
    ("connection refused", Level::Error),
    ("connection reset by peer", Level::Error),
    ("permission denied", Level::Error),
    ("access denied", Level::Error),
    ("no space left on device", Level::Error),
    ("i/o error", Level::Error),
    ("cannot allocate memory", Level::Error),
    ("could not", Level::Error),
    ("unable to", Level::Error),
];

/// The most severe failure phrase in the line's prefix, for a line with no level of its own. Only
/// the message is searched, after the first `: ` (`kernel: …`, `sshd[812]: …`): lines without one
/// (a test runner's `test a::b ... ok`) cost one scan for it.
pub(super) fn failure_phrase(line: &[u8]) -> Option<LineClass> {
    static PHRASES: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                // `oom-killer`, not the `oom-kill` it starts with.
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(FAILURE_PHRASES.iter().map(|(phrase, _)| phrase))
                .ok()
        });
    static LABEL_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b": "));
    let prefix = &line[..line.len().min(PREFIX_BYTES)];
    // `dmesg` puts the message right after its `[12345.678901] ` stamp.
    let dmesg = (prefix.first() == Some(&b'['))
        .then(|| memchr::memmem::find(&prefix[..prefix.len().min(32)], b"] "))
        .flatten()
        .filter(|&close| prefix[1..close].iter().all(|&b| STAMP[b as usize]));
    let message = match dmesg {
        Some(close) => close + 2,
        None => LABEL_END.find(prefix)?,
    };
    let mut found: Option<LineClass> = None;
    for hit in PHRASES.as_ref()?.find_iter(&prefix[message..]) {
        let hit =
            aho_corasick::Match::new(hit.pattern(), hit.start() + message..hit.end() + message);
        let whole_word = hit
            .start()
            .checked_sub(1)
            .is_none_or(|p| !is(prefix[p], WORD))
            && prefix.get(hit.end()).is_none_or(|&b| !is(b, WORD));
        let level = FAILURE_PHRASES[hit.pattern().as_usize()].1;
        if whole_word && found.is_none_or(|f| f.level < Some(level)) {
            let class = LineClass::new(
                level,
                LineKind::Plain,
                How::FailurePhrase,
                hit.start(),
                hit.end(),
            );
            found = Some(class);
        }
    }
    found
}

/// `FAIL`, `FAILED` or `FAILURE` as an upper-case word in the line's prefix.
pub(super) fn outcome_word(line: &[u8], from: usize) -> Option<LineClass> {
    let prefix = &line[..line.len().min(PREFIX_BYTES)];
    let mut from = from.min(prefix.len());
    while let Some(at) = find_byte(&prefix[from..], b'F') {
        let start = from + at;
        if !prefix[start..].starts_with(b"FAIL") {
            from = start + 1;
            continue;
        }
        let mut end = start + 4;
        for suffix in [&b"URE"[..], b"ED"] {
            if prefix[end..].starts_with(suffix) {
                end += suffix.len();
                break;
            }
        }
        let before_ok = (start == 0 || !is(prefix[start - 1], WORD) && prefix[start - 1] != b'.')
            && !quoted_in_prose(prefix, start);
        let after_ok = prefix.get(end).is_none_or(|&b| !is(b, WORD) && b != b'=')
            && !names_a_value(prefix, end);
        if before_ok && after_ok {
            return Some(LineClass::new(
                Level::Error,
                LineKind::TestFailure,
                How::Upper,
                start,
                end,
            ));
        }
        from = start + 4;
    }
    None
}

/// True when the word at `at` stands in indented prose: the line starts with a blank and a word
/// of lower-case letters comes before `at` since the last `:`, `]`, `|` or `>` (which end a
/// location, a stamp or a prefix). A commit message that says `a panic above FATAL`, a quoted
/// mail or a wrapped paragraph names levels without being an event; an indented log line puts its
/// level first or right after its prefix (`    main_test.go:12: ERROR …`).
pub(super) fn quoted_in_prose(line: &[u8], at: usize) -> bool {
    if !line.first().is_some_and(|&b| is(b, SPACE)) {
        return false;
    }
    let before = &line[..at.min(line.len())];
    let from = before
        .iter()
        .rposition(|&b| matches!(b, b':' | b']' | b'|' | b'>'))
        .map_or(0, |p| p + 1);
    before[from..]
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_lowercase())
}

/// True when the level or outcome word ending at `end` names a value rather than reporting an
/// event: after `:`, `=` or blanks comes a zero, `none`, or a metric (a number with a fraction or
/// a percent sign), and the value ends its field. Progress lines of training and data tools say
/// `error: 0.053`, `loss: 0.3 - error: 0.1`, `ERRORS 0 | WARN 0`, `FAILED: 0`, `Error: none`;
/// a failure says `ERROR 1045 (28000): Access denied`, `Error: 0 of 3 replicas are ready`,
/// `Error: None of the hosts answered`, `make: *** [all] Error 2`, which stay events.
pub(super) fn names_a_value(line: &[u8], end: usize) -> bool {
    let line = &line[..line.len().min(PREFIX_BYTES)];
    let mut at = end;
    if matches!(line.get(at), Some(b':' | b'=')) {
        at += 1;
    }
    at += blanks(&line[at.min(line.len())..]);
    let Some(rest) = line.get(at..) else {
        return false;
    };
    let value_len = if rest.first().is_some_and(u8::is_ascii_digit) {
        let whole = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut len = whole;
        let mut fraction = false;
        if rest.get(len) == Some(&b'.') && rest.get(len + 1).is_some_and(u8::is_ascii_digit) {
            len += 1 + rest[len + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            fraction = true;
        }
        if rest.get(len) == Some(&b'%') {
            len += 1;
            fraction = true;
        }
        // `0x80004005`, `1.2.3`, `0s`: an address, a version or a duration, not a count.
        if rest.get(len).is_some_and(|&b| {
            is(b, WORD) || b == b'.' && rest.get(len + 1).is_some_and(|&c| is(c, WORD))
        }) {
            return false;
        }
        let zero = rest[..len].iter().all(|&b| matches!(b, b'0' | b'.' | b'%'));
        if !(zero || fraction) {
            return false;
        }
        len
    } else {
        let word = rest.iter().take_while(|&&b| is(b, WORD)).count();
        let none = [&b"none"[..], b"null", b"nil"]
            .iter()
            .any(|w| rest[..word].eq_ignore_ascii_case(w));
        if !none {
            return false;
        }
        word
    };
    field_ends(&rest[value_len..])
}

/// True when a value's field ends here: the line ends, a separator follows (`,`, `;`, `|`, ` - `,
/// a closing bracket), or the next field's key (`loss=0.2`, `acc: 0.9`).
fn field_ends(rest: &[u8]) -> bool {
    let spaced = blanks(rest);
    let after = &rest[spaced..];
    match after.first() {
        None => true,
        Some(b',' | b';' | b'|' | b')' | b']' | b'}' | b'/') => true,
        Some(b'-') => spaced > 0,
        Some(&b) if spaced > 0 && is(b, ALPHA) => {
            let key = after.iter().take_while(|&&c| is(c, WORD)).count();
            matches!(after.get(key), Some(b':' | b'='))
        }
        Some(_) => false,
    }
}

/// The count of blanks (spaces and tabs) `bytes` starts with.
fn blanks(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// An access log line: `"GET /x HTTP/1.1" 503 …` is an error, 4xx a warning.
pub(super) fn http_status(line: &[u8]) -> Option<LineClass> {
    let prefix = &line[..line.len().min(PREFIX_BYTES)];
    // A request line ends `… HTTP/1.1"`: find its quote-free part by the `H`s.
    let mut from = 0;
    let at = loop {
        let h = from + find_byte(&prefix[from..], b'H')?;
        if h > 0 && prefix[h - 1] == b' ' && prefix[h..].starts_with(b"HTTP/") {
            break h - 1;
        }
        from = h + 1;
    };
    let close = at + memchr::memchr(b'"', &prefix[at..])?;
    let status = prefix.get(close + 2..close + 5)?;
    if prefix[close + 1] != b' ' || !status.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let level = match status[0] {
        b'5' => Level::Error,
        b'4' => Level::Warning,
        _ => Level::Info,
    };
    Some(LineClass::new(
        level,
        LineKind::Plain,
        How::HttpStatus,
        close + 2,
        close + 5,
    ))
}
