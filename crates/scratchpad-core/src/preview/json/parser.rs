//! The JSON parser behind the shape preview: a serde `Deserializer` over any `Read`, reading
//! through one fixed buffer, so that a 1 GB document costs the same memory as a small one.
//!
//! It accepts exactly what serde_json's `from_reader` accepts when it drives the same fold, and
//! hands the fold the same values; serde_json is what the preview used before, and the tests hold
//! the two side by side. It is faster where the fold lets it be:
//!
//! - Strings are scanned eight bytes at a time and handed out borrowed from the buffer when they
//!   hold no escape and do not straddle a refill; serde_json's reader path copies every byte.
//! - Numbers the fold reads take a fast path for integers and plain decimals whose value is exact
//!   (an integer below 2^53 divided by a power of ten is correctly rounded, which is what either
//!   of serde_json's float parsers returns); any other number is handed to serde_json itself.
//! - Values the fold skips are only checked for syntax, in a loop with a stack of open brackets,
//!   so that nesting depth costs one byte per level and no recursion.
//!
//! What is checked where is serde_json's: a value read with `deserialize_any`, and every key of an
//! object read that way, must be UTF-8 without lone surrogates (`\ud800` alone), and its numbers
//! must fit an f64; a value read with `deserialize_ignored_any` is only checked for JSON syntax,
//! control characters in strings, and escapes, as serde_json's `IgnoredAny` is.

use std::fmt;
use std::io::{self, Read};

use serde::de::{self, DeserializeSeed, Visitor};

/// Input read at a time (bytes): a few pages, small enough to stay in the L2 cache.
const BUFFER_BYTES: usize = 64 * 1024;

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

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid => f.write_str("not a JSON document"),
            Self::Io(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Self::Invalid
    }
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

/// Reads one JSON document from `input`; `&mut Parser` is the serde `Deserializer`, and
/// [`Parser::end`] checks that nothing but whitespace follows the document.
pub(super) struct Parser<R> {
    input: R,
    buf: Box<[u8]>,
    /// Next byte to read in `buf`.
    pos: usize,
    /// End of the input held in `buf`.
    end: usize,
    /// A string that straddles a refill or holds escapes, decoded.
    scratch: Vec<u8>,
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
            buf: vec![0; BUFFER_BYTES].into_boxed_slice(),
            pos: 0,
            end: 0,
            scratch: Vec::new(),
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

    /// Reads more input once the buffer is used up; false at the end of the input.
    #[cold]
    fn refill(&mut self) -> io::Result<bool> {
        debug_assert_eq!(self.pos, self.end);
        loop {
            match self.input.read(&mut self.buf) {
                Ok(n) => {
                    self.pos = 0;
                    self.end = n;
                    return Ok(n > 0);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// The next byte, consumed.
    #[inline]
    fn next_byte(&mut self) -> Result<Option<u8>> {
        if self.pos == self.end && !self.refill()? {
            return Ok(None);
        }
        let byte = self.buf[self.pos];
        self.pos += 1;
        Ok(Some(byte))
    }

    /// The next byte that is not whitespace, not consumed; `None` at the end of the input.
    #[inline]
    fn peek_token(&mut self) -> Result<Option<u8>> {
        loop {
            while self.pos < self.end {
                let byte = self.buf[self.pos];
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
    #[inline]
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
        if let Some(next) = self.buf[..self.end].get(self.pos..self.pos + word.len()) {
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
    fn read_str(&mut self) -> Result<&str> {
        let start = self.pos;
        let available = &self.buf[start..self.end];
        if let Some(len) = find_special(available)
            && available[len] == b'"'
        {
            self.pos = start + len + 1;
            return std::str::from_utf8(&self.buf[start..start + len]).map_err(|_| Error::Invalid);
        }
        self.read_str_slowly()
    }

    /// [`Parser::read_str`] for strings with escapes or across refills: decoded into `scratch`.
    #[cold]
    fn read_str_slowly(&mut self) -> Result<&str> {
        self.scratch.clear();
        loop {
            let available = &self.buf[self.pos..self.end];
            let Some(len) = find_special(available) else {
                self.scratch.extend_from_slice(available);
                self.pos = self.end;
                if !self.refill()? {
                    return Err(Error::Invalid);
                }
                continue;
            };
            let special = available[len];
            self.scratch.extend_from_slice(&available[..len]);
            self.pos += len + 1;
            match special {
                b'"' => break,
                b'\\' => self.read_escape()?,
                _control => return Err(Error::Invalid),
            }
        }
        // Escapes decode to whole characters, so the raw runs between them are what can be
        // invalid; checking the whole is what serde_json does.
        std::str::from_utf8(&self.scratch).map_err(|_| Error::Invalid)
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
        self.scratch.push(decoded);
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
        self.scratch
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
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
            let available = &self.buf[self.pos..self.end];
            let Some(len) = find_special(available) else {
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

    /// A number for `visitor`, with the value serde_json would give it; one beyond f64 is
    /// refused.
    fn read_number<'de, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let start = self.pos;
        let available = &self.buf[start..self.end];
        let Some(len) = available.iter().position(|&b| !is_number_byte(b)) else {
            // The number may go on after a refill, for any length: serde_json reads it from
            // the stream.
            return self.read_number_streamed(visitor);
        };
        self.pos = start + len;
        let token = &self.buf[start..start + len];
        match fast_number(token) {
            Some(number) => number.visit(visitor),
            // Exponents, long or malformed numbers.
            None => {
                Number::from(serde_json::from_slice::<serde_json::Number>(token)?).visit(visitor)
            }
        }
    }

    #[cold]
    fn read_number_streamed<'de, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let number: serde_json::Number = serde_json::from_reader(NumberBytes { parser: self })?;
        Number::from(number).visit(visitor)
    }

    /// Skips a number, checking only its syntax, as serde_json does for a number it ignores.
    fn skip_number(&mut self) -> Result<()> {
        let mut state = NumberState::Start;
        loop {
            let available = &self.buf[self.pos..self.end];
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
    fn skip_value(&mut self) -> Result<()> {
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

/// Index of the first quote, backslash or control character: what ends a plain run in a string.
/// Eight bytes at a time: a byte is found where `word - 0x01…` borrows into a byte that `word`
/// (or `word ^ pattern`) has below 0x80; the lowest such byte is always a real match.
#[inline]
fn find_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    const SPACES: u64 = u64::from_ne_bytes([0x20; 8]);
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
            return Some(i * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|i| words.len() * 8 + i)
}

/// Bytes that can be part of a number.
fn is_number_byte(byte: u8) -> bool {
    matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

/// A number's value, as serde_json gives it to a visitor.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Number {
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Number {
    fn visit<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Self::U64(n) => visitor.visit_u64(n),
            Self::I64(n) => visitor.visit_i64(n),
            Self::F64(x) => visitor.visit_f64(x),
        }
    }
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

/// The value of the common numbers where it is certain to be serde_json's: integers of up to 18
/// digits (serde_json's rules: negative ones are i64, `-0` is the float -0.0), and decimals
/// without exponent whose digits make an integer of at most 2^53. `None` for anything else,
/// malformed numbers included.
fn fast_number(token: &[u8]) -> Option<Number> {
    let (negative, digits) = match token {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    let int_len = digits
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    if int_len == 0 || int_len > MAX_FAST_DIGITS || int_len > 1 && digits[0] == b'0' {
        return None;
    }
    let (int, rest) = digits.split_at(int_len);
    let mut significand = int.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
    let fraction = match rest {
        [] => {
            return Some(match (negative, i64::try_from(significand)) {
                (false, _) => Number::U64(significand),
                (true, Ok(0)) => Number::F64(-0.0),
                (true, Ok(n)) => Number::I64(-n),
                (true, Err(_)) => return None,
            });
        }
        [b'.', fraction @ ..] => fraction,
        _ => return None,
    };
    if fraction.is_empty()
        || int_len + fraction.len() > MAX_FAST_DIGITS
        || !fraction.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    significand = fraction
        .iter()
        .fold(significand, |n, &d| n * 10 + u64::from(d - b'0'));
    if significand > MAX_EXACT_SIGNIFICAND {
        return None;
    }
    // Both operands are exact, so the quotient is correctly rounded: the value serde_json's
    // parser gives, with or without its `float_roundtrip` feature.
    let x = significand as f64 / POW10[fraction.len()];
    Some(Number::F64(if negative { -x } else { x }))
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
        let available = &parser.buf[parser.pos..parser.end];
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

// ---------------------------------------------------------------------------
// serde

impl<'de, R: Read> de::Deserializer<'de> for &mut Parser<R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek_token()?.ok_or(Error::Invalid)? {
            b'"' => {
                self.pos += 1;
                visitor.visit_str(self.read_str()?)
            }
            b'-' | b'0'..=b'9' => self.read_number(visitor),
            b'[' => {
                self.pos += 1;
                let value = visitor.visit_seq(Items {
                    parser: &mut *self,
                    first: true,
                })?;
                self.expect(b']')?;
                Ok(value)
            }
            b'{' => {
                self.pos += 1;
                let value = visitor.visit_map(Entries {
                    parser: &mut *self,
                    first: true,
                })?;
                self.expect(b'}')?;
                Ok(value)
            }
            b'n' => {
                self.literal(b"null")?;
                visitor.visit_unit()
            }
            b't' => {
                self.literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                visitor.visit_bool(false)
            }
            _ => Err(Error::Invalid),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}

/// The items of an array whose `[` is consumed; the `]` is left for the caller.
struct Items<'a, R> {
    parser: &'a mut Parser<R>,
    first: bool,
}

impl<'de, R: Read> de::SeqAccess<'de> for Items<'_, R> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.parser.peek_token()? {
            Some(b']') => return Ok(None),
            Some(b',') if !self.first => self.parser.pos += 1,
            Some(_) if self.first => self.first = false,
            _ => return Err(Error::Invalid),
        }
        seed.deserialize(&mut *self.parser).map(Some)
    }
}

/// The entries of an object whose `{` is consumed; the `}` is left for the caller.
struct Entries<'a, R> {
    parser: &'a mut Parser<R>,
    first: bool,
}

impl<'de, R: Read> de::MapAccess<'de> for Entries<'_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.parser.peek_token()? {
            Some(b'}') => return Ok(None),
            Some(b',') if !self.first => {
                self.parser.pos += 1;
                if self.parser.peek_token()? != Some(b'"') {
                    return Err(Error::Invalid);
                }
            }
            Some(b'"') if self.first => self.first = false,
            _ => return Err(Error::Invalid),
        }
        seed.deserialize(Key {
            parser: &mut *self.parser,
        })
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.parser.expect(b':')?;
        seed.deserialize(&mut *self.parser)
    }
}

/// An object key at its opening quote. It is read as a string whatever the caller asks for, even
/// to ignore it, as serde_json does: a key with a lone surrogate is refused wherever the object is
/// read.
struct Key<'a, R> {
    parser: &'a mut Parser<R>,
}

impl<'de, R: Read> de::Deserializer<'de> for Key<'_, R> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.pos += 1;
        visitor.visit_str(self.parser.read_str()?)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}
