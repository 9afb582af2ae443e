//! Line templates: a line with its variable parts masked, so that lines of the same form group.
//!
//! A token (a run of bytes between white space and the separators `[](){}<>"'=,;|` and backtick)
//! becomes `#` when it varies from line to line by the looks of it: it holds a digit (numbers,
//! timestamps, hex, ids, UUIDs, addresses, versions), a path or URL (`/`, `\`), an identifier path
//! (`::`, `_`, `@`, an inner `.` or `:`), or it is longer than 32 bytes. The value of a
//! `key=value` or `"key": value` pair is masked too, unless its key names something enumerated
//! (`level`, `status`, `msg`, …). Words stay, so `connection reset` and `connection refused` differ.
//! White space runs collapse to one space. A template holds at most [`TEMPLATE_BYTES`] bytes, cut
//! before the token that would pass it: cutting the template rather than the line means two lines
//! of one form whose masked parts differ in length still get the same template.

/// Longest template (bytes).
pub const TEMPLATE_BYTES: usize = 256;

/// Bytes of a line read to make its template, cut back to white space (bounds the work per line).
const TEMPLATE_INPUT_BYTES: usize = 2_048;

/// Longer words are ids or encoded data rather than words (bytes).
const MAX_WORD_BYTES: usize = 32;

/// What stands for a masked token.
const MASK: u8 = b'#';

/// Byte classes of the tokenizer, one table lookup a byte.
const SPACE: u8 = 1;
const SEPARATOR: u8 = 2;
/// Digits, path separators, `_` and `@`: a token holding one varies.
const VARY: u8 = 4;
/// `.` and `:`: a token holding one inside varies (`c.e.Foo`, `10:00`, `a::b`).
const DOT: u8 = 8;
/// Trailing punctuation kept as it is.
const TRAIL: u8 = 16;

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b' ' as usize] = SPACE;
    table[b'\t' as usize] = SPACE;
    table[b'\r' as usize] = SPACE;
    let separators = b"[](){}<>\"'`=,;|";
    let mut i = 0;
    while i < separators.len() {
        table[separators[i] as usize] = SEPARATOR;
        i += 1;
    }
    let mut d = b'0';
    while d <= b'9' {
        table[d as usize] = VARY;
        d += 1;
    }
    table[b'/' as usize] = VARY;
    table[b'\\' as usize] = VARY;
    table[b'_' as usize] = VARY;
    table[b'@' as usize] = VARY;
    table[b'.' as usize] = DOT | TRAIL;
    table[b':' as usize] = DOT | TRAIL;
    table[b'!' as usize] = TRAIL;
    table[b'?' as usize] = TRAIL;
    table
};

#[inline]
fn is_space(b: u8) -> bool {
    CLASS[b as usize] & SPACE != 0
}

/// Keys whose values are worth keeping in a template: they name a kind, not an instance.
fn keeps_value(key: &[u8]) -> bool {
    const KEPT: [&[u8]; 16] = [
        b"level",
        b"lvl",
        b"severity",
        b"msg",
        b"message",
        b"event",
        b"status",
        b"state",
        b"result",
        b"method",
        b"type",
        b"kind",
        b"action",
        b"op",
        b"outcome",
        b"reason",
    ];
    KEPT.iter().any(|k| k.eq_ignore_ascii_case(key))
}

/// Writes the template of `line` into `out` (cleared first) and returns its 64-bit hash.
pub fn template(line: &[u8], out: &mut Vec<u8>) -> u64 {
    out.clear();
    let line = if line.len() > TEMPLATE_INPUT_BYTES {
        let cut = &line[..TEMPLATE_INPUT_BYTES];
        &cut[..cut.iter().rposition(|&b| is_space(b)).unwrap_or(0)]
    } else {
        line
    };
    let mut i = 0;
    // The key of a pending `key=value` / `"key": value`, as a range of `line`.
    let mut last_token = (0, 0);
    let mut value_key: Option<(usize, usize)> = None;
    let mut pending_space = false;
    while i < line.len() {
        let b = line[i];
        let class = CLASS[b as usize];
        if class & SPACE != 0 {
            pending_space = !out.is_empty();
            i += 1;
            continue;
        }
        if out.len() >= TEMPLATE_BYTES {
            break;
        }
        if pending_space {
            out.push(b' ');
            pending_space = false;
        }
        if class & SEPARATOR != 0 {
            out.push(b);
            if b == b'=' {
                value_key = Some(last_token);
            } else if b != b'"' && b != b'\'' {
                value_key = None;
            }
            i += 1;
            continue;
        }
        let mut start = i;
        let mut flags = 0;
        while i < line.len() {
            let c = CLASS[line[i] as usize];
            if c & (SPACE | SEPARATOR) != 0 {
                break;
            }
            flags |= c;
            i += 1;
        }
        // `"key":value` in JSON: the `:` after a closing quote introduces a value.
        if b == b':' && start > 0 && line[start - 1] == b'"' {
            out.push(b':');
            start += 1;
            value_key = Some(last_token);
            if start == i {
                continue;
            }
        }
        let token = &line[start..i];
        // Trailing punctuation stays as it is: `1:` becomes `#:`, `done.` stays `done.`.
        let mut core_len = token.len();
        if flags & TRAIL != 0 {
            while core_len > 0 && CLASS[token[core_len - 1] as usize] & TRAIL != 0 {
                core_len -= 1;
            }
        }
        let (core, punct) = token.split_at(core_len);
        let is_value = value_key.is_some_and(|(ks, ke)| !keeps_value(&line[ks..ke]));
        // A quoted value is masked only when it is one token: `"alice"`, not `"payment failed"`.
        let quoted_phrase = is_value
            && start > 0
            && line[start - 1] == b'"'
            && line.get(i).is_some_and(|&c| c != b'"');
        let masked = !core.is_empty() && ((is_value && !quoted_phrase) || varies(core, flags));
        let width = if masked { 1 } else { core.len() } + punct.len();
        if out.len() + width > TEMPLATE_BYTES {
            break;
        }
        if masked {
            out.push(MASK);
        } else if core.len() <= 16 {
            // Short words byte by byte: a call to copy a few bytes costs more than the copy.
            for &c in core {
                out.push(c);
            }
        } else {
            out.extend_from_slice(core);
        }
        for &c in punct {
            out.push(c);
        }
        last_token = (start, start + core_len);
        value_key = None;
    }
    hash(out)
}

/// True when a token looks like an instance rather than a word; `flags` are its byte classes.
#[inline]
fn varies(core: &[u8], flags: u8) -> bool {
    if flags & VARY != 0 || core.len() > MAX_WORD_BYTES {
        return true;
    }
    flags & DOT != 0
        && core.len() > 2
        && core[1..core.len() - 1]
            .iter()
            .any(|&c| CLASS[c as usize] & DOT != 0)
}

/// The words of a template (runs between white space and separators, `#` included), as byte
/// ranges, in order: the places where lines of one form may differ by a name.
pub(crate) fn words(template: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < template.len() && CLASS[template[i] as usize] & (SPACE | SEPARATOR) != 0 {
            i += 1;
        }
        if i >= template.len() {
            return None;
        }
        let start = i;
        while i < template.len() && CLASS[template[i] as usize] & (SPACE | SEPARATOR) == 0 {
            i += 1;
        }
        Some((start, i))
    })
}

/// `template` with its word number `ordinal` masked (`Inst bash [#]` → `Inst # [#]`).
pub(crate) fn mask_word(template: &str, ordinal: usize) -> String {
    match words(template.as_bytes()).nth(ordinal) {
        Some((start, end))
            if template.is_char_boundary(start) && template.is_char_boundary(end) =>
        {
            format!("{}#{}", &template[..start], &template[end..])
        }
        _ => template.to_owned(),
    }
}

/// FxHash-style hash over 8-byte words: templates are short and hashed once per line.
pub fn hash(bytes: &[u8]) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
    }
    // Final mix so that the low bits (used by hash tables) depend on every input bit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// A hasher for keys that already are hashes.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(line: &str) -> String {
        let mut out = Vec::new();
        template(line.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn variable_parts_are_masked() {
        let cases = [
            (
                "2026-11-21T10:00:01Z INFO worker 17: processed batch ok",
                "# INFO worker #: processed batch ok",
            ),
            (
                "2026-11-21T10:00:01.123Z  INFO  api-2 GET /v1/orders/123 200 in 12 ms",
                "# INFO # GET # # in # ms",
            ),
            ("test ledger::settles ... ok", "test # ... ok"),
            (
                "thread 'ledger::settles' panicked at src/ledger.rs:88:9:",
                "thread '#' panicked at #:",
            ),
            (
                "ts=2026 level=error msg=\"payment failed\" user=alice id=7",
                "ts=# level=error msg=\"payment failed\" user=# id=#",
            ),
            (
                "{\"level\":\"warn\",\"user\":\"bob\",\"msg\":\"slow\",\"ms\":1200}",
                "{\"level\":\"warn\",\"user\":\"#\",\"msg\":\"slow\",\"ms\":#}",
            ),
            (
                "ERROR c.e.PaymentService - charge failed for 3fa85f64-5717-4562-b3fc-2c963f66afa6",
                "ERROR # - charge failed for #",
            ),
            (
                "Nov 21 10:00:01 host sshd[4242]: Failed password for root from 10.0.0.7 port 22",
                "Nov # # host sshd[#]: Failed password for root from # port #",
            ),
        ];
        for (line, want) in cases {
            assert_eq!(t(line), want, "{line}");
        }
    }

    #[test]
    fn same_form_same_hash() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let ha = template(
            b"12:00:01 ERROR upstream timeout after 30000 ms (req 42)",
            &mut a,
        );
        let hb = template(
            b"13:10:59 ERROR upstream timeout after 15000 ms (req 977)",
            &mut b,
        );
        assert_eq!(ha, hb);
        let hc = template(
            b"13:10:59 ERROR upstream refused after 15000 ms (req 977)",
            &mut b,
        );
        assert_ne!(ha, hc);
    }

    /// Regression: cutting the line at a fixed byte gave two nginx error lines of one form two
    /// templates, because their client addresses differ in length.
    #[test]
    fn masked_parts_of_different_lengths_do_not_split_long_lines() {
        let line = |client: &str| {
            format!(
                "2026/11/21 10:00:00 [error] 31#31: *5003 connect() failed (111: Connection refused) while connecting to upstream, client: {client}, server: shop.example.com, request: \"GET /v1/cart HTTP/1.1\", upstream: \"http://10.0.1.9:8080/v1/cart\", host: \"shop.example.com\", referrer: \"https://shop.example.com/checkout/step/one\""
            )
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert_eq!(
            template(line("10.0.0.27").as_bytes(), &mut a),
            template(line("10.0.0.165").as_bytes(), &mut b)
        );
    }

    #[test]
    fn long_lines_use_their_start() {
        let long = format!("ERROR {}", "word ".repeat(1_000));
        let mut out = Vec::new();
        template(long.as_bytes(), &mut out);
        assert!(out.len() <= TEMPLATE_BYTES);
    }
}
