//! The preview's parser side by side with serde_json, which drove the same fold before it: for
//! every document, read in pieces of any size, both accept the same documents, give the same
//! preview and queries, and fail on the same I/O errors.

use std::io::{self, BufReader, Read};

use proptest::prelude::*;
use serde::de::IgnoredAny;

use super::corpus::{self, Rng};
use super::{JsonShape, fold, json_shape, shape};

/// The preview as it was made before the parser: serde_json's reader path driving the fold.
fn json_shape_by_serde_json(input: impl Read, budget: usize) -> io::Result<Option<JsonShape>> {
    let reader = BufReader::with_capacity(64 * 1024, input);
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    match fold(&mut deserializer).and_then(|root| deserializer.end().map(|()| root)) {
        Ok(root) => Ok(Some(shape(&root, budget))),
        Err(error) if error.is_io() => Err(error.into()),
        Err(_) => Ok(None),
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
    // An error after the first bytes: both give up reading at the same place.
    for cut in [doc.len() / 3, doc.len().saturating_sub(1)] {
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
