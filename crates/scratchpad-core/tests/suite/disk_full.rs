//! A full disk never makes stored entries unreadable, and deleting still frees space: on a small
//! file system of its own (a tmpfs this test mounts), filled to the last byte.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use scratchpad_core::{Error, ListFilter, PutOptions, ReadMode, Scratchpad};

use crate::common::log_with_errors;

/// A tmpfs mounted for the test, unmounted when it ends.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// A tmpfs of this size. Where this process may not mount file systems, the test fails, unless
    /// `SCRATCHPAD_TEST_NO_MOUNT=1` says to skip these tests (`None`, with a loud message).
    fn mount(megabytes: u64) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            assert!(
                std::env::var_os("SCRATCHPAD_TEST_NO_MOUNT").is_some(),
                "cannot mount a tmpfs here (not root, or no mount permission): the full-disk tests \
                 need one. Run the tests as root, or set SCRATCHPAD_TEST_NO_MOUNT=1 to skip them"
            );
            eprintln!(
                "\n!!! SKIPPED: cannot mount a tmpfs, and SCRATCHPAD_TEST_NO_MOUNT is set !!!\n"
            );
            return None;
        }
        Some(Self { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a filler file until the disk is full.
    fn fill(&self) -> PathBuf {
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![7u8; 64 * 1024];
        let mut size = block.len();
        while size > 0 {
            match file.write(&block[..size]) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => size /= 2,
            }
        }
        let _ = file.sync_all();
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn staged_files(disk: &SmallDisk) -> usize {
    std::fs::read_dir(disk.path().join("pad.db-blobs").join("tmp"))
        .map(|files| files.count())
        .unwrap_or(0)
}

fn put(pad: &Scratchpad, name: &str, content: &[u8]) -> scratchpad_core::Result<()> {
    pad.put(
        &mut &content[..],
        PutOptions {
            name: Some(name.to_owned()),
            ..PutOptions::default()
        },
    )
    .map(|_| ())
}

/// Regression: after a put failed for lack of space, reads (`--head`, `--lines`, `show`, `search`),
/// `rm` and `gc` all failed with "disk is full", so nothing could free space; and the failed put's
/// staged data was never collected.
#[test]
fn a_full_disk_still_reads_deletes_and_collects() {
    let Some(disk) = SmallDisk::mount(48) else {
        return;
    };
    let url = format!("sqlite://{}/pad.db", disk.path().display());
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("plan", "1. reproduce\n2. fix", Default::default())
        .unwrap();
    let log = log_with_errors(150_000, &[75_000]); // ~ 9 MB: a side file
    put(&pad, "log", log.as_bytes()).unwrap();
    let filler = disk.fill();

    // A put that does not fit fails, says why, and leaves nothing behind.
    let err = put(&pad, "more", log_with_errors(100_000, &[]).as_bytes()).unwrap_err();
    assert!(matches!(err, Error::DiskFull(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("is full") && message.contains("delete entries"),
        "{message}"
    );
    assert_eq!(staged_files(&disk), 0, "the failed put's side file is gone");
    assert!(pad.get("more").is_err());

    // Everything stored still reads, from a process that opens the store now.
    let pad = Scratchpad::open(&url).unwrap();
    let head = pad
        .read("log", &ReadMode::Head { n: Some(100) }, None)
        .unwrap();
    assert!(head.text.starts_with("2026-11-21"), "{}", head.text);
    let line = pad
        .read(
            "log",
            &ReadMode::Lines {
                from: 75_000,
                to: Some(75_000),
            },
            None,
        )
        .unwrap();
    assert!(line.text.contains("ERROR"), "{}", line.text);
    let grep = pad.read("log", &ReadMode::grep("ERROR", 0), None).unwrap();
    assert_eq!(grep.total_matches, Some(1));
    assert_eq!(pad.get("plan").unwrap().version, 1);
    assert!(!pad.search("reproduce", 10).unwrap().is_empty());
    assert_eq!(
        pad.list(&ListFilter::default(), None, 10)
            .unwrap()
            .entries
            .len(),
        2
    );
    let plan = pad
        .read("plan", &ReadMode::Full { force: false }, None)
        .unwrap();
    assert_eq!(plan.text, "1. reproduce\n2. fix");

    // Purging works, and gives the space back.
    let free_before = free_bytes(disk.path());
    let bytes = pad.get("log").unwrap().bytes;
    pad.purge("log", None).unwrap();
    // Its content is freed, 2 MiB of it set aside again as the reserve.
    let free_after = free_bytes(disk.path());
    assert!(
        free_after + (2 << 20) + (1 << 20) >= free_before + bytes,
        "deleting a {bytes}-byte entry frees its space: {free_before} → {free_after} bytes free"
    );
    assert!(disk.path().join("pad.db-reserve").exists());
    pad.gc().unwrap();
    // With room again, the store writes, and sets its reserve aside again.
    std::fs::remove_file(filler).unwrap();
    put(&pad, "log2", log.as_bytes()).unwrap();
    pad.write("plan", "1. reproduce (done)\n2. fix", Default::default())
        .unwrap();
    assert!(disk.path().join("pad.db-reserve").exists());
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

/// Regression: with the disk full, even deleting a small note failed (it appends to the
/// write-ahead log first). The store's reserve is given up for deletes.
#[test]
fn deleting_needs_no_free_space() {
    let Some(disk) = SmallDisk::mount(24) else {
        return;
    };
    let url = format!("sqlite://{}/pad.db", disk.path().display());
    let pad = Scratchpad::open(&url).unwrap();
    for i in 0..50 {
        pad.write(
            &format!("note{i}"),
            &"a finding worth keeping\n".repeat(100),
            Default::default(),
        )
        .unwrap();
    }
    let _filler = disk.fill();
    let err = pad
        .write("one-more", &"x".repeat(200_000), Default::default())
        .unwrap_err();
    assert!(matches!(err, Error::DiskFull(_)), "{err:?}");
    for i in 0..50 {
        pad.delete(&format!("note{i}"), None).unwrap();
    }
    assert!(
        pad.list(&ListFilter::default(), None, 10)
            .unwrap()
            .entries
            .is_empty()
    );
    pad.gc().unwrap();
}

/// Regression: a disk filled to its last byte by another program, while no process had the store
/// open, made every call fail with "disk I/O error", reads and deletes included, and the reserve
/// was never given up. Now reads need no space at all, a write says the disk is full and what to
/// do, and a delete gives up the reserve, frees its entry's space and sets the reserve aside again.
#[test]
fn a_disk_another_program_filled_to_the_last_byte_still_reads_and_deletes() {
    let Some(disk) = SmallDisk::mount(24) else {
        return;
    };
    let url = format!("sqlite://{}/pad.db", disk.path().display());
    let reserve = disk.path().join("pad.db-reserve");
    {
        let pad = Scratchpad::open(&url).unwrap();
        pad.write("plan", "1. reproduce\n2. fix", Default::default())
            .unwrap();
        put(&pad, "log", log_with_errors(60_000, &[30_000]).as_bytes()).unwrap();
    }
    // Another program, not the store, takes every byte left.
    let filler = disk.fill();
    assert_eq!(free_bytes(disk.path()), 0);

    let pad = Scratchpad::open(&url).unwrap();
    let head = pad
        .read("log", &ReadMode::Head { n: Some(100) }, None)
        .unwrap();
    assert!(head.text.starts_with("2026-11-21"), "{}", head.text);
    let line = pad
        .read(
            "log",
            &ReadMode::Lines {
                from: 30_000,
                to: Some(30_000),
            },
            None,
        )
        .unwrap();
    assert!(line.text.contains("ERROR"), "{}", line.text);
    assert_eq!(
        pad.read("log", &ReadMode::grep("ERROR", 0), None)
            .unwrap()
            .total_matches,
        Some(1)
    );
    assert_eq!(pad.get("plan").unwrap().version, 1);
    assert_eq!(
        pad.list(&ListFilter::default(), None, 10)
            .unwrap()
            .entries
            .len(),
        2
    );
    assert!(!pad.search("reproduce", 10).unwrap().is_empty());
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
    // Reading took nothing from the reserve, and left it for the delete.
    assert_eq!(std::fs::metadata(&reserve).unwrap().len(), 2 << 20);

    // Writes fail cleanly, say why and what to do, and leave nothing behind.
    for err in [
        pad.write("plan", "changed", Default::default())
            .unwrap_err(),
        put(&pad, "more", log_with_errors(40_000, &[]).as_bytes()).unwrap_err(),
    ] {
        assert!(matches!(err, Error::DiskFull(_)), "{err:?}");
        let message = err.to_string();
        assert!(
            message.contains("is full") && message.contains("delete entries"),
            "{message}"
        );
    }
    assert_eq!(staged_files(&disk), 0);
    assert_eq!(
        pad.read("plan", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "1. reproduce\n2. fix"
    );

    // Purging gives up the reserve to run, frees the entry's space and sets the reserve aside
    // again from it.
    let bytes = pad.get("log").unwrap().bytes;
    pad.purge("log", None).unwrap();
    let free_after = free_bytes(disk.path());
    assert!(
        free_after + (2 << 20) + (1 << 20) >= bytes,
        "deleting a {bytes}-byte entry freed {free_after} bytes"
    );
    assert_eq!(std::fs::metadata(&reserve).unwrap().len(), 2 << 20);
    assert!(pad.get("log").is_err());
    pad.gc().unwrap();

    // Space comes back: writes work again.
    std::fs::remove_file(filler).unwrap();
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("plan", "1. reproduce (done)", Default::default())
        .unwrap();
    put(&pad, "log", log_with_errors(60_000, &[30_000]).as_bytes()).unwrap();
    assert!(pad.check(&mut |_| {}).unwrap().problems.is_empty());
}

/// When the store's reserve is gone (used up by another program after it was given up) and the
/// disk is still full, what is stored still reads, and a delete says the disk is full instead of
/// failing obscurely; once space returns, the reserve is set aside again.
#[test]
fn without_its_reserve_a_full_store_still_reads_and_says_what_to_do() {
    let Some(disk) = SmallDisk::mount(16) else {
        return;
    };
    let url = format!("sqlite://{}/pad.db", disk.path().display());
    let reserve = disk.path().join("pad.db-reserve");
    {
        let pad = Scratchpad::open(&url).unwrap();
        pad.write("plan", "1. reproduce", Default::default())
            .unwrap();
    }
    std::fs::remove_file(&reserve).unwrap();
    let filler = disk.fill();
    let pad = Scratchpad::open(&url).unwrap();
    assert!(!reserve.exists());
    assert_eq!(
        pad.read("plan", &ReadMode::Full { force: false }, None)
            .unwrap()
            .text,
        "1. reproduce"
    );
    let err = pad.delete("plan", None).unwrap_err();
    assert!(matches!(err, Error::DiskFull(_)), "{err:?}");
    assert!(pad.get("plan").is_ok(), "nothing was deleted half way");
    std::fs::remove_file(filler).unwrap();
    let pad = Scratchpad::open(&url).unwrap();
    assert_eq!(std::fs::metadata(&reserve).unwrap().len(), 2 << 20);
    pad.delete("plan", None).unwrap();
}

fn free_bytes(path: &Path) -> u64 {
    let out = Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .and_then(|line| line.trim().parse().ok())
        .unwrap_or(0)
}

/// A store on a file system mounted read-only (a snapshot, a shared image) still serves reads, and
/// a write says the store is read-only.
#[test]
fn a_read_only_store_still_serves_reads() {
    let Some(disk) = SmallDisk::mount(32) else {
        return;
    };
    let url = format!("sqlite://{}/pad.db", disk.path().display());
    let pad = Scratchpad::open(&url).unwrap();
    pad.write("plan", "1. reproduce", Default::default())
        .unwrap();
    let log = log_with_errors(40_000, &[20_000]); // a side file
    put(&pad, "log", log.as_bytes()).unwrap();
    drop(pad);
    // The kernel refuses while a file of the mount is still being released: try for a while.
    let remounted = (0..50).any(|_| {
        let done = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(disk.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !done {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        done
    });
    assert!(remounted, "cannot remount the test's tmpfs read-only");
    let pad = Scratchpad::open(&url).unwrap();
    let grep = pad.read("log", &ReadMode::grep("ERROR", 0), None).unwrap();
    assert_eq!(grep.total_matches, Some(1));
    let plan = pad
        .read("plan", &ReadMode::Full { force: false }, None)
        .unwrap();
    assert_eq!(plan.text, "1. reproduce");
    // The note waited for the search index when the disk went read-only: it is found anyway.
    let hits = pad.search("reproduce", 10).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].entry.name, "plan");
    assert_eq!(
        pad.list(&ListFilter::default(), None, 10)
            .unwrap()
            .entries
            .len(),
        2
    );
    let err = pad
        .write("plan", "2. change it", Default::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("read-only"), "{err}");
}
