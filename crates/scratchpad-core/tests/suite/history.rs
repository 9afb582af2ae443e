//! Note history on every backend: the right versions are kept (and only those) through edits and
//! collection, old versions read with every mode, restore, diff, and who wrote what.

use std::time::Duration;

use scratchpad_core::{
    Call, Change, Config, ConflictKind, DiffCursor, DiffOptions, Error, ListFilter, PutOptions,
    ReadMode, Scratchpad, Source, Target, Ttl, WriteOptions,
};

use crate::common::{Backend, TestStore, log_with_errors, put};

/// The content of version `v` of the edited note: distinct, and a size of its own.
fn body(v: u64) -> String {
    format!("version {v}\n{}\n", "x".repeat(1_000 + v as usize))
}

fn whole(pad: &Scratchpad, name: &str) -> String {
    pad.read(name, &ReadMode::Full { force: true }, None)
        .unwrap()
        .text
}

fn version(pad: &Scratchpad, name: &str, v: u64) -> String {
    pad.read_version(name, v, &ReadMode::Full { force: true }, None)
        .unwrap()
        .text
}

fn history_keeps_the_right_versions_after_100_edits_and_gc(backend: Backend) {
    let (_store, pad) = backend.pad_with(Config {
        history_versions: 20,
        ..Config::default()
    });
    let authors = [
        pad.with_author("agent-a").unwrap(),
        pad.with_author("agent-b").unwrap(),
    ];
    authors[0]
        .write("plan", &body(1), WriteOptions::default())
        .unwrap();
    for v in 2..=101 {
        let writer = &authors[(v % 2) as usize];
        match v % 3 {
            0 => {
                let old = body(v - 1);
                let new = body(v);
                writer.edit("plan", &old, &new, false, Some(v - 1)).unwrap();
            }
            _ => {
                writer
                    .write(
                        "plan",
                        &body(v),
                        WriteOptions {
                            if_version: Some(v - 1),
                            ..WriteOptions::default()
                        },
                    )
                    .unwrap();
            }
        }
    }
    // Something else comes and goes, so collection has work to do.
    put(&pad, "scratch", b"temporary content");
    pad.purge("scratch", None).unwrap();
    let report = pad.gc().unwrap();
    assert_eq!(
        report.versions_removed, 0,
        "writes already trimmed the history"
    );

    let history = pad.history("plan").unwrap();
    assert_eq!(history.entry.version, 101);
    let numbers: Vec<u64> = history.versions.iter().map(|v| v.version).collect();
    let expected: Vec<u64> = (81..=101).rev().collect();
    assert_eq!(
        numbers, expected,
        "the current version and the 20 before it"
    );
    for kept in &history.versions {
        assert_eq!(version(&pad, "plan", kept.version), body(kept.version));
        assert_eq!(kept.bytes, body(kept.version).len() as u64);
        let writer = if kept.version % 2 == 0 {
            "agent-a"
        } else {
            "agent-b"
        };
        assert_eq!(kept.author.as_deref(), Some(writer), "v{}", kept.version);
        let change = kept.change.clone().unwrap();
        match kept.version % 3 {
            0 => assert!(
                matches!(
                    change,
                    Change::Edited {
                        replacements: 1,
                        ..
                    }
                ),
                "{change:?}"
            ),
            _ => assert!(
                matches!(change, Change::Written { lines: Some(_) }),
                "{change:?}"
            ),
        }
    }
    // Versions no longer kept are gone, with their content: what the store holds is exactly the
    // kept versions' content.
    let err = pad
        .read_version("plan", 80, &ReadMode::Full { force: true }, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("version 80 of `plan` is not kept"), "{err}");
    let kept_bytes: u64 = (81..=101).map(|v| body(v).len() as u64).sum();
    assert_eq!(pad.stats().unwrap().store_bytes, kept_bytes);

    // Removing the note keeps its history restorable; purging it frees the history too.
    pad.delete("plan", None).unwrap();
    pad.gc().unwrap();
    assert_eq!(pad.stats().unwrap().store_bytes, kept_bytes);
    pad.purge("plan", None).unwrap();
    pad.gc().unwrap();
    assert_eq!(pad.stats().unwrap().store_bytes, 0);
}

fn every_version_is_kept_by_default(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("plan", &body(1), WriteOptions::default())
        .unwrap();
    for v in 2..=101 {
        pad.write("plan", &body(v), WriteOptions::default())
            .unwrap();
    }
    let history = pad.history("plan").unwrap();
    assert_eq!(history.versions.len(), 101);
    assert_eq!(history.versions.last().unwrap().version, 1);
    assert_eq!(
        history.versions.last().unwrap().change,
        Some(Change::Created)
    );
    assert_eq!(version(&pad, "plan", 1), body(1));
}

fn versions_past_the_age_limit_are_collected(backend: Backend) {
    let (_store, pad) = backend.pad_with(Config {
        history_max_age: Ttl::After(500),
        ..Config::default()
    });
    pad.write("plan", "one\n", WriteOptions::default()).unwrap();
    pad.write("plan", "two\n", WriteOptions::default()).unwrap();
    assert_eq!(pad.history("plan").unwrap().versions.len(), 2);
    std::thread::sleep(Duration::from_millis(700));
    let report = pad.gc().unwrap();
    assert_eq!(report.versions_removed, 1, "{report:?}");
    assert!(report.bytes_freed >= 4, "{report:?}");
    let history = pad.history("plan").unwrap();
    assert_eq!(history.versions.len(), 1);
    assert_eq!(whole(&pad, "plan"), "two\n");
}

fn old_versions_read_with_every_mode(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(2_000, &[700, 1_500]);
    put(&pad, "run", log.as_bytes());
    pad.write("run", "all green\n", WriteOptions::default())
        .unwrap();
    let grep = pad
        .read_version("run", 1, &ReadMode::grep("ERROR", 0), None)
        .unwrap();
    assert_eq!(grep.total_matches, Some(2));
    assert!(grep.text.contains("700:"), "{}", grep.text);
    let lines = pad
        .read_version(
            "run",
            1,
            &ReadMode::Lines {
                from: 1_500,
                to: Some(1_500),
            },
            None,
        )
        .unwrap();
    assert!(lines.text.contains("ERROR worker 1500"), "{}", lines.text);
    let tail = pad
        .read_version("run", 1, &ReadMode::Tail { n: Some(20) }, None)
        .unwrap();
    assert!(log.ends_with(&tail.text));
    let summary = pad
        .read_version("run", 1, &ReadMode::Summary { from: None }, None)
        .unwrap();
    assert!(summary.text.contains("ERROR"), "{}", summary.text);
    let json_before = br#"{"items": [1, 2, 3]}"#;
    put(&pad, "doc", json_before);
    put(&pad, "doc", br#"{"items": []}"#);
    let jq = pad
        .read_version(
            "doc",
            1,
            &ReadMode::Json {
                query: ".items | length".into(),
            },
            None,
        )
        .unwrap();
    assert_eq!(jq.text.trim(), "3");
    // A cut read of an old version continues on that version.
    let cut = pad
        .read_version(
            "run",
            1,
            &ReadMode::Lines {
                from: 1,
                to: Some(2_000),
            },
            Some(500),
        )
        .unwrap();
    assert!(cut.truncated);
    let Some(Call::ReadVersion { version: 1, .. }) = cut.next_call() else {
        panic!("the continuation lost the version: {:?}", cut.next_call());
    };
    assert!(
        pad.read_version("run", 7, &ReadMode::Full { force: false }, None)
            .unwrap_err()
            .to_string()
            .contains("`run` is at version 2; there is no version 7")
    );
}

fn restore_makes_an_old_version_current_again(backend: Backend) {
    let (_store, pad) = backend.pad();
    for text in ["a\n", "b\n", "c\n"] {
        pad.write("plan", text, WriteOptions::default()).unwrap();
    }
    let stale = pad.restore("plan", 1, Some(2)).unwrap_err();
    assert!(
        matches!(
            stale,
            Error::Conflict(ConflictKind::Version {
                expected: 2,
                current: Some(3),
                ..
            })
        ),
        "{stale:?}"
    );
    let restored = pad
        .with_author("fixer")
        .unwrap()
        .restore("plan", 1, Some(3))
        .unwrap();
    assert_eq!(restored.version, 4);
    assert_eq!(whole(&pad, "plan"), "a\n");
    let history = pad.history("plan").unwrap();
    assert_eq!(history.versions.len(), 4);
    assert_eq!(
        history.versions[0].change,
        Some(Change::Restored { from: 1 })
    );
    assert_eq!(history.versions[0].author.as_deref(), Some("fixer"));
    assert_eq!(
        version(&pad, "plan", 3),
        "c\n",
        "what the restore replaced is kept"
    );
    assert!(
        pad.restore("plan", 4, None)
            .unwrap_err()
            .to_string()
            .contains("already the current version")
    );
    let missing = pad.restore("plan", 9, None).unwrap_err();
    assert!(matches!(missing, Error::InvalidArgument(_)), "{missing:?}");
    // Metadata changes are versions too, with what they did.
    pad.pin("plan", true, None).unwrap();
    pad.rename("plan", "the-plan", None).unwrap();
    let history = pad.history("the-plan").unwrap();
    let changes: Vec<String> = history
        .versions
        .iter()
        .take(2)
        .map(|v| v.change.as_ref().unwrap().to_string())
        .collect();
    assert_eq!(changes, ["renamed from `plan`", "pinned"]);
}

fn diffs_compare_versions_and_entries(backend: Backend) {
    let (_store, pad) = backend.pad();
    let before = log_with_errors(3_000, &[100]);
    let after = before
        .replace(
            "worker 1200: processed batch ok",
            "worker 1200: processed batch SLOWLY",
        )
        .replace("ERROR worker 100", "WARN worker 100");
    put(&pad, "run_1", before.as_bytes());
    put(&pad, "run_2", after.as_bytes());
    let reply = pad
        .diff(
            &Target::current("run_1"),
            &Target::current("run_2"),
            &DiffOptions::default(),
        )
        .unwrap();
    assert!(!reply.identical);
    assert_eq!((reply.added, reply.removed, reply.hunks), (2, 2, 2));
    assert!(
        reply
            .text
            .contains("-2026-11-21T10:00:40Z ERROR worker 100: connection reset by peer")
    );
    assert!(
        reply
            .text
            .contains("+2026-11-21T10:00:00Z INFO worker 1200: processed batch SLOWLY")
    );
    assert!(reply.text.contains("@@ -97,7 +97,7 @@"), "{}", reply.text);

    // Versions of one note, with the same engine.
    pad.write("plan", "1. a\n2. b\n3. c\n", WriteOptions::default())
        .unwrap();
    pad.write("plan", "1. a\n2. B\n3. c\n4. d\n", WriteOptions::default())
        .unwrap();
    let reply = pad
        .diff(
            &Target::at("plan", 1),
            &Target::current("plan"),
            &DiffOptions::default(),
        )
        .unwrap();
    assert_eq!(
        reply.text,
        "@@ -1,3 +1,4 @@\n 1. a\n-2. b\n+2. B\n 3. c\n+4. d\n"
    );
    let identical = pad
        .diff(
            &Target::at("plan", 2),
            &Target::current("plan"),
            &DiffOptions::default(),
        )
        .unwrap();
    assert!(identical.identical && identical.text.is_empty());

    // A cut diff goes on where it stopped, and the pieces are the whole diff.
    let many = (1..=4_000)
        .map(|i| {
            if i % 50 == 0 {
                format!("changed line {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect::<String>();
    let plain = (1..=4_000)
        .map(|i| format!("line {i}\n"))
        .collect::<String>();
    put(&pad, "many_a", plain.as_bytes());
    put(&pad, "many_b", many.as_bytes());
    let (a, b) = (Target::current("many_a"), Target::current("many_b"));
    let whole_diff = pad
        .diff(
            &a,
            &b,
            &DiffOptions {
                budget_chars: Some(1_000_000),
                ..DiffOptions::default()
            },
        )
        .unwrap();
    assert_eq!(whole_diff.hunks, 80);
    let mut pieces = String::new();
    let mut cursor = None;
    let mut replies = 0;
    loop {
        let reply = pad
            .diff(
                &a,
                &b,
                &DiffOptions {
                    cursor,
                    budget_chars: Some(1_500),
                    ..DiffOptions::default()
                },
            )
            .unwrap();
        assert!(reply.text.len() <= 1_500);
        pieces.push_str(&reply.text);
        replies += 1;
        match reply.next_call() {
            Some(Call::Diff(call)) => cursor = call.cursor,
            Some(other) => panic!("{other:?}"),
            None => break,
        }
    }
    assert!(replies > 5, "{replies}");
    assert_eq!(pieces, whole_diff.text);
    assert_eq!("1:1".parse::<DiffCursor>().unwrap(), DiffCursor::START);

    // JSON is compared with its keys sorted, one value per line.
    put(
        &pad,
        "resp_1",
        br#"{"status":"ok","items":[{"id":1,"n":2}],"took":12}"#,
    );
    put(
        &pad,
        "resp_2",
        br#"{"took":15,"items":[{"n":2,"id":1}],"status":"ok"}"#,
    );
    let reply = pad
        .diff(
            &Target::current("resp_1"),
            &Target::current("resp_2"),
            &DiffOptions::default(),
        )
        .unwrap();
    assert!(reply.normalized_json);
    assert_eq!((reply.added, reply.removed), (1, 1), "{}", reply.text);
    assert!(
        reply.text.contains("-  \"took\": 12\n+  \"took\": 15\n"),
        "{}",
        reply.text
    );
    put(
        &pad,
        "resp_3",
        br#"{"items":[{"id":1,"n":2}],"status":"ok","took":12}"#,
    );
    let reordered = pad
        .diff(
            &Target::current("resp_1"),
            &Target::current("resp_3"),
            &DiffOptions::default(),
        )
        .unwrap();
    assert!(!reordered.identical && reordered.text.is_empty());
    assert_eq!(
        reordered.summary(),
        "the same JSON: only key order or formatting differ"
    );
}

fn authors_are_recorded_and_listed(backend: Backend) {
    let (_store, pad) = backend.pad();
    let a = pad.with_author("agent-a").unwrap();
    let b = pad.with_author("agent-b").unwrap();
    a.write("plan", "a's plan", WriteOptions::default())
        .unwrap();
    b.write("findings", "b's findings", WriteOptions::default())
        .unwrap();
    pad.write("anonymous", "nobody's", WriteOptions::default())
        .unwrap();
    assert_eq!(pad.get("plan").unwrap().author.as_deref(), Some("agent-a"));
    assert_eq!(pad.get("anonymous").unwrap().author, None);
    let by_a: Vec<String> = pad
        .list(
            &ListFilter {
                author: Some("agent-a".into()),
                ..ListFilter::default()
            },
            None,
            10,
        )
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(by_a, ["plan"]);
    // The last change names its author: b edits a's plan.
    b.edit("plan", "a's", "b's", false, None).unwrap();
    let plan = pad.get("plan").unwrap();
    assert_eq!(plan.author.as_deref(), Some("agent-b"));
    assert!(pad.with_author("").is_err());
    assert!(pad.with_author("line\nbreak").is_err());
}

fn outputs_of_tools_keep_no_history_unless_asked(backend: Backend) {
    let (_store, pad) = backend.pad();
    let output = |text: &str, keep_history: bool| {
        pad.put(
            &mut text.as_bytes(),
            PutOptions {
                name: Some(if keep_history { "kept" } else { "build" }.into()),
                source: Source {
                    tool: Some("cargo".into()),
                    ..Source::default()
                },
                keep_history,
                ..PutOptions::default()
            },
        )
        .unwrap()
    };
    output("first build\n", false);
    output("second build\n", false);
    let history = pad.history("build").unwrap();
    assert!(!history.keeps_history);
    assert_eq!(history.versions.len(), 1);
    output("first\n", true);
    output("second\n", true);
    assert_eq!(pad.history("kept").unwrap().versions.len(), 2);
    // A renamed output becomes a note, and keeps its history from then on.
    pad.rename("build", "build-notes", None).unwrap();
    pad.write("build-notes", "annotated\n", WriteOptions::default())
        .unwrap();
    let history = pad.history("build-notes").unwrap();
    assert!(history.keeps_history);
    assert_eq!(
        history.versions.len(),
        2,
        "the rename, kept by the write after it"
    );
}

/// Regression: content is stored once per hash, so a write whose new content equals the oldest
/// kept version's picked that version's content, and trimming the history to make room for the
/// replaced version freed it again in the same transaction: `FOREIGN KEY constraint failed`, on
/// every retry. With the defaults, restoring version 1 of a note with 101 versions did it.
fn restore_of_the_oldest_kept_version_is_not_refused(backend: Backend) {
    let (_store, pad) = backend.pad();
    for v in 1..=101 {
        pad.write("plan", &body(v), WriteOptions::default())
            .unwrap();
    }
    let history = pad.history("plan").unwrap();
    assert_eq!(history.kept_range(), Some((1, 100)));
    let restored = pad.restore("plan", 1, Some(101)).unwrap();
    assert_eq!(restored.version, 102);
    assert_eq!(whole(&pad, "plan"), body(1));
    let history = pad.history("plan").unwrap();
    assert_eq!(history.kept_range(), Some((2, 101)));
    assert_eq!(version(&pad, "plan", 101), body(101));
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
    // The content the restore took is held by the entry now: collection keeps it.
    pad.gc().unwrap();
    assert_eq!(whole(&pad, "plan"), body(1));
}

/// The same bug through every write that can make the oldest kept content current again: a write,
/// an append, an edit and a restore, with a history of two versions.
fn any_write_of_the_oldest_kept_content_is_not_refused(backend: Backend) {
    let (_store, pad) = backend.pad_with(Config {
        history_versions: 2,
        ..Config::default()
    });
    let oldest = "x\ny\n";
    let setup = |name: &str, last: &str| {
        for text in [oldest, "q\n", last] {
            pad.write(name, text, WriteOptions::default()).unwrap();
        }
        assert_eq!(pad.history(name).unwrap().kept_range(), Some((1, 2)));
    };
    setup("written", "z\n");
    pad.write("written", oldest, WriteOptions::default())
        .unwrap();
    setup("appended", "x\n");
    pad.append("appended", "y\n", WriteOptions::default())
        .unwrap();
    setup("edited", "x\nZ\n");
    pad.edit("edited", "Z", "y", false, None).unwrap();
    setup("restored", "z\n");
    pad.restore("restored", 1, None).unwrap();
    for name in ["written", "appended", "edited", "restored"] {
        assert_eq!(whole(&pad, name), oldest, "{name}");
        let history = pad.history(name).unwrap();
        assert_eq!(history.entry.version, 4, "{name}");
        assert_eq!(history.kept_range(), Some((2, 3)), "{name}");
    }
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

/// The same bug under load: writers in threads that keep writing a few contents to a few notes with
/// a short history meet it all the time. No write may fail, and every note ends whole.
fn concurrent_writers_of_recurring_content_are_never_refused(backend: Backend) {
    const THREADS: usize = 8;
    const WRITES: usize = 40;
    let (_store, pad) = backend.pad_with(Config {
        history_versions: 2,
        ..Config::default()
    });
    let contents: Vec<String> = (0..3).map(|i| format!("state {i}\n")).collect();
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let pad = pad.clone();
            let contents = &contents;
            scope.spawn(move || {
                for i in 0..WRITES {
                    let name = format!("note-{}", (thread + i) % 2);
                    let text = &contents[(thread * 7 + i) % contents.len()];
                    if let Err(err) = pad.write(&name, text, WriteOptions::default()) {
                        panic!("write {i} of thread {thread} to `{name}` was refused: {err}");
                    }
                }
            });
        }
    });
    for name in ["note-0", "note-1"] {
        let history = pad.history(name).unwrap();
        assert_eq!(history.versions.len(), 3, "{name}");
        assert!(contents.contains(&whole(&pad, name)), "{name}");
    }
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

/// Length and checksum of each chunk of the content `hash`, in order.
fn chunk_signatures(store: &TestStore, backend: Backend, hash: &str) -> Vec<(i64, i64)> {
    const SQL: &str = "SELECT c.len, c.checksum FROM chunks c JOIN blobs b ON b.id = c.blob \
                       WHERE b.hash = $1 ORDER BY c.seq";
    match backend {
        Backend::Sqlite => {
            let conn = rusqlite::Connection::open(store.sqlite_path()).unwrap();
            let mut statement = conn.prepare(SQL).unwrap();
            statement
                .query_map([hash], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        }
        Backend::Postgres => {
            #[cfg(feature = "postgres")]
            return store
                .admin()
                .query(SQL, &[&hash])
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect();
            #[cfg(not(feature = "postgres"))]
            unreachable!("PostgreSQL stores need the feature")
        }
    }
}

/// A version differs from the one before by what was edited, not by where its chunks happen to
/// fall: a one-line edit that changes the line's length leaves every chunk but those around it
/// as it was, which is what lets versions share them.
fn a_one_line_edit_of_a_large_note_changes_only_the_chunks_around_it(backend: Backend) {
    let (store, pad) = backend.pad();
    let log = log_with_errors(120_000, &[]);
    let first = put(&pad, "big", log.as_bytes());
    let mut before = chunk_signatures(&store, backend, &first.hash);
    assert!(before.len() > 20, "{} chunks", before.len());
    for (n, line) in [(40_000, "worker 40000:"), (90_000, "worker 90000:")] {
        let outcome = pad
            .edit(
                "big",
                line,
                &format!("{line}— edited, longer than it was — "),
                false,
                None,
            )
            .unwrap();
        assert_eq!(outcome.replacements, 1, "line {n}");
        let after = chunk_signatures(&store, backend, &outcome.entry.hash);
        let new = after.iter().filter(|chunk| !before.contains(chunk)).count();
        assert!(
            new <= 2,
            "{new} of {} chunks changed by editing line {n}",
            after.len()
        );
        before = after;
    }
    let text = whole(&pad, "big");
    assert_eq!(
        text.len(),
        log.len() + 2 * "— edited, longer than it was — ".len()
    );
}

/// Bytes the store physically holds for content: chunk and piece data in the database, and the
/// side files beside it.
fn stored_bytes(store: &TestStore, backend: Backend) -> u64 {
    const SQL: &str = "SELECT CAST((SELECT COALESCE(SUM(LENGTH(data)), 0) FROM chunks) \
                       + (SELECT COALESCE(SUM(LENGTH(data)), 0) FROM pieces) AS BIGINT)";
    match backend {
        Backend::Sqlite => {
            let conn = rusqlite::Connection::open(store.sqlite_path()).unwrap();
            let in_db: i64 = conn.query_row(SQL, [], |r| r.get(0)).unwrap();
            let side = store.dir.as_ref().unwrap().path().join("pad.db-blobs");
            let files: u64 = std::fs::read_dir(&side)
                .map(|dir| {
                    dir.map(Result::unwrap)
                        .filter(|f| f.file_type().unwrap().is_file())
                        .map(|f| f.metadata().unwrap().len())
                        .sum()
                })
                .unwrap_or(0);
            u64::try_from(in_db).unwrap() + files
        }
        Backend::Postgres => {
            #[cfg(feature = "postgres")]
            return u64::try_from(store.admin().query_one(SQL, &[]).unwrap().get::<_, i64>(0))
                .unwrap();
            #[cfg(not(feature = "postgres"))]
            unreachable!("PostgreSQL stores need the feature")
        }
    }
}

/// The line `n` of [`log_with_errors`], as edits find it.
fn log_line(n: u64) -> String {
    format!("INFO worker {n}: processed batch ok")
}

/// `count` one-line edits of `name`, a [`log_line`] each, from line `first` every `step` lines.
fn edit_lines(pad: &Scratchpad, name: &str, count: u64, first: u64, step: u64) {
    for i in 0..count {
        let n = first + i * step;
        pad.edit(
            name,
            &log_line(n),
            &format!("{} — edit {i}", log_line(n)),
            false,
            None,
        )
        .unwrap();
    }
}

/// Every version `history` lists reads back as the content it was written with.
fn versions_read_back(pad: &Scratchpad, name: &str, history: &scratchpad_core::History) {
    for kept in &history.versions {
        let text = version(pad, name, kept.version);
        assert_eq!(
            blake3::hash(text.as_bytes()).to_hex().as_str(),
            kept.hash,
            "version {}",
            kept.version
        );
    }
}

fn twenty_one_line_edits_of_a_large_note_cost_about_what_changed(backend: Backend) {
    let (store, pad) = backend.pad();
    let log = log_with_errors(140_000, &[]);
    assert!(log.len() > 8_000_000, "{} bytes", log.len());
    put(&pad, "big", log.as_bytes());
    let first = stored_bytes(&store, backend);
    assert!(first >= log.len() as u64, "{first} bytes stored");
    edit_lines(&pad, "big", 20, 3_001, 6_917);
    let grown = stored_bytes(&store, backend) - first;
    // Each edit changed one line: the chunk around it (at most 256 KiB, two where the edit moved a
    // boundary) is all it may add.
    let bound = 20 * 2 * 256 * 1024;
    assert!(
        grown <= bound,
        "20 one-line edits of a {} byte note grew the store by {grown} bytes (at most {bound} expected)",
        log.len()
    );
    assert!(first + grown < 2 * log.len() as u64);
    let history = pad.history("big").unwrap();
    assert_eq!(history.versions.len(), 21, "20 kept and the current one");
    versions_read_back(&pad, "big", &history);
    let current = whole(&pad, "big");
    assert_eq!(
        blake3::hash(current.as_bytes()).to_hex().as_str(),
        history.entry.hash
    );
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

/// Versions share chunks: dropping some (past the kept count), purging a note whose content another
/// shares, and collecting, frees only what nothing else holds, and every content left reads back.
fn dropping_versions_never_damages_what_shares_their_chunks(backend: Backend) {
    let (store, pad) = backend.pad_with(Config {
        history_versions: 3,
        ..Config::default()
    });
    let log = log_with_errors(60_000, &[]);
    put(&pad, "big", log.as_bytes());
    // Another note holding the same lines but its first: it shares every chunk but that one.
    let twin = format!("twin\n{}", &log[log.find('\n').unwrap() + 1..]);
    put(&pad, "twin", twin.as_bytes());
    edit_lines(&pad, "big", 8, 1_001, 7_001);
    let history = pad.history("big").unwrap();
    assert_eq!(history.versions.len(), 4, "3 kept and the current one");
    pad.gc().unwrap();
    versions_read_back(&pad, "big", &history);
    let oldest = history.versions.iter().map(|v| v.version).min().unwrap();
    let restored = pad.restore("big", oldest, None).unwrap();
    assert_eq!(
        restored.hash,
        history
            .versions
            .iter()
            .find(|v| v.version == oldest)
            .unwrap()
            .hash
    );
    pad.purge("big", None).unwrap();
    pad.gc().unwrap();
    assert_eq!(whole(&pad, "twin"), twin);
    let report = pad.check(&mut |_| {}).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.unreferenced_files, 0);
    // What is left is about the twin alone: the pieces of the purged note went with it.
    let left = stored_bytes(&store, backend);
    assert!(
        left < twin.len() as u64 + 2 * 256 * 1024,
        "{left} bytes stored for a {} byte note",
        twin.len()
    );
    pad.purge("twin", None).unwrap();
    pad.gc().unwrap();
    assert_eq!(stored_bytes(&store, backend), 0);
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

/// Writers storing the same large content, or content sharing most of its chunks, at the same
/// moment all succeed: none waits on another while holding a chunk the other waits for.
fn writers_of_shared_large_content_at_once_all_succeed(backend: Backend) {
    let (_store, pad) = backend.pad();
    let log = log_with_errors(90_000, &[]);
    let variant = format!("variant\n{}", &log[log.find('\n').unwrap() + 1..]);
    let contents = [&log, &variant];
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let pad = &pad;
            scope.spawn(move || {
                for round in 0..3 {
                    let content = contents[(thread + round) % 2];
                    let name = format!("copy-{thread}-{round}");
                    let mut input = content.as_bytes();
                    let stored = pad.put(
                        &mut input,
                        PutOptions {
                            name: Some(name.clone()),
                            ..PutOptions::default()
                        },
                    );
                    if let Err(err) = stored {
                        panic!("`{name}` was refused: {err}");
                    }
                }
            });
        }
    });
    for thread in 0..4 {
        for round in 0..3 {
            let name = format!("copy-{thread}-{round}");
            assert_eq!(
                &whole(&pad, &name),
                contents[(thread + round) % 2],
                "{name}"
            );
        }
    }
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

backend_tests!(
    a_one_line_edit_of_a_large_note_changes_only_the_chunks_around_it,
    writers_of_shared_large_content_at_once_all_succeed,
    twenty_one_line_edits_of_a_large_note_cost_about_what_changed,
    dropping_versions_never_damages_what_shares_their_chunks,
    history_keeps_the_right_versions_after_100_edits_and_gc,
    every_version_is_kept_by_default,
    versions_past_the_age_limit_are_collected,
    old_versions_read_with_every_mode,
    restore_makes_an_old_version_current_again,
    diffs_compare_versions_and_entries,
    authors_are_recorded_and_listed,
    outputs_of_tools_keep_no_history_unless_asked,
    restore_of_the_oldest_kept_version_is_not_refused,
    any_write_of_the_oldest_kept_content_is_not_refused,
    concurrent_writers_of_recurring_content_are_never_refused,
);
