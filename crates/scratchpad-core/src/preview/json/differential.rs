//! The preview's parser and fold side by side with the implementation they replaced, kept here as
//! the oracle: serde_json's reader path driving a serde visitor through the document (the same
//! leaves record what it hands them). For every document, read in pieces of any size, both accept
//! the same documents, give the same preview and queries, and fail on the same I/O errors.

use std::fmt;
use std::io::{self, BufReader, Read};

use proptest::prelude::*;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::corpus::{self, Rng};
use super::fold::{Budget, OUTLINE_DEPTH, Place, resolve_key};
use super::parser::Str;
use super::summary::{ArrStats, Kind, NumVal, ObjStats, Sample, Slot, TRACK_DEPTH, update_range};
use super::{JsonShape, json_shape, shape};

/// The preview as it was made before the parser: serde_json's reader path driving the fold.
fn json_shape_by_serde_json(input: impl Read, budget: usize) -> io::Result<Option<JsonShape>> {
    let reader = BufReader::with_capacity(64 * 1024, input);
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let mut root = Slot::default();
    let seed = ValueSeed {
        place: Place::root(&mut root),
        budget: &Budget::new(),
    };
    match seed
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end())
    {
        Ok(()) => Ok(Some(shape(&root, budget))),
        Err(error) if error.is_io() => Err(error.into()),
        Err(_) => Ok(None),
    }
}

/// Folds one value into its place.
struct ValueSeed<'a> {
    place: Place<'a>,
    budget: &'a Budget,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.place.null();
        Ok(())
    }

    fn visit_bool<E>(self, value: bool) -> Result<(), E> {
        self.place.bool(value);
        Ok(())
    }

    fn visit_i64<E>(self, value: i64) -> Result<(), E> {
        self.place.number(NumVal::I64(value));
        Ok(())
    }

    fn visit_u64<E>(self, value: u64) -> Result<(), E> {
        self.place.number(NumVal::U64(value));
        Ok(())
    }

    fn visit_f64<E>(self, value: f64) -> Result<(), E> {
        self.place.number(NumVal::F64(value));
        Ok(())
    }

    fn visit_str<E>(self, value: &str) -> Result<(), E> {
        self.place.string(Str {
            text: value,
            ascii: false,
            dropped_chars: 0,
        });
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let ValueSeed {
            place:
                Place {
                    slot,
                    depth,
                    sample,
                    kinds,
                    ..
                },
            budget,
        } = self;
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
            while seq
                .next_element_seed(ValueSeed {
                    place: Place {
                        slot: items,
                        depth: depth + 1,
                        sample: Some(values),
                        ids: Some(ids),
                        kinds: Some(kinds),
                    },
                    budget,
                })?
                .is_some()
            {
                len += 1;
            }
        } else {
            while seq.next_element::<IgnoredAny>()?.is_some() {
                len += 1;
            }
        }
        update_range(&mut arr.count, &mut arr.min_len, &mut arr.max_len, len);
        if let Some(samples) = sample {
            samples.record(Sample::Array);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ValueSeed {
            place:
                Place {
                    slot,
                    depth,
                    sample,
                    mut ids,
                    kinds,
                },
            budget,
        } = self;
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
            let mut hint = 0;
            while let Some(found) = map.next_key_seed(KeySeed {
                obj,
                hint,
                outline: depth < OUTLINE_DEPTH,
                budget,
            })? {
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
                        map.next_value_seed(ValueSeed {
                            place: Place {
                                slot: &mut entry.slot,
                                depth: depth + 1,
                                sample,
                                ids: None,
                                kinds: None,
                            },
                            budget,
                        })?;
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
        } else {
            while map.next_key::<IgnoredAny>()?.is_some() {
                map.next_value::<IgnoredAny>()?;
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
}

/// Resolves a key to its tracked entry.
struct KeySeed<'a> {
    obj: &'a mut ObjStats,
    hint: usize,
    outline: bool,
    budget: &'a Budget,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(resolve_key(
            self.obj,
            self.hint,
            self.outline,
            self.budget,
            key,
        ))
    }
}

/// Reads `bytes` in pieces of the given sizes, in turn, so that every token falls across a read
/// boundary somewhere; a size of 0 is an interrupted read. After the bytes, the end of the input,
/// or an I/O error if `fail`.
#[derive(Debug, Clone)]
struct Pieces<'a> {
    bytes: &'a [u8],
    sizes: &'a [usize],
    turn: usize,
    fail: bool,
}

impl<'a> Pieces<'a> {
    fn new(bytes: &'a [u8], sizes: &'a [usize]) -> Self {
        Self {
            bytes,
            sizes,
            turn: 0,
            fail: false,
        }
    }
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.bytes.is_empty() && self.fail {
            return Err(io::Error::other("the disk is gone"));
        }
        let size = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        if size == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Read sizes that put boundaries everywhere, and one that reads whole buffers.
const SIZES: [&[usize]; 5] = [&[1], &[2, 0, 1], &[7], &[3, 1, 64, 0, 4096], &[usize::MAX]];

fn outcome(result: io::Result<Option<JsonShape>>) -> String {
    match result {
        Err(error) => format!("I/O error: {error}"),
        Ok(None) => "not JSON".to_owned(),
        Ok(Some(shape)) => format!("{}\nqueries: {:?}", shape.preview, shape.queries),
    }
}

/// Compares the parser with serde_json on `doc` read in `sizes`, and cut short by an I/O error.
fn assert_same(doc: &[u8], budget: usize, sizes: &[usize]) {
    let expected = outcome(json_shape_by_serde_json(doc, budget));
    let got = outcome(json_shape(Pieces::new(doc, sizes), budget));
    assert_eq!(got, expected, "{} in pieces {sizes:?}", doc.escape_ascii());
    // An error after the first bytes: both give up reading at the same place. Every place, for
    // short documents.
    let cuts: Vec<usize> = if doc.len() <= 64 {
        (0..doc.len()).collect()
    } else {
        vec![doc.len() / 3, doc.len() - 1]
    };
    for cut in cuts {
        let failing = || Pieces {
            fail: true,
            ..Pieces::new(&doc[..cut], sizes)
        };
        let expected = outcome(json_shape_by_serde_json(failing(), budget));
        let got = outcome(json_shape(failing(), budget));
        assert_eq!(got, expected, "{} failing after {cut}", doc.escape_ascii());
    }
}

/// What the parser accepts lies between what serde_json accepts as a `Value` (which checks every
/// string and number) and as `IgnoredAny` (which checks syntax only): strings and numbers are
/// checked where the preview reads them.
fn assert_between_value_and_ignored_any(doc: &[u8]) {
    let accepted = json_shape(doc, 1_000).unwrap().is_some();
    let as_ignored_any = serde_json::from_slice::<IgnoredAny>(doc).is_ok();
    let as_value = serde_json::from_slice::<serde_json::Value>(doc).is_ok();
    assert!(
        !accepted || as_ignored_any,
        "accepted, and not by IgnoredAny: {}",
        doc.escape_ascii()
    );
    assert!(
        accepted || !as_value,
        "refused, and accepted as a Value: {}",
        doc.escape_ascii()
    );
}

#[test]
fn corpus_matches_serde_json_in_any_pieces() {
    for case in corpus::corpus() {
        for sizes in SIZES {
            assert_same(&case.doc, case.budget, sizes);
        }
        assert_between_value_and_ignored_any(&case.doc);
    }
}

#[test]
fn strings_and_numbers_are_checked_where_they_are_read() {
    let preview = |doc: &str| json_shape(doc.as_bytes(), 1_000).unwrap();
    for value in [r#""\ud800""#, r#""\udc00x""#, r#""\ud800\u0041""#, "1e400"] {
        // Read: at the root, in a tracked array, as a key, at the tracked depth.
        assert_eq!(preview(value), None, "{value}");
        assert_eq!(preview(&format!("[{value}]")), None, "{value}");
        assert_eq!(preview(&format!("[[[[{value}]]]]")), None, "{value}");
        // Skipped: past the tracked depth.
        assert!(preview(&format!("[[[[[{value}]]]]]")).is_some(), "{value}");
        assert!(
            serde_json::from_slice::<IgnoredAny>(format!("[{value}]").as_bytes()).is_ok(),
            "{value}"
        );
    }
    assert_eq!(preview(r#"{"\udc00": 1}"#), None);
    assert_eq!(preview(r#"[[[[{"\udc00": 1}]]]]"#), None);
    assert!(preview(r#"[[[[[{"\udc00": 1}]]]]]"#).is_some());
    assert_eq!(json_shape(b"[\"\xff\"]".as_slice(), 1_000).unwrap(), None);
    assert!(
        json_shape(b"[[[[[\"\xff\"]]]]]".as_slice(), 1_000)
            .unwrap()
            .is_some()
    );
}

/// Regression: a string cut short by an I/O error after a byte that is not UTF-8, or inside a
/// character, was refused as not JSON, where serde_json goes on reading and meets the error.
#[test]
fn io_errors_are_met_where_serde_json_meets_them() {
    for doc in [
        b"\"\xff\\\"\"".as_slice(),
        "\"é中😀\u{2028}\"".as_bytes(),
        b"[\"\xc3\xa9\"]",
        b"[1 \xc3\xa9]",
        b"{\"\xe4\xb8\xad\": 1}",
    ] {
        for sizes in SIZES {
            assert_same(doc, 500, sizes);
        }
    }
}

#[test]
fn numbers_are_read_as_serde_json_reads_them() {
    // Read at every position of a tracked array, so that each is a sample.
    for number in [
        "0",
        "-0",
        "-0.0",
        "0.5",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "9007199254740992.0",
        "9007199254740993.0",
        "0.000000000000000001",
        "0.1000000000000000055511151231257827",
        "123.456e-2",
        "2.2250738585072011e-308",
    ] {
        let doc = format!("[{number}, {number}, 1]");
        assert_same(doc.as_bytes(), 1_000, &[usize::MAX]);
        assert_same(doc.as_bytes(), 1_000, &[1]);
    }
}

/// Documents made only of JSON's punctuation, literals' letters and number bytes.
fn token_soup() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&'static [u8]> = vec![
        b"[", b"]", b"{", b"}", b",", b":", b"\"", b"\"a\"", b"\"\\u", b"\\", b"0", b"1", b"-",
        b".", b"e", b"+", b"null", b"tru", b"e", b" ", b"\n", b"\x00", b"\xff", b"d83d", b"\\n",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn generated_documents_match_serde_json(
        seed in any::<u64>(),
        mutations in 0usize..3,
        sizes in prop::collection::vec(0usize..40, 1..5),
        budget in prop::sample::select(vec![80usize, 600, 3_000]),
    ) {
        let mut rng = Rng::new(seed);
        let mut doc = corpus::generate(&mut rng);
        for _ in 0..mutations {
            doc = corpus::mutate(&mut rng, &doc);
        }
        // A read of 0 bytes is an interrupted read; make sure some read moves forward.
        let mut sizes = sizes;
        sizes.push(1 + rng.below(100));
        assert_same(&doc, budget, &sizes);
        assert_between_value_and_ignored_any(&doc);
    }

    #[test]
    fn token_soup_matches_serde_json(doc in token_soup(), size in 1usize..5) {
        assert_same(&doc, 500, &[size]);
        assert_between_value_and_ignored_any(&doc);
    }

    #[test]
    fn any_bytes_match_serde_json(doc in prop::collection::vec(any::<u8>(), 0..64)) {
        assert_same(&doc, 500, &[3]);
    }
}
