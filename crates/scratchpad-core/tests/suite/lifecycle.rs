//! Names, dedup, TTL, pin, quota, GC and disk space.

use scratchpad_core::advice::Library;
use scratchpad_core::{
    Call, Config, ListFilter, Observation, Offload, PartOutcome, PutOptions, Reference, Source, Ttl,
};

use crate::common::{Backend, log_with_errors, pad, put};

fn offload(pad: &scratchpad_core::Scratchpad, tool: &str, text: String) -> Offload {
    let mut observation = Observation::text(tool, text);
    observation.metadata = serde_json::Map::from_iter([
        ("path".to_owned(), serde_json::json!("/var/log/app.log")),
        ("huge".to_owned(), serde_json::json!("x".repeat(1_000))),
    ]);
    observation.args = Some(serde_json::json!({"path": "/var/log/app.log"}));
    pad.offload(&observation).unwrap()
}

/// The reference that replaced the only part of an offloaded observation.
fn reference(offload: Offload) -> Reference {
    match offload.parts.into_iter().next() {
        Some(PartOutcome::Stored(reference)) => reference,
        other => panic!("expected the part to be stored, got {other:?}"),
    }
}

fn small_observations_stay_inline_and_large_ones_become_references(backend: Backend) {
    let (_store, pad) = backend.pad();
    let inline = offload(&pad, "read_file", "short".into());
    assert!(inline.is_inline() && inline.saved.is_none(), "{inline:?}");
    let reference = reference(offload(&pad, "read_file", log_with_errors(1_000, &[500])));
    let entry = &reference.entry;
    assert_eq!(entry.name, "read_file_1");
    assert_eq!(entry.lines, 1_000);
    assert!(entry.preview.contains("500: "));
    assert_eq!(
        reference.metadata.get("path"),
        Some(&serde_json::json!("/var/log/app.log"))
    );
    assert!(
        reference.metadata.get("huge").is_none(),
        "large metadata is not carried"
    );
    // The hint's search finds the one error line the preview saw, and says so.
    let hint = scratchpad_core::hint(entry);
    let (Call::Read { name, mode }, finds) = hint.finds.clone().unwrap() else {
        panic!("{hint:?}")
    };
    assert!(finds.contains("error"), "{finds}");
    let found = pad.read(&name, &mode, None).unwrap();
    assert_eq!(found.total_matches, Some(1), "{}", found.text);
    assert!(found.text.contains("500:"), "{}", found.text);
    let json = serde_json::to_value(reference.observation(&Library)).unwrap();
    for key in [
        "ok",
        "scratchpad",
        "id",
        "kind",
        "bytes",
        "chars",
        "lines",
        "tokens_est",
        "preview",
        "hint",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    assert!(
        json["hint"]
            .as_str()
            .unwrap()
            .contains("{{scratchpad:read_file_1}}"),
        "{json}"
    );
    // The threshold is configurable.
    let config = Config {
        threshold_bytes: 3,
        ..Config::default()
    };
    let (_store2, strict) = backend.pad_with(config);
    assert!(!offload(&strict, "t", "four".into()).is_inline());
}

fn automatic_names_are_never_reused(backend: Backend) {
    let (_store, pad) = backend.pad();
    let put_tool = |content: &str| {
        pad.put(
            &mut content.as_bytes(),
            PutOptions {
                source: Source {
                    tool: Some("fs/read file".into()),
                    ..Source::default()
                },
                ..PutOptions::default()
            },
        )
        .unwrap()
    };
    assert_eq!(put_tool("a").name, "fs_read_file_1");
    assert_eq!(put_tool("b").name, "fs_read_file_2");
    pad.delete("fs_read_file_2", None).unwrap();
    assert_eq!(put_tool("c").name, "fs_read_file_3");
    // A user entry that takes the next automatic name is skipped, not overwritten.
    put(&pad, "fs_read_file_4", b"mine");
    assert_eq!(put_tool("d").name, "fs_read_file_5");
    assert_eq!(
        pad.read(
            "fs_read_file_4",
            &scratchpad_core::ReadMode::Full { force: false },
            None
        )
        .unwrap()
        .text,
        "mine"
    );
}

fn identical_content_is_stored_once(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(100_000, &[]);
    put(&pad, "a", log.as_bytes());
    let one = pad.stats().unwrap().store_bytes;
    let b = put(&pad, "b", log.as_bytes());
    assert_eq!(
        pad.stats().unwrap().store_bytes,
        one,
        "second copy costs no content bytes"
    );
    assert_eq!(pad.stats().unwrap().figures.bytes, 2 * b.bytes);
    pad.delete("a", None).unwrap();
    assert_eq!(
        pad.read("b", &scratchpad_core::ReadMode::Tail { n: Some(20) }, None)
            .unwrap()
            .text
            .lines()
            .count(),
        20
    );
}

fn expired_entries_vanish_and_pinned_ones_stay(backend: Backend) {
    let (_store, pad) = backend.pad();
    let opts = |name: &str, pinned| PutOptions {
        name: Some(name.into()),
        ttl: Ttl::After(1),
        pinned,
        ..PutOptions::default()
    };
    pad.put(&mut &b"soon gone"[..], opts("short", false))
        .unwrap();
    pad.put(&mut &b"kept"[..], opts("pinned", true)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(matches!(
        pad.get("short"),
        Err(scratchpad_core::Error::NotFound { .. })
    ));
    assert!(pad.get("pinned").is_ok());
    let report = pad.gc().unwrap();
    assert_eq!(report.expired, 1);
    // Offloads default to 24 h, notes to no expiry.
    let note = pad.write("plan", "step 1", Default::default()).unwrap();
    assert_eq!(note.expires_at, None);
    let off = reference(offload(&pad, "t", log_with_errors(500, &[])));
    let info = pad.get(&off.entry.name).unwrap();
    let ttl = info.expires_at.unwrap() - info.created_at;
    assert_eq!(ttl, 24 * 3_600_000);
}

fn quota_evicts_least_recently_read_unpinned_entries(backend: Backend) {
    let config = Config {
        quota_bytes: Some(2_000_000),
        ..Config::default()
    };
    let (_store, pad) = backend.pad_with(config);
    let blob = |i: u64| log_with_errors(14_000 + i, &[]); // about 1 MB each, all different
    put(&pad, "old", blob(1).as_bytes());
    pad.pin("old", true, None).unwrap();
    put(&pad, "middle", blob(2).as_bytes());
    std::thread::sleep(std::time::Duration::from_millis(5));
    put(&pad, "new", blob(3).as_bytes());
    // Over quota now: the least recently accessed unpinned entry went first.
    assert!(pad.get("old").is_ok(), "pinned entries are never evicted");
    assert!(
        pad.get("middle").is_err(),
        "the LRU unpinned entry is evicted"
    );
    assert!(pad.get("new").is_ok());
    assert!(pad.stats().unwrap().store_bytes <= 2_000_000);
}

#[test]
fn gc_returns_disk_space() {
    let (store, pad) = pad();
    let big = log_with_errors(400_000, &[]); // ~ 27 MB
    put(&pad, "big", big.as_bytes());
    let db = store.sqlite_path();
    // The database, its log and its side files (large content lives there).
    let size = |p: &std::path::Path| {
        let len = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let side: u64 = std::fs::read_dir(p.with_extension("db-blobs"))
            .map(|files| files.flatten().map(|f| len(&f.path())).sum())
            .unwrap_or(0);
        len(p) + len(&p.with_extension("db-wal")) + side
    };
    pad.gc().unwrap();
    let before = size(&db);
    assert!(before > 20_000_000, "{before}");
    pad.purge("big", None).unwrap();
    let report = pad.gc().unwrap();
    let after = size(&db);
    assert!(after < 2_000_000, "file shrank from {before} to {after}");
    assert!(report.disk_bytes_after < report.disk_bytes_before);
}

fn turns_are_listed_and_expired_together(backend: Backend) {
    let (_store, pad) = backend.pad();
    for (name, turn) in [("a", "t1"), ("b", "t1"), ("c", "t2")] {
        pad.put(
            &mut &b"x"[..],
            PutOptions {
                name: Some(name.into()),
                turn: Some(turn.into()),
                ..PutOptions::default()
            },
        )
        .unwrap();
    }
    let t1 = pad
        .list(
            &ListFilter {
                turn: Some("t1".into()),
                ..ListFilter::default()
            },
            None,
            10,
        )
        .unwrap();
    assert_eq!(t1.entries.len(), 2);
    assert_eq!(pad.expire_turn("t1").unwrap(), 2);
    let all = pad.list(&ListFilter::default(), None, 10).unwrap();
    assert_eq!(
        all.entries
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>(),
        ["c"]
    );
}

fn list_pages_newest_first_with_filters(backend: Backend) {
    let (_store, pad) = backend.pad();
    for i in 0..25 {
        put(&pad, &format!("note-{i:02}"), format!("n{i}").as_bytes());
    }
    put(&pad, "data", br#"{"a": 1}"#);
    let mut names = Vec::new();
    let mut cursor = None;
    loop {
        let page = pad
            .list(&ListFilter::default(), cursor.as_deref(), 10)
            .unwrap();
        names.extend(page.entries.iter().map(|e| e.name.clone()));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(names.len(), 26);
    assert_eq!(names[0], "data");
    assert_eq!(names[1], "note-24");
    let json = pad
        .list(
            &ListFilter {
                kind: Some(scratchpad_core::Kind::Json),
                ..ListFilter::default()
            },
            None,
            10,
        )
        .unwrap();
    assert_eq!(json.entries.len(), 1);
    let prefixed = pad
        .list(
            &ListFilter {
                prefix: Some("note-1".into()),
                ..ListFilter::default()
            },
            None,
            50,
        )
        .unwrap();
    assert_eq!(prefixed.entries.len(), 10);
}

fn search_ranks_entries_and_shows_snippets(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write(
        "decisions",
        "We chose PostgreSQL for the shared store because of row locks.",
        Default::default(),
    )
    .unwrap();
    pad.write(
        "plan",
        "1. write the parser\n2. benchmark it",
        Default::default(),
    )
    .unwrap();
    put(&pad, "log", log_with_errors(20_000, &[19_990]).as_bytes());
    let hits = pad.search("postgresql locks", 10).unwrap();
    assert_eq!(hits[0].entry.name, "decisions");
    assert!(
        hits[0].snippet.contains("«PostgreSQL»"),
        "{}",
        hits[0].snippet
    );
    // The end of a large entry is searchable too.
    let hits = pad.search("connection reset", 10).unwrap();
    assert_eq!(hits[0].entry.name, "log");
}

/// The index takes entries in batches; whether an entry is in it yet or still waiting, a search
/// finds what the entry holds now, under its current name, and nothing of what was deleted.
fn search_sees_every_write_whether_indexed_or_waiting(backend: Backend) {
    let (_store, pad) = backend.pad();
    // 300 notes: more than two batches went in at commit, the rest waits.
    for i in 0..300 {
        let text = format!("finding {i}: the cache key word{i} was stale");
        pad.write(&format!("note{i}"), &text, Default::default())
            .unwrap();
    }
    pad.write(
        "note0",
        "rewritten: nothing about caches",
        Default::default(),
    )
    .unwrap();
    pad.write(
        "note299",
        "rewritten: the queue word299b",
        Default::default(),
    )
    .unwrap();
    pad.rename("note298", "renamed-finding", None).unwrap();
    pad.delete("note297", None).unwrap();
    let names = |query: &str| -> Vec<String> {
        let hits = pad.search(query, 100).unwrap();
        hits.into_iter().map(|hit| hit.entry.name).collect()
    };
    assert_eq!(names("word5"), ["note5"]); // indexed at a batch
    assert_eq!(names("word296"), ["note296"]); // waiting until this search
    assert!(
        names("word0").is_empty(),
        "the old content of a rewritten note"
    );
    assert!(
        names("word299").is_empty(),
        "the old content of a rewritten note"
    );
    assert_eq!(names("word299b"), ["note299"]);
    assert_eq!(names("word298"), ["renamed-finding"]);
    assert_eq!(names("renamed"), ["renamed-finding"]);
    assert!(names("word297").is_empty(), "a deleted note");
    assert_eq!(names("stale").len(), 100); // the most one search gives
    // Written after a search, found by the next one.
    pad.write("late", "word-late arrives", Default::default())
        .unwrap();
    assert_eq!(names("late"), ["late"]);
}

fn list_pages_back_the_way_they_came(backend: Backend) {
    let (_store, pad) = backend.pad();
    for i in 0..25 {
        put(&pad, &format!("note-{i:02}"), format!("n{i}").as_bytes());
    }
    let filter = ListFilter::default();
    let names = |page: &scratchpad_core::Page| -> Vec<String> {
        page.entries.iter().map(|e| e.name.clone()).collect()
    };
    let mut forward = vec![pad.list(&filter, None, 10).unwrap()];
    while let Some(next) = forward.last().and_then(|p| p.next_cursor.clone()) {
        forward.push(pad.list(&filter, Some(&next), 10).unwrap());
    }
    assert_eq!(forward.len(), 3);
    assert_eq!(
        forward[0].prev_cursor, None,
        "the first page has none before it"
    );
    // From the last page back to the first, the same pages as going forward.
    let mut page = forward[2].clone();
    for expected in [&forward[1], &forward[0]] {
        let prev = page.prev_cursor.clone().unwrap();
        page = pad.list(&filter, Some(&prev), 10).unwrap();
        assert_eq!(names(&page), names(expected));
        assert_eq!(page.next_cursor, expected.next_cursor);
        assert_eq!(page.prev_cursor.is_some(), expected.prev_cursor.is_some());
    }
    // Written meanwhile at the top: going back from page 2 gives the page just before it, and
    // once fewer than a page are left above, the whole first page, newest first.
    put(&pad, "newest", b"new");
    let back = pad
        .list(&filter, forward[1].prev_cursor.as_deref(), 10)
        .unwrap();
    assert_eq!(names(&back), names(&forward[0]));
    let top = pad.list(&filter, back.prev_cursor.as_deref(), 10).unwrap();
    assert_eq!(top.entries.len(), 10);
    assert_eq!(top.entries[0].name, "newest");
    assert_eq!(top.prev_cursor, None);
    let err = pad.list(&filter, Some("<yesterday"), 10).unwrap_err();
    assert!(err.to_string().contains("prev_cursor unchanged"), "{err}");
}

fn stats_count_tokens_kept_out_of_context(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "log", log_with_errors(10_000, &[]).as_bytes());
    let stats = pad.stats().unwrap();
    assert_eq!(stats.figures.entries, 1);
    assert!(stats.figures.tokens_kept_out > 100_000, "{stats:?}");
    assert!(stats.figures.tokens_kept_out < stats.figures.tokens_est);
}

backend_tests!(
    small_observations_stay_inline_and_large_ones_become_references,
    automatic_names_are_never_reused,
    identical_content_is_stored_once,
    expired_entries_vanish_and_pinned_ones_stay,
    quota_evicts_least_recently_read_unpinned_entries,
    turns_are_listed_and_expired_together,
    list_pages_newest_first_with_filters,
    list_pages_back_the_way_they_came,
    search_ranks_entries_and_shows_snippets,
    search_sees_every_write_whether_indexed_or_waiting,
    stats_count_tokens_kept_out_of_context,
);
