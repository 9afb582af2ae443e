//! What the store's owner (the web view) sees across sessions: every session with its figures,
//! search over all of them, the usage record of what went into and came back from a model's
//! context, reads that leave no trace, and a watch that hears every change.

use std::time::Duration;

use scratchpad_core::{
    Kind, Observation, PartOutcome, PutOptions, ReadMode, Source, UsageKind, WriteOptions,
};

use crate::common::{Backend, log_with_errors, put};

fn every_session_is_listed_with_its_figures(backend: Backend) {
    let (_store, pad) = backend.pad();
    let a = pad.with_session("agent-a").unwrap();
    let b = pad.with_session("agent-b").unwrap();
    put(&a, "one", b"first");
    put(&a, "two", log_with_errors(2_000, &[700]).as_bytes());
    std::thread::sleep(Duration::from_millis(5));
    b.write("plan", "1. reproduce", WriteOptions::default())
        .unwrap();
    let sessions = pad.sessions().unwrap();
    let names: Vec<&str> = sessions.iter().map(|s| s.session.as_str()).collect();
    // Most recently changed first.
    assert_eq!(names, ["agent-b", "agent-a"]);
    let a_summary = &sessions[1];
    assert_eq!(a_summary.figures.entries, 2);
    assert_eq!(a_summary.figures, a.stats().unwrap().figures);
    assert!(a_summary.figures.tokens_kept_out > 0);
    assert_eq!(sessions[0].last_changed, b.get("plan").unwrap().updated_at);
}

fn search_crosses_sessions_only_when_asked(backend: Backend) {
    let (_store, pad) = backend.pad();
    let a = pad.with_session("agent-a").unwrap();
    let b = pad.with_session("agent-b").unwrap();
    put(&a, "notes-a", b"the flux capacitor is loose");
    put(&b, "notes-b", b"a capacitor burned out");
    assert_eq!(a.search("capacitor", 10).unwrap().len(), 1);
    let mut found: Vec<String> = a
        .search_all_sessions("capacitor", 10)
        .unwrap()
        .into_iter()
        .map(|hit| format!("{}/{}", hit.entry.session, hit.entry.name))
        .collect();
    found.sort();
    assert_eq!(found, ["agent-a/notes-a", "agent-b/notes-b"]);
}

fn the_usage_record_measures_what_was_stored_shown_and_read(backend: Backend) {
    let (_store, pad) = backend.pad();
    let pad = pad.with_session("agent").unwrap();
    let log = log_with_errors(5_000, &[2_500]);
    let offload = pad
        .offload(&Observation::text("run_tests", log.clone()))
        .unwrap();
    let PartOutcome::Stored(reference) = &offload.parts[0] else {
        panic!("a 5,000-line log is offloaded");
    };
    let name = reference.entry.name.clone();
    let reply = pad.read(&name, &ReadMode::grep("ERROR", 1), None).unwrap();
    // Notes are the model's own writing, not a tool's output kept out of its context.
    pad.write("plan", "fix the worker", WriteOptions::default())
        .unwrap();
    // A person looking on reads without counting.
    pad.as_observer()
        .read(&name, &ReadMode::Full { force: true }, None)
        .unwrap();
    let usage = pad.usage(Some("agent"), None).unwrap();
    let stored: Vec<_> = usage
        .buckets
        .iter()
        .filter(|b| b.event == UsageKind::Stored)
        .collect();
    let read: Vec<_> = usage
        .buckets
        .iter()
        .filter(|b| b.event == UsageKind::Read)
        .collect();
    assert_eq!(stored.len(), 1, "{usage:?}");
    assert_eq!(stored[0].tool.as_deref(), Some("run_tests"));
    assert_eq!(stored[0].content_bytes, log.len() as u64);
    assert_eq!(stored[0].shown_bytes, reference.entry.preview.len() as u64);
    assert!(stored[0].tokens_kept_out() > 0);
    assert_eq!(read.len(), 1, "{usage:?}");
    assert_eq!(read[0].count, 1);
    assert_eq!(read[0].shown_bytes, reply.text.len() as u64);
    assert!(read[0].tokens_read_back() > 0);
    // Other sessions' records are apart; every session's together.
    assert!(pad.usage(Some("other"), None).unwrap().buckets.is_empty());
    assert_eq!(pad.usage(None, None).unwrap().buckets.len(), 2);
}

fn the_usage_record_outlives_the_entry(backend: Backend) {
    let (_store, pad) = backend.pad();
    let info = pad
        .put(
            &mut "x".repeat(50_000).as_bytes(),
            PutOptions {
                source: Source {
                    tool: Some("fetch".into()),
                    ..Source::default()
                },
                ..PutOptions::default()
            },
        )
        .unwrap();
    pad.delete(&info.name, None).unwrap();
    let usage = pad.usage(None, None).unwrap();
    assert_eq!(usage.buckets.len(), 1);
    assert_eq!(usage.buckets[0].kind, Kind::Text);
    assert_eq!(usage.buckets[0].content_bytes, 50_000);
}

fn observers_leave_no_access_time(backend: Backend) {
    let (_store, pad) = backend.pad();
    put(&pad, "log", b"line\n");
    let before = pad.get("log").unwrap().accessed_at;
    std::thread::sleep(Duration::from_millis(5));
    let observer = pad.as_observer();
    assert!(observer.is_observer());
    // Access times are refreshed at most once a minute: an old one would be refreshed now.
    observer
        .read("log", &ReadMode::Lines { from: 1, to: None }, None)
        .unwrap();
    assert_eq!(pad.get("log").unwrap().accessed_at, before);
}

fn a_watch_hears_every_commit(backend: Backend) {
    let (_store, pad) = backend.pad();
    let mut watch = pad.watch().unwrap();
    assert!(!watch.wait(Duration::from_millis(150)).unwrap());
    let writer = pad.with_session("elsewhere").unwrap();
    let handle = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        writer
            .write("plan", "step one", WriteOptions::default())
            .unwrap();
    });
    assert!(watch.wait(Duration::from_secs(10)).unwrap());
    handle.join().unwrap();
    // Heard once: nothing more happened since.
    assert!(!watch.wait(Duration::from_millis(150)).unwrap());
    pad.with_session("elsewhere")
        .unwrap()
        .pin("plan", true, None)
        .unwrap();
    assert!(watch.wait(Duration::from_secs(10)).unwrap());
}

backend_tests!(
    every_session_is_listed_with_its_figures,
    search_crosses_sessions_only_when_asked,
    the_usage_record_measures_what_was_stored_shown_and_read,
    the_usage_record_outlives_the_entry,
    observers_leave_no_access_time,
    a_watch_hears_every_commit,
    creating_a_note_never_overwrites_one,
    held_leases_are_listed_and_lapsed_ones_are_not,
);

#[test]
fn the_usage_record_keeps_its_newest_lines_only() {
    let (store, pad) = Backend::Sqlite.pad();
    put(&pad, "log", log_with_errors(100, &[]).as_bytes());
    // Filled past what a collection pass keeps, straight through SQLite.
    let conn = rusqlite::Connection::open(store.sqlite_path()).unwrap();
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1) \
         INSERT INTO usage (at, session, name, tool, kind, event, mode, content_bytes, shown_bytes) \
         SELECT i, 'default', 'log', NULL, 'text', 'read', 'lines', 10, 5 FROM n",
        [scratchpad_core::store::USAGE_KEEP_ROWS + 500],
    )
    .unwrap();
    drop(conn);
    pad.gc().unwrap();
    let usage = pad.usage(None, Some(i64::MAX / 4)).unwrap();
    let lines: u64 = usage.buckets.iter().map(|b| b.count).sum();
    assert_eq!(lines, scratchpad_core::store::USAGE_KEEP_ROWS as u64);
}

fn creating_a_note_never_overwrites_one(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.create("plan", "mine", WriteOptions::default()).unwrap();
    let err = pad
        .create("plan", "theirs", WriteOptions::default())
        .unwrap_err();
    assert!(
        matches!(
            err,
            scratchpad_core::Error::Conflict(scratchpad_core::ConflictKind::Exists { .. })
        ),
        "{err}"
    );
    let text = pad
        .read("plan", &ReadMode::Full { force: false }, None)
        .unwrap()
        .text;
    assert_eq!(text, "mine");
}

fn held_leases_are_listed_and_lapsed_ones_are_not(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.acquire_lease("plan", "agent-a", Duration::from_secs(60))
        .unwrap();
    pad.acquire_lease("draft", "agent-b", Duration::from_millis(1))
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let held = pad.held_leases().unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].name, "plan");
    assert_eq!(held[0].holder.as_deref(), Some("agent-a"));
    assert!(
        pad.with_session("other")
            .unwrap()
            .held_leases()
            .unwrap()
            .is_empty()
    );
}
