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
    pad.purge("first", None).unwrap();
    assert_eq!(
        side_files(dir),
        std::slice::from_ref(&first.hash),
        "still used by `second`"
    );
    pad.purge("second", None).unwrap();
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

/// Input that yields `good` bytes of log, then fails (or, with `block`, waits for `release`).
struct FailingInput {
    left: usize,
    release: Option<std::sync::mpsc::Receiver<()>>,
}

impl std::io::Read for FailingInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            if let Some(release) = self.release.take() {
                let _ = release.recv();
            }
            return Err(std::io::Error::other("the producer broke"));
        }
        let n = buf.len().min(self.left);
        buf[..n].fill(b'y');
        self.left -= n;
        Ok(n)
    }
}

fn staged(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("pad.db-blobs").join("tmp"))
        .map(|files| files.count())
        .unwrap_or(0)
}

/// A put whose input breaks part way removes what it staged, and stores nothing.
#[test]
fn a_put_whose_input_breaks_leaves_nothing_behind() {
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path();
    let err = pad
        .put(
            &mut FailingInput {
                left: 20 << 20,
                release: None,
            },
            scratchpad_core::PutOptions {
                name: Some("broken".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(err.to_string().contains("the producer broke"), "{err}");
    assert_eq!(staged(dir), 0);
    assert!(pad.get("broken").is_err());
}

/// Runs in the child of `unfinished_writes_are_removed_on_request`: alone in its process, since the
/// removal takes every write of the process.
#[test]
#[ignore = "runs only as the child of unfinished_writes_are_removed_on_request"]
fn unfinished_writes_child() {
    let url = std::env::var("SCRATCHPAD_TEST_STORE").unwrap();
    let dir = std::path::PathBuf::from(std::env::var("SCRATCHPAD_TEST_DIR").unwrap());
    let pad = Scratchpad::open(&url).unwrap();
    let (release, released) = std::sync::mpsc::channel();
    let writer = {
        let pad = pad.clone();
        std::thread::spawn(move || {
            pad.put(
                &mut FailingInput {
                    left: 20 << 20,
                    release: Some(released),
                },
                scratchpad_core::PutOptions {
                    name: Some("waiting".into()),
                    ..Default::default()
                },
            )
        })
    };
    let start = std::time::Instant::now();
    while staged(&dir) == 0 {
        assert!(start.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(scratchpad_core::store::side::remove_unfinished(), 1);
    assert_eq!(staged(&dir), 0);
    release.send(()).unwrap();
    assert!(writer.join().unwrap().is_err());
    assert_eq!(staged(&dir), 0);
    assert!(pad.get("waiting").is_err());
}

/// A process told to stop (a signal) removes the temporary files of its writes at once, even while
/// a write waits for input; that write then fails and names nothing.
#[test]
fn unfinished_writes_are_removed_on_request() {
    let (store, _pad) = pad();
    let dir = store.dir.as_ref().unwrap().path().to_owned();
    let mut child = crate::common::spawn_child(
        "suite::side_files::unfinished_writes_child",
        &[
            ("SCRATCHPAD_TEST_STORE", store.url.clone()),
            ("SCRATCHPAD_TEST_DIR", dir.display().to_string()),
        ],
    );
    assert!(child.0.wait().unwrap().success(), "the child failed");
    assert_eq!(staged(&dir), 0);
}
