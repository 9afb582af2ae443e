//! Removal on every backend: a removed note keeps its versions for the retention period (listed,
//! restorable, its name free at once), a purge leaves nothing, collection past retention frees the
//! content, and outputs of tools are deleted at once.

use std::time::Duration;

use scratchpad_core::{
    Call, Change, Config, Error, ListFilter, PutOptions, ReadMode, Retention, Scratchpad, Source,
    WriteOptions,
};

use crate::common::Backend;

fn whole(pad: &Scratchpad, name: &str) -> String {
    pad.read(name, &ReadMode::Full { force: true }, None)
        .unwrap()
        .text
}

/// `plan` written three times by `agent-a`: versions 1 to 3.
fn three_versions(pad: &Scratchpad) -> Scratchpad {
    let author = pad.with_author("agent-a").unwrap();
    for v in 1..=3 {
        author
            .write(
                "plan",
                &format!("plan, draft {v}\n"),
                WriteOptions::default(),
            )
            .unwrap();
    }
    author
}

fn removal_keeps_the_versions_and_restore_gives_them_back(backend: Backend) {
    let (_store, pad) = backend.pad();
    let author = three_versions(&pad);
    let removed = author.delete("plan", None).unwrap();
    let kept = removed.kept.clone().unwrap();
    assert_eq!((kept.versions, kept.version), (3, 3));
    assert_eq!(kept.removed_by.as_deref(), Some("agent-a"));
    let until = kept.keep_until.unwrap();
    let week_ms = 7 * 86_400_000;
    assert!((until - kept.removed_at - week_ms).abs() < 1_000, "{until}");
    assert_eq!(removed.bytes_freed, 0, "nothing is freed while kept");
    let reply = removed.advice();
    assert!(
        reply.calls().any(
            |call| matches!(call, Call::RestoreRemoved { name, as_name: None } if name == "plan")
        ) && reply
            .calls()
            .any(|call| matches!(call, Call::Purge { name } if name == "plan")),
        "{reply:?}"
    );
    assert!(
        reply.to_string().contains("3 versions kept until"),
        "{reply}"
    );

    // Gone from the name space: not readable, not listed, not found by search.
    assert!(matches!(pad.get("plan"), Err(Error::NotFound { .. })));
    assert!(
        pad.list(&ListFilter::default(), None, 10)
            .unwrap()
            .entries
            .is_empty()
    );
    let listed = pad.removed(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "plan");
    let history = pad.removed_history("plan").unwrap();
    let numbers: Vec<u64> = history.versions.iter().map(|v| v.version).collect();
    assert_eq!(numbers, [3, 2, 1]);

    let restored = pad.restore_removed("plan", None, None).unwrap();
    assert_eq!(restored.version, 4, "the restore continues the numbering");
    assert_eq!(restored.id, kept.id, "references by id work again");
    assert_eq!(whole(&pad, "plan"), "plan, draft 3\n");
    let history = pad.history("plan").unwrap();
    let numbers: Vec<u64> = history.versions.iter().map(|v| v.version).collect();
    assert_eq!(numbers, [4, 3, 2, 1]);
    assert_eq!(
        history.versions[0].change,
        Some(Change::Restored { from: 3 })
    );
    let first = pad
        .read_version("plan", 1, &ReadMode::Full { force: true }, None)
        .unwrap();
    assert_eq!(first.text, "plan, draft 1\n");
    assert!(
        pad.removed(10).unwrap().is_empty(),
        "restored, so no longer removed"
    );
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

fn a_chosen_version_is_restored_under_another_name(backend: Backend) {
    let (_store, pad) = backend.pad();
    three_versions(&pad);
    pad.delete("plan", None).unwrap();
    let restored = pad
        .restore_removed("plan", Some(1), Some("plan-old"))
        .unwrap();
    assert_eq!(restored.name, "plan-old");
    assert_eq!(whole(&pad, "plan-old"), "plan, draft 1\n");
    let err = pad.restore_removed("plan", None, None).unwrap_err();
    assert!(
        err.to_string().contains("no removed entry named `plan`"),
        "{err}"
    );
}

fn the_name_is_free_at_once_and_a_reused_name_is_never_overwritten(backend: Backend) {
    let (_store, pad) = backend.pad();
    three_versions(&pad);
    let removed = pad.delete("plan", None).unwrap();
    let id = removed.kept.unwrap().id;
    let fresh = pad
        .create("plan", "a new plan\n", WriteOptions::default())
        .unwrap();
    assert_eq!(
        fresh.version, 1,
        "a new entry, not a new version of the removed one"
    );
    assert_eq!(pad.history("plan").unwrap().versions.len(), 1);

    let err = pad.restore_removed("plan", None, None).unwrap_err();
    let suggested = err.advice();
    assert!(
        suggested.calls().any(|call| matches!(call,
            Call::RestoreRemoved { name, as_name: Some(other) } if *name == id && other == "plan-restored")),
        "{err}"
    );
    assert!(err.to_string().contains("in use again"), "{err}");
    assert_eq!(
        whole(&pad, "plan"),
        "a new plan\n",
        "the new plan is untouched"
    );

    // The suggestion runs as given: by the removed entry's id, under the other name.
    pad.restore_removed(&id, None, Some("plan-restored"))
        .unwrap();
    assert_eq!(whole(&pad, "plan-restored"), "plan, draft 3\n");
    assert_eq!(pad.history("plan-restored").unwrap().versions.len(), 4);
}

fn purge_leaves_nothing(backend: Backend) {
    let (_store, pad) = backend.pad();
    three_versions(&pad);
    let purged = pad.purge("plan", None).unwrap();
    assert_eq!(purged.versions, 3);
    assert!(purged.bytes_freed > 0);
    assert!(
        purged
            .advice()
            .to_string()
            .starts_with("purged plan (3 versions deleted")
    );
    assert!(pad.removed(10).unwrap().is_empty());
    assert!(pad.removed_history("plan").is_err());
    assert!(pad.restore_removed("plan", None, None).is_err());

    // A removed note's kept versions are purged by the same call, as the removal's reply says.
    three_versions(&pad);
    pad.delete("plan", None).unwrap();
    let purged = pad.purge("plan", None).unwrap();
    assert_eq!((purged.removed.len(), purged.versions), (1, 3));
    assert!(pad.removed(10).unwrap().is_empty());
    let report = pad.gc().unwrap();
    assert_eq!(report.removed_purged, 0);
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
    assert!(matches!(
        pad.purge("plan", None),
        Err(Error::NotFound { .. })
    ));
}

fn collection_past_retention_frees_the_content(backend: Backend) {
    let (_store, pad) = backend.pad_with(Config {
        keep_removed: Retention::For(200),
        ..Config::default()
    });
    let big = "a line of a long note\n".repeat(20_000);
    pad.write("notes", &big, WriteOptions::default()).unwrap();
    pad.write("notes", &format!("{big}more\n"), WriteOptions::default())
        .unwrap();
    pad.delete("notes", None).unwrap();
    let report = pad.gc().unwrap();
    assert_eq!(report.removed_purged, 0, "still within retention");
    assert_eq!(pad.removed(10).unwrap().len(), 1);
    std::thread::sleep(Duration::from_millis(300));
    let report = pad.gc().unwrap();
    assert_eq!(report.removed_purged, 1);
    assert!(report.bytes_freed as usize >= 2 * big.len(), "{report:?}");
    assert!(pad.removed(10).unwrap().is_empty());
    let check = pad.check(&mut |_| {}).unwrap();
    assert!(check.problems.is_empty() && check.blobs == 0, "{check:?}");
}

fn content_shared_with_a_live_entry_survives_the_purge(backend: Backend) {
    let (_store, pad) = backend.pad();
    pad.write("a", "the same words\n", WriteOptions::default())
        .unwrap();
    pad.write("b", "the same words\n", WriteOptions::default())
        .unwrap();
    pad.delete("a", None).unwrap();
    pad.purge("a", None).unwrap();
    assert_eq!(whole(&pad, "b"), "the same words\n");
    // And the other way: a live entry removed for good leaves the kept content readable.
    pad.write("c", "kept words\n", WriteOptions::default())
        .unwrap();
    pad.delete("c", None).unwrap();
    pad.write("d", "kept words\n", WriteOptions::default())
        .unwrap();
    pad.purge("d", None).unwrap();
    pad.restore_removed("c", None, None).unwrap();
    assert_eq!(whole(&pad, "c"), "kept words\n");
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

fn outputs_of_tools_are_deleted_at_once(backend: Backend) {
    let (_store, pad) = backend.pad();
    let mut input = "x".repeat(100_000);
    input.push('\n');
    let output = pad
        .put(
            &mut input.as_bytes(),
            PutOptions {
                source: Source {
                    tool: Some("read_file".into()),
                    ..Source::default()
                },
                ..PutOptions::default()
            },
        )
        .unwrap();
    let removed = pad.delete(&output.name, None).unwrap();
    assert!(removed.kept.is_none());
    assert_eq!(removed.bytes_freed, 100_001);
    assert!(
        removed
            .advice()
            .to_string()
            .contains("a tool's output keeps no history"),
        "{}",
        removed.advice()
    );
    assert!(pad.removed(10).unwrap().is_empty());
}

fn zero_retention_purges_at_once(backend: Backend) {
    let (_store, pad) = backend.pad_with(Config {
        keep_removed: Retention::Purge,
        ..Config::default()
    });
    three_versions(&pad);
    let removed = pad.delete("plan", None).unwrap();
    assert!(removed.kept.is_none());
    assert_eq!(removed.versions_deleted, 3);
    assert!(pad.removed(10).unwrap().is_empty());
}

fn removing_a_removed_name_says_how_to_restore_or_purge_it(backend: Backend) {
    let (_store, pad) = backend.pad();
    three_versions(&pad);
    pad.delete("plan", None).unwrap();
    let err = pad.delete("plan", None).unwrap_err();
    let calls: Vec<Call> = err.advice().calls().cloned().collect();
    assert!(
        matches!(
            calls.as_slice(),
            [Call::RestoreRemoved { .. }, Call::Purge { .. }]
        ),
        "{err}"
    );
}

fn removed_entries_go_before_live_ones_under_the_quota(backend: Backend) {
    let (_store, pad) = backend.pad_with(Config {
        quota_bytes: Some(150_000),
        ..Config::default()
    });
    let text = |c: char| format!("{}\n", c.to_string().repeat(99_999));
    pad.write("old", &text('a'), WriteOptions::default())
        .unwrap();
    pad.delete("old", None).unwrap();
    pad.write("live", &text('b'), WriteOptions::default())
        .unwrap();
    // The write over the quota collects by itself; a pass run now finds the store in bounds.
    let report = pad.gc().unwrap();
    assert_eq!(report.evicted, 0, "{report:?}");
    assert!(pad.removed(10).unwrap().is_empty());
    assert_eq!(whole(&pad, "live"), text('b'));
}

backend_tests!(
    removal_keeps_the_versions_and_restore_gives_them_back,
    a_chosen_version_is_restored_under_another_name,
    the_name_is_free_at_once_and_a_reused_name_is_never_overwritten,
    purge_leaves_nothing,
    collection_past_retention_frees_the_content,
    content_shared_with_a_live_entry_survives_the_purge,
    outputs_of_tools_are_deleted_at_once,
    zero_retention_purges_at_once,
    removing_a_removed_name_says_how_to_restore_or_purge_it,
    removed_entries_go_before_live_ones_under_the_quota,
);
