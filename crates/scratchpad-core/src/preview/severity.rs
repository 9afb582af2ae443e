//! Severity of a line across the conventions real programs use, decided by a byte-level classifier.
//!
//! Every offload runs this over every line, so it is a hand-written scan, not a regex per line: a
//! dispatch on the line's first bytes for the conventions that live there (syslog `<3>`, logcat
//! `E/Tag:`, klog `E1121`, `Traceback (most recent call last):`, `thread '…' panicked at`, test
//! runners' result lines), then one pass over the words of the line's first [`PREFIX_BYTES`] bytes
//! that stops at the first level it can vouch for. A word counts as a level only in a position where
//! programs put levels:
//!
//! - an upper-case level word on its own (`ERROR`, `WARN`, `FATAL`, `INF`, `ERRO[0000]`), anywhere;
//! - any case in brackets (`[error]`, `[core:error]`, `<warn>`, `[E]`), but not right after a word,
//!   where brackets hold a type argument or an index (`Box<Error>`, `arr[E]`); a single letter in
//!   angle brackets (`<E>`) only where a line starts or right after its timestamp (not `Vec<E>`);
//! - any case as the value of a level key (`level=error`, `lvl=eror`, `"level":"error"`,
//!   `"severity":"ERROR"`, `"level":50`, `"PRIORITY":"3"`);
//! - any case as a label (`error: …`, `error[E0308]: …`, `error TS2322: …`) at the start of the
//!   line or after a location or prefix that ends in `:` or `]` (`src/x.rs:12:5: error: …`,
//!   `sshd[12]: error: …`);
//! - capitalised in a column (`Warning   BackOff`, as `kubectl get events` prints it);
//! - a logcat letter (`E/Tag(`, `… 1234  1245 E Tag:`), a klog letter (`E1121 10:00:01.1`),
//!   a syslog priority (`<3>`, `kern.err`), a pytest explanation line (`E   assert …`).
//!
//! So `error_count=0`, `ErrorHandler`, `no errors` and `errors: 0` are not levels, and neither is
//! a struct field `error: String` indented in source code.
//!
//! Levels, most severe first: fatal (also panic, critical, alert, emergency: the program or a part
//! of it stopped; graded within: emergency above alert above critical, a panic above FATAL), error (also severe, a failed test or build), warning, notice, info, debug, trace
//! (also verbose, finer, finest). Syslog priorities 0–2 are fatal, 3 error, 4 warning, 5 notice,
//! 6 info, 7 debug; bunyan/pino numbers 60 fatal, 50 error, 40 warning, 30 info, 20 debug, 10 trace.

pub(crate) use super::level::How;
pub use super::level::{Level, LineClass, LineKind};

/// Bytes of a line searched for its level: levels sit near the start of a line, and a bound keeps
/// the cost per line flat whatever its length. JSON lines are searched for a level key beyond it.
pub const PREFIX_BYTES: usize = 512;

// ---------------------------------------------------------------------------------------------------
// Byte classes

const ALPHA: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
/// Letters, digits and `_`: what a word is made of.
const WORD: u8 = 8;
const SPACE: u8 = 16;

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut class = 0;
        if c.is_ascii_alphabetic() {
            class |= ALPHA | WORD;
        }
        if c.is_ascii_uppercase() {
            class |= UPPER;
        }
        if c.is_ascii_digit() {
            class |= DIGIT | WORD;
        }
        if c == b'_' {
            class |= WORD;
        }
        if c == b' ' || c == b'\t' {
            class |= SPACE;
        }
        table[b] = class;
        b += 1;
    }
    table
};

#[inline]
fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}

// ---------------------------------------------------------------------------------------------------
// Vocabulary

/// Where a level word may be believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// A full name (`error`, `warning`): upper case anywhere, any case in brackets, labels and values.
    Full,
    /// An abbreviation (`ERR`, `WRN`, `ERRO`): upper case anywhere, any case in brackets and values.
    Abbrev,
    /// `FAIL`, `FAILED`, `FAILURE`: upper case only; an outcome, not a declared level.
    Outcome,
    /// `Normal` (Kubernetes events): in a column only.
    Column,
}

/// Up to eight ASCII letters, lower-cased, packed into a u64 (little-endian).
const fn pack(word: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < word.len() {
        key |= ((word[i] | 0x20) as u64) << (8 * i);
        i += 1;
    }
    key
}

/// [`pack`] at run time; words longer than eight bytes give a key no vocabulary entry has.
#[inline]
fn pack_runtime(word: &[u8]) -> u64 {
    let len = word.len().min(8);
    let mut bytes = [0u8; 8];
    bytes[..len].copy_from_slice(&word[..len]);
    let mask = if len == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * len)) - 1
    };
    (u64::from_le_bytes(bytes) | 0x2020_2020_2020_2020) & mask
}

/// [`pack_runtime`] of `line[start..start + len]` (len ≤ 8), reading eight bytes at once when the
/// line has them: this runs for every word of a line without a level.
#[inline]
fn pack_at(line: &[u8], start: usize, len: usize) -> u64 {
    match line.get(start..start + 8) {
        Some(eight) => {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(eight);
            let mask = if len >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * len)) - 1
            };
            (u64::from_le_bytes(bytes) | 0x2020_2020_2020_2020) & mask
        }
        None => pack_runtime(&line[start..start + len]),
    }
}

/// The level a word names (at most eight letters, any case), and where it may be believed.
fn vocabulary(key: u64) -> Option<(Level, Form)> {
    const FATAL: u64 = pack(b"fatal");
    const FATA: u64 = pack(b"fata");
    const FTL: u64 = pack(b"ftl");
    const PANIC: u64 = pack(b"panic");
    const PANI: u64 = pack(b"pani");
    const PNC: u64 = pack(b"pnc");
    const CRITICAL: u64 = pack(b"critical");
    const CRIT: u64 = pack(b"crit");
    const CRT: u64 = pack(b"crt");
    const ALERT: u64 = pack(b"alert");
    const EMERG: u64 = pack(b"emerg");
    const ERROR: u64 = pack(b"error");
    const ERRO: u64 = pack(b"erro");
    const EROR: u64 = pack(b"eror");
    const ERR: u64 = pack(b"err");
    const SEVERE: u64 = pack(b"severe");
    const FAIL: u64 = pack(b"fail");
    const FAILED: u64 = pack(b"failed");
    const FAILURE: u64 = pack(b"failure");
    const WARNING: u64 = pack(b"warning");
    const WARN: u64 = pack(b"warn");
    const WRN: u64 = pack(b"wrn");
    const NOTICE: u64 = pack(b"notice");
    const INFO: u64 = pack(b"info");
    const INF: u64 = pack(b"inf");
    const NORMAL: u64 = pack(b"normal");
    const DEBUG: u64 = pack(b"debug");
    const DEBU: u64 = pack(b"debu");
    const DBUG: u64 = pack(b"dbug");
    const DBG: u64 = pack(b"dbg");
    const FINE: u64 = pack(b"fine");
    const TRACE: u64 = pack(b"trace");
    const TRAC: u64 = pack(b"trac");
    const TRC: u64 = pack(b"trc");
    const VERBOSE: u64 = pack(b"verbose");
    const FINER: u64 = pack(b"finer");
    const FINEST: u64 = pack(b"finest");
    Some(match key {
        FATAL | PANIC | CRITICAL | CRIT | ALERT | EMERG => (Level::Fatal, Form::Full),
        FATA | FTL | PANI | PNC | CRT => (Level::Fatal, Form::Abbrev),
        ERROR | SEVERE => (Level::Error, Form::Full),
        ERRO | EROR | ERR => (Level::Error, Form::Abbrev),
        FAIL | FAILED | FAILURE => (Level::Error, Form::Outcome),
        WARNING | WARN => (Level::Warning, Form::Full),
        WRN => (Level::Warning, Form::Abbrev),
        NOTICE => (Level::Notice, Form::Full),
        INFO => (Level::Info, Form::Full),
        INF => (Level::Info, Form::Abbrev),
        NORMAL => (Level::Info, Form::Column),
        DEBUG => (Level::Debug, Form::Full),
        DEBU | DBUG | DBG | FINE => (Level::Debug, Form::Abbrev),
        TRACE | VERBOSE => (Level::Trace, Form::Full),
        TRAC | TRC | FINER | FINEST => (Level::Trace, Form::Abbrev),
        _ => return None,
    })
}

/// Keys whose value is a level.
fn is_level_key(key: u64) -> bool {
    const LEVEL: u64 = pack(b"level");
    const LVL: u64 = pack(b"lvl");
    const SEVERITY: u64 = pack(b"severity");
    const LOGLEVEL: u64 = pack(b"loglevel");
    const PRIORITY: u64 = pack(b"priority");
    matches!(key, LEVEL | LVL | SEVERITY | LOGLEVEL | PRIORITY)
}

/// Syslog facilities, as `facility.level` prints them.
fn is_facility(word: &[u8]) -> bool {
    const FACILITIES: [&[u8]; 14] = [
        b"kern",
        b"user",
        b"mail",
        b"daemon",
        b"auth",
        b"syslog",
        b"lpr",
        b"news",
        b"uucp",
        b"cron",
        b"authpriv",
        b"ftp",
        b"security",
        b"console",
    ];
    FACILITIES.contains(&word)
        || (word.len() == 6 && word.starts_with(b"local") && word[5].is_ascii_digit())
}

/// A single-letter level (logcat, klog, `[E]`).
fn letter_level(b: u8) -> Option<Level> {
    Some(match b {
        b'F' | b'A' => Level::Fatal,
        b'E' => Level::Error,
        b'W' => Level::Warning,
        b'I' => Level::Info,
        b'D' => Level::Debug,
        b'V' => Level::Trace,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------------
// The classifier

/// Classifies one line (without its newline).
pub fn classify(line: &[u8]) -> LineClass {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut class = classify_level(line);
    if class.level == Some(Level::Fatal) {
        class.grade = fatal_grade(line, &class);
    }
    class
}

fn classify_level(line: &[u8]) -> LineClass {
    let Some(&first) = line.first() else {
        return LineClass::NONE;
    };
    if let Some(class) = line_start(line, first) {
        return class;
    }
    let class = if first == b'{' {
        json_level(line)
    } else if let Some(class) = after_timestamp(line) {
        class
    } else if let Some(class) = super::report::linter_row(line, 0) {
        class
    } else {
        scan_words(line)
    };
    refine(line, class)
}

/// Orders the fatal levels: syslog's emerg (0) above alert (1) above crit (2), and a panic above
/// FATAL (PostgreSQL's PANIC stops the whole server, its FATAL one session).
fn fatal_grade(line: &[u8], class: &LineClass) -> u8 {
    const EMERG: u8 = 4;
    const ALERT: u8 = 3;
    const PANIC: u8 = 2;
    let span = line
        .get(class.start as usize..class.end as usize)
        .unwrap_or_default();
    // A syslog priority, as `<0>` or the value of a `PRIORITY` key: the level is its low bits.
    let digits: Vec<u8> = span
        .iter()
        .rev()
        .skip_while(|b| !b.is_ascii_digit())
        .take_while(|b| b.is_ascii_digit())
        .copied()
        .collect();
    let syslog = matches!(class.how, How::SyslogPriority)
        || (matches!(class.how, How::JsonKey | How::KeyValue) && digits.len() == 1);
    if syslog && !digits.is_empty() {
        let value = digits
            .iter()
            .rev()
            .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
        return match value & 7 {
            0 => EMERG,
            1 => ALERT,
            _ => 0,
        };
    }
    let has = |word: &[u8]| {
        span.windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word))
    };
    if has(b"emerg") {
        EMERG
    } else if has(b"alert") {
        ALERT
    } else if has(b"pani") || has(b"pnc") || class.kind == LineKind::Panic {
        PANIC
    } else {
        0
    }
}

/// Bytes of the timestamps and separators that start most log lines (`2026-11-21T10:00:01.123Z `,
/// `[2026-11-21 10:00:01,123] `, `2026/11/21 10:00:01 `).
static STAMP: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"0123456789-:.,/+ \t[]TZ";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Bytes equal to `byte`, as the high bit of each byte of the result (exact: no borrow between
/// bytes).
#[inline]
fn swar_eq(word: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let v = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !(((v & LOW7) + LOW7) | v | LOW7)
}

/// The first `byte` in a short haystack: eight bytes at a time, without a call per line.
#[inline]
fn find_byte(haystack: &[u8], byte: u8) -> Option<usize> {
    let mut chunks = haystack.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let found = swar_eq(u64::from_le_bytes(word), byte);
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == byte)
        .map(|p| at + p)
}

/// Length of the run of timestamp bytes ([`STAMP`]) that starts `line`, within its first 64 bytes:
/// eight bytes at a time, since every line of most logs starts with one.
#[inline]
fn stamp_len(line: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let end = line.len().min(64);
    let mut i = 0;
    while i + 8 <= end {
        let mut word = [0u8; 8];
        word.copy_from_slice(&line[i..i + 8]);
        let x = u64::from_le_bytes(word);
        // `+` … `:` (0x2B–0x3A: `+,-./`, digits, `:`) for ASCII bytes.
        let ascii = !x & HIGH;
        let at_least = x.wrapping_add((0x80 - 0x2b) * ONES) & HIGH;
        let above = (x & !HIGH).wrapping_add((0x7f - 0x3a) * ONES) & HIGH;
        let range = at_least & !above & ascii;
        let stamp = range
            | swar_eq(x, b' ')
            | swar_eq(x, b'\t')
            | swar_eq(x, b'[')
            | swar_eq(x, b']')
            | swar_eq(x, b'T')
            | swar_eq(x, b'Z');
        let other = !stamp & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + line[i..end]
        .iter()
        .position(|&b| !STAMP[b as usize])
        .unwrap_or(end - i)
}

/// The common case, fast: an upper-case level word right after a timestamp (`… INFO …`). `None`
/// sends the line to the full word scan, which would find the same word first.
#[inline]
fn after_timestamp(line: &[u8]) -> Option<LineClass> {
    // `T` and `Z` count as timestamp bytes wherever they are, so a line whose level starts with
    // T (`TRACE`) after a space goes to the full scan.
    let start = stamp_len(line);
    let mut i = start;
    while i < line.len() && i - start < 9 && line[i].is_ascii_uppercase() {
        i += 1;
    }
    let len = i - start;
    if !(3..=8).contains(&len) {
        return None;
    }
    let next = line.get(i).copied().unwrap_or(0);
    if is(next, WORD) || next == b'=' || next == b'(' || next == b'.' {
        return None;
    }
    if start > 0 && line[start - 1] == b':' {
        // `::ERROR` is a path in code, `x:ERROR` something else: leave it to the full scan.
        return None;
    }
    if start == 0 && names_a_value(line, i) {
        // `ERROR: 0`, `FAILED 0` with no stamp before: a count, which the full scan passes over.
        return None;
    }
    match vocabulary(pack_at(line, start, i - start))? {
        (level, Form::Full | Form::Abbrev)
            if start > 0 && line[start - 1] == b'[' && next == b']' =>
        {
            Some(LineClass::new(
                level,
                LineKind::Plain,
                How::Bracket,
                start - 1,
                i + 1,
            ))
        }
        (level, Form::Full | Form::Abbrev) => {
            Some(LineClass::new(level, LineKind::Plain, How::Upper, start, i))
        }
        (_, Form::Outcome | Form::Column) => None,
    }
}

/// Conventions decided by how the line starts.
fn line_start(line: &[u8], first: u8) -> Option<LineClass> {
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
            count_summary(line).or_else(|| super::report::package_plan(line))
        }
        b'T' if line.starts_with(b"The following ") => super::report::package_plan(line),
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

/// TAP's `not ok 3 - name` at `at`: a failed test, unless its directive says the failure is
/// expected (`# TODO`) or the test did not run (`# SKIP`).
fn tap_not_ok(line: &[u8], at: usize) -> LineClass {
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
fn tap_count(line: &[u8], word: usize) -> LineClass {
    let failed = line[word..].starts_with(b"fail ")
        && line[word + 5..]
            .iter()
            .any(|&b| b.is_ascii_digit() && b != b'0');
    let level = if failed { Level::Error } else { Level::Info };
    // The search finds every count of failures: `# fail 0` too, which a reader can tell apart.
    LineClass::new(level, LineKind::Summary, How::Phrase, 0, word + 5)
}

/// Lines that start with a box-drawing or mark character (multi-byte UTF-8, all `0xE2 …`):
/// Terraform's diagnostic boxes (`│ Error: …`) and node:test's marks (`✖ name`, `ℹ fail 2`).
fn boxed(line: &[u8]) -> Option<LineClass> {
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

impl LineClass {
    fn with_level(mut self, level: Level) -> LineClass {
        self.level = Some(level);
        self
    }
}

/// A summary line: error when it counts failures (`1 failed`, `Failures: 2`) or contains
/// `failed_word` (`BUILD FAILED`, `test result: FAILED.`), else info.
fn summary(line: &[u8], failed_word: &[u8]) -> LineClass {
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
fn pytest_summary(line: &[u8]) -> bool {
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
fn surefire_summary(line: &[u8], from: usize) -> LineClass {
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
fn count_summary(line: &[u8]) -> Option<LineClass> {
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

/// Lines that start with white space: stack frames, test runners' marks and summaries.
fn indented(line: &[u8]) -> Option<LineClass> {
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
        && let Some(class) = super::report::linter_row(line, indent)
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

/// The level of a JSON line from its level key, wherever it is in the line.
fn json_level(line: &[u8]) -> LineClass {
    let prefix = &line[..line.len().min(PREFIX_BYTES)];
    let found = scan_json_keys(prefix, 0);
    if found.level.is_some() || line.len() <= PREFIX_BYTES {
        return found;
    }
    // A level key past the prefix: look for its quoted name.
    for key in [
        &b"\"level\""[..],
        b"\"severity\"",
        b"\"PRIORITY\"",
        b"\"lvl\"",
    ] {
        if let Some(at) = memchr::memmem::find(&line[PREFIX_BYTES..], key) {
            let start = PREFIX_BYTES + at;
            let end = line.len().min(start + 64);
            let class = scan_json_keys(&line[..end], start);
            if class.level.is_some() {
                return class;
            }
        }
    }
    LineClass::NONE
}

/// Only level keys count in a JSON line: its messages may say anything.
fn scan_json_keys(line: &[u8], from: usize) -> LineClass {
    let mut i = from;
    while let Some(q) = memchr::memchr(b'"', &line[i..]) {
        let key_start = i + q + 1;
        let key_len = line[key_start..]
            .iter()
            .take_while(|&&b| is(b, WORD) || b == b'.' || b == b'@')
            .count();
        let key_end = key_start + key_len;
        if line.get(key_end) == Some(&b'"') {
            // Match the last dotted part: `log.level`.
            let name = &line[key_start..key_end];
            let name = match name.iter().rposition(|&b| b == b'.') {
                Some(dot) => &name[dot + 1..],
                None => name,
            };
            if name.len() <= 8
                && is_level_key(pack_runtime(name))
                && let Some(class) = key_value(line, key_start - 1, key_end + 1, name, true)
            {
                return class;
            }
            i = key_end + 1;
        } else {
            i = key_start;
        }
    }
    LineClass::NONE
}

/// The level in `"key": value` or `key=value`; `after_key` is just past the key (and its quote).
fn key_value(
    line: &[u8],
    span_start: usize,
    after_key: usize,
    key: &[u8],
    json: bool,
) -> Option<LineClass> {
    let mut j = after_key;
    if json {
        while line.get(j).is_some_and(|&b| is(b, SPACE)) {
            j += 1;
        }
        if line.get(j) != Some(&b':') {
            return None;
        }
        j += 1;
        while line.get(j).is_some_and(|&b| is(b, SPACE)) {
            j += 1;
        }
    } else if line.get(j) != Some(&b'=') {
        return None;
    } else {
        j += 1;
    }
    let quoted = line.get(j) == Some(&b'"');
    if quoted {
        j += 1;
    }
    let value_start = j;
    let value_len = line[j..].iter().take_while(|&&b| is(b, WORD)).count();
    if value_len == 0 {
        return None;
    }
    let value = &line[value_start..value_start + value_len];
    let mut end = value_start + value_len;
    if quoted {
        if line.get(end) != Some(&b'"') {
            return None;
        }
        end += 1;
    }
    let level = if value.iter().all(u8::is_ascii_digit) {
        let n: u32 = value
            .iter()
            .take(4)
            .fold(0, |acc, d| acc * 10 + u32::from(d - b'0'));
        if pack_runtime(key) == pack(b"priority") || n <= 7 {
            Level::from_syslog(n.min(7) as u8)
        } else {
            Level::from_bunyan(n)
        }
    } else if value.len() == 1 {
        letter_level(value[0].to_ascii_uppercase())?
    } else if value.len() <= 8 {
        match vocabulary(pack_runtime(value))? {
            (_, Form::Column) => return None,
            (level, _) => level,
        }
    } else {
        return None;
    };
    let how = if json { How::JsonKey } else { How::KeyValue };
    Some(LineClass::new(level, LineKind::Plain, how, span_start, end))
}

/// The word scan over the line's prefix: the first level found in a level position.
fn scan_words(line: &[u8]) -> LineClass {
    let end = line.len().min(PREFIX_BYTES);
    let mut i = 0;
    // The last byte before the current word that was not white space, and whether white space
    // came after it: a label sits after `: ` or `] `.
    let mut last_mark = 0u8;
    let mut spaced = true;
    while i < end {
        let b = line[i];
        let class = CLASS[b as usize];
        if class & ALPHA != 0 {
            let start = i;
            i += 1;
            // Digits or `_` in the word: not a level word (but maybe an exception's name).
            let mut mixed = false;
            while i < end {
                let c = CLASS[line[i] as usize];
                if c & WORD == 0 {
                    break;
                }
                mixed |= c & ALPHA == 0;
                i += 1;
            }
            if let Some(found) = check_word(line, start, i, mixed, last_mark, spaced) {
                return found;
            }
            last_mark = line[i - 1];
            spaced = false;
            continue;
        }
        if class & DIGIT != 0 {
            // Numbers, timestamps, hex: skip the whole run.
            i += 1;
            while i < end && is(line[i], WORD) {
                i += 1;
            }
            last_mark = b'0';
            spaced = false;
            continue;
        }
        if b == 0x1b {
            // An ANSI colour sequence: skip `ESC [ … letter`.
            i += 1;
            if line.get(i) == Some(&b'[') {
                i += 1;
                while i < end && !line[i].is_ascii_alphabetic() {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        if class & SPACE != 0 {
            spaced = true;
        } else {
            last_mark = b;
            spaced = false;
        }
        i += 1;
    }
    LineClass::NONE
}

/// Decides whether the word `line[start..end]` is a level where it stands.
#[inline]
fn check_word(
    line: &[u8],
    start: usize,
    end: usize,
    mixed: bool,
    last_mark: u8,
    spaced: bool,
) -> Option<LineClass> {
    let len = end - start;
    let word = &line[start..end];
    let prev = if start > 0 { line[start - 1] } else { 0 };
    let next = line.get(end).copied().unwrap_or(0);
    if len > 8 {
        return if next == b':' || next == 0 {
            exception_name(line, start, end)
        } else {
            None
        };
    }
    if len == 1 {
        return letter(line, start, prev, next);
    }
    if mixed {
        return None;
    }
    let key = pack_at(line, start, len);
    if is_level_key(key) && (next == b'=' || next == b'"') {
        if next == b'=' {
            return key_value(line, start, end, word, false);
        }
        if prev == b'"' {
            return key_value(line, start - 1, end + 1, word, true);
        }
        return None;
    }
    let Some((level, form)) = vocabulary(key) else {
        return if next == b':' || next == 0 {
            exception_name(line, start, end)
        } else {
            None
        };
    };
    if prev == b'.' && form != Form::Outcome && form != Form::Column {
        // Syslog's `facility.level`: `kern.err`, `daemon.warning`, `local3.info`.
        let facility = line[..start - 1]
            .iter()
            .rev()
            .take_while(|&&b| is(b, WORD))
            .count();
        let from = start - 1 - facility;
        return is_facility(&line[from..start - 1])
            .then(|| LineClass::new(level, LineKind::Plain, How::Facility, from, end));
    }
    let upper = word.iter().all(|&b| is(b, UPPER));
    // Brackets: `[error]`, `<WARN>`, `(info)`, Apache's `[core:error]`.
    let closing = match prev {
        b'[' => b']',
        b'<' => b'>',
        b'(' => b')',
        b':' => b']',
        _ => 0,
    };
    // `Box<Error>`, `Vec<Info>`: a type argument, not a level; `compute(err)`, `derive(Error)`,
    // `levels[warn]`: an argument or an index.
    let generic = matches!(prev, b'<' | b'(' | b'[') && follows_word(line, start - 1);
    if closing != 0 && next == closing && form != Form::Column && form != Form::Outcome && !generic
    {
        let open = if prev == b':' {
            module_bracket(line, start - 1)?
        } else {
            start - 1
        };
        return Some(LineClass::new(
            level,
            LineKind::Plain,
            How::Bracket,
            open,
            end + 1,
        ));
    }
    // `fatal error:` in any case (gcc, Go's runtime, PHP's `Fatal error:`).
    if level == Level::Fatal
        && line[end..].len() > 6
        && line[end] == b' '
        && line[end + 1..end + 6].eq_ignore_ascii_case(b"error")
        && matches!(line.get(end + 6), Some(b':' | b' '))
    {
        return Some(LineClass::new(
            level,
            LineKind::Plain,
            How::FatalError,
            start,
            end + 6,
        ));
    }
    if upper && len >= 3 {
        let boundary_before = start == 0
            || !(is(prev, WORD) || prev == b'.' || prev == b'$' || prev == b'@')
                && !(prev == b':' && start >= 2 && line[start - 2] == b':');
        // Not `ERROR_CODE`, `DEBUG=1`, `INFO(`, `Level.ERROR.name`.
        let dotted = next == b'.' && line.get(end + 1).is_some_and(|&b| is(b, ALPHA));
        let boundary_after = !(is(next, WORD) || next == b'=' || next == b'(' || dotted);
        let ansi = prev == b'm' && start >= 2 && memchr::memchr(0x1b, &line[..start]).is_some();
        if (boundary_before || ansi)
            && boundary_after
            && form != Form::Column
            && !quoted_in_prose(line, start)
            && !names_a_value(line, end)
        {
            let kind = if form == Form::Outcome {
                LineKind::TestFailure
            } else {
                LineKind::Plain
            };
            return Some(LineClass::new(level, kind, How::Upper, start, end));
        }
        return None;
    }
    match form {
        Form::Full
            if is_label(line, end, next)
                && label_position(start, last_mark, spaced)
                && !names_a_value(line, end) =>
        {
            Some(LineClass::new(
                level,
                LineKind::Plain,
                How::Label,
                start,
                end,
            ))
        }
        Form::Full | Form::Column
            if is(word[0], UPPER)
                && word[1..].iter().all(|&b| !is(b, UPPER))
                && (start == 0 || is(prev, SPACE))
                && (next == b'\t' || line[end..].starts_with(b"  "))
                && matches!(level, Level::Warning | Level::Error | Level::Info) =>
        {
            // A column: `Warning   BackOff   pod/api-1   Back-off restarting failed container`.
            Some(LineClass::new(
                level,
                LineKind::Plain,
                How::Column,
                start,
                end,
            ))
        }
        _ => None,
    }
}

/// `word:` (not `word::`), `word[E0308]:`, `word TS2322:`: the shapes of a label after a level word.
fn is_label(line: &[u8], end: usize, next: u8) -> bool {
    match next {
        b':' => line.get(end + 1).is_none_or(|&b| b != b':'),
        b'[' => {
            let Some(close) = memchr::memchr(b']', &line[end..line.len().min(end + 32)]) else {
                return false;
            };
            line.get(end + close + 1) == Some(&b':')
        }
        b' ' => {
            // `error TS2322:`, `error CS0103:`, `warning C4996:`.
            let code = &line[end + 1..line.len().min(end + 16)];
            let letters = code.iter().take_while(|&&b| is(b, UPPER)).count();
            let digits = code[letters..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            letters > 0 && digits > 0 && code.get(letters + digits) == Some(&b':')
        }
        _ => false,
    }
}

/// A label counts at the start of a line, or after a prefix that ends in `:`, `]`, `>` or ` -`.
fn label_position(start: usize, last_mark: u8, spaced: bool) -> bool {
    start == 0 || (spaced && matches!(last_mark, b':' | b']' | b'>' | b'-'))
}

/// Apache 2.4's `[module:level]`: the opening bracket, if `line[..colon]` ends with `[module`.
fn module_bracket(line: &[u8], colon: usize) -> Option<usize> {
    let module = line[..colon]
        .iter()
        .rev()
        .take_while(|&&b| is(b, WORD))
        .count();
    let open = colon.checked_sub(module + 1)?;
    (module > 0 && line[open] == b'[').then_some(open)
}

/// True when the byte before `line[at]` ends an identifier or a path (`Vec<`, `arr[`, `::<`).
fn follows_word(line: &[u8], at: usize) -> bool {
    at.checked_sub(1)
        .is_some_and(|p| is(line[p], WORD) || line[p] == b':')
}

/// Single letters: logcat (`E/Tag`, `1234  1245 E Tag`) and `[E]`.
fn letter(line: &[u8], start: usize, prev: u8, next: u8) -> Option<LineClass> {
    let level = letter_level(line[start])?;
    // Logcat's `E/Tag` starts the line or follows its timestamp; elsewhere `I/O` is a word.
    if next == b'/' && (start == 0 || prev == b' ') && stamp_len(line) >= start {
        let tag = line.get(start + 2).copied().unwrap_or(0);
        if is(tag, WORD) || tag == b'.' {
            return Some(LineClass::new(
                level,
                LineKind::Plain,
                How::LogcatBrief,
                start,
                start + 1,
            ));
        }
    }
    if prev == b' ' && next == b' ' && start >= 2 {
        // Threadtime: the letter follows the thread id.
        let before = line[..start - 1]
            .iter()
            .rev()
            .find(|&&b| b != b' ')
            .copied()
            .unwrap_or(0);
        if before.is_ascii_digit() {
            return Some(LineClass::new(
                level,
                LineKind::Plain,
                How::LogcatThreadtime,
                start,
                start + 1,
            ));
        }
    }
    // `[E]` after a word is an index (`arr[E]`); `<E>` counts only where a log line puts its level,
    // first or right after the timestamp: elsewhere it is a type parameter (`Vec<E>`, `fn f<E>`).
    let bracketed = (prev == b'[' && next == b']' && !follows_word(line, start - 1))
        || (prev == b'<' && next == b'>' && stamp_len(line) == start - 1);
    if bracketed {
        return Some(LineClass::new(
            level,
            LineKind::Plain,
            How::Bracket,
            start - 1,
            start + 2,
        ));
    }
    None
}

/// An exception class used as a label (`ValueError: …`, `java.lang.IllegalStateException: …`,
/// `file.py:3: DeprecationWarning: …`) or alone at the start of a line.
fn exception_name(line: &[u8], start: usize, end: usize) -> Option<LineClass> {
    let word = &line[start..end];
    let level = if word.ends_with(b"Error") || word.ends_with(b"Exception") {
        Level::Error
    } else if word.ends_with(b"Warning") {
        Level::Warning
    } else {
        return None;
    };
    let next = line.get(end).copied();
    let labelled = match next {
        None => true,
        Some(b':') => line.get(end + 1).is_none_or(|&b| b != b':'),
        _ => false,
    };
    if !labelled {
        return None;
    }
    // The dotted name this word ends: `java.lang.IllegalStateException`.
    let name_start = start
        - line[..start]
            .iter()
            .rev()
            .take_while(|&&b| is(b, WORD) || b == b'.' || b == b'$')
            .count();
    let before = &line[..name_start];
    let at_start = before.is_empty();
    let after_prefix = before.ends_with(b": ") || before.ends_with(b"] ");
    if !(at_start || after_prefix) {
        return None;
    }
    let kind = if at_start {
        LineKind::Exception
    } else {
        LineKind::Plain
    };
    Some(LineClass::new(level, kind, How::Exception, name_start, end))
}

/// Adjusts the word scan's verdict with what only the whole line shows.
fn refine(line: &[u8], mut class: LineClass) -> LineClass {
    // `error[E0308]: …` / `warning: …` at the start of a line: the location follows.
    if class.how == How::Label && class.start == 0 {
        class.kind = LineKind::Diagnostic;
    }
    // Maven: `[ERROR] Tests run: 1, Failures: 1, …` after the level prefix.
    if line.first() == Some(&b'[')
        && let Some(close) = memchr::memchr(b']', &line[..line.len().min(12)])
        && line[close + 1..].starts_with(b" Tests run: ")
    {
        let summary = surefire_summary(line, close + 2);
        return LineClass {
            level: class.level.max(summary.level),
            ..summary
        };
    }
    let level = class.level;
    if level.is_none_or(|l| l < Level::Warning) {
        // An outcome word overrides a lower declared level: `INFO step 200 FAILED`,
        // `[INFO] BUILD FAILURE`.
        // A declared level comes before its message: search from where it ends.
        let from = if level.is_some() {
            class.end as usize
        } else {
            0
        };
        if let Some(found) = outcome_word(line, from) {
            return found;
        }
        if level.is_none()
            && let Some(found) = http_status(line).or_else(|| failure_phrase(line))
        {
            return found;
        }
    }
    class
}

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
fn failure_phrase(line: &[u8]) -> Option<LineClass> {
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
fn outcome_word(line: &[u8], from: usize) -> Option<LineClass> {
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
fn quoted_in_prose(line: &[u8], at: usize) -> bool {
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
fn names_a_value(line: &[u8], end: usize) -> bool {
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
fn http_status(line: &[u8]) -> Option<LineClass> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn level(line: &str) -> Option<Level> {
        classify(line.as_bytes()).level
    }

    fn kind(line: &str) -> LineKind {
        classify(line.as_bytes()).kind
    }

    #[test]
    fn failure_phrases_in_lines_without_a_level() {
        use Level::*;
        let cases: &[(&str, Option<Level>)] = &[
            (
                "2026-11-24T23:00:50.1+00:00 vm kernel: Out of memory: Killed process 4242 (java)",
                Some(Fatal),
            ),
            (
                "2026-11-24T23:00:50.1+00:00 vm nginx: upstream timed out (110: Connection timed out)",
                Some(Error),
            ),
            (
                "Nov 24 23:00:50 vm sshd[812]: Failed password for invalid user admin from 10.0.0.7",
                Some(Error),
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: Failed to start nginx.service - A high performance web server.",
                Some(Error),
            ),
            // A declared level wins over the words of the message.
            (
                "2026-11-24 INFO retry 2 after the call timed out",
                Some(Info),
            ),
            // Whole words only, and no failure said.
            ("Nov 24 23:00:50 vm app: timed_out_requests=0", None),
            ("Nov 24 23:00:50 vm app: request 12 served in 4 ms", None),
        ];
        for (line, want) in cases {
            assert_eq!(level(line), *want, "{line}");
        }
    }

    /// Regression: progress lines of training and data tools (`step 3 processed, error: 0`,
    /// `loss: 0.3 - error: 0.1`, `FAILED: 0`) were counted as errors and warnings.
    #[test]
    fn zero_counts_and_metrics_are_not_events() {
        use Level::*;
        let quiet = [
            "step 3 processed",
            "epoch 2 processed",
            "processed 120 errors_total=0",
            "errors: 0",
            "no errors found",
            "error_rate=0.00",
            "error: 0",
            "Error: 0",
            "ERROR: 0",
            "ERROR 0",
            "warning: 0",
            "FAILED: 0",
            "FAILED 0",
            "FAIL: 0",
            "Error: none",
            "ERROR: None",
            "step 3 processed, error: 0",
            "step 3 processed: error: 0.12",
            "step 3 processed | ERRORS 0 | WARN 0",
            "loss: 0.3 - error: 0.1 - val_error: 0.2",
            "Epoch 3/10 - loss: 0.2913 - error: 0.0841 - val_loss: 0.3120",
            "eval: error: 23.4% top5: 6.1%",
            "step 200: ERROR=0.031 loss=0.2",
            "[train] step 3 processed, error: 0.000, lr: 0.001",
            "INFO step 3 processed, FAILED: 0",
        ];
        for line in quiet {
            assert!(
                level(line).is_none_or(|l| l < Warning),
                "{line}: {:?}",
                level(line)
            );
        }
        // A count says nothing when it is zero; a failure that happens to start with a number, a
        // declared level after a stamp and a version or an address after the word stay events.
        let events: &[(&str, Level)] = &[
            (
                "ERROR 1045 (28000): Access denied for user 'root'@'localhost'",
                Error,
            ),
            ("Error: 0 of 3 replicas are ready", Error),
            ("Error: None of the hosts answered", Error),
            ("error: 1.2.3 is not a valid version", Error),
            ("ERROR: 0x80004005 unspecified failure", Error),
            ("2026-11-26T10:00:01Z ERROR 0", Error),
            ("error: 2 errors in 1 file", Error),
            ("FAILED tests/test_io.py::test_read - assert 0 == 1", Error),
            ("--- FAIL: TestParse (0.00s)", Error),
            ("warning: unused variable `x`", Warning),
        ];
        for (line, want) in events {
            assert_eq!(level(line), Some(*want), "{line}");
        }
    }

    #[test]
    fn level_words_in_level_positions() {
        use Level::*;
        let cases: &[(&str, Option<Level>)] = &[
            (
                "2026-11-21T10:00:01Z INFO worker 1: processed batch ok",
                Some(Info),
            ),
            (
                "2026-11-21T10:00:01Z ERROR worker 1: connection reset",
                Some(Error),
            ),
            (
                "2026-11-21 10:00:01,123 - app.db - WARNING - slow",
                Some(Warning),
            ),
            ("WARNING:root:disk almost full", Some(Warning)),
            ("CRITICAL:root:out of memory", Some(Fatal)),
            ("10:00:01.123 [main] ERROR c.e.Foo - boom", Some(Error)),
            (
                "2026/11/21 10:00:01 [error] 1234#1234: *5 open() failed",
                Some(Error),
            ),
            (
                "2026/11/21 10:00:01 [warn] 1234#1234: conflicting server name",
                Some(Warning),
            ),
            (
                "[Sat Nov 21 10:00:01.1 2026] [core:error] [pid 1:tid 2] AH00126: Invalid URI",
                Some(Error),
            ),
            (
                "[Sat Nov 21 10:00:01 2026] [notice] Apache configured",
                Some(Notice),
            ),
            (
                "ts=2026-11-21T10:00:01Z level=error msg=\"ERROR-free\"",
                Some(Error),
            ),
            (
                "t=2026-11-21T10:00:01+0000 lvl=eror msg=\"db down\"",
                Some(Error),
            ),
            ("time=\"2026\" level=warning msg=x", Some(Warning)),
            ("{\"level\":\"error\",\"msg\":\"INFO only\"}", Some(Error)),
            (
                "{\"ts\":1,\"severity\":\"WARNING\",\"message\":\"ERROR\"}",
                Some(Warning),
            ),
            ("{\"name\":\"api\",\"level\":50,\"msg\":\"x\"}", Some(Error)),
            ("{\"PRIORITY\":\"2\",\"MESSAGE\":\"x\"}", Some(Fatal)),
            (
                "{\"log.level\": \"info\", \"message\": \"error happened\"}",
                Some(Info),
            ),
            ("{\"msg\":\"ERROR everywhere\"}", None),
            ("<3>Nov 21 10:00:01 host app: x", Some(Error)),
            (
                "<165>1 2026-11-21T10:00:01Z host app - ID47 - msg",
                Some(Notice),
            ),
            ("Nov 21 10:00:01 host kern.err kernel: x", Some(Error)),
            (
                "Nov 21 10:00:01 host sshd[123]: error: kex_exchange_identification",
                Some(Error),
            ),
            (
                "E/AndroidRuntime( 1234): FATAL EXCEPTION: main",
                Some(Error),
            ),
            ("W/ActivityManager(  500): Exception thrown", Some(Warning)),
            (
                "11-21 10:00:01.123  1234  1245 E AndroidRuntime: Process crashed",
                Some(Error),
            ),
            (
                "11-21 10:00:01.123  1234  1245 W System.err: java.lang.Exception",
                Some(Warning),
            ),
            ("11-21 10:00:01.123 E/Tag( 1234): boom", Some(Error)),
            (
                "E1121 10:00:01.123456       1 controller.go:123] sync failed",
                Some(Error),
            ),
            (
                "I1121 10:00:01.123456       1 controller.go:123] synced",
                Some(Info),
            ),
            (
                "5m          Warning   BackOff   pod/api-1   Back-off restarting",
                Some(Warning),
            ),
            (
                "5m          Normal    Pulled    pod/api-1   Container image pulled",
                Some(Info),
            ),
            ("error[E0308]: mismatched types", Some(Error)),
            (
                "error: could not compile `foo` (bin \"foo\") due to 2 previous errors",
                Some(Error),
            ),
            ("warning: unused variable: `x`", Some(Warning)),
            ("src/x.rs:12:5: error: boom", Some(Error)),
            (
                "foo.c:3:1: error: expected ';' before '}' token",
                Some(Error),
            ),
            ("foo.c:3:1: warning: unused variable 'x'", Some(Warning)),
            (
                "foo.c:1:10: fatal error: bar.h: No such file or directory",
                Some(Fatal),
            ),
            (
                "src/a.ts(3,5): error TS2322: Type 'string' is not assignable",
                Some(Error),
            ),
            (
                "src/a.ts:3:5 - error TS2322: Type 'string' is not assignable",
                Some(Error),
            ),
            ("Foo.java:12: error: cannot find symbol", Some(Error)),
            ("thread 'main' panicked at src/main.rs:2:5:", Some(Fatal)),
            (
                "panic: runtime error: index out of range [5] with length 3",
                Some(Fatal),
            ),
            (
                "fatal error: all goroutines are asleep - deadlock!",
                Some(Fatal),
            ),
            ("PHP Fatal error:  Uncaught Exception: boom", Some(Fatal)),
            (
                "ValueError: invalid literal for int() with base 10: 'x'",
                Some(Error),
            ),
            ("java.lang.IllegalStateException: boom", Some(Error)),
            (
                "Exception in thread \"main\" java.lang.RuntimeException: x",
                Some(Error),
            ),
            ("/app/x.py:3: DeprecationWarning: use y", Some(Warning)),
            ("npm ERR! code E404", Some(Error)),
            ("10:00AM WRN slow request", Some(Warning)),
            ("ERRO[0000] cannot connect", Some(Error)),
            ("\x1b[31mERROR\x1b[0m boom", Some(Error)),
            (
                "2026-11-21T10:00:01Z INFO step 200 FAILED: assertion failed",
                Some(Error),
            ),
            ("[INFO] BUILD FAILURE", Some(Error)),
            (
                "1.2.3.4 - - [21/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 503 12 \"-\" \"curl\"",
                Some(Error),
            ),
            (
                "1.2.3.4 - - [21/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"curl\"",
                Some(Info),
            ),
            ("E       assert 1 == 2", Some(Error)),
            ("SEVERE: Servlet.service() threw exception", Some(Error)),
            ("E: Unable to locate package libfoo-dev", Some(Error)),
            ("W: Some index files failed to download.", Some(Warning)),
        ];
        for (line, want) in cases {
            assert_eq!(level(line), *want, "{line}");
        }
    }

    #[test]
    fn words_that_are_not_levels() {
        for line in [
            "metrics: error_count=0 warn_count=2",
            "registered ErrorHandler for /api",
            "build finished with no errors",
            "errors: 0, warnings: 0",
            "    error: Option<String>,",
            "    Err(LedgerError::Declined { code })",
            "impl From<io::Error> for Error {",
            "use crate::error::Error::NotFound;",
            "let level = tracing::Level::ERROR;",
            "DEBUG=1 cargo run",
            "the error was handled",
            "I think a B is fine",
            "test ledger::error_paths ... ok",
            "    let x = Warning::new();",
            "export const info = 1;",
        ] {
            assert_eq!(level(line), None, "{line}");
        }
    }

    /// Regression: `<E>` was read as the error level wherever it stood, so compiler output and code
    /// full of `Vec<E>` and `Result<T, E>` turned into errors.
    #[test]
    fn type_parameters_are_not_bracketed_levels() {
        for line in [
            "pub fn map_err<F, E>(self, op: O) -> Result<T, E>",
            "impl<E> From<E> for Report where E: std::error::Error {",
            "fn f<E>(e: E) {}",
            "    let v: Vec<E> = Vec::new();",
            "   = note: expected enum `Result<T, E>`",
            "  --> src/lib.rs:3:5: HashMap<K, V> and Option<D>",
            "fn boxed() -> Box<Error> {",
            "type Events = Vec<Info>;",
            "let x = arr[E];",
            "iter::<E>()",
        ] {
            assert_eq!(level(line), None, "{line}");
        }
        use Level::*;
        for (line, want) in [
            ("<E> disk full", Error),
            ("<W> cache miss rate high", Warning),
            ("2026-11-21 10:00:01.123 <E> request failed", Error),
            ("[2026-11-21T10:00:01Z] <W> slow", Warning),
            ("2026-11-21 10:00:01 [E] boom", Error),
            ("<error> disk full", Error),
        ] {
            assert_eq!(level(line), Some(want), "{line}");
        }
    }

    /// Regression: systemd's and the kernel's ways of saying a unit or a process failed were
    /// lines without a level, so a journal's failures were not notable.
    #[test]
    fn journal_failure_phrases() {
        use Level::*;
        for (line, want) in [
            (
                "Nov 24 23:00:50 vm systemd[1]: nginx.service: Main process exited, code=exited, status=1/FAILURE",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: nginx.service: Failed with result 'exit-code'.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: Failed to start nginx.service - A high performance web server.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: Dependency failed for Remote File Systems.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: app.service: Start request repeated too quickly.",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: app.service: Main process exited, code=killed, status=9/KILL",
                Error,
            ),
            (
                "Nov 24 23:00:50 vm systemd[1]: app.service: Main process exited, code=dumped, status=11/SEGV",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: app[4242]: segfault at 0 ip 000055d0 sp 00007ffd error 4 in app[55d0+1000]",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: Out of memory: Killed process 4242 (java) total-vm:8GB",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: java invoked oom-killer: gfp_mask=0x140cca",
                Fatal,
            ),
            (
                "Nov 24 23:00:50 vm kernel: blk_update_request: I/O error, dev sda, sector 2048",
                Error,
            ),
            ("Nov 24 23:00:50 vm kernel: Call Trace:", Error),
            ("[12345.678901] kernel BUG at mm/slub.c:379!", Fatal),
        ] {
            assert_eq!(level(line), Some(want), "{line}");
        }
        for line in [
            "Nov 24 23:00:50 vm systemd[1]: nginx.service: Main process exited, code=exited, status=0/SUCCESS",
            "Nov 24 23:00:50 vm systemd[1]: Started nginx.service - A high performance web server.",
        ] {
            assert_eq!(level(line), None, "{line}");
        }
    }

    /// Regression: these formats' failures were missed or read at a lower level.
    #[test]
    fn failures_of_build_and_test_tools() {
        use Level::*;
        let cases: &[(&str, Level, LineKind)] = &[
            // ASP.NET Core's console logger.
            (
                "fail: Microsoft.AspNetCore.Server.Kestrel[13]",
                Error,
                LineKind::Plain,
            ),
            (
                "crit: Microsoft.AspNetCore.Hosting.Diagnostics[6]",
                Fatal,
                LineKind::Diagnostic,
            ),
            (
                "warn: Microsoft.AspNetCore.HttpsPolicy[3]",
                Warning,
                LineKind::Diagnostic,
            ),
            // Terraform, plain and in its box.
            ("Error: Invalid reference", Error, LineKind::Diagnostic),
            ("│ Error: Unsupported argument", Error, LineKind::Diagnostic),
            (
                "│ Warning: Deprecated attribute",
                Warning,
                LineKind::Diagnostic,
            ),
            // npm, before and since npm 10.
            ("npm ERR! code ELIFECYCLE", Error, LineKind::Plain),
            ("npm error code E404", Error, LineKind::Plain),
            (
                "npm warn deprecated inflight@1.0.6",
                Warning,
                LineKind::Plain,
            ),
            // TAP.
            (
                "not ok 3 - rejects a bad date",
                Error,
                LineKind::TestFailure,
            ),
            ("    not ok 1 - subtest", Error, LineKind::TestFailure),
            ("# fail 2", Error, LineKind::Summary),
            // node:test's spec reporter.
            ("✖ rejects a bad date (1.2ms)", Error, LineKind::TestFailure),
            ("  ✖ nested case (0.3ms)", Error, LineKind::TestFailure),
            ("ℹ fail 2", Error, LineKind::Summary),
            // mocha.
            ("  1) rejects a bad date", Error, LineKind::TestFailure),
            ("  2 failing", Error, LineKind::Summary),
        ];
        for &(line, want, want_kind) in cases {
            assert_eq!((level(line), kind(line)), (Some(want), want_kind), "{line}");
        }
        for line in [
            "# fail 0",
            "ℹ fail 0",
            "  3 passing (12ms)",
            "ok 1 - parses",
            "fail: 0",
            "not ok 4 - leap seconds # TODO not implemented",
            "not ok 5 - on windows # SKIP not windows",
        ] {
            assert!(level(line).is_none_or(|l| l < Warning), "{line}");
        }
    }

    /// Regression: syslog's emerg, alert and crit, and PostgreSQL's PANIC and FATAL, were all one
    /// fatal level, so a preview could list a crit before an emerg.
    #[test]
    fn fatal_levels_are_graded() {
        let grade = |line: &str| {
            let class = classify(line.as_bytes());
            assert_eq!(class.level, Some(Level::Fatal), "{line}");
            class.grade
        };
        let emerg = [
            "<0>Nov 24 23:00:50 vm kernel: x",
            "2026/11/21 10:00:01 [emerg] 1#1: bind() to 0.0.0.0:80 failed",
            "Nov 24 23:00:50 vm kern.emerg kernel: x",
            "{\"PRIORITY\":\"0\",\"MESSAGE\":\"x\"}",
        ];
        let alert = [
            "<1>Nov 24 23:00:50 vm kernel: x",
            "2026/11/21 10:00:01 [alert] 1#1: x",
        ];
        let crit = [
            "<2>Nov 24 23:00:50 vm kernel: x",
            "2026/11/21 10:00:01 [crit] 1#1: x",
            "CRITICAL:root:out of memory",
        ];
        let panic =
            ["2026-11-21 10:00:01.123 UTC [42] PANIC:  could not write to file \"pg_wal/x\""];
        let fatal = [
            "2026-11-21 10:00:01.123 UTC [42] FATAL:  password authentication failed for user \"app\"",
        ];
        let grades = |lines: &[&str]| lines.iter().map(|l| grade(l)).collect::<Vec<_>>();
        let (emerg, alert, crit) = (grades(&emerg), grades(&alert), grades(&crit));
        assert!(
            emerg.iter().min() > alert.iter().max(),
            "{emerg:?} {alert:?}"
        );
        assert!(alert.iter().min() > crit.iter().max(), "{alert:?} {crit:?}");
        assert!(grades(&panic)[0] > grades(&fatal)[0]);
    }

    /// rustc's own output (1.9x) about generic code: only its diagnostics carry a level.
    #[test]
    fn rustc_output_about_generics() {
        let output = "error[E0308]: mismatched types
 --> src/lib.rs:1:82
  |
1 | pub fn conv<E: std::fmt::Debug>(r: Result<u8, E>) -> Vec<E> { match r { Ok(v) => v, Err(e) => vec![e] } }
  |                                                      ------                      ^ expected `Vec<E>`, found `u8`
  |                                                      |
  |                                                      expected `Vec<E>` because of return type
  |
  = note: expected struct `Vec<E>`
               found type `u8`

error[E0308]: mismatched types
 --> src/lib.rs:2:22
  |
2 | pub fn w<W>(x: W) -> Option<W> { Some(x); }
  |        -             ^^^^^^^^^          - help: remove this semicolon to return this value
  |        |             |
  |        |             expected `Option<W>`, found `()`
  |        implicitly returns `()` as its body has no tail or `return` expression
  |
  = note:   expected enum `Option<W>`
          found unit type `()`

For more information about this error, try `rustc --explain E0308`.
error: could not compile `tinygen` (lib) due to 2 previous errors";
        let leveled: Vec<&str> = output
            .lines()
            .filter(|line| level(line).is_some())
            .collect();
        assert_eq!(
            leveled,
            [
                "error[E0308]: mismatched types",
                "error[E0308]: mismatched types",
                "error: could not compile `tinygen` (lib) due to 2 previous errors",
            ]
        );
    }

    #[test]
    fn kinds() {
        assert_eq!(
            kind("test ledger::settles ... FAILED"),
            LineKind::TestFailure
        );
        assert_eq!(kind("--- FAIL: TestAdd (0.00s)"), LineKind::TestFailure);
        assert_eq!(
            kind("FAILED tests/test_x.py::test_y - assert 1 == 2"),
            LineKind::TestFailure
        );
        assert_eq!(kind("  ● Calculator › adds numbers"), LineKind::TestFailure);
        assert_eq!(kind("    ✕ adds numbers (5 ms)"), LineKind::TestFailure);
        assert_eq!(
            kind("        FAIL [   0.004s] crate::tests::name"),
            LineKind::TestFailure
        );
        assert_eq!(
            kind("test result: FAILED. 180 passed; 1 failed; 0 ignored"),
            LineKind::Summary
        );
        assert_eq!(
            level("test result: ok. 180 passed; 0 failed"),
            Some(Level::Info)
        );
        assert_eq!(
            level("test result: FAILED. 1 passed; 1 failed"),
            Some(Level::Error)
        );
        assert_eq!(
            level("=========== 1 failed, 99 passed in 3.21s ==========="),
            Some(Level::Error)
        );
        assert_eq!(
            level("=========== 99 passed in 3.21s ==========="),
            Some(Level::Info)
        );
        assert_eq!(level("FAIL\texample.com/calc\t0.002s"), Some(Level::Error));
        assert_eq!(level("ok  \texample.com/calc\t0.002s"), Some(Level::Info));
        assert_eq!(
            level("Tests:       1 failed, 41 passed, 42 total"),
            Some(Level::Error)
        );
        assert_eq!(level("Tests:       42 passed, 42 total"), Some(Level::Info));
        assert_eq!(
            level("[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0"),
            Some(Level::Error)
        );
        assert_eq!(
            level("[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0"),
            Some(Level::Info)
        );
        assert_eq!(kind("Found 3 errors in 2 files."), LineKind::Summary);
        assert_eq!(level("Found 3 errors in 2 files."), Some(Level::Error));
        assert_eq!(level("2 errors generated."), Some(Level::Error));
        assert_eq!(level("1 error"), Some(Level::Error));
        assert_eq!(
            kind("Traceback (most recent call last):"),
            LineKind::TracebackStart
        );
        assert_eq!(
            kind("\tat com.example.Foo.bar(Foo.java:12)"),
            LineKind::Frame
        );
        assert_eq!(
            kind("    at Object.<anonymous> (x.test.js:3:5)"),
            LineKind::Frame
        );
        assert_eq!(
            kind("Caused by: java.io.IOException: disk full"),
            LineKind::Frame
        );
        assert_eq!(
            kind("thread 'a::b' panicked at src/a.rs:1:2:"),
            LineKind::Panic
        );
        assert_eq!(kind("error[E0308]: mismatched types"), LineKind::Diagnostic);
        assert_eq!(
            kind("java.lang.IllegalStateException: boom"),
            LineKind::Exception
        );
        assert_eq!(
            kind("     Summary [   0.1s] 42 tests run: 41 passed, 1 failed"),
            LineKind::Summary
        );
    }

    #[test]
    fn timestamp_runs_are_measured_eight_bytes_at_a_time() {
        for line in [
            "2026-11-21T10:00:01.123Z INFO x",
            "[2026-11-21 10:00:01,123] ERROR x",
            "2026/11/21 10:00:01 [error] x",
            "ERROR at once",
            "12345678901234567890",
            "",
            "1:2 é",
            "\t\t\t\t\t\t\t\t\t\tx",
            "+,-./0123456789:;<=>?@AB",
        ] {
            let bytes = line.as_bytes();
            let end = bytes.len().min(64);
            let want = bytes[..end]
                .iter()
                .position(|&b| !STAMP[b as usize])
                .unwrap_or(end);
            assert_eq!(stamp_len(bytes), want, "{line:?}");
        }
        for b in 0..=255u8 {
            let line = [b'1', b'2', b'3', b'4', b'5', b'6', b'7', b, b'9'];
            let want = line.iter().position(|&c| !STAMP[c as usize]).unwrap_or(9);
            assert_eq!(stamp_len(&line), want, "byte {b}");
            let line = [b; 16];
            let want = line.iter().position(|&c| !STAMP[c as usize]).unwrap_or(16);
            assert_eq!(stamp_len(&line), want, "byte {b}");
        }
    }

    #[test]
    fn find_byte_agrees_with_a_plain_search() {
        let hay = b"2026-11-21T10:00:01Z INFO step 200 FAILED: x FAIL F";
        for len in 0..hay.len() {
            for from in 0..len {
                let part = &hay[from..len];
                assert_eq!(find_byte(part, b'F'), part.iter().position(|&b| b == b'F'));
            }
        }
    }

    #[test]
    fn bounded_work_on_long_lines() {
        let mut line = "x".repeat(1_000_000);
        line.push_str(" ERROR late");
        assert_eq!(level(&line), None);
        let json = format!("{{\"msg\":\"{}\",\"level\":\"warn\"}}", "y".repeat(10_000));
        assert_eq!(level(&json), Some(Level::Warning));
    }
}
