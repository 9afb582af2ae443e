//! Shape previews of JSON documents, computed while streaming.
//!
//! Stored documents can be 100 MB–1 GB, so the document is never built in
//! memory: the fold (`fold`) reads it value by value from a streaming parser
//! (`parser`), folds every value into a bounded summary (`Slot` tree, `summary`)
//! and skips what the summary cannot use. The tree is bounded by constants (tracked
//! depth, keys per object, samples per array), not by the document. The summary
//! is then written as the preview (`render`) and queried for the jq queries worth
//! offering (`queries`); this file puts the two together.
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

use std::io::{self, Read};

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod differential;
mod fold;
mod parser;
mod queries;
mod render;
mod summary;

use fold::{Budget, Place, fold_value};
use parser::Parser;
use render::render;
use summary::{ObjStats, Slot};

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

    proptest! {
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
