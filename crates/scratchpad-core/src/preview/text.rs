//! Text previews built while the content streams past: the first and last lines, exact counts of what
//! was left out, how many lines each level has, and the notable lines from the omitted middle:
//! grouped by template, most severe first and rarest first, each group shown once with its count
//! and line span, so that one repeated error cannot crowd out a rare fatal one.

use std::collections::VecDeque;

use super::PreviewConfig;
pub use super::clip::shorten;
use super::profile::{Example, Group, Profiler, TextProfile, Track};
use super::severity::LineKind;
use crate::figures::thousands;

/// Partial last line kept between pushes before its start is classified anyway (bytes).
const MAX_CARRY: usize = 64 * 1024;

/// Templates grouped per level in a preview; further lines of that level are counted only.
pub const PREVIEW_TEMPLATES_PER_LEVEL: usize = 200;

/// Builds a text preview from a stream of valid UTF-8 pieces with memory bounded by the preview size.
#[derive(Debug)]
pub struct TextPreviewBuilder {
    config: PreviewConfig,
    /// The first `head_chars + 1` characters (one more, to know whether the head ends a line).
    head: String,
    head_full: bool,
    /// Lines the head shows whole, known once the head is full.
    head_lines: u64,
    /// The last bytes seen, enough to hold `tail_chars` characters.
    tail: VecDeque<u8>,
    tail_cap: usize,
    chars: u64,
    newlines: u64,
    /// Bytes of the current, unfinished line (classified when it ends).
    carry: Vec<u8>,
    /// The current line grew past [`MAX_CARRY`] and its start was classified already.
    carry_done: bool,
    profiler: Profiler,
}

impl TextPreviewBuilder {
    pub fn new(config: &PreviewConfig) -> Self {
        Self {
            config: config.clone(),
            head: String::new(),
            head_full: false,
            head_lines: 0,
            tail: VecDeque::new(),
            // Room for tail_chars + 1 characters even when every one takes 4 bytes.
            tail_cap: config.tail_chars * 4 + 8,
            chars: 0,
            newlines: 0,
            carry: Vec::new(),
            carry_done: false,
            profiler: Profiler::new(
                Track::Notable,
                config.notable_line_chars,
                PREVIEW_TEMPLATES_PER_LEVEL,
            ),
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
            if self.head_full {
                self.head_lines =
                    count_newlines(cut_head(&self.head, self.config.head_chars).as_bytes());
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
        self.scan_lines(bytes);
    }

    /// True when line `number` is shown whole in the head.
    fn in_head(&self, number: u64) -> bool {
        !self.head_full || number <= self.head_lines
    }

    fn scan_lines(&mut self, bytes: &[u8]) {
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', bytes) {
            let number = self.newlines + 1;
            let in_head = self.in_head(number);
            if self.carry_done {
                self.carry_done = false;
            } else if self.carry.is_empty() {
                self.profiler.line(number, &bytes[start..nl], in_head);
            } else {
                let mut line = std::mem::take(&mut self.carry);
                line.extend_from_slice(&bytes[start..nl]);
                self.profiler.line(number, &line, in_head);
                line.clear();
                self.carry = line;
            }
            self.newlines += 1;
            start = nl + 1;
        }
        if self.carry_done {
            return;
        }
        self.carry.extend_from_slice(&bytes[start..]);
        if self.carry.len() > MAX_CARRY {
            // A very long line: its start decides its level and template, the rest is skipped.
            let number = self.newlines + 1;
            let in_head = self.in_head(number);
            let carry = std::mem::take(&mut self.carry);
            self.profiler.line(number, &carry, in_head);
            self.carry_done = true;
        }
    }

    /// Finishes the stream and renders the preview.
    pub fn finish(mut self) -> TextPreview {
        if !self.carry.is_empty() && !self.carry_done {
            let number = self.newlines + 1;
            let in_head = self.in_head(number);
            let carry = std::mem::take(&mut self.carry);
            self.profiler.line(number, &carry, in_head);
        }
        self.profiler.finish();
        let ends_with_newline = self.tail.back() == Some(&b'\n');
        let lines = line_count(self.newlines, self.chars, ends_with_newline);
        let tail_bytes: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(trim_to_char_start(&tail_bytes)).into_owned();
        let profile = self.profiler.profile();
        let mut preview = render(
            &self.config,
            &self.head,
            &tail,
            Counts {
                chars: self.chars,
                lines,
                newlines: self.newlines,
            },
            &self.profiler,
        );
        preview.profile = TextProfile {
            head_through: preview.profile.head_through,
            tail_from: preview.profile.tail_from,
            ..profile
        };
        preview
    }
}

/// The most characters a preview built with `config` can have, whatever the input.
pub fn max_preview_chars(config: &PreviewConfig) -> usize {
    let rows = 2 * config.notable_lines;
    // Markers: omitted, levels, cap note, header, "more" line, footer (at most 160 chars each), a
    // listing's tree and extensions (at most 2 × 800); a row's gutter (11), its cut mark (1) and
    // its note (`  [×N, lines A–B; traceback from line C]`, under 100 with 20-digit numbers).
    config.head_chars
        + 1
        + config.tail_chars
        + 6 * 160
        + 2 * super::paths::MAX_RENDER_CHARS
        + rows * (config.notable_line_chars + 112)
}

/// The rendered preview plus the figures it states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPreview {
    pub text: String,
    /// True when the preview is the whole content.
    pub complete: bool,
    pub omitted_chars: u64,
    /// What the pass learned about the lines: counts per level, the suggested search, the result
    /// line of a test run or build. Worth storing with the entry.
    pub profile: TextProfile,
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
    profiler: &Profiler,
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
            profile: TextProfile {
                head_through: counts.lines,
                ..TextProfile::default()
            },
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
    if profiler.counts.leveled() > 0 {
        text.push_str(&format!("[levels: {}]\n", profiler.counts.render()));
    }
    if profiler.capped() {
        text.push_str(&format!(
            "[more than {PREVIEW_TEMPLATES_PER_LEVEL} forms of line at one level: {} lines counted but not grouped]\n",
            thousands(profiler.ungrouped.iter().sum())
        ));
    }
    if let Some(tree) = profiler.paths.render() {
        text.push_str(&tree);
    }
    let middle = first_omitted_line..=last_omitted_line;
    notable_section(
        &mut text,
        &profiler.groups,
        &middle,
        2 * config.notable_lines,
    );
    text.push_str(tail);
    TextPreview {
        text,
        complete: false,
        omitted_chars: omitted,
        profile: TextProfile {
            head_through: first_omitted_line - 1,
            tail_from: last_omitted_line + 1,
            ..TextProfile::default()
        },
    }
}

/// The occurrence of `group` a preview shows from the omitted part, if any lies there: a summary's
/// latest (the final result), else the first after the head.
fn shown_example<'g>(
    group: &'g Group,
    middle: &std::ops::RangeInclusive<u64>,
) -> Option<&'g Example> {
    let inside = |e: &&Example| middle.contains(&e.line.line);
    if group.kind == LineKind::Summary {
        let latest = group.latest.iter().flatten().find(inside);
        if latest.is_some() {
            return latest;
        }
    }
    group.after_head.as_ref().filter(inside)
}

/// Lists the groups with an occurrence in the omitted part, most severe first, rarest first, in at
/// most `max_rows` lines; rows left over show a second occurrence of the groups already listed.
fn notable_section(
    text: &mut String,
    groups: &[Group],
    middle: &std::ops::RangeInclusive<u64>,
    max_rows: usize,
) {
    let mut candidates: Vec<(&Group, &Example)> = groups
        .iter()
        .filter_map(|g| shown_example(g, middle).map(|e| (g, e)))
        .collect();
    if candidates.is_empty() || max_rows == 0 {
        return;
    }
    candidates.sort_by_key(|(g, e)| {
        (
            g.level.map_or(7, |l| l.rank()),
            std::cmp::Reverse(g.grade),
            g.kind == LineKind::Summary,
            g.count,
            e.line.line,
        )
    });
    let mut rows = 0;
    let mut shown: Vec<(&Group, &Example)> = Vec::new();
    for &(group, example) in &candidates {
        let cost = 1 + example.details.len();
        if rows + cost > max_rows {
            // A block that does not fit leaves its rows to the rarer lines after it.
            continue;
        }
        rows += cost;
        shown.push((group, example));
    }
    let not_shown = candidates.len() - shown.len();
    text.push_str("[notable lines from the omitted part, most severe first, rarest first:]\n");
    for (group, example) in shown {
        let mut notes = Vec::new();
        if group.count > 1 {
            notes.push(format!(
                "×{}, lines {}–{}",
                thousands(group.count),
                thousands(group.first_line),
                thousands(group.last_line)
            ));
        }
        if let Some(from) = example.from_line {
            notes.push(format!("traceback from line {}", thousands(from)));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  [{}]", notes.join("; "))
        };
        // The headline and its block in line order: a linter's file comes before its row, a
        // traceback's frame before its exception, a compiler's location after its message.
        let before = example
            .details
            .iter()
            .filter(|d| d.line < example.line.line);
        let after = example
            .details
            .iter()
            .filter(|d| d.line >= example.line.line);
        for detail in before {
            text.push_str(&format!("{:>9}:   {}\n", detail.line, detail.text));
        }
        text.push_str(&format!(
            "{:>9}: {}{notes}\n",
            example.line.line, example.line.text
        ));
        for detail in after {
            text.push_str(&format!("{:>9}:   {}\n", detail.line, detail.text));
        }
    }
    if not_shown > 0 {
        text.push_str(&format!(
            "[{} more groups of notable lines in the omitted part]\n",
            thousands(not_shown as u64)
        ));
    }
    text.push_str("[... end of notable lines ...]\n");
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

/// Characters in valid UTF-8: every byte that is not a continuation byte (`10xxxxxx`) starts one.
/// Counted eight bytes at a time: it runs over every byte of every entry.
pub fn count_chars(bytes: &[u8]) -> u64 {
    count_chars_finding_nul(bytes).0
}

/// [`count_chars`], and whether `bytes` hold a NUL byte, in the same pass: ingest asks both of
/// every chunk.
pub fn count_chars_finding_nul(bytes: &[u8]) -> (u64, bool) {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let (mut continuation, mut zero) = (0u64, 0u64);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // Bit 7 set and bit 6 clear; shifting moves each byte's bit 6 onto its bit 7.
        continuation += u64::from((x & !(x << 1) & HIGH).count_ones());
        // Non-zero exactly when some byte of `x` is zero (the borrow can only start at one).
        zero |= x.wrapping_sub(LOW) & !x & HIGH;
    }
    let rest = chunks.remainder();
    continuation += rest.iter().filter(|&&b| (b as i8) < -0x40).count() as u64;
    let nul = zero != 0 || rest.contains(&0);
    (bytes.len() as u64 - continuation, nul)
}

pub fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Preview of text held in memory (small notes, tests).
pub fn text_preview(text: &str, config: &PreviewConfig) -> TextPreview {
    let mut builder = TextPreviewBuilder::new(config);
    builder.push(text);
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::super::severity::classify;

    #[test]
    fn characters_are_counted_eight_bytes_at_a_time() {
        let text = "aé€😀 plain ascii line\n".repeat(7) + "x";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let bytes = &text.as_bytes()[start..end];
                let plain = bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64;
                assert_eq!(super::count_chars(bytes), plain);
            }
        }
    }

    /// Regression: source code naming error types (`LedgerError::Declined`) flooded the notable lines
    /// of code previews, hiding the lines that report errors.
    #[test]
    fn error_types_in_code_are_not_notable_but_error_messages_are() {
        for line in [
            "    Err(LedgerError::Declined { code })",
            "impl From<io::Error> for Error {",
            "use crate::error::Error::NotFound;",
        ] {
            assert_eq!(classify(line.as_bytes()).level, None, "{line}");
        }
        for line in [
            "Error: disk full",
            "thread main: error: could not compile",
            "ERROR payment declined",
            "error[E0308]: mismatched types",
            "test ledger::settles ... FAILED",
        ] {
            assert!(classify(line.as_bytes()).level.is_some(), "{line}");
        }
    }
}
