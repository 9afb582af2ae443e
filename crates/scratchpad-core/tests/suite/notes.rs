//! Notes: write, append, edit, rename, delete, pin, TTL, all honouring `if_version`.

use scratchpad_core::{ConflictKind, Error, ReadMode, Ttl, WriteOptions};

use crate::common::Backend;

fn text(pad: &scratchpad_core::Scratchpad, name: &str) -> String {
    pad.read(name, &ReadMode::Full { force: true }, None)
        .unwrap()
        .text
}

fn at(version: u64) -> WriteOptions {
    WriteOptions {
        if_version: Some(version),
        ..WriteOptions::default()
    }
}

fn write_append_edit_rename_delete(backend: Backend) {
    let (_store, pad) = backend.pad();
    let v1 = pad
        .write("plan", "1. parse\n2. test\n", WriteOptions::default())
        .unwrap();
    assert_eq!(v1.version, 1);
    let v2 = pad
        .append("plan", "3. ship\n", WriteOptions::default())
        .unwrap();
    assert_eq!(v2.version, 2);
    assert_eq!(text(&pad, "plan"), "1. parse\n2. test\n3. ship\n");
    let edit = pad
        .edit(
            "plan",
            "2. test",
            "2. test on both backends",
            false,
            Some(2),
        )
        .unwrap();
    assert_eq!(edit.replacements, 1);
    assert_eq!(edit.entry.version, 3);
    assert_eq!(
        text(&pad, "plan"),
        "1. parse\n2. test on both backends\n3. ship\n"
    );

    let err = pad
        .edit("plan", ". ", ") ", false, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("occurs 3 times") && err.contains("replace_all"),
        "{err}"
    );
    let all = pad.edit("plan", ". ", ") ", true, None).unwrap();
    assert_eq!(all.replacements, 3);
    let err = pad
        .edit("plan", "absent", "x", false, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not occur"), "{err}");

    let renamed = pad.rename("plan", "plan-final", None).unwrap();
    assert_eq!(renamed.version, 5);
    assert!(matches!(pad.get("plan"), Err(Error::NotFound { .. })));
    // The id keeps working after a rename.
    assert_eq!(pad.get(&renamed.id).unwrap().name, "plan-final");
    pad.delete("plan-final", Some(5)).unwrap();
    assert!(pad.get("plan-final").is_err());
}

fn if_version_conflicts_name_the_current_version(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("n", "a", WriteOptions::default()).unwrap();
    pad.write("n", "b", at(1)).unwrap();
    let err = pad.write("n", "c", at(1)).unwrap_err();
    match &err {
        Error::Conflict(ConflictKind::Version {
            expected: 1,
            current: Some(2),
            ..
        }) => {}
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("current version is 2"));
    for result in [
        pad.append("n", "x", at(7)).map(|_| ()),
        pad.edit("n", "b", "x", false, Some(7)).map(|_| ()),
        pad.rename("n", "m", Some(7)).map(|_| ()),
        pad.pin("n", true, Some(7)).map(|_| ()),
        pad.set_ttl("n", Ttl::After(1000), Some(7)).map(|_| ()),
        pad.delete("n", Some(7)).map(|_| ()),
    ] {
        assert!(matches!(result, Err(Error::Conflict(_))), "{result:?}");
    }
    assert_eq!(text(&pad, "n"), "b");
    let err = pad.write("fresh", "x", at(1)).unwrap_err().to_string();
    assert!(err.contains("does not exist"), "{err}");
}

fn pin_and_ttl_bump_versions_and_survive_overwrites(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write(
        "n",
        "a",
        WriteOptions {
            ttl: Ttl::After(3_600_000),
            ..WriteOptions::default()
        },
    )
    .unwrap();
    let pinned = pad.pin("n", true, Some(1)).unwrap();
    assert!(pinned.pinned);
    assert_eq!(pinned.version, 2);
    let rewritten = pad.write("n", "b", WriteOptions::default()).unwrap();
    assert!(rewritten.pinned, "an overwrite keeps the pin");
    assert!(rewritten.expires_at.is_some(), "an overwrite keeps the TTL");
    let forever = pad.set_ttl("n", Ttl::Never, None).unwrap();
    assert_eq!(forever.expires_at, None);
    let err = pad.rename("n", "n", None);
    assert!(err.is_err());
}

fn renaming_an_offload_makes_it_a_durable_note(backend: Backend) {
    let (_store, pad) = backend.pad();
    let offload = pad
        .put(
            &mut &b"tool output"[..],
            scratchpad_core::PutOptions {
                source: scratchpad_core::Source {
                    tool: Some("grep".into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .unwrap();
    assert!(offload.expires_at.is_some());
    let note = pad.rename(&offload.name, "findings", None).unwrap();
    assert_eq!(note.expires_at, None);
}

fn rename_refuses_to_overwrite(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("a", "1", WriteOptions::default()).unwrap();
    pad.write("b", "2", WriteOptions::default()).unwrap();
    let err = pad.rename("a", "b", None).unwrap_err().to_string();
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(text(&pad, "b"), "2");
}

/// `run` records a command's exit code once its output is stored: the metadata is replaced, the
/// content kept, and a stale version refused.
fn metadata_set_after_the_content(backend: Backend) {
    let (_store, pad) = backend.pad();
    let stored = pad
        .put(
            &mut &b"compiling\nerror: boom\n"[..],
            scratchpad_core::PutOptions {
                meta: serde_json::json!({"command": ["make"]}),
                ..Default::default()
            },
        )
        .unwrap();
    let meta = serde_json::json!({"command": ["make"], "exit_code": 2});
    let info = pad
        .set_meta(&stored.name, meta.clone(), Some(stored.version))
        .unwrap();
    assert_eq!(info.meta, meta);
    assert_eq!(info.version, stored.version + 1);
    assert_eq!(pad.get(&stored.name).unwrap().meta, meta);
    assert_eq!(text(&pad, &stored.name), "compiling\nerror: boom\n");
    let stale = pad.set_meta(&stored.name, serde_json::json!({}), Some(stored.version));
    assert!(stale.is_err(), "{stale:?}");
}

fn insert_puts_whole_lines_after_the_line_given(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("plan", "1. parse\n3. ship\n", WriteOptions::default())
        .unwrap();
    let info = pad.insert("plan", 1, "2. test", Some(1)).unwrap();
    assert_eq!(info.version, 2);
    assert_eq!(text(&pad, "plan"), "1. parse\n2. test\n3. ship\n");
    pad.insert("plan", 0, "# plan\n", None).unwrap();
    pad.insert("plan", 4, "4. celebrate\n5. rest", None)
        .unwrap();
    assert_eq!(
        text(&pad, "plan"),
        "# plan\n1. parse\n2. test\n3. ship\n4. celebrate\n5. rest\n"
    );
    let history = pad.history("plan").unwrap();
    let summaries: Vec<_> = history
        .versions
        .iter()
        .map(|v| v.change.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(
        summaries[..3],
        [
            Some("inserted 2 lines after line 4".to_owned()),
            Some("inserted 1 line after line 0".to_owned()),
            Some("inserted 1 line after line 1".to_owned()),
        ]
    );
}

fn insert_after_a_last_line_without_its_break_starts_a_new_line(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("todo", "a\nb", WriteOptions::default()).unwrap();
    pad.insert("todo", 2, "c", None).unwrap();
    assert_eq!(text(&pad, "todo"), "a\nb\nc\n");
    pad.write("empty", "", WriteOptions::default()).unwrap();
    pad.insert("empty", 0, "first", None).unwrap();
    assert_eq!(text(&pad, "empty"), "first\n");
}

fn insert_past_the_end_names_the_lines_there_are(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("todo", "a\nb\n", WriteOptions::default())
        .unwrap();
    let err = pad.insert("todo", 3, "c", None).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("has 2 lines") && message.contains("from 0 (before the first) to 2"),
        "{message}"
    );
    assert_eq!(text(&pad, "todo"), "a\nb\n", "nothing changed");
    let missing = pad.insert("nothing", 0, "c", None).unwrap_err();
    assert!(matches!(missing, Error::NotFound { .. }), "{missing:?}");
}

fn insert_on_a_stale_version_is_a_conflict_that_changes_nothing(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("todo", "a\n", WriteOptions::default()).unwrap();
    pad.append("todo", "b\n", WriteOptions::default()).unwrap();
    let err = pad.insert("todo", 0, "first", Some(1)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Conflict(ConflictKind::Version {
                expected: 1,
                current: Some(2),
                ..
            })
        ),
        "{err:?}"
    );
    assert_eq!(text(&pad, "todo"), "a\nb\n");
}

fn write_at_version_0_creates_only(backend: Backend) {
    let (_store, pad) = backend.pad();
    let created = pad.write("plan", "mine\n", at(0)).unwrap();
    assert_eq!(created.version, 1);
    let err = pad.write("plan", "theirs\n", at(0)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Conflict(ConflictKind::Exists { version: 1, .. })
        ),
        "{err:?}"
    );
    assert_eq!(text(&pad, "plan"), "mine\n");
}

/// A run's exit code completes the metadata of the version its output was stored as: a new entry
/// stays at version 1 (it was at a "metadata replaced" version 2), and once anyone changed the entry
/// the completion is refused.
fn completed_metadata_keeps_a_new_entry_at_version_1(backend: Backend) {
    let (_store, pad) = backend.pad();
    let stored = pad
        .put(
            &mut &b"compiling\nerror: boom\n"[..],
            scratchpad_core::PutOptions {
                meta: serde_json::json!({"command": ["make"]}),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(stored.version, 1);
    let meta = serde_json::json!({"command": ["make"], "exit_code": 2});
    let info = pad
        .complete_meta(&stored.name, meta.clone(), stored.version)
        .unwrap();
    assert_eq!((info.version, &info.meta), (1, &meta));
    assert_eq!(pad.get(&stored.name).unwrap().meta, meta);
    assert_eq!(text(&pad, &stored.name), "compiling\nerror: boom\n");
    pad.pin(&stored.name, true, None).unwrap();
    let late = pad.complete_meta(&stored.name, serde_json::json!({}), stored.version);
    assert!(late.is_err(), "{late:?}");
}

backend_tests!(
    metadata_set_after_the_content,
    completed_metadata_keeps_a_new_entry_at_version_1,
    write_append_edit_rename_delete,
    if_version_conflicts_name_the_current_version,
    pin_and_ttl_bump_versions_and_survive_overwrites,
    renaming_an_offload_makes_it_a_durable_note,
    rename_refuses_to_overwrite,
    insert_puts_whole_lines_after_the_line_given,
    insert_after_a_last_line_without_its_break_starts_a_new_line,
    insert_past_the_end_names_the_lines_there_are,
    insert_on_a_stale_version_is_a_conflict_that_changes_nothing,
    write_at_version_0_creates_only,
);
