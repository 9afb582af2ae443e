//! Repeated calls answered from the stored result. A call identical to a recent one (same
//! upstream, same tool, same arguments once placeholders are resolved, compared as canonical JSON
//! so key order does not matter; the `scratchpad` control argument aside) to a tool that declares
//! itself read-only and idempotent, or that the configuration names, gets the earlier result back
//! with a note saying so, and the upstream is not called.
//!
//! The table of recent calls lives in memory for the client's session, bounded in entries and
//! bytes (the oldest goes first). An offloaded result is kept as its reference (the content is in
//! the store) and is not reused once its entry is gone or has changed; a result small enough to be
//! shown whole is kept whole. A call to a tool that may change something (neither read-only nor
//! reusable) forgets every recent call, so an edit followed by a read reads again.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::Value;

/// Calls kept at most.
pub const MAX_CALLS: usize = 512;
/// Bytes of kept results at most (their JSON).
pub const MAX_BYTES: usize = 8 * 1024 * 1024;
/// A single result larger than this (bytes of JSON) is not kept: it would push out many others,
/// and results this large are offloaded unless a per-tool threshold says otherwise.
const MAX_RESULT_BYTES: usize = MAX_BYTES / 16;

/// Which tools' repeated calls are answered from the stored result, and for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReusePolicy {
    /// `None`: every call reaches the tool.
    pub window: Option<Duration>,
    /// Tools reused whatever their annotations say, by the name the client calls them.
    pub tools: BTreeSet<String>,
}

impl Default for ReusePolicy {
    fn default() -> Self {
        Self {
            window: scratchpad_core::ReuseWindow::default().duration(),
            tools: BTreeSet::new(),
        }
    }
}

impl ReusePolicy {
    /// Every call reaches the tool.
    pub fn off() -> Self {
        Self {
            window: None,
            tools: BTreeSet::new(),
        }
    }

    /// Whether repeated calls of `tool` may be answered from the stored result: it declares both
    /// `readOnlyHint` and `idempotentHint`, or one of `names` (what the client or the upstream
    /// calls it) is configured.
    pub fn applies_to(&self, tool: &Tool, names: &[&str]) -> bool {
        if self.window.is_none() {
            return false;
        }
        let declared = tool.annotations.as_ref().is_some_and(|hints| {
            hints.read_only_hint == Some(true) && hints.idempotent_hint == Some(true)
        });
        declared || names.iter().any(|name| self.tools.contains(*name))
    }
}

/// Whether a tool says it changes nothing.
pub fn declares_read_only(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .is_some_and(|hints| hints.read_only_hint == Some(true))
}

/// One call, as compared with others: the upstream (a scope of the table), the upstream's tool
/// name and a digest of the canonical arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallKey {
    scope: u64,
    tool: String,
    args: [u8; 32],
}

impl CallKey {
    pub fn new(scope: u64, tool: &str, args: &serde_json::Map<String, Value>) -> Self {
        let mut hasher = blake3::Hasher::new();
        canonical_object(args, &mut hasher);
        Self {
            scope,
            tool: tool.to_owned(),
            args: *hasher.finalize().as_bytes(),
        }
    }
}

/// Writes `value` as JSON with every object's keys in order, so two arguments that differ only
/// in key order hash alike.
fn canonical(value: &Value, out: &mut blake3::Hasher) {
    match value {
        Value::Object(map) => canonical_object(map, out),
        Value::Array(items) => {
            out.update(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.update(b",");
                }
                canonical(item, out);
            }
            out.update(b"]");
        }
        scalar => {
            // Writing to a hasher cannot fail.
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

fn canonical_object(map: &serde_json::Map<String, Value>, out: &mut blake3::Hasher) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    out.update(b"{");
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            out.update(b",");
        }
        // Writing to a hasher cannot fail.
        let _ = serde_json::to_writer(&mut *out, key);
        out.update(b":");
        if let Some(item) = map.get(key) {
            canonical(item, out);
        }
    }
    out.update(b"}");
}

/// An entry a kept result refers to, as it was when the result was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    pub id: String,
    pub name: String,
    /// The content's hash: an entry written again since is not the result any more.
    pub hash: String,
}

/// A result answered again, and how old it is.
#[derive(Debug, Clone)]
pub struct Recent {
    pub result: CallToolResult,
    pub entries: Vec<StoredEntry>,
    pub age: Duration,
}

/// The recent calls of one client's session (shared by the upstreams of a gateway, so a call
/// that may change something through one forgets the reads of all).
#[derive(Debug)]
pub struct RecentCalls {
    window: Duration,
    table: Mutex<Table>,
    scopes: AtomicU64,
}

#[derive(Debug, Default)]
struct Table {
    calls: HashMap<CallKey, Kept>,
    /// Insertion order: sequence number → key, the oldest first out.
    order: BTreeMap<u64, CallKey>,
    next: u64,
    bytes: usize,
    /// Bumped by every [`RecentCalls::forget_all`]: a call that started before is not kept.
    generation: u64,
}

#[derive(Debug)]
struct Kept {
    result: CallToolResult,
    entries: Vec<StoredEntry>,
    at: Instant,
    bytes: usize,
    seq: u64,
}

impl RecentCalls {
    pub fn new(window: Duration) -> Self {
        Self {
            window,
            table: Mutex::new(Table::default()),
            scopes: AtomicU64::new(0),
        }
    }

    /// A scope of its own for one upstream's calls.
    pub fn scope(&self) -> u64 {
        self.scopes.fetch_add(1, Ordering::Relaxed)
    }

    /// Pass to [`RecentCalls::keep`] with the result of a call that starts now.
    pub fn generation(&self) -> u64 {
        self.table.lock().map_or(0, |table| table.generation)
    }

    /// The result of the same call made within the window before `now`, if any.
    pub fn get(&self, key: &CallKey, now: Instant) -> Option<Recent> {
        let mut table = self.table.lock().ok()?;
        let kept = table.calls.get(key)?;
        let age = now.saturating_duration_since(kept.at);
        if age > self.window {
            table.remove(key);
            return None;
        }
        Some(Recent {
            result: kept.result.clone(),
            entries: kept.entries.clone(),
            age,
        })
    }

    /// Keeps a successful result for later identical calls; false when it is not kept (too large,
    /// or a call that may change something ran since the call started at `generation`).
    pub fn keep(
        &self,
        key: CallKey,
        result: &CallToolResult,
        entries: Vec<StoredEntry>,
        generation: u64,
        now: Instant,
    ) -> bool {
        let mut counter = ByteCounter::default();
        if serde_json::to_writer(&mut counter, result).is_err() {
            return false;
        }
        let bytes = counter.0 + key.tool.len() + std::mem::size_of::<Kept>();
        let Ok(mut table) = self.table.lock() else {
            return false;
        };
        if generation != table.generation || bytes > MAX_RESULT_BYTES {
            return false;
        }
        table.remove(&key);
        table.expire(self.window, now);
        while table.calls.len() >= MAX_CALLS || table.bytes + bytes > MAX_BYTES {
            let Some((_, oldest)) = table.order.pop_first() else {
                break;
            };
            table.remove(&oldest);
        }
        let seq = table.next;
        table.next += 1;
        table.bytes += bytes;
        table.order.insert(seq, key.clone());
        table.calls.insert(
            key,
            Kept {
                result: result.clone(),
                entries,
                at: now,
                bytes,
                seq,
            },
        );
        true
    }

    /// Drops one call (its stored entry is gone).
    pub fn forget(&self, key: &CallKey) {
        if let Ok(mut table) = self.table.lock() {
            table.remove(key);
        }
    }

    /// Drops every call: something may have changed what they would answer now.
    pub fn forget_all(&self) {
        if let Ok(mut table) = self.table.lock() {
            table.calls.clear();
            table.order.clear();
            table.bytes = 0;
            table.generation += 1;
        }
    }

    /// Calls kept and their bytes.
    pub fn size(&self) -> (usize, usize) {
        self.table
            .lock()
            .map_or((0, 0), |table| (table.calls.len(), table.bytes))
    }
}

impl Table {
    fn remove(&mut self, key: &CallKey) {
        if let Some(kept) = self.calls.remove(key) {
            self.order.remove(&kept.seq);
            self.bytes -= kept.bytes;
        }
    }

    /// Drops the calls older than the window (they are the first in order).
    fn expire(&mut self, window: Duration, now: Instant) {
        while let Some((&seq, key)) = self.order.first_key_value() {
            let live = self
                .calls
                .get(key)
                .is_some_and(|kept| now.saturating_duration_since(kept.at) <= window);
            if live {
                break;
            }
            let key = key.clone();
            self.order.remove(&seq);
            self.remove(&key);
        }
    }
}

/// Counts the bytes of a serialization without keeping them.
#[derive(Default)]
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The reused result with a note at its end: how old it is, the entries it is stored in, and how
/// to call the tool again.
pub fn answered_again(recent: Recent) -> CallToolResult {
    let mut result = recent.result;
    let stored = if recent.entries.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = recent
            .entries
            .iter()
            .map(|entry| format!("`{}`", entry.name))
            .collect();
        format!(", stored as {}", names.join(" and "))
    };
    result.content.push(ContentBlock::text(format!(
        "[scratchpad: the same call was made {} s ago; this is its result{stored}, and the tool \
         was not called again. For a fresh result call it with \"scratchpad\": {{\"fresh\": true}}]",
        recent.age.as_secs()
    )));
    result
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    fn key(tool: &str, args: Value) -> CallKey {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        CallKey::new(0, tool, &args)
    }

    const WINDOW: Duration = Duration::from_secs(60);

    #[test]
    fn key_order_does_not_matter_but_values_and_tools_do() {
        let a = key(
            "search",
            json!({"q": "x", "opts": {"a": 1, "b": [1, {"d": 2, "c": 3}]}}),
        );
        let b = key(
            "search",
            json!({"opts": {"b": [1, {"c": 3, "d": 2}], "a": 1}, "q": "x"}),
        );
        assert_eq!(a, b);
        assert_ne!(a, key("search", json!({"q": "y", "opts": {"a": 1}})));
        assert_ne!(
            a,
            key(
                "find",
                json!({"q": "x", "opts": {"a": 1, "b": [1, {"d": 2, "c": 3}]}})
            )
        );
        // Array order is meaning, not layout.
        assert_ne!(
            key("t", json!({"l": [1, 2]})),
            key("t", json!({"l": [2, 1]}))
        );
        // A string that looks like the JSON of an object is not that object.
        assert_ne!(key("t", json!({"a": "{}"})), key("t", json!({"a": {}})));
        let none = serde_json::Map::new();
        assert_ne!(CallKey::new(1, "t", &none), CallKey::new(2, "t", &none));
    }

    #[test]
    fn a_call_is_answered_within_the_window_and_not_after() {
        let recent = RecentCalls::new(WINDOW);
        let start = Instant::now();
        let generation = recent.generation();
        assert!(recent.keep(
            key("t", json!({})),
            &ok("one"),
            Vec::new(),
            generation,
            start
        ));
        let hit = recent
            .get(&key("t", json!({})), start + Duration::from_secs(59))
            .unwrap();
        assert_eq!(hit.result, ok("one"));
        assert_eq!(hit.age, Duration::from_secs(59));
        assert!(
            recent
                .get(&key("t", json!({})), start + Duration::from_secs(61))
                .is_none()
        );
        assert_eq!(
            recent.size(),
            (0, 0),
            "an expired call is dropped when seen"
        );
    }

    #[test]
    fn the_oldest_calls_go_first_when_the_table_is_full() {
        let recent = RecentCalls::new(WINDOW);
        let now = Instant::now();
        for n in 0..MAX_CALLS + 10 {
            assert!(recent.keep(key("t", json!({"n": n})), &ok("x"), Vec::new(), 0, now));
        }
        assert_eq!(recent.size().0, MAX_CALLS);
        assert!(recent.get(&key("t", json!({"n": 9})), now).is_none());
        assert!(recent.get(&key("t", json!({"n": 10})), now).is_some());
        assert!(
            recent
                .get(&key("t", json!({"n": MAX_CALLS + 9})), now)
                .is_some()
        );
    }

    #[test]
    fn kept_bytes_stay_under_the_cap_and_a_huge_result_is_not_kept() {
        let recent = RecentCalls::new(WINDOW);
        let now = Instant::now();
        let big = ok(&"x".repeat(MAX_RESULT_BYTES / 2));
        for n in 0..40 {
            assert!(recent.keep(key("t", json!({"n": n})), &big, Vec::new(), 0, now));
            assert!(recent.size().1 <= MAX_BYTES);
        }
        assert!(recent.size().0 < 40, "older calls were evicted for bytes");
        let huge = ok(&"x".repeat(MAX_RESULT_BYTES + 1));
        assert!(!recent.keep(key("huge", json!({})), &huge, Vec::new(), 0, now));
        assert!(recent.get(&key("huge", json!({})), now).is_none());
    }

    #[test]
    fn expired_calls_make_room_before_live_ones_are_evicted() {
        let recent = RecentCalls::new(WINDOW);
        let start = Instant::now();
        for n in 0..MAX_CALLS {
            recent.keep(key("old", json!({"n": n})), &ok("x"), Vec::new(), 0, start);
        }
        let later = start + WINDOW + Duration::from_secs(1);
        recent.keep(key("new", json!({})), &ok("y"), Vec::new(), 0, later);
        assert_eq!(recent.size().0, 1);
    }

    #[test]
    fn a_result_of_a_call_that_started_before_a_write_is_not_kept() {
        let recent = RecentCalls::new(WINDOW);
        let now = Instant::now();
        recent.keep(key("read", json!({})), &ok("before"), Vec::new(), 0, now);
        let started = recent.generation();
        recent.forget_all();
        assert!(recent.get(&key("read", json!({})), now).is_none());
        assert!(!recent.keep(
            key("read", json!({})),
            &ok("stale"),
            Vec::new(),
            started,
            now
        ));
        assert!(recent.keep(
            key("read", json!({})),
            &ok("after"),
            Vec::new(),
            recent.generation(),
            now
        ));
    }

    #[test]
    fn keeping_the_same_call_again_replaces_it() {
        let recent = RecentCalls::new(WINDOW);
        let now = Instant::now();
        recent.keep(key("t", json!({})), &ok("first"), Vec::new(), 0, now);
        recent.keep(key("t", json!({})), &ok("second"), Vec::new(), 0, now);
        assert_eq!(recent.size().0, 1);
        assert_eq!(
            recent.get(&key("t", json!({})), now).unwrap().result,
            ok("second")
        );
    }

    #[test]
    fn only_read_only_and_idempotent_or_named_tools_are_reused() {
        let schema = Arc::new(serde_json::Map::new());
        let plain = Tool::new("plain", "", schema.clone());
        let mut both = Tool::new("both", "", schema.clone());
        both.annotations = Some(
            rmcp::model::ToolAnnotations::new()
                .read_only(true)
                .idempotent(true),
        );
        let mut read_only = Tool::new("ro", "", schema);
        read_only.annotations = Some(rmcp::model::ToolAnnotations::new().read_only(true));
        let mut policy = ReusePolicy::default();
        assert!(policy.applies_to(&both, &["both"]));
        assert!(!policy.applies_to(&plain, &["plain"]));
        assert!(!policy.applies_to(&read_only, &["ro"]));
        assert!(declares_read_only(&read_only) && !declares_read_only(&plain));
        policy.tools.insert("fs__plain".into());
        assert!(policy.applies_to(&plain, &["fs__plain", "plain"]));
        assert!(!ReusePolicy::off().applies_to(&both, &["both"]));
    }

    #[test]
    fn the_note_says_how_old_where_stored_and_how_to_call_again() {
        let recent = Recent {
            result: ok("body"),
            entries: vec![StoredEntry {
                id: "01J".into(),
                name: "search_3".into(),
                hash: "h".into(),
            }],
            age: Duration::from_millis(12_400),
        };
        let answered = answered_again(recent);
        let note = answered.content.last().and_then(|b| b.as_text()).unwrap();
        assert!(note.text.contains("12 s ago"), "{}", note.text);
        assert!(note.text.contains("`search_3`"), "{}", note.text);
        assert!(note.text.contains("\"fresh\": true"), "{}", note.text);
        assert_eq!(answered.content.len(), 2, "the body stays as it was");
    }
}
