//! Where a chunk ends, decided by the content around the cut rather than by its offset, so that a
//! one-line edit moves only the boundaries next to it: the chunks before and after it are the same
//! bytes as in the version before, which is what lets versions share them.
//!
//! Text is cut at line ends. Each line end after [`MIN_CHUNK_BYTES`] is a cut with a probability
//! proportional to the length of the line it ends (one in [`MEAN_TAIL_BYTES`] per byte), decided by
//! a hash of the bytes just before it: chunks average about `MIN_CHUNK_BYTES + MEAN_TAIL_BYTES`
//! whatever the lines' length, and slicing by lines finds whole lines at the start of most chunks.
//! Content without line ends in the window (binary, one long JSON line) is cut by a gear hash over
//! its bytes, the rolling hash of FastCDC. A chunk never passes [`CHUNK_BYTES`]: without a cut by
//! then, it ends at its last line end, or where the buffer ends.
//!
//! Only hashing line ends keeps this off the write path's profile: `memchr` finds them, and each
//! costs a few independent multiplies; the byte-wise gear hash runs only on windows with no line end at all.

use super::char_cut;
use crate::store::CHUNK_BYTES;

/// No cut is looked for before this many bytes of a chunk (bytes): the floor of a chunk's size,
/// which bounds how many rows a blob has.
pub(crate) const MIN_CHUNK_BYTES: usize = 64 * 1024;
/// Mean distance past [`MIN_CHUNK_BYTES`] to a content-defined cut (bytes).
pub(crate) const MEAN_TAIL_BYTES: usize = 64 * 1024;
/// How far before a line end its hash looks, at most (bytes): the whole of most lines.
const CONTEXT_BYTES: usize = 64;
/// The gear hash's state covers this many bytes (one bit of shift per byte in a `u64`).
const GEAR_WINDOW_BYTES: usize = 64;
/// A gear hash whose top bits are all zero is a cut: one position in [`MEAN_TAIL_BYTES`].
const GEAR_MASK: u64 = !(u64::MAX >> MEAN_TAIL_BYTES.trailing_zeros());

/// The length of the chunk at the start of `data`, a full buffer of [`CHUNK_BYTES`] (shorter input
/// is the end of the content and is one chunk whole). Depends only on `data`, never on where it
/// sits in the content.
pub(crate) fn chunk_cut(data: &[u8]) -> usize {
    let max = data.len().min(CHUNK_BYTES);
    if max <= MIN_CHUNK_BYTES {
        return char_cut(&data[..max]);
    }
    let window = &data[..max];
    // The line before the first candidate starts after the last line end before the window.
    let mut line_start = memchr::memrchr(b'\n', &window[..MIN_CHUNK_BYTES]).map_or(0, |at| at + 1);
    let mut last_line_end = None;
    for at in memchr::memchr_iter(b'\n', &window[MIN_CHUNK_BYTES..]) {
        let end = MIN_CHUNK_BYTES + at + 1;
        if line_end_cuts(window, end, end - line_start) {
            return end;
        }
        last_line_end = Some(end);
        line_start = end;
    }
    if let Some(end) = last_line_end {
        return end;
    }
    match gear_cut(window) {
        Some(at) => char_cut(&window[..at]),
        None => char_cut(window),
    }
}

/// Whether the line end just before `end`, closing a line of `line_bytes`, is a cut.
fn line_end_cuts(data: &[u8], end: usize, line_bytes: usize) -> bool {
    if line_bytes >= MEAN_TAIL_BYTES {
        return true;
    }
    let context = &data[end - line_bytes.min(CONTEXT_BYTES)..end];
    let draw = line_hash(context) >> 32;
    // The top 32 bits are uniform: a line is a cut with probability `line_bytes / MEAN_TAIL_BYTES`.
    let threshold = (line_bytes as u64) << (32 - MEAN_TAIL_BYTES.trailing_zeros());
    draw < threshold
}

/// A hash of a line's last bytes. Lines of logs and tables often end alike and differ anywhere
/// (a counter in the middle, a timestamp at the start), so every byte of the context counts; each
/// 16 bytes are one multiply of their own, independent of the others', so the hash keeps pace with
/// `memchr` instead of waiting on a chain.
fn line_hash(context: &[u8]) -> u64 {
    let mut acc = context.len() as u64;
    for (i, pair) in context.chunks(16).enumerate() {
        let mut words = [0u8; 16];
        words[..pair.len()].copy_from_slice(pair);
        let (low, high) = words.split_at(8);
        let low = u64::from_le_bytes(low.try_into().unwrap_or_default()) ^ GEAR[2 * i];
        let high = u64::from_le_bytes(high.try_into().unwrap_or_default()) ^ GEAR[2 * i + 1];
        let product = u128::from(low) * u128::from(high);
        acc ^= (product as u64) ^ ((product >> 64) as u64);
    }
    // The finalizer of MurmurHash3: every input bit reaches the top bits.
    acc = (acc ^ (acc >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    acc = (acc ^ (acc >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    acc ^ (acc >> 33)
}

/// The first position past [`MIN_CHUNK_BYTES`] where the gear hash of the bytes before it marks a
/// cut, if any.
fn gear_cut(window: &[u8]) -> Option<usize> {
    let mut hash = 0u64;
    let from = MIN_CHUNK_BYTES - GEAR_WINDOW_BYTES;
    for (i, &byte) in window.iter().enumerate().skip(from) {
        hash = (hash << 1).wrapping_add(GEAR[usize::from(byte)]);
        if i + 1 >= MIN_CHUNK_BYTES && hash & GEAR_MASK == 0 {
            return Some(i + 1);
        }
    }
    None
}

/// The gear table: one fixed random 64-bit value per byte (splitmix64 from a fixed seed, so every
/// build cuts the same content the same way, which sharing between versions depends on).
static GEAR: [u64; 256] = gear_table();

const fn gear_table() -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut state: u64 = 0x5CA7_C4BA_D000_0001;
    let mut i = 0;
    while i < 256 {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        table[i] = z ^ (z >> 31);
        i += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::{MEAN_TAIL_BYTES, MIN_CHUNK_BYTES, chunk_cut};
    use crate::store::CHUNK_BYTES;

    /// Cuts `data` the way ingestion does: a full buffer at a time, the rest whole at the end.
    fn cut_all(data: &[u8]) -> Vec<&[u8]> {
        let mut chunks = Vec::new();
        let mut rest = data;
        while rest.len() >= CHUNK_BYTES {
            let cut = chunk_cut(&rest[..CHUNK_BYTES]);
            chunks.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        if !rest.is_empty() {
            chunks.push(rest);
        }
        chunks
    }

    fn log_lines(lines: usize) -> String {
        (0..lines)
            .map(|i| {
                format!(
                    "2026-11-26T01:{:02}:{:02} worker-{} handled request {} in {} ms\n",
                    i / 60 % 60,
                    i % 60,
                    i % 7,
                    i * 7919 % 100_003,
                    i * 31 % 997
                )
            })
            .collect()
    }

    /// Lines that end alike and differ in the middle, as many logs' do.
    fn alike_lines(lines: usize) -> String {
        (0..lines)
            .map(|i| {
                format!(
                    "2026-11-21T10:00:{:02}Z INFO worker {i}: processed batch ok\n",
                    i % 60
                )
            })
            .collect()
    }

    #[test]
    fn text_is_cut_at_line_ends_within_the_bounds() {
        for text in [log_lines(200_000), alike_lines(200_000)] {
            text_is_cut_at_line_ends(&text);
        }
    }

    fn text_is_cut_at_line_ends(text: &str) {
        let chunks = cut_all(text.as_bytes());
        assert!(chunks.len() > 20, "{} chunks", chunks.len());
        let (last, whole) = chunks.split_last().unwrap_or((&chunks[0], &[]));
        for chunk in whole {
            assert!(chunk.len() >= MIN_CHUNK_BYTES && chunk.len() <= CHUNK_BYTES);
            assert_eq!(chunk.last(), Some(&b'\n'));
        }
        assert!(!last.is_empty());
        assert_eq!(chunks.concat(), text.as_bytes());
        // Cut by content, not at the ceiling: the mean is near the floor plus the mean tail.
        let mean = text.len() / chunks.len();
        assert!(
            mean < MIN_CHUNK_BYTES + 2 * MEAN_TAIL_BYTES,
            "mean chunk {mean} bytes"
        );
    }

    #[test]
    fn a_one_line_edit_changes_only_the_chunks_around_it() {
        for text in [log_lines(200_000), alike_lines(200_000)] {
            a_one_line_edit_changes_only_the_chunks_around(&text);
        }
    }

    fn a_one_line_edit_changes_only_the_chunks_around(text: &str) {
        let before = cut_all(text.as_bytes());
        for (at, line) in [
            (1_000, "x\n"),
            (100_000, "a much longer line than any other\n"),
        ] {
            let start = text.match_indices('\n').nth(at).map_or(0, |(i, _)| i + 1);
            let end = text[start..]
                .find('\n')
                .map_or(text.len(), |i| start + i + 1);
            let edited = format!("{}{line}{}", &text[..start], &text[end..]);
            let after = cut_all(edited.as_bytes());
            let new = after.iter().filter(|chunk| !before.contains(chunk)).count();
            assert!(
                new <= 2,
                "{new} of {} chunks changed by one line",
                after.len()
            );
        }
    }

    #[test]
    fn content_without_line_ends_is_cut_by_its_bytes() {
        let mut state = 7u64;
        let bytes: Vec<u8> = (0..3 * 1024 * 1024)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                (state >> 56) as u8 | 1
            })
            .map(|b| if b == b'\n' { b'.' } else { b })
            .collect();
        let before = cut_all(&bytes);
        assert!(before.iter().any(|chunk| chunk.len() < CHUNK_BYTES - 4));
        let mut edited = bytes.clone();
        edited.insert(1_500_000, b'!');
        let after = cut_all(&edited);
        let new = after.iter().filter(|chunk| !before.contains(chunk)).count();
        assert!(
            new <= 2,
            "{new} of {} chunks changed by one byte",
            after.len()
        );
        assert_eq!(after.concat(), edited);
    }

    #[test]
    fn cuts_never_split_characters() {
        let text = "aé€😀".repeat(CHUNK_BYTES / 4);
        for len in [CHUNK_BYTES, CHUNK_BYTES - 1, CHUNK_BYTES - 2] {
            let cut = chunk_cut(&text.as_bytes()[..len]);
            assert!(text.is_char_boundary(cut), "cut {cut}");
            assert!(cut > MIN_CHUNK_BYTES);
        }
    }
}
