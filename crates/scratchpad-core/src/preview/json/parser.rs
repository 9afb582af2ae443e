//! The JSON parser behind the shape preview: a pull parser over any `Read`, reading through one
//! fixed buffer, so that a 1 GB document costs the same memory as a small one.
//!
//! The fold asks for the next value, item or key and reads or skips it; what is checked depends on
//! which, exactly as serde_json checks what it reads (`deserialize_any`) and what it ignores
//! (`IgnoredAny`), since serde_json drove the fold before and its previews are kept:
//!
//! - [`Parser::read_str`] refuses control characters, bad escapes, lone surrogates (`\ud800`
//!   alone) and invalid UTF-8; [`Parser::read_number`] refuses numbers beyond f64 and gives the
//!   value serde_json gives (u64, i64, or f64).
//! - [`Parser::skip_value`] checks JSON syntax, control characters and escapes only, in a loop
//!   with a stack of open brackets, so that nesting depth costs one byte per level and no
//!   recursion.
//!
//! It is faster than serde_json's reader path where the fold lets it be: the buffer's UTF-8 is
//! checked once per read and strings without escapes are lent from it, found eight bytes at a
//! time; an expected key is matched on its raw bytes; common numbers take a fast path that gives
//! serde_json's exact value (an integer below 2^53 divided by a power of ten is correctly rounded,
//! which is what either of serde_json's float parsers returns), and anything else is handed to
//! serde_json. A byte-by-byte parse would stop reading where this one does: on an I/O error, both
//! give the same answer.

use std::fmt;
use std::io::{self, Read};

/// Input read at a time (bytes): small enough to stay in the L2 cache.
const BUFFER_BYTES: usize = 64 * 1024;

/// Deepest nesting a skipped value may have (levels): the stack of open brackets costs a byte per
/// level, so this bounds it at 1 MiB. A document nested deeper is not previewed as JSON (it is
/// stored and read as text).
const MAX_SKIPPED_DEPTH: usize = 1 << 20;

/// Bytes of one string kept from its start, and from its end: a longer string's middle is counted
/// and dropped as it is read, so that a 1 GB string costs what a 1.5 MiB one does. The preview
/// shows a string's first characters, its length, and what strings share at their start and end.
const KEEP_STRING_HEAD: usize = 512 * 1024;
const KEEP_STRING_TAIL: usize = 512 * 1024;

/// Digits of a number the fast path reads: 18 always fit a u64 (decimal digits).
const MAX_FAST_DIGITS: usize = 18;

/// Largest significand the fast path turns into an f64 exactly (2^53).
const MAX_EXACT_SIGNIFICAND: u64 = 1 << 53;

/// Powers of ten that are exact in an f64, for the fast path's decimals.
const POW10: [f64; MAX_FAST_DIGITS + 1] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];

/// Why parsing stopped.
#[derive(Debug)]
pub(super) enum Error {
    /// The input is not one JSON document, or holds a value the preview cannot read (a lone
    /// surrogate, invalid UTF-8, a number beyond f64) where it reads values.
    Invalid,
    /// Reading the input failed.
    Io(io::Error),
}

impl From<io::Error> for Error {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

impl From<serde_json::Error> for Error {
    fn from(error: serde_json::Error) -> Self {
        if error.is_io() {
            Self::Io(error.into())
        } else {
            Self::Invalid
        }
    }
}

type Result<T> = std::result::Result<T, Error>;

/// Reads one JSON document from `input`, value by value; [`Parser::end`] checks that nothing but
/// whitespace follows it.
pub(super) struct Parser<R> {
    input: R,
    /// The input read and not yet parsed past, checked as UTF-8 once, so that strings are lent
    /// from it without a check each: the check of a whole buffer (about 30 GB/s on ASCII) costs
    /// less than the calls for the strings in it. Bytes that are not UTF-8 are replaced by `?`
    /// (one for one, and the syntax stays the same: neither is anything outside a string, both
    /// are plain inside one) and listed in `invalid`.
    text: String,
    /// Next byte to read in `text`.
    pos: usize,
    /// End of `text`.
    end: usize,
    /// Where `text` holds `?` in place of bytes that are not UTF-8, in order.
    invalid: Vec<usize>,
    /// The start of a character cut by the end of a read, held for the next one.
    carry: Vec<u8>,
    /// An error met while reading after a `carry`, returned once the carry is parsed (which may
    /// end the document first, as it would byte by byte).
    pending_error: Option<io::Error>,
    /// A string that straddles a refill or holds escapes, decoded.
    scratch: Scratch,
    /// The brackets open in a value being skipped (`[` or `{`).
    open: Vec<u8>,
}

impl<R> fmt::Debug for Parser<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Parser")
            .field("pos", &self.pos)
            .field("end", &self.end)
            .field("open", &self.open.len())
            .finish_non_exhaustive()
    }
}

impl<R: Read> Parser<R> {
    pub(super) fn new(input: R) -> Self {
        Self {
            input,
            text: String::new(),
            pos: 0,
            end: 0,
            invalid: Vec::new(),
            carry: Vec::new(),
            pending_error: None,
            scratch: Scratch::default(),
            open: Vec::new(),
        }
    }

    /// Checks that only whitespace follows the document.
    pub(super) fn end(&mut self) -> Result<()> {
        match self.peek_token()? {
            None => Ok(()),
            Some(_) => Err(Error::Invalid),
        }
    }

    /// The next value's type. An array's `[`, an object's `{`, a string's opening quote and a
    /// literal are consumed; a number is left for [`Parser::read_number`] or
    /// [`Parser::skip_value`].
    #[inline(always)]
    pub(super) fn next_value(&mut self) -> Result<Token> {
        let token = match self.peek_token()?.ok_or(Error::Invalid)? {
            b'"' => Token::String,
            b'-' | b'0'..=b'9' => return Ok(Token::Number),
            b'[' => Token::Array,
            b'{' => Token::Object,
            b'n' => return self.literal(b"null").map(|()| Token::Null),
            b't' => return self.literal(b"true").map(|()| Token::Bool(true)),
            b'f' => return self.literal(b"false").map(|()| Token::Bool(false)),
            _ => return Err(Error::Invalid),
        };
        self.pos += 1;
        Ok(token)
    }

    /// Whether an array whose `[` is consumed has another item (`first`: its first); consumes
    /// the `,` before it, or the closing `]`.
    #[inline(always)]
    pub(super) fn next_item(&mut self, first: bool) -> Result<bool> {
        match self.peek_token()? {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            // Whatever it is, the item's own parse checks it.
            Some(_) if first => Ok(true),
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(Error::Invalid),
        }
    }

    /// Whether an object whose `{` is consumed has another key (`first`: its first); consumes
    /// the `,` before it and the key's opening quote, or the closing `}`.
    #[inline(always)]
    pub(super) fn next_key(&mut self, first: bool) -> Result<bool> {
        match self.peek_token()? {
            Some(b'}') => {
                self.pos += 1;
                return Ok(false);
            }
            Some(b'"') if first => {}
            Some(b',') if !first => {
                self.pos += 1;
                if self.peek_token()? != Some(b'"') {
                    return Err(Error::Invalid);
                }
            }
            _ => return Err(Error::Invalid),
        }
        self.pos += 1;
        Ok(true)
    }

    /// Consumes the key whose opening quote is consumed if it is `name` as it stands, closing
    /// quote included; `name` holds no quote, backslash or control character. This is how
    /// the keys of objects that repeat are matched, without decoding them.
    #[inline(always)]
    pub(super) fn key_is(&mut self, name: &[u8]) -> bool {
        let len = name.len();
        match self.text.as_bytes().get(self.pos..=self.pos + len) {
            Some(raw)
                if raw[len] == b'"'
                    && same_bytes(&raw[..len], name)
                    && !self.has_invalid(self.pos, self.pos + len) =>
            {
                self.pos += len + 1;
                true
            }
            _ => false,
        }
    }

    /// Consumes the `:` after a key.
    #[inline(always)]
    pub(super) fn colon(&mut self) -> Result<()> {
        self.expect(b':')
    }

    /// Reads more input once the buffer is used up; false at the end of the input.
    #[cold]
    fn refill(&mut self) -> io::Result<bool> {
        debug_assert_eq!(self.pos, self.end);
        if let Some(error) = self.pending_error.take() {
            return Err(error);
        }
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        self.pos = 0;
        self.end = 0;
        self.invalid.clear();
        // Reads until a whole character came, or the input ended.
        loop {
            bytes.clear();
            bytes.append(&mut self.carry);
            let kept = bytes.len();
            bytes.resize(BUFFER_BYTES, 0);
            let read = loop {
                match self.input.read(&mut bytes[kept..]) {
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    read => break read,
                }
            };
            let n = match read {
                Ok(n) => n,
                // The carried bytes first, as a byte-by-byte parse would see them.
                Err(error) if kept > 0 => {
                    self.pending_error = Some(error);
                    0
                }
                Err(error) => return Err(error),
            };
            bytes.truncate(kept + n);
            self.text = self.checked_text(bytes, n == 0);
            self.end = self.text.len();
            if self.end > 0 || n == 0 {
                return Ok(self.end > 0);
            }
            bytes = std::mem::take(&mut self.text).into_bytes();
        }
    }

    /// `bytes` as text: an incomplete character at the end goes to `carry` (unless the input
    /// `ended`), bytes that are not UTF-8 become `?` and are listed in `invalid`.
    fn checked_text(&mut self, bytes: Vec<u8>, ended: bool) -> String {
        let mut bytes = match String::from_utf8(bytes) {
            Ok(text) => return text,
            Err(error) => error.into_bytes(),
        };
        let mut checked = 0;
        while let Err(error) = std::str::from_utf8(&bytes[checked..]) {
            let bad = checked + error.valid_up_to();
            let len = match error.error_len() {
                Some(len) => len,
                None if !ended => {
                    self.carry.extend_from_slice(&bytes[bad..]);
                    bytes.truncate(bad);
                    break;
                }
                None => bytes.len() - bad,
            };
            for (i, byte) in bytes.iter_mut().enumerate().skip(bad).take(len) {
                *byte = b'?';
                self.invalid.push(i);
            }
            checked = bad + len;
        }
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// Whether `text[start..end]` holds bytes that were not UTF-8.
    #[inline]
    fn has_invalid(&self, start: usize, end: usize) -> bool {
        !self.invalid.is_empty() && {
            let first = self.invalid.partition_point(|&i| i < start);
            self.invalid.get(first).is_some_and(|&i| i < end)
        }
    }

    /// The next byte, consumed.
    #[inline]
    fn next_byte(&mut self) -> Result<Option<u8>> {
        if self.pos == self.end && !self.refill()? {
            return Ok(None);
        }
        let byte = self.text.as_bytes()[self.pos];
        self.pos += 1;
        Ok(Some(byte))
    }

    /// The next byte that is not whitespace, not consumed; `None` at the end of the input.
    #[inline(always)]
    fn peek_token(&mut self) -> Result<Option<u8>> {
        // Compact documents have no whitespace between tokens: one test.
        match self.text.as_bytes()[..self.end].get(self.pos) {
            Some(&byte) if byte > b' ' => Ok(Some(byte)),
            _ => self.peek_token_slowly(),
        }
    }

    fn peek_token_slowly(&mut self) -> Result<Option<u8>> {
        loop {
            while self.pos < self.end {
                let byte = self.text.as_bytes()[self.pos];
                if !matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
                    return Ok(Some(byte));
                }
                self.pos += 1;
            }
            if !self.refill()? {
                return Ok(None);
            }
        }
    }

    /// Consumes `byte` as the next token, or fails.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Result<()> {
        if self.peek_token()? == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Error::Invalid)
        }
    }

    /// Consumes `null`, `true` or `false`, whose first byte was peeked.
    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if let Some(next) = self.text.as_bytes().get(self.pos..self.pos + word.len()) {
            if next != word {
                return Err(Error::Invalid);
            }
            self.pos += word.len();
            return Ok(());
        }
        for &expected in word {
            if self.next_byte()? != Some(expected) {
                return Err(Error::Invalid);
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------------
    // Strings

    /// A string whose opening quote is consumed, checked as serde_json checks the strings it
    /// reads: no control characters, valid escapes, surrogates in pairs, UTF-8.
    pub(super) fn read_str(&mut self) -> Result<Str<'_>> {
        let start = self.pos;
        let available = &self.text.as_bytes()[start..self.end];
        if let (Some(len), ascii) = find_special(available)
            && available[len] == b'"'
        {
            let end = start + len;
            self.pos = end + 1;
            if self.has_invalid(start, end) {
                return Err(Error::Invalid);
            }
            // Between two quotes: on character boundaries.
            let text = self.text.get(start..end).ok_or(Error::Invalid)?;
            return Ok(Str {
                text,
                ascii,
                dropped_chars: 0,
            });
        }
        self.read_str_slowly()
    }

    /// [`Parser::read_str`] for strings with escapes or across refills: decoded into `scratch`.
    #[cold]
    fn read_str_slowly(&mut self) -> Result<Str<'_>> {
        self.scratch.clear();
        // Bytes that are not UTF-8 are refused at the end of the string, as serde_json refuses
        // them: until then, reading goes on (and may fail first).
        let mut invalid = false;
        loop {
            let start = self.pos;
            let available = &self.text.as_bytes()[start..self.end];
            let (found, _) = find_special(available);
            let len = found.unwrap_or(available.len());
            self.scratch.push(&available[..len]);
            invalid |= self.has_invalid(start, start + len);
            let Some(special) = found.map(|len| available[len]) else {
                self.pos = self.end;
                if !self.refill()? {
                    return Err(Error::Invalid);
                }
                continue;
            };
            self.pos += len + 1;
            match special {
                b'"' if invalid => return Err(Error::Invalid),
                b'"' => break,
                b'\\' => self.read_escape()?,
                _control => return Err(Error::Invalid),
            }
        }
        // UTF-8 by now (escapes decode to whole characters, and a read ends on a whole one);
        // the check is what lends it as a `&str`.
        let text = std::str::from_utf8(&self.scratch.bytes).map_err(|_| Error::Invalid)?;
        Ok(Str {
            text,
            ascii: false,
            dropped_chars: self.scratch.dropped_chars,
        })
    }

    /// Decodes an escape whose backslash is consumed into `scratch`.
    fn read_escape(&mut self) -> Result<()> {
        let decoded = match self.next_byte()? {
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'/') => b'/',
            Some(b'b') => 0x08,
            Some(b'f') => 0x0c,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'u') => return self.read_unicode_escape(),
            _ => return Err(Error::Invalid),
        };
        self.scratch.push(&[decoded]);
        Ok(())
    }

    /// `\uXXXX`, or two of them for a surrogate pair; a surrogate on its own is refused, as
    /// serde_json refuses it for a string it reads.
    fn read_unicode_escape(&mut self) -> Result<()> {
        let unit = self.hex_escape()?;
        let code = match unit {
            0xDC00..=0xDFFF => return Err(Error::Invalid),
            0xD800..=0xDBFF => {
                if self.next_byte()? != Some(b'\\') || self.next_byte()? != Some(b'u') {
                    return Err(Error::Invalid);
                }
                let low = self.hex_escape()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(Error::Invalid);
                }
                0x1_0000 + ((u32::from(unit) - 0xD800) << 10 | (u32::from(low) - 0xDC00))
            }
            _ => u32::from(unit),
        };
        let c = char::from_u32(code).ok_or(Error::Invalid)?;
        let mut utf8 = [0; 4];
        self.scratch.push(c.encode_utf8(&mut utf8).as_bytes());
        Ok(())
    }

    /// The four hex digits of a `\u` escape, all read before any is checked (as serde_json does,
    /// so that both stop reading at the same byte).
    fn hex_escape(&mut self) -> Result<u16> {
        let mut digits = [0u8; 4];
        for digit in &mut digits {
            *digit = self.next_byte()?.ok_or(Error::Invalid)?;
        }
        digits.iter().try_fold(0u16, |unit, &b| {
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(Error::Invalid),
            };
            Ok(unit << 4 | u16::from(digit))
        })
    }

    /// Skips a string whose opening quote is consumed, checked as serde_json checks strings it
    /// ignores: no control characters and valid escapes, but any bytes and any `\u` code unit.
    fn skip_str(&mut self) -> Result<()> {
        loop {
            let available = &self.text.as_bytes()[self.pos..self.end];
            let (Some(len), _) = find_special(available) else {
                self.pos = self.end;
                if !self.refill()? {
                    return Err(Error::Invalid);
                }
                continue;
            };
            let special = available[len];
            self.pos += len + 1;
            match special {
                b'"' => return Ok(()),
                b'\\' => match self.next_byte()? {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {}
                    Some(b'u') => {
                        self.hex_escape()?;
                    }
                    _ => return Err(Error::Invalid),
                },
                _control => return Err(Error::Invalid),
            }
        }
    }

    // -----------------------------------------------------------------------
    // Numbers

    /// A number at the position, with the value serde_json gives it; one beyond f64 is refused.
    #[inline(always)]
    pub(super) fn read_number(&mut self) -> Result<Number> {
        match fast_number(&self.text.as_bytes()[self.pos..self.end]) {
            Some((number, len)) => {
                self.pos += len;
                Ok(number)
            }
            None => self.read_number_slowly(),
        }
    }

    /// [`Parser::read_number`] for exponents, long or malformed numbers, and numbers that may go
    /// on after a refill: serde_json reads them.
    #[cold]
    fn read_number_slowly(&mut self) -> Result<Number> {
        let start = self.pos;
        let available = &self.text.as_bytes()[start..self.end];
        let Some(len) = available.iter().position(|&b| !is_number_byte(b)) else {
            return self.read_number_streamed();
        };
        self.pos = start + len;
        let token = &self.text.as_bytes()[start..start + len];
        Ok(serde_json::from_slice::<serde_json::Number>(token)?.into())
    }

    #[cold]
    fn read_number_streamed(&mut self) -> Result<Number> {
        let number: serde_json::Number = serde_json::from_reader(NumberBytes { parser: self })?;
        Ok(number.into())
    }

    /// Skips a number, checking only its syntax, as serde_json does for a number it ignores.
    fn skip_number(&mut self) -> Result<()> {
        let mut state = NumberState::Start;
        loop {
            let available = &self.text.as_bytes()[self.pos..self.end];
            for (len, &byte) in available.iter().enumerate() {
                match state.next(byte) {
                    Some(next) => state = next,
                    None => {
                        // What follows is the caller's to check: anything that could go on a
                        // number is an error there.
                        self.pos += len;
                        return if state.is_complete() {
                            Ok(())
                        } else {
                            Err(Error::Invalid)
                        };
                    }
                }
            }
            self.pos = self.end;
            if !self.refill()? {
                return if state.is_complete() {
                    Ok(())
                } else {
                    Err(Error::Invalid)
                };
            }
        }
    }

    // -----------------------------------------------------------------------
    // Skipping

    /// Skips one value, checking its syntax as serde_json's `IgnoredAny` does, without recursion.
    pub(super) fn skip_value(&mut self) -> Result<()> {
        self.open.clear();
        loop {
            // A value.
            match self.peek_token()?.ok_or(Error::Invalid)? {
                b'"' => {
                    self.pos += 1;
                    self.skip_str()?;
                }
                b'-' | b'0'..=b'9' => self.skip_number()?,
                b'n' => self.literal(b"null")?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                open @ (b'[' | b'{') => {
                    self.pos += 1;
                    let close = if open == b'[' { b']' } else { b'}' };
                    if self.peek_token()? == Some(close) {
                        self.pos += 1;
                    } else {
                        if self.open.len() >= MAX_SKIPPED_DEPTH {
                            return Err(Error::Invalid);
                        }
                        self.open.push(open);
                        if open == b'{' {
                            self.skip_key()?;
                        }
                        continue;
                    }
                }
                _ => return Err(Error::Invalid),
            }
            // After a value: the next one, or the ends of the containers it closes.
            loop {
                let Some(&open) = self.open.last() else {
                    return Ok(());
                };
                match self.peek_token()? {
                    Some(b',') => {
                        self.pos += 1;
                        if open == b'{' {
                            self.skip_key()?;
                        }
                        break;
                    }
                    Some(b']') if open == b'[' => {}
                    Some(b'}') if open == b'{' => {}
                    _ => return Err(Error::Invalid),
                }
                self.pos += 1;
                self.open.pop();
            }
        }
    }

    /// A key of a skipped object, and its colon.
    fn skip_key(&mut self) -> Result<()> {
        self.expect(b'"')?;
        self.skip_str()?;
        self.expect(b':')
    }
}

/// Index of the first quote, backslash or control character (what ends a plain run in a string),
/// and whether the bytes before it are all ASCII. Eight bytes at a time: a byte is found where
/// `word - 0x01…` borrows into a byte that `word` (or `word ^ pattern`) has below 0x80; the
/// lowest such byte is always a real match.
#[inline]
fn find_special(bytes: &[u8]) -> (Option<usize>, bool) {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    const SPACES: u64 = u64::from_ne_bytes([0x20; 8]);
    // The bytes before the special one, or-ed together.
    let mut seen = 0u64;
    let (words, rest) = bytes.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let word = u64::from_le_bytes(*word);
        let quotes = word ^ QUOTES;
        let backslashes = word ^ BACKSLASHES;
        let found = (quotes.wrapping_sub(ONES) & !quotes
            | backslashes.wrapping_sub(ONES) & !backslashes
            | word.wrapping_sub(SPACES) & !word)
            & HIGHS;
        if found != 0 {
            // The lowest bit of `found` is the top bit of the special byte; below it, the bytes
            // before that one.
            let special = found & found.wrapping_neg();
            seen |= word & ((special >> 7) - 1);
            let index = (special.trailing_zeros() / 8) as usize;
            return (Some(i * 8 + index), seen & HIGHS == 0);
        }
        seen |= word;
    }
    for (i, &byte) in rest.iter().enumerate() {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            return (Some(words.len() * 8 + i), seen & HIGHS == 0);
        }
        seen |= u64::from(byte);
    }
    (None, seen & HIGHS == 0)
}

/// A string being decoded: whole, or past `KEEP_STRING_HEAD + 2 * KEEP_STRING_TAIL` bytes its
/// start and its end, with the characters of the middle counted.
#[derive(Debug, Default)]
struct Scratch {
    bytes: Vec<u8>,
    /// Where the kept start ends in `bytes`, once the middle was dropped.
    cut: Option<usize>,
    dropped_chars: u64,
}

impl Scratch {
    fn clear(&mut self) {
        self.bytes.clear();
        self.cut = None;
        self.dropped_chars = 0;
    }

    /// Appends decoded bytes (whole characters), dropping the middle of a string grown past what
    /// is kept of it. Each drop removes at least [`KEEP_STRING_TAIL`] bytes and moves as many, so
    /// a long string costs a copy of itself once at most.
    fn push(&mut self, piece: &[u8]) {
        self.bytes.extend_from_slice(piece);
        if self.bytes.len() <= KEEP_STRING_HEAD + 2 * KEEP_STRING_TAIL {
            return;
        }
        let bytes = &self.bytes;
        let head_end = *self
            .cut
            .get_or_insert_with(|| char_floor(bytes, KEEP_STRING_HEAD));
        let tail_start = char_floor(bytes, bytes.len() - KEEP_STRING_TAIL).max(head_end);
        self.dropped_chars += crate::preview::text::count_chars(&bytes[head_end..tail_start]);
        self.bytes.drain(head_end..tail_start);
    }
}

/// A string read from the document.
#[derive(Debug, Clone, Copy)]
pub(super) struct Str<'a> {
    /// The string; for a very long one, its first and last [`KEEP_STRING_HEAD`] and
    /// [`KEEP_STRING_TAIL`] bytes, joined.
    pub text: &'a str,
    /// All ASCII, so that its length in bytes is its length in characters; `false` when not
    /// known.
    pub ascii: bool,
    /// Characters dropped from the middle of a very long string.
    pub dropped_chars: u64,
}

impl Str<'_> {
    /// Characters of the whole string.
    pub(super) fn chars(self) -> u64 {
        let kept = if self.ascii {
            self.text.len() as u64
        } else {
            crate::preview::text::count_chars(self.text.as_bytes())
        };
        kept + self.dropped_chars
    }
}

/// The start of the character at or before `at` in UTF-8 `bytes`.
fn char_floor(bytes: &[u8], at: usize) -> usize {
    let mut at = at.min(bytes.len());
    // A continuation byte is 0b10xx_xxxx: -64..-1 as i8.
    while at > 0 && at < bytes.len() && (bytes[at] as i8) < -0x40 {
        at -= 1;
    }
    at
}

/// What comes next, as [`Parser::next_value`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    Null,
    Bool(bool),
    Number,
    String,
    Array,
    Object,
}

/// `a == b` for short strings (keys, enum values), without a call to `memcmp`.
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Bytes that can be part of a number.
fn is_number_byte(byte: u8) -> bool {
    matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

/// A number's value, as serde_json gives it to a visitor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

/// serde_json's parser makes non-negative integers u64, negative ones i64, and the rest f64;
/// a `Number` keeps which.
impl From<serde_json::Number> for Number {
    fn from(number: serde_json::Number) -> Self {
        match (number.as_u64(), number.as_i64(), number.as_f64()) {
            (Some(n), _, _) => Self::U64(n),
            (None, Some(n), _) => Self::I64(n),
            (None, None, x) => Self::F64(x.unwrap_or(f64::NAN)),
        }
    }
}

/// The value of the number `bytes` start with, and its length, for the common numbers whose value
/// is certain to be serde_json's: integers of up to 18 digits (serde_json's rules: negative ones
/// are i64, `-0` is the float -0.0), and decimals without exponent whose digits make an integer of
/// at most 2^53. `None` for anything else, malformed numbers included, and for a number that
/// reaches the end of `bytes` (it may go on).
#[inline(always)]
fn fast_number(bytes: &[u8]) -> Option<(Number, usize)> {
    let negative = bytes.first() == Some(&b'-');
    let int_start = usize::from(negative);
    let mut significand = 0u64;
    let mut end = take_digits(bytes, int_start, &mut significand);
    let int_len = end - int_start;
    if int_len == 0 || int_len > MAX_FAST_DIGITS || int_len > 1 && bytes[int_start] == b'0' {
        return None;
    }
    let mut fraction_len = 0;
    if bytes.get(end) == Some(&b'.') {
        let fraction_start = end + 1;
        end = take_digits(bytes, fraction_start, &mut significand);
        fraction_len = end - fraction_start;
        if fraction_len == 0 || int_len + fraction_len > MAX_FAST_DIGITS {
            return None;
        }
    }
    // The number ends inside `bytes`, at a byte that cannot go on a number.
    match bytes.get(end) {
        Some(&byte) if !is_number_byte(byte) => {}
        _ => return None,
    }
    let number = if fraction_len > 0 {
        if significand > MAX_EXACT_SIGNIFICAND {
            return None;
        }
        // Both operands are exact, so the quotient is correctly rounded: the value serde_json's
        // parser gives, with or without its `float_roundtrip` feature.
        let x = significand as f64 / POW10[fraction_len];
        Number::F64(if negative { -x } else { x })
    } else {
        match (negative, i64::try_from(significand)) {
            (false, _) => Number::U64(significand),
            (true, Ok(0)) => Number::F64(-0.0),
            (true, Ok(n)) => Number::I64(-n),
            (true, Err(_)) => return None,
        }
    };
    Some((number, end))
}

/// Appends the decimal digits of `bytes` from `at` to `significand` (wrapping: the caller bounds
/// how many count) and returns where they end.
#[inline(always)]
fn take_digits(bytes: &[u8], mut at: usize, significand: &mut u64) -> usize {
    while let Some(&byte) = bytes.get(at)
        && byte.is_ascii_digit()
    {
        *significand = significand
            .wrapping_mul(10)
            .wrapping_add(u64::from(byte - b'0'));
        at += 1;
    }
    at
}

/// Where a skipped number's syntax is: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
#[derive(Debug, Clone, Copy)]
enum NumberState {
    Start,
    Minus,
    Zero,
    Integer,
    Point,
    Fraction,
    E,
    ExponentSign,
    Exponent,
}

impl NumberState {
    /// The state after `byte`, or `None` if the number cannot go on with it.
    #[inline]
    fn next(self, byte: u8) -> Option<Self> {
        use NumberState::{
            E, Exponent, ExponentSign, Fraction, Integer, Minus, Point, Start, Zero,
        };
        Some(match (self, byte) {
            (Start, b'-') => Minus,
            (Start | Minus, b'0') => Zero,
            (Start | Minus, b'1'..=b'9') | (Integer, b'0'..=b'9') => Integer,
            (Zero | Integer, b'.') => Point,
            (Point | Fraction, b'0'..=b'9') => Fraction,
            (Zero | Integer | Fraction, b'e' | b'E') => E,
            (E, b'+' | b'-') => ExponentSign,
            (E | ExponentSign | Exponent, b'0'..=b'9') => Exponent,
            _ => return None,
        })
    }

    fn is_complete(self) -> bool {
        matches!(
            self,
            NumberState::Zero
                | NumberState::Integer
                | NumberState::Fraction
                | NumberState::Exponent
        )
    }
}

/// The bytes of the number at the parser's position, up to the first byte that cannot be part of
/// one, as a stream for serde_json.
struct NumberBytes<'a, R> {
    parser: &'a mut Parser<R>,
}

impl<R: Read> Read for NumberBytes<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let parser = &mut *self.parser;
        if parser.pos == parser.end && !parser.refill()? {
            return Ok(0);
        }
        let available = &parser.text.as_bytes()[parser.pos..parser.end];
        let len = available
            .iter()
            .take(out.len())
            .take_while(|&&b| is_number_byte(b))
            .count();
        out[..len].copy_from_slice(&available[..len]);
        parser.pos += len;
        Ok(len)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A string of any length costs a bounded buffer; its length is still counted exactly and its
    /// start and end are the real ones, escapes and multi-byte characters included.
    #[test]
    fn a_very_long_string_keeps_its_ends_and_counts_its_middle() {
        let unit = "é€😀 \\n\\u00e9\\ud83d\\ude00 plain text ";
        let decoded = "é€😀 \né😀 plain text ";
        let repeats = 200_000; // 8.4 MB of JSON, 5.8 MB decoded
        let mut doc = String::from("\"<start>");
        let mut whole = String::from("<start>");
        for _ in 0..repeats {
            doc.push_str(unit);
            whole.push_str(decoded);
        }
        doc.push_str("<end>\"");
        whole.push_str("<end>");
        // Through a small reader, so the string crosses many refills.
        let mut parser = Parser::new(std::io::BufReader::with_capacity(4_096, doc.as_bytes()));
        assert_eq!(parser.next_value().unwrap(), Token::String);
        let read = parser.read_str().unwrap();
        assert_eq!(read.chars(), whole.chars().count() as u64);
        assert!(read.text.len() <= KEEP_STRING_HEAD + 2 * KEEP_STRING_TAIL);
        let (whole_bytes, kept_bytes) = (whole.as_bytes(), read.text.as_bytes());
        assert!(whole_bytes.starts_with(&kept_bytes[..KEEP_STRING_HEAD - 4]));
        assert!(whole_bytes.ends_with(&kept_bytes[kept_bytes.len() - KEEP_STRING_TAIL + 4..]));
        let kept = read.text.len();
        assert!(kept < whole.len() / 2, "{kept} of {}", whole.len());
        assert!(parser.scratch.bytes.capacity() <= 4 * (KEEP_STRING_HEAD + KEEP_STRING_TAIL));
        parser.end().unwrap();
    }

    #[test]
    fn a_string_just_under_the_limit_is_kept_whole() {
        let text = "x".repeat(KEEP_STRING_HEAD + 2 * KEEP_STRING_TAIL - 10) + "\\n";
        let doc = format!("\"{text}\"");
        let mut parser = Parser::new(doc.as_bytes());
        parser.next_value().unwrap();
        let read = parser.read_str().unwrap();
        assert_eq!(read.dropped_chars, 0);
        assert_eq!(read.text.len(), text.len() - 1);
        assert!(read.text.ends_with("x\n"));
    }
}
