//! The level of a JSON line or `key=value` pair, from its level key.

use super::vocabulary::{
    Form, PREFIX_BYTES, SPACE, WORD, is, is_level_key, letter_level, pack, pack_runtime, vocabulary,
};
use crate::preview::level::{How, Level, LineClass, LineKind};

/// The level of a JSON line from its level key, wherever it is in the line.
pub(super) fn json_level(line: &[u8]) -> LineClass {
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
pub(super) fn key_value(
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
