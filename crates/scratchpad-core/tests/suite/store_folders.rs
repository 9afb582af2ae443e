//! The store's own folders (`pad.db-blobs/`, its `tmp/`, the reserve file next to the database) are
//! never followed through a symbolic link, and what the store did not make there is reported by
//! `gc` and `check`, never deleted or written. The folder that holds the database may itself be
//! reached through a link: that is the user's choice.

use std::path::{Path, PathBuf};
use std::time::Duration;

use scratchpad_core::{Error, ReadMode, Scratchpad};

use crate::common::{log_with_errors, pad, put};

/// A folder outside the store holding files someone cares about, named like what the store makes
/// (a temporary file, a content hash) and not.
struct Victim {
    dir: tempfile::TempDir,
}

impl Victim {
    const FILES: [&str; 4] = [
        "thesis.tex",
        "4242-0-1234567890.part",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "tmp",
    ];

    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for name in Self::FILES {
            std::fs::write(dir.path().join(name), format!("precious {name}\n")).unwrap();
        }
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Every file is still there with its content, and nothing was added.
    fn assert_untouched(&self) {
        for name in Self::FILES {
            let content = std::fs::read_to_string(self.path().join(name))
                .unwrap_or_else(|e| panic!("{name} outside the store is gone: {e}"));
            assert_eq!(content, format!("precious {name}\n"), "{name} was changed");
        }
        let count = std::fs::read_dir(self.path()).unwrap().count();
        assert_eq!(
            count,
            Self::FILES.len(),
            "files were added outside the store"
        );
    }
}

fn blobs_dir(store_dir: &Path) -> PathBuf {
    store_dir.join("pad.db-blobs")
}

fn mentions(lines: &[String], path: &Path, what: &str) -> bool {
    let path = path.display().to_string();
    lines
        .iter()
        .any(|line| line.contains(&path) && line.contains(what))
}

/// Regression: a symbolic link in place of the temporary-file folder made `gc` (which also runs on
/// open and amortized over writes) delete every unlocked file where it pointed.
#[test]
fn gc_never_deletes_through_a_link_in_place_of_the_temporary_folder() {
    let victim = Victim::new();
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path();
    put(&pad, "log", log_with_errors(40_000, &[20_000]).as_bytes());
    let temp = blobs_dir(dir).join("tmp");
    std::fs::remove_dir_all(&temp).unwrap();
    std::os::unix::fs::symlink(victim.path(), &temp).unwrap();

    let report = pad.gc().unwrap();
    victim.assert_untouched();
    assert!(
        mentions(&report.unexpected, &temp, "symbolic link"),
        "{report:?}"
    );
    assert_eq!(report.stale_writes_removed, 0, "{report:?}");
    let check = pad.check(&mut |_| {}).unwrap();
    assert!(
        mentions(&check.unexpected, &temp, "symbolic link"),
        "{check:?}"
    );
    assert!(check.problems.is_empty(), "{check:?}");

    // A new process opening the store (a collection pass runs on open) leaves them alone too.
    drop(pad);
    let pad = Scratchpad::open(&store.url).unwrap();
    victim.assert_untouched();
    // A large write refuses to stage its content through the link, says why, and writes nothing
    // there; what is stored still reads.
    let err = pad
        .put(
            &mut log_with_errors(40_000, &[]).as_bytes(),
            scratchpad_core::PutOptions {
                name: Some("more".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains(&temp.display().to_string()) && message.contains("symbolic link"),
        "{message}"
    );
    victim.assert_untouched();
    let hit = pad.read("log", &ReadMode::grep("ERROR", 0), None).unwrap();
    assert!(hit.text.starts_with("20000:"), "{}", hit.text);
}

/// A link in place of `pad.db-blobs/` itself: its files are neither read nor collected (a file
/// there named like a content hash nothing refers to was deleted as an orphan), and the entries
/// whose content it should hold say why they cannot be read.
#[test]
fn a_link_in_place_of_the_side_file_folder_is_not_followed() {
    let victim = Victim::new();
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path();
    put(&pad, "log", log_with_errors(40_000, &[20_000]).as_bytes());
    let blobs = blobs_dir(dir);
    std::fs::rename(&blobs, dir.join("moved-away")).unwrap();
    std::os::unix::fs::symlink(victim.path(), &blobs).unwrap();

    let report = pad.gc().unwrap();
    victim.assert_untouched();
    assert!(
        mentions(&report.unexpected, &blobs, "symbolic link"),
        "{report:?}"
    );
    let err = pad
        .read("log", &ReadMode::Head { n: Some(10) }, None)
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err:?}");
    assert!(err.to_string().contains("symbolic link"), "{err}");
    let check = pad.check(&mut |_| {}).unwrap();
    assert_eq!(check.problems.len(), 1, "{check:?}");
    assert!(
        mentions(&check.unexpected, &blobs, "symbolic link"),
        "{check:?}"
    );
    victim.assert_untouched();

    // Put back as it was, everything reads again.
    std::fs::remove_file(&blobs).unwrap();
    std::fs::rename(dir.join("moved-away"), &blobs).unwrap();
    assert!(
        pad.read("log", &ReadMode::Head { n: Some(10) }, None)
            .is_ok()
    );
    assert!(pad.gc().unwrap().unexpected.is_empty());
}

/// Links, folders, FIFOs and foreign names inside the side-file folders, each named like what the
/// store makes there: reported, left alone, never followed; a FIFO does not hang a pass.
#[test]
fn whatever_the_store_did_not_make_in_its_folders_is_reported_and_left_alone() {
    let victim = Victim::new();
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path().to_owned();
    let stored = put(&pad, "log", log_with_errors(40_000, &[20_000]).as_bytes());
    let blobs = blobs_dir(&dir);
    let temp = blobs.join("tmp");
    let link_as_temp = temp.join("4242-1-99.part");
    std::os::unix::fs::symlink(victim.path().join("thesis.tex"), &link_as_temp).unwrap();
    let folder_as_temp = temp.join("4242-2-99.part");
    std::fs::create_dir(&folder_as_temp).unwrap();
    let fifo_as_temp = temp.join("4242-3-99.part");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo_as_temp)
        .status()
        .unwrap();
    assert!(made.success());
    let foreign_in_temp = temp.join("notes.txt");
    std::fs::write(&foreign_in_temp, "mine").unwrap();
    let unused_hash = "1".repeat(64);
    let link_as_hash = blobs.join(&unused_hash);
    std::os::unix::fs::symlink(
        victim
            .path()
            .join("0000000000000000000000000000000000000000000000000000000000000000"),
        &link_as_hash,
    )
    .unwrap();
    let foreign_in_blobs = blobs.join("README");
    std::fs::write(&foreign_in_blobs, "mine").unwrap();

    // On a thread: before, a FIFO named like a temporary file blocked the pass forever.
    let url = store.url.clone();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let pad = Scratchpad::open(&url).unwrap();
        let _ = done.send((pad.gc(), pad.check(&mut |_| {})));
    });
    let (report, check) = finished
        .recv_timeout(Duration::from_secs(120))
        .expect("gc hung on a FIFO in the temporary folder");
    let (report, check) = (report.unwrap(), check.unwrap());
    victim.assert_untouched();
    for (path, what) in [
        (&link_as_temp, "symbolic link"),
        (&folder_as_temp, "folder"),
        (&fifo_as_temp, "FIFO"),
        (&foreign_in_temp, "name the store never gives"),
        (&link_as_hash, "symbolic link"),
        (&foreign_in_blobs, "name the store never gives"),
    ] {
        assert!(
            std::fs::symlink_metadata(path).is_ok(),
            "{} was removed",
            path.display()
        );
        assert!(
            mentions(&report.unexpected, path, what),
            "{path:?} {what}: {report:?}"
        );
        assert!(
            mentions(&check.unexpected, path, what),
            "{path:?} {what}: {check:?}"
        );
    }
    assert_eq!(report.unexpected.len(), 6, "{report:?}");
    assert!(check.problems.is_empty(), "{check:?}");
    // The store's own content is untouched by all this.
    assert!(blobs.join(&stored.hash).is_file());
    let hit = pad.read("log", &ReadMode::grep("ERROR", 0), None).unwrap();
    assert!(hit.text.starts_with("20000:"), "{}", hit.text);
}

/// A link in place of the reserve file: opening the store (which sets the reserve aside) wrote 2 MiB
/// of zeros over the file it pointed at.
#[test]
fn the_reserve_file_is_never_written_through_a_link() {
    let victim = Victim::new();
    let (store, pad) = pad();
    let dir = store.dir.as_ref().unwrap().path().to_owned();
    drop(pad);
    let reserve = dir.join("pad.db-reserve");
    std::fs::remove_file(&reserve).unwrap();
    std::os::unix::fs::symlink(victim.path().join("thesis.tex"), &reserve).unwrap();
    let pad = Scratchpad::open(&store.url).unwrap();
    pad.write("plan", "1. reproduce", Default::default())
        .unwrap();
    pad.delete("plan", None).unwrap();
    let report = pad.gc().unwrap();
    victim.assert_untouched();
    assert!(std::fs::symlink_metadata(&reserve).unwrap().is_symlink());
    assert!(
        mentions(&report.unexpected, &reserve, "symbolic link"),
        "{report:?}"
    );
    let check = pad.check(&mut |_| {}).unwrap();
    assert!(
        mentions(&check.unexpected, &reserve, "symbolic link"),
        "{check:?}"
    );
}

/// A store whose folder is reached through a link (a data directory on another disk, linked from
/// the home directory) works as any other, and nothing in it is reported.
#[test]
fn a_store_folder_reached_through_a_link_works() {
    let disk = tempfile::tempdir().unwrap();
    let real = disk.path().join("elsewhere");
    std::fs::create_dir(&real).unwrap();
    let home = tempfile::tempdir().unwrap();
    let share = home.path().join("share");
    std::os::unix::fs::symlink(&real, &share).unwrap();
    let url = format!("sqlite://{}/pad.db", share.display());
    let pad = Scratchpad::open(&url).unwrap();
    let log = log_with_errors(40_000, &[20_000]);
    let stored = put(&pad, "log", log.as_bytes());
    put(&pad, "copy", log.as_bytes());
    assert!(real.join("pad.db-blobs").join(&stored.hash).is_file());
    assert!(real.join("pad.db-reserve").is_file());
    pad.purge("copy", None).unwrap();
    let report = pad.gc().unwrap();
    assert!(report.unexpected.is_empty(), "{report:?}");
    let check = pad.check(&mut |_| {}).unwrap();
    assert!(
        check.unexpected.is_empty() && check.problems.is_empty(),
        "{check:?}"
    );
    let hit = pad.read("log", &ReadMode::grep("ERROR", 0), None).unwrap();
    assert!(hit.text.starts_with("20000:"), "{}", hit.text);
    pad.purge("log", None).unwrap();
    assert!(!real.join("pad.db-blobs").join(&stored.hash).exists());
}
