//! A kill -9 in the middle of a large write leaves no partial entry and no corruption.

use std::io::Read;
use std::time::{Duration, Instant};

use scratchpad_core::{ListFilter, PutOptions, ReadMode, Scratchpad};

use crate::common::spawn_child;

/// An endless log, produced on the fly.
struct EndlessLog(u64);

impl Read for EndlessLog {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let line = format!("line {} of a log that never ends\n", self.0);
        self.0 += 1;
        let n = line.len().min(buf.len());
        buf[..n].copy_from_slice(&line.as_bytes()[..n]);
        Ok(n)
    }
}

/// Runs in the child: streams forever into the store named by SCRATCHPAD_TEST_STORE.
#[test]
#[ignore = "runs only as the child of kill_9_during_a_large_put"]
fn crash_child_endless_put() {
    let url = std::env::var("SCRATCHPAD_TEST_STORE").unwrap();
    let pad = Scratchpad::open(&url).unwrap();
    let _ = pad.put(
        &mut EndlessLog(0),
        PutOptions {
            name: Some("partial".into()),
            ..PutOptions::default()
        },
    );
}

#[test]
fn kill_9_during_a_large_put() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/pad.db", dir.path().display());
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("before", "an earlier note", Default::default())
        .unwrap();
    let mut child = spawn_child(
        "suite::crash::crash_child_endless_put",
        &[("SCRATCHPAD_TEST_STORE", url.clone())],
    );
    // Wait until the child has staged some chunks, then kill it mid-write.
    let db = dir.path().join("pad.db");
    let started = Instant::now();
    loop {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let staged: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM chunks c JOIN blobs b ON b.id = c.blob WHERE b.state = 0",
                [],
                |r| r.get(0),
            )
            .unwrap_or(0);
        if staged >= 40 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the child never staged chunks"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.0.kill().unwrap(); // SIGKILL
    child.0.wait().unwrap();

    let pad = Scratchpad::open(&url).unwrap();
    assert!(pad.get("partial").is_err(), "no partial entry is visible");
    let names: Vec<String> = pad
        .list(&ListFilter::default(), None, 10)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["before"]);
    assert_eq!(
        pad.read("before", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "an earlier note"
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    // The store keeps working after the crash.
    pad.write("after", "still fine", Default::default())
        .unwrap();
}
