//! Shape previews of JSON documents, computed while streaming.
//!
//! Stored documents can be 100 MB–1 GB, so the document is never built in
//! memory: the fold reads it value by value from a streaming parser
//! (`parser`), folds every value into a bounded summary (`Slot` tree) and
//! skips what the summary cannot use. The tree is bounded by constants (tracked
//! depth, keys per object, samples per array), not by the document.
//!
//! Values at the same position are merged: all items of an array share one
//! summary, so `[{"id": 1}, {"id": 2}]` is described once as
//! "object{1}" with `"id": number 1..2`.
//!
//! Nesting depth is not limited: only the first `TRACK_DEPTH` levels are
//! visited recursively; deeper values are skipped by the parser in a loop,
//! with no recursion limit, so even a document nested 100,000 levels deep gets
//! a preview; past 1,048,576 levels it is previewed as text.
//!
//! Known memory exception (transient, proportional to one value): a single
//! huge string at a tracked level is buffered whole to report its length.
//! Skipping deep nesting costs one byte per level, 1 MiB at most.
//!
//! What is accepted is what was when serde_json parsed for the preview (its
//! visitor is kept in the tests as the oracle): numbers outside the f64 range
//! (e.g. `1e400`), a lone surrogate escape or invalid UTF-8 in a string at
//! tracked levels make the document not JSON, so it is previewed as text; in
//! skipped values only the syntax counts.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;
use std::io::{self, Read};

use crate::figures::thousands;

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod differential;
mod parser;
mod queries;

use parser::{Parser, Str, Token};

/// Levels summarised below the root (levels). Values at this depth report
/// only type and size; their contents are skipped. Array items count as a
/// level, so `{"data": [{"attributes": {"name": …}}]}` is described down to
/// the type of `name`.
pub(super) const TRACK_DEPTH: u32 = 4;

/// Object keys summarised per document (count). With the other limits this
/// bounds the summary to a few MB whatever the document's width and depth;
/// keys beyond it are only counted.
const MAX_TRACKED_SLOTS: usize = 5_000;

/// Objects this shallow track their keys whatever is left of
/// [`MAX_TRACKED_SLOTS`] (levels): they form the outline that matters most,
/// and hold at most 20 + 20 × 20 keys.
pub(super) const OUTLINE_DEPTH: u32 = 2;

/// Names of untracked keys stored per document to count them (count).
const MAX_COUNTED_NAMES: usize = 5_000;

/// Keys remembered per object position, in order of first appearance (count).
pub(super) const MAX_TRACKED_KEYS: usize = 20;

/// Further distinct key names counted per object position (count); beyond
/// it the preview says "≥ N more keys".
const MAX_COUNTED_OTHER_KEYS: usize = 256;

/// Longest key name kept (chars); longer names are cut, and names sharing a
/// cut prefix are merged.
const MAX_KEY_CHARS: usize = 64;

/// Longest sample value shown (chars).
pub(super) const MAX_SAMPLE_CHARS: usize = 40;

/// Characters kept of a sampled string, so that samples sharing a long prefix (or suffix) can be
/// shown by the part that tells them apart.
const SAMPLE_KEEP_CHARS: usize = 120;

/// A prefix (or suffix) shared by every string sample is shown once, when at least this long
/// (chars).
const MIN_SHARED_CHARS: usize = 12;

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

/// Indentation per nesting level of the preview (chars).
const INDENT: &str = "  ";

/// Summarises a JSON document read from `input` as its shape. Returns Ok(None) if the input is not a single valid JSON document (then the caller treats it as text).
///
/// The result has at most `budget_chars` characters. When the full summary
/// is longer, less detailed summaries are tried (fewer keys, fewer levels, no
/// samples); if even the tersest one is too long it is cut after a whole
/// line and ends with a "…" line.
///
/// Errors are the reader's own I/O errors; malformed JSON is `Ok(None)`.
pub fn json_shape_preview(input: impl Read, budget_chars: usize) -> io::Result<Option<String>> {
    Ok(json_shape(input, budget_chars)?.map(|shape| shape.preview))
}

/// What one pass over a JSON document learned: its shape preview, and the jq queries that are
/// valid for it, most telling first: for its largest collection, the items that differ from the
/// rest and the field that tells items apart; for a document without one, `keys` of an object,
/// `length` of an array, a look at `.id` only where the document has that key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonShape {
    pub preview: String,
    pub queries: Vec<String>,
    /// What the first query finds, in words (`the `name` of the 2 items whose `status` is
    /// "failed" in `.tests``), when the queries were chosen from the data.
    pub finds: Option<String>,
}

/// [`json_shape_preview`] with the queries worth suggesting for the document.
pub fn json_shape(input: impl Read, budget_chars: usize) -> io::Result<Option<JsonShape>> {
    let mut parser = Parser::new(input);
    let mut root = Slot::default();
    let folded = fold_value(&mut parser, &Budget::new(), Place::root(&mut root));
    match folded.and_then(|()| parser.end()) {
        Ok(()) => Ok(Some(shape(&root, budget_chars))),
        Err(parser::Error::Io(error)) => Err(error),
        Err(parser::Error::Invalid) => Ok(None),
    }
}

fn shape(root: &Slot, budget_chars: usize) -> JsonShape {
    let suggested = queries::suggest(root);
    let (queries, finds) = match suggested.first() {
        Some(first) => (
            suggested.iter().map(|s| s.query.clone()).collect(),
            Some(first.finds.clone()),
        ),
        None => (plain_queries(root), None),
    };
    JsonShape {
        preview: render(root, budget_chars),
        queries,
        finds,
    }
}

/// jq queries that are valid for a document without a collection to query: none asks for a key
/// the document does not have, or for the keys of an array.
fn plain_queries(root: &Slot) -> Vec<String> {
    let only_objects = |slot: &Slot| slot.obj.as_ref().is_some_and(|o| o.count == slot.total());
    let has_id = |obj: &ObjStats| {
        obj.keys.iter().any(|entry| entry.name.text == "id") || obj.other_keys.contains("id")
    };
    if let Some(obj) = root.obj.as_ref().filter(|_| only_objects(root)) {
        let mut queries = vec!["keys".to_owned()];
        if has_id(obj) {
            queries.push(".id".to_owned());
        }
        return queries;
    }
    let Some(arr) = root.arr.as_ref().filter(|a| a.count == root.total()) else {
        // A string, number, boolean or null: the document is its value.
        return vec![".".to_owned()];
    };
    let mut queries = vec!["length".to_owned()];
    if arr.max_len == 0 {
        return queries;
    }
    match arr.items.obj.as_ref().filter(|_| only_objects(&arr.items)) {
        Some(items) => {
            queries.push(".[0] | keys".to_owned());
            if has_id(items) {
                queries.push(".[0:20] | map(.id)".to_owned());
            }
        }
        None => queries.push(".[0:5]".to_owned()),
    }
    queries
}

// ---------------------------------------------------------------------------
// Summary model

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

// ---------------------------------------------------------------------------
// Streaming fold

/// Allowances shared by the whole document, so that memory stays bounded
/// however many positions it has.
#[derive(Debug)]
pub(super) struct Budget {
    slots_left: Cell<usize>,
    names_left: Cell<usize>,
}

impl Budget {
    pub(super) fn new() -> Self {
        Self {
            slots_left: Cell::new(MAX_TRACKED_SLOTS),
            names_left: Cell::new(MAX_COUNTED_NAMES),
        }
    }
}

/// Uses up one unit of an allowance if any is left.
fn take_one(allowance: &Cell<usize>) -> bool {
    let left = allowance.get();
    if left > 0 {
        allowance.set(left - 1);
    }
    left > 0
}

/// Where one value is folded.
pub(super) struct Place<'a> {
    pub(super) slot: &'a mut Slot,
    pub(super) depth: u32,
    /// Where this value is also kept as a sample: set for array items and
    /// for identifying fields of array items.
    pub(super) sample: Option<&'a mut Samples>,
    /// Set for array items: identifying fields of an object item go here.
    pub(super) ids: Option<&'a mut IdSamples>,
    /// Set for array items: the item's kind is counted here.
    pub(super) kinds: Option<&'a mut Kinds>,
}

impl<'a> Place<'a> {
    pub(super) fn root(slot: &'a mut Slot) -> Self {
        Self {
            slot,
            depth: 0,
            sample: None,
            ids: None,
            kinds: None,
        }
    }

    fn scalar(self, record: impl FnOnce(&mut Slot), sample: Sample) {
        record(self.slot);
        if let Some(kinds) = self.kinds {
            kinds.record(match sample {
                Sample::Null => Kind::Null,
                Sample::Bool(_) => Kind::Bool,
                Sample::Num(_) => Kind::Number,
                Sample::Str(_) => Kind::String,
                Sample::Array => Kind::Array,
                Sample::Object => Kind::Object(0),
            });
        }
        if let Some(samples) = self.sample {
            samples.record(sample);
        }
    }

    pub(super) fn null(self) {
        self.scalar(|slot| slot.nulls += 1, Sample::Null);
    }

    pub(super) fn bool(self, value: bool) {
        let record = |slot: &mut Slot| {
            if value {
                slot.trues += 1;
            } else {
                slot.falses += 1;
            }
        };
        self.scalar(record, Sample::Bool(value));
    }

    pub(super) fn number(self, value: NumVal) {
        self.scalar(|slot| slot.record_num(value), Sample::Num(value));
    }

    fn string(self, value: Str<'_>) {
        self.slot.record_str(value.text, value.chars());
        if let Some(kinds) = self.kinds {
            kinds.record(Kind::String);
        }
        if let Some(samples) = self.sample {
            samples.record_str(value.text);
        }
    }
}

/// Folds the value at the parser's position into `place`. Recursion is bounded by
/// [`TRACK_DEPTH`]: deeper values are skipped by the parser's loop. Inlined into the loops over
/// items and keys, so that a scalar costs no call; a container does.
#[inline(always)]
fn fold_value<R: Read>(
    parser: &mut Parser<R>,
    budget: &Budget,
    place: Place<'_>,
) -> Result<(), parser::Error> {
    match parser.next_value()? {
        Token::Null => place.null(),
        Token::Bool(value) => place.bool(value),
        Token::Number => place.number(parser.read_number()?.into()),
        Token::String => place.string(parser.read_str()?),
        Token::Array => fold_array(parser, budget, place)?,
        Token::Object => fold_object(parser, budget, place)?,
    }
    Ok(())
}

/// Folds an array whose `[` is consumed.
#[inline(never)]
fn fold_array<R: Read>(
    parser: &mut Parser<R>,
    budget: &Budget,
    place: Place<'_>,
) -> Result<(), parser::Error> {
    let Place {
        slot,
        depth,
        sample,
        kinds,
        ..
    } = place;
    if let Some(kinds) = kinds {
        kinds.record(Kind::Array);
    }
    let tracked = depth < TRACK_DEPTH;
    let arr = slot.arr.get_or_insert_with(|| {
        Box::new(ArrStats {
            tracked,
            ..ArrStats::default()
        })
    });
    let mut len = 0u64;
    if tracked {
        let ArrStats {
            items,
            values,
            ids,
            kinds,
            ..
        } = &mut **arr;
        while parser.next_item(len == 0)? {
            let item = Place {
                slot: items,
                depth: depth + 1,
                sample: Some(values),
                ids: Some(ids),
                kinds: Some(kinds),
            };
            fold_value(parser, budget, item)?;
            len += 1;
        }
    } else {
        while parser.next_item(len == 0)? {
            parser.skip_value()?;
            len += 1;
        }
    }
    update_range(&mut arr.count, &mut arr.min_len, &mut arr.max_len, len);
    if let Some(samples) = sample {
        samples.record(Sample::Array);
    }
    Ok(())
}

/// Folds an object whose `{` is consumed.
#[inline(never)]
fn fold_object<R: Read>(
    parser: &mut Parser<R>,
    budget: &Budget,
    place: Place<'_>,
) -> Result<(), parser::Error> {
    let Place {
        slot,
        depth,
        sample,
        mut ids,
        kinds,
    } = place;
    // Which keys this object has, for its array's kinds.
    let mut key_set = 0u64;
    let tracked = depth < TRACK_DEPTH;
    let obj = slot.obj.get_or_insert_with(|| {
        Box::new(ObjStats {
            tracked,
            ..ObjStats::default()
        })
    });
    let mut len = 0u64;
    if tracked {
        // Objects in an array usually list keys in the same order, so
        // the entry after the previous key is the likely match, and its
        // name is compared with the key as it stands.
        let mut hint = 0;
        while parser.next_key(len == 0)? {
            let found = match obj.keys.get(hint) {
                Some(entry) if entry.plain && parser.key_is(entry.name.text.as_bytes()) => {
                    Some(hint)
                }
                _ => {
                    let key = parser.read_str()?.text;
                    resolve_key(obj, hint, depth < OUTLINE_DEPTH, budget, key)
                }
            };
            parser.colon()?;
            len += 1;
            key_set |= 1 << found.unwrap_or(63).min(63);
            match found.and_then(|i| obj.keys.get_mut(i).map(|entry| (i, entry))) {
                Some((i, entry)) => {
                    hint = i + 1;
                    entry.present += 1;
                    let sample = match (ids.as_deref_mut(), entry.id_field) {
                        (Some(ids), Some(field)) => ids.get_mut(field),
                        _ => None,
                    };
                    let value = Place {
                        slot: &mut entry.slot,
                        depth: depth + 1,
                        sample,
                        ids: None,
                        kinds: None,
                    };
                    fold_value(parser, budget, value)?;
                }
                None => parser.skip_value()?,
            }
        }
    } else {
        while parser.next_key(len == 0)? {
            // Read though not kept: a key is checked as a string wherever its object is read.
            parser.read_str()?;
            parser.colon()?;
            parser.skip_value()?;
            len += 1;
        }
    }
    update_range(&mut obj.count, &mut obj.min_keys, &mut obj.max_keys, len);
    if let Some(kinds) = kinds {
        kinds.record(Kind::Object(if tracked { key_set } else { 0 }));
    }
    if let Some(samples) = sample {
        samples.record(Sample::Object);
    }
    Ok(())
}

/// Resolves a key to its tracked entry (`Some(index)`), adding it while
/// there is room; `None` for keys beyond [`MAX_TRACKED_KEYS`]. `outline`:
/// whether the object is shallow enough to skip the allowance.
pub(super) fn resolve_key(
    obj: &mut ObjStats,
    hint: usize,
    outline: bool,
    budget: &Budget,
    key: &str,
) -> Option<usize> {
    let (key, cut) = cut_chars(key, MAX_KEY_CHARS);
    if obj
        .keys
        .get(hint)
        .is_some_and(|entry| entry.name.text == key)
    {
        return Some(hint);
    }
    if let Some(i) = obj.keys.iter().position(|entry| entry.name.text == key) {
        return Some(i);
    }
    if obj.keys.len() < MAX_TRACKED_KEYS && (outline || take_one(&budget.slots_left)) {
        obj.keys.push(KeyEntry::new(key, cut));
        return Some(obj.keys.len() - 1);
    }
    if !obj.other_keys_overflow && !obj.other_keys.contains(key) {
        if obj.other_keys.len() < MAX_COUNTED_OTHER_KEYS && take_one(&budget.names_left) {
            obj.other_keys.insert(key.to_owned());
        } else {
            obj.other_keys_overflow = true;
        }
    }
    None
}

// ---------------------------------------------------------------------------
// Rendering

/// How much of the summary to show; tried from most to least detailed until
/// the preview fits its budget. The outline (first-level keys) is given up
/// last, since it tells the model what to query.
#[derive(Debug)]
struct Detail {
    /// Keys listed per first-level object (count).
    top_keys: usize,
    /// Keys listed per deeper object (count).
    nested_keys: usize,
    /// Deepest indentation level rendered (levels).
    max_level: usize,
    /// Identifying fields sampled per array (count).
    id_fields: usize,
    /// Whether sample and enum lines are shown.
    samples: bool,
}

impl Detail {
    const fn new(top_keys: usize, nested_keys: usize, max_level: usize, id_fields: usize) -> Self {
        Self {
            top_keys,
            nested_keys,
            max_level,
            id_fields,
            samples: id_fields > 0,
        }
    }
}

const DETAILS: [Detail; 11] = [
    Detail::new(MAX_TRACKED_KEYS, MAX_TRACKED_KEYS, 4, 2),
    Detail::new(MAX_TRACKED_KEYS, 12, 4, 1),
    Detail::new(MAX_TRACKED_KEYS, 8, 3, 1),
    Detail::new(MAX_TRACKED_KEYS, 5, 3, 1),
    Detail::new(MAX_TRACKED_KEYS, 8, 2, 1),
    Detail::new(MAX_TRACKED_KEYS, 5, 2, 0),
    Detail::new(MAX_TRACKED_KEYS, 3, 2, 0),
    Detail::new(MAX_TRACKED_KEYS, 2, 2, 0),
    Detail::new(MAX_TRACKED_KEYS, 0, 1, 0),
    Detail::new(10, 0, 1, 0),
    Detail::new(5, 0, 1, 0),
];

pub(super) fn render(root: &Slot, budget_chars: usize) -> String {
    let mut tersest = Vec::new();
    for detail in &DETAILS {
        let lines = render_lines(root, detail);
        if chars_of_lines(&lines) <= budget_chars {
            return lines.join("\n");
        }
        tersest = lines;
    }
    cut_to_budget(&tersest, budget_chars)
}

fn render_lines(root: &Slot, detail: &Detail) -> Vec<String> {
    let head = match &root.obj {
        Some(obj) if root.total() == obj.count => {
            let keys = obj.max_keys;
            format!(
                "object, {} {}",
                thousands(keys),
                plural(keys, "key", "keys")
            )
        }
        _ => head(root),
    };
    let mut lines = vec![format!("JSON {head}")];
    children(root, 1, detail, &mut lines);
    if lines.len() > 1
        && let Some(first) = lines.first_mut()
    {
        first.push(':');
    }
    lines
}

/// One-line description of everything seen at a position.
fn head(slot: &Slot) -> String {
    let mut parts: Vec<(u64, String)> = Vec::new();
    if let Some(obj) = &slot.obj {
        parts.push((obj.count, object_head(obj)));
    }
    if let Some(arr) = &slot.arr {
        parts.push((arr.count, array_head(arr)));
    }
    if let Some(s) = &slot.str {
        parts.push((s.count, string_head(s)));
    }
    if let Some(n) = &slot.num {
        parts.push((n.count, number_head(n)));
    }
    if slot.trues + slot.falses > 0 {
        parts.push((slot.trues + slot.falses, bool_head(slot.trues, slot.falses)));
    }
    if slot.nulls > 0 {
        parts.push((slot.nulls, "null".to_owned()));
    }
    match parts.as_slice() {
        [] => "nothing".to_owned(),
        [(_, only)] => only.clone(),
        _ => {
            // Most frequent type first; the sort is stable, so ties keep the
            // fixed order above and the output stays deterministic.
            parts.sort_by_key(|(count, _)| std::cmp::Reverse(*count));
            let described: Vec<String> = parts
                .iter()
                .map(|(count, part)| format!("{part} ×{}", thousands(*count)))
                .collect();
            described.join(" | ")
        }
    }
}

fn object_head(obj: &ObjStats) -> String {
    format!("object{{{}}}", range(obj.min_keys, obj.max_keys))
}

fn array_head(arr: &ArrStats) -> String {
    let mut out = format!("array[{}]", range(arr.min_len, arr.max_len));
    if arr.tracked && !arr.items.is_empty() {
        let items = head(&arr.items);
        if items.contains(" | ") {
            out.push_str(&format!(" of ({items})"));
        } else {
            out.push_str(&format!(" of {items}"));
        }
    }
    out
}

fn string_head(s: &StrStats) -> String {
    if s.count == 1 {
        format!("string({}) = {}", thousands(s.max_chars), s.first.quoted())
    } else {
        format!("string({})", range(s.min_chars, s.max_chars))
    }
}

fn number_head(n: &NumStats) -> String {
    if n.count == 1 || n.min.as_f64() == n.max.as_f64() {
        format!("number = {}", n.min)
    } else {
        format!("number {}..{}", n.min, n.max)
    }
}

fn bool_head(trues: u64, falses: u64) -> String {
    match (trues, falses) {
        (_, 0) => "true".to_owned(),
        (0, _) => "false".to_owned(),
        _ => format!(
            "boolean (true ×{}, false ×{})",
            thousands(trues),
            thousands(falses)
        ),
    }
}

/// Lines below a position's head line, at indentation `level`.
fn children(slot: &Slot, level: usize, detail: &Detail, out: &mut Vec<String>) {
    if level > detail.max_level {
        return;
    }
    if let Some(obj) = &slot.obj {
        object_children(obj, level, detail, out);
    }
    if let Some(arr) = &slot.arr {
        array_children(arr, level, detail, out);
    }
    if detail.samples
        && let Some(values) = shown_enum(slot)
    {
        let listed: Vec<String> = values
            .iter()
            .map(|(value, count)| format!("{} ×{}", quote(value, false), thousands(*count)))
            .collect();
        out.push(format!("{}values: {}", indent(level), listed.join(", ")));
    }
}

fn object_children(obj: &ObjStats, level: usize, detail: &Detail, out: &mut Vec<String>) {
    if !obj.tracked {
        return;
    }
    let max_keys = if level <= 1 {
        detail.top_keys
    } else {
        detail.nested_keys
    };
    let shown = obj.keys.len().min(max_keys);
    // When only some keys fit, show the most common ones, in document order.
    let mut picked: Vec<usize> = (0..obj.keys.len()).collect();
    picked.sort_by_key(|&i| std::cmp::Reverse(obj.keys.get(i).map_or(0, |entry| entry.present)));
    picked.truncate(shown);
    picked.sort_unstable();
    for entry in picked.iter().filter_map(|&i| obj.keys.get(i)) {
        let presence = if entry.present < obj.count {
            format!(
                " (in {} of {})",
                thousands(entry.present),
                thousands(obj.count)
            )
        } else {
            String::new()
        };
        out.push(format!(
            "{}{}{presence}: {}",
            indent(level),
            entry.name.quoted(),
            head(&entry.slot)
        ));
        let key_line = out.len() - 1;
        children(&entry.slot, level + 1, detail, out);
        if out.len() > key_line + 1
            && let Some(line) = out.get_mut(key_line)
        {
            line.push(':');
        }
    }
    let (hidden, at_least) = if obj.count == 1 {
        (obj.max_keys.saturating_sub(shown as u64), false)
    } else {
        let tracked_hidden = (obj.keys.len() - shown) as u64;
        (
            tracked_hidden + obj.other_keys.len() as u64,
            obj.other_keys_overflow,
        )
    };
    if hidden > 0 {
        let at_least = if at_least { "≥" } else { "" };
        out.push(format!(
            "{}… {at_least}{} more {}",
            indent(level),
            thousands(hidden),
            plural(hidden, "key", "keys")
        ));
    }
}

fn array_children(arr: &ArrStats, level: usize, detail: &Detail, out: &mut Vec<String>) {
    if !arr.tracked {
        return;
    }
    // Items are described on the array's own line, so their contents sit
    // one level below it, like an object's keys.
    children(&arr.items, level, detail, out);
    if !detail.samples {
        return;
    }
    if let Some(kinds) = kinds_line(arr) {
        out.push(format!("{}{kinds}", indent(level)));
    }
    // A field already listed with all its distinct values needs no samples.
    let listed_as_enum = |field: &str| {
        arr.items.obj.as_ref().is_some_and(|obj| {
            obj.keys
                .iter()
                .any(|entry| entry.name.text == field && shown_enum(&entry.slot).is_some())
        })
    };
    // Fields whose samples tell items apart come first, short ones before long ones: `name`
    // before an `id` of 90 characters, and before a `type` every item shares.
    let mut id_lines: Vec<(&&str, &Samples)> = ID_FIELDS
        .iter()
        .zip(&arr.ids)
        .filter(|(field, samples)| samples.count > 0 && !listed_as_enum(field))
        .collect();
    id_lines.sort_by_key(|(field, samples)| {
        let long = arr.items.obj.as_ref().is_some_and(|obj| {
            obj.keys.iter().any(|entry| {
                entry.name.text == **field
                    && entry
                        .slot
                        .str
                        .as_ref()
                        .is_some_and(|s| s.max_chars > MAX_SAMPLE_CHARS as u64)
            })
        });
        (samples.shown() < 2, long)
    });
    let id_lines = id_lines.into_iter().take(detail.id_fields);
    for (field, samples) in id_lines {
        out.push(format!(
            "{}samples of .{field}: {}",
            indent(level),
            sample_list(samples)
        ));
    }
    if arr.values.count > 0 && arr.items.has_scalars() && shown_enum(&arr.items).is_none() {
        out.push(format!(
            "{}samples: {}",
            indent(level),
            sample_list(&arr.values)
        ));
    }
}

/// Distinct string values worth listing: few, short, and repeating.
pub(super) fn shown_enum(slot: &Slot) -> Option<&[(String, u64)]> {
    let s = slot.str.as_ref()?;
    let values = s.enum_values.as_deref()?;
    (s.count > 1 && s.count >= 2 * values.len() as u64).then_some(values)
}

/// The distinct samples; strings that share a long prefix or suffix are shown by the part that
/// tells them apart, with the shared part said once: `"…anyhow@1.0.86", "…serde@1.0.200"
/// (all start "registry+https://github.com/rust-lang/crates.io-index#")`.
fn sample_list(samples: &Samples) -> String {
    let all: Vec<&Sample> = samples.first.iter().chain(samples.last.as_ref()).collect();
    let strings: Vec<&Text> = all
        .iter()
        .filter_map(|s| match s {
            Sample::Str(text) => Some(text),
            _ => None,
        })
        .collect();
    // What the samples shown share is said once, so that each shows what tells it apart; "all"
    // only when every value shares it, not just the samples.
    let (prefix, suffix) = if strings.len() >= 2 && strings.len() == all.len() {
        shared_affixes(&strings, usize::MAX, usize::MAX)
    } else {
        (0, 0)
    };
    let all_start = prefix <= samples.shared.prefix.chars().count();
    let all_end = suffix <= samples.shared.suffix_rev.chars().count();
    let text_of = |sample: &Sample| match sample {
        Sample::Str(text) if prefix + suffix > 0 => distinct_part(text, prefix, suffix),
        other => sample_text(other),
    };
    let mut shown: Vec<String> = samples.first.iter().map(text_of).collect();
    if let Some(last) = &samples.last {
        if samples.count > samples.shown() as u64 {
            shown.push("…".to_owned());
        }
        shown.push(text_of(last));
    }
    let mut out = shown.join(", ");
    if let Some(first) = strings.first() {
        if prefix > 0 {
            let shared: String = first.text.chars().take(prefix).collect();
            let (kept, cut) = cut_chars(&shared, 2 * MAX_SAMPLE_CHARS);
            let who = if all_start { "all" } else { "these" };
            out.push_str(&format!(" ({who} start {})", quote(kept, cut)));
        }
        if suffix > 0 {
            let chars = first.text.chars().count();
            let shared: String = first.text.chars().skip(chars - suffix).collect();
            let who = if all_end { "all" } else { "these" };
            out.push_str(&format!(" ({who} end {})", quote(&shared, false)));
        }
    }
    out
}

/// Characters shared at the start and at the end of every string (0 when under
/// [`MIN_SHARED_CHARS`]), cut back to a boundary between words so that the parts shown read well.
/// The samples are not every value: what they share is capped by what all values share
/// (`max_prefix`, `max_suffix` characters).
fn shared_affixes(strings: &[&Text], max_prefix: usize, max_suffix: usize) -> (usize, usize) {
    let chars: Vec<Vec<char>> = strings.iter().map(|t| t.text.chars().collect()).collect();
    let shortest = chars.iter().map(Vec::len).min().unwrap_or(0);
    let mut prefix = (0..shortest.min(max_prefix))
        .take_while(|&i| chars.iter().all(|c| c[i] == chars[0][i]))
        .count();
    // Back to just after a separator, and leave every value something of its own.
    while prefix > 0
        && (prefix == shortest
            || chars[0][prefix - 1].is_alphanumeric() && chars[0][prefix].is_alphanumeric())
    {
        prefix -= 1;
    }
    if prefix < MIN_SHARED_CHARS {
        prefix = 0;
    }
    // A cut string's end is not its end.
    let mut suffix = if strings.iter().any(|t| t.cut) {
        0
    } else {
        (0..(shortest - prefix).min(max_suffix))
            .take_while(|&i| {
                chars
                    .iter()
                    .all(|c| c[c.len() - 1 - i] == chars[0][chars[0].len() - 1 - i])
            })
            .count()
    };
    let first = &chars[0];
    while suffix > 0
        && (prefix + suffix == shortest
            || first[first.len() - suffix].is_alphanumeric()
                && first[first.len() - suffix - 1].is_alphanumeric())
    {
        suffix -= 1;
    }
    if suffix < MIN_SHARED_CHARS {
        suffix = 0;
    }
    (prefix, suffix)
}

/// `"…middle…"`: a string without its shared prefix and suffix, cut to [`MAX_SAMPLE_CHARS`].
fn distinct_part(text: &Text, prefix: usize, suffix: usize) -> String {
    let chars = text.text.chars().count();
    let middle: String = text
        .text
        .chars()
        .skip(prefix)
        .take(chars - prefix - suffix)
        .collect();
    let (kept, cut) = cut_chars(&middle, MAX_SAMPLE_CHARS);
    let mut out = quote(kept, cut || (text.cut && suffix == 0));
    if prefix > 0 {
        out.insert(1, '…');
    }
    if suffix > 0 && !cut {
        out.insert(out.len() - 1, '…');
    }
    out
}

fn sample_text(sample: &Sample) -> String {
    match sample {
        Sample::Null => "null".to_owned(),
        Sample::Bool(b) => b.to_string(),
        Sample::Num(n) => n.to_string(),
        Sample::Str(text) => {
            let (kept, cut) = cut_chars(&text.text, MAX_SAMPLE_CHARS);
            quote(kept, cut || text.cut)
        }
        Sample::Array => "[…]".to_owned(),
        Sample::Object => "{…}".to_owned(),
    }
}

/// `kinds: {id,name,price} ×40, {… +error} ×2, string ×1` for arrays whose object items do not
/// all have the same keys; `None` when they do.
fn kinds_line(arr: &ArrStats) -> Option<String> {
    let kinds = &arr.kinds;
    let key_sets = kinds
        .seen
        .iter()
        .filter(|(k, _)| matches!(k, Kind::Object(_)))
        .count();
    if key_sets < 2 {
        return None;
    }
    let names: Vec<&str> = arr
        .items
        .obj
        .as_ref()
        .map(|obj| obj.keys.iter().map(|k| k.name.text.as_str()).collect())
        .unwrap_or_default();
    let mut seen: Vec<&(Kind, u64)> = kinds.seen.iter().collect();
    seen.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let base = seen.iter().find_map(|(k, _)| match k {
        Kind::Object(mask) => Some(*mask),
        _ => None,
    });
    let name = |bit: u32| -> String {
        match names.get(bit as usize) {
            Some(name) if bit < 63 => cut_chars(name, 16).0.to_owned(),
            _ => "…".to_owned(),
        }
    };
    let bits = |mask: u64| (0..64).filter(move |b| mask & (1 << b) != 0);
    let label = |kind: &Kind| -> String {
        match *kind {
            Kind::Null => "null".to_owned(),
            Kind::Bool => "boolean".to_owned(),
            Kind::Number => "number".to_owned(),
            Kind::String => "string".to_owned(),
            Kind::Array => "array".to_owned(),
            Kind::Object(mask) if Some(mask) == base => {
                let listed: Vec<String> = bits(mask).take(6).map(name).collect();
                let more = if bits(mask).count() > 6 { ",…" } else { "" };
                format!("{{{}{more}}}", listed.join(","))
            }
            Kind::Object(mask) => {
                let base = base.unwrap_or(0);
                let added = bits(mask & !base).take(4).map(|b| format!("+{}", name(b)));
                let removed = bits(base & !mask).take(4).map(|b| format!("-{}", name(b)));
                let changes: Vec<String> = added.chain(removed).collect();
                format!("{{… {}}}", changes.join(" "))
            }
        }
    };
    let mut parts: Vec<String> = seen
        .iter()
        .map(|(kind, n)| format!("{} ×{}", label(kind), thousands(*n)))
        .collect();
    if kinds.other > 0 {
        parts.push(format!("other ×{}", thousands(kinds.other)));
    }
    let total = seen.len() + usize::from(kinds.other > 0);
    Some(format!("{total} kinds: {}", parts.join(", ")))
}

impl Text {
    fn quoted(&self) -> String {
        quote(&self.text, self.cut)
    }
}

fn range(min: u64, max: u64) -> String {
    if min == max {
        thousands(min)
    } else {
        format!("{}..{}", thousands(min), thousands(max))
    }
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn indent(level: usize) -> String {
    INDENT.repeat(level)
}

/// `s` as a JSON string literal, with "…" inside the quotes if it was cut.
/// Escaping keeps every value on its own line.
fn quote(s: &str, cut: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // U+2028/2029 end lines in some viewers, like control characters.
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    if cut {
        out.push('…');
    }
    out.push('"');
    out
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

fn chars_of_lines(lines: &[String]) -> usize {
    lines.iter().map(|line| line.chars().count()).sum::<usize>() + lines.len().saturating_sub(1)
}

/// Keeps whole lines while they fit, then a "…" line; cuts inside the first
/// line only when not even that fits.
fn cut_to_budget(lines: &[String], budget_chars: usize) -> String {
    const ELLIPSIS: &str = "…";
    if chars_of_lines(lines) <= budget_chars {
        return lines.join("\n");
    }
    let mut out = String::new();
    let mut used = 0;
    for line in lines {
        let separator = usize::from(!out.is_empty());
        // Room for this line plus the final "\n…".
        let needed = separator + line.chars().count() + 2;
        if used + needed > budget_chars {
            break;
        }
        if separator == 1 {
            out.push('\n');
        }
        out.push_str(line);
        used += needed - 2;
    }
    if out.is_empty() {
        let first = lines.first().map_or("", String::as_str);
        let (kept, _) = cut_chars(first, budget_chars.saturating_sub(1));
        return if budget_chars == 0 {
            String::new()
        } else {
            format!("{kept}{ELLIPSIS}")
        };
    }
    out.push('\n');
    out.push_str(ELLIPSIS);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn preview(doc: &str) -> Option<String> {
        json_shape_preview(doc.as_bytes(), 10_000).unwrap()
    }

    fn preview_value(value: &Value) -> String {
        preview(&value.to_string()).unwrap()
    }

    /// What a preview run gave, for snapshots and comparisons.
    fn outcome(shape: Option<JsonShape>) -> String {
        match shape {
            None => "not JSON".to_owned(),
            Some(shape) => format!("{}\nqueries: {}", shape.preview, shape.queries.join(" ; ")),
        }
    }

    /// A string of hundreds of megabytes is previewed with its exact length, its start, and
    /// memory bounded (the parser keeps its ends, not its middle).
    #[test]
    fn a_huge_string_is_previewed_with_its_exact_length() {
        let text = "0123456789abcdé".repeat(300_000);
        let doc = json!({ "blob": text, "after": 1 }).to_string();
        let shown = preview(&doc).unwrap();
        assert!(shown.contains("string(4,500,000)"), "{shown}");
        assert!(shown.contains("0123456789abcdé0123"), "{shown}");
        assert!(shown.contains("after"), "{shown}");
    }

    /// The corpus's previews, first recorded with serde_json driving the fold: a change to what
    /// is accepted or shown for any of its documents shows up here.
    #[test]
    fn corpus_previews() {
        use std::fmt::Write as _;
        let mut out = String::new();
        for (i, case) in corpus::corpus().into_iter().enumerate() {
            let shown: String = case
                .doc
                .escape_ascii()
                .to_string()
                .chars()
                .take(70)
                .collect();
            let shape = json_shape(case.doc.as_slice(), case.budget).unwrap();
            let _ = writeln!(
                out,
                "── #{i}, {} bytes, budget {}: {shown}\n{}",
                case.doc.len(),
                case.budget,
                outcome(shape)
            );
        }
        insta::assert_snapshot!("corpus", out);
    }

    #[test]
    fn scalars() {
        assert_eq!(preview("42").unwrap(), "JSON number = 42");
        assert_eq!(preview("-1.5e3").unwrap(), "JSON number = -1500.0");
        assert_eq!(preview(" true ").unwrap(), "JSON true");
        assert_eq!(preview("null\n").unwrap(), "JSON null");
        assert_eq!(
            preview(r#""hi\nthere""#).unwrap(),
            r#"JSON string(8) = "hi\nthere""#
        );
        let long = format!("\"{}\"", "é".repeat(100));
        assert_eq!(
            preview(&long).unwrap(),
            format!("JSON string(100) = \"{}…\"", "é".repeat(40))
        );
    }

    #[test]
    fn object_lists_keys_with_types_and_sizes() {
        let doc = json!({
            "name": "scratchpad",
            "count": 3,
            "ok": false,
            "tags": ["a", "b"],
            "meta": {"x": 1, "y": [1, 2, 3]},
            "none": null,
        });
        let out = preview_value(&doc);
        assert_eq!(
            out,
            r#"JSON object, 6 keys:
  "count": number = 3
  "meta": object{2}:
    "x": number = 1
    "y": array[3] of number 1..3:
      samples: 1, 2, 3
  "name": string(10) = "scratchpad"
  "none": null
  "ok": false
  "tags": array[2] of string(1):
    samples: "a", "b""#
        );
    }

    #[test]
    fn keeps_document_key_order() {
        let out = preview(r#"{"z": 1, "a": 2, "m": 3}"#).unwrap();
        let keys: Vec<&str> = out.lines().skip(1).map(|l| l.trim()).collect();
        assert_eq!(
            keys,
            [
                "\"z\": number = 1",
                "\"a\": number = 2",
                "\"m\": number = 3"
            ]
        );
    }

    #[test]
    fn array_of_objects_is_merged_with_id_samples() {
        let items: Vec<Value> = (1..=10_000)
            .map(|i| json!({"id": i, "name": format!("item {i}"), "tags": ["x", "x", "x"], "meta": {"a": 1, "b": 2}}))
            .collect();
        let doc = json!({"items": items, "total": 10_000, "next": null});
        let out = preview_value(&doc);
        assert!(out.starts_with("JSON object, 3 keys:\n"), "{out}");
        assert!(
            out.contains(r#"  "items": array[10,000] of object{4}:"#),
            "{out}"
        );
        assert!(out.contains(r#"    "id": number 1..10000"#), "{out}");
        assert!(out.contains(r#"    "name": string(6..10)"#), "{out}");
        assert!(out.contains(r#"    "tags": array[3]"#), "{out}");
        assert!(out.contains(r#"    "meta": object{2}"#), "{out}");
        assert!(
            out.contains("    samples of .id: 1, 2, 3, …, 10000"),
            "{out}"
        );
        assert!(
            out.contains(r#"    samples of .name: "item 1", "item 2", "item 3", …, "item 10000""#),
            "{out}"
        );
        assert!(out.contains(r#"  "total": number = 10000"#), "{out}");
        assert!(out.contains(r#"  "next": null"#), "{out}");
    }

    #[test]
    fn varying_keys_show_presence_and_mixed_types() {
        let doc = r#"[
            {"id": 1, "email": "a@example.com", "status": "active"},
            {"id": 2, "status": "inactive", "score": 1.5},
            {"id": 3, "email": null, "status": "active"},
            {"id": 4, "status": "active", "score": 7}
        ]"#;
        let out = preview(doc).unwrap();
        assert_eq!(
            out,
            r#"JSON array[4] of object{3}:
  "id": number 1..4
  "email" (in 2 of 4): string(13) = "a@example.com" ×1 | null ×1
  "status": string(6..8):
    values: "active" ×3, "inactive" ×1
  "score" (in 2 of 4): number 1.5..7
  2 kinds: {id,email,status} ×2, {… +score -email} ×2
  samples of .id: 1, 2, 3, 4"#
        );
    }

    /// Regression: the `.id` samples of `cargo metadata` showed the same 40-character prefix three
    /// times.
    #[test]
    fn samples_show_what_tells_long_ids_apart() {
        let packages: Vec<Value> = ["anyhow@1.0.86", "serde@1.0.200", "serde_json@1.0.120", "tokio@1.40.0", "zstd@0.13.2"]
            .iter()
            .map(|p| json!({"id": format!("registry+https://github.com/rust-lang/crates.io-index#{p}"), "name": p.split('@').next()}))
            .collect();
        let out = preview_value(&json!({ "packages": packages }));
        assert!(
            out.contains(r#"samples of .id: "…anyhow@1.0.86", "…serde@1.0.200", "…serde_json@1.0.120", …, "…zstd@0.13.2" (all start "registry+https://github.com/rust-lang/crates.io-index#")"#),
            "{out}"
        );
    }

    /// Regression: "(all start …)" was said of the samples shown, while values not shown could
    /// start otherwise.
    #[test]
    fn shared_starts_and_ends_are_said_only_when_every_value_has_them() {
        let ids = |middle: &str| -> Value {
            let ids: Vec<Value> = ["anyhow@1", "serde@1", "serde_json@1", middle, "zstd@0"]
                .iter()
                .map(|p| json!({"id": format!("registry+https://github.com/rust-lang/crates.io-index#{p}")}))
                .collect();
            Value::Array(ids)
        };
        let out = preview_value(&ids("tokio@1"));
        assert!(out.contains("(all start "), "{out}");
        // The value not shown is a git dependency.
        let mut odd = ids("x");
        odd[3] = json!({"id": "git+https://github.com/tokio-rs/tokio#1.40.0"});
        let out = preview_value(&odd);
        assert!(!out.contains("(all start "), "{out}");
        let hosts = |odd: &str| -> Value {
            let names = ["alpha", "beta", "gamma", odd, "delta"];
            Value::Array(
                names
                    .iter()
                    .map(|h| json!({"name": format!("{h}.internal.cluster.example.com")}))
                    .collect(),
            )
        };
        assert!(preview_value(&hosts("eta")).contains("(all end "));
        let mut odd = hosts("x");
        odd[3] = json!({"name": "eta.example.org"});
        assert!(!preview_value(&odd).contains("(all end "));
    }

    #[test]
    fn samples_with_a_shared_suffix_show_their_start() {
        let hosts: Vec<Value> = ["alpha", "beta", "gamma"]
            .iter()
            .map(|h| json!({"name": format!("{h}.internal.cluster.example.com")}))
            .collect();
        let out = preview_value(&Value::Array(hosts));
        assert!(
            out.contains(r#"samples of .name: "alpha…", "beta…", "gamma…" (all end ".internal.cluster.example.com")"#),
            "{out}"
        );
    }

    #[test]
    fn samples_are_distinct_values() {
        let items: Vec<Value> = ["a", "a", "a", "a", "b", "a", "c", "d", "e"]
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"name": n, "n": i}))
            .collect();
        let out = preview_value(&Value::Array(items));
        assert!(
            out.contains(r#"samples of .name: "a", "b", "c", …, "e""#),
            "{out}"
        );
    }

    #[test]
    fn heterogeneous_arrays_show_their_kinds() {
        let mut items: Vec<Value> = (0..40).map(|i| json!({"a": i, "b": "x"})).collect();
        items.push(json!({"a": 1, "c": true}));
        items.push(json!({"a": 2, "c": false}));
        items.push(json!("stray"));
        let out = preview_value(&Value::Array(items));
        assert!(
            out.contains("3 kinds: {a,b} ×40, {… +c -b} ×2, string ×1"),
            "{out}"
        );
    }

    #[test]
    fn many_keys_are_summarised() {
        let object: serde_json::Map<String, Value> =
            (0..1000).map(|i| (format!("k{i:04}"), json!(i))).collect();
        let out = preview_value(&Value::Object(object));
        assert!(out.starts_with("JSON object, 1,000 keys:"), "{out}");
        assert!(out.contains(r#"  "k0019": number = 19"#), "{out}");
        assert!(!out.contains("k0020"), "{out}");
        assert!(out.ends_with("  … 980 more keys"), "{out}");

        // Merged objects count distinct untracked names.
        let items: Vec<Value> = (0..300)
            .map(|i| json!({"common": i, format!("u{i}"): 1}))
            .collect();
        let out = preview_value(&Value::Array(items));
        assert!(out.contains("… ≥"), "{out}");
    }

    #[test]
    fn wide_documents_stay_bounded() {
        // 20 × 20 × 20 keys: more positions than the document-wide allowance.
        let level3: serde_json::Map<String, Value> =
            (0..20).map(|i| (format!("c{i}"), json!(i))).collect();
        let level2: serde_json::Map<String, Value> = (0..20)
            .map(|i| (format!("b{i}"), Value::Object(level3.clone())))
            .collect();
        let level1: serde_json::Map<String, Value> = (0..20)
            .map(|i| (format!("a{i}"), Value::Object(level2.clone())))
            .collect();
        let out = preview_value(&Value::Object(level1));
        assert!(out.starts_with("JSON object, 20 keys:\n"), "{out}");
        assert!(out.chars().count() <= 10_000);
    }

    #[test]
    fn long_keys_and_odd_characters_are_escaped_and_cut() {
        let key = "k".repeat(100);
        let doc = format!(r#"{{"{key}": "line1\nline2\u2028\u0007", "q\"uote": 1}}"#);
        let out = preview(&doc).unwrap();
        assert_eq!(
            out,
            format!(
                "JSON object, 2 keys:\n  \"{}…\": string(13) = \"line1\\nline2\\u2028\\u0007\"\n  \"q\\\"uote\": number = 1",
                "k".repeat(64)
            )
        );
    }

    #[test]
    fn huge_numbers_and_exotic_literals() {
        assert_eq!(
            preview("18446744073709551615").unwrap(),
            "JSON number = 18446744073709551615"
        );
        assert_eq!(
            preview("-9223372036854775808").unwrap(),
            "JSON number = -9223372036854775808"
        );
        assert_eq!(preview("1e300").unwrap(), "JSON number = 1e300");
        // Beyond f64: serde_json refuses it, so the caller shows text.
        assert_eq!(preview("[1e400]"), None);
        // Skipped (untracked) levels are only checked for syntax.
        assert!(preview("[[[[[1e400]]]]]").is_some());
    }

    #[test]
    fn deep_values_get_type_and_size_only() {
        let doc = json!({"a": {"b": {"c": {"d": {"e": 1}}, "list": [[1, 2], [3]]}}});
        let out = preview_value(&doc);
        assert_eq!(
            out,
            r#"JSON object, 1 key:
  "a": object{1}:
    "b": object{2}:
      "c": object{1}:
        "d": object{1}
      "list": array[2] of array[1..2]"#
        );
    }

    #[test]
    fn nesting_beyond_serde_recursion_limit_is_fine() {
        let depth = 100_000;
        let doc = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let out = preview(&doc).unwrap();
        assert_eq!(
            out,
            "JSON array[1] of array[1] of array[1] of array[1] of array[1]"
        );
    }

    #[test]
    fn nesting_past_a_million_levels_is_not_previewed_as_json() {
        let depth = (1 << 20) + 64;
        let doc = format!("[{}{}]", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(preview(&doc), None);
    }

    #[test]
    fn invalid_json_is_none() {
        for doc in [
            "",
            "   ",
            "{",
            "{\"a\": }",
            "[1, 2,]",
            "hello",
            "{'a': 1}",
            "NaN",
            "\"unterminated",
        ] {
            assert_eq!(preview(doc), None, "{doc:?}");
        }
    }

    #[test]
    fn trailing_garbage_is_none() {
        for doc in ["{} x", "[1] [2]", "1 2", "{\"a\":1}\n{\"a\":2}\n", "null,"] {
            assert_eq!(preview(doc), None, "{doc:?}");
        }
        assert!(preview("{}\n\n  \t").is_some());
    }

    #[test]
    fn io_errors_are_errors() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let err = json_shape_preview(Failing, 100).unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
    }

    #[test]
    fn budget_is_respected_with_less_detail_first() {
        let items: Vec<Value> = (0..50)
            .map(|i| {
                let object: serde_json::Map<String, Value> = (0..30)
                    .map(|k| (format!("field_{k}"), json!({"v": i, "w": [k]})))
                    .collect();
                Value::Object(object)
            })
            .collect();
        let doc = json!({"a": items.clone(), "b": items}).to_string();
        let full = json_shape_preview(doc.as_bytes(), 100_000)
            .unwrap()
            .unwrap();
        for budget in [0, 1, 5, 20, 60, 200, 400, 1_000, 2_000] {
            let out = json_shape_preview(doc.as_bytes(), budget).unwrap().unwrap();
            assert!(out.chars().count() <= budget, "{budget}: {out}");
            if budget >= 200 {
                assert!(out.lines().count() > 2, "{budget}: {out}");
            }
        }
        assert!(full.chars().count() > 2_000);
        let terse = json_shape_preview(doc.as_bytes(), 400).unwrap().unwrap();
        assert!(terse.starts_with("JSON object, 2 keys:\n"), "{terse}");
    }

    #[test]
    fn cut_keeps_whole_lines() {
        let lines: Vec<String> = ["first line", "second", "third"].map(String::from).to_vec();
        assert_eq!(cut_to_budget(&lines, 100), "first line\nsecond\nthird");
        assert_eq!(cut_to_budget(&lines, 20), "first line\nsecond\n…");
        assert_eq!(cut_to_budget(&lines, 12), "first line\n…");
        assert_eq!(cut_to_budget(&lines, 11), "first line…");
        assert_eq!(cut_to_budget(&lines, 5), "firs…");
        assert_eq!(cut_to_budget(&lines, 1), "…");
        assert_eq!(cut_to_budget(&lines, 0), "");
    }

    #[test]
    fn snapshots() {
        let api_response = json!({
            "data": (1..=250).map(|i| json!({
                "id": format!("usr_{i:05}"),
                "type": "user",
                "attributes": {
                    "name": format!("User {i}"),
                    "email": if i % 10 == 0 { Value::Null } else { json!(format!("user{i}@example.com")) },
                    "roles": if i % 3 == 0 { json!(["admin", "editor"]) } else { json!(["viewer"]) },
                    "created_at": format!("2024-01-{:02}T12:00:00Z", i % 28 + 1),
                },
                "relationships": {"team": {"data": {"type": "team", "id": i % 7}}},
            })).collect::<Vec<_>>(),
            "meta": {"page": 1, "per_page": 250, "total": 1234, "has_more": true},
            "links": {"self": "https://api.example.com/v1/users?page=1", "next": "https://api.example.com/v1/users?page=2&cursor=eyJpZCI6InVzcl8wMDI1MCJ9"},
        });
        let log_events = Value::Array(
            (0..1000)
                .map(|i| {
                    let level = ["info", "info", "info", "warn", "error"][i as usize % 5];
                    let mut event = json!({
                        "ts": 1_700_000_000.0 + f64::from(i) * 0.25,
                        "level": level,
                        "msg": format!("request {i} handled"),
                        "latency_ms": (i * 37) % 500,
                    });
                    if i % 5 == 4 {
                        event["error"] = json!({"code": "E_TIMEOUT", "retryable": i % 2 == 0});
                    }
                    if i % 100 == 0 {
                        event["trace"] =
                            json!([{"fn": "main", "line": 1}, {"fn": "handle", "line": 42}]);
                    }
                    event
                })
                .collect(),
        );
        let config = json!({
            "version": "2.3.1",
            "debug": false,
            "matrix": [[1, 2, 3], [4, 5, 6]],
            "servers": {
                "primary": {"host": "10.0.0.1", "port": 8080, "tls": {"cert": "/etc/ssl/a.pem", "key": "/etc/ssl/a.key"}},
                "replica": {"host": "10.0.0.2", "port": 8081, "tls": null},
            },
            "mixed": [1, "two", null, {"three": 3}, [4], true],
            "description": "A fairly long description that goes on and on beyond forty characters.",
            "empty_list": [],
            "empty_object": {},
        });
        insta::assert_snapshot!("api_response", preview_value(&api_response));
        insta::assert_snapshot!("log_events", preview_value(&log_events));
        insta::assert_snapshot!("config", preview_value(&config));
    }

    /// Produces a large JSON array on the fly, so the document never exists
    /// in memory.
    struct GeneratedArray {
        items: u64,
        next: u64,
        chunk: Vec<u8>,
        pos: usize,
        done: bool,
    }

    impl GeneratedArray {
        fn new(items: u64) -> Self {
            Self {
                items,
                next: 0,
                chunk: b"[".to_vec(),
                pos: 0,
                done: false,
            }
        }

        fn refill(&mut self) {
            use std::io::Write as _;
            self.chunk.clear();
            self.pos = 0;
            while self.chunk.len() < 16 * 1024 && self.next < self.items {
                let i = self.next;
                let sep = if i == 0 { "" } else { "," };
                let status = ["ok", "failed", "pending"][(i % 3) as usize];
                let _ = write!(
                    self.chunk,
                    r#"{sep}{{"id":{i},"name":"item-{i}","status":"{status}","score":{}.5,"tags":["alpha","beta"],"meta":{{"owner":"team-{}","history":[{{"at":{i},"by":"bot"}}]}}}}"#,
                    i % 1000,
                    i % 17
                );
                self.next += 1;
            }
            if self.next == self.items && !self.done {
                self.chunk.push(b']');
                self.done = true;
            }
        }
    }

    impl Read for GeneratedArray {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.chunk.len() {
                self.refill();
            }
            let n = buf.len().min(self.chunk.len() - self.pos);
            buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    #[test]
    fn generated_50_mb_document_streams() {
        // ~150 bytes per item: about 50 MB in all.
        let items = 350_000;
        let out = json_shape_preview(GeneratedArray::new(items), 2_000)
            .unwrap()
            .unwrap();
        assert!(
            out.starts_with("JSON array[350,000] of object{6}:"),
            "{out}"
        );
        assert!(out.contains("samples of .id: 0, 1, 2, …, 349999"), "{out}");
        assert!(
            out.contains(r#"values: "ok" ×116,667, "failed" ×116,667, "pending" ×116,666"#),
            "{out}"
        );
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("JSON numbers are finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 200, 10, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
                prop::collection::vec((any::<String>(), inner), 0..10)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

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

        #[test]
        fn any_json_value_is_previewed_within_budget(value in arb_json(), budget in 0usize..3_000) {
            let doc = value.to_string();
            let out = json_shape_preview(doc.as_bytes(), budget).unwrap();
            let out = out.expect("valid JSON must be previewed");
            prop_assert!(out.chars().count() <= budget, "{} > {budget}: {out}", out.chars().count());
            if budget >= 100 {
                prop_assert!(out.starts_with("JSON "), "{out}");
            }
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            let again = json_shape_preview(pretty.as_bytes(), budget).unwrap();
            prop_assert_eq!(Some(out), again, "whitespace must not change the preview");
        }
    }
}
