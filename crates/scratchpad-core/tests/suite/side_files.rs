//! Large content lives in side files next to the database: written once, named by its hash inside
//! the commit, shared by every entry with the same content, collected when nothing refers to it.

use scratchpad_core::{ReadMode, Scratchpad};

use crate::common::{log_with_errors, pad, put};

fn side_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("pad.db-blobs"))
        .map(|files| {
            files
                .flatten()
                .map(|f| f.file_name().to_string_lossy().into_owned())
                .filter(|name| name != "tmp")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn large_content_is_one_side_file_whatever_its_entries() {
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path();
    let log = log_with_errors(100_000, &[50_000]);
    let first = put(&pad, "first", log.as_bytes());
    let second = put(&pad, "second", log.as_bytes());
    assert_eq!(side_files(dir), std::slice::from_ref(&first.hash));
    assert_eq!(first.hash, second.hash);
    // Small content stays in the database.
    put(&pad, "small", b"a small note\n");
    assert_eq!(side_files(dir).len(), 1);
    pad.delete("first", None).unwrap();
    assert_eq!(
        side_files(dir),
        std::slice::from_ref(&first.hash),
        "still used by `second`"
    );
    pad.delete("second", None).unwrap();
    assert!(
        side_files(dir).is_empty(),
        "deleting the last entry removes the file at once"
    );
}

/// Several processes (here: separate stores in threads, each with its own connections and file
/// handles) writing the same content at once store it once, and every entry reads it whole.
#[test]
fn writers_of_the_same_content_at_once_share_one_file() {
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path().to_owned();
    let log = std::sync::Arc::new(log_with_errors(80_000, &[40_000]));
    let handles: Vec<_> = (0..4)
        .map(|writer| {
            let url = store.url.clone();
            let log = std::sync::Arc::clone(&log);
            std::thread::spawn(move || {
                let pad = Scratchpad::open(&url).unwrap();
                for round in 0..3 {
                    put(&pad, &format!("w{writer}_{round}"), log.as_bytes());
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(side_files(&dir).len(), 1);
    for writer in 0..4 {
        for round in 0..3 {
            let hit = pad
                .read(
                    &format!("w{writer}_{round}"),
                    &ReadMode::grep("ERROR", 0),
                    None,
                )
                .unwrap();
            assert!(hit.text.starts_with("40000:"), "{}", hit.text);
        }
    }
    let report = pad.check(&mut |_| {}).unwrap();
    assert!(report.problems.is_empty(), "{report:?}");
    assert_eq!(report.unreferenced_files, 0);
}

/// A side file named but never committed (its writer died between the two) is collected; the
/// files of committed content are kept.
#[test]
fn gc_removes_side_files_nothing_refers_to() {
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path();
    let kept = put(&pad, "kept", log_with_errors(50_000, &[]).as_bytes());
    let orphan = "0".repeat(64);
    std::fs::write(
        dir.join("pad.db-blobs").join(&orphan),
        vec![b'x'; 3_000_000],
    )
    .unwrap();
    let report = pad.check(&mut |_| {}).unwrap();
    assert_eq!(report.unreferenced_files, 1, "{report:?}");
    let collected = pad.gc().unwrap();
    assert!(collected.bytes_freed >= 3_000_000, "{collected:?}");
    assert_eq!(side_files(dir), [kept.hash]);
    assert!(
        pad.read("kept", &ReadMode::Tail { n: Some(10) }, None)
            .is_ok()
    );
}

/// The side files are found relative to the database: a store directory copied elsewhere opens.
#[test]
fn a_copied_store_directory_still_opens() {
    let (store, pad) = pad();
    let log = log_with_errors(60_000, &[30_000]);
    put(&pad, "log", log.as_bytes());
    drop(pad);
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!(
            "{}/.",
            store.dir.as_ref().unwrap().path().display()
        ))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(status.success());
    drop(store);
    let pad = Scratchpad::open(&format!("sqlite://{}/pad.db", copy.path().display())).unwrap();
    let hit = pad.read("log", &ReadMode::grep("ERROR", 0), None).unwrap();
    assert!(hit.text.starts_with("30000:"), "{}", hit.text);
}
