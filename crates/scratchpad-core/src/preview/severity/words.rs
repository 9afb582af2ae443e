//! Which word in a line's prefix is a level where it stands: upper case, brackets, labels, letters, exception names.

use super::json::key_value;
use super::messages::{failure_phrase, http_status, names_a_value, outcome_word, quoted_in_prose};
use super::stamp::stamp_len;
use super::summaries::surefire_summary;
use super::vocabulary::{
    ALPHA, CLASS, DIGIT, Form, PREFIX_BYTES, SPACE, UPPER, WORD, is, is_facility, is_level_key,
    letter_level, pack_at, vocabulary,
};
use crate::preview::level::{How, Level, LineClass, LineKind};

/// The common case, fast: an upper-case level word right after a timestamp (`… INFO …`). `None`
/// sends the line to the full word scan, which would find the same word first.
#[inline]
pub(super) fn after_timestamp(line: &[u8]) -> Option<LineClass> {
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

/// The word scan over the line's prefix: the first level found in a level position.
pub(super) fn scan_words(line: &[u8]) -> LineClass {
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
pub(super) fn refine(line: &[u8], mut class: LineClass) -> LineClass {
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
