//! How a document is folded into its summary: values are pulled from the streaming parser one at a
//! time, recursing only down to `TRACK_DEPTH` and skipping the rest in the parser's loop, with
//! allowances shared by the whole document so that memory stays bounded however many positions it
//! has.

use std::cell::Cell;
use std::io::Read;

use super::parser::{self, Parser, Str, Token};
use super::summary::{
    ArrStats, IdSamples, KeyEntry, Kind, Kinds, MAX_TRACKED_KEYS, NumVal, ObjStats, Sample,
    Samples, Slot, TRACK_DEPTH, cut_chars, update_range,
};

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

/// Further distinct key names counted per object position (count); beyond
/// it the preview says "≥ N more keys".
const MAX_COUNTED_OTHER_KEYS: usize = 256;

/// Longest key name kept (chars); longer names are cut, and names sharing a
/// cut prefix are merged.
const MAX_KEY_CHARS: usize = 64;

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

    pub(super) fn string(self, value: Str<'_>) {
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
pub(super) fn fold_value<R: Read>(
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
