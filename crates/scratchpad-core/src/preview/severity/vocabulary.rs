//! Which words and letters name a level, and the byte classes and packing the scan reads them with.

use crate::preview::level::{Level, LineClass};

/// Bytes of a line searched for its level: levels sit near the start of a line, and a bound keeps
/// the cost per line flat whatever its length. JSON lines are searched for a level key beyond it.
pub const PREFIX_BYTES: usize = 512;

// ---------------------------------------------------------------------------------------------------
// Byte classes

pub(super) const ALPHA: u8 = 1;
pub(super) const UPPER: u8 = 2;
pub(super) const DIGIT: u8 = 4;
/// Letters, digits and `_`: what a word is made of.
pub(super) const WORD: u8 = 8;
pub(super) const SPACE: u8 = 16;

pub(super) static CLASS: [u8; 256] = {
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
pub(super) fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}

// ---------------------------------------------------------------------------------------------------
// Vocabulary

/// Where a level word may be believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
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
pub(super) const fn pack(word: &[u8]) -> u64 {
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
pub(super) fn pack_runtime(word: &[u8]) -> u64 {
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
pub(super) fn pack_at(line: &[u8], start: usize, len: usize) -> u64 {
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
pub(super) fn vocabulary(key: u64) -> Option<(Level, Form)> {
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
pub(super) fn is_level_key(key: u64) -> bool {
    const LEVEL: u64 = pack(b"level");
    const LVL: u64 = pack(b"lvl");
    const SEVERITY: u64 = pack(b"severity");
    const LOGLEVEL: u64 = pack(b"loglevel");
    const PRIORITY: u64 = pack(b"priority");
    matches!(key, LEVEL | LVL | SEVERITY | LOGLEVEL | PRIORITY)
}

/// Syslog facilities, as `facility.level` prints them.
pub(super) fn is_facility(word: &[u8]) -> bool {
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
pub(super) fn letter_level(b: u8) -> Option<Level> {
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

impl LineClass {
    pub(super) fn with_level(mut self, level: Level) -> LineClass {
        self.level = Some(level);
        self
    }
}
