//! The files of a SQLite store as a user meets them from a shell: links and strangers in the
//! store's folders, a disk another program filled, a `put` that is interrupted.

use crate::common::disk::SmallDisk;
use crate::common::{Pad, log};

/// Regression: a symbolic link in place of `pad.db-blobs/tmp` made `scratchpad gc` delete every
/// file where it pointed. It is left alone and named, and `check` fails on it.
#[test]
fn gc_from_the_shell_leaves_a_linked_folder_alone_and_says_so() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "log"], log(60_000).as_bytes());
    let victim = tempfile::tempdir().unwrap();
    let precious = victim.path().join("4242-0-7.part");
    std::fs::write(&precious, "precious").unwrap();
    let temp = pad.dir.path().join("pad.db-blobs").join("tmp");
    std::fs::remove_dir_all(&temp).unwrap();
    std::os::unix::fs::symlink(victim.path(), &temp).unwrap();

    let out = pad.ok(&["gc"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious");
    let named = format!(
        "NOT MADE BY THE STORE: {} is a symbolic link",
        temp.display()
    );
    assert!(out.contains(&named), "{out}");
    assert!(out.contains("left alone"), "{out}");
    let json = pad.run(&["--json", "gc"]).ok().json();
    assert!(
        json["unexpected"][0]
            .as_str()
            .is_some_and(|line| line.contains("symbolic link")),
        "{json}"
    );
    let check = pad.run(&["check"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(check.stdout.contains(&named), "{}", check.stdout);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious");
    // Reading what is stored is not affected.
    let read = pad.ok(&["read", "log", "--lines", "50005-50005"]);
    assert!(read.contains("ERROR step 50005"), "{read}");
}

/// Regression: once another program filled the disk to its last byte, every command failed with
/// "disk I/O error", `rm` included, so nothing could free space. Reads need no space, writes say
/// the disk is full and what to do, `rm` and `gc` work and give space back.
#[test]
fn every_command_works_or_says_what_to_do_on_a_disk_another_program_filled() {
    let Some(disk) = SmallDisk::mount(24) else {
        return;
    };
    let pad = Pad {
        store: format!("sqlite://{}/pad.db", disk.path().display()),
        dir: tempfile::tempdir().unwrap(),
    };
    pad.ok(&["write", "plan", "1. reproduce\n2. fix"]);
    pad.ok_stdin(&["put", "log"], log(60_000).as_bytes());
    let filler = disk.fill();

    let read = pad.ok(&["read", "plan", "--raw"]);
    assert_eq!(read, "1. reproduce\n2. fix");
    let lines = pad.ok(&["read", "log", "--lines", "50005-50005"]);
    assert!(lines.contains("ERROR step 50005"), "{lines}");
    let grep = pad.ok(&["read", "log", "--grep", "ERROR"]);
    assert!(grep.contains("60000:"), "{grep}");
    let listed = pad.ok(&["ls"]);
    assert!(
        listed.contains("plan") && listed.contains("log"),
        "{listed}"
    );
    let shown = pad.ok(&["show", "log"]);
    assert!(shown.contains("60,000 lines"), "{shown}");
    assert!(pad.ok(&["search", "reproduce"]).contains("plan"));
    assert!(pad.ok(&["check"]).contains("no damage found"));

    for (args, input) in [
        (&["write", "plan", "changed"][..], None),
        (&["append", "plan", "3. ship"][..], None),
        (&["put", "more"][..], Some(log(30_000))),
    ] {
        let run = match input {
            Some(input) => pad.run_stdin(args, input.as_bytes()),
            None => pad.run(args),
        }
        .fails();
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is full")
                && run.stderr.contains("delete entries")
                && run.stderr.contains("scratchpad ls"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(pad.ok(&["read", "plan", "--raw"]), "1. reproduce\n2. fix");

    let free_before = disk.free_bytes();
    pad.ok(&["rm", "log"]);
    assert!(
        disk.free_bytes() > free_before + 1_000_000,
        "rm gave no space back: {free_before} → {} bytes free",
        disk.free_bytes()
    );
    pad.ok(&["gc"]);
    std::fs::remove_file(filler).unwrap();
    pad.ok_stdin(&["put", "log"], log(60_000).as_bytes());
    pad.ok(&["append", "plan", "\n3. ship"]);
    assert!(pad.ok(&["check"]).contains("no damage found"));
}
