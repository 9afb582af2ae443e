//! Where a line's leading timestamp ends, and where a byte first occurs, eight bytes at a time.

/// Bytes of the timestamps and separators that start most log lines (`2026-11-21T10:00:01.123Z `,
/// `[2026-11-21 10:00:01,123] `, `2026/11/21 10:00:01 `).
pub(super) static STAMP: [bool; 256] = {
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
pub(super) fn find_byte(haystack: &[u8], byte: u8) -> Option<usize> {
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
pub(super) fn stamp_len(line: &[u8]) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
