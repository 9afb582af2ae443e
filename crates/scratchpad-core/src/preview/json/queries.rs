//! The jq queries a JSON preview suggests, chosen from what the document holds: the preview
//! already shows the keys and types, so a query is worth suggesting when it brings what the
//! preview cannot, about the largest collection in the document (an array of objects, or an
//! object whose values are alike, keyed by names):
//!
//! - the items that differ from the rest: those with the rarest value of a field of few values
//!   (`status` is `"failed"`), or those that have a key most items lack (`error`);
//! - the field that tells items apart (`name`, `id`: short, distinct), listed for every item;
//! - for an object keyed by names, one field of each value (`version` of each package), or its
//!   keys.
//!
//! Every query is valid for the document it was made for: it names only keys that every object
//! on its path has, iterates only arrays and selects only in objects. A listing that would
//! overflow a read's default budget is sliced to what fits, and says so.

use serde_json::Value;

use super::summary::{
    ID_FIELDS, KeyEntry, MAX_SAMPLE_CHARS, MAX_TRACKED_KEYS, ObjStats, Slot, shown_enum,
};
use crate::figures::thousands;

/// Characters a suggested listing may print: a read's default budget (8,000 characters) less
/// room for its header and notes.
const LIST_CHARS: u64 = 6_000;

/// Items a query for the ones that differ returns whole, at most (count).
const ODD_ITEMS: u64 = 5;

/// Keys on the path from the root to a collection, at most (levels); iterating an array costs
/// none.
const SEARCH_KEYS: usize = 2;

/// Queries suggested per document (count), and of them, queries for the items that differ.
const MAX_QUERIES: usize = 3;
const MAX_ODD_QUERIES: usize = 2;

/// Characters a pretty-printed listing spends around each value besides the value itself: the
/// indent, the quotes, the comma and the newline.
const LISTED_VALUE_OVERHEAD: u64 = 6;

/// Characters of a number as listed, assumed.
const NUMBER_CHARS: u64 = 10;

/// A query and what it finds, in words for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Suggestion {
    pub query: String,
    pub finds: String,
}

/// One step from a value to the values below it.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    /// Every item of an array: `[]`.
    Items,
}

/// The steps from the root to a collection.
#[derive(Debug, Clone, Default)]
struct Path(Vec<Step>);

impl Path {
    /// `.packages`, `.resolve.nodes`, `.[].messages`, `.["dist-tags"]`; `.` for the root.
    fn expr(&self) -> String {
        if self.0.is_empty() {
            return ".".to_owned();
        }
        let mut out = String::new();
        for step in &self.0 {
            match step {
                Step::Key(key) => out.push_str(&key_step(key, out.is_empty())),
                Step::Items if out.is_empty() => out.push_str(".[]"),
                Step::Items => out.push_str("[]"),
            }
        }
        out
    }

    /// The items of the arrays at this path: `.packages[]`, `.[]`, `.[].messages[]`.
    fn items(&self) -> String {
        if self.0.is_empty() {
            ".[]".to_owned()
        } else {
            format!("{}[]", self.expr())
        }
    }

    /// `tail` applied to the value at this path: `.packages | keys`, `keys` at the root.
    fn pipe(&self, tail: &str) -> String {
        if self.0.is_empty() {
            tail.to_owned()
        } else {
            format!("{} | {tail}", self.expr())
        }
    }

    /// ` in `.packages``, or nothing at the root.
    fn place(&self) -> String {
        if self.0.is_empty() {
            String::new()
        } else {
            format!(" in `{}`", self.expr())
        }
    }

    fn key(&self, key: &str) -> Path {
        let mut path = self.clone();
        path.0.push(Step::Key(key.to_owned()));
        path
    }

    fn keys(&self) -> usize {
        self.0.iter().filter(|s| matches!(s, Step::Key(_))).count()
    }
}

/// jq's words: after a `.` some versions take them as syntax.
const JQ_KEYWORDS: [&str; 20] = [
    "and", "as", "catch", "def", "elif", "else", "end", "foreach", "if", "import", "include",
    "label", "not", "or", "reduce", "then", "try", "__loc__", "true", "false",
];

/// One key as a jq path step: `.name`, or `["dist-tags"]` (`.["dist-tags"]` first).
fn key_step(key: &str, first: bool) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !JQ_KEYWORDS.contains(&key);
    if plain {
        format!(".{key}")
    } else if first {
        format!(".[{}]", literal(key))
    } else {
        format!("[{}]", literal(key))
    }
}

/// A jq string literal (JSON's escapes are jq's).
fn literal(text: &str) -> String {
    Value::from(text).to_string()
}

/// A collection worth querying.
enum Collection<'a> {
    /// Arrays of objects: their items.
    Items { path: Path, items: &'a ObjStats },
    /// An object of many keys whose values are alike: names to records or to values.
    Map { path: Path, map: &'a ObjStats },
}

impl Collection<'_> {
    fn size(&self) -> u64 {
        match self {
            Collection::Items { items, .. } => items.count,
            Collection::Map { map, .. } => map.max_keys,
        }
    }
}

/// Only objects at this position, with their keys tracked.
fn only_objects(slot: &Slot) -> Option<&ObjStats> {
    slot.obj
        .as_deref()
        .filter(|obj| obj.count == slot.total() && obj.tracked)
}

/// The keys of `obj` that every object at its position has, as written in full.
fn keys_everywhere(obj: &ObjStats) -> impl Iterator<Item = &KeyEntry> {
    obj.keys
        .iter()
        .filter(move |e| e.present == obj.count && !e.name.cut)
}

/// The collections at `slot` or below it, on paths every value along them has: arrays of
/// objects (and arrays of objects in their items), and maps.
fn collections<'a>(slot: &'a Slot, path: &Path, out: &mut Vec<Collection<'a>>) {
    if let Some(arr) = slot.arr.as_deref()
        && arr.count == slot.total()
        && arr.tracked
        && let Some(items) = only_objects(&arr.items)
        && items.count >= 2
    {
        out.push(Collection::Items {
            path: path.clone(),
            items,
        });
        let mut inside = path.clone();
        inside.0.push(Step::Items);
        if path.keys() < SEARCH_KEYS {
            for entry in keys_everywhere(items) {
                collections(&entry.slot, &inside.key(&entry.name.text), out);
            }
        }
        return;
    }
    let Some(obj) = only_objects(slot) else {
        return;
    };
    // Iterated objects are many; a map is one object.
    let iterated = path.0.iter().any(|s| matches!(s, Step::Items));
    if !iterated && is_map(obj) {
        out.push(Collection::Map {
            path: path.clone(),
            map: obj,
        });
        return;
    }
    if path.keys() >= SEARCH_KEYS {
        return;
    }
    for entry in keys_everywhere(obj) {
        collections(&entry.slot, &path.key(&entry.name.text), out);
    }
}

/// One object with more keys than a record has, whose values (those tracked) are all objects or
/// all strings or all numbers: `{"node_modules/a": {…}, …}`, `{"1.0.0": "2024-…", …}`.
fn is_map(obj: &ObjStats) -> bool {
    if obj.count != 1 || obj.max_keys <= MAX_TRACKED_KEYS as u64 {
        return false;
    }
    let kind = |slot: &Slot| {
        if only_objects(slot).is_some() {
            Some(0)
        } else if slot.str.as_ref().is_some_and(|s| s.count == slot.total()) {
            Some(1)
        } else if slot.num.as_ref().is_some_and(|n| n.count == slot.total()) {
            Some(2)
        } else {
            None
        }
    };
    let mut kinds = obj.keys.iter().map(|entry| kind(&entry.slot));
    match kinds.next() {
        Some(Some(first)) => kinds.all(|k| k == Some(first)),
        _ => false,
    }
}

/// The queries worth suggesting for the document whose root is `root`, most telling first:
/// the items that differ from the rest (the rarest first, one per collection before a second),
/// then what tells the items of the largest collection apart; empty when it holds no
/// collection.
pub(super) fn suggest(root: &Slot) -> Vec<Suggestion> {
    let mut found = Vec::new();
    collections(root, &Path::default(), &mut found);
    // Largest first; among equals, the one found first (nearest the root).
    found.sort_by_key(|c| std::cmp::Reverse(c.size()));
    let mut odd: Vec<Vec<(u64, Suggestion)>> = found
        .iter()
        .map(|c| match c {
            Collection::Items { path, items } => odd_items(path, items),
            Collection::Map { .. } => Vec::new(),
        })
        .filter(|v| !v.is_empty())
        .collect();
    odd.sort_by_key(|v| v.first().map_or(u64::MAX, |(rarity, _)| *rarity));
    let mut out = Vec::new();
    for round in 0..MAX_ODD_QUERIES {
        for suggestions in &odd {
            if out.len() < MAX_ODD_QUERIES
                && let Some((_, suggestion)) = suggestions.get(round)
            {
                out.push(suggestion.clone());
            }
        }
    }
    match found.first() {
        Some(Collection::Items { path, items }) => out.extend(listing(path, items)),
        Some(Collection::Map { path, map }) => out.extend(map_queries(path, map)),
        None => {}
    }
    out.truncate(MAX_QUERIES);
    out
}

/// `the 3 items`, `the item`.
fn items_phrase(n: u64) -> String {
    if n == 1 {
        "the item".to_owned()
    } else {
        format!("the {} items", thousands(n))
    }
}

/// How many of `count` values of `per` characters each a listing shows: all (`None`), or as
/// many as fit [`LIST_CHARS`], rounded down to ten.
fn listed(count: u64, per: u64) -> Option<u64> {
    if count.saturating_mul(per) <= LIST_CHARS {
        return None;
    }
    Some((LIST_CHARS / per.max(1) / 10 * 10).max(10))
}

/// A field of every item that tells them apart: a short string of many values, an identifying
/// field first (`name`, `id`); else a long one; else a number that varies. With the characters a
/// listing spends on each value.
fn label(items: &ObjStats) -> Option<(&str, u64)> {
    let mut best: Option<(u8, usize, &str, u64)> = None;
    for (index, entry) in keys_everywhere(items).enumerate() {
        let slot = &entry.slot;
        let identifying = entry.id_field.is_some();
        let order = entry.id_field.unwrap_or(ID_FIELDS.len() + index);
        let candidate = if let Some(s) = slot.str.as_ref().filter(|s| s.count == slot.total()) {
            let distinct = match &s.enum_values {
                None => true,
                Some(values) => values.len() as u64 == s.count && s.count > 1,
            };
            if !distinct {
                continue;
            }
            let short = s.max_chars <= MAX_SAMPLE_CHARS as u64;
            let rank = match (identifying, short) {
                (true, true) => 0,
                (false, true) => 1,
                (true, false) => 2,
                (false, false) => 3,
            };
            (
                rank,
                (s.min_chars + s.max_chars) / 2 + LISTED_VALUE_OVERHEAD,
            )
        } else if let Some(n) = slot.num.as_ref().filter(|n| n.count == slot.total()) {
            if n.min.as_f64() == n.max.as_f64() {
                continue;
            }
            (4, NUMBER_CHARS + LISTED_VALUE_OVERHEAD)
        } else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|b| (candidate.0, order) < (b.0, b.1))
        {
            best = Some((candidate.0, order, entry.name.text.as_str(), candidate.1));
        }
    }
    best.map(|(_, _, name, per)| (name, per))
}

/// Queries for the items that differ from the rest, rarest first, with how many each finds:
/// those with the rarest value of a field of few values (`"status": "failed"` among
/// `"passed"`), those above a number most items share at its least (`"errorCount": 0`), those
/// with a key few items have or without one few lack (`error`).
fn odd_items(path: &Path, items: &ObjStats) -> Vec<(u64, Suggestion)> {
    let count = items.count;
    let place = path.place();
    let label = label(items);
    // The odd items by their label when they have one, else whole (a few).
    let pick = |filter: String, n: u64, what: String| -> (u64, Suggestion) {
        let suggestion = match label {
            Some((name, _)) => Suggestion {
                query: format!(
                    "[{} | select({filter}) | {}]",
                    path.items(),
                    key_step(name, true)
                ),
                finds: format!("the `{name}` of {what}"),
            },
            None if n > ODD_ITEMS => Suggestion {
                query: format!("[{} | select({filter})] | .[:{ODD_ITEMS}]", path.items()),
                finds: format!("the first {ODD_ITEMS} of {what}"),
            },
            None => Suggestion {
                query: format!("[{} | select({filter})]", path.items()),
                finds: what,
            },
        };
        (n, suggestion)
    };
    let mut out = Vec::new();
    let rare_value = keys_everywhere(items)
        .filter_map(|e| {
            let values = shown_enum(&e.slot)?;
            if values.len() < 2 || e.slot.str.as_ref()?.count != e.slot.total() {
                return None;
            }
            let (value, n) = values.iter().min_by_key(|(_, n)| *n)?;
            (2 * n <= count).then_some((e.name.text.as_str(), value.as_str(), *n))
        })
        .min_by_key(|(_, _, n)| *n);
    if let Some((field, value, n)) = rare_value {
        let filter = format!("{} == {}", key_step(field, true), literal(value));
        let what = format!(
            "{} whose `{field}` is {}{place}",
            items_phrase(n),
            literal(value)
        );
        out.push(pick(filter, n, what));
    }
    let above_least = keys_everywhere(items)
        .filter_map(|e| {
            let n = e.slot.num.as_ref()?;
            let above = n.count - n.at_min;
            (n.count == e.slot.total() && above > 0 && 2 * above <= count).then_some((
                e.name.text.as_str(),
                n.min,
                above,
            ))
        })
        .min_by_key(|(_, _, n)| *n);
    if let Some((field, least, n)) = above_least {
        let filter = format!("{} > {least}", key_step(field, true));
        let what = format!(
            "{} whose `{field}` is above {least}{place}",
            items_phrase(n)
        );
        out.push(pick(filter, n, what));
    }
    // A field most items fill and a few leave null, or the reverse: `"source": null` on the
    // workspace's own packages.
    let rare_null = keys_everywhere(items)
        .filter_map(|e| {
            let nulls = e.slot.nulls;
            let filled = e.slot.total() - nulls;
            let rare = nulls.min(filled);
            (rare > 0 && 2 * rare <= count).then_some((e.name.text.as_str(), nulls == rare, rare))
        })
        .min_by_key(|(_, _, n)| *n);
    if let Some((field, null, n)) = rare_null {
        let (op, what) = if null {
            ("==", "null")
        } else {
            ("!=", "not null")
        };
        let filter = format!("{} {op} null", key_step(field, true));
        let what = format!("{} whose `{field}` is {what}{place}", items_phrase(n));
        out.push(pick(filter, n, what));
    }
    let rare_key = items
        .keys
        .iter()
        .filter(|e| !e.name.cut && e.present < count)
        .map(|e| (e, e.present.min(count - e.present)))
        .filter(|(_, rare)| *rare > 0)
        .min_by_key(|(_, rare)| *rare);
    if let Some((entry, rare)) = rare_key {
        let key = &entry.name.text;
        let (filter, what) = if entry.present == rare {
            (
                format!("has({})", literal(key)),
                format!("{} that have `{key}`{place}", items_phrase(rare)),
            )
        } else {
            (
                format!("has({}) | not", literal(key)),
                format!("{} without `{key}`{place}", items_phrase(rare)),
            )
        };
        out.push(pick(filter, rare, what));
    }
    out.sort_by_key(|(n, _)| *n);
    out
}

/// The label of every item (or of as many as a read shows).
fn listing(path: &Path, items: &ObjStats) -> Option<Suggestion> {
    let (name, per) = label(items)?;
    let count = items.count;
    let place = path.place();
    let field = key_step(name, false);
    Some(match listed(count, per) {
        None => Suggestion {
            query: format!("[{}{field}]", path.items()),
            finds: format!(
                "the `{name}` of each of the {} items{place}",
                thousands(count)
            ),
        },
        Some(n) => Suggestion {
            query: format!("[{}{field}] | .[:{n}]", path.items()),
            finds: format!(
                "the `{name}` of the first {} of the {} items{place}",
                thousands(n),
                thousands(count)
            ),
        },
    })
}

fn map_queries(path: &Path, map: &ObjStats) -> Vec<Suggestion> {
    let count = map.max_keys;
    let place = path.place();
    let tracked = map.keys.len().max(1) as u64;
    let key_chars = map
        .keys
        .iter()
        .map(|e| e.name.text.chars().count() as u64)
        .sum::<u64>()
        / tracked;
    let mut out = Vec::new();
    if let Some((field, value_chars)) = record_field(map) {
        let per = key_chars + value_chars + 2 * LISTED_VALUE_OVERHEAD;
        let tail = format!("map_values({}?)", key_step(&field, true));
        out.push(match listed(count, per) {
            None => Suggestion {
                query: path.pipe(&tail),
                finds: format!(
                    "the `{field}` of each of the {} entries{place}",
                    thousands(count)
                ),
            },
            Some(n) => Suggestion {
                query: path.pipe(&format!("to_entries | .[:{n}] | from_entries | {tail}")),
                finds: format!(
                    "the `{field}` of the first {} of the {} entries{place}",
                    thousands(n),
                    thousands(count)
                ),
            },
        });
    }
    let place = if place.is_empty() {
        String::new()
    } else {
        format!(" of `{}`", path.expr())
    };
    out.push(match listed(count, key_chars + LISTED_VALUE_OVERHEAD) {
        None => Suggestion {
            query: path.pipe("keys"),
            finds: format!("the {} keys{place}", thousands(count)),
        },
        Some(n) => Suggestion {
            query: path.pipe(&format!("keys | .[:{n}]")),
            finds: format!(
                "the first {} of the {} keys{place}, sorted",
                thousands(n),
                thousands(count)
            ),
        },
    });
    out
}

/// For a map of records: a scalar field every tracked record has and whose values differ from
/// one record to the next (`version`), with the characters of a value.
fn record_field(map: &ObjStats) -> Option<(String, u64)> {
    let records: Vec<&ObjStats> = map
        .keys
        .iter()
        .map(|entry| only_objects(&entry.slot))
        .collect::<Option<Vec<_>>>()?;
    let first = records.first()?;
    for candidate in first.keys.iter().filter(|e| !e.name.cut) {
        let name = candidate.name.text.as_str();
        let mut firsts: Vec<String> = Vec::new();
        let mut chars = 0u64;
        let everywhere = records.iter().all(|record| {
            let Some(entry) = record
                .keys
                .iter()
                .find(|e| e.name.text == name && e.present == record.count)
            else {
                return false;
            };
            let slot = &entry.slot;
            if let Some(s) = slot.str.as_ref().filter(|s| s.count == slot.total()) {
                firsts.push(s.first.text.clone());
                chars += (s.min_chars + s.max_chars) / 2 + 2;
                true
            } else if let Some(n) = slot.num.as_ref().filter(|n| n.count == slot.total()) {
                firsts.push(n.min.to_string());
                chars += NUMBER_CHARS;
                true
            } else {
                false
            }
        });
        let varies = firsts.iter().any(|f| Some(f) != firsts.first());
        if everywhere && varies {
            return Some((name.to_owned(), chars / records.len() as u64));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::{corpus, json_shape};
    use crate::read::jq::run_jq;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn queries(doc: &serde_json::Value) -> Vec<(String, Option<String>)> {
        let shape = json_shape(doc.to_string().as_bytes(), 2_000)
            .unwrap()
            .unwrap();
        let mut finds = shape.finds.clone();
        shape
            .queries
            .iter()
            .map(|q| (q.clone(), finds.take()))
            .collect()
    }

    #[test]
    fn failed_items_are_found_by_their_rare_value_and_named_by_their_label() {
        let mut tests: Vec<serde_json::Value> = (0..200)
            .map(|i| json!({"name": format!("test_{i}"), "status": "passed", "ms": i}))
            .collect();
        tests[17] = json!({"name": "test_17", "status": "failed", "ms": 3, "error": "boom"});
        tests[90]["status"] = json!("skipped");
        tests[91]["status"] = json!("skipped");
        let got = queries(&json!({"run": 7, "tests": tests}));
        assert_eq!(
            got[0],
            (
                r#"[.tests[] | select(.status == "failed") | .name]"#.to_owned(),
                Some(r#"the `name` of the item whose `status` is "failed" in `.tests`"#.to_owned())
            )
        );
        assert_eq!(got[1].0, r#"[.tests[] | select(has("error")) | .name]"#);
        assert_eq!(got[2].0, "[.tests[].name]");
    }

    /// eslint's JSON: files with counts, and in each its messages; the one error is found in
    /// both, by the count that is above its usual 0 and by the severity above its usual 1.
    #[test]
    fn counts_above_their_usual_least_find_the_odd_items_in_nested_arrays() {
        let files: Vec<serde_json::Value> = (0..10)
            .map(|f| {
                let mut messages: Vec<serde_json::Value> = (0..30)
                    .map(|m| json!({"ruleId": "no-unused-vars", "severity": 1, "line": m, "message": format!("'v{m}' is assigned a value but never used.")}))
                    .collect();
                if f == 3 {
                    messages.push(json!({"ruleId": "no-undef", "severity": 2, "line": 25, "message": "'fetchConfig' is not defined."}));
                }
                json!({"filePath": format!("/src/module2{f}.js"), "messages": messages, "errorCount": u64::from(f == 3), "warningCount": 30})
            })
            .collect();
        let got = queries(&json!(files));
        let queries: Vec<&str> = got.iter().map(|(q, _)| q.as_str()).collect();
        assert_eq!(
            queries,
            [
                r#"[.[].messages[] | select(.ruleId == "no-undef") | .message]"#,
                "[.[] | select(.errorCount > 0) | .filePath]",
                "[.[].messages[].message] | .[:140]",
            ],
            "{got:?}"
        );
        let doc = json!(files).to_string();
        let found = crate::read::jq::run_jq(doc.as_bytes(), queries[1]).unwrap();
        assert_eq!(found, [json!(["/src/module23.js"])]);
    }

    #[test]
    fn a_long_listing_is_sliced_to_what_a_read_shows() {
        let rows: Vec<serde_json::Value> = (0..5_000)
            .map(|i| json!({"sku": format!("sku-{i:05}"), "qty": i}))
            .collect();
        let got = queries(&json!(rows));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "[.[].sku] | .[:400]");
        assert_eq!(
            got[0].1.as_deref(),
            Some("the `sku` of the first 400 of the 5,000 items")
        );
        let listed = crate::read::jq::run_jq(json!(rows).to_string().as_bytes(), &got[0].0)
            .unwrap()
            .remove(0)
            .to_string();
        assert!(listed.len() < 8_000, "{}", listed.len());
    }

    #[test]
    fn a_map_of_records_lists_one_field_of_each() {
        let mut packages = serde_json::Map::new();
        for i in 0..40 {
            packages.insert(
                format!("node_modules/p{i}"),
                json!({"version": format!("1.{i}.0"), "license": "MIT"}),
            );
        }
        let got = queries(&json!({"name": "app", "packages": packages}));
        assert_eq!(got[0].0, ".packages | map_values(.version?)");
        assert_eq!(
            got[0].1.as_deref(),
            Some("the `version` of each of the 40 entries in `.packages`")
        );
        assert_eq!(got[1].0, ".packages | keys");
    }

    #[test]
    fn keys_that_are_not_names_are_quoted() {
        let rows: Vec<serde_json::Value> = (0..30)
            .map(|i| json!({"dist-tag": format!("v{i}"), "end": i}))
            .collect();
        let got = queries(&json!({"the list": rows}));
        assert_eq!(got[0].0, r#"[.["the list"][]["dist-tag"]]"#);
    }

    /// Every query suggested for a corpus document runs on it: no key it lacks, no iteration of
    /// an object, no `has` on a string.
    #[test]
    fn every_query_suggested_for_the_corpus_runs() {
        let mut ran = 0;
        for case in corpus::corpus() {
            let Ok(Some(shape)) = json_shape(case.doc.as_slice(), case.budget) else {
                continue;
            };
            // The shape pass accepts what it skips by syntax alone; jq parses every value.
            if run_jq(&case.doc, ".").is_err() {
                continue;
            }
            for query in &shape.queries {
                run_jq(&case.doc, query).unwrap_or_else(|e| {
                    panic!("{query}: {e:?}\n{}", String::from_utf8_lossy(&case.doc))
                });
                ran += 1;
            }
        }
        assert!(ran > 500, "{ran}");
    }

    /// Collections of records with keys that come and go, values of few kinds and names that
    /// need quoting.
    fn arb_records() -> impl Strategy<Value = Value> {
        let key = prop::sample::select(vec![
            "id", "name", "status", "error", "dist-tag", "end", "", "a b", "é", "x\"y",
        ]);
        let value = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (0i64..5).prop_map(Value::from),
            prop::sample::select(vec!["ok", "failed", "pending"]).prop_map(Value::from),
            "[a-z]{0,30}".prop_map(Value::from),
            Just(json!([1, 2])),
            Just(json!({"version": "1.0.0"})),
        ];
        let record = prop::collection::btree_map(key, value, 0..6)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
        let records = prop::collection::vec(record, 0..40).prop_map(Value::Array);
        let map = prop::collection::btree_map("[a-z/]{1,12}", records.clone(), 0..30)
            .prop_map(|m| Value::Object(m.into_iter().collect()));
        prop_oneof![
            records.clone(),
            records.prop_map(|r| json!({"meta": {"n": 1}, "items": r})),
            map.clone(),
            map.prop_map(|m| json!({"packages": m})),
        ]
    }

    proptest! {
        #[test]
        fn suggested_queries_run_on_their_document(doc in arb_records()) {
            let text = doc.to_string();
            let shape = json_shape(text.as_bytes(), 2_000).unwrap().unwrap();
            prop_assert!(!shape.queries.is_empty());
            for query in &shape.queries {
                let out = run_jq(text.as_bytes(), query);
                prop_assert!(out.is_ok(), "{query}: {out:?}\n{text}");
            }
        }
    }
}
