//! What the fold keeps of a JSON document: one summary (`Slot`) per position, merged over array
//! items, with counts, ranges, samples and the strings' shared start and end, bounded by the
//! constants below whatever the document's size; and how one value is recorded into it.

use std::collections::HashSet;
use std::fmt;

use super::parser;

/// Levels summarised below the root (levels). Values at this depth report
/// only type and size; their contents are skipped. Array items count as a
/// level, so `{"data": [{"attributes": {"name": …}}]}` is described down to
/// the type of `name`.
pub(super) const TRACK_DEPTH: u32 = 4;

/// Keys remembered per object position, in order of first appearance (count).
pub(super) const MAX_TRACKED_KEYS: usize = 20;

/// Longest sample value shown (chars).
pub(super) const MAX_SAMPLE_CHARS: usize = 40;

/// Characters kept of a sampled string, so that samples sharing a long prefix (or suffix) can be
/// shown by the part that tells them apart.
const SAMPLE_KEEP_CHARS: usize = 120;

/// Kinds of array item told apart (object key sets and scalar types); further kinds are counted
/// together.
const MAX_ITEM_KINDS: usize = 8;

/// Leading samples kept per array (count); the last one is kept as well.
const FIRST_SAMPLES: usize = 3;

/// Distinct string values counted per position to spot enum-like fields
/// such as `status` (count).
const MAX_ENUM_VALUES: usize = 8;

/// Longest string still treated as a possible enum value (chars).
const MAX_ENUM_VALUE_CHARS: usize = 24;

/// Fields whose values identify array items, in order of preference.
pub(super) const ID_FIELDS: [&str; 8] = [
    "id", "name", "title", "key", "path", "url", "type", "status",
];

/// Everything seen at one position of the document (merged over array items).
#[derive(Debug, Default)]
pub(super) struct Slot {
    pub(super) nulls: u64,
    pub(super) trues: u64,
    pub(super) falses: u64,
    pub(super) num: Option<NumStats>,
    pub(super) str: Option<StrStats>,
    pub(super) arr: Option<Box<ArrStats>>,
    pub(super) obj: Option<Box<ObjStats>>,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum NumVal {
    I64(i64),
    U64(u64),
    F64(f64),
}

#[derive(Debug)]
pub(super) struct NumStats {
    pub(super) count: u64,
    pub(super) min: NumVal,
    pub(super) max: NumVal,
    /// Values equal to `min`: when most are (`"errorCount": 0`), the others are the ones that
    /// differ.
    pub(super) at_min: u64,
}

#[derive(Debug)]
pub(super) struct StrStats {
    pub(super) count: u64,
    pub(super) min_chars: u64,
    pub(super) max_chars: u64,
    pub(super) first: Text,
    /// Distinct values with their counts while they stay few and short;
    /// `None` once the field proved not to be enum-like.
    pub(super) enum_values: Option<Vec<(String, u64)>>,
}

#[derive(Debug, Default)]
pub(super) struct ArrStats {
    pub(super) count: u64,
    pub(super) min_len: u64,
    pub(super) max_len: u64,
    /// False at [`TRACK_DEPTH`], where items are only counted.
    pub(super) tracked: bool,
    pub(super) items: Slot,
    /// Scalar items (first few and last).
    pub(super) values: Samples,
    /// Values of identifying fields of object items, per [`ID_FIELDS`] entry.
    pub(super) ids: IdSamples,
    /// How many items of each kind (object key set or scalar type).
    pub(super) kinds: Kinds,
}

/// What kind an array item is: its type, and for objects which tracked keys it has (bit `i` for
/// key `i` of the items' merged object, bit 63 for keys past those).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object(u64),
}

/// Counts of item kinds, the first [`MAX_ITEM_KINDS`] told apart.
#[derive(Debug, Default)]
pub(super) struct Kinds {
    pub(super) seen: Vec<(Kind, u64)>,
    pub(super) other: u64,
}

impl Kinds {
    pub(super) fn record(&mut self, kind: Kind) {
        if let Some((_, n)) = self.seen.iter_mut().find(|(k, _)| *k == kind) {
            *n += 1;
        } else if self.seen.len() < MAX_ITEM_KINDS {
            self.seen.push((kind, 1));
        } else {
            self.other += 1;
        }
    }
}

pub(super) type IdSamples = [Samples; ID_FIELDS.len()];

#[derive(Debug, Default)]
pub(super) struct ObjStats {
    pub(super) count: u64,
    pub(super) min_keys: u64,
    pub(super) max_keys: u64,
    /// False at [`TRACK_DEPTH`], where keys are only counted.
    pub(super) tracked: bool,
    pub(super) keys: Vec<KeyEntry>,
    /// Distinct names of keys beyond [`MAX_TRACKED_KEYS`].
    pub(super) other_keys: HashSet<String>,
    pub(super) other_keys_overflow: bool,
}

#[derive(Debug)]
pub(super) struct KeyEntry {
    pub(super) name: Text,
    /// Whether the name is written in JSON as it stands (no quote, backslash or control
    /// character), so that a key can be matched on its raw bytes.
    pub(super) plain: bool,
    pub(super) id_field: Option<usize>,
    pub(super) present: u64,
    pub(super) slot: Slot,
}

impl KeyEntry {
    pub(super) fn new(name: &str, cut: bool) -> Self {
        Self {
            name: Text {
                text: name.to_owned(),
                cut,
            },
            plain: name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\'),
            id_field: ID_FIELDS.iter().position(|field| *field == name),
            present: 0,
            slot: Slot::default(),
        }
    }
}

/// A string cut to a maximum length, remembering whether it was cut.
#[derive(Debug, Clone, Default)]
pub(super) struct Text {
    pub(super) text: String,
    pub(super) cut: bool,
}

impl Text {
    fn new(s: &str, max_chars: usize) -> Self {
        let mut text = Self::default();
        text.set(s, max_chars);
        text
    }

    /// Reuses the allocation: this runs once per array item.
    fn set(&mut self, s: &str, max_chars: usize) {
        let (kept, cut) = cut_chars(s, max_chars);
        self.text.clear();
        self.text.push_str(kept);
        self.cut = cut;
    }
}

#[derive(Debug, Clone)]
pub(super) enum Sample {
    Null,
    Bool(bool),
    Num(NumVal),
    Str(Text),
    Array,
    Object,
}

/// The first [`FIRST_SAMPLES`] values seen at a position, and the last one.
#[derive(Debug, Default)]
pub(super) struct Samples {
    pub(super) count: u64,
    pub(super) first: Vec<Sample>,
    pub(super) last: Option<Sample>,
    /// What every value seen starts and ends with, so that a preview says "all start …" only when
    /// it is true of the values it does not show as well.
    pub(super) shared: Affixes,
}

/// The start and the end shared by every value at a position, up to [`SAMPLE_KEEP_CHARS`] each;
/// empty once some value is not a string.
#[derive(Debug, Default)]
pub(super) struct Affixes {
    seen: bool,
    pub(super) prefix: String,
    /// The shared end, its characters in reverse order.
    pub(super) suffix_rev: String,
}

impl Affixes {
    fn narrow(&mut self, s: &str) {
        if !self.seen {
            self.seen = true;
            self.prefix = s.chars().take(SAMPLE_KEEP_CHARS).collect();
            self.suffix_rev = s.chars().rev().take(SAMPLE_KEEP_CHARS).collect();
            return;
        }
        if !self.prefix.is_empty() {
            // Compared byte by byte, then back to a whole character: UTF-8 has no character
            // that starts another.
            let mut prefix = self
                .prefix
                .bytes()
                .zip(s.bytes())
                .take_while(|(x, y)| x == y)
                .count();
            while !self.prefix.is_char_boundary(prefix) {
                prefix -= 1;
            }
            self.prefix.truncate(prefix);
        }
        if !self.suffix_rev.is_empty() {
            let suffix = shared_start(self.suffix_rev.chars(), s.chars().rev());
            self.suffix_rev.truncate(suffix);
        }
    }

    fn clear(&mut self) {
        self.seen = true;
        self.prefix.clear();
        self.suffix_rev.clear();
    }
}

/// Bytes of `a` that start `b` as well, counted in whole characters.
fn shared_start(a: impl Iterator<Item = char>, b: impl Iterator<Item = char>) -> usize {
    a.zip(b)
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum()
}

impl Sample {
    /// The same value as far as a preview can tell (strings as kept).
    fn same(&self, other: &Sample) -> bool {
        match (self, other) {
            (Sample::Null, Sample::Null)
            | (Sample::Array, Sample::Array)
            | (Sample::Object, Sample::Object) => true,
            (Sample::Bool(a), Sample::Bool(b)) => a == b,
            (Sample::Num(a), Sample::Num(b)) => a.prints_like(*b),
            (Sample::Str(a), Sample::Str(b)) => a.text == b.text,
            _ => false,
        }
    }

    fn is_str(&self, s: &str) -> bool {
        matches!(self, Sample::Str(text) if same_str(&text.text, cut_chars(s, SAMPLE_KEEP_CHARS).0))
    }
}

impl Samples {
    /// Keeps the first [`FIRST_SAMPLES`] distinct values and the latest one unlike them: three
    /// copies of one value tell the model nothing.
    pub(super) fn record(&mut self, sample: Sample) {
        if !matches!(sample, Sample::Str(_)) {
            self.shared.clear();
        }
        self.count += 1;
        if self.first.iter().any(|seen| seen.same(&sample)) {
            return;
        }
        if self.first.len() < FIRST_SAMPLES {
            self.first.push(sample);
        } else {
            self.last = Some(sample);
        }
    }

    pub(super) fn record_str(&mut self, s: &str) {
        self.shared.narrow(s);
        if self.first.iter().any(|seen| seen.is_str(s)) {
            self.count += 1;
            return;
        }
        if self.first.len() < FIRST_SAMPLES {
            self.record(Sample::Str(Text::new(s, SAMPLE_KEEP_CHARS)));
            return;
        }
        self.count += 1;
        match &mut self.last {
            Some(Sample::Str(text)) => text.set(s, SAMPLE_KEEP_CHARS),
            last => *last = Some(Sample::Str(Text::new(s, SAMPLE_KEEP_CHARS))),
        }
    }

    /// How many distinct values were shown: the kept firsts, and the last if kept.
    pub(super) fn shown(&self) -> usize {
        self.first.len() + usize::from(self.last.is_some())
    }
}

impl From<parser::Number> for NumVal {
    fn from(number: parser::Number) -> Self {
        match number {
            parser::Number::U64(n) => Self::U64(n),
            parser::Number::I64(n) => Self::I64(n),
            parser::Number::F64(x) => Self::F64(x),
        }
    }
}

impl NumVal {
    /// Whether the two are shown alike, found without formatting them (this runs for every item
    /// of an array of numbers): integers of the same value, floats of the same bits (`{:?}` tells
    /// every f64 apart, -0.0 included, and JSON has no NaN), never an integer and a float (a float
    /// is shown with a "." or an exponent).
    fn prints_like(self, other: NumVal) -> bool {
        match (self, other) {
            (Self::I64(a), Self::I64(b)) => a == b,
            (Self::U64(a), Self::U64(b)) => a == b,
            (Self::I64(a), Self::U64(b)) | (Self::U64(b), Self::I64(a)) => {
                u64::try_from(a) == Ok(b)
            }
            (Self::F64(a), Self::F64(b)) => a.to_bits() == b.to_bits(),
            (Self::F64(_), Self::I64(_) | Self::U64(_))
            | (Self::I64(_) | Self::U64(_), Self::F64(_)) => false,
        }
    }

    pub(super) fn as_f64(self) -> f64 {
        match self {
            Self::I64(i) => i as f64,
            Self::U64(u) => u as f64,
            Self::F64(f) => f,
        }
    }
}

impl fmt::Display for NumVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::I64(i) => write!(f, "{i}"),
            Self::U64(u) => write!(f, "{u}"),
            // Debug keeps a ".0" on whole floats and uses exponents for
            // extreme magnitudes, where Display would print 300 digits.
            Self::F64(x) => write!(f, "{x:?}"),
        }
    }
}

impl Slot {
    pub(super) fn record_num(&mut self, value: NumVal) {
        match &mut self.num {
            None => {
                self.num = Some(NumStats {
                    count: 1,
                    min: value,
                    max: value,
                    at_min: 1,
                });
            }
            Some(stats) => {
                stats.count += 1;
                let x = value.as_f64();
                let min = stats.min.as_f64();
                if x < min {
                    stats.min = value;
                    stats.at_min = 1;
                } else if x == min {
                    stats.at_min += 1;
                }
                if x > stats.max.as_f64() {
                    stats.max = value;
                }
            }
        }
    }

    /// Records a string of `chars` characters.
    pub(super) fn record_str(&mut self, s: &str, chars: u64) {
        let Some(stats) = &mut self.str else {
            let enum_values =
                (chars <= MAX_ENUM_VALUE_CHARS as u64).then(|| vec![(s.to_owned(), 1)]);
            self.str = Some(StrStats {
                count: 1,
                min_chars: chars,
                max_chars: chars,
                first: Text::new(s, MAX_SAMPLE_CHARS),
                enum_values,
            });
            return;
        };
        stats.count += 1;
        stats.min_chars = stats.min_chars.min(chars);
        stats.max_chars = stats.max_chars.max(chars);
        if let Some(values) = &mut stats.enum_values {
            if chars > MAX_ENUM_VALUE_CHARS as u64 {
                stats.enum_values = None;
            } else if let Some((_, n)) = values.iter_mut().find(|(v, _)| same_str(v, s)) {
                *n += 1;
            } else if values.len() < MAX_ENUM_VALUES {
                values.push((s.to_owned(), 1));
            } else {
                stats.enum_values = None;
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.total() == 0
    }

    pub(super) fn total(&self) -> u64 {
        self.nulls
            + self.trues
            + self.falses
            + self.num.as_ref().map_or(0, |n| n.count)
            + self.str.as_ref().map_or(0, |s| s.count)
            + self.arr.as_ref().map_or(0, |a| a.count)
            + self.obj.as_ref().map_or(0, |o| o.count)
    }

    pub(super) fn has_scalars(&self) -> bool {
        self.nulls + self.trues + self.falses > 0 || self.num.is_some() || self.str.is_some()
    }
}

pub(super) fn update_range(count: &mut u64, min: &mut u64, max: &mut u64, len: u64) {
    if *count == 0 {
        *min = len;
        *max = len;
    } else {
        *min = (*min).min(len);
        *max = (*max).max(len);
    }
    *count += 1;
}

/// Distinct string values worth listing: few, short, and repeating.
pub(super) fn shown_enum(slot: &Slot) -> Option<&[(String, u64)]> {
    let s = slot.str.as_ref()?;
    let values = s.enum_values.as_deref()?;
    (s.count > 1 && s.count >= 2 * values.len() as u64).then_some(values)
}

/// `a == b` for the short strings compared once per value (enum values, samples).
#[inline]
fn same_str(a: &str, b: &str) -> bool {
    parser::same_bytes(a.as_bytes(), b.as_bytes())
}

/// The first `max_chars` characters of `s`, and whether anything was cut.
#[inline]
pub(super) fn cut_chars(s: &str, max_chars: usize) -> (&str, bool) {
    // A string has at most as many chars as bytes.
    if s.len() <= max_chars {
        return (s, false);
    }
    cut_long_chars(s, max_chars)
}

#[cold]
fn cut_long_chars(s: &str, max_chars: usize) -> (&str, bool) {
    match s.char_indices().nth(max_chars) {
        Some((end, _)) => (&s[..end], true),
        None => (s, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_num() -> impl Strategy<Value = NumVal> {
        prop_oneof![
            any::<i64>().prop_map(NumVal::I64),
            any::<u64>().prop_map(NumVal::U64),
            (-3i64..3).prop_map(NumVal::I64),
            (0u64..3).prop_map(NumVal::U64),
            any::<f64>()
                .prop_filter("JSON numbers are finite", |f| f.is_finite())
                .prop_map(NumVal::F64),
            prop::sample::select(vec![0.0, -0.0, 1.0, 1e16, 1e300, 5e-324]).prop_map(NumVal::F64),
        ]
    }

    proptest! {
        #[test]
        fn numbers_print_alike_exactly_when_their_text_is_the_same(a in arb_num(), b in arb_num()) {
            prop_assert_eq!(a.prints_like(b), a.to_string() == b.to_string(), "{} {}", a, b);
            prop_assert!(a.prints_like(a));
        }
    }
}
