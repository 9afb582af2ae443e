//! Text previews built while the content streams past: the first and last lines, exact counts of what
//! was left out, and the notable lines (errors, panics, failures) from the omitted middle.

use std::collections::VecDeque;

use regex::bytes::Regex;

use super::PreviewConfig;
use super::binary::thousands;

/// Lines that usually matter when they sit in the middle of a long output.
pub const NOTABLE_PATTERN: &str = r"ERROR|FATAL|[Pp]anic|PANIC|Traceback|Exception|error\[|FAILED|FAIL:|\b[Ee]rror:(?:[^:]|$)|CRITICAL";

/// Compiled once: every write builds a preview, and compiling the pattern costs more than a small write.
#[expect(
    clippy::expect_used,
    reason = "a constant pattern, compiled by every test"
)]
static NOTABLE: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(NOTABLE_PATTERN).expect("notable pattern compiles"));

/// Partial last line kept between pushes before it is scanned anyway (bytes).
const MAX_CARRY: usize = 64 * 1024;

/// A notable line: 1-based number and its (possibly shortened) text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotableLine {
    pub number: u64,
    pub text: String,
}

/// Builds a text preview from a stream of valid UTF-8 pieces with memory bounded by the preview size.
#[derive(Debug)]
pub struct TextPreviewBuilder {
    config: PreviewConfig,
    notable: Regex,
    /// The first `head_chars + 1` characters (one more, to know whether the head ends a line).
    head: String,
    head_full: bool,
    /// The last bytes seen, enough to hold `tail_chars` characters.
    tail: VecDeque<u8>,
    tail_cap: usize,
    chars: u64,
    newlines: u64,
    /// Bytes of the current, unfinished line (scanned for notable text when it ends).
    carry: Vec<u8>,
    /// Newlines before `carry`.
    carry_line: u64,
    first_notable: Vec<NotableLine>,
    last_notable: VecDeque<NotableLine>,
    notable_total: u64,
}

impl TextPreviewBuilder {
    pub fn new(config: &PreviewConfig) -> Self {
        // The pattern is a constant; a failure here is a programming error caught by every test.
        let notable = NOTABLE.clone();
        Self {
            config: config.clone(),
            notable,
            head: String::new(),
            head_full: false,
            tail: VecDeque::new(),
            // Room for tail_chars + 1 characters even when every one takes 4 bytes.
            tail_cap: config.tail_chars * 4 + 8,
            chars: 0,
            newlines: 0,
            carry: Vec::new(),
            carry_line: 0,
            first_notable: Vec::new(),
            last_notable: VecDeque::new(),
            notable_total: 0,
        }
    }

    /// Characters pushed so far.
    pub fn chars(&self) -> u64 {
        self.chars
    }

    /// Newlines pushed so far.
    pub fn newlines(&self) -> u64 {
        self.newlines
    }

    /// Feeds the next piece; pieces must split the text on character boundaries.
    pub fn push(&mut self, piece: &str) {
        if !self.head_full {
            let want = self.config.head_chars + 1 - self.head.chars().count();
            match piece.char_indices().nth(want) {
                Some((end, _)) => {
                    self.head.push_str(&piece[..end]);
                    self.head_full = true;
                }
                None => self.head.push_str(piece),
            }
            if self.head.chars().count() > self.config.head_chars {
                self.head_full = true;
            }
        }
        let bytes = piece.as_bytes();
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(bytes);
        }
        self.chars += count_chars(bytes);
        self.scan_notable(bytes);
    }

    fn scan_notable(&mut self, bytes: &[u8]) {
        let Some(last_nl) = memchr::memrchr(b'\n', bytes) else {
            self.carry.extend_from_slice(bytes);
            if self.carry.len() > MAX_CARRY {
                let carry = std::mem::take(&mut self.carry);
                self.scan_complete(&carry, false);
            }
            return;
        };
        let (complete, rest) = bytes.split_at(last_nl + 1);
        if self.carry.is_empty() {
            self.scan_complete(complete, true);
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(complete);
            self.scan_complete(&joined, true);
        }
        self.carry.extend_from_slice(rest);
    }

    /// Scans whole lines (or a forced piece of one) that start on line `self.carry_line + 1`.
    fn scan_complete(&mut self, text: &[u8], ends_lines: bool) {
        let mut line_no = self.carry_line;
        let mut counted_to = 0;
        let mut last_reported_line = None;
        let notable = self.notable.clone();
        for m in notable.find_iter(text) {
            let start = memchr::memrchr(b'\n', &text[..m.start()]).map_or(0, |p| p + 1);
            line_no += count_newlines(&text[counted_to..start]);
            counted_to = start;
            if last_reported_line == Some(line_no) {
                continue;
            }
            last_reported_line = Some(line_no);
            let end =
                memchr::memchr(b'\n', &text[m.start()..]).map_or(text.len(), |p| m.start() + p);
            self.record_notable(line_no + 1, &text[start..end]);
        }
        let newlines = line_no + count_newlines(&text[counted_to..]) - self.carry_line;
        self.newlines += newlines;
        if ends_lines {
            self.carry_line = self.newlines;
        }
    }

    fn record_notable(&mut self, number: u64, line: &[u8]) {
        self.notable_total += 1;
        let text = shorten(
            &String::from_utf8_lossy(line),
            self.config.notable_line_chars,
        );
        let line = NotableLine { number, text };
        let keep = self.config.notable_lines;
        if self.first_notable.len() < keep {
            self.first_notable.push(line);
        } else {
            if self.last_notable.len() == keep {
                self.last_notable.pop_front();
            }
            self.last_notable.push_back(line);
        }
    }

    /// Finishes the stream and renders the preview.
    pub fn finish(mut self) -> TextPreview {
        if !self.carry.is_empty() {
            let carry = std::mem::take(&mut self.carry);
            self.scan_complete(&carry, false);
        }
        let ends_with_newline = self.tail.back() == Some(&b'\n');
        let lines = line_count(self.newlines, self.chars, ends_with_newline);
        let tail_bytes: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(trim_to_char_start(&tail_bytes)).into_owned();
        let mut notable: Vec<NotableLine> = self.first_notable;
        notable.extend(self.last_notable);
        render(
            &self.config,
            &self.head,
            &tail,
            Counts {
                chars: self.chars,
                lines,
                newlines: self.newlines,
            },
            notable,
            self.notable_total,
        )
    }
}

/// The rendered preview plus the figures it states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPreview {
    pub text: String,
    /// True when the preview is the whole content.
    pub complete: bool,
    pub omitted_chars: u64,
}

struct Counts {
    chars: u64,
    lines: u64,
    newlines: u64,
}

/// Number of lines: a final newline ends the last line rather than starting a new one.
pub fn line_count(newlines: u64, chars: u64, ends_with_newline: bool) -> u64 {
    if chars == 0 {
        0
    } else if ends_with_newline {
        newlines
    } else {
        newlines + 1
    }
}

fn render(
    config: &PreviewConfig,
    head_buf: &str,
    tail_buf: &str,
    counts: Counts,
    notable: Vec<NotableLine>,
    notable_total: u64,
) -> TextPreview {
    let total = counts.chars;
    if total <= (config.head_chars + config.tail_chars) as u64 {
        // Everything fits: the head buffer holds at most head_chars + 1, so rebuild from head + tail.
        let text = if (head_buf.chars().count() as u64) >= total {
            head_buf.to_owned()
        } else {
            let tail_needed = total as usize - head_buf.chars().count();
            let tail_start = tail_buf.chars().count().saturating_sub(tail_needed);
            let mut text = head_buf.to_owned();
            text.extend(tail_buf.chars().skip(tail_start));
            text
        };
        return TextPreview {
            text,
            complete: true,
            omitted_chars: 0,
        };
    }
    let head = cut_head(head_buf, config.head_chars);
    let tail = cut_tail(tail_buf, config.tail_chars);
    let omitted = total - head.chars().count() as u64 - tail.chars().count() as u64;
    // A character sits on line (newlines before it) + 1.
    let first_omitted_line = count_newlines(head.as_bytes()) + 1;
    let newlines_before_tail = counts.newlines - count_newlines(tail.as_bytes());
    let last_omitted_line = newlines_before_tail + 1 - u64::from(tail_starts_line(tail_buf, tail));
    let mut text = String::with_capacity(head.len() + tail.len() + 256);
    text.push_str(head);
    if !head.ends_with('\n') {
        text.push('\n');
    }
    let line_span = if first_omitted_line == last_omitted_line {
        format!("line {}", thousands(first_omitted_line))
    } else {
        format!(
            "lines {}–{}",
            thousands(first_omitted_line),
            thousands(last_omitted_line)
        )
    };
    text.push_str(&format!(
        "[... {} characters omitted: {} of {} ...]\n",
        thousands(omitted),
        line_span,
        thousands(counts.lines)
    ));
    let middle: Vec<&NotableLine> = notable
        .iter()
        .filter(|l| (first_omitted_line..=last_omitted_line).contains(&l.number))
        .collect();
    if !middle.is_empty() {
        if notable_total > middle.len() as u64 {
            text.push_str(&format!(
                "[notable lines from the omitted part, {} shown; {} notable lines in the whole entry:]\n",
                middle.len(),
                thousands(notable_total)
            ));
        } else {
            text.push_str("[notable lines from the omitted part:]\n");
        }
        for line in middle {
            text.push_str(&format!("{:>9}: {}\n", line.number, line.text));
        }
        text.push_str("[... end of notable lines ...]\n");
    }
    text.push_str(tail);
    TextPreview {
        text,
        complete: false,
        omitted_chars: omitted,
    }
}

/// True when `tail` starts right after a newline in the buffer it was cut from.
fn tail_starts_line(tail_buf: &str, tail: &str) -> bool {
    let cut = tail_buf.len() - tail.len();
    cut > 0 && tail_buf.as_bytes()[cut - 1] == b'\n'
}

/// The longest run of whole lines within `max` characters, or `max` characters when the first line is longer.
fn cut_head(buf: &str, max: usize) -> &str {
    let end = buf.char_indices().nth(max).map_or(buf.len(), |(i, _)| i);
    let within = &buf[..end];
    // The buffer holds one extra character: if it is a newline, `within` ends a line exactly.
    if buf[end..].starts_with('\n') {
        return &buf[..=end];
    }
    match within.rfind('\n') {
        Some(nl) => &within[..=nl],
        None => within,
    }
}

/// The longest run of whole lines at the end within `max` characters, or the last `max` characters.
fn cut_tail(buf: &str, max: usize) -> &str {
    let count = buf.chars().count();
    let start = buf
        .char_indices()
        .nth(count.saturating_sub(max))
        .map_or(buf.len(), |(i, _)| i);
    let within = &buf[start..];
    if start > 0 && buf.as_bytes()[start - 1] == b'\n' {
        return within;
    }
    // Skip the partial first line, unless that leaves nothing but an empty remainder.
    match within.find('\n') {
        Some(nl) if nl + 1 < within.len() => &within[nl + 1..],
        _ => within,
    }
}

/// Drops leading UTF-8 continuation bytes of a buffer cut at an arbitrary byte.
fn trim_to_char_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|&&b| (b & 0xC0) == 0x80)
        .count();
    &bytes[skip..]
}

/// Characters in valid UTF-8: every byte that is not a continuation byte starts one.
pub fn count_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

pub fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// At most `max` characters of `line`, with `…` when cut.
pub fn shorten(line: &str, max: usize) -> String {
    let line = line.trim_end_matches('\r');
    match line.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// Preview of text held in memory (small notes, tests).
pub fn text_preview(text: &str, config: &PreviewConfig) -> TextPreview {
    let mut builder = TextPreviewBuilder::new(config);
    builder.push(text);
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::NOTABLE;

    /// Regression: source code naming error types (`LedgerError::Declined`) flooded the notable lines
    /// of code previews, hiding the lines that report errors.
    #[test]
    fn error_types_in_code_are_not_notable_but_error_messages_are() {
        for line in [
            "    Err(LedgerError::Declined { code })",
            "impl From<io::Error> for Error {",
            "use crate::error::Error::NotFound;",
        ] {
            assert!(!NOTABLE.is_match(line.as_bytes()), "{line}");
        }
        for line in [
            "Error: disk full",
            "thread main: error: could not compile",
            "ERROR payment declined",
            "error[E0308]: mismatched types",
            "test ledger::settles ... FAILED",
        ] {
            assert!(NOTABLE.is_match(line.as_bytes()), "{line}");
        }
    }
}
